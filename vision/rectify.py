"""Warping a card's quad to a canonical upright card image."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import InvalidImageError, InvalidQuadError
from vision.types import Quad

UpsideDownHook = Callable[[np.ndarray], bool]
"""Given a rectified portrait card image, return True if it is upside down."""


@dataclass(frozen=True)
class RectifyConfig:
    """Output size of rectified cards (portrait: width < height)."""

    width: int = 300
    height: int = 460

    def __post_init__(self) -> None:
        if not (0 < self.width < self.height):
            raise InvalidImageError(f"expected 0 < width < height for a portrait card, got {self.width}x{self.height}")


def rectify(
    image: np.ndarray,
    quad: Quad,
    config: RectifyConfig = RectifyConfig(),
    upside_down: UpsideDownHook | None = None,
) -> np.ndarray:
    """Return the card inside ``quad`` as an upright ``config.height x config.width`` image.

    The quad's corners are re-ordered with :meth:`Quad.card_order`, so the long side ends up
    vertical whatever order the caller gave. ``upside_down`` is the hook for deciding from the
    content which end is really the top: if it returns True the output is turned by 180 degrees.
    """
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise InvalidImageError(f"expected a non-empty image array, got {getattr(image, 'shape', type(image).__name__)}")
    if not quad.is_convex():
        raise InvalidQuadError(f"expected a convex quad, got corners {quad.to_json()}")
    ordered = Quad.card_order(quad.as_array())
    src = ordered.as_array().astype(np.float32)
    w, h = config.width, config.height
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    card = cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if upside_down is not None and upside_down(card):
        card = cv2.rotate(card, cv2.ROTATE_180)
    return card
