"""Camera faults at the source level, through ``CaptureSource`` and ``session.run_loop``.

A fake capture plays a script of reads: good frames, failed reads, garbage (None, wrong dtype or
shape, not an array), exceptions, a resolution change, and the device vanishing and coming back.
In every case the loop survives, the game state does not change, only good frames reach the
tracker and the MJPEG hub, and the session shows the camera's state.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from companion.session import FrameHub, Origin, Session, SimulatedMoves, run_loop
from companion.sources import Backoff, CaptureSource, Frame, SourceKind, SourceState, as_bgr
from companion.store import GameStore

GOOD = np.full((48, 64, 3), 90, np.uint8)
WIDE = np.full((72, 128, 3), 60, np.uint8)
RAISE = object()
GARBAGE = {
    "none": None,
    "float": np.zeros((48, 64, 3), np.float32),
    "uint16": np.zeros((48, 64, 3), np.uint16),
    "two-channels": np.zeros((48, 64, 2), np.uint8),
    "one-dimensional": np.zeros(100, np.uint8),
    "empty": np.zeros((0, 64, 3), np.uint8),
    "zero-width": np.zeros((48, 0, 3), np.uint8),
    "four-dims": np.zeros((2, 48, 64, 3), np.uint8),
    "string": "frame",
    "raises": RAISE,
}


class Clock:
    """Advances one second per call, so reopen backoffs pass quickly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


class ScriptedCapture:
    """Reads come from a shared script: an array (ok), ``RAISE``, or anything else (garbage)."""

    def __init__(self, script: list, opened: bool = True) -> None:
        self.script = script
        self.opened = opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self):
        if not self.script:
            return False, None
        item = self.script.pop(0)
        if item is RAISE:
            raise RuntimeError("driver fault")
        return True, item

    def release(self) -> None:
        self.opened = False


