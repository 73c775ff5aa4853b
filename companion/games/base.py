"""What every game engine shares: the verdict, the engine protocol and small helpers.

Every game module under ``companion.games`` has the same shape (see ``docs/ENGINES.md``):

* ``NAME``, ``TITLE``, ``MIN_PLAYERS``, ``MAX_PLAYERS``
* ``Rules``: a frozen dataclass of options; every interpretation of ``rules/`` is a named
  option whose default is the interpretation we chose.
* ``new_game(players, seed, rules=None) -> State``: a full-information state, deterministic
  for a seed.
* ``State``: ``current_player``, ``legal_actions()``, ``apply(action) -> Verdict`` (raises
  :class:`~companion.errors.IllegalAction` naming the rule), ``is_over()``, ``scores()``,
  ``winners()``, ``is_chance_node()``, ``chance_outcomes()``, ``public_view()``,
  ``public_action(action)``, ``observer()``, ``to_json()``, ``State.from_json(data)``,
  ``describe(action)``.
* ``Observer``: what a camera can know. ``apply(action) -> Verdict`` returns ``legal=False``
  with a reason and leaves itself unchanged instead of raising; it has ``public_view()``,
  ``is_over()``, ``to_json()``/``from_json()``.
* ``action_from_json(data) -> Action``; every action has ``to_json()``.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Protocol, Sequence, TypeVar, runtime_checkable

from companion.errors import DataFileError

T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    """The engine's answer to one action.

    ``legal``: whether the action was accepted. ``reason``: for an illegal action, why, in words
    a player understands. ``draws``: how many cards the acting player must draw now.
    ``messages``: instructions to give the players, in order ("+7, brisk: draw 1 card",
    "day 2 ends", ...). ``rule``: the identifier of the broken rule, if any.
    """

    legal: bool
    reason: str = ""
    draws: int = 0
    messages: tuple[str, ...] = ()
    rule: str | None = None

    @classmethod
    def ok(cls, *messages: str, draws: int = 0) -> "Verdict":
        return cls(True, "", draws, tuple(messages), None)

    @classmethod
    def illegal(cls, rule: str, reason: str) -> "Verdict":
        return cls(False, reason, 0, (f"not allowed: {reason}",), rule)

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "reason": self.reason,
            "draws": self.draws,
            "messages": list(self.messages),
            "rule": self.rule,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Verdict":
        return cls(
            bool(data["legal"]),
            str(data.get("reason", "")),
            int(data.get("draws", 0)),
            tuple(str(m) for m in data.get("messages", ())),
            data.get("rule"),
        )


@runtime_checkable
class Action(Protocol):
    def to_json(self) -> dict[str, Any]: ...


@runtime_checkable
class GameState(Protocol):
    """The fixed API every game's full-information ``State`` offers."""

    players: int

    @property
    def current_player(self) -> int | None: ...

    def legal_actions(self) -> list[Any]: ...

    def apply(self, action: Any) -> Verdict: ...

    def is_over(self) -> bool: ...

    def scores(self) -> tuple[int, ...]: ...

    def winners(self) -> tuple[int, ...]: ...

    def is_chance_node(self) -> bool: ...

    def chance_outcomes(self) -> list[tuple[Any, float]]: ...

    def public_view(self) -> Any: ...

    def public_action(self, action: Any) -> Any: ...

    def observer(self) -> Any: ...

    def describe(self, action: Any) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


def seeded_shuffle(items: Sequence[T], seed: int, salt: str) -> list[T]:
    """Shuffle ``items`` deterministically from ``seed`` and a ``salt`` naming the occasion.

    Engines store only the seed and a counter, never a random generator, so a state survives
    a JSON round trip exactly.
    """
    out = list(items)
    random.Random(f"{seed}:{salt}").shuffle(out)
    return out


@dataclass(frozen=True)
class CsvRow:
    line: int
    values: dict[str, str] = field(default_factory=dict)


def read_data_text(path: Path) -> str:
    """The UTF-8 text of a game data file; a missing, unreadable or non-UTF-8 file raises
    :class:`DataFileError` (with the line of the first bad byte)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(path, None, "file not found") from None
    except UnicodeDecodeError as exc:
        raise DataFileError(path, exc.object[: exc.start].count(b"\n") + 1,
                            f"expected UTF-8 text, got byte 0x{exc.object[exc.start]:02x}") from None
    except OSError as exc:
        raise DataFileError(path, None, f"cannot read as UTF-8 text: {exc}") from None


def read_csv_rows(path: Path, header: Sequence[str]) -> Iterator[CsvRow]:
    """Yield the rows of a data CSV with their 1-based line numbers.

    Lines starting with ``#`` are comments. The first other line must be exactly ``header``.
    Raises :class:`DataFileError` naming file and line for anything malformed.
    """
    path = Path(path)
    text = read_data_text(path)
    seen_header = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cells = next(csv.reader([line]))
        except csv.Error as exc:
            raise DataFileError(path, number, f"bad CSV: {exc}") from None
        cells = [c.strip() for c in cells]
        if not seen_header:
            if cells != list(header):
                raise DataFileError(
                    path, number, f"expected header {','.join(header)!r}, got {line.strip()!r}"
                )
            seen_header = True
            continue
        if len(cells) != len(header):
            raise DataFileError(
                path, number, f"expected {len(header)} fields ({','.join(header)}), got {len(cells)}"
            )
        yield CsvRow(number, dict(zip(header, cells)))
    if not seen_header:
        raise DataFileError(path, None, f"empty file: expected header {','.join(header)!r}")


def parse_int(row: CsvRow, path: Path, name: str, lo: int, hi: int) -> int:
    """Read an integer field in ``[lo, hi]`` or raise :class:`DataFileError` at the row's line."""
    raw = row.values[name]
    try:
        value = int(raw)
    except ValueError:
        raise DataFileError(path, row.line, f"{name}: expected an integer, got {raw!r}") from None
    if not lo <= value <= hi:
        raise DataFileError(path, row.line, f"{name}: expected {lo}..{hi}, got {value}")
    return value


def samples_dir() -> Path:
    """The bundled ``samples/`` folder (next to the packages in a source checkout)."""
    return Path(__file__).resolve().parents[2] / "samples"
