"""The ``companion`` command line.

Every deliberate error (``CompanionError``, ``VisionError``, ``CalibrationError``) becomes one
line on stderr and exit status 2; argument errors exit with status 2 from argparse.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from companion.commands import register_all
from companion.errors import CompanionError


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The table companion: reads card games through a webcam and judges the moves.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    register_all(sub)
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
