"""Finding the single card in an enrollment photo and cutting it out upright.

An enrollment photo shows one card lying upright (its top towards the top of the image) on a
plain background that contrasts with the card. :func:`plain_background_quad` separates the card
from the background by colour (the background colour is taken from the image border), fits a
straight line to each side of the outline (so rounded corners do not pull the corners inwards)
and intersects them. :func:`choose_quad` reconciles that outline with quads from a general card
detector: an outline whose sides were fitted is used as it is (its corners lie within a few
pixels of the card's); a detector can mistake a large printed digit for a card, so a detector
quad is only used when it agrees with a rough outline (sides that could not be fitted) or when
no outline was found and it is large enough.

This module uses OpenCV only (no ``vision`` import: ``vision`` may import ``calibration``).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.errors import CalibrationError

CROP_W, CROP_H = 240, 368
"""Size of enrollment crops (portrait)."""
MIN_AREA = 0.02
"""Smallest card area, as a fraction of the photo, for an outline to count as the card."""
ASPECT = (0.5, 0.85)
"""Plausible short/long side ratios of a card seen from roughly above."""
AGREE = 0.015
"""Largest corner distance, as a fraction of the card's long side, for two quads to agree (a
detected quad is used instead of the outline only then: the segmenting detector's corners can be
1-3% of the long side off, which skews the enrolled template against every view of its card)."""


def order_upright(quad: np.ndarray) -> np.ndarray:
    """Corners of a convex quad as top-left, top-right, bottom-right, bottom-left of an upright card.

    The long sides are vertical; of the two short sides the higher one in the image is the top.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    q = q[np.argsort(np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0]))]  # clockwise on screen
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    start = 0 if sides[0] + sides[2] <= sides[1] + sides[3] else 1
    other = start + 2
    mid_a = (q[start] + q[(start + 1) % 4]) / 2
    mid_b = (q[other] + q[(other + 1) % 4]) / 2
    if mid_b[1] < mid_a[1]:
        start = other
    return np.roll(q, -start, axis=0)


def _aspect(quad: np.ndarray) -> float:
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    return float((sides[0] + sides[2]) / max(1e-9, sides[1] + sides[3]))


def _area(quad: np.ndarray) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32))))


def densify(polygon: np.ndarray, step: float = 1.0) -> np.ndarray:
    """Points every ``step`` pixels along the closed ``polygon`` (N x 2 or N x 1 x 2).

    A convex hull keeps only its vertices, so a card's straight side is two points far apart;
    the side lines are fitted to points along the whole side.
    """
    pts = np.asarray(polygon, np.float64).reshape(-1, 2)
    out = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0)):
        n = max(1, int(np.ceil(float(np.linalg.norm(b - a)) / step)))
        out.append(a + (b - a) * (np.arange(n)[:, None] / n))
    return np.concatenate(out)


