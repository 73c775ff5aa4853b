"""Learned card segmentation: a small fully convolutional network run with ``cv2.dnn``.

The network (trained by ``scripts/train_card_segmenter.py`` on rendered scenes) sees the frame
scaled into a fixed INPUT_W x INPUT_H canvas (letterboxed at the top left) and gives, per pixel,
the probabilities of three classes: background (table, hands), card interior (the seen part of
a card) and card boundary (the seen outline of each card, including the line between two cards
that overlap or touch). Connected regions of interior pixels, cut apart by the boundary class,
are the card instances that :mod:`vision.detect` turns into quads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

INPUT_W = 480
"""Network input width in pixels (multiple of 16). The network is fully convolutional: the
shipped weights were trained on 320x240 canvases, and running them on this larger canvas found
more cards on rendered tuning scenes (set seed 1500: recall 66.0% against 58.8% at IoU 0.7,
``scripts/eval_detect_renders.py``)."""
INPUT_H = 368
"""Network input height in pixels (multiple of 16)."""
MODEL_PATH = Path(__file__).resolve().parent / "models" / "card_seg.onnx"
"""The shipped model file."""


def letterbox(image: np.ndarray, canvas_size: tuple[int, int] = (INPUT_W, INPUT_H)) -> tuple[np.ndarray, float]:
    """Scale a BGR frame to fit ``canvas_size`` (width, height; the network input by default),
    aspect kept, and pad it with black at the right and bottom. Returns the canvas and the scale
    factor (canvas pixels per frame pixel)."""
    height, width = image.shape[:2]
    cw, ch = canvas_size
    factor = min(cw / width, ch / height)
    # (at least a pixel: a frame thousands of times taller than wide scales its width to nothing)
    size = (max(1, min(cw, round(width * factor))), max(1, min(ch, round(height * factor))))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    canvas = np.zeros((ch, cw, 3), np.uint8)
    canvas[: size[1], : size[0]] = small
    return canvas, factor


@dataclass(frozen=True, eq=False)
class CardMaps:
    """Per-pixel class probabilities for one frame at the network's scale.

    The arrays cover only the part of the canvas that holds the frame (no letterbox padding):
    ``interior`` and ``boundary`` are float32 (h, w) probabilities, and ``factor`` converts frame
    pixels into these map pixels.
    """

    interior: np.ndarray
    boundary: np.ndarray
    factor: float

    def unsure_share(self, sure: float = 0.8) -> float:
        """Share of map pixels where no class reaches probability ``sure``."""
        background = 1.0 - self.interior - self.boundary
        top = np.maximum(np.maximum(self.interior, self.boundary), background)
        return float((top < sure).mean()) if top.size else 0.0


@dataclass(frozen=True, eq=False)
class CardRegion:
    """One card instance found in the maps: its seen pixels (uint8 0/255 mask at map scale) and
    the mean interior probability over its core."""

    mask: np.ndarray
    area: int
    score: float


class CardSegmenter:
    """The segmentation network, loaded once with ``cv2.dnn`` from an ONNX file."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        self.path = Path(path)
        self._net = cv2.dnn.readNetFromONNX(str(self.path))

    def maps_of_canvas(self, canvas: np.ndarray, used: tuple[int, int]) -> CardMaps:
        """Run the network on a BGR canvas whose sides are multiples of 16 (any size); return
        the maps of its top-left ``used`` (height, width) part, at the canvas's own scale."""
        self._net.setInput(cv2.dnn.blobFromImage(canvas, 1 / 255))
        prob = self._net.forward()
        if prob.shape != (1, 3) + canvas.shape[:2]:
            raise ValueError(f"expected network output (1, 3, {canvas.shape[0]}, {canvas.shape[1]}), got {prob.shape}")
        h, w = used
        return CardMaps(prob[0, 1, :h, :w].copy(), prob[0, 2, :h, :w].copy(), 1.0)

    def maps(self, image: np.ndarray) -> CardMaps:
        """Run the network on a BGR uint8 frame."""
        canvas, factor = letterbox(image)
        # (at least a pixel, as the letterbox keeps: a frame a thousand times taller than wide
        # scales its width to nothing, and empty maps crash OpenCV's labelling)
        h = max(1, min(INPUT_H, round(image.shape[0] * factor)))
        w = max(1, min(INPUT_W, round(image.shape[1] * factor)))
        maps = self.maps_of_canvas(canvas, (h, w))
        return CardMaps(maps.interior, maps.boundary, factor)


@lru_cache(maxsize=4)
def load_segmenter(path: Path = MODEL_PATH) -> CardSegmenter | None:
    """The segmenter for ``path``, or None when the model file does not exist."""
    if not Path(path).is_file():
        return None
    return CardSegmenter(path)


def card_regions(maps: CardMaps, min_area: int = 12) -> list[CardRegion]:
    """Split the maps into card instances.

    A pixel is core when the interior class beats both others; 4-connected core components are
    the instances (the boundary class runs between cards that touch or overlap), each grown by
    one pixel into the boundary band it was cut from, so that the mask covers the card's seen
    outline.
    """
    interior, boundary = maps.interior, maps.boundary
    background = 1.0 - interior - boundary
    core = ((interior > boundary) & (interior > background)).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=4)
    kernel = np.ones((3, 3), np.uint8)
    cardish = (interior + boundary) > 0.5
    regions: list[CardRegion] = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < min_area:
            continue
        x0, y0 = max(0, x - 2), max(0, y - 2)
        x1, y1 = min(core.shape[1], x + w + 2), min(core.shape[0], y + h + 2)
        own = (labels[y0:y1, x0:x1] == k).astype(np.uint8)
        grown = cv2.dilate(own, kernel) & cardish[y0:y1, x0:x1]
        local = np.where(grown | own, 255, 0).astype(np.uint8)
        # big dark print inside a card can read as table: a card's seen part has no holes
        contours, _ = cv2.findContours(local, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(local, contours, -1, 255, cv2.FILLED)
        mask = np.zeros(core.shape, np.uint8)
        mask[y0:y1, x0:x1] = local
        score = float(interior[y0:y1, x0:x1][own > 0].mean())
        regions.append(CardRegion(mask, int(np.count_nonzero(mask)), score))
    return regions
