"""Frame sources: a webcam, a video file, an HTTP/RTSP stream or a folder of images.

A :class:`FrameSource` hands out :class:`Frame` objects one at a time through ``read()``; it
never raises for a frame that does not come. Instead it reports its :class:`SourceState`:

* ``OK``: frames arrive.
* ``LOST``: the last read failed (camera unplugged, stream stalled). The next reads try to
  reopen the device with exponential backoff.
* ``RECONNECTING``: a reopen is being attempted (or was just attempted and failed).
* ``ENDED``: a file or folder has no more frames; nothing more will come.

A read that raises or returns garbage (None, wrong dtype or shape) counts as a failed read.

Cameras and streams are read by a reader thread (``threaded=True``, what :func:`open_source`
uses for them), so a driver read that hangs never blocks the frame loop: ``read()`` waits at
most ``wait`` seconds, and once the device has been silent inside one read for ``stall_after``
seconds the source reports ``LOST`` ("the camera stopped answering") until frames return.

The game state lives elsewhere and is never touched by a source: when frames return after a
drop-out, play simply goes on. Time and sleeping are injectable so tests run instantly.
"""

from __future__ import annotations

import enum
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, runtime_checkable

import cv2
import numpy as np

from companion.errors import CompanionError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg")


class SourceState(enum.Enum):
    OK = "ok"
    LOST = "lost"
    RECONNECTING = "reconnecting"
    ENDED = "ended"


class SourceKind(enum.Enum):
    CAMERA = "camera"
    FILE = "file"
    URL = "url"
    FOLDER = "folder"


@dataclass(frozen=True, eq=False)
class Frame:
    """One image from a source: ``index`` counts delivered frames from 0; ``timestamp`` in
    seconds (the source's clock); ``image`` a BGR uint8 array (H x W x 3)."""

    index: int
    timestamp: float
    image: np.ndarray


@dataclass(frozen=True)
class SourceStatus:
    """What the dashboard shows about the camera: state, a short message, failed reopen attempts."""

    state: SourceState
    message: str = ""
    attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state.value, "message": self.message, "attempts": self.attempts}


