"""Tests of companion.tracking.reveal: a read shown hand -> card ids, whose hand, agreement."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from companion.errors import CompanionError
from companion.games.gladiola import load_deck
from companion.tracking.reveal import RECOUNT_AGREE, HandWatch, RevealedHand, hand_ids, next_player
from vision.hand import HandCard, ShownHand
from vision.types import CardKind, FieldConfidences, Quad

DECK = load_deck()
QUAD = Quad(((0.0, 0.0), (59.0, 0.0), (59.0, 91.0), (0.0, 91.0)))


def card(kind: CardKind, value: int | None = None, blisters: int | None = None) -> HandCard:
    return HandCard(QUAD, 34.0, False, kind, value, blisters)


def row(*cards: HandCard) -> ShownHand:
    return ShownHand(QUAD, tuple(cards))


@dataclass(frozen=True)
class View:
    hand_counts: tuple[int, ...]
    over: bool = True
    table: frozenset[str] = frozenset()

    def on_table(self) -> frozenset[str]:
        return self.table


def blisters_of(card_id: str) -> int:
    found = DECK.get(card_id)
    assert found is not None
    return found.blisters


def test_walk_cards_by_value_finish_and_gladiola_by_blisters():
    ids = hand_ids(row(card(CardKind.WALK, 17), card(CardKind.FINISH, 50, 2), card(CardKind.GLADIOLA, None, 4)), DECK)
    assert ids is not None and ids[0] == "W17"
    assert DECK.get(ids[1]).kind.value == "finish" and blisters_of(ids[1]) == 2
    assert DECK.get(ids[2]).kind.value == "gladiola" and blisters_of(ids[2]) == 4


def test_cards_taken_or_named_twice_are_not_given_again():
    twins = [c.id for c in DECK.cards if c.kind.value == "finish" and c.blisters == 2]
    assert len(twins) == 2
    ids = hand_ids(row(card(CardKind.FINISH, 50, 2), card(CardKind.FINISH, 50, 2)), DECK)
    assert ids is not None and sorted(ids) == sorted(twins)
    # one of the two lies on the table: a row showing two of them cannot be right
    assert hand_ids(row(card(CardKind.FINISH, 50, 2), card(CardKind.FINISH, 50, 2)), DECK,
                    frozenset(twins[:1])) is None
    assert hand_ids(row(card(CardKind.WALK, 17)), DECK, frozenset({"W17"})) is None


@pytest.mark.parametrize("unsure", [
    card(CardKind.UNKNOWN),
    card(CardKind.WALK, None, 2),             # a walk card whose value was not read
    card(CardKind.FINISH, 50, None),          # FINISH without its blister count
    card(CardKind.GLADIOLA, None, None),
    card(CardKind.FINISH, 50, 7),             # no FINISH card has 7 blisters
])
def test_one_unsure_card_makes_the_hand_unsure(unsure):
    assert hand_ids(row(card(CardKind.WALK, 3), unsure), DECK) is None


def test_a_blister_count_that_contradicts_the_value_makes_it_unsure():
    right = blisters_of("W17")
    assert hand_ids(row(card(CardKind.WALK, 17, right)), DECK) == ("W17",)
    assert hand_ids(row(card(CardKind.WALK, 17, right + 1)), DECK) is None


def test_a_value_read_surer_than_a_contradicting_blister_count_names_the_card():
    wrong = blisters_of("W17") + 1
    surer = HandCard(QUAD, 34.0, False, CardKind.WALK, 17, wrong,
                     field_confidences=FieldConfidences(kind=1.0, value=1.0, blisters=0.6))
    assert hand_ids(row(surer), DECK) == ("W17",)
    unsure = HandCard(QUAD, 34.0, False, CardKind.WALK, 17, wrong,
                      field_confidences=FieldConfidences(kind=1.0, value=0.6, blisters=0.9))
    assert hand_ids(row(unsure), DECK) is None


def test_next_player_in_seat_order_skips_shown_and_empty_hands():
    assert next_player((3, 0, 2), (None, None, None)) == 0
    assert next_player((3, 0, 2), (("W01",), None, None)) == 2
    assert next_player((3, 0, 2), (("W01",), None, ("W02",))) is None


def test_watch_names_a_hand_once_readings_agree():
    watch = HandWatch(DECK, agree=3)
    view = View((2, 1))
    shown = row(card(CardKind.WALK, 5), card(CardKind.WALK, 9))
    assert watch.see([shown], view, (None, None)) is None
    assert watch.see([shown], view, (None, None)) is None
    named = watch.see([shown], view, (None, None))
    assert named == RevealedHand(0, ("W05", "W09"), blisters_of("W05") + blisters_of("W09"), 2)
    assert not named.recounted and "counted" not in named.to_json()


def test_watch_starts_again_when_a_reading_differs():
    watch = HandWatch(DECK, agree=2)
    view = View((2, 1))
    first = row(card(CardKind.WALK, 5), card(CardKind.WALK, 9))
    other = row(card(CardKind.WALK, 5), card(CardKind.WALK, 8))
    assert watch.see([first], view, (None, None)) is None
    assert watch.see([other], view, (None, None)) is None  # disagrees: counting starts again
    assert watch.see([row(card(CardKind.WALK, 5))], view, (None, None)) is None  # one card: not player 0's hand
    assert watch.see([first], view, (None, None)) is None
    assert watch.see([first], view, (None, None)) == RevealedHand(0, ("W05", "W09"),
                                                                  blisters_of("W05") + blisters_of("W09"), 2)
    # the second player holds one card; a table card cannot be in it, and nothing before the end
    assert watch.see([row(card(CardKind.WALK, 5))], View((2, 1), table=frozenset({"W05"})),
                     (("W07", "W09"), None)) is None
    assert watch.see([row(card(CardKind.WALK, 6))], View((2, 1), over=False), (None, None)) is None


def test_watch_needs_a_reading():
    with pytest.raises(CompanionError, match="at least 1"):
        HandWatch(DECK, agree=0)
    with pytest.raises(CompanionError, match="recount_agree"):
        HandWatch(DECK, agree=3, recount_agree=2)


def test_a_whole_sure_row_overrules_the_count_after_more_readings():
    watch = HandWatch(DECK, agree=2, recount_agree=4)
    view = View((2, 4))  # the companion counted 2 cards for player 1, who shows 3
    shown = row(card(CardKind.WALK, 5), card(CardKind.WALK, 9), card(CardKind.FINISH, 50, 1))
    for _ in range(6):  # player 2 is still to show: this row may be theirs, player 1's missed
        assert watch.see([shown], view, (None, None)) is None
    for _ in range(3):
        assert watch.see([shown], view, (None, ("W30", "W31", "W32", "W33"))) is None
    named = watch.see([shown], view, (None, ("W30", "W31", "W32", "W33")))
    assert named is not None and named.player == 0 and named.cards[:2] == ("W05", "W09")
    assert named.counted == 2 and named.recounted and named.to_json()["counted"] == 2
    assert named.blisters == DECK.blisters(named.cards)


def test_a_recount_needs_one_sure_row_near_the_count():
    watch = HandWatch(DECK, agree=1, recount_agree=1)
    view = View((4, 0))
    three = row(card(CardKind.WALK, 5), card(CardKind.WALK, 9), card(CardKind.WALK, 11))
    other = row(card(CardKind.WALK, 21), card(CardKind.WALK, 22), card(CardKind.WALK, 23))
    unsure = row(card(CardKind.WALK, 5), card(CardKind.WALK, 9), card(CardKind.UNKNOWN))
    assert watch.see([unsure], view, (None, None)) is None  # one card unsure: no hand, whatever the count
    assert watch.see([three, other], view, (None, None)) is None  # which of two rows? neither
    assert watch.see([row(card(CardKind.WALK, 30))], View((5, 0)), (None, None)) is None  # 1 of 5: too far off
    exact = row(*(card(CardKind.WALK, v) for v in (31, 32, 33, 34)))
    named = watch.see([three, exact], view, (None, None))  # the row of the counted size comes first
    assert named is not None and named.cards == ("W31", "W32", "W33", "W34") and not named.recounted
    assert watch.see([three], view, (None, None)).counted == 4


def placed(x: float, *cards: HandCard) -> ShownHand:
    """A row whose rectangle's left edge lies at image column ``x`` (91 px high)."""
    return ShownHand(Quad(((x, 0.0), (x + 300.0, 0.0), (x + 300.0, 91.0), (x, 91.0))), tuple(cards))


