"""The ``companion`` command line.

Every deliberate error (``CompanionError``, ``VisionError``, ``CalibrationError``) becomes one
line on stderr and exit status 2; argument errors exit with status 2 from argparse.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

from companion.errors import CompanionError
from companion.games import GAME_NAMES


def _known_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [CompanionError]
    try:
        from vision.errors import VisionError

        errors.append(VisionError)
    except ImportError:  # the vision package is optional for the rule-engine commands
        pass
    from calibration.errors import CalibrationError

    errors.append(CalibrationError)
    return tuple(errors)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from companion.simulate import simulate

    log = simulate(args.game, args.players, args.seed)
    if args.json:
        json.dump(log.to_json(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(log.to_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The table companion: reads card games through a webcam and judges the moves.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = sub.add_parser("simulate", help="play a whole game with a seeded random legal policy")
    sim.add_argument("--game", required=True, help=f"one of {', '.join(GAME_NAMES)}")
    sim.add_argument("--players", default="3", help="a count (2..) or comma-separated names")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--json", action="store_true", help="print the log as JSON")
    sim.set_defaults(func=_cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except _known_errors() as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
