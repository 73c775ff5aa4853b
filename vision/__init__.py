"""Pixels to card observations: loading frames, finding cards, rectifying them.

``vision`` knows nothing about game rules and never imports ``companion``.
"""

from vision.detect import DetectConfig, detect_cards
from vision.errors import ImageLoadError, InvalidImageError, InvalidQuadError, VisionError
from vision.io import load_image
from vision.rectify import RectifyConfig, rectify
from vision.types import (
    CardDate,
    CardKind,
    CardObservation,
    Detection,
    FieldConfidences,
    FrameResult,
    Quad,
)

__all__ = [
    "CardDate",
    "CardKind",
    "CardObservation",
    "DetectConfig",
    "Detection",
    "FieldConfidences",
    "FrameResult",
    "ImageLoadError",
    "InvalidImageError",
    "InvalidQuadError",
    "Quad",
    "RectifyConfig",
    "VisionError",
    "detect_cards",
    "load_image",
    "rectify",
]
