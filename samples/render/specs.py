"""Card specifications: what a card shows, independent of how it is drawn.

A :class:`CardSpec` is the renderer's input for one physical card (or stone tile). Specs come
from the project's data files (``samples/decks``, ``samples/catalogues``) through the small
readers below; Via Appia's road tiles are generated from the published component counts.

Physical sizes (millimetres, portrait, width x height):

* Via Gladiola: 59 x 91 (the rules assume a common German card size).
* Valais*Wallis: 59 x 91. ASSUMPTION: the real size is not published; we use the same common
  size as Via Gladiola.
* Via Appia income cards: 56 x 87 (they fit 57 x 89 mm sleeves).
* Via Appia road tiles: ASSUMPTION, not published. All tiles are 34 mm across the road; their
  length along the road is 1, 2 or 3 units of 24 mm (small 24 x 34, medium 48 x 34,
  large 72 x 34), i.e. lengths in the ratio 1:2:3 like the cart-capacity units of the rules.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from companion.errors import DataFileError

SAMPLES_DIR = Path(__file__).resolve().parent.parent
GLADIOLA_DECK = SAMPLES_DIR / "decks" / "gladiola.csv"
VALAIS_CATALOGUE = SAMPLES_DIR / "catalogues" / "valais.csv"
APPIA_INCOME = SAMPLES_DIR / "decks" / "appia-income.csv"


class Game(Enum):
    """The three supported games."""

    GLADIOLA = "gladiola"
    VALAIS = "valais"
    APPIA = "appia"


class CardKind(Enum):
    """What sort of card (or tile) a spec describes; values match the JSON contract's ``kind``."""

    WALK = "walk"
    FINISH = "finish"
    START = "start"
    GLADIOLA = "gladiola"
    TIMELINE = "timeline"
    INCOME = "income"
    TILE = "tile"


