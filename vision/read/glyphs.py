"""An in-process digit reader: glyph templates rendered from several fonts, matched by correlation.

Templates for the digits 0-9 are drawn with PIL in a set of DejaVu faces (sans, serif, condensed,
mono; regular and bold) and augmented with stroke thinning/thickening, blur and shear. A glyph
to classify is a binary mask of one connected ink component; both the templates and the query
are cut to their ink bounding box, scaled to a fixed height, centred on a fixed canvas, blurred
and normalised, so matching is a dot product. The aspect ratio of the ink box is a second cue
(a ``1`` is narrow). The bank is built once per process (about 40 ms) and then shared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
FONTS: tuple[str, ...] = (
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
    "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
)
GLYPH_W, GLYPH_H = 20, 28
"""Canvas of a normalised glyph (the ink is scaled to GLYPH_H - 4 rows)."""


@dataclass(frozen=True)
class GlyphMatch:
    """The best digit for one glyph, its correlation score and the margin to the best other digit."""

    digit: int
    score: float
    margin: float


@dataclass(frozen=True)
class GlyphBank:
    """Normalised template vectors (one row each), their digits and ink aspect ratios (w/h)."""

    vectors: np.ndarray
    digits: np.ndarray
    aspects: np.ndarray


def normalise(mask: np.ndarray) -> tuple[np.ndarray, float]:
    """A binary ink mask (any size, non-zero = ink) as a unit feature vector and its ink aspect w/h.

    Raises ValueError when the mask holds no ink.
    """
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        raise ValueError("expected a glyph mask with ink, got an empty mask")
    crop = (mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1] > 0).astype(np.float32)
    h, w = crop.shape
    aspect = w / h
    th = GLYPH_H - 4
    tw = int(round(min(GLYPH_W - 2, max(1.0, th * aspect))))
    small = cv2.resize(crop, (tw, th), interpolation=cv2.INTER_AREA)
    canvas = np.zeros((GLYPH_H, GLYPH_W), np.float32)
    x0 = (GLYPH_W - tw) // 2
    canvas[2: 2 + th, x0: x0 + tw] = small
    canvas = cv2.GaussianBlur(canvas, (0, 0), 1.0)
    vec = canvas.ravel() - canvas.mean()
    norm = float(np.linalg.norm(vec))
    return (vec / norm if norm > 0 else vec), aspect


def render_digit(font_name: str, digit: int, size: int = 72) -> np.ndarray:
    """A binary mask of one digit drawn in ``font_name`` (ink 255)."""
    font = ImageFont.truetype(FONT_DIR + font_name, size)
    img = Image.new("L", (size * 2, size * 2), 0)
    ImageDraw.Draw(img).text((size // 2, size // 4), str(digit), font=font, fill=255)
    arr = np.asarray(img)
    return (arr > 127).astype(np.uint8) * 255


def _variants(mask: np.ndarray) -> list[np.ndarray]:
    """Augmented copies of a glyph mask: original, thinner, thicker, blurred-and-rethresholded, sheared."""
    out = [mask]
    k = np.ones((3, 3), np.uint8)
    out.append(cv2.erode(mask, k, iterations=2))
    out.append(cv2.dilate(mask, k, iterations=2))
    small = cv2.resize(mask, (mask.shape[1] // 4, mask.shape[0] // 4), interpolation=cv2.INTER_AREA)
    out.append(cv2.resize(small, (mask.shape[1], mask.shape[0]), interpolation=cv2.INTER_LINEAR))
    for shear in (-0.12, 0.12):
        m = np.float32([[1, shear, -shear * mask.shape[0] / 2], [0, 1, 0]])
        out.append(cv2.warpAffine(mask, m, (mask.shape[1], mask.shape[0])))
    return [(v > 127).astype(np.uint8) for v in out]


def template_rows(masks: Iterable[tuple[int, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Template vectors, labels and ink aspects of labelled glyph masks, each taken in all its
    variants (blur, shear; see ``_variants``); empty variants are left out."""
    vectors, labels, aspects = [], [], []
    for label, mask in masks:
        for variant in _variants(mask):
            if not variant.any():
                continue
            vec, aspect = normalise(variant)
            vectors.append(vec)
            labels.append(label)
            aspects.append(aspect)
    return np.array(vectors, np.float32), np.array(labels), np.array(aspects, np.float32)