@runtime_checkable
class FrameSource(Protocol):
    """Anything the frame loop can read frames from."""

    @property
    def status(self) -> SourceStatus: ...

    def read(self) -> Frame | None:
        """The next frame, or None when none is available now (see :attr:`status`)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` a :class:`CaptureSource` uses (tests pass a fake)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


@dataclass(frozen=True)
class Backoff:
    """Reopen delays: ``first`` seconds, multiplied by ``factor`` after each failure, at most
    ``maximum``. ``lost_after``: failed reads in a row before the device counts as lost."""

    first: float = 0.5
    factor: float = 2.0
    maximum: float = 10.0
    lost_after: int = 3

    def delay(self, attempts: int) -> float:
        return min(self.maximum, self.first * self.factor ** max(0, attempts))


def _cv2_capture(target: int | str) -> Capture:
    import cv2

    return cv2.VideoCapture(target)


class CaptureSource:
    """A webcam index, video file or stream URL read through ``cv2.VideoCapture``.

    ``reconnect``: whether a failed read is a drop-out to survive (camera, URL) or the end of
    the input (video file). ``open_capture`` builds the capture (``cv2.VideoCapture`` by
    default); ``clock`` gives seconds. Reopening never blocks: ``read`` returns None until the
    backoff delay has passed, then tries once.

    ``threaded``: a reader thread owns the capture (opens, reads, releases, reopens it) and
    hands frames over; ``read()`` waits at most ``wait`` seconds for one. A live source keeps
    only the newest frame (old camera frames are worth nothing); a file keeps every frame. A
    read that has not returned after ``stall_after`` seconds shows the source ``LOST``; the
    frames after it put it back to ``OK``. ``close()`` stops the thread; a thread stuck in the
    driver releases the capture itself when the driver lets go (releasing a capture while
    another thread reads from it is not safe in OpenCV).
    """

    def __init__(
        self,
        target: int | str,
        kind: SourceKind,
        open_capture: Callable[[int | str], Capture] = _cv2_capture,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
        threaded: bool = False,
        stall_after: float = 5.0,
        wait: float = 0.2,
    ) -> None:
        self.target = target
        self.kind = kind
        self.reconnect = kind in (SourceKind.CAMERA, SourceKind.URL)
        self._open_capture = open_capture
        self._backoff = backoff
        self._clock = clock
        self._index = 0
        self._failures = 0
        self._attempts = 0
        self._next_try = 0.0
        self._status = SourceStatus(SourceState.OK)
        self._busy_since: float | None = None
        self._cap: Capture | None = open_capture(target)
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            if not self.reconnect:
                raise CompanionError(f"cannot open {kind.value} {target!r}: expected a readable video, got nothing")
            self._status = SourceStatus(SourceState.LOST, f"cannot open {target!r}")
            self._next_try = clock() + backoff.delay(0)
        # a video file carries its own time: frame index / its frame rate, so a file replayed
        # faster or slower than real time still looks the same to tracking
        self.fps: float | None = None
        if kind is SourceKind.FILE and self._cap is not None and hasattr(self._cap, "get"):
            rate = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
            self.fps = rate if 1.0 <= rate <= 240.0 else 15.0
        # the hand-over between the reader thread and the caller (threaded mode only)
        self._stall_after = stall_after
        self._wait = wait
        self._cond = threading.Condition()
        self._slot: tuple[np.ndarray, float] | None = None
        self._finished = False
        self._closed = False
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        if threaded:
            self._reader = threading.Thread(target=self._read_forever, name=f"capture-reader {target!r}", daemon=True)
            self._reader.start()

    @property
    def status(self) -> SourceStatus:
        if self._reader is None or self._closed:
            return self._status
        with self._cond:
            status = self._status
            if status.state is SourceState.ENDED and self._slot is not None:
                return SourceStatus(SourceState.OK)  # the last frames of a file are still to be read
        since = self._busy_since
        if since is not None and status.state is not SourceState.ENDED and self._clock() - since > self._stall_after:
            return SourceStatus(
                SourceState.LOST,
                f"the camera stopped answering (no frame for over {self._stall_after:g} s)",
                status.attempts,
            )
        return status

    def read(self) -> Frame | None:
        if self._reader is None:
            image = self._grab()
            return None if image is None else self._frame(image, self._clock())
        with self._cond:
            ended = self._finished and self._status.state is SourceState.ENDED
            if self._slot is None and not ended and not self._closed:
                self._cond.wait(self._wait)  # never a busy loop, whatever became of the reader
            got, self._slot = self._slot, None
            self._cond.notify_all()  # a file's reader waits for the slot to be free
        return None if got is None or self._closed else self._frame(*got)

    def _grab(self) -> np.ndarray | None:
        """One read (or reopen attempt) of the device; updates the status; the image or None."""
        state = self._status.state
        if state is SourceState.ENDED:
            return None
        if self._cap is None:
            return self._try_reopen()
        try:
            self._busy_since = self._clock()
            ok, image = self._cap.read()
        except Exception:  # noqa: BLE001 - a broken driver raises; treat it as a failed read
            ok, image = False, None
        finally:
            self._busy_since = None
        image = as_bgr(image) if ok else None
        if image is not None:
            return self._delivered(image)
        self._failures += 1
        if not self.reconnect:
            self._release()
            self._status = SourceStatus(SourceState.ENDED, "end of the video")
            return None
        if self._failures >= self._backoff.lost_after:
            self._release()
            self._attempts = 0
            self._next_try = self._clock() + self._backoff.delay(0)
            self._status = SourceStatus(SourceState.LOST, f"no frame from {self.target!r}")
        return None

    def _try_reopen(self) -> np.ndarray | None:
        now = self._clock()
        if now < self._next_try:
            return None
        self._attempts += 1
        self._status = SourceStatus(SourceState.RECONNECTING, f"reopening {self.target!r}", self._attempts)
        cap: Capture | None = None
        try:
            self._busy_since = now
            cap = self._open_capture(self.target)
            ok, image = cap.read() if cap.isOpened() else (False, None)
        except Exception:  # noqa: BLE001 - a device that vanished mid-open
            ok, image = False, None
        finally:
            self._busy_since = None
        image = as_bgr(image) if ok else None
        if image is not None and cap is not None:
            self._cap = cap
            return self._delivered(image)
        if cap is not None:
            cap.release()
        self._next_try = now + self._backoff.delay(self._attempts)
        return None

    def _delivered(self, image: np.ndarray) -> np.ndarray:
        self._failures = 0
        self._attempts = 0
        self._status = SourceStatus(SourceState.OK)
        return image

    def _frame(self, image: np.ndarray, stamp: float) -> Frame:
        frame = Frame(self._index, self._index / self.fps if self.fps else stamp, np.asarray(image))
        self._index += 1
        return frame

    def _read_forever(self) -> None:
        """The reader thread: grab frames and hand them over until closed or the file ends."""
        try:
            while not self._stop.is_set():
                try:
                    image = self._grab()
                except Exception as exc:  # noqa: BLE001 - a driver failing where nothing should fail
                    self._cap = None
                    self._failures = 0
                    self._next_try = self._clock() + self._backoff.delay(0)
                    self._status = SourceStatus(SourceState.LOST, f"camera error: {exc}")
                    image = None
                if image is not None:
                    stamp = self._clock()
                    with self._cond:
                        while not self.reconnect and self._slot is not None and not self._stop.is_set():
                            self._cond.wait(0.5)  # a file: every frame is read, in order
                        self._slot = (image, stamp)
                        self._cond.notify_all()
                elif self._status.state is SourceState.ENDED:
                    return
                elif self._cap is None:  # lost: wait for the next reopen attempt
                    self._stop.wait(min(0.5, max(0.001, self._next_try - self._clock())))
        finally:
            self._release()
            with self._cond:
                self._finished = True
                self._cond.notify_all()

    def _release(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            try:
                cap.release()
            except Exception:  # noqa: BLE001 - a broken driver; the handle is given up either way
                pass

    def close(self) -> None:
        if self._reader is not None:
            self._stop.set()
            with self._cond:
                self._closed = True
                self._slot = None
                self._cond.notify_all()
            # a reader stuck in the driver cannot be joined; it releases the capture on its own
            self._reader.join(timeout=1.0)
        else:
            self._release()
        self._status = SourceStatus(SourceState.ENDED, "closed")

    @property
    def reader_alive(self) -> bool:
        """Whether the reader thread still runs (False without one)."""
        return self._reader is not None and self._reader.is_alive()


def as_bgr(image: Any) -> np.ndarray | None:
    """A frame as a BGR uint8 H x W x 3 array (gray and BGRA converted), or None for garbage
    (not an array, wrong dtype, empty, or a shape no camera delivers)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.size == 0:
        return None
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        return np.ascontiguousarray(np.repeat(image.reshape(image.shape[0], image.shape[1], 1), 3, axis=2))
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    if image.ndim == 3 and image.shape[2] == 3 and min(image.shape[:2]) > 0:
        return image
    return None


