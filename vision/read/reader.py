"""Reading one rectified card: kind, which end is up, km value, blisters, year/date, income halves.

Input is a portrait crop (any size; it is resized to ``READ_W x READ_H``) whose top may be the
card's top or bottom. Everything works on structure that survives a change of print style:

1. Ink: pixels much darker than the local paper (gray divided by a dilated background), split
   into connected components. Large components of digit height are glyph candidates; they are
   grouped into horizontal lines.
2. Both ends are tried. In each, the layouts the decks use are looked for: a corner index in the
   top-left corner (Via Gladiola walk/FINISH; the same index is printed turned round in the
   opposite corner, so both ends give a vote; a lone digit counts only where a one-digit value
   is printed, centred in its box with paper beside it, and an index cut by the crop's side not
   at all: either may be what is left of a two-digit number), a 4-digit year centred in the
   upper half (Valais date side), a digit top-left and one left just below the middle (Via Appia income),
   a lone centred "0" near the top (START).
3. Digits are matched against font templates (:mod:`vision.read.glyphs`) and decoded only to
   values the deck can hold (:class:`~vision.read.types.Deck`). Blur thins a 3's or a 4's arms
   below the ink threshold and leaves a stem that matches a 1: a glyph read as 1 whose faint ink
   reaches well past it is read again from that faint shape, and a number whose reading then
   changes is refused (at that end; the other end's reading may then not stand alone); the two
   1s of an 11 must look alike. Via Appia income counts are checked against the symbols printed
   beside them (stones above, coins below): surely more symbols than the count refuses it.
4. Blisters are counted in the band where the card's kind prints its plaster row (once the
   kind and which end is up are known), looked for a few millimetres around its printed place:
   columns that differ from the paper just above and below the row give the row's length and
   its pieces (halves split by a plaster's pale pad joined); evenly spaced plaster-long pieces
   give the count whatever the crop's scale, else the length does at the printed pitch (unless
   the waists of merged pieces count fewer: motion smears a row out along its length). A
   count is sure only when the row is centred on the card (the paper beside it shows where its
   edges are) and its marks are light. A clean band is a zero only on a sharp, unglared card
   whose lower corner index is seen and that shows no plaster colour elsewhere.
5. Cards without digits are told apart by colour and layout: a gladiola (large red blossoms on
   the centre line, in the upper half of the card), an event picture (the upper or lower two
   thirds off the paper colour), a bare stone tile (grey, no print). Anything that fits nothing
   well is ``unknown``.

Which end is up comes from the layout: for walk cards the interval rows sit above the middle,
their solid marks end on the right and the blister row lies below; for dates and income cards
the end that reads. Confidences are products of glyph scores, margins and agreement between the
two ends, lowered by a blur gate (a soft print reads only on clear glyphs); callers compare them
with :data:`ACCEPT` and drop fields below it (abstain) rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.read.glyphs import by_holes, classify_all, normalise
from vision.read.types import CardReading, Deck, Face, TileSize
from vision.types import CardDate, CardKind, FieldConfidences

READ_W, READ_H = 240, 368
ACCEPT = 0.5
"""Field confidence below which a field is reported as None."""
INK_MARGIN = 4
"""Pixels along the crop's sides never taken as ink (the table or a neighbour past the quad)."""
LONE_CX = (0.17, 0.33)
"""Where (fraction of the card's width) the centre of a one-digit corner index may lie: the digit
is centred in its box; a glyph left or right of that is one digit of a two-digit number (on the
tuning sets lone digits read right lay at 0.19-0.32, lost-digit readings below 0.17 or above 0.33)."""
CUT_SLACK = 3
"""A glyph starting within this many pixels of the ink margin runs into the crop's side (a quad
edge a few pixels inside the card leaves the cut stroke there, not on the margin itself)."""
SLIVER_WIDTH, SLIVER_TALL = 0.2, 1.25
"""A glyph at the crop's side narrower than ``SLIVER_WIDTH`` x its height and more than
``SLIVER_TALL`` times as tall as the glyphs beside it is a piece of the card's frame."""
LONE_BESIDE_H, LONE_BESIDE_INK = 0.6, 0.2
"""A one-digit index is doubtful when more than ``LONE_BESIDE_INK`` of the strip ``LONE_BESIDE_H`` x its
height wide on either side of it is ink (a one-digit value has paper there)."""


@dataclass(frozen=True)
class Blob:
    """One connected ink component in crop pixels (x0, y0 inclusive; x1, y1 exclusive)."""

    label: int
    x0: int
    y0: int
    x1: int
    y1: int
    area: int

    @property
    def w(self) -> int:
        return self.x1 - self.x0

    @property
    def h(self) -> int:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    def turned(self, width: int, height: int) -> Blob:
        """The same blob in the crop turned by 180 degrees."""
        return Blob(self.label, width - self.x1, height - self.y1, width - self.x0, height - self.y0, self.area)


@dataclass(frozen=True)
class ValueVote:
    """A decoded number with its confidence and the runner-up's confidence gap."""

    value: int
    score: float
    margin: float


@dataclass
class _Analysis:
    """Per-crop intermediate results shared by the layout checks (internal, mutable)."""

    gray: np.ndarray
    bgr: np.ndarray
    ink: np.ndarray
    labels: np.ndarray
    blobs: list[Blob]
    glyphs: list[Blob]
    paper: np.ndarray
    sharp: float
    """1 when the darkest ink is near black (a sharp print), 0 when blur has washed it out."""
    lab: np.ndarray
    """The crop in CIE Lab (uint8, OpenCV's scaling), converted once for the colour checks."""
    paper_lab: np.ndarray
    """The paper colour in Lab (float32, same scaling)."""
    loose: np.ndarray | None = None
    """Labels of the faint-ink components (gray/background < 0.8) that the ink blobs lie in."""