def walks(*values: int | None) -> list[HandCard]:
    return [card(CardKind.UNKNOWN) if v is None else card(CardKind.WALK, v) for v in values]


def test_cards_read_on_different_frames_name_the_hand_together():
    watch = HandWatch(DECK, agree=3)
    view = View((3, 2))
    # no frame reads all three cards; each card is read sure on two frames or more
    assert watch.see([placed(0, *walks(5, None, 11))], view, (None, None)) is None
    assert watch.see([placed(2, *walks(None, 9, 11))], view, (None, None)) is None
    assert watch.see([], view, (None, None)) is None  # a frame without the row changes nothing
    assert watch.see([placed(1, *walks(5, None, None))], view, (None, None)) is None  # 9 seen once
    named = watch.see([placed(0, *walks(None, 9, None))], view, (None, None))
    assert named == RevealedHand(0, ("W05", "W09", "W11"), DECK.blisters(("W05", "W09", "W11")), 3)


def test_the_watch_tells_which_cards_of_the_followed_row_were_never_read():
    watch = HandWatch(DECK, agree=2)
    view = View((3, 2))
    assert watch.unread() is None  # no row followed
    cards = walks(5, None, None)
    cards[2] = HandCard(Quad(((70.0, 0.0), (129.0, 0.0), (129.0, 91.0), (70.0, 91.0))), 34.0, False,
                        CardKind.GLADIOLA, None, None)  # its plasters hidden
    assert watch.see([placed(0, *cards)], view, (None, None)) is None
    row = watch.unread()
    assert row is not None and (row.player, row.size, row.positions, row.frames) == (0, 3, (1, 2), 1)
    assert row.quads == (QUAD, cards[2].quad)
    assert watch.see([placed(0, *walks(5, 9, None))], view, (None, None)) is None
    row = watch.unread()
    assert row is not None and (row.positions, row.frames) == ((2,), 2)  # 9 read once is read
    watch.reset()
    assert watch.unread() is None
    assert watch.see([placed(0, *walks(5, 9, 11))], view, (None, None)) is None
    assert watch.unread() is None  # every card read at least once


