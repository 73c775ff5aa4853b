"""Small plane geometry on card quads, in image pixels (x right, y down).

Pure Python on purpose: a table holds a few dozen cards, and these helpers run a few hundred
times per frame at most.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vision.types import Point, Quad

Polygon = tuple[Point, ...]


def polygon_area(poly: Sequence[Point]) -> float:
    """Unsigned area of a simple polygon (shoelace formula)."""
    total = 0.0
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        total += x1 * y2 - x2 * y1
    return abs(total) / 2.0


def _orientation(poly: Sequence[Point]) -> float:
    total = 0.0
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        total += x1 * y2 - x2 * y1
    return total


def clip_convex(subject: Sequence[Point], clip: Sequence[Point]) -> Polygon:
    """Intersection of two convex polygons (Sutherland-Hodgman); empty tuple if they miss."""
    if len(subject) < 3 or len(clip) < 3:
        return ()
    sign = 1.0 if _orientation(clip) >= 0 else -1.0
    output: list[Point] = list(subject)
    n = len(clip)
    for i in range(n):
        if not output:
            break
        ax, ay = clip[i]
        bx, by = clip[(i + 1) % n]

        def inside(p: Point) -> bool:
            return sign * ((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax)) >= 0.0

        def cross_point(p: Point, q: Point) -> Point:
            dx, dy = q[0] - p[0], q[1] - p[1]
            ex, ey = bx - ax, by - ay
            denom = dx * ey - dy * ex
            if denom == 0.0:
                return q
            t = ((ax - p[0]) * ey - (ay - p[1]) * ex) / denom
            return (p[0] + t * dx, p[1] + t * dy)

        current, output = output, []
        for j, point in enumerate(current):
            prev = current[j - 1]
            if inside(point):
                if not inside(prev):
                    output.append(cross_point(prev, point))
                output.append(point)
            elif inside(prev):
                output.append(cross_point(prev, point))
    return tuple(output) if len(output) >= 3 else ()


def _bounds(poly: Sequence[Point]) -> tuple[float, float, float, float]:
    """``(xmin, ymin, xmax, ymax)`` of the points (Quad.bbox goes through numpy: ten times slower
    on four points, and the tracker asks this of every track and every card in every frame)."""
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    return min(xs), min(ys), max(xs), max(ys)


def quad_iou(a: Quad, b: Quad) -> float:
    """Intersection over union of two convex quads (0 when disjoint)."""
    ax0, ay0, ax1, ay1 = _bounds(a.corners)
    bx0, by0, bx1, by1 = _bounds(b.corners)
    if ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0:
        return 0.0
    inter = polygon_area(clip_convex(a.corners, b.corners))
    union = polygon_area(a.corners) + polygon_area(b.corners) - inter
    return inter / union if union > 0 else 0.0


def corner_shift(a: Quad, b: Quad) -> float:
    """Largest distance between corresponding corners of two quads, corners paired the way round
    that makes it least: one outline whichever corner comes first (a card read upside down has
    its corners listed from the other end: film 124's pile outlined the same, read and unread)."""
    return min(max(math.dist(p, b.corners[(k + i) % 4]) for i, p in enumerate(a.corners)) for k in range(4))


def centroid_shift(a: Quad, b: Quad) -> float:
    """Distance between the centroids of two quads."""
    return math.dist(a.centroid, b.centroid)


def share_inside(card: Quad, outline: Quad) -> float:
    """The share of ``card``'s area that lies inside ``outline`` (0 for a card of no area)."""
    area = polygon_area(card.corners)
    if area <= 0:
        return 0.0
    return polygon_area(clip_convex(card.corners, outline.corners)) / area


def card_size(quad: Quad) -> float:
    """A card's typical length: the square root of its area."""
    return math.sqrt(polygon_area(quad.corners))


def point_in_polygon(point: Point, poly: Sequence[Point]) -> bool:
    """True if ``point`` lies inside ``poly`` (even-odd rule; any simple polygon)."""
    x, y = point
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            cross_x = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < cross_x:
                inside = not inside
    return inside


def up_angle(quad: Quad) -> float:
    """Direction the card's top points to, in degrees clockwise from image-up, in [0, 360).

    Computed from the centre of the bottom side to the centre of the top side, so a card lying
    upright on screen gives 0 and a card turned a quarter clockwise gives 90.
    """
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.corners
    top = ((x0 + x1) / 2, (y0 + y1) / 2)
    bottom = ((x2 + x3) / 2, (y2 + y3) / 2)
    dx, dy = top[0] - bottom[0], top[1] - bottom[1]
    return math.degrees(math.atan2(dx, -dy)) % 360.0


def quarter_turns(angle_from: float, angle_to: float) -> int:
    """How many quarter turns clockwise (0..3) bring ``angle_from`` nearest to ``angle_to``."""
    return round(((angle_to - angle_from) % 360.0) / 90.0) % 4


def expand_quad(quad: Quad, factor: float) -> Polygon:
    """The quad's corners pushed away from its centroid by ``factor`` (1 keeps it)."""
    cx, cy = quad.centroid
    return tuple((cx + (x - cx) * factor, cy + (y - cy) * factor) for x, y in quad.corners)


def bounding_box(points: Sequence[Point], margin: float = 0.0) -> Polygon:
    """Axis-aligned rectangle around ``points`` grown by ``margin`` pixels, clockwise from top-left."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0, y0, x1, y1 = min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def convex_hull(points: Sequence[Point]) -> Polygon:
    """The smallest convex polygon around ``points`` (monotone chain), counter-clockwise in
    image coordinates' maths sense; collinear points are dropped."""
    pts = sorted(set((float(x), float(y)) for x, y in points))
    if len(pts) < 3:
        return tuple(pts)

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq: list[Point]) -> list[Point]:
        out: list[Point] = []
        for p in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return tuple(lower[:-1] + upper[:-1])
