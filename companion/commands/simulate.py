"""``companion simulate``: play a whole game with a seeded random legal policy."""

from __future__ import annotations

import argparse
import json
import sys

from companion.games import GAME_NAMES


def run(args: argparse.Namespace) -> int:
    from companion.simulate import simulate

    log = simulate(args.game, args.players, args.seed)
    if args.json:
        json.dump(log.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(log.to_text())
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("simulate", help="play a whole game with a seeded random legal policy")
    p.add_argument("--game", required=True, help=f"one of {', '.join(GAME_NAMES)}")
    p.add_argument("--players", default="3", help="a count (2..) or comma-separated names")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the log as JSON")
    p.set_defaults(func=run)
