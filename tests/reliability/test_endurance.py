"""Endurance and load, short version: the live loop on the bundled video with 20 dashboard
clients (an event stream and an MJPEG stream each, curl on 127.0.0.1) for a few seconds.

The long runs (an hour, figures in docs/RELIABILITY.md) use the same script:
``python scripts/endurance.py --seconds 3600 --clients 20``.
"""

from __future__ import annotations

import threading

from companion.store import EntryKind, GameStore
from tests.scripts import load_script


def _endurance():
    return load_script("endurance")


def test_live_loop_serves_twenty_clients_and_keeps_processing(tmp_path):
    endurance = _endurance()
    lines: list[str] = []
    state = endurance.run(seconds=3.0, sample_every=1.0, clients=20, db_dir=tmp_path, heartbeat=0.5,
                          out=lines.append)
    result = state.result
    summary, samples, clients = result["summary"], result["samples"], result["clients"]

    # every client: answered 200 and got data; MJPEG clients saw frames beyond the first one
    assert len(clients) == 40
    sse = [c for c in clients if c["kind"] == "sse"]
    mjpeg = [c for c in clients if c["kind"] == "mjpeg"]
    assert len(sse) == len(mjpeg) == 20
    assert all(c["status"] == 200 and c["count"] >= 1 for c in sse), sse
    assert all(c["status"] == 200 and c["count"] >= 2 for c in mjpeg), mjpeg
    assert summary["sse_ok"] == summary["mjpeg_ok"] == 20

    # the loop processed frames in every window, with the clients all connected
    assert len(samples) == 3
    assert all(s["fps"] > 0 and s["frame_ms_median"] is not None for s in samples)
    assert [s["frames"] for s in samples] == sorted(set(s["frames"] for s in samples))
    assert samples[0]["clients_alive"] == 40
    assert len(lines) == 1 + len(samples)  # the header and one progress line per sample

    # state consistent: every frame read was judged and published, every move is in the log once
    assert summary["loop_errors"] == 0 and not summary["loop_still_running"]
    assert summary["frames"] == summary["published"] == state.hub.number
    with GameStore(tmp_path / "games.sqlite3") as store:
        logged = [e for e in store.entries(state.session.game_id) if e.kind is EntryKind.MOVE]
    assert len(logged) == summary["moves"] == len(state.session.moves()) == state.session.view().turn

    # nothing left running: loop, server and every request thread are gone
    names = [t.name for t in threading.enumerate()]
    assert not any(n in ("frame-loop", "dashboard", "frame-watchdog") or "process_request" in n for n in names)
    assert summary["fds_end"] <= summary["fds_start"] + 2  # the log's files are closed (slack: pytest's own)
