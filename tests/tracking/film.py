"""Synthetic frame sequences for the tracking tests: cards as CardObservations, at 15 fps."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from vision.types import CardDate, CardKind, CardObservation, FrameResult, Quad

FPS = 15.0
WIDTH, HEIGHT = 1280, 720
CARD_W, CARD_H = 60.0, 90.0


def card_quad(cx: float, cy: float, angle: float = 0.0, w: float = CARD_W, h: float = CARD_H) -> Quad:
    """A card centred at (cx, cy) whose top points ``angle`` degrees clockwise from image-up."""
    a = math.radians(angle)
    ux, uy = math.sin(a), -math.cos(a)  # towards the card's top
    rx, ry = math.cos(a), math.sin(a)  # towards the card's right
    corners = []
    for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1)):  # TL, TR, BR, BL
        corners.append((cx + sx * rx * w / 2 + sy * ux * h / 2, cy + sx * ry * w / 2 + sy * uy * h / 2))
    return Quad(tuple(corners))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Card:
    """A physical card in a scene: where it lies and what vision reads on it."""

    x: float
    y: float
    kind: CardKind
    value: int | None = None
    blisters: int | None = None
    date: str | None = None
    angle: float = 0.0

    def at(self, x: float, y: float) -> Card:
        return replace(self, x=x, y=y)

    def obs(self, dx: float = 0.0, dy: float = 0.0, confidence: float = 0.9, visible: bool = True,
            **override: object) -> CardObservation:
        fields = {"kind": self.kind, "value": self.value, "blisters": self.blisters,
                  "date": CardDate.from_json(self.date) if self.date else None}
        if self.kind is CardKind.INCOME:  # vision reports income halves in their own fields
            fields.update(value=None, blisters=None, stones=self.value, sesterces=self.blisters)
        fields.update(override)
        return CardObservation(quad=card_quad(self.x + dx, self.y + dy, self.angle), confidence=confidence,
                               visible=visible, **fields)  # type: ignore[arg-type]


class Film:
    """Builds a list of frames; every frame is a tuple of observations."""

    def __init__(self, seed: int = 0, jitter: float = 1.0) -> None:
        self.frames: list[tuple[CardObservation, ...]] = []
        self.rng = random.Random(seed)
        self.jitter = jitter

    def _j(self) -> float:
        return self.rng.uniform(-self.jitter, self.jitter)

    def still(self, cards: Sequence[Card], n: int) -> int:
        """``n`` frames of the cards lying still (each corner set jitters by up to a pixel).

        Returns the index of the first of these frames."""
        start = len(self.frames)
        for _ in range(n):
            self.frames.append(tuple(c.obs(self._j(), self._j()) for c in cards))
        return start

    def frame(self, observations: Iterable[CardObservation]) -> int:
        self.frames.append(tuple(observations))
        return len(self.frames) - 1

    def lay(self, table: Sequence[Card], new: Card, frames: int = 8, covers: Sequence[Card] = (),
            source: tuple[float, float] | None = None) -> int:
        """A hand carries ``new`` in from ``source`` (default: the frame's bottom edge) to its place.

        The cards in ``covers`` are hidden by the hand meanwhile. Returns the index of the last
        moving frame (the card is at its place from the next frame on)."""
        sx, sy = source if source is not None else (new.x, HEIGHT + 50.0)
        hidden = set(map(id, covers))
        for i in range(frames):
            f = (i + 1) / frames * 0.9
            x, y = sx + (new.x - sx) * f, sy + (new.y - sy) * f
            moving = new.at(x, y).obs(visible=False, confidence=0.4)
            rest = [c.obs(self._j(), self._j()) for c in table if id(c) not in hidden]
            self.frames.append(tuple(rest) + (moving,))
        return len(self.frames) - 1

    def results(self) -> list[FrameResult]:
        return [FrameResult(WIDTH, HEIGHT, obs) for obs in self.frames]


def run(tracker: object, film: Film, views: object = None) -> list[tuple[int, object]]:
    """Feed every frame to ``tracker`` (a Tracker or CardTracker); return (frame index, output)."""
    from companion.tracking import CardTracker

    out: list[tuple[int, object]] = []
    for i, result in enumerate(film.results()):
        t = i / FPS
        if isinstance(tracker, CardTracker):
            got = tracker.update(t, result)
        else:
            view = views() if callable(views) else None
            got = tracker.update(i, t, result, view=view)  # type: ignore[attr-defined]
        out.extend((i, g) for g in got)
    return out
