"""``companion export GAME``: write a logged game in the ``companion simulate --json`` shape."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.errors import CompanionError


def run(args: argparse.Namespace) -> int:
    from companion.commands.play import default_db
    from companion.session import Session
    from companion.store import GameStore

    db = Path(args.db) if args.db else default_db()
    if not db.is_file():
        raise CompanionError(f"--db: expected an existing game log, got {str(db)!r}")
    if args.game != "latest" and not args.game.isdigit():
        raise CompanionError(f"GAME: expected a game id or 'latest', got {args.game!r}")
    with GameStore(db) as store:
        session = Session.resume(store, None if args.game == "latest" else int(args.game))
        data = session.export()
        if args.json:
            json.dump(data, sys.stdout, ensure_ascii=False)
            sys.stdout.write("\n")
            return 0
        print(f"game {data['game_id']}: {session.module.TITLE}, {', '.join(data['players'])}")
        for m in session.moves():
            who = "-" if m.player is None else session.players[m.player]
            verdict = "; ".join(m.verdict.messages) or ("ok" if m.verdict.legal else m.verdict.reason)
            print(f"{m.turn:5d}  {who}  {m.text}  ->  {verdict}")
        scores = data["scores"]
        print("scores: " + ("unknown (hands not shown)" if scores is None else
                            ", ".join(f"{n} {s}" for n, s in zip(data["players"], scores))))
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("export", help="write a logged game (simulate JSON shape with --json)")
    p.add_argument("game", metavar="GAME", help="game id in the log, or 'latest'")
    p.add_argument("--db", help="game log (default: the one `companion play` uses)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)
