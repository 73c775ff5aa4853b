"""Frame sources: drop-outs survived with backoff, end of files, folders in natural order."""

from __future__ import annotations

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
