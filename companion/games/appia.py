"""Via Appia (Queen Games, 2013): rule engine, board and income-card data.

A turn is one of four actions: take an income card, push stones into the quarry, build road
tiles, or travel along the built road. The quarry is physical: after a :class:`Push` the state
is a chance node and the engine takes what fell (:class:`QuarryOutcome`) as input; then the
player decides per fallen plate (:class:`TakeTile` or :class:`SellPlate`).

The game logic lives in :class:`Table`, the public part of the game (everything entered on the
score pad is public). :class:`State` adds the only hidden thing, the order of the income draw
pile, and lays out new income cards from it; :class:`Observer` learns the new cards from the
action (``Income.revealed``) instead. Interpretations are options of :class:`Rules`; see
``docs/interpretations/appia.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games.base import Verdict, parse_int, read_csv_rows, read_data_text, samples_dir, seeded_shuffle

NAME = "appia"
TITLE = "Via Appia"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
SCORE_LABEL = "VP"

DISPLAY_SIZE = 7
START_STONES = 2
PUSH_TOKENS = 4
TRAVEL_COST = {1: 1, 2: 3, 3: 6}
MOST_SESTERCES_VP = 2
SECTION_AWARDS = (8, 4)


class Size(Enum):
    """A road tile or quarry plate size."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def vp(self) -> int:
        """Victory points for building a tile of this size."""
        return _TILE_VP[self]


SIZES: tuple[Size, ...] = (Size.SMALL, Size.MEDIUM, Size.LARGE)
_RANK = {Size.SMALL: 1, Size.MEDIUM: 2, Size.LARGE: 3}
_TILE_VP = {Size.SMALL: 1, Size.MEDIUM: 3, Size.LARGE: 5}
TILE_SUPPLY = {Size.LARGE: 9, Size.MEDIUM: 13, Size.SMALL: 24}
QUARRY_PLATES = {Size.LARGE: 4, Size.MEDIUM: 8, Size.SMALL: 12}
# Simulation model of one pushed stone: what falls off the quarry's far edge. Only used to make
# chance_outcomes() plausible for random play; at a real table the outcome is entered.
PLATE_MODEL: tuple[tuple[Size | None, float], ...] = (
    (None, 0.35),
    (Size.SMALL, 0.30),
    (Size.MEDIUM, 0.20),
    (Size.LARGE, 0.15),
)


class Resource(Enum):
    """Which half of an income card a player takes."""

    STONES = "stones"
    SESTERCES = "sesterces"


class Phase(Enum):
    """Where the current turn stands."""

    ACTION = "action"  # the player chooses one of the four actions
    QUARRY = "quarry"  # chance node: what fell off the quarry
    PLATES = "plates"  # the player decides about each fallen plate
    CONSOLATION = "consolation"  # two or more pushed, nothing fell: small tile or 1 sesterce
    OVER = "over"


def _enum(kind: type[Enum], raw: Any, what: str) -> Any:
    try:
        return kind(raw)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in kind)  # type: ignore[attr-defined]
        raise CompanionError(f"{what}: expected one of {allowed}, got {raw!r}") from None


# --------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True)
class Rules:
    """Options of the engine. Each default is the interpretation we chose (see the docs)."""

    both_halves_max_display: int = 3  # both halves when this many cards or fewer are face up
    both_halves_before_taking: bool = True  # ... counted before taking (False: after taking)
    push_token_spent: bool = True  # the push +1 token is returned after pushing a third stone
    cart_capacity: int = 4  # cart room in units
    small_units: int = 1
    medium_units: int = 2
    large_units: int = 3
    stone_pool: int = 64  # wooden stones in the storage; 0 = unlimited
    build_backward: bool = False  # may build towards Roma from a visited city
    travel_stops_at_city: bool = True  # a move ends when it reaches a city
    city_marker_cap: int = 3  # city markers per city (9 markers, 3 cities)
    cart_unload: bool = True  # to make room, tiles may go back from the cart to the supply
    bonus_tokens_limited: bool = True  # no bonus token once a section's tokens are gone
    finish_round: bool = True  # after the end trigger the round is played to the end
    tie_skips_next_place: bool = True  # tied players all get the place; the next is skipped

    def units(self, size: Size) -> int:
        if size is Size.SMALL:
            return self.small_units
        return self.medium_units if size is Size.MEDIUM else self.large_units

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _RULE_NAMES}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Rules":
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise CompanionError(f"rules: expected an object, got {type(data).__name__}")
        if data == _DEFAULT_RULES_JSON:
            return _DEFAULT_RULES
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, raw in data.items():
            if key not in known:
                raise CompanionError(f"rules: unknown option {key!r}; expected one of {', '.join(known)}")
            default = getattr(cls(), key)
            if isinstance(default, bool):
                if not isinstance(raw, bool):
                    raise CompanionError(f"rules.{key}: expected true or false, got {raw!r}")
            elif not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
                raise CompanionError(f"rules.{key}: expected a whole number >= 0, got {raw!r}")
            values[key] = raw
        rules = cls(**values)
        if rules.cart_capacity < max(rules.units(s) for s in SIZES):
            raise CompanionError(
                f"rules.cart_capacity: expected room for at least one large tile "
                f"({rules.large_units} units), got {rules.cart_capacity}"
            )
        return rules


_RULE_NAMES = tuple(f.name for f in fields(Rules))
_DEFAULT_RULES = Rules()
_DEFAULT_RULES_JSON = _DEFAULT_RULES.to_json()


# --------------------------------------------------------------------------------------------
# Board and income cards


@dataclass(frozen=True)
class City:
    id: str
    name: str


@dataclass(frozen=True)
class Section:
    id: str
    colour: str
    tokens: int


@dataclass(frozen=True)
class Space:
    id: str
    section: str
    size: Size