def _natural_key(path: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class FolderSource:
    """The image files of a folder, in natural name order (``img2`` before ``img10``).

    A file that cannot be decoded, or whose header declares more than
    :data:`vision.io.MAX_PIXELS`, is skipped (counted in ``skipped``); after the last file the
    state is ``ENDED``. ``fps`` sets the timestamps (index / fps).
    """

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CompanionError(f"expected a folder of images, got {str(folder)!r}")
        self.files = sorted(
            (p for p in self.folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
            key=_natural_key,
        )
        if not self.files:
            raise CompanionError(
                f"{self.folder}: expected image files ({', '.join(IMAGE_SUFFIXES)}), got none"
            )
        self.fps = fps
        self.skipped = 0
        self._pos = 0
        self._index = 0
        self._status = SourceStatus(SourceState.OK)

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self) -> Frame | None:
        import cv2

        from vision.io import MAX_PIXELS, declared_size

        while self._pos < len(self.files):
            path = self.files[self._pos]
            self._pos += 1
            size = declared_size(path)  # from the header: a small file can declare a huge image
            image = None if size is None or size[0] * size[1] > MAX_PIXELS else cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.skipped += 1
                continue
            frame = Frame(self._index, self._index / self.fps, image)
            self._index += 1
            return frame
        self._status = SourceStatus(SourceState.ENDED, f"all {len(self.files)} images read")
        return None

    def close(self) -> None:
        self._pos = len(self.files)
        self._status = SourceStatus(SourceState.ENDED, "closed")


class BlankSource:
    """A plain dark frame at every read (for simulated games that have no camera)."""

    def __init__(self, width: int = 640, height: int = 360, clock: Callable[[], float] = time.monotonic) -> None:
        self._image = np.full((height, width, 3), 32, np.uint8)
        self._clock = clock
        self._index = 0
        self._status = SourceStatus(SourceState.OK, "no camera: simulated game")

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self) -> Frame | None:
        if self._status.state is SourceState.ENDED:
            return None
        frame = Frame(self._index, self._clock(), self._image.copy())
        self._index += 1
        return frame

    def close(self) -> None:
        self._status = SourceStatus(SourceState.ENDED, "closed")


