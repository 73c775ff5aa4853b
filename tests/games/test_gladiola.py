"""Tests of the Via Gladiola engine: every rule and edge case on small hand-built states."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games import gladiola as g
from companion.games.base import Verdict, samples_dir

DECK = g.load_deck()
START = DECK.start.id


def w(value: int) -> str:
    """Id of the walk card of km ``value`` in the bundled deck."""
    return DECK.walk_card(value).id


FINISHES = [c.id for c in DECK.of_kind(g.CardKind.FINISH)]
GLADIOLAS = [c.id for c in DECK.of_kind(g.CardKind.GLADIOLA)]


def walk_on(top: int | None, hand: list[str], *, players: int = 2, day: int = 1, **kw) -> g.State:
    """Player 0 holds ``hand``; today's pile is START (and ``top`` if given); the rest is drawn."""
    hands = [hand] + [[] for _ in range(players - 1)]
    pile = [] if top is None else [w(top)]
    aside = kw.pop("set_aside", [[f] for f in FINISHES[3 : 3 + day - 1]])
    return g.State.build(hands, walk_pile=pile, day=day, set_aside=aside, **kw)


def roundtrip(state: g.State) -> g.State:
    return g.State.from_json(json.loads(json.dumps(state.to_json())))


# --- walks and draws ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "card, draws, message",
    [
        (22, 0, "+1, leisurely: draw 0 cards"),
        (26, 0, "+5, leisurely: draw 0 cards"),
        (27, 1, "+6, brisk: draw 1 card"),
        (31, 1, "+10, brisk: draw 1 card"),
        (32, 2, "+11, strenuous: draw 2 cards"),
        (36, 2, "+15, strenuous: draw 2 cards"),
    ],
)
def test_walk_draws_by_difference(card, draws, message):
    state = walk_on(21, [w(card), w(2)])
    top_of_draw = state.draw_pile[:draws]
    verdict = state.apply(g.Walk(w(card)))
    assert verdict.legal and verdict.draws == draws
    assert verdict.messages == (message,)
    assert state.walk_pile == (START, w(21), w(card))
    assert state.hands[0] == (w(2),) + top_of_draw
    assert state.current_player == 1


@pytest.mark.parametrize(
    "top, card, rule, reason",
    [
        (21, 37, "walk.max-step", "+16, at most +15"),
        (21, 38, "walk.max-step", "+17, at most +15"),
        (None, 16, "walk.max-step", "+16, at most +15"),
        (21, 12, "walk.not-higher", "12 is not higher than 21"),
        (21, 20, "walk.not-higher", "20 is not higher than 21"),
    ],
)
def test_illegal_walks_raise_and_leave_state_unchanged(top, card, rule, reason):
    state = walk_on(top, [w(card)])
    before = state.to_json()
    assert g.Walk(w(card)) not in state.legal_actions()
    with pytest.raises(IllegalAction) as info:
        state.apply(g.Walk(w(card)))
    assert info.value.rule == rule and info.value.reason == reason
    assert state.to_json() == before


def test_first_walk_of_the_day_counts_from_start_zero():
    state = walk_on(None, [w(15), w(5)])
    assert [a for a in state.legal_actions() if isinstance(a, g.Walk)] == [g.Walk(w(5)), g.Walk(w(15))]
    assert state.apply(g.Walk(w(15))).messages == ("+15, strenuous: draw 2 cards",)


@pytest.mark.parametrize(
    "action, rule",
    [
        (g.Walk("W21"), "card.not-in-hand"),  # the top card itself
        (g.Walk("W30"), "card.not-in-hand"),  # in the draw pile
        (g.Walk("nope"), "card.unknown"),
        (g.Walk(GLADIOLAS[0]), "walk.not-walkable"),
        (g.LayGladiola("W25"), "gladiola.not-gladiola"),
    ],
)
def test_cards_that_cannot_be_walked(action, rule):
    state = walk_on(21, ["W25", GLADIOLAS[0]], day=4)
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.rule == rule


def test_pause_draws_one_and_is_always_offered():
    state = walk_on(21, [w(40)])
    assert state.legal_actions() == [g.Pause()]
    top = state.draw_pile[0]
    verdict = state.apply(g.Pause())
    assert verdict.draws == 1 and verdict.messages == ("pause: draw 1 card",)
    assert state.hands[0] == (w(40), top)


# --- FINISH and the end of a day ---------------------------------------------------------------


