"""Table zones in image pixels: where the walk pile, the gladiolas, the Valais row, the Via Appia
income display and the scoring area are.

Zones are found automatically from the settled layout (the ``*_zones`` functions below) and can
be replaced by the user at any time with :meth:`Zones.with_zone` (the dashboard lets players drag
a zone). A card belongs to a zone when its centre lies inside the zone's polygon.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from companion.errors import CompanionError
from companion.tracking.geometry import Polygon, bounding_box, card_size, convex_hull, expand_quad, point_in_polygon
from vision.types import Point, Quad

PILE_GROWTH = 1.4  # the walk pile zone: the top card grown by this factor around its centre
GLADIOLA_REACH = 2.5  # "beside the pile": within this many card sizes of the pile's centre
ROW_HALF_WIDTH = 0.9  # the Valais row band: this many card sizes either side of the row line
ROW_END_REACH = 2.0  # and this many card sizes beyond the first and last card
ROW_CARD_REACH = 1.5  # and (convex hull) each card of the row grown by this factor round its centre
ROW_STEP_REACH = 2.0  # a step this many card sizes long along a Valais row ends its line
ROW_STEP_SLOPE = 2.0  # and so does a step this many times longer across the row than along it
ROW_STEP_BACK = 0.5  # and so does a step going back along the row by more than this many card sizes
ROW_LINE_GAP = 1.1  # a line of the row starts among the cards left within this many card sizes of the topmost
DISPLAY_MARGIN = 0.6  # the income display: bounding box of its cards plus this many card sizes


class ZoneKind(Enum):
    """The named areas of a table."""

    WALK_PILE = "walk-pile"
    GLADIOLA_SPOT = "gladiola-spot"
    ROW = "row"
    DISPLAY = "display"
    SCORING = "scoring"


@dataclass(frozen=True)
class Zone:
    """A named polygon in image pixels (at least 3 corners)."""

    kind: ZoneKind
    polygon: Polygon

    def __post_init__(self) -> None:
        if len(self.polygon) < 3:
            raise CompanionError(f"zone {self.kind.value}: expected a polygon of 3 or more corners, got {len(self.polygon)}")
        object.__setattr__(self, "polygon", tuple((float(x), float(y)) for x, y in self.polygon))

    def contains(self, point: Point) -> bool:
        return point_in_polygon(point, self.polygon)

    def holds(self, quad: Quad) -> bool:
        """Whether a card lying at ``quad`` is in this zone (its centre is inside)."""
        return self.contains(quad.centroid)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "polygon": [[round(x, 2), round(y, 2)] for x, y in self.polygon]}

    @classmethod
    def from_json(cls, data: Any) -> Zone:
        try:
            return cls(ZoneKind(data["kind"]), tuple((float(x), float(y)) for x, y in data["polygon"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"expected a zone {{kind, polygon: [[x, y], ...]}}, got {data!r} ({exc})") from None


@dataclass(frozen=True)
class Zones:
    """The zones of one table, at most one per kind."""

    zones: tuple[Zone, ...] = ()

    def __post_init__(self) -> None:
        kinds = [z.kind for z in self.zones]
        if len(set(kinds)) != len(kinds):
            raise CompanionError(f"expected at most one zone per kind, got {[k.value for k in kinds]}")

    def get(self, kind: ZoneKind) -> Zone | None:
        return next((z for z in self.zones if z.kind is kind), None)

    def with_zone(self, zone: Zone) -> Zones:
        """A copy where ``zone`` replaces the zone of the same kind (or is added)."""
        return Zones(tuple(z for z in self.zones if z.kind is not zone.kind) + (zone,))

    def holds(self, kind: ZoneKind, quad: Quad) -> bool:
        zone = self.get(kind)
        return zone is not None and zone.holds(quad)

    def to_json(self) -> list[dict[str, Any]]:
        return [z.to_json() for z in self.zones]

    @classmethod
    def from_json(cls, data: Any) -> Zones:
        if not isinstance(data, list):
            raise CompanionError(f"expected a list of zones, got {type(data).__name__}")
        return cls(tuple(Zone.from_json(z) for z in data))


def frame_zone(kind: ZoneKind, width: int, height: int) -> Zone:
    """A zone covering the whole frame."""
    return Zone(kind, ((0.0, 0.0), (float(width), 0.0), (float(width), float(height)), (0.0, float(height))))


def gladiola_zones(top: Quad, width: int, height: int) -> Zones:
    """Via Gladiola zones around the walk pile whose top card lies at ``top``.

    The scoring area starts as the whole frame: a card counts for scoring when it lies in it and
    in no other zone (see :func:`scoring_quads`).
    """
    return Zones((
        Zone(ZoneKind.WALK_PILE, expand_quad(top, PILE_GROWTH)),
        Zone(ZoneKind.GLADIOLA_SPOT, _octagon(top.centroid, GLADIOLA_REACH * card_size(top))),
        frame_zone(ZoneKind.SCORING, width, height),
    ))


def _octagon(centre: Point, radius: float) -> Polygon:
    cx, cy = centre
    return tuple(
        (cx + radius * math.cos(math.radians(22.5 + 45 * k)), cy + radius * math.sin(math.radians(22.5 + 45 * k)))
        for k in range(8)
    )


def beside_pile(zones: Zones, quad: Quad) -> bool:
    """In the gladiola spot but not on the walk pile itself."""
    return zones.holds(ZoneKind.GLADIOLA_SPOT, quad) and not zones.holds(ZoneKind.WALK_PILE, quad)


def scoring_quads(zones: Zones, quads: Sequence[Quad]) -> list[int]:
    """Indices of the quads in the scoring area and in no other zone."""
    others = [z for z in zones.zones if z.kind is not ZoneKind.SCORING]
    return [
        i for i, q in enumerate(quads)
        if zones.holds(ZoneKind.SCORING, q) and not any(z.holds(q) for z in others)
    ]


def _step_axis(points: Sequence[Point]) -> tuple[Point, Point]:
    """Mean point and the mean direction of the steps from each point to its nearest neighbour
    (along the row even when the row goes on in a second line, which tilts the principal axis)."""
    n = len(points)
    mx, my = sum(p[0] for p in points) / n, sum(p[1] for p in points) / n
    if n < 2:
        return (mx, my), (1.0, 0.0)
    c = s = 0.0
    for i, p in enumerate(points):
        q = min((points[j] for j in range(n) if j != i), key=lambda o: math.dist(p, o))
        angle = 2 * math.atan2(q[1] - p[1], q[0] - p[0])  # doubled: a step and its reverse agree
        c, s = c + math.cos(angle), s + math.sin(angle)
    angle = 0.5 * math.atan2(s, c)
    return (mx, my), (math.cos(angle), math.sin(angle))


def _principal_axis(points: Sequence[Point]) -> tuple[Point, Point]:
    """Mean point and unit direction of largest spread (x axis for a single point)."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    syy = sum((p[1] - my) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    if sxx == syy == sxy == 0:
        return (mx, my), (1.0, 0.0)
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy)
    dx, dy = math.cos(angle), math.sin(angle)
    if dx < 0 or (dx == 0 and dy < 0):
        dx, dy = -dx, -dy
    return (mx, my), (dx, dy)


