"""Reading a shown hand: cards laid face up in one overlapping row (Via Gladiola's end of game).

A player shows their hand by laying the cards in a row, each card a little beyond the one before
and on top of it, so that the top card is whole and every other card shows a strip along one
side. :func:`read_hands` finds such rows in a frame and reads every card in them:

1. Rows: regions of card pixels (the segmentation network's card classes, or a plain colour
   difference from the table without the model) much longer than a card is high; the region's
   rotated rectangle gives the row's direction, and its short side the card's long side. A region
   joined to a pile beside the row (or to a speck at the frame's border) is also tried as its
   straight band alone, the lines along it filled over most of the row's length.
2. The row is warped into a strip at a fixed scale (``px_per_mm``, the card's 91 mm height
   fixing the scale). Card edges across the row are straight lines over nearly the whole card
   height: for a few small slants the share of rows where a column has a strong crosswise
   gradient is taken, and peaks of it are the edges (an edge's close neighbours, a card's own
   border line, are one edge). The row's end whose last piece is a whole card width holds the
   top card; the strip is turned so that end is on the right. Each covered card then shows its
   left strip, whose corner index is always in the strip's top-left corner (an upside-down
   card shows its bottom-right index there). A camera looking at the table aslant shortens the
   cards' height more than their width: the crops are as wide as the top card when it is wider
   than the height gives.
3. Each card's full quad (card size, the slant of its own edge, its own top and bottom edges)
   is warped from the frame to a portrait crop; the part under the next card is painted with
   the card's paper colour and the crop goes to :func:`vision.read.reader.read_card`. The cards
   of a hand lie a little higher or lower and turned against each other: each card's own top and
   bottom edges are the pair of edge rows in its strip one card height apart, and a later card
   covers only its own height. A two-digit index whose second digit runs into the next card's
   edge, unread by the reader, is read again with that digit matched to cut digit templates.
   Blisters of a covered card whose strip reaches past the card's centre line are counted on
   the visible left half and its mirror image (the row is centred); on a narrower strip, a
   FINISH's or gladiola's count comes from where the row starts (one plaster more starts it
   4.9 mm further left), unless the printed row fitted to the part in view clearly gives
   another count; it also makes an unsure mirror count sure when both agree, and stands alone
   when the mirror counts nothing sure. A strip the reader cannot name, with no corner index
   and a plaster row at a gladiola's height, is a gladiola (its blossoms are hidden). A walk
   card's index left a close call by the reader is settled by the strip's blister count when
   the game's walk cards are given (``HandConfig.walk_blisters``), and the top card's FINISH or
   gladiola count, when the reader leaves it open, comes from the extent of its centred plaster
   row.

Readings keep the reader's confidences; fields below :data:`~vision.read.reader.ACCEPT` are
None. Bad input raises :class:`HandInputError`; a frame without a row gives no hands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.errors import InvalidImageError
from vision.read.glyphs import FONTS, GlyphBank, render_digit, classify_all, template_rows
from vision.read.reader import (ACCEPT, BLISTER_GAP_MM, BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, BLISTER_SEARCH_MM,
                                CARD_H_MM, Blob, CARD_W_MM, READ_H, READ_W, decode_value, glyph_confidence, analyse,
                                _runs, count_blisters_in_row, fit_row, read_card)
from vision.read.types import CardReading, Deck, Face
from vision.segment import load_segmenter
from vision.types import CardKind, FieldConfidences, Quad


class HandInputError(InvalidImageError):
    """The frame given to :func:`read_hands` is not a usable BGR image."""


@dataclass(frozen=True)
class HandConfig:
    """Tunables of :func:`read_hands`.

    ``px_per_mm``: scale of the warped row; ``min_row_ratio``: smallest long/short side ratio of a
    region taken as a row (three cards at a 34 mm step give 1.4); ``min_fill``: smallest share of
    the region's rotated rectangle it covers; ``min_strip_mm``: smallest distance between two card
    edges; ``edge_share``: smallest share of the card height along which a column must show a
    strong crosswise step to be a card edge; ``edge_merge_mm``: edges closer than this are one (a
    card's outline and its printed border line); ``whole_tolerance``: largest relative
    difference between the top card's width and a card's width; ``slants``: edge slants tried
    (degrees); ``hidden_margin_mm``: how far before the next card's edge a covered card's strip
    is cut (shadow, edge error); ``mirror_margin_mm``: how far past the centre line a strip must
    reach for its blisters to be counted; ``walk_blisters``: (km value, blisters printed) of the
    game's walk cards, from its deck (empty: a covered card's blisters never settle its value, see
    :func:`_index_by_blisters`); ``finish_blisters``: the blister counts the deck's FINISH cards
    carry (empty: any; a mirrored count outside them is lost, see :func:`_read_piece`).
    """

    px_per_mm: float = 4.0
    min_row_ratio: float = 1.3
    min_fill: float = 0.8
    min_strip_mm: float = 10.0
    edge_share: float = 0.5
    edge_merge_mm: float = 4.5
    whole_tolerance: float = 0.12
    slants: tuple[float, ...] = (-6.0, -4.5, -3.0, -1.5, 0.0, 1.5, 3.0, 4.5, 6.0)
    hidden_margin_mm: float = 0.5
    mirror_margin_mm: float = 1.5
    deck: Deck = field(default_factory=lambda: Deck.for_game("gladiola"))
    walk_blisters: tuple[tuple[int, int], ...] = ()
    finish_blisters: frozenset[int] = frozenset()


@dataclass(frozen=True)
class HandCard:
    """One card of a shown row, as read.

    ``quad``: the whole card's outline in image pixels (the visible strip's corner first, then
    clockwise as laid in the row); ``shown_mm``: how much of the card's width is in view (the
    card's width for the top card); ``kind``/``value``/``blisters``: None or unknown where not
    read confidently; ``flipped``: the strip showed the card's bottom index (the card lies
    upside down).
    """

    quad: Quad
    shown_mm: float
    whole: bool
    kind: CardKind = CardKind.UNKNOWN
    value: int | None = None
    blisters: int | None = None
    flipped: bool = False
    confidence: float = 0.0
    field_confidences: FieldConfidences = field(default_factory=FieldConfidences)

    def to_json(self) -> dict[str, object]:
        return {"corners": self.quad.to_json(), "shown_mm": round(self.shown_mm, 1), "whole": self.whole,
                "kind": self.kind.value, "value": self.value, "blisters": self.blisters,
                "confidence": round(self.confidence, 4)}


@dataclass(frozen=True)
class ShownHand:
    """A row of overlapping cards: ``cards`` in the order they were laid (bottom first, the whole
    top card last); ``quad``: the row's rotated rectangle in image pixels."""

    quad: Quad
    cards: tuple[HandCard, ...]

    @property
    def count(self) -> int:
        return len(self.cards)

    def to_json(self) -> dict[str, object]:
        return {"corners": self.quad.to_json(), "cards": [c.to_json() for c in self.cards]}


# ------------------------------------------------------------------------------------------------
# Finding rows


def _card_mask(image: np.ndarray) -> tuple[np.ndarray, float]:
    """A uint8 mask of card pixels and its scale (mask pixels per frame pixel)."""
    segmenter = load_segmenter()
    if segmenter is not None:
        maps = segmenter.maps(image)
        mask = ((maps.interior + maps.boundary) > 0.5).astype(np.uint8)
        return mask, maps.factor
    factor = min(1.0, 480.0 / image.shape[1])
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    lab = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), (5, 5), 0).astype(np.float32)
    table = np.median(lab.reshape(-1, 3), axis=0)
    mask = (np.sqrt(((lab - table) ** 2).sum(axis=2)) > 25).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), factor


def _rows(image: np.ndarray, config: HandConfig) -> list[np.ndarray]:
    """Rotated rectangles (4 corners, frame pixels) of regions shaped like a row of cards; the
    first side runs along the row."""
    mask, factor = _card_mask(image)
    return [box for shrink in ROW_SHRINK for box in _row_boxes(mask, factor, shrink, config)]


ROW_SHRINK = (0, 2, 4)
"""Erosions (mask pixels) after which the card regions are searched for rows again: a row laid
close to a pile is one region with it until they are parted."""
ROW_READ = 0.5
"""Smallest share of a row's cards read (kind known) for it to be a shown hand: the edges of a
pile's stacked cards look like a short row of unreadable cards."""


def _row_boxes(mask: np.ndarray, factor: float, shrink: int, config: HandConfig) -> list[np.ndarray]:
    """Row rectangles among the regions of ``mask`` eroded by ``shrink`` pixels (each region
    grown back inside the mask)."""
    kernel = np.ones((3, 3), np.uint8)
    parts = cv2.erode(mask, kernel, iterations=shrink) if shrink else mask
    count, labels, stats, _ = cv2.connectedComponentsWithStats(parts, connectivity=8)
    out = []
    for k in range(1, count):
        if stats[k, 4] < 200:
            continue
        region = (labels == k).astype(np.uint8)
        if shrink:
            region = cv2.dilate(region, kernel, iterations=shrink) & mask
        pts = np.column_stack(np.nonzero(region)[::-1]).astype(np.float32)
        band = _row_band(pts)
        for part in (pts,) if band is None else (pts, band):
            (cx, cy), (w, h), angle = cv2.minAreaRect(part)
            long_side, short_side = max(w, h), min(w, h)
            if short_side < 8 or long_side < config.min_row_ratio * short_side:
                continue
            if len(part) < config.min_fill * w * h:
                continue
            box = cv2.boxPoints(((cx, cy), (w, h), angle)) / factor
            # start at a corner whose next side is a long one
            sides = np.linalg.norm(np.roll(box, -1, axis=0) - box, axis=1)
            start = 0 if sides[0] >= sides[1] else 1
            out.append(np.roll(box, -start, axis=0))
    return out


ROW_BAND_SHARE = 0.35
"""Smallest share of a region's longest line along its length that a line must have to be part of
the region's row band (a pile touching the row's side, or a speck of the border joined to it,
fills a few lines across only a card's width or less)."""
ROW_BAND_CUT = 0.03
"""Smallest share by which a region's row band must be narrower than the region for the band to
be tried as a row of its own."""


def _band_lines(pts: np.ndarray, degrees: float) -> tuple[np.ndarray, int, int]:
    """Per pixel its line across direction ``degrees`` (one pixel apart), and the first and last
    line of the full band around the fullest line (see :func:`_row_band`)."""
    a = math.radians(degrees)
    across = pts @ np.float32([-math.sin(a), math.cos(a)])
    lines = np.floor(across - across.min()).astype(int)
    counts = np.bincount(lines)
    full = counts >= ROW_BAND_SHARE * counts.max()
    lo = hi = int(np.argmax(counts))
    while lo > 0 and full[lo - 1]:
        lo -= 1
    while hi < len(full) - 1 and full[hi + 1]:
        hi += 1
    return lines, lo, hi


def _row_band(pts: np.ndarray) -> np.ndarray | None:
    """The pixels (x, y) of a region's straight band along its length: in the direction whose
    band is narrowest, the lines filled over at least :data:`ROW_BAND_SHARE` of the fullest one,
    next to it. None when the band is hardly narrower than the region."""
    if len(pts) < 50:
        return None
    def width(deg: float) -> tuple[int, int]:
        lines, lo, hi = _band_lines(pts, deg)
        return hi - lo, -int(((lines >= lo) & (lines <= hi)).sum())
    coarse = min(np.arange(0.0, 180.0, 2.0), key=width)
    best = min(coarse + np.arange(-2.0, 2.01, 0.25), key=width)
    lines, lo, hi = _band_lines(pts, float(best))
    band = pts[(lines >= lo) & (lines <= hi)]
    short = min(cv2.minAreaRect(pts)[1])
    return band if min(cv2.minAreaRect(band)[1]) <= (1 - ROW_BAND_CUT) * short else None


# ------------------------------------------------------------------------------------------------
# Edges along a row


@dataclass(frozen=True)
class _Edge:
    """A card edge across the strip: the group of neighbouring profile peaks it gave."""

    x: float
    """Column (strip pixels, at the band's middle height) of the strongest peak."""
    lo: float
    hi: float
    """First and last peak column of the group (a card's outline and its printed border line)."""
    slant: float
    """Degrees; positive when the edge leans right going down."""
    share: float
    first: float = -1.0
    """First peak column of the group, however weak (-1: not known)."""


