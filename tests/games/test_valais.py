"""Rules of Valais*Wallis Digital, on small hand-built states (see companion/games/valais.py)."""

from __future__ import annotations

import json
import random

import pytest

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games import get_game
from companion.games import valais as V
from companion.games.valais import (
    Card,
    CardDate,
    Catalogue,
    DiscardOwn,
    GiveCard,
    Joker,
    KeepCard,
    Observer,
    Place,
    PlaceSeen,
    RemoveFromTimeline,
    RevealOwn,
    RevealSeen,
    Rules,
    SeenCard,
    State,
    Step,
)

# A small test deck: id -> (date, joker).
#   1..20: one card per decade, 1820 (id 1) .. 2010 (id 20)
#   21..26: dates around 1865 and 1900 for equality and precision cases
#   31..34: one joker of each kind; 41..60: filler for stacks and discards (1941..1960)
_DECK: dict[int, tuple[str, Joker | None]] = {n: (str(1810 + 10 * n), None) for n in range(1, 21)}
_DECK.update(
    {
        21: ("1865-07-14", None),
        22: ("1865", None),
        23: ("1865-08-30", None),
        24: ("1890", None),
        25: ("1902", None),
        26: ("1900", None),
        31: ("1815-08-04", Joker.J1815),
        32: ("1865", Joker.J1865),
        33: ("1915", Joker.J1915),
        34: ("1965-08-30", Joker.J1965),
    }
)
_DECK.update({n: (str(1900 + n), None) for n in range(41, 61)})
CAT = Catalogue(tuple(Card(i, CardDate.parse(d), f"test card {i}", j, True) for i, (d, j) in sorted(_DECK.items())))


def build(hands, timeline, stack=(), discard=(), **kw) -> State:
    return State.custom([list(h) for h in hands], list(timeline), list(stack), list(discard), catalogue=CAT, **kw)


def check_observer(state: State, actions) -> Observer:
    """Apply ``actions`` to the state and to an observer started from it; views must agree."""
    obs = state.observer()
    for action in actions:
        public = state.public_action(action)
        assert state.apply(action).legal
        assert obs.apply(public).legal
        assert obs.public_view() == state.public_view()
    return obs


# ---------------------------------------------------------------- dates


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("1865", "1865", 0),
        ("1865", "1865-07-14", 0),  # a year-only date equals every date in that year
        ("1865-12-31", "1865", 0),
        ("1865-07", "1865-07-14", 0),
        ("1865-07-14", "1865-08-30", -1),  # both full: full comparison
        ("1865-08-30", "1865-07-14", 1),
        ("1865-07-14", "1865-07-14", 0),
        ("1864-12-31", "1865", -1),
        ("1866", "1865-12-31", 1),
        ("1865-06", "1865-07-01", -1),
    ],
)
def test_date_comparison_uses_shared_precision(a, b, expected):
    assert CardDate.parse(a).compare(CardDate.parse(b)) == expected
    assert CardDate.parse(b).compare(CardDate.parse(a)) == -expected


@pytest.mark.parametrize("text", ["18650", "1865-13-01", "1865-02-30", "abc", "1865-7-14", ""])
def test_bad_dates_are_rejected(text):
    with pytest.raises(CompanionError):
        CardDate.parse(text)


@pytest.mark.parametrize("text", ["1865", "1865-07", "1865-07-14"])
def test_date_text_round_trip(text):
    assert str(CardDate.parse(text)) == text


# ---------------------------------------------------------------- placing