def test_a_card_read_two_ways_starts_the_watch_again():
    watch = HandWatch(DECK, agree=2)
    view = View((2, 2))
    assert watch.see([placed(0, *walks(5, 9))], view, (None, None)) is None
    assert watch.see([placed(0, *walks(5, 8))], view, (None, None)) is None  # 9 or 8? start again
    assert watch.see([placed(0, *walks(5, 9))], view, (None, None)) is None  # 8 then 9 again
    assert watch.see([placed(0, *walks(5, 9))], view, (None, None)) == RevealedHand(
        0, ("W05", "W09"), DECK.blisters(("W05", "W09")), 2)


def test_a_row_in_another_place_is_followed_anew():
    watch = HandWatch(DECK, agree=2)
    view = View((2, 2))
    assert watch.see([placed(0, *walks(5, None))], view, (None, None)) is None
    assert watch.see([placed(0, *walks(5, 9))], view, (None, None)) is None  # 9 seen once
    # the same cards 200 px away: another row, its readings counted from the start
    assert watch.see([placed(200, *walks(5, 9))], view, (None, None)) is None
    assert watch.see([placed(200, *walks(5, 9))], view, (None, None)) is not None


def test_a_hand_never_named_is_not_given_the_next_row_laid_in_its_place():
    watch = HandWatch(DECK, agree=2)
    view = View((3, 3, 3))
    # player 0's row: its middle card is never read; then an arm over the table
    for _ in range(4):
        assert watch.see([placed(0, *walks(5, None, 11))], view, (None, None, None)) is None
    watch.reset()
    # player 1's or 2's hand, as many cards, in the same place: read whole, still not player 0's
    for _ in range(4):
        assert watch.see([placed(0, *walks(20, 21, 22))], view, (None, None, None)) is None
    # player 0's row again: its cards seen before, so it is followed, and named once read whole
    assert watch.see([placed(0, *walks(5, 9, 11))], view, (None, None, None)) is None
    named = watch.see([placed(0, *walks(5, 9, 11))], view, (None, None, None))
    assert named is not None and named.player == 0 and named.cards == ("W05", "W09", "W11")


