"""Compact appearance descriptors of rectified cards, and robust distances between them.

A descriptor is computed from an upright (portrait) card crop of any size:

* a thin border is cut off (it holds table pixels when a quad is a little off, and the rounded
  corners);
* the colour channels are scaled to equal means (grey world), so that a colour cast of the light,
  which scales the channels, cancels out on light print and dark paper alike;
* **luma**: the Lab lightness at ``LUMA_W x LUMA_H``, high-pass filtered (a wide Gaussian is
  subtracted, which removes uneven light and vignetting) and scaled to unit standard deviation
  (which removes exposure and contrast);
* **chroma**: Lab a/b at ``CHROMA_W x CHROMA_H`` with each channel's median subtracted (the
  paper colour), in units of ``CHROMA_SCALE``.

Distances are computed per cell of a ``GRID_W x GRID_H`` grid (luma and chroma cells cover the
same part of the card). Cells that fit no template at all (a hand, glare or a card lying over
part of the face) are left out for every template alike, so they do not decide the outcome;
cells that fit some templates and not others (the ones that tell cards apart) always count.
Every template is also compared in small shifts (``SHIFTS``), so that a crop cut a millimetre
off (in its enrollment photo, or along a bent edge at the table) still lines up with its card.

Camera blur is modelled on the templates, never undone on the query: :func:`blur_kernels` lists
defocus disks and motion streaks, and :func:`blur_luma` shows a template through one of them.
:func:`align_template` lays a template over a query more closely than a shift can (a homography
that moves no corner more than ``ALIGN_REACH``), for crops cut from slightly wrong quads;
:func:`nudges` and :func:`best_nudge` move it a little further where two candidates differ, and
:func:`blur_margin` marks the pixels that a blur fills from outside the descriptor.
:func:`quarter_turn` turns back a crop that was cut with the card lying on its side,
:func:`outside_cells` marks the cells of a crop that ran out of the image, and
:func:`blister_slots` finds where a deck prints its blisters from the enrolled labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import CalibrationError

LUMA_W, LUMA_H = 48, 72
CHROMA_W, CHROMA_H = 24, 36
GRID_W, GRID_H = 8, 12
BORDER = 0.07
"""Fraction of the crop's width/height cut off each side before describing."""
HIGHPASS_SIGMA = 6.0
"""Gaussian sigma (luma pixels) of the illumination estimate subtracted from lightness."""
SMOOTH_SIGMA = 0.8
"""Gaussian sigma (luma pixels) that makes the comparison tolerate a pixel of misalignment."""
MIN_CONTRAST = 8.0
"""Smallest lightness spread (Lab L units) used for scaling, so a plain card's noise is not blown up."""
CLIP = 2.5
"""Scaled lightness is clipped to +-CLIP so that a few strong strokes cannot dominate a distance."""
CHROMA_SCALE = 8.0
"""Lab a/b units that count as one unit of chroma difference."""


@dataclass(frozen=True, eq=False)
class Descriptor:
    """The appearance of one card in one orientation: ``luma`` (H x W) and ``chroma`` (H x W x 2).

    ``outside``: grid cells (boolean, grid order) known to show no card at all, as the crop was cut
    from a quad running out of the image there (:func:`outside_cells`); None when all is in frame.
    """

    luma: np.ndarray
    chroma: np.ndarray
    outside: np.ndarray | None = None


def check_crop(crop: object) -> np.ndarray:
    """The crop as a BGR uint8 array; a CalibrationError unless it is a non-empty portrait image."""
    if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3) or crop.size == 0:
        raise CalibrationError(f"expected a non-empty card image array, got {getattr(crop, 'shape', type(crop).__name__)}")
    if crop.ndim == 3 and crop.shape[2] not in (1, 3, 4):
        raise CalibrationError(f"expected a gray, BGR or BGRA image, got {crop.shape[2]} channels")
    if crop.dtype != np.uint8:
        raise CalibrationError(f"expected an 8-bit image, got dtype {crop.dtype}")
    h, w = crop.shape[:2]
    if h < 8 or w < 6:
        raise CalibrationError(f"expected a card crop of at least 6x8 pixels, got {w}x{h}")
    if w >= h:
        raise CalibrationError(f"expected an upright (portrait) card crop, got {w}x{h} (wider than high)")
    if crop.ndim == 2 or crop.shape[2] == 1:
        return cv2.cvtColor(crop.reshape(h, w), cv2.COLOR_GRAY2BGR)
    if crop.shape[2] == 4:
        return cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
    return crop


