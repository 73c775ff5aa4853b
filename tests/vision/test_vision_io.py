"""load_image: every kind of bad input is refused with ImageLoadError; odd formats convert."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageLoadError, VisionError
from vision.io import load_image


def _png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG whose header claims a huge size, with almost no pixel data (a decompression bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def _make(kind: str, tmp: Path) -> Path:
    p = tmp / f"{kind}.png"
    if kind == "missing":
        return tmp / "nope.png"
    if kind == "directory":
        d = tmp / "adir.png"
        d.mkdir()
        return d
    if kind == "empty":
        p.write_bytes(b"")
    elif kind == "text":
        p.write_text("this is not an image\n")
    elif kind == "truncated":
        img = (np.random.default_rng(0).random((200, 300, 3)) * 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", img)
        p = tmp / "trunc.jpg"
        p.write_bytes(buf.tobytes()[: len(buf) // 2])
    elif kind == "tiny":
        cv2.imwrite(str(p), np.zeros((1, 1, 3), np.uint8))
    elif kind == "narrow":
        cv2.imwrite(str(p), np.zeros((400, 20, 3), np.uint8))
    elif kind == "bomb":
        _png_header_only(p, 60_000, 60_000)
    return p


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("missing", "no such file"),
        ("directory", "directory"),
        ("empty", "empty file"),
        ("text", "no known image format"),
        ("truncated", "truncated"),
        ("tiny", "got 1x1"),
        ("narrow", "got 20x400"),
        ("bomb", "at most 40000000 pixels"),
    ],
)
def test_bad_files_raise_image_load_error(kind: str, expected: str, tmp_path: Path) -> None:
    path = _make(kind, tmp_path)
    with pytest.raises(ImageLoadError, match=expected) as info:
        load_image(path)
    assert isinstance(info.value, VisionError)
    assert "\n" not in str(info.value)


def test_max_pixels_is_checked_before_decoding(tmp_path: Path) -> None:
    p = tmp_path / "big.png"
    cv2.imwrite(str(p), np.zeros((100, 200, 3), np.uint8))
    assert load_image(p, max_pixels=20_000).shape == (100, 200, 3)
    with pytest.raises(ImageLoadError, match="100"):
        load_image(p, max_pixels=19_999)


@pytest.mark.parametrize("mode", ["L", "LA", "RGBA", "P", "I;16", "RGB"])
def test_modes_convert_to_bgr_uint8(mode: str, tmp_path: Path) -> None:
    rgb = np.zeros((40, 50, 3), np.uint8)
    rgb[:, :25] = (200, 100, 50)
    rgb[:, 25:] = (10, 20, 250)
    base = Image.fromarray(rgb, "RGB")
    p = tmp_path / "m.png"
    if mode == "I;16":
        cv2.imwrite(str(p), np.full((40, 50), 257 * 128, np.uint16))  # 16-bit grayscale PNG
        assert Image.open(p).mode.startswith("I")
        img = None
    elif mode == "P":
        img = base.quantize(colors=4)
    else:
        img = base.convert(mode)
    if img is not None:
        img.save(p)
    out = load_image(p)
    assert out.dtype == np.uint8 and out.shape == (40, 50, 3)
    if mode in ("RGB", "RGBA", "P"):
        assert tuple(out[5, 5]) == (50, 100, 200)  # BGR order
        assert tuple(out[5, 40]) == (250, 20, 10)
    elif mode == "I;16":
        assert np.all(out == 128)
    else:
        assert out[5, 5, 0] == out[5, 5, 1] == out[5, 5, 2]
