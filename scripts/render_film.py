#!/usr/bin/env python3
"""Render a seeded game film for replay work and print the command lines that judge it.

Usage::

    python scripts/render_film.py gladiola 3 173 [--out /tmp/fv] [--fps 15] [--table felt]

Writes ``OUT/g173.mp4`` (``v`` for Valais*Wallis), ``.log.json`` and ``.truth.json.gz`` with
:func:`samples.render.video.render_video`, then prints the ``companion replay`` arguments the
film needs (players, the first player from the log, Via Gladiola's pauses as ``--pause-at``)
and the ``eval_replay`` command that compares the replay with the truth. A seed used for a
report must not have been used for tuning: the films' seeds are listed in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_replay import pause_presses  # noqa: E402
from samples.render.specs import Game  # noqa: E402
from samples.render.tables import TableKind  # noqa: E402
from samples.render.video import VideoConfig, plan_frames, plan_video, render_video  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=["gladiola", "valais"])
    parser.add_argument("players", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("--out", default="/tmp/fv", help="folder for the film (default /tmp/fv)")
    parser.add_argument("--fps", type=int, default=15)
    parser.add_argument("--table", choices=[t.value for t in TableKind],
                        help="the table's surface (default: the renderer's seeded choice)")
    args = parser.parse_args(argv)
    game = Game(args.game)
    config = VideoConfig(fps=args.fps, table=TableKind(args.table) if args.table else None)
    name = f"{args.game[0]}{args.seed}"
    total = plan_frames(plan_video(game, args.players, args.seed, config), config)

    def progress(done: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"\rrendering {name}: {done}/{total} frames", end="", file=sys.stderr, flush=True)

    result = render_video(args.out, name, game, args.players, args.seed, config, progress)
    print(file=sys.stderr)
    out = Path(args.out)
    log = json.loads((out / f"{name}.log.json").read_text())
    truth = out / f"{name}.truth.json.gz"
    replay = [str(out / f"{name}.mp4"), "--game", args.game, "--players", str(args.players),
              "--first-player", str(log["events"][0]["player"])]
    if game is Game.GLADIOLA:
        frames = json.loads(gzip.decompress(truth.read_bytes()))
        pauses = ",".join(f"{frame}:{seat}" for frame, seat in pause_presses(log, frames))
        if pauses:
            replay += ["--pause-at", pauses]
    moves = sum(e["action"]["type"] != "pause" for e in log["events"])
    print(f"{name}: {result.frames} frames, {len(log['events'])} log events, {moves} seen moves", file=sys.stderr)
    print("replay args: " + shlex.join(replay))
    print("evaluate:    python scripts/eval_replay.py OUT.json " + shlex.join([str(out / f"{name}.log.json"),
                                                                               "--frames", str(truth)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
