"""The one class that runs the vision stages on a frame: detect, rectify, read (with a cache).

:class:`CardReader` turns a BGR frame into a :class:`~vision.types.FrameResult`. Readings are
cached per card: a quad whose corners moved by less than ``cache_px`` and whose small gray
thumbnail barely changed is not read again, so a steady frame costs detection plus one tiny warp
per card. Cards the in-process reader cannot read go, all together, to one Tesseract call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.detect import DetectConfig, detect_cards
from vision.errors import InvalidImageError
from vision.read.ocr import read_digits
from vision.read.reader import ACCEPT, READ_H, READ_W, analyse, count_blisters, read_card
from vision.read.types import CardReading, Deck, Face
from vision.rectify import RectifyConfig, rectify
from vision.types import CardDate, CardKind, CardObservation, Detection, FieldConfidences, FrameResult, Quad


@dataclass(frozen=True)
class PipelineConfig:
    """Tunables of :class:`CardReader`.

    ``deck``: values and kinds the cards in play can hold; ``tesseract``: use the fallback;
    ``cache_px``: largest corner shift (pixels) for a cached reading to be reused;
    ``cache_diff``: largest mean absolute thumbnail difference (gray levels) for reuse;
    ``keep_images``: attach the rectified crop to each observation.
    """

    detect: DetectConfig = field(default_factory=DetectConfig)
    rectify: RectifyConfig = field(default_factory=lambda: RectifyConfig(READ_W, READ_H))
    deck: Deck = field(default_factory=Deck)
    tesseract: bool = True
    cache_px: float = 4.0
    cache_diff: float = 12.0
    cache_size: int = 64
    keep_images: bool = False


@dataclass(frozen=True)
class _Cached:
    corners: np.ndarray = field(compare=False)
    thumb: np.ndarray = field(compare=False)
    reading: CardReading


def _thumb(image: np.ndarray, quad: Quad) -> np.ndarray:
    """A 12 x 18 gray thumbnail of the card (orientation as in :meth:`Quad.card_order`)."""
    src = Quad.card_order(quad.as_array()).as_array().astype(np.float32)
    dst = np.float32([[0, 0], [11, 0], [11, 17], [0, 17]])
    m = cv2.getPerspectiveTransform(src, dst)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.warpPerspective(gray, m, (12, 18), flags=cv2.INTER_AREA).astype(np.int16)


class CardReader:
    """Runs detection, rectification and reading; keeps a cache of readings per quad."""

    def __init__(self, config: PipelineConfig = PipelineConfig()) -> None:
        self.config = config
        self._cache: list[_Cached] = []
        self.reads = 0
        """How many crops were read in-process so far (cache misses)."""
        self.ocr_calls = 0
        """How many Tesseract calls were made so far."""

    def read_frame(self, image: np.ndarray) -> FrameResult:
        """Detect and read every card in a BGR frame."""
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise InvalidImageError(f"expected a non-empty image array, got {getattr(image, 'shape', type(image))}")
        return self.read_detections(image, detect_cards(image, self.config.detect))

    def read_detections(self, image: np.ndarray, detections: Sequence[Detection]) -> FrameResult:
        """Read the cards at given detections (e.g. quads kept by a tracker)."""
        h, w = image.shape[:2]
        readings: list[CardReading | None] = []
        crops: list[np.ndarray | None] = []
        fresh: list[tuple[int, np.ndarray, np.ndarray]] = []
        for k, det in enumerate(detections):
            thumb = _thumb(image, det.quad)
            corners = Quad.card_order(det.quad.as_array()).as_array()
            hit = self._lookup(corners, thumb)
            crop = None
            if hit is None or self.config.keep_images:
                crop = rectify(image, det.quad, self.config.rectify)
            if hit is None:
                assert crop is not None
                hit = read_card(crop, self.config.deck) if det.visible else CardReading()
                self.reads += 1
                fresh.append((k, corners, thumb))
            readings.append(hit)
            crops.append(crop)
        if self.config.tesseract:
            self._fallback(readings, crops, detections)
        for k, corners, thumb in fresh:
            self._store(_Cached(corners, thumb, readings[k]))  # type: ignore[arg-type]
        observations = []
        for det, reading, crop in zip(detections, readings, crops):
            assert reading is not None
            ordered = Quad.card_order(det.quad.as_array()).as_array()
            if reading.flipped:
                ordered = np.roll(ordered, -2, axis=0)
            image_out = None
            if crop is not None and self.config.keep_images:
                image_out = cv2.rotate(crop, cv2.ROTATE_180) if reading.flipped else crop
            observations.append(reading.observation(Quad.from_array(ordered), det.visible, image_out))
        return FrameResult(w, h, tuple(observations))

    def read_crop(self, crop: np.ndarray) -> CardReading:
        """Read one rectified card crop (no cache, no fallback)."""
        return read_card(crop, self.config.deck)

    # -- cache ---------------------------------------------------------------------------------

    def _lookup(self, corners: np.ndarray, thumb: np.ndarray) -> CardReading | None:
        for entry in self._cache:
            if (float(np.abs(entry.corners - corners).max()) <= self.config.cache_px
                    and float(np.abs(entry.thumb - thumb).mean()) <= self.config.cache_diff):
                return entry.reading
        return None

    def _store(self, entry: _Cached) -> None:
        self._cache = [e for e in self._cache if float(np.abs(e.corners - entry.corners).max()) > self.config.cache_px]
        self._cache.append(entry)
        del self._cache[: max(0, len(self._cache) - self.config.cache_size)]

    # -- Tesseract fallback ---------------------------------------------------------------------

    def _fallback(self, readings: list[CardReading | None], crops: list[np.ndarray | None],
                  detections: Sequence[Detection]) -> None:
        """Read unread cards' year bands and corner indices with one Tesseract call."""
        deck = self.config.deck
        jobs: list[tuple[int, str, np.ndarray]] = []
        for k, (r, crop, det) in enumerate(zip(readings, crops, detections)):
            if r is None or crop is None or r.kind is not CardKind.UNKNOWN or r.face is not Face.NONE or not det.visible:
                continue
            for turned in (False, True):
                c = cv2.rotate(crop, cv2.ROTATE_180) if turned else crop
                if CardKind.TIMELINE in deck.kinds:
                    jobs.append((k, f"year{int(turned)}", c[int(0.2 * READ_H): int(0.42 * READ_H),
                                                           int(0.06 * READ_W): int(0.94 * READ_W)]))
                if deck.kinds & {CardKind.WALK, CardKind.FINISH}:
                    jobs.append((k, f"corner{int(turned)}", c[int(0.03 * READ_H): int(0.19 * READ_H),
                                                             int(0.03 * READ_W): int(0.45 * READ_W)]))
        if not jobs:
            return
        self.ocr_calls += 1
        texts = read_digits([c for _, _, c in jobs])
        found: dict[int, dict[str, tuple[str, float]]] = {}
        for (k, what, _), t in zip(jobs, texts):
            found.setdefault(k, {})[what] = (t.text.replace(".", ""), t.confidence)
        for k, got in found.items():
            reading = _from_ocr(got, deck, crops[k])
            if reading is not None:
                readings[k] = reading


