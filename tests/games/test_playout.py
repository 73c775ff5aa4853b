"""One random-playout test over every registered game (OpenSpiel style).

Each game is played to the end many times with a seeded random legal policy, and every turn
the invariants every engine promises are checked.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from companion.games import GAME_NAMES, get_game
from companion.simulate import random_step

GAMES_PER_ENGINE = 300


def _roundtrip(module, state):
    data = json.loads(json.dumps(state.to_json()))
    return module.State.from_json(data)


def _check_winners(name, state):
    scores = state.scores()
    winners = state.winners()
    assert len(scores) == state.players
    assert winners, "a finished game has at least one winner"
    assert set(winners) <= set(range(state.players))
    if name == "gladiola":
        # fewest blisters, then fewest cards, then shared
        hands = state.hand_sizes()
        key = {p: (scores[p], hands[p]) for p in range(state.players)}
        best = min(key.values())
        assert set(winners) == {p for p, k in key.items() if k == best}
    elif name == "appia":
        best = max(scores)
        assert set(winners) == {p for p, s in enumerate(scores) if s == best}
    elif name == "valais":
        assert len(winners) == 1
        assert scores[winners[0]] == 0


def _play(name, module, players, seed):
    state = module.new_game(players, seed)
    observer = state.observer()
    deck = Counter(state.all_cards())
    rng = random.Random(f"test-policy:{seed}")
    steps = 0
    while not state.is_over():
        steps += 1
        assert steps < 5000, f"{name} seed {seed} did not end"
        assert Counter(state.all_cards()) == deck, "cards must be conserved"
        assert observer.public_view() == state.public_view()
        copy = _roundtrip(module, state)
        assert copy.to_json() == state.to_json()
        assert copy.public_view() == state.public_view()
        if not state.is_chance_node():
            actions = state.legal_actions()
            assert actions, "a running game offers an action"
            saved = json.loads(json.dumps(state.to_json()))
            for action in actions:
                trial = module.State.from_json(saved)
                verdict = trial.apply(module.action_from_json(action.to_json()))
                assert verdict.legal, (action, verdict)
        action = random_step(state, rng)
        public = state.public_action(action)
        verdict = state.apply(action)
        assert verdict.legal
        seen = observer.apply(public)
        assert seen.legal, (public, seen)
    assert state.legal_actions() == []
    assert Counter(state.all_cards()) == deck
    assert observer.public_view() == state.public_view()
    assert observer.is_over()
    _check_winners(name, state)
    return steps


CHUNK = 50  # seeds per test item, so the 300 games of an engine spread over CPU workers


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("first_seed", range(0, GAMES_PER_ENGINE, CHUNK))
def test_random_playouts_keep_every_invariant(name, first_seed):
    module = get_game(name)
    span = module.MAX_PLAYERS - module.MIN_PLAYERS + 1
    for seed in range(first_seed, first_seed + CHUNK):
        players = module.MIN_PLAYERS + seed % span
        _play(name, module, players, seed)
