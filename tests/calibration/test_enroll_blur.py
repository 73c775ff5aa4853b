"""Round 5 of enrollment accuracy: a blurred query's card and orientation chosen by how well each
candidate fits once blurred like it."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.deck import DeckGame, DeckMatcher, _pixels, _Views, enroll
from calibration.features import Descriptor, describe, nudges, rotate_180
from tests.calibration.blur import streak
from tests.calibration.test_enroll_accuracy import LABELS, seen, slate


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in LABELS]))


def _state(matcher: DeckMatcher, crop: np.ndarray):
    q0 = describe(crop)
    queries = (q0, rotate_180(q0))
    found = matcher._found(q0)
    dist2 = np.stack([d for d, _, _ in found])
    return queries, found, dist2.min(axis=0), dist2.argmin(axis=0)


def _views(matcher: DeckMatcher, queries, found, orient, card: int) -> _Views:
    o = int(orient[card])
    views = _Views(matcher, queries[o], found[o][2], _pixels(~found[o][1]))
    views.kernel = matcher._query_blur(queries[o], views.shifted(card), views.usable)
    return views


@pytest.mark.parametrize("identity, rival, length, angle", [("W34", "G4", 25, 30.0), ("W28", "W29", 21, 150.0),
                                                            ("G5", "G4", 25, 60.0)])
def test_a_blurred_query_is_given_to_the_card_that_fits_it_once_blurred(matcher, identity, rival, length, angle):
    """Told that a near twin is the best card, the choice under blur comes back to the true one."""
    ids = [lab.identity for lab in matcher.deck.labels]
    true, wrong = ids.index(identity), ids.index(rival)
    crop = seen(slate(LABELS[true]), 5, blur=streak(length, angle))
    queries, found, dist, orient = _state(matcher, crop)
    views = _views(matcher, queries, found, orient, wrong)
    assert views.kernel is not None
    dist = dist.copy()
    dist[wrong] = 0.9 * float(dist[true])  # the sharp distances put the twin first
    chosen = matcher._blurred_best(queries, found, dist, orient, wrong, views)
    assert chosen is not None
    card, laid = chosen
    assert card == true
    assert laid.kernel is not None


def test_the_right_best_card_under_blur_is_kept(matcher):
    ids = [lab.identity for lab in matcher.deck.labels]
    true = ids.index("W34")
    crop = seen(slate(LABELS[true]), 6, blur=streak(21, 60.0))
    queries, found, dist, orient = _state(matcher, crop)
    views = _views(matcher, queries, found, orient, true)
    assert views.kernel is not None
    dist = dist.copy()
    dist[true] = 0.9 * float(np.delete(dist, true).min())
    assert matcher._blurred_best(queries, found, dist, orient, true, views) is None


class _Blurred:
    """Templates as laid over a query and blurred like it (stands in for the matcher's views)."""

    def __init__(self, templates: dict[int, np.ndarray], kernel: np.ndarray | None) -> None:
        self.templates = templates
        self.kernel = kernel

    def blurred(self, card: int) -> np.ndarray:
        return self.templates[card]


def _twins() -> tuple[np.ndarray, np.ndarray]:
    """Two blurred templates sharing a digit and differing in a second one."""
    ta = np.zeros((72, 48), np.float32)
    ta[30:45, 8:20] = 1.5             # the shared digit
    tb = ta.copy()
    ta[30:45, 26:32] = 2.0            # the first card's second digit ...
    tb[30:36, 26:40] = 2.0            # ... and the second card's
    return ta, tb


@pytest.mark.parametrize("noise, kernel, hidden, cover, holds", [
    (0.1, True, 0.0, False, True),    # pulled towards the middle, but fits the leader closely
    (0.9, True, 0.0, False, False),   # smeared beyond reading: fits neither
    (0.1, False, 0.0, False, False),  # a sharp query gets no leniency
    (0.1, True, 0.2, False, False),   # too much of the card hidden
    (0.1, True, 0.0, True, False),    # where the two differ most is not in view
])
def test_a_weak_lead_holds_only_for_a_blurred_query_that_fits_the_leader(matcher, noise, kernel, hidden, cover, holds):
    ta, tb = _twins()
    rng = np.random.default_rng(3)
    query = 0.8 * ta + 0.2 * tb + rng.normal(0, noise, ta.shape).astype(np.float32)
    q = Descriptor(query, np.zeros((36, 24, 2), np.float32))
    usable = np.ones_like(ta, bool)
    if cover:
        usable[28:47, 24:42] = False
    views = _Blurred({0: ta, 1: tb}, streak(9, 0.0) if kernel else None)
    assert matcher._weak_lead_holds(q, 0, [1], views, usable, hidden) is holds


@pytest.mark.parametrize("length, angle", [(25, 0.0), (31, 45.0), (37, 100.0), (45, 135.0), (55, 135.0)])
def test_heavily_blurred_near_twins_are_read_right_or_refused(matcher, length, angle):
    """Blur that smears one digit or blister into its twin's never gives the twin's fields (a
    streak along the blister column at 135 degrees read G5 as G4 when its template was laid over
    the query skewed)."""
    answered = 0
    for k, label in enumerate(LABELS):
        m, why = matcher.explain(seen(slate(label), 20 + k, blur=streak(length, angle)))
        if m is not None:
            answered += 1
            assert (m.kind, m.value) == (label.kind, label.value), why
            assert m.blisters in (label.blisters, None), why
    assert answered >= len(LABELS) // 2


@pytest.mark.parametrize("plain_agrees", [True, False])
def test_twins_laid_by_a_map_must_not_contradict_their_plain_shift(matcher, plain_agrees):
    """The comparison of two templates laid over the query by a fitted map is vetoed when, at
    their best shift only, the two clearly lean the other way."""
    ta, tb = _twins()
    rng = np.random.default_rng(4)
    q = Descriptor(ta + rng.normal(0, 0.1, ta.shape).astype(np.float32), np.zeros((36, 24, 2), np.float32))
    usable = np.ones_like(ta, bool)
    plain = (ta, tb) if plain_agrees else (tb, ta)
    e = matcher._pair_evidence(q, ta, tb, usable, (nudges(ta), nudges(tb)), plain)
    if plain_agrees:
        assert e > 0.8
    else:
        assert e == 0.0