def _ink(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink mask (uint8 0/1) and gray/background ratio: ink is much darker than the paper around it."""
    small = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    bg = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (13, 13)))
    bg = cv2.resize(cv2.blur(bg, (9, 9)), (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
    ratio = gray.astype(np.float32) / np.maximum(bg.astype(np.float32), 1.0)
    ink = (ratio < 0.62).astype(np.uint8)
    return ink, ratio


def analyse(card: np.ndarray) -> _Analysis:
    """Resize a BGR (or gray) crop to the reading size and find its ink components."""
    if card.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    bgr = cv2.resize(card, (READ_W, READ_H), interpolation=cv2.INTER_AREA if card.shape[1] > READ_W
                     else cv2.INTER_LINEAR)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    ink, ratio = _ink(gray)
    margin = INK_MARGIN
    ink[:margin, :] = 0
    ink[-margin:, :] = 0
    ink[:, :margin] = 0
    ink[:, -margin:] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    blobs = [Blob(i, int(s[0]), int(s[1]), int(s[0] + s[2]), int(s[1] + s[3]), int(s[4]))
             for i, s in enumerate(stats) if i > 0 and s[4] >= 6]
    blobs, loose = _merge_fragments(blobs, labels, ratio)
    glyphs = [b for b in blobs if 0.065 * READ_H <= b.h <= 0.2 * READ_H and 0.02 * READ_W <= b.w <= 0.3 * READ_W
              and 0.12 <= b.area / max(1, b.w * b.h) <= 0.85 and b.w <= 1.1 * b.h]
    bright = gray > np.percentile(gray, 60)
    paper = np.median(bgr[bright], axis=0) if bright.any() else np.array([255, 255, 255])
    inner = ratio[int(0.05 * READ_H): int(0.95 * READ_H), int(0.08 * READ_W): int(0.92 * READ_W)]
    darkest = float(np.percentile(inner, 0.5))
    sharp = float(np.clip((0.5 - darkest) / 0.2, 0.0, 1.0))
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    paper_lab = cv2.cvtColor(paper.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)[0, 0]
    return _Analysis(gray, bgr, ink, labels, blobs, glyphs, paper, sharp, lab, paper_lab, loose)


GLYPH_JOIN_H = 0.25
"""Tallest piece (share of the crop's height) that may be joined to others as one glyph: a
taller one is the card's frame or an arm that faint ink connects to a digit; it stays apart
(joined, the digit vanished into it)."""


def _merge_fragments(blobs: list[Blob], labels: np.ndarray, ratio: np.ndarray) -> tuple[list[Blob], np.ndarray]:
    """Join pieces of one broken glyph (thin light strokes fall apart under the ink threshold).

    Pieces are joined when a fainter ink level (gray/background < 0.8) connects them and the
    union is still shaped like one glyph (no wider than 0.9 x its height). Merged pixels take
    the first piece's label in ``labels`` (changed in place). Also returns the labels of the
    fainter ink level's components.
    """
    loose = (ratio < 0.8).astype(np.uint8)
    _, loose_labels = cv2.connectedComponents(loose, connectivity=8)
    inked = labels > 0
    owner = np.zeros(int(labels.max()) + 1, np.int64)
    owner[labels[inked]] = loose_labels[inked]
    groups: dict[int, list[Blob]] = {}
    for b in blobs:
        groups.setdefault(int(owner[b.label]), []).append(b)
    out: list[Blob] = []
    for parts in groups.values():
        # a part taller than any glyph (the card's frame, an arm) stays apart: the rest may
        # still be the pieces of one glyph
        tall = [b for b in parts if b.h > GLYPH_JOIN_H * labels.shape[0]]
        out.extend(tall)
        parts = [b for b in parts if b not in tall]
        if len(parts) <= 1:
            out.extend(parts)
            continue
        parts.sort(key=lambda b: b.x0)
        x0, y0 = min(b.x0 for b in parts), min(b.y0 for b in parts)
        x1, y1 = max(b.x1 for b in parts), max(b.y1 for b in parts)
        h = y1 - y0
        if h < 12 or x1 - x0 > 0.9 * h or len(parts) > 4 or max(b.h for b in parts) < 0.6 * h:
            out.extend(parts)
            continue
        first = parts[0]
        for b in parts[1:]:
            region = labels[b.y0:b.y1, b.x0:b.x1]
            region[region == b.label] = first.label
        out.append(Blob(first.label, x0, y0, x1, y1, sum(b.area for b in parts)))
    return out, loose_labels


def _lines(glyphs: list[Blob]) -> list[list[Blob]]:
    """Group glyph blobs into horizontal text lines (left to right): similar height and baseline,
    small gaps."""
    lines: list[list[Blob]] = []
    for b in sorted(glyphs, key=lambda b: b.x0):
        for line in lines:
            last = line[-1]
            overlap = min(last.y1, b.y1) - max(last.y0, b.y0)
            if (overlap > 0.7 * min(last.h, b.h) and 0.7 <= b.h / last.h <= 1.43
                    and -0.15 * last.h <= b.x0 - last.x1 <= 0.6 * max(last.h, b.h)):
                line.append(b)
                break
        else:
            lines.append([b])
    return lines


def _masks(a: _Analysis, blobs: list[Blob], turned: bool) -> list[np.ndarray]:
    """The binary mask of each blob, turned by 180 degrees when reading the other end."""
    out = []
    for b in blobs:
        m = (a.labels[b.y0:b.y1, b.x0:b.x1] == b.label).astype(np.uint8)
        out.append(m[::-1, ::-1] if turned else m)
    return out


FAINT_WIDER = 1.3
"""A glyph is a fragment when the faint ink around it (gray/background < 0.8) is more than this
times wider than its ink (plus 3 px): blur thins a 3's or 4's strokes below the ink threshold and
leaves only the stem, which reads as a 1."""


def _faint_masks(a: _Analysis, blobs: list[Blob], turned: bool, scores: np.ndarray,
                 opening: int = 3) -> list[np.ndarray] | None:
    """The glyphs' masks with each glyph read as a 1 that is a fragment replaced by its faint-ink
    shape (between its neighbours in the line), or None when there is no such fragment.

    ``blobs`` are one line's glyphs (crop coordinates, in reading order), ``scores`` their digit
    scores; the faint ink is opened by a square of ``opening`` pixels first (a card's thin frame
    lines touching a corner index go; a date line's small digits need a smaller square).
    """
    if a.loose is None:
        return None
    masks = _masks(a, blobs, turned)
    found = False
    boxes = [(b.x0, b.x1) for b in blobs]
    for k, b in enumerate(blobs):
        if int(np.argmax(scores[k])) != 1:
            continue  # (only the narrow 1 is what a thick stem left alone looks like)
        strict = a.labels[b.y0:b.y1, b.x0:b.x1] == b.label
        ids = a.loose[b.y0:b.y1, b.x0:b.x1][strict]
        ids = ids[ids > 0]
        if not len(ids):
            continue
        owner = int(np.bincount(ids).argmax())
        # (neighbour glyphs may overlap the box: the window then stops at the glyph's own side)
        left = max([min(x1, b.x0) for x0, x1 in boxes if (x0 + x1) / 2 < b.cx] + [int(b.x0 - 0.5 * b.h), 0])
        right = min([max(x0, b.x1) for x0, x1 in boxes if (x0 + x1) / 2 > b.cx]
                    + [int(np.ceil(b.x1 + 0.5 * b.h)), READ_W])
        y0, y1 = max(0, int(b.y0 - 0.15 * b.h)), min(READ_H, int(np.ceil(b.y1 + 0.15 * b.h)))
        window = (a.loose[y0:y1, left:right] == owner).astype(np.uint8)
        window = cv2.morphologyEx(window, cv2.MORPH_OPEN, np.ones((opening, opening), np.uint8))  # (thin frame lines)
        window[:, window.mean(axis=0) > 0.95] = 0  # a border joined to the glyph
        _, parts = cv2.connectedComponents(window, connectivity=8)
        kept = parts[b.y0 - y0: b.y1 - y0, b.x0 - left: b.x1 - left][strict]
        window = np.isin(parts, kept[kept > 0])  # the faint shape joined to the glyph itself
        cols = np.nonzero(window.any(axis=0))[0]
        if len(cols) and cols[-1] - cols[0] + 1 > FAINT_WIDER * b.w + 3:
            m = window.astype(np.uint8)
            masks[k] = m[::-1, ::-1] if turned else m
            found = True
    return masks if found else None


ONES_ALIKE, ONES_ASPECT = 0.955, 1.11
"""Two 1s of one number are printed alike: their normalised shapes must correlate at least
``ONES_ALIKE`` and their widths/heights differ by at most the factor ``ONES_ASPECT`` (on blurred
renders true 11s scored 0.966 or more and within 1.10; a 3's or 4's stem beside a 1 at most
0.967, or widths 1.13 apart and more)."""


def _ones_alike(a: _Analysis, blobs: list[Blob], digits: str) -> bool:
    """Whether the two glyphs a corner index reads as 11 look like one another (the same print)."""
    ones = [b for b, d in zip(blobs, digits) if d == "1"]
    if len(ones) != 2 or len(digits) != 2 or len(blobs) != 2:
        return True
    (v1, aspect1), (v2, aspect2) = (normalise(m) for m in _masks(a, ones, False))
    ratio = aspect1 / max(aspect2, 1e-6)
    return float(v1 @ v2) >= ONES_ALIKE and 1 / ONES_ASPECT <= ratio <= ONES_ASPECT


ONES_SURE = 0.85
"""Template score as a 1 from which both glyphs of an index read 11 are printed 1s however unlike
their masks are: a 3's or 4's stem left by blur lacks the 1's flag and foot and scored at most
0.78 on the blurred renders; true 1s of the serif style in shown rows scored 0.86-0.95 while
their masks correlated only 0.87-0.91, one of them joined to the unit below or slanted by the
crop (fresh films 172 and 175: W11 refused at both ends, the hands unnamed)."""


def _ones_sure(scores: np.ndarray, digits: str) -> bool:
    """Whether every glyph an index reads as 1 scores at least :data:`ONES_SURE` as a 1 (``scores``
    one row of digit scores per glyph)."""
    ones = [k for k, d in enumerate(digits) if d == "1"]
    return len(ones) == scores.shape[0] and all(float(scores[k, 1]) >= ONES_SURE for k in ones)


def decode_value(scores: np.ndarray, allowed: list[int]) -> ValueVote | None:
    """Best number among ``allowed`` whose digits fill all glyph rows of ``scores`` (one per digit)."""
    n = scores.shape[0]
    cands = [v for v in allowed if len(str(v)) == n]
    if not cands or n == 0:
        return None
    totals = []
    for v in cands:
        digits = [int(c) for c in str(v)]
        totals.append(min(scores[i, d] for i, d in enumerate(digits)) * 0.5
                      + float(np.mean([scores[i, d] for i, d in enumerate(digits)])) * 0.5)
    order = np.argsort(totals)[::-1]
    best = float(totals[order[0]])
    second = float(totals[order[1]]) if len(order) > 1 else -1.0
    return ValueVote(cands[int(order[0])], best, best - second)


def glyph_confidence(vote: ValueVote | None) -> float:
    """Confidence in [0, 1] of a decoded number from its template score and margin."""
    if vote is None:
        return 0.0
    s = np.clip((vote.score - 0.45) / 0.3, 0.0, 1.0)
    m = np.clip(vote.margin / 0.12, 0.0, 1.0)
    return float(s * m)


@dataclass(frozen=True)
class _EndFindings:
    """What one end (as the top) shows."""

    corner: ValueVote | None
    corner_line: tuple[Blob, ...]
    year: ValueVote | None
    year_line: tuple[Blob, ...]
    income_top: ValueVote | None
    income_bottom: ValueVote | None
    start_zero: ValueVote | None
    index_seen: bool = False
    """A walk card's corner index is printed here, read or not (no gladiola card then)."""
    corner_doubtful: bool = False
    """``corner`` is a lone digit that may be what is left of a two-digit number: it counts only
    when the other end reads the same."""
    fragments: bool = False
    """A number here was refused because a glyph read as 1 is the stem of a blurred wider digit:
    the print is blurred enough that the other end's reading must not stand alone."""
    index_pair: bool = False
    """An index of two glyphs is seen here (read or not): what the other end reads as one digit
    may be what is left of it."""


YEAR_SLIVER = 0.6
"""A year's end glyph running into the crop's side and narrower than this share of the line's
other glyphs (median width) is what is left of a cut digit (see :func:`_sliver_at_side`)."""


def _sliver_at_side(g: Blob, others: list[Blob]) -> bool:
    """Whether glyph ``g`` of a year line runs into the crop's side and is much narrower than the
    ``others`` (see :data:`YEAR_SLIVER`)."""
    at_side = g.x0 <= INK_MARGIN + CUT_SLACK or g.x1 >= READ_W - INK_MARGIN - CUT_SLACK
    return at_side and bool(others) and g.w < YEAR_SLIVER * float(np.median([o.w for o in others]))


def _end(a: _Analysis, turned: bool, deck: Deck, kinds: frozenset[CardKind]) -> _EndFindings:
    """Look for each layout with the crop's top (``turned=False``) or bottom as the card's top."""
    W, H = READ_W, READ_H
    glyphs = [g.turned(W, H) if turned else g for g in a.glyphs]
    by_label = {g.label: g for g in a.glyphs}
    lines = _lines(glyphs)
    corner = year = inc_top = inc_bottom = zero = None
    index_seen = index_pair = False
    corner_line: tuple[Blob, ...] = ()
    corner_doubtful = False
    fragments = False
    year_line: tuple[Blob, ...] = ()

    def read(line: list[Blob], allowed: list[int], keep_refused: bool = False) -> ValueVote | None:
        """The number a line reads as, or None; a number refused because blur thinned a digit to
        its stem is None, or kept at zero score with ``keep_refused`` (the layout was seen, so
        the card is not handed to a fallback reader that would guess from the same print)."""
        nonlocal fragments
        originals = [by_label[g.label] for g in line]
        masks = _masks(a, originals, turned)
        scores = by_holes(masks, classify_all(masks))
        vote = decode_value(scores, allowed)
        if vote is None:
            return None
        # one of two 1s is a wider digit's stem, unless both match a printed 1 closely
        refused = not _ones_alike(a, originals, str(vote.value)) and not _ones_sure(scores, str(vote.value))
        if not refused:
            faint = _faint_masks(a, originals, turned, scores)
            if faint is not None:
                again = decode_value(by_holes(faint, classify_all(faint)), allowed)
                refused = again is None or again.value != vote.value  # thin strokes lost changed the digit
        if refused:
            fragments = True
            return ValueVote(vote.value, 0.0, 0.0) if keep_refused else None
        return vote

    walkish = kinds & {CardKind.WALK, CardKind.FINISH}
    others = [b.turned(W, H) if turned else b for b in a.blobs if b.h < 0.5 * H]

    def frame_sliver(b: Blob, beside: list[Blob]) -> bool:
        """Whether ``b`` is a piece of the card's printed frame cut off by the crop's side, not
        a digit: a thin upright stroke at the side, taller than the glyphs beside it (film 139's
        W17 on the pile, its quad 4 px wide of the card: the frame line stood beside the
        index at both ends and neither was read). A digit's stroke cut by the side is no taller
        than its neighbours (see ``cut``)."""
        at_side = b.x0 <= INK_MARGIN + CUT_SLACK or b.x1 >= W - INK_MARGIN - CUT_SLACK
        return (at_side and b.w < SLIVER_WIDTH * b.h and bool(beside)
                and b.h > SLIVER_TALL * max(g.h for g in beside))

    def crowded(line: list[Blob]) -> bool:
        """Unexplained ink right beside the line at its height: a digit that failed the glyph
        tests (a faint 1 before an 8 would make a 28 read as 8)."""
        x0, x1 = line[0].x0, line[-1].x1
        y0, y1 = min(g.y0 for g in line), max(g.y1 for g in line)
        h = y1 - y0
        labels = {g.label for g in line}
        for b in others:
            if b.label in labels or b.h < 0.35 * h or frame_sliver(b, line):
                continue
            overlap = min(b.y1, y1) - max(b.y0, y0)
            near = (x0 - 0.8 * h <= b.x1 <= x0 + 1) or (x1 - 1 <= b.x0 <= x1 + 0.8 * h)
            if near and overlap > 0.5 * h and b.w < 1.2 * h:
                return True
        return False

    ink = a.ink[::-1, ::-1] if turned else a.ink

    def lone_doubtful(line: list[Blob]) -> str:
        """Why a one-glyph corner index may be what is left of a two-digit number: ``place``
        (off its box's centre), ``beside`` (ink beside it), or "" when it is a sure one-digit value.

        A one-digit value is printed centred in the index box (its centre 0.24-0.28 of the card's
        width across the decks' styles); the first digit of a two-digit number lies left of that,
        the second right of it. A lone glyph outside that place, or with ink beside it at its
        height (a neighbour digit joined to the border or another card, or smeared by motion so
        it failed the glyph tests), is not read as a one-digit number. Ink beside it is seen
        at both ends alike (blur and a joined border are not one end's accident), so the two ends
        agreeing does not make up for it.
        """
        g = line[0]
        if not LONE_CX[0] * W <= g.cx <= LONE_CX[1] * W:
            return "place"
        reach = int(round(LONE_BESIDE_H * g.h))
        for lo, hi in ((g.x0 - 1 - reach, g.x0 - 1), (g.x1 + 1, g.x1 + 1 + reach)):
            side = ink[g.y0:g.y1, max(0, lo):max(0, min(W, hi))]
            if side.size and float(side.mean()) > LONE_BESIDE_INK:
                return "beside"
        return ""

    for line in lines:
        line = [g for g in line if not frame_sliver(g, [o for o in line if o is not g])] or line
        x0, y0 = line[0].x0, min(g.y0 for g in line)
        x1, y1 = line[-1].x1, max(g.y1 for g in line)
        h = y1 - y0
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        same_h = max(g.h for g in line) <= 1.15 * min(g.h for g in line)
        left_limit = (0.22 if len(line) == 2 else 0.3) * W  # a lone 1 sits right in its box
        if (walkish and len(line) <= 2 and x0 < 0.3 * W and y0 < 0.16 * H and 0.075 * H < h < 0.2 * H
                and x1 - x0 >= 0.45 * h):
            index_seen = True  # (looser than a reading: the quad may squeeze or cut the card)
            index_pair = index_pair or len(line) == 2
        if walkish and len(line) <= 2 and x0 < left_limit and y0 < 0.16 * H and 0.11 * H < h < 0.18 * H and same_h:
            allowed = sorted((deck.walk_values if CardKind.WALK in kinds else set())
                             | ({deck.finish_value} if CardKind.FINISH in kinds else set()))
            # a narrow first glyph running into the crop's side may be what is left of a cut digit
            # (the stroke of a 4 reads as a 1)
            cut = x0 <= INK_MARGIN + CUT_SLACK and line[0].w < 0.6 * line[0].h
            vote = None if cut or crowded(line) else read(line, allowed)
            doubt = lone_doubtful(line) if vote and len(line) == 1 else ""
            if doubt == "beside":
                vote = None
            if vote and (corner is None or vote.score > corner.score):
                corner, corner_line = vote, tuple(line)
                corner_doubtful = doubt == "place"
        if (CardKind.TIMELINE in kinds and len(line) == 4 and abs(cx - W / 2) < 0.12 * W and 0.12 * H < cy < 0.5 * H
                and 0.12 * H < h < 0.22 * H and same_h):
            vote = read(line, list(range(deck.years[0], deck.years[1] + 1)), keep_refused=True)
            if vote and any(_sliver_at_side(g, [o for o in line if o is not g]) for g in (line[0], line[-1])):
                # a year's end digit cut by the crop's side (a sliver of an 8 reads as a 1: tuning
                # set 1095100, 1848 read as 1841 at 0.72 in a quad cut short)
                vote = ValueVote(vote.value, 0.0, 0.0)
            if vote and (year is None or vote.score > year.score):
                year, year_line = vote, tuple(line)
        if CardKind.INCOME in kinds and len(line) == 1 and x0 < 0.2 * W and 0.11 * H < h < 0.2 * H:
            allowed = list(range(deck.income_counts[0], deck.income_counts[1] + 1))
            if y0 < 0.16 * H:
                inc_top = read(line, allowed)
            elif 0.5 * H < y0 < 0.66 * H:
                inc_bottom = read(line, allowed)
        if (CardKind.START in kinds and len(line) == 1 and abs(cx - W / 2) < 0.08 * W and 0.1 * H < cy < 0.35 * H
                and 0.11 * H < h < 0.18 * H):
            # decoded among all digits: a 9 or 6 of a walk card seen off-centre must not pass as the 0
            vote = read(line, list(range(10)))
            zero = vote if vote is not None and vote.value == deck.start_value else None
    return _EndFindings(corner, corner_line, year, year_line, inc_top, inc_bottom, zero, index_seen, corner_doubtful,
                        fragments, index_pair)


# ------------------------------------------------------------------------------------------------
# Blisters


def _blister_mask(a: _Analysis) -> np.ndarray:
    """Pixels whose colour is a light orange-beige clearly more saturated than the paper."""
    lab = a.lab.astype(np.int16)
    paper_lab = a.paper_lab.astype(np.int16)
    d = lab - paper_lab
    light = lab[..., 0] > 0.55 * paper_lab[0]
    warm = (d[..., 2] > 9) & (d[..., 1] > 1) & (d[..., 1] < 30) & (d[..., 2] > d[..., 1])
    return (light & warm).astype(np.uint8)


def count_blisters(a: _Analysis) -> tuple[int, float, float | None]:
    """Number of plaster symbols, confidence, and the row's vertical centre (fraction of height)
    or None when there is no row.

    Plaster interiors are found by colour; a plaster's pale middle pad may split it in two and
    blur may merge neighbours, so the count comes from the row's length in card millimetres
    (each symbol is 8.2 mm long with 1.6 mm gaps at print scale), checked by the piece count.
    Finding no plaster at all gives a zero below :data:`ACCEPT` (not a reading).
    """
    mask = _blister_mask(a)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    mm = 91.0 / READ_H
    unit_h = 3.3 / mm
    cands = []
    for s in stats[1:]:
        x, y, w, h, area = (int(v) for v in s)
        if 0.5 * unit_h <= h <= 1.7 * unit_h and 0.3 * unit_h <= w and area >= 0.45 * w * h:
            cands.append((x, y, w, h))
    if not cands:
        # no plaster anywhere is not a sure zero here: without the kind, the row's place is not
        # known, and a row outside the crop or washed out by glare or motion looks the same
        return 0, min(0.4, 0.8 * a.sharp), None
    best: list[tuple[int, int, int, int]] = []
    for ref in cands:
        cy = ref[1] + ref[3] / 2
        row = [c for c in cands if abs(c[1] + c[3] / 2 - cy) < 0.5 * unit_h]
        if sum(c[2] * c[3] for c in row) > sum(c[2] * c[3] for c in best):
            best = row
    left = min(c[0] for c in best)
    right = max(c[0] + c[2] for c in best)
    total = ((right - left) * mm + 2.1) / 9.8
    count = max(1, int(round(total)))
    frac = abs(total - count)
    centred = abs((left + right) / 2 - READ_W / 2) < 0.08 * READ_W
    pieces = len(best)
    consistent = pieces in (count, 2 * count) or pieces < count
    conf = float(np.clip(1.0 - 2.5 * frac, 0, 1)) * (1.0 if centred else 0.3) * (1.0 if consistent else 0.6)
    cy = float(np.median([c[1] + c[3] / 2 for c in best])) / READ_H
    return count, conf, cy


BLISTER_ROW_MM: dict[CardKind, float] = {CardKind.WALK: 58.5, CardKind.FINISH: 50.0, CardKind.GLADIOLA: 72.0,
                                         CardKind.START: 70.0}
"""Top edge of the blister row (mm from the card's top, on a 59 x 91 mm card) by kind."""
BLISTER_SEARCH_MM = 3.0
"""How far (mm) above and below its printed place the blister row is looked for (quad error
moves it by a few millimetres in the crop; nothing else warm is printed that close)."""
CARD_W_MM, CARD_H_MM = 59.0, 91.0
BLISTER_MM, BLISTER_GAP_MM, BLISTER_H_MM = 8.2, 1.6, 3.8
ROW_CENTRE_MM = 2.5
"""Largest distance (mm) between the row's centre and the card's centre line for a count to be
sure: one plaster more or less at an end moves the centre by 4.9 mm."""
DARK_MARKS = 0.3
"""Largest share of a row's marks darker than 0.6 x the paper's lightness for them to be plasters
(on the tuning sets, rows counted right showed at most 0.32, print taken for plasters 0.38 and
more)."""


def _warm(lab: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Pixels (Lab, float) more yellow than the paper without being red or green: plaster colour."""
    d = lab - paper
    return (d[..., 2] > 4) & (d[..., 1] > -4) & (d[..., 1] < 30) & (d[..., 2] + 4 > d[..., 1])


def _row_window(lab: np.ndarray, paper: np.ndarray, win: int, expected: int, reach: int) -> int:
    """First row of the ``win``-high window holding the plaster row within a tall band.

    Windows are ranked by their share of plaster-coloured pixels, judged against each column's
    median colour in the band (mostly paper: light gradients and glare cancel out), ties broken
    towards the printed place ``expected`` (windows start at most ``reach`` rows from it); a band
    with hardly any warm pixel keeps the window where off-paper pixels are densest near
    ``expected``.
    """
    ref = cv2.blur(np.median(lab, axis=0)[None, :, :], (15, 1))[0]
    warm = _warm(lab, ref[None, :, :]).mean(axis=1).astype(np.float32)
    kernel = np.ones(win, np.float32)
    warm_p = np.convolve(warm, kernel, mode="valid")
    if not len(warm_p):
        return 0
    idx = np.arange(len(warm_p))
    near = np.where(np.abs(idx - expected) <= reach, 1.0 - 0.002 * np.abs(idx - expected), 0.0)
    if float((warm_p * near).max()) >= 0.05 * win:
        return int(np.argmax(warm_p * near))
    off = (((lab - paper) ** 2).sum(axis=2) > 22 ** 2).mean(axis=1).astype(np.float32)
    off_p = np.convolve(off, kernel, mode="valid")
    close = np.abs(idx - expected) <= max(1, win // 4)
    return int(np.argmax(np.where(close, off_p, -1.0)))


CHEQUER_ROW = 0.25
"""Least share of a band row's pixels darker than 0.6 x the paper for the row to be taken for a
FINISH banner's chequer (its squares darken half of each row; a plaster's outline is one short
dark line per plaster)."""


def _below_chequer(lab: np.ndarray, paper: np.ndarray, start: int, win: int, flipped: bool, reach: int) -> int:
    """A FINISH's row window moved off the banner's chequer where it took some of it in.

    The chequer ends 1 mm above the plaster row, so a quad a millimetre or two off puts it into
    the window, and with no plaster there (the densest print then being the chequer's squares)
    the window may settle on it: a card without plasters read as a dark, unreadable row. The
    window is moved to start past the last chequer row on the banner's side of the band (the
    band's upper half, or its lower half when ``flipped``), keeping room for the paper beyond.
    """
    dark_rows = (lab[..., 0] < 0.6 * paper[0]).mean(axis=1) > CHEQUER_ROW
    n = len(dark_rows)
    if flipped:
        rows = [i for i in range(n // 2, n) if dark_rows[i]]
        if rows and rows[0] < start + win:
            moved = rows[0] - 1 - win
            return moved if moved >= reach else start
        return start
    rows = [i for i in range(n // 2) if dark_rows[i]]
    if rows and rows[-1] >= start:
        moved = rows[-1] + 2
        return moved if moved + win + 1 + reach <= n else start
    return start


PAPER_HUE, PAPER_SHADE = 12.0, 0.75
"""A column beside the plaster row is paper in shade when its colour (Lab a, b) is within
``PAPER_HUE`` of the paper's and its lightness at least ``PAPER_SHADE`` of the paper's."""


def _paper_centre(sides: list[np.ndarray], paper: np.ndarray, at: float) -> float | None:
    """Centre column of the paper around column ``at``, judged in the rows just above and just
    below the plaster row (a column is paper when either side is: a title or a corner label
    may lie on one side), or None when the paper runs into a side of the crop (the card's edge
    is not seen there) or is implausibly narrow."""
    paperish = np.zeros(sides[0].shape[1], bool)
    for side in sides:
        med = np.median(side, axis=0)
        paperish |= ((med - paper) ** 2).sum(axis=1) < 25 ** 2
        # light falling off across the card darkens the paper without colouring it
        paperish |= ((((med[:, 1:] - paper[1:]) ** 2).sum(axis=1) < PAPER_HUE ** 2)
                     & (med[:, 0] >= PAPER_SHADE * paper[0]))
    n = len(paperish)
    c = int(np.clip(round(at), 0, n - 1))
    ends = []
    for step in (-1, 1):
        gap, end = 0, c
        x = c
        while 0 <= x < n and gap <= 3:
            gap = 0 if paperish[x] else gap + 1
            if paperish[x]:
                end = x
            x += step
        ends.append(end)
    left, right = ends
    if left <= 3 or right >= n - 4 or right - left < 0.6 * n:
        return None
    return (left + right + 1) / 2


def _join_halves(runs: list[list[int]], unit: float) -> list[list[int]]:
    """Runs of occupied columns joined where a plaster's pale middle pad split one in two: the
    next run is taken in while the joined span stays within one plaster (1.25 x its printed
    length; two whole plasters span twice that even in a magnifying crop)."""
    out: list[list[int]] = []
    for r in runs:
        if out and r[1] - out[-1][0] <= 1.25 * unit and r[0] - out[-1][1] <= 0.4 * unit:
            out[-1] = [out[-1][0], r[1]]
        else:
            out.append(list(r))
    return out


MERGED_DOUBT = 0.4
"""Confidence cap of a count from a merged row's length that its waists do not confirm."""

FIT_SCALES = np.arange(0.9, 1.121, 0.02)
"""Scales of the printed row tried by :func:`fit_row` (a quad a little off magnifies or
shrinks the card in the crop by a few per cent)."""
FIT_EDGE_PX = 3.0
"""Width (px) of the soft edge of each plaster in the row model (blur spreads an edge)."""
FIT_MARGIN = 0.4
"""Least lead (in plaster lengths of squared error) of the best fitting count over the next one
for the fit to count as a reading."""
FIT_RESIDUAL = 0.2
"""Largest squared error per plaster length of the best fit for it to count as a reading."""


def fit_row(profile: np.ndarray, ppx: float, centre: float, reach: float) -> tuple[int, float, float]:
    """The plaster count whose printed row best explains a band's column profile.

    ``profile``: per column, the share of the band's pixels off the paper. A row of ``n``
    plasters is a centred run of ``n`` boxes (8.2 mm long, 9.8 mm apart) with soft edges; it is
    tried for every ``n`` from 1 to 5 at a few scales and at shifts within ``reach`` px of
    ``centre``, and the summed squared difference to the profile measures its fit (an empty
    band fits 0). Returns (count, lead of the best count over the runner-up, the best fit's
    error), the last two in plaster lengths so they mean the same at any crop size. Blur
    joins plasters and smears the row's ends; where the waists between them still show they
    fix the pitch, and with it the count.
    """
    size = len(profile)
    unit = BLISTER_MM * ppx
    r = max(0, int(round(reach)))
    # the row drawn once per count and scale over the band widened by ``r`` on each side: the
    # window starting at j is the row shifted by r - j
    x = np.arange(size + 2 * r, dtype=np.float32) + 0.5 - r
    pitch = (BLISTER_MM + BLISTER_GAP_MM) * ppx * FIT_SCALES[:, None].astype(np.float32)
    length = BLISTER_MM * ppx * FIT_SCALES[:, None].astype(np.float32)
    errors = {0: float((profile ** 2).sum())}
    for n in range(1, 6):
        first = centre - (n * pitch - (pitch - length)) / 2
        model = np.zeros((len(FIT_SCALES), len(x)), np.float32)  # one row per scale
        for k in range(n):
            start = first + k * pitch
            np.maximum(model, np.clip(np.minimum(x[None, :] - start, start + length - x[None, :]) / FIT_EDGE_PX + 0.5,
                                      0, 1), out=model)
        windows = np.lib.stride_tricks.sliding_window_view(model, size, axis=1)
        errors[n] = float(((windows - profile[None, None, :]) ** 2).sum(axis=2).min())
    ranked = sorted(errors, key=errors.__getitem__)
    count = ranked[0]
    return count, (errors[ranked[1]] - errors[count]) / unit, errors[count] / max(1, count) / unit


def _waist_pieces(profile: np.ndarray, runs: list[list[int]], unit: float) -> int:
    """How many plasters the occupied runs hold when each run is split at the waists of its
    column profile (where blur joined two plasters, fewer columns are marked)."""
    return sum(len(_split_at_dips(profile, (r[0], r[1]), unit)) for r in runs)


ROW_LINE = 0.1
"""Largest share of a clean band's row that may be marked: hollow plasters drawn in a hairline
leave no column mostly marked but lines along the row."""
MOST_PLASTERS = 5
"""The longest plaster row any Via Gladiola card prints (rules: 0-5 on a walk card, 1-5 on a
gladiola)."""
CLEAN_GAP = 0.1
"""Largest share of a gap's column taken by marks for the gap to part two plasters cleanly (blur
along the row fills the gaps first)."""
END_RUN_UNITS = 1.6
"""Longest run of marks (in plaster widths) at an end of a row that fills its band from side to
side for the run to be one plaster joined to the border: longer, two plasters ran together there
(a gladiola of five in a shown hand, its strip mirrored at the centre line, counted as three)."""


def count_blisters_in_row(a: _Analysis, kind: CardKind, flipped: bool) -> tuple[int, float]:
    """Count plasters in the band where ``kind`` prints its blister row; returns (count, confidence).

    The row is looked for a few millimetres around its printed place (plaster-coloured rows
    win). Pixels clearly off the local paper colour mark the symbols; the columns they occupy
    give the row's extent and separate runs the pieces. The count comes from the pieces when
    they are plaster-shaped and evenly spaced (this needs no scale, so a quad that magnifies
    the card does not matter), else from the length at the printed pitch (8.2 mm symbols,
    1.6 mm gaps). A count is sure only when the row is centred on the card: the centre comes
    from the paper beside the row (the card's border or frame line ends it on both sides) and
    falls back to the crop's centre. A clean band on a sharp, unglared card is a confident zero.
    """
    top_mm = BLISTER_ROW_MM.get(kind)
    if top_mm is None:
        return 0, 0.0
    ppy, ppx = READ_H / CARD_H_MM, READ_W / CARD_W_MM
    search, beside = BLISTER_SEARCH_MM, 2.0  # (beside: paper looked at above and below the row)
    y0_mm, y1_mm = top_mm - search - beside, top_mm + BLISTER_H_MM + search + beside
    if flipped:
        y0_mm, y1_mm = CARD_H_MM - y1_mm, CARD_H_MM - y0_mm
    x0, x1 = int(4.9 * ppx), int((CARD_W_MM - 4.9) * ppx)
    band_y0 = int(y0_mm * ppy)
    full = a.lab[max(0, band_y0): int(np.ceil(y1_mm * ppy))].astype(np.float32)
    lab = full[:, x0:x1]
    paper = a.paper_lab
    win = int(round((BLISTER_H_MM + 1.6) * ppy))
    start = _row_window(lab, paper, win, int(round((search + beside) * ppy)) - int(round(0.8 * ppy)),
                        int(round(search * ppy)))
    if kind is CardKind.FINISH:
        start = _below_chequer(lab, paper, start, win, flipped, int(round(beside * ppy)))
    # compare with the paper just above and below the row, column by column, so glare or a
    # light gradient across the card does not wash out a plaster
    reach = int(round(beside * ppy))
    above = slice(max(0, start - 1 - reach), max(1, start - 1))
    below = slice(start + win + 1, start + win + 1 + reach)
    row = lab[start: start + win]
    sides = [full[part, x0:x1] for part in (above, below) if len(full[part]) >= 2]
    if sides:
        # per column, the side nearer the paper colour (a FINISH banner's chequer lies just
        # above the row, a walk card's corner label may reach down beside it)
        meds = [np.median(side, axis=0) for side in sides]
        dists = [((m - paper) ** 2).sum(axis=1) for m in meds]
        local = meds[0] if len(meds) == 1 else np.where((dists[0] <= dists[1])[:, None], meds[0], meds[1])
        local = cv2.blur(local[None, :, :], (15, 1))[0]
        marks = ((row - local[None, :, :]) ** 2).sum(axis=2) > 16 ** 2
    else:  # the card's paper colour stands in
        marks = ((row - paper) ** 2).sum(axis=2) > 22 ** 2
    occupied = marks.mean(axis=0) > 0.3
    # plasters are light (a beige fill inside a thin outline); a band whose marks are mostly
    # dark is print (a FINISH banner's chequer moved down by quad error), never a plaster row
    dark = float((row[..., 0] < 0.6 * paper[0])[marks].mean()) if marks.any() else 0.0
    runs_lr: list[list[int]] = []
    for c in np.nonzero(occupied)[0]:
        if runs_lr and c - runs_lr[-1][1] <= 1:
            runs_lr[-1][1] = int(c) + 1
        else:
            runs_lr.append([int(c), int(c) + 1])
    unit = BLISTER_MM * ppx
    size = occupied.size
    # a short run at the band's end is the border or table past a slightly misplaced corner
    kept = [r for r in runs_lr
            if r[1] - r[0] >= 3 and not ((r[0] == 0 or r[1] == size) and r[1] - r[0] < 0.6 * unit)]
    cut_end = any((r[0] == 0 or r[1] == size) and r not in kept for r in runs_lr)
    runs_lr = kept
    # a speck far from every larger piece is noise or print, not a plaster
    big = [r for r in runs_lr if r[1] - r[0] >= 0.3 * unit]
    runs_lr = [r for r in runs_lr if r in big or not big
               or min(max(q[0] - r[1], r[0] - q[1]) for q in big) <= 0.5 * unit]
    runs_lr = _join_halves(runs_lr, unit)
    width = sum(r[1] - r[0] for r in runs_lr)
    if width < 0.3 * unit:
        # a clean band is a zero only on a sharp print whose band is not washed out by glare
        # (pale plasters vanish into bright paper first)
        glare = float(np.median(lab[..., 0])) / 2.55  # L* in 0..100
        zero_conf = float(np.clip((a.sharp - 0.6) / 0.3, 0, 1)) * float(np.clip((97.5 - glare) / 2.0, 0, 1))
        # marks too short for a plaster keep a zero below ACCEPT (what they are is not known),
        # and so does a line along the row, the outline of plasters printed hollow (marked rows
        # running on from the window's top or bottom are print beside the row: a FINISH's
        # chequer)
        share = marks.mean(axis=1)
        inner = np.nonzero(share <= ROW_LINE)[0]
        lined = len(inner) > 0 and float(share[inner[0]: inner[-1] + 1].max()) > ROW_LINE
        return 0, zero_conf * (1.0 if width == 0 and not lined else 0.45)
    left, right = runs_lr[0][0], runs_lr[-1][1]
    left_touch, right_touch = left == 0, right == size
    if left_touch and right_touch:
        # a full-width row merged with the border on both sides (or a row of five filling the
        # band): only separate, plaster-long pieces between its ends can be counted
        inner = runs_lr[1:-1]
        ends = (runs_lr[0][1] - runs_lr[0][0], runs_lr[-1][1] - runs_lr[-1][0])
        # sharp enough: the print's darkest ink says so, or the row itself, its pieces parted by
        # columns where hardly a mark is left (a gladiola's print may be pale however sharp)
        profile = marks.mean(axis=0)
        parted = all(float(profile[p[1]:q[0]].min()) <= CLEAN_GAP for p, q in zip(runs_lr, runs_lr[1:]))
        if (not inner or not all(0.7 * unit <= r[1] - r[0] <= 1.3 * unit for r in inner)
                or (a.sharp < 0.6 and not parted) or max(ends) > END_RUN_UNITS * unit):
            return len(runs_lr), 0.0
        return len(runs_lr), 0.6
    full_sides = [full[part] for part in (above, below) if len(full[part]) >= 2]
    paper_mid = _paper_centre(full_sides, paper, (left + right) / 2 + x0) if full_sides else None
    centre_px = (paper_mid if paper_mid is not None else READ_W / 2) - x0
    tolerance = ROW_CENTRE_MM * ppx if paper_mid is not None else 0.06 * READ_W
    edge_factor = 1.0
    if left_touch or right_touch:
        # the row is centred: measure the free end's distance from the centre, twice
        half = (right - centre_px) if left_touch else (centre_px - left)
        left, right = int(round(centre_px - half)), int(round(centre_px + half))
        edge_factor = 0.8
    widths = [r[1] - r[0] for r in runs_lr]
    gaps = [runs_lr[i + 1][0] - runs_lr[i][1] for i in range(len(runs_lr) - 1)]
    # separate, plaster-long, evenly spaced pieces give the count whatever the crop's scale
    pieces_ok = (not (left_touch or right_touch) and len(runs_lr) >= 2
                 and all(0.75 * unit <= w <= 1.45 * unit for w in widths)
                 and max(widths) <= 1.3 * min(widths)
                 and all(1 <= g <= 0.45 * float(np.median(widths)) for g in gaps))
    scale = 1.0
    if pieces_ok and paper_mid is not None:
        # (only where the card's edges are seen: a quad cutting the card off through a plaster
        # magnifies the rest of the row, which then looks complete at a larger scale)
        pitch_px = (right - left + float(np.median(gaps))) / len(runs_lr)
        scale = float(np.clip(pitch_px / ((BLISTER_MM + BLISTER_GAP_MM) * ppx), 0.8, 1.3))
    cols = np.arange(max(0, left), min(size, right))
    length_mm = (right - left) / (ppx * scale)
    total = (length_mm + BLISTER_GAP_MM) / (BLISTER_MM + BLISTER_GAP_MM)
    count = max(1, int(round(total)))
    frac = abs(total - count)
    centre = (left + right) / 2
    # (five separate, even plasters are a whole row wherever it seems to lie: no card prints more)
    centred = abs(centre - centre_px) < tolerance or (pieces_ok and len(runs_lr) == MOST_PLASTERS)
    runs = len(runs_lr)
    conf = float(np.clip(1.0 - 3.0 * frac, 0, 1)) * (1.0 if centred else 0.2) * edge_factor
    if runs > count:
        conf *= 0.5  # more separate pieces than plasters: something else is in the band
    elif runs == count and frac < 0.3 and centred and not (left_touch or right_touch):
        # the pieces are separate and as many as the length says: two cues agree
        conf = max(conf, 0.8)
    elif runs < count and runs < _waist_pieces(marks.mean(axis=0), runs_lr, unit) < count:
        # pieces merged, and the waists where they touch count fewer plasters than the length:
        # motion blur smears the row out along its length (a row of 4 then spans 5)
        conf = min(conf, MERGED_DOUBT)
    filled = float(occupied[cols].mean()) if len(cols) else 0.0
    if filled < 0.6:
        conf *= 0.5
    if cut_end and paper_mid is None:
        conf = min(conf, 0.4)  # something runs out of the band where the card's edge is not seen
    if not (left_touch or right_touch):
        # the whole row's shape as a second opinion: it reads rows whose ends blur smeared
        # beyond the length rule's tolerance, and doubts a length its waists contradict
        fitted, lead, error = fit_row(marks.mean(axis=0).astype(np.float32), ppx, centre_px, tolerance)
        fit_sure = fitted >= 1 and lead >= FIT_MARGIN and error <= FIT_RESIDUAL
        if fit_sure and fitted == count:
            conf = max(conf, float(np.clip(0.5 + (lead - FIT_MARGIN), 0.5, 0.9)))
        elif fit_sure and conf < ACCEPT and not cut_end:  # (a plaster cut off may end the row)
            count, conf = fitted, float(np.clip(0.5 + (lead - FIT_MARGIN), 0.5, 0.9))
        elif fitted != count and lead >= FIT_MARGIN:
            conf = min(conf, 0.4)
    if dark > DARK_MARKS:
        conf = 0.0
    return count, conf


# ------------------------------------------------------------------------------------------------
# Via Appia income symbols

INCOME_SYMBOL_MM: dict[bool, tuple[float, float]] = {False: (9.0, 7.0), True: (8.0, 8.0)}
"""(width, height) in mm of one symbol of an income card's half: stones above (False), coins below."""
INCOME_SPANS_MM: dict[bool, tuple[float, float, float]] = {False: (9.0, 22.7, 29.5), True: (8.0, 21.3, 28.0)}
"""Printed length (mm) of a row of 1, 2 and 3 symbols (rows of at most 3, spread over the half)."""
INCOME_W_MM, INCOME_H_MM = 56.0, 87.0


def count_income_symbols(a: _Analysis, turned: bool, lower: bool) -> tuple[int, float]:
    """Count the symbols printed right of the count in one half of an income card.

    ``lower``: the coin half (else the stone half); ``turned``: the crop's bottom is the card's
    top. The symbols lie in rows of at most three; each row is found in the half's rows that
    differ from the paper (judged against each column's median colour over the half), and its
    symbols as separate runs of such columns or, where blur merged them, from the row's length.
    Returns (count, confidence); the confidence is high only when the runs are symbol-sized or
    the length fits one count clearly better than the others.
    """
    W, H = READ_W, READ_H
    lab = a.lab[::-1, ::-1] if turned else a.lab
    y0, y1 = (0.53, 0.93) if lower else (0.07, 0.47)
    x0, x1 = int(0.28 * W), int(0.93 * W)
    region = lab[int(y0 * H): int(y1 * H), x0:x1]
    ref = np.median(region[::3], axis=0).astype(np.float32)  # (every third row is plenty for a median)
    ref = cv2.blur(ref[None, :, :], (15, 1))[0]
    region = region.astype(np.float32)
    off = ((region - ref[None, :, :]) ** 2).sum(axis=2) > 20 ** 2
    ppx, ppy = W / INCOME_W_MM, H / INCOME_H_MM
    sw, sh = INCOME_SYMBOL_MM[lower]
    rows = _runs(off.mean(axis=1) > 0.06)
    rows = [r for r in rows if r[1] - r[0] >= 0.5 * sh * ppy]
    conf = 1.0
    if any(r[0] == 0 or r[1] == off.shape[0] for r in rows):
        conf = 0.3  # something runs into the half from outside (a finger, the border, a neighbour)
        rows = [r for r in rows if r[0] > 0 and r[1] < off.shape[0]]
    if not rows or len(rows) > 2:
        return 0, 0.0
    total = 0
    for r0, r1 in rows:
        band = off[r0:r1]
        profile = band.mean(axis=0)
        cols = _runs(profile > max(0.25, 0.5 * float(profile.max())))  # (round coins narrow at their sides)
        inside = [c for c in cols if c[0] > 0 and c[1] < off.shape[1]]
        if any(c[1] - c[0] >= 0.5 * sw * ppx for c in cols if c not in inside):
            conf = 0.3  # a symbol cut by the half's side, or something reaching in
        if any(c[1] - c[0] < 2.0 * ppx for c in inside):
            conf = min(conf, 0.4)  # a speck: a faint symbol breaking up, or dirt
        cols = [c for c in inside if c[1] - c[0] >= 2.0 * ppx]
        if not cols:
            return 0, 0.0
        cols = [piece for c in cols for piece in _split_at_dips(profile, c, sw * ppx)]
        widths = [(c[1] - c[0]) / ppx for c in cols]
        span = (cols[-1][1] - cols[0][0]) / ppx
        spans = INCOME_SPANS_MM[lower]
        errs = [abs(span - s) for s in spans]
        by_span = int(np.argmin(errs)) + 1
        second = sorted(errs)[1]
        span_conf = float(np.clip((second - errs[by_span - 1]) / 6.0, 0, 1))
        if len(cols) <= 3 and all(0.6 * sw <= w <= 1.6 * sw for w in widths):
            n = len(cols)
            c = 1.0 if n == by_span else 0.5
        else:  # symbols merged by blur (which also lengthens the row) or odd pieces
            n, c = by_span, 0.45 * span_conf
        total += n
        conf = min(conf, c)
    if len(rows) == 2 and total < 4:
        conf = min(conf, 0.3)  # a second row is only printed under a full row of three
    return total, conf


def _income_check(a: _Analysis, turned: bool, stones: int, coins: int, digits: float,
                  gated: float) -> tuple[bool, bool, float]:
    """Check an income card's two counts against the symbols printed beside them.

    ``digits``: the glyph confidence of the two counts, ``gated``: the same after the blur gate.
    Returns whether each count (stones, coins) stands and the counts' confidence. Blur makes a 3
    or a 4 look like a 1 (the stem is all that stays dark), so a half showing surely more symbols
    than its count is refused; fewer symbols refuse nothing (a neighbour may hide some). The
    other half then stands only when its symbols surely agree. When both halves' symbols agree,
    two independent cues stand behind the counts and the blur gate is relaxed.
    """
    checks = [count_income_symbols(a, turned, lower) for lower in (False, True)]
    sure = [c >= ACCEPT for _, c in checks]
    more = [s and n > want for s, (n, _), want in zip(sure, checks, (stones, coins))]
    agree = [s and n == want for s, (n, _), want in zip(sure, checks, (stones, coins))]
    if all(more):
        return False, False, 0.0
    if any(more):
        keep = [not m and g for m, g in zip(more, agree)]
        return keep[0], keep[1], gated if any(keep) else 0.0
    if all(agree):
        return True, True, max(gated, digits * min(c for _, c in checks))
    return True, True, gated


def _split_at_dips(profile: np.ndarray, run: tuple[int, int], unit: float) -> list[tuple[int, int]]:
    """A run of columns longer than 1.6 symbols split where the ink profile dips clearly between
    two peaks (symbols that blur joined still show a waist where they touch)."""
    x0, x1 = run
    if x1 - x0 <= 1.6 * unit:
        return [run]
    p = cv2.blur(profile[x0:x1].astype(np.float32)[None, :], (5, 1))[0]
    half = max(2, int(0.35 * unit))
    cuts = []
    for i in range(half, len(p) - half):
        if p[i] == p[i - half: i + half + 1].min() and p[i] < 0.8 * min(p[:i].max(), p[i + 1:].max()):
            if not cuts or i - cuts[-1] > half:
                cuts.append(i)
    edges = [x0] + [x0 + c for c in cuts] + [x1]
    return [(edges[k], edges[k + 1]) for k in range(len(edges) - 1)]


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Runs of True in a 1-D boolean array as (start, stop) pairs."""
    out: list[tuple[int, int]] = []
    start = None
    for i, f in enumerate(flags):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, len(flags)))
    return out


# ------------------------------------------------------------------------------------------------
# Colour-only kinds


def _hsv_fractions(a: _Analysis) -> dict[str, float]:
    """Fractions of a few colour classes over the card interior (used by the no-digit kinds)."""
    inner = a.bgr[int(0.06 * READ_H): int(0.94 * READ_H), int(0.08 * READ_W): int(0.92 * READ_W)]
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0].astype(np.int16), hsv[..., 1].astype(np.int16), hsv[..., 2].astype(np.int16)
    paper_hsv = cv2.cvtColor(a.paper.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)[0, 0].astype(np.int16)
    sat = s > paper_hsv[1] + 60
    green = sat & (h > 35) & (h < 85)
    petal = sat & ((h < 12) | (h > 160)) & (v > 90)
    sky = sat & (h > 90) & (h < 130) & (v > 100)
    near_paper = (np.abs(v - paper_hsv[2]) < 40) & (np.abs(s - paper_hsv[1]) < 40)
    return {
        "green": float(green.mean()), "petal": float(petal.mean()), "sky": float(sky.mean()),
        "sat": float(sat.mean()), "paper": float(near_paper.mean()),
        "ink": float(a.ink.mean()), "std": float(a.gray.std()),
    }


BLOSSOM_MAX_W = 0.3
"""Widest a blossom blob may be (share of the card's width; the blobs of gladiolas read on the
tuning sets 1095000 and 1095100, blossoms run together among them, were at most 0.28 wide: a
corner index seen large through a quad on part of a card was 0.32-0.6)."""
BLOSSOM_MAX_TALL = 3.0
"""Largest height/width of a blossom blob (at most 2.7 on the tuning sets; a card's red border
line, 4.3-8.8)."""
BLOSSOM_MIN_FILL = 0.36
"""Smallest share of its bounding box a blossom blob fills (at least 0.40 on the tuning sets; a
finger's warm edge with the plaster marks beside it, 0.32; the large index 3, 0.34)."""


def _blossoms(a: _Analysis) -> tuple[float, float, float | None]:
    """Gladiola blossoms: large filled red/pink blobs on the card's centre line.

    Returns the area fraction of such blobs in the central column, the fraction elsewhere on the
    face (red ink of corner numbers and interval rows, which thin strokes do not survive the
    opening but bold ones may) and the blossoms' mean height (fraction of the card height).
    """
    hsv = cv2.cvtColor(a.bgr, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1].astype(np.int16), hsv[..., 2]
    paper_s = int(cv2.cvtColor(a.paper.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)[0, 0, 1])
    # red or pink and either far more saturated than the paper or, on a tinted paper (a bluish
    # card under warm light is itself fairly saturated), clearly redder than it
    redder = (a.lab[..., 1].astype(np.int16) - int(a.paper_lab[1])) > 18
    mask = (((s > max(paper_s + 50, 80)) | (redder & (s > 70))) & ((h < 14) | (h > 150)) & (v > 100)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    y0, y1 = int(0.06 * READ_H), int(0.94 * READ_H)
    mask = np.ascontiguousarray(mask[y0:y1, int(0.12 * READ_W): int(0.88 * READ_W)])
    c0, c1 = int(0.18 * READ_W), int(0.58 * READ_W)
    total = float(mask.sum())
    # only blobs of a blossom's shape count on the centre line: not a finger, a border line or a
    # corner index seen large through a quad on part of a card
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    bw, bh, area = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
    shaped = (bw <= BLOSSOM_MAX_W * READ_W) & (bh <= BLOSSOM_MAX_TALL * bw) & (area >= BLOSSOM_MIN_FILL * bw * bh)
    shaped[0] = False  # (the background)
    col = shaped[labels[:, c0:c1]]
    centre = float(col.sum())
    ys = np.nonzero(col)[0]
    mean_y = float((ys.mean() + y0) / READ_H) if len(ys) else None
    return centre / mask.size, (total - float(mask[:, c0:c1].sum())) / mask.size, mean_y


# ------------------------------------------------------------------------------------------------
# Date line under the year


DATE_DIGIT_H = (0.25, 0.45)
"""Height of a date line's digits (share of the year's digit height above it): a faint-ink
component (gray/background < 0.8) of the date line that tall, and no wider than
:data:`DATE_DIGIT_W` of that, is one digit, read in that faint shape. At the reading size the thin light strokes of the date's small
digits fall apart under the ink threshold (a serif 2 into its hook, its stem and its foot: film
157's 22.1.1864 read as 1864; a 4 into its stem, read as a 1) and hold together in faint ink."""


DATE_DIGIT_W = 0.85
"""Widest a date digit's faint shape may be (share of its height): wider, the faint ink joins
two digits."""


def _faint_joined(a: _Analysis, row: list[Blob], yh: int, turned: bool) -> tuple[list[Blob], dict[int, int]]:
    """``row`` (one date line's ink pieces, turned coordinates when ``turned``) with the pieces of
    each digit-shaped faint-ink component replaced by that component's box (labelled by its first
    piece), and the faint component of each box so made."""
    W, H = READ_W, READ_H
    if a.loose is None:
        return row, {}
    groups: dict[int, list[Blob]] = {}
    for b in row:
        c = b.turned(W, H) if turned else b  # (crop coordinates)
        ids = a.loose[c.y0:c.y1, c.x0:c.x1][a.labels[c.y0:c.y1, c.x0:c.x1] == b.label]
        ids = ids[ids > 0]
        groups.setdefault(int(np.bincount(ids).argmax()) if len(ids) else 0, []).append(b)
    out, faint = [], {}
    for owner, parts in groups.items():
        ys, xs = np.nonzero(a.loose == owner) if owner else ((), ())
        if not len(ys):
            out.extend(parts)
            continue
        box = Blob(parts[0].label, int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1, len(ys))
        box = box.turned(W, H) if turned else box
        if not DATE_DIGIT_H[0] * yh <= box.h <= DATE_DIGIT_H[1] * yh or box.w > DATE_DIGIT_W * box.h:
            out.extend(parts)  # faint ink joining neighbours (or nothing digit-tall)
            continue
        out.append(box)
        faint[box.label] = owner
    return out, faint


DATE_BESIDE_REACH, DATE_BESIDE_INK = 1.5, 0.15
"""Faint ink (see :data:`DATE_DIGIT_H`) within ``DATE_BESIDE_REACH`` digit widths before the date
line's first digit or after its last, at the digits' height, and not of their own faint shapes,
amounting to ``DATE_BESIDE_INK`` of a digit's faint shape or more, is a digit lost at that end:
the line is not read (tuning set 1095000: 24.5.1954 read as 4.5.1954 at full confidence, the
2's hook and foot left of the 4, three and eight pixels of faint ink, no piece of ink)."""


def _ink_beside(a: _Analysis, digits: list[Blob], turned: bool) -> bool:
    """Whether faint ink lies beside the ends of a date line's ``digits`` (turned coordinates
    when ``turned``), see :data:`DATE_BESIDE_INK`."""
    if a.loose is None:
        return False
    W, H = READ_W, READ_H

    def labels_in(b: Blob) -> np.ndarray:
        """The faint-ink labels under a box in the line's coordinates."""
        c = b.turned(W, H) if turned else b
        return a.loose[c.y0:c.y1, c.x0:c.x1]  # type: ignore[index]

    own = set()
    sizes = []
    areas = np.bincount(a.loose.ravel())
    for d in digits:
        ids = labels_in(d)
        ids = ids[ids > 0]
        if len(ids):
            main = int(np.bincount(ids).argmax())
            own.add(main)
            sizes.append(int(areas[main]))
    if not sizes:
        return False
    reach = DATE_BESIDE_REACH * float(np.median([d.w for d in digits]))
    y0, y1 = min(d.y0 for d in digits), max(d.y1 for d in digits)
    for x0, x1 in ((digits[0].x0 - reach, digits[0].x0), (digits[-1].x1, digits[-1].x1 + reach)):
        ids = labels_in(Blob(0, int(max(0, x0)), y0, int(min(W, x1)), y1, 0))
        stray = int(np.count_nonzero((ids > 0) & ~np.isin(ids, list(own))))
        if stray >= DATE_BESIDE_INK * float(np.median(sizes)):
            return True
    return False


DATE_YEAR_UNSURE, DATE_YEAR_SURE = 0.45, 0.75
"""The date line's last four glyphs must read as the year printed large above it: confidence 0
at a score of ``DATE_YEAR_UNSURE``, 1 from ``DATE_YEAR_SURE`` (below that the glyphs read as a 1
are looked at in their faint ink too, a 4 thinned to its stem)."""


def _read_date(a: _Analysis, year_line: tuple[Blob, ...], turned: bool, year: int
               ) -> tuple[CardDate | None, float, tuple[float, float, float, float] | None]:
    """Read ``d.m.yyyy`` printed under the year; returns the date (or None), its confidence and,
    when a line of ink lies there, its box (see ``CardReading.date_line``)."""
    W, H = READ_W, READ_H
    top = max(g.y1 for g in year_line)
    yh = max(g.h for g in year_line)
    blobs = [b.turned(W, H) if turned else b for b in a.blobs]
    row = [b for b in blobs if top + 0.05 * yh < b.cy < top + 1.2 * yh and 0.08 * W < b.cx < 0.92 * W]
    if not row:
        return None, 1.0, None
    row = [b for b in row if b.h < 1.2 * yh and b.w < 0.5 * W]
    if not row:
        return None, 1.0, None
    # the line is centred on the card: as wide as its pieces reach out on either side (the faint
    # digits at one end may not all be ink pieces)
    pad = 0.15 * yh
    half = max(max(W / 2 - b.x0, b.x1 - W / 2) for b in row) + pad
    line = (max(0.0, 0.5 - half / W), max(0.0, (min(b.y0 for b in row) - pad) / H),
            min(1.0, 0.5 + half / W), min(1.0, (max(b.y1 for b in row) + pad) / H))
    row, faint = _faint_joined(a, row, yh, turned)
    hmax = max(b.h for b in row)
    digits = sorted([b for b in row if b.h > 0.7 * hmax and b.h > 0.025 * H], key=lambda b: b.x0)
    if len(digits) < 6 or len(digits) > 8:
        return None, 0.3, line
    if _ink_beside(a, digits, turned):
        return None, 0.3, line  # a digit at an end lost (too faint to be a piece of ink)
    # the last four digits are the year; day and month are split at the widest gap before it
    # (the dot between them is often too small to survive as ink)
    head, tail = digits[:-4], digits[-4:]
    gaps = [head[i + 1].x0 - head[i].x1 for i in range(len(head) - 1)]
    tail_gaps = [tail[i + 1].x0 - tail[i].x1 for i in range(3)]
    if not gaps:
        return None, 0.3, line
    cut = int(np.argmax(gaps)) + 1
    wide = head[-1].x1 <= tail[0].x0 and tail[0].x0 - head[-1].x1 > 1.5 * max(tail_gaps)
    gap_my = tail[0].x0 - head[-1].x1
    if gaps[cut - 1] < 1.5 * max(tail_gaps) or not wide or not 0.7 <= gaps[cut - 1] / max(1, gap_my) <= 1.4:
        return None, 0.3, line  # both separators are a dot: their gaps must match (a lost digit would widen one)
    groups = [head[:cut], head[cut:], tail]
    if not (1 <= len(groups[0]) <= 2) or not (1 <= len(groups[1]) <= 2):
        return None, 0.3, line
    def mask(g: Blob) -> np.ndarray:
        b = g.turned(W, H) if turned else g
        m = (a.loose[b.y0:b.y1, b.x0:b.x1] == faint[g.label] if g.label in faint
             else a.labels[b.y0:b.y1, b.x0:b.x1] == g.label).astype(np.uint8)
        return m[::-1, ::-1] if turned else m

    scores = [classify_all([mask(g) for g in grp]) for grp in groups]
    day = decode_value(scores[0], list(range(1, 32)))
    month = decode_value(scores[1], list(range(1, 13)))
    yv = decode_value(scores[2], [year])
    if yv is None or yv.score < DATE_YEAR_SURE:
        thinned = _faint_masks(a, [g.turned(W, H) if turned else g for g in tail], turned, scores[2], opening=2)
        yv = decode_value(classify_all(thinned), [year]) if thinned is not None else yv
    conf = min(glyph_confidence(day), glyph_confidence(month),
               float(np.clip((yv.score - DATE_YEAR_UNSURE) / (DATE_YEAR_SURE - DATE_YEAR_UNSURE), 0, 1)) if yv else 0.0)
    if day is None or month is None or conf < ACCEPT:
        return None, conf, line
    try:
        return CardDate(year, month.value, day.value), conf, line
    except Exception:  # an impossible day for the month is not a reading
        return None, 0.0, line


# ------------------------------------------------------------------------------------------------
# Putting it together


def _same_side(top: _EndFindings, bottom: _EndFindings) -> bool:
    """Whether both ends' lone corner digits lie off their box's centre on the same side (each in
    its own end's frame): where one digit of a two-digit number stands at both ends. A crop
    shifted off the card moves the two ends' digits to opposite sides (one too large or too small
    for the card would move them to the same side: no one-digit card of the tuning sets was
    refused so)."""
    sides = [np.sign(e.corner_line[0].cx - (LONE_CX[0] + LONE_CX[1]) / 2 * READ_W) for e in (top, bottom) if e.corner_line]
    return len(sides) == 2 and sides[0] == sides[1] != 0


def _vote_corner(top: _EndFindings, bottom: _EndFindings) -> tuple[ValueVote | None, float]:
    """Combine the corner indices read at both ends (they print the same number); a doubtful
    lone digit counts only when the other end reads the same."""
    if top.corner is not None and bottom.corner is not None and top.corner.value == bottom.corner.value:
        if top.corner_doubtful and bottom.corner_doubtful and _same_side(top, bottom):
            # the same digit of a two-digit number lost at both ends (blur thins both alike:
            # fresh set 1101800's W13 read 1 at 0.55, both 1s at 0.13 of the width)
            return None, 0.0
        votes = [top.corner, bottom.corner]
    else:
        votes = [e.corner for e in (top, bottom) if e.corner is not None and not e.corner_doubtful]
    if not votes or (len(votes) == 1 and (top.fragments or bottom.fragments)):
        return None, 0.0
    if len(votes) == 1 and len(str(votes[0].value)) == 1 and any(
            e.corner is None and e.index_pair for e in (top, bottom)):
        # one end reads a lone digit while the other shows an index of two glyphs it cannot read:
        # the lone digit is what the crop or a cover left of two (tuning set 1101900: 14 and 25
        # read as 4 and 5 at 0.9-1.0)
        return None, 0.0
    if len(votes) == 2:
        if votes[0].value == votes[1].value:
            best = max(votes, key=lambda v: v.score)
            conf = 1 - (1 - glyph_confidence(votes[0])) * (1 - glyph_confidence(votes[1]))
            return best, conf
        longer, shorter = sorted(votes, key=lambda v: len(str(v.value)), reverse=True)
        if len(str(longer.value)) > len(str(shorter.value)) and str(shorter.value) in str(longer.value):
            # one end lost a glyph (glare, a finger, the border): the fuller reading stands alone
            return longer, float(np.clip((glyph_confidence(longer) - 0.3) / 0.7, 0.0, 1.0))
        return max(votes, key=glyph_confidence), 0.0  # the two printed indices disagree: never read
    return votes[0], float(np.clip((glyph_confidence(votes[0]) - 0.3) / 0.7, 0.0, 1.0))


CHEQUER_RUNS = 6
"""Fewest evenly spaced ink runs of one length along a crop row for the row to cross a
chequered band (a FINISH banner's border: its squares meet at their corners, so they make no
ink blobs of their own)."""
CHEQUER_ROWS = 6
"""Fewest such rows for a crop to show a FINISH banner: a walk reading there is no walk (tuning
set 1095000: a FINISH whose 0 lay under a hand read as walk 5 at 0.62, 21 rows; none of 496
walk readings of other cards on tuning sets 1095000 and 1095100 had one)."""


def _chequer_rows(a: _Analysis) -> int:
    """How many rows of the crop's middle cross a chequered band (see :data:`CHEQUER_RUNS`)."""
    height, width = a.ink.shape
    x0, x1 = int(0.06 * width), int(0.94 * width)
    longest = int(0.08 * width)
    band = a.ink[int(0.2 * height): int(0.8 * height), x0:x1].astype(np.int8)
    steps = np.diff(np.pad(band, ((0, 0), (1, 1))), axis=1)
    rows = 0
    for step in steps[(steps == 1).sum(axis=1) >= CHEQUER_RUNS]:
        starts, ends = np.nonzero(step == 1)[0], np.nonzero(step == -1)[0]
        lengths = ends - starts
        gaps = starts[1:] - ends[:-1]
        square = (lengths >= 4) & (lengths <= longest)
        # a run continues the stretch when it is about as long as the one before, and the gap
        # before it about as wide as it is long
        follows = (square[1:] & square[:-1] & (gaps >= 0.55 * lengths[1:]) & (gaps <= 1.8 * lengths[1:])
                   & (lengths[1:] >= 0.6 * lengths[:-1]) & (lengths[1:] <= 1.67 * lengths[:-1]))
        run = best = 1 if square[0] else 0
        for k, ok in enumerate(follows, start=1):
            run = run + 1 if ok else (1 if square[k] else 0)
            best = max(best, run)
        rows += best >= CHEQUER_RUNS
    return rows


def _up_score(a: _Analysis, blister_y: float | None, walk: bool = True) -> float:
    """Positive when the crop's top is the card's top for a Via Gladiola front.

    The interval rows (or the FINISH banner) sit just above the middle and the blister row
    below it, so the centre of the ink between the corner indices lies above the middle on an
    upright card; the blister row's side agrees when there is one.
    """
    band = a.ink[int(0.2 * READ_H): int(0.8 * READ_H), int(0.1 * READ_W): int(0.9 * READ_W)]
    rows = band.sum(axis=1).astype(np.float32)
    if rows.sum() < 30:
        score = 0.0
    else:
        centre = float((rows * np.arange(len(rows))).sum() / rows.sum()) / len(rows)  # 0..1 within the band
        score = (0.5 - centre) / 0.08
    if blister_y is not None:
        score += 1.0 if blister_y > 0.5 else -1.0
    # the interval rows end in small solid marks on the right (they move to the left when turned)
    icons = [b for b in a.blobs if 0.28 * READ_H < b.cy < 0.72 * READ_H and 0.015 * READ_H <= b.h <= 0.06 * READ_H
             and 2 <= b.w <= 0.12 * READ_W and b.area >= 0.75 * b.w * b.h
             and (b.cx < 0.3 * READ_W or b.cx > 0.7 * READ_W)]
    right = sum(1 for b in icons if b.cx > 0.5 * READ_W)
    if walk:  # (the FINISH banner's chequered border has solid squares on both sides)
        score += 0.8 * (2 * right - len(icons))
    return score


def _zero_is_sure(a: _Analysis, kind: CardKind, flipped: bool, plasters_y: float | None,
                  lower_index: ValueVote | None) -> bool:
    """Whether a clean blister band on a walk or FINISH card may be reported as no blisters.

    Not when plaster colour shows elsewhere on the card (``plasters_y``: the orientation or the
    quad is off), nor when the corner index printed below the row is unseen (the quad may have
    cut the card short and moved the row away), nor when a walk card's thin interval print is
    washed out (glare or blur that hides it hides pale plasters first).
    """
    if plasters_y is not None or lower_index is None:
        return False
    if kind is CardKind.WALK:
        # the interval texts (left of their solid marks), in lightness against the paper's
        y0, y1 = (0.48, 0.72) if flipped else (0.28, 0.52)
        x0, x1 = (0.3, 0.9) if flipped else (0.1, 0.7)
        region = a.lab[int(y0 * READ_H): int(y1 * READ_H), int(x0 * READ_W): int(x1 * READ_W)]
        light = region[..., 0]
        paper = float(a.paper_lab[0])
        if float(np.percentile(light, 1)) > 0.8 * max(paper, 1.0):
            return False
    return True


SURE_GLYPH_SCORE, SURE_GLYPH_MARGIN = 0.8, 0.1
"""A glyph's digit is sure (enough to contradict another reader) at this template score and margin."""


@dataclass(frozen=True)
class BandGlyph:
    """A digit-shaped ink component of a one-line crop: its centre column, best digit and how
    sure the glyph templates are of it."""

    cx: float
    digit: int
    sure: bool


def band_glyphs(band: np.ndarray) -> list[BandGlyph]:
    """The digit-shaped ink components of a one-line crop (BGR or gray), left to right.

    Components cut by the crop's border are left out (what is left of a digit may look like
    another one); a component is ``sure`` when the glyph templates read it clearly.
    """
    gray = band if band.ndim == 2 else cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    if h < 8 or w < 8:
        return []
    ink, _ = _ink(gray)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    keep = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if (bh >= 0.35 * h and 0.1 * bh <= bw <= 1.1 * bh and 0.12 <= area / (bw * bh) <= 0.85
                and x > 0 and y > 0 and x + bw < w and y + bh < h):
            keep.append((i, x, y, bw, bh))
    if not keep:
        return []
    masks = [(labels[y:y + bh, x:x + bw] == i).astype(np.uint8) for i, x, y, bw, bh in keep]
    scores = classify_all(masks)
    out = []
    for (_, x, _, bw, _), row in zip(keep, scores):
        order = np.argsort(row)[::-1]
        best, margin = float(row[order[0]]), float(row[order[0]] - row[order[1]])
        out.append(BandGlyph(x + bw / 2, int(order[0]), best >= SURE_GLYPH_SCORE and margin >= SURE_GLYPH_MARGIN))
    return sorted(out, key=lambda g: g.cx)


def glyphs_contradict(band: np.ndarray, text: str, x0: float, x1: float) -> bool:
    """Whether the glyph templates surely read another digit somewhere in ``text``, a digit
    string another reader found between columns ``x0`` and ``x1`` of ``band``.

    The text's span is cut into one equal slot per digit; a sure glyph whose centre lies in
    it must read as the digit of its slot (or of the neighbouring slot when it lies near the
    boundary: a narrow 1 shifts its neighbours).
    """
    digits = [int(c) for c in text if c.isdigit()]
    if not digits or x1 <= x0:
        return False
    n = len(digits)
    for g in band_glyphs(band):
        if not g.sure or not x0 <= g.cx <= x1:
            continue
        pos = (g.cx - x0) / (x1 - x0) * n - 0.5
        near = {int(np.clip(round(pos + d), 0, n - 1)) for d in (-0.3, 0.0, 0.3)}
        if g.digit not in {digits[i] for i in near}:
            return True
    return False


def _blur_gate(a: _Analysis) -> float:
    """Factor in [0, 1] on digit confidences: blur that washes the darkest ink out makes digits
    look alike (2/7, 3/5, 4/1), so a soft print is never read with full confidence."""
    return float(np.clip((a.sharp - 0.3) / 0.4, 0.0, 1.0))


BLUR_PENALTY = 0.3
"""What the blur gate takes off a digit confidence at full blur (gate 0): a soft print still reads
when its glyphs are clearly one number (confidence 0.8 and more), never on a close call. (A
factor on the confidence refused legible pale or slightly soft prints: on the tuning sets, with
the later blur checks in place, dropping the gate entirely added no confident wrong reading.)"""


def _gated(conf: float, gate: float) -> float:
    """A digit confidence after the blur gate: lowered by :data:`BLUR_PENALTY` x (1 - gate)."""
    return float(max(0.0, conf - BLUR_PENALTY * (1.0 - gate)))


def read_card(card: np.ndarray, deck: Deck = Deck()) -> CardReading:
    """Read one rectified portrait card crop (BGR or gray; either end may be the top)."""
    a = analyse(card)
    gate = _blur_gate(a)
    kinds = deck.kinds
    top = _end(a, False, deck, kinds)
    bottom = _end(a, True, deck, kinds)
    colours = _hsv_fractions(a)
    nblisters, bconf, by = count_blisters(a) if kinds & {CardKind.WALK, CardKind.FINISH, CardKind.START,
                                                         CardKind.GLADIOLA} else (0, 0.0, None)
    candidates: list[CardReading] = []

    # Valais date side: a 4-digit year, read at one end only.
    for end, turned in ((top, False), (bottom, True)):
        if end.year is not None:
            yconf = _gated(glyph_confidence(end.year), gate)
            date, dconf, line = _read_date(a, end.year_line, turned, end.year.value)
            cd = date if date is not None else CardDate(end.year.value)
            other = bottom if end is top else top
            orient = 1.0 if other.year is None or glyph_confidence(other.year) < 0.2 else 0.5
            candidates.append(CardReading(
                kind=CardKind.TIMELINE, face=Face.DATE, flipped=turned, date=cd, confidence=yconf * orient,
                field_confidences=FieldConfidences(kind=yconf, date=yconf * (dconf if date else 1.0)),
                orientation_confidence=orient, date_line=line))
    # Via Appia income card: a digit in each half, on the left.
    for end, turned in ((top, False), (bottom, True)):
        if end.income_top is not None and end.income_bottom is not None:
            c1, c2 = glyph_confidence(end.income_top), glyph_confidence(end.income_bottom)
            conf = _gated(min(c1, c2), gate)
            keep_s, keep_c, vconf = _income_check(a, turned, end.income_top.value, end.income_bottom.value,
                                                  min(c1, c2), conf)
            candidates.append(CardReading(
                kind=CardKind.INCOME, face=Face.FRONT, flipped=turned,
                stones=end.income_top.value if keep_s else None, sesterces=end.income_bottom.value if keep_c else None,
                confidence=min(conf, vconf) if vconf >= ACCEPT else conf,
                field_confidences=FieldConfidences(kind=conf, value=vconf), orientation_confidence=conf))
    # Via Gladiola walk / FINISH: corner index at both ends.
    corner, cconf = _vote_corner(top, bottom)
    cconf = _gated(cconf, gate)
    income_found = any(c.kind is CardKind.INCOME and c.confidence >= ACCEPT for c in candidates)
    if corner is not None and not (income_found and (top.corner is None or bottom.corner is None)):
        kind = CardKind.FINISH if corner.value == deck.finish_value else CardKind.WALK
        up = _up_score(a, by, walk=kind is CardKind.WALK)
        flipped = up < 0
        oconf = float(np.clip(abs(up) / 1.0, 0, 1))
        n_up, c_up = count_blisters_in_row(a, kind, False)
        n_down, c_down = count_blisters_in_row(a, kind, True)
        up += 2.0 * (c_up - c_down)
        flipped = up < 0
        oconf = float(np.clip(abs(up) / 1.0, 0, 1))
        nblisters, bconf = (n_down, c_down) if flipped else (n_up, c_up)
        bconf *= oconf
        if nblisters == 0 and not _zero_is_sure(a, kind, flipped, by, (top.corner if flipped else bottom.corner)):
            bconf = min(bconf, 0.4)
        if kind is CardKind.WALK and CardKind.FINISH in kinds and _chequer_rows(a) >= CHEQUER_ROWS:
            cconf = min(cconf, 0.4)  # a FINISH banner: the index lost a digit (its 0 under a hand, say)
        candidates.append(CardReading(
            kind=kind, face=Face.FRONT, flipped=flipped, value=corner.value, blisters=nblisters,
            confidence=min(cconf, bconf), field_confidences=FieldConfidences(kind=cconf, value=cconf, blisters=bconf),
            orientation_confidence=oconf))
    # START: a lone "0" centred near the top.
    for end, turned in ((top, False), (bottom, True)):
        if end.start_zero is not None and end.corner is None:
            zconf = glyph_confidence(end.start_zero)
            nblisters, bconf = count_blisters_in_row(a, CardKind.START, turned)
            if nblisters == 0 and by is not None:
                bconf = min(bconf, 0.4)  # plaster colour elsewhere on the card
            candidates.append(CardReading(
                kind=CardKind.START, face=Face.FRONT, flipped=turned, value=deck.start_value, blisters=nblisters,
                confidence=min(zconf, bconf), field_confidences=FieldConfidences(kind=zconf, value=zconf,
                                                                               blisters=bconf),
                orientation_confidence=zconf))
    if candidates:
        best = max(candidates, key=lambda r: r.field_confidences.kind)
        rivals = [r for r in candidates if r.kind is not best.kind and r.field_confidences.kind > 0.3]
        if rivals:
            best = _with_confidence(best, 0.5 * best.confidence)
        return _abstain_low(_blisters_in_limits(best, deck))
    index_seen = top.index_seen or bottom.index_seen
    return _abstain_low(_blisters_in_limits(_colour_kind(a, colours, deck, nblisters, bconf, by, index_seen), deck))


def _blisters_in_limits(r: CardReading, deck: Deck) -> CardReading:
    """``r`` with its blister count left open when no card of its kind in ``deck`` carries that many
    (``Deck.blister_limits``: a FINISH's chequered banner counted as five plasters on fresh set
    1101600's F1 and F3, cards of the kind carrying at most two)."""
    for kind, low, high in deck.blister_limits:
        if r.kind is kind and r.blisters is not None and not low <= r.blisters <= high:
            return replace(r, field_confidences=replace(r.field_confidences, blisters=0.0))
    return r


BLOSSOM_OFF_MIDDLE = 0.215
"""Largest distance (fraction of the card's height) of the blossoms' mean height from the card's
middle: the stem is printed in the upper half (gladiolas read right on the tuning sets lay 0.01-0.19
from the middle; red found 0.24 and more off it was a finger, a neighbour's print under a quad
that straddles two cards, or motion-smeared print)."""


def _colour_kind(a: _Analysis, c: dict[str, float], deck: Deck, nblisters: int, bconf: float,
                 blister_y: float | None, index_seen: bool = False) -> CardReading:
    """Kinds without digits: gladiola, Valais event side, stone tile, or unknown.

    ``index_seen``: a corner index was seen (though not read), so the card is no gladiola.
    """
    kinds = deck.kinds
    digits_seen = len(a.glyphs)
    if CardKind.TIMELINE in kinds and c["paper"] < 0.6:
        # an event picture fills the upper two thirds: the top is the end with less paper showing
        lab = a.lab.astype(np.float32)
        paper = a.paper_lab
        off = np.sqrt(((lab - paper) ** 2).sum(axis=2)) > 25
        x0, x1 = int(0.15 * READ_W), int(0.85 * READ_W)
        upper = float(off[int(0.12 * READ_H): int(0.45 * READ_H), x0:x1].mean())
        lower = float(off[int(0.55 * READ_H): int(0.88 * READ_H), x0:x1].mean())
        orient = float(np.clip((abs(upper - lower) - 0.15) / 0.2, 0, 1))
        picture = max(upper, lower)
        conf = float(np.clip((picture - 0.6) / 0.15, 0, 1)) * orient
        return CardReading(kind=CardKind.TIMELINE, face=Face.EVENT, flipped=upper < lower, confidence=conf,
                           field_confidences=FieldConfidences(kind=conf), orientation_confidence=orient)
    # (blue sky matters only where a Valais event picture may show red flowers under it: a Via
    # Gladiola crop showing a blue card border beside the flower is still a gladiola)
    sky_ok = c["sky"] < 0.03 or CardKind.TIMELINE not in kinds
    if CardKind.GLADIOLA in kinds and sky_ok and not index_seen:
        centre, side, blossom_y = _blossoms(a)
        if centre > 0.006 and blossom_y is not None and abs(blossom_y - 0.5) <= BLOSSOM_OFF_MIDDLE:
            conf = float(np.clip((centre - 0.006) / 0.006, 0, 1)) * float(np.clip(1.0 - side / (0.33 * centre), 0, 1))
            # the blossoms sit in the upper half: which end is up is sure only when they are
            # clearly off the middle; the kind does not depend on it, the blister row does
            oconf = float(np.clip((abs(blossom_y - 0.5) - 0.04) / 0.05, 0, 1))
            flipped = blossom_y > 0.5
            nblisters, bconf = count_blisters_in_row(a, CardKind.GLADIOLA, flipped)
            bconf = min(bconf, oconf)
            return CardReading(kind=CardKind.GLADIOLA, face=Face.FRONT, flipped=flipped, blisters=nblisters,
                               confidence=min(conf, bconf),
                               field_confidences=FieldConfidences(kind=conf, blisters=bconf),
                               orientation_confidence=oconf)
    paper_chroma = float(a.paper.max() - a.paper.min())
    if (c["ink"] < 0.005 and c["sat"] < 0.05 and digits_seen == 0 and float(a.paper.mean()) < 185
            and paper_chroma < 30):  # a bare grey stone tile: no paper, no print
        return CardReading(kind=CardKind.UNKNOWN, face=Face.TILE, confidence=0.0)
    return CardReading()


def _with_confidence(r: CardReading, conf: float) -> CardReading:
    f = r.field_confidences
    return replace(r, confidence=conf, field_confidences=FieldConfidences(
        min(f.kind, conf), min(f.value, conf), min(f.blisters, conf), min(f.date, conf)))


def _abstain_low(r: CardReading) -> CardReading:
    """Drop every field whose confidence is below :data:`ACCEPT`; an unsure kind becomes unknown."""
    f = r.field_confidences
    if f.kind < ACCEPT:
        return CardReading(face=r.face, tile=r.tile, confidence=min(r.confidence, 0.49) if r.kind is not
                           CardKind.UNKNOWN else 0.0, field_confidences=FieldConfidences(kind=f.kind))
    value = r.value if f.value >= ACCEPT else None
    stones = r.stones if f.value >= ACCEPT else None
    sesterces = r.sesterces if f.value >= ACCEPT else None
    blisters = r.blisters if f.blisters >= ACCEPT else None
    date = r.date if f.date >= ACCEPT else None
    if r.date is not None and date is None and r.date.month is not None:
        date = CardDate(r.date.year)  # the full date is unsure but the year is read
    conf = min([f.kind] + [c for c, v in ((f.value, value), (f.blisters, blisters), (f.date, date)) if v is not None])
    return replace(r, value=value, blisters=blisters, date=date, stones=stones, sesterces=sesterces, confidence=conf)
