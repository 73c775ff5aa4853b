"""Round 10 of enrollment accuracy: a covered card is not named as a card with fewer blisters
because its blister column looks blank (a card, a hand or the image's edge lying over it)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, MatchConfig, _pixels, enroll
from calibration.features import GRID_H, GRID_W
from tests.calibration.test_enroll_accuracy import H, W, seen, slate
from tests.calibration.test_enroll_slots import DECK


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in DECK]))


def _index(matcher: DeckMatcher, *ids: str) -> list[int]:
    names = [lab.identity for lab in matcher.deck.labels]
    return [names.index(i) for i in ids]


def _cells(*cells: tuple[int, int]) -> np.ndarray:
    hidden = np.zeros((GRID_H, GRID_W), bool)
    for row, col in cells:
        hidden[row, col] = True
    return hidden.ravel()


def test_blank_slots_count_only_in_clear_view(matcher):
    close = _index(matcher, "W35", "W38", "W30", "W17")  # 3, 5, 4 and 0 blisters

    def blanks(win: int, hidden: np.ndarray) -> list[tuple[int, np.ndarray]]:
        return matcher._unseen_blanks(close, win, _pixels(~hidden), hidden)

    # Nothing hidden: the leader's blank slots 4 and 5 may speak against W38 and W30.
    assert blanks(0, _cells()) == []
    # A hidden cell far from the column (bottom left) changes nothing.
    assert blanks(0, _cells((11, 0))) == []
    # A hidden cell next to slot 4 (right column): the blank slots no longer count against the
    # cards with more blisters; the one with fewer (W17) is not concerned.
    near = blanks(0, _cells((5, 6)))
    assert [j for j, _ in near] == [1, 2]
    blank38, blank30 = near[0][1], near[1][1]
    assert (blank38 & ~blank30).any() and not (blank30 & ~blank38).any()  # W38's also covers slot 5
    assert (matcher._slots[3] <= blank30).all() and (matcher._slots[4] <= blank38).all()
    # The same cell counted as seen (its print follows a candidate, as under glare) is no cover.
    assert matcher._unseen_blanks(close, 0, np.ones((72, 48), bool), _cells((5, 6))) == []
    # Much of the card hidden anywhere: no blank slot counts (plain cover often goes unseen).
    many = _cells(*[(11, c) for c in range(GRID_W)], (10, 0), (10, 1))
    assert float(many.mean()) > matcher.config.blank_hidden
    assert [j for j, _ in blanks(0, many)] == [1, 2]
    # A leader with the most blisters is never held back.
    assert blanks(1, _cells((5, 6))) == []


def _covered(identity: str) -> np.ndarray:
    """``identity`` with a plain card of the same colour lying over its blister column."""
    card = slate(next(lab for lab in DECK if lab.identity == identity))
    cv2.rectangle(card, (W - 70, 40), (W, H), (74, 58, 48), -1)
    cv2.line(card, (W - 70, 40), (W - 70, H), (236, 240, 242), 3)
    return card


def test_a_covered_blister_column_does_not_name_a_card_without_blisters(matcher, monkeypatch):
    crops = [seen(_covered("W12"), s) for s in range(3)]
    for crop in crops:
        m = matcher.match(crop)
        assert m is None or (m.value == 12 and m.blisters in (None, 2)), m
    # Without the rule the blank column names W17 (no blisters) at least once.
    monkeypatch.setattr(DeckMatcher, "_unseen_blanks", lambda *a: [])
    assert any((m := matcher.match(c)) is not None and m.identity == "W17" for c in crops)


def test_a_card_in_plain_view_is_still_named(matcher):
    for identity in ("W17", "W35", "W12"):
        card = slate(next(lab for lab in DECK if lab.identity == identity))
        m = matcher.match(seen(card, 1))
        assert m is not None and m.identity == identity and m.blisters is not None


def test_cards_printed_alike_but_for_blisters_tie_when_the_slots_may_be_covered():
    """Two FINISH cards differ only in their blisters; on a card under cover, what is left of
    their comparison (the differences between two enrollment photos) decides nothing: the value
    is named, the count left open."""
    labels = [CardLabel("F0", DeckKind.FINISH, 50, 0), CardLabel("F1", DeckKind.FINISH, 50, 1),
              CardLabel("F2", DeckKind.FINISH, 50, 2), *DECK[:6]]
    # F1 and F2 enrolled from photos of their own (a little tilted, noisy).
    photos = [slate(lab) if k not in (1, 2) else seen(slate(lab), 10 + k) for k, lab in enumerate(labels)]
    deck = enroll(DeckGame.GLADIOLA, list(zip(labels, photos)))
    crop = seen(slate(labels[0]), 4)
    # Always compared where they differ (these clean crops would otherwise be plain answers).
    plain = DeckMatcher(deck, MatchConfig(always_check=1e9)).match(crop)
    assert plain is not None and plain.identity == "F0" and plain.blisters == 0
    # The same crop taken for a card under cover (any hidden share counts as much).
    m = DeckMatcher(deck, MatchConfig(always_check=1e9, blank_hidden=-1.0)).match(crop)
    assert m is not None and m.value == 50 and m.blisters is None
