"""Where cards lie on the table: layouts in table millimetres.

A layout function returns :class:`Placement` objects bottom-first (later ones lie on top).
Angles are degrees, clockwise as seen from above (the table's y axis points towards the viewer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from samples.render.specs import CardKind, CardSpec, Game, Side


class LayoutKind(Enum):
    """How the cards of a scene are arranged."""

    WALK_PILE = "walk_pile"      # Via Gladiola: a pile with the cards beneath peeking out
    SPREAD_HAND = "spread_hand"  # a hand spread out in a row, cards overlapping
    FAN = "fan"                  # an overlapping fan around a pivot
    TOUCHING = "touching"        # a grid of cards edge to edge
    SCATTERED = "scattered"      # single cards lying about
    TIMELINE = "timeline"        # Valais*Wallis: a row of date sides that bends
    DISPLAY = "display"          # Via Appia: the face-up income cards in a row
    ROAD = "road"                # Via Appia: stone tiles laid along a bending road
    CUSTOM = "custom"            # placements given by the caller


GAME_LAYOUTS: dict[Game, tuple[LayoutKind, ...]] = {
    Game.GLADIOLA: (LayoutKind.WALK_PILE, LayoutKind.SPREAD_HAND, LayoutKind.FAN, LayoutKind.TOUCHING,
                    LayoutKind.SCATTERED),
    Game.VALAIS: (LayoutKind.TIMELINE, LayoutKind.SPREAD_HAND, LayoutKind.FAN, LayoutKind.TOUCHING,
                  LayoutKind.SCATTERED),
    Game.APPIA: (LayoutKind.DISPLAY, LayoutKind.ROAD, LayoutKind.FAN, LayoutKind.TOUCHING, LayoutKind.SCATTERED),
}


@dataclass(frozen=True)
class Placement:
    """One card on the table: which card and side, its centre (mm), angle (degrees, clockwise)
    and how many cards lie under it (for its shadow)."""

    spec: CardSpec
    side: Side
    centre: tuple[float, float]
    angle_deg: float
    level: int = 0

    def corners_mm(self) -> np.ndarray:
        """The card's four corners on the table (4 x 2), its own top-left first, clockwise."""
        w, h = self.spec.size_mm()
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + np.array(self.centre)


