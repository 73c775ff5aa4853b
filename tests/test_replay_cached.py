"""scripts/replay_cached.py: a replay from recorded readings equals the replay that recorded them.

The script changes vision classes for its own process, so it runs in a subprocess here."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "replay_cached.py"
VIDEO = ROOT / "samples" / "videos" / "valais.mp4"
LAST = 60  # the sample's first two moves settle at frames 21 and 39


def run(cache: Path, *extra: str, last: int = LAST) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--cache", str(cache), "--last-frame", str(last),
                           str(VIDEO), "--game", "valais", "--players", "2", "--json", *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    cache = tmp_path_factory.mktemp("replay_cache") / "valais.vcache"
    return cache, run(cache)


def test_the_first_run_replays_and_records_each_frame(built):
    cache, proc = built
    assert proc.returncode == 0, proc.stderr
    log = json.loads(proc.stdout)
    assert [e["action"]["type"] for e in log["events"]][:2] == ["place-seen", "place-seen"]
    assert max(e["frame"] for e in log["events"]) <= LAST
    payload = pickle.loads(cache.read_bytes())
    assert sorted(payload["frames"]) == list(range(LAST + 1))


def test_a_run_from_the_cache_gives_the_same_log(built):
    cache, first = built
    again = run(cache)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert "recorded in" not in again.stderr  # read, not made anew


def test_a_cache_of_another_length_is_refused(built):
    cache, _ = built
    proc = run(cache, last=LAST + 10)
    assert proc.returncode != 0
    assert f"the cache ends at frame {LAST}, asked for {LAST + 10}" in proc.stderr


def test_a_file_that_is_no_cache_is_refused(tmp_path):
    bad = tmp_path / "bad.vcache"
    bad.write_bytes(b"not a pickle at all")
    proc = run(bad)
    assert proc.returncode != 0
    assert "is no replay cache" in proc.stderr
    assert bad.read_bytes() == b"not a pickle at all"
