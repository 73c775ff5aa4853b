"""The main job: ``make demo``'s own command, run headless on the bundled Via Gladiola film,
judges the game as it was played (every move, verdict and player, the shown hands, the scores)."""

from __future__ import annotations

import gzip
import json
import re
import shlex
from pathlib import Path

import pytest

from companion.cli import main
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
VIDEOS = ROOT / "samples" / "videos"


def demo_command() -> list[str]:
    """The arguments ``make demo`` gives ``companion`` (the Makefile's variables filled in)."""
    text = (ROOT / "Makefile").read_text()
    variables = dict(re.findall(r"^([A-Z_]+) :?= *(.*)$", text, re.M))
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", text, re.M)
    assert recipe is not None, "the Makefile has no demo recipe"
    lines = recipe.group(1).replace("\\\n", " ")
    command = next(line for line in lines.splitlines() if "companion play" in line)
    command = re.sub(r"\$\((\w+)\)", lambda m: variables[m.group(1)], command)
    words = shlex.split(command)
    return words[words.index(next(w for w in words if w.endswith("companion"))) + 1:]


@pytest.fixture(scope="module")
def truth() -> tuple[dict, dict]:
    with gzip.open(VIDEOS / "gladiola.truth.json.gz", "rt") as f:
        frames = json.load(f)
    return json.loads((VIDEOS / "gladiola.log.json").read_text()), frames


def test_the_demo_presses_pause_where_the_filmed_players_did(truth) -> None:
    args = demo_command()
    presses = args[args.index("--pause-at") + 1]
    assert presses == ",".join(f"{f}:{s}" for f, s in load_script("eval_replay").pause_presses(*truth))


def test_the_demo_judges_the_bundled_game_as_it_was_played(tmp_path: Path, capsys, truth) -> None:
    args = demo_command()
    db = tmp_path / "demo.sqlite3"
    args[args.index("--db") + 1] = str(db)
    assert args[args.index("--source") + 1] == "samples/videos/gladiola.mp4"
    args[args.index("--source") + 1] = str(VIDEOS / "gladiola.mp4")
    assert main(args + ["--headless"]) == 0
    log, _ = truth
    assert f"scores: {log['scores']}" in capsys.readouterr().out
    assert main(["export", "latest", "--db", str(db), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    score = load_script("eval_replay").compare(found, log)
    assert score.truth_moves == score.found_moves == score.matched > 20
    assert score.verdicts_equal == score.players_equal == score.matched
    assert (found["scores"], found["winners"]) == (log["scores"], log["winners"])
