"""Reading the rank index of an ordinary playing card (the small "9" or "10" in its corner).

An ordinary (French-suited) card prints its rank, with a small suit pip below it, in the
top-left corner and again, turned round, in the bottom-right one; some decks print it in all
four corners. The reader takes a rectified card (any size, portrait or landscape, with any of
its four sides up) and looks at the top-left corner of each of the four quarter-turned views.
A landscape view is squeezed back to portrait proportions first, so a card whose long side was
misjudged by the detector is still read.

In each view:

1. Ink is what is much darker than the local paper in the darkest colour channel, so red
   indices count as ink as well as black ones. Components touching the corner window's edge
   (table, card border, a court card's picture frame) are dropped; one that is a rank run into
   its pip below (blur) is cut at its narrowest row.
2. The rank is the topmost glyph-sized ink in the corner, together with the glyphs on its line
   (the "1" and "0" of a "10", also when blur joined them); the suit pip below is not used.
3. The rank's ink is matched against templates of every rank symbol (A, 2-10, J, Q, K) drawn in
   several fonts, so a letter is never forced into a digit.

The views vote: a rank is reported only when a view reads it well, no view reads another rank
well, and it is one of the ranks the reader may report (by default 9 and 10); otherwise the
reader abstains. A confident wrong rank is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.errors import InvalidImageError, VisionError
from vision.read.glyphs import normalise, template_rows

RANK_NAMES: dict[int, str] = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
                              11: "J", 12: "Q", 13: "K"}
"""The printed symbol of each rank (ace 1 ... king 13)."""

VIEW_W, VIEW_H = 200, 300
"""Size every quarter-turned view is brought to (portrait card proportions, about 2.5 x 3.5)."""
WINDOW = (0.3, 0.24)
"""The corner window searched for the index, as fractions of the view's (width, height)."""
GLYPH_H = (0.07, 0.16)
"""Smallest and largest rank glyph height, as fractions of the view height."""

TEMPLATE_FONTS: tuple[str, ...] = (
    "dejavu/DejaVuSans.ttf", "dejavu/DejaVuSans-Bold.ttf", "dejavu/DejaVuSerif.ttf",
    "dejavu/DejaVuSerif-Bold.ttf", "dejavu/DejaVuSansCondensed.ttf", "dejavu/DejaVuSerifCondensed.ttf",
    "liberation/LiberationSans-Regular.ttf", "liberation/LiberationSans-Bold.ttf",
    "liberation/LiberationSerif-Regular.ttf", "liberation/LiberationSerif-Bold.ttf",
    "liberation/LiberationSansNarrow-Regular.ttf", "liberation/LiberationSansNarrow-Bold.ttf",
)
FONT_ROOT = "/usr/share/fonts/truetype/"
INK_T = 0.85
"""Ink is darker than this fraction of the local paper brightness (darkest colour channel)."""
MAX_WIDTH = 1.8
"""Widest rank ink (width / height): a "10" run together."""
SURE_SCORE = 0.72
"""Template score at which a view's reading starts to give confidence (a clear print scores about 0.9)."""


@dataclass(frozen=True)
class RankReading:
    """The rank read from a card's index (1 = ace ... 13 = king), or None, and the confidence in [0, 1].

    ``votes`` holds, per quarter turn of the input (0-3, counter-clockwise), the rank that view
    read best and its score (for inspection; None where no index-like ink was found).
    """

    rank: int | None
    confidence: float
    votes: tuple[tuple[int | None, float], ...] = field(default=(), compare=False)

    @property
    def symbol(self) -> str | None:
        """The printed symbol of the rank ("9", "10", ...), or None."""
        return RANK_NAMES[self.rank] if self.rank is not None else None


PART_ZERO, PART_ONE = 0, 14
"""Bank codes of the lone digits "0" and "1" (the glyphs of a "10"), beside the ranks 1-13."""
SQUEEZES = (1.0, 0.75)
"""Horizontal scalings of every template: index fonts are often narrow (the lone "0" and "1" also 0.55)."""
MIN_ASPECT = 0.3
"""Narrowest ink (width / height) read as a whole rank: a lone bar is a broken glyph, it matches anything."""


