"""Line mutations of the bundled data files, and the loaders they are fed to.

Shared by ``tests/reliability/test_data_files.py`` (short run) and ``scripts/fuzz_inputs.py``
(long run). A :class:`Mutation` changes one bundled file (deck, catalogue, board, income cards,
calibration profile, marker sheet layout) a little: a line deleted, duplicated, swapped, replaced
by random text, a character changed, the file cut short or spoiled with bytes that are not
UTF-8. :func:`check_loader` feeds the result to the file's loader and names the outcome.
"""

from __future__ import annotations

import enum
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

from companion.games.base import samples_dir


class DataKind(enum.Enum):
    DECK = "deck"
    CATALOGUE = "catalogue"
    BOARD = "board"
    INCOME = "income"
    PROFILE = "profile"
    SHEET = "sheet"


class Edit(enum.Enum):
    DELETE = "delete"
    DUPLICATE = "duplicate"
    SWAP = "swap"
    REPLACE = "replace"
    CHARACTER = "character"
    TRUNCATE = "truncate"
    BINARY = "binary"
    EMPTY = "empty"


@dataclass(frozen=True)
class Mutation:
    kind: DataKind
    edit: Edit
    a: int  # a line (or byte) position, reduced modulo the file's size
    b: int
    text: str


class DataOutcome(enum.Enum):
    LOADED = "loaded"  # the mutation left a valid file
    ERROR_WITH_LINE = "error naming file and line"
    ERROR_FILE_ONLY = "error naming the file (whole-file problem)"
    CRASH = "crash"  # another exception, or an error that does not name the file


@dataclass(frozen=True)
class DataResult:
    outcome: DataOutcome
    detail: str
    seconds: float


def _profile_text() -> str:
    from calibration.lens import LensCalibration
    from calibration.profile import Profile
    from calibration.table import calibrate_from_points

    table = calibrate_from_points([[10, 10], [300, 20], [310, 200], [5, 190]], 600, 400, (320, 240))
    lens = LensCalibration(640, 480, ((600.0, 0.0, 320.0), (0.0, 600.0, 240.0), (0.0, 0.0, 1.0)),
                           (0.01, -0.02, 0.0, 0.0), 0.3, 12, "chessboard 9x6 25mm")
    return json.dumps(Profile(table=table, lens=lens).to_json(), indent=2) + "\n"


def _sheet_text() -> str:
    from calibration.markers import DEFAULT_SHEET

    return json.dumps({"dpi": 300, **DEFAULT_SHEET.to_json()}, indent=2) + "\n"


def original(kind: DataKind) -> str:
    """The valid text a mutation starts from (the bundled file, or a freshly written profile)."""
    files = {
        DataKind.DECK: "decks/gladiola.csv",
        DataKind.CATALOGUE: "catalogues/valais.csv",
        DataKind.BOARD: "boards/via-appia.txt",
        DataKind.INCOME: "decks/appia-income.csv",
    }
    if kind in files:
        return (samples_dir() / files[kind]).read_text(encoding="utf-8")
    return _profile_text() if kind is DataKind.PROFILE else _sheet_text()


_ORIGINALS: dict[DataKind, str] = {}


def apply(m: Mutation) -> bytes:
    """The mutated file's bytes."""
    if m.kind not in _ORIGINALS:
        _ORIGINALS[m.kind] = original(m.kind)
    text = _ORIGINALS[m.kind]
    lines = text.splitlines(keepends=True)
    i, j = m.a % len(lines), m.b % len(lines)
    if m.edit is Edit.DELETE:
        del lines[i]
    elif m.edit is Edit.DUPLICATE:
        lines.insert(j, lines[i])
    elif m.edit is Edit.SWAP:
        lines[i], lines[j] = lines[j], lines[i]
    elif m.edit is Edit.REPLACE:
        lines[i] = m.text + "\n"
    elif m.edit is Edit.CHARACTER:
        line = lines[i]
        k = m.b % max(1, len(line))
        lines[i] = line[:k] + m.text[:1] + line[k + 1:]
    elif m.edit is Edit.TRUNCATE:
        data = text.encode("utf-8")
        return data[: m.a % len(data)]
    elif m.edit is Edit.BINARY:
        data = text.encode("utf-8")
        k = m.a % len(data)
        return data[:k] + b"\xff\xfe\xc3" + data[k:]
    elif m.edit is Edit.EMPTY:
        return b""
    return "".join(lines).encode("utf-8", errors="surrogatepass")


def mutations() -> st.SearchStrategy[Mutation]:
    return st.builds(
        Mutation,
        st.sampled_from(list(DataKind)),
        st.sampled_from(list(Edit)),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
        st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=60)
        | st.sampled_from(["", ",", ",,,", "#", "city", "link a b", "space x y large", "1,2", "{", "]", "null",
                           "\"version\": 2,", "\"table\": 5,", "[[[[", "1e999", "-1", "\x00"]),
    )


def _loaders() -> dict[DataKind, tuple[Callable[[Path], object], type[Exception], str]]:
    from calibration.errors import CalibrationError
    from calibration.markers import read_sheet
    from calibration.profile import load_profile
    from companion.errors import DataFileError
    from companion.games.appia import load_board, load_income_cards
    from companion.games.gladiola import load_deck
    from companion.games.valais import load_catalogue

    return {
        DataKind.DECK: (load_deck, DataFileError, "deck.csv"),
        DataKind.CATALOGUE: (load_catalogue, DataFileError, "catalogue.csv"),
        DataKind.BOARD: (load_board, DataFileError, "board.txt"),
        DataKind.INCOME: (load_income_cards, DataFileError, "income.csv"),
        DataKind.PROFILE: (lambda p: load_profile(p.parent), CalibrationError, "profile.json"),
        DataKind.SHEET: (read_sheet, CalibrationError, "sheet.json"),
    }


def check_loader(m: Mutation, folder: Path) -> DataResult:
    """Write the mutated file into ``folder`` and load it with its loader."""
    loader, expected, name = _loaders()[m.kind]
    path = folder / name
    path.write_bytes(apply(m))
    start = time.perf_counter()
    try:
        loader(path)
    except expected as exc:
        seconds = time.perf_counter() - start
        message = str(exc)
        if str(path) not in message or "\n" in message:
            return DataResult(DataOutcome.CRASH, f"error does not name the file on one line: {message!r}", seconds)
        line = getattr(exc, "line", None)
        if line is None and m.kind in (DataKind.PROFILE, DataKind.SHEET):
            line = _json_line(message, str(path))
        if line is not None:
            total = max(1, apply(m).count(b"\n") + 1)
            if not 1 <= line <= total:
                return DataResult(DataOutcome.CRASH, f"line {line} outside 1..{total}: {message!r}", seconds)
            return DataResult(DataOutcome.ERROR_WITH_LINE, type(exc).__name__, seconds)
        return DataResult(DataOutcome.ERROR_FILE_ONLY, type(exc).__name__, seconds)
    except Exception as exc:  # noqa: BLE001 - what we are looking for
        return DataResult(DataOutcome.CRASH, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    return DataResult(DataOutcome.LOADED, "", time.perf_counter() - start)


def _json_line(message: str, path: str) -> int | None:
    """The line a JSON file's error names (``at line N`` or ``PATH:N:``), if any."""
    import re

    found = re.search(r"line (\d+) column", message) or re.search(re.escape(path) + r":(\d+)", message)
    return int(found.group(1)) if found else None
