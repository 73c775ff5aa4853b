"""The one class that runs the vision stages on a frame: detect, rectify, read (with a cache).

:class:`CardReader` turns a BGR frame into a :class:`~vision.types.FrameResult`. Readings are
cached per card: a quad whose corners moved by less than ``cache_px`` and whose small gray
thumbnail barely changed is not read again, so a steady frame costs detection plus one tiny warp
per card. Cards the in-process reader cannot read go, all together, to one Tesseract call.

A pile's outline that takes in the cards below and reads as nothing may come with guesses where
its top card lies (:attr:`~vision.types.Detection.inside`): they are read, and the card is taken
where more than half of them read it surely (and cached with the outline).

Two frame-level steps follow the per-card reading: a card that read as nothing and whose quad
is nearly square in the image (so its long side may have been misjudged) is read once more with
its corners taken a quarter turn round; and bare stone tiles get a size class by measuring
them through the homography of the nearest confidently read card of known size. With
``PipelineConfig.fans`` (still photos), the covered cards of spread hands are then looked for
under the cards read (:mod:`vision.fan`) and reported partly hidden.
"""

from __future__ import annotations

import datetime
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.deblur import MotionBlur, deblur, deblurred_crop, estimate_motion_blur
from vision.detect import TYPICAL_MAX_ASPECT, DetectConfig, detect_cards
from vision.errors import InvalidImageError
from vision.fan import FanCard, find_fans, overlap_share, quad_iou, read_fan_card
from vision.read.ocr import read_date_lines, read_digits
from vision.read.reader import (ACCEPT, BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, CARD_H_MM, CARD_W_MM, READ_H, READ_W,
                                analyse, count_blisters, read_card)
from vision.read.types import CardReading, Deck, Face, TileSize
from vision.rectify import RectifyConfig, outside_mask, rectify
from vision.types import CardDate, CardKind, Detection, FieldConfidences, FrameResult, Quad


@dataclass(frozen=True)
class PipelineConfig:
    """Tunables of :class:`CardReader`.

    ``deck``: values and kinds the cards in play can hold; ``tesseract``: use the fallback;
    ``cache_px``: largest corner shift (pixels) for a cached reading to be reused;
    ``cache_diff``: largest mean absolute thumbnail difference (gray levels) for reuse;
    ``cache_peak``: and largest 95th percentile of it (another card laid where one lay before
    differs only in its print, a small share of the thumbnail: 1872 where 1855 lay, say);
    ``cache_print``: and largest 99th percentile inside the card's margins (a year changed in
    a few digits only: 1992 laid where 1897 lay kept the 95th percentile under ``cache_peak``,
    while sensor noise stays at a few gray levels);
    ``cache_spot``: and largest difference at any one point inside the margins (the edge of a
    card held over this one is a thin line across its print: film 143's 2000, read as 2006 with
    such an edge over its last digit, kept that reading for four frames after the card above
    was gone; of 7,300 reuses in two films 15 differed by more, four of them that 2006);
    ``reuse_diff``: when no pixel of an eighth-size gray copy of the frame changed by more than
    this many gray levels since the last frame, that frame's detections are used again (a still
    table costs no detection; 0 turns this off);
    ``recheck_frames``: an unsure reading (a card flagged partly hidden, read as nothing, or read
    below ``SURE_CONFIDENCE``) is
    taken from the cache, and a frame with one reuses the last detections, for at most this
    many frames; then the frame is detected and the card read afresh (a camera's noise differs
    from frame to frame, and a pile's top card whose outline merged with the cards below may
    come out whole the next time); such a second look uses the in-process readers only (a
    Tesseract call every few frames would cost more than the frame);
    ``partial_recheck``: a year read without the date line printed under it (the line seen, its
    day and month not read) is taken from the cache for at most this many frames, then read
    again with the in-process readers, until the date is read whole (film 169: the accepted
    1884-07-22, read as 1884 under a passing hand, kept that reading for the rest of the game,
    the card looking the same; read afresh, its line read whole on most frames);
    ``keep_images``: attach the rectified crop to each observation;
    ``known_cards``: recognises a rectified crop as a card of the user's enrolled deck (returns a
    reading, or None when unsure); tried before the zero-shot readers; its second argument marks
    the crop pixels from outside the image (None when the card lies inside it), which only
    repeat the image's edge;
    ``read_hidden``: also read cards the detector flags as partly hidden (the top card of a pile
    whose outline merged with the cards below, a card under a corner of another); their blister
    count is dropped (a hidden part may hold blisters, and the outline may take in another
    card's), and the observation keeps ``visible=False``;
    ``fans``: for a deck with walk cards, also look under each card read (in full view or partly
    hidden) for the covered cards of a spread hand (see :mod:`vision.fan`; 0.05-0.5 s a photo on
    the tuning stills, so for still photos, not for every frame of a film); each found replaces a
    partly hidden detection read as nothing in its place and is reported with ``visible=False``;
    ``deblur``: a card left partly unread (its kind, value, blisters or date; of a card flagged
    partly hidden not its blisters) is read once more from the frame with its motion blur taken
    out (:mod:`vision.deblur`) when the frame shows a plain smear (:data:`PLAIN_SMEAR`), and only
    the fields left open are taken from that reading (or the whole reading, when the kind was
    unknown); a reading that names another kind or reads a field differently is ignored. The
    blur is estimated once per frame that needs it (25-60 ms at 1920x1080, and 5-15 ms a card to
    undo): for still photos.
    """

    detect: DetectConfig = field(default_factory=DetectConfig)
    rectify: RectifyConfig = field(default_factory=lambda: RectifyConfig(READ_W, READ_H))
    deck: Deck = field(default_factory=Deck)
    tesseract: bool = True
    cache_px: float = 4.0
    cache_diff: float = 12.0
    cache_peak: float = 30.0
    cache_print: float = 40.0
    cache_spot: float = 80.0
    cache_size: int = 64
    reuse_diff: float = 6.0
    recheck_frames: int = 3
    partial_recheck: int = 15
    keep_images: bool = False
    known_cards: Callable[[np.ndarray, np.ndarray | None], CardReading | None] | None = None
    read_hidden: bool = True
    fans: bool = False
    deblur: bool = False