def grey_world(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` with each channel scaled to the same mean: a colour cast of the light (which scales
    the channels) cancels out, whatever the card shows."""
    img = bgr.astype(np.float32)
    means = img.reshape(-1, 3).mean(axis=0)
    gains = float(means.mean()) / np.maximum(means, 1.0)
    return np.clip(img * gains + 0.5, 0, 255).astype(np.uint8)


OUTSIDE_SHARE = 0.2
"""Smallest share of a grid cell lying outside the image for the whole cell to count as outside."""


def outside_cells(outside: np.ndarray, crop_shape: tuple[int, ...], share: float = OUTSIDE_SHARE) -> np.ndarray:
    """The grid cells (boolean, grid order) of a crop of ``crop_shape`` of which at least ``share``
    lies outside the image, given the crop's pixel mask ``outside`` (True: outside).

    The crop repeats the image's edge there (or is black), which looks like plain card; a
    descriptor sets those cells aside like hidden ones. The border cut off by :func:`describe`
    is cut off the mask as well.
    """
    h, w = int(crop_shape[0]), int(crop_shape[1])
    if not isinstance(outside, np.ndarray) or outside.shape != (h, w):
        raise CalibrationError(f"expected an outside mask of the crop's size {h}x{w}, "
                               f"got {getattr(outside, 'shape', type(outside).__name__)}")
    dy, dx = int(round(h * BORDER)), int(round(w * BORDER))
    inner = outside[dy:h - dy, dx:w - dx].astype(np.float32)
    return (cv2.resize(inner, (GRID_W, GRID_H), interpolation=cv2.INTER_AREA) >= share).ravel()


def describe(crop: np.ndarray, outside: np.ndarray | None = None) -> Descriptor:
    """The descriptor of an upright card crop (BGR or gray uint8, portrait); ``outside``: the crop's
    pixels that lie outside the image (boolean, the crop's height x width), see :func:`outside_cells`."""
    bgr = check_crop(crop)
    cells = None if outside is None else outside_cells(outside, bgr.shape)
    h, w = bgr.shape[:2]
    dy, dx = int(round(h * BORDER)), int(round(w * BORDER))
    inner = bgr[dy:h - dy, dx:w - dx]
    # Shrinking in two steps (area averaging, then a mild blur) keeps fine print from aliasing.
    small = cv2.resize(inner, (LUMA_W * 2, LUMA_H * 2), interpolation=cv2.INTER_AREA)
    small = cv2.resize(small, (LUMA_W, LUMA_H), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(grey_world(small), cv2.COLOR_BGR2LAB).astype(np.float32)
    light = lab[:, :, 0]
    high = light - cv2.GaussianBlur(light, (0, 0), HIGHPASS_SIGMA, borderType=cv2.BORDER_REFLECT)
    high = cv2.GaussianBlur(high, (0, 0), SMOOTH_SIGMA, borderType=cv2.BORDER_REFLECT)
    high = np.clip(high / max(float(high.std()), MIN_CONTRAST), -CLIP, CLIP)
    ab = cv2.resize(lab[:, :, 1:3], (CHROMA_W, CHROMA_H), interpolation=cv2.INTER_AREA)
    ab -= np.median(ab.reshape(-1, 2), axis=0)
    ab /= CHROMA_SCALE
    return Descriptor(high.astype(np.float32), ab.astype(np.float32), cells if cells is not None and cells.any() else None)


def _kernel(draw: Callable[[np.ndarray, float], object], reach: float) -> np.ndarray:
    """A normalised blur kernel drawn at 4x size by ``draw(canvas, centre)`` and shrunk."""
    n = int(2 * np.ceil(reach) + 1)
    big = np.zeros((4 * n, 4 * n), np.float32)
    draw(big, (4 * n - 1) / 2)
    k = cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)
    return k / k.sum()


def _disk(radius: float) -> np.ndarray:
    def draw(big: np.ndarray, c: float) -> None:
        cv2.circle(big, (round(16 * c), round(16 * c)), round(64 * radius), 1.0, -1, cv2.LINE_AA, 4)
    return _kernel(draw, radius)


def _streak(length: float, angle_deg: float) -> np.ndarray:
    dx, dy = 2 * length * np.cos(np.radians(angle_deg)), 2 * length * np.sin(np.radians(angle_deg))

    def draw(big: np.ndarray, c: float) -> None:
        cv2.line(big, (round(16 * (c - dx)), round(16 * (c - dy))), (round(16 * (c + dx)), round(16 * (c + dy))),
                 1.0, 4, cv2.LINE_AA, 4)
    return _kernel(draw, length / 2)


BLUR_DISKS = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5)
"""Radii (luma pixels) of the defocus blurs a camera may add (a small card far from the camera
takes a wide one)."""
BLUR_STREAKS = (3.0, 5.0, 7.0, 9.0, 11.0, 13.0)
"""Lengths (luma pixels) of the motion streaks a camera may add, each in BLUR_ANGLES directions."""
BLUR_ANGLES = (0.0, 22.5, 45.0, 67.5, 90.0, 112.5, 135.0, 157.5)
"""Directions (degrees) of the streaks: a long streak 22 degrees off its model fits no better than
no blur at all near fine print."""


def blur_kernels() -> tuple[np.ndarray, ...]:
    """Defocus disks and motion streaks (in luma pixels) that a camera may add to a card."""
    return tuple([_disk(r) for r in BLUR_DISKS] + [_streak(n, a) for n in BLUR_STREAKS for a in BLUR_ANGLES])


def blur_luma(luma: np.ndarray, kernel: np.ndarray | None) -> np.ndarray:
    """A luma descriptor as seen through ``kernel`` (None: unchanged), at its former spread."""
    if kernel is None:
        return luma
    b = cv2.filter2D(luma, -1, kernel, borderType=cv2.BORDER_REFLECT)
    return np.clip(b * (float(luma.std()) / max(float(b.std()), 1e-3)), -CLIP, CLIP)


def blur_chroma(chroma: np.ndarray, kernel: np.ndarray | None) -> np.ndarray:
    """A chroma descriptor (H x W x 2, at half the luma resolution) seen through a luma ``kernel``
    (None: unchanged), the kernel shrunk to the chroma grid; colour keeps its strength here (the
    print's colour spreads out, it is not rescaled as :func:`blur_luma` rescales lightness)."""
    if kernel is None:
        return chroma
    n = max(1, int(round(kernel.shape[0] * CHROMA_W / LUMA_W)))
    k = cv2.resize(kernel.astype(np.float32), (n, n), interpolation=cv2.INTER_AREA)
    k /= max(float(k.sum()), 1e-9)
    return cv2.filter2D(chroma, -1, k, borderType=cv2.BORDER_REFLECT)


def to_chroma_grid(mask: np.ndarray, share: float = 0.5) -> np.ndarray:
    """A (LUMA_H, LUMA_W) boolean pixel mask on the chroma grid: the chroma pixels of which at
    least ``share`` is marked."""
    return cv2.resize(mask.astype(np.float32), (CHROMA_W, CHROMA_H), interpolation=cv2.INTER_AREA) >= share


def blur_margin(kernel: np.ndarray | None, share: float = 0.03) -> np.ndarray:
    """Pixels (boolean, H x W) of a luma descriptor that a blur through ``kernel`` fills partly
    (more than ``share`` of their weight) from outside the descriptor.

    A blurred crop carries the card's frame and the table into these pixels, which a template
    cut at the descriptor's edge cannot show; none for no kernel.
    """
    if kernel is None:
        return np.zeros((LUMA_H, LUMA_W), bool)
    inside = cv2.filter2D(np.ones((LUMA_H, LUMA_W), np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT)
    return inside < 1.0 - share


ALIGN_ITERATIONS = 12
"""Iterations of the refinement of a template onto a query (:func:`align_template`)."""
ALIGN_REACH = 3.5
"""Farthest (luma pixels) an alignment may move a corner of the descriptor."""


def align_template(query: np.ndarray, template: np.ndarray, usable: np.ndarray, dx: float = 0.0,
                   dy: float = 0.0) -> np.ndarray | None:
    """The homography (3 x 3) that lays ``template`` over ``query`` best on ``usable`` query pixels.

    Starts from the shift (dx, dy). An enrollment crop cut from a quad with one corner a few
    pixels off is skewed against every view of its card, which no shift can undo. None when the
    refinement fails or would move the template implausibly far.
    """
    start = np.float32([[1, 0, dx], [0, 1, dy], [0, 0, 1]])
    try:
        _, warp = cv2.findTransformECC(template.astype(np.float32), query.astype(np.float32), start,
                                       cv2.MOTION_HOMOGRAPHY,
                                       (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ALIGN_ITERATIONS, 1e-4),
                                       usable.astype(np.uint8), 1)
    except cv2.error:
        return None
    corners = np.float32([[[0, 0]], [[LUMA_W - 1, 0]], [[LUMA_W - 1, LUMA_H - 1]], [[0, LUMA_H - 1]]])
    moved = cv2.perspectiveTransform(corners, warp)
    if not np.isfinite(moved).all() or float(np.abs(moved - corners).max()) > ALIGN_REACH:
        return None
    return warp


def warp_luma(luma: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """``luma`` moved by the homography ``warp`` (as found by :func:`align_template`)."""
    return cv2.warpPerspective(luma, warp, (luma.shape[1], luma.shape[0]), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def quarter_turn(crop: np.ndarray) -> np.ndarray:
    """``crop`` turned a quarter turn clockwise and stretched back to its own width and height.

    A crop cut from a quad whose long side was taken for the short one shows the card lying on
    its side and squeezed; turned and stretched like this, it shows the card upright or upside
    down, as a descriptor expects.
    """
    img = check_crop(crop)
    h, w = img.shape[:2]
    return cv2.resize(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), (w, h), interpolation=cv2.INTER_AREA)


def quarter_turn_mask(mask: np.ndarray) -> np.ndarray:
    """A boolean pixel mask of a crop turned like :func:`quarter_turn` turns the crop."""
    h, w = mask.shape[:2]
    turned = cv2.resize(cv2.rotate(mask.astype(np.float32), cv2.ROTATE_90_CLOCKWISE), (w, h),
                        interpolation=cv2.INTER_AREA)
    return turned >= 0.5


def rotate_180(d: Descriptor) -> Descriptor:
    """The descriptor of the same crop turned by 180 degrees (exact, no re-sampling)."""
    outside = None if d.outside is None else np.ascontiguousarray(d.outside[::-1])
    return Descriptor(np.ascontiguousarray(d.luma[::-1, ::-1]), np.ascontiguousarray(d.chroma[::-1, ::-1]), outside)


def _cells(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """Regroup (N, H, W[, ch]) pixels as (N, cells, pixels per cell) in grid order."""
    n = a.shape[0]
    a = a.reshape(n, GRID_H, h // GRID_H, GRID_W, w // GRID_W, -1)
    return np.ascontiguousarray(a.transpose(0, 1, 3, 2, 4, 5).reshape(n, GRID_H * GRID_W, -1))


SHIFTS = (-1.0, -0.5, 0.0, 0.5, 1.0)
"""Shifts (luma pixels, in x and in y) under which every template is also compared, so that a card
cut out a millimetre off (in its enrollment photo, or at the table) still lines up with itself."""


def _moved(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``img`` moved by (dx, dy) of its own pixels (edges repeated)."""
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def shifted(luma: np.ndarray, chroma: np.ndarray, dx: float, dy: float) -> tuple[np.ndarray, np.ndarray]:
    """A descriptor's ``luma`` (H, W) and ``chroma`` (h, w, 2) moved by (dx, dy) luma pixels."""
    if dx == 0 and dy == 0:
        return luma, chroma
    return _moved(luma, dx, dy), shifted_chroma(chroma, dx, dy)


def shifted_chroma(chroma: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """A descriptor's ``chroma`` (h, w, 2) moved by (dx, dy) luma pixels."""
    if dx == 0 and dy == 0:
        return chroma
    return _moved(chroma, dx * CHROMA_W / LUMA_W, dy * CHROMA_H / LUMA_H)


NUDGE_REACH = 2.0
"""Farthest (luma pixels, in x and in y) a template is moved to fit the part of a card where two
candidates differ (:func:`nudges`)."""
NUDGE_STEP = 0.5


def nudges(luma: np.ndarray, reach: float = NUDGE_REACH, step: float = NUDGE_STEP) -> np.ndarray:
    """``luma`` (H, W) moved by every shift up to ``reach`` in x and y in steps of ``step``: (S, H, W).

    The part of a card that tells two candidates apart (a blister column, a second digit) can sit
    a pixel or two off in one enrollment crop while the rest of the card lines up.
    """
    steps = np.arange(-reach, reach + step / 2, step)
    return np.stack([_moved(luma, float(dx), float(dy)) for dy in steps for dx in steps])


def best_nudge(query: np.ndarray, moved: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The one of ``moved`` (S, H, W) that fits ``query`` (H, W) best on the ``mask`` pixels."""
    if not mask.any():
        return moved[len(moved) // 2]
    errors = ((moved[:, mask] - query[mask][None]) ** 2).sum(axis=1)
    return moved[int(errors.argmin())]


class TemplateBank:
    """Templates, each also in small shifts, regrouped per grid cell for fast cell distances."""

    def __init__(self, luma: np.ndarray, chroma: np.ndarray, chroma_weight: float,
                 shifts: tuple[float, ...] = SHIFTS) -> None:
        self.chroma_weight = chroma_weight
        moves = [(dx, dy) for dy in shifts for dx in shifts]
        rows = [[shifted(luma[i].astype(np.float32), chroma[i].astype(np.float32), dx, dy) for dx, dy in moves]
                for i in range(luma.shape[0])]
        self.variants = len(moves)
        self.moves = tuple(moves)
        self.luma_images = np.stack([[lv for lv, _ in row] for row in rows])  # (N, variants, H, W)
        self.luma = _cells(self.luma_images.reshape(-1, LUMA_H, LUMA_W), LUMA_H, LUMA_W)
        self.chroma = _cells(np.stack([cv for row in rows for _, cv in row]), CHROMA_H, CHROMA_W)
        self._luma_energy = (self.luma ** 2).sum(axis=2)
        self._chroma_energy = (self.chroma ** 2).sum(axis=2)

    def cell_distances(self, query: Descriptor, unshifted: bool = False) -> np.ndarray:
        """Mean squared differences per grid cell to every template in every shift: (N, shifts, cells).

        ``unshifted``: to every template as enrolled only, (N, 1, cells), a quicker first look.
        """
        rows = slice(None) if not unshifted else slice(self.moves.index((0.0, 0.0)), None, self.variants)
        ql = _cells(query.luma[None], LUMA_H, LUMA_W)[0]
        qc = _cells(query.chroma[None], CHROMA_H, CHROMA_W)[0]
        dl = self._luma_energy[rows] - 2 * np.einsum("ncp,cp->nc", self.luma[rows], ql) + (ql ** 2).sum(axis=1)
        dc = self._chroma_energy[rows] - 2 * np.einsum("ncp,cp->nc", self.chroma[rows], qc) + (qc ** 2).sum(axis=1)
        cells = np.maximum(dl, 0) / ql.shape[1] + self.chroma_weight * np.maximum(dc, 0) / (qc.shape[1] / 2)
        return cells.reshape(-1, 1 if unshifted else self.variants, cells.shape[1])


def digit_lean(query: np.ndarray, ta: np.ndarray, tb: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """How much more the ``mask`` pixels of ``query`` look like ``ta`` than like ``tb``, as two
    scores in [-1, 1]: the correlation of the query's departure from the mean of the two with
    the difference ``ta - tb`` (blind to brightness there), and the relative gap between the
    residuals of the query fitted by each template scaled and offset, ``(b - a) / (a + b)``
    (blind to contrast as well, which blur takes away). (0, 0) on fewer than 8 pixels.
    """
    if int(mask.sum()) < 8:
        return 0.0, 0.0
    a, b, q = ta[mask].astype(np.float64), tb[mask].astype(np.float64), query[mask].astype(np.float64)
    d = a - b
    m = 2 * q - a - b
    d, m = d - d.mean(), m - m.mean()
    corr = float(d @ m / max(float(np.linalg.norm(d) * np.linalg.norm(m)), 1e-9))

    def residual(t: np.ndarray) -> float:
        design = np.stack([t, np.ones_like(t)], axis=1)
        coef = np.linalg.lstsq(design, q, rcond=None)[0]
        return float(((design @ coef - q) ** 2).mean())

    ra, rb = residual(a), residual(b)
    return corr, (rb - ra) / max(ra + rb, 1e-9)


def luma_cell_errors(query: np.ndarray, templates: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean squared luma differences per grid cell between a query (H, W) and templates (N, H, W).

    With ``mask`` (H, W boolean), only its pixels count (0 in a cell without any).
    """
    diff = templates.astype(np.float32) - query[None].astype(np.float32)
    if mask is None:
        return (_cells(diff, LUMA_H, LUMA_W) ** 2).mean(axis=2)
    weight = _cells(mask[None].astype(np.float32), LUMA_H, LUMA_W)
    return ((_cells(diff, LUMA_H, LUMA_W) ** 2) * weight).sum(axis=2) / np.maximum(weight.sum(axis=2), 1.0)


def luma_cell_correlations(query: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Correlation per grid cell (cells,) between a query's luma (H, W) and one template's.

    Unlike the squared differences, it does not depend on how strongly the print stands out (a
    light's colour changes the lightness of coloured print against the paper); 0 in flat cells.
    """
    a = _cells(query[None].astype(np.float32), LUMA_H, LUMA_W)[0]  # (cells, pixels per cell)
    b = _cells(template[None].astype(np.float32), LUMA_H, LUMA_W)[0]
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    return np.where(norm > 1e-6, (a * b).sum(axis=1) / np.maximum(norm, 1e-6), 0.0)


def outlier_cells(cells: np.ndarray, keep: float, floor: float) -> np.ndarray:
    """Cells where the query fits *no* template (hand, glare, a card on top): a boolean (cells,) mask.

    A cell counts as an outlier when even its best template differs by more than ``floor``; at most
    the worst ``1 - keep`` fraction of cells is dropped. Cells where only some templates differ are
    the ones that tell cards apart, so they are always kept.
    """
    best = cells.min(axis=0)
    drop = max(0, int(round(cells.shape[1] * (1.0 - keep))))
    out = np.zeros(cells.shape[1], dtype=bool)
    if drop:
        worst = np.argsort(best)[-drop:]
        out[worst[best[worst] > floor]] = True
    return out


def masked_mean(cells: np.ndarray, outliers: np.ndarray) -> np.ndarray:
    """Mean of each row over the cells that are not outliers."""
    good = ~outliers
    return cells[:, good].mean(axis=1) if good.any() else cells.mean(axis=1)


SLOT_CORRELATION = 0.7
"""Smallest correlation over a deck between a pixel's luma and "the card has at least k blisters"
for that pixel to belong to blister slot k."""


def blister_slots(luma: np.ndarray, counts: np.ndarray, floor: float = SLOT_CORRELATION) -> list[np.ndarray]:
    """Where a deck prints its k-th blister: boolean (H, W) masks for k = 1 up to the largest count.

    ``luma`` (N, H, W) are the deck's upright templates and ``counts`` (N,) their blister counts.
    A pixel of slot k follows "at least k blisters" across the deck (correlation ``floor`` or
    more) more closely than any other count, in the one blob that follows it most; a deck that
    prints its blisters in no fixed place (or has none) gets no slots. Where no card has exactly
    k - 1 blisters, slots k - 1 and k cannot be told apart: slot k - 1 takes one of the two
    blisters and slot k stays empty.
    """
    x = luma.reshape(len(luma), -1).astype(np.float64)
    x = x - x.mean(axis=0)
    corrs = []
    for k in range(1, int(counts.max(initial=0)) + 1):
        ind = (counts >= k).astype(np.float64)
        ind -= ind.mean()
        denom = np.sqrt((x * x).sum(axis=0) * float((ind * ind).sum()))
        corrs.append(np.where(denom > 1e-9, (x * ind[:, None]).sum(axis=0) / np.maximum(denom, 1e-9), 0.0))
    if not corrs:
        return []
    stack = np.stack(corrs)
    top = stack.argmax(axis=0)
    slots = []
    for k, corr in enumerate(stack):
        mask = ((corr >= floor) & (top == k)).reshape(luma.shape[1:])
        # A blister is one blob: print that happens to follow the count elsewhere (a digit in a
        # small deck) is left out.
        n, parts = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
        if n > 2:
            weight = np.bincount(parts.ravel(), weights=corr, minlength=n)
            weight[0] = -np.inf
            mask = parts == int(weight.argmax())
        slots.append(mask)
    return slots if any(s.any() for s in slots) else []
