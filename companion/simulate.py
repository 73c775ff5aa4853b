"""Play whole games with a seeded random legal policy and record the log.

The policy picks uniformly among ``legal_actions()``; at a chance node (a physical outcome the
engine takes as input, such as what falls out of the Via Appia quarry) it samples
``chance_outcomes()`` by weight. Everything is deterministic for a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from companion.errors import CompanionError
from companion.games import canonical_name, get_game
from companion.games.base import Verdict

DEFAULT_NAMES = ("Anna", "Ben", "Cleo", "Dario", "Elif", "Femke", "Gian", "Hanna")
MAX_EVENTS = 20_000


@dataclass(frozen=True)
class Event:
    """One applied action: ``turn`` counts events from 1; ``player`` is a seat index or None."""

    turn: int
    player: int | None
    action: Any
    verdict: Verdict
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "player": self.player,
            "action": self.action.to_json(),
            "verdict": self.verdict.to_json(),
        }


@dataclass(frozen=True)
class GameLog:
    game: str
    players: tuple[str, ...]
    seed: int
    events: tuple[Event, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    score_label: str

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seed": self.seed,
            "players": list(self.players),
            "events": [e.to_json() for e in self.events],
            "scores": list(self.scores),
            "winners": list(self.winners),
        }

    def to_text(self) -> str:
        width = max(len(n) for n in self.players)
        lines = [f"{self.game}: {', '.join(self.players)} (seed {self.seed})"]
        for e in self.events:
            who = self.players[e.player] if e.player is not None else "-"
            said = "; ".join(e.verdict.messages)
            lines.append(f"{e.turn:5d}  {who:<{width}}  {e.text}" + (f"  ->  {said}" if said else ""))
        lines.append("scores (" + self.score_label + "): " + ", ".join(
            f"{n} {s}" for n, s in zip(self.players, self.scores)))
        names = [self.players[i] for i in self.winners]
        lines.append(("winner: " if len(names) == 1 else "shared win: ") + ", ".join(names))
        return "\n".join(lines)


def player_names(spec: str | int) -> tuple[str, ...]:
    """``3`` -> the first three default names; ``"Ann,Ben"`` -> those names."""
    text = str(spec).strip()
    if text.isdigit():
        count = int(text)
        if not 1 <= count <= len(DEFAULT_NAMES):
            raise CompanionError(f"expected 1..{len(DEFAULT_NAMES)} players, got {count}")
        return DEFAULT_NAMES[:count]
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise CompanionError(f"expected a player count or comma-separated names, got {spec!r}")
    if len(set(names)) != len(names):
        raise CompanionError(f"player names must be distinct, got {text!r}")
    return names


def random_step(state: Any, rng: random.Random) -> Any:
    """The action a seeded random policy takes in ``state`` (or the sampled chance outcome)."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        weights = [p for _, p in outcomes]
        return rng.choices(actions, weights=weights, k=1)[0]
    actions = state.legal_actions()
    if not actions:
        raise CompanionError("the engine offers no legal action in a game that is not over")
    return rng.choice(actions)


def simulate(game: str, players: str | int, seed: int) -> GameLog:
    """Play one whole game of ``game`` with a seeded random legal policy."""
    name = canonical_name(game)
    module: ModuleType = get_game(name)
    names = player_names(players)
    if not module.MIN_PLAYERS <= len(names) <= module.MAX_PLAYERS:
        raise CompanionError(
            f"{module.TITLE} takes {module.MIN_PLAYERS}..{module.MAX_PLAYERS} players, got {len(names)}"
        )
    state = module.new_game(len(names), seed)
    rng = random.Random(f"policy:{name}:{seed}")
    events: list[Event] = []
    last_player: int | None = None
    while not state.is_over():
        if len(events) >= MAX_EVENTS:
            raise CompanionError(f"game did not end within {MAX_EVENTS} actions (seed {seed})")
        player = state.current_player
        player = last_player if player is None else player
        action = random_step(state, rng)
        text = state.describe(action)
        verdict = state.apply(action)
        events.append(Event(len(events) + 1, player, action, verdict, text))
        last_player = player
    return GameLog(
        game=name,
        players=names,
        seed=seed,
        events=tuple(events),
        scores=tuple(state.scores()),
        winners=tuple(state.winners()),
        score_label=getattr(module, "SCORE_LABEL", "score"),
    )
