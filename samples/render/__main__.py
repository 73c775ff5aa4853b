"""Command line: write a rendered set, or time the renderer."""

from __future__ import annotations

import argparse
import json
import sys

from companion.errors import CompanionError
from samples.render.dataset import bench_render, write_set
from samples.render.scene import SceneConfig
from samples.render.specs import Game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m samples.render", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("set", help="render a set of scenes with ground truth")
    make.add_argument("out")
    make.add_argument("--game", choices=[g.value for g in Game], default=Game.GLADIOLA.value)
    make.add_argument("--count", type=int, default=100)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--resolution", help="WxH, e.g. 1280x720 (default: varied)")
    bench = sub.add_parser("bench", help="time rendering of 1280x720 scenes")
    bench.add_argument("--n", type=int, default=50)
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--game", choices=[g.value for g in Game], default=Game.GLADIOLA.value)
    args = parser.parse_args(argv)
    try:
        if args.command == "set":
            resolution = None
            if args.resolution:
                w, _, h = args.resolution.partition("x")
                resolution = (int(w), int(h))
            config = SceneConfig(resolution=resolution)
            print(write_set(args.out, Game(args.game), args.count, args.seed, config=config))
        else:
            print(json.dumps(bench_render(args.n, args.seed, Game(args.game)).to_json()))
    except (CompanionError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
