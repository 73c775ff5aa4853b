"""The command line: simulate's JSON contract, determinism, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.games import GAME_NAMES, get_game


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("game", GAME_NAMES)
def test_simulate_json_shape_and_determinism(capsys, game):
    code, out, err = run(capsys, "simulate", "--game", game, "--players", "3", "--seed", "7", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == game
    assert data["players"] == ["Anna", "Ben", "Cleo"]
    assert data["events"], "a whole game has events"
    for event in data["events"]:
        assert set(event) == {"turn", "player", "action", "verdict"}
        assert isinstance(event["action"]["type"], str)
        assert event["verdict"]["legal"] is True
    assert [e["turn"] for e in data["events"]] == list(range(1, len(data["events"]) + 1))
    assert len(data["scores"]) == 3
    assert data["winners"] and set(data["winners"]) <= {0, 1, 2}
    _, again, _ = run(capsys, "simulate", "--game", game, "--players", "3", "--seed", "7", "--json")
    assert again == out
    _, other, _ = run(capsys, "simulate", "--game", game, "--players", "3", "--seed", "8", "--json")
    assert other != out


@pytest.mark.parametrize("game", GAME_NAMES)
def test_simulate_every_player_count(capsys, game):
    module = get_game(game)
    for n in range(module.MIN_PLAYERS, module.MAX_PLAYERS + 1):
        code, out, err = run(capsys, "simulate", "--game", game, "--players", str(n), "--seed", str(n))
        assert code == 0, err
        assert "winner" in out.splitlines()[-1]


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["simulate", "--game", "chess"], "unknown game 'chess'"),
        (["simulate", "--game", "gladiola", "--players", "7"], "takes 2..6 players, got 7"),
        (["simulate", "--game", "appia", "--players", "1"], "takes 2..4 players, got 1"),
        (["simulate", "--game", "valais", "--players", "Ann,Ann"], "must be distinct"),
    ],
)
def test_bad_arguments_give_one_line_error(capsys, argv, expected):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert expected in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_console_script_entry_point_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "companion.cli", "simulate", "--game", "gladiola", "--players", "2", "--seed", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("gladiola: Anna, Ben (seed 1)")