@pytest.mark.parametrize(
    "timeline, card, position, correct",
    [
        ([3], 8, 1, True),  # 1840 then 1890
        ([3], 8, 0, False),
        ([3, 9], 5, 1, True),  # 1860 between 1840 and 1900
        ([3, 9], 5, 2, False),
        ([3, 9], 5, 0, False),
        # equal dates: either side
        ([32], 22, 0, True),  # 1865 left of 1865
        ([32], 22, 1, True),  # 1865 right of 1865
        ([9], 26, 0, True),  # 1900 left of 1900
        ([9], 26, 1, True),
        # year-only against full dates
        ([21], 22, 0, True),  # 1865 left of 1865-07-14
        ([21], 22, 1, True),
        ([21, 23], 22, 1, True),  # 1865 between 1865-07-14 and 1865-08-30
        ([22], 21, 0, True),  # 1865-07-14 next to 1865
        ([22], 23, 1, True),
        # both full: compared day by day
        ([23], 21, 0, True),  # 07-14 before 08-30
        ([23], 21, 1, False),
        ([21], 23, 0, False),
        ([6, 23], 21, 1, False),  # left neighbour 1870 is later than 1865-07-14
    ],
)
def test_placement_judged_against_both_neighbours(timeline, card, position, correct):
    state = build([[card, 1], [2]], timeline, stack=[41, 42])
    verdict = state.apply(Place(card, position))
    assert verdict.legal
    assert verdict.messages[0].startswith("correct:" if correct else "wrong:")
    if correct:
        assert [c.card_id for c in state.timeline] == timeline[:position] + [card] + timeline[position:]
        assert sorted(state.hands[0]) == [1]
        assert state.discard == [] and verdict.draws == 0
    else:
        assert [c.card_id for c in state.timeline] == timeline
        assert sorted(state.hands[0]) == [1, 42]  # top of the stack (last id) replaces it
        assert state.discard == [card] and verdict.draws == 1
    assert state.current_player == 1


@pytest.mark.parametrize(
    "timeline, card, position, message",
    [
        ([24], 25, 0, "wrong: 1902 is after 1890 — take the card away and draw one"),
        ([25], 24, 1, "wrong: 1890 is before 1902 — take the card away and draw one"),
        ([3, 9], 5, 1, "correct: 1860 fits between 1840 and 1900"),
        ([9], 5, 0, "correct: 1860 fits before 1900"),
        ([3], 5, 1, "correct: 1860 fits after 1840"),
    ],
)
def test_verdict_messages(timeline, card, position, message):
    state = build([[card, 1], [2]], timeline, stack=[41])
    assert state.apply(Place(card, position)).messages[0] == message


@pytest.mark.parametrize(
    "action, rule",
    [
        (Place(2, 0), "place.own-card"),  # player 2's card
        (Place(1, 2), "place.position"),  # timeline has 1 card: positions 0..1
        (Place(1, -1), "place.position"),
        (RemoveFromTimeline(0), "turn.step"),
        (KeepCard(41), "turn.step"),
        (PlaceSeen(SeenCard(1, CardDate(1820)), 0), "action.kind"),
    ],
)
def test_illegal_actions_raise_and_change_nothing(action, rule):
    state = build([[1], [2]], [9], stack=[41])
    before = state.to_json()
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    assert err.value.rule == rule
    assert state.to_json() == before


def test_legal_actions_cover_every_card_and_slot():
    state = build([[5, 1], [2]], [3, 9])
    assert state.legal_actions() == [Place(c, p) for c in (1, 5) for p in range(3)]


# ---------------------------------------------------------------- drawing and the stack


@pytest.mark.parametrize(
    "rules, message",
    [
        # default: draw from the reshuffled discards first, then discard the wrong card
        (Rules(), "draw pile empty: shuffle the 2 discarded cards into a new draw pile"),
        # discard first: the wrong card joins the reshuffle
        (Rules(draw_before_discarding_wrong=False), "draw pile empty: shuffle the 3 discarded cards into a new draw pile"),
    ],
)
def test_empty_stack_reshuffles_discards(rules, message):
    state = build([[5, 1], [2]], [9], stack=[], discard=[41, 42], rules=rules)
    deck = sorted(state.all_cards())
    verdict = state.apply(Place(5, 1))  # 1860 after 1900: wrong
    assert message in verdict.messages
    assert verdict.draws == 1
    assert state.reshuffles == 1
    assert len(state.hands[0]) == 2 and 1 in state.hands[0]
    assert len(state.stack) + len(state.discard) == 2
    if rules.draw_before_discarding_wrong:
        assert state.hands[0][1] in (41, 42)
        assert state.discard == [5]
    else:
        assert state.discard == []
        assert sorted(state.stack + [state.hands[0][1]]) == [5, 41, 42]
    assert sorted(state.all_cards()) == deck


def test_reshuffle_is_deterministic_for_the_seed():
    def run(seed):
        state = build([[5, 1], [2]], [9], discard=list(range(41, 61)), seed=seed)
        state.apply(Place(5, 1))
        return state.stack

    assert run(3) == run(3)
    assert any(run(3) != run(s) for s in (4, 5, 6))