class Recorder:
    """A move source that finds no moves and remembers the shapes of the frames it saw."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def moves(self, frame: Frame):
        assert frame.image.dtype == np.uint8 and frame.image.ndim == 3 and frame.image.shape[2] == 3
        self.shapes.append(frame.image.shape)
        return ()

    def annotate(self, frame: Frame) -> np.ndarray:
        return frame.image


@pytest.fixture
def session(tmp_path):
    with GameStore(tmp_path / "cam.sqlite3") as store:
        sim = SimulatedMoves("gladiola", 3, 1, pace=0)
        yield Session.new(store, "gladiola", ("Ann", "Ben", "Cy"), sim.observer())


def _run(session, source, steps: int) -> tuple[Recorder, FrameHub, list[SourceState]]:
    seen: list[SourceState] = []
    original = session.set_source_status

    def spy(status):
        seen.append(status.state)
        original(status)

    session.set_source_status = spy  # type: ignore[method-assign]
    count = iter(range(steps))
    recorder, hub = Recorder(), FrameHub()
    run_loop(session, source, recorder, hub, threading.Event(), Origin.CAMERA, idle=0,
             stop_when=lambda: next(count, None) is None)
    return recorder, hub, seen


@pytest.mark.parametrize("name", list(GARBAGE))
def test_garbage_frames_are_failed_reads(session, name):
    script = [GOOD, GARBAGE[name], GOOD, GARBAGE[name], GARBAGE[name], GARBAGE[name], GOOD]
    source = CaptureSource(0, SourceKind.CAMERA, lambda t: ScriptedCapture(script), Backoff(lost_after=3), Clock())
    turn = session.view().turn
    recorder, hub, seen = _run(session, source, 40)
    assert session.view().turn == turn and session.moves() == ()
    assert recorder.shapes == [GOOD.shape] * 3
    assert hub.number == 3
    assert SourceState.LOST in seen, "three bad reads in a row show the camera as lost"


def test_resolution_change_mid_stream(session):
    script = [GOOD, GOOD, WIDE, WIDE, GOOD]
    source = CaptureSource(0, SourceKind.CAMERA, lambda t: ScriptedCapture(script), clock=Clock())
    recorder, hub, seen = _run(session, source, 5)
    assert recorder.shapes == [GOOD.shape, GOOD.shape, WIDE.shape, WIDE.shape, GOOD.shape]
    assert hub.number == 5 and set(seen) == {SourceState.OK}


def test_camera_disappears_and_comes_back(session):
    """Unplugged: reads fail, reopening fails twice, then the device is back with frames."""
    script = [GOOD, GOOD]
    opens = {"n": 0}

    def open_capture(target):
        opens["n"] += 1
        if opens["n"] == 1:
            return ScriptedCapture(script)
        if opens["n"] == 4:
            return ScriptedCapture([GOOD, GOOD, GOOD])
        return ScriptedCapture([], opened=False)

    source = CaptureSource(0, SourceKind.CAMERA, open_capture, Backoff(first=0.5, lost_after=2), Clock())
    recorder, hub, seen = _run(session, source, 30)
    assert opens["n"] >= 4
    assert recorder.shapes == [GOOD.shape] * 5
    assert session.moves() == ()
    lost = seen.index(SourceState.LOST)
    back = seen.index(SourceState.OK, lost)
    assert SourceState.RECONNECTING in seen[lost:back]
    assert session.view().to_json()["source"]["state"] == seen[-1].value  # the dashboard sees it


def test_open_that_raises_is_retried(session):
    calls = {"n": 0}

    def open_capture(target):
        calls["n"] += 1
        if calls["n"] == 1:
            return ScriptedCapture([], opened=False)
        if calls["n"] == 2:
            raise OSError("device busy")
        return ScriptedCapture([GOOD])

    source = CaptureSource("rtsp://cam/1", SourceKind.URL, open_capture, clock=Clock())
    recorder, _, seen = _run(session, source, 12)
    assert recorder.shapes and set(recorder.shapes) == {GOOD.shape} and calls["n"] >= 3
    assert seen.index(SourceState.OK) > seen.index(SourceState.RECONNECTING)


def test_source_that_returns_nothing_keeps_the_game_still(session):
    """A camera that opens but never delivers: the dashboard shows it lost, the game waits."""
    source = CaptureSource(0, SourceKind.CAMERA, lambda t: ScriptedCapture([]), Backoff(lost_after=3), Clock())
    turn = session.view().turn
    recorder, hub, seen = _run(session, source, 25)
    assert recorder.shapes == [] and hub.number == 0 and session.view().turn == turn
    assert session.view().source.state in (SourceState.LOST, SourceState.RECONNECTING)


def test_stalled_read_times_out_to_lost(session):
    """OpenCV's stream back-ends give up on a stalled stream after their timeout and return
    (False, None); a run of those turns the source LOST, and frames afterwards resume play."""
    script: list = []
    source = CaptureSource(0, SourceKind.CAMERA, lambda t: ScriptedCapture(script), Backoff(lost_after=2), Clock())
    _, _, seen = _run(session, source, 3)
    assert seen[-1] in (SourceState.LOST, SourceState.RECONNECTING)


class BlockingCapture(ScriptedCapture):
    """Delivers one frame, then blocks in ``read`` until released (a stalled driver)."""

    def __init__(self) -> None:
        super().__init__([GOOD])
        self.release_read = threading.Event()
        self.blocked = threading.Event()

    def read(self):
        if self.script:
            return super().read()
        self.blocked.set()
        self.release_read.wait(10)
        return True, GOOD


def test_blocking_read_shows_the_camera_stalled(session):
    cap = BlockingCapture()
    source = CaptureSource(0, SourceKind.CAMERA, lambda t: cap)
    stop = threading.Event()
    recorder, hub = Recorder(), FrameHub()
    loop = threading.Thread(target=run_loop, args=(session, source, recorder, hub, stop, Origin.CAMERA),
                            kwargs=dict(idle=0, stall_after=0.2), daemon=True)
    loop.start()
    assert cap.blocked.wait(5)
    version = session.version
    session.wait_for_change(version, 3.0)  # the watchdog's change wakes the dashboard's event stream
    view = session.view()
    assert view.source.state is SourceState.LOST and "stopped answering" in view.source.message
    assert view.turn == 0 and session.moves() == ()
    stop.set()
    cap.release_read.set()
    loop.join(5)
    assert not loop.is_alive()
    assert recorder.shapes[:2] == [GOOD.shape, GOOD.shape]
    assert session.view().source.state is SourceState.OK  # the late frame put it back


@pytest.mark.parametrize("image, shape", [
    (np.zeros((5, 7), np.uint8), (5, 7, 3)),
    (np.zeros((5, 7, 1), np.uint8), (5, 7, 3)),
    (np.zeros((5, 7, 4), np.uint8), (5, 7, 3)),
    (np.zeros((5, 7, 3), np.uint8), (5, 7, 3)),
])
def test_as_bgr_converts_gray_and_bgra(image, shape):
    out = as_bgr(image)
    assert out is not None and out.shape == shape and out.dtype == np.uint8


@pytest.mark.parametrize("name", [n for n in GARBAGE if n != "raises"])
def test_as_bgr_refuses_garbage(name):
    assert as_bgr(GARBAGE[name]) is None
