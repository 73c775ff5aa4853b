"""Rule tests for the Via Appia engine (hand-built positions on the bundled sample board).

Sample board, section A: roma > A01 (small) > A02 (small) | A03 (medium) > A04 (large) >
A05 | A06 (small, small) > A07 (medium) > ... > A12 (small) > capua > B01 ...
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games import appia
from companion.games.appia import (
    Build, Income, Observer, Phase, Push, QuarryOutcome, Resource, Rules, SellPlate, Size,
    State, TakeSesterce, TakeTile, Travel,
)
from companion.simulate import random_step

L, M, S = Size.LARGE, Size.MEDIUM, Size.SMALL
SECTION_A = ["A01", "A02", "A03", "A04", "A05", "A06", "A07", "A08", "A09", "A10", "A11", "A12"]


def state(players: int = 2, rules: Rules | None = None, **table) -> State:
    """A game whose start player and current player are 0, with table fields overridden."""
    table.setdefault("start_player", 0)
    table.setdefault("current", 0)
    return State.for_test(players, 0, rules, **table)


def rejects(st: State, action, rule: str) -> None:
    before = st.to_json()
    with pytest.raises(IllegalAction) as err:
        st.apply(action)
    assert err.value.rule == rule
    assert st.to_json() == before


# ---- setup -------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_gives_two_stones_and_rising_sesterces_in_turn_order(players):
    for seed in range(6):
        st = appia.new_game(players, seed)
        t = st.table
        first = t.start_player
        assert st.current_player == first
        assert t.stones == [2] * players
        assert [t.sesterces[(first + k) % players] for k in range(players)] == list(range(1, players + 1))
        assert len(t.display) == 7 and t.draw_count == 9 and len(st.draw_pile) == 9
        assert t.position == ["roma"] * players
        stack = [6, 1] if players == 2 else [6, 3, 1]
        assert all(v == stack for v in t.vp_stacks.values())


@pytest.mark.parametrize("players", [1, 5, 0])
def test_player_count_outside_range_is_an_error(players):
    with pytest.raises(CompanionError):
        appia.new_game(players, 1)


def test_start_player_depends_on_the_seed():
    assert len({appia.new_game(4, seed).table.start_player for seed in range(30)}) > 1


# ---- income ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "display, take, before_taking, stones, sesterces, both",
    [
        ([9, 1, 2, 3], Resource.STONES, True, 3, 0, False),      # 4 face up: one half
        ([9, 1, 2, 3], Resource.SESTERCES, True, 0, 2, False),
        ([9, 1, 2], Resource.STONES, True, 3, 2, True),          # 3 face up: both halves
        ([9, 1], Resource.SESTERCES, True, 3, 2, True),
        ([9, 1, 2, 3], Resource.STONES, False, 3, 2, True),      # counted after taking: 3 left
        ([9, 1, 2, 3, 4], Resource.STONES, False, 3, 0, False),
    ],
)
def test_income_halves(display, take, before_taking, stones, sesterces, both):
    st = state(rules=Rules(both_halves_before_taking=before_taking), display=display)
    t = st.table
    s0, m0 = t.stones[0], t.sesterces[0]
    verdict = st.apply(Income(9, take))  # card 9: 3 stones, 2 sesterces
    assert (t.stones[0] - s0, t.sesterces[0] - m0) == (stones, sesterces)
    assert any("both halves" in m for m in verdict.messages) == both
    assert 9 in t.taken and 9 not in t.display


@pytest.mark.parametrize("holds_token, gets_token", [(False, True), (True, False)])
def test_last_card_gives_a_push_token_only_to_a_player_without_one(holds_token, gets_token):
    st = state(display=[5], taken=[1, 2, 3, 4, 6, 7], push_token=[holds_token, False],
               push_token_supply=3 if holds_token else 4)
    verdict = st.apply(Income(5, Resource.STONES))
    assert st.table.push_token[0] is True
    assert ("last card: push +1 token" in verdict.messages) == gets_token
    assert st.table.push_token_supply == 3


def test_last_card_lays_out_seven_new_cards_from_the_draw_pile_and_reshuffles():
    st = state(display=[5], taken=[1, 2, 3, 4, 6, 7])
    deck = sorted(st.all_cards())
    pile = list(st.draw_pile)
    st.apply(Income(5, Resource.SESTERCES))
    t = st.table
    assert t.display == pile[:7]
    assert len(set(t.display)) == 7 and t.taken == [] and t.draw_count == 9
    assert sorted(st.draw_pile) == sorted(pile[7:] + [1, 2, 3, 4, 5, 6, 7])
    assert sorted(st.all_cards()) == deck
    assert t.refills == 1


def test_income_card_must_be_on_display():
    st = state(display=[1, 2, 3, 4, 5, 6, 7])
    rejects(st, Income(12, Resource.STONES), "income.not-on-display")


def test_limited_stone_pool_gives_only_what_is_left():
    st = state(display=[1, 2, 3, 4, 5, 6, 7], stone_pool=2)
    verdict = st.apply(Income(1, Resource.STONES))  # card 1: 3 stones
    assert st.table.stones[0] == 4 and st.table.stone_pool == 0
    assert "only 2 stones left in the storage" in verdict.messages


# ---- quarry ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "push, stones, token, rule",
    [
        (Push(3, False), 5, True, "quarry.push-count"),
        (Push(3, True), 5, False, "quarry.token"),
        (Push(2, True), 5, True, "quarry.token"),
        (Push(2, False), 1, False, "quarry.stones"),
        (Push(0, False), 5, False, "quarry.push-count"),
    ],
)
def test_illegal_pushes(push, stones, token, rule):
    rejects(state(stones=[stones, 2], push_token=[token, False]), push, rule)


@pytest.mark.parametrize("spent, keeps", [(True, False), (False, True)])
def test_third_stone_uses_the_push_token(spent, keeps):
    st = state(rules=Rules(push_token_spent=spent), stones=[5, 2], push_token=[True, False],
               push_token_supply=3)
    st.apply(Push(3, True))
    assert st.table.stones[0] == 2 and st.table.push_token[0] is keeps
    assert st.is_chance_node() and st.current_player is None and st.legal_actions() == []


@pytest.mark.parametrize("pushed", [1, 2, 3])
def test_chance_outcomes_are_a_distribution(pushed):
    st = state(stones=[5, 2], push_token=[True, False], push_token_supply=3)
    st.apply(Push(pushed, pushed == 3))
    outcomes = st.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert all(len(o.fallen) <= pushed for o, _ in outcomes)
    assert len({o for o, _ in outcomes}) == len(outcomes)


@pytest.mark.parametrize(
    "pushed, fallen, phase, offered",
    [
        (1, (), Phase.ACTION, None),                    # one stone, nothing: turn over
        (2, (), Phase.CONSOLATION, [TakeTile(S), TakeSesterce()]),
        (2, (S, L), Phase.PLATES, [TakeTile(S), TakeTile(M), TakeTile(L), SellPlate()]),
    ],
)
def test_quarry_outcomes(pushed, fallen, phase, offered):
    st = state(stones=[3, 2])
    st.apply(Push(pushed))
    st.apply(QuarryOutcome(fallen))
    assert st.table.phase is phase
    if offered is None:
        assert st.current_player == 1
    else:
        assert st.legal_actions() == offered


def test_fallen_plates_are_decided_largest_first_and_no_larger_tile():
    st = state(stones=[3, 2])
    st.apply(Push(2))
    st.apply(QuarryOutcome((S, M)))
    assert st.table.pending == [M, S]
    rejects(st, TakeTile(L), "quarry.tile-size")
    st.apply(TakeTile(S))  # smaller than the medium plate: allowed
    rejects(st, TakeTile(M), "quarry.tile-size")
    st.apply(TakeTile(S))
    assert st.table.cart[0] == [2, 0, 0] and st.current_player == 1


@pytest.mark.parametrize(
    "cart, size, fits",
    [
        ([0, 0, 0], L, True),
        ([1, 0, 0], L, True),     # 1 + 3 = 4
        ([0, 1, 0], L, False),    # 2 + 3 = 5
        ([2, 1, 0], S, False),    # 4 + 1
        ([0, 1, 0], M, True),     # 2 + 2
        ([3, 0, 0], S, True),
        ([0, 0, 1], S, True),
    ],
)
def test_cart_capacity(cart, size, fits):
    rules = Rules(cart_unload=False)
    st = state(rules=rules, stones=[3, 2], cart=[cart, [0, 0, 0]])
    st.apply(Push(1))
    st.apply(QuarryOutcome((L,)))
    assert (TakeTile(size) in st.legal_actions()) == fits
    if fits:
        st.apply(TakeTile(size))
    else:
        rejects(st, TakeTile(size), "quarry.cart-full")


def test_unloading_makes_room_only_as_needed():
    st = state(stones=[3, 2], cart=[[2, 1, 0], [0, 0, 0]], tile_supply=[22, 12, 9])
    st.apply(Push(1))
    st.apply(QuarryOutcome((L,)))
    takes = [a for a in st.legal_actions() if isinstance(a, TakeTile) and a.size is L]
    assert takes == [TakeTile(L, (M, S))]
    rejects(st, TakeTile(L), "quarry.cart-full")
    rejects(st, TakeTile(L, (M, S, S)), "quarry.unload")  # one small more than needed
    st.apply(TakeTile(L, (M, S)))
    assert st.table.cart[0] == [1, 0, 1]
    assert st.table.tile_supply == [23, 13, 8]


def test_selling_is_always_allowed():
    st = state(stones=[3, 2], cart=[[1, 0, 1], [0, 0, 0]], tile_supply=[0, 0, 0])
    st.apply(Push(2))
    st.apply(QuarryOutcome((L, L)))
    assert st.legal_actions() == [SellPlate()]
    st.apply(SellPlate())
    st.apply(SellPlate())
    assert st.table.sesterces[0] == 1 + 2


def test_consolation_is_only_a_small_tile_or_a_sesterce():
    st = state(stones=[3, 2])
    st.apply(Push(2))
    st.apply(QuarryOutcome(()))
    rejects(st, TakeTile(M), "quarry.tile-size")
    rejects(st, SellPlate(), "quarry.decide")
    st.apply(TakeSesterce())
    assert st.table.sesterces[0] == 2


def test_impossible_quarry_outcome_is_rejected():
    st = state(stones=[3, 2])
    st.apply(Push(2))
    rejects(st, QuarryOutcome((L,) * 5), "quarry.outcome")
    rejects(st, Income(st.table.display[0], Resource.STONES), "quarry.outcome-expected")


# ---- build -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "built, visited, spaces, cart, rule",
    [
        ({}, ["roma"], ("A02",), [1, 0, 0], "build.connection"),             # not linked yet
        (dict.fromkeys(SECTION_A, 1), ["roma"], ("B01",), [1, 0, 0], "build.connection"),  # Capua not visited
        ({}, ["roma"], ("A01", "A04"), [1, 0, 1], "build.connection"),
        ({}, ["roma"], ("A01", "B01"), [2, 0, 0], "build.same-section"),
        (dict.fromkeys(SECTION_A[:11], 1), ["roma", "capua"], ("A12", "B01"), [2, 0, 0], "build.same-section"),
        ({}, ["roma"], ("A01",), [0, 1, 0], "build.no-tile"),
        ({"A01": 1}, ["roma"], ("A01",), [1, 0, 0], "build.occupied"),
        ({}, ["roma"], ("X99",), [1, 0, 0], "build.unknown-space"),
        ({}, ["roma"], ("A01", "A02", "A03"), [2, 1, 0], "build.count"),
        ({}, ["roma"], ("A01", "A02"), [1, 0, 0], "build.no-tile"),
    ],
)
def test_illegal_builds(built, visited, spaces, cart, rule):
    st = state(built=built, visited=[visited, ["roma"]], cart=[cart, [0, 0, 0]])
    rejects(st, Build(spaces), rule)
    assert Build(spaces) not in st.legal_actions()


def test_building_from_a_visited_city_further_along():
    st = state(built=dict.fromkeys(SECTION_A, 1), visited=[["roma", "capua"], ["roma"]],
               position=["capua", "roma"], cart=[[1, 0, 0], [0, 0, 0]])
    st.apply(Build(("B01",)))
    assert st.table.built["B01"] == 0


def test_two_tiles_in_one_section_pay_vp_tokens_and_a_sesterce():
    st = state(cart=[[1, 1, 0], [0, 0, 0]])
    verdict = st.apply(Build(("A01", "A03")))
    t = st.table
    assert t.vp[0] == 1 + 3 and t.bonus[0]["A"] == 2 and t.bonus_supply["A"] == 9
    assert t.sesterces[0] == 1 + 1 and t.cart[0] == [0, 0, 0]
    assert verdict.messages[:3] == ("built A01 (small): +1 VP, bonus token A",
                                    "built A03 (medium): +3 VP, bonus token A", "two tiles: +1 sesterce")


@pytest.mark.parametrize("limited, token", [(True, 0), (False, 1)])
def test_no_bonus_token_when_the_section_has_none_left(limited, token):
    st = state(rules=Rules(bonus_tokens_limited=limited), cart=[[1, 0, 0], [0, 0, 0]],
               bonus_supply={"A": 0, "B": 13, "C": 17})
    st.apply(Build(("A01",)))
    assert st.table.bonus[0]["A"] == token and st.table.vp[0] == 1


@pytest.mark.parametrize("backward", [False, True])
def test_build_backward_option(backward):
    st = state(rules=Rules(build_backward=backward), built=dict.fromkeys(SECTION_A[:9], 1),
               visited=[["roma", "capua"], ["roma"]], cart=[[1, 0, 0], [0, 0, 0]])
    assert (Build(("A12",)) in st.legal_actions()) == backward


# ---- travel ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "path, markers, cost",
    [
        (("A01",), 0, 1), (("A01",), 1, 0), (("A01",), 2, 0),
        (("A01", "A02"), 0, 3), (("A01", "A02"), 1, 2), (("A01", "A02"), 2, 1),
        (("A01", "A03", "A04"), 0, 6), (("A01", "A03", "A04"), 1, 5), (("A01", "A03", "A04"), 2, 4),
        (("A01", "A03", "A04"), 3, 3),
    ],
)
def test_travel_cost_minus_markers_on_the_next_city(path, markers, cost):
    st = state(built={"A01": 1, "A02": 1, "A03": 1, "A04": 1}, sesterces=[10, 2],
               markers={"capua": markers, "beneventum": 0, "brundisium": 0})
    verdict = st.apply(Travel(path))
    assert st.table.sesterces[0] == 10 - cost
    assert st.table.position[0] == path[-1]
    if markers:
        assert verdict.messages[0].endswith(f"pays {cost}")


def test_travel_needs_built_linked_spaces_and_money():
    st = state(built={"A01": 1, "A03": 1}, sesterces=[2, 2])
    rejects(st, Travel(("A02",)), "travel.not-linked")
    rejects(st, Travel(("A01", "A02")), "travel.unbuilt")
    rejects(st, Travel(("A01", "A04")), "travel.not-linked")
    rejects(st, Travel(("A01", "A03", "A04", "A05")), "travel.steps")
    rejects(st, Travel(("A01", "A03")), "travel.cost")  # 3 sesterces, has 2
    assert st.legal_actions()[-1] == Travel(("A01",))


@pytest.mark.parametrize("players, tokens", [(2, [6, 1, 0]), (3, [6, 3, 1])])
def test_reaching_a_city_takes_the_top_vp_token_and_places_a_marker(players, tokens):
    built = dict.fromkeys(SECTION_A, 0)
    st = state(players, built=built, position=["A12"] * players, sesterces=[5] * players)
    got = []
    for p in range(players):
        vp = st.table.vp[p]
        st.apply(Travel(("capua",)))
        got.append(st.table.vp[p] - vp)
    assert got == tokens[:players]
    assert st.table.markers["capua"] == players
    assert all("capua" in v for v in st.table.visited)


def test_a_move_stops_in_a_city():
    built = dict.fromkeys(SECTION_A + ["B01"], 0)
    st = state(built=built, position=["A12", "roma"], sesterces=[9, 2])
    rejects(st, Travel(("capua", "B01")), "travel.city-stop")
    free = state(rules=Rules(travel_stops_at_city=False), built=built, position=["A12", "roma"],
                 sesterces=[9, 2])
    free.apply(Travel(("capua", "B01")))
    assert free.table.vp[0] == 6 and free.table.position[0] == "B01"


def test_city_marker_cap():
    st = state(4, rules=Rules(city_marker_cap=2), built=dict.fromkeys(SECTION_A, 0),
               position=["A12"] * 4, sesterces=[5] * 4)
    for _ in range(4):
        st.apply(Travel(("capua",)))
    assert st.table.markers["capua"] == 2


# ---- end ---------------------------------------------------------------------------------

ALL_BUILT = {s.id: 0 for s in appia.default_data().board.spaces}
LAST = appia.default_data().board.pred["brundisium"][0]


def _near_brundisium(players: int, rules: Rules | None = None) -> State:
    return state(players, rules, built=ALL_BUILT, position=[LAST] * players,
                 sesterces=[5] * players, stones=[3] * players)


@pytest.mark.parametrize(
    "players, trigger_by, finish_round, turns_after",
    [
        (3, 0, True, 2),   # start player triggers: players 1 and 2 still play
        (3, 1, True, 1),
        (3, 2, True, 0),   # last in the round: over at once
        (3, 0, False, 0),
        (2, 0, True, 1),
    ],
)
def test_brundisium_finishes_the_round(players, trigger_by, finish_round, turns_after):
    st = _near_brundisium(players, Rules(finish_round=finish_round))
    for _ in range(trigger_by):
        st.apply(Push(1))
        st.apply(QuarryOutcome(()))
    verdict = st.apply(Travel(("brundisium",)))
    assert st.table.end_triggered
    expected = "the round is played to the end" if turns_after else "the game ends"
    assert f"Brundisium reached: {expected}" in verdict.messages
    for _ in range(turns_after):
        assert not st.is_over()
        st.apply(Push(1))
        st.apply(QuarryOutcome(()))
    assert st.is_over() and st.legal_actions() == [] and st.current_player is None


def test_completing_the_road_triggers_the_end():
    built = {s.id: 1 for s in appia.default_data().board.spaces if s.id != "C01"}
    st = state(2, built=built, visited=[["roma", "beneventum"], ["roma"]], cart=[[1, 0, 0], [0, 0, 0]],
               tile_supply=[0, 0, 0])
    verdict = st.apply(Build(("C01",)))
    assert "the road is complete: the round is played to the end" in verdict.messages
    st.apply(Push(1))
    st.apply(QuarryOutcome(()))
    assert st.is_over()


@pytest.mark.parametrize(
    "values, skip, expected",
    [
        ([5, 3, 1], True, [(0, 8), (1, 4)]),
        ([3, 3, 1], True, [(0, 8), (1, 8)]),            # tied first: nobody second
        ([3, 3, 1], False, [(0, 8), (1, 8), (2, 4)]),
        ([3, 2, 2, 0], True, [(0, 8), (1, 4), (2, 4)]),  # tied second both get 4
        ([2, 0, 0], True, [(0, 8)]),                     # 0 tokens never place
        ([0, 0, 0], True, []),
        ([1, 1, 1, 1], True, [(0, 8), (1, 8), (2, 8), (3, 8)]),
    ],
)
def test_majority_placings(values, skip, expected):
    assert appia.placings(values, (8, 4), skip) == expected


@pytest.mark.parametrize(
    "sesterces, bonus, final",
    [
        # sesterce tie: both +2; section A tie for first: both +8; B: 0 first, 1 second
        ([4, 4], [{"A": 2, "B": 3, "C": 0}, {"A": 2, "B": 1, "C": 0}], [2 + 8 + 8, 2 + 8 + 4]),
        ([5, 4], [{"A": 0, "B": 0, "C": 0}, {"A": 0, "B": 0, "C": 1}], [2, 8]),
    ],
)
def test_final_scoring(sesterces, bonus, final):
    st = state(2, Rules(finish_round=False), built=ALL_BUILT, position=[LAST, "roma"],
               sesterces=[sesterces[0] + 1, sesterces[1]], bonus=bonus, vp=[0, 0])
    st.apply(Travel(("brundisium",)))  # pays 1, takes the 6 token
    assert st.is_over()
    assert list(st.scores()) == [6 + final[0], final[1]]
    best = max(st.scores())
    assert st.winners() == tuple(p for p, s in enumerate(st.scores()) if s == best)


def test_tied_winners_share():
    st = state(2, Rules(finish_round=False), built=ALL_BUILT, position=[LAST, "roma"],
               sesterces=[1, 0], vp=[0, 6])
    st.apply(Travel(("brundisium",)))
    assert st.scores() == (6, 6) and st.winners() == (0, 1)


# ---- JSON, observer, whole games ---------------------------------------------------------

ALL_ACTIONS = [
    Income(3, Resource.STONES), Income(4, Resource.SESTERCES, (1, 2, 3, 5, 6, 7, 8)),
    Push(2), Push(3, True), QuarryOutcome((L, S)), QuarryOutcome(()), TakeTile(M),
    TakeTile(L, (M, S)), SellPlate(), TakeSesterce(), Build(("A01", "A02")), Travel(("A01", "A02")),
]


@pytest.mark.parametrize("action", ALL_ACTIONS)
def test_action_json_round_trip(action):
    assert appia.action_from_json(json.loads(json.dumps(action.to_json()))) == action
    assert appia.describe(action)


@pytest.mark.parametrize(
    "data",
    [{"type": "fly"}, {"type": "push", "stones": "2"}, {"type": "income", "card": 1, "take": "gold"},
     {"type": "take-tile", "size": "huge"}, {"type": "build", "spaces": "A01"}, [], None],
)
def test_malformed_action_json(data):
    with pytest.raises(CompanionError):
        appia.action_from_json(data)


def _random_state(seed: int, steps: int) -> State:
    st = appia.new_game(3, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        st.apply(random_step(st, rng))
    return st


@pytest.mark.parametrize("seed, steps", [(1, 0), (2, 150), (3, 400)])
def test_state_json_round_trip(seed, steps):
    st = _random_state(seed, steps)
    copy = State.from_json(json.loads(json.dumps(st.to_json())))
    assert copy == st and copy.public_view() == st.public_view()
    assert copy.legal_actions() == st.legal_actions()


def test_rules_json_round_trip_and_errors():
    rules = Rules(cart_capacity=5, finish_round=False)
    assert Rules.from_json(rules.to_json()) == rules
    with pytest.raises(CompanionError):
        Rules.from_json({"cart_size": 4})
    with pytest.raises(CompanionError):
        Rules.from_json({"finish_round": 1})


def test_observer_illegal_input_leaves_it_unchanged():
    st = appia.new_game(2, 4)
    obs = Observer.start(2, st.table.start_player, tuple(st.table.display))
    assert obs.public_view() == st.public_view()
    before = obs.to_json()
    for bad in (Travel(("A01",)), Build(("A01",)), Push(2, True), Income(99, Resource.STONES),
                TakeSesterce(), QuarryOutcome((S,)), "push"):
        verdict = obs.apply(bad)
        assert not verdict.legal and verdict.rule and verdict.reason
        assert obs.to_json() == before


def test_observer_needs_the_new_cards_when_the_display_empties():
    st = state(display=[5], taken=[1, 2, 3, 4, 6, 7])
    obs = st.observer()
    verdict = obs.apply(Income(5, Resource.STONES))
    assert not verdict.legal and verdict.rule == "income.revealed"
    bad = obs.apply(Income(5, Resource.STONES, (1, 2, 3, 4, 6, 7, 8)))  # taken cards: not in the pile
    assert not bad.legal
    public = st.public_action(Income(5, Resource.STONES))
    assert public.revealed == tuple(st.draw_pile[:7])
    st.apply(Income(5, Resource.STONES))
    assert obs.apply(public).legal
    assert obs.public_view() == st.public_view()
    assert Observer.from_json(json.loads(json.dumps(obs.to_json()))) == obs


@pytest.mark.parametrize("seed", [5, 6])
def test_observer_follows_a_whole_game(seed):
    st = appia.new_game(2 + seed % 3, seed)
    obs = st.observer()
    rng = random.Random(seed)
    deck = sorted(st.all_cards())
    while not st.is_over():
        action = random_step(st, rng)
        public = st.public_action(action)
        assert st.apply(action).legal
        assert obs.apply(public).legal
    assert obs.public_view() == st.public_view() and obs.is_over()
    assert obs.scores() == st.scores() and obs.winners() == st.winners()
    assert sorted(st.all_cards()) == deck


# ---- data files --------------------------------------------------------------------------

def test_bundled_data_counts():
    data = appia.default_data()
    sizes = [s.size for s in data.board.spaces]
    assert (sizes.count(L), sizes.count(M), sizes.count(S)) == (9, 13, 24)
    assert [(s.id, s.tokens) for s in data.board.sections] == [("A", 11), ("B", 13), ("C", 17)]
    assert len(data.cards) == 16
    assert any(len(data.board.succ[n]) > 1 for n in data.board.succ)  # the road splits


def _board_lines() -> list[str]:
    return appia.default_board_path().read_text(encoding="utf-8").splitlines()


def _line_of(lines: list[str], text: str) -> int:
    return next(i for i, line in enumerate(lines, start=1) if line.strip() == text)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("link A01 A02", "link A01 A99", "unknown"),
        ("space A05 A small", "space A05 A tiny", "size"),
        ("space A05 A small", "space A05 Z small", "unknown section"),
        ("link A01 A02", "road A01 A02", "expected city"),
        ("link A01 A02", "link A01", "expected 'link FROM TO'"),
        ("section B brown 13", "section B brown many", "bonus tokens"),
        ("space A05 A small", "space A01 A small", "duplicate id"),
    ],
)
def test_board_errors_name_the_line(tmp_path: Path, old, new, message):
    lines = _board_lines()
    number = _line_of(lines, old)
    lines[number - 1] = new
    path = tmp_path / "board.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        appia.load_board(path)
    assert err.value.line == number and message in err.value.reason


@pytest.mark.parametrize(
    "drop, message, line_of",
    [
        (["link roma A01"], "cannot be reached", "space A01 A small"),
        (["link A12 capua"], "dead end", "space A12 A small"),
        (["space A05 A small"], "expected 24 small spaces", None),
    ],
)
def test_board_validation(tmp_path: Path, drop, message, line_of):
    lines = [ln for ln in _board_lines() if ln.strip() not in drop and
             not (drop == ["space A05 A small"] and "A05" in ln)]
    path = tmp_path / "board.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        appia.load_board(path)
    assert message in err.value.reason
    assert err.value.line == (_line_of(lines, line_of) if line_of else None)


@pytest.mark.parametrize(
    "row, message",
    [("17,2", "expected 3 fields"), ("3,2,2", "duplicate card id 3"), ("17,x,1", "stones"),
     ("17,2,-1", "sesterces")],
)
def test_income_file_errors_name_the_line(tmp_path: Path, row, message):
    lines = appia.default_income_path().read_text(encoding="utf-8").splitlines()
    lines.append(row)
    path = tmp_path / "income.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        appia.load_income_cards(path)
    assert err.value.line == len(lines) and message in err.value.reason


def test_too_few_income_cards(tmp_path: Path):
    path = tmp_path / "income.csv"
    path.write_text("id,stones,sesterces\n1,1,1\n2,2,2\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="at least 14 cards"):
        appia.load_income_cards(path)


def test_custom_data_round_trips(tmp_path: Path):
    lines = appia.default_income_path().read_text(encoding="utf-8").splitlines()
    lines = [ln.replace("1,3,1", "1,4,4") if ln.startswith("1,") else ln for ln in lines]
    path = tmp_path / "income.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    data = appia.load_data(None, path)
    st = appia.new_game(2, 3, data=data)
    assert st.to_json()["data"] is not None
    assert State.from_json(json.loads(json.dumps(st.to_json()))) == st
