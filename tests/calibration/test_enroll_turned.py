"""Round 7 of enrollment accuracy: print seen although it stands out more than at enrollment when
the card has near twins, and print that only another card explains, turned round."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, MatchConfig, _pixels, _Views, enroll, ways_round
from calibration.features import GRID_H, GRID_W, describe, rotate_180
from tests.calibration.test_enroll_accuracy import LABELS, H, W, seen, slate

ONE_DIGIT = CardLabel("W06", DeckKind.WALK, 6, 0)
TWO_DIGITS = CardLabel("W10", DeckKind.WALK, 10, 1)


def inked(label: CardLabel, ink: tuple[int, int, int]) -> np.ndarray:
    """A slate card like ``slate(label)`` whose big value is printed in ``ink``."""
    img = np.full((H, W, 3), (74, 58, 48), np.uint8)
    cv2.rectangle(img, (10, 10), (W - 11, H - 11), (236, 240, 242), 2, cv2.LINE_AA)
    text = "*" if label.value is None else str(label.value)
    cv2.putText(img, text, (50, 200), cv2.FONT_HERSHEY_DUPLEX, 2.8, ink, 6, cv2.LINE_AA)
    cv2.putText(img, text, (22, 48), cv2.FONT_HERSHEY_DUPLEX, 0.8, (80, 220, 250), 2, cv2.LINE_AA)
    for k in range(label.blisters or 0):
        cv2.circle(img, (W - 36, 60 + 36 * k), 14, (40, 120, 240), -1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("identity, seed", [("W28", 3), ("W29", 4), ("W24", 5)])
def test_print_brighter_than_at_enrollment_counts_for_a_card_with_near_twins(identity, seed):
    """Enrolled with its value printed dim, seen with it bright: the value's cells fit no template,
    but they follow the card's own, so its print counts as seen although near twins are compared."""
    dim = (120, 105, 95)
    matcher = DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, inked(lab, dim)) for lab in LABELS]))
    label = next(lab for lab in LABELS if lab.identity == identity)
    m, why = matcher.explain(seen(inked(label, (250, 252, 255)), seed))
    assert m is not None, why
    assert (m.kind, m.value, m.blisters) == (label.kind, label.value, label.blisters), why


@pytest.fixture(scope="module")
def digits_matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in (*LABELS, ONE_DIGIT, TWO_DIGITS)]))


def _refusal(matcher: DeckMatcher, crop: np.ndarray, candidate: str, with_turned: bool,
             config: MatchConfig | None = None) -> str:
    """Why ``candidate`` (laid over the crop the way round it fits best) cannot explain the crop's
    print, with every cell allowed to count as hidden."""
    m = matcher if config is None else DeckMatcher(matcher.deck, config)
    ids = [lab.identity for lab in m.deck.labels]
    card = ids.index(candidate)
    q0 = describe(crop)
    found = m._found(q0)
    o = int(np.argmin([float(d[card]) for d, _, _ in found]))
    queries = (q0, rotate_180(q0))
    views = _Views(m, queries[o], found[o][2], _pixels(~found[o][1]))
    turned = _Views(m, queries[1 - o], found[1 - o][2], _pixels(~found[1 - o][1])) if with_turned else None
    hidden = np.ones(found[o][1].shape, bool)
    return m._refuse_unexplained(queries[o], [card], hidden, views, turned)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_two_digit_value_is_not_left_to_a_one_digit_card_turned_round(digits_matcher, seed):
    """The 10 upside down: the single 6 fits the crop best that way round once the 1 is set aside
    as hidden; the 1 then fits no card that way round, only the 10 as it lies."""
    crop = seen(cv2.rotate(slate(TWO_DIGITS), cv2.ROTATE_180), seed)
    why = _refusal(digits_matcher, crop, "W06", with_turned=True)
    assert why.startswith("unexplained") and "turned round" in why, why
    assert _refusal(digits_matcher, crop, "W06", with_turned=False) == ""


def test_a_lone_misfit_cell_is_not_taken_for_another_card_turned_round(digits_matcher):
    """The turned check needs a patch of such print (an occluder's corner can fit some card in a
    cell or two): with more cells required than the 10's second digit covers, it stays quiet."""
    crop = seen(cv2.rotate(slate(TWO_DIGITS), cv2.ROTATE_180), 1)
    strict = MatchConfig(unexplained_turned_cells=GRID_H * GRID_W)
    assert _refusal(digits_matcher, crop, "W06", with_turned=True, config=strict) == ""


def test_the_card_itself_is_not_refused(digits_matcher):
    crop = seen(slate(TWO_DIGITS), 3)
    assert _refusal(digits_matcher, crop, "W10", with_turned=True) == ""
    m, why = digits_matcher.explain(crop)
    assert m is not None and m.identity == "W10", why



def test_the_way_round_that_leaves_out_print_must_fit_the_rest_better():
    """A START card seen the right way round fits at 0.093 over all its cells; turned round, its
    one word fits nothing, is left out (12 of 96 cells), and the frame alone fits at 0.053:
    counted as misfit by the outlier distance, the word keeps the right way round."""
    shifts = np.zeros(2, int)
    word = np.zeros(96, bool)
    word[40:52] = True
    found = [(np.array([0.093, 0.6]), np.zeros(96, bool), shifts), (np.array([0.053, 0.7]), word, shifts)]
    orient, dist = ways_round(found, 0.8)
    assert orient.tolist() == [0, 0] and dist.tolist() == [0.093, 0.6]
    # A clearly better fit turned round still wins, cells left out or not.
    found = [(np.array([0.3, 0.6]), np.zeros(96, bool), shifts), (np.array([0.05, 0.7]), word, shifts)]
    orient, dist = ways_round(found, 0.8)
    assert orient.tolist() == [1, 0] and dist.tolist() == [0.05, 0.6]
    # With as many cells left out either way, the nearer fit wins as before.
    found[0] = (np.array([0.093, 0.2]), word, shifts)
    assert ways_round(found, 0.8)[0].tolist() == [1, 0]