@pytest.mark.parametrize(
    "rules, discard, hand_after, message",
    [
        (Rules(), [], [1], "no card left to draw: 1 draw lost"),
        (Rules(reshuffle_discards=False), [41], [1], "no card left to draw: 1 draw lost"),
        (Rules(draw_before_discarding_wrong=False), [], [1, 5], None),  # draws its own card back
    ],
)
def test_nothing_to_draw_loses_the_draw(rules, discard, hand_after, message):
    state = build([[5, 1], [2]], [9], stack=[], discard=discard, rules=rules)
    verdict = state.apply(Place(5, 1))
    assert sorted(state.hands[0]) == hand_after
    if message:
        assert message in verdict.messages
        assert verdict.draws == 0


# ---------------------------------------------------------------- setup


@pytest.mark.parametrize("players, hand", [(2, 6), (3, 6), (4, 5), (5, 5), (6, 4), (7, 4), (8, 4)])
def test_hand_sizes_by_player_count(players, hand):
    state = V.new_game(players, seed=players)
    assert state.public_view().hand_counts == (hand,) * players
    assert len(state.timeline) == 1
    assert len(state.stack) == 200 - players * hand - 1
    assert sorted(state.all_cards()) == sorted(c.card_id for c in V.load_catalogue().cards)
    assert state.current_player == 0 and state.round_no == 1


def test_hand_sizes_are_options():
    state = V.new_game(4, seed=1, rules=Rules(hand_size_4_5=7))
    assert state.public_view().hand_counts == (7,) * 4


@pytest.mark.parametrize("players", [1, 9, 0, "3"])
def test_player_count_outside_range(players):
    with pytest.raises(CompanionError):
        V.new_game(players, seed=0)


def test_new_game_is_deterministic_for_the_seed():
    assert V.new_game(3, 7) == V.new_game(3, 7)
    assert V.new_game(3, 7) != V.new_game(3, 8)


def test_catalogue_too_small_for_the_players():
    assert len(V.new_game(8, seed=0, data=CAT).stack) == len(CAT) - 33
    with pytest.raises(CompanionError, match="need at least"):
        V.new_game(2, seed=0, data=Catalogue(CAT.cards[:12]))


# ---------------------------------------------------------------- jokers


@pytest.mark.parametrize("joker_id, position", [(31, 1), (32, 0), (33, 0), (34, 0)])
def test_joker_placed_wrongly_has_no_effect(joker_id, position):
    # timeline [1820 (id 1)]: 1815 after it is wrong, the other jokers before it are wrong
    state = build([[joker_id, 5], [2]], [1], stack=[41, 42, 43])
    verdict = state.apply(Place(joker_id, position))
    assert verdict.messages[0].startswith("wrong:")
    assert not any("joker" in m for m in verdict.messages)
    assert state.step is Step.PLACE and state.current_player == 1
    assert state.aside == []


def test_joker_1815_reveals_an_own_card():
    state = build([[31, 5, 6], [2, 3]], [1], stack=[41])
    verdict = state.apply(Place(31, 0))  # 1815-08-04 before 1820
    assert "joker 1815: turn one of your own cards over and read its date" in verdict.messages
    assert state.current_player == 0 and state.step is Step.REVEAL_1815
    assert state.legal_actions() == [RevealOwn(5), RevealOwn(6)]
    check_observer(state, [RevealOwn(6)])
    view = state.public_view()
    assert view.revealed[0] == (SeenCard(6, CardDate(1870)),)
    assert view.current_player == 1
    # the revealed card leaves the revealed list once played
    check_observer(state, [Place(2, 2), Place(6, 3)])  # 1830 then 1870 at the end: both correct
    assert state.public_view().revealed[0] == ()
    assert [c.card_id for c in state.timeline] == [31, 1, 2, 6]


def test_joker_1815_lapses_without_cards():
    state = build([[31], [2]], [1], stack=[41])
    verdict = state.apply(Place(31, 0))
    assert "joker 1815: no card left to turn over, the joker has no effect" in verdict.messages
    assert state.step is Step.PLACE and state.current_player == 1


