"""Exception hierarchy of the ``vision`` package.

Every error raised on purpose by ``vision`` derives from :class:`VisionError`, so a caller
(the command line, the evaluator) can catch one type and print a one-line message. Messages
say what was expected and what was got.
"""

from __future__ import annotations


class VisionError(Exception):
    """Base of every deliberate error in ``vision``."""


class ImageLoadError(VisionError):
    """An image file could not be turned into a usable BGR frame.

    ``path`` is the file that was asked for; the message says what was wrong with it.
    """

    def __init__(self, path: object, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.reason = message


class InvalidImageError(VisionError):
    """An in-memory image array has the wrong shape, dtype or size for a vision stage."""


class InvalidQuadError(VisionError):
    """Four corners that do not form a usable convex card outline."""