def test_finish_and_gladiola_cards_read_on_different_frames():
    watch = HandWatch(DECK, agree=2)
    view = View((2, 1))
    fin, gla = card(CardKind.FINISH, 50, 2), card(CardKind.GLADIOLA, None, 4)
    unsure_fin = card(CardKind.FINISH, 50, None)
    assert watch.see([placed(0, unsure_fin, gla)], view, (None, None)) is None
    assert watch.see([placed(0, fin, gla)], view, (None, None)) is None
    named = watch.see([placed(0, fin, card(CardKind.UNKNOWN))], view, (None, None))
    assert named is not None
    assert [DECK.card(i).kind.value for i in named.cards] == ["finish", "gladiola"]
    assert [blisters_of(i) for i in named.cards] == [2, 4]


def test_the_arm_that_laid_the_row_names_whose_hand_it_is():
    # Player 0's hand was never read; player 1 lays a row of their 2 cards, by their arm's place.
    watch = HandWatch(DECK)
    view = View((3, 2, 2))
    shown = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23))
    assert all(watch.see([shown], view, [None, None, None]) is None for _ in range(4))  # not player 0's
    named = [watch.see([shown], view, [None, None, None], laid_by=1) for _ in range(3)]
    assert named[:2] == [None, None] and named[2] is not None
    assert (named[2].player, named[2].cards) == (1, ("W17", "W23"))
    # an arm naming a player whose hand is shown already, or an empty hand, does not name the
    # row theirs: it is player 2's, the only one still to show with two cards
    revealed = [None, ("W17", "W23"), None]
    other = row(card(CardKind.WALK, 31), card(CardKind.WALK, 36))
    assert all(watch.see([other], View((3, 2, 2)), revealed, laid_by=1) is None for _ in range(4))
    named = watch.see([other], View((3, 0, 2)), [None, None, None], laid_by=1)
    assert named is not None and (named.player, named.cards) == (2, ("W31", "W36"))


def test_a_row_laid_near_a_players_place_is_theirs_only_with_their_exact_count():
    # Player 0's hand was never read; an arm nearest player 1's place lays a row.
    view = View((5, 2, 3))
    shown = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23))
    watch = HandWatch(DECK)
    named = [watch.see([shown], view, [None, None, None], laid_near=1) for _ in range(3)]
    assert named[:2] == [None, None] and named[2] is not None
    assert (named[2].player, named[2].cards) == (1, ("W17", "W23"))
    # three cards near player 1 (counted 2): no recount from a near arm, nor player 0's (5)
    three = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23), card(CardKind.WALK, 31))
    watch = HandWatch(DECK)
    assert all(watch.see([three], view, [None, None, None], laid_near=1) is None for _ in range(8))
    # near a player whose hand is shown already: the seat order's player as before
    assert all(watch.see([shown], view, [None, ("W01", "W02"), None], laid_near=1) is None for _ in range(4))