@dataclass(frozen=True)
class RankBank:
    """Normalised template vectors (one row each), their codes (ranks 1-13, or a lone 0 / 1) and ink aspects."""

    vectors: np.ndarray
    codes: np.ndarray
    aspects: np.ndarray

    def scores(self, mask: np.ndarray) -> np.ndarray:
        """Per code (0-14) the best template correlation of a glyph mask, less an aspect-ratio penalty."""
        vec, aspect = normalise(mask)
        sims = self.vectors @ vec - 0.6 * np.abs(np.log(max(aspect, 1e-3) / self.aspects))
        best = np.full(PART_ONE + 1, -2.0, np.float32)
        np.maximum.at(best, self.codes, sims)
        return best


def _render(font_path: str, text: str, size: int = 72) -> np.ndarray:
    """A binary mask (ink 255) of ``text`` drawn in the font at ``font_path``."""
    font = ImageFont.truetype(font_path, size)
    img = Image.new("L", (size * 3, size * 2), 0)
    ImageDraw.Draw(img).text((size // 2, size // 4), text, font=font, fill=255)
    return (np.asarray(img) > 127).astype(np.uint8) * 255


@lru_cache(maxsize=1)
def rank_bank() -> RankBank:
    """The shared bank of rank-symbol templates (built on first use)."""
    symbols = {**RANK_NAMES, PART_ZERO: "0", PART_ONE: "1"}
    missing = [name for name in TEMPLATE_FONTS if not Path(FONT_ROOT + name).is_file()]
    if missing:
        raise VisionError(f"expected the rank templates' fonts under {FONT_ROOT} (Debian packages fonts-dejavu-core, "
                          f"fonts-dejavu-extra, fonts-liberation), got none at {', '.join(missing)}")

    def masks():
        for font_name in TEMPLATE_FONTS:
            for code, text in symbols.items():
                base = _render(FONT_ROOT + font_name, text)
                for squeeze in SQUEEZES + ((0.55,) if code in (PART_ZERO, PART_ONE) else ()):
                    yield code, cv2.resize(base, (max(1, int(base.shape[1] * squeeze)), base.shape[0]),
                                           interpolation=cv2.INTER_AREA)

    return RankBank(*template_rows(masks()))


@dataclass(frozen=True)
class ViewRead:
    """What one view's corner held: best rank, its score, the margin to the next rank."""

    rank: int
    score: float
    margin: float


class PlayingCardReader:
    """Reads the rank index of a rectified ordinary playing card.

    ``ranks``: the ranks it may report (others are recognised but reported as None);
    ``min_score``/``min_margin``: template score and margin a view needs to count as a vote;
    ``accept``: confidence below which the reader abstains.
    """

    def __init__(self, ranks: frozenset[int] = frozenset({9, 10}), min_score: float = 0.55,
                 min_margin: float = 0.04, accept: float = 0.5) -> None:
        unknown = set(ranks) - set(RANK_NAMES)
        if unknown:
            raise ValueError(f"expected ranks in 1..13, got {sorted(unknown)}")
        self.ranks = frozenset(ranks)
        self.min_score = min_score
        self.min_margin = min_margin
        self.accept = accept

    def read(self, card: np.ndarray) -> RankReading:
        """Read the rank of one rectified card image (BGR or gray)."""
        if not isinstance(card, np.ndarray) or card.ndim not in (2, 3) or min(card.shape[:2]) < 8:
            raise InvalidImageError(f"expected a card image of at least 8x8 pixels, got {getattr(card, 'shape', type(card))}")
        views = [self.read_view(np.ascontiguousarray(np.rot90(card, k))) for k in range(4)]
        votes = tuple((v.rank, round(v.score, 3)) if v is not None else (None, 0.0) for v in views)
        good = [v for v in views if v is not None and v.score >= self.min_score and v.margin >= self.min_margin]
        if not good:
            return RankReading(None, 0.0, votes)
        ranks = {v.rank for v in good}
        if len(ranks) > 1:
            return RankReading(None, 0.0, votes)
        rank = good[0].rank
        best = max(good, key=lambda v: v.score)
        conf = float(np.clip((best.score - SURE_SCORE) / 0.15, 0, 1) * np.clip(best.margin / 0.1, 0, 1))
        conf = min(1.0, conf * (1.0 + 0.5 * (len(good) - 1)))
        if rank not in self.ranks or conf < self.accept:
            return RankReading(None, conf if rank in self.ranks else 0.0, votes)
        return RankReading(rank, conf, votes)

    def read_view(self, view: np.ndarray) -> ViewRead | None:
        """The rank in the top-left corner of one view of the card, or None when no index ink is there."""
        found = _index_glyphs(view)
        if found is None:
            return None
        whole, parts = found
        if len(parts) > 2:
            return None
        ys, xs = np.nonzero(whole)
        if len(parts) == 1 and np.ptp(xs) + 1 < MIN_ASPECT * (np.ptp(ys) + 1):
            return None
        bank = rank_bank()
        best = bank.scores(whole)[:PART_ONE]
        best[PART_ZERO] = -2.0
        if len(parts) == 2:
            # a two-glyph rank read glyph by glyph: a "1" then a "0"
            first, second = bank.scores(parts[0]), bank.scores(parts[1])
            best[10] = max(best[10], min(first[PART_ONE], second[PART_ZERO]))
        order = np.argsort(best)[::-1]
        return ViewRead(int(order[0]), float(best[order[0]]), float(best[order[0]] - best[order[1]]))

    @staticmethod
    def index_mask(view: np.ndarray) -> np.ndarray | None:
        """The ink mask of the rank symbol in the view's top-left corner (window size), or None."""
        found = _index_glyphs(view)
        return None if found is None else found[0]


def _corner_ratio(view: np.ndarray) -> np.ndarray:
    """The view's corner window as darkest-channel / local paper brightness (ink is well below 1)."""
    bgr = view if view.ndim == 3 else cv2.cvtColor(view, cv2.COLOR_GRAY2BGR)
    h, w = bgr.shape[:2]
    resized = cv2.resize(bgr, (VIEW_W, VIEW_H), interpolation=cv2.INTER_AREA if w > VIEW_W else cv2.INTER_LINEAR)
    win = resized[: int(WINDOW[1] * VIEW_H), : int(WINDOW[0] * VIEW_W)]
    dark = win.min(axis=2).astype(np.float32)
    bg = cv2.blur(cv2.dilate(dark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))), (9, 9))
    return dark / np.maximum(bg, 1.0)