@pytest.mark.parametrize(
    "top, legal, draws",
    [(34, False, 0), (35, True, 2), (39, True, 2), (40, True, 1), (44, True, 1), (45, True, 0), (49, True, 0)],
)
def test_finish_needs_a_top_of_35(top, legal, draws):
    state = walk_on(top, [FINISHES[0]], day=2)
    assert (g.Walk(FINISHES[0]) in state.legal_actions()) == legal
    if not legal:
        with pytest.raises(IllegalAction) as info:
            state.apply(g.Walk(FINISHES[0]))
        assert info.value.rule == "finish.needs-35"
        assert "+16, at most +15" in info.value.reason
        return
    verdict = state.apply(g.Walk(FINISHES[0]))
    assert verdict.draws == draws
    assert verdict.messages[1:] == ("FINISH: day 2 ends", "day 3 begins")


def test_finish_draw_can_be_switched_off():
    state = walk_on(35, [FINISHES[0]], rules=g.Rules(finish_draws=False))
    verdict = state.apply(g.Walk(FINISHES[0]))
    assert verdict.draws == 0 and state.hands[0] == ()
    assert verdict.messages[0] == "+15, strenuous, FINISH: draw 0 cards"


@pytest.mark.parametrize("finisher_starts, expected_next", [(False, 2), (True, 1)])
def test_day_change_sets_pile_aside_and_moves_start(finisher_starts, expected_next):
    hands = [[w(3)], [FINISHES[0], w(8)], [w(9)]]
    state = g.State.build(
        hands,
        walk_pile=[w(10), w(25), w(38)],
        set_aside=[[w(12), FINISHES[1]]],
        current_player=1,
        rules=g.Rules(finisher_starts_next_day=finisher_starts),
    )
    assert state.day == 2
    verdict = state.apply(g.Walk(FINISHES[0]))
    assert verdict.messages == ("+12, strenuous: draw 2 cards", "FINISH: day 2 ends", "day 3 begins")
    assert state.day == 3
    assert state.walk_pile == (START,)
    assert state.set_aside == ((w(12), FINISHES[1]), (w(10), w(25), w(38), FINISHES[0]))
    assert state.current_player == expected_next
    assert len(state.hands[1]) == 1 + 2  # the 8 and two drawn cards, drawn before the day ended


def test_finish_on_day_four_ends_the_game():
    state = walk_on(40, [FINISHES[0], w(41)], players=3, day=4)
    verdict = state.apply(g.Walk(FINISHES[0]))
    assert verdict.messages == ("+10, brisk: draw 1 card", "FINISH: day 4 ends", "game over")
    assert state.is_over() and state.current_player is None
    assert state.legal_actions() == []
    assert state.walk_pile[-1] == FINISHES[0]
    with pytest.raises(IllegalAction) as info:
        state.apply(g.Pause())
    assert info.value.rule == "game.over"


# --- gladiolas ---------------------------------------------------------------------------------


@pytest.mark.parametrize("day, legal", [(1, False), (2, False), (3, False), (4, True)])
def test_gladiola_only_on_day_four(day, legal):
    state = walk_on(21, [GLADIOLAS[2], w(5)], day=day)
    assert (g.LayGladiola(GLADIOLAS[2]) in state.legal_actions()) == legal
    if not legal:
        with pytest.raises(IllegalAction) as info:
            state.apply(g.LayGladiola(GLADIOLAS[2]))
        assert info.value.rule == "gladiola.day4-only"
        assert info.value.reason == f"gladiolas only on day 4 (today is day {day})"
        return
    draw_before = state.draw_pile
    verdict = state.apply(g.LayGladiola(GLADIOLAS[2]))
    assert verdict.draws == 0
    assert state.gladiolas == (GLADIOLAS[2],)
    assert state.hands[0] == (w(5),)
    assert state.draw_pile == draw_before
    assert state.walk_pile == (START, w(21))


# --- empty draw pile ---------------------------------------------------------------------------


def _day3_with_empty_draw_pile(draw_pile: list[str], mine: list[str] | None = None) -> g.State:
    """Day 3 on top 10, both earlier piles still set aside; player 0 holds ``mine``, player 1
    every card not placed elsewhere."""
    day1 = [w(4), w(17), w(30), w(40), FINISHES[0]]
    day2 = [w(9), w(20), w(35), FINISHES[1]]
    mine = mine or [w(45), w(2)]
    placed = set(day1 + day2 + mine + draw_pile + [START, w(10)])
    rest = [c.id for c in DECK.cards if c.id not in placed]
    return g.State.build(
        [mine, rest], walk_pile=[w(10)], set_aside=[day1, day2], draw_pile=draw_pile
    )


