"""Loading image files into BGR uint8 frames, refusing bad input with a clear message.

Every problem ends in one :class:`~vision.errors.ImageLoadError` whose message is one line:
the path, what was expected and what was got. Nothing else escapes :func:`load_image`, whatever
the bytes in the file: decoders are fed untrusted data, so any exception they raise counts as a
damaged file. Memory is bounded: the pixel count is read from the header and checked against
``max_pixels`` before any pixel is decoded, and only a small set of common formats is decoded at
all (no PostScript, no exotic containers).
"""

from __future__ import annotations

import logging
import os
import stat
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.errors import ImageLoadError

# PIL logs some damaged-file findings at ERROR level before raising; with no logging set up,
# Python would print them on stderr next to our one-line error. The raised error says enough.
logging.getLogger("PIL").addHandler(logging.NullHandler())

MIN_SIDE = 32
"""Smallest accepted width or height in pixels; anything smaller cannot show a card."""

MAX_PIXELS = 40_000_000
"""Default largest accepted image (pixels): a 40 MP photo; decoding it needs about 0.5 GB."""

FORMATS = ("JPEG", "PNG", "BMP", "TIFF", "WEBP", "GIF", "PPM")
"""The PIL formats :func:`load_image` decodes; anything else is refused as not an image."""


def load_image(path: str | os.PathLike[str], max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Read an image file as a BGR uint8 array of shape (height, width, 3).

    The size is read from the file header and checked against ``max_pixels`` before any pixel
    is decoded, so a decompression bomb is refused without allocating it. Grayscale, palette,
    CMYK, 16-bit, float and alpha images are converted (alpha is dropped, 16-bit is scaled to
    8-bit); EXIF orientation is applied. Raises :class:`ImageLoadError` for a missing file, a
    directory or other non-regular file (FIFO, device), an empty, unreadable, damaged or
    truncated file, a format outside :data:`FORMATS`, an image smaller than 32 px a side or one
    with more than ``max_pixels`` pixels.
    """
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise ImageLoadError(p, "expected an image file, but no such file exists") from None
    except NotADirectoryError:
        raise ImageLoadError(p, "expected an image file, but a parent of this path is a file, not a folder") from None
    except OSError as exc:
        raise ImageLoadError(p, f"expected a readable file, got {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ImageLoadError(p, "expected an image file, got a directory")
    if not stat.S_ISREG(info.st_mode):
        raise ImageLoadError(p, f"expected a regular image file, got a {_file_type(info.st_mode)}")
    if info.st_size == 0:
        raise ImageLoadError(p, "expected an image, got an empty file (0 bytes)")
    try:
        fh = open(p, "rb")
    except OSError as exc:
        raise ImageLoadError(p, f"expected a readable file, got {exc.strerror or exc}") from None
    with fh:
        return _decode(p, fh, max_pixels)


def declared_size(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The (width, height) a regular image file's header declares, without decoding pixels;
    None when the file is not a regular file or not an image in :data:`FORMATS`."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with open(p, "rb") as fh, Image.open(fh, formats=FORMATS) as img:
                return img.size
    except Image.DecompressionBombError:
        return (2**31 - 1, 2**31 - 1)  # PIL itself found it far too large
    except Exception:  # noqa: BLE001 - any decoder error: no size to tell
        return None


def _decode(p: Path, fh: object, max_pixels: int) -> np.ndarray:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # decoders warn about damaged metadata on stderr
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(fh, formats=FORMATS) as img:  # type: ignore[arg-type]
                width, height = img.size
                _check_size(p, width, height, max_pixels)
                img.load()
                frame = _to_bgr(p, ImageOps.exif_transpose(img))
    except ImageLoadError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageLoadError(p, f"expected at most {max_pixels} pixels, got a larger image ({exc})") from None
    except UnidentifiedImageError:
        raise ImageLoadError(
            p, f"expected an image ({', '.join(FORMATS)}), got a file in no known image format"
        ) from None
    except MemoryError:
        raise ImageLoadError(p, "expected an image that fits in memory, got one too large to decode") from None
    except Exception as exc:  # noqa: BLE001 - decoders raise many types on damaged data
        detail = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise ImageLoadError(p, f"expected a complete image, got a damaged or truncated file ({detail})") from None
    return frame


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _check_size(path: Path, width: int, height: int, max_pixels: int) -> None:
    if width < MIN_SIDE or height < MIN_SIDE:
        raise ImageLoadError(path, f"expected at least {MIN_SIDE}x{MIN_SIDE} pixels, got {width}x{height}")
    if width * height > max_pixels:
        raise ImageLoadError(path, f"expected at most {max_pixels} pixels, got {width}x{height} = {width * height}")


def _to_bgr(path: Path, img: Image.Image) -> np.ndarray:
    """Convert a loaded PIL image of any common mode to a contiguous BGR uint8 array."""
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        arr = np.asarray(img)
        if arr.dtype.kind == "f":
            finite = np.isfinite(arr)
            lo = float(arr[finite].min()) if finite.any() else 0.0
            hi = float(arr[finite].max()) if finite.any() else 0.0
            scaled = (np.nan_to_num(arr, nan=lo, posinf=hi, neginf=lo) - lo) * (255.0 / (hi - lo)) if hi > lo else np.zeros(arr.shape)
            gray = np.clip(np.rint(scaled), 0, 255).astype(np.uint8)
        elif arr.max(initial=0) > 255 or arr.min(initial=0) < 0:
            wide = np.clip(arr, 0, 65535).astype(np.uint32)
            gray = ((wide + 128) // 257).astype(np.uint8)  # 16-bit to 8-bit, rounded
        else:
            gray = arr.astype(np.uint8)
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    if mode != "RGB":
        img = img.convert("RGB")
    rgb = np.asarray(img, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ImageLoadError(path, f"expected 3 colour channels after conversion, got shape {rgb.shape}")
    return np.ascontiguousarray(rgb[:, :, ::-1])