def test_a_row_of_a_count_only_one_waiting_player_has_is_theirs_when_the_next_hand_is_not_in_view():
    # Fresh film 175: the first player's 15 cards were never read whole, and the rows of the
    # next two players, 8 and 5 cards read whole, were never named. With no row of the first
    # player's count in view, a row of a count no other waiting player has is named as that
    # player's, after as many readings as a recount.
    view = View((4, 2, 3, 3))
    shown = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23))
    watch = HandWatch(DECK)
    named = [watch.see([shown], view, [None] * 4) for _ in range(RECOUNT_AGREE)]
    assert named[:-1] == [None] * (RECOUNT_AGREE - 1) and named[-1] is not None
    assert (named[-1].player, named[-1].cards) == (1, ("W17", "W23"))
    # three cards: two players wait with three, so whose is not known
    three = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23), card(CardKind.WALK, 31))
    watch = HandWatch(DECK)
    assert all(watch.see([three], view, [None] * 4) is None for _ in range(8))
    # the first player's row in view (four cards, one unread): the seat order holds
    four = row(card(CardKind.WALK, 5), card(CardKind.UNKNOWN), card(CardKind.WALK, 9), card(CardKind.WALK, 11))
    watch = HandWatch(DECK)
    assert all(watch.see([four, shown], view, [None] * 4) is None for _ in range(8))


def test_a_row_of_a_count_only_one_waiting_player_has_is_theirs_whoever_s_arm_left_last():
    # Fresh film 175: the arm that left the table as the rows of 8 and 5 cards lay still was the
    # player's before, taking their own row away; the rows went to them as recounts (5 cards for
    # a player counted 8). A row of a count only one waiting player has is that player's.
    view = View((4, 2, 3, 3))
    shown = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23))
    watch = HandWatch(DECK)
    named = [watch.see([shown], view, [None] * 4, laid_by=0) for _ in range(RECOUNT_AGREE)]
    assert named[:-1] == [None] * (RECOUNT_AGREE - 1) and named[-1] is not None
    assert (named[-1].player, named[-1].cards, named[-1].recounted) == (1, ("W17", "W23"), False)
    # a count two waiting players have: the arm tells, as before (a recount of player 0's hand)
    three = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23), card(CardKind.WALK, 31))
    watch = HandWatch(DECK)
    named = [watch.see([three], view, [None] * 4, laid_by=0) for _ in range(RECOUNT_AGREE)]
    assert named[-1] is not None and (named[-1].player, named[-1].counted) == (0, 4)


def test_a_row_laid_by_the_players_own_arm_overrules_their_count():
    # Player 0 was counted 3 cards but shows 2, with two more hands still to come: from the
    # seat order alone the row is not taken; laid by player 0's arm it is, after more readings.
    shown = row(card(CardKind.WALK, 17), card(CardKind.WALK, 23))
    view = View((3, 2, 2))
    watch = HandWatch(DECK)
    assert all(watch.see([shown], view, [None, None, None]) is None for _ in range(8))
    watch = HandWatch(DECK)
    named = [watch.see([shown], view, [None, None, None], laid_by=0) for _ in range(RECOUNT_AGREE)]
    assert named[:-1] == [None] * (RECOUNT_AGREE - 1) and named[-1] is not None
    assert (named[-1].player, named[-1].cards, named[-1].counted) == (0, ("W17", "W23"), 3)
    assert named[-1].recounted


def test_a_gladiola_logged_on_the_table_under_the_hands_id_is_relabelled():
    # G1 (1 blister) lies on the table for the observer; the hand shows a 1-blister gladiola
    view = View((4, 3), table=frozenset({"G1", "W20"}))
    shown = row(*walks(5, 9, 11), card(CardKind.GLADIOLA, None, 1))
    watch = HandWatch(DECK, agree=2, recount_agree=3)  # a card of the table: as many readings as a recount
    assert [watch.see([shown], view, (None, None)) for _ in range(2)] == [None, None]
    named = watch.see([shown], view, (None, None))
    assert named is not None and named.cards == ("W05", "W09", "W11", "G1")
    # the table's card is taken for a free gladiola with more blisters (covered blisters hide)
    assert named.relabels == (("G1", "G5"),) and blisters_of("G5") == 5
    assert named.blisters == DECK.blisters(("W05", "W09", "W11", "G1"))
    assert named.to_json()["relabels"] == [{"card": "G1", "as_card": "G5"}]
    # with G5 on the table as well, the most blisters left
    watch = HandWatch(DECK, agree=1, recount_agree=1)
    named = watch.see([shown], View((4, 3), table=frozenset({"G1", "G5"})), (None, None))
    assert named is not None and named.relabels == (("G1", "G4"),) and blisters_of("G4") == 4
    assert "relabels" not in RevealedHand(0, ("W05",), 0).to_json()