@lru_cache(maxsize=1)
def digit_bank() -> GlyphBank:
    """The shared bank of digit templates (built on first use)."""
    return GlyphBank(*template_rows((digit, render_digit(font_name, digit))
                                    for font_name in FONTS for digit in range(10)))


def classify(mask: np.ndarray, bank: GlyphBank | None = None) -> GlyphMatch:
    """Match one glyph mask against the digit bank.

    The score of a digit is its best template correlation, reduced when the glyph's aspect ratio
    is far from that template's; the margin is the score gap to the best other digit.
    """
    bank = bank or digit_bank()
    vec, aspect = normalise(mask)
    sims = bank.vectors @ vec
    sims = sims - 0.6 * np.abs(np.log(np.maximum(aspect, 1e-3) / bank.aspects))
    best = np.full(10, -2.0, np.float32)
    np.maximum.at(best, bank.digits, sims)
    order = np.argsort(best)[::-1]
    return GlyphMatch(int(order[0]), float(best[order[0]]), float(best[order[0]] - best[order[1]]))


def classify_all(masks: list[np.ndarray], bank: GlyphBank | None = None) -> np.ndarray:
    """Per-digit scores (rows: glyphs, columns: digits 0-9) for several glyph masks at once."""
    bank = bank or digit_bank()
    if not masks:
        return np.zeros((0, 10), np.float32)
    feats = [normalise(m) for m in masks]
    vecs = np.array([f[0] for f in feats], np.float32)
    asp = np.array([f[1] for f in feats], np.float32)
    sims = vecs @ bank.vectors.T
    sims = sims - 0.6 * np.abs(np.log(np.maximum(asp[:, None], 1e-3) / bank.aspects[None, :]))
    scores = np.full((len(masks), 10), -2.0, np.float32)
    for d in range(10):
        cols = bank.digits == d
        scores[:, d] = sims[:, cols].max(axis=1)
    return scores


HOLE_SHARE = 0.025
"""Least area of a hole in a glyph (background enclosed by ink), as a share of the glyph's ink box,
for it to count (see :func:`holes`): an 8's two holes are 5-9 % of its box on the films' hand
rows; a speck of paper caught in a blurred stroke is a few pixels."""
EIGHT_PENALTY = 0.15
"""How much lower every digit but 8 scores for a glyph with two holes (see :func:`by_holes`)."""


def holes(mask: np.ndarray) -> int:
    """How many holes (background regions enclosed by ink, each at least ``HOLE_SHARE`` of the ink
    box) a binary glyph mask (non-zero = ink) has."""
    ink = (mask > 0).astype(np.uint8)
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        return 0
    box = ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    padded = cv2.copyMakeBorder(1 - box, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(padded, connectivity=4)
    least = HOLE_SHARE * box.size
    outside = labels[0, 0]
    return sum(1 for k in range(1, count) if k != outside and stats[k, cv2.CC_STAT_AREA] >= least)


def by_holes(masks: list[np.ndarray], scores: np.ndarray) -> np.ndarray:
    """``scores`` (rows: glyphs, columns: digits 0-9, see :func:`classify_all`) with every digit but
    8 scored ``EIGHT_PENALTY`` lower for a glyph with two holes: of the digits only an 8 has two,
    and template correlation alone tells a blurred 8 from a 0 or 6 by a few hundredths (film 119's
    W38 in a shown hand: 8 at 0.98, 0 at 0.90)."""
    out = scores.copy()
    for row, mask in enumerate(masks):
        if holes(mask) == 2:
            out[row, np.arange(10) != 8] -= EIGHT_PENALTY
    return out