def _index_glyphs(view: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The rank's ink in the view's corner window: the whole mask and one mask per glyph (left to right)."""
    ratio = _corner_ratio(view)
    ink = (ratio < INK_T).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    wh, ww = ink.shape
    lo, hi = GLYPH_H[0] * VIEW_H, GLYPH_H[1] * VIEW_H
    cands = []
    for i in range(1, n):
        x, y, bw, bh, _ = stats[i]
        if x == 0 or y == 0 or x + bw >= ww:
            continue
        if hi < bh <= 2.5 * hi and y < 0.5 * wh:
            # the rank run into its pip below (blur, thick print): cut it off and keep the upper glyph
            upper = _cut_off_pip(ratio[y: y + bh, x: x + bw], labels[y: y + bh, x: x + bw] == i, lo, hi)
            if upper is not None:
                sx, sy, sw, sh = cv2.boundingRect(upper)
                n += 1
                labels[y: y + bh, x: x + bw][upper > 0] = n
                cands.append((int(y + sy), int(x + sx), int(sw), int(sh), n))
            continue
        if y + bh >= wh or not lo <= bh <= hi or bw > MAX_WIDTH * bh:
            continue
        cands.append((int(y), int(x), int(bw), int(bh), i))
    if not cands:
        return None
    cands.sort()
    y0, x0, bw0, bh0, _ = cands[0]
    group = [cands[0]]
    for c in cands[1:]:
        y, x, bw, bh, _ = c
        overlap = min(y0 + bh0, y + bh) - max(y0, y)
        gap = max(x - (x0 + bw0), x0 - (x + bw))
        if overlap > 0.7 * min(bh, bh0) and gap < 0.5 * bh0:
            group.append(c)
    group.sort(key=lambda c: c[1])
    # re-threshold the rank's box at its own Otsu level: crisper strokes than the search threshold
    gx0, gy0 = min(c[1] for c in group), min(c[0] for c in group)
    gx1, gy1 = max(c[1] + c[2] for c in group), max(c[0] + c[3] for c in group)
    box = ratio[gy0:gy1, gx0:gx1]
    level, _ = cv2.threshold(np.clip(box * 255, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    tight = ratio < min(INK_T, level / 255.0 + 0.02)
    masks = []
    for c in group:
        own = (labels == c[4]) & tight
        masks.append(own.astype(np.uint8) * 255 if own.any() else (labels == c[4]).astype(np.uint8) * 255)
    whole = np.maximum.reduce(masks)
    if len(group) == 1:
        masks = _split_columns(whole) or masks
    return whole, masks


def _cut_off_pip(box: np.ndarray, own: np.ndarray, lo: float, hi: float) -> np.ndarray | None:
    """The upper glyph of a component that is a rank run into its pip, or None.

    The component is cut at its narrowest row between a glyph's smallest and largest height;
    failing that, its own Otsu level is tried (a blurred bridge is paler than the strokes). The
    glyph kept must start at the top of the component.
    """
    rows = own.sum(axis=1).astype(np.float32)
    first, last = int(lo), int(min(hi, len(rows) - 0.3 * lo))
    tries = []
    if last > first:
        cut = first + int(np.argmin(rows[first:last]))
        above = own.copy()
        above[cut:] = False
        tries.append(above)
    level, _ = cv2.threshold(np.clip(box * 255, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    tries.append((box < level / 255.0) & own)
    for inner in tries:
        m, sub, stats, _ = cv2.connectedComponentsWithStats(inner.astype(np.uint8), connectivity=8)
        glyphs = [j for j in range(1, m) if lo <= stats[j][3] <= hi and stats[j][2] <= MAX_WIDTH * stats[j][3]
                  and stats[j][1] <= 0.2 * len(rows)]
        if glyphs:
            top = min(glyphs, key=lambda j: stats[j][1])
            return (sub == top).astype(np.uint8) * 255
    return None


def _split_columns(whole: np.ndarray) -> list[np.ndarray] | None:
    """Two glyph masks (left, right) when one blob is two tall glyphs side by side (a blurred "10"), else None."""
    m, sub, stats, _ = cv2.connectedComponentsWithStats((whole > 0).astype(np.uint8), connectivity=8)
    height = max(stats[j][3] for j in range(1, m)) if m > 1 else 0
    tall = sorted((stats[j][0], j) for j in range(1, m) if stats[j][3] >= 0.75 * height)
    if len(tall) == 2:
        return [(sub == j).astype(np.uint8) * 255 for _, j in tall]
    ys, xs = np.nonzero(whole)
    x0, x1 = int(xs.min()), int(xs.max()) + 1
    if x1 - x0 < 0.5 * height:
        return None
    cols = (whole[:, x0:x1] > 0).sum(axis=0)
    first, last = int(0.2 * (x1 - x0)), int(0.6 * (x1 - x0))
    cut = x0 + first + int(np.argmin(cols[first:last]))
    if cols[cut - x0] > 0.15 * height:
        return None
    left, right = whole.copy(), whole.copy()
    left[:, cut:] = 0
    right[:, :cut] = 0
    if not left.any() or not right.any():
        return None
    return [left, right]


__all__ = ["PlayingCardReader", "RANK_NAMES", "RankReading", "rank_bank"]