@dataclass(frozen=True)
class Board:
    """Cities, sections, spaces and forward links of the road (validated by :func:`load_board`)."""

    cities: tuple[City, ...]
    sections: tuple[Section, ...]
    spaces: tuple[Space, ...]
    links: tuple[tuple[str, str], ...]
    start: str
    end: str
    succ: dict[str, tuple[str, ...]] = field(init=False, compare=False, repr=False)
    pred: dict[str, tuple[str, ...]] = field(init=False, compare=False, repr=False)
    space_by_id: dict[str, Space] = field(init=False, compare=False, repr=False)
    city_by_id: dict[str, City] = field(init=False, compare=False, repr=False)
    city_ahead: dict[str, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        succ: dict[str, list[str]] = {c.id: [] for c in self.cities}
        pred: dict[str, list[str]] = {c.id: [] for c in self.cities}
        for s in self.spaces:
            succ[s.id] = []
            pred[s.id] = []
        for a, b in self.links:
            succ.setdefault(a, []).append(b)
            pred.setdefault(b, []).append(a)
        object.__setattr__(self, "succ", {k: tuple(v) for k, v in succ.items()})
        object.__setattr__(self, "pred", {k: tuple(v) for k, v in pred.items()})
        object.__setattr__(self, "space_by_id", {s.id: s for s in self.spaces})
        object.__setattr__(self, "city_by_id", {c.id: c for c in self.cities})
        object.__setattr__(self, "city_ahead", {n: self._first_city_ahead(n) for n in succ})

    def _first_city_ahead(self, node: str) -> str:
        """The nearest city reached going forward from ``node`` ('' for the end city)."""
        seen = {node}
        frontier = [node]
        found: list[str] = []
        while frontier:
            nxt: list[str] = []
            for n in frontier:
                for m in self.succ.get(n, ()):
                    if m in seen:
                        continue
                    seen.add(m)
                    if m in self.city_by_id:
                        if m not in found:
                            found.append(m)
                    else:
                        nxt.append(m)
            frontier = nxt
        return found[0] if found else ""

    def is_city(self, node: str) -> bool:
        return node in self.city_by_id

    def name(self, node: str) -> str:
        city = self.city_by_id.get(node)
        return city.name if city else node

    def to_json(self) -> dict[str, Any]:
        return {
            "cities": [[c.id, c.name] for c in self.cities],
            "sections": [[s.id, s.colour, s.tokens] for s in self.sections],
            "spaces": [[s.id, s.section, s.size.value] for s in self.spaces],
            "links": [list(link) for link in self.links],
            "start": self.start,
            "end": self.end,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Board":
        try:
            return cls(
                tuple(City(str(i), str(n)) for i, n in data["cities"]),
                tuple(Section(str(i), str(c), int(t)) for i, c, t in data["sections"]),
                tuple(Space(str(i), str(sec), _enum(Size, sz, "board space size"))
                      for i, sec, sz in data["spaces"]),
                tuple((str(a), str(b)) for a, b in data["links"]),
                str(data["start"]),
                str(data["end"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"board: malformed JSON ({exc})") from None


@dataclass(frozen=True)
class IncomeCard:
    id: int
    stones: int
    sesterces: int


@dataclass(frozen=True)
class GameData:
    """Everything a game needs from files: the board and the income cards."""

    board: Board
    cards: tuple[IncomeCard, ...]
    card_by_id: dict[int, IncomeCard] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "card_by_id", {c.id: c for c in self.cards})

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board.to_json(),
            "cards": [[c.id, c.stones, c.sesterces] for c in self.cards],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameData":
        try:
            cards = tuple(IncomeCard(int(i), int(st), int(se)) for i, st, se in data["cards"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"income cards: malformed JSON ({exc})") from None
        return cls(Board.from_json(data["board"]), cards)


def default_board_path() -> Path:
    return samples_dir() / "boards" / "via-appia.txt"


def default_income_path() -> Path:
    return samples_dir() / "decks" / "appia-income.csv"


def load_board(path: str | Path | None = None) -> Board:
    """Read and validate a board file (format described in the bundled sample's header).

    Raises :class:`DataFileError` naming the file and line of the first problem.
    """
    path = Path(path) if path is not None else default_board_path()
    text = read_data_text(path)

    cities: list[City] = []
    sections: list[Section] = []
    spaces: list[Space] = []
    links: list[tuple[str, str]] = []
    where: dict[str, int] = {}  # id -> line it was declared on
    link_lines: list[int] = []
    start = end = ""
    arity = {"city": (3, 4), "section": (4, 4), "space": (4, 4), "link": (3, 3)}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kind = words[0]
        if kind not in arity:
            raise DataFileError(path, number, f"expected city, section, space or link, got {kind!r}")
        lo, hi = arity[kind]
        if not lo <= len(words) <= hi:
            shape = {"city": "city ID Name [start|end]", "section": "section ID COLOUR TOKENS",
                     "space": "space ID SECTION SIZE", "link": "link FROM TO"}[kind]
            raise DataFileError(path, number, f"expected '{shape}', got {line!r}")
        if kind in ("city", "section", "space"):
            ident = words[1]
            if ident in where:
                raise DataFileError(path, number,
                                    f"duplicate id {ident!r} (first declared on line {where[ident]})")
            where[ident] = number
        if kind == "city":
            cities.append(City(words[1], words[2]))
            if len(words) == 4:
                role = words[3]
                if role not in ("start", "end"):
                    raise DataFileError(path, number, f"city role: expected start or end, got {role!r}")
                if role == "start":
                    if start:
                        raise DataFileError(path, number, f"a second start city: {start!r} is the start already")
                    start = words[1]
                else:
                    if end:
                        raise DataFileError(path, number, f"a second end city: {end!r} is the end already")
                    end = words[1]
        elif kind == "section":
            try:
                tokens = int(words[3])
            except ValueError:
                tokens = -1
            if tokens < 0:
                raise DataFileError(path, number, f"bonus tokens: expected a whole number, got {words[3]!r}")
            sections.append(Section(words[1], words[2], tokens))
        elif kind == "space":
            if words[2] not in {s.id for s in sections}:
                raise DataFileError(path, number, f"unknown section {words[2]!r} (declare it before its spaces)")
            try:
                size = Size(words[3])
            except ValueError:
                raise DataFileError(path, number,
                                    f"size: expected small, medium or large, got {words[3]!r}") from None
            spaces.append(Space(words[1], words[2], size))
        else:
            for ident in words[1:]:
                if ident not in where or ident in {s.id for s in sections}:
                    raise DataFileError(path, number, f"link to unknown city or space {ident!r}")
            if words[1] == words[2]:
                raise DataFileError(path, number, f"a link from {words[1]!r} to itself")
            if (words[1], words[2]) in links:
                raise DataFileError(path, number, f"duplicate link {words[1]} -> {words[2]}")
            links.append((words[1], words[2]))
            link_lines.append(number)

    if not start:
        raise DataFileError(path, None, "expected one city marked 'start', got none")
    if not end:
        raise DataFileError(path, None, "expected one city marked 'end', got none")
    for size, wanted in TILE_SUPPLY.items():
        got = sum(1 for s in spaces if s.size is size)
        if got != wanted:
            raise DataFileError(path, None,
                                f"expected {wanted} {size.value} spaces (the tile supply), got {got}")
    board = Board(tuple(cities), tuple(sections), tuple(spaces), tuple(links), start, end)

    for (a, b), number in zip(links, link_lines):
        if b == start:
            raise DataFileError(path, number, f"link into the start city {start!r}")
        if a == end:
            raise DataFileError(path, number, f"link out of the end city {end!r}")
    order = _topological_order(board)
    if order is None:
        raise DataFileError(path, None, "the links form a loop: expected every link to point forward")
    reached = _reachable(board, start)
    for node in [s.id for s in spaces] + [c.id for c in cities]:
        if node not in reached:
            raise DataFileError(path, where[node], f"{node!r} cannot be reached from {start!r}")
        if node != end and not board.succ[node]:
            raise DataFileError(path, where[node], f"{node!r} is a dead end: expected a link onward")
    for sec in sections:
        members = [s for s in spaces if s.section == sec.id]
        if not members:
            raise DataFileError(path, where[sec.id], f"section {sec.id!r} has no spaces")
        ahead = {board.city_ahead[s.id] for s in members}
        if len(ahead) != 1:
            raise DataFileError(path, where[sec.id],
                                f"section {sec.id!r}: expected all spaces to lead to one city, got {sorted(ahead)}")
    for s in spaces:
        for m in board.succ[s.id]:
            if not board.is_city(m) and board.space_by_id[m].section != s.section:
                raise DataFileError(path, where[m],
                                    f"{m!r} follows {s.id!r} directly but lies in another section: "
                                    "expected a city between sections")
    return board


def _topological_order(board: Board) -> list[str] | None:
    indegree = {n: len(board.pred[n]) for n in board.succ}
    ready = [n for n, d in indegree.items() if d == 0]
    order: list[str] = []
    while ready:
        n = ready.pop()
        order.append(n)
        for m in board.succ[n]:
            indegree[m] -= 1
            if indegree[m] == 0:
                ready.append(m)
    return order if len(order) == len(indegree) else None


def _reachable(board: Board, start: str) -> set[str]:
    seen = {start}
    stack = [start]
    while stack:
        for m in board.succ[stack.pop()]:
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return seen


def load_income_cards(path: str | Path | None = None) -> tuple[IncomeCard, ...]:
    """Read ``id,stones,sesterces`` rows; raises :class:`DataFileError` at the bad line."""
    path = Path(path) if path is not None else default_income_path()
    cards: list[IncomeCard] = []
    lines: dict[int, int] = {}
    last_line = None
    for row in read_csv_rows(path, ("id", "stones", "sesterces")):
        ident = parse_int(row, path, "id", 1, 999)
        if ident in lines:
            raise DataFileError(path, row.line, f"duplicate card id {ident} (first on line {lines[ident]})")
        lines[ident] = row.line
        cards.append(IncomeCard(ident, parse_int(row, path, "stones", 0, 20),
                                parse_int(row, path, "sesterces", 0, 20)))
        last_line = row.line
    if len(cards) < 2 * DISPLAY_SIZE:
        raise DataFileError(path, last_line, f"expected at least {2 * DISPLAY_SIZE} cards "
                            f"({DISPLAY_SIZE} on display, {DISPLAY_SIZE} to lay out next), got {len(cards)}")
    return tuple(cards)


def load_data(board_path: str | Path | None = None, income_path: str | Path | None = None) -> GameData:
    """The board and income cards (the bundled samples for ``None``)."""
    if board_path is None and income_path is None:
        return default_data()
    return GameData(load_board(board_path), load_income_cards(income_path))


@lru_cache(maxsize=1)
def default_data() -> GameData:
    return GameData(load_board(), load_income_cards())


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class Income:
    """Take income card ``card`` and its ``take`` half. ``revealed``: the 7 new cards laid out
    when this takes the last face-up card (filled in by ``State.public_action`` for observers)."""

    card: int
    take: Resource
    revealed: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "income", "card": self.card, "take": self.take.value}
        if self.revealed is not None:
            out["revealed"] = list(self.revealed)
        return out


@dataclass(frozen=True)
class Push:
    """Push ``stones`` stones into the quarry; the third one needs ``use_token``."""

    stones: int
    use_token: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"type": "push", "stones": self.stones, "use_token": self.use_token}


@dataclass(frozen=True)
class QuarryOutcome:
    """Chance: the plates that fell off the quarry after a push."""

    fallen: tuple[Size, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "quarry-outcome", "fallen": [s.value for s in self.fallen]}


@dataclass(frozen=True)
class TakeTile:
    """For the current fallen plate (or the nothing-fell consolation): a tile of ``size``.

    ``unload``: tiles of other sizes put back from the cart into the supply first to make room
    (option ``cart_unload``; only as many as needed).
    """

    size: Size
    unload: tuple[Size, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"type": "take-tile", "size": self.size.value, "unload": [s.value for s in self.unload]}


@dataclass(frozen=True)
class SellPlate:
    """Sell the current fallen plate for 1 sesterce."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "sell-plate"}


@dataclass(frozen=True)
class TakeSesterce:
    """The nothing-fell consolation: 1 sesterce instead of a small tile."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "take-sesterce"}


@dataclass(frozen=True)
class Build:
    """Lay tiles from the cart on ``spaces`` (1 or 2, in this order)."""

    spaces: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "build", "spaces": list(self.spaces)}


@dataclass(frozen=True)
class Travel:
    """Move the figure along ``path`` (1 to 3 nodes, each linked forward from the previous)."""

    path: tuple[str, ...]

    @property
    def steps(self) -> int:
        return len(self.path)

    def to_json(self) -> dict[str, Any]:
        return {"type": "travel", "path": list(self.path)}


Action = Union[Income, Push, QuarryOutcome, TakeTile, SellPlate, TakeSesterce, Build, Travel]
ACTION_TYPES = (Income, Push, QuarryOutcome, TakeTile, SellPlate, TakeSesterce, Build, Travel)


def _str_list(data: dict[str, Any], key: str, kind: str) -> list[Any]:
    raw = data.get(key)
    if not isinstance(raw, list):
        raise CompanionError(f"{kind}: expected a list in {key!r}, got {raw!r}")
    return raw


def _int_field(data: dict[str, Any], key: str, kind: str) -> int:
    raw = data.get(key)
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise CompanionError(f"{kind}: expected an integer {key!r}, got {raw!r}")
    return raw


def action_from_json(data: Any) -> Action:
    """Parse an action's JSON; raises :class:`CompanionError` for anything malformed."""
    if not isinstance(data, dict) or "type" not in data:
        raise CompanionError(f"appia action: expected an object with a 'type', got {data!r}")
    kind = data["type"]
    if kind == "income":
        revealed = data.get("revealed")
        if revealed is not None:
            items = _str_list(data, "revealed", "income")
            if not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
                raise CompanionError(f"income: expected card ids in 'revealed', got {items!r}")
            revealed = tuple(items)
        return Income(_int_field(data, "card", "income"),
                      _enum(Resource, data.get("take"), "income take"), revealed)
    if kind == "push":
        use = data.get("use_token", False)
        if not isinstance(use, bool):
            raise CompanionError(f"push: expected true or false in 'use_token', got {use!r}")
        return Push(_int_field(data, "stones", "push"), use)
    if kind == "quarry-outcome":
        return QuarryOutcome(tuple(_enum(Size, s, "fallen plate")
                                   for s in _str_list(data, "fallen", "quarry-outcome")))
    if kind == "take-tile":
        unload = data.get("unload", [])
        if not isinstance(unload, list):
            raise CompanionError(f"take-tile: expected a list in 'unload', got {unload!r}")
        return TakeTile(_enum(Size, data.get("size"), "tile size"),
                        _sorted_plates([_enum(Size, u, "unloaded tile") for u in unload]))
    if kind == "sell-plate":
        return SellPlate()
    if kind == "take-sesterce":
        return TakeSesterce()
    if kind in ("build", "travel"):
        key = "spaces" if kind == "build" else "path"
        items = _str_list(data, key, kind)
        if not all(isinstance(i, str) for i in items):
            raise CompanionError(f"{kind}: expected ids in {key!r}, got {items!r}")
        return Build(tuple(items)) if kind == "build" else Travel(tuple(items))
    raise CompanionError(
        f"appia action: unknown type {kind!r}; expected income, push, quarry-outcome, take-tile, "
        "sell-plate, take-sesterce, build or travel"
    )


def _sorted_plates(plates: tuple[Size, ...] | list[Size]) -> tuple[Size, ...]:
    """Fallen plates in the order the player decides them: largest first."""
    return tuple(sorted(plates, key=lambda s: -s.rank))


def quarry_distribution(pushed: int) -> list[tuple[QuarryOutcome, float]]:
    """The simulation model: each pushed stone independently drops one plate per PLATE_MODEL."""
    dist: dict[tuple[Size, ...], float] = {(): 1.0}
    for _ in range(pushed):
        nxt: dict[tuple[Size, ...], float] = {}
        for plates, p in dist.items():
            for size, q in PLATE_MODEL:
                key = _sorted_plates(plates + ((size,) if size else ()))
                nxt[key] = nxt.get(key, 0.0) + p * q
        dist = nxt
    order = sorted(dist, key=lambda k: (len(k), [-s.rank for s in k]))
    return [(QuarryOutcome(k), dist[k]) for k in order]


# --------------------------------------------------------------------------------------------
# Public view


@dataclass(frozen=True)
class PlayerView:
    position: str
    visited: tuple[str, ...]
    stones: int
    sesterces: int
    vp: int
    push_token: bool
    cart: tuple[tuple[Size, int], ...]  # (size, count) for small, medium, large
    bonus: tuple[tuple[str, int], ...]  # (section, tokens)


@dataclass(frozen=True)
class PublicView:
    """Everything the table shows (all entered actions are public; the draw pile is face down)."""

    players: int
    start_player: int
    current_player: int | None
    phase: Phase
    pushed: int
    pending: tuple[Size, ...]
    display: tuple[int, ...]
    draw_count: int
    taken: tuple[int, ...]
    refills: int
    seats: tuple[PlayerView, ...]
    tile_supply: tuple[tuple[Size, int], ...]
    built: tuple[tuple[str, int], ...]  # (space, builder) in board order
    bonus_supply: tuple[tuple[str, int], ...]
    vp_stacks: tuple[tuple[str, tuple[int, ...]], ...]
    markers: tuple[tuple[str, int], ...]
    stone_pool: int
    push_token_supply: int
    end_triggered: bool
    over: bool


# --------------------------------------------------------------------------------------------
# The table: public state and every rule


def _player(p: int) -> str:
    return f"player {p + 1}"


class Table:
    """The public game state and the rules; mutated in place by :meth:`apply`.

    Every handler checks the whole action first and only then changes anything, so an
    :class:`IllegalAction` always leaves the table as it was.
    """

    def __init__(self, players: int, start_player: int, display: tuple[int, ...],
                 rules: Rules, data: GameData) -> None:
        self.players = players
        self.rules = rules
        self.data = data
        board = data.board
        self.start_player = start_player
        self.current = start_player
        self.phase = Phase.ACTION
        self.pushed = 0
        self.pending: list[Size] = []
        self.display: list[int] = list(display)
        self.taken: list[int] = []
        self.draw_count = len(data.cards) - len(display)
        self.refills = 0
        self.stones = [START_STONES] * players
        self.sesterces = [((p - start_player) % players) + 1 for p in range(players)]
        self.vp = [0] * players
        self.push_token = [False] * players
        self.push_token_supply = PUSH_TOKENS
        self.cart = [[0, 0, 0] for _ in range(players)]  # counts in SIZES order
        self.tile_supply = [TILE_SUPPLY[s] for s in SIZES]
        self.built: dict[str, int] = {}
        self.bonus = [{s.id: 0 for s in board.sections} for _ in range(players)]
        self.bonus_supply = {s.id: s.tokens for s in board.sections}
        self.position = [board.start] * players
        self.visited: list[set[str]] = [{board.start} for _ in range(players)]
        stack = (6, 1) if players == 2 else (6, 3, 1)
        self.vp_stacks = {c.id: list(stack) for c in board.cities if c.id != board.start}
        self.markers = {c.id: 0 for c in board.cities if c.id != board.start}
        self.stone_pool = (rules.stone_pool - START_STONES * players) if rules.stone_pool else 0
        self.end_triggered = False
        self.over = False

    # ---- queries ----------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        if self.over or self.phase is Phase.QUARRY:
            return None
        return self.current

    def cart_units(self, p: int) -> int:
        return sum(n * self.rules.units(s) for s, n in zip(SIZES, self.cart[p]))

    def room_for(self, p: int, size: Size) -> bool:
        return self.cart_units(p) + self.rules.units(size) <= self.rules.cart_capacity

    def both_halves(self) -> bool:
        showing = len(self.display) if self.rules.both_halves_before_taking else len(self.display) - 1
        return showing <= self.rules.both_halves_max_display

    def income_empties_display(self, action: Any) -> bool:
        return (isinstance(action, Income) and self.phase is Phase.ACTION and not self.over
                and len(self.display) == 1 and action.card in self.display)

    def draw_pile_cards(self) -> set[int]:
        """The cards in the face-down draw pile (known as a set, not in order)."""
        return set(self.data.card_by_id) - set(self.display) - set(self.taken)

    def buildable(self, p: int, built: dict[str, int] | set[str]) -> set[str]:
        """Unbuilt spaces connected to a city ``p`` visited through built spaces only."""
        board = self.data.board
        seen: set[str] = set()
        stack = list(self.visited[p])
        out: set[str] = set()
        while stack:
            node = stack.pop()
            nbrs = board.succ[node] + (board.pred[node] if self.rules.build_backward else ())
            for m in nbrs:
                if board.is_city(m):
                    continue
                if m in built:
                    if m not in seen:
                        seen.add(m)
                        stack.append(m)
                else:
                    out.add(m)
        return out

    def travel_cost(self, p: int, steps: int) -> tuple[int, int, int]:
        """(base cost, markers on the city ahead, cost to pay)."""
        ahead = self.data.board.city_ahead[self.position[p]]
        markers = self.markers.get(ahead, 0)
        base = TRAVEL_COST[steps]
        return base, markers, max(0, base - markers)

    def travel_paths(self, p: int) -> list[tuple[str, ...]]:
        board = self.data.board
        paths: list[tuple[str, ...]] = []

        def walk(node: str, path: tuple[str, ...]) -> None:
            for m in board.succ[node]:
                if not (board.is_city(m) or m in self.built):
                    continue
                nxt = path + (m,)
                paths.append(nxt)
                if len(nxt) < 3 and not (board.is_city(m) and self.rules.travel_stops_at_city):
                    walk(m, nxt)

        walk(self.position[p], ())
        return sorted(paths, key=lambda t: (len(t), t))

    def road_complete(self) -> bool:
        return len(self.built) == len(self.data.board.spaces)

    # ---- legal actions -----------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        if self.over or self.phase is Phase.QUARRY:
            return []
        p = self.current
        if self.phase is Phase.PLATES:
            plate = self.pending[0]
            out: list[Action] = [t for s in SIZES if s.rank <= plate.rank for t in self._takes(p, s)]
            return out + [SellPlate()]
        if self.phase is Phase.CONSOLATION:
            return self._takes(p, Size.SMALL) + [TakeSesterce()]
        actions: list[Action] = [Income(c, r) for c in self.display for r in Resource]
        for n in (1, 2):
            if self.stones[p] >= n:
                actions.append(Push(n, False))
        if self.stones[p] >= 3 and self.push_token[p]:
            actions.append(Push(3, True))
        actions.extend(Build(s) for s in self._build_options(p))
        for path in self.travel_paths(p):
            if self.travel_cost(p, len(path))[2] <= self.sesterces[p]:
                actions.append(Travel(path))
        return actions

    def _takes(self, p: int, size: Size) -> list[Action]:
        """Every legal way to take a tile of ``size`` (with the unloads that make room)."""
        if self.tile_supply[SIZES.index(size)] == 0:
            return []
        if self.room_for(p, size):
            return [TakeTile(size)]
        if not self.rules.cart_unload:
            return []
        return [TakeTile(size, u) for u in self._minimal_unloads(p, size)]

    def _minimal_unloads(self, p: int, size: Size) -> list[tuple[Size, ...]]:
        """Smallest sets of other-size cart tiles whose removal makes room for ``size``."""
        need = self.cart_units(p) + self.rules.units(size) - self.rules.cart_capacity
        others = [s for s in SIZES if s is not size]
        out: list[tuple[Size, ...]] = []
        counts = [self.cart[p][SIZES.index(s)] for s in others]
        for a in range(counts[0] + 1):
            for b in range(counts[1] + 1):
                chosen = [others[0]] * a + [others[1]] * b
                if self._unload_ok(chosen, need):
                    out.append(_sorted_plates(chosen))
        return sorted(out, key=lambda u: (len(u), [-s.rank for s in u]))

    def _unload_ok(self, unload: list[Size] | tuple[Size, ...], need: int) -> bool:
        """Enough room freed, and no tile in ``unload`` could be kept."""
        freed = sum(self.rules.units(s) for s in unload)
        return freed >= need and all(freed - self.rules.units(s) < need for s in unload)

    def _build_options(self, p: int) -> list[tuple[str, ...]]:
        board = self.data.board
        cart = self.cart[p]
        if not any(cart):
            return []
        options: list[tuple[str, ...]] = []
        for first in sorted(self.buildable(p, self.built)):
            size = board.space_by_id[first].size
            i = SIZES.index(size)
            if cart[i] == 0:
                continue
            options.append((first,))
            rest = list(cart)
            rest[i] -= 1
            if not any(rest):
                continue
            after = set(self.built) | {first}
            section = board.space_by_id[first].section
            for second in sorted(self.buildable(p, after)):
                sp = board.space_by_id[second]
                if sp.section == section and rest[SIZES.index(sp.size)] > 0:
                    options.append((first, second))
        return options

    # ---- apply -------------------------------------------------------------------------

    def apply(self, action: Any, new_display: tuple[int, ...] | None = None) -> Verdict:
        """Apply ``action`` (raises :class:`IllegalAction`, leaving the table unchanged).

        ``new_display``: the cards laid out when this income takes the last face-up card.
        """
        if not isinstance(action, ACTION_TYPES):
            raise IllegalAction("action.unknown", f"expected a Via Appia action, got {action!r}")
        if self.over:
            raise IllegalAction("game.over", "the game is over: no more actions")
        if isinstance(action, QuarryOutcome):
            return self._quarry_outcome(action)
        if self.phase is Phase.QUARRY:
            raise IllegalAction("quarry.outcome-expected",
                                f"enter what fell off the quarry first, got {type(action).__name__}")
        if isinstance(action, (TakeTile, SellPlate, TakeSesterce)):
            return self._plate_choice(action)
        if self.phase is not Phase.ACTION:
            what = "a decision about the fallen plate" if self.phase is Phase.PLATES else \
                "a small tile or 1 sesterce (nothing fell)"
            raise IllegalAction("quarry.decide", f"expected {what}, got {type(action).__name__}")
        if isinstance(action, Income):
            return self._income(action, new_display)
        if isinstance(action, Push):
            return self._push(action)
        if isinstance(action, Build):
            return self._build(action)
        return self._travel(action)

    def _income(self, action: Income, new_display: tuple[int, ...] | None) -> Verdict:
        p = self.current
        if action.card not in self.display:
            raise IllegalAction("income.not-on-display",
                                f"card {action.card} is not on display (showing {_ids(self.display)})")
        if not isinstance(action.take, Resource):
            raise IllegalAction("income.take", f"expected stones or sesterces, got {action.take!r}")
        refill = len(self.display) == 1
        if refill and (new_display is None or len(new_display) != DISPLAY_SIZE):
            raise IllegalAction("income.revealed",
                                f"the display is empty now: expected the {DISPLAY_SIZE} new cards laid out")
        card = self.data.card_by_id[action.card]
        both = self.both_halves()
        messages: list[str] = []
        stones = sesterces = 0
        if both or action.take is Resource.STONES:
            stones = card.stones
        if both or action.take is Resource.SESTERCES:
            sesterces = card.sesterces
        short = ""
        if self.rules.stone_pool and stones > self.stone_pool:
            short = f"only {_count(self.stone_pool, 'stone')} left in the storage"
            stones = self.stone_pool
        # --- mutate
        if both:
            messages.append(f"{self.rules.both_halves_max_display} or fewer cards on display: both halves")
        got = [_count(n, w) for n, w, on in ((stones, "stone", both or action.take is Resource.STONES),
                                              (sesterces, "sesterce", both or action.take is Resource.SESTERCES))
               if on]
        messages.append(f"takes income card {card.id}: {' and '.join(got)}")
        if short:
            messages.append(short)
        self.stones[p] += stones
        if self.rules.stone_pool:
            self.stone_pool -= stones
        self.sesterces[p] += sesterces
        self.display.remove(action.card)
        self.taken.append(action.card)
        if refill:
            if self.push_token[p]:
                messages.append("last card: already holds a push +1 token")
            elif self.push_token_supply > 0:
                self.push_token[p] = True
                self.push_token_supply -= 1
                messages.append("last card: push +1 token")
            assert new_display is not None
            self.display = list(new_display)
            self.taken = []
            self.draw_count = len(self.data.cards) - DISPLAY_SIZE
            self.refills += 1
            messages.append(f"lay out {DISPLAY_SIZE} new income cards ({_ids(self.display)}); "
                            "the rest and the taken cards form the new draw pile")
        messages.extend(self._end_turn())
        return Verdict.ok(*messages)

    def _push(self, action: Push) -> Verdict:
        p = self.current
        if not isinstance(action.stones, int) or not 1 <= action.stones <= 3:
            raise IllegalAction("quarry.push-count", f"push 1 or 2 stones (3 with a push +1 token), got {action.stones}")
        if action.stones == 3 and not action.use_token:
            raise IllegalAction("quarry.push-count", "a third stone needs the push +1 token: got 3 stones without it")
        if action.use_token and action.stones != 3:
            raise IllegalAction("quarry.token", f"the push +1 token is for a third stone, got {action.stones} stones")
        if action.use_token and not self.push_token[p]:
            raise IllegalAction("quarry.token", "no push +1 token to use")
        if self.stones[p] < action.stones:
            raise IllegalAction("quarry.stones", f"push {action.stones} stones, but only {self.stones[p]} in supply")
        self.stones[p] -= action.stones
        if self.rules.stone_pool:
            self.stone_pool += action.stones  # they come back out of the quarry to the storage
        messages = [f"push {action.stones} stone{'s' if action.stones > 1 else ''} into the quarry"]
        if action.use_token and self.rules.push_token_spent:
            self.push_token[p] = False
            self.push_token_supply += 1
            messages.append("push +1 token spent")
        self.pushed = action.stones
        self.phase = Phase.QUARRY
        messages.append("enter what fell off the quarry")
        return Verdict.ok(*messages)

    def _quarry_outcome(self, action: QuarryOutcome) -> Verdict:
        if self.phase is not Phase.QUARRY:
            raise IllegalAction("quarry.no-push", "nothing was pushed: no quarry outcome expected")
        if not all(isinstance(s, Size) for s in action.fallen):
            raise IllegalAction("quarry.outcome", f"expected plate sizes, got {action.fallen!r}")
        for size in SIZES:
            n = sum(1 for s in action.fallen if s is size)
            if n > QUARRY_PLATES[size]:
                raise IllegalAction("quarry.outcome",
                                    f"at most {QUARRY_PLATES[size]} {size.value} plates can fall, got {n}")
        plates = _sorted_plates(action.fallen)
        if plates:
            self.pending = list(plates)
            self.phase = Phase.PLATES
            return Verdict.ok(f"fell: {', '.join(s.value for s in plates)}: "
                              "take a tile (that size or smaller) or sell, plate by plate")
        if self.pushed >= 2:
            self.phase = Phase.CONSOLATION
            return Verdict.ok("nothing fell: take a small tile or 1 sesterce")
        return Verdict.ok("nothing fell", *self._end_turn())

    def _plate_choice(self, action: TakeTile | SellPlate | TakeSesterce) -> Verdict:
        p = self.current
        if self.phase is Phase.PLATES:
            plate = self.pending[0]
            if isinstance(action, TakeSesterce):
                raise IllegalAction("quarry.decide", f"a {plate.value} plate fell: take a tile or sell it")
            if isinstance(action, TakeTile):
                self._check_take(p, action, plate)
                message = self._take_tile(p, action)
            else:
                self.sesterces[p] += 1
                message = f"sell the {plate.value} plate: +1 sesterce"
            self.pending.pop(0)
            if self.pending:
                return Verdict.ok(message, f"next plate: {self.pending[0].value}")
            return Verdict.ok(message, *self._end_turn())
        if self.phase is Phase.CONSOLATION:
            if isinstance(action, SellPlate):
                raise IllegalAction("quarry.decide", "nothing fell: take a small tile or 1 sesterce")
            if isinstance(action, TakeTile):
                self._check_take(p, action, Size.SMALL)
                message = self._take_tile(p, action)
            else:
                self.sesterces[p] += 1
                message = "nothing fell: +1 sesterce"
            return Verdict.ok(message, *self._end_turn())
        raise IllegalAction("quarry.decide", f"no quarry decision is open: got {type(action).__name__}")

    def _check_take(self, p: int, action: TakeTile, limit: Size) -> None:
        size = action.size
        if not isinstance(size, Size) or not all(isinstance(u, Size) for u in action.unload):
            raise IllegalAction("quarry.tile-size", f"expected small, medium or large, got {action!r}")
        if size.rank > limit.rank:
            raise IllegalAction("quarry.tile-size", f"{size.value} tile for a {limit.value} plate: "
                                f"at most {limit.value}")
        if self.tile_supply[SIZES.index(size)] == 0:
            raise IllegalAction("quarry.tile-supply", f"no {size.value} tiles left in the supply")
        free = self.rules.cart_capacity - self.cart_units(p)
        if action.unload:
            if not self.rules.cart_unload:
                raise IllegalAction("quarry.unload", "tiles cannot be put back from the cart (option cart_unload)")
            if size in action.unload:
                raise IllegalAction("quarry.unload", f"put back a {size.value} tile to take a {size.value} tile: "
                                    "expected tiles of other sizes")
            for u in SIZES:
                n = sum(1 for x in action.unload if x is u)
                if n > self.cart[p][SIZES.index(u)]:
                    raise IllegalAction("quarry.unload", f"put back {n} {u.value} tile(s), "
                                        f"the cart holds {self.cart[p][SIZES.index(u)]}")
            if not self._unload_ok(action.unload, self.rules.units(size) - free):
                raise IllegalAction("quarry.unload", "put back only what is needed to make room for a "
                                    f"{size.value} tile ({free} of {self.rules.cart_capacity} units free)")
        elif not self.room_for(p, size):
            raise IllegalAction("quarry.cart-full",
                                f"a {size.value} tile needs {self.rules.units(size)} units, the cart has "
                                f"{free} of {self.rules.cart_capacity} free")

    def _take_tile(self, p: int, action: TakeTile) -> str:
        text = ""
        for u in action.unload:
            j = SIZES.index(u)
            self.cart[p][j] -= 1
            self.tile_supply[j] += 1
        if action.unload:
            text = f"put back {', '.join(u.value for u in action.unload)} from the cart, "
        i = SIZES.index(action.size)
        self.tile_supply[i] -= 1
        self.cart[p][i] += 1
        return text + f"take a {action.size.value} tile into the cart"

    def _build(self, action: Build) -> Verdict:
        p = self.current
        board = self.data.board
        spaces = action.spaces
        if not 1 <= len(spaces) <= 2:
            raise IllegalAction("build.count", f"build 1 or 2 tiles, got {len(spaces)}")
        cart = list(self.cart[p])
        built = set(self.built)
        for k, sid in enumerate(spaces):
            space = board.space_by_id.get(sid) if isinstance(sid, str) else None
            if space is None:
                raise IllegalAction("build.unknown-space", f"no road space {sid!r} on the board")
            if sid in built:
                raise IllegalAction("build.occupied", f"{sid} is already built")
            if k == 1 and space.section != board.space_by_id[spaces[0]].section:
                raise IllegalAction("build.same-section",
                                    f"the second tile must be in section {board.space_by_id[spaces[0]].section}, "
                                    f"got {sid} in section {space.section}")
            if sid not in self.buildable(p, built):
                raise IllegalAction("build.connection",
                                    f"{sid} is not connected by built spaces to a city you have visited")
            i = SIZES.index(space.size)
            if cart[i] == 0:
                raise IllegalAction("build.no-tile", f"{sid} needs a {space.size.value} tile, none in the cart")
            cart[i] -= 1
            built.add(sid)
        # --- mutate
        messages = []
        for sid in spaces:
            space = board.space_by_id[sid]
            self.cart[p][SIZES.index(space.size)] -= 1
            self.built[sid] = p
            self.vp[p] += space.size.vp
            text = f"built {sid} ({space.size.value}): +{space.size.vp} VP"
            if self.bonus_supply[space.section] > 0 or not self.rules.bonus_tokens_limited:
                if self.bonus_supply[space.section] > 0:
                    self.bonus_supply[space.section] -= 1
                self.bonus[p][space.section] += 1
                text += f", bonus token {space.section}"
            else:
                text += f", no bonus token {space.section} left"
            messages.append(text)
        if len(spaces) == 2:
            self.sesterces[p] += 1
            messages.append("two tiles: +1 sesterce")
        if self.road_complete() and not self.end_triggered:
            self.end_triggered = True
            messages.append(self._trigger_text("the road is complete"))
        messages.extend(self._end_turn())
        return Verdict.ok(*messages)

    def _travel(self, action: Travel) -> Verdict:
        p = self.current
        board = self.data.board
        path = action.path
        if not 1 <= len(path) <= 3:
            raise IllegalAction("travel.steps", f"travel 1, 2 or 3 spaces, got {len(path)}")
        node = self.position[p]
        for k, nxt in enumerate(path):
            if not isinstance(nxt, str) or nxt not in board.succ:
                raise IllegalAction("travel.unknown", f"no space or city {nxt!r} on the board")
            if nxt not in board.succ[node]:
                raise IllegalAction("travel.not-linked", f"{board.name(nxt)} is not the next space after "
                                    f"{board.name(node)} (expected one of "
                                    f"{', '.join(board.name(m) for m in board.succ[node]) or 'none'})")
            if not board.is_city(nxt) and nxt not in self.built:
                raise IllegalAction("travel.unbuilt", f"{nxt} is not built yet")
            if board.is_city(nxt) and k < len(path) - 1 and self.rules.travel_stops_at_city:
                raise IllegalAction("travel.city-stop", f"a move ends in {board.name(nxt)}: "
                                    f"got {len(path) - k - 1} more step(s) after it")
            node = nxt
        base, markers, cost = self.travel_cost(p, len(path))
        if cost > self.sesterces[p]:
            raise IllegalAction("travel.cost", f"travel {len(path)} costs {cost} sesterces, you have {self.sesterces[p]}")
        # --- mutate
        steps = len(path)
        text = f"travel {_count(steps, 'space')}: {_count(base, 'sesterce')}"
        if markers:
            text += f", {_count(markers, 'city marker')}: pays {cost}"
        messages = [text]
        self.sesterces[p] -= cost
        self.position[p] = path[-1]
        for nxt in path:
            if board.is_city(nxt) and nxt not in self.visited[p]:
                messages.extend(self._reach_city(p, nxt))
        messages.extend(self._end_turn())
        return Verdict.ok(*messages)

    def _reach_city(self, p: int, city: str) -> list[str]:
        board = self.data.board
        self.visited[p].add(city)
        name = board.name(city)
        stack = self.vp_stacks[city]
        messages = []
        if stack:
            token = stack.pop(0)
            self.vp[p] += token
            text = f"{name} reached: VP token {token}"
        else:
            token = 0
            text = f"{name} reached: no VP token left"
        if self.markers[city] < self.rules.city_marker_cap:
            self.markers[city] += 1
            text += ", city marker placed"
        messages.append(text)
        if city == board.end and token and not self.end_triggered:
            self.end_triggered = True
            messages.append(self._trigger_text(f"{name} reached"))
        return messages

    def _trigger_text(self, why: str) -> str:
        if self.rules.finish_round and self.current != self.last_in_round():
            return f"{why}: the round is played to the end"
        return f"{why}: the game ends"

    def last_in_round(self) -> int:
        return (self.start_player - 1) % self.players

    def _end_turn(self) -> list[str]:
        self.phase = Phase.ACTION
        self.pushed = 0
        self.pending = []
        if self.end_triggered and (not self.rules.finish_round or self.current == self.last_in_round()):
            return self._final_scoring()
        self.current = (self.current + 1) % self.players
        return []

    # ---- final scoring -----------------------------------------------------------------

    def _final_scoring(self) -> list[str]:
        self.over = True
        self.phase = Phase.OVER
        messages = ["game over: final scoring"]
        for p, pts in placings(self.sesterces, (MOST_SESTERCES_VP,), self.rules.tie_skips_next_place):
            self.vp[p] += pts
            messages.append(f"most sesterces: {_player(p)} +{pts} VP")
        for sec in self.data.board.sections:
            counts = [self.bonus[p][sec.id] for p in range(self.players)]
            for p, pts in placings(counts, SECTION_AWARDS, self.rules.tie_skips_next_place):
                self.vp[p] += pts
                messages.append(f"section {sec.id} bonus tokens: {_player(p)} +{pts} VP")
        best = max(self.vp)
        names = [_player(p) for p in range(self.players) if self.vp[p] == best]
        messages.append(("winner: " if len(names) == 1 else "shared win: ") + ", ".join(names)
                        + f" with {best} VP")
        return messages

    def winners(self) -> tuple[int, ...]:
        if not self.over:
            return ()
        best = max(self.vp)
        return tuple(p for p in range(self.players) if self.vp[p] == best)

    # ---- views and JSON ----------------------------------------------------------------

    def public_view(self) -> PublicView:
        board = self.data.board
        seats = tuple(
            PlayerView(
                position=self.position[p],
                visited=tuple(c.id for c in board.cities if c.id in self.visited[p]),
                stones=self.stones[p],
                sesterces=self.sesterces[p],
                vp=self.vp[p],
                push_token=self.push_token[p],
                cart=tuple(zip(SIZES, self.cart[p])),
                bonus=tuple(self.bonus[p].items()),
            )
            for p in range(self.players)
        )
        return PublicView(
            players=self.players,
            start_player=self.start_player,
            current_player=self.current_player,
            phase=self.phase,
            pushed=self.pushed,
            pending=tuple(self.pending),
            display=tuple(self.display),
            draw_count=self.draw_count,
            taken=tuple(self.taken),
            refills=self.refills,
            seats=seats,
            tile_supply=tuple(zip(SIZES, self.tile_supply)),
            built=tuple((s.id, self.built[s.id]) for s in board.spaces if s.id in self.built),
            bonus_supply=tuple(self.bonus_supply.items()),
            vp_stacks=tuple((c, tuple(v)) for c, v in self.vp_stacks.items()),
            markers=tuple(self.markers.items()),
            stone_pool=self.stone_pool,
            push_token_supply=self.push_token_supply,
            end_triggered=self.end_triggered,
            over=self.over,
        )

    def to_json(self) -> dict[str, Any]:
        board = self.data.board
        return {
            "players": self.players,
            "start_player": self.start_player,
            "current": self.current,
            "phase": self.phase.value,
            "pushed": self.pushed,
            "pending": [s.value for s in self.pending],
            "display": list(self.display),
            "taken": list(self.taken),
            "draw_count": self.draw_count,
            "refills": self.refills,
            "stones": list(self.stones),
            "sesterces": list(self.sesterces),
            "vp": list(self.vp),
            "push_token": list(self.push_token),
            "push_token_supply": self.push_token_supply,
            "cart": [list(c) for c in self.cart],
            "tile_supply": list(self.tile_supply),
            "built": dict(self.built),
            "bonus": [dict(b) for b in self.bonus],
            "bonus_supply": dict(self.bonus_supply),
            "position": list(self.position),
            "visited": [[c.id for c in board.cities if c.id in v] for v in self.visited],
            "vp_stacks": {c: list(v) for c, v in self.vp_stacks.items()},
            "markers": dict(self.markers),
            "stone_pool": self.stone_pool,
            "end_triggered": self.end_triggered,
            "over": self.over,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], rules: Rules, data: GameData) -> "Table":
        """Rebuild a table from :meth:`to_json`; raises :class:`CompanionError` if malformed."""
        try:
            t = cls.__new__(cls)
            t.players = int(d["players"])
            t.rules = rules
            t.data = data
            t.start_player = int(d["start_player"])
            t.current = int(d["current"])
            t.phase = _enum(Phase, d["phase"], "phase")
            t.pushed = int(d["pushed"])
            t.pending = [_enum(Size, s, "pending plate") for s in d["pending"]]
            t.display = [int(c) for c in d["display"]]
            t.taken = [int(c) for c in d["taken"]]
            t.draw_count = int(d["draw_count"])
            t.refills = int(d["refills"])
            t.stones = [int(x) for x in d["stones"]]
            t.sesterces = [int(x) for x in d["sesterces"]]
            t.vp = [int(x) for x in d["vp"]]
            t.push_token = [bool(x) for x in d["push_token"]]
            t.push_token_supply = int(d["push_token_supply"])
            t.cart = [[int(x) for x in c] for c in d["cart"]]
            t.tile_supply = [int(x) for x in d["tile_supply"]]
            t.built = {str(k): int(v) for k, v in d["built"].items()}
            t.bonus = [{str(k): int(v) for k, v in b.items()} for b in d["bonus"]]
            t.bonus_supply = {str(k): int(v) for k, v in d["bonus_supply"].items()}
            t.position = [str(x) for x in d["position"]]
            t.visited = [set(map(str, v)) for v in d["visited"]]
            t.vp_stacks = {str(k): [int(x) for x in v] for k, v in d["vp_stacks"].items()}
            t.markers = {str(k): int(v) for k, v in d["markers"].items()}
            t.stone_pool = int(d["stone_pool"])
            t.end_triggered = bool(d["end_triggered"])
            t.over = bool(d["over"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CompanionError(f"appia state: malformed JSON ({exc!r})") from None
        t._check_shape()
        return t

    def _check_shape(self) -> None:
        n = self.players
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise CompanionError(f"appia state: expected {MIN_PLAYERS}..{MAX_PLAYERS} players, got {n}")
        for name in ("stones", "sesterces", "vp", "push_token", "cart", "bonus", "position", "visited"):
            if len(getattr(self, name)) != n:
                raise CompanionError(f"appia state: expected {n} entries in {name!r}, got {len(getattr(self, name))}")
        board = self.data.board
        for pos in self.position:
            if pos not in board.succ:
                raise CompanionError(f"appia state: unknown figure position {pos!r}")
        for sid in self.built:
            if sid not in board.space_by_id:
                raise CompanionError(f"appia state: unknown built space {sid!r}")
        for c in self.display + self.taken:
            if c not in self.data.card_by_id:
                raise CompanionError(f"appia state: unknown income card {c}")


def placings(values: list[int], awards: tuple[int, ...], skip_next: bool) -> list[tuple[int, int]]:
    """Award ``awards`` (first, second, ...) by descending ``values``; 0 never places.

    Tied players all get that place's award; with ``skip_next`` as many places as tied players
    are used up (two tied first: nobody is second), else the next value gets the next place.
    Returns (player, points) pairs in player order within each place.
    """
    out: list[tuple[int, int]] = []
    place = 0
    for value in sorted({v for v in values if v > 0}, reverse=True):
        if place >= len(awards):
            break
        tied = [p for p, v in enumerate(values) if v == value]
        out.extend((p, awards[place]) for p in tied)
        place += len(tied) if skip_next else 1
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _ids(cards: list[int] | tuple[int, ...]) -> str:
    return ", ".join(str(c) for c in cards) or "none"


# --------------------------------------------------------------------------------------------
# Full-information state


class State:
    """The full game: the public :class:`Table` plus the hidden order of the income draw pile."""

    def __init__(self, table: Table, seed: int, draw_pile: list[int], reshuffles: int) -> None:
        self.table = table
        self.seed = seed
        self.draw_pile = draw_pile
        self.reshuffles = reshuffles

    # -- the common API
    @property
    def players(self) -> int:
        return self.table.players

    @property
    def rules(self) -> Rules:
        return self.table.rules

    @property
    def current_player(self) -> int | None:
        return self.table.current_player

    def legal_actions(self) -> list[Action]:
        return self.table.legal_actions()

    def apply(self, action: Any) -> Verdict:
        """Apply a legal action; raises :class:`IllegalAction` (state unchanged) otherwise."""
        t = self.table
        new_display = None
        if t.income_empties_display(action):
            new_display = tuple(self.draw_pile[:DISPLAY_SIZE])
            if action.revealed is not None and tuple(action.revealed) != new_display:
                raise IllegalAction("income.revealed", f"the new cards are {_ids(new_display)}, "
                                    f"got {_ids(action.revealed)}")
        elif isinstance(action, Income) and action.revealed is not None:
            raise IllegalAction("income.revealed", "new cards are laid out only when the last card is taken")
        taken_after = list(t.taken) + ([action.card] if new_display is not None else [])
        verdict = t.apply(action, new_display)
        if new_display is not None:
            self.reshuffles += 1
            self.draw_pile = seeded_shuffle(self.draw_pile[DISPLAY_SIZE:] + taken_after,
                                            self.seed, f"reshuffle-{self.reshuffles}")
        return verdict

    def is_over(self) -> bool:
        return self.table.over

    def scores(self) -> tuple[int, ...]:
        return tuple(self.table.vp)

    def winners(self) -> tuple[int, ...]:
        return self.table.winners()

    def is_chance_node(self) -> bool:
        return not self.table.over and self.table.phase is Phase.QUARRY

    def chance_outcomes(self) -> list[tuple[QuarryOutcome, float]]:
        """The simulation model's distribution of fallen plates (see :data:`PLATE_MODEL`)."""
        if not self.is_chance_node():
            return []
        return quarry_distribution(self.table.pushed)

    def public_view(self) -> PublicView:
        return self.table.public_view()

    def public_action(self, action: Action) -> Action:
        """What the observer is told; call it before :meth:`apply`. Everything entered is
        public; an income that empties the display also carries the 7 new cards."""
        if self.table.income_empties_display(action) and action.revealed is None:
            return Income(action.card, action.take, tuple(self.draw_pile[:DISPLAY_SIZE]))
        return action

    def observer(self) -> "Observer":
        return Observer(Table.from_json(self.table.to_json(), self.table.rules, self.table.data))

    def describe(self, action: Action) -> str:
        return describe(action)

    def all_cards(self) -> tuple[str, ...]:
        """Every income card (display, draw pile, taken) and every road tile (supply, carts, road)."""
        t = self.table
        cards = [f"income-{c}" for c in t.display + self.draw_pile + t.taken]
        board = t.data.board
        for i, size in enumerate(SIZES):
            n = t.tile_supply[i] + sum(c[i] for c in t.cart)
            n += sum(1 for sid in t.built if board.space_by_id[sid].size is size)
            cards.extend(f"tile-{size.value}-{k}" for k in range(1, n + 1))
        return tuple(cards)

    def to_json(self) -> dict[str, Any]:
        data = self.table.data
        return {
            "game": NAME,
            "seed": self.seed,
            "rules": self.table.rules.to_json(),
            "data": None if data is default_data() or data == default_data() else data.to_json(),
            "table": self.table.to_json(),
            "draw_pile": list(self.draw_pile),
            "reshuffles": self.reshuffles,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "State":
        if not isinstance(d, dict) or d.get("game") != NAME:
            raise CompanionError(f"appia state: expected an object with game {NAME!r}, got {str(d)[:60]!r}")
        rules = Rules.from_json(d.get("rules"))
        data = default_data() if d.get("data") is None else GameData.from_json(d["data"])
        table = Table.from_json(d.get("table", {}), rules, data)
        try:
            return cls(table, int(d["seed"]), [int(c) for c in d["draw_pile"]], int(d["reshuffles"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"appia state: malformed JSON ({exc!r})") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    # -- test helper
    @classmethod
    def for_test(cls, players: int = 2, seed: int = 0, rules: Rules | None = None,
                 **overrides: Any) -> "State":
        """A new game with table fields replaced, e.g. ``cart=[[1, 0, 1], [0, 0, 0]]``,
        ``built={"A01": 0}``, ``display=[1, 2]``. Meant for hand-built test positions."""
        state = new_game(players, seed, rules)
        d = state.to_json()
        for key, value in overrides.items():
            if key not in d["table"]:
                raise CompanionError(f"for_test: unknown table field {key!r}")
            d["table"][key] = value
        if "display" in overrides or "taken" in overrides:
            used = set(d["table"]["display"]) | set(d["table"]["taken"])
            ids = [c.id for c in state.table.data.cards]
            d["draw_pile"] = [c for c in d["draw_pile"] + ids if c not in used]
            d["draw_pile"] = list(dict.fromkeys(d["draw_pile"]))
            d["table"]["draw_count"] = len(d["draw_pile"])
        return cls.from_json(d)


def new_game(players: int, seed: int, rules: Rules | None = None, data: GameData | None = None) -> State:
    """A new game; the start player and the income cards are shuffled from ``seed``."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CompanionError(f"{TITLE} takes {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
    rules = rules or Rules()
    data = data or default_data()
    start = seeded_shuffle(range(players), seed, "start-player")[0]
    deck = seeded_shuffle([c.id for c in data.cards], seed, "deal")
    table = Table(players, start, tuple(deck[:DISPLAY_SIZE]), rules, data)
    return State(table, seed, deck[DISPLAY_SIZE:], 0)


def describe(action: Action) -> str:
    """One log line for an action."""
    if isinstance(action, Income):
        return f"income card {action.card}: {action.take.value}"
    if isinstance(action, Push):
        return f"push {action.stones} stone{'s' if action.stones != 1 else ''}" + \
            (" (push +1 token)" if action.use_token else "")
    if isinstance(action, QuarryOutcome):
        return "quarry: " + (", ".join(s.value for s in action.fallen) + " fell" if action.fallen
                             else "nothing fell")
    if isinstance(action, TakeTile):
        back = f" (put back {', '.join(u.value for u in action.unload)})" if action.unload else ""
        return f"take a {action.size.value} tile{back}"
    if isinstance(action, SellPlate):
        return "sell the plate for 1 sesterce"
    if isinstance(action, TakeSesterce):
        return "take 1 sesterce"
    if isinstance(action, Build):
        return "build " + ", ".join(action.spaces)
    if isinstance(action, Travel):
        return f"travel {action.steps}: " + " > ".join(action.path)
    return repr(action)


# --------------------------------------------------------------------------------------------
# Observer


class Observer:
    """What the table shows, fed by the score pad and the camera; never raises for illegal input."""

    def __init__(self, table: Table) -> None:
        self.table = table

    @classmethod
    def start(cls, players: int, first_player: int, display: tuple[int, ...],
              rules: Rules | None = None, board: Board | None = None,
              cards: tuple[IncomeCard, ...] | None = None) -> "Observer":
        """A live observer from the start player and the 7 income cards the camera reads."""
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise CompanionError(f"{TITLE} takes {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
        if not 0 <= first_player < players:
            raise CompanionError(f"first player: expected 0..{players - 1}, got {first_player}")
        default = default_data()
        data = GameData(board or default.board, cards or default.cards)
        display = tuple(display)
        if len(display) != DISPLAY_SIZE or len(set(display)) != DISPLAY_SIZE or \
                not set(display) <= set(data.card_by_id):
            raise CompanionError(f"display: expected {DISPLAY_SIZE} different income card ids, got {display!r}")
        return cls(Table(players, first_player, display, rules or Rules(), data))

    @property
    def players(self) -> int:
        return self.table.players

    @property
    def current_player(self) -> int | None:
        return self.table.current_player

    def apply(self, action: Any) -> Verdict:
        t = self.table
        try:
            new_display = None
            if t.income_empties_display(action):
                revealed = action.revealed
                if revealed is None:
                    raise IllegalAction("income.revealed", f"the display is empty now: expected the "
                                        f"{DISPLAY_SIZE} new cards laid out, got none")
                pile = t.draw_pile_cards() - {action.card}
                if len(revealed) != DISPLAY_SIZE or len(set(revealed)) != DISPLAY_SIZE or \
                        not set(revealed) <= pile:
                    raise IllegalAction("income.revealed", f"expected {DISPLAY_SIZE} different cards "
                                        f"from the draw pile, got {_ids(revealed)}")
                new_display = tuple(revealed)
            elif isinstance(action, Income) and action.revealed is not None:
                raise IllegalAction("income.revealed", "new cards are laid out only when the last card is taken")
            return t.apply(action, new_display)
        except IllegalAction as exc:
            return Verdict.illegal(exc.rule, exc.reason)

    def legal_actions(self) -> list[Action]:
        return self.table.legal_actions()

    def public_view(self) -> PublicView:
        return self.table.public_view()

    def is_over(self) -> bool:
        return self.table.over

    def scores(self) -> tuple[int, ...]:
        return tuple(self.table.vp)

    def winners(self) -> tuple[int, ...]:
        return self.table.winners()

    def to_json(self) -> dict[str, Any]:
        data = self.table.data
        return {
            "game": NAME,
            "rules": self.table.rules.to_json(),
            "data": None if data == default_data() else data.to_json(),
            "table": self.table.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Observer":
        if not isinstance(d, dict) or d.get("game") != NAME:
            raise CompanionError(f"appia observer: expected an object with game {NAME!r}")
        rules = Rules.from_json(d.get("rules"))
        data = default_data() if d.get("data") is None else GameData.from_json(d["data"])
        return cls(Table.from_json(d.get("table", {}), rules, data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Observer) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]