def test_joker_1865_draw_keep_and_give_in_turn_order():
    # 3 players, player 2 (seat 1) places; draws 3; keeps one; gives to seat 2, then seat 0
    state = build([[7], [32, 5], [8]], [1], stack=[41, 42, 43, 44], current=1)
    verdict = state.apply(Place(32, 1))
    assert verdict.draws == 3
    assert sorted(state.aside) == [42, 43, 44]
    assert state.step is Step.KEEP_1865
    assert state.legal_actions() == [KeepCard(42), KeepCard(43), KeepCard(44)]
    obs = check_observer(state, [KeepCard(43)])
    assert state.public_view().recipients == (2, 0)
    assert state.legal_actions() == [GiveCard(42, 2), GiveCard(44, 2)]
    with pytest.raises(IllegalAction) as err:
        state.apply(GiveCard(42, 0))
    assert err.value.rule == "joker1865.give-order"
    for action in (GiveCard(44, 2), GiveCard(42, 0)):
        public = state.public_action(action)
        assert public == GiveCard(None, action.to_player)
        state.apply(action)
        obs.apply(public)
    assert sorted(state.hands[1]) == [5, 43]
    assert sorted(state.hands[2]) == [8, 44]
    assert sorted(state.hands[0]) == [7, 42]
    assert state.step is Step.PLACE and state.current_player == 2
    assert obs.public_view() == state.public_view()


@pytest.mark.parametrize(
    "players_in, stack, drawn, recipients",
    [
        ((0, 1, 2), [41, 42, 43], 3, (2, 0)),
        ((0, 1), [41, 42, 43], 2, (0,)),  # seat 2 is out: draw 2, give 1
        ((0, 1, 2), [41, 42], 2, (2,)),  # only 2 cards to draw: seat 0 gets none
        ((0, 1, 2), [41], 1, ()),  # only one: keep it
    ],
)
def test_joker_1865_counts_players_still_in(players_in, stack, drawn, recipients):
    state = build([[7], [32, 5], [8]], [1], stack=stack, current=1, players_in=players_in)
    verdict = state.apply(Place(32, 1))
    assert verdict.draws == drawn
    assert len(state.aside) == drawn
    assert tuple(state.recipients) == recipients


def test_joker_1865_with_nothing_to_draw_lapses():
    state = build([[7], [32, 5]], [1], stack=[], current=1, rules=Rules(reshuffle_discards=False))
    verdict = state.apply(Place(32, 1))
    assert "joker 1865: nothing to draw, the joker has no effect" in verdict.messages
    assert state.current_player == 0


def test_joker_1915_removes_a_timeline_card():
    state = build([[33, 5], [2]], [1, 9, 19], stack=[41])
    assert state.apply(Place(33, 2)).messages[-1] == "joker 1915: remove one card from the timeline"
    assert state.legal_actions() == [RemoveFromTimeline(i) for i in range(4)]
    with pytest.raises(IllegalAction) as err:
        state.apply(RemoveFromTimeline(4))
    assert err.value.rule == "joker1915.index"
    check_observer(state, [RemoveFromTimeline(0)])
    assert [c.card_id for c in state.timeline] == [9, 33, 19]
    assert state.discard == [1]
    assert state.current_player == 1


def test_joker_1915_may_remove_itself():
    state = build([[33, 5], [2]], [1], stack=[41])
    state.apply(Place(33, 1))
    state.apply(RemoveFromTimeline(1))
    assert [c.card_id for c in state.timeline] == [1] and state.discard == [33]


def test_joker_1965_discard_draw_three_keep_one():
    state = build([[34, 5, 6], [2]], [1], stack=[41, 42, 43, 44])
    state.apply(Place(34, 1))
    assert state.step is Step.DISCARD_1965
    assert state.legal_actions() == [DiscardOwn(5), DiscardOwn(6)]
    verdict = state.apply(DiscardOwn(5))
    assert verdict.draws == 3
    assert sorted(state.aside) == [42, 43, 44] and state.step is Step.KEEP_1965
    state.apply(KeepCard(43))
    assert sorted(state.hands[0]) == [6, 43]
    assert sorted(state.discard) == [5, 42, 44]
    assert state.current_player == 1


@pytest.mark.parametrize(
    "rules, hand_after, step_after",
    [(Rules(), [], Step.PLACE), (Rules(joker1965_lapses_without_card=False), [], Step.KEEP_1965)],
)
def test_joker_1965_as_last_card(rules, hand_after, step_after):
    state = build([[34], [2]], [1], stack=[41, 42, 43, 44], rules=rules)
    verdict = state.apply(Place(34, 1))
    assert state.hands[0] == hand_after
    assert state.step is step_after
    if step_after is Step.PLACE:
        assert "joker 1965: no card left to discard, the joker has no effect" in verdict.messages
        assert state.current_player == 1
    else:
        assert len(state.aside) == 3 and state.current_player == 0