def _edge_profile(strip: np.ndarray, band: tuple[int, int], config: HandConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the best share (over slants) of band rows with a strong crosswise step, and
    the slant giving it."""
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
    grad = np.zeros(strip.shape[:2], np.float32)
    for c in range(3):
        grad += np.abs(cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0, ksize=3))
    y0, y1 = band
    grad = grad[y0:y1]
    thr = max(40.0, 0.3 * float(np.percentile(grad, 99)))
    strong = (grad > thr).astype(np.uint8)
    strong = cv2.dilate(strong, np.ones((1, 3), np.uint8)).astype(np.float32)  # a wobble of one pixel
    w = strong.shape[1]
    best = np.zeros(w, np.float32)
    slant = np.zeros(w, np.float32)
    for s in config.slants:
        share = _slanted_share(strong, s)
        better = share > best
        best[better] = share[better]
        slant[better] = s
    # steeper still only where the steepest slant tried was the best (the cards at a row's end,
    # seen aslant: film 139's first card leaned 8-10 degrees in its strip): tried everywhere they
    # would take the place of the true slant of some edges and of print beside them
    end = max(abs(s) for s in config.slants)
    for s in STEEP_SLANTS:
        for sign in (1.0, -1.0):
            steepest = slant * sign >= end
            if not steepest.any():
                continue  # no column to try it at
            share = _slanted_share(strong, sign * s)
            better = (share > best) & steepest
            best[better] = share[better]
            slant[better] = sign * s
    return best, slant


STEEP_SLANTS = (7.5, 9.0)
"""Edge slants (degrees, each side) tried beyond ``HandConfig.slants`` where its steepest was the best."""


def _slanted_share(strong: np.ndarray, degrees: float) -> np.ndarray:
    """Per column, the share of rows of ``strong`` set along a line through it leaning right by
    ``degrees`` going down (through the middle row at that column)."""
    h, w = strong.shape
    mid = (h - 1) / 2
    t = math.tan(math.radians(degrees))
    # row y moved left by t*(y-mid): a line leaning right by ``degrees`` becomes upright
    shifted = np.empty_like(strong)
    for y in range(h):
        d = int(round(t * (y - mid)))
        row = strong[y]
        if d > 0:
            shifted[y, : w - d] = row[d:]
            shifted[y, w - d:] = 0
        elif d < 0:
            shifted[y, -d:] = row[: w + d]
            shifted[y, :-d] = 0
        else:
            shifted[y] = row
    return shifted.mean(axis=0)


EDGE_PEER = 0.1
"""Largest drop of profile share from a group's strongest peak for a peak to count as part of a
card's edge (its outline or printed border line) rather than a shorter line beside it."""


def _edges(profile: np.ndarray, slant: np.ndarray, config: HandConfig) -> list[_Edge]:
    """Card edges: columns where the profile peaks above ``edge_share``, peaks closer than
    ``edge_merge_mm`` grouped into one edge."""
    ppm = config.px_per_mm
    cols = [x for x in range(1, len(profile) - 1)
            if profile[x] >= config.edge_share and profile[x] >= profile[x - 1] and profile[x] > profile[x + 1]]
    groups: list[list[int]] = []
    for x in cols:
        if groups and x - groups[-1][-1] <= config.edge_merge_mm * ppm:
            groups[-1].append(x)
        else:
            groups.append([x])
    out = []
    for g in groups:
        x = max(g, key=lambda c: float(profile[c]))
        # a card's outline is about as long as its strongest line; a weaker line beside it (a
        # gladiola's stem, a shadow) is no outline
        strong = [c for c in g if profile[c] >= profile[x] - EDGE_PEER]
        out.append(_Edge(float(x), float(strong[0]), float(strong[-1]), float(slant[x]), float(profile[x]),
                         float(g[0])))
    return out


# ------------------------------------------------------------------------------------------------
# Reading a row


@dataclass(frozen=True)
class _Strip:
    """A row warped into an upright strip: ``matrix`` maps frame pixels to strip pixels."""

    image: np.ndarray
    matrix: np.ndarray
    """3x3, frame -> strip."""
    band: tuple[int, int]
    """Strip rows of the card band (the row's rectangle without the padding)."""


def _warp_strip(image: np.ndarray, box: np.ndarray, config: HandConfig, turn: bool) -> _Strip:
    """The row's rectangle (first side along the row) as a strip at ``px_per_mm``, the short side
    taken as the card's height; ``turn``: rotated by 180 degrees."""
    along = box[1] - box[0]
    length_px = float(np.linalg.norm(along))
    height_px = float(np.linalg.norm(box[2] - box[1]))
    eu = along / length_px
    if turn:
        eu = -eu
    ev = np.array([-eu[1], eu[0]])
    centre = box.mean(axis=0)
    ppm = config.px_per_mm
    k = ppm / (height_px / CARD_H_MM)  # strip pixels per frame pixel
    pad = 8.0 * ppm
    w = int(round(k * length_px + 2 * pad))
    h = int(round(k * height_px + 2 * pad))
    u0, v0 = w / 2, h / 2
    m = np.array([[k * eu[0], k * eu[1], u0 - k * float(eu @ centre)],
                  [k * ev[0], k * ev[1], v0 - k * float(ev @ centre)],
                  [0.0, 0.0, 1.0]])
    strip = cv2.warpAffine(image, m[:2], (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _Strip(strip, m, (int(pad), int(h - pad)))


def _outer_rows(strip: np.ndarray, x0: int, x1: int, expect: tuple[float, float], reach: float,
                slope: float = 0.0) -> tuple[list[float], list[float]]:
    """Rows where one card's top and bottom edges may be, within strip columns ``x0..x1``: near
    each of ``expect``, the outer row of each run of rows where most columns show a strong step
    along the card (the outermost first). ``slope``: columns per row of the card's own side edge;
    its top and bottom edges then fall by ``slope`` rows per column, and the rows are where they
    cross column ``x0``."""
    part = strip[:, max(0, x0):max(x0 + 1, x1)]
    share = np.zeros(part.shape[0], np.float32)
    for drop in {0.0, slope}:
        # shear each column up by its drop so that the card's top and bottom edges lie level (and
        # unsheared, in case the side edge's slope is off: over a whole card it would count)
        shear = np.float32([[1.0, 0.0, 0.0], [drop, 1.0, 0.0]])
        level = cv2.warpAffine(part, shear, (part.shape[1], part.shape[0]), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE) if drop else part
        lab = cv2.cvtColor(level, cv2.COLOR_BGR2LAB).astype(np.float32)
        grad = sum(np.abs(cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1, ksize=3)) for c in range(3))
        thr = max(40.0, 0.3 * float(np.percentile(grad, 99)))
        strong = cv2.dilate((grad > thr).astype(np.uint8), np.ones((3, 1), np.uint8)).mean(axis=1)
        share = np.maximum(share, strong)
    found: list[list[float]] = []
    for centre, outward in ((expect[0], -1), (expect[1], 1)):
        lo, hi = int(max(0, centre - reach)), int(min(len(share) - 1, centre + reach))
        rows = [y for y in range(lo, hi + 1) if share[y] >= 0.5]
        if outward > 0:
            rows = rows[::-1]  # (from the bottom up)
        # the outer row of each run: a step the previous row (going outwards) did not have
        found.append([float(y) for k, y in enumerate(rows) if k == 0 or abs(rows[k - 1] - y) != 1])
    return found[0], found[1]


OTHER_EDGE_MM = 1.5
"""An unread card is cut again at each top or bottom edge found in its strip at least this far
from where it was cut (see :func:`_read_row`)."""
LEVEL_SLANT_DEG = 3.0
"""Smallest slant of a covered card's side edge for an unread crop to be cut again with the
card's top and bottom edges level (see :func:`_read_row`) ..."""
LEVEL_RECOUNT_KINDS = (CardKind.GLADIOLA, CardKind.FINISH)
"""... and for a crop of these kinds read without its blister count (their blisters name them)."""


def _card_rows(tops: list[float], bottoms: list[float], height: float | None,
               fit: float | None = None) -> tuple[float, float] | None:
    """A card's top and bottom rows among the candidates of :func:`_outer_rows`: the outermost
    ones (``height`` None), else the pair nearest to ``height`` apart, within ``fit`` (relative;
    :data:`HEIGHT_FIT` by default: the card under it shows its top or bottom edge beside it when
    it lies higher or lower)."""
    if not tops or not bottoms:
        return None
    if height is None:
        return tops[0], bottoms[0]
    best = min(((t, b) for t in tops for b in bottoms), key=lambda p: abs(p[1] - p[0] - height))
    return best if abs((best[1] - best[0]) / height - 1) < (HEIGHT_FIT if fit is None else fit) else None


HEIGHT_FIT = 0.04
"""Largest relative difference between a card's height and the row's median for its top and
bottom edges to be taken as found."""
TOP_WIDTH_TOLERANCE = 0.16
"""Largest relative difference between the top card's width between its edges and the width the
cards' measured height gives (its shadow widens it: up to 13% on the tuning frames; a set-aside
pile taken for a row showed 20%)."""
SURE_ZERO = 0.8
"""Confidence a covered card's clean (mirrored) blister band needs to be read as no blisters (on
the tuning films two walk cards with one plaster read as 0 at 0.5)."""
FIT_AGREE_DEG = 2.5
"""Largest difference between an edge's fitted slant and the profile's coarse one."""
ROW_REACH_MM = 12.0
"""How far (strip mm) beyond the row's rectangle a card's top or bottom edge is looked for (the
cards of a hand lie a few millimetres higher or lower than each other, each turned a little)."""
CORNER_MM = 4.0
"""How far inside a card's top and bottom edges its side edge is fitted (its rounded corners)."""
FRAME_MM = 5.0
"""Width of the card's outline painted over on a covered card's crop (the printed border, blurred
into the corner index at webcam scale, would join the digits into one blob)."""


def _fit_line(grad: np.ndarray, band: tuple[int, int], edge: _Edge, ppm: float,
              rows: tuple[float, float] | None = None) -> tuple[float, float]:
    """An edge's outer line as (column at the band's middle row, columns per row), fitted to the
    strongest step in each band row near it (the profile's slants are coarse); ``rows``: fit
    only between these strip rows (the card's own height: above or below a card lying lower or
    higher than its neighbours the strongest step is print of the card under it)."""
    t0 = math.tan(math.radians(edge.slant))
    y0, y1 = band
    mid = (y0 + y1 - 1) / 2
    ys, xs = [], []
    r0, r1 = (y0, y1) if rows is None else (max(0, int(rows[0])), min(grad.shape[0], int(rows[1])))
    for y in range(r0, r1, 2):
        c = edge.lo + t0 * (y - mid)
        a, b = int(round(c - 1.5 * ppm)), int(round(c + 1.0 * ppm)) + 1
        if a < 0 or b > grad.shape[1]:
            continue
        seg = grad[y, a:b]
        if float(seg.max()) < 40.0:
            continue
        ys.append(y)
        xs.append(a + int(np.argmax(seg)))
    if len(ys) < 0.3 * (r1 - r0) / 2:
        return edge.lo, t0
    y_arr, x_arr = np.array(ys, float) - mid, np.array(xs, float)
    keep = np.ones(len(y_arr), bool)
    slope, icpt = t0, edge.lo
    for _ in range(3):
        slope, icpt = (float(v) for v in np.polyfit(y_arr[keep], x_arr[keep], 1))
        resid = np.abs(x_arr - (slope * y_arr + icpt))
        keep = resid <= max(1.5, 2.5 * float(np.median(resid[keep])))
        if keep.sum() < 10:
            return edge.lo, t0
    if abs(math.degrees(math.atan(slope)) - edge.slant) > FIT_AGREE_DEG:
        return edge.lo, t0  # the fit followed another line (print, a shadow)
    return icpt, slope


def _side_steps(strip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A strip's colour steps along its rows (summed over the Lab channels), and the same kept
    only where it darkens going right: a card lying on another begins where the paper below
    darkens into its border, whose inner side is as strong a step; a line fitted through both
    sides leaves the border's outer half on the covered card's crop (film 138: joined to W47's
    7 at the top of the card, the card unread)."""
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
    grad = sum(np.abs(cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0, ksize=3)) for c in range(3))
    darker = np.where(cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0, ksize=3) < 0, grad, 0.0).astype(np.float32)
    return grad, darker


FIRST_PAPER = 0.3
"""Least share of a shown row's first strip (between its first two edges) in the paper colour of
the next strip for it to be a card: fresh film 147's row began at a dark line of the wood grain
19 mm before its first card, read as an unknown eighth card of a hand of seven (0.3% paper
there; a covered card's strip is mostly paper. The next card, not the top one: on film 133 the
light falls off along the row, and the first card held 24-34% of the top card's paper colour)."""
PAPER_NEAR = 25.0
"""Largest Lab distance from the paper colour of a pixel counted as paper."""


def _paper_share(strip: np.ndarray, x0: float, x1: float, band: tuple[int, int], ref0: float, ref1: float,
                 ppm: float) -> float:
    """Share of the pixels of a row's strip between columns ``x0`` and ``x1`` (inside by a
    millimetre, over the band's middle half) within :data:`PAPER_NEAR` of the paper colour of the
    strip between ``ref0`` and ``ref1``."""
    y0, y1 = band
    q = (y1 - y0) // 4
    rows = slice(y0 + q, y1 - q)
    inside = strip[rows, int(x0 + ppm):max(int(x0 + ppm) + 1, int(x1 - ppm))]
    ref = strip[rows, int(ref0 + ppm):int(ref1 - ppm)]
    if inside.size == 0 or ref.size == 0:
        return 1.0
    return float((_from_paper(inside, ref) < PAPER_NEAR).mean())


def _paper(pixels: np.ndarray) -> np.ndarray:
    """The paper colour among some card pixels (median of the lightest fifth)."""
    flat = pixels.reshape(-1, 3)
    gray = flat.astype(np.float32) @ np.float32([0.114, 0.587, 0.299])
    return np.median(flat[gray >= np.percentile(gray, 80)], axis=0).astype(np.uint8)


def _from_paper(image: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Each pixel's Lab distance from the paper colour (:func:`_paper`) among the ``cards`` pixels."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    paper = cv2.cvtColor(_paper(cards)[None, None, :], cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
    return np.sqrt(((lab - paper) ** 2).sum(axis=2))


def _card_crop(image: np.ndarray, quad_img: np.ndarray) -> np.ndarray:
    """The card inside ``quad_img`` (top-left first, clockwise) warped to the reading size."""
    dst = np.float32([[0, 0], [READ_W - 1, 0], [READ_W - 1, READ_H - 1], [0, READ_H - 1]])
    m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (READ_W, READ_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


LEFT_END_FRAC = 0.3
"""Largest distance of the count the row's left end gives from a whole number for it to be read
(a count more or less moves the end by half a pitch, 4.9 mm: 0.3 is 1.5 mm)."""
LEFT_FIT_LEAD = 0.15
"""Lead (plaster lengths of squared error, see :func:`vision.read.reader.fit_row`) of another
count in the printed row's fit to the strip's band that makes the count from the row's start
unsure."""
LEFT_EDGE_PX = 8
LEFT_OFF = 0.3
LEFT_OFF_COLUMNS = 2
"""A covered card's first plaster mark must not have, from a pitch before it to ``LEFT_EDGE_PX``
crop pixels before it (its own outline and rounded end, off the paper but not warm: up to 7
columns on films 141 and 144, whose FINISH counts were left open), ``LEFT_OFF_COLUMNS`` columns
with more than ``LEFT_OFF`` of the band's rows off the paper: a plaster there, or the left half
of the first, may have been too cool a colour for the marks (film 124's G4, its first
plaster's left half, 4 mm or 16 columns, not marked, counted from the right half's start as 3
with confidence 0.95)."""
LEFT_HALO_FRAC = 0.1
"""A faint run before the plaster marks (see :func:`_faint_lead`) from where the row would hold no
whole number of plasters (``LEFT_END_FRAC`` or more off), while the marks start where it holds one
within this, is the marks' blurred halo, not a plaster's cooler part: film 150's F2 in a blurred
shown hand, its one plaster's marks 25.3 mm from the left edge (1.02 plasters) led by 2.7 mm of
haze (1.57), was left open."""
LEFT_END_SEEN_MM = 3.0
"""How much of the row's first plaster must be in view before the next card for the row's left
end to be taken as found."""


@dataclass(frozen=True)
class _Band:
    """A covered card's blister band from the frame line to the next card (crop columns ``x0``
    to ``x1``): per column, whether plaster marks run along a plaster's height (``occupied``) and
    the share of the band's rows off the paper (``profile``: a plaster's outline and its pale
    middle alike), and the same share in as many rows just past the band, away from where a
    FINISH's banner lies (``past``: a plaster ends within the band, a shadow or an edge runs
    on; None when the crop ends there)."""

    occupied: np.ndarray
    x0: int
    x1: int
    profile: np.ndarray
    past: np.ndarray | None = None


def _plaster_band(crop: np.ndarray, hidden: np.ndarray, kind: CardKind, flipped: bool,
                  search_mm: float = BLISTER_SEARCH_MM, by_off: bool = False) -> _Band | None:
    """A covered card's blister band (:class:`_Band`) at the height where plaster marks run
    densest (``by_off``: where the pixels off the paper do); None when the kind has no blister
    row or less than two plasters' width is in view. ``search_mm``: how far above and below its
    printed place the row is looked for."""
    top_mm = BLISTER_ROW_MM.get(kind)
    if top_mm is None:
        return None
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    y0_mm, y1_mm = top_mm - search_mm, top_mm + BLISTER_H_MM + search_mm
    if flipped:
        y0_mm, y1_mm = CARD_H_MM - y1_mm, CARD_H_MM - y0_mm
    y0, y1 = int(y0_mm * ppy), int(math.ceil(y1_mm * ppy))
    win = int(round(BLISTER_H_MM * ppy))
    # a FINISH's band may lie up to a band's height past the searched rows, away from its banner
    # (see below)
    pad0 = pad1 = 0
    if kind is CardKind.FINISH and flipped:
        pad0 = min(y0, win)
    elif kind is CardKind.FINISH:
        pad1 = max(0, min(len(crop) - y1, win))
    x0 = int(round(FRAME_MM * ppx))
    x1 = _open_until(hidden[y0:y1])
    if x1 - x0 < 2 * BLISTER_MM * ppx:
        return None
    lab = cv2.cvtColor(crop[y0 - pad0:y1 + pad1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
    searched = lab[pad0:len(lab) - pad1]
    paper = np.median(searched.reshape(-1, 3), axis=0)  # (the plasters fill well under half the band)
    lo, hi = pad0, pad0 + len(searched) - win + 1  # the rows the band may start on
    if kind is CardKind.FINISH:
        # the row lies below the chequered banner (above it, turned): the band starts clear of
        # its rows, whose blurred squares' edges look warm and off the paper, and the paper is
        # taken from the rows outside it (its squares blur the paper between them); a banner
        # reaching so far into the searched rows that no band fits clear of it has the row
        # right past it (fresh films 164's F3 and 179's F6, two plasters just under a banner
        # printed low: the band was found on the banner's squares and the counts left open)
        dark = (searched[..., 0] < 0.55 * float(paper[0])).mean(axis=1) > BANNER_DARK
        banner = pad0 + np.nonzero(dark)[0]
        if len(banner):
            if flipped:
                end = int(banner[0]) - BANNER_CLEAR_PX - win + 1
                clear = (max(0, min(lo, end - 1)), end)
            else:
                start = int(banner[-1]) + BANNER_CLEAR_PX
                clear = (start, min(len(lab) - win + 1, max(hi, start + 1)))
            if clear[0] < clear[1]:
                lo, hi = clear
                paper = np.median(lab[lo:hi + win - 1].reshape(-1, 3), axis=0)
    d = lab - paper
    # plaster marks: off the paper's colour, warmer, not dark print nor a red blossom
    off_mag = np.sqrt((d ** 2).sum(axis=2))
    light = (d[..., 1] > -4) & (d[..., 1] < 30) & (lab[..., 0] > 0.55 * float(paper[0]))
    warm = (off_mag > 10) & (d[..., 2] > 3) & light
    # (as the warm marks: not dark print nor a blossom; any pixel not cooler than the paper)
    off = (off_mag > BAND_OFF) & (d[..., 2] > 0) & light
    rows = np.convolve((off if by_off else warm).mean(axis=1), np.ones(win) / win, mode="valid")
    best = lo + int(np.argmax(rows[lo:hi]))
    if best < pad0 or best + win > pad0 + len(searched):
        # past the searched rows, the next card's edge may reach further left
        x1 = max(x0, min(x1, _open_until(hidden[y0 - pad0 + best:y0 - pad0 + best + win])))
    cols = x1 - x0
    top = y0 - pad0 + best  # (crop row)
    beyond = (top - PAST_GAP_PX - win, top - PAST_GAP_PX) if flipped else (top + win + PAST_GAP_PX, top + 2 * win + PAST_GAP_PX)
    past = None
    if beyond[0] >= 0 and beyond[1] <= len(crop):
        lab_past = cv2.cvtColor(crop[beyond[0]:beyond[1], x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
        d_past = lab_past - paper
        past = (np.sqrt((d_past ** 2).sum(axis=2)) > BAND_OFF).mean(axis=0).astype(np.float32)
    return _Band(warm[best:best + win, :cols].mean(axis=0) > 0.3, x0, x1,
                 off[best:best + win, :cols].mean(axis=0).astype(np.float32), past)


def _open_until(hidden: np.ndarray) -> int:
    """First column of the crop rows ``hidden`` any of whose pixels is under the next card."""
    shut = np.nonzero(hidden.any(axis=0))[0]
    return int(shut[0]) if len(shut) else READ_W


PAST_GAP_PX = 2
"""Crop rows between a band and the rows past it (:attr:`_Band.past`)."""
BANNER_DARK = 0.15
"""Share of a band row's pixels darker than 0.55 of the paper from which the row is a FINISH's
chequered banner (film 119's F4 and 136's F4, one plaster each just under the banner, half
hidden: the band was found at the banner's lower row, its squares' fringes taken for plaster
marks or for paper off before the plaster, and the counts left open)."""
BANNER_CLEAR_PX = 2
"""Crop rows between a FINISH's banner and its blister band (the squares' blur)."""
BAND_OFF = 16.0
"""Smallest colour distance (Lab) from the band's paper of a pixel off the paper (a plaster's
outline and its pale middle; the warm test alone misses a plaster in a cooler light)."""


CLEAN_SEARCH_MM = 7.0
"""How far above and below its printed place a FINISH's blister row is looked for before its band
is taken as clean (a crop placed a few millimetres off moves the row; only the dark chequer, no
plaster colour, lies that close above it)."""


def _no_plaster_seen(crop: np.ndarray, hidden: np.ndarray, kind: CardKind, flipped: bool,
                     reach_mm: float = BLISTER_MM / 4, both_ends: bool = True, outline: bool = False) -> bool:
    """Whether a covered card's strip shows no plaster, at either end's row height (only at the
    row's height for ``flipped`` without ``both_ends``), as far as ``reach_mm`` past the centre
    line (a row of one starts half a plaster left of it). ``outline``: the band is placed where
    pixels off the paper run densest, and must show hardly any of them either (a plaster's
    outline, off the paper in any light, where its warm middle may not be)."""
    ppx = READ_W / CARD_W_MM
    for way in (flipped, not flipped) if both_ends else (flipped,):
        band = _plaster_band(crop, hidden, kind, way, CLEAN_SEARCH_MM, by_off=outline)
        if band is None:
            return False
        occupied, x0, x1 = band.occupied, band.x0, band.x1
        if x1 < (CARD_W_MM / 2 + reach_mm) * ppx or int(occupied.sum()) >= 0.15 * BLISTER_MM * ppx:
            return False
        if outline and int((band.profile > FAINT_OFF).sum()) >= LEFT_OFF_COLUMNS:
            return False
    return True


CLEAN_FINISH = 0.8
"""Confidence of no blisters on a covered FINISH whose strip shows most of a single plaster's
place clean (:func:`_no_plaster_seen` with :data:`CLEAN_REACH_MM`)."""
CLEAN_REACH_MM = 1.5
"""How far past the centre line a covered FINISH's strip must reach for a clean band to be no
blisters (a single plaster, starting 4.1 mm left of it, then shows 5.6 of its 8.2 mm)."""
CLEAN_OUTLINE_REACH_MM = -1.5
"""How far past the centre line (negative: short of it) a covered FINISH's strip must reach for a
band clean of plaster outlines too to be no blisters: a single plaster, starting 4.1 mm left of
the line, then shows 2.6 mm, more than a crop placed a little off the card moves it (fresh films
175's F5 and 179's F5, clean strips ending 1.5 mm short of and 1.2 mm past the line: their hands
went unnamed)."""
CLEAN_ORIENTED = 0.9
"""A covered FINISH read with at least this orientation confidence (its index read at one end) is
looked at for plasters at its own row's height only: the other end's, for a card turned round,
runs through the chequered banner (film 119's F5, 56 columns there taken for plaster marks; the
hand went unnamed)."""


def _count_from_left_end(crop: np.ndarray, hidden: np.ndarray, kind: CardKind, flipped: bool) -> tuple[int, float]:
    """Blisters of a covered card whose strip ends before its centre line: the row is centred,
    so where its first plaster starts gives the count (a plaster more moves it 4.9 mm to the
    left). Returns (count, confidence); confidence 0 when the row's start is not seen clearly."""
    band = _plaster_band(crop, hidden, kind, flipped)
    if band is None:
        return 0, 0.0
    occupied, x0, x1 = band.occupied, band.x0, band.x1
    ppx = READ_W / CARD_W_MM
    cols = np.nonzero(occupied)[0]
    if len(cols) < 0.3 * BLISTER_MM * ppx:
        return 0, 0.0
    start = int(cols[0])
    seen_mm = (x1 - x0 - start) / ppx
    if start == 0 or seen_mm < LEFT_END_SEEN_MM:
        return 0, 0.0  # the row runs into the border, or its start is barely in view
    first = occupied[start:start + int(round(min(BLISTER_MM, seen_mm) * ppx))]
    if float(first.mean()) < 0.8:
        return 0, 0.0  # no plaster-wide piece at the start: a speck or print
    def count_from(column: int) -> tuple[int, float]:
        left_mm = (x0 + column) / ppx
        total = (2 * (CARD_W_MM / 2 - left_mm) + BLISTER_GAP_MM) / (BLISTER_MM + BLISTER_GAP_MM)
        return int(round(total)), abs(total - round(total))

    before = band.profile[max(0, start - int(round((BLISTER_MM + BLISTER_GAP_MM) * ppx))):max(0, start - LEFT_EDGE_PX)]
    faint = _faint_lead(band.profile, start, ppx)
    halo = count_from(start)[1] < LEFT_HALO_FRAC <= LEFT_END_FRAC <= count_from(faint)[1]
    if not halo and (faint < start - LEFT_EDGE_PX or int((before > LEFT_OFF).sum()) >= LEFT_OFF_COLUMNS):
        # off the paper before the marks: a plaster's cooler part missed; the row starts where
        # the faint run leading into the marks does, if paper lies plainly before it (else the
        # count the marks alone give, unsure: see :func:`_read_piece`)
        if not _plain_before(band.profile, faint, ppx) or start - faint > BLISTER_MM * ppx:
            count, frac = count_from(start)
            return (count, 0.0) if count >= 1 and frac < LEFT_END_FRAC else (0, 0.0)
        start = faint
    count, frac = count_from(start)
    if count < 1:
        return 0, 0.0
    if frac >= LEFT_END_FRAC:
        return count, 0.0
    # the printed row fitted to what is in view must not clearly say otherwise: a plaster left
    # out of the marks (pale in a cool light) moves the start by a pitch, a count's error
    fitted, lead, _ = fit_row(band.profile, ppx, READ_W / 2 - x0, LEFT_END_FRAC * (BLISTER_MM + BLISTER_GAP_MM) * ppx)
    if fitted != count and lead >= LEFT_FIT_LEAD:
        return count, 0.0
    return count, float(np.clip(1.0 - 2.0 * frac, 0.0, 1.0))


FAINT_OFF = 0.05
"""Share of a band column's rows off the paper above which the column belongs to a faint
plaster (its outline alone off the paper in a cool light)."""
FAINT_CLEAR_MM = 2.0
"""Clean paper a faint run must have before it to be a row's start: a pitch of it, or all of the
band before it and at least this much (see :func:`_plain_before`)."""


def _faint_lead(profile: np.ndarray, start: int, ppx: float) -> int:
    """First column of the band's run of columns off the paper (over :data:`FAINT_OFF`, gaps of
    up to :data:`FINISH_GAP_MM` joined) that leads into the plaster marks at ``start`` (film
    124's gladiolas: the left halves of their first plasters a cool pale outline, 4-5 mm left of
    the marks; counted one short, or left open)."""
    faint = profile > FAINT_OFF
    gap = int(round(FINISH_GAP_MM * ppx))
    k = first = start
    while k > 0 and first - k <= gap:
        k -= 1
        if faint[k]:
            first = k
    return first


def _plain_before(profile: np.ndarray, first: int, ppx: float) -> bool:
    """Whether clean paper (fewer than :data:`LEFT_OFF_COLUMNS` columns over :data:`FAINT_OFF`:
    a speck) lies a pitch before band column ``first``, or all the band before it and at least
    :data:`FAINT_CLEAR_MM` (a plaster's pale middle splits its faint run too, and a pitch before,
    the outline of its left end shows)."""
    clear = min(first, int(round((BLISTER_MM + BLISTER_GAP_MM) * ppx)))
    return clear >= FAINT_CLEAR_MM * ppx and int((profile[first - clear:first] > FAINT_OFF).sum()) < LEFT_OFF_COLUMNS


FINISH_ONE_MM = (-5.0, 0.5)
"""Where (mm from the card's centre line) the off-paper run of a covered FINISH's band must
begin for its row to be one plaster (a plaster 5.5-8.2 mm long, so 2.8-4.1 mm left of the
centre; slack for a crop placed a little off the card), ..."""
FINISH_TWO_MM = (-11.0, -6.5)
"""... or two (7.5-9 mm left of the centre)."""
FINISH_ONE_END_MM = 5.5
"""A single plaster's run ends this far past the centre line at most (else it runs on into a
second plaster)."""
FINISH_ROW_CONF = 0.75
"""Confidence of a covered FINISH's count from where its off-paper run begins."""
FINISH_RUN_MM = 2.0
"""Shortest off-paper run (mm) taken for a plaster's start, ..."""
FINISH_EDGE_RUN_MM = 0.75
"""Shortest off-paper run taken for a plaster's start where it runs into the next card, ...
(fresh films 177's and 179's F2, single plasters of which the strips showed 1.2 and 2.0 mm:
the counts left open, the hands unnamed)"""
FINISH_EDGE_PAST = 0.1
"""... when at most this share of the rows past the band (:attr:`_Band.past`) are off the paper
in its columns: a plaster ends there; the next card's shadow or a crop's edge runs on."""
FINISH_GAP_MM = 1.5
"""... after joining runs at most this far apart (a plaster's pale middle splits its run: fresh
film 148's F6, its first plaster's first 1.2 mm apart from the rest, counted as one plaster)."""


def _finish_from_row_start(crop: np.ndarray, hidden: np.ndarray, flipped: bool,
                           counts: frozenset[int]) -> tuple[int, float] | None:
    """A covered FINISH's blister count from where its band first runs off the paper, when the
    deck's FINISH cards carry at most two (``counts``): a row of one begins 3-4 mm left of the
    centre line, a row of two 8-9 mm left of it, whatever the deck style's plaster size (5.5 mm
    on film 141, 8.2 on others), and a plaster cooler than the warm marks still lies off the
    paper (films 134, 136, 139, 142: the FINISH's count left open, the hand unnamed). None when
    no such start is seen, it lies between the two places, or a single plaster's run goes on
    too far."""
    if not counts or max(counts) > 2 or 1 not in counts:
        return None
    found = _first_off_run(crop, hidden, CardKind.FINISH, flipped)
    if found is None:
        return None
    at, end, reaches_hidden = found
    if FINISH_ONE_MM[0] <= at <= FINISH_ONE_MM[1]:
        if not reaches_hidden and end > FINISH_ONE_END_MM:
            return None
        return 1, FINISH_ROW_CONF
    if FINISH_TWO_MM[0] <= at <= FINISH_TWO_MM[1] and 2 in counts:
        return 2, FINISH_ROW_CONF
    return None


def _first_off_run(crop: np.ndarray, hidden: np.ndarray, kind: CardKind,
                   flipped: bool) -> tuple[float, float, bool] | None:
    """Where a covered card's band first runs off the paper (the band placed where such pixels
    run densest): the run's start and end in mm from the card's centre line, and whether it runs
    into the next card; None when no run a plaster's start could be is seen (see
    :data:`FINISH_RUN_MM`, :data:`FINISH_EDGE_RUN_MM`)."""
    band = _plaster_band(crop, hidden, kind, flipped, by_off=True)
    if band is None:
        return None
    ppx = READ_W / CARD_W_MM
    centre = CARD_W_MM / 2 * ppx - band.x0
    on = band.profile > LEFT_OFF
    merged: list[tuple[int, int]] = []
    for a, b in _runs(on):
        if merged and a - merged[-1][1] <= FINISH_GAP_MM * ppx:
            merged[-1] = (merged[-1][0], b)  # a plaster's pale middle, or the gap between two
        else:
            merged.append((a, b))
    edge = band.x1 - band.x0 - 1
    runs = [(a, b) for a, b in merged if b - a >= FINISH_RUN_MM * ppx or (
        # a plaster's start just before the next card: its run cut short, but plaster-high
        b >= edge and b - a >= FINISH_EDGE_RUN_MM * ppx and band.past is not None
        and float(band.past[a:b].mean()) < FINISH_EDGE_PAST)]
    if not runs:
        return None
    start, end = runs[0]
    return (start - centre) / ppx, (end - centre) / ppx, end >= edge


def _gladiola_from_row_start(crop: np.ndarray, hidden: np.ndarray, flipped: bool) -> tuple[int, float] | None:
    """A covered gladiola's blister count from where its band first runs off the paper (its
    plasters too cool for the warm marks): the row is centred, so a row of n begins
    (n * 8.2 + (n - 1) * 1.6) / 2 mm left of the centre line; taken when the run begins within
    :data:`ROW_START_SLACK_MM` of one such place (fresh film 175's G2, two plasters in a cool
    light, their pale run from 9.6 mm left of the line: the count left open, the hand unnamed)."""
    found = _first_off_run(crop, hidden, CardKind.GLADIOLA, flipped)
    if found is None:
        return None
    at = found[0]
    for n in range(1, MAX_ROW + 1):
        if abs(at + _half_row_mm(n)) <= ROW_START_SLACK_MM:
            return n, FINISH_ROW_CONF
    return None


ROW_START_SLACK_MM = 2.0
"""How far (mm) a gladiola's first off-paper run may begin from where a row's first plaster is
printed (a crop placed a little off the card or a little large for it, a plaster's pale end not
off the paper: fresh film 163's G1 and G4 began 1.6 mm further left); the places of rows one
plaster apart lie 4.9 mm apart."""


MIRROR_LOST = 0.1
LEFT_ALONE = 0.75
"""A covered FINISH's or gladiola's strip reaching past the centre line whose mirrored count has
at most ``MIRROR_LOST`` confidence (the crop a little off the card's centre line, its single
plaster mirrored into a narrow mark and the chequer's edge taken for three more: film 133's
F4, 4 at 0.0; or a count no FINISH of the deck carries) takes the count from the row's start
when that is at least ``LEFT_ALONE`` sure (1 at 0.93 there; the hand went unnamed; film 144's
F2 and F4, 1 at 0.77 and 0.87, each beside a mirrored 4)."""


WHOLE_CENTRE_MM = 1.5
"""Largest distance between the middle of the row's plaster marks and the card's centre line for
the top card's blisters to be counted from the row's extent (:func:`_whole_count`)."""
WHOLE_FILL = 0.6
"""Smallest share of the row's extent the plaster marks must fill (a pale plaster's light middle
leaves a gap in its marks)."""
WHOLE_STRAY = 0.3
"""Largest share of a plaster's width of marks at the other end's row height (the card's
orientation must be plain)."""


def _whole_count(crop: np.ndarray, reading: CardReading) -> CardReading:
    """The row's top card as read, and when the reader named a FINISH or gladiola without its
    blister count (a pale plaster the reader's row fit refused), the count from the extent of
    the plaster marks at the row's printed height: the row is centred and each plaster more
    makes it a pitch (9.8 mm) longer. Left as read when the marks are not centred, fill the
    extent poorly, fit no whole count, or show at the other end too. A FINISH with no plaster
    colour where its row may lie has none (:func:`_no_plaster_seen`, as for a covered one)."""
    if reading.kind not in (CardKind.FINISH, CardKind.GLADIOLA) or reading.blisters is not None:
        return reading
    ppx = READ_W / CARD_W_MM
    clear = np.zeros(crop.shape[:2], bool)
    flipped, both_ends = reading.flipped, reading.orientation_confidence < CLEAN_ORIENTED
    side = _banner_turned(crop) if reading.kind is CardKind.FINISH and both_ends else None
    if side is not None:
        # the banner, printed above the card's middle, tells which way up a whole FINISH lies
        # when its index left that unsure: only that end's row height is looked at (the other
        # end's runs along the banner's edge: fresh film 191's F1, the row's top card, no
        # plaster, its index read at 0.58)
        flipped, both_ends = side, False
    if reading.kind is CardKind.FINISH and _no_plaster_seen(
            crop, clear, reading.kind, flipped, CLEAN_REACH_MM, both_ends=both_ends):
        # as for a covered FINISH: no plaster colour where the row may lie (film 141's F1, the
        # row's last card, its clean band unsure to the reader for the chequer's end slanting in)
        return _with_blisters(reading, 0, CLEAN_FINISH)
    band = _plaster_band(crop, clear, reading.kind, reading.flipped)
    other = _plaster_band(crop, clear, reading.kind, not reading.flipped)
    if band is None or other is None or int(other.occupied.sum()) > WHOLE_STRAY * BLISTER_MM * ppx:
        return reading
    occupied, x0 = band.occupied, band.x0
    cols = np.nonzero(occupied)[0]
    if len(cols) < 0.5 * BLISTER_MM * ppx or cols[0] == 0 or cols[-1] == len(occupied) - 1:
        return reading  # no plaster-wide marks, or the marks run into the border
    first, last = int(cols[0]), int(cols[-1]) + 1
    middle_mm = (x0 + (first + last) / 2) / ppx
    if abs(middle_mm - CARD_W_MM / 2) > WHOLE_CENTRE_MM or float(occupied[first:last].mean()) < WHOLE_FILL:
        return reading
    total = ((last - first) / ppx + BLISTER_GAP_MM) / (BLISTER_MM + BLISTER_GAP_MM)
    count = int(round(total))
    frac = abs(total - count)
    if count < 1 or frac >= LEFT_END_FRAC:
        return reading
    conf = float(np.clip(1.0 - 2.0 * frac, 0.0, 1.0))
    if conf < ACCEPT:
        return reading
    return _with_blisters(reading, count, conf)


BANNER_MIDDLE = 0.44
"""Where the middle of a FINISH's chequered banner lies down an upright card (share of its
height; 0.56 on a card turned round; fresh film 191's F1 0.435)."""
BANNER_MIDDLE_SLACK = 0.04
"""How far the banner's middle may lie from that place for it to tell which way up the card
lies (half the way to the card's middle)."""


def _banner_turned(crop: np.ndarray) -> bool | None:
    """Whether a whole FINISH's crop shows the card turned round, from where its banner lies:
    the dark rows (chequer and lettering) between a fifth and four fifths of the height, away
    from both corner indices. None when they are too few or their middle lies near neither
    place a banner has."""
    height, width = crop.shape[:2]
    light = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    y0, y1 = int(0.2 * height), int(0.8 * height)
    middle = light[y0:y1, int(0.1 * width):int(0.9 * width)]
    paper = float(np.percentile(middle, 90))
    dark = np.nonzero((middle < 0.55 * paper).mean(axis=1) > BANNER_DARK)[0]
    if len(dark) < 0.05 * height:
        return None
    centre = (y0 + float(np.median(dark))) / height
    if abs(centre - BANNER_MIDDLE) <= BANNER_MIDDLE_SLACK:
        return False
    if abs(centre - (1 - BANNER_MIDDLE)) <= BANNER_MIDDLE_SLACK:
        return True
    return None


def _with_blisters(reading: CardReading, count: int, conf: float) -> CardReading:
    """``reading`` with its blister count set to ``count`` at confidence ``conf``."""
    f = reading.field_confidences
    return CardReading(kind=reading.kind, face=reading.face, flipped=reading.flipped, value=reading.value,
                       blisters=count, confidence=min(reading.confidence, conf),
                       field_confidences=FieldConfidences(kind=f.kind, value=f.value, blisters=conf, date=f.date),
                       orientation_confidence=reading.orientation_confidence, source=reading.source)


INDEX_BOX_MM = (8.0, 9.0, 20.0, 17.0)
"""Where a walk or FINISH card's corner index lies on a crop (x0, y0, x1, y1 in mm; both ends of
such a card carry one, so this holds for a card upside down too)."""
NO_INDEX_INK = 0.01
"""Largest share of dark pixels in :data:`INDEX_BOX_MM` for a card to show no index."""


def _gladiola_from_strip(crop: np.ndarray, hidden: np.ndarray) -> CardReading | None:
    """A narrow strip the reader could not name, read as a gladiola: no corner index, and a
    plaster row at the height a gladiola prints it at one end only (its blossoms, on the centre
    line, are under the next card). None when that is not clear."""
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    a = analyse(crop)
    x0, y0, x1, y1 = (int(round(v * p)) for v, p in zip(INDEX_BOX_MM, (ppx, ppy, ppx, ppy)))
    box = a.lab[y0:y1, x0:x1, 0].astype(np.float32)
    box_hidden = hidden[y0:y1, x0:x1]
    if box_hidden.mean() > 0.2:
        return None  # the index box is not in view
    redness = a.lab[y0:y1, x0:x1, 1].astype(np.float32) - float(a.paper_lab[1])
    ink = (box < INK_DARK * float(a.paper_lab[0])) & (redness < 15)  # (a blossom is no print)
    if float(ink[~box_hidden].mean()) > NO_INDEX_INK:
        return None
    found = [(flipped, *_count_from_left_end(crop, hidden, CardKind.GLADIOLA, flipped)) for flipped in (False, True)]
    sure = [f for f in found if f[2] >= ACCEPT]
    if len(sure) != 1 or any(0 < f[2] for f in found if f not in sure):
        return None
    flipped, count, conf = sure[0]
    return CardReading(kind=CardKind.GLADIOLA, face=Face.FRONT, flipped=flipped, blisters=count, confidence=conf,
                       field_confidences=FieldConfidences(kind=conf, blisters=conf), orientation_confidence=conf)


CUT_KEEP = (0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65)
"""Shares of a digit's width kept in the templates a digit cut by the next card is matched to."""
CUT_TOUCH_PX = 2
"""Largest gap (crop pixels) between an index's last digit and the next card's edge for the digit
to be taken as cut by it."""


@lru_cache(maxsize=1)
def _cut_bank() -> GlyphBank:
    """Digit templates with their right part cut off (:data:`CUT_KEEP`), built once."""
    def masks():
        for font in FONTS:
            for digit in range(10):
                m = render_digit(font, digit)
                ys, xs = np.nonzero(m)
                m = m[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
                for keep in CUT_KEEP:
                    yield digit, m[:, : max(1, int(round(keep * m.shape[1])))].copy()
    return GlyphBank(*template_rows(masks()))


def _index_glyphs(found: list[Blob]) -> list[Blob]:
    """Of a crop's glyphs ``found``, those of a corner digit's size at the top (left first)."""
    return sorted((g for g in found if g.y0 < 0.16 * READ_H and 0.11 * READ_H < g.h < 0.18 * READ_H),
                  key=lambda g: g.x0)


def _two_digit_index(found: list[Blob]) -> tuple[Blob, Blob] | None:
    """Of a crop's glyphs ``found``, the two of a corner index of two digits in its top-left
    corner (left first), or None when there is no such index."""
    glyphs = _index_glyphs(found)
    if len(glyphs) != 2:
        return None
    first, last = glyphs
    overlap = min(first.y1, last.y1) - max(first.y0, last.y0)
    if (first.x0 >= 0.22 * READ_W or overlap < 0.7 * min(first.h, last.h)
            or not 0 <= last.x0 - first.x1 <= 0.6 * first.h):
        return None
    return first, last


def _index_masks(painted: np.ndarray) -> tuple[tuple[Blob, Blob], list[np.ndarray]] | None:
    """The two glyphs of a painted strip's two-digit corner index and their masks, or None."""
    a = analyse(painted)
    glyphs = _two_digit_index(a.glyphs)
    if glyphs is None:
        return None
    return glyphs, [(a.labels[g.y0:g.y1, g.x0:g.x1] == g.label).astype(np.uint8) for g in glyphs]


def _ink_cut_beside(painted: np.ndarray, hidden: np.ndarray) -> bool:
    """Whether ink runs into the next card's edge just right of a painted strip's first corner
    digit (within :data:`CUT_BESIDE_PX` of the edge, on :data:`CUT_BESIDE_ROWS` of the digit's
    rows or more): a second digit cut down to a sliver the reader does not take for a glyph."""
    a = analyse(painted)
    found = _first_glyph(a.glyphs, hidden)
    if found is None or found[1] is None:
        return False
    first, edge = found
    lo = max(first.x1 + 1, edge - CUT_BESIDE_PX)
    if lo >= edge:
        return False  # no room between the digit and the edge: nothing to see
    ink = a.lab[first.y0:first.y1, lo:edge, 0].astype(np.float32) < INK_DARK * float(a.paper_lab[0])
    return float(ink.any(axis=1).mean()) >= CUT_BESIDE_ROWS


def _blisters_at_most(crop: np.ndarray, hidden: np.ndarray) -> int | None:
    """Most blisters a covered walk card lying upright can carry when its strip shows no plaster
    (warm marks nor outlines) at its row's height: a row of more would show at least
    :data:`ROW_SHOW_MM` of its first plaster before the next card. None when plaster is seen or
    the band is not in view."""
    band = _plaster_band(crop, hidden, CardKind.WALK, False, by_off=True)
    if band is None:
        return None
    ppx = READ_W / CARD_W_MM
    if (int(band.occupied.sum()) >= 0.15 * BLISTER_MM * ppx
            or int((band.profile > FAINT_OFF).sum()) >= LEFT_OFF_COLUMNS):
        return None
    for n in range(1, MAX_ROW + 1):
        start = CARD_W_MM / 2 - _half_row_mm(n)
        if band.x1 / ppx - start >= ROW_SHOW_MM:
            return n - 1
    return None


ROW_SHOW_MM = 2.6
"""How much of a row's first plaster must lie before the next card for a clean strip to rule the
row out (as :data:`CLEAN_OUTLINE_REACH_MM` for a single one)."""
MAX_ROW = 6
"""Longest row looked for (the rules give no card more than five blisters)."""


def _half_row_mm(n: int) -> float:
    """Half the printed length (mm) of a centred row of ``n`` plasters: how far left of the card's
    centre line its first plaster starts."""
    return (n * BLISTER_MM + (n - 1) * BLISTER_GAP_MM) / 2


def _rivals_ruled_out(crop: np.ndarray, hidden: np.ndarray, value: int, rivals: set[int],
                      config: HandConfig, mirror: np.ndarray | None = None) -> bool:
    """Whether the blisters a covered walk card's strip allows (:func:`_blisters_at_most`) fit
    the walk card ``value`` and none of the ``rivals`` its cut index may also be (fresh film 175's
    W31, its 1 at the next card's edge, maybe a cut 0, 3 or 8: W31 has no blister, W30, W33 and
    W38 four or five, and the strip shows the band clean where four would start; the hand went
    unnamed). Where the strip shows plasters, a sure count (on the strip ``mirror``-ed at the
    centre line when given, else :func:`_strip_blisters`) must be ``value``'s and no rival's.
    False without the deck's blister counts (``config.walk_blisters``)."""
    counts = dict(config.walk_blisters)
    if value not in counts:
        return False
    most = _blisters_at_most(crop, hidden)
    if most is not None:
        return counts[value] <= most and all(counts.get(r, 0) > most for r in rivals)
    # a row in view: its count, when sure (counted on the strip mirrored at the centre line when
    # it reaches that far)
    counted = (count_blisters_in_row(analyse(mirror), CardKind.WALK, False) if mirror is not None
               else _strip_blisters(crop, hidden))
    return (counted is not None and counted[1] >= ACCEPT and counts[value] == counted[0]
            and all(r in counts and counts[r] != counted[0] for r in rivals))


def _value_dropped(reading: CardReading, deck: Deck) -> CardReading:
    """A walk reading whose value is not sure after all, without it; a value beginning as the
    FINISH's does (a 5 whose second digit may be hidden, or a 5 and a sliver: maybe 50) leaves
    even the kind unknown (film 113's F4 read as a walk 5)."""
    value = reading.value
    out = replace(reading, value=None, field_confidences=replace(reading.field_confidences, value=0.0))
    if value is not None and deck.finish_value is not None and str(deck.finish_value)[0] == str(value)[0]:
        out = replace(out, kind=CardKind.UNKNOWN, confidence=0.0, field_confidences=replace(out.field_confidences, kind=0.0))
    return out


@dataclass(frozen=True)
class _Index:
    """A covered strip's first corner-index glyph: its left end and width (reading-size crop
    pixels), the room to the next card's edge right of it, and whether a second digit is seen."""

    x0: int
    w: int
    room: int
    two: bool


def _first_glyph(glyphs: list[Blob], hidden: np.ndarray) -> tuple[Blob, int | None] | None:
    """A painted strip's first corner-index glyph and the first column of the next card at its
    rows (None when the card is not covered there); None without one."""
    index = [g for g in _index_glyphs(glyphs) if g.x0 < 0.22 * READ_W]
    if not index:
        return None
    shut = np.nonzero(hidden[index[0].y0:index[0].y1].any(axis=0))[0]
    return index[0], (int(shut[0]) if len(shut) else None)


def _painted(crop: np.ndarray, hidden: np.ndarray, narrow: bool = False) -> np.ndarray:
    """A covered card's crop with the part under the next card and its border painted paper (see
    :func:`_frame_mask`)."""
    frame = _frame_mask(crop, hidden, narrow)
    painted = crop.copy()
    painted[hidden | frame] = _paper(crop[~(hidden | frame)])
    return painted


def _first_index(crop: np.ndarray, hidden: np.ndarray) -> _Index | None:
    """The first corner-index glyph of a covered card's strip (its border painted over), or None."""
    a = analyse(_painted(crop, hidden))
    found = _first_glyph(a.glyphs, hidden)
    if found is None:
        return None
    first, edge = found
    room = edge - first.x1 if edge is not None else READ_W
    return _Index(first.x0, first.w, room, _two_digit_index(a.glyphs) is not None)


def _lone_digits_checked(readings: list[CardReading], indices: list[_Index | None], deck: Deck) -> list[CardReading]:
    """A row's readings with the one-digit values dropped that may be a two-digit index whose
    second digit lies under the next card: the next card's edge closer to the digit than its
    width, and the digit not right of where the row's two-digit indices begin by ``LONE_SHIFT``
    of its width (or fewer than two of those in the row to tell by)."""
    starts = [ix.x0 for r, ix in zip(readings, indices) if ix is not None and ix.two and r.value is not None and r.value >= 10]
    start = float(np.median(starts)) if len(starts) >= 2 else None
    out = []
    for r, ix in zip(readings, indices):
        if (r.kind is CardKind.WALK and r.value is not None and r.value < 10 and ix is not None and ix.room < ix.w
                and (start is None or ix.x0 < start + LONE_SHIFT * ix.w)):
            r = _value_dropped(r, deck)
        out.append(r)
    return out


LONE_SHIFT = 0.25
"""A one-digit index is printed centred in its box, right of where a two-digit index's first digit
begins by 0.35-0.55 of a digit's width on the films' shown hands (113: 0.53; 109, 115: 0.35-0.47);
first digits of two begin within 0.1 of a width of each other. (A fixed place on the card does
not tell them apart: the decks' styles put lone digits at 0.22-0.25 of the card's width in films
109 and 115, first digits of two at 0.19-0.20 in film 113, three of which, their second digit
under the next card, read alone as 5, 2 and 4 surely.)"""


def _one_is_a_sliver(painted: np.ndarray, hidden: np.ndarray) -> bool:
    """Whether a two-digit index's last digit runs into the next card's edge and is narrower
    than a whole 1 of the cards' fonts (:data:`WHOLE_ONE_WIDTH` of its height)."""
    index = _two_digit_index(analyse(painted).glyphs)
    if index is None:
        return False
    last = index[1]
    return bool(_second_digit_cut(hidden, last)) and last.w < WHOLE_ONE_WIDTH * last.h


WHOLE_ONE_WIDTH = 0.6
"""Narrowest width (share of its height) of a whole 1 read on a strip at the cards' print sizes
(0.69-0.8 where it runs into the next card's edge; narrower ones there are slivers)."""
CUT_BESIDE_PX = 6
"""Crop columns left of the next card's edge looked at for a cut digit's sliver."""
CUT_BESIDE_ROWS = 0.3
"""Share of a digit's rows with ink in those columns that makes a sliver of a digit."""
INK_DARK = 0.6
"""Largest lightness (share of the paper's) of print ink."""


def _second_digit_cut(hidden: np.ndarray, last: Blob) -> bool:
    """Whether the next card's edge runs within :data:`CUT_TOUCH_PX` of the index's last digit."""
    shut = np.nonzero(hidden[last.y0:last.y1].any(axis=0))[0]
    return bool(len(shut)) and shut[0] - last.x1 <= CUT_TOUCH_PX


def _read_cut_index(painted: np.ndarray, hidden: np.ndarray, deck: Deck) -> CardReading | None:
    """A walk card's two-digit corner index whose second digit runs into the next card's edge,
    read with that digit matched to cut templates (to whole-digit templates a cut 0 looks nearly
    like a 6). It stands only when the whole-digit templates give the same value as their best;
    None otherwise."""
    if CardKind.WALK not in deck.kinds:
        return None
    index = _index_masks(painted)
    if index is None:
        return None
    glyphs, masks = index
    if not _second_digit_cut(hidden, glyphs[1]):
        return None  # the second digit is not cut: the reader's own refusal stands
    allowed = sorted(v for v in deck.walk_values if v >= 10)  # (a FINISH needs its blisters and its way up)
    whole = classify_all(masks)
    plain = decode_value(whole, allowed)
    vote = decode_value(np.stack([whole[0], classify_all(masks[1:], _cut_bank())[0]]), allowed)
    conf = glyph_confidence(vote)
    if vote is None or plain is None or vote.value != plain.value or conf < ACCEPT:
        return None
    return CardReading(kind=CardKind.WALK, face=Face.FRONT, value=vote.value, confidence=conf,
                       field_confidences=FieldConfidences(kind=conf, value=conf))


def _strip_blisters(crop: np.ndarray, hidden: np.ndarray) -> tuple[int, float] | None:
    """A covered walk card's blister count from its strip, whichever way up it lies: none when
    the band is clean at both ends' row heights past where a single plaster would show
    (:data:`CLEAN_REACH_MM`), else the count from the row's start (:func:`_count_from_left_end`)
    at exactly one end's height. (count, confidence), or None when the strip does not tell."""
    if _no_plaster_seen(crop, hidden, CardKind.WALK, False, CLEAN_REACH_MM):
        return 0, CLEAN_FINISH
    found = [_count_from_left_end(crop, hidden, CardKind.WALK, flipped) for flipped in (False, True)]
    sure = [f for f in found if f[1] >= ACCEPT]
    if len(sure) != 1 or any(0 < f[1] for f in found if f not in sure):
        return None
    return sure[0]


def _index_by_blisters(crop: np.ndarray, painted: np.ndarray, hidden: np.ndarray,
                       config: HandConfig) -> CardReading | None:
    """A covered walk card whose two-digit corner index the reader left a close call (an 8 of
    the webcam's small print matches a 0 or a 6 nearly as well; a 6 cut by the next card looks
    like a cut 0): its blisters, counted on the strip, rule out the rivals printed with another
    count. The value stands only when it is also the best of all values (the count takes rivals
    away, it never promotes one), matches well and leads the values left by the reader's margin;
    None otherwise or without ``config.walk_blisters``."""
    if not config.walk_blisters or CardKind.WALK not in config.deck.kinds:
        return None
    index = _index_masks(painted)
    if index is None:
        return None
    glyphs, masks = index
    counted = _strip_blisters(crop, hidden)
    if counted is None:
        return None
    count, bconf = counted
    scores = classify_all(masks)
    if _second_digit_cut(hidden, glyphs[1]):
        scores = np.stack([scores[0], classify_all(masks[1:], _cut_bank())[0]])  # the second digit cut
    values = {v: b for v, b in config.walk_blisters if v >= 10 and v in config.deck.walk_values}
    best = decode_value(scores, sorted(values))
    vote = decode_value(scores, sorted(v for v, b in values.items() if b == count))
    conf = glyph_confidence(vote)
    if best is None or vote is None or vote.value != best.value or vote.score < CLOSE_SCORE or conf < ACCEPT:
        return None
    conf = min(conf, bconf)
    return CardReading(kind=CardKind.WALK, face=Face.FRONT, value=vote.value, blisters=count, confidence=conf,
                       field_confidences=FieldConfidences(kind=conf, value=conf, blisters=bconf))


CLOSE_SCORE = 0.85
"""Smallest template score of a value settled by the blister count (:func:`_index_by_blisters`)."""


FRAME_PAPER = 30.0
"""Largest colour distance (Lab) of a pixel from the paper colour for it to be paper."""
FRAME_SHARE = 0.25
"""Largest share of paper-coloured pixels in a column of the border (a column through the corner
index is mostly paper: the index is a small part of the card's height)."""
FRAME_BLUR = 2
"""Crop pixels painted beyond the last line of the border (its blurred edge)."""


def _frame_mask(crop: np.ndarray, hidden: np.ndarray, narrow: bool = False) -> np.ndarray:
    """The card's border on a covered card's crop: :data:`FRAME_MM` along the top, bottom and left
    side; ``narrow``: on each of them only in past the last column (row) with hardly any paper
    colour in it (at most :data:`FRAME_MM`)."""
    most = int(round(FRAME_MM / CARD_W_MM * READ_W))
    frame = np.zeros(hidden.shape, bool)
    frame[:most], frame[-most:], frame[:, :most] = True, True, True
    if not narrow:
        return frame
    paper = crop[~hidden]

    def depth(side: np.ndarray) -> int:
        """How far in from the side (``side``'s first column) the border reaches."""
        near = _from_paper(np.ascontiguousarray(side), paper) < FRAME_PAPER
        border = np.nonzero(near.mean(axis=0) < FRAME_SHARE)[0]
        # (the last such column: a printed frame line may run inside the border)
        return min(most, int(border[-1]) + 1 + FRAME_BLUR) if len(border) else FRAME_BLUR

    # the top and bottom likewise (fresh film 166's W31, its crop placed tight at the top: the
    # painted band cut the index's top off, the card went unread and the hand unnamed)
    shown = ~hidden.any(axis=0)
    if not shown.any():
        return frame
    top = depth(crop[:most, shown].transpose(1, 0, 2))
    bottom = depth(crop[::-1][:most, shown].transpose(1, 0, 2))
    frame[:] = False
    frame[:top], frame[len(frame) - bottom:], frame[:, :depth(crop[:, :most])] = True, True, True
    return frame


def _read_piece(crop: np.ndarray, hidden: np.ndarray | None, shown_mm: float, config: HandConfig) -> CardReading:
    """Read a card crop; ``hidden`` marks the crop pixels under the next card (None: whole card)."""
    deck = config.deck
    if hidden is None:
        return _whole_count(crop, read_card(crop, deck))
    for narrow in (False, True):
        # the border painted FRAME_MM wide, else only as wide as it is (a narrow border leaves
        # the corner index close to it)
        painted = _painted(crop, hidden, narrow)
        reading = read_card(painted, deck)
        if reading.kind is CardKind.UNKNOWN:
            reading = _read_cut_index(painted, hidden, deck) or reading
        if reading.kind is CardKind.UNKNOWN:
            reading = _index_by_blisters(crop, painted, hidden, config) or reading
        if reading.kind is not CardKind.UNKNOWN:
            break
    reach = shown_mm - config.hidden_margin_mm - CARD_W_MM / 2
    mirror = None
    if reach >= config.mirror_margin_mm:
        half = crop[:, : READ_W // 2]
        mirror = np.concatenate([half, half[:, ::-1]], axis=1)
    if not narrow and reading.value is not None:
        # the border painted at its full width may have cut into the index of a crop placed a
        # little off the card (film 124: W22's first 2, cut at the left, read 12 at 0.86)
        narrow_painted = _painted(crop, hidden, True)
        other = read_card(narrow_painted, deck)
        if other.value is not None and other.value != reading.value:
            # (unless the strip's blisters fit one of the two readings only: fresh film 175's
            # W38, its 3 cut by the full border into a 1, 18 beside 38 from the narrow one)
            fits = [(r, p) for r, rival, p in ((reading, other, painted), (other, reading, narrow_painted))
                    if r.kind is CardKind.WALK and _rivals_ruled_out(crop, hidden, r.value, {rival.value}, config, mirror)]
            reading, painted = fits[0] if len(fits) == 1 else (_value_dropped(reading, deck), painted)
    if reading.kind is CardKind.WALK and reading.value is not None and not reading.flipped:
        rivals: set[int] = set()
        if reading.value < 10 and _ink_cut_beside(painted, hidden):
            # "3" with a sliver of ink at the next card's edge is a "3x" whose second digit is hidden
            rivals = {10 * reading.value + d for d in range(10)}
        elif reading.value >= 10 and reading.value % 10 == 1 and _one_is_a_sliver(painted, hidden):
            # the left sliver of a cut 0, 3 or 8 reads as a 1
            rivals = {reading.value - 1, reading.value + 2, reading.value + 7}
        rivals &= set(deck.walk_values)
        if rivals and not _rivals_ruled_out(crop, hidden, reading.value, rivals, config, mirror):
            reading = _value_dropped(reading, deck)
    if reading.kind is CardKind.UNKNOWN and mirror is not None and CardKind.GLADIOLA in deck.kinds:
        # a gladiola has no index: its blossoms stand on the centre line, which the mirror completes
        again = read_card(mirror, deck)
        if again.kind is CardKind.GLADIOLA:
            reading = again
    if reading.kind is CardKind.UNKNOWN and CardKind.GLADIOLA in deck.kinds:
        return _gladiola_from_strip(crop, hidden) or reading
    if reading.kind is CardKind.UNKNOWN:
        return reading
    blisters, bconf = None, 0.0
    mirrored = 0  # (the count the mirror gave, sure or not)
    if mirror is not None:
        n, c = count_blisters_in_row(analyse(mirror), reading.kind, reading.flipped)
        mirrored = n
        if reading.kind is CardKind.FINISH and config.finish_blisters and n not in config.finish_blisters:
            # no FINISH of the deck has that many: the mirror counted print (the chequer's lower
            # edge, as four or five plasters on films 141 and 144)
            c = 0.0
        elif n == 0:
            c = min(c, max(0.0, c - (SURE_ZERO - ACCEPT)))  # a mirrored clean band may be a row missed
        elif reading.kind is CardKind.FINISH and _no_plaster_seen(crop, hidden, reading.kind, reading.flipped):
            # a FINISH's chequer, a few millimetres lower on a crop placed too high, looks like
            # plasters to the mirrored band; the strip, reaching past where a row starts, shows none
            c = 0.0
        if c < ACCEPT and n > 0 and reading.kind in (CardKind.GLADIOLA, CardKind.FINISH):
            # the mirror's count unsure (its joint at the centre line): the row's start, counted
            # the other way, may make it sure when both give the same number
            left, lc = _count_from_left_end(crop, hidden, reading.kind, reading.flipped)
            if left == n and lc >= ACCEPT:
                c = lc
            elif c <= MIRROR_LOST and lc >= LEFT_ALONE:
                n, c = left, lc  # the mirror counts nothing sure: the row's start alone
        blisters, bconf = (n, c) if c >= ACCEPT else (None, c)
    elif reading.kind in (CardKind.GLADIOLA, CardKind.FINISH):
        # (a walk card is named by its value alone)
        n, c = _count_from_left_end(crop, hidden, reading.kind, reading.flipped)
        if reading.kind is CardKind.FINISH and hidden is not None and c >= ACCEPT:
            other = _finish_from_row_start(crop, hidden, reading.flipped, config.finish_blisters)
            if other is not None and other[0] != n:
                # where the band leaves the paper puts the row's start elsewhere: unsure (fresh
                # film 192's F2, one plaster peeking out at the strip's edge, counted 2 at 0.64
                # from the warm marks and 1 at 0.75 from the band)
                c = 0.0
        blisters, bconf = (n, c) if c >= ACCEPT else (None, c)
    if (reading.kind is CardKind.FINISH and blisters is not None and config.finish_blisters
            and blisters not in config.finish_blisters):
        # no FINISH of the deck carries that many, whichever way it was counted (fresh film
        # 170's covered FINISH: the row's start counted 5 at 0.86 beside a lost mirrored 5)
        blisters, bconf = None, 0.0
    if (blisters is None and reading.kind is CardKind.FINISH and hidden is not None
            and any(_no_plaster_seen(crop, hidden, reading.kind, reading.flipped, reach,
                                     both_ends=reading.orientation_confidence < CLEAN_ORIENTED, outline=outline)
                    for reach, outline in ((CLEAN_REACH_MM, False), (CLEAN_OUTLINE_REACH_MM, True)))):
        blisters, bconf = 0, CLEAN_FINISH  # a single plaster would show: there is none
    if blisters is None and reading.kind is CardKind.FINISH and hidden is not None:
        # the warm marks may miss plasters in a cool light: where the band leaves the paper
        found = _finish_from_row_start(crop, hidden, reading.flipped, config.finish_blisters)
        # (unless the warm marks, refused for what lies off the paper before them, count
        # otherwise: fresh film 150's F2, one plaster just under the green chequer, whose
        # blurred edge ran off the paper 2.5 mm before it; counted 2 from there, the hand wrong)
        if found is not None and _count_from_left_end(crop, hidden, reading.kind, reading.flipped)[0] in (0, found[0]):
            blisters, bconf = found
    if blisters is None and reading.kind is CardKind.GLADIOLA and hidden is not None:
        # (only when no other way counted otherwise, sure or not)
        found = _gladiola_from_row_start(crop, hidden, reading.flipped)
        if (found is not None and mirrored in (0, found[0])
                and _count_from_left_end(crop, hidden, reading.kind, reading.flipped)[0] in (0, found[0])):
            blisters, bconf = found
    f = reading.field_confidences
    fields = FieldConfidences(kind=f.kind, value=f.value, blisters=bconf, date=f.date)
    needed = [f.kind] + ([f.value] if reading.value is not None else []) + ([bconf] if blisters is not None else [])
    return CardReading(kind=reading.kind, face=reading.face, flipped=reading.flipped, value=reading.value,
                       blisters=blisters, confidence=min(needed), field_confidences=fields,
                       orientation_confidence=reading.orientation_confidence, source=reading.source)


def read_covered(crop: np.ndarray, hidden: np.ndarray, shown_mm: float, config: HandConfig = HandConfig()) -> CardReading:
    """Read a covered card's portrait crop whose seen strip runs along its left side (its corner
    index in the strip's top-left corner, either way up); ``hidden`` marks the crop pixels under
    the cards on it, ``shown_mm`` how much of its width is in view (see :mod:`vision.fan`)."""
    return _read_piece(crop, hidden, shown_mm, config)


def ink_before_index(crop: np.ndarray, hidden: np.ndarray) -> float | None:
    """The share of off-paper pixels in the band of a covered card's first corner-index glyph from
    one glyph width before it to the glyph (its border painted over), or None without a glyph: a
    digit printed alone has paper before it, a digit with ink or a finger there may be the second
    of two (see :mod:`vision.fan`)."""
    painted = _painted(crop, hidden)
    index = _index_glyphs(analyse(painted).glyphs)
    if not index:
        return None
    first = index[0]
    x0, x1 = max(0, first.x0 - first.w), max(0, first.x0 - 2)
    if x1 <= x0:
        return 0.0
    band = np.ascontiguousarray(painted[first.y0:first.y1, x0:x1])
    return float((_from_paper(band, painted) > INK_FROM_PAPER).mean())


def border_at_left(crop: np.ndarray, hidden: np.ndarray) -> bool:
    """Whether a covered card's crop shows the card's printed border along its left side (a column
    within :data:`FRAME_MM` of it off the paper colour almost all the way down): the crop's left
    side is then the card's edge, not a line across the card (see :mod:`vision.fan`)."""
    most = int(round(FRAME_MM / CARD_W_MM * READ_W))
    near = _from_paper(np.ascontiguousarray(crop[:, :most]), crop[~hidden]) < FRAME_PAPER
    return bool((near.mean(axis=0) < FRAME_SHARE).any())


INK_FROM_PAPER = 25.0
"""Lab distance from the paper colour above which a pixel is ink (see :func:`ink_before_index`)."""


def _hidden_mask(corners: np.ndarray, covers: list[tuple[tuple[float, float], tuple[float, float] | None]],
                 mid: float, margin: float) -> np.ndarray:
    """Crop pixels (reading size) that lie, in the strip, under a later card: right of its left
    edge line less ``margin`` strip pixels, and between its top and bottom rows widened by
    ``margin`` (None: over the whole height). ``covers``: (line, rows) of each later card;
    ``corners``: this card's corners in the strip."""
    src = np.float32([[0, 0], [READ_W - 1, 0], [READ_W - 1, READ_H - 1], [0, READ_H - 1]])
    m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    xs, ys = np.meshgrid(np.arange(READ_W, dtype=np.float32), np.arange(READ_H, dtype=np.float32))
    pts = cv2.perspectiveTransform(np.stack([xs, ys], axis=-1).reshape(-1, 1, 2), m).reshape(READ_H, READ_W, 2)
    hidden = np.zeros((READ_H, READ_W), bool)
    for line, rows in covers:
        under = pts[..., 0] >= line[0] + line[1] * (pts[..., 1] - mid) - margin
        if rows is not None:
            under &= (pts[..., 1] >= rows[0] - margin) & (pts[..., 1] <= rows[1] + margin)
        hidden |= under
    return hidden


def _a_card_wide(span: float, card_w: float, tolerance: float) -> bool:
    """Whether ``span`` pixels is a card's width ``card_w`` within the relative ``tolerance``."""
    return abs(span / card_w - 1) <= tolerance


def _printed_on_top(edges: list[_Edge], card_w: float, tolerance: float) -> list[_Edge]:
    """``edges`` without the one printed on the top card: when the last two edges are no card's
    width apart but the last and the third last are, and the edge between is weaker than both
    (film 121: a gladiola's stem standing upright in the strip, the row then not read at all)."""
    if len(edges) < 4 or _a_card_wide(edges[-1].hi - edges[-2].lo, card_w, tolerance):
        return edges
    spans_a_card = _a_card_wide(edges[-1].hi - edges[-3].lo, card_w, tolerance)
    if not spans_a_card or edges[-2].share >= min(edges[-1].share, edges[-3].share):
        return edges
    return edges[:-2] + edges[-1:]


PRINTED_SHARE = 0.75
"""An edge inside the row closer than ``min_strip_mm`` to the edge before or after it, and weaker
than this share of both, is print on a card (film 126: a covered gladiola's stem, 0.52 on edges
beside card edges of 0.85, 8 mm from the next card's; the row was dropped)."""


def _printed_between(edges: list[_Edge], min_gap: float) -> list[_Edge]:
    """``edges`` without those printed on a covered card (see :data:`PRINTED_SHARE`)."""
    out = list(edges)
    k = 1
    while k < len(out) - 1:
        before, edge, after = out[k - 1], out[k], out[k + 1]
        # (gaps between the nearest columns of the edges: a card's outline and its printed border
        # line are one edge, film 132's gladiola stem 42 px from the next card's border line but 30
        # from its outline; the row was dropped)
        if (min(edge.lo - before.hi, after.lo - edge.hi) < min_gap
                and edge.share < PRINTED_SHARE * min(before.share, after.share)):
            del out[k]
        else:
            k += 1
    return out


def _row_view(found: list[_Edge], card_w: float, tolerance: float) -> tuple[list[_Edge], bool] | None:
    """A strip's card edges ``found``, when the strip ends with the top card (the last two edges
    ``card_w`` apart within ``tolerance``, the first two less), else None; with whether an edge on
    the top card had to be left out for it (see :func:`_printed_on_top`)."""
    edges = _printed_on_top(found, card_w, tolerance)
    if len(edges) < 3:
        return None
    last = edges[-1].hi - edges[-2].lo
    first = edges[1].hi - edges[0].lo
    if not _a_card_wide(last, card_w, tolerance) or first >= last * (1 - tolerance / 2):
        return None
    return edges, len(edges) < len(found)


def _card_w_from_heights(strip: _Strip, edges: list[_Edge], config: HandConfig) -> float | None:
    """A card's width (strip pixels) from the height most of the cards between ``edges`` show
    (a top and a bottom edge that far apart, see :func:`_outer_rows`, within
    :data:`HEIGHT_FIT`: the cards lie higher and lower, so their outermost edges are not one
    card's); None when fewer than two show one."""
    ppm = config.px_per_mm
    spans = []
    for edge, after in zip(edges, edges[1:]):
        tops, bottoms = _outer_rows(strip.image, int(edge.x + 1.5 * ppm), int(after.x - 1.5 * ppm), strip.band,
                                    ROW_REACH_MM * ppm, math.tan(math.radians(edge.slant)))
        spans.append(sorted({b - t for t in tops for b in bottoms if b > t}))
    options = sorted({h for heights in spans for h in heights})

    def shown_by(height: float) -> int:
        return sum(any(abs(h / height - 1) < HEIGHT_FIT for h in heights) for heights in spans)

    best = max(options, key=lambda h: (shown_by(h), h), default=None)
    if best is None or shown_by(best) < 2:
        return None
    return best * CARD_W_MM / CARD_H_MM


SAME_WIDTH = 0.02
"""Relative difference under which a card width measured from the cards' heights is not tried
after the row box's."""


class _RowStrips:
    """A row rectangle warped either way (``turn``: rotated by 180 degrees), with the card edges
    found along it; each way warped when first asked for (``ways``: given instead)."""

    def __init__(self, image: np.ndarray, box: np.ndarray, config: HandConfig,
                 ways: dict[bool, tuple[_Strip, list[_Edge]]] | None = None) -> None:
        self._image, self._box, self._config = image, box, config
        self._ways = dict(ways or {})

    def way(self, turn: bool) -> tuple[_Strip, list[_Edge]]:
        if turn not in self._ways:
            config = self._config
            strip = _warp_strip(self._image, self._box, config, turn)
            found = _printed_between(_edges(*_edge_profile(strip.image, strip.band, config), config),
                                     config.min_strip_mm * config.px_per_mm)
            self._ways[turn] = (strip, found)
        return self._ways[turn]


def _oriented_strip(row: _RowStrips, config: HandConfig,
                    measured: bool = False) -> tuple[_Strip, list[_Edge], float] | None:
    """The row's strip, turned so that it ends with the top card, its card edges and a card's
    width in it; None when neither way ends with one. A way that needs no edge left out on its
    top card is taken first (film 148: a row box taller than the cards made them look narrow,
    and two steps at the row's far end, the edge between them left out, looked like a top card;
    the top card lay at the strip's start, a gladiola's stem on it); else the first that ends
    with one. The card's width is taken from the row box's height (the cards' height), or with
    ``measured`` from the cards' heights measured in the strip (a camera looking at the table
    aslant: the cards lie higher and lower in a box taller than they are, and look narrower;
    the top card no card wide for the box)."""
    card_w = CARD_W_MM * config.px_per_mm
    if measured:
        from_heights = _card_w_from_heights(*row.way(False), config)
        if from_heights is None or abs(from_heights / card_w - 1) < SAME_WIDTH:
            return None  # (no other width to try)
        card_w = from_heights
    views = []
    for turn in (False, True):
        strip, found = row.way(turn)
        view = _row_view(found, card_w, config.whole_tolerance)
        if view is not None:
            edges, left_out = view
            if not left_out:
                return strip, edges, card_w  # (the other way is not warped at all)
            views.append((strip, edges))
    return (*views[0], card_w) if views else None


def _read_row(image: np.ndarray, box: np.ndarray, config: HandConfig,
              oriented: tuple[_Strip, list[_Edge], float]) -> ShownHand | None:
    """Read the cards of one row rectangle, or None when it is no row of cards (``oriented``: its
    strip as :func:`_oriented_strip` gives it)."""
    ppm = config.px_per_mm
    strip, strip_edges, card_w = oriented
    edges = list(strip_edges)  # (changed below; the strip's own list stays as found)
    grad, darker = _side_steps(strip.image)
    # the first card lies on the table, not on a card: its outline may be weaker than its printed
    # border line (a light table square beside it), so its edge starts at the group's first peak
    edges[0] = _Edge(edges[0].x, min(edges[0].lo, edges[0].first), edges[0].hi, edges[0].slant, edges[0].share,
                     edges[0].first)
    # (the first card keeps every step: the table beside it may be lighter or darker than its border)
    lines = [_fit_line(grad if k == 0 else darker, strip.band, e, ppm) for k, e in enumerate(edges[:-1])]
    end = edges[-1]
    lines.append((end.hi, math.tan(math.radians(end.slant))))
    if not _a_card_wide(lines[-1][0] - lines[-2][0], card_w, config.whole_tolerance):
        return None
    if len(lines) > 3 and _paper_share(strip.image, lines[0][0], lines[1][0], strip.band, lines[1][0], lines[2][0],
                                       ppm) < FIRST_PAPER:
        edges, lines = edges[1:], lines[1:]  # the first "card" is the table: a line in it was taken for an edge
    lefts = [x for x, _ in lines]
    if any(q - p < config.min_strip_mm * ppm for p, q in zip(lefts, lefts[1:])):
        return None
    # each card's top and bottom edges, looked for in its strip; their distance is the card's height
    candidates = [_outer_rows(strip.image, int(x + 1.5 * ppm), int(nxt - 1.5 * ppm), strip.band, ROW_REACH_MM * ppm, t)
                  for (x, t), nxt in zip(lines, lefts[1:])]
    heights = [r[1] - r[0] for r in (_card_rows(*c, None) for c in candidates) if r is not None]
    if not heights:
        return None
    outer = float(np.median(heights))
    hand = _cut_row(image, box, config, strip, edges, lines, candidates, outer, grad, darker)
    if hand is not None:
        return hand
    # the outermost edges may be a patterned table's (fresh film 173: blue-bordered cards on a
    # blue and white checked cloth, the checks' edges a few millimetres above and below the
    # cards taken for theirs, every crop cut 15% too tall and most cards left unread): cut the
    # row again at the edges nearest the height the top card's width gives seen square on
    square = (lines[-1][0] - lines[-2][0]) * CARD_H_MM / CARD_W_MM
    if abs(outer / square - 1) < SQUARE_HEIGHT_OFF:
        return None
    near = [r[1] - r[0] for r in (_card_rows(*c, square, SQUARE_HEIGHT_FIT) for c in candidates) if r is not None]
    if len(near) < max(2, len(candidates) / 2):
        return None
    return _cut_row(image, box, config, strip, edges, lines, candidates, float(np.median(near)), grad, darker)


SQUARE_HEIGHT_OFF = 0.08
"""Smallest relative difference between a row's height from its cards' outermost edges and the
height its top card's width gives (seen square on) for an unread row to be cut again nearer the
latter (see :func:`_read_row`)."""
SQUARE_HEIGHT_FIT = 0.08
"""Largest relative difference from the height the top card's width gives for a card's top and
bottom edges to count towards the height the row is cut again at."""


def _cut_row(image: np.ndarray, box: np.ndarray, config: HandConfig, strip: _Strip, edges: list[_Edge],
             lines: list[tuple[float, float]], candidates: list[tuple[list[float], list[float]]], height: float,
             grad: np.ndarray, darker: np.ndarray) -> ShownHand | None:
    """Cut the row's cards at ``height`` (strip pixels) apart top and bottom edges and read them
    (see :func:`_read_row`: ``lines`` are the cards' left sides, then the top card's right side;
    ``candidates`` each card's top and bottom edge rows)."""
    ppm = config.px_per_mm
    mid = (strip.band[0] + strip.band[1] - 1) / 2
    lefts = [x for x, _ in lines]
    found = [_card_rows(*c, height) for c in candidates]
    fits = [r is not None for r in found]
    if sum(fits) < max(2, len(fits) / 2):
        return None  # no row of cards this size: a pile or a single card lying lengthwise
    width = height * CARD_W_MM / CARD_H_MM
    top_width = lines[-1][0] - lines[-2][0]
    if abs(top_width / width - 1) > TOP_WIDTH_TOLERANCE:
        return None  # the top card is no card of this height (a pile's pieces)
    # a camera looking at the table aslant shortens the cards' height more than their width: the
    # top card's own width, when wider, is the cards' width
    width = max(width, top_width)
    # each card's own top and bottom rows (None where not found): the cards of a row lie a few
    # millimetres higher or lower than each other, and a card covers only its own height
    spans: list[tuple[float, float] | None] = [r if ok else None for r, ok in zip(found, fits)]
    corner = CORNER_MM * ppm
    lines = [_fit_line(grad if k == 0 else darker, strip.band, e, ppm, (r[0] + corner, r[1] - corner))
             if r is not None else ln for k, (e, ln, r) in enumerate(zip(edges[:-1], lines[:-1], spans))] + lines[-1:]
    inverse = np.linalg.inv(strip.matrix)
    pieces: list[tuple[np.ndarray, float, bool, CardReading]] = []
    indices: list[_Index | None] = []
    def read_piece(corners: np.ndarray, covers: list, shown_mm: float,
                   whole: bool) -> tuple[tuple[np.ndarray, float, bool, CardReading], _Index | None]:
        pts = np.column_stack([corners, np.ones(4)]) @ inverse.T
        quad_img = pts[:, :2] / pts[:, 2:3]
        crop = _card_crop(image, quad_img)
        hidden = None if whole else _hidden_mask(corners, covers, mid, config.hidden_margin_mm * ppm)
        reading = _read_piece(crop, hidden, shown_mm, config)
        # (only a covered walk with a value is checked, or tells where two-digit indices begin)
        walk = reading.kind is CardKind.WALK and reading.value is not None
        return (quad_img, shown_mm, whole, reading), (_first_index(crop, hidden) if hidden is not None and walk else None)

    def corners_at(x_mid: float, t: float, top: float) -> np.ndarray:
        """A card's corners in the strip, its left side through ``x_mid`` (at the band's middle)
        with slope ``t``, its top edge at row ``top``."""
        a = math.atan(t)
        right_v = np.array([math.cos(a), -math.sin(a)])
        down_v = np.array([math.sin(a), math.cos(a)])
        top_left = np.array([x_mid + t * (top - mid), top])
        return np.array([top_left, top_left + width * right_v, top_left + width * right_v + height * down_v,
                         top_left + height * down_v])

    cuts: list[tuple[float, list, float, bool]] = []  # each card's top row, covers, shown_mm, whole
    slanting: list[int] = []  # the covered cards whose side slants (see ``LEVEL_SLANT_DEG``)
    for i, (x_mid, t) in enumerate(lines[:-1]):
        whole = i == len(lines) - 2
        shown_px = min(width, lines[i + 1][0] - x_mid)
        rows = found[i]
        top = (rows[0] + rows[1]) / 2 - height / 2 if rows is not None and fits[i] else mid - height / 2
        corners = corners_at(x_mid, t, top)
        shown_mm = CARD_W_MM if whole else min(CARD_W_MM, shown_px / width * CARD_W_MM)
        covers = [(lines[j], spans[j]) for j in range(i + 1, len(lines) - 1)]
        cuts.append((top, covers, shown_mm, whole))
        piece, index = read_piece(corners, covers, shown_mm, whole)
        pieces.append(piece)
        indices.append(index)
        if sum(p[3].kind is CardKind.UNKNOWN for p in pieces) > (1 - ROW_READ) * (len(lines) - 1):
            return None  # too few cards can be read for a shown hand (see :func:`read_hands`)
        if not whole and abs(t) >= math.tan(math.radians(LEVEL_SLANT_DEG)):
            slanting.append(i)
    # a row of cards (read at least half, or given up above): each unread one whose side slants a
    # few degrees cut again with its top and bottom edges level, as a side may slant by
    # perspective alone (film 133: the row's first cards near the frame's corner, their sides
    # slanting 10 degrees, their crops turned by as much and left unread); so is each gladiola or
    # FINISH read without its blister count (fresh film 150's F6, its sides slanting 9 degrees and
    # its top edge level: the turned crop's upper right corner 5 mm above the card, the plaster
    # row searched too high), and the level crop's count taken when it reads the same card
    for i in slanting:
        first = pieces[i][3]
        uncounted = first.kind in LEVEL_RECOUNT_KINDS and first.blisters is None
        if first.kind is CardKind.UNKNOWN or uncounted:
            (x_mid, t), (top, covers, shown_mm, _) = lines[i], cuts[i]
            top_left = corners_at(x_mid, t, top)[0]
            level = np.array([top_left, top_left + (width, 0.0), top_left + (width + t * height, height),
                              top_left + (t * height, height)])
            piece, index = read_piece(level, covers, shown_mm, False)
            again = piece[3]
            if not uncounted:
                better = again.kind is not CardKind.UNKNOWN
            else:
                # (a level FINISH crop's band may run along the chequer's lower edge: a count no
                # FINISH of the deck has is print)
                better = (again.kind is first.kind and again.value == first.value and again.blisters is not None
                          and (again.kind is not CardKind.FINISH or again.blisters in config.finish_blisters))
            if better:
                pieces[i], indices[i] = piece, index
    # each card still unread cut again at the other top and bottom edges its strip shows (the
    # nearest first): the pair nearest the cards' height apart may be a neighbour's edges (fresh
    # film 159's W30, lying 14 strip pixels higher than the cards beside it: cut at their top
    # edge, its index was cut off at the top and it went unread, its hand not named)
    for i, (x_mid, t) in enumerate(lines[:-1]):
        if pieces[i][3].kind is not CardKind.UNKNOWN:
            continue
        top, covers, shown_mm, whole = cuts[i]
        tops, bottoms = candidates[i]
        others = sorted({y for y in tops + [b - height for b in bottoms] if abs(y - top) >= OTHER_EDGE_MM * ppm},
                        key=lambda y: abs(y - top))
        for other in others:
            piece, index = read_piece(corners_at(x_mid, t, other), covers, shown_mm, whole)
            if piece[3].kind is not CardKind.UNKNOWN:
                pieces[i], indices[i] = piece, index
                break
    readings = _lone_digits_checked([p[3] for p in pieces], indices, config.deck)
    cards = [HandCard(quad=Quad.from_array(quad_img), shown_mm=shown_mm, whole=whole, kind=reading.kind,
                      value=reading.value, blisters=reading.blisters, flipped=reading.flipped,
                      confidence=reading.confidence, field_confidences=reading.field_confidences)
             for (quad_img, shown_mm, whole, _), reading in zip(pieces, readings)]
    return ShownHand(Quad.from_array(box), tuple(cards))


def read_hands(image: np.ndarray, config: HandConfig = HandConfig()) -> tuple[ShownHand, ...]:
    """Find every shown row of overlapping cards in a BGR frame and read its cards."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8 \
            or min(image.shape[:2]) < 32:
        raise HandInputError(f"expected a BGR uint8 image of at least 32x32 pixels, got "
                             f"{getattr(image, 'shape', type(image).__name__)} {getattr(image, 'dtype', '')}")
    hands: list[ShownHand] = []
    unoriented: list[tuple[np.ndarray, _RowStrips]] = []

    def read(box: np.ndarray, oriented: tuple[_Strip, list[_Edge], float]) -> None:
        hand = _read_row(image, box, config, oriented)
        if hand is not None and sum(c.kind is not CardKind.UNKNOWN for c in hand.cards) >= ROW_READ * hand.count:
            hands.append(hand)

    def read_already(box: np.ndarray) -> bool:
        # (a region found again after parting)
        centre = tuple(float(v) for v in box.mean(axis=0))
        return any(cv2.pointPolygonTest(h.quad.as_array().astype(np.float32), centre, False) >= 0 for h in hands)

    for box in _rows(image, config):
        if read_already(box):
            continue
        row = _RowStrips(image, box, config)
        oriented = _oriented_strip(row, config)
        if oriented is None:
            unoriented.append((box, row))
        else:
            read(box, oriented)
    # when no row is found so, the boxes no card wide for their height, with the width the
    # cards' heights give (after all the others: a box read so could hide the right box of the
    # same row; and only then, as reading the piles' boxes so costs a third of the time)
    for box, row in unoriented if not hands else ():
        if not read_already(box) and (oriented := _oriented_strip(row, config, measured=True)) is not None:
            read(box, oriented)
    return tuple(hands)


__all__ = ["HandCard", "HandConfig", "HandInputError", "ShownHand", "border_at_left", "ink_before_index", "read_covered",
           "read_hands"]