def test_reshuffle_uses_the_earliest_set_aside_pile_first():
    state = _day3_with_empty_draw_pile([])
    day1, day2 = state.set_aside
    verdict = state.apply(g.Pause())
    assert verdict.messages == (
        "pause: draw 1 card",
        "draw pile empty: shuffle the day-1 pile without its START card",
    )
    assert verdict.draws == 1
    assert state.reshuffles == 1 and state.set_aside == ((), day2)
    assert Counter(state.draw_pile + state.hands[0][-1:]) == Counter(day1)
    assert START not in state.draw_pile and state.walk_pile[0] == START
    # Empty the draw pile again: the day-2 pile is next.
    while state.draw_pile:
        assert state.apply(g.Pause()).messages == ("pause: draw 1 card",)
    drawer = state.current_player
    verdict = state.apply(g.Pause())
    assert verdict.messages[1] == "draw pile empty: shuffle the day-2 pile without its START card"
    assert state.reshuffles == 2 and state.set_aside == ((), ())
    assert Counter(state.draw_pile + state.hands[drawer][-1:]) == Counter(day2)


def test_strenuous_walk_draws_across_a_reshuffle():
    state = _day3_with_empty_draw_pile([w(48)], mine=[w(22), w(2)])
    day1 = state.set_aside[0]
    verdict = state.apply(g.Walk(w(22)))
    assert verdict.messages == (
        "+12, strenuous: draw 2 cards",
        "draw pile empty: shuffle the day-1 pile without its START card",
    )
    assert verdict.draws == 2
    assert state.hands[0][:2] == (w(2), w(48))
    assert state.hands[0][2] in day1
    assert len(state.draw_pile) == len(day1) - 1


def test_draws_are_lost_when_no_set_aside_pile_is_left():
    data = _day3_with_empty_draw_pile([], mine=[w(25), w(2)]).to_json()
    # Both earlier piles already used: their cards went to player 1's hand.
    data["hands"][1] += data["set_aside"][0] + data["set_aside"][1]
    data["set_aside"] = [[], []]
    data["reshuffles"] = 2
    state = g.State.from_json(data)
    verdict = state.apply(g.Walk(w(25)))
    assert verdict.draws == 0
    assert verdict.messages == (
        "+15, strenuous: draw 2 cards",
        "draw pile empty and no set-aside pile left: 2 draws lost",
    )
    state.apply(g.Pause())
    verdict = state.apply(g.Pause())
    assert verdict.messages[-1] == "draw pile empty and no set-aside pile left: 1 draw lost"


def test_day_one_has_nothing_to_reshuffle():
    everything = [c.id for c in DECK.cards if c.id not in (START, w(2))]
    state = g.State.build([[w(2)], everything], draw_pile=[])
    verdict = state.apply(g.Pause())
    assert verdict.draws == 0 and verdict.legal
    assert verdict.messages[-1] == "draw pile empty and no set-aside pile left: 1 draw lost"
    assert state.hands[0] == (w(2),) and state.current_player == 1


# --- scoring -----------------------------------------------------------------------------------


def _cards_with(blisters: int, count: int, kind=g.CardKind.WALK) -> list[str]:
    ids = [c.id for c in DECK.of_kind(kind) if c.blisters == blisters]
    assert len(ids) >= count, "the sample deck must offer these cards"
    return ids[:count]


def _over_with_hands(hands: list[list[str]]) -> g.State:
    return g.State.build(hands, walk_pile=[w(40), FINISHES[0]], set_aside=[[f] for f in FINISHES[1:4]], over=True)


def test_fewest_blisters_wins():
    two, four = _cards_with(2, 3), _cards_with(4, 1)
    state = _over_with_hands([[two[0], two[1]], [two[2]], four])
    assert state.scores() == (4, 2, 4)
    assert state.winners() == (1,)


def test_tie_broken_by_fewer_cards():
    two, four = _cards_with(2, 2), _cards_with(4, 1)
    state = _over_with_hands([[two[0], two[1]], [four[0]]])
    assert state.scores() == (4, 4)
    assert state.winners() == (1,)


def test_full_tie_is_a_shared_win():
    three, zero, five = _cards_with(3, 2), _cards_with(0, 2), _cards_with(5, 1)
    state = _over_with_hands([[three[0], zero[0]], [three[1], zero[1]], five])
    assert state.scores() == (3, 3, 5)
    assert state.winners() == (0, 1)


def test_empty_hands_tie_and_share():
    state = _over_with_hands([[], [], _cards_with(0, 1)])
    assert state.scores() == (0, 0, 0)
    assert state.winners() == (0, 1)


