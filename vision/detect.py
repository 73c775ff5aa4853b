"""Finding cards in a frame as four-corner outlines (vision stages 1 and 2).

Two paths. When ``DetectConfig.use_segmenter`` is on and the segmentation model
(``vision/models/card_seg.onnx``, see :mod:`vision.segment`) is present, a small network run
with ``cv2.dnn`` labels every pixel of a 480x368 copy of the frame as table, card interior or
card outline; each connected interior region is one card. Its convex hull is reduced to a quad,
and the corners of cards in full view are refined on the full-resolution image as below (step
4; a pile's top card seen closer whose outline runs on over the card below, longer than a card,
is cut back to the straight edge of its own across that outline; so is a partly hidden piece
the closer look, below, did not resolve; a closer look that cut a card off is taken again,
wider; an outline of no single card's shape, too skewed or square, or a partly hidden piece
bigger than a card, is a pile seen as one: the card-shaped quad inside it whose sides lie on
image edges and on the network's outlines is taken as its top card, see :func:`_top_card`; so is
one inside an outline of a card's shape that shows a card's edge well inside and runs on past one
side of that quad, see ``TOP_PAST``).
A region that fills its quad
poorly, or fills it without a card's shape (the seen strip of a card in a hand), is a partly
hidden card: when it is cut short along one axis it is completed to the typical card size,
under the card lying on it (in a hand, the direction spreads from the card on top down the row)
or out of the image when it runs off the frame, and reported with ``visible=False``. On a frame
the network is partly unsure about (real photos), the classical path runs too: its confident cards
where the network's maps are unsure are added, or replace the less sure segmented findings they
touch (see :func:`_fuse`). Without the model file the classical path runs.

Classical pipeline (all of it runs at a reduced working resolution except the corner refinement):

1. Candidate regions from three complementary masks, so that one failing cue does not lose a
   card: (a) the inside of closed edge rings (Canny on lightness and saturation, closed by a
   small dilation; the holes of the edge map are card faces even when wood grain touches the
   outline), (b) lightness above the local background (adaptive threshold: white cards on
   dark or textured tables), (c) a global Otsu split of lightness (big uniform cards), also
   closed across thin dark lines (a cable lying over a card), for whole cards only.
2. Each region's convex hull is reduced to a quadrilateral and checked: area relative to the
   frame, side ratio, corner angles, how well the quad fits the region. Every quad must then be
   backed by image edges: a lightness or saturation step along most of each side that is not
   cut by the frame border. A region that leaks into the table (a weak card edge merging with
   wood grain) is opened with a large disc to cut the streaks off, and its quad is fitted to the
   region's own outline where that runs along it, or snapped to the strongest nearby edge lines
   (a line printed near the card's edge may be stronger than the edge), before the same check.
3. Overlapping candidates are merged by score; a candidate that is the union of two or more
   other candidates (touching cards seen as one blob) is dropped in favour of its parts, and a
   candidate lying inside a bigger card (a court card's picture frame) is dropped, unless it lies
   off the bigger one's centre and scores clearly better (then the bigger one is the card with a
   piece of the table beside it, and goes). When such a
   blob holds one whole card in a corner (a card lying partly on another), the card below is
   completed as a quad of the same size anchored at the blob's opposite corner (visible=False).
4. Corners are refined at full resolution: each side is re-found as the strongest gradient
   across it at points along its straight middle part, a robust line is fitted, and adjacent
   lines are intersected (this also gives the virtual corner of rounded cards).
5. Regions that fit a card only after filling in a part hidden by another card, or quads cut by
   the frame border, are reported with ``visible=False``. Such pieces, and any card much smaller
   than the best one in view, must be of a size that fits the other cards in the frame.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.errors import InvalidImageError
from vision.segment import MODEL_PATH, CardMaps, CardRegion, CardSegmenter, card_regions, load_segmenter
from vision.types import Detection, Quad


@dataclass(frozen=True)
class DetectConfig:
    """Tunables of :func:`detect_cards`. Sizes are relative to the frame so they fit any resolution."""

    work_max_side: int = 640
    """The frame is shrunk so that its longer side is at most this many pixels for detection."""
    min_area_frac: float = 0.004
    """Smallest card area as a fraction of the frame area."""
    max_area_frac: float = 0.6
    """Largest card area as a fraction of the frame area."""
    min_aspect: float = 0.45
    """Smallest accepted short/long side ratio of the quad (a 0.7 card tilted 40 degrees gives ~0.54)."""
    max_aspect: float = 0.97
    """Largest accepted short/long side ratio."""
    max_angle_dev: float = 40.0
    """Largest deviation of a quad's corner angle from 90 degrees."""
    canny_low: int = 30
    canny_high: int = 90
    adaptive_block_frac: float = 0.6
    """Adaptive threshold window as a fraction of the working image's shorter side."""
    open_frac: float = 0.025
    """Opening kernel for the lightness masks as a fraction of the working image's shorter side."""
    adaptive_offset: float = 12.0
    """How much lighter than its neighbourhood a pixel must be to count as card (0-255 scale)."""
    min_fill: float = 0.86
    """Smallest ratio of region area to fitted quad area for a fully visible card."""
    min_occluded_fill: float = 0.5
    """Smallest such ratio for a card reported as partly hidden."""
    min_coverage: float = 0.85
    """Fraction of a quad's outline that must follow the region's outline for an edge-ring card."""
    nms_iou: float = 0.5
    """Candidates overlapping an accepted one by more than this IoU are duplicates."""
    refine: bool = True
    """Refine corners on the full-resolution image."""
    refine_samples: int = 24
    """Points sampled along each side for refinement."""
    min_edge_support: float = 0.45
    """Fraction of side samples that must sit on a strong edge for a confident detection."""
    min_confidence: float = 0.3
    """Detections scoring below this are dropped."""
    border_margin_frac: float = 0.004
    """A corner within this fraction of the frame's longer side of the border marks the card as cut."""
    min_piece_frac: float = 0.35
    """A partly hidden or cut card must have at least this fraction of the typical visible card's area."""
    min_lone_piece_support: float = 0.9
    """Edge support a partly hidden card needs when no fully visible card gives the typical size."""
    lone_piece_area_factor: float = 4.0
    """With no fully visible card in view, a partly hidden one must be this many times ``min_area_frac``."""
    min_piece_polarity: float = 0.8
    """Share of a partly hidden card's edge points that must be lighter (or all darker) inside."""
    rescue_open_frac: float = 0.25
    """Disc size, relative to a leaking region's width, used to cut streaks off a card face."""
    min_rescue_polarity: float = 0.85
    """Share of a rescued card's edge points that must be lighter (or all darker) inside."""
    min_relative_area: float = 0.3
    """Fully visible cards smaller than this fraction of the best-scoring card's area are dropped."""
    support_step: float = 10.0
    """Smallest step across a quad side (0-255 scale, lightness or saturation) that counts as an edge."""
    min_side_support: float = 0.55
    """Every uncut side of a fully visible card must have at least this fraction of its points on an edge."""
    min_mean_support: float = 0.75
    """Mean edge support over the uncut sides of a fully visible card."""
    min_occluded_support: float = 0.5
    """Mean edge support over the uncut sides of a partly hidden card."""
    use_segmenter: bool = True
    """Find cards with the learned segmentation network when its model file exists (the classical
    masks-and-contours path is used otherwise, and for frames the network is unsure about, see
    ``seg_max_unsure``)."""
    segmenter_path: Path = MODEL_PATH
    """The ONNX model of the segmentation network."""
    seg_visible_fill: float = 0.9
    """A segmented card whose seen pixels fill less than this share of its quad is partly hidden."""
    seg_min_score: float = 0.5
    """Smallest mean interior probability of a segmented card."""
    seg_max_unsure: float = 0.12
    """When more than this share of the frame's map pixels has no class above 0.8 probability,
    the frame is unlike anything the network was trained on (real wood grain, say) and the
    classical path runs instead (1: never). Rendered scenes have at most about 0.22 of such
    pixels (median 0.04), the real webcam photos of playing cards on wood 0.1 to 0.67."""
    seg_zoom: float = 2.0
    """A partly hidden segmented piece (a pile, a fan, touching cards seen as one) is segmented
    again from its part of the frame scaled to this many times the whole-frame scale (at most
    the frame's own); 1 turns this off."""
    seg_zoom_margin: float = 0.15
    """How much the box of a piece is grown for that closer look, relative to its longer side."""
    seg_zoom_fill: float = 0.97
    """Pieces that fill less than this share of their quad get the closer look (a pile seen as
    one card fills its quad a little less than a card does)."""
    seg_split_area: float = 1.6
    """A whole-looking segmented card bigger than this many times the median whole card of the
    frame (3 or more of them) is looked at closer, and split when that shows two cards or more."""
    fuse_classical: bool = False
    """Also run the classical path and add its confident, fully visible cards that no segmented
    card overlaps (helps on real photos whose look the network has not learned; costs time)."""
    fuse_min_confidence: float = 0.7
    """Smallest confidence of a classical card added by ``fuse_classical``."""
    seg_beside_unsure: float = 0.25
    """On a frame the classical path runs for (``seg_max_unsure``) with up to this share of unsure
    map pixels, the network's cards of at least ``seg_beside_confidence`` and a card's shape that
    lie beside every classical card are kept too: the network sees some cards the classical path
    misses (real photos cam_image46's king and cam_image48's jack on the dark, shadowed half of
    the table, unsure shares 0.155 and 0.181). More unsure frames (the single-card photos, 0.5
    to 0.67) are left to the classical path alone: there the network outlines shadows and grain."""
    seg_beside_confidence: float = 0.6
    """See ``seg_beside_unsure``."""
    seg_fuse_unsure: float = 0.05
    """On a frame the network is used for but partly unsure about (more than this share of unsure
    map pixels, see ``seg_max_unsure``; the real photos the network is used for have 0.07 to
    0.12, rendered scenes a median of 0.04), the classical path runs too and the two paths'
    findings are combined (see :func:`_fuse`); 1 turns this off. Below, the frame is the
    network's own and the classical path's time is saved."""


def config_with(config: DetectConfig, assignments: list[str]) -> DetectConfig:
    """``config`` with numeric fields set from ``FIELD=NUMBER`` strings (for tuning scripts)."""
    for item in assignments:
        name, _, value = item.partition("=")
        current = getattr(config, name, None)
        if not isinstance(current, (int, float)) or isinstance(current, bool):
            raise ValueError(f"expected FIELD=NUMBER for a numeric DetectConfig field, got {item!r}")
        try:
            config = replace(config, **{name: type(current)(float(value))})
        except ValueError:
            raise ValueError(f"expected a number after {name}=, got {value!r}") from None
    return config


@dataclass(frozen=True)
class _Candidate:
    quad: np.ndarray  # (4, 2) float64, working-image pixels, clockwise on screen
    area: float  # quad area
    fill: float  # how well the region explains the quad, in [0, 1]
    score: float
    occluded: bool
    support: float = 1.0  # mean fraction of the uncut sides' points lying on an image edge
    polarity: float = 1.0  # share of those edge points whose lightness step has the majority sign


def detect_cards(image: np.ndarray, config: DetectConfig = DetectConfig(),
                 card_size: tuple[float, float] | None = None) -> list[Detection]:
    """Find every card in a BGR (or grayscale) uint8 frame.

    Returns detections sorted by confidence, highest first, with quads in full-resolution
    image pixels ordered as described in :meth:`vision.types.Quad.card_order`. ``card_size``:
    the (short, long) sides in image pixels of cards seen in earlier frames of the same camera,
    the typical size when no piece in full view has a card's shape (see :func:`_typical_size`).
    """
    frame = _validate(image)
    if config.use_segmenter:
        segmenter = load_segmenter(Path(config.segmenter_path))
        if segmenter is not None:
            maps = segmenter.maps(frame)
            unsure = maps.unsure_share()
            if unsure > config.seg_max_unsure:
                # a scene unlike the network's training (e.g. real wood grain): classical path
                found = _detect_classical(frame, config)
                if unsure <= config.seg_beside_unsure:
                    found = _beside(found, _detect_segmented(frame, segmenter, config, maps, card_size), config)
                return found
            found = _detect_segmented(frame, segmenter, config, maps, card_size)
            if config.fuse_classical or unsure > config.seg_fuse_unsure:
                # (not closed across thin lines: that joins a fan of cards the network sees apart,
                # and a whole card it does not see is not cut by a line but by its unsureness)
                found = _fuse(found, _detect_classical(frame, config, bridged=False), config, maps, frame.shape[:2])
            return found
    return _detect_classical(frame, config)


BESIDE_OVERLAP = 0.1
"""A segmented card kept beside the classical ones (see ``DetectConfig.seg_beside_unsure``)
overlaps none of them by more than this share of its area."""


def _beside(classical: list[Detection], segmented: list[Detection], config: DetectConfig) -> list[Detection]:
    """The ``classical`` cards and the confident ``segmented`` cards of a plausible shape lying
    beside all of them (see ``DetectConfig.seg_beside_unsure``), most confident first."""
    out = list(classical)
    for det in segmented:
        quad = det.quad.as_array()
        area = abs(_shoelace(quad))
        if (det.confidence >= config.seg_beside_confidence and _plausible_shape(quad, config)
                and all(_poly_overlap(_clockwise(quad), _clockwise(o.quad.as_array())) <= BESIDE_OVERLAP * area
                        for o in out)):
            out.append(det)
    out.sort(key=lambda d: -d.confidence)
    return out


FUSE_TOUCH = 0.2
"""A classical and a segmented card overlapping by more than this share of the smaller one's area
are two findings of the same card (or of parts of it)."""


FUSE_WITHIN = 0.7
"""A classical card lying by more than this share of its area inside a bigger segmented card is
a print on that card (the classical path finds printed panels as confidently as cards)."""


FUSE_TABLE = 0.5
"""A classical card is not taken where more than this share of its map pixels are sure table
(probability above 0.8): squares of a checked cloth, say. Real cards the network is unsure of
have at most 0.35 of such pixels."""


FUSE_UNSURE = 0.3
"""... and only where at least this share of its map pixels are unsure (no class above 0.8): the
network has not seen such a card's look (real card stock under room light); where it is sure,
its own findings stand (the classical path takes printed panels and table squares for cards)."""


def _fuse(
    segmented: list[Detection], classical: list[Detection], config: DetectConfig,
    maps: CardMaps | None = None, shape: tuple[int, int] | None = None,
) -> list[Detection]:
    """The two paths' findings combined: each confident classical card (at least
    ``fuse_min_confidence``), fully visible or cut only by the frame border (of a frame of
    ``shape``), where the segmenter's ``maps`` are not sure of table (see ``FUSE_TABLE``), is
    added when it touches no segmented card (see ``FUSE_TOUCH``), and replaces the segmented
    cards it touches when each of those is less sure of itself (a print inside the card, a piece
    of it, or a quad running off it). A segmented card at least as
    confident stands, and keeps the classical card out; so does a bigger segmented card the
    classical one lies inside (see ``FUSE_WITHIN``)."""
    out = list(segmented)
    table = unsure = None
    if maps is not None:
        background = 1.0 - maps.interior - maps.boundary
        table = background > 0.8
        unsure = np.maximum(np.maximum(maps.interior, maps.boundary), background) < 0.8
    for det in sorted(classical, key=lambda d: -d.confidence):
        quad = det.quad.as_array()
        # a card cut by the frame border counts as fully visible here
        cut = shape is not None and _touches_border(quad, shape[1], shape[0], config.border_margin_frac * max(shape))
        if det.confidence < config.fuse_min_confidence or not (det.visible or cut):
            continue
        if table is not None:
            mask = np.zeros(table.shape, np.uint8)
            cv2.fillPoly(mask, [np.round((quad + 0.5) * maps.factor - 0.5).astype(np.int32)], 1)
            if mask.any() and (float(table[mask > 0].mean()) > FUSE_TABLE or float(unsure[mask > 0].mean()) < FUSE_UNSURE):
                continue
        area = abs(_shoelace(quad))
        touched = []
        within = False
        for other in out:
            theirs = other.quad.as_array()
            their_area = abs(_shoelace(theirs))
            shared = _poly_overlap(_clockwise(quad), _clockwise(theirs))
            if shared > FUSE_TOUCH * min(area, their_area):
                touched.append(other)
                # a print inside a segmented card (a panel, half of a tile) is no card of its own
                within = within or (shared > FUSE_WITHIN * area and area < 0.9 * their_area)
        if not within and all(other.confidence < det.confidence for other in touched):
            out = [d for d in out if all(d is not other for other in touched)] + [det]
    out.sort(key=lambda d: -d.confidence)
    return out


