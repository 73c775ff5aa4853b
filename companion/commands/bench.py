"""``companion bench --json``: speed of reading, against the naive Tesseract baseline."""

from __future__ import annotations

import argparse
import json
import sys


def run(args: argparse.Namespace) -> int:
    from companion.bench import bench

    result = bench(runs=args.runs, frames=args.frames, baseline_frames=args.baseline_frames)
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        for name, value in result.items():
            print(f"{name}: {value}")
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("bench", help="measure reading speed (and the naive Tesseract baseline)")
    p.add_argument("--runs", type=int, default=5, help="cold whole-process reads to time")
    p.add_argument("--frames", type=int, default=30, help="steady-state frames to time")
    p.add_argument("--baseline-frames", type=int, default=3, help="frames for the slow baseline")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
