"""Loading image files into BGR uint8 frames, refusing bad input with a clear message."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.errors import ImageLoadError

MIN_SIDE = 32
"""Smallest accepted width or height in pixels; anything smaller cannot show a card."""


def load_image(path: str | os.PathLike[str], max_pixels: int = 40_000_000) -> np.ndarray:
    """Read an image file as a BGR uint8 array of shape (height, width, 3).

    The size is read from the file header and checked against ``max_pixels`` before any pixel
    is decoded, so a decompression bomb is refused without allocating it. Grayscale, palette,
    16-bit and alpha images are converted (alpha is dropped, 16-bit is scaled to 8-bit); EXIF
    orientation is applied. Raises :class:`ImageLoadError` for a missing file, a directory, an
    empty, unreadable or truncated file, an image smaller than 32 px a side or too many pixels.
    """
    p = Path(path)
    if not p.exists():
        raise ImageLoadError(p, "expected an image file, but no such file exists")
    if p.is_dir():
        raise ImageLoadError(p, "expected an image file, got a directory")
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ImageLoadError(p, f"expected a readable file, got {exc.strerror or exc}") from exc
    if size == 0:
        raise ImageLoadError(p, "expected an image, got an empty file (0 bytes)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(p) as img:
                width, height = img.size
                _check_size(p, width, height, max_pixels)
                img.load()
                frame = _to_bgr(p, ImageOps.exif_transpose(img))
    except ImageLoadError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageLoadError(p, f"expected at most {max_pixels} pixels, got a larger image ({exc})") from exc
    except UnidentifiedImageError as exc:
        raise ImageLoadError(p, "expected an image (JPEG, PNG, ...), got a file in no known image format") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageLoadError(p, f"expected a complete image, got a damaged or truncated file ({exc})") from exc
    return frame


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
        if mode == "F" or arr.dtype.kind == "f":
            lo, hi = float(np.nanmin(arr)), float(np.nanmax(arr))
            arr = (arr - lo) / (hi - lo) * 255.0 if hi > lo else np.zeros_like(arr)
        elif arr.max(initial=0) > 255:
            arr = arr.astype(np.float64) / 257.0
        gray = np.clip(np.rint(arr), 0, 255).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    if mode != "RGB":
        img = img.convert("RGB")
    rgb = np.asarray(img, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ImageLoadError(path, f"expected 3 colour channels after conversion, got shape {rgb.shape}")
    return np.ascontiguousarray(rgb[:, :, ::-1])