def row_zone(quads: Sequence[Quad]) -> Zone:
    """The band around the straight line that best fits the row of card centres, with (from
    three cards on) a margin round every card: the convex hull of both."""
    if not quads:
        raise CompanionError("row zone: expected at least one card of the row, got none")
    centres = [q.centroid for q in quads]
    size = sum(card_size(q) for q in quads) / len(quads)
    (mx, my), (dx, dy) = _principal_axis(centres)
    along = [(c[0] - mx) * dx + (c[1] - my) * dy for c in centres]
    lo, hi = min(along) - ROW_END_REACH * size, max(along) + ROW_END_REACH * size
    nx, ny = -dy, dx
    half = ROW_HALF_WIDTH * size + max(abs((c[0] - mx) * nx + (c[1] - my) * ny) for c in centres)
    corners = [
        (mx + dx * a + nx * s * half, my + dy * a + ny * s * half)
        for a, s in ((lo, -1), (hi, -1), (hi, 1), (lo, 1))
    ]
    if len(quads) < 3:
        return Zone(ZoneKind.ROW, tuple(corners))
    # a row going on in a second line, or bent: the band grows to take in a margin round each card
    around = [p for q in quads for p in expand_quad(q, ROW_CARD_REACH)]
    return Zone(ZoneKind.ROW, convex_hull(corners + around))