@pytest.mark.parametrize("table, revealed, shown", [
    # two cards of the row lie on the table and only three are named free: more likely a pile
    ({"G1", "F1", "F5"}, (None, None),
     (*walks(5, 9, 11), card(CardKind.GLADIOLA, None, 1), card(CardKind.FINISH, 50, 0))),
    # too few cards named free beside it
    ({"G1"}, (None, None), (*walks(5, 9), card(CardKind.GLADIOLA, None, 1))),
    # the twin is in another player's shown hand, not on the table
    (set(), (None, ("G1", "W30", "W31")), (*walks(5, 9, 11), card(CardKind.GLADIOLA, None, 1))),
    # no free gladiola left to take the table's card for
    ({f"G{k}" for k in range(1, 9)}, (None, None), (*walks(5, 9, 11), card(CardKind.GLADIOLA, None, 1))),
])
def test_no_relabel_unless_one_table_twin_in_an_otherwise_named_row(table, revealed, shown):
    view = View((len(shown), 3), table=frozenset(table))
    watch = HandWatch(DECK, agree=2)
    assert all(watch.see([row(*shown)], view, revealed) is None for _ in range(5))


def test_a_long_row_may_hold_two_table_twins():
    # film 141: a 12-card hand held G1 and a two-blister FINISH; the table had G1 (really G5)
    # and F3 (really F2), and the other two-blister FINISH F6 went to an earlier hand
    view = View((8, 9), table=frozenset({"G1", "F3", "W30"}))
    shown = row(*walks(5, 9, 11, 13, 17, 19), card(CardKind.GLADIOLA, None, 1), card(CardKind.FINISH, 50, 2))
    watch = HandWatch(DECK, agree=1, recount_agree=1)
    named = watch.see([shown], view, (None, ("F6", "W31")))
    assert named is not None and named.cards[-2:] == ("G1", "F3")
    assert [table for table, _ in named.relabels] == ["G1", "F3"]
    # each taken for a free card of its kind: G1 for the gladiola with most blisters, F3 (no free
    # FINISH has more than its two) for a one-blister FINISH
    assert [twin for _, twin in named.relabels] == ["G5", "F2"] and blisters_of("G5") == 5
    # five cards named free are too few for two relabels
    short = row(*walks(5, 9, 11, 13, 17), card(CardKind.GLADIOLA, None, 1), card(CardKind.FINISH, 50, 2))
    watch = HandWatch(DECK, agree=1, recount_agree=1)
    assert watch.see([short], View((7, 9), table=view.table), (None, ("F6", "W31"))) is None


def test_a_finish_whose_blisters_go_unread_is_named_when_the_free_ones_agree():
    # A covered FINISH read as one, its blisters not: named when every FINISH still free has one
    # blister count (any of them scores the same), not while free ones differ.
    finishes = {c.id: c.blisters for c in DECK.cards if c.kind.value == "finish"}
    shown = row(card(CardKind.WALK, 17), card(CardKind.FINISH, 50, None), card(CardKind.WALK, 23))
    count = 1
    twins = {i for i, b in finishes.items() if b == count}
    assert len(twins) == 2
    watch = HandWatch(DECK)
    view = View((3,), table=frozenset(finishes) - twins)
    got = [watch.see([shown], view, [None]) for _ in range(3)]
    assert got[:2] == [None, None] and got[2] is not None
    assert got[2].cards[0] == "W17" and got[2].cards[1] in twins and got[2].cards[2] == "W23"
    assert got[2].blisters == blisters_of("W17") + count + blisters_of("W23")
    # two free FINISH cards of different counts: which one is shown is not known
    other = next(i for i, b in finishes.items() if b != count)
    watch = HandWatch(DECK)
    view = View((3,), table=frozenset(finishes) - {other, min(twins)})
    assert all(watch.see([shown], view, [None]) is None for _ in range(5))