# --- the variant -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, over, draws",
    [
        (g.Rules(), False, 2),
        (g.Rules(last_card_ends_game=True), True, 0),
        (g.Rules(last_card_ends_game=True, last_card_skips_draws=False), True, 2),
    ],
)
def test_variant_last_card_ends_the_game(rules, over, draws):
    state = walk_on(21, [w(33)], rules=rules)
    verdict = state.apply(g.Walk(w(33)))
    assert state.is_over() == over
    assert verdict.draws == draws
    assert verdict.messages[0] == f"+12, strenuous: draw {draws} card{'s' if draws != 1 else ''}"
    assert (verdict.messages[-1] == "last card laid: game over") == over


def test_variant_ends_on_last_gladiola_and_not_on_pause():
    rules = g.Rules(last_card_ends_game=True)
    state = walk_on(21, [GLADIOLAS[0]], day=4, rules=rules)
    state.apply(g.Pause())  # a pause lays no card: the game goes on
    assert not state.is_over()
    state = walk_on(21, [GLADIOLAS[0]], day=4, rules=rules)
    state.apply(g.LayGladiola(GLADIOLAS[0]))
    assert state.is_over() and state.winners() == (0, 1)


# --- setup -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_new_game_deals_eight_each(players):
    state = g.new_game(players, seed=11)
    assert state.hand_sizes() == (8,) * players
    assert len(state.draw_pile) == 63 - 8 * players
    assert state.walk_pile == (START,) and state.day == 1 and state.turn == 0
    assert sorted(state.all_cards()) == sorted(c.id for c in DECK.cards)
    assert state == g.new_game(players, seed=11)


@pytest.mark.parametrize("players", [0, 1, 7, "2"])
def test_player_count_outside_range(players):
    with pytest.raises(CompanionError):
        g.new_game(players, seed=1)


def test_seed_decides_deal_and_start_player():
    states = [g.new_game(4, seed) for seed in range(40)]
    assert len({s.hands for s in states}) == 40
    assert {s.current_player for s in states} == {0, 1, 2, 3}


# --- observer ----------------------------------------------------------------------------------


def _played(*values: int):
    """A function that walks ``values`` on an observer, checking each is accepted."""

    def play(observer: g.Observer) -> g.Observer:
        for value in values:
            assert observer.apply(g.Walk(w(value))).legal
        return observer

    return play


@pytest.mark.parametrize(
    "build, action, reason",
    [
        (lambda o: o, g.Walk(w(17)), "+17, at most +15"),
        (lambda o: o, g.LayGladiola(GLADIOLAS[0]), "gladiolas only on day 4 (today is day 1)"),
        (lambda o: o, g.Walk(START), "START already lies on the table"),
        (lambda o: o, g.Walk(GLADIOLAS[1]), "a gladiola card cannot be walked, only cards with km values"),
        (_played(12, 21), g.Walk(w(20)), "20 is not higher than 21"),
        (_played(12, 21), g.Walk(w(12)), "12 already lies on the table"),
        (_played(12, 21), g.Walk(w(37)), "+16, at most +15"),
        (_played(14), g.Walk(FINISHES[0]), None),
    ],
)
def test_observer_illegal_verdict_leaves_it_unchanged(build, action, reason):
    observer = build(g.Observer.start(3, first_player=2))
    before = observer.to_json()
    verdict = observer.apply(action)
    assert not verdict.legal and verdict.draws == 0
    if reason is not None:
        assert verdict.reason == reason
        assert verdict.messages == (f"not allowed: {reason}",)
    else:
        assert verdict.rule == "finish.needs-35"
    assert observer.to_json() == before


def test_observer_rejects_a_card_from_an_empty_hand():
    state = walk_on(21, [w(22)], players=2)
    state.apply(g.Walk(w(22)))
    observer = state.observer()
    # Player 1 holds no cards at all.
    verdict = observer.apply(g.Walk(w(30)))
    assert verdict.rule == "card.not-in-hand"


@pytest.mark.parametrize("seed", range(12))
def test_observer_agrees_with_state_over_a_game(seed):
    state = g.new_game(2 + seed % 5, seed, g.Rules(last_card_ends_game=seed % 2 == 0))
    observer = g.Observer.start(state.players, state.current_player)
    rng = random.Random(seed)
    while not state.is_over():
        actions = state.legal_actions()
        plays = [a for a in actions if not isinstance(a, g.Pause)]
        action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(actions)
        verdict = state.apply(action)
        assert observer.apply(state.public_action(action)) == verdict
        assert observer.public_view() == state.public_view()
        assert g.Observer.from_json(json.loads(json.dumps(observer.to_json()))) == observer
    assert observer.is_over()
    with pytest.raises(CompanionError, match="not yet revealed"):
        observer.scores()
    for p, hand in enumerate(state.hands):
        observer.reveal_hand(p, hand)
    assert observer.scores() == state.scores()
    assert observer.winners() == state.winners()