def test_discarding_a_revealed_card_is_public():
    state = build([[34, 5, 6], [2]], [1], stack=[41, 42, 43, 44])
    state.revealed[0] = [state.cards[5]]
    state.apply(Place(34, 1))
    assert state.public_action(DiscardOwn(5)) == DiscardOwn(5)
    assert state.public_action(DiscardOwn(6)) == DiscardOwn(None)
    obs = check_observer(state, [DiscardOwn(5)])
    assert obs.public_view().revealed[0] == ()


# ---------------------------------------------------------------- rounds and the end


def test_player_without_cards_is_skipped_and_round_closes():
    # seat 1 has no cards (emptied earlier in the round by design of this test)
    state = build([[5, 6], [], [7, 8]], [1], stack=[41, 42, 43])
    assert state.apply(Place(5, 0)).legal  # wrong
    assert state.current_player == 2
    verdict = state.apply(Place(7, 0))  # wrong; round 1 ends, seat 1 alone has no cards -> wins
    assert "round 1 ends" in verdict.messages
    assert "player 2 wins" in verdict.messages
    assert state.is_over() and state.winners() == (1,)
    assert state.legal_actions() == [] and state.current_player is None


def test_exactly_one_finisher_wins_after_the_round():
    state = build([[5], [2, 3]], [1], stack=[41, 42])
    verdict = state.apply(Place(5, 1))  # correct, last card
    assert not state.is_over() and state.winners() == ()
    assert state.current_player == 1  # the round is finished first
    verdict = state.apply(Place(3, 0))  # 1840 before 1820: wrong
    assert verdict.messages[-2:] == ("round 1 ends", "player 1 wins")
    assert state.winners() == (0,)
    assert state.scores() == (0, 2)


def test_no_finisher_starts_the_next_round_with_the_first_player():
    state = build([[5, 6], [2, 3]], [1], stack=[41, 42, 43])
    state.apply(Place(5, 1))
    verdict = state.apply(Place(3, 0))
    assert verdict.messages[-1] == "round 1 ends"
    assert state.round_no == 2 and state.current_player == 0


def test_two_finishers_play_off_the_others_are_out():
    state = build([[5], [6], [2, 3]], [1], stack=[41, 42, 43, 44])
    state.apply(Place(5, 1))  # 1820, 1860
    state.apply(Place(6, 2))  # ..., 1870
    verdict = state.apply(Place(3, 0))  # wrong, round ends with two finishers
    assert "player 1 and player 2 both finished: they play on, player 3 is out; each still in draws one card" in verdict.messages
    assert not state.is_over()
    assert state.players_in() == (0, 1)
    assert [len(h) for h in state.hands] == [1, 1, 2]
    assert state.round_no == 2 and state.current_player == 0
    # play-off: seat 0 places correctly, seat 1 wrongly -> seat 0 wins; seat 2 never plays again
    card0, card1 = state.hands[0][0], state.hands[1][0]
    assert (card0, card1) == (43, 42)  # seat 2 drew 44 for its wrong card
    state.apply(Place(card0, len(state.timeline)))
    assert state.current_player == 1
    verdict = state.apply(Place(card1, 0))
    assert "player 1 wins" in verdict.messages
    assert state.winners() == (0,)
    assert state.scores() == (0, 1, 2)


def test_play_off_with_nothing_to_draw_shares_the_win():
    state = build([[5], [6], [2, 3]], [1], stack=[], rules=Rules(reshuffle_discards=False))
    state.apply(Place(5, 1))
    state.apply(Place(6, 2))
    verdict = state.apply(Place(3, 3))  # 1840 after 1870: wrong, and the draw is lost
    assert state.is_over()
    assert state.winners() == (0, 1)
    assert any("share the win" in m for m in verdict.messages)


def test_1865_refilling_a_finished_hand_cancels_the_finish():
    # seat 0 empties its hand; seat 1 then gives it a card with joker 1865
    state = build([[5], [32, 7]], [1], stack=[41, 42, 43])
    state.apply(Place(5, 1))  # seat 0 has no cards now
    state.apply(Place(32, 2))  # 1865 after 1860: correct
    assert state.step is Step.KEEP_1865
    state.apply(KeepCard(42))
    verdict = state.apply(GiveCard(43, 0))
    assert "round 1 ends" in verdict.messages and not state.is_over()
    assert state.hands[0] == [43] and sorted(state.hands[1]) == [7, 42]
    assert state.round_no == 2 and state.current_player == 0


# ---------------------------------------------------------------- observer


