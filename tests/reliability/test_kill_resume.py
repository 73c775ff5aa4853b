"""SIGKILL at random moments of a replayed game, then --resume: nothing lost, nothing twice."""

from __future__ import annotations

from tests.scripts import load_script


def test_a_game_killed_and_resumed_logs_what_an_uninterrupted_run_logs(capsys):
    module = load_script("kill_resume")
    assert module.main(["--kills", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert '"log_equals_uninterrupted_run": true' in out and '"integrity_check": "ok"' in out
    assert '"kills": 4' in out