_URL_RE = re.compile(r"^(rtsp|rtsps|http|https|rtmp|udp|tcp)://", re.IGNORECASE)


def classify(spec: str) -> tuple[SourceKind, int | str]:
    """What ``--source`` names: a camera index (``0``), a URL, a folder or a video file."""
    text = spec.strip()
    if text.isdigit():
        return SourceKind.CAMERA, int(text)
    if _URL_RE.match(text):
        return SourceKind.URL, text
    path = Path(text)
    if path.is_dir():
        return SourceKind.FOLDER, text
    if path.is_file():
        return SourceKind.FILE, text
    raise CompanionError(
        f"--source: expected a camera index, a video file, a folder of images or an rtsp/http URL, got {spec!r}"
    )


def open_source(spec: str, backoff: Backoff = Backoff()) -> FrameSource:
    """Open the source ``--source`` names (see :func:`classify`). Cameras and streams get a
    reader thread, so a stalled driver never blocks the caller; files are read in its thread."""
    kind, target = classify(spec)
    if kind is SourceKind.FOLDER:
        return FolderSource(target)
    return CaptureSource(target, kind, backoff=backoff, threaded=kind is not SourceKind.FILE)


def frames(source: FrameSource, idle: float = 0.01, sleep: Callable[[float], None] = time.sleep) -> Iterator[Frame]:
    """Every frame of ``source`` until it ends, waiting ``idle`` seconds whenever none is ready."""
    while source.status.state is not SourceState.ENDED:
        frame = source.read()
        if frame is None:
            if source.status.state is not SourceState.ENDED:
                sleep(idle)
            continue
        yield frame


class PacedSource:
    """Delivers a recorded source's frames no faster than their own timestamps (real time), so a
    video shown on the dashboard plays at its speed; ``speed`` > 1 plays faster."""

    def __init__(self, source: FrameSource, speed: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        if speed <= 0:
            raise CompanionError(f"speed: expected a positive factor, got {speed}")
        self.source = source
        self.speed = speed
        self._clock = clock
        self._sleep = sleep
        self._start: float | None = None

    @property
    def status(self) -> SourceStatus:
        return self.source.status

    def read(self) -> Frame | None:
        frame = self.source.read()
        if frame is None:
            return None
        now = self._clock()
        if self._start is None:
            self._start = now - frame.timestamp / self.speed
        wait = self._start + frame.timestamp / self.speed - now
        if wait > 0:
            self._sleep(wait)
        return frame

    def close(self) -> None:
        self.source.close()
