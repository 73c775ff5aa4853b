"""Kill a replayed game with SIGKILL at random moments and resume it (RELIABILITY part 3).

``python scripts/kill_resume.py --kills 100 --seed 5 [--game gladiola]``

A reference run plays a simulated game (``companion play --headless --source simulate:SEED``)
to its end without interruption. The test run plays the same game but is killed with SIGKILL
after a random delay, then started again with ``--resume``, over and over until the game is
over. At the end the test run's log must equal the reference log move for move (every move
exactly once, the same verdicts) and SQLite's ``PRAGMA integrity_check`` must say ok.
Prints one JSON line with the counts.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def play(db: Path, game: str, players: str, seed: int, pace: float, resume: bool) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "companion.cli", "play", "--game", game, "--players", players,
           "--source", f"simulate:{seed}", "--pace", str(pace), "--headless", "--db", str(db)]
    if resume:
        cmd.append("--resume")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def export(db: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "companion.cli", "export", "latest", "--db", str(db), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--game", default="gladiola")
    parser.add_argument("--players", default="Ann,Ben,Cy")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds of play between moves")
    args = parser.parse_args(argv)
    rng = random.Random(f"kills:{args.seed}")
    with tempfile.TemporaryDirectory() as tmp:
        ref_db, db = Path(tmp) / "ref.sqlite3", Path(tmp) / "killed.sqlite3"
        ref = play(ref_db, args.game, args.players, args.seed, 0.0, False)
        if ref.wait(timeout=600) != 0:
            raise SystemExit(f"reference run failed: {ref.stderr.read()}")
        reference = export(ref_db)
        kills = starts = 0
        resume = False
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            proc = play(db, args.game, args.players, args.seed, args.pace, resume)
            starts += 1
            resume = True
            try:
                code = proc.wait(timeout=rng.uniform(0.4, 2.5)) if kills < args.kills else proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                continue
            if code != 0:
                raise SystemExit(f"run {starts} ended with {code}: {proc.stderr.read()}")
            if kills >= args.kills:
                break
            # the game ended before enough kills: start a fresh game in a fresh log
            got = export(db)
            if got["events"] != reference["events"]:
                break
            db.unlink()
            for extra in (Path(str(db) + "-wal"), Path(str(db) + "-shm")):
                extra.unlink(missing_ok=True)
            resume = False
        result = export(db)
        with sqlite3.connect(db) as conn:
            integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        same = result["events"] == reference["events"]
        print(json.dumps({"game": args.game, "seed": args.seed, "kills": kills, "starts": starts,
                          "moves": len(reference["events"]), "log_equals_uninterrupted_run": same,
                          "integrity_check": integrity}))
        return 0 if same and integrity == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