def test_observer_reveal_checks():
    state = g.State.build(
        [[FINISHES[0], w(41), w(3)], [w(5), w(6)]],
        walk_pile=[w(40)],
        set_aside=[[f] for f in FINISHES[3:]],
    )
    observer = state.observer()
    with pytest.raises(CompanionError, match="only once the game is over"):
        observer.reveal_hand(0, [w(41), w(3)])
    state.apply(g.Walk(FINISHES[0]))
    observer.apply(g.Walk(FINISHES[0]))
    hand0 = state.hands[0]
    with pytest.raises(CompanionError, match="must hold 3 cards, got 2"):
        observer.reveal_hand(0, hand0[:2])
    with pytest.raises(CompanionError, match="lies on the table"):
        observer.reveal_hand(0, hand0[:2] + (w(40),))
    observer.reveal_hand(0, hand0)
    with pytest.raises(CompanionError, match="already revealed"):
        observer.reveal_hand(0, hand0)
    with pytest.raises(CompanionError, match="already shown"):
        observer.reveal_hand(1, hand0[:1] + state.hands[1][1:])
    with pytest.raises(CompanionError, match="unknown card"):
        observer.reveal_hand(1, ("X99",) + state.hands[1][1:])
    observer.reveal_hand(1, state.hands[1])
    assert observer.scores() == state.scores()


# --- JSON --------------------------------------------------------------------------------------


def test_state_json_round_trip_mid_game():
    state = g.new_game(4, seed=5)
    rng = random.Random(5)
    for _ in range(30):
        state.apply(rng.choice(state.legal_actions()))
        copy = roundtrip(state)
        assert copy == state and copy.to_json() == state.to_json()
        assert copy.legal_actions() == state.legal_actions()


def test_custom_deck_is_saved_with_the_state(tmp_path):
    text = (samples_dir() / "decks" / "gladiola.csv").read_text().replace("G1,gladiola,,1", "G1,gladiola,,5")
    path = tmp_path / "deck.csv"
    path.write_text(text)
    deck = g.load_deck(path)
    state = g.new_game(3, seed=2, data=deck)
    data = state.to_json()
    assert data["deck"] is not None
    assert roundtrip(state).deck.card("G1").blisters == 5
    assert g.new_game(3, seed=2).to_json()["deck"] is None


@pytest.mark.parametrize(
    "data",
    [
        {"type": "walk"},
        {"type": "walk", "card": 27},
        {"type": "jump", "card": "W27"},
        {"type": "pause", "card": "W27"},
        ["walk", "W27"],
    ],
)
def test_malformed_actions(data):
    with pytest.raises(CompanionError):
        g.action_from_json(data)


def test_observer_table_walk_accepts_a_refused_card_the_players_built_on():
    observer = _played(12)(g.Observer.start(3, first_player=0))
    assert not observer.apply(g.Walk(w(28))).legal  # +16: the camera missed the 20 before it
    before = observer.public_view()
    verdict = observer.apply(g.TableWalk(w(28)))
    assert verdict.legal and verdict.draws == 0 and "accepted from the table" in verdict.messages[0]
    after = observer.public_view()
    assert after.walk_pile == before.walk_pile + (w(28),)
    assert after.current_player == 2 and after.hand_counts[1] == before.hand_counts[1] - 1
    assert observer.apply(g.Walk(w(31))).messages == ("+3, leisurely: draw 0 cards",)
    # still refused: a card already on the table, a gladiola, an unknown card
    for action, rule in ((g.TableWalk(w(28)), "card.on-table"), (g.TableWalk(GLADIOLAS[0]), "walk.not-walkable"),
                         (g.TableWalk("W99"), "card.unknown")):
        assert observer.apply(action).rule == rule


def test_a_table_walk_is_for_observers_only():
    state = walk_on(12, [w(30)])
    with pytest.raises(IllegalAction, match="observer"):
        state.apply(g.TableWalk(w(30)))


