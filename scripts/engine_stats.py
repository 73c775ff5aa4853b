"""Game lengths and simulation speed of every engine: ``python scripts/engine_stats.py [GAMES]``.

Plays GAMES seeded random games per engine and player count (seeds 0..GAMES-1) and prints the
median and maximum number of actions and the median milliseconds per game.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from companion.games import GAME_NAMES, get_game
from companion.simulate import simulate


def main(games: int) -> dict:
    out = {}
    for name in GAME_NAMES:
        module = get_game(name)
        for players in range(module.MIN_PLAYERS, module.MAX_PLAYERS + 1):
            lengths, times = [], []
            for seed in range(games):
                start = time.perf_counter()
                log = simulate(name, players, seed)
                times.append((time.perf_counter() - start) * 1000)
                lengths.append(len(log.events))
            out[f"{name}/{players}"] = {"games": games, "median_actions": statistics.median(lengths),
                                        "max_actions": max(lengths), "median_ms": round(statistics.median(times), 1)}
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50), indent=1))
