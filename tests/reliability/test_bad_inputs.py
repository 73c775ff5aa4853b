"""Odd files fed to load_image + CardReader.read_frame and to `companion read/score/timeline`.

Short property runs (the long one is ``scripts/fuzz_inputs.py``): every input ends in a reading
or a one-line refusal, never another exception, within a bounded time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.reliability.odd_inputs import (
    OddInput, Outcome, Special, bomb, valid_bomb, classify_cli, classify_reading, clear, encode, materialise, odd_inputs,
)
from vision.pipeline import CardReader

SECONDS = 5.0
FAST = settings(max_examples=100, deadline=None, database=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))


def test_reading_api_never_crashes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("odd")
    reader = CardReader()

    @FAST
    @given(odd_inputs())
    def check(item: OddInput):
        clear(folder)
        result = classify_reading(materialise(item, folder), reader)
        assert result.outcome is not Outcome.CRASH, (item.kind, item.suffix, result.detail)
        assert result.seconds < SECONDS, (item.kind, result.seconds)

    check()


@pytest.mark.parametrize("command", [["read"], ["score", "--game", "gladiola"], ["timeline"]])
def test_commands_never_crash(command, tmp_path_factory):
    folder = tmp_path_factory.mktemp("odd")

    @settings(FAST, max_examples=40)
    @given(odd_inputs())
    def check(item: OddInput):
        clear(folder)
        path = materialise(item, folder)
        result = classify_cli([command[0], str(path), *command[1:], "--json"])
        assert result.outcome is not Outcome.CRASH, (item.kind, result.detail)

    check()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "BMP", "GIF"])
def test_bombs_are_refused_before_decoding(fmt, tmp_path):
    path = tmp_path / "bomb.img"
    path.write_bytes(bomb(fmt, 20_000, 20_000))
    result = classify_reading(path, CardReader())
    assert result.outcome is Outcome.REFUSED and result.seconds < 1.0


@pytest.mark.parametrize("special", [s for s in Special if s is not Special.NONE])
def test_special_paths_are_refused(special, tmp_path):
    """A FIFO stands in for an unreadable file (as root chmod 000 does not stop reads); opening a
    FIFO would block, so it must be refused without being opened."""
    path = materialise(OddInput(special.value, ".jpg", special=special), tmp_path)
    result = classify_reading(path, CardReader())
    assert result.outcome is Outcome.REFUSED and result.seconds < 1.0


def test_unreadable_file_is_refused(tmp_path, monkeypatch):
    """Permission denied, simulated (we run as root): ``open`` raises PermissionError."""
    from vision.errors import ImageLoadError
    from vision.io import load_image

    path = tmp_path / "locked.png"
    path.write_bytes(encode("RGB", 40, 40, "PNG", 0) or b"")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", denied)
    with pytest.raises(ImageLoadError, match="expected a readable file, got Permission denied"):
        load_image(path)


WRITABLE = [(m, f) for f in ("PNG", "TIFF", "JPEG", "WEBP") for m in ("L", "LA", "P", "RGB", "RGBA", "CMYK", "I;16", "I", "F", "1")
            if encode(m, 8, 8, f, 0) is not None]


@pytest.mark.parametrize("mode, fmt", WRITABLE)
def test_valid_images_of_any_mode_are_read(mode, fmt, tmp_path):
    path = tmp_path / "ok.img"
    path.write_bytes(encode(mode, 64, 48, fmt, 1) or b"")
    assert classify_reading(path, CardReader()).outcome is Outcome.READ


def test_writable_table_covers_the_issue_list():
    """Grayscale, 16-bit, alpha and CMYK are all among the modes checked above."""
    assert {"L", "I;16", "RGBA", "CMYK"} <= {m for m, _ in WRITABLE}


@pytest.mark.parametrize("item", [
    OddInput("zero-bytes", ".jpg"),
    OddInput("text-named-jpg", ".jpg", b"hello\nworld\n"),
    OddInput("bomb-png", ".png", bomb("PNG", 20_000, 20_000)),
    OddInput("directory", ".jpg", special=Special.DIRECTORY),
])
def test_real_subprocess_gives_one_line_error(item, tmp_path):
    path = materialise(item, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "companion.cli", "read", str(path), "--json"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).parents[2])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("companion: error: ")
    assert "Traceback" not in proc.stderr


@pytest.fixture(scope="module")
def real_bomb(tmp_path_factory) -> Path:
    """A valid 7000 x 7000 PNG (49 M pixels, 147 MB decoded) in well under 1 MB."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.png"
    path.write_bytes(valid_bomb(7000, 7000))
    assert path.stat().st_size < 1_000_000
    return path


def test_valid_bomb_refused_by_every_image_reader(real_bomb, tmp_path):
    """load_image, the calibration reader and the folder frame source all refuse it from the
    header; none decodes it."""
    import shutil
    import time

    from calibration.errors import CalibrationError
    from calibration.images import read_image
    from companion.sources import FolderSource
    from vision.errors import ImageLoadError
    from vision.io import load_image

    start = time.perf_counter()
    with pytest.raises(ImageLoadError, match="at most 40000000 pixels"):
        load_image(real_bomb)
    with pytest.raises(CalibrationError, match="at most 40000000 pixels"):
        read_image(real_bomb)
    shutil.copy(real_bomb, tmp_path / "frame.png")
    source = FolderSource(tmp_path)
    assert source.read() is None and source.skipped == 1
    assert time.perf_counter() - start < 2.0


def test_damaged_tiff_leaves_stderr_alone(tmp_path, monkeypatch):
    """PIL logs 'More samples per pixel ...' at ERROR before raising: nothing may reach stderr
    besides the one-line error (found by the long run)."""
    import struct as st_

    data = bytearray(encode("RGB", 40, 40, "TIFF", 0) or b"")
    entries = st_.unpack_from("<H", data, st_.unpack_from("<I", data, 4)[0])[0]
    start = st_.unpack_from("<I", data, 4)[0] + 2
    for k in range(entries):
        at = start + 12 * k
        if st_.unpack_from("<H", data, at)[0] == 277:  # SamplesPerPixel
            st_.pack_into("<HHII", data, at, 277, 3, 1, 86)
    path = tmp_path / "spp.tif"
    path.write_bytes(bytes(data))
    import logging

    monkeypatch.setattr(logging.root, "handlers", [])  # as in the command line: logging not set up
    result = classify_cli(["read", str(path), "--json"])
    assert result.outcome is Outcome.REFUSED, result.detail
    assert classify_reading(path, CardReader()).outcome is Outcome.REFUSED