def test_observer_turn_to_passes_the_turn_and_nothing_else():
    observer = _played(12)(g.Observer.start(3, first_player=0))
    before = observer.public_view()
    verdict = observer.apply(g.TurnTo(2))
    assert verdict.legal and verdict.draws == 0 and "player 3" in verdict.messages[0]
    assert "1 player before" in verdict.messages[0]  # player 2 was to play
    after = observer.public_view()
    assert after.current_player == 2
    assert (after.turn, after.hand_counts, after.walk_pile) == (before.turn, before.hand_counts, before.walk_pile)
    assert observer.apply(g.TurnTo(2)).rule == "turn.already"
    assert observer.apply(g.TurnTo(3)).rule == "turn.player"
    draws = observer.apply(g.Walk(w(20))).draws  # player 3 walks, then player 1 is to play
    assert observer.public_view().current_player == 0
    assert observer.public_view().hand_counts[2] == before.hand_counts[2] - 1 + draws
    with pytest.raises(IllegalAction, match="observer"):
        walk_on(12, [w(30)]).apply(g.TurnTo(1))


@pytest.mark.parametrize("data", [{"type": "turn-to"}, {"type": "turn-to", "player": "2"},
                                  {"type": "turn-to", "player": True}, {"type": "turn-to", "player": 1, "card": "W2"}])
def test_malformed_turn_to(data):
    with pytest.raises(CompanionError, match="turn-to"):
        g.action_from_json(data)


def _ended_with_hands() -> tuple[g.State, g.Observer]:
    """A game just ended by a FINISH on day 4: player 1 holds 3 cards, player 2 holds 2."""
    state = g.State.build(
        [[FINISHES[0], w(41), w(3)], [w(5), w(6)]],
        walk_pile=[w(40)],
        set_aside=[[f] for f in FINISHES[3:]],
    )
    observer = state.observer()
    state.apply(g.Walk(FINISHES[0]))
    observer.apply(g.Walk(FINISHES[0]))
    return state, observer


def test_recount_takes_the_shown_number_of_cards_then_the_hand_is_revealed():
    state, observer = _ended_with_hands()
    hand = state.hands[0]
    assert observer.public_view().hand_counts[0] == 3
    assert observer.judge(g.Recount(0, 4)).legal
    verdict = observer.apply(g.Recount(0, 2))
    assert verdict.legal and verdict.draws == 0
    assert verdict.messages == ("player 1 shows 2 cards, the companion counted 3: the shown hand counts",)
    assert observer.public_view().hand_counts == (2, 2)
    observer.reveal_hand(0, hand[1:])  # the table's 2 cards now fit the count
    # a revealed hand is not recounted, the count is kept for the same number, and only at the end
    assert observer.apply(g.Recount(0, 3)).rule == "recount.revealed"
    assert observer.apply(g.Recount(1, 2)).rule == "recount.same"
    assert observer.apply(g.Recount(2, 1)).rule == "recount.player"
    assert observer.apply(g.Recount(1, -1)).rule == "recount.count"
    assert observer.public_view().hand_counts == (2, 2)
    # the engine's other checks stay: no card of the table in a recounted hand
    assert observer.apply(g.Recount(1, 3)).legal
    with pytest.raises(CompanionError, match="lies on the table"):
        observer.reveal_hand(1, state.hands[1] + (w(40),))
    observer.reveal_hand(1, state.hands[1] + (w(7),))
    assert observer.scores() == (DECK.blisters(hand[1:]), DECK.blisters(state.hands[1] + (w(7),)))
    assert g.Observer.from_json(json.loads(json.dumps(observer.to_json()))) == observer


def test_recount_only_at_the_end_and_never_in_the_full_state():
    observer = _played(12)(g.Observer.start(3, first_player=0))
    assert observer.apply(g.Recount(0, 3)).rule == "recount.not-over"
    state, _ = _ended_with_hands()
    with pytest.raises(IllegalAction, match="full game state"):
        state.apply(g.Recount(0, 2))
    assert "shows 2 cards (counted 3)" in _ended_with_hands()[1].describe(g.Recount(0, 2))


def test_relabel_names_a_table_finish_as_a_free_twin_and_changes_nothing_else():
    state, observer = _ended_with_hands()
    before = observer.public_view()
    logged = FINISHES[0]  # walked last: the top of the walk pile
    free = [f for f in FINISHES if f not in before.on_table()]
    assert before.walk_pile[-1] == logged and len(free) == 2
    # the camera sees the logged FINISH in player 1's hand: the table's card is another one
    with pytest.raises(CompanionError, match="lies on the table"):
        observer.reveal_hand(0, (logged,) + state.hands[0][1:])
    verdict = observer.apply(g.Relabel(logged, free[1]))
    assert verdict.legal and verdict.draws == 0
    assert verdict.messages == (f"the finish logged on the table as {logged} ({DECK.card(logged).blisters} blisters) "
                                f"is {free[1]} ({DECK.card(free[1]).blisters} blisters): {logged} was shown in a hand",)
    after = observer.public_view()
    assert after.walk_pile == before.walk_pile[:-1] + (free[1],)
    assert after.set_aside == before.set_aside and after.gladiolas == before.gladiolas
    assert (after.hand_counts, after.draw_pile_size, after.turn, after.day, after.over) == (
        before.hand_counts, before.draw_pile_size, before.turn, before.day, before.over)
    observer.reveal_hand(0, (logged,) + state.hands[0][1:])
    # the twin relabelled in a set-aside pile; not to a card shown in a hand
    day1 = before.set_aside[0][0]
    assert observer.apply(g.Relabel(day1, logged)).rule == "relabel.shown"
    assert observer.apply(g.Relabel(day1, free[0])).legal
    assert observer.public_view().set_aside[0] == (free[0],)
    assert g.Observer.from_json(json.loads(json.dumps(observer.to_json()))) == observer


