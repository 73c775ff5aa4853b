"""Round 9 of enrollment accuracy: a tie between cards with the same blister count is settled
where their digits differ, by a score that ignores the contrast blur leaves there."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, _pixels, _Views, enroll
from calibration.features import LUMA_H, LUMA_W, describe, digit_lean, rotate_180
from tests.calibration.blur import streak
from tests.calibration.test_enroll_accuracy import seen, slate

# Pairs with the same count whose digits differ (46/48, 15/18), and a card of another count.
DECK = tuple(CardLabel(f"W{v}", DeckKind.WALK, v, b) for v, b in
             [(46, 2), (48, 2), (15, 3), (18, 3), (30, 4)])


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in DECK]))


def _pair() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    ta = rng.normal(0, 1, (LUMA_H, LUMA_W)).astype(np.float32)
    tb = ta.copy()
    tb[10:20, 8:20] = rng.normal(0, 1, (10, 12))
    return ta, tb, np.abs(ta - tb) > 0.3


def test_digit_lean_ignores_brightness_and_the_fit_contrast():
    ta, tb, mask = _pair()
    noise = np.random.default_rng(6).normal(0, 0.05, ta.shape).astype(np.float32)
    corr, fit = digit_lean(ta + 0.7 + noise, ta, tb, mask)
    assert corr > 0.9 and fit > 0.8
    corr_b, fit_b = digit_lean(tb - 0.2 + noise, ta, tb, mask)
    assert corr_b < -0.9 and fit_b < -0.8
    # The fit does not care how much contrast is left; the correlation still leans the right way.
    corr_w, fit_w = digit_lean(0.3 * ta + noise, ta, tb, mask)
    assert fit_w > 0.8 and corr_w > 0
    # Half-way between the two leans neither way.
    corr_m, fit_m = digit_lean((ta + tb) / 2, ta, tb, mask)
    assert abs(corr_m) < 0.1 and abs(fit_m) < 0.3


def test_digit_lean_needs_enough_pixels():
    ta, tb, mask = _pair()
    few = np.zeros_like(mask)
    few[tuple(np.argwhere(mask)[:7].T)] = True
    assert digit_lean(ta, ta, tb, few) == (0.0, 0.0)


def _views(matcher: DeckMatcher, crop: np.ndarray, card: str) -> tuple[object, _Views, int]:
    ids = [lab.identity for lab in matcher.deck.labels]
    i = ids.index(card)
    q0 = describe(crop)
    found = matcher._found(q0)
    o = int(np.argmin([found[0][0][i], found[1][0][i]]))
    q = (q0, rotate_180(q0))[o]
    views = _Views(matcher, q, found[o][2], _pixels(~found[o][1]))
    views.kernel = matcher._query_blur(q, views.view(i), views.usable)
    return q, views, i


@pytest.mark.parametrize("truth, other", [("W46", "W48"), ("W18", "W15")])
def test_the_digits_settle_a_blurred_tie_for_the_true_card_only(matcher, truth, other):
    label = next(lab for lab in DECK if lab.identity == truth)
    crop = seen(slate(label), 3, turned=True, blur=streak(11, 20.0))
    q, views, i = _views(matcher, crop, truth)
    j = [lab.identity for lab in matcher.deck.labels].index(other)
    usable = np.ones((LUMA_H, LUMA_W), bool)
    assert matcher._digits_decide(q, i, [j], views, usable).startswith("digits:")
    assert matcher._digits_decide(q, j, [i], views, usable) == ""
    # Much of the card hidden: the tie stays.
    hidden = usable.copy()
    hidden[:, :8] = False
    assert matcher._digits_decide(q, i, [j], views, hidden) == ""