@dataclass(frozen=True)
class _Cached:
    corners: np.ndarray = field(compare=False)
    thumb: np.ndarray = field(compare=False)
    reading: CardReading
    frame: int = 0
    """The frame number it was read in."""
    sure: bool = True
    """Whether it was read, from a card in full view (an unsure reading is read again after a while)."""
    inside: np.ndarray | None = field(default=None, compare=False)
    """The corners of the card read inside the detected outline (see :attr:`Detection.inside`), or None."""
    partial: bool = False
    """Whether it is a year read over a date line left unread (see ``PipelineConfig.partial_recheck``)."""


THUMB_W, THUMB_H = 24, 36
SURE_CONFIDENCE = 0.5
"""A reading below this confidence is unsure: read again after ``recheck_frames`` like an unread card
(a card read while a shadow or a passing hand still blurred it keeps its doubtful reading otherwise)."""


def _sure(reading: CardReading | None) -> bool:
    """Whether a reading is sure (see ``SURE_CONFIDENCE``)."""
    return reading is not None and reading.kind is not CardKind.UNKNOWN and reading.confidence >= SURE_CONFIDENCE


def _partial(reading: CardReading | None) -> bool:
    """Whether a reading is a year read alone over a date line (see ``PipelineConfig.partial_recheck``)."""
    return (reading is not None and reading.date is not None and reading.date.month is None
            and reading.date_line is not None)


def _names(reading: CardReading) -> tuple:
    """What a reading names a card by: its kind, value and year."""
    return reading.kind, reading.value, reading.date.year if reading.date else None


def _whole_print(reading: CardReading) -> bool:
    """Whether a reading cannot be a fragment of a longer print cut by a bad quad: no date (a
    year may lose a digit) and no value, or one of two digits (no deck prints three)."""
    return reading.date is None and (reading.value is None or reading.value >= 10)


_Found = tuple[Quad, CardReading, np.ndarray]
"""A guess read surely: its quad, reading and crop."""


def _inside_vote(tried: int, read: list[_Found]) -> _Found | None:
    """The card read at one of the guesses inside an outline that read as nothing (see
    :attr:`Detection.inside`), of ``tried`` guesses of which those in ``read`` read surely: the
    surest reading of the (kind, value, year) more than half the guesses read surely; None when
    there is none. (Guesses cutting through the card may read a fragment of its print: film
    101's W29, two of four guesses cut off its 2 and read 9 surely, the other two read nothing.)
    Half the guesses (two at least) do when no sure reading disagrees and the reading cannot be
    such a fragment: no single-digit value (film 127's FINISH on the pile, its 50 read by two of
    four guesses, waited a second for the card to move)."""
    votes: dict[tuple, list[_Found]] = {}
    for found in read:
        r = found[1]
        votes.setdefault(_names(r), []).append(found)
    most = max(votes.values(), key=len, default=[])
    if 2 * len(most) < tried or not most:
        return None
    if 2 * len(most) == tried and (len(votes) > 1 or len(most) < 2 or not _whole_print(most[0][1])):
        return None
    return max(most, key=lambda f: f[1].confidence)


def _thumb(image: np.ndarray, quad: Quad) -> np.ndarray:
    """A small gray thumbnail of the card (orientation as in :meth:`Quad.card_order`)."""
    src = Quad.card_order(quad.as_array()).as_array().astype(np.float32)
    dst = np.float32([[0, 0], [THUMB_W - 1, 0], [THUMB_W - 1, THUMB_H - 1], [0, THUMB_H - 1]])
    m = cv2.getPerspectiveTransform(src, dst)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.warpPerspective(gray, m, (THUMB_W, THUMB_H), flags=cv2.INTER_AREA).astype(np.int16)


SIZES_KEPT = 60
"""How many sizes of cards read sure in full view :meth:`CardReader.card_size` takes the median of."""


