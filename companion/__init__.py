"""The table companion: watches a card game through a webcam and judges the moves."""

from companion.errors import CompanionError, DataFileError, IllegalAction, UnknownGame

__all__ = ["CompanionError", "DataFileError", "IllegalAction", "UnknownGame"]
__version__ = "0.1.0"
