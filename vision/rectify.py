"""Warping a card's quad to a canonical upright card image, and where that image lies outside the frame."""

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
    w, h = config.width, config.height
    card = cv2.warpPerspective(image, _card_matrix(quad, config), (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    if upside_down is not None and upside_down(card):
        card = cv2.rotate(card, cv2.ROTATE_180)
    return card


def _card_matrix(quad: Quad, config: RectifyConfig) -> np.ndarray:
    """The homography from image pixels to the rectified crop of ``quad`` (see :func:`rectify`)."""
    if not quad.is_convex():
        raise InvalidQuadError(f"expected a convex quad, got corners {quad.to_json()}")
    src = Quad.card_order(quad.as_array()).as_array().astype(np.float32)
    w, h = config.width, config.height
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def outside_mask(image_size: tuple[int, int], quad: Quad, config: RectifyConfig = RectifyConfig()) -> np.ndarray:
    """Which pixels of :func:`rectify`'s crop of ``quad`` come from outside the image.

    ``image_size`` is the image's (height, width), e.g. ``image.shape[:2]``. Returns a boolean
    ``config.height x config.width`` mask, True where the crop only repeats the image's edge (the
    card runs out of the frame there). It is the mask of the crop as cut, before any turn by an
    ``upside_down`` hook.
    """
    ih, iw = int(image_size[0]), int(image_size[1])
    if ih <= 0 or iw <= 0:
        raise InvalidImageError(f"expected a positive image size (height, width), got {image_size}")
    w, h = config.width, config.height
    back = np.linalg.inv(_card_matrix(quad, config))
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    src = cv2.perspectiveTransform(np.stack([xs, ys], axis=-1).reshape(1, -1, 2), back).reshape(h, w, 2)
    # Within half a pixel of the edge the crop still interpolates real pixels.
    return (src[..., 0] < -0.5) | (src[..., 0] > iw - 0.5) | (src[..., 1] < -0.5) | (src[..., 1] > ih - 0.5)
