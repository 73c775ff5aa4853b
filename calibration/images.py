"""Reading calibration input: single images, image folders, videos and cameras.

Every failure (missing file, unreadable data, empty image, a camera that gives no frames) is a
:class:`CalibrationError` whose message names the path or source and what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import CalibrationError

MAX_PIXELS = 40_000_000
"""Largest image read (pixels), checked from the header: a small file can declare a huge image."""

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def read_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Load an image file as a 3-channel BGR ``uint8`` array."""
    p = Path(path)
    if not p.exists():
        raise CalibrationError(f"{p}: expected an image file, but no such file exists")
    if p.is_dir():
        raise CalibrationError(f"{p}: expected an image file, got a directory")
    _check_pixels(p)
    data = np.fromfile(str(p), dtype=np.uint8)
    if data.size == 0:
        raise CalibrationError(f"{p}: expected an image file, got an empty file")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise CalibrationError(f"{p}: expected an image (PNG, JPEG, ...), got data no decoder can read")
    return image


def _check_pixels(path: Path, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse an image whose header declares more than ``max_pixels`` before decoding it."""
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(path) as img:
                width, height = img.size
    except Image.DecompressionBombError as exc:
        raise CalibrationError(f"{path}: expected at most {max_pixels} pixels, got a larger image ({exc})") from None
    except Exception:  # noqa: BLE001 - not for PIL to judge: OpenCV decides below
        return
    if width * height > max_pixels:
        raise CalibrationError(f"{path}: expected at most {max_pixels} pixels, got {width}x{height}")


def image_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The image files directly inside ``folder``, sorted by name."""
    d = Path(folder)
    if not d.is_dir():
        raise CalibrationError(f"{d}: expected a directory of images, but it is not a directory")
    files = sorted(f for f in d.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise CalibrationError(f"{d}: expected image files ({', '.join(sorted(IMAGE_SUFFIXES))}), found none")
    return files


def iter_frames(source: str, limit: int) -> Iterator[np.ndarray]:
    """Yield up to ``limit`` BGR frames from a source.

    ``source`` is a camera index (``"0"``), a directory of images, an image file, or a video
    file or stream URL that OpenCV can open.
    """
    if limit < 1:
        raise CalibrationError(f"frame limit must be at least 1, got {limit}")
    path = Path(source)
    if path.is_dir():
        for f in image_files(path)[:limit]:
            yield read_image(f)
        return
    if path.suffix.lower() in IMAGE_SUFFIXES:
        yield read_image(path)
        return
    capture_arg: int | str = int(source) if source.isdigit() else source
    if isinstance(capture_arg, str) and "://" not in source and not path.exists():
        raise CalibrationError(f"{source}: expected a camera index, an image, a folder or a video, but no such file exists")
    cap = cv2.VideoCapture(capture_arg)
    try:
        if not cap.isOpened():
            raise CalibrationError(f"{source}: expected a camera or video OpenCV can open, but opening it failed")
        got = 0
        while got < limit:
            ok, frame = cap.read()
            if not ok or frame is None or frame.size == 0:
                break
            got += 1
            yield frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        if got == 0:
            raise CalibrationError(f"{source}: expected video frames, got none")
    finally:
        cap.release()


def to_gray(image: np.ndarray) -> np.ndarray:
    """A single-channel ``uint8`` view of a BGR or gray image."""
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    raise CalibrationError(f"expected a gray or BGR image, got an array of shape {image.shape}")