def _from_ocr(got: dict[str, tuple[str, float]], deck: Deck, crop: np.ndarray | None) -> CardReading | None:
    """A reading from Tesseract texts, or None unless it is unambiguous and within the deck."""
    years = {}
    for end in ("0", "1"):
        text, conf = got.get("year" + end, ("", 0.0))
        if len(text) == 4 and text.isdigit() and deck.years[0] <= int(text) <= deck.years[1] and conf >= 0.8:
            years[end] = (int(text), conf)
    if len(years) == 1:
        end, (year, conf) = next(iter(years.items()))
        c = conf * 0.9
        return CardReading(kind=CardKind.TIMELINE, face=Face.DATE, flipped=end == "1", date=CardDate(year),
                           confidence=c, field_confidences=FieldConfidences(kind=c, date=c),
                           orientation_confidence=c, source="tesseract")
    corners = []
    allowed = set(deck.walk_values) | {deck.finish_value}
    for end in ("0", "1"):
        text, conf = got.get("corner" + end, ("", 0.0))
        if text.isdigit() and int(text) in allowed and conf >= 0.7:
            corners.append((int(text), conf))
    if len(corners) == 2 and corners[0][0] == corners[1][0] and crop is not None:
        value = corners[0][0]
        c = min(corners[0][1], corners[1][1]) * 0.9
        n, bconf, by = count_blisters(analyse(crop))
        kind = CardKind.FINISH if value == deck.finish_value else CardKind.WALK
        blisters = n if bconf >= ACCEPT else None
        return CardReading(kind=kind, face=Face.FRONT, flipped=by is not None and by < 0.5, value=value,
                           blisters=blisters, confidence=min(c, bconf) if blisters is not None else c,
                           field_confidences=FieldConfidences(kind=c, value=c, blisters=bconf),
                           orientation_confidence=0.5, source="tesseract")
    return None


__all__ = ["CardReader", "PipelineConfig"]
