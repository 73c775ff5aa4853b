"""``companion samples``: rebuild the bundled sample media, or render larger still sets.

``companion samples make [--out samples] [--what stills|videos|all] [--sheet PNG]`` rewrites the
bundled stills and videos deterministically (seeds in :mod:`samples.render.bundle`);
``companion samples set OUT --game G --count N --seed S`` renders a set of any size.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.errors import CompanionError

WHAT = ("stills", "videos", "all")
STILL_GAMES = ("gladiola", "valais", "appia")


def _out_dir(text: str) -> Path:
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise CompanionError(f"expected an output directory, got the file {path}")
    return path


def run_make(args: argparse.Namespace) -> int:
    from samples.render import bundle

    out = _out_dir(args.out)
    report: dict[str, object] = {}
    if args.what in ("stills", "all"):
        report["stills"] = [str(p) for p in bundle.make_stills(out, progress=not args.quiet)]
    if args.what in ("videos", "all"):
        report["videos"] = [r.to_json() for r in bundle.make_videos(out, progress=not args.quiet)]
    if args.sheet:
        report["sheet"] = str(bundle.contact_sheet(out / "stills", args.sheet))
    report["bytes"] = bundle.bundle_size(out)
    print(json.dumps(report))
    return 0


def run_set(args: argparse.Namespace) -> int:
    from samples.render.dataset import write_set
    from samples.render.specs import Game

    if args.game not in STILL_GAMES:
        raise CompanionError(f"expected --game {', '.join(STILL_GAMES)}, got {args.game!r}")
    if args.count < 0:
        raise CompanionError(f"expected a non-negative --count, got {args.count}")
    if args.seed < 0:
        raise CompanionError(f"expected a non-negative --seed, got {args.seed}")
    print(write_set(_out_dir(args.out), Game(args.game), args.count, args.seed, progress=not args.quiet))
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("samples", help="rebuild the bundled sample media or render still sets")
    inner = p.add_subparsers(dest="samples_command", required=True, metavar="ACTION")
    make = inner.add_parser("make", help="rebuild the bundled stills and videos")
    make.add_argument("--out", default="samples", help="directory holding stills/ and videos/ (default samples)")
    make.add_argument("--what", choices=WHAT, default="all")
    make.add_argument("--sheet", help="also write a contact sheet PNG of the stills here")
    make.add_argument("--quiet", action="store_true", help="no progress bars")
    make.set_defaults(func=run_make)
    still = inner.add_parser("set", help="render a set of still scenes with ground truth")
    still.add_argument("out")
    still.add_argument("--game", required=True, help=f"one of {', '.join(STILL_GAMES)}")
    still.add_argument("--count", type=int, default=100)
    still.add_argument("--seed", type=int, default=0)
    still.add_argument("--quiet", action="store_true", help="no progress bar")
    still.set_defaults(func=run_set)
