"""Exception base of the calibration package."""


class CalibrationError(Exception):
    """Base of every deliberate error in ``calibration``; messages say what was expected."""