def test_observer_start_matches_new_game():
    state = V.new_game(4, seed=11)
    assert Observer.start(4, 0, state.timeline[0]).public_view() == state.public_view()
    assert Observer.start(4, 0, state.timeline[0].card_id).public_view() == state.public_view()


@pytest.mark.parametrize(
    "args",
    [(1, 0, 5), (3, 3, 5), (3, 0, 5, None, CAT, 10), (3, 0, "5")],
)
def test_observer_start_rejects_bad_setups(args):
    with pytest.raises(CompanionError):
        Observer.start(*args)


@pytest.mark.parametrize(
    "action, text",
    [
        (Place(5, 1), "place card 5 (1860) at position 1"),
        (Place(31, 0), "place card 31 (1815-08-04, joker 1815) at position 0"),
        (RemoveFromTimeline(0), "remove 1820 (position 0) from the timeline"),
    ],
)
def test_describe(action, text):
    assert build([[5, 31], [2]], [1]).describe(action) == text


@pytest.mark.parametrize(
    "public, rule",
    [
        (PlaceSeen(SeenCard(5, CardDate(1860)), 3), "place.position"),
        (PlaceSeen(SeenCard(1, CardDate(1820)), 0), "place.in-timeline"),
        (KeepCard(None), "turn.step"),
        (RemoveFromTimeline(0), "turn.step"),
        (Place(5, 0), "action.kind"),
    ],
)
def test_observer_illegal_verdict_leaves_it_unchanged(public, rule):
    obs = build([[5, 6], [2]], [1, 9], stack=[41]).observer()
    before = obs.to_json()
    verdict = obs.apply(public)
    assert not verdict.legal and verdict.rule == rule
    assert verdict.reason
    assert obs.to_json() == before


def test_observer_rejects_revealing_a_timeline_card():
    state = build([[31, 5], [2]], [1], stack=[41])
    state.apply(Place(31, 0))
    obs = state.observer()
    before = obs.to_json()
    verdict = obs.apply(RevealSeen(SeenCard(1, CardDate(1820))))
    assert not verdict.legal and verdict.rule == "joker1815.own-card"
    assert obs.to_json() == before
    assert obs.apply(RevealSeen(SeenCard(5, CardDate(1860)))).legal
    assert obs.public_view().revealed[0] == (SeenCard(5, CardDate(1860)),)


def test_observer_takes_a_card_turned_over_in_the_hand_unread():
    state = build([[31, 5], [2]], [1], stack=[41])
    state.apply(Place(31, 0))
    obs = state.observer()
    assert obs.hand_actions() == [RevealSeen(None)]
    verdict = obs.apply(RevealSeen(None))
    assert verdict.legal and verdict.messages[0] == "player 1 turns a card over in the hand"
    view = obs.public_view()
    assert view.step is Step.PLACE and view.current_player == 1 and view.revealed[0] == ()
    assert obs.hand_actions() == []


def test_observer_rejects_gift_to_the_wrong_player():
    state = build([[7], [32, 5], [8]], [1], stack=[41, 42, 43], current=1)
    state.apply(Place(32, 1))
    state.apply(KeepCard(41))
    obs = state.observer()
    before = obs.to_json()
    verdict = obs.apply(GiveCard(None, 0))
    assert (verdict.legal, verdict.rule, verdict.reason) == (
        False,
        "joker1865.give-order",
        "the next card goes to player 3, got player 1",
    )
    assert obs.to_json() == before


@pytest.mark.parametrize("seed", range(6))
def test_observer_agrees_with_state_in_random_games(seed):
    state = V.new_game(2 + seed, seed, data=CAT)
    obs = state.observer()
    rng = random.Random(seed)
    while not state.is_over():
        action = rng.choice(state.legal_actions())
        public = state.public_action(action)
        assert state.apply(action).legal
        seen = obs.apply(public)
        assert seen.legal
        assert obs.public_view() == state.public_view()
        assert Observer.from_json(json.loads(json.dumps(obs.to_json()))) == obs
    assert obs.is_over() and obs.winners() == state.winners()
    assert obs.scores() == state.scores()


# ---------------------------------------------------------------- JSON


def test_state_round_trip_mid_joker_with_custom_catalogue():
    state = build([[7], [32, 5], [8]], [1], stack=[41, 42, 43], current=1)
    state.apply(Place(32, 1))
    state.apply(KeepCard(41))
    copy = State.from_json(json.loads(json.dumps(state.to_json())))
    assert copy == state
    assert copy.public_view() == state.public_view()
    assert copy.legal_actions() == state.legal_actions()
    copy.apply(GiveCard(42, 2))
    assert copy != state


