"""Frame sources: drop-outs survived with backoff, end of files, folders in natural order."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from companion.errors import CompanionError
from companion.sources import (
    Backoff, CaptureSource, FolderSource, SourceKind, SourceState, classify, frames,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeCapture:
    """Plays a script of reads: an image array or None (a failed read)."""

    def __init__(self, script, opened=True):
        self.script = list(script)
        self.opened = opened
        self.released = False

    def isOpened(self):
        return self.opened

    def read(self):
        if not self.script:
            return False, None
        item = self.script.pop(0)
        return (item is not None), item

    def release(self):
        self.released = True


def image(value: int) -> np.ndarray:
    return np.full((4, 6, 3), value, np.uint8)


def test_camera_drop_out_goes_lost_reconnecting_ok():
    clock = FakeClock()
    # first device: two frames then dead; reopen 1 fails; reopen 2 delivers again
    captures = [FakeCapture([image(1), image(2)]), FakeCapture([], opened=False), FakeCapture([image(3), image(4)])]
    opened = []

    def open_capture(target):
        opened.append(target)
        return captures[len(opened) - 1]

    src = CaptureSource(0, SourceKind.CAMERA, open_capture, Backoff(first=1.0, factor=2.0, maximum=8.0, lost_after=2), clock)
    states = []

    def step():
        f = src.read()
        states.append(src.status.state)
        return f

    assert step().image[0, 0, 0] == 1
    assert step().image[0, 0, 0] == 2
    assert step() is None and src.status.state is SourceState.OK  # one failure is not yet lost
    assert step() is None and src.status.state is SourceState.LOST
    assert step() is None and len(opened) == 1  # backoff: not yet time to reopen
    clock.now = 1.0
    assert step() is None and src.status.state is SourceState.RECONNECTING and src.status.attempts == 1
    clock.now = 1.5
    assert step() is None and len(opened) == 2  # second delay is 2 s
    clock.now = 3.0
    frame = step()
    assert frame is not None and frame.image[0, 0, 0] == 3 and src.status.state is SourceState.OK
    assert frame.index == 2  # indices count delivered frames, unbroken by the drop-out
    assert step().index == 3
    assert states[:4] == [SourceState.OK] * 3 + [SourceState.LOST]


def test_camera_that_cannot_open_at_first_keeps_trying():
    clock = FakeClock()
    captures = iter([FakeCapture([], opened=False), FakeCapture([image(7)])])
    src = CaptureSource("rtsp://cam/1", SourceKind.URL, lambda t: next(captures), Backoff(first=0.5), clock)
    assert src.status.state is SourceState.LOST
    clock.now = 0.5
    assert src.read().image[0, 0, 0] == 7


def test_video_file_ends_instead_of_reconnecting():
    src = CaptureSource("game.mp4", SourceKind.FILE, lambda t: FakeCapture([image(1)]), Backoff(), FakeClock())
    assert src.read() is not None
    assert src.read() is None
    assert src.status.state is SourceState.ENDED
    assert src.read() is None


def test_unopenable_video_file_is_an_error():
    with pytest.raises(CompanionError, match="cannot open file"):
        CaptureSource("missing.mp4", SourceKind.FILE, lambda t: FakeCapture([], opened=False))


def test_real_video_file_through_cv2(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    for v in (10, 120, 240):
        writer.write(np.full((24, 32, 3), v, np.uint8))
    writer.release()
    src = CaptureSource(str(path), SourceKind.FILE)
    got = list(frames(src, idle=0))
    assert [f.index for f in got] == [0, 1, 2]
    assert src.status.state is SourceState.ENDED


def test_folder_source_natural_order_and_skips_unreadable(tmp_path):
    for name, value in [("img10.png", 10), ("img2.png", 2), ("img1.jpg", 1)]:
        cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), value, np.uint8))
    (tmp_path / "img5.png").write_bytes(b"not an image")
    (tmp_path / "notes.txt").write_text("ignored")
    src = FolderSource(tmp_path, fps=2.0)
    got = list(frames(src, idle=0))
    assert [int(f.image[0, 0, 0]) for f in got] == [1, 2, 10]
    assert [f.timestamp for f in got] == [0.0, 0.5, 1.0]
    assert src.skipped == 1 and src.status.state is SourceState.ENDED


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(CompanionError, match="expected image files"):
        FolderSource(tmp_path)


@pytest.mark.parametrize("spec, kind, target", [
    ("0", SourceKind.CAMERA, 0),
    ("2", SourceKind.CAMERA, 2),
    ("rtsp://10.0.0.5/stream", SourceKind.URL, "rtsp://10.0.0.5/stream"),
    ("http://cam.local/video.mjpg", SourceKind.URL, "http://cam.local/video.mjpg"),
])
def test_classify(spec, kind, target):
    assert classify(spec) == (kind, target)


def test_classify_paths(tmp_path):
    video = tmp_path / "v.mp4"
    video.write_bytes(b"x")
    assert classify(str(tmp_path)) == (SourceKind.FOLDER, str(tmp_path))
    assert classify(str(video)) == (SourceKind.FILE, str(video))
    with pytest.raises(CompanionError, match="expected a camera index"):
        classify(str(tmp_path / "nope.mp4"))


def test_paced_source_waits_for_each_frames_time():
    from companion.sources import Frame, PacedSource, SourceState, SourceStatus

    class Recorded:
        status = SourceStatus(SourceState.OK)

        def __init__(self):
            self.frames = [Frame(i, i * 0.5, np.zeros((4, 4, 3), np.uint8)) for i in range(3)]

        def read(self):
            return self.frames.pop(0) if self.frames else None

        def close(self):
            pass

    now = [100.0]
    slept = []

    def sleep(seconds):
        slept.append(round(seconds, 6))
        now[0] += seconds

    paced = PacedSource(Recorded(), speed=2.0, clock=lambda: now[0], sleep=sleep)
    assert [paced.read().index for _ in range(3)] == [0, 1, 2]
    assert slept == [0.25, 0.25]  # half-second frames at double speed
    assert paced.read() is None


# ------------------------------------------------------------------------------------------------
# The reader thread: a driver read that hangs must not block the caller


class StallingCapture(FakeCapture):
    """Plays its script; at ``STALL`` the read blocks until ``go_on`` is set (a hung driver).
    ``camera_rate``: after the script, keep delivering its last image every few milliseconds."""

    STALL = object()

    def __init__(self, script, opened=True, camera_rate=False):
        super().__init__(script, opened)
        self.camera_rate = camera_rate
        self.last = None
        self.go_on = threading.Event()
        self.stalled = threading.Event()
        self.releases = 0
        self.reader_threads = set()

    def read(self):
        self.reader_threads.add(threading.current_thread().name)
        if self.script and self.script[0] is StallingCapture.STALL:
            self.script.pop(0)
            self.stalled.set()
            self.go_on.wait(10)
        if not self.script and self.camera_rate and self.last is not None:
            threading.Event().wait(0.005)
            return True, self.last
        ok, item = super().read()
        self.last = item if ok else self.last
        return ok, item

    def release(self):
        self.releases += 1
        super().release()


def read_until(src, wanted, limit=2000):
    """Call ``src.read()`` until ``wanted(frame)`` holds (each read waits at most ``src``'s wait)."""
    for _ in range(limit):
        frame = src.read()
        if wanted(frame):
            return frame
    raise AssertionError("the source never got there")


def test_threaded_source_reports_a_stalled_read_and_recovers():
    cap = StallingCapture([image(1), StallingCapture.STALL, image(2), image(3)], camera_rate=True)
    src = CaptureSource(0, SourceKind.CAMERA, lambda t: cap, Backoff(lost_after=2),
                        threaded=True, stall_after=0.5, wait=0.02)
    try:
        first = read_until(src, lambda f: f is not None)
        assert first.index == 0 and first.image[0, 0, 0] == 1
        assert cap.stalled.wait(5)
        # the caller is not blocked: reads come back empty and the camera shows as stalled
        read_until(src, lambda f: src.status.state is SourceState.LOST)
        assert "stopped answering" in src.status.message
        assert [src.read() for _ in range(3)] == [None, None, None]
        assert src.status.state is SourceState.LOST
        cap.go_on.set()
        later = read_until(src, lambda f: f is not None)
        assert later.image[0, 0, 0] in (2, 3) and later.index == 1
        assert src.status.state is SourceState.OK
        assert threading.current_thread().name not in cap.reader_threads  # the driver is read elsewhere
    finally:
        src.close()
    assert not src.reader_alive and cap.releases == 1
    assert src.status.state is SourceState.ENDED


def test_close_during_a_stalled_read_leaves_no_thread_or_open_capture():
    before = set(threading.enumerate())
    cap = StallingCapture([image(1), StallingCapture.STALL, image(2)])
    src = CaptureSource(0, SourceKind.CAMERA, lambda t: cap, threaded=True, stall_after=0.05, wait=0.02)
    read_until(src, lambda f: f is not None)
    assert cap.stalled.wait(5)
    src.close()  # returns although the reader is stuck in the driver
    assert src.status.state is SourceState.ENDED and src.read() is None
    assert cap.releases == 0, "a capture must not be released while another thread reads it"
    cap.go_on.set()  # the driver lets go: the reader releases the capture and ends
    for thread in set(threading.enumerate()) - before:
        thread.join(5)
    assert not src.reader_alive and cap.releases == 1
    assert set(threading.enumerate()) <= before


def test_threaded_reconnect_releases_every_capture():
    """The device vanishes twice and comes back; every capture opened is released exactly once."""
    before = set(threading.enumerate())
    scripts = [[image(1)], [], [image(2)], [], [image(3), image(4)]]
    opened = []

    def open_capture(target):
        last = len(opened) >= len(scripts) - 1
        cap = StallingCapture(scripts[len(opened)] if not last else [image(3), image(4)], camera_rate=last)
        opened.append(cap)
        return cap

    src = CaptureSource(0, SourceKind.CAMERA, open_capture, Backoff(first=0.001, maximum=0.01, lost_after=1),
                        threaded=True, wait=0.02)
    seen = []
    try:
        while not seen or seen[-1] < 3:
            frame = read_until(src, lambda f: f is not None)
            seen.append(int(frame.image[0, 0, 0]))
    finally:
        src.close()
    # a live source hands over its newest frame, so frames may be skipped (a loaded machine
    # skips more), never reordered or repeated
    assert seen == sorted(set(seen)) and set(seen) <= {1, 2, 3, 4} and seen[-1] in (3, 4)
    assert len(opened) >= 5 and all(c.releases == 1 for c in opened)
    assert not src.reader_alive and set(threading.enumerate()) <= before


def test_threaded_file_keeps_every_frame_then_ends():
    cap = FakeCapture([image(v) for v in range(1, 9)])
    src = CaptureSource("game.mp4", SourceKind.FILE, lambda t: cap, threaded=True, wait=0.02)
    got = [int(f.image[0, 0, 0]) for f in frames(src, idle=0)]
    assert got == list(range(1, 9))
    assert src.status.state is SourceState.ENDED and cap.released and not src.reader_alive


def test_open_source_gives_live_sources_a_reader_thread(monkeypatch, tmp_path):
    import companion.sources as sources

    made = []
    monkeypatch.setattr(sources, "CaptureSource", lambda target, kind, **kw: made.append((kind, kw)) or kw)
    video = tmp_path / "v.mp4"
    video.write_bytes(b"x")
    sources.open_source("0")
    sources.open_source("rtsp://127.0.0.1/cam")
    sources.open_source(str(video))
    assert [(kind, kw["threaded"]) for kind, kw in made] == [
        (SourceKind.CAMERA, True), (SourceKind.URL, True), (SourceKind.FILE, False)]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_reader_survives_a_driver_that_raises_on_release():
    class Broken(StallingCapture):
        def release(self):
            super().release()
            raise RuntimeError("driver fault on release")

    opened = []

    def open_capture(target):
        opened.append(Broken([] if not opened else [image(5)], camera_rate=bool(opened)))
        return opened[-1]

    src = CaptureSource(0, SourceKind.CAMERA, open_capture, Backoff(first=0.001, maximum=0.01, lost_after=1),
                        threaded=True, wait=0.02)
    try:
        frame = read_until(src, lambda f: f is not None)
        assert frame.image[0, 0, 0] == 5 and src.reader_alive
    finally:
        src.close()
    assert len(opened) >= 2 and not src.reader_alive
