"""Round 8 of enrollment accuracy: blisters read slot by slot where the deck prints them, to
settle near twins that blur leaves tied."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, MatchConfig, _pixels, _Views, enroll
from calibration.features import BORDER, GRID_H, GRID_W, LUMA_H, LUMA_W, Descriptor, blister_slots, describe, rotate_180
from tests.calibration.blur import streak
from tests.calibration.test_enroll_accuracy import H, W, seen, slate

# Counts 0..5, each three times with different values, so that every slot can be told apart.
DECK = tuple(CardLabel(f"W{v}", DeckKind.WALK, v, b) for b, v in
             [(0, 17), (1, 21), (2, 24), (3, 35), (4, 30), (5, 38), (0, 29), (1, 42), (2, 46), (3, 12), (4, 48),
              (5, 27), (0, 40), (1, 16), (2, 19), (3, 33), (4, 14), (5, 44)])


def blister_centre(k: int) -> tuple[float, float]:
    """Where ``slate`` draws blister ``k`` (1-based), in descriptor pixels."""
    x, y = W - 36, 60 + 36 * (k - 1)
    return ((x - W * BORDER) / (W * (1 - 2 * BORDER)) * LUMA_W, (y - H * BORDER) / (H * (1 - 2 * BORDER)) * LUMA_H)


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in DECK]))


def test_blister_slots_lie_where_the_deck_prints_its_blisters(matcher):
    assert len(matcher._slots) == 5
    for k, slot in enumerate(matcher._slots, start=1):
        ys, xs = np.nonzero(slot)
        cx, cy = blister_centre(k)
        assert 5 <= len(xs) <= 60, (k, len(xs))
        assert abs(xs.mean() - cx) < 1.5 and abs(ys.mean() - cy) < 1.5, (k, xs.mean(), ys.mean(), cx, cy)


def test_a_deck_without_blisters_has_no_slots():
    rng = np.random.default_rng(3)
    luma = rng.normal(0, 1, (6, LUMA_H, LUMA_W)).astype(np.float32)
    assert blister_slots(luma, np.zeros(6, int)) == []


def test_a_count_missing_from_the_deck_joins_the_slot_below():
    """No card with exactly one blister: slots 1 and 2 cannot be told apart; slot 1 takes one of
    the two blisters and slot 2 stays empty."""
    labels = [lab for lab in DECK if lab.blisters != 1]
    luma = np.stack([describe(slate(lab)).luma for lab in labels])
    slots = blister_slots(luma, np.array([lab.blisters for lab in labels]))
    assert len(slots) == 5 and not slots[1].any() and slots[2].any()
    ys, xs = np.nonzero(slots[0])
    assert min(abs(ys.mean() - blister_centre(k)[1]) for k in (1, 2)) < 1.5
    assert abs(xs.mean() - blister_centre(1)[0]) < 1.5


def _laid(matcher: DeckMatcher, crop: np.ndarray, cards: list[str]) -> tuple[Descriptor, list[int], _Views, np.ndarray]:
    """The query of ``crop`` laid the way round the first of ``cards`` fits, the cards' indices,
    their views and the hidden cells, as the matcher compares them."""
    ids = [lab.identity for lab in matcher.deck.labels]
    idx = [ids.index(c) for c in cards]
    q0 = describe(crop)
    queries = (q0, rotate_180(q0))
    found = matcher._found(q0)
    o = int(np.argmin([found[0][0][idx[0]], found[1][0][idx[0]]]))
    views = _Views(matcher, queries[o], found[o][2], _pixels(~found[o][1]))
    views.kernel = matcher._query_blur(queries[o], views.shifted(idx[0]), views.usable)
    return queries[o], idx, views, matcher._hidden_cells(queries[o], idx, views, found[o][1])


def _reading(matcher: DeckMatcher, crop: np.ndarray, cards: list[str]) -> dict[int, bool] | None:
    """The slot reading of ``crop`` among ``cards``."""
    q, idx, views, hidden = _laid(matcher, crop, cards)
    return matcher._blister_reading(q, idx, views, _pixels(~hidden), hidden)


def _under_a_card(card: np.ndarray) -> np.ndarray:
    """``card`` with a card of its own colour lying over blisters 4 and 5, its frame in view."""
    card = card.copy()
    cv2.rectangle(card, (W - 80, 145), (W, H), (74, 58, 48), -1)
    cv2.line(card, (W - 80, 145), (W - 80, H), (236, 240, 242), 3)
    cv2.line(card, (W - 80, 145), (W, 145), (236, 240, 242), 3)
    return card


def _covered_w38() -> np.ndarray:
    """W38 under a card lying over blisters 4 and 5, and a green mark beside the column."""
    card = _under_a_card(slate(next(lab for lab in DECK if lab.identity == "W38")))
    cv2.circle(card, (W - 130, 300), 22, (20, 200, 20), -1)
    return card


@pytest.mark.parametrize("identity, shown", [("W38", {4: True, 5: True}), ("W35", {4: False, 5: False}),
                                             ("W30", {4: True, 5: False})])
def test_blisters_are_read_slot_by_slot_under_blur(matcher, identity, shown):
    label = next(lab for lab in DECK if lab.identity == identity)
    crop = seen(slate(label), 5, turned=True, blur=streak(15, 60.0))
    assert _reading(matcher, crop, ["W38", "W35", "W30"]) == shown


def test_a_slot_next_to_hidden_print_does_not_read_blank(matcher):
    """A card lying over the blister column looks like blank card: with its edge hidden beside the
    column, the count is left open rather than read as three."""
    assert _reading(matcher, seen(_covered_w38(), 2), ["W38", "W35", "W30"]) is None
    # The same card with nothing over it reads as it is.
    assert _reading(matcher, seen(slate(next(lab for lab in DECK if lab.identity == "W38")), 2),
                    ["W38", "W35", "W30"]) == {4: True, 5: True}


def test_the_count_settles_a_tie_only_for_a_leader_it_fits(matcher, monkeypatch):
    ids = [lab.identity for lab in matcher.deck.labels]
    close = [ids.index(c) for c in ("W38", "W35", "W27")]  # W27 prints five blisters as well
    evidence = np.array([[1.0, 0.35, 0.7], [-0.35, 1.0, -0.8], [-0.7, 0.8, 1.0]])
    args = (evidence, 0, 0.4, None, None, np.zeros(GRID_H * GRID_W, bool))
    monkeypatch.setattr(DeckMatcher, "_blister_reading", lambda *a: {4: True, 5: True})
    assert matcher._count_decides(None, close, *args).startswith("blister count: 2 of 2")
    # W27 fits the count too and trails by less than the threshold: the tie stays.
    weak = evidence.copy()
    weak[0, 2], weak[2, 0] = 0.3, -0.3
    assert matcher._count_decides(None, close, weak, *args[1:]) == ""
    # A count that fits W35 rather than the leader never names the leader.
    monkeypatch.setattr(DeckMatcher, "_blister_reading", lambda *a: {4: False, 5: False})
    assert matcher._count_decides(None, close, *args) == ""
    monkeypatch.setattr(DeckMatcher, "_blister_reading", lambda *a: None)
    assert matcher._count_decides(None, close, *args) == ""


def _colour_count(matcher: DeckMatcher, crop: np.ndarray, cards: list[str]) -> tuple[str | None, str]:
    """The card of ``cards`` that the blister colour names in ``crop``, and why."""
    q, idx, views, hidden = _laid(matcher, crop, cards)
    card, why = matcher._colour_count(q, idx, views, _pixels(~hidden), hidden)
    return (None if card is None else matcher.deck.labels[card].identity), why


@pytest.mark.parametrize("identity", ["W38", "W35", "W30"])
def test_the_blister_colour_names_the_count(matcher, identity):
    label = next(lab for lab in DECK if lab.identity == identity)
    crop = seen(slate(label), 5, turned=True, blur=streak(9, 60.0))
    # Whichever candidate leads, the card shown is named.
    for order in (["W38", "W35", "W30"], ["W30", "W38", "W35"], ["W35", "W30", "W38"]):
        found, why = _colour_count(matcher, crop, order)
        assert found == identity, why


def test_the_blister_colour_never_reads_a_covered_slot_as_blank(matcher):
    """The card over blisters 4 and 5 shows the card's own colour there: the colour count stays
    open rather than naming W35."""
    found, why = _colour_count(matcher, seen(_covered_w38(), 2), ["W38", "W35", "W30"])
    assert found is None and "covered" in why, why


def test_blisters_without_their_colour_are_not_counted(matcher):
    """Blisters as light as ever but grey (their colour lost to the light): no count, rather
    than every slot read as blank."""
    card = slate(next(lab for lab in DECK if lab.identity == "W38"))
    column = card[:, W - 60:W - 12]
    card[:, W - 60:W - 12] = cv2.cvtColor(cv2.cvtColor(column, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    found, why = _colour_count(matcher, seen(card, 5), ["W38", "W35", "W30"])
    assert found is None and "colour" in why, why


GLADIOLAS = tuple(CardLabel(f"G{b}", DeckKind.GLADIOLA, None, b) for b in range(1, 6))


def test_the_colour_count_settles_twins_the_lightness_leaves_open(monkeypatch):
    """Gladiolas differ only in their blisters. With every lightness comparison left undecided (as
    a long smear can leave them), the blister colour gives the count. (The walks of ``DECK`` are
    enrolled too: a deck of gladiolas alone would not show where it prints each blister; close
    looks are always compared, so that the comparison is reached.)"""
    deck = enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in DECK + GLADIOLAS])
    matcher = DeckMatcher(deck, MatchConfig(always_check=1e9))
    monkeypatch.setattr(DeckMatcher, "_pair_evidence", lambda *a, **k: 0.0)
    for label in GLADIOLAS:
        m, why = matcher.explain(seen(slate(label), 3, blur=streak(9, 30.0)))
        assert m is not None and m.blisters == label.blisters and why.startswith("colour count"), why
    # Without the colour count, the same comparisons leave the count open.
    monkeypatch.setattr(DeckMatcher, "_colour_count", lambda *a: (None, ""))
    m, why = matcher.explain(seen(slate(GLADIOLAS[2]), 3, blur=streak(9, 30.0)))
    assert m is not None and m.blisters is None, why


def test_the_count_also_compares_nearby_cards_left_out_of_the_candidates(matcher, monkeypatch):
    """A card the count fits as well, left out of the candidates, must trail the leader like
    them: under glare a 40 fell behind eight nearer cards and the count named a 47."""
    ids = [lab.identity for lab in matcher.deck.labels]
    close = [ids.index(c) for c in ("W38", "W35")]
    evidence = np.array([[1.0, 0.8], [-0.8, 1.0]])
    monkeypatch.setattr(DeckMatcher, "_blister_reading", lambda *a: {4: True, 5: True})
    compared: list[int] = []
    lean = {"value": 0.6}

    def pair_evidence(self, q, ta, tb, usable, nudged=None, plain=None):
        compared.append(int(tb[0, 0]))
        return lean["value"]

    class Views:  # each template marked with its card's index
        def blurred(self, c):
            return np.full((LUMA_H, LUMA_W), float(c))
        nudged = blurred_shifted = blurred

    monkeypatch.setattr(DeckMatcher, "_pair_evidence", pair_evidence)
    # W27 prints five blisters too; W30 (four) does not fit the count; W35 is a candidate already.
    others = [ids.index(c) for c in ("W27", "W30", "W35", "W38")]
    args = (None, close, evidence, 0, 0.4, Views(), np.ones((LUMA_H, LUMA_W), bool), np.zeros(GRID_H * GRID_W, bool))
    assert matcher._count_decides(*args, others).startswith("blister count")
    assert compared == [ids.index("W27")]
    lean["value"] = 0.1
    assert matcher._count_decides(*args, others) == ""
    # Without cards left out, the candidates alone decide.
    assert matcher._count_decides(*args).startswith("blister count")