def _rotate_all(cards: list[Placement], angle_deg: float) -> list[Placement]:
    """Rotate a whole arrangement about the origin."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return [Placement(p.spec, p.side, (c * p.centre[0] - s * p.centre[1], s * p.centre[0] + c * p.centre[1]),
                      p.angle_deg + angle_deg, p.level) for p in cards]


def _pick(rng: np.random.Generator, pool: list[CardSpec], n: int) -> list[CardSpec]:
    """``n`` distinct cards from ``pool`` (fewer if the pool is small)."""
    if not pool:
        return []
    idx = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
    return [pool[int(i)] for i in idx]


def _default_side(spec: CardSpec, rng: np.random.Generator, prefer: Side | None = None) -> Side:
    if spec.game is not Game.VALAIS:
        return Side.FRONT
    if prefer is not None:
        return prefer
    return Side.DATE if rng.random() < 0.5 else Side.EVENT


def _row_cards(specs: list[CardSpec], rng: np.random.Generator, side: Side | None) -> list[Placement]:
    """A hand spread in a gentle arc: each card overlaps the previous one."""
    if not specs:
        return []
    w, _ = specs[0].size_mm()
    step = w * rng.uniform(0.28, 0.7)
    bow = rng.uniform(-0.002, 0.004)
    n = len(specs)
    cards = []
    for i, spec in enumerate(specs):
        x = (i - (n - 1) / 2) * step
        cards.append(Placement(spec, _default_side(spec, rng, side), (x, bow * x * x),
                               math.degrees(math.atan(2 * bow * x)) + rng.normal(0, 1.5)))
    return cards


def _fan(specs: list[CardSpec], rng: np.random.Generator, side: Side | None) -> list[Placement]:
    """Cards rotated about a common pivot below them, overlapping strongly."""
    if not specs:
        return []
    _, h = specs[0].size_mm()
    radius = h * rng.uniform(0.55, 1.1)
    spread = rng.uniform(8, 16)
    n = len(specs)
    cards = []
    for i, spec in enumerate(specs):
        a = (i - (n - 1) / 2) * spread + rng.normal(0, 1.0)
        r = math.radians(a)
        centre = (radius * math.sin(r), -radius * math.cos(r) + radius * 0.7)
        cards.append(Placement(spec, _default_side(spec, rng, side), centre, a))
    return cards


def _grid(specs: list[CardSpec], rng: np.random.Generator, cols: int, gap: float) -> list[Placement]:
    """Cards in rows of ``cols``, ``gap`` mm apart (0: touching), with a little jitter."""
    cards = []
    rows = (len(specs) + cols - 1) // cols
    for i, spec in enumerate(specs):
        w, h = spec.size_mm()
        r, c = divmod(i, cols)
        x = (c - (cols - 1) / 2) * (w + gap) + rng.normal(0, 0.2)
        y = (r - (rows - 1) / 2) * (h + gap) + rng.normal(0, 0.2)
        cards.append(Placement(spec, _default_side(spec, rng), (x, y), rng.normal(0, 0.4)))
    return cards


def _scattered(specs: list[CardSpec], rng: np.random.Generator, area: tuple[float, float]) -> list[Placement]:
    """Cards at random spots and angles, mostly apart (a few may overlap)."""
    cards: list[Placement] = []
    for spec in specs:
        w, h = spec.size_mm()
        for _ in range(30):
            centre = (rng.uniform(-area[0] / 2, area[0] / 2), rng.uniform(-area[1] / 2, area[1] / 2))
            if all(math.dist(centre, p.centre) > 0.75 * max(w, p.spec.size_mm()[0]) for p in cards):
                break
        cards.append(Placement(spec, _default_side(spec, rng), centre, rng.uniform(0, 360)))
    return cards


def _along_path(specs: list[CardSpec], rng: np.random.Generator, gap: tuple[float, float], side: Side | None,
                across: bool) -> list[Placement]:
    """Cards laid one after another along a bending path (a timeline row or a road).

    ``across``: the path runs along the cards' long side (tiles); otherwise along their width.
    """
    amplitude = rng.uniform(0, 60)
    wavelength = rng.uniform(300, 700)
    phase = rng.uniform(0, 2 * math.pi)
    s = 0.0
    cards = []
    for spec in specs:
        w, h = spec.size_mm()
        length = h if across else w
        s += length / 2
        x = s
        y = amplitude * math.sin(2 * math.pi * x / wavelength + phase)
        slope = amplitude * 2 * math.pi / wavelength * math.cos(2 * math.pi * x / wavelength + phase)
        angle = math.degrees(math.atan(slope)) + rng.normal(0, 2.5) + (90 if across else 0)
        cards.append(Placement(spec, _default_side(spec, rng, side), (x, y), angle))
        s += length / 2 + rng.uniform(*gap)
    shift = s / 2
    return [Placement(p.spec, p.side, (p.centre[0] - shift, p.centre[1]), p.angle_deg, p.level) for p in cards]


def _walk_pile(specs: tuple[CardSpec, ...], rng: np.random.Generator) -> list[Placement]:
    """A Via Gladiola walk pile: START at the bottom, rising values on top, each card a little off,
    plus sometimes gladiolas beside it and a few loose cards."""
    by_kind = {k: [s for s in specs if s.kind is k] for k in CardKind}
    cards: list[Placement] = []
    start = by_kind[CardKind.START]
    day = int(rng.integers(1, 5))
    if start:
        cards.append(Placement(start[0], Side.FRONT, (0.0, 0.0), 90.0 * (day - 1) + rng.normal(0, 4)))
    walks = sorted(_pick(rng, by_kind[CardKind.WALK], int(rng.integers(2, 10))), key=lambda s: s.value or 0)
    pile = walks + (_pick(rng, by_kind[CardKind.FINISH], 1) if rng.random() < 0.3 else [])
    x, y = 0.0, 0.0
    base_angle = rng.uniform(0, 360)
    for level, spec in enumerate(pile, start=1):
        x += rng.normal(0, 6)
        y += rng.normal(0, 7)
        x, y = float(np.clip(x, -25, 25)), float(np.clip(y, -25, 25))
        cards.append(Placement(spec, Side.FRONT, (x, y), base_angle + rng.normal(0, 9), level))
    for k, spec in enumerate(_pick(rng, by_kind[CardKind.GLADIOLA], int(rng.integers(0, 3)))):
        cards.append(Placement(spec, Side.FRONT, (95.0 + 22 * k, rng.normal(0, 10)), rng.normal(0, 8), k))
    loose = [s for s in by_kind[CardKind.WALK] if s not in walks]
    cards += [Placement(p.spec, p.side, (p.centre[0] - 40, p.centre[1] + 170), p.angle_deg)
              for p in _scattered(_pick(rng, loose, int(rng.integers(0, 4))), rng, (300, 90))]
    return cards


def make_layout(kind: LayoutKind, game: Game, specs: tuple[CardSpec, ...],
                rng: np.random.Generator) -> list[Placement]:
    """Arrange some of ``specs`` on the table as ``kind``; bottom card first."""
    if not specs:
        raise ValueError(f"expected card specs for {game.value}, got none")
    cards_only = [s for s in specs if s.kind is not CardKind.TILE]
    tiles = [s for s in specs if s.kind is CardKind.TILE]
    hand_pool = [s for s in cards_only if s.kind is not CardKind.START] or cards_only
    if kind is LayoutKind.WALK_PILE:
        cards = _walk_pile(specs, rng)
    elif kind is LayoutKind.SPREAD_HAND:
        cards = _row_cards(_pick(rng, hand_pool, int(rng.integers(4, 11))), rng,
                           Side.EVENT if game is Game.VALAIS else None)
    elif kind is LayoutKind.FAN:
        cards = _fan(_pick(rng, hand_pool, int(rng.integers(3, 9))), rng,
                     Side.EVENT if game is Game.VALAIS else None)
    elif kind is LayoutKind.TOUCHING:
        cols = int(rng.integers(2, 5))
        cards = _grid(_pick(rng, cards_only, cols * int(rng.integers(1, 4))), rng, cols, rng.uniform(0, 0.6))
    elif kind is LayoutKind.SCATTERED:
        chosen = _pick(rng, cards_only, int(rng.integers(2, 9))) + _pick(rng, tiles, int(rng.integers(0, 6)))
        cards = _scattered(chosen, rng, (420, 300))
    elif kind is LayoutKind.TIMELINE:
        row = sorted(_pick(rng, cards_only, int(rng.integers(4, 11))), key=lambda s: (s.year or 0, s.id))
        if len(row) > 2 and rng.random() < 0.4:  # one card in the wrong place
            i, j = rng.choice(len(row), 2, replace=False)
            row[i], row[j] = row[j], row[i]
        cards = _along_path(row, rng, (-4.0, 8.0), Side.DATE, across=False)
        own = _row_cards(_pick(rng, [s for s in cards_only if s not in row], int(rng.integers(0, 5))), rng,
                         Side.EVENT)
        cards += [Placement(p.spec, p.side, (p.centre[0], p.centre[1] + 150), p.angle_deg) for p in own]
    elif kind is LayoutKind.DISPLAY:
        income = _pick(rng, cards_only, 7)
        if rng.random() < 0.5:
            cards = _grid(income, rng, len(income), rng.uniform(2, 15))
        else:
            cards = _grid(income, rng, 4, rng.uniform(2, 12))
        cards += [Placement(p.spec, p.side, (p.centre[0], p.centre[1] + 140), p.angle_deg)
                  for p in _scattered(_pick(rng, tiles, int(rng.integers(0, 5))), rng, (300, 60))]
    else:  # ROAD
        road = _pick(rng, tiles, int(rng.integers(4, 11)))
        cards = _along_path(road, rng, (1.0, 4.0), None, across=True)
        cards += [Placement(p.spec, p.side, (p.centre[0], p.centre[1] + 110), p.angle_deg)
                  for p in _scattered(_pick(rng, cards_only, int(rng.integers(0, 4))), rng, (300, 60))]
    if not cards:
        raise ValueError(f"layout {kind.value} for {game.value}: expected cards of the needed kinds, got none")
    return _rotate_all(cards, float(rng.uniform(0, 360)) if kind is not LayoutKind.WALK_PILE
                       else float(rng.normal(0, 20)))