def _side_lines(contour: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """Refine 4 rough corners by fitting a line to the middle part of each side of ``contour``."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 4:
            return None
        u = d / length
        n = np.array([-u[1], u[0]])
        t = (pts - a) @ u
        off = (pts - a) @ n
        near = (t > 0.15 * length) & (t < 0.85 * length) & (np.abs(off) < max(3.0, 0.03 * length))
        if near.sum() < 5:
            return None
        vx, vy, x0, y0 = cv2.fitLine(pts[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for i in range(4):
        (p1, v1), (p2, v2) = lines[(i - 1) % 4], lines[i]
        m = np.array([v1, -v2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * v1)
    return np.array(out)


WORK_SIDE = 640
"""Photos are searched at most this many pixels on their long side (corners scaled back)."""


def plain_background_quad(photo: np.ndarray) -> np.ndarray | None:
    """The outline (4 corners, upright order) of the one card on a plain background, or None."""
    return _fitted_outline(photo)[0]


def _fitted_outline(photo: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """:func:`plain_background_quad`, and whether its corners come from lines fitted to the sides
    (else from a rough polygon around the outline, whose corners cut into rounded card corners)."""
    scale = min(1.0, WORK_SIDE / max(photo.shape[:2]))
    if scale < 1.0:
        small = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        quad, fitted = _outline(small)
        return (None if quad is None else (quad + 0.5) / scale - 0.5), fitted
    return _outline(photo)


def _outline(photo: np.ndarray) -> tuple[np.ndarray | None, bool]:
    h, w = photo.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(photo, (0, 0), 1.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    # The background is modelled as a smooth (quadratic) colour surface fitted to the image's
    # border, which follows vignetting and uneven light.
    b = max(2, int(0.03 * min(h, w)))
    ring = np.zeros((h, w), bool)
    ring[:b], ring[-b:], ring[:, :b], ring[:, -b:] = True, True, True, True
    ys, xs = np.nonzero(ring)
    pick = np.linspace(0, len(xs) - 1, min(len(xs), 4000)).astype(int)
    ys, xs = ys[pick], xs[pick]

    def basis(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        u, v = x / w - 0.5, y / h - 0.5
        return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=-1)

    samples = lab[ys, xs]
    coef, *_ = np.linalg.lstsq(basis(xs.astype(np.float64), ys.astype(np.float64)), samples, rcond=None)
    spread = float(np.percentile(np.linalg.norm(samples - basis(xs.astype(np.float64), ys.astype(np.float64)) @ coef,
                                                axis=1), 95))
    gy, gx = np.mgrid[0:h, 0:w]
    background = (basis(gx.astype(np.float32), gy.astype(np.float32)) @ coef.astype(np.float32)).astype(np.float32)
    dist = np.linalg.norm(lab - background, axis=2)
    # Soft shadows differ from the background much less than the card does.
    level = max(12.0, 2.0 * spread + 4.0, 0.4 * float(np.percentile(dist, 99.5)))
    mask = (dist > level).astype(np.uint8) * 255
    k = max(3, int(0.01 * min(h, w)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    # Close thin gaps (a light frame line printed near the edge of a dark card), fill holes, then
    # drop specks.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    mask = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, cv2.FILLED)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None, False
    # A card with light parts may fall apart into several pieces: take the convex hull of every
    # sizeable piece (the card is convex) and require it to be nearly a rectangle.
    pieces = [c for c in contours if cv2.contourArea(c) >= 0.002 * h * w]
    if not pieces:
        return None, False
    contour = np.concatenate(pieces)
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    if not MIN_AREA * h * w <= area <= 0.95 * h * w:
        return None, False
    (_, (rw, rh), _) = cv2.minAreaRect(hull)
    if area < 0.9 * rw * rh:
        return None, False  # not a rectangle: not a lone card
    contour = densify(hull)
    perimeter = cv2.arcLength(hull, True)
    rough = None
    for eps in (0.01, 0.02, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            rough = approx.reshape(4, 2).astype(np.float64)
            break
    if rough is None:
        rough = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    rough = order_upright(rough)
    refined = _side_lines(contour, rough)
    size = float(np.linalg.norm(rough[0] - rough[3]))
    quad, fitted = rough, False
    if refined is not None and float(np.abs(order_upright(refined) - rough).max()) <= 0.05 * size:
        quad, fitted = order_upright(refined), True
    if not ASPECT[0] <= _aspect(quad) <= ASPECT[1]:
        return None, False
    return quad, fitted


def choose_quad(photo: np.ndarray, detected: Sequence[np.ndarray] = ()) -> np.ndarray:
    """The card's quad in an enrollment photo (upright order), using ``detected`` quads as well.

    A CalibrationError when neither the outline nor a plausible detection is found.
    """
    h, w = photo.shape[:2]
    outline, fitted = _fitted_outline(photo)
    if fitted:
        return outline  # lines fitted to the card's sides: closer than any detector's corners
    plausible = [order_upright(q) for q in detected
                 if ASPECT[0] <= _aspect(order_upright(q)) <= ASPECT[1] and _area(np.asarray(q, np.float64)) >= MIN_AREA * h * w]
    if outline is not None:
        size = float(np.linalg.norm(outline[0] - outline[3]))
        for q in sorted(plausible, key=_area, reverse=True):
            if float(np.abs(q - outline).max()) <= AGREE * size:
                return q
        # a detection that does not agree is not taken even when it lies inside the outline: the
        # segmenter's corners can sit well inside a card, and a skewed template then loses its
        # card to a near twin (G5 read as G4/G8 since the network was fine-tuned)
        return outline
    if plausible:
        return max(plausible, key=_area)
    raise CalibrationError(f"expected one card in the photo ({w}x{h}), found none; photograph it upright on a plain, "
                           "contrasting background")


def cut_out(photo: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """The card inside ``quad`` (upright corner order) warped to an upright ``size`` (w, h) crop."""
    w, h = size
    dst = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(photo, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def locate_card(photo: np.ndarray, detected: Sequence[np.ndarray] = ()) -> np.ndarray:
    """The upright crop of the single card in an enrollment photo.

    ``detected``: card quads from a detector (any corner order), used where they agree with the
    card's outline. A photo that is itself a tight portrait crop of a card (a scan) is used as
    it is when no outline stands out from its border.
    """
    h, w = photo.shape[:2]
    try:
        quad = choose_quad(photo, detected)
    except CalibrationError:
        if 0.55 <= w / h <= 0.75:
            return cv2.resize(photo, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
        raise
    return cut_out(photo, quad)
