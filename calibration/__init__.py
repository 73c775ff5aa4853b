"""Camera and table geometry, lens, and the learned deck. Never imports ``companion``."""

from calibration.errors import CalibrationError

__all__ = ["CalibrationError"]