def test_relabel_of_a_gladiola_keeps_the_turn_and_the_count():
    state = g.State.build([[w(30), GLADIOLAS[2]], [w(31)]], walk_pile=[w(20)], gladiolas=[GLADIOLAS[0]],
                          set_aside=[[f] for f in FINISHES[3:]], current_player=1, turn=40)
    observer = state.observer()
    before = observer.public_view()
    assert observer.apply(g.Relabel(GLADIOLAS[0], GLADIOLAS[7])).legal
    after = observer.public_view()
    assert after.gladiolas == (GLADIOLAS[7],)
    assert (after.current_player, after.turn, after.hand_counts) == (1, 40, before.hand_counts)
    assert observer.describe(g.Relabel(GLADIOLAS[7], GLADIOLAS[1])) == f"the table's {GLADIOLAS[7]} is {GLADIOLAS[1]}"
    with pytest.raises(IllegalAction, match="full game state"):
        state.apply(g.Relabel(GLADIOLAS[0], GLADIOLAS[7]))


@pytest.mark.parametrize("card, as_card, rule", [
    ("G1", "F2", "relabel.kind"),      # a gladiola is never a FINISH
    ("W20", "W21", "relabel.kind"),    # walk cards differ in km, not only in blisters
    ("G1", "G1", "relabel.same"),
    ("G2", "G3", "relabel.not-on-table"),
    ("F4", "F5", "card.on-table"),     # both lie on the table already
    ("G1", "G9", "card.unknown"),
])
def test_relabel_refusals(card, as_card, rule):
    state = g.State.build([[w(30)], [w(31)]], walk_pile=[w(20)], gladiolas=["G1"],
                          set_aside=[[f] for f in FINISHES[3:]])
    observer = state.observer()
    before = observer.public_view()
    verdict = observer.apply(g.Relabel(card, as_card))
    assert not verdict.legal and verdict.rule == rule
    assert observer.public_view() == before


@pytest.mark.parametrize("data", [{"type": "relabel", "card": "F1"}, {"type": "relabel", "card": "F1", "as_card": 6},
                                  {"type": "relabel", "card": "", "as_card": "F6"},
                                  {"type": "relabel", "card": "F1", "as_card": "F6", "player": 0}])
def test_malformed_relabel(data):
    with pytest.raises(CompanionError, match="relabel"):
        g.action_from_json(data)


@pytest.mark.parametrize("data", [{"type": "recount", "player": 1}, {"type": "recount", "player": 1, "count": "2"},
                                  {"type": "recount", "player": False, "count": 2},
                                  {"type": "recount", "player": 1, "count": 2, "card": "W2"}])
def test_malformed_recount(data):
    with pytest.raises(CompanionError, match="recount"):
        g.action_from_json(data)


@pytest.mark.parametrize("action", [g.Walk("W27"), g.Pause(), g.LayGladiola("G3"), g.TableWalk("W27"), g.TurnTo(1),
                                    g.Recount(2, 5), g.Relabel("F1", "F6")])
def test_action_json_round_trip(action):
    assert g.action_from_json(json.loads(json.dumps(action.to_json()))) == action


def test_rules_json():
    rules = g.Rules(finish_draws=False, last_card_ends_game=True)
    assert g.Rules.from_json(rules.to_json()) == rules
    with pytest.raises(CompanionError, match="unknown Via Gladiola option"):
        g.Rules.from_json({"finish_draw": True})
    with pytest.raises(CompanionError, match="expected true or false"):
        g.Rules.from_json({"finish_draws": "yes"})


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda d: d["hands"][0].append("W01") if "W01" not in d["hands"][0] else d["hands"][1].append("W01"), "exactly one place"),
        (lambda d: d.update(day=5), "day"),
        (lambda d: d.update(walk_pile=[]), "START"),
        (lambda d: d.update(game="appia"), "saved Via Gladiola"),
    ],
)
def test_broken_saved_state_is_refused(change, match):
    data = g.new_game(2, seed=3).to_json()
    change(data)
    with pytest.raises(CompanionError, match=match):
        g.State.from_json(data)