def _row_step(a: Point, b: Point, axis: Point, size: float) -> bool:
    """Whether a card at ``b`` may follow one at ``a`` in the same line of a row along ``axis``:
    at most ``ROW_STEP_REACH`` card sizes away and not mostly across the row."""
    step_along = (b[0] - a[0]) * axis[0] + (b[1] - a[1]) * axis[1]
    step_across = (b[0] - a[0]) * -axis[1] + (b[1] - a[1]) * axis[0]
    return math.dist(a, b) <= ROW_STEP_REACH * size and abs(step_across) <= ROW_STEP_SLOPE * abs(step_along)


def order_along_row(points: Sequence[Point], size: float | None = None) -> list[int]:
    """Indices of ``points`` in row order, starting from the end that is leftmost on screen.

    The row may be curved: start at the extreme point along the principal axis and walk to the
    nearest point not yet taken. Given the card ``size``, a row that goes on in a second line
    (the table was too short) is read like text: a line ends where the nearest card left lies
    more than ``ROW_STEP_REACH`` card sizes away or ``ROW_STEP_SLOPE`` times more across the row
    than along it (a bent row's end steps across a little) or goes back along the row by more
    than ``ROW_STEP_BACK`` card sizes (the next line's end, bent up close under this one's), and the
    next line starts at the leftmost card of the topmost cards left (within ``ROW_LINE_GAP``
    card sizes across). Reverse the result for a row read right to left.
    """
    if not points:
        return []
    (mx, my), (dx, dy) = _principal_axis(points) if size is None else _step_axis(points)
    if dx < 0 or (dx == 0 and dy < 0):
        dx, dy = -dx, -dy  # along the row from left to right on screen, across it downwards
    along = [(p[0] - mx) * dx + (p[1] - my) * dy for p in points]
    across = [(p[0] - mx) * -dy + (p[1] - my) * dx for p in points]
    order: list[int] = []
    left = set(range(len(points)))
    lines = 0
    while left:
        top = min(across[i] for i in left)
        line = [i for i in left if size is None or across[i] <= top + ROW_LINE_GAP * size]
        start = min(line, key=lambda i: (along[i], points[i][0], points[i][1]))
        while size is not None:  # a bent row's end may hang lower: walk back to it
            before = [i for i in left if along[i] < along[start]
                      and _row_step(points[start], points[i], (dx, dy), size)]
            if not before:
                break
            start = min(before, key=lambda i: math.dist(points[start], points[i]))
        order.append(start)
        left.remove(start)
        lines += 1
        while left:
            last = points[order[-1]]
            nxt = min(left, key=lambda i: (math.dist(last, points[i]), along[i]))
            if size is not None and (not _row_step(last, points[nxt], (dx, dy), size)
                                     or along[nxt] < along[order[-1]] - ROW_STEP_BACK * size):
                break  # the line ends (a gap, or the next card lies in the line below, maybe behind)
            order.append(nxt)
            left.remove(nxt)
    first, final = points[order[0]], points[order[-1]]
    if lines == 1 and (final[0], final[1]) < (first[0], first[1]):
        order.reverse()
    return order


def display_zone(quads: Sequence[Quad]) -> Zone:
    """The Via Appia income display: the box around its cards plus a margin."""
    if not quads:
        raise CompanionError("display zone: expected the income cards on display, got none")
    size = sum(card_size(q) for q in quads) / len(quads)
    points = [p for q in quads for p in q.corners]
    return Zone(ZoneKind.DISPLAY, bounding_box(points, DISPLAY_MARGIN * size))