class SizeClass(Enum):
    """Via Appia road tile sizes."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"


class Side(Enum):
    """Which side of a card faces the camera. Only Valais*Wallis cards have two printed sides."""

    FRONT = "front"
    EVENT = "event"
    DATE = "date"


TILE_UNIT_MM = 24.0
TILE_WIDTH_MM = 34.0
TILE_UNITS: dict[SizeClass, int] = {SizeClass.SMALL: 1, SizeClass.MEDIUM: 2, SizeClass.LARGE: 3}
ROAD_TILE_COUNTS: dict[SizeClass, int] = {SizeClass.LARGE: 9, SizeClass.MEDIUM: 13, SizeClass.SMALL: 24}


@dataclass(frozen=True)
class CardSpec:
    """Everything printed on one card or tile.

    Fields that do not apply to a card's game or kind are ``None`` (``joker`` is ``False``).
    ``date`` is ISO text: ``"1865-07-14"`` for a full date or ``"1865"`` for a year only.
    """

    id: str
    game: Game
    kind: CardKind
    value: int | None = None
    blisters: int | None = None
    year: int | None = None
    date: str | None = None
    title: str | None = None
    joker: bool = False
    stones: int | None = None
    sesterces: int | None = None
    size_class: SizeClass | None = None

    def size_mm(self) -> tuple[float, float]:
        """Physical (width, height) of the card in millimetres, portrait orientation."""
        if self.kind is CardKind.TILE:
            if self.size_class is None:
                raise ValueError(f"tile {self.id!r}: expected a size class, got None")
            return (TILE_WIDTH_MM, TILE_UNIT_MM * TILE_UNITS[self.size_class])
        if self.game is Game.APPIA:
            return (56.0, 87.0)
        return (59.0, 91.0)

    def to_json(self) -> dict[str, object]:
        """The spec as a JSON-ready dict (enums as their values)."""
        return {
            "id": self.id,
            "game": self.game.value,
            "kind": self.kind.value,
            "value": self.value,
            "blisters": self.blisters,
            "year": self.year,
            "date": self.date,
            "title": self.title,
            "joker": self.joker,
            "stones": self.stones,
            "sesterces": self.sesterces,
            "size_class": None if self.size_class is None else self.size_class.value,
        }


def _rows(path: Path, header: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Read a CSV file with the given header, skipping blank and ``#`` comment lines.

    Returns (line number, row) pairs. Raises :class:`DataFileError` for a missing file, a wrong
    header or a row with the wrong number of cells.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(path, None, f"expected a readable CSV file, got {exc.strerror}") from exc
    numbered = [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not numbered:
        raise DataFileError(path, None, f"expected header {','.join(header)}, got an empty file")
    parsed = list(csv.reader([line for _, line in numbered]))
    got_header = tuple(cell.strip() for cell in parsed[0])
    if got_header != header:
        raise DataFileError(
            path, numbered[0][0], f"expected header {','.join(header)}, got {','.join(got_header)}"
        )
    rows = []
    for (number, _), cells in zip(numbered[1:], parsed[1:]):
        if len(cells) != len(header):
            raise DataFileError(path, number, f"expected {len(header)} cells, got {len(cells)}")
        rows.append((number, {name: cell.strip() for name, cell in zip(header, cells)}))
    return rows


def _int(path: Path, line: int, name: str, text: str, lo: int, hi: int) -> int:
    """Parse an integer cell within [lo, hi] or raise :class:`DataFileError`."""
    try:
        value = int(text)
    except ValueError:
        raise DataFileError(path, line, f"{name}: expected an integer, got {text!r}") from None
    if not lo <= value <= hi:
        raise DataFileError(path, line, f"{name}: expected {lo}..{hi}, got {value}")
    return value


def _optional_int(path: Path, line: int, name: str, text: str, lo: int, hi: int) -> int | None:
    """Like :func:`_int` but an empty cell gives ``None``."""
    return None if text == "" else _int(path, line, name, text, lo, hi)


def read_gladiola_deck(path: Path = GLADIOLA_DECK) -> tuple[CardSpec, ...]:
    """Read the Via Gladiola deck file (header ``id,kind,value,blisters``)."""
    kinds = {k.value: k for k in (CardKind.WALK, CardKind.FINISH, CardKind.START, CardKind.GLADIOLA)}
    specs = []
    for line, row in _rows(path, ("id", "kind", "value", "blisters")):
        kind = kinds.get(row["kind"])
        if kind is None:
            raise DataFileError(path, line, f"kind: expected one of {sorted(kinds)}, got {row['kind']!r}")
        value = _optional_int(path, line, "value", row["value"], 0, 50)
        if kind is not CardKind.GLADIOLA and value is None:
            raise DataFileError(path, line, f"value: expected a km value for a {kind.value} card, got none")
        specs.append(
            CardSpec(
                id=row["id"],
                game=Game.GLADIOLA,
                kind=kind,
                value=None if kind is CardKind.GLADIOLA else value,
                blisters=_int(path, line, "blisters", row["blisters"], 0, 9),
            )
        )
    return tuple(specs)


JOKER_TRUE = ("1815", "1865", "1915", "1965", "1", "true", "yes")
JOKER_FALSE = ("", "0", "false", "no")


def read_valais_catalogue(path: Path = VALAIS_CATALOGUE) -> tuple[CardSpec, ...]:
    """Read the Valais*Wallis catalogue (header ``id,year,date,title,joker,sample``).

    ``date`` may be empty (year only) or ``YYYY-MM-DD``; ``joker`` is empty (no joker), a joker
    kind (``1815``, ``1865``, ``1915``, ``1965``) or ``1``/``true``/``yes`` (``0``/``false``/``no``
    also mean no joker). ``sample`` is not used by the renderer.
    """
    specs = []
    for line, row in _rows(path, ("id", "year", "date", "title", "joker", "sample")):
        year = _int(path, line, "year", row["year"], 1000, 2999)
        date = row["date"] or None
        if date is not None:
            parts = date.split("-")
            if len(parts) != 3 or parts[0] != str(year) or not all(p.isdigit() for p in parts):
                raise DataFileError(path, line, f"date: expected {year}-MM-DD or empty, got {date!r}")
        joker_text = row["joker"].lower()
        if joker_text not in JOKER_TRUE + JOKER_FALSE:
            raise DataFileError(path, line, f"joker: expected empty, a joker year (1815/1865/1915/1965) or "
                                f"yes/no, got {row['joker']!r}")
        specs.append(
            CardSpec(
                id=row["id"],
                game=Game.VALAIS,
                kind=CardKind.TIMELINE,
                year=year,
                date=date or str(year),
                title=row["title"],
                joker=joker_text in JOKER_TRUE,
            )
        )
    return tuple(specs)


def read_appia_income(path: Path = APPIA_INCOME) -> tuple[CardSpec, ...]:
    """Read the Via Appia income cards (header ``id,stones,sesterces``)."""
    return tuple(
        CardSpec(
            id=row["id"],
            game=Game.APPIA,
            kind=CardKind.INCOME,
            stones=_int(path, line, "stones", row["stones"], 0, 9),
            sesterces=_int(path, line, "sesterces", row["sesterces"], 0, 9),
        )
        for line, row in _rows(path, ("id", "stones", "sesterces"))
    )


def appia_road_tiles() -> tuple[CardSpec, ...]:
    """The 46 Via Appia road tiles (9 large, 13 medium, 24 small) as specs."""
    return tuple(
        CardSpec(id=f"tile-{size.value}-{n:02d}", game=Game.APPIA, kind=CardKind.TILE, size_class=size)
        for size, count in ROAD_TILE_COUNTS.items()
        for n in range(1, count + 1)
    )


def default_specs(game: Game) -> tuple[CardSpec, ...]:
    """All specs of a game from the project's data files (plus Via Appia's road tiles)."""
    if game is Game.GLADIOLA:
        return read_gladiola_deck()
    if game is Game.VALAIS:
        return read_valais_catalogue()
    return read_appia_income() + appia_road_tiles()
