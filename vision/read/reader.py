"""Reading one rectified card: kind, which end is up, km value, blisters, year/date, income halves.

Input is a portrait crop (any size; it is resized to ``READ_W x READ_H``) whose top may be the
card's top or bottom. Everything works on structure that survives a change of print style:

1. Ink: pixels much darker than the local paper (gray divided by a dilated background), split
   into connected components. Large components of digit height are glyph candidates; they are
   grouped into horizontal lines.
2. Both ends are tried. In each, the layouts the decks use are looked for: a corner index in the
   top-left corner (Via Gladiola walk/FINISH; the same index is printed turned round in the
   opposite corner, so both ends give a vote), a 4-digit year centred in the upper half
   (Valais date side), a digit top-left and one left just below the middle (Via Appia income),
   a lone centred "0" near the top (START).
3. Digits are matched against font templates (:mod:`vision.read.glyphs`) and decoded only to
   values the deck can hold (:class:`~vision.read.types.Deck`).
4. Blisters are counted in the row of plaster-coloured blobs (light, orange-tinted relative to
   the paper); a row that merged under blur is counted from its length and height.
5. Cards without digits are told apart by colour: a gladiola (green stem and leaves plus
   saturated blossoms on paper), an event picture (a large saturated rectangle), a bare stone
   tile (no paper, no ink). Anything that fits nothing well is ``unknown``.

Confidences are products of glyph scores, margins and agreement between the two ends; callers
compare them with :data:`ACCEPT` and drop fields below it (abstain) rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.glyphs import classify_all
from vision.read.types import CardReading, Deck, Face, TileSize
from vision.types import CardDate, CardKind, FieldConfidences

READ_W, READ_H = 240, 368
ACCEPT = 0.5
"""Field confidence below which a field is reported as None."""


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
    margin = 4
    ink[:margin, :] = 0
    ink[-margin:, :] = 0
    ink[:, :margin] = 0
    ink[:, -margin:] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    blobs = [Blob(i, int(s[0]), int(s[1]), int(s[0] + s[2]), int(s[1] + s[3]), int(s[4]))
             for i, s in enumerate(stats) if i > 0 and s[4] >= 6]
    glyphs = [b for b in blobs if 0.065 * READ_H <= b.h <= 0.2 * READ_H and 0.02 * READ_W <= b.w <= 0.3 * READ_W
              and 0.12 <= b.area / max(1, b.w * b.h) <= 0.85 and b.w <= 1.1 * b.h]
    bright = gray > np.percentile(gray, 60)
    paper = np.median(bgr[bright], axis=0) if bright.any() else np.array([255, 255, 255])
    inner = ratio[int(0.05 * READ_H): int(0.95 * READ_H), int(0.08 * READ_W): int(0.92 * READ_W)]
    darkest = float(np.percentile(inner, 0.5))
    sharp = float(np.clip((0.5 - darkest) / 0.2, 0.0, 1.0))
    return _Analysis(gray, bgr, ink, labels, blobs, glyphs, paper, sharp)


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


def _decode(scores: np.ndarray, allowed: list[int]) -> ValueVote | None:
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


def _glyph_conf(vote: ValueVote | None) -> float:
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


def _end(a: _Analysis, turned: bool, deck: Deck, kinds: frozenset[CardKind]) -> _EndFindings:
    """Look for each layout with the crop's top (``turned=False``) or bottom as the card's top."""
    W, H = READ_W, READ_H
    glyphs = [g.turned(W, H) if turned else g for g in a.glyphs]
    by_label = {g.label: g for g in a.glyphs}
    lines = _lines(glyphs)
    corner = year = inc_top = inc_bottom = zero = None
    corner_line: tuple[Blob, ...] = ()
    year_line: tuple[Blob, ...] = ()

    def read(line: list[Blob], allowed: list[int]) -> ValueVote | None:
        originals = [by_label[g.label] for g in line]
        return _decode(classify_all(_masks(a, originals, turned)), allowed)

    walkish = kinds & {CardKind.WALK, CardKind.FINISH}
    for line in lines:
        x0, y0 = line[0].x0, min(g.y0 for g in line)
        x1, y1 = line[-1].x1, max(g.y1 for g in line)
        h = y1 - y0
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        same_h = max(g.h for g in line) <= 1.15 * min(g.h for g in line)
        if walkish and len(line) <= 2 and x0 < 0.22 * W and y0 < 0.16 * H and 0.11 * H < h < 0.18 * H and same_h:
            allowed = sorted((deck.walk_values if CardKind.WALK in kinds else set())
                             | ({deck.finish_value} if CardKind.FINISH in kinds else set()))
            vote = read(line, allowed)
            if vote and (corner is None or vote.score > corner.score):
                corner, corner_line = vote, tuple(line)
        if (CardKind.TIMELINE in kinds and len(line) == 4 and abs(cx - W / 2) < 0.12 * W and 0.12 * H < cy < 0.5 * H
                and 0.12 * H < h < 0.22 * H and same_h):
            vote = read(line, list(range(deck.years[0], deck.years[1] + 1)))
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
            zero = read(line, [deck.start_value])
    return _EndFindings(corner, corner_line, year, year_line, inc_top, inc_bottom, zero)


# ------------------------------------------------------------------------------------------------
# Blisters


def _blister_mask(a: _Analysis) -> np.ndarray:
    """Pixels whose colour is a light orange-beige clearly more saturated than the paper."""
    lab = cv2.cvtColor(a.bgr, cv2.COLOR_BGR2LAB).astype(np.int16)
    paper_lab = cv2.cvtColor(a.paper.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.int16)[0, 0]
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
        return 0, 0.8 * a.sharp, None
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


# ------------------------------------------------------------------------------------------------
# Date line under the year


def _read_date(a: _Analysis, year_line: tuple[Blob, ...], turned: bool, year: int) -> tuple[CardDate | None, float]:
    """Read ``d.m.yyyy`` printed under the year; returns the date (or None) and its confidence."""
    W, H = READ_W, READ_H
    top = max(g.y1 for g in year_line)
    yh = max(g.h for g in year_line)
    blobs = [b.turned(W, H) if turned else b for b in a.blobs]
    by_label = {b.label: b for b in a.blobs}
    row = [b for b in blobs if top + 0.05 * yh < b.cy < top + 1.2 * yh and 0.08 * W < b.cx < 0.92 * W]
    if not row:
        return None, 1.0
    hmax = max(b.h for b in row)
    digits = sorted([b for b in row if b.h > 0.7 * hmax and b.h > 0.025 * H], key=lambda b: b.x0)
    if len(digits) < 6 or len(digits) > 8:
        return None, 0.3
    gaps = [digits[i + 1].x0 - digits[i].x1 for i in range(len(digits) - 1)]
    dots = [b for b in row if b.h < 0.35 * hmax and b.w < 0.5 * hmax and b.y0 > min(d.cy for d in digits)]
    splits = []
    for i in range(len(digits) - 1):
        if any(digits[i].x1 - 1 <= d.cx <= digits[i + 1].x0 + 1 for d in dots):
            splits.append(i + 1)
    del gaps
    if len(splits) != 2:
        return None, 0.3
    groups = [digits[: splits[0]], digits[splits[0]: splits[1]], digits[splits[1]:]]
    if len(groups[2]) != 4 or not (1 <= len(groups[0]) <= 2) or not (1 <= len(groups[1]) <= 2):
        return None, 0.3
    scores = [classify_all(_masks(a, [by_label[g.label] for g in grp], turned)) for grp in groups]
    day = _decode(scores[0], list(range(1, 32)))
    month = _decode(scores[1], list(range(1, 13)))
    yv = _decode(scores[2], [year])
    conf = min(_glyph_conf(day), _glyph_conf(month), float(np.clip((yv.score - 0.45) / 0.3, 0, 1)) if yv else 0.0)
    if day is None or month is None or conf < ACCEPT:
        return None, conf
    try:
        return CardDate(year, month.value, day.value), conf
    except Exception:  # an impossible day for the month is not a reading
        return None, 0.0


# ------------------------------------------------------------------------------------------------
# Putting it together


def _vote_corner(top: _EndFindings, bottom: _EndFindings) -> tuple[ValueVote | None, float]:
    """Combine the corner indices read at both ends (they print the same number)."""
    votes = [v for v in (top.corner, bottom.corner) if v is not None]
    if not votes:
        return None, 0.0
    if len(votes) == 2:
        if votes[0].value == votes[1].value:
            best = max(votes, key=lambda v: v.score)
            conf = 1 - (1 - _glyph_conf(votes[0])) * (1 - _glyph_conf(votes[1]))
            return best, conf
        va, vb = sorted(votes, key=lambda v: _glyph_conf(v), reverse=True)
        return va, max(0.0, _glyph_conf(va) - _glyph_conf(vb)) * 0.8
    return votes[0], _glyph_conf(votes[0]) * 0.85


def _up_score(a: _Analysis, blister_y: float | None) -> float:
    """Positive when the crop's top is the card's top for a Via Gladiola front: blisters sit
    below the middle and interval lines/banner ink above it."""
    ink = a.ink.astype(np.float32)
    upper = float(ink[int(0.22 * READ_H): int(0.5 * READ_H), int(0.1 * READ_W): int(0.9 * READ_W)].mean())
    lower = float(ink[int(0.5 * READ_H): int(0.78 * READ_H), int(0.1 * READ_W): int(0.9 * READ_W)].mean())
    score = (upper - lower) / max(0.01, upper + lower)
    if blister_y is not None:
        score += 1.0 if blister_y > 0.5 else -1.0
    return score


def read_card(card: np.ndarray, deck: Deck = Deck()) -> CardReading:
    """Read one rectified portrait card crop (BGR or gray; either end may be the top)."""
    a = analyse(card)
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
            yconf = _glyph_conf(end.year)
            date, dconf = _read_date(a, end.year_line, turned, end.year.value)
            cd = date if date is not None else CardDate(end.year.value)
            other = bottom if end is top else top
            orient = 1.0 if other.year is None or _glyph_conf(other.year) < 0.2 else 0.5
            candidates.append(CardReading(
                kind=CardKind.TIMELINE, face=Face.DATE, flipped=turned, date=cd, confidence=yconf * orient,
                field_confidences=FieldConfidences(kind=yconf, date=yconf * (dconf if date else 1.0)),
                orientation_confidence=orient))
    # Via Appia income card: a digit in each half, on the left.
    for end, turned in ((top, False), (bottom, True)):
        if end.income_top is not None and end.income_bottom is not None:
            c1, c2 = _glyph_conf(end.income_top), _glyph_conf(end.income_bottom)
            conf = min(c1, c2)
            candidates.append(CardReading(
                kind=CardKind.INCOME, face=Face.FRONT, flipped=turned, stones=end.income_top.value,
                sesterces=end.income_bottom.value, confidence=conf,
                field_confidences=FieldConfidences(kind=conf, value=conf), orientation_confidence=conf))
    # Via Gladiola walk / FINISH: corner index at both ends.
    corner, cconf = _vote_corner(top, bottom)
    income_found = any(c.kind is CardKind.INCOME and c.confidence >= ACCEPT for c in candidates)
    if corner is not None and not (income_found and (top.corner is None or bottom.corner is None)):
        kind = CardKind.FINISH if corner.value == deck.finish_value else CardKind.WALK
        up = _up_score(a, by)
        flipped = up < 0
        oconf = float(np.clip(abs(up) / 0.5, 0, 1))
        candidates.append(CardReading(
            kind=kind, face=Face.FRONT, flipped=flipped, value=corner.value, blisters=nblisters,
            confidence=min(cconf, bconf), field_confidences=FieldConfidences(kind=cconf, value=cconf, blisters=bconf),
            orientation_confidence=oconf))
    # START: a lone "0" centred near the top.
    for end, turned in ((top, False), (bottom, True)):
        if end.start_zero is not None and end.corner is None:
            zconf = float(np.clip((end.start_zero.score - 0.45) / 0.3, 0, 1))
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
        return _abstain_low(best)
    return _abstain_low(_colour_kind(a, colours, deck, nblisters, bconf, by))


def _colour_kind(a: _Analysis, c: dict[str, float], deck: Deck, nblisters: int, bconf: float,
                 blister_y: float | None) -> CardReading:
    """Kinds without digits: gladiola, Valais event side, stone tile, or unknown."""
    kinds = deck.kinds
    digits_seen = len(a.glyphs)
    if CardKind.TIMELINE in kinds and c["sky"] > 0.08 and c["sat"] > 0.25:
        # an event picture fills the upper part: the top is the end with more saturation
        hsv = cv2.cvtColor(a.bgr, cv2.COLOR_BGR2HSV)[..., 1].astype(np.float32)
        upper, lower = float(hsv[: READ_H // 2].mean()), float(hsv[READ_H // 2:].mean())
        orient = float(np.clip(abs(upper - lower) / 30, 0, 1))
        conf = float(np.clip((c["sky"] - 0.04) / 0.1, 0, 1)) * orient
        return CardReading(kind=CardKind.TIMELINE, face=Face.EVENT, flipped=upper < lower, confidence=conf,
                           field_confidences=FieldConfidences(kind=conf), orientation_confidence=orient)
    if CardKind.GLADIOLA in kinds and c["green"] > 0.004 and c["petal"] > 0.01 and c["sky"] < 0.03:
        conf = float(np.clip(min(c["green"] / 0.01, c["petal"] / 0.025), 0, 1))
        flipped = blister_y is not None and blister_y < 0.5
        return CardReading(kind=CardKind.GLADIOLA, face=Face.FRONT, flipped=flipped, blisters=nblisters,
                           confidence=min(conf, bconf),
                           field_confidences=FieldConfidences(kind=conf, blisters=bconf),
                           orientation_confidence=0.9 if blister_y is not None else 0.3)
    if c["paper"] < 0.5 and c["ink"] < 0.01 and c["sat"] < 0.05 and digits_seen == 0 and 10 < c["std"]:
        return CardReading(kind=CardKind.UNKNOWN, face=Face.TILE, confidence=0.0)
    return CardReading()


def _with_confidence(r: CardReading, conf: float) -> CardReading:
    f = r.field_confidences
    return CardReading(r.kind, r.face, r.flipped, r.value, r.blisters, r.date, r.stones, r.sesterces, r.tile,
                       conf, FieldConfidences(min(f.kind, conf), min(f.value, conf), min(f.blisters, conf),
                                              min(f.date, conf)), r.orientation_confidence, r.source)


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
    return CardReading(r.kind, r.face, r.flipped, value, blisters, date, stones, sesterces, r.tile, conf, f,
                       r.orientation_confidence, r.source)
