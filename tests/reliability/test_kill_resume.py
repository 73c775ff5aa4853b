"""SIGKILL at random moments of a replayed game, then --resume: nothing lost, nothing twice."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "kill_resume.py"


def test_a_game_killed_and_resumed_logs_what_an_uninterrupted_run_logs(capsys):
    spec = importlib.util.spec_from_file_location("kill_resume", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--kills", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert '"log_equals_uninterrupted_run": true' in out and '"integrity_check": "ok"' in out
    assert '"kills": 4' in out
