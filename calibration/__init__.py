"""Camera and table geometry, lens, and the learned deck. Never imports ``companion``."""

from calibration.errors import CalibrationError

__all__ = ["CalibrationError"]
from calibration.lens import BoardSpec, LensCalibration, Undistorter, calibrate_lens
from calibration.markers import DEFAULT_SHEET, MarkerSheet
from calibration.profile import Profile, default_profile_dir, load_profile, save_profile
from calibration.table import (
    APPIA_INCOME_CARD,
    GLADIOLA_CARD,
    VALAIS_CARD,
    CardSize,
    TableGeometry,
    calibrate_from_card,
    calibrate_from_markers,
    calibrate_from_points,
)

__all__ += [
    "APPIA_INCOME_CARD", "BoardSpec", "CardSize", "DEFAULT_SHEET", "GLADIOLA_CARD", "LensCalibration",
    "MarkerSheet", "Profile", "TableGeometry", "Undistorter", "VALAIS_CARD", "calibrate_from_card",
    "calibrate_from_markers", "calibrate_from_points", "calibrate_lens", "default_profile_dir",
    "load_profile", "save_profile",
]