def _detect_classical(frame: np.ndarray, config: DetectConfig, bridged: bool = True) -> list[Detection]:
    """The masks-and-contours path (see the module docstring); ``bridged``: with the mask closed
    across thin dark lines (see :func:`_masks`)."""
    height, width = frame.shape[:2]
    scale = min(1.0, config.work_max_side / max(height, width))
    if scale < 1.0:
        small = cv2.resize(frame, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
    else:
        small = frame
    probe = _probe_image(small)
    candidates = _candidates(small, probe, config, bridged)
    chosen = _select(candidates, small.shape[:2], config, probe)
    gray_full = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    margin = config.border_margin_frac * max(height, width)
    detections: list[Detection] = []
    for cand in chosen:
        quad = cand.quad / scale
        support = 1.0
        if config.refine:
            quad, support = _refine(gray_full, quad, max(3.0, 2.5 / scale + 2.0), config)
        if quad is None:
            continue
        conf = _confidence(cand, support, config)
        if conf < config.min_confidence:
            continue
        cut = bool(
            (quad[:, 0] < margin).any()
            or (quad[:, 1] < margin).any()
            or (quad[:, 0] > width - 1 - margin).any()
            or (quad[:, 1] > height - 1 - margin).any()
        )
        detections.append(Detection(Quad.card_order(quad), round(conf, 4), visible=not (cand.occluded or cut)))
    detections.sort(key=lambda d: -d.confidence)
    return detections


@dataclass(frozen=True)
class _Piece:
    """One segmented region reduced to a quad (map pixels)."""

    quad: np.ndarray
    fill: float
    score: float
    rect: tuple  # cv2.minAreaRect of the region's hull
    closer: bool = False  # found by a closer look (see ``_zoom_piece``)
    box_fill: float = 1.0  # the region's share of its hull's least rotated box (see ``PILE_BOX_FILL``)


def _detect_segmented(
    frame: np.ndarray, segmenter: CardSegmenter, config: DetectConfig, maps: CardMaps | None = None,
    card_size: tuple[float, float] | None = None,
) -> list[Detection]:
    """Cards from the segmentation network: one quad per instance region, refined at full size.

    A region that fills its quad well is a card in full view. Otherwise the card is partly
    hidden; when its seen part is shorter than the cards in full view along one axis and another
    card lies against that end, the quad is extended under that card to the typical size. Two
    touching regions too small or shapeless to stand alone are tried joined (see ``JOIN_GAP``).
    """
    height, width = frame.shape[:2]
    if maps is None:
        maps = segmenter.maps(frame)
    factor = maps.factor
    map_area = float(maps.interior.shape[0] * maps.interior.shape[1])
    min_area = config.min_area_frac * map_area
    max_area = config.max_area_frac * map_area
    pieces: list[_Piece] = []
    masks: dict[int, np.ndarray] = {}  # the region of each piece made of one, by the piece's id
    regions = card_regions(maps)
    # Each pixel of a region holds that region's area: which neighbour is bigger (more likely
    # the card lying on top) decides where a partly hidden card continues.
    area_map = np.zeros(maps.interior.shape, np.float32)
    for region in regions:
        area_map[region.mask > 0] = region.area
    for region in regions:
        if region.area < config.min_occluded_fill * min_area or region.score < config.seg_min_score:
            continue
        piece = _region_piece(region)
        if abs(_shoelace(piece.quad)) > max_area:
            continue
        if piece.fill < config.seg_zoom_fill and config.seg_zoom > 1:
            closer = _zoom_piece(frame, segmenter, piece, factor, config)
            if closer and piece.fill >= config.seg_visible_fill:
                # a card-like piece (a pile seen as one card): only whole cards replace it
                closer = [p for p in closer if p.fill >= config.seg_visible_fill and _plausible_shape(p.quad, config)]
            if closer:
                pieces.extend(p for p in closer if abs(_shoelace(p.quad)) <= max_area)
                continue
        pieces.append(piece)
        masks[id(piece)] = region.mask
    pieces = _distinct(pieces, masks, config.nms_iou)
    mh, mw = maps.interior.shape

    def is_whole(p: _Piece, fill: float = config.seg_visible_fill) -> bool:
        return p.fill >= fill and _plausible_shape(p.quad, config) and not _touches_border(p.quad, mw, mh, 1.5)

    whole = [p for p in pieces if is_whole(p)]
    if config.seg_zoom > 1 and len(whole) >= 3:
        # Two cards touching along their long sides make a region of almost a card's shape but
        # twice a card's area: look closer, and take the split when it gives two or more cards.
        # So may a fan's top card with the strips of the cards below (wider than a card).
        median_area = float(np.median([abs(_shoelace(p.quad)) for p in whole]))

        def big_one(p: _Piece) -> bool:
            area = abs(_shoelace(p.quad))
            return area > config.seg_split_area * median_area or (
                area > SPLIT_WIDE_AREA * median_area and _card_aspect(p.quad) > SIDE_MIN_WIDE)

        for big in [p for p in whole if big_one(p)]:
            closer = _zoom_piece(frame, segmenter, big, factor, config, min_whole=2)
            if closer:
                pieces = [p for p in pieces if p is not big]
                pieces.extend(p for p in closer if abs(_shoelace(p.quad)) <= max_area)
        pieces = _distinct(pieces, masks, config.nms_iou)
        whole = [p for p in pieces if is_whole(p)]
    if card_size is not None:
        # a card cut in two by a band printed across it may leave two halves each of a card's
        # shape (taken sideways): one card again when they make one of the size seen before
        pieces = _halves_joined(pieces, masks, card_size[0] * card_size[1] * factor**2, is_whole, config)
        whole = [p for p in pieces if is_whole(p)]
    typical = _typical_size(whole, None if card_size is None else (card_size[0] * factor, card_size[1] * factor))
    typical_area = typical[0] * typical[1] if typical else 0.0
    cardish = maps.interior + maps.boundary
    gray_full = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    margin = config.border_margin_frac * max(height, width)
    # A piece that fills its quad poorly, or fills it but has no card's shape (the seen strip
    # of a card in a hand), is part of a card; so may be a piece cut by the frame border.
    hidden = [p.fill < config.seg_visible_fill or not _plausible_shape(p.quad, config) for p in pieces]
    grown = _grow_pieces(pieces, hidden, {k for k, p in enumerate(pieces) if is_whole(p)}, cardish, typical,
                         area_map, config) if typical is not None else {}
    detections: list[Detection] = []
    kept: list[np.ndarray] = []  # the detections' quads, and the outlines cards were found inside
    guessed: list[tuple[Detection, np.ndarray | None]] = []
    dropped: list[int] = []  # pieces of one region each dropped for their size or shape
    partial: list[int] = []  # pieces of one region each kept as partly hidden
    small_parts: list[int] = []  # those of them in full view, only small (see ``JOIN_SMALL``)
    made_of: dict[int, tuple[int, int]] = {}  # the two pieces each joined piece is made of
    guessed_from: list[int] = []  # the piece of each guessed detection
    first_joined = len(pieces)  # pieces from here on are two pieces joined

    def queue() -> Iterator[int]:
        """The pieces in turn, then the dropped ones joined (see :func:`_joined`)."""
        yield from range(first_joined)
        for joined_piece, parts in _joined(pieces, dropped, partial, masks, small_parts):
            pieces.append(joined_piece)
            hidden.append(True)
            made_of[len(pieces) - 1] = parts
            yield len(pieces) - 1

    for k in queue():
        piece = pieces[k]
        joined = k >= first_joined
        occluded = hidden[k]
        completed = k in grown
        quad = grown.get(k, piece.quad)
        quad_area = abs(_shoelace(quad))
        at_border = _touches_border(quad, mw, mh, 1.5)
        if not (min_area <= quad_area <= max_area):
            if quad_area < min_area and id(piece) in masks and not at_border:
                dropped.append(k)  # maybe the end of a card cut off by a band across it (see ``JOIN_SMALL``)
            continue
        shapeless = not _plausible_shape(quad, config)
        # a partly hidden piece too big for one card, or of a card's size or more but no card's
        # shape (cards sticking out from under it on two sides: film 123's W39 on the START card),
        # not at the border: a pile seen as one; with no card in full view to give the size, a
        # piece of no card's shape (film 129: the walk pile alone on the table, lost 14 frames)
        pile = (config.refine and occluded and not at_border and not completed
                and (1.6 * typical_area < quad_area or (shapeless and typical_area <= quad_area))
                and (quad_area <= PILE_AREA * typical_area or (shapeless and typical_area <= 0)))
        if joined:  # two pieces of a card cut apart, or of a pile (see ``JOIN_GAP``)
            pile = (config.refine and occluded and not at_border
                    and (typical_area <= 0 or 0.6 * typical_area <= quad_area <= PILE_AREA * typical_area))
        if typical_area > 0 and (occluded or at_border) and not pile:
            # Pieces of cards (split by fingers, slivers of a fan) must have a card's size.
            low = config.min_piece_frac if at_border and not occluded else 0.6
            unsized = not (low * typical_area <= quad_area <= 1.6 * typical_area)
        else:
            # with no card in full view to give the size (a pile with one took its size above:
            # film 135's W16 on W4, two map pixels short of this, lost 15 frames)
            unsized = typical_area <= 0 and occluded and quad_area < config.lone_piece_area_factor * min_area
        # a pile that small is searched for its top card all the same, and dropped as too small
        # when none is found (film 142's walk pile alone on the table, further from the camera,
        # its outline 3.6 times the least card area, lost 17 frames and a walk with them)
        small_pile = pile and unsized and not joined
        if (shapeless and not pile) or (unsized and not small_pile) or (joined and occluded and not pile):
            if (shapeless or unsized) and id(piece) in masks and not at_border:
                dropped.append(k)
            continue
        # a piece in full view much smaller than the cards is maybe a part of a card cut off by a
        # band printed across it: its detection stands until a joined piece takes its place
        small = (not occluded and not at_border and not joined and typical_area > 0
                 and quad_area < JOIN_SMALL * typical_area)
        if (occluded and not pile or small) and id(piece) in masks and not at_border:
            partial.append(k)
            if small:
                small_parts.append(k)
        # Map pixel centres to frame pixel centres (the map is an area-resampled copy).
        full = (quad + 0.5) / factor - 0.5
        support = 1.0
        # a segmented quad is within about a map pixel of the card's edge: a narrower band
        # keeps the search off printed lines inside the card
        band = max(3.0, 0.8 / factor + 1.0)
        card_area = typical_area / factor**2 if typical_area > 0 else None
        found_inside = False  # a card found inside an outline that is no card (see ``_top_card``)
        inside: tuple[np.ndarray, ...] = ()  # where it may lie when not found (see ``_top_guesses``)
        also_inside: tuple[np.ndarray, ...] = ()  # ... on weaker evidence
        outline = None  # that outline
        if pile:
            # two parts of one card joined make its outline: the typical size may come from
            # such a part (film 153's W16, its lower end a card's shape in perspective)
            top = _top_card(gray_full, maps, full, card_area, band, config, up_to_outline=joined)
            if top is None and small_pile:
                if id(piece) in masks:  # (dropped as an unsized piece above is: a pile is off the border)
                    dropped.append(k)
                continue
            if top is None and joined:
                continue
            if top is None:
                # the outline stands, hidden, with guesses where its top card may lie
                inside, also_inside = _top_guesses(gray_full, maps, full, card_area, band, config)
                if not inside and not also_inside:
                    if id(piece) in masks and not joined:  # maybe a card's part with the card below
                        dropped.append(k)
                    continue
            else:
                outline = full
                (full, support), found_inside = top, True
        elif config.refine and completed and not at_border and piece.box_fill < PILE_BOX_FILL:
            # a piece completed as a partly hidden card, its region showing more than one card:
            # maybe a pile's top card with the cards below sticking out (fresh film 175)
            own = (piece.quad + 0.5) / factor - 0.5
            top = _top_card(gray_full, maps, own, card_area, band, config)
            others = [m for j, p in enumerate(pieces) if j != k and (m := masks.get(id(p))) is not None]
            # (a card's outline running across it is a card lying on it: fresh film 183's START
            # under W23, the pile's region cut at the START's edge, taken for the top card)
            if (_takes_over(top, 0.0) and _share_on(top[0], others, factor) <= TOP_ON_OTHERS
                    and _crossed(maps, top[0]) < TOP_CROSSED):
                outline = own
                (full, support), found_inside = top, True
        elif config.refine and not completed:
            refined, support = _refine(gray_full, full, band, config)
            if refined is not None:
                full, support = _mend_corner(gray_full, refined, support, band, config)
                if piece.closer or occluded:  # a pile's top card seen with the card below, say
                    mended, mended_support = _mend_side(gray_full, full, support, band, config)
                    if mended is not full and not at_border:
                        # the straightest edge across the outline may be a band printed across the
                        # top card: the card found inside the outline uncut, on at least as much
                        # edge, wins (film 166's FINISH on a pile beside the START card: cut at its
                        # checkered banner's upper edge on each of frames 435-450, the lower half
                        # read as nothing, the move waited 4 s for the card to be read where it was
                        # set aside; found inside the outline at edge support 0.93-0.97)
                        top = _top_card(gray_full, maps, full, card_area, band, config)
                        if _takes_over(top, mended_support):
                            outline = full
                            (full, support), found_inside = top, True
                    if not found_inside:
                        full, support = mended, mended_support
                shaped = _skew(full) <= PILE_SKEW and abs(_card_aspect(full) - CARD_ASPECT) <= PILE_ASPECT
                if not at_border and not found_inside and ((not shaped and piece.box_fill < PILE_BOX_FILL)
                                                           or _inner_outline(maps, full) >= PILE_INNER_EDGE):
                    # more than one card in the region: maybe the top card of a pile outlined with
                    # the cards below, whether or not the outline happens to have a card's shape
                    top = _top_card(gray_full, maps, full, card_area, band, config)
                    if _takes_over(top, support) and (not shaped or _runs_past(full, top[0])):
                        outline = full
                        (full, support), found_inside = top, True
                    else:
                        inside, also_inside = _top_guesses(gray_full, maps, full, card_area, band, config)
        conf = piece.score * (0.6 + 0.4 * min(1.0, support / max(config.min_edge_support, 1e-6)))
        if occluded and not found_inside:
            conf *= 0.8
        if conf < config.min_confidence:
            continue
        cut = bool(
            (full[:, 0] < margin).any()
            or (full[:, 1] < margin).any()
            or (full[:, 0] > width - 1 - margin).any()
            or (full[:, 1] > height - 1 - margin).any()
        )
        hidden_now = occluded and not found_inside
        det = Detection(Quad.card_order(full), round(float(conf), 4), visible=not (hidden_now or cut),
                        inside=tuple(Quad.from_array(q) for q in inside),  # in card order already
                        also_inside=tuple(Quad.from_array(q) for q in also_inside))
        # a card found inside an outline may be found again by another piece: it goes with the guesses
        if occluded or completed or found_inside or joined or small:
            guessed.append((det, outline))
            guessed_from.append(k)
        else:
            detections.append(det)
            kept.append(full)
    # a joined piece kept stands for the partly hidden piece it was made of
    superseded = {part for k in guessed_from if k in made_of for part in made_of[k]}
    guessed = [g for g, k in zip(guessed, guessed_from) if k not in superseded]
    detections.extend(_keep_guesses(guessed, kept, config.nms_iou))
    detections.sort(key=lambda d: -d.confidence)
    return detections


JOIN_GAP = 3
"""A region dropped alone (too small, or of no card's shape) whose mask comes within this many
map pixels of another dropped region, or of one kept as a partly hidden card, is joined with it
across the gap: the network may cut a card in two along a band printed across it (film 133's
W45, the top of a pile alone on the table, cut at its row of plaster marks, both halves too
small to stand alone, its walk missed; film 130's FINISH on the pile cut at its checkered
band, its lower half too small, the upper part with the pile's edges a partly hidden card). A
joined piece is kept only as a card in full view or as a pile whose top card is found inside it,
and then in place of the partly hidden piece it was made of. Three pixels, not two: fresh film
170's W45 on the walk pile, its row of plaster marks three map pixels of outline wide, was left
in two parts on each of the 12 frames it lay on top, its upper part with a strip of the card
below outlined as a card lying across (read as nothing), and its walk announced 2.2 s late."""
JOIN_MOST = 8
"""At most this many pieces are tried in pairs (the biggest first)."""
JOIN_SMALL = 0.7
"""A piece in full view under this share of the typical card's area may be joined too, with a
dropped piece or one kept as partly hidden (it stays a card unless the join finds one): film
153's W16 on the walk pile, cut at its row of plaster marks into its lower end (0.41 of a card,
a card's shape in perspective) and its upper part with the cards below (a pile whose top card is
not inside it), was read on none of the 11 frames it lay on top, and its walk was missed. Film
156's W38, cut there too, left an upper part of 0.62 to 0.69 of a card in full view (0.6 here
then) and a lower end with the cards below, dropped on some frames, kept as a partly hidden card
on others: its walk was missed. A pile outline with no top card and no guess inside it is tried
joined as a dropped piece."""


def _joined(pieces: list[_Piece], dropped: list[int], partial: list[int], masks: dict[int, np.ndarray],
            small: Sequence[int] = ()) -> list[tuple[_Piece, tuple[int, int]]]:
    """Pieces made of a ``dropped`` or ``small`` piece (in full view, also in ``partial``, see
    ``JOIN_SMALL``) and another dropped or ``partial`` piece whose regions (``masks``, by piece
    id) come within ``JOIN_GAP`` pixels, the gap between them closed, each with the two it is
    made of."""
    loose = set(dropped) | set(small)
    if not loose:
        return []
    chosen = sorted(dropped + partial, key=lambda k: -int(np.count_nonzero(masks[id(pieces[k])])))[:JOIN_MOST]
    kernel = np.ones((3, 3), np.uint8)
    # grown by one pixel more than the gap, to reach the other region across it
    near = {k: cv2.dilate(masks[id(pieces[k])], kernel, iterations=JOIN_GAP + 1) for k in chosen}
    out: list[tuple[_Piece, tuple[int, int]]] = []
    for a, b in itertools.combinations(chosen, 2):
        if (a not in loose and b not in loose) or not np.any(near[a] & masks[id(pieces[b])]):
            continue
        joined = _union_piece(pieces[a], pieces[b], masks)
        if joined is not None:
            out.append((joined[0], (a, b)))
    return out


def _union_piece(a: _Piece, b: _Piece, masks: dict[int, np.ndarray]) -> tuple[_Piece, np.ndarray] | None:
    """The piece made of the regions (``masks``, by piece id) of ``a`` and ``b`` with the gap
    between them closed (see ``JOIN_GAP``), and its region; None when they stay apart."""
    kernel = np.ones((3, 3), np.uint8)
    union = cv2.morphologyEx(masks[id(a)] | masks[id(b)], cv2.MORPH_CLOSE, kernel, iterations=JOIN_GAP)
    contours, _ = cv2.findContours(union, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(contours) != 1:
        return None
    cv2.drawContours(union, contours, -1, 255, cv2.FILLED)
    area = int(np.count_nonzero(union))
    sizes = [np.count_nonzero(masks[id(p)]) for p in (a, b)]
    score = (a.score * sizes[0] + b.score * sizes[1]) / max(sum(sizes), 1)
    return _region_piece(CardRegion(union, area, float(score))), union


HALF_AREA = (0.25, 0.75)
"""Least and largest area, as shares of the card size seen in earlier frames, of each of two
pieces of a card's shape that may be one card cut in two by a band printed across it (see
:func:`_halves_joined`)."""
HALVES_AREA = (0.8, 1.4)
"""... and of the piece they make joined (it may take in the edges of the cards below a pile's top)."""
HALF_FILL = 0.75
"""Least share of its quad each of the two pieces fills (the upper part of a pile's top card may
take in the cards sticking out below it)."""
HALVES_FILL = 0.85
"""... and the piece they make (fresh film 200: W14 on the walk pile, cut at its row of plaster
marks, its upper part taking in the edges of the START card and another card sticking out at its
sides; joined, the two filled 0.90 of their quad on some frames and a little less on others, were
left two pieces read as nothing, and the walk was told 2.2 s late)."""


def _halves_joined(pieces: list[_Piece], masks: dict[int, np.ndarray], card_area: float,
                   is_whole: Callable[[_Piece, float], bool], config: DetectConfig) -> list[_Piece]:
    """``pieces`` with each two that are one card cut in two replaced by the piece they make:
    each of a plausible shape, filling at least ``HALF_FILL`` of its quad and of a part of a
    card's area (``card_area``, map pixels, see ``HALF_AREA``), their regions (``masks``) within
    ``JOIN_GAP`` pixels, and joined a whole piece (``is_whole`` at the fill ``HALVES_FILL``) of a
    card's aspect (``SIDE_CARD_ASPECT``: its outline may take in the edges of cards below) and
    size (see ``HALVES_AREA``). The segmenter may see the checkered banner of a FINISH, or a walk
    card's row of plaster marks, as an edge: fresh film 193's FINISH on the walk pile, cut at its
    banner, was two cards of a card's shape lying sideways on every frame of its rest, read as
    nothing, and the day's end was told 4 s late. Joined, it is outlined with the pile, and the
    top card is looked for inside."""
    halves = [k for k, p in enumerate(pieces)
              if id(p) in masks and p.fill >= HALF_FILL and _plausible_shape(p.quad, config)
              and HALF_AREA[0] * card_area <= abs(_shoelace(p.quad)) <= HALF_AREA[1] * card_area]
    if len(halves) < 2:
        return pieces
    kernel = np.ones((3, 3), np.uint8)
    joined: dict[int, _Piece] = {}
    used: set[int] = set()
    for a, b in itertools.combinations(halves, 2):
        if a in used or b in used:
            continue
        if not np.any(cv2.dilate(masks[id(pieces[a])], kernel, iterations=JOIN_GAP + 1) & masks[id(pieces[b])]):
            continue
        made = _union_piece(pieces[a], pieces[b], masks)
        if made is None:
            continue
        piece, union = made
        if (is_whole(piece, HALVES_FILL) and SIDE_CARD_ASPECT[0] <= _card_aspect(piece.quad) <= SIDE_CARD_ASPECT[1]
                and HALVES_AREA[0] * card_area <= abs(_shoelace(piece.quad)) <= HALVES_AREA[1] * card_area):
            masks[id(piece)] = union
            joined[a] = piece
            used |= {a, b}
    return [joined.get(k, p) for k, p in enumerate(pieces) if k not in used or k in joined]


def _keep_guesses(guessed: list[tuple[Detection, np.ndarray | None]], kept: list[np.ndarray],
                  nms_iou: float) -> list[Detection]:
    """Of the ``guessed`` detections (partly hidden, completed, or found inside an outline, with
    that outline or None), most confident first, those overlapping none of the ``kept`` quads (the
    sure detections' and those kept before, with their outlines) by more than ``nms_iou``.

    A partly hidden or completed card that is nearly another card found (a print inside a card
    seen as a piece of its own, two pieces of one card) is that card; so is one that is nearly the
    outline a card was found inside (a card below a pile's top, completed under it: film 101's G7
    pile, IoU 0.55 with the outline, 0.49 with G7, came and went from frame to frame and held the
    table busy, G7 announced 18 frames later than with the outline kept)."""
    kept = list(kept)
    out: list[Detection] = []
    for det, outline in sorted(guessed, key=lambda g: -g[0].confidence):
        quad = det.quad.as_array()
        if all(_quad_iou(quad, other) <= nms_iou for other in kept):
            out.append(det)
            kept.extend([quad, outline] if outline is not None else [quad])
    return out


def _quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter = _poly_overlap(_clockwise(a), _clockwise(b))
    union = abs(_shoelace(a)) + abs(_shoelace(b)) - inter
    return inter / union if union > 0 else 0.0


TYPICAL_MAX_ASPECT = 0.8
"""Whole-looking pieces squarer than this (short/long) do not set the typical card size: the seen
strips of two or three cards of a hand often merge into one such piece (a card seen under the
renderer's strongest tilt, 40 degrees, looks at most about 0.85)."""


TYPICAL_LEAST = 0.5
"""Whole-looking pieces of less than this share of the card size seen in earlier frames do not set
the typical card size either: the end of a card peeking out from under a pile's top card, cut off
by it, can look like a whole card (film 166's W23 under W29, a quarter of a card's area: the sole
whole piece of frames 99-113, it made the pile seen with it too big for one card and the pile was
dropped; the walk's verdict waited 2.2 s)."""


def _typical_size(whole: list[_Piece], seen: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """The median (short, long) sides of the cards in full view; ``seen`` (the size in earlier
    frames, or None) without any.

    Nearly square pieces (maybe two or three cards seen as one) are left out when other whole
    cards remain, and so are pieces much smaller than ``seen`` (see ``TYPICAL_LEAST``); when none
    remain, the size ``seen`` stands instead (film 163: a fan of four gladiolas the only piece in
    full view, the walk pile beside it too small for a pile of such cards, its top card never
    looked for). So it does with no piece in full view at all (fresh film 173: the walk pile
    alone on the table, its small top card cut in two at its plaster row, both parts taken for
    covered cards too small to be any; the pile was lost for 40 frames and its walk missed)."""
    if not whole:
        return seen
    dims = np.array([sorted(p.rect[1]) for p in whole], np.float64)
    if seen is not None:
        sized = dims[:, 0] * dims[:, 1] >= TYPICAL_LEAST * seen[0] * seen[1]
        if not sized.any():
            return seen
        dims = dims[sized]
    cardlike = dims[:, 0] <= TYPICAL_MAX_ASPECT * dims[:, 1]
    if cardlike.any():
        dims = dims[cardlike]
    elif seen is not None:
        return seen
    return float(np.median(dims[:, 0])), float(np.median(dims[:, 1]))


def _grow_pieces(
    pieces: list[_Piece], hidden: list[bool], whole: set[int], cardish: np.ndarray,
    typical: tuple[float, float], area_map: np.ndarray, config: DetectConfig,
) -> dict[int, np.ndarray]:
    """Whole-card quads (map pixels) for the pieces that are parts of cards: the partly hidden
    ones, grown under the card beside them (see :func:`_grow_ends`), and pieces cut short by the
    frame border, grown out of view."""
    mh, mw = cardish.shape
    ids = np.zeros((mh, mw), np.int32)
    for k in sorted(range(len(pieces)), key=lambda k: k in whole):  # whole cards drawn last, on top
        cv2.fillPoly(ids, [np.round(pieces[k].quad).astype(np.int32)], k + 1)
    plans: dict[int, _Growth] = {}
    boxes: dict[int, np.ndarray] = {}
    for k, piece in enumerate(pieces):
        cut = _touches_border(piece.quad, mw, mh, 1.5)
        if not (hidden[k] or cut) or k in whole:
            continue
        plan = _plan_growth(piece.rect, cardish, typical, area_map, ids, k)
        if plan is None:
            if hidden[k] and _card_sized(piece.rect, typical) and not _plausible_shape(piece.quad, config):
                # seen almost whole, but its outline is bent (a finger over a corner): its box
                boxes[k] = _clockwise(cv2.boxPoints(piece.rect).astype(np.float64))
            continue
        if not hidden[k]:
            # a card-shaped piece at the border only runs out of view
            plan = replace(plan, ends=tuple(replace(e, card=False) for e in plan.ends))
        if plan.options():
            plans[k] = plan
    return boxes | {k: plans[k].quad(end) for k, end in _grow_ends(plans, whole).items()}


def _card_sized(rect: tuple, typical: tuple[float, float], tolerance: float = 0.15) -> bool:
    """Whether a rotated rectangle has the typical card's sides ``(short, long)`` within ``tolerance``."""
    short, long = sorted(rect[1])
    return abs(short - typical[0]) <= tolerance * typical[0] and abs(long - typical[1]) <= tolerance * typical[1]


def _region_piece(region) -> _Piece:
    """The quad of one segmented region, in its map's pixels."""
    contours, _ = cv2.findContours(region.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    quad = _hull_to_quad(hull)
    rect = cv2.minAreaRect(hull)
    if quad is None or cv2.contourArea(quad.astype(np.float32)) < 0.85 * cv2.contourArea(hull):
        quad = _clockwise(cv2.boxPoints(rect).astype(np.float64))
    else:
        quad = _clockwise(quad)
        fitted = _fit_sides(contour, quad)
        if fitted is not None:
            quad = fitted
    fill = region.area / max(abs(_shoelace(quad)), 1.0)
    box_fill = region.area / max(rect[1][0] * rect[1][1], 1.0)
    # The outline pixels' centres lie half a pixel inside the card's edge.
    return _Piece(_grow(quad, 0.5), fill, region.score, rect, box_fill=box_fill)


def _moved(piece: _Piece, scale: float, offset: np.ndarray) -> _Piece:
    """``piece`` with its points mapped by ``p * scale + offset``."""
    (cx, cy), (w, h), angle = piece.rect
    rect = ((cx * scale + offset[0], cy * scale + offset[1]), (w * scale, h * scale), angle)
    return _Piece(piece.quad * scale + offset, piece.fill, piece.score, rect, box_fill=piece.box_fill)


ZOOM_WIDER = 2.5
"""When a closer look at a partly hidden piece finds no whole card but a region running into the
edge of the part looked at (not the frame's), the part is grown by this many times
``seg_zoom_margin`` and looked at again: a card split by its own print in the whole-frame maps (a
row of blisters seen as an edge) leaves a piece whose box holds only part of the card. (A piece
that looks whole is not looked at wider: the wider look takes in the cards beside a pile's top.)"""


WIDER_OVERLAP = 0.5
"""The wider box takes in the cards beside the piece and the table around it (seen there as new
cards, or again as cards already found): of what the wider look finds, only the pieces whose
overlap with the piece looked at is at least this share of the smaller of the two are kept."""

WIDER_COVER = 0.6
"""The wider look is taken only when one of the whole cards it finds covers at least this share
of the piece looked at: the piece is part of that card. Otherwise the coarse piece stands. (0.8
loses film 111's W16 in the replay.)"""


def _distinct(pieces: list[_Piece], masks: dict[int, np.ndarray], most: float) -> list[_Piece]:
    """``pieces`` (in their order) without those found by a closer look (see :func:`_zoom_piece`)
    that are a piece already there seen again: overlapping a region's piece, or a piece of an
    earlier closer look, by an IoU above ``most``. A closer look segments the whole box round a
    piece, and the cards beside it in the box come back as pieces too (fresh Valais*Wallis film
    199, frame 6498: a sprawling piece of 0.4 fill across a two-line row looked at closer gave
    seven cards, two of them lying in the row with their own regions; each came out twice, the
    tracker followed the two outlines of one card as two cards, one of them never settled, and
    the wrong card put in beside them was taken away unjudged)."""
    ordered = sorted(range(len(pieces)), key=lambda k: id(pieces[k]) not in masks)  # regions first
    kept: list[int] = []
    for k in ordered:
        if id(pieces[k]) in masks or all(_quad_iou(pieces[k].quad, pieces[j].quad) <= most for j in kept):
            kept.append(k)
    return [pieces[k] for k in sorted(kept)]


def _zoom_piece(
    frame: np.ndarray, segmenter: CardSegmenter, piece: _Piece, factor: float, config: DetectConfig,
    min_whole: int = 1,
) -> list[_Piece]:
    """Segment a piece again from a closer look at its part of the frame.

    In the whole-frame maps the edge between a pile's top card and the cards peeking out below
    it, between the cards of a fan, or between two cards touching, is a pixel or two wide and
    often lost, so they come out as one region. Here the piece's box (grown by
    ``seg_zoom_margin``) is scaled to ``seg_zoom`` times the whole-frame scale (at most the
    frame's own) and segmented alone (once more with a wider box, see ``ZOOM_WIDER``, keeping
    the card that holds the piece and what overlaps the piece, see ``WIDER_OVERLAP`` and
    ``WIDER_COVER``). Returns the pieces found there, in the whole-frame map's pixels, when at
    least ``min_whole`` of them are whole cards; otherwise nothing (the coarse piece stands)."""
    out, wholes, cut = _look_closer(frame, segmenter, piece, factor, config, config.seg_zoom_margin)
    if sum(wholes) < min_whole and cut and piece.fill < config.seg_visible_fill:
        out, wholes, _ = _look_closer(frame, segmenter, piece, factor, config, ZOOM_WIDER * config.seg_zoom_margin)
        area = abs(_shoelace(piece.quad))
        shared = [_poly_overlap(_clockwise(p.quad), _clockwise(piece.quad)) for p in out]
        kept = [k for k, p in enumerate(out) if shared[k] >= WIDER_OVERLAP * min(area, abs(_shoelace(p.quad)))]
        if not any(wholes[k] and shared[k] >= WIDER_COVER * area for k in kept):
            return []
        out, wholes = [out[k] for k in kept], [wholes[k] for k in kept]
    return out if sum(wholes) >= min_whole else []


SPLIT_WIDE_AREA = 1.3
"""A whole-looking piece wider than a card (``SIDE_MIN_WIDE``) is looked at closer from this many
times the median whole piece's area (``DetectConfig.seg_split_area`` for others): film 187's
gladiola fan, G2 on top and the strips of the cards below one piece of 0.92 aspect, measured 1.6
medians on some frames and just under on others, where it was not split and G2 went unseen."""
STRIP_BOX_FILL = 0.75
"""Least share of its least rotated box a piece narrower than any card fills to be the strip of a
card under a fan's top card (film 187's: 0.82-0.84, skewed a little; a card's corner: about half)."""


def _look_closer(
    frame: np.ndarray, segmenter: CardSegmenter, piece: _Piece, factor: float, config: DetectConfig, margin: float,
) -> tuple[list[_Piece], list[int], bool]:
    """One closer look (see :func:`_zoom_piece`) at the piece's box grown by ``margin`` of its
    longer side: the pieces found, how many whole cards each is (0; 2 for a card with a strip of
    the one below beside it, else 1), and whether a piece not whole runs into an edge of the box
    that lies inside the frame."""
    fine = min(1.0, config.seg_zoom * factor)
    if fine < 1.2 * factor:
        return [], [], False
    height, width = frame.shape[:2]
    x0, y0 = piece.quad.min(axis=0)
    x1, y1 = piece.quad.max(axis=0)
    grow = margin * max(x1 - x0, y1 - y0)
    # whole-frame map pixels -> frame pixels, clipped to the frame
    fx0, fy0 = max(0, int(((x0 - grow) + 0.5) / factor)), max(0, int(((y0 - grow) + 0.5) / factor))
    fx1 = min(width, int(math.ceil(((x1 + grow) + 0.5) / factor)))
    fy1 = min(height, int(math.ceil(((y1 + grow) + 0.5) / factor)))
    if fx1 - fx0 < 8 or fy1 - fy0 < 8:
        return [], [], False
    cw, ch = round((fx1 - fx0) * fine), round((fy1 - fy0) * fine)
    canvas = np.zeros((-(-ch // 16) * 16, -(-cw // 16) * 16, 3), np.uint8)
    canvas[:ch, :cw] = cv2.resize(frame[fy0:fy1, fx0:fx1], (cw, ch), interpolation=cv2.INTER_AREA)
    maps = segmenter.maps_of_canvas(canvas, (ch, cw))
    # crop pixels -> frame pixels -> whole-frame map pixels
    scale = factor / fine
    offset = np.array([fx0 * factor, fy0 * factor]) + 0.5 * scale - 0.5
    out: list[_Piece] = []
    wholes: list[int] = []
    cut = False
    crop_area = float(cw * ch)
    inner = (fx0 > 0, fy0 > 0, fx1 < width, fy1 < height)  # the box's left, top, right, bottom edges
    for region in card_regions(maps):
        if region.score < config.seg_min_score or region.area < 0.02 * crop_area:
            continue
        local = _region_piece(region)
        whole = (local.fill >= config.seg_visible_fill and _plausible_shape(local.quad, config)
                 and not _touches_border(local.quad, cw, ch, 1.5))
        # wider than a card: a card with a strip of the card below beside it (see ``SIDE_MIN_WIDE``)
        wholes.append((2 if _card_aspect(local.quad) > SIDE_MIN_WIDE else 1) if whole else 0)
        if not whole:
            q = local.quad
            cut = cut or any(edge and hit for edge, hit in zip(
                inner, ((q[:, 0] < 1.5).any(), (q[:, 1] < 1.5).any(), (q[:, 0] > cw - 2.5).any(), (q[:, 1] > ch - 2.5).any())))
        out.append(replace(_moved(local, scale, offset), closer=True))
    if 1 in wholes and any(not w and p.fill >= config.seg_visible_fill and p.box_fill >= STRIP_BOX_FILL
                           and _card_aspect(p.quad) < config.min_aspect for p, w in zip(out, wholes)):
        # a card with strips of cards narrower than any card seen apart beside it: a fan's top
        # card over the cards below, two cards at least (film 187: the gladiola fan seen as
        # one piece of 1.6 cards; closer, G2 on top and the strips of the cards below apart; not
        # split, the piece was cut to a card's outline across the strips, read as nothing, and
        # G2 was unseen for nine frames, its verdict 0.8 s after it came to rest)
        wholes[wholes.index(1)] = 2
    return out, wholes, cut


def _outward_normals(quad: np.ndarray) -> np.ndarray:
    """Unit normals of ``quad``'s sides (side k runs from corner k to corner k + 1), pointing away
    from its centre."""
    d = np.roll(quad, -1, axis=0) - quad
    d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    normals = np.stack([d[:, 1], -d[:, 0]], axis=1)
    mids = (quad + np.roll(quad, -1, axis=0)) / 2
    normals[((mids - quad.mean(axis=0)) * normals).sum(axis=1) < 0] *= -1
    return normals


def _grow(quad: np.ndarray, distance: float) -> np.ndarray:
    """``quad`` (clockwise) with every side moved outwards by ``distance``."""
    normals = _outward_normals(quad)
    prev = np.roll(normals, 1, axis=0)  # normal of the side ending at each corner
    denom = np.maximum(1.0 + (prev * normals).sum(axis=1), 0.2)
    return quad + distance * (prev + normals) / denom[:, None]


def _touches_border(quad: np.ndarray, width: int, height: int, margin: float) -> bool:
    return bool((quad[:, 0] < margin).any() or (quad[:, 1] < margin).any()
                or (quad[:, 0] > width - 1 - margin).any() or (quad[:, 1] > height - 1 - margin).any())


MIN_SEEN_SHARE = 0.3
"""A partly hidden piece is completed only when at least this share of the card's length is seen."""


@dataclass(frozen=True)
class _End:
    """What lies beyond one end of a partly hidden piece, along the axis it is cut short on."""

    card: bool  # card pixels (another card, which may lie on the piece's card)
    outside: bool  # the frame border: the card may run out of view
    neighbour: int  # index of the piece lying there, -1 when none is known
    weight: float  # mean region area there (the bigger neighbour more likely lies on top)


@dataclass(frozen=True, eq=False)
class _Growth:
    """How a partly hidden piece becomes a whole card: its rotated bounding rectangle ``box``
    (map pixels) lengthened by ``deficit`` along ``axis``, at one of the two ``ends``
    (index 0: towards ``-axis``, 1: towards ``+axis``)."""

    box: np.ndarray
    axis: np.ndarray
    deficit: float
    ends: tuple[_End, _End]

    def quad(self, end: int) -> np.ndarray:
        """The completed quad (clockwise) when the card continues beyond ``end``."""
        sign = -1.0 if end == 0 else 1.0
        centre = self.box.mean(axis=0)
        out = self.box.copy()
        moved = ((out - centre) @ self.axis) * sign > 0
        out[moved] += sign * self.axis * self.deficit
        return _clockwise(out)

    def options(self) -> list[int]:
        """The ends the card may continue beyond: where another card or the frame border lies."""
        return [k for k, e in enumerate(self.ends) if e.card or e.outside]

    def fallback(self) -> int | None:
        """The end to grow at when nothing better is known: the only possible one, else the
        frame border, else the bigger neighbour."""
        options = self.options()
        if not options:
            return None
        if len(options) == 1:
            return options[0]
        a, b = self.ends
        if a.outside != b.outside:
            return 0 if a.outside else 1
        return 0 if a.weight > b.weight else 1


def _plan_growth(
    rect: tuple, cardish: np.ndarray, typical: tuple[float, float], area_map: np.ndarray | None = None,
    ids: np.ndarray | None = None, own: int = -1,
) -> _Growth | None:
    """How the seen part of a partly hidden card (its rotated bounding rectangle ``rect``) would
    grow to the typical card size ``(short, long)``: it must have about a card's size along one
    axis and be cut short along the other. ``ids`` (piece index + 1 per map pixel, 0 for none)
    names the neighbour at each end; ``own`` is this piece's index. None when the piece does
    not look like a card cut short along one axis."""
    box = cv2.boxPoints(rect).astype(np.float64)
    u = box[1] - box[0]
    v = box[2] - box[1]
    eu, ev = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if eu < 2 or ev < 2:
        return None
    u, v = u / eu, v / ev
    short, long = typical
    best = None
    for tu, tv in ((short, long), (long, short)):
        if eu > 1.15 * tu or ev > 1.15 * tv:
            continue
        # The axis that is not cut short must already have about the card's size.
        du, dv = tu - eu, tv - ev
        if du > 0.15 * tu and dv > 0.15 * tv:
            continue
        cost = min(abs(du) / tu, abs(dv) / tv)
        if best is None or cost < best[0]:
            best = (cost, tu, tv)
    if best is None:
        return None
    _, tu, tv = best
    centre = box.mean(axis=0)
    h, w = cardish.shape
    for axis, extent, target, other, other_extent, other_target in ((u, eu, tu, v, ev, tv), (v, ev, tv, u, eu, tu)):
        # the seen whole side gives the card's scale here (perspective, cards of other sizes)
        target *= other_extent / other_target
        deficit = target - extent
        if deficit <= 0.15 * target:
            continue
        if extent < MIN_SEEN_SHARE * target:
            return None  # a sliver (the seam between two cards, say) is no card to complete
        ends = []
        for sign in (-1.0, 1.0):
            ts = np.linspace(-0.35, 0.35, 9) * other_extent
            pts = centre + sign * axis * (extent / 2 + 3.0) + ts[:, None] * other
            inside = (pts[:, 0] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] >= 0) & (pts[:, 1] <= h - 1)
            xs = np.clip(pts[:, 0], 0, w - 1).astype(np.float32)
            ys = np.clip(pts[:, 1], 0, h - 1).astype(np.float32)
            vals = cv2.remap(cardish, xs.reshape(1, -1), ys.reshape(1, -1), cv2.INTER_LINEAR).ravel()
            card = float(np.where(inside, vals, 0.0).mean()) >= 0.5
            weight = 0.0
            if area_map is not None:
                weight = float(np.where(inside, area_map[ys.astype(int), xs.astype(int)], 0.0).mean())
            neighbour = -1
            if ids is not None and card:
                seen = ids[ys.astype(int), xs.astype(int)][inside]
                seen = seen[(seen > 0) & (seen != own + 1)]
                if seen.size:
                    values, counts = np.unique(seen, return_counts=True)
                    neighbour = int(values[counts.argmax()]) - 1
            ends.append(_End(card, float(inside.mean()) < 0.5, neighbour, weight))
        return _Growth(box, axis, deficit, (ends[0], ends[1]))
    return None


def _complete_hidden(
    rect: tuple, cardish: np.ndarray, typical: tuple[float, float], area_map: np.ndarray | None = None
) -> np.ndarray | None:
    """Extend the seen part of a partly hidden card (its rotated bounding rectangle ``rect``) to
    the typical card size ``(short, long)``, towards the end where other card pixels lie (the
    bigger neighbour's when there are cards at both ends).

    Returns the completed quad (map pixels, clockwise) or None when the piece does not look like
    a card cut short along one axis by another card.
    """
    plan = _plan_growth(rect, cardish, typical, area_map)
    if plan is None:
        return None
    cards = [k for k, e in enumerate(plan.ends) if e.card]
    if not cards:
        return None
    end = cards[0] if len(cards) == 1 else (0 if plan.ends[0].weight > plan.ends[1].weight else 1)
    return plan.quad(end)


def _grow_ends(plans: dict[int, _Growth], whole: set[int]) -> dict[int, int]:
    """The end each partly hidden piece grows at (piece index -> end index).

    A piece continues under a whole card rather than under another piece. A piece that grows
    at one end keeps its true edge at the other, so it lies on the piece beyond that edge, and
    that piece continues under it: in a hand of overlapping cards the answer spreads from the
    card on top down the row. What stays open is settled by :meth:`_Growth.fallback`.
    """
    ends: dict[int, int] = {}
    for k, plan in plans.items():
        options = plan.options()
        if len(options) == 1:
            ends[k] = options[0]
        elif len(options) == 2:
            on_whole = [e for e in options if plan.ends[e].card and plan.ends[e].neighbour in whole]
            if len(on_whole) == 1:
                ends[k] = on_whole[0]
    changed = True
    while changed:
        changed = False
        for k, plan in plans.items():
            if k in ends or len(plan.options()) != 2:
                continue
            above = []
            for e in (0, 1):
                n = plan.ends[e].neighbour
                if n in ends and n in plans and plans[n].ends[1 - ends[n]].neighbour == k:
                    above.append(e)  # n's true edge faces this piece: n lies on it
            if len(above) == 1:
                ends[k] = above[0]
                changed = True
    for k, plan in plans.items():
        if k not in ends:
            end = plan.fallback()
            if end is not None:
                ends[k] = end
    return ends


def _validate(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise InvalidImageError(f"expected a numpy image array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise InvalidImageError(f"expected a uint8 image, got dtype {image.dtype}")
    if image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise InvalidImageError(f"expected an image of shape (H, W, 3) or (H, W), got {image.shape}")
    if min(image.shape[:2]) < 32:
        raise InvalidImageError(f"expected at least 32x32 pixels, got {image.shape[1]}x{image.shape[0]}")
    return image


# ----------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class _Mask:
    """One binary mask of candidate regions (see :func:`_masks`)."""

    image: np.ndarray
    mode: int  # the contour retrieval mode to use on it
    whole_only: bool = False  # only its regions that fit a card in full view as they are are taken:
    # none is rescued (see :func:`_rescue`), none taken as partly hidden or cut by the image border


def _masks(small: np.ndarray, config: DetectConfig, bridged: bool = True) -> list[_Mask]:
    """Binary masks of candidate regions."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    light = cv2.GaussianBlur(lab[:, :, 0], (5, 5), 0)
    sat = cv2.GaussianBlur(hsv[:, :, 1], (5, 5), 0)
    edges = cv2.Canny(light, config.canny_low, config.canny_high, L2gradient=True)
    edges |= cv2.Canny(sat, config.canny_low, config.canny_high, L2gradient=True)
    thin = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    thick = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    short = min(small.shape[:2])
    block = max(15, int(short * config.adaptive_block_frac) | 1)
    bright = cv2.adaptiveThreshold(
        light, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -config.adaptive_offset
    )
    # Opening with a kernel a few percent of the frame cuts bright streaks (wood grain, glare)
    # that touch a card, without removing the card itself.
    k = max(3, int(short * config.open_frac) | 1)
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # Whiteness: light and colourless (card stock) against tinted tables such as wood or cloth.
    chroma = cv2.absdiff(lab[:, :, 1], 128).astype(np.int16) + cv2.absdiff(lab[:, :, 2], 128).astype(np.int16)
    white = np.clip(lab[:, :, 0].astype(np.int16) - 4 * chroma, 0, 255).astype(np.uint8)
    white = cv2.GaussianBlur(white, (5, 5), 0)
    _, otsu = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    # A thin dark line across a card (a cable, a pencil) cuts its white region in two; closed with
    # the same disc first, the cut is bridged. Closing also joins cards lying closer than the disc,
    # the light streaks of wood beside a card, and a piece of a card to its print across a line
    # printed on it, so this is a mask of its own that offers whole cards only, as they are: a
    # rescue would cut a quad of card and wood from its regions (a rendered scene: seed 1600's
    # appia 23, a piece of a card between fingers and the frame border, closed over a printed line).
    closed = cv2.morphologyEx(cv2.morphologyEx(otsu, cv2.MORPH_CLOSE, disc), cv2.MORPH_OPEN, disc) if bridged else None
    otsu = cv2.morphologyEx(otsu, cv2.MORPH_OPEN, disc)
    masks = [_Mask(thin, cv2.RETR_LIST), _Mask(thick, cv2.RETR_LIST), _Mask(bright, cv2.RETR_EXTERNAL),
             _Mask(otsu, cv2.RETR_EXTERNAL)]
    return masks + [_Mask(closed, cv2.RETR_EXTERNAL, whole_only=True)] if bridged else masks


def _candidates(small: np.ndarray, probe: np.ndarray, config: DetectConfig, bridged: bool = True) -> list[_Candidate]:
    h, w = small.shape[:2]
    frame_area = float(h * w)
    min_area = config.min_area_frac * frame_area
    max_area = config.max_area_frac * frame_area
    out: list[_Candidate] = []
    for mask in _masks(small, config, bridged):
        contours, _ = cv2.findContours(mask.image, mask.mode, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < min_area * config.min_occluded_fill or area > max_area:
                continue
            cand = _fit_quad(contour, area, min_area, max_area, config)
            if cand is not None and mask.whole_only and (cand.occluded or _touches_border(cand.quad, w, h, 2.0)):
                cand = None
            if cand is not None:
                cand = _verify(cand, probe, config)
            if not mask.whole_only and (cand is None or cand.occluded):
                rescued = _rescue(contour, area, probe, min_area, max_area, config)
                if rescued is not None:
                    out.append(rescued)
            if cand is not None:
                out.append(cand)
    return out


RESCUE_SHARE = 0.5
"""A rescued card's quad holds at least this share of its region's area: what the opening in
:func:`_rescue` cut off are thin streaks of table. (A ring of card border or print that opens to a
blob the size of a pip is no card: two such rings of cam_image36, filling 0.45 of their boxes,
gave quads of 0.41 and 0.43 of their regions; cam_image31's card with the wood streaks leaking
from it, filling 0.48 of its box, 0.85.) It replaces a rule that a region fill 0.55 of its box,
which dropped cards whose streaks leak far (render set 1600: 2 more cards found, 4 fewer false
positives; 1700: one false positive more, a printed digit)."""


def _rescue(
    contour: np.ndarray, area: float, probe: np.ndarray, min_area: float, max_area: float, config: DetectConfig
) -> _Candidate | None:
    """Recover a card whose region leaks into the table (grain or cloth touching a weak edge).

    The filled region is opened with a disc a quarter of its width: a card face survives as one
    compact blob while thin attached streaks are cut off. The blob's quad is then fitted to the
    region's outline near its sides (see :func:`_fit_outline`) and, separately, snapped to the
    strongest nearby edges; each must pass the same edge check as any fully visible card and hold
    ``RESCUE_SHARE`` of the region, and the better-scoring one is taken.
    """
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    short = min(rw, rh)
    if short < 8 or area < min_area or short < 0.3 * max(rw, rh):
        return None
    x, y, bw, bh = cv2.boundingRect(contour)
    roi = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(roi, [contour - np.array([x - 1, y - 1])], -1, 255, -1)
    # The opening runs at half resolution: it only has to cut streaks, the edges are snapped later.
    half = cv2.resize(roi, ((bw + 3) // 2, (bh + 3) // 2), interpolation=cv2.INTER_NEAREST)
    k = max(3, int(config.rescue_open_frac * short / 2) | 1)
    opened = cv2.morphologyEx(half, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    blobs, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not blobs:
        return None
    blob = max(blobs, key=cv2.contourArea) * 2 + np.array([x - 1, y - 1])
    hull = cv2.convexHull(blob)
    quad = _hull_to_quad(hull)
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    quad = _clockwise(quad)
    radius = max(3.0, 0.08 * short)
    best = None
    # The opened blob's corners are rounded off by the disc, so its quad lies a little inside the
    # card, and the strongest edge near a side may be a line printed on the card. The region's own
    # outline follows the card's edge wherever no streak leaks out: a blob of a card's shape has its
    # sides fitted to that, and snapped to the image's edges as well; the better-supported quad is
    # the card. (A blob of no card's shape, several cards seen as one say, is only snapped: fitted
    # to the outline it may become a card and a strip of the next one.)
    fitted = _fit_outline(contour, quad, radius, probe.shape[:2]) if _plausible_shape(quad, config) else None
    for found in (fitted, _snap(probe, quad, radius)):
        if found is None:
            continue
        quad_area = abs(_shoelace(found))
        if (not (max(min_area, RESCUE_SHARE * area) <= quad_area <= max_area)
                or not _plausible_shape(found, config)):
            continue
        cand = _verify(_Candidate(found, quad_area, 0.8, 0.8 * _shape_score(found), False), probe, config)
        if cand is None or cand.polarity < config.min_rescue_polarity:
            continue
        if best is None or cand.score > best.score:
            best = cand
    return best


OUTLINE_SEEN = 0.4
"""A side of a rescued card's quad is fitted to the region's outline (see :func:`_fit_outline`)
only where the outline runs along it for at least this share of its length (counted in outline
points near its middle 80%, about one a pixel); a side whose edge leaked into the table all along
has none to give. (The two real photos rescued so, cam_image27 and 31: 0.48 to 1.23 on their
sides, the lowest where wood streaks leave the card's long side.)"""


def _along_sides(pts: np.ndarray, quad: np.ndarray, end: float,
                 reach: Callable[[float], float]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float]] | None:
    """For each side of ``quad`` (from corner k to k + 1): the ``pts`` along its middle (leaving
    ``end`` of its length out at each end) within ``reach(length)`` across it, its start, unit
    direction and length; None when a side is shorter than 4 px."""
    out = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 4:
            return None
        d = (b - a) / length
        rel = pts - a
        along = rel @ d
        across = np.abs(rel @ np.array([d[1], -d[0]]))
        out.append((pts[(along > end * length) & (along < (1 - end) * length) & (across <= reach(length))], a, d, length))
    return out


def _fit_outline(contour: np.ndarray, quad: np.ndarray, radius: float, shape: tuple[int, int]) -> np.ndarray | None:
    """``quad`` (clockwise) with each side moved onto the straight line followed by most of the
    ``contour`` points near its middle part (within ``radius`` across it, see ``OUTLINE_SEEN``),
    leaving out the points on the border of the image of ``shape`` (no card's edge: a region cut
    there is a card running out of view, or a panel printed on one); None when a side has too
    few such points or two lines do not cross."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    height, width = shape
    pts = pts[(pts[:, 0] > 0) & (pts[:, 1] > 0) & (pts[:, 0] < width - 1) & (pts[:, 1] < height - 1)]
    sides = _along_sides(pts, quad, 0.1, lambda length: radius)
    if sides is None:
        return None
    lines = []
    for near, _, _, length in sides:
        if len(near) < max(5.0, OUTLINE_SEEN * 0.8 * length):
            return None
        lines.append(_robust_line(near))
    corners = _side_corners(lines)
    return _clockwise(corners) if corners is not None else None


def _snap(probe: np.ndarray, quad: np.ndarray, radius: float, samples: int = 32) -> np.ndarray | None:
    """Move each side of ``quad`` onto the line best supported by edge points within ``radius``."""
    ts = np.linspace(0.1, 0.9, samples)
    offsets = np.arange(-radius - 2.0, radius + 2.5, 1.0)
    k = len(offsets)
    starts, ends = quad, np.roll(quad, -1, axis=0)
    normals = _outward_normals(quad)
    base = starts[:, None, :] + ts[None, :, None] * (ends - starts)[:, None, :]
    pts = base[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]
    prof = cv2.remap(
        probe, pts[..., 0].reshape(1, -1).astype(np.float32), pts[..., 1].reshape(1, -1).astype(np.float32),
        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE,
    ).reshape(4, samples, k, 2)
    step = np.abs(prof[:, :, 0 : k - 4, :] - prof[:, :, 4:k, :]).max(axis=3)  # centred at offsets[2:k-2]
    best = step.argmax(axis=2)
    pos = offsets[2 : k - 2][best]
    strong = np.take_along_axis(step, best[..., None], axis=2)[..., 0] >= 10.0
    lines = []
    for s in range(4):
        if strong[s].sum() < samples // 3:
            return None
        p = base[s][strong[s]] + pos[s][strong[s]][:, None] * normals[s]
        lines.append(_robust_line(p))
    corners = _side_corners(lines)
    return _clockwise(corners) if corners is not None else None


def _robust_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A line through most of ``points``: best of a few point pairs, refitted on its inliers."""
    n = len(points)
    idx = np.arange(0, n, max(1, n // 6))
    i, j = np.meshgrid(idx, idx, indexing="ij")
    keep = i < j
    i, j = i[keep], j[keep]
    d = points[j] - points[i]
    norm = np.hypot(d[:, 0], d[:, 1])
    ok = norm > 1e-6
    sel = points
    if ok.any():
        i, d, norm = i[ok], d[ok], norm[ok]
        normal = np.stack([-d[:, 1], d[:, 0]], axis=1) / norm[:, None]
        dist = np.abs(((points[None, :, :] - points[i][:, None, :]) * normal[:, None, :]).sum(axis=2))
        inliers = dist < 1.5
        best = inliers[int(inliers.sum(axis=1).argmax())]
        if best.sum() >= 2:
            sel = points[best]
    line = cv2.fitLine(sel.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    return np.array(line[2:4], np.float64), np.array(line[0:2], np.float64)


def _probe_image(small: np.ndarray) -> np.ndarray:
    """Lightness and saturation planes (float32, lightly smoothed) used to check quad sides."""
    lab_l = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[:, :, 0]
    sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[:, :, 1]
    planes = np.dstack([lab_l, sat]).astype(np.float32)
    return cv2.GaussianBlur(planes, (3, 3), 0)


def _side_support(probe: np.ndarray, quad: np.ndarray, samples: int = 24) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge evidence along each side of ``quad`` (working-image pixels).

    For points spread along each side, the strongest step (lightness or saturation, over 4 px
    across the side, within 3 px of it) is measured. Returns per side the step values (4, n),
    the sign of the lightness step at each point (positive: inside lighter) and whether the
    side runs along the frame border (a card cut by the image edge), where no edge can exist.
    """
    h, w = probe.shape[:2]
    ts = np.linspace(0.1, 0.9, samples)
    offsets = np.arange(-5.0, 6.0, 1.0)
    starts = quad
    ends = np.roll(quad, -1, axis=0)
    normals = _outward_normals(quad)
    base = starts[:, None, :] + ts[None, :, None] * (ends - starts)[:, None, :]
    pts = base[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]  # (4, n, k, 2)
    map_x = pts[..., 0].reshape(1, -1).astype(np.float32)
    map_y = pts[..., 1].reshape(1, -1).astype(np.float32)
    prof = cv2.remap(probe, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.reshape(4, samples, len(offsets), 2)
    # Step at centre c: inside (c - 2) minus outside (c + 2), for centres -3..3.
    step = prof[:, :, 0:7, :] - prof[:, :, 4:11, :]
    mag = np.abs(step).max(axis=3)  # strongest channel
    best = mag.argmax(axis=2)
    strength = np.take_along_axis(mag, best[..., None], axis=2)[..., 0]
    light = np.take_along_axis(step[..., 0], best[..., None], axis=2)[..., 0]
    outer = base + 5.0 * normals[:, None, :]
    outside = (outer[..., 0] < 0) | (outer[..., 1] < 0) | (outer[..., 0] > w - 1) | (outer[..., 1] > h - 1)
    cut = outside.mean(axis=1) > 0.5
    return strength, np.sign(light), cut


def _verify(cand: _Candidate, probe: np.ndarray, config: DetectConfig) -> _Candidate | None:
    """Keep a candidate only if real image edges run along its sides; fold that into its score."""
    strength, sign, cut = _side_support(probe, cand.quad)
    if cut.sum() > 1:
        return None
    on_edge = strength >= config.support_step
    per_side = on_edge.mean(axis=1)[~cut]
    mean = float(per_side.mean())
    signs = sign[~cut][on_edge[~cut]]
    polarity = float(max((signs > 0).mean(), (signs < 0).mean())) if signs.size else 0.0
    if cand.occluded:
        if mean < config.min_occluded_support:
            return None
    elif per_side.min() < config.min_side_support or mean < config.min_mean_support:
        return None
    return _Candidate(cand.quad, cand.area, cand.fill, cand.score * mean, cand.occluded, mean, polarity)


def _fit_quad(
    contour: np.ndarray, area: float, min_area: float, max_area: float, config: DetectConfig
) -> _Candidate | None:
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0:
        return None
    quad = _hull_to_quad(hull)
    boxed = False
    if quad is None or cv2.contourArea(quad.astype(np.float32)) < 0.85 * hull_area:
        # Not a quad by itself: maybe a card with a part hidden. Try the smallest enclosing
        # rotated rectangle; it is kept only as a partly hidden card.
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        boxed = True
    quad = _clockwise(quad)
    if not boxed:
        fitted = _fit_sides(contour, quad)
        if fitted is not None:
            quad = fitted
    quad_area = abs(_shoelace(quad))
    if not (min_area <= quad_area <= max_area):
        return None
    hull_fill = hull_area / quad_area
    if hull_fill > 1.12 or not _plausible_shape(quad, config):
        return None
    fill = area / quad_area
    coverage = _boundary_coverage(contour, quad)
    solid = fill >= config.min_fill
    ringed = hull_fill >= 0.9 and coverage >= config.min_coverage
    if not boxed and (solid or ringed):
        quality = min(hull_fill, 1.0 / hull_fill) * (0.5 + 0.5 * max(coverage, min(fill, 1.0)))
        return _Candidate(quad, quad_area, quality, quality * _shape_score(quad), False)
    if fill >= config.min_occluded_fill and coverage >= 0.5:
        quality = 0.6 * min(fill, 1.0)
        return _Candidate(quad, quad_area, quality, quality * _shape_score(quad), True)
    return None


def _hull_to_quad(hull: np.ndarray) -> np.ndarray | None:
    """Four corners of a convex outline: a 4-vertex polygon approximation if one exists,
    otherwise the hull points reaching furthest towards the corners of its enclosing rectangle
    (rounded or clipped corners, small bumps)."""
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.015, 0.025, 0.035, 0.05, 0.07):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            break
    pts = hull.reshape(-1, 2).astype(np.float64)
    if len(pts) < 4:
        return None
    (cx, cy), _, _ = cv2.minAreaRect(hull)
    box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    center = np.array([cx, cy])
    corners = []
    for b in box:
        direction = b - center
        corners.append(pts[int(np.argmax((pts - center) @ direction))])
    quad = np.array(corners)
    if len({(round(x, 3), round(y, 3)) for x, y in quad}) < 4:
        return None
    return quad


NOTCH_PX = 2.0
"""Farthest the outline may run outside a side line fitted to its middle (in the network's map
pixels) before the line is taken to run through a notch and the side is kept as it was ..."""
NOTCH_HUG_PX = 1.0
"""... provided no point of the outline lies farther than this outside the side as it was (a
card below sticking out of a pile's outline is no notch)."""


def _fit_sides(contour: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """Re-fit each side of ``quad`` as a line through the outline points along its straight middle.

    Rounded or clipped corners pull polygon vertices inwards; intersecting fitted side lines
    recovers the card's (virtual) corners.
    """
    pts = contour.reshape(-1, 2).astype(np.float64)
    sides = _along_sides(pts, quad, 0.15, lambda length: 2.0 + 0.04 * length)
    if sides is None:
        return None
    lines = []
    for (near, a, d, length), normal in zip(sides, _outward_normals(quad)):
        if len(near) < 5:
            lines.append((a, d))
            continue
        line = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        p = np.array(line[2:4], np.float64)
        # a line the outline crosses outwards runs through a notch in the side's middle, not
        # along the card's edge (a Valais*Wallis joker's red label on its top edge, seen as not
        # card: film 157's 1915, its top side tilted 16 px into the label, the year never read)
        along = (pts - a) @ d
        span = pts[(along > 0) & (along < length)]
        if len(span) and float(((span - p) @ normal).max()) > NOTCH_PX and float(((span - a) @ normal).max()) <= NOTCH_HUG_PX:
            lines.append((a, d))  # (the side as it was, which the outline hugs: nothing sticks out)
            continue
        lines.append((p, np.array(line[0:2], np.float64)))
    new = _side_corners(lines)
    if new is None:
        return None
    if np.linalg.norm(new - quad, axis=1).max() > 0.15 * float(np.linalg.norm(quad[2] - quad[0])):
        return None
    return _clockwise(new)


def _boundary_coverage(contour: np.ndarray, quad: np.ndarray, samples: int = 12) -> float:
    """Fraction of points along the quad's sides that lie close to the region's outline."""
    ts = np.linspace(0.1, 0.9, samples)
    pts = quad[:, None, :] + ts[None, :, None] * (np.roll(quad, -1, axis=0) - quad)[:, None, :]
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    tol = 2.0 + 0.03 * float(sides.min())
    hits = 0
    for x, y in pts.reshape(-1, 2):
        if abs(cv2.pointPolygonTest(contour, (float(x), float(y)), True)) <= tol:
            hits += 1
    return hits / (4 * samples)


def _plausible_shape(quad: np.ndarray, config: DetectConfig) -> bool:
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    if sides.min() <= 2:
        return False
    if not (config.min_aspect <= _card_aspect(quad) <= config.max_aspect):
        return False
    # Opposite sides of a card under moderate perspective have similar lengths.
    if min(sides[0], sides[2]) / max(sides[0], sides[2]) < 0.6:
        return False
    if min(sides[1], sides[3]) / max(sides[1], sides[3]) < 0.6:
        return False
    angles = _angles(quad)
    return bool(np.all(np.abs(angles - 90.0) <= config.max_angle_dev))


def _shape_score(quad: np.ndarray) -> float:
    angles = _angles(quad)
    return float(max(0.0, 1.0 - np.abs(angles - 90.0).mean() / 90.0))


def _angles(quad: np.ndarray) -> np.ndarray:
    prev = np.roll(quad, 1, axis=0) - quad
    nxt = np.roll(quad, -1, axis=0) - quad
    cos = (prev * nxt).sum(axis=1) / (np.linalg.norm(prev, axis=1) * np.linalg.norm(nxt, axis=1) + 1e-9)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def _shoelace(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


def _clockwise(quad: np.ndarray) -> np.ndarray:
    return quad if _shoelace(quad) > 0 else quad[::-1].copy()


# ----------------------------------------------------------------------------- selection


def _poly_overlap(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(max(inter, 0.0))


def _select(
    cands: list[_Candidate], frame_shape: tuple[int, int], config: DetectConfig, probe: np.ndarray | None = None
) -> list[_Candidate]:
    """Merge duplicates, split merged blobs, drop card-internal rectangles and stray partial shapes."""
    cands = sorted(cands, key=lambda c: (c.occluded, -c.score))
    # 1. Duplicates: the same card found by several masks (the best-scoring copy is kept).
    unique: list[_Candidate] = []
    for cand in cands:
        if all(_iou(cand, kept) <= 0.8 for kept in unique):
            unique.append(cand)
    n = len(unique)
    # 2. Containment: inside[i][j] is True when candidate j lies mostly inside candidate i.
    inside = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and unique[j].area < unique[i].area * 0.9:
                inside[i][j] = _poly_overlap(unique[i].quad, unique[j].quad) > 0.85 * unique[j].area
    drop = [False] * n
    extra: list[_Candidate] = []
    for i in range(n):
        parts = [j for j in range(n) if inside[i][j] and not unique[j].occluded and unique[j].area > 0.03 * unique[i].area]
        disjoint: list[int] = []
        for j in sorted(parts, key=lambda k: -unique[k].area):
            if all(_poly_overlap(unique[j].quad, unique[k].quad) < 0.15 * unique[j].area for k in disjoint):
                disjoint.append(j)
        # Two or more separate cards inside i (touching cards seen as one blob), or a full card
        # inside a region that only fits a card loosely: i is not a card of its own.
        if len(disjoint) >= 2 or (unique[i].occluded and disjoint):
            drop[i] = True
            halves = None
            if len(disjoint) == 2 and not unique[i].occluded:
                halves = _split_between(unique[i], unique[disjoint[0]], unique[disjoint[1]])
                if halves is not None:
                    extra.extend(halves)
            pair = len(disjoint) == 1 or (unique[i].occluded and len(disjoint) == 2)
            if halves is None and probe is not None and pair:
                # One card on top of another, seen together as one loose region: the card below
                # is card-sized and sits in the region's corner away from the card on top.
                tops = [
                    j for j in sorted(parts, key=lambda k: -unique[k].area)
                    if unique[j].area < 0.7 * unique[i].area and _off_centre(unique[i], unique[j])
                ]
                below = _complete_below(unique[i], unique[tops[0]], probe, config) if tops else None
                if below is not None:
                    extra.append(below)
    for i in range(n):
        if drop[i] or unique[i].occluded:
            continue
        for j in range(n):
            if inside[i][j] and unique[j].area >= 0.3 * unique[i].area:
                if _better_inside(unique[i], unique[j]):
                    drop[i] = True  # a card and the table beside it seen as one region
                else:
                    drop[j] = True  # a printed frame inside a card
    survivors = [c for c, d in zip(unique, drop) if not d]
    for half in extra:
        # A half replaces the rectangles inside it (printed frames of two touching cards).
        survivors = [c for c in survivors if _poly_overlap(half.quad, c.quad) < 0.85 * c.area]
        survivors.append(half)
    # 3. Plain NMS, fully fitting candidates first.
    result: list[_Candidate] = []
    for cand in sorted(survivors, key=lambda c: (c.occluded, -c.score)):
        if all(_iou(cand, kept) <= config.nms_iou and _poly_overlap(cand.quad, kept.quad) <= 0.5 * cand.area for kept in result):
            result.append(cand)
    # 4. A partly hidden card needs something that hides it: a card on top or the frame border.
    # A piece cut by the frame border must be big enough to be part of a card like the others in
    # view, or (with no such card to compare with) have a very clean outline.
    h, w = frame_shape
    visible_areas = [c.area for c in result if not c.occluded]
    typical = float(np.median(visible_areas)) if visible_areas else 0.0
    best = max((c for c in result if not c.occluded), key=lambda c: c.score, default=None)
    final = []
    for cand in result:
        if best is not None and cand.area < config.min_relative_area * best.area:
            continue
        q = cand.quad
        at_border = bool((q[:, 0] < 2).any() or (q[:, 1] < 2).any() or (q[:, 0] > w - 3).any() or (q[:, 1] > h - 3).any())
        if cand.occluded or at_border:
            under = any(not k.occluded and _poly_overlap(cand.quad, k.quad) > 0.05 * cand.area for k in result)
            if typical > 0:
                sized = config.min_piece_frac * typical <= cand.area <= 1.5 * typical
            else:
                sized = (
                    cand.support >= config.min_lone_piece_support
                    and cand.area >= config.lone_piece_area_factor * config.min_area_frac * h * w
                )
            if not ((under or at_border) and sized and cand.polarity >= config.min_piece_polarity):
                continue
        final.append(cand)
    return final


def _complete_below(
    blob: _Candidate, top: _Candidate, probe: np.ndarray, config: DetectConfig
) -> _Candidate | None:
    """The partly hidden card in ``blob`` besides ``top``: a quad with the sides of ``top``,
    anchored at the blob corner farthest from ``top`` and running along the blob's sides."""
    q = blob.quad
    far = int(np.argmax(np.linalg.norm(q - top.quad.mean(axis=0), axis=1)))
    corner = q[far]
    u = q[(far + 1) % 4] - corner
    v = q[(far - 1) % 4] - corner
    lu, lv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if lu < 1 or lv < 1:
        return None
    u, v = u / lu, v / lv
    rel = top.quad - top.quad.mean(axis=0)
    eu = float(np.ptp(rel @ u))
    ev = float(np.ptp(rel @ v))
    # The card below must reach beyond the card on top's extent on neither side of the blob.
    if eu > 1.05 * lu or ev > 1.05 * lv:
        return None
    quad = _clockwise(np.array([corner, corner + eu * u, corner + eu * u + ev * v, corner + ev * v]))
    area = abs(_shoelace(quad))
    if _poly_overlap(quad, top.quad) > 0.7 * area or not _plausible_shape(quad, config):
        return None
    cand = _Candidate(quad, area, 0.6, 0.6 * _shape_score(quad), True)
    return _verify(cand, probe, config)


FRAME_SHIFT = 0.12
"""A printed frame lies about centred in its card: its centre is within this share of the card's
size (square root of its area) of the card's centre, or it spans the card (a band) ..."""
FRAME_SCORE_LEAD = 0.15
"""... and when an off-centre candidate inside another scores this much more than it, it is the
card, and the other one the card with a piece of the table beside it (wood grain that leaks into
a mask and ends in straight streaks)."""


def _better_inside(outer: _Candidate, inner: _Candidate) -> bool:
    """True when ``inner``, lying inside ``outer``, is the card and ``outer`` not (see ``FRAME_SCORE_LEAD``)."""
    shift = float(np.linalg.norm(outer.quad.mean(axis=0) - inner.quad.mean(axis=0)))
    return shift > FRAME_SHIFT * math.sqrt(outer.area) and inner.score >= outer.score + FRAME_SCORE_LEAD


def _off_centre(outer: _Candidate, inner: _Candidate) -> bool:
    """True when ``inner`` is a whole card in one corner of ``outer`` rather than a printed frame."""
    size = math.sqrt(outer.area)
    shift = float(np.linalg.norm(outer.quad.mean(axis=0) - inner.quad.mean(axis=0)))
    if shift <= 0.12 * size:
        return False
    # A card lying on another shares exactly one corner with their joint outline; a printed band
    # spanning its card shares two, a printed panel inside the card's margin none.
    dist = np.linalg.norm(outer.quad[:, None, :] - inner.quad[None, :, :], axis=2).min(axis=1)
    return int((dist < 0.06 * size).sum()) == 1


def _split_between(blob: _Candidate, a: _Candidate, b: _Candidate) -> list[_Candidate] | None:
    """Cut a blob of two touching cards in two, between the two card-like shapes inside it.

    Returns None when the two shapes already fill their halves (they are the cards themselves,
    separated by a visible gap) or when the halves do not look like cards.
    """
    q = blob.quad
    ca, cb = a.quad.mean(axis=0), b.quad.mean(axis=0)
    # Decide which pair of opposite sides the cut joins: the one the parts are separated along.
    for s0 in range(2):
        p0, p1, p2, p3 = q[s0], q[(s0 + 1) % 4], q[(s0 + 2) % 4], q[(s0 + 3) % 4]
        axis = (p1 + p2) / 2 - (p0 + p3) / 2
        length = float(np.linalg.norm(axis))
        if length < 1e-6:
            continue
        ta = float((ca - (p0 + p3) / 2) @ axis) / length**2
        tb = float((cb - (p0 + p3) / 2) @ axis) / length**2
        if abs(ta - tb) < 0.35:
            continue
        t = (ta + tb) / 2
        top = p0 + t * (p1 - p0)
        bottom = p3 + t * (p2 - p3)
        halves = [np.array([p0, top, bottom, p3]), np.array([top, p1, p2, bottom])]
        out = []
        for h in halves:
            h = _clockwise(h)
            area = abs(_shoelace(h))
            ratio = max(a.area, b.area) / area
            if not _plausible_shape(h, DetectConfig()) or ratio > 0.85 or min(a.area, b.area) / area < 0.35:
                return None
            out.append(_Candidate(h, area, blob.fill, blob.score * 0.95, False))
        return out
    return None


def _iou(a: _Candidate, b: _Candidate) -> float:
    inter = _poly_overlap(a.quad, b.quad)
    return inter / (a.area + b.area - inter)


# ----------------------------------------------------------------------------- refinement


def _side_corners(lines: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """The corners (4, 2) where a quad's side lines (side k from corner k to k + 1, each a point
    and a direction) cross, corner k on sides k - 1 and k; None when two neighbours do not cross."""
    corners = [_line_intersection(lines[(s - 1) % 4], lines[s]) for s in range(4)]
    return None if any(c is None for c in corners) else np.array(corners)


def _line_intersection(l1: tuple[np.ndarray, np.ndarray], l2: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    p, d = l1
    q, e = l2
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-9:
        return None
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    return p + t * d


def _refine(
    gray: np.ndarray, quad: np.ndarray, radius: float, config: DetectConfig
) -> tuple[np.ndarray | None, float]:
    """Snap each side to the strongest edge within ``radius`` pixels, twice (the second time in
    half the band); return the new quad and the edge support."""
    support = 0.0
    for _ in range(2):
        quad, support = _refine_once(gray, quad, radius, config)
        if quad is None:
            return None, 0.0
        radius = max(2.0, radius / 2)
    return quad, support


def _refine_once(
    gray: np.ndarray, quad: np.ndarray, radius: float, config: DetectConfig
) -> tuple[np.ndarray | None, float]:
    n = config.refine_samples
    ts = np.linspace(0.12, 0.88, n)
    offsets = np.arange(-radius, radius + 0.5, 0.5)
    k = len(offsets)
    starts = quad
    ends = np.roll(quad, -1, axis=0)
    dirs = ends - starts
    lengths = np.linalg.norm(dirs, axis=1, keepdims=True)
    dirs = dirs / np.maximum(lengths, 1e-9)
    normals = _outward_normals(quad)
    base = starts[:, None, :] + ts[None, :, None] * (ends - starts)[:, None, :]  # (4, n, 2)
    pts = base[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]  # (4, n, k, 2)
    map_x = pts[..., 0].reshape(1, -1).astype(np.float32)
    map_y = pts[..., 1].reshape(1, -1).astype(np.float32)
    prof = cv2.remap(gray, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.reshape(4, n, k).astype(np.float32)
    grad = np.abs(np.gradient(prof, axis=2))
    idx = grad.argmax(axis=2)  # (4, n)
    peak = np.take_along_axis(grad, idx[..., None], axis=2)[..., 0]
    # Sub-sample peak position by a parabola through the neighbours.
    left = np.take_along_axis(grad, np.clip(idx - 1, 0, k - 1)[..., None], axis=2)[..., 0]
    right = np.take_along_axis(grad, np.clip(idx + 1, 0, k - 1)[..., None], axis=2)[..., 0]
    den = left - 2 * peak + right
    frac = np.where((np.abs(den) > 1e-6) & (idx > 0) & (idx < k - 1), 0.5 * (left - right) / np.where(den == 0, 1, den), 0.0)
    pos = offsets[idx] + frac * 0.5
    strong = peak >= 4.0  # grey levels per half pixel
    interior = (idx > 0) & (idx < k - 1)
    good = strong & interior
    lines = []
    supported = 0
    for s in range(4):
        sel = good[s]
        if sel.sum() < max(4, n // 4):
            lines.append((base[s].mean(axis=0), dirs[s]))
            continue
        pts_s = base[s][sel] + pos[s][sel][:, None] * normals[s]
        line = cv2.fitLine(pts_s.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        d = np.array([line[0], line[1]], dtype=np.float64)
        p = np.array([line[2], line[3]], dtype=np.float64)
        resid = np.abs((pts_s - p) @ np.array([d[1], -d[0]]))
        supported += int((resid < 1.5).sum())
        lines.append((p, d))
    new_quad = _side_corners(lines)
    if new_quad is None:
        return None, 0.0
    # Reject refinements that moved a corner absurdly far (lost the card).
    if np.linalg.norm(new_quad - quad, axis=1).max() > 4 * radius + 0.05 * float(lengths.max()):
        return quad, supported / (4 * n)
    return new_quad, supported / (4 * n)


MEND_SKEW = 0.2
"""A quad whose corners miss a parallelogram by more than this share of its size (a card seen
at an angle is nearly one) has one corner on something else: the card below a pile's top."""
MEND_LOSS = 0.05
"""A corner put where the other three say it belongs may lose this much edge support (the
skewed side often runs along the edge of the card below) ..."""
MEND_CLEAR = 0.1
"""... and must have this much more than moving any other corner instead."""


def _skew(quad: np.ndarray) -> float:
    """How far ``quad`` is from a parallelogram, as a share of its size."""
    size = math.sqrt(max(abs(_shoelace(quad)), 1e-9))
    return float(np.linalg.norm(quad[0] + quad[2] - quad[1] - quad[3])) / size


def _mend_corner(
    gray: np.ndarray, quad: np.ndarray, support: float, radius: float, config: DetectConfig
) -> tuple[np.ndarray, float]:
    """A skewed quad (see ``MEND_SKEW``) with one corner replaced by where the other three put
    it (and refined again), when that is clearly the corner to move (see ``MEND_CLEAR``) and
    the new sides lie on about as much edge; else ``quad``."""
    skew = _skew(quad)
    if skew <= MEND_SKEW:
        return quad, support
    options: list[tuple[float, np.ndarray]] = []
    for k in range(4):
        alt = quad.copy()
        alt[k] = quad[(k - 1) % 4] + quad[(k + 1) % 4] - quad[(k + 2) % 4]
        refined, alt_support = _refine(gray, alt, radius, config) if _plausible_shape(alt, config) else (None, 0.0)
        if refined is not None and _skew(refined) < skew and _plausible_shape(refined, config):
            options.append((alt_support, refined))
        else:
            options.append((0.0, quad))
    options.sort(key=lambda o: -o[0])
    (best_support, best), (second, _) = options[0], options[1]
    if best_support >= support - MEND_LOSS and best_support - second >= MEND_CLEAR:
        return best, best_support
    return quad, support


CARD_ASPECT = 59.0 / 91.0
"""Short over long side of a card seen square on (59 x 91 mm)."""
PILE_SKEW = 0.08
"""A refined segmented quad further than this from a parallelogram (see :func:`_skew`; a card seen
from straight above is within about 0.03, so are the cards of the bench frame under a 15-degree
tilt, 0.027-0.038, but their refined outlines reach 0.09-0.13 where a side runs on a printed
border's inner edge: see ``PILE_BOX_FILL`` and ``TOP_REPLACE_SKEW``) ..."""
PILE_ASPECT = 0.06
"""... or whose aspect is further than this from ``CARD_ASPECT`` has no single card's shape: it may
be a pile's top card outlined together with parts of the cards below (a corner on one of them, or
the whole pile). The card inside it is looked for (see :func:`_top_card`) and replaces it when it
lies on at least as much edge (and see ``TOP_REPLACE``, ``TOP_REPLACE_SKEW``). Cards found so have
a card's aspect within this, and are nearly parallelograms too. (An outline of a card's shape may
be a pile's too: see ``PILE_INNER_EDGE`` and ``TOP_PAST``.)"""
PILE_BOX_FILL = 0.9
"""Only an outline whose region shows more than one card is looked into: for an outline of no
single card's shape, the region fills less than this share of its hull's least rotated box (the
cards below stick out from under a top card laid at an angle); for any outline, the network sees
a card's edge well inside it (see ``PILE_INNER_EDGE``). A lone card's outline pulled off its
shape by refinement (one side on the inner edge of its printed border) is no pile, and the search
costs about 15 ms a card: the 6 of the 10 cards of ``companion bench``'s 720p frame that set it
off fill 0.93-0.99 of their box; film 115's pile tops the search finds (W45, W25, W49, F2)
0.72-0.87, its W29 0.87-0.91 (see ``PILE_INNER_EDGE``). (Those bench cards' outlines are
0.82-1.10 of the typical card's area, film 115's pile outlines replaced 0.54-1.57: the typical
size comes from the pile itself when it is the only whole card, so size does not tell them apart;
and their true quads are within 0.027-0.038 of a parallelogram, so it is not perspective that
skews their outlines.)"""
PILE_INNER_EDGE = 0.5
"""... or the highest card-outline probability inside the outline, ``INNER_DEPTH`` map pixels or
more from its sides, is at least this: film 115's W29 0.74-0.83, W45, W25 and F2 0.83-0.99 (W49
0.30-0.39: found by its box fill); the bench frame's lone cards 0.08-0.32 (0.08-0.35 on its four
noisy copies). An outline of a card's shape is looked into on this alone (a pile's top card with a
strip of the card below may make one: film 105's W36 on W29, 0.89, box fill 0.92-0.93), and
replaced only as ``TOP_PAST`` says; on the films about one such outline a detected frame is looked
into (0.5-0.95 on every second frame of films 105, 115, 101, 113, 107), none on the bench frame."""
INNER_DEPTH = 4
"""Map pixels from an outline's sides within which the network's outline of the outline's own
card lies (see ``PILE_INNER_EDGE``): on the bench frame's lone cards the highest probability in
what is left inside is 0.59-0.91 for 2 pixels, 0.18-0.60 for 3 (film 115's W49 0.55-0.71), 0.08-0.32
for 4."""
PILE_AREA = 3.0
"""A partly hidden piece of more than the typical card's area, up to this many times it, is looked
at for a pile's top card too (it used to be dropped as no card; it still is when none is found)."""
TOP_LINES = 60
"""The straight lines looked for inside an outline: at most this many, the strongest ..."""
TOP_MORE_LINES = 150
"""... or, where an outline of ``TOP_MORE_AREA`` to ``TOP_SPREAD`` typical cards (a pile of a few
cards, not a row or a spread) gives no guess (see
:func:`_top_guesses`), this many: a FINISH card's checkered banner makes lines enough to crowd
out a side of the card (film 154's FINISH laid askew over a spread pile: 890 lines in the box,
its upper side the 56th after thinning in a box a pixel off the outline's, past the 60th in the
outline's own; no guess, nothing read, in frames 593-602 it lay still). Quads from that many
lines are only guesses, to be read: taken as found cards, they put chimeras of two touching
cards in place of both on fresh stills (set 1101100, 2 of 120 stills), and outlines of more
cards, a shown row, gave guesses reading a gladiola where there was none (one still of that set).
Looking at 150 lines costs about 85 ms against 15-30 ms."""
TOP_MORE_AREA = 1.25
TOP_SHARE = 0.85
"""... are combined into quads that must lie on an image edge along this share of every side ..."""
TOP_OUTLINE = 0.2
"""... and on the network's card outlines with at least this mean probability along the middle
of every side (see :func:`_outline_evidence`): the network half sees a pile's top card's edges
(0.23 and more on the film piles looked at), not a line printed across a card (0.12 to 0.17 on
the rendered scenes looked at) ..."""
TOP_MIN_SHARE = 0.55
"""... that cover at least this share of the outline (a pile's top card covers 0.6 of the pile's
box or more; a printed panel taken for a card inside a lone card about half of it; see
``TOP_SPREAD``) ..."""
TOP_REFINED = 8
"""... and of those the most on edges (see ``TOP_SKEW``), at most this many, are refined. The one
with the most edge support (see ``TOP_SKEW``), at least ``TOP_SUPPORT``, is the card."""
TOP_SUPPORT = 0.65
TOP_REPLACE = 0.77
"""Least edge support of a card found inside a refined outline of no single card's shape for it to
replace the outline (on the films a pile's top card gets 0.78 or more; a quad of a card's inner
frame line and a side of the card below it, 0.68-0.76)."""
TOP_REPLACE_SKEW = 0.04
"""... and only when it is a parallelogram within this skew (:func:`_skew`): a lone card seen under
a 15-degree tilt, whose trapezoid sets off the search, got a card-shaped quad of skew 0.08 whose
corners were twice as far off (a rendered Valais scene), film 101's W29 quads of 0.02-0.06. Film
105 (an 18-degree tilt) shows its pile tops at 0.030-0.039 (W36 0.031-0.033, its true quad 0.036;
W29 0.031-0.039): on every second frame of films 105, 115, 101, 113 and 107, of the searched
outlines of no card's shape whose card passes ``TOP_REPLACE`` with a skew of 0.03-0.04, 344 of
475 come closer to the true card's corners (by 1.5 px or more), 94 as close, 37 further (of those
within 0.03: 1185 of 1948 closer, 287 further). (It was 0.03.)"""
TOP_PAST = 0.09
"""A card found inside an outline that has a card's shape (see ``PILE_ASPECT``: a pile's top card
outlined with a strip of the card below, the whole happening to be card-shaped) replaces it only
when the outline runs on past one of the card's sides by at least this share of the outline's long
side (see :func:`_runs_past`) ... On every second frame of Gladiola films 105, 115, 101, 113 and
107, of the card-shaped outlines searched (``PILE_INNER_EDGE``) whose card passes ``TOP_REPLACE``
and ``TOP_REPLACE_SKEW``, those replaced so come 57, 55 of them closer to the true card's corners
(by 1.5 px or more), 2 as close, none further; at 0.07, 4 further. Film 105's W36 on W29: 0.109
(its outline's corners 17 px off the card's)."""
TOP_UNEVEN = 2.0
"""... and at least this many times as far as past the side it runs nearest (found cards lie on
the inner edge of the printed border, 4-7 px in: W36 4.6 px and 18.2 px; a line printed all round
inside a card is as far from every side) ..."""
TOP_INSIDE = 0.02
"""... and the card lies inside the outline, no corner further out than this share of the
outline's long side."""
TOP_SKEW = 2.0
"""A quad taking in a side of a card below the top card lies on edges about as much as the top
card's own, but is less of a parallelogram: quads are ranked by their share of sides on edges
(once refined, their edge support) less this many times their skew (see :func:`_skew`)."""
TOP_GUESSES = 4
"""A searched outline whose card is not found, or does not replace it, carries this many guesses
where the card may lie (see :func:`_top_guesses`, :attr:`Detection.inside`) ..."""
TOP_GUESS_SHARE = 0.6
"""... quads that lie on edges as ``TOP_SHARE`` asks along three sides, and along this share of
the fourth: a top card's side over the same-coloured border of the card below shows no edge but
its faint shadow (film 119's W41 on W28, 15 fps: its left side 0.75 on edges, its outline read
as nothing on every frame it lay on top, the move missed; its guesses read 41 at 0.75-1.0)."""
TOP_SPREAD = 1.6
"""An outline of more than this many typical cards' areas is no lone card (see the ``pile`` test in
:func:`_detect_segmented`): a card inside it need only be of a card's size, not ``TOP_MIN_SHARE``
of it (film 133's W44 laid askew on W40 with the START card sticking out beside: 0.48 of the
outline; its outline was dropped on every frame it lay on top)."""
TOP_GUESS_UNSEEN = 1
"""A quad that lies on edges as ``TOP_SHARE`` asks along all four sides is a guess of the second
set (:attr:`Detection.also_inside`) even when this many of its sides are not on the network's
outlines as ``TOP_OUTLINE`` asks: the network does not see a top card's side laid askew across the
same-coloured border of the card below (film 130's W42, some 15 degrees off the pile: its upper
side 0.12, the other three 0.45-0.68; its outline was searched on every frame it lay on top, no
guess was it, the move was missed). A quad taking in the strip of the card below is such a quad
too (film 130's W35): these are tried only when the first set gives no reading."""


def _top_card(
    gray: np.ndarray, maps: CardMaps, quad: np.ndarray, area: float | None, radius: float, config: DetectConfig,
    up_to_outline: bool = False,
) -> tuple[np.ndarray, float] | None:
    """The card inside an outline ``quad`` (frame pixels) of no single card's shape (a pile's top
    card outlined together with the cards below it), and its edge support; None when there is none.
    It may be as big as the outline when ``up_to_outline`` (the typical card's ``area`` may come
    from a part of a card).

    Quads are made of the straight lines in the outline's box (see :func:`_inside_quads`) whose
    sides all lie on edges and on the network's outlines (see ``TOP_LINES`` to ``TOP_REFINED``).
    The top card's sides run on edges all along; a quad taking in sides of the cards below it,
    hidden in part under the top card, does not; a line printed across a card has no outline in
    the maps."""
    outline_area = abs(_shoelace(quad))
    low, high = (0.6 * area, 1.2 * area) if area else (0.5 * outline_area, 1.1 * outline_area)
    if up_to_outline:
        high = max(high, outline_area)
    found = _inside_quads(gray, maps, quad, max(low, _least_top(outline_area, area)), high, config)
    return _best_top(gray, maps, found, radius, config)


def _best_top(
    gray: np.ndarray, maps: CardMaps, found: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
    radius: float, config: DetectConfig,
) -> tuple[np.ndarray, float] | None:
    """Of the quads :func:`_inside_quads` ``found``, the pile's top card and its edge support (see
    :func:`_top_card`), or None."""
    if found is None:
        return None
    quads, share, evidence, skews = found
    good = (share.min(axis=1) >= TOP_SHARE) & (evidence.min(axis=1) >= TOP_OUTLINE)
    best: tuple[float, np.ndarray, float] | None = None
    for cand in _most_on_edges(quads, share, skews, good, TOP_REFINED):
        # the lines are within a pixel or two of the edges: a narrow band keeps off the cards' below
        refined, support = _refine_once(gray, cand, min(radius, 2.0), config)
        if (refined is None or support < TOP_SUPPORT or not _card_shaped(refined, config)):
            continue
        score = support - TOP_SKEW * _skew(refined)
        if (best is None or score > best[0]) and min(_outline_evidence(maps, refined)) >= TOP_OUTLINE:
            best = (score, refined, support)
    return (best[1], best[2]) if best is not None else None


TOP_ON_OTHERS = 0.05
"""Largest share of a card found inside a piece completed as a partly hidden card that may lie on
other pieces' regions: a pile's top card lies on its own region; a card of a fanned hand found
so reaches under the next card's (tuning still 1095000/20: W14 found whole under W39)."""


def _share_on(quad: np.ndarray, regions: list[np.ndarray], factor: float) -> float:
    """The share of ``quad`` (frame pixels) lying on any of ``regions`` (masks at map scale)."""
    if not regions:
        return 0.0
    inside = np.zeros(regions[0].shape, np.uint8)
    cv2.fillConvexPoly(inside, ((quad + 0.5) * factor - 0.5).round().astype(np.int32), 1)
    covered = np.zeros(regions[0].shape, bool)
    for region in regions:
        covered |= region > 0
    return float((covered & (inside > 0)).sum()) / max(1, int(inside.sum()))


def _takes_over(top: tuple[np.ndarray, float] | None, support: float) -> bool:
    """Whether a card found inside an outline (:func:`_top_card`) replaces a quad of edge support
    ``support``: on at least as much edge, and ``TOP_REPLACE``, and nearly a parallelogram (see
    ``TOP_REPLACE_SKEW``)."""
    return top is not None and top[1] >= max(support, TOP_REPLACE) and _skew(top[0]) <= TOP_REPLACE_SKEW


def _top_guesses(
    gray: np.ndarray, maps: CardMaps, quad: np.ndarray, area: float | None, radius: float, config: DetectConfig,
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Where a pile's top card may lie inside an outline ``quad`` (frame pixels) when
    :func:`_top_card` finds none that passes, in two sets: the ``TOP_GUESSES`` quads most on
    edges with one side let down to ``TOP_GUESS_SHARE`` (see there), and those with one side off
    the network's outlines instead (see ``TOP_GUESS_UNSEEN``); of any size from ``TOP_MIN_SHARE``
    (or ``TOP_SPREAD``) of the outline's up to the outline's (the typical card's size may come from
    pieces of hidden cards: film 119's W47 was 1.5 times it), refined where refinement keeps a
    card's shape. Refinement cannot tell which of them is the card; reading can (see
    :attr:`Detection.inside` and :attr:`Detection.also_inside`). Where the strongest lines give
    none, more lines are looked at (see ``TOP_MORE_LINES``)."""
    outline_area = abs(_shoelace(quad))
    least = _least_top(outline_area, area)
    guesses = _guesses_of(gray, _inside_quads(gray, maps, quad, least, outline_area, config), radius, config)
    if not any(guesses) and area and TOP_MORE_AREA * area <= outline_area <= TOP_SPREAD * area:
        more = _inside_quads(gray, maps, quad, least, outline_area, config, TOP_MORE_LINES)
        guesses = _guesses_of(gray, more, radius, config)
    return guesses


def _guesses_of(
    gray: np.ndarray, found: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None, radius: float,
    config: DetectConfig,
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """The two sets of guesses (see :func:`_top_guesses`) of the quads :func:`_inside_quads` found."""
    if found is None:
        return (), ()
    quads, share, evidence, skews = found
    ordered = np.sort(share, axis=1)
    seen = evidence >= TOP_OUTLINE
    one_side_faint = (ordered[:, 1] >= TOP_SHARE) & (ordered[:, 0] >= TOP_GUESS_SHARE) & seen.all(axis=1)
    one_side_unseen = (ordered[:, 0] >= TOP_SHARE) & (seen.sum(axis=1) >= 4 - TOP_GUESS_UNSEEN) & ~one_side_faint
    # a quad taking in the strip of the card below along one side is on edges all round too:
    # those with a side unseen are the second set, tried when the first gives no reading (film
    # 130's W35, read by two of its first set, lost among its second)
    return (_refined_guesses(gray, _most_on_edges(quads, share, skews, one_side_faint, TOP_GUESSES), radius, config),
            _refined_guesses(gray, _most_on_edges(quads, share, skews, one_side_unseen, TOP_GUESSES), radius, config))


def _refined_guesses(gray: np.ndarray, quads: Sequence[np.ndarray], radius: float, config: DetectConfig) -> tuple[np.ndarray, ...]:
    """The guesses ``quads`` (frame pixels) refined where refinement keeps a card's shape, in card
    order, those refined alike once."""
    guesses: list[np.ndarray] = []
    for cand in quads:
        refined, _ = _refine_once(gray, cand, min(radius, 2.0), config)
        guess = Quad.card_order(refined if refined is not None and _card_shaped(refined, config) else cand).as_array()
        if all(np.abs(guess - other).max() >= 2.0 for other in guesses):
            guesses.append(guess)
    return tuple(guesses)


def _least_top(outline_area: float, area: float | None) -> float:
    """The least area of a pile's top card inside an outline of ``outline_area`` (frame pixels),
    the typical card's ``area`` given: ``TOP_MIN_SHARE`` of the outline's, or 0.6 of a card's when
    the outline spreads over more than ``TOP_SPREAD`` cards."""
    if area and outline_area > TOP_SPREAD * area:
        return 0.6 * area
    return TOP_MIN_SHARE * outline_area


def _card_shaped(quad: np.ndarray, config: DetectConfig) -> bool:
    """Whether ``quad`` has one card's shape: plausible, near a parallelogram, a card's aspect."""
    return (_plausible_shape(quad, config) and _skew(quad) <= PILE_SKEW
            and abs(_card_aspect(quad) - CARD_ASPECT) <= PILE_ASPECT)


def _inside_quads(
    gray: np.ndarray, maps: CardMaps, quad: np.ndarray, low: float, high: float, config: DetectConfig,
    most_lines: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The card-shaped quads (frame pixels) inside an outline ``quad`` (frame pixels) that may be
    a pile's top card, with per side their share on image edges and their mean probability on
    the network's outlines, and their skews; None when there are none.

    They are made of the straight lines in the outline's box (grown by a quarter of its width:
    the outline may cut off a corner of the top card), of a card's shape (see ``PILE_ASPECT``)
    and an area from ``low`` to ``high`` (frame pixels)."""
    height, width = gray.shape
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    short = min(lengths[0] + lengths[2], lengths[1] + lengths[3]) / 2
    pad = max(6, round(0.25 * short))
    x0, y0 = (np.floor(quad.min(axis=0)).astype(int) - pad).clip(0)
    x1 = min(width, math.ceil(float(quad[:, 0].max())) + pad + 1)
    y1 = min(height, math.ceil(float(quad[:, 1].max())) + pad + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    crop = gray[y0:y1, x0:x1]
    lines = _strong_lines(crop, int(0.4 * short), config, TOP_LINES if most_lines is None else most_lines)
    quads, skews = _card_quads(_with_sides(lines, quad - np.array([x0, y0], np.float64)), low, high)
    if not len(quads):
        return None
    # on edges: the share of points along each side within a pixel of a strong step (8 grey levels
    # a pixel, as in refinement)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    near = cv2.dilate(((gx * gx + gy * gy) >= 64.0**2).astype(np.uint8), np.ones((3, 3), np.uint8))
    ts = np.linspace(0.1, 0.9, 32)
    pts = quads[:, :, None, :] + ts[None, None, :, None] * (np.roll(quads, -1, axis=1) - quads)[:, :, None, :]
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, crop.shape[1] - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, crop.shape[0] - 1)
    share = near[ys, xs].mean(axis=2)  # (n, 4)
    # on the network's outlines, roughly: the highest probability within a map pixel at the
    # middle points of each side (see :func:`_outline_evidence`)
    offset = np.array([x0, y0], np.float64)
    outline = cv2.dilate(maps.boundary, np.ones((3, 3), np.uint8))
    middle = (pts[:, :, 4:-4] + offset + 0.5) * maps.factor - 0.5
    mx = np.clip(np.round(middle[..., 0]).astype(int), 0, outline.shape[1] - 1)
    my = np.clip(np.round(middle[..., 1]).astype(int), 0, outline.shape[0] - 1)
    return quads + offset, share, outline[my, mx].mean(axis=2), skews


def _most_on_edges(quads: np.ndarray, share: np.ndarray, skews: np.ndarray, good: np.ndarray, most: int) -> list[np.ndarray]:
    """Of the ``good`` quads, at most ``most``, the most on edges and nearest a parallelogram first
    (see ``TOP_SKEW``), none within 2 pixels of one taken before."""
    rank = share.mean(axis=1) - TOP_SKEW * skews
    chosen: list[np.ndarray] = []
    for cand in quads[good][np.argsort(-rank[good], kind="stable")]:
        if all(np.abs(cand - other).max() >= 2.0 for other in chosen):
            chosen.append(cand)
            if len(chosen) >= most:
                break
    return chosen


def _runs_past(outline: np.ndarray, card: np.ndarray) -> bool:
    """Whether ``outline`` runs on past one side of ``card`` (both frame pixels) by ``TOP_PAST`` of
    its long side or more, and ``TOP_UNEVEN`` times as far as past the side it runs nearest, with
    ``card`` inside it (within ``TOP_INSIDE``): for each of the outline's sides, how far in from it
    the card's nearest corner lies."""
    length = float(np.linalg.norm(np.roll(outline, -1, axis=0) - outline, axis=1).max())
    inwards = -_outward_normals(outline)
    depth = np.einsum("kcj,kj->kc", card[None, :, :] - outline[:, None, :], inwards).min(axis=1)  # per side
    return bool(depth.min() >= -TOP_INSIDE * length and depth.max() >= TOP_PAST * length
                and depth.max() >= TOP_UNEVEN * depth.min())


def _strong_lines(crop: np.ndarray, votes: int, config: DetectConfig, most: int) -> np.ndarray:
    """The straight lines (rows ``(rho, theta)``, crop pixels) with at least ``votes`` edge pixels
    (Canny) on them, strongest first, at most ``most``; of lines within 2 pixels and 2 degrees of
    each other only the strongest."""
    found = cv2.HoughLines(cv2.Canny(crop, config.canny_low, config.canny_high), 1, np.pi / 360, max(8, votes))
    lines: list[tuple[float, float]] = []
    for rho, theta in found[:, 0, :] if found is not None else ():
        if _apart_from(float(rho), float(theta), lines):
            lines.append((float(rho), float(theta)))
            if len(lines) >= most:
                break
    return np.array(lines, np.float64).reshape(-1, 2)


def _with_sides(lines: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """``lines`` (rows ``(rho, theta)``) and the sides of ``quad`` (same pixels) as lines, those
    not :func:`_apart_from` a line already there left out: a pile's top card often
    shares a side or two with the pile's outline, and its edge there, running close beside the
    edges of the cards below, may make no line strong enough (film 154's W49 on a pile squared up
    below it: its top end the pile's, not among the 60 strongest lines, and its walk missed)."""
    out = [tuple(row) for row in lines]
    for a, b in zip(quad, np.roll(quad, -1, axis=0)):
        d = b - a
        if float(np.hypot(*d)) < 1.0:
            continue
        theta = math.atan2(-d[0], d[1]) % math.pi  # the normal's direction, as cv2.HoughLines gives it
        rho = float(a[0] * math.cos(theta) + a[1] * math.sin(theta))
        if _apart_from(rho, theta, out):
            out.append((rho, theta))
    return np.array(out, np.float64).reshape(-1, 2)


def _apart_from(rho: float, theta: float, lines: Sequence[tuple[float, float]]) -> bool:
    """Whether the line ``(rho, theta)`` lies more than 2 pixels or 2 degrees from each of ``lines``."""
    return all(abs(rho - r) > 2 or _angle_apart(theta, t) > math.radians(2) for r, t in lines)


def _card_quads(lines: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """The quads (n, 4, 2; clockwise) made of two pairs of near-parallel ``lines`` (rows ``(rho,
    theta)``) crossing at 60 degrees or more that have a card's shape (see ``PILE_ASPECT``) and
    an area between ``low`` and ``high``, and their skews (see :func:`_skew`)."""
    rho, theta = lines.T
    i, j = np.triu_indices(len(lines), 1)
    flipped = np.abs(theta[i] - theta[j]) >= math.pi / 2  # directions near 0 and near pi: rho changes sign
    apart = np.where(flipped, np.abs(rho[i] + rho[j]), np.abs(rho[i] - rho[j]))
    turn = np.abs(theta[i] - theta[j]) % math.pi
    parallel = np.minimum(turn, math.pi - turn) < math.radians(6)
    # pairs about a card's width apart (its long sides), and about its length (its short sides)
    least, most = CARD_ASPECT - PILE_ASPECT, CARD_ASPECT + PILE_ASPECT
    spans = ((0.85 * math.sqrt(low * least), 1.15 * math.sqrt(high * most)),
             (0.85 * math.sqrt(low / most), 1.15 * math.sqrt(high / least)))
    longs, shorts = (np.stack([i, j], axis=1)[parallel & (apart >= lo) & (apart <= hi)] for lo, hi in spans)
    if not len(longs) or not len(shorts):
        return np.zeros((0, 4, 2)), np.zeros(0)
    pick = np.stack(np.meshgrid(np.arange(len(longs)), np.arange(len(shorts)), indexing="ij"), axis=-1).reshape(-1, 2)
    a, b = longs[pick[:, 0]].T  # the two long sides of each quad
    c, e = shorts[pick[:, 1]].T  # its two short sides
    crossing = np.abs(np.sin(theta[a] - theta[c])) > math.sin(math.radians(60))
    a, b, c, e = a[crossing], b[crossing], c[crossing], e[crossing]

    def meet(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Where lines p and q cross, per quad."""
        det = np.sin(theta[q] - theta[p])
        return np.stack([(rho[p] * np.sin(theta[q]) - rho[q] * np.sin(theta[p])) / det,
                         (rho[q] * np.cos(theta[p]) - rho[p] * np.cos(theta[q])) / det], axis=1)

    quads = np.stack([meet(a, c), meet(c, b), meet(b, e), meet(e, a)], axis=1)
    x, y = quads[..., 0], quads[..., 1]
    signed = 0.5 * ((x * np.roll(y, -1, axis=1)).sum(axis=1) - (np.roll(x, -1, axis=1) * y).sum(axis=1))
    quads[signed < 0] = quads[signed < 0][:, ::-1]
    sizes = np.abs(signed)
    sides = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    pairs = np.stack([sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]], axis=1)
    aspects = pairs.min(axis=1) / np.maximum(pairs.max(axis=1), 1e-9)
    off = np.linalg.norm(quads[:, 0] + quads[:, 2] - quads[:, 1] - quads[:, 3], axis=1)
    skews = off / np.sqrt(np.maximum(sizes, 1e-9))  # as :func:`_skew`
    keep = (np.abs(aspects - CARD_ASPECT) <= PILE_ASPECT) & (skews <= PILE_SKEW) & (sizes >= low) & (sizes <= high)
    return quads[keep], skews[keep]


TOP_CROSSED = 0.9
"""Share of a quad's inner length along which a card outline must run straight across it, side to
side, for a card to lie on it (:func:`_crossed`): fresh film 183's START under W23 1.0, film 175's
W11 on the white pile 0.63."""
CROSS_GRID = (24, 36)
"""Cells across and along a quad in which :func:`_crossed` looks (a map pixel or so each)."""
CROSS_MARGIN = 0.15
"""Share of the quad's width and length at each side :func:`_crossed` leaves out (its own edges)."""


def _crossed(maps: CardMaps, quad: np.ndarray) -> float:
    """How far (share of the inner part's extent) a card outline of the network's runs straight
    across ``quad`` (frame pixels, card order) from one side to the other, along either axis of
    the quad: 1.0 when another card's edge crosses it all the way."""
    corners = ((quad + 0.5) * maps.factor - 0.5).astype(np.float32)
    w, h = CROSS_GRID
    target = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    if _shoelace(corners) < 0:
        target = target[[0, 3, 2, 1]]
    warped = cv2.warpPerspective(maps.boundary.astype(np.float32), cv2.getPerspectiveTransform(corners, target), (w, h))
    mx, my = int(round(CROSS_MARGIN * w)), int(round(CROSS_MARGIN * h))
    inner = warped[my:h - my, mx:w - mx] > 0.5
    if inner.size == 0:
        return 0.0
    return float(max(inner.mean(axis=0).max(), inner.mean(axis=1).max()))


def _inner_outline(maps: CardMaps, quad: np.ndarray) -> float:
    """The highest card-outline probability in ``maps`` inside ``quad`` (frame pixels) further
    than ``INNER_DEPTH`` map pixels from its sides (0 when nothing is that far inside)."""
    corners = (quad + 0.5) * maps.factor - 0.5
    height, width = maps.boundary.shape
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - 1, 0)
    x1 = min(width, math.ceil(float(corners[:, 0].max())) + 2)
    y1 = min(height, math.ceil(float(corners[:, 1].max())) + 2)
    if x1 - x0 <= 2 * INNER_DEPTH or y1 - y0 <= 2 * INNER_DEPTH:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((corners - [x0, y0]) * 4).astype(np.int32)], 1, shift=2)
    mask = cv2.erode(mask, np.ones((2 * INNER_DEPTH + 1, 2 * INNER_DEPTH + 1), np.uint8))
    inside = maps.boundary[y0:y1, x0:x1][mask > 0]
    return float(inside.max()) if inside.size else 0.0


def _outline_evidence(maps: CardMaps, quad: np.ndarray, samples: int = 24) -> list[float]:
    """Per side of ``quad`` (frame pixels), the mean over points along its middle part (away from
    the outlines of the cards it may run into) of the highest card-outline probability in
    ``maps`` within 1.5 map pixels across it."""
    corners = (quad + 0.5) * maps.factor - 0.5
    ts = np.linspace(0.2, 0.8, samples)
    across = np.arange(-1.5, 1.51, 0.5)
    out = []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        normal = np.array([along[1], -along[0]])
        pts = a + ts[:, None, None] * (b - a) + across[None, :, None] * normal
        probs = cv2.remap(maps.boundary, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                          cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out.append(float(probs.max(axis=1).mean()))
    return out


def _angle_apart(a: float, b: float) -> float:
    """How far apart two line directions (radians, modulo pi) are."""
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


SIDE_MAX_ASPECT = 0.6
"""A quad seen closer (see ``seg_zoom``) narrower than this (short over long sides) is longer than
a card: the pile's top card with its outline running on over the card below it."""
SIDE_CARD_ASPECT = (0.6, 0.8)
"""The aspect of a card's quad (59 x 91 mm cards seen from a webcam above the table)."""
SIDE_EDGE_SHARE = 0.9
"""The far side put back must lie on a straight edge along at least this share of its points ..."""
SIDE_REACH = (0.5, 0.92)
"""... found this far from the side kept, as shares of the quad's length."""
SIDE_LOSS = 0.1
"""The cut quad may have this much less edge support (its new side runs over the card below)."""
SIDE_MIN_WIDE = 0.8
"""A quad seen closer wider than this (short over long sides) is wider than a card: the pile's top
card with a strip of the card below beside one of its long sides (a START card peeking out) ..."""
SIDE_NARROWEST = 0.55
"""... cut back to a card no narrower than this (a card's outer edge seen slightly askew measures
down to 0.59, and a strip of the card below is half a card's width or more). The wide outline
follows the outer edges of card and strip, so the cut may lose more edge support than
``SIDE_LOSS`` as long as it keeps a whole card's (``min_edge_support``)."""


def _card_aspect(quad: np.ndarray) -> float:
    """Mean short sides over mean long sides of ``quad``."""
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    pairs = sorted([lengths[0] + lengths[2], lengths[1] + lengths[3]])
    return float(pairs[0] / max(pairs[1], 1e-9))


def _mend_side(
    gray: np.ndarray, quad: np.ndarray, support: float, radius: float, config: DetectConfig
) -> tuple[np.ndarray, float]:
    """A quad longer than a card (see ``SIDE_MAX_ASPECT``) or wider than one (see
    ``SIDE_MIN_WIDE``) cut back to a card: one short side (of a long quad; of a wide one, one long
    side) is kept, the other moved in, parallel to it, onto the straightest edge across the quad
    (the top card's edge lying on the card below), and the quad refined again; else ``quad``.

    The new quad must be a plausible card of a card's aspect and keep about as much edge support;
    of the two sides, the one giving the straighter edge is kept."""
    aspect = _card_aspect(quad)
    if SIDE_MAX_ASPECT <= aspect <= SIDE_MIN_WIDE:
        return quad, support
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    short = 0 if lengths[0] + lengths[2] < lengths[1] + lengths[3] else 1
    wide = aspect > SIDE_MIN_WIDE
    kept = 1 - short if wide else short
    low, high = (SIDE_NARROWEST, SIDE_MIN_WIDE) if wide else SIDE_CARD_ASPECT
    least = min(support - SIDE_LOSS, config.min_edge_support) if wide else support - SIDE_LOSS
    options: list[tuple[float, float, np.ndarray]] = []
    for base in (kept, kept + 2):
        a, b = quad[base], quad[(base + 1) % 4]
        along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        normal = np.array([-along[1], along[0]])
        if float((quad.mean(axis=0) - a) @ normal) < 0:
            normal = -normal  # towards the inside of the quad
        reach = float(np.mean([(quad[(base + k) % 4] - a) @ normal for k in (2, 3)]))
        offsets = np.arange(SIDE_REACH[0] * reach, SIDE_REACH[1] * reach, 0.5)
        if offsets.size < 8:
            continue
        ts = np.linspace(0.12, 0.88, config.refine_samples)
        pts = a + ts[:, None, None] * (b - a) + offsets[None, :, None] * normal  # (n, k, 2)
        prof = cv2.remap(gray, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        strong = np.abs(np.gradient(prof, axis=1)) >= 4.0  # grey levels per half pixel, as in refinement
        # a point counts for an offset when its edge lies within a pixel of it (the edge may tilt a little)
        near = np.zeros_like(strong)
        for shift in range(-2, 3):
            near |= np.roll(strong, shift, axis=1)
        share = near.mean(axis=0)
        share[:2] = share[-2:] = 0.0
        best = int(np.argmax(share))
        if share[best] < SIDE_EDGE_SHARE:
            continue
        moved = quad.copy()
        moved[(base + 2) % 4] = b + offsets[best] * normal
        moved[(base + 3) % 4] = a + offsets[best] * normal
        refined, new_support = _refine(gray, moved, radius, config)
        if (refined is None or not _plausible_shape(refined, config) or new_support < least
                or not low <= _card_aspect(refined) <= high):
            continue
        options.append((float(share[best]), new_support, refined))
    if not options:
        return quad, support
    _, new_support, refined = max(options, key=lambda o: (o[0], o[1]))
    return refined, new_support


def _confidence(cand: _Candidate, support: float, config: DetectConfig) -> float:
    fill_term = cand.fill
    edge_term = min(1.0, support / max(config.min_edge_support, 1e-6))
    conf = 0.35 * fill_term + 0.25 * _shape_score(cand.quad) + 0.4 * edge_term
    if support < config.min_edge_support:
        conf *= 0.6
    if cand.occluded:
        conf *= 0.8
    return float(min(1.0, max(0.0, conf)))
