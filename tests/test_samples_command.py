"""Tests of ``companion samples`` (make and set)."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from samples.render import bundle
from samples.render.specs import Game
from samples.render.video import VideoConfig


def test_set_writes_a_deterministic_set(tmp_path, capsys):
    assert main(["samples", "set", str(tmp_path / "a"), "--game", "valais", "--count", "2", "--seed", "3",
                 "--quiet"]) == 0
    assert main(["samples", "set", str(tmp_path / "b"), "--game", "valais", "--count", "2", "--seed", "3",
                 "--quiet"]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["0000.jpg", "0000.json", "0001.jpg", "0001.json", "index.json"]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert json.loads((tmp_path / "a" / "index.json").read_text())["count"] == 2


@pytest.mark.parametrize("args,expected", [
    (["--game", "chess", "--count", "1"], "expected --game gladiola, valais, appia, got 'chess'"),
    (["--game", "appia", "--count", "-1"], "expected a non-negative --count, got -1"),
    (["--game", "appia", "--seed", "-2"], "expected a non-negative --seed, got -2"),
])
def test_set_errors_are_one_line(tmp_path, capsys, args, expected):
    assert main(["samples", "set", str(tmp_path / "x"), *args, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err


def test_out_must_be_a_directory(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["samples", "make", "--out", str(f), "--what", "stills", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected an output directory" in err


def test_make_writes_stills_videos_and_sheet(tmp_path, capsys, monkeypatch):
    tiny = VideoConfig(resolution=(192, 108), move_seconds=0.3, rest_seconds=0.2, idle_seconds=0.1,
                       intro_seconds=0.1, max_events=2)
    monkeypatch.setattr(bundle, "STILLS_PER_GAME", 1)
    monkeypatch.setattr(bundle, "VIDEOS", (bundle.BundledVideo(Game.VALAIS, 2, 1, tiny),))
    sheet = tmp_path / "sheet.png"
    assert main(["samples", "make", "--out", str(tmp_path), "--quiet", "--sheet", str(sheet)]) == 0
    report = json.loads(capsys.readouterr().out)
    for game in Game:
        assert (tmp_path / "stills" / game.value / "0000.jpg").is_file()
    for suffix in (".mp4", ".log.json", ".truth.json.gz"):
        assert (tmp_path / "videos" / f"valais{suffix}").is_file()
    assert sheet.is_file() and report["sheet"] == str(sheet)
    assert report["bytes"] == bundle.bundle_size(tmp_path) > 0


def test_bundled_videos_fit_the_plan():
    names = [v.name for v in bundle.VIDEOS]
    assert names == ["gladiola", "valais"]
    assert all(v.config.max_events is None for v in bundle.VIDEOS)  # whole games
