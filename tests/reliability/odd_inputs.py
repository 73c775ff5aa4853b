"""Odd input files for the reading API and the read/score/timeline commands.

Shared by the short property tests (``tests/reliability``) and the long run
(``scripts/fuzz_inputs.py``). An :class:`OddInput` is a recipe: a kind, a file suffix and the
bytes to write (or a special file-system object: a directory, a FIFO, a path under a regular
file, a missing path). :func:`odd_inputs` is a hypothesis strategy over such recipes;
:func:`materialise` turns one into a path; :func:`classify_reading` and :func:`classify_cli`
run the code under test and name the outcome, so a caller can count outcomes instead of failing
at the first surprise.
"""

from __future__ import annotations

import contextlib
import enum
import io
import os
import struct
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hypothesis import strategies as st
from PIL import Image

SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".webp", ".gif", ".txt", "")
ENCODINGS = ("JPEG", "PNG", "BMP", "TIFF", "WEBP", "GIF")
MODES = ("1", "L", "LA", "P", "RGB", "RGBA", "CMYK", "I;16", "I", "F")
BOMB_SIDES = (20_000, 65_535, 100_000)


class Special(enum.Enum):
    """File-system objects that are not regular files with bytes in them."""

    NONE = "none"
    DIRECTORY = "directory"
    FIFO = "fifo"  # stands in for an unreadable file: we run as root, so chmod 000 does not bite
    UNDER_FILE = "under-file"  # a path inside a regular file: ENOTDIR
    MISSING = "missing"


@dataclass(frozen=True)
class OddInput:
    """One generated input: ``kind`` describes how it was made (for counting)."""

    kind: str
    suffix: str
    data: bytes = b""
    special: Special = Special.NONE


class Outcome(enum.Enum):
    """What the code under test did with one input."""

    READ = "read"  # a FrameResult (possibly with no cards)
    REFUSED = "refused"  # a one-line VisionError / CompanionError
    CRASH = "crash"  # any other exception, a traceback, or a multi-line error


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    detail: str
    seconds: float


# -- building image bytes --------------------------------------------------------------------------


def encode(mode: str, width: int, height: int, fmt: str, seed: int) -> bytes | None:
    """An image of ``mode`` and size encoded as ``fmt`` (None when PIL cannot write that pair)."""
    rng = np.random.default_rng(seed)
    rgb = Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8), "RGB")
    if mode in ("I;16", "I"):
        img = Image.fromarray(rng.integers(0, 65536, (height, width), dtype=np.uint16).astype(np.int32), "I")
        if mode == "I;16":
            img = img.convert("I;16")
    elif mode == "F":
        img = Image.fromarray(rng.standard_normal((height, width)).astype(np.float32), "F")
    elif mode == "P":
        img = rgb.quantize(colors=16)
    else:
        img = rgb.convert(mode)
    buf = io.BytesIO()
    try:
        img.save(buf, fmt)
    except (OSError, ValueError, KeyError):
        return None
    return buf.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def bomb(fmt: str, width: int, height: int) -> bytes:
    """A header declaring ``width`` x ``height`` pixels with almost no pixel data behind it."""
    if fmt == "PNG":
        ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr)
                + _png_chunk(b"IDAT", zlib.compress(b"\x00" * 4096)) + _png_chunk(b"IEND", b""))
    if fmt == "JPEG":
        real = encode("RGB", 16, 16, "JPEG", 0)
        assert real is not None
        at = real.index(b"\xff\xc0") + 5  # SOF0: length(2) precision(1) height(2) width(2)
        return real[:at] + struct.pack(">HH", min(height, 65535), min(width, 65535)) + real[at + 4:]
    if fmt == "BMP":
        header = struct.pack("<2sIHHI", b"BM", 54 + 16, 0, 0, 54)
        info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 16, 2835, 2835, 0, 0)
        return header + info + b"\x00" * 16
    if fmt == "GIF":
        w, h = min(width, 65535), min(height, 65535)
        return (b"GIF89a" + struct.pack("<HHBBB", w, h, 0, 0, 0) + b"\x2c"
                + struct.pack("<HHHHB", 0, 0, w, h, 0) + b"\x02\x02\x44\x01\x00\x3b")
    raise ValueError(f"no bomb recipe for {fmt}")


def valid_bomb(width: int, height: int) -> bytes:
    """A complete, valid black RGB PNG of ``width`` x ``height``: tiny on disk, huge decoded."""
    packer = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * width)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", data) + _png_chunk(b"IEND", b"")


def mutate(data: bytes, rng: np.random.Generator, how: str) -> bytes:
    """Damage encoded bytes: truncate, flip bytes, or splice random bytes in."""
    if not data:
        return data
    if how == "truncate":
        return data[: int(rng.integers(0, len(data)))]
    buf = bytearray(data)
    if how == "flip":
        for _ in range(int(rng.integers(1, 9))):
            buf[int(rng.integers(0, len(buf)))] = int(rng.integers(0, 256))
        return bytes(buf)
    at = int(rng.integers(0, len(buf)))
    return bytes(buf[:at]) + rng.integers(0, 256, int(rng.integers(1, 64)), dtype=np.uint8).tobytes() + bytes(buf[at:])


# -- the strategy ----------------------------------------------------------------------------------