def test_describe():
    state = walk_on(21, [w(27), FINISHES[0], GLADIOLAS[3]], day=4)
    assert state.describe(g.Walk(w(27))) == "walk 27 on 21"
    assert state.describe(g.Pause()) == "pause"
    assert state.describe(g.LayGladiola(GLADIOLAS[3])).startswith(f"lay gladiola {GLADIOLAS[3]}")
    state = walk_on(38, [FINISHES[0]])
    assert state.describe(g.Walk(FINISHES[0])) == "FINISH on 38"


# --- the deck file -----------------------------------------------------------------------------


def test_sample_deck_matches_the_box():
    kinds = Counter(c.kind for c in DECK.cards)
    assert kinds == {g.CardKind.START: 1, g.CardKind.WALK: 49, g.CardKind.FINISH: 6, g.CardKind.GLADIOLA: 8}
    assert sorted(c.value for c in DECK.of_kind(g.CardKind.WALK)) == list(range(1, 50))
    text = (samples_dir() / "decks" / "gladiola.csv").read_text()
    assert text.startswith("#") and "NOT published" in text


def _sample_lines() -> list[str]:
    return (samples_dir() / "decks" / "gladiola.csv").read_text().splitlines()


def _row_line(lines: list[str], card_id: str) -> int:
    return next(i for i, line in enumerate(lines, start=1) if line.startswith(card_id + ","))


@pytest.mark.parametrize(
    "card_id, new_row, match",
    [
        ("W05", "W05,wlak,5,1", "kind: expected one of"),
        ("W05", "W05,walk,5,6", "blisters: expected 0..5, got 6"),
        ("W05", "W05,walk,50,1", "value: expected 1..49, got 50"),
        ("W09", "W09,walk,7,1", "walk value 7 is already used on line"),
        ("W05", "W04,walk,5,1", "'W04' is already used on line"),
        ("F2", "F2,finish,50,3", "blisters: expected 0..2, got 3"),
        ("F2", "F2,finish,49,1", "value: expected 50..50"),
        ("G3", "G3,gladiola,7,3", "expected an empty field for a gladiola"),
        ("G3", "G3,gladiola,,0", "blisters: expected 1..5, got 0"),
        ("S", "S,start,0,1", "blisters: expected 0..0"),
        ("W05", "W05,walk,5", "expected 4 fields"),
    ],
)
def test_bad_deck_row_names_file_and_line(tmp_path, card_id, new_row, match):
    lines = _sample_lines()
    line = _row_line(lines, card_id)
    lines[line - 1] = new_row
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFileError, match=match) as info:
        g.load_deck(path)
    assert info.value.line == line
    assert info.value.path == str(path)
    assert f"{path}:{line}:" in str(info.value)


@pytest.mark.parametrize(
    "drop, match",
    [
        ("W17", "expected 49 walk cards, got 48 (missing values: 17)"),
        ("F1", "expected 6 finish cards, got 5"),
        ("G8", "expected 8 gladiola cards, got 7"),
        ("S", "expected 1 start card, got 0"),
    ],
)
def test_missing_card_is_a_file_level_error(tmp_path, drop, match):
    lines = [line for line in _sample_lines() if not line.startswith(drop + ",")]
    path = tmp_path / "short.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFileError, match=re.escape(match)) as info:
        g.load_deck(path)
    assert info.value.line is None


def test_deck_file_header_and_missing_file(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("# comment\nid,kind,km,blisters\n")
    with pytest.raises(DataFileError) as info:
        g.load_deck(path)
    assert info.value.line == 2
    with pytest.raises(DataFileError, match="file not found"):
        g.load_deck(tmp_path / "missing.csv")


# --- termination -------------------------------------------------------------------------------


def test_random_policy_games_end_quickly():
    lengths = []
    for seed in range(60):
        state = g.new_game(2 + seed % 5, seed)
        rng = random.Random(seed)
        while not state.is_over():
            assert state.turn < 2000
            state.apply(rng.choice(state.legal_actions()))
        assert state.day == 4 and state.walk_pile[-1] in FINISHES
        lengths.append(state.turn)
    assert max(lengths) < 500


def test_verdict_type_is_the_shared_one():
    assert isinstance(walk_on(21, []).apply(g.Pause()), Verdict)