def test_state_round_trip_bundled_catalogue_is_referenced():
    state = V.new_game(3, seed=5)
    data = state.to_json()
    assert data["catalogue"] is None
    assert State.from_json(json.loads(json.dumps(data))) == state


@pytest.mark.parametrize(
    "action",
    [
        Place(3, 2),
        PlaceSeen(SeenCard(21, CardDate(1865, 7, 14), Joker.J1865), 0),
        RevealOwn(4),
        RevealSeen(SeenCard(5, CardDate(1860))),
        RevealSeen(None),
        KeepCard(9),
        KeepCard(None),
        GiveCard(None, 2),
        GiveCard(7, 1),
        RemoveFromTimeline(0),
        DiscardOwn(None),
        DiscardOwn(8),
    ],
)
def test_action_json_round_trip(action):
    assert V.action_from_json(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"card": 3},
        {"type": "jump"},
        {"type": "place", "card": "3", "position": 0},
        {"type": "place", "card": 3},
        {"type": "give", "card": None},
        {"type": "place-seen", "card": {"id": 1, "date": "18"}, "position": 0},
        {"type": "place-seen", "card": {"id": 1, "date": "1865", "joker": 1900}, "position": 0},
    ],
)
def test_malformed_action_json(data):
    with pytest.raises(CompanionError):
        V.action_from_json(data)


@pytest.mark.parametrize(
    "data",
    [
        {"hand_size_2_3": 0},
        {"hand_size_2_3": True},
        {"reshuffle_discards": 1},
        {"shuffle": True},
    ],
)
def test_bad_rules_json(data):
    with pytest.raises(CompanionError):
        Rules.from_json(data)


def test_rules_json_round_trip():
    rules = Rules(hand_size_6_8=3, reshuffle_discards=False)
    assert Rules.from_json(json.loads(json.dumps(rules.to_json()))) == rules


def test_registered_under_its_name():
    assert get_game("valais") is V and get_game("wallis") is V


# ---------------------------------------------------------------- catalogue


def test_bundled_catalogue():
    cat = V.load_catalogue()
    assert len(cat) == 200
    assert len({c.card_id for c in cat.cards}) == 200
    for kind in Joker:
        jokers = [c for c in cat.cards if c.joker is kind]
        assert len(jokers) == 2 and all(c.date.year == kind.value for c in jokers)
    assert all(len(c.title) <= 40 for c in cat.cards)
    assert all(V.FIRST_YEAR <= c.date.year <= V.LAST_YEAR for c in cat.cards)
    assert all(c.title.startswith("Sample") for c in cat.cards if c.sample)
    facts = {c.title: str(c.date) for c in cat.cards if not c.sample}
    assert facts["Erstbesteigung des Matterhorns"] == "1865-07-14"
    assert facts["Mattmark-Katastrophe"] == "1965-08-30"


def _write(tmp_path, rows, filler=25):
    lines = ["# test catalogue", "id,year,date,title,joker,sample"]
    lines += [f"{i},{1800 + i},,Sample event {i},,yes" for i in range(100, 100 + filler)]
    lines += rows
    path = tmp_path / "cat.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "row, message",
    [
        ("100,1950,,Duplicate,,yes", "unique id"),
        ("1,1814,,Too early,,yes", "year: expected 1815..2015"),
        ("1,2016,,Too late,,yes", "year: expected 1815..2015"),
        ("1,1865,1866-07-14,Wrong year,,no", "expected a date in 1865"),
        ("1,1865,14.07.1865,Swiss format,,no", "YYYY-MM-DD"),
        ("1,1865,1865-02-30,No such day,,no", "calendar date"),
        ("1,1865,,Bad joker,1866,no", "joker: expected"),
        ("1,1865,,Bad sample,,maybe", "sample: expected yes or no"),
        ("1,1865,,,,no", "title"),
        ("1,1865,,Too few fields,no", "expected 6 fields"),
        ("x,1865,,Bad id,,no", "id: expected an integer"),
    ],
)
def test_broken_catalogue_names_the_line(tmp_path, row, message):
    path = _write(tmp_path, ["1001,1999,,Fine,,yes", row])
    with pytest.raises(DataFileError) as err:
        V.load_catalogue(path)
    assert err.value.line == 2 + 25 + 2  # comment, header, filler, the fine row, then the bad one
    assert message in err.value.reason