class CardReader:
    """Runs detection, rectification and reading; keeps a cache of readings per quad."""

    def __init__(self, config: PipelineConfig = PipelineConfig()) -> None:
        self.config = config
        self._cache: list[_Cached] = []
        self.reads = 0
        """How many cards were read in-process so far (cache misses)."""
        self.turned_reads = 0
        """How many of them were read a second time with the corners taken 90 degrees round."""
        self.known_reads = 0
        """How many crops the enrolled deck recognised (no zero-shot reading needed)."""
        self.ocr_calls = 0
        """How many Tesseract calls were made so far."""
        self.deblurred_reads = 0
        """How many cards were read again from a frame with its motion blur taken out."""
        self.detections_reused = 0
        """How many frames used the previous frame's detections (nothing changed)."""
        self._last: tuple[np.ndarray, list[Detection]] | None = None
        self._frame = 0
        self._last_frame = 0
        """The frame the reused detections were made in."""
        self._unsure = False
        self._smear: tuple[MotionBlur | None] | None = None
        """The plain smear of the frame being read, once estimated (None: not yet; see
        :meth:`_plain_smear`)."""
        """Whether the last frame had a card read unsure (see ``recheck_frames``)."""
        self._sizes: deque[tuple[float, float]] = deque(maxlen=SIZES_KEPT)
        """(short, long) sides of the cards lately read sure in full view (see :meth:`card_size`)."""

    def card_size(self) -> tuple[float, float] | None:
        """The median (short, long) sides in image pixels of the cards lately read sure in full
        view, or None before any: the camera does not move, so the detector takes it for the
        cards' size in a frame where no piece in full view has a card's shape."""
        if not self._sizes:
            return None
        sides = np.array(self._sizes)
        return float(np.median(sides[:, 0])), float(np.median(sides[:, 1]))

    def read_frame(self, image: np.ndarray) -> FrameResult:
        """Detect and read every card in a BGR frame."""
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise InvalidImageError(f"expected a non-empty image array, got {getattr(image, 'shape', type(image))}")
        self._frame += 1
        result = self.read_detections(image, self._detect(image))
        if self.config.fans and CardKind.WALK in self.config.deck.kinds and image.ndim == 3:
            result = self._with_fans(image, result)
        return result

    def _with_fans(self, image: np.ndarray, result: FrameResult) -> FrameResult:
        """``result`` with the covered cards of spread hands under its cards read (see
        :mod:`vision.fan`): a card found so where the detector saw a card in full view or a partly
        hidden one read as a card is left out, and a partly hidden detection read as nothing gives
        way to a card found in its place."""
        # (a partly hidden detection read as a card stands as well)
        seen = [o for o in result.observations if o.visible or o.kind is not CardKind.UNKNOWN]
        # the cards read, in full view or not, as where the hands start (a partly hidden card's
        # outline is the detector's estimate: :func:`vision.fan.find_fans` stops where the cards
        # it gives come out of no card's size)
        seeds = [o for o in seen if o.kind is not CardKind.UNKNOWN]
        cards: list[FanCard] = []
        for card in sorted(find_fans(image, [o.quad for o in seeds], whole=[o.visible for o in seeds]),
                           key=lambda c: -c.score):
            quad = card.quad.as_array()
            # (a card lies under the cards on it only: one lying on another card in full view is
            # that card's outline seen amiss, a whole card beside the hand, say)
            lying_on = [o for o in seen if o.visible and not any(quad_iou(o.quad.as_array(), c.as_array()) >= FAN_SAME
                                                                 for c in card.covers)]
            if all(quad_iou(quad, o.quad.as_array()) < FAN_SAME for o in seen) and all(
                    quad_iou(quad, c.quad.as_array()) < FAN_SAME for c in cards) and all(
                    overlap_share(quad, o.quad.as_array()) < FAN_ON_OTHER for o in lying_on):
                cards.append(card)
        if not cards:
            return result
        kept = [o for o in result.observations
                if o.visible or all(quad_iou(o.quad.as_array(), c.quad.as_array()) < FAN_SAME for c in cards)]
        sharpened = None
        for card in cards:
            reading = read_fan_card(image, card, self.config.deck)
            self.reads += 1
            if self.config.deblur and (reading.kind is CardKind.UNKNOWN or reading.value is None):
                # (the strip read again from the frame with its motion blur taken out, as for the
                # cards the detector found; estimated once for all the hand's covered cards)
                if sharpened is None:
                    blur = self._plain_smear(image)
                    sharpened = image if blur is None else deblur(image, blur)
                if sharpened is not image:
                    reading = _filled_in(reading, _sure_enough(read_fan_card(sharpened, card, self.config.deck)))
                    self.deblurred_reads += 1
            corners = np.roll(card.quad.as_array(), -2 if reading.flipped else 0, axis=0)
            kept.append(reading.observation(Quad.from_array(corners), visible=False))
        return FrameResult(result.width, result.height, tuple(kept))

    def _detect(self, image: np.ndarray) -> list[Detection]:
        """Detections of ``image``, reused from the last frame when nothing visibly changed."""
        if self.config.reuse_diff <= 0:
            return detect_cards(image, self.config.detect, self.card_size())
        h, w = image.shape[:2]
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(gray, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA).astype(np.int16)
        last = self._last
        stale = self._unsure and self._frame - self._last_frame >= self.config.recheck_frames
        if (last is not None and not stale and last[0].shape == small.shape
                and int(np.abs(last[0] - small).max()) <= self.config.reuse_diff):
            self.detections_reused += 1
            return last[1]
        detections = detect_cards(image, self.config.detect, self.card_size())
        self._last = (small, detections)
        self._last_frame = self._frame
        return detections

    def read_detections(self, image: np.ndarray, detections: Sequence[Detection]) -> FrameResult:
        """Read the cards at given detections (e.g. quads kept by a tracker)."""
        self._smear = None  # (a new frame)
        h, w = image.shape[:2]
        readings: list[CardReading | None] = []
        crops: list[np.ndarray | None] = []
        fresh: list[tuple[int, np.ndarray, np.ndarray]] = []
        second_look: set[int] = set()  # unsure cards read again (no Tesseract for them)
        detections = list(detections)
        found_inside: dict[int, np.ndarray] = {}  # cards read at a quad inside their outline
        for k, det in enumerate(detections):
            thumb = _thumb(image, det.quad)
            corners = Quad.card_order(det.quad.as_array()).as_array()
            entry, again = self._lookup(corners, thumb)
            hit = entry.reading if entry is not None else None
            if entry is not None and entry.inside is not None:
                found_inside[k] = entry.inside
                det = detections[k] = replace(det, quad=Quad.from_array(entry.inside), visible=True, inside=(),
                                              also_inside=())
            if again:
                second_look.add(k)
            crop = None
            readable = det.quad.is_convex()  # a bent outline cannot be warped: kept, not read
            if readable and (hit is None or self.config.keep_images):
                crop = rectify(image, det.quad, self.config.rectify)
            if hit is None and det.visible and crop is not None and self.config.known_cards is not None:
                hit = self.config.known_cards(crop, _outside(image.shape, det.quad, self.config.rectify))
                if hit is not None:
                    self.known_reads += 1
                    fresh.append((k, corners, thumb))
            if hit is None:
                readable_now = crop is not None and (det.visible or self.config.read_hidden)
                hit = read_card(crop, self.config.deck) if readable_now else CardReading()
                if not det.visible and hit.blisters is not None and not (
                        _row_in_view(det, detections, image.shape, hit) and _count_holds(image, det, hit, self.config)):
                    hit = hit.without_blisters()
                self.reads += 1
                if det.visible and readable and _retry_turned(hit, det.quad):
                    turned_quad = Quad.from_array(np.roll(Quad.card_order(det.quad.as_array()).as_array(), -1, axis=0))
                    turned_crop = _warp(image, turned_quad, self.config.rectify)
                    second = read_card(turned_crop, self.config.deck)
                    self.turned_reads += 1
                    if second.kind is not CardKind.UNKNOWN:
                        hit = replace(second, turn=1)
                        crop = turned_crop
                if det.inside or det.also_inside:
                    # An outline the detector looked into for a pile's top card: the card read at
                    # the guesses inside it lies on top, in full view (an outline flagged partly
                    # hidden too: a pile seen as pieces). Their vote wins when the outline reads
                    # unsurely, or names another card: the outline's corners may lie on the
                    # cards below, and its reading come from a peeking corner's index alone (film
                    # 166: W40 on W34 read 34 at 0.54-0.69 while every guess read 40 at 0.8, and
                    # W43 on W23 read 23 at 1.0, the other end's 43 cut off by the outline's
                    # corner, a confident wrong reading for 10 frames). Naming the same card, a
                    # sure outline's reading stands: a guess's reading, surer only for leaving the
                    # blister count open, would lose the count (fresh set 1101100: six walks, a gladiola).
                    inner = self._read_in_sets(image, det)
                    if inner is not None and (not _sure(hit) or _names(inner[1]) != _names(hit)):
                        quad, hit, crop = inner
                        found_inside[k] = Quad.card_order(quad.as_array()).as_array()
                        detections[k] = replace(det, quad=quad, visible=True, inside=(), also_inside=())
                hit = _lone_value_open(hit)
                fresh.append((k, corners, thumb))
            readings.append(hit)
            crops.append(crop)
        if self.config.deblur and image.ndim == 3:
            self._read_deblurred(image, readings, crops, detections)
        if self.config.tesseract:
            self._fallback(readings, crops, detections, second_look)
        sure = [_sure(r) and det.visible for r, det in zip(readings, detections)]
        self._unsure = not all(sure)
        for k, corners, thumb in fresh:
            self._store(_Cached(corners, thumb, readings[k], self._frame, sure[k], found_inside.get(k),  # type: ignore[arg-type]
                                _partial(readings[k])))
        _size_tiles(readings, detections, deck_is_appia=CardKind.INCOME in self.config.deck.kinds)
        observations = []
        for det, reading, crop in zip(detections, readings, crops):
            assert reading is not None
            ordered = Quad.card_order(det.quad.as_array()).as_array()
            ordered = np.roll(ordered, -(reading.turn + (2 if reading.flipped else 0)), axis=0)
            image_out = None
            if crop is not None and self.config.keep_images:
                image_out = cv2.rotate(crop, cv2.ROTATE_180) if reading.flipped else crop
            observations.append(reading.observation(Quad.from_array(ordered), det.visible, image_out))
            if det.visible and reading.kind is not CardKind.UNKNOWN and reading.field_confidences.kind >= ACCEPT:
                top, right, bottom, left = det.quad.side_lengths()
                short, long = sorted(((top + bottom) / 2, (right + left) / 2))
                if short <= TYPICAL_MAX_ASPECT * long:
                    self._sizes.append((float(short), float(long)))
        return FrameResult(w, h, tuple(observations))

    def _plain_smear(self, image: np.ndarray) -> MotionBlur | None:
        """The motion blur of the frame being read when it is plain (:data:`PLAIN_SMEAR`), else
        None; estimated once per frame (the detected cards and a spread hand's covered strips
        share it)."""
        if self._smear is None:
            blur = estimate_motion_blur(image)
            self._smear = (blur if blur is not None and blur.prominence >= PLAIN_SMEAR else None,)
        return self._smear[0]

    def _read_deblurred(self, image: np.ndarray, readings: list[CardReading | None],
                        crops: list[np.ndarray | None], detections: Sequence[Detection]) -> None:
        """Fill in (in place) the fields that cards left unread, from the frame with its
        motion blur taken out (see ``PipelineConfig.deblur``)."""
        todo = [k for k, (r, crop, det) in enumerate(zip(readings, crops, detections))
                if r is not None and crop is not None and _fields_open(r, det.visible)]
        if not todo:
            return
        blur = self._plain_smear(image)
        if blur is None:
            return
        for k in todo:
            crop = deblurred_crop(image, detections[k].quad, blur, self.config.rectify)
            self.deblurred_reads += 1
            if self.config.known_cards is not None and detections[k].visible:
                # (the enrolled deck's look, where it knows the card: its plasters come with it)
                again = self.config.known_cards(crop, _outside(image.shape, detections[k].quad, self.config.rectify))
                if again is not None:
                    readings[k] = _filled_in(readings[k], again)  # type: ignore[arg-type]
                    continue
            again = _sure_enough(read_card(crop, self.config.deck))
            # a plaster row is taken from the deblurred crop only where a plaster is longer than
            # the blur (shorter ones come back no surer than the filter's ringing, which has the
            # blur's length), and never as no plasters at all: pale plasters smeared into the
            # paper do not come back
            plaster_px = min(detections[k].quad.side_lengths()) * BLISTER_MM / CARD_W_MM
            # (nor of a partly hidden card: its count stays with the checks made on its first
            # reading)
            if again.blisters is not None and (again.blisters == 0 or plaster_px < blur.length
                                               or not detections[k].visible):
                again = again.without_blisters()
            readings[k] = _filled_in(readings[k], again)  # type: ignore[arg-type]

    def reset(self) -> None:
        """Forget every cached reading and detection (the next frame shows another scene)."""
        self._cache.clear()
        self._last = None
        self._sizes.clear()

    def read_crop(self, crop: np.ndarray) -> CardReading:
        """Read one rectified card crop (no cache, no fallback)."""
        return read_card(crop, self.config.deck)

    def _read_in_sets(self, image: np.ndarray, det: Detection) -> _Found | None:
        """The card read at the guesses of ``det`` (see :func:`_inside_vote`): at the first set,
        or at the second (:attr:`Detection.also_inside`) when the first gives no reading. A
        reading of a first set of one guess is weak: the second set joins its vote (film 136's
        W43, one first guess reading it 13 at 0.8, four of the second 43)."""
        first = self._read_guesses(image, det.inside)
        inner = _inside_vote(*first)
        if inner is None:
            return _inside_vote(*self._read_guesses(image, det.also_inside))
        if len(det.inside) == 1 and det.also_inside:
            tried, read = self._read_guesses(image, det.also_inside)
            return _inside_vote(first[0] + tried, first[1] + read)
        return inner

    def _read_guesses(self, image: np.ndarray, guesses: Sequence[Quad]) -> tuple[int, list[_Found]]:
        """How many of the ``guesses`` were read (the convex ones), and the quad, reading and
        crop of each read surely."""
        read: list[_Found] = []
        convex = [quad for quad in guesses if quad.is_convex()]
        for quad in convex:
            crop = rectify(image, quad, self.config.rectify)
            reading = read_card(crop, self.config.deck)
            self.reads += 1
            if _sure(reading):
                read.append((quad, reading, crop))
        return len(convex), read

    # -- cache ---------------------------------------------------------------------------------

    def _lookup(self, corners: np.ndarray, thumb: np.ndarray) -> tuple[_Cached | None, bool]:
        """The cached entry of this card (None: read it), and whether the card is one whose
        unsure reading is due for a second look."""
        again = False
        for entry in self._cache:
            if float(np.abs(entry.corners - corners).max()) > self.config.cache_px:
                continue
            diff = np.abs(entry.thumb - thumb)
            inner = diff[4:-4, 3:-3]
            if (float(diff.mean()) <= self.config.cache_diff and float(np.percentile(diff, 95)) <= self.config.cache_peak
                    and float(np.percentile(inner, 99)) <= self.config.cache_print
                    and float(inner.max()) <= self.config.cache_spot):
                if ((not entry.sure and self._frame - entry.frame >= self.config.recheck_frames)
                        or (entry.partial and self._frame - entry.frame >= self.config.partial_recheck)):
                    again = True
                    continue
                return entry, False
        return None, again

    def _store(self, entry: _Cached) -> None:
        self._cache = [e for e in self._cache if float(np.abs(e.corners - entry.corners).max()) > self.config.cache_px]
        self._cache.append(entry)
        del self._cache[: max(0, len(self._cache) - self.config.cache_size)]

    # -- Tesseract fallback ---------------------------------------------------------------------

    def _fallback(self, readings: list[CardReading | None], crops: list[np.ndarray | None],
                  detections: Sequence[Detection], skip: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        """Read unread cards' year bands and corner indices with one Tesseract call (not those
        in ``skip``)."""
        deck = self.config.deck
        jobs: list[tuple[int, str, np.ndarray]] = []
        lines: list[tuple[int, np.ndarray]] = []  # year-only readings over a date line
        for k, (r, crop, det) in enumerate(zip(readings, crops, detections)):
            if (r is not None and r.date is not None and r.date.month is None and r.date_line is not None
                    and crop is not None and det.visible and k not in skip):
                lines.append((k, _date_band(crop, r)))
            if (r is None or crop is None or r.kind is not CardKind.UNKNOWN or r.face is not Face.NONE or not det.visible
                    or k in skip):
                continue
            for turned in (False, True):
                c = cv2.rotate(crop, cv2.ROTATE_180) if turned else crop
                if CardKind.TIMELINE in deck.kinds:
                    jobs.append((k, f"year{int(turned)}", c[int(0.2 * READ_H): int(0.42 * READ_H),
                                                           int(0.06 * READ_W): int(0.94 * READ_W)]))
                if deck.kinds & {CardKind.WALK, CardKind.FINISH}:
                    jobs.append((k, f"corner{int(turned)}", c[int(0.03 * READ_H): int(0.19 * READ_H),
                                                             int(0.03 * READ_W): int(0.45 * READ_W)]))
        if lines:
            self.ocr_calls += 1
            for (k, _), text in zip(lines, read_date_lines([band for _, band in lines])):
                readings[k] = _date_from_ocr(text, readings[k])  # type: ignore[arg-type]
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


FAN_SAME = 0.5
"""Least overlap (intersection over union) of two outlines for them to be one card (see
:meth:`CardReader._with_fans`)."""
FAN_ON_OTHER = 0.2
"""Largest share of a covered card found under a hand's card that may lie on another card in full
view (see :meth:`CardReader._with_fans`)."""
AMBIGUOUS_ASPECT = 1.4
"""Below this apparent long/short side ratio a card's quad may have been ordered 90 degrees off."""
CARD_MM: dict[bool, tuple[float, float]] = {True: (56.0, 87.0), False: (59.0, 91.0)}
"""Physical (width, height) of the cards beside the tiles: Via Appia income cards, or any other deck's."""
TILE_SIDES_MM: dict[TileSize, tuple[float, float]] = {TileSize.SMALL: (34.0, 24.0), TileSize.MEDIUM: (48.0, 34.0),
                                                     TileSize.LARGE: (72.0, 34.0)}
"""(long, short) sides of the Via Appia road tiles in millimetres (the renderer's assumption)."""


PLAIN_SMEAR = 4.5
"""Least :attr:`vision.deblur.MotionBlur.prominence` of a frame's smear for it to be taken out
(a kernel the frame does not have leaves ringing that looks like plasters: defocused stills
1102500/64 and /340 read 4 of 3 and 5 of 4; and a sharp photo should not pay for it). On the
tuning stills 1101800, 1101900, 1102400 and 1102500, of the fields taken from deblurred crops
and right, 86-90% were at 4.5 or more (kinds 184 of 213, values 166 of 183, plaster counts 95
of 106), and two of the three wrong counts and the one wrong kind below."""
DEBLURRED_SURE = 0.75
"""Least confidence of a km value or date read from a deblurred crop (the fields read right on
the tuning stills' blurred frames: 10% below 0.78; the three wrong ones at 0.62-0.72)."""


LONE_ACCEPT = 0.75
"""Least confidence of a one-digit km value of a card on the table (tuning set 1102700: W10 read
as 1 and W14 as 4, each at 0.70, one digit lost to blur; lone digits read right at 0.60-0.70
three times). A shown hand's strips have checks of their own (:mod:`vision.hand`)."""


def _lone_value_open(reading: CardReading) -> CardReading:
    """``reading`` with a one-digit walk value below :data:`LONE_ACCEPT` left open (it may be what
    blur or a cover left of two digits); the kind stands."""
    f = reading.field_confidences
    if reading.kind is CardKind.WALK and reading.value is not None and reading.value < 10 and f.value < LONE_ACCEPT:
        return replace(reading, value=None, field_confidences=replace(f, value=0.0))
    return reading


def _outside(shape: tuple[int, ...], quad: Quad, config: RectifyConfig) -> np.ndarray | None:
    """The crop pixels of ``quad`` that come from outside an image of ``shape`` (None when the
    quad lies inside it), as the enrolled deck's hook takes them."""
    h, w = shape[:2]
    corners = quad.as_array()
    inside = bool((corners >= 0).all() and (corners[:, 0] <= w - 1).all() and (corners[:, 1] <= h - 1).all())
    return None if inside else outside_mask((h, w), quad, config)


def _sure_enough(again: CardReading) -> CardReading:
    """A reading of a deblurred crop with its km value or date left open below
    :data:`DEBLURRED_SURE` (the filter can leave a second digit too faint: a 14 or a 21 read as a
    lone 1 at 0.62-0.72)."""
    fc = again.field_confidences
    if fc.value >= DEBLURRED_SURE and fc.date >= DEBLURRED_SURE:
        return again
    return replace(again, value=again.value if fc.value >= DEBLURRED_SURE else None,
                   date=again.date if fc.date >= DEBLURRED_SURE else None)


def _fields_open(reading: CardReading, visible: bool = True) -> bool:
    """Whether ``reading`` leaves open its kind or a field its kind carries (of a card flagged
    partly hidden: its kind, value or date; its plasters may lie under another card)."""
    kind = reading.kind
    if kind is CardKind.UNKNOWN:
        return reading.face is not Face.TILE
    if kind in (CardKind.WALK, CardKind.FINISH) and reading.value is None:
        return True
    if visible and kind in (CardKind.WALK, CardKind.FINISH, CardKind.GLADIOLA, CardKind.START) and \
            reading.blisters is None:
        return True
    return kind is CardKind.TIMELINE and reading.face is Face.DATE and reading.date is None


def _filled_in(reading: CardReading, again: CardReading) -> CardReading:
    """``reading`` with the fields it left open taken from ``again``, a second reading of the
    same card (``again`` whole when ``reading`` did not know the kind; ``reading`` unchanged when
    the two name different kinds or read a field both hold differently)."""
    if reading.kind is CardKind.UNKNOWN:
        return again if again.kind is not CardKind.UNKNOWN else reading
    if again.kind is not reading.kind or any(
            a is not None and b is not None and a != b
            for a, b in ((reading.value, again.value), (reading.blisters, again.blisters), (reading.date, again.date))):
        return reading
    f, g = reading.field_confidences, again.field_confidences
    value, value_conf = (again.value, g.value) if reading.value is None and again.value is not None else (
        reading.value, f.value)
    blisters, blisters_conf = (again.blisters, g.blisters) if reading.blisters is None and \
        again.blisters is not None else (reading.blisters, f.blisters)
    date, date_conf = (again.date, g.date) if reading.date is None and again.date is not None else (
        reading.date, f.date)
    if (value, blisters, date) == (reading.value, reading.blisters, reading.date):
        return reading
    shown = [f.kind] + [c for c, v in ((value_conf, value), (blisters_conf, blisters), (date_conf, date))
                        if v is not None]
    return replace(reading, value=value, blisters=blisters, date=date, confidence=min(shown),
                   field_confidences=replace(f, value=value_conf, blisters=blisters_conf, date=date_conf))


def _aspect(quad: Quad) -> float:
    """Apparent long/short side ratio of a quad (mean of opposite sides)."""
    t, r, b, l = quad.side_lengths()
    a, c = (t + b) / 2, (r + l) / 2
    return max(a, c) / max(1e-6, min(a, c))


def _warp(image: np.ndarray, quad: Quad, config: RectifyConfig) -> np.ndarray:
    """Warp ``quad`` (corners used in the given order, first = top-left) to a portrait crop."""
    w, h = config.width, config.height
    dst = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    m = cv2.getPerspectiveTransform(quad.as_array().astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


ROW_VIEW_MARGIN_MM = 2.0
"""How far (card mm) around the printed blister row must lie in the image and off every other
card's outline for a partly hidden card's count to stand."""


def _row_in_view(det: Detection, detections: Sequence[Detection], shape: tuple[int, ...],
                 reading: CardReading) -> bool:
    """Whether the blister row of a partly hidden card is in plain view: the card runs out of the
    image (so the image's edge hides it, not something lying on it), and its row (with
    :data:`ROW_VIEW_MARGIN_MM` around it) lies inside the image and meets no other card's outline."""
    top = BLISTER_ROW_MM.get(reading.kind)
    if top is None:
        return False
    h, w = shape[:2]
    src = Quad.card_order(det.quad.as_array()).as_array().astype(np.float32)
    if src[:, 0].min() >= 1 and src[:, 1].min() >= 1 and src[:, 0].max() <= w - 2 and src[:, 1].max() <= h - 2:
        return False  # hidden by something on the table, which may lie over the row
    m = ROW_VIEW_MARGIN_MM
    y0, y1 = top - m, top + BLISTER_H_MM + m
    if reading.flipped:
        y0, y1 = CARD_H_MM - y1, CARD_H_MM - y0
    sx, sy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    x0, x1 = 4.9 - m, CARD_W_MM - 4.9 + m
    band = np.array([[x0 * sx, y0 * sy], [x1 * sx, y0 * sy], [x1 * sx, y1 * sy], [x0 * sx, y1 * sy]], np.float32)
    dst = np.array([[0, 0], [READ_W - 1, 0], [READ_W - 1, READ_H - 1], [0, READ_H - 1]], np.float32)
    poly = cv2.perspectiveTransform(band[None], cv2.getPerspectiveTransform(dst, src))[0]
    if poly[:, 0].min() < 1 or poly[:, 1].min() < 1 or poly[:, 0].max() > w - 2 or poly[:, 1].max() > h - 2:
        return False
    for other in detections:
        if other is det:
            continue
        area, _ = cv2.intersectConvexConvex(poly, other.quad.as_array().astype(np.float32))
        if area > 0:
            return False
    return True


HOLD_GROW = 0.04
"""How much (fraction of the card's size) :func:`_count_holds` widens a partly hidden card's
outline on every side to read its blisters again."""


def _count_holds(image: np.ndarray, det: Detection, reading: CardReading, config: PipelineConfig) -> bool:
    """Whether a partly hidden card's blister count is read the same from a slightly larger
    outline: where the outline was mended short of the card's true edge, the larger one shows
    the plaster it had cut off."""
    corners = det.quad.as_array().astype(np.float64)
    centre = corners.mean(axis=0)
    grown = Quad.from_array(centre + (corners - centre) * (1.0 + 2 * HOLD_GROW))
    again = read_card(rectify(image, grown, config.rectify), config.deck)
    return again.kind is reading.kind and again.blisters == reading.blisters


def _retry_turned(reading: CardReading, quad: Quad) -> bool:
    """Whether to read the card again with its corners taken 90 degrees round: nothing was read,
    it is not a bare tile, and the quad is square enough that its long side may be misjudged."""
    return reading.kind is CardKind.UNKNOWN and reading.face is not Face.TILE and _aspect(quad) < AMBIGUOUS_ASPECT


def _size_tiles(readings: list[CardReading | None], detections: Sequence[Detection], deck_is_appia: bool) -> None:
    """Give bare stone tiles a size class (in place), measured against a card of known size.

    The table is a plane, so the quad of a card of known size (a confidently read card: an
    income card beside Via Appia tiles) fixes the map from table millimetres to image pixels
    around it. Each tile's corners are taken back through the nearest such card's map and
    its sides measured in millimetres; the class with the nearest (long, short) sides wins
    (small 34 x 24, medium 48 x 34, large 72 x 34). Without a reference card tiles stay
    unsized: from pixels alone, perspective hides both the scale and the true side ratio.
    """
    card_w, card_h = CARD_MM[deck_is_appia]
    card_mm = np.float32([[0, 0], [card_w, 0], [card_w, card_h], [0, card_h]])
    refs: list[tuple[np.ndarray, np.ndarray]] = []  # (centre, image -> table mm homography)
    for r, det in zip(readings, detections):
        if r is None or not det.visible or r.kind is CardKind.UNKNOWN or r.field_confidences.kind < ACCEPT:
            continue
        corners = Quad.card_order(det.quad.as_array()).as_array().astype(np.float32)
        refs.append((np.array(det.quad.centroid), cv2.getPerspectiveTransform(corners, card_mm)))
    if not refs:
        return
    for k, (r, det) in enumerate(zip(readings, detections)):
        # with Via Appia's deck any unread piece is measured: the cards (56 x 87 mm) match no
        # tile class, so only tiles get a size; elsewhere only pieces that look like bare stone
        candidate = r is not None and r.kind is CardKind.UNKNOWN and (deck_is_appia or r.face is Face.TILE)
        if r is None or not candidate or not det.visible:
            continue
        centre = np.array(det.quad.centroid)
        _, to_mm = min(refs, key=lambda ref: float(np.linalg.norm(ref[0] - centre)))
        mm = cv2.perspectiveTransform(det.quad.as_array().reshape(1, 4, 2).astype(np.float64), to_mm)[0]
        sides = np.linalg.norm(np.roll(mm, -1, axis=0) - mm, axis=1)
        a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        long_mm, short_mm = max(a, b), min(a, b)
        dists = sorted((abs(np.log(long_mm / TILE_SIDES_MM[size][0])) + abs(np.log(short_mm / TILE_SIDES_MM[size][1])),
                        size.value) for size in TileSize)
        (d1, best), (d2, _) = dists[0], dists[1]
        conf = float(np.clip(1.0 - d1 / 0.3, 0, 1) * np.clip((d2 - d1) / 0.25, 0, 1))
        if conf >= ACCEPT:
            readings[k] = replace(r, face=Face.TILE, tile=TileSize(best), confidence=conf)


def _date_band(crop: np.ndarray, reading: CardReading) -> np.ndarray:
    """The unread date line of a year-only ``reading`` (``CardReading.date_line``), cut from its
    crop turned upright."""
    upright = cv2.rotate(crop, cv2.ROTATE_180) if reading.flipped else crop
    h, w = upright.shape[:2]
    x0, y0, x1, y1 = reading.date_line  # type: ignore[misc]
    return upright[int(y0 * h): max(int(y0 * h) + 1, int(np.ceil(y1 * h))),
                   int(x0 * w): max(int(x0 * w) + 1, int(np.ceil(x1 * w)))]


def _date_from_ocr(text: str, reading: CardReading) -> CardReading:
    """``reading`` (a year read alone over a date line) with the full date Tesseract read in that
    line (:func:`~vision.read.ocr.read_date_lines`) when it is ``d.m.yyyy`` with the year read
    large above it and a day and month that exist; else ``reading`` unchanged. (Tesseract's own
    word confidence is no help here: it put clean lines at 0.4 and misreads at 0.9.)"""
    year = reading.date.year  # type: ignore[union-attr]
    parts = text.split(".")
    if len(parts) != 3 or parts[2] != str(year) or not all(p.isdigit() and len(p) <= 2 for p in parts[:2]):
        return reading
    day, month = int(parts[0]), int(parts[1])
    try:
        datetime.date(year, month, day)
    except ValueError:  # a day or month no calendar has is no reading
        return reading
    return replace(reading, date=CardDate(year, month, day))


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
