"""Timeline order (vision stage 4): order Valais date sides along their row and check the dates.

The row is followed in the reading direction of the upright cards, which is each card's own
"right" (top-left corner to top-right corner of its quad, as the reader ordered it), so the row
may be rotated or upside down for the camera. A bending row is followed by chaining: from the
card furthest "left", step to the nearest card that lies ahead along the current card's right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.errors import VisionError
from vision.types import CardDate, CardObservation


@dataclass(frozen=True)
class TimelineResult:
    """``order``: indices into the input in row order (cards without a date are left out);
    ``in_order``: every neighbour pair is chronological; ``misplaced``: input indices of the fewest
    cards whose removal leaves the row chronological (empty when in order)."""

    order: tuple[int, ...]
    in_order: bool
    misplaced: tuple[int, ...]


def _right(obs: CardObservation) -> np.ndarray:
    c = obs.quad.as_array()
    v = c[1] - c[0]
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else np.array([1.0, 0.0])


def not_after(a: CardDate, b: CardDate) -> bool:
    """True if ``a`` may lie before or at ``b``: compared at the precision both dates print."""
    if a.year != b.year:
        return a.year < b.year
    if a.month is None or b.month is None or a.month != b.month:
        return a.month is None or b.month is None or a.month < b.month
    if a.day is None or b.day is None:
        return True
    return a.day <= b.day


def row_order(observations: Sequence[CardObservation]) -> tuple[int, ...]:
    """Indices of the observations in reading order along their row."""
    idx = list(range(len(observations)))
    if len(idx) <= 1:
        return tuple(idx)
    centres = np.array([obs.quad.centroid for obs in observations])
    rights = np.array([_right(obs) for obs in observations])
    mean_right = rights.sum(axis=0)
    if np.linalg.norm(mean_right) < 1e-6:
        raise VisionError("expected the row's cards to face a common reading direction, got opposite ones")
    mean_right /= np.linalg.norm(mean_right)
    proj = centres @ mean_right
    current = int(np.argmin(proj))
    order, left = [current], set(idx) - {current}
    while left:
        here, direction = centres[current], rights[current]
        best, best_cost = None, np.inf
        for j in left:
            d = centres[j] - here
            dist = float(np.linalg.norm(d))
            ahead = float(d @ direction) / max(dist, 1e-9)
            cost = dist * (1.0 + 2.0 * (1.0 - ahead))
            if cost < best_cost:
                best, best_cost = j, cost
        assert best is not None
        order.append(best)
        left.discard(best)
        current = best
    return tuple(order)


def check_timeline(observations: Sequence[CardObservation]) -> TimelineResult:
    """Order the date-side cards along the row and find the ones out of chronological place."""
    dated = [i for i, obs in enumerate(observations) if obs.date is not None]
    sub = [observations[i] for i in dated]
    order = tuple(dated[k] for k in row_order(sub))
    dates = [observations[i].date for i in order]
    assert all(d is not None for d in dates)
    in_order = all(not_after(a, b) for a, b in zip(dates, dates[1:]))  # type: ignore[arg-type]
    # longest chain that keeps chronological order; the rest is misplaced
    n = len(order)
    best = [1] * n
    prev = [-1] * n
    for j in range(n):
        for i in range(j):
            if not_after(dates[i], dates[j]) and best[i] + 1 > best[j]:  # type: ignore[arg-type]
                best[j], prev[j] = best[i] + 1, i
    keep: set[int] = set()
    if n:
        k = int(np.argmax(best))
        while k >= 0:
            keep.add(k)
            k = prev[k]
    misplaced = tuple(sorted(order[k] for k in range(n) if k not in keep))
    return TimelineResult(order, in_order, misplaced)