def test_small_catalogue_is_refused(tmp_path):
    path = _write(tmp_path, [], filler=19)
    with pytest.raises(DataFileError, match="at least 20 cards, got 19"):
        V.load_catalogue(path)


def test_custom_catalogue_plays(tmp_path):
    cat = V.load_catalogue(_write(tmp_path, ["1,1865,1865-07-14,Matterhorn,1865,no"]))
    assert len(cat) == 26 and cat.card(1).joker is Joker.J1865
    state = V.new_game(2, seed=1, data=cat)
    assert sorted(state.all_cards()) == sorted(c.card_id for c in cat.cards)
    assert State.from_json(json.loads(json.dumps(state.to_json()))) == state


# ---------------------------------------------------------------- corrections for missed moves


def test_a_missed_wrong_card_counts_like_the_wrong_placement_the_camera_did_not_see():
    state = build([[5, 6], [2]], [1, 9], stack=[41, 42])
    obs = state.observer()
    assert obs.corrections() == [V.MissedWrong()]
    played = state.apply(Place(6, 0))  # 1870 before 1820: wrong, player 1 draws one
    assert played.legal and played.messages[0].startswith("wrong")
    verdict = obs.apply(V.MissedWrong())
    assert verdict.legal and verdict.draws == 1 and "turn passes" in verdict.messages[0]
    assert obs.public_view() == state.public_view()


def test_a_missed_draw_reopens_a_game_the_count_ended():
    obs = build([[5, 6], [2]], [1], stack=[41, 42]).observer()
    data = obs.to_json()
    over = Observer.from_json({**data, "hands": [2, 0], "over": True, "winners": [1], "turn_pos": 2})
    assert over.is_over() and over.corrections() == [V.MissedDraw(0), V.MissedDraw(1)]
    assert not over.apply(V.MissedWrong()).legal  # no turn to pass once the game is over
    verdict = over.apply(V.MissedDraw(1))
    assert verdict.legal and any("goes on" in m for m in verdict.messages)
    view = over.public_view()
    assert not view.over and view.winners == () and view.hand_counts == (2, 1)
    assert view.round_no == data["round"] + 1 and view.current_player == 0 and view.stack_size == 1
    assert over.apply(PlaceSeen(CAT.card(5).seen(), 1)).legal  # play goes on


@pytest.mark.parametrize(
    "action, rule",
    [(V.MissedDraw(2), "missed-draw.player"), (V.MissedDraw(-1), "missed-draw.player")],
)
def test_a_missed_draw_for_no_such_player_is_refused(action, rule):
    obs = build([[5, 6], [2]], [1], stack=[41]).observer()
    before = obs.to_json()
    verdict = obs.apply(action)
    assert not verdict.legal and verdict.rule == rule and obs.to_json() == before


def test_corrections_need_a_card_to_draw_and_are_not_player_actions():
    obs = build([[5, 6], [2]], [1]).observer()  # empty stack, no discards
    assert obs.corrections() == []
    assert obs.apply(V.MissedWrong()).rule == "missed-wrong.stack"
    assert obs.apply(V.MissedDraw(0)).rule == "missed-draw.stack"
    with pytest.raises(IllegalAction, match="correction"):
        build([[5, 6], [2]], [1], stack=[41]).apply(V.MissedWrong())
    for action in (V.MissedWrong(), V.MissedDraw(1)):
        assert V.action_from_json(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize("first_player, current, hands", [
    (0, 0, [[5], [6], [7], [8]]),        # within the round: the next seat
    (2, 3, [[5], [6], [7], [8]]),        # the round order starts at seat 2: seat 0 follows seat 3
    (0, 0, [[5], [], [7], [8]]),         # an empty hand is passed over
    (1, 0, [[5], [6], [7], [8]]),        # the round's last: the next round's first
])
def test_who_places_next_after_a_missed_wrong_card_is_the_engines_next_player(first_player, current, hands):
    state = build(hands, [1], stack=[41, 42], first_player=first_player, current=current)
    obs = state.observer()
    expected = obs.public_view().next_to_place()
    assert expected is not None
    assert obs.apply(V.MissedWrong()).legal
    assert obs.public_view().current_player == expected


def test_who_places_next_is_left_open_where_the_rounds_end_may_change_it():
    # the round's last player with a hand empty: the round's end may end the game or put players out
    view = build([[5], [], [7]], [1], stack=[41], current=2).observer().public_view()
    assert view.next_to_place() is None