@st.composite
def _image_input(draw: st.DrawFn) -> OddInput:
    fmt = draw(st.sampled_from(ENCODINGS))
    mode = draw(st.sampled_from(MODES))
    shape = draw(st.sampled_from(("1x1", "1xN", "Nx1", "small", "normal")))
    n = draw(st.integers(2, 400))
    width, height = {"1x1": (1, 1), "1xN": (1, n), "Nx1": (n, 1), "small": (n % 40 + 2, n % 31 + 2),
                     "normal": (n + 32, 32 + (n * 7) % 300)}[shape]
    data = encode(mode, width, height, fmt, draw(st.integers(0, 2**16)))
    if data is None:
        data = encode("RGB", width, height, fmt, 0) or b""
        mode = "RGB"
    damage = draw(st.sampled_from(("none", "none", "truncate", "flip", "splice")))
    if damage != "none":
        data = mutate(data, np.random.default_rng(draw(st.integers(0, 2**32 - 1))), damage)
    suffix = draw(st.sampled_from(SUFFIXES))
    return OddInput(f"{fmt.lower()}-{mode}-{shape}-{damage}", suffix, data)


@st.composite
def _bomb_input(draw: st.DrawFn) -> OddInput:
    fmt = draw(st.sampled_from(("PNG", "JPEG", "BMP", "GIF")))
    side = draw(st.sampled_from(BOMB_SIDES))
    return OddInput(f"bomb-{fmt.lower()}", draw(st.sampled_from(SUFFIXES)), bomb(fmt, side, side))


def _text_input() -> st.SearchStrategy[OddInput]:
    return st.text(max_size=200).map(lambda t: OddInput("text-named-jpg", ".jpg", t.encode("utf-8")))


def odd_inputs() -> st.SearchStrategy[OddInput]:
    """Every kind of odd input the issue lists, mixed."""
    return st.one_of(
        st.just(OddInput("zero-bytes", ".jpg")),
        st.binary(min_size=1, max_size=2048).map(lambda b: OddInput("random-bytes", ".jpg", b)),
        st.binary(min_size=0, max_size=512).map(
            lambda b: OddInput("magic-then-random", ".png", b"\x89PNG\r\n\x1a\n" + b)),
        st.binary(min_size=0, max_size=512).map(lambda b: OddInput("jpeg-soi-then-random", ".jpg", b"\xff\xd8\xff" + b)),
        _text_input(),
        _image_input(),
        _image_input(),
        _image_input(),
        _bomb_input(),
        st.sampled_from([OddInput(s.value, ".jpg", special=s) for s in Special if s is not Special.NONE]),
    )


def materialise(item: OddInput, folder: Path, name: str = "input") -> Path:
    """Create ``item`` in ``folder`` and return the path to hand to the code under test."""
    path = folder / f"{name}{item.suffix}"
    if item.special is Special.DIRECTORY:
        path.mkdir()
    elif item.special is Special.FIFO:
        os.mkfifo(path)
    elif item.special is Special.UNDER_FILE:
        folder.joinpath(f"{name}-file").write_bytes(b"plain")
        path = folder / f"{name}-file" / f"inner{item.suffix}"
    elif item.special is Special.NONE:
        path.write_bytes(item.data)
    return path


def clear(folder: Path) -> None:
    """Remove what :func:`materialise` created in ``folder`` (files, FIFOs, empty folders)."""
    for p in folder.iterdir():
        if p.is_dir() and not p.is_symlink():
            p.rmdir()
        else:
            p.unlink()


# -- running the code under test -------------------------------------------------------------------


def _one_line(text: str) -> bool:
    text = text.strip()
    return bool(text) and "\n" not in text and "Traceback" not in text


def classify_reading(path: Path, reader: object) -> Result:
    """``load_image`` then ``reader.read_frame``; a VisionError with a one-line message is REFUSED."""
    from vision.errors import VisionError
    from vision.io import load_image

    start = time.perf_counter()
    noise = io.StringIO()
    try:
        with contextlib.redirect_stderr(noise):
            image = load_image(path)
            result = reader.read_frame(image)  # type: ignore[attr-defined]
    except VisionError as exc:
        if noise.getvalue():
            return Result(Outcome.CRASH, f"wrote to stderr: {noise.getvalue()[:120]!r}", time.perf_counter() - start)
        ok = _one_line(str(exc))
        return Result(Outcome.REFUSED if ok else Outcome.CRASH, f"{type(exc).__name__}", time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - anything else is what we are looking for
        return Result(Outcome.CRASH, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    if noise.getvalue():
        return Result(Outcome.CRASH, f"wrote to stderr: {noise.getvalue()[:120]!r}", time.perf_counter() - start)
    return Result(Outcome.READ, f"{len(result.observations)} cards", time.perf_counter() - start)


def classify_cli(argv: list[str]) -> Result:
    """Run ``companion`` in-process; exit 0 with JSON is READ, exit 2 with one stderr line REFUSED."""
    import json

    from companion.cli import main

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:  # noqa: BLE001
        return Result(Outcome.CRASH, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if code == 0:
        try:
            data = json.loads(out.getvalue())
        except ValueError:
            return Result(Outcome.CRASH, "exit 0 without JSON", seconds)
        if not isinstance(data, dict) or "cards" not in data or "image" not in data:
            return Result(Outcome.CRASH, f"exit 0, JSON without image/cards: {out.getvalue()[:80]}", seconds)
        return Result(Outcome.READ, f"{len(data['cards'])} cards", seconds)
    if code == 2 and _one_line(err.getvalue()) and err.getvalue().startswith("companion: error: "):
        return Result(Outcome.REFUSED, "exit 2", seconds)
    return Result(Outcome.CRASH, f"exit {code}, stderr {err.getvalue()[:200]!r}", seconds)
