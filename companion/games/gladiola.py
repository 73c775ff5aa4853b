"""Via Gladiola: the rule engine (full-information state and camera observer).

The game in short (``rules/via-gladiola.md`` has every detail): four days; on each day the
players build one walk pile upwards from the START card (0 km). A turn is one action: *walk*
(lay a higher card, at most 15 above the top, and draw 0/1/2 cards for a step of 1-5/6-10/11-15),
*pause* (draw 1) or, on day 4 only, *lay a gladiola* beside the walk pile (draw nothing). A FINISH
card (50 km) ends the day; the fourth day's FINISH ends the game. Fewest blisters in hand wins.

Design: the public part of the game (what a camera sees) is one frozen :class:`PublicView`, and a
single pure function, :func:`_advance`, computes the next view, the verdict and the list of hidden
card movements (draws, reshuffles) for an action. The full :class:`State` runs that function and
then moves the hidden cards; the :class:`Observer` runs the same function and keeps only the
view. So both agree on every public fact by construction.

Conventions: players are numbered from 0; ``draw_pile[0]`` is the top card; a walk pile always
starts with the START card; a set-aside pile (one per finished day) never holds the START card,
which moves on to the next day's pile; a set-aside pile that has been shuffled into the draw
pile is kept as an empty tuple, and ``reshuffles`` counts those piles (always the earliest days).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Union

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games.base import Verdict, parse_int, read_csv_rows, samples_dir, seeded_shuffle

NAME = "gladiola"
TITLE = "Via Gladiola"
SCORE_LABEL = "blisters"
MIN_PLAYERS = 2
MAX_PLAYERS = 6

HAND_SIZE = 8
DAYS = 4
MAX_STEP = 15
FINISH_VALUE = 50
DECK_HEADER = ("id", "kind", "value", "blisters")

# (lowest step, highest step, name, cards to draw)
PACES: tuple[tuple[int, int, str, int], ...] = (
    (1, 5, "leisurely", 0),
    (6, 10, "brisk", 1),
    (11, 15, "strenuous", 2),
)


# --------------------------------------------------------------------------------------------
# Cards and the deck file


class CardKind(enum.Enum):
    """The four kinds of card in the box (values match the JSON contract's ``kind``)."""

    START = "start"
    WALK = "walk"
    FINISH = "finish"
    GLADIOLA = "gladiola"


# kind -> (number of cards, allowed blister range)
_KIND_COUNTS = {CardKind.START: 1, CardKind.WALK: 49, CardKind.FINISH: 6, CardKind.GLADIOLA: 8}
_BLISTER_RANGE = {
    CardKind.START: (0, 0),
    CardKind.WALK: (0, 5),
    CardKind.FINISH: (0, 2),
    CardKind.GLADIOLA: (1, 5),
}
DECK_SIZE = sum(_KIND_COUNTS.values())


@dataclass(frozen=True)
class Card:
    """One physical card: ``value`` is its km value (None for a gladiola)."""

    id: str
    kind: CardKind
    value: int | None
    blisters: int

    @property
    def walkable(self) -> bool:
        """Whether the card can be laid on a walk pile (walk and FINISH cards)."""
        return self.kind in (CardKind.WALK, CardKind.FINISH)

    @property
    def label(self) -> str:
        """How players name the card: its value, ``FINISH`` or ``gladiola <id>``."""
        if self.kind is CardKind.WALK:
            return str(self.value)
        if self.kind is CardKind.FINISH:
            return "FINISH"
        if self.kind is CardKind.START:
            return "START"
        return f"gladiola {self.id}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "value": self.value, "blisters": self.blisters}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Card":
        try:
            kind = CardKind(data["kind"])
            value = data["value"]
            card = cls(str(data["id"]), kind, None if value is None else int(value), int(data["blisters"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(
                f"expected a card {{id, kind, value, blisters}}, got {data!r} ({exc})"
            ) from None
        return card


def _deck_problem(cards: Sequence[Card]) -> str | None:
    """The first whole-deck problem of ``cards`` (counts, ids, values, ranges), or None."""
    seen: set[str] = set()
    for card in cards:
        if not card.id:
            return "a card has an empty id"
        if card.id in seen:
            return f"card id {card.id!r} appears twice"
        seen.add(card.id)
        lo, hi = _BLISTER_RANGE[card.kind]
        if not lo <= card.blisters <= hi:
            return f"{card.id}: blisters expected {lo}..{hi}, got {card.blisters}"
        expected = {CardKind.START: 0, CardKind.FINISH: FINISH_VALUE, CardKind.GLADIOLA: None}
        if card.kind is CardKind.WALK:
            if card.value is None or not 1 <= card.value <= 49:
                return f"{card.id}: walk value expected 1..49, got {card.value}"
        elif card.value != expected[card.kind]:
            return f"{card.id}: {card.kind.value} value expected {expected[card.kind]}, got {card.value}"
    walk_values = sorted(c.value for c in cards if c.kind is CardKind.WALK and c.value is not None)
    missing = sorted(set(range(1, 50)) - set(walk_values))
    if len(walk_values) != len(set(walk_values)):
        return "a walk value appears twice"
    for kind, count in _KIND_COUNTS.items():
        got = sum(1 for c in cards if c.kind is kind)
        if got != count:
            extra = ""
            if kind is CardKind.WALK and missing:
                extra = f" (missing values: {', '.join(map(str, missing))})"
            return f"expected {count} {kind.value} card{'s' if count != 1 else ''}, got {got}{extra}"
    return None


@dataclass(frozen=True)
class Deck:
    """The 64 cards of one copy of the game, validated on construction."""

    cards: tuple[Card, ...]
    _by_id: Mapping[str, Card] = field(init=False, repr=False, compare=False, hash=False)
    _sorted_ids: tuple[str, ...] = field(init=False, repr=False, compare=False, hash=False)
    _walkable: frozenset[str] = field(init=False, repr=False, compare=False, hash=False)
    _gladiolas: frozenset[str] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        problem = _deck_problem(self.cards)
        if problem is not None:
            raise CompanionError(f"invalid Via Gladiola deck: {problem}")
        object.__setattr__(self, "_by_id", {c.id: c for c in self.cards})
        object.__setattr__(self, "_sorted_ids", tuple(sorted(self._by_id)))
        object.__setattr__(self, "_walkable", frozenset(c.id for c in self.cards if c.walkable))
        object.__setattr__(
            self, "_gladiolas", frozenset(c.id for c in self.cards if c.kind is CardKind.GLADIOLA)
        )

    @property
    def sorted_ids(self) -> tuple[str, ...]:
        """Every card id, sorted (to check that a position holds each card once)."""
        return self._sorted_ids

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._by_id

    def card(self, card_id: str) -> Card:
        """The card with ``card_id``; CompanionError if the deck has none."""
        try:
            return self._by_id[card_id]
        except KeyError:
            raise CompanionError(f"unknown card id {card_id!r}: not in this deck") from None

    def get(self, card_id: str) -> Card | None:
        return self._by_id.get(card_id)

    @property
    def start(self) -> Card:
        return next(c for c in self.cards if c.kind is CardKind.START)

    def walk_card(self, value: int) -> Card:
        """The walk card of km ``value`` (1..49)."""
        for c in self.cards:
            if c.kind is CardKind.WALK and c.value == value:
                return c
        raise CompanionError(f"no walk card of value {value}: expected 1..49")

    def of_kind(self, kind: CardKind) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.kind is kind)

    def blisters(self, card_ids: Iterable[str]) -> int:
        return sum(self.card(i).blisters for i in card_ids)

    def to_json(self) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.cards]

    @classmethod
    def from_json(cls, data: Any) -> "Deck":
        if not isinstance(data, list):
            raise CompanionError(f"expected a deck as a list of cards, got {type(data).__name__}")
        return cls(tuple(Card.from_json(d) for d in data))


def load_deck(path: str | Path | None = None) -> Deck:
    """Read and validate a deck CSV (``id,kind,value,blisters``); None means the bundled sample.

    Raises :class:`DataFileError` naming the file and the line of a bad row, or the file alone
    (line None) for whole-deck problems such as a missing walk value.
    """
    if path is None:
        return _bundled_deck()
    path = Path(path)
    cards: list[Card] = []
    id_lines: dict[str, int] = {}
    value_lines: dict[int, int] = {}
    kinds = ", ".join(k.value for k in CardKind)
    for row in read_csv_rows(path, DECK_HEADER):
        card_id = row.values["id"]
        if not card_id:
            raise DataFileError(path, row.line, "id: expected a card id, got an empty field")
        if card_id in id_lines:
            raise DataFileError(
                path, row.line, f"id: {card_id!r} is already used on line {id_lines[card_id]}"
            )
        try:
            kind = CardKind(row.values["kind"].lower())
        except ValueError:
            raise DataFileError(
                path, row.line, f"kind: expected one of {kinds}, got {row.values['kind']!r}"
            ) from None
        raw_value = row.values["value"]
        value: int | None
        if kind is CardKind.GLADIOLA:
            if raw_value:
                raise DataFileError(
                    path, row.line, f"value: expected an empty field for a gladiola, got {raw_value!r}"
                )
            value = None
        elif kind is CardKind.WALK:
            value = parse_int(row, path, "value", 1, 49)
            if value in value_lines:
                raise DataFileError(
                    path, row.line, f"value: walk value {value} is already used on line {value_lines[value]}"
                )
            value_lines[value] = row.line
        elif kind is CardKind.FINISH:
            value = parse_int(row, path, "value", FINISH_VALUE, FINISH_VALUE)
        else:
            value = parse_int(row, path, "value", 0, 0)
        lo, hi = _BLISTER_RANGE[kind]
        blisters = parse_int(row, path, "blisters", lo, hi)
        id_lines[card_id] = row.line
        cards.append(Card(card_id, kind, value, blisters))
    problem = _deck_problem(cards)
    if problem is not None:
        raise DataFileError(path, None, problem)
    return Deck(tuple(cards))


@functools.lru_cache(maxsize=1)
def _bundled_deck() -> Deck:
    return load_deck(samples_dir() / "decks" / "gladiola.csv")


def _deck_to_json(deck: Deck) -> list[dict[str, Any]] | None:
    """The deck for a saved state: None stands for the bundled sample deck."""
    bundled = _bundled_deck()
    return None if deck is bundled or deck == bundled else deck.to_json()


def _deck_from_json(data: Any) -> Deck:
    return _bundled_deck() if data is None else Deck.from_json(data)


# --------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True)
class Rules:
    """Options. Each default is the interpretation documented in ``docs/interpretations/gladiola.md``.

    * ``finish_draws``: a FINISH walk draws for its step like any walk (before the day ends).
    * ``finisher_starts_next_day``: False = turn order simply continues with the player after
      the one who laid FINISH; True = the finisher also starts the next day.
    * ``last_card_ends_game``: the variant: the game also ends as soon as a player lays the last
      card from their hand.
    * ``last_card_skips_draws``: with the variant, the game ends at once, so the walk that emptied
      the hand draws nothing.
    """

    finish_draws: bool = True
    finisher_starts_next_day: bool = False
    last_card_ends_game: bool = False
    last_card_skips_draws: bool = True

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _RULE_NAMES}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "Rules":
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise CompanionError(f"expected Via Gladiola rules as an object, got {type(data).__name__}")
        names = _RULE_NAMES
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise CompanionError(
                f"unknown Via Gladiola option(s) {', '.join(unknown)}: expected {', '.join(sorted(names))}"
            )
        for key, value in data.items():
            if not isinstance(value, bool):
                raise CompanionError(f"option {key}: expected true or false, got {value!r}")
        return cls(**dict(data))


_RULE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules))


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class Walk:
    """Lay ``card`` (a walk or FINISH card) from hand on the walk pile."""

    card: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "walk", "card": self.card}


@dataclass(frozen=True)
class Pause:
    """Draw one card instead of playing."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "pause"}


@dataclass(frozen=True)
class LayGladiola:
    """Lay the gladiola ``card`` from hand beside the walk pile (day 4 only)."""

    card: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "gladiola", "card": self.card}


@dataclass(frozen=True)
class TableWalk:
    """The table overrules a refusal: ``card``, refused as a walk, stayed on the walk pile and
    the players laid the next card on it, so it counts as walked (an observer-only action).

    This is what happens when the camera missed a card before it: the pile's top in the
    observer is then older than the table's, every later walk would be judged against it, and
    the companion would go on refusing legal moves. It is accepted without the step rules and
    draws nothing (how many the player drew is not known); a full-information :class:`State`
    never takes it.
    """

    card: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "table-walk", "card": self.card}


@dataclass(frozen=True)
class TurnTo:
    """The camera saw ``player`` lay the next card while the count had another player to play:
    the turn passes to ``player`` (the players before them did something the camera missed).
    An observer-only action, like :class:`TableWalk`: nothing is drawn, no hand count changes,
    and a full-information :class:`State` never takes it."""

    player: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn-to", "player": self.player}


@dataclass(frozen=True)
class Recount:
    """At the game's end ``player`` shows ``count`` cards while the companion counted another
    number (a move it missed or gave to another player): the table's count is taken, so the
    shown hand can be revealed. An observer-only action, like :class:`TurnTo`; a
    full-information :class:`State` never takes it."""

    player: int
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "recount", "player": self.player, "count": self.count}


@dataclass(frozen=True)
class Relabel:
    """The FINISH or gladiola logged on the table as ``card`` is really ``as_card``, another
    card of the same kind (its blister count was misread while it lay partly covered, and the
    camera later sees ``card`` in a shown hand). Only the id on the table changes: a FINISH
    is worth 50 km whichever it is and a gladiola has no value, so no step, draw or verdict
    given before changes. An observer-only action, like :class:`Recount`; a full-information
    :class:`State` never takes it."""

    card: str
    as_card: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "relabel", "card": self.card, "as_card": self.as_card}


Action = Union[Walk, Pause, LayGladiola, TableWalk, TurnTo, Recount, Relabel]
_ACTION_TYPES = (Walk, Pause, LayGladiola, TableWalk, TurnTo, Recount, Relabel)
RELABEL_KINDS = (CardKind.FINISH, CardKind.GLADIOLA)
"""The kinds of card whose twins differ only in the blister count (what a :class:`Relabel` swaps)."""


def pause_by(to_play: int | None, player: int | None) -> tuple[Action, ...]:
    """What a press of ``player``'s own Pause button stands for: a pause, after passing the turn
    to them when the count has another player (``to_play``) to play. ``player`` None: the pause
    of whoever is to play."""
    if player is not None and to_play is not None and player != to_play:
        return (TurnTo(player), Pause())
    return (Pause(),)


def action_from_json(data: Any) -> Action:
    """Parse ``{"type": "walk"|"pause"|"gladiola"|"table-walk", "card": id}`` and the observer's
    ``turn-to``, ``recount`` and ``relabel`` (``card``, ``as_card``); CompanionError if malformed."""
    if not isinstance(data, Mapping):
        raise CompanionError(f"expected an action object, got {type(data).__name__}")
    kind = data.get("type")
    if kind == "pause":
        if set(data) - {"type"}:
            raise CompanionError(f"a pause takes no fields, got {sorted(set(data) - {'type'})}")
        return Pause()
    if kind == "turn-to":
        player = data.get("player")
        if not isinstance(player, int) or isinstance(player, bool) or set(data) - {"type", "player"}:
            raise CompanionError(f"a turn-to action takes an int player and nothing else, got {dict(data)!r}")
        return TurnTo(player)
    if kind == "recount":
        player, count = data.get("player"), data.get("count")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (player, count)) \
                or set(data) - {"type", "player", "count"}:
            raise CompanionError(f"a recount takes an int player and an int count and nothing else, got {dict(data)!r}")
        return Recount(player, count)
    if kind == "relabel":
        card, as_card = data.get("card"), data.get("as_card")
        if not all(isinstance(v, str) and v for v in (card, as_card)) or set(data) - {"type", "card", "as_card"}:
            raise CompanionError(f"a relabel takes a card id and an as_card id and nothing else, got {dict(data)!r}")
        return Relabel(card, as_card)
    if kind in ("walk", "gladiola", "table-walk"):
        card = data.get("card")
        if not isinstance(card, str) or not card:
            raise CompanionError(f"a {kind} action needs a card id string, got {card!r}")
        return {"walk": Walk, "gladiola": LayGladiola, "table-walk": TableWalk}[kind](card)
    raise CompanionError(
        f"action type: expected walk, pause, gladiola, table-walk, turn-to or recount (or relabel), got {kind!r}"
    )


def _check_action(action: object) -> None:
    if not isinstance(action, _ACTION_TYPES):
        raise CompanionError(
            f"expected a Via Gladiola action (Walk, Pause, LayGladiola, TableWalk, TurnTo, Recount, Relabel), "
            f"got {type(action).__name__}"
        )


# --------------------------------------------------------------------------------------------
# The public view and the shared transition


@dataclass(frozen=True)
class PublicView:
    """Everything a table observer can know.

    ``walk_pile``: today's pile, START first. ``set_aside``: one pile per finished day (day 1
    first), without START; a pile already shuffled into the draw pile is ``()``. ``reshuffles``:
    how many set-aside piles were used that way. ``current_player`` is None once the game is over.
    """

    players: int
    day: int
    current_player: int | None
    turn: int
    walk_pile: tuple[str, ...]
    set_aside: tuple[tuple[str, ...], ...]
    reshuffles: int
    gladiolas: tuple[str, ...]
    hand_counts: tuple[int, ...]
    draw_pile_size: int
    over: bool

    def on_table(self) -> frozenset[str]:
        """Card ids lying face up: walk pile, set-aside piles, gladiolas."""
        ids = set(self.walk_pile) | set(self.gladiolas)
        for pile in self.set_aside:
            ids.update(pile)
        return frozenset(ids)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "day": self.day,
            "current_player": self.current_player,
            "turn": self.turn,
            "walk_pile": list(self.walk_pile),
            "set_aside": [list(p) for p in self.set_aside],
            "reshuffles": self.reshuffles,
            "gladiolas": list(self.gladiolas),
            "hand_counts": list(self.hand_counts),
            "draw_pile_size": self.draw_pile_size,
            "over": self.over,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PublicView":
        try:
            cp = data["current_player"]
            return cls(
                players=int(data["players"]),
                day=int(data["day"]),
                current_player=None if cp is None else int(cp),
                turn=int(data["turn"]),
                walk_pile=_ids(data["walk_pile"]),
                set_aside=tuple(_ids(p) for p in data["set_aside"]),
                reshuffles=int(data["reshuffles"]),
                gladiolas=_ids(data["gladiolas"]),
                hand_counts=tuple(int(n) for n in data["hand_counts"]),
                draw_pile_size=int(data["draw_pile_size"]),
                over=bool(data["over"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"malformed Via Gladiola public view: {exc!r}") from None


def _ids(data: Any) -> tuple[str, ...]:
    if not isinstance(data, (list, tuple)):
        raise CompanionError(f"expected a list of card ids, got {data!r}")
    ids = tuple(data)
    if not set(map(type, ids)) <= {str}:
        raise CompanionError(f"expected a list of card ids, got {data!r}")
    return ids


def pace(step: int) -> tuple[str, int]:
    """The pace name and the number of cards to draw for a step of ``step`` km (1..15)."""
    for lo, hi, name, draws in PACES:
        if lo <= step <= hi:
            return name, draws
    raise CompanionError(f"a step must be 1..{MAX_STEP} km, got {step}")


def _cards(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class _Refusal:
    rule: str
    reason: str


@dataclass(frozen=True)
class _Reshuffle:
    """Hidden movement: the set-aside pile ``index`` (0 = day 1) becomes the draw pile."""

    index: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class _Draw:
    """Hidden movement: the acting player draws ``count`` cards from the top of the draw pile."""

    count: int


@dataclass(frozen=True)
class _Outcome:
    view: PublicView
    verdict: Verdict
    moves: tuple[Union[_Reshuffle, _Draw], ...]


def _judge(view: PublicView, action: Action, deck: Deck) -> _Refusal | None:
    """Why ``action`` is illegal by what the table shows (hand contents unknown), or None."""
    if isinstance(action, Recount):
        if not view.over:
            return _Refusal("recount.not-over", "a hand is recounted only when it is shown at the game's end")
        if not 0 <= action.player < view.players:
            return _Refusal("recount.player", f"player: expected 1..{view.players}, got {action.player + 1}")
        if action.count < 0:
            return _Refusal("recount.count", f"count: expected 0 or more cards, got {action.count}")
        if action.count == view.hand_counts[action.player]:
            return _Refusal("recount.same", f"player {action.player + 1} was counted {action.count} cards already")
        return None
    if isinstance(action, Relabel):
        return _judge_relabel(view, action, deck)
    if view.over or view.current_player is None:
        return _Refusal("game.over", "the game is over")
    if isinstance(action, Pause):
        return None
    if isinstance(action, TurnTo):
        if not 0 <= action.player < view.players:
            return _Refusal("turn.player", f"player: expected 1..{view.players}, got {action.player + 1}")
        if action.player == view.current_player:
            return _Refusal("turn.already", f"player {action.player + 1} is already to play")
        return None
    card = deck.get(action.card)
    if card is None:
        return _Refusal("card.unknown", f"unknown card {action.card!r}")
    if action.card in view.on_table():
        return _Refusal("card.on-table", f"{card.label} already lies on the table")
    if view.hand_counts[view.current_player] == 0:
        return _Refusal("card.not-in-hand", f"player {view.current_player + 1} has no cards in hand")
    if isinstance(action, LayGladiola):
        if card.kind is not CardKind.GLADIOLA:
            return _Refusal("gladiola.not-gladiola", f"{card.label} is not a gladiola")
        if view.day != DAYS:
            return _Refusal("gladiola.day4-only", f"gladiolas only on day 4 (today is day {view.day})")
        return None
    if not card.walkable:
        return _Refusal(
            "walk.not-walkable", f"a {card.kind.value} card cannot be walked, only cards with km values"
        )
    if isinstance(action, TableWalk):
        return None  # the table has overruled the step rules
    top = deck.card(view.walk_pile[-1])
    assert card.value is not None and top.value is not None
    step = card.value - top.value
    if step <= 0:
        return _Refusal("walk.not-higher", f"{card.value} is not higher than {top.value}")
    if step > MAX_STEP:
        if card.kind is CardKind.FINISH:
            return _Refusal(
                "finish.needs-35",
                f"+{step}, at most +{MAX_STEP}: FINISH needs a top card of "
                f"{FINISH_VALUE - MAX_STEP} or more, the top is {top.value}",
            )
        return _Refusal("walk.max-step", f"+{step}, at most +{MAX_STEP}")
    return None


def _judge_relabel(view: PublicView, action: Relabel, deck: Deck) -> _Refusal | None:
    """Why the table's ``action.card`` cannot be taken for ``action.as_card``, or None."""
    card, as_card = deck.get(action.card), deck.get(action.as_card)
    for cid, found in ((action.card, card), (action.as_card, as_card)):
        if found is None:
            return _Refusal("card.unknown", f"unknown card {cid!r}")
    assert card is not None and as_card is not None
    if card.kind not in RELABEL_KINDS or as_card.kind is not card.kind:
        return _Refusal("relabel.kind", f"a relabel swaps two FINISH or two gladiola cards, got "
                        f"{card.label} ({card.id}) and {as_card.label} ({as_card.id})")
    if card.id == as_card.id:
        return _Refusal("relabel.same", f"{card.id} would be relabelled as itself")
    table = view.on_table()
    if card.id not in table:
        return _Refusal("relabel.not-on-table", f"{card.label} ({card.id}) does not lie on the table")
    if as_card.id in table:
        return _Refusal("card.on-table", f"{as_card.label} ({as_card.id}) already lies on the table")
    return None


def _relabelled(view: PublicView, action: Relabel) -> PublicView:
    """``view`` with the table's ``action.card`` named ``action.as_card`` wherever it lies."""

    def swap(ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(action.as_card if cid == action.card else cid for cid in ids)

    return replace(view, walk_pile=swap(view.walk_pile), set_aside=tuple(swap(p) for p in view.set_aside),
                   gladiolas=swap(view.gladiolas))


def _advance(view: PublicView, action: Action, rules: Rules, deck: Deck) -> _Outcome | _Refusal:
    """The public effect of ``action``: next view, verdict and hidden card movements."""
    refusal = _judge(view, action, deck)
    if refusal is not None:
        return refusal
    if isinstance(action, Recount):
        counts = list(view.hand_counts)
        counted, counts[action.player] = counts[action.player], action.count
        return _Outcome(replace(view, hand_counts=tuple(counts)), Verdict.ok(
            f"player {action.player + 1} shows {_cards(action.count)}, the companion counted {counted}: "
            "the shown hand counts"), ())
    if isinstance(action, Relabel):
        card, as_card = deck.card(action.card), deck.card(action.as_card)
        return _Outcome(_relabelled(view, action), Verdict.ok(
            f"the {card.kind.value} logged on the table as {card.id} ({card.blisters} blisters) is {as_card.id} "
            f"({as_card.blisters} blisters): {card.id} was shown in a hand"), ())
    if isinstance(action, TurnTo):
        skipped = (action.player - view.current_player) % view.players if view.current_player is not None else 0
        return _Outcome(replace(view, current_player=action.player), Verdict.ok(
            f"the camera saw player {action.player + 1} lay the next card: the turn passes to them "
            f"({skipped} player{'' if skipped == 1 else 's'} before did something the camera missed)"), ())
    player = view.current_player
    assert player is not None
    messages: list[str] = []
    hands = list(view.hand_counts)
    walk_pile = view.walk_pile
    gladiolas = view.gladiolas
    due = 0
    finish = False
    prefix = ""
    if isinstance(action, LayGladiola):
        hands[player] -= 1
        gladiolas = gladiolas + (action.card,)
        prefix = "gladiola laid beside the walk pile"
    elif isinstance(action, TableWalk):
        card = deck.card(action.card)
        hands[player] -= 1
        walk_pile = walk_pile + (action.card,)
        finish = card.kind is CardKind.FINISH
        prefix = (f"{card.label} accepted from the table: play went on as if it was walked (did the camera "
                  "miss a card? correct it on the dashboard)")
    elif isinstance(action, Walk):
        card = deck.card(action.card)
        top = deck.card(walk_pile[-1])
        assert card.value is not None and top.value is not None
        step = card.value - top.value
        name, due = pace(step)
        hands[player] -= 1
        walk_pile = walk_pile + (action.card,)
        finish = card.kind is CardKind.FINISH
        prefix = f"+{step}, {name}"
        if finish and not rules.finish_draws:
            prefix += ", FINISH"
            due = 0
    else:
        due = 1
        prefix = "pause"

    ends_game = rules.last_card_ends_game and not isinstance(action, Pause) and hands[player] == 0
    if ends_game and rules.last_card_skips_draws:
        due = 0
    messages.append(prefix if isinstance(action, TableWalk) else f"{prefix}: draw {_cards(due)}")

    # Draw, refilling the draw pile from the earliest set-aside pile when it runs out.
    set_aside = list(view.set_aside)
    reshuffles = view.reshuffles
    draw_size = view.draw_pile_size
    moves: list[Union[_Reshuffle, _Draw]] = []
    drawn = 0
    run = 0
    for i in range(due):
        if draw_size == 0:
            if run:
                moves.append(_Draw(run))
                run = 0
            if reshuffles < len(set_aside) and set_aside[reshuffles]:
                pile = set_aside[reshuffles]
                messages.append(
                    f"draw pile empty: shuffle the day-{reshuffles + 1} pile without its START card"
                )
                moves.append(_Reshuffle(reshuffles, pile))
                set_aside[reshuffles] = ()
                reshuffles += 1
                draw_size = len(pile)
            else:
                lost = due - i
                messages.append(
                    f"draw pile empty and no set-aside pile left: {lost} draw{'' if lost == 1 else 's'} lost"
                )
                break
        draw_size -= 1
        run += 1
        drawn += 1
    if run:
        moves.append(_Draw(run))
    hands[player] += drawn

    day = view.day
    over = ends_game
    if over:
        messages.append("last card laid: game over")
    elif finish:
        messages.append(f"FINISH: day {day} ends")
        if day == DAYS:
            over = True
            messages.append("game over")
        else:
            set_aside.append(walk_pile[1:])
            walk_pile = walk_pile[:1]
            day += 1
            messages.append(f"day {day} begins")

    if over:
        next_player: int | None = None
    elif finish and rules.finisher_starts_next_day:
        next_player = player
    else:
        next_player = (player + 1) % view.players
    new_view = PublicView(
        players=view.players,
        day=day,
        current_player=next_player,
        turn=view.turn + 1,
        walk_pile=walk_pile,
        set_aside=tuple(set_aside),
        reshuffles=reshuffles,
        gladiolas=gladiolas,
        hand_counts=tuple(hands),
        draw_pile_size=draw_size,
        over=over,
    )
    return _Outcome(new_view, Verdict.ok(*messages, draws=drawn), tuple(moves))


def _ranking(blisters: Sequence[int], counts: Sequence[int]) -> tuple[int, ...]:
    """Winners: fewest blisters, then fewest cards; whoever is still tied shares the win."""
    keys = list(zip(blisters, counts))
    best = min(keys)
    return tuple(p for p, k in enumerate(keys) if k == best)


def _describe(view: PublicView, action: Action, deck: Deck) -> str:
    if isinstance(action, Pause):
        return "pause"
    if isinstance(action, TurnTo):
        return f"turn passes to player {action.player + 1}"
    if isinstance(action, Recount):
        return f"player {action.player + 1} shows {_cards(action.count)} (counted {view.hand_counts[action.player]})"
    if isinstance(action, Relabel):
        return f"the table's {action.card} is {action.as_card}"
    card = deck.get(action.card)
    if card is None:
        return f"{action.to_json()['type']} unknown card {action.card!r}"
    if isinstance(action, LayGladiola):
        return f"lay {card.label} ({card.blisters} blisters)"
    top = deck.card(view.walk_pile[-1])
    if isinstance(action, TableWalk):
        return f"{card.label} accepted on {top.value} (the table overrules)"
    if card.kind is CardKind.FINISH:
        return f"FINISH on {top.value}"
    return f"walk {card.label} on {top.value}"


# --------------------------------------------------------------------------------------------
# The full-information state


class State:
    """The whole game, hands and draw pile order included. ``apply`` mutates it in place."""

    def __init__(
        self,
        *,
        rules: Rules,
        deck: Deck,
        seed: int,
        view: PublicView,
        hands: tuple[tuple[str, ...], ...],
        draw_pile: tuple[str, ...],
    ) -> None:
        self.rules = rules
        self.deck = deck
        self.seed = seed
        self._view = view
        self.hands = hands
        self.draw_pile = draw_pile
        self._validate()

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        hands: Sequence[Sequence[str]],
        *,
        walk_pile: Sequence[str] = (),
        draw_pile: Sequence[str] | None = None,
        set_aside: Sequence[Sequence[str]] = (),
        reshuffles: int = 0,
        gladiolas: Sequence[str] = (),
        day: int | None = None,
        current_player: int = 0,
        turn: int = 0,
        over: bool = False,
        seed: int = 0,
        rules: Rules | None = None,
        deck: Deck | None = None,
    ) -> "State":
        """A hand-built state for tests and replays.

        ``walk_pile`` lists today's cards above START (START is put at the bottom).
        ``draw_pile=None`` puts every card not placed elsewhere on the draw pile in deck order;
        an explicit ``draw_pile`` must, with the rest, place every card exactly once. ``day``
        defaults to one more than the number of set-aside piles.
        """
        deck = deck or _bundled_deck()
        start = deck.start.id
        hands_t = tuple(tuple(h) for h in hands)
        walk_t = (start,) + tuple(walk_pile)
        aside_t = tuple(tuple(p) for p in set_aside)
        glad_t = tuple(gladiolas)
        if draw_pile is None:
            placed = {c for h in hands_t for c in h} | set(walk_t) | set(glad_t)
            placed |= {c for p in aside_t for c in p}
            draw_t = tuple(c.id for c in deck.cards if c.id not in placed)
        else:
            draw_t = tuple(draw_pile)
        view = PublicView(
            players=len(hands_t),
            day=len(aside_t) + 1 if day is None else day,
            current_player=None if over else current_player,
            turn=turn,
            walk_pile=walk_t,
            set_aside=aside_t,
            reshuffles=reshuffles,
            gladiolas=glad_t,
            hand_counts=tuple(len(h) for h in hands_t),
            draw_pile_size=len(draw_t),
            over=over,
        )
        return cls(rules=rules or Rules(), deck=deck, seed=seed, view=view, hands=hands_t, draw_pile=draw_t)

    def _validate(self) -> None:
        """Raise CompanionError unless the state is a possible Via Gladiola position."""
        v, deck = self._view, self.deck
        if not MIN_PLAYERS <= v.players <= MAX_PLAYERS or len(self.hands) != v.players:
            raise CompanionError(
                f"expected {MIN_PLAYERS}..{MAX_PLAYERS} hands, got {len(self.hands)} (players {v.players})"
            )
        if not 1 <= v.day <= DAYS:
            raise CompanionError(f"day: expected 1..{DAYS}, got {v.day}")
        if len(v.set_aside) != v.day - 1:
            raise CompanionError(
                f"expected {v.day - 1} set-aside piles on day {v.day}, got {len(v.set_aside)}"
            )
        if not 0 <= v.reshuffles <= len(v.set_aside):
            raise CompanionError(f"reshuffles: expected 0..{len(v.set_aside)}, got {v.reshuffles}")
        if any(v.set_aside[:v.reshuffles]) or not all(v.set_aside[v.reshuffles:]):
            raise CompanionError(
                "set-aside piles: the first `reshuffles` piles must be empty and the others not"
            )
        if v.over != (v.current_player is None):
            raise CompanionError("current_player must be None exactly when the game is over")
        if v.current_player is not None and not 0 <= v.current_player < v.players:
            raise CompanionError(f"current player: expected 0..{v.players - 1}, got {v.current_player}")
        if not v.walk_pile or v.walk_pile[0] != deck.start.id:
            raise CompanionError(f"the walk pile must start with the START card, got {v.walk_pile[:1]}")
        everything = self.all_cards()
        if tuple(sorted(everything)) != deck.sorted_ids:
            missing = sorted({c.id for c in deck.cards} - set(everything))
            doubled = sorted({c for c in everything if everything.count(c) > 1})
            unknown = sorted(set(everything) - {c.id for c in deck.cards})
            raise CompanionError(
                f"every card must lie in exactly one place: missing {missing}, "
                f"twice {doubled}, unknown {unknown}"
            )
        on_piles = set(v.walk_pile[1:]).union(*v.set_aside)
        if not on_piles <= deck._walkable:
            raise CompanionError(
                f"{sorted(on_piles - deck._walkable)} lie on a walk pile but are not walk or FINISH cards"
            )
        if not set(v.gladiolas) <= deck._gladiolas:
            raise CompanionError(
                f"{sorted(set(v.gladiolas) - deck._gladiolas)} lie beside the walk pile but are not gladiolas"
            )
        if v.hand_counts != tuple(len(h) for h in self.hands) or v.draw_pile_size != len(self.draw_pile):
            raise CompanionError("hand counts and draw pile size must match the hands and draw pile")

    # -- the engine API ----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._view.players

    @property
    def current_player(self) -> int | None:
        return self._view.current_player

    @property
    def day(self) -> int:
        return self._view.day

    @property
    def walk_pile(self) -> tuple[str, ...]:
        return self._view.walk_pile

    @property
    def set_aside(self) -> tuple[tuple[str, ...], ...]:
        return self._view.set_aside

    @property
    def gladiolas(self) -> tuple[str, ...]:
        return self._view.gladiolas

    @property
    def turn(self) -> int:
        return self._view.turn

    @property
    def reshuffles(self) -> int:
        return self._view.reshuffles

    def top(self) -> Card:
        """The top card of today's walk pile."""
        return self.deck.card(self._view.walk_pile[-1])

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    def all_cards(self) -> tuple[str, ...]:
        """Every card id in every location: hands, draw pile, walk pile, set-aside piles, gladiolas."""
        v = self._view
        out: list[str] = [c for h in self.hands for c in h]
        out += self.draw_pile
        out += v.walk_pile
        for pile in v.set_aside:
            out += pile
        out += v.gladiolas
        return tuple(out)

    def legal_actions(self) -> list[Action]:
        """Walks (by value, then id), then gladiolas (by id), then Pause; empty when over."""
        v = self._view
        if v.over or v.current_player is None:
            return []
        hand = [self.deck.card(c) for c in self.hands[v.current_player]]
        top = self.top().value
        assert top is not None
        walks = sorted(
            (c for c in hand if c.walkable and c.value is not None and 0 < c.value - top <= MAX_STEP),
            key=lambda c: (c.value, c.id),
        )
        actions: list[Action] = [Walk(c.id) for c in walks]
        if v.day == DAYS:
            actions += [LayGladiola(c.id) for c in sorted(hand, key=lambda c: c.id) if c.kind is CardKind.GLADIOLA]
        actions.append(Pause())
        return actions

    def apply(self, action: Action) -> Verdict:
        """Apply a legal action; raise IllegalAction (state unchanged) for an illegal one."""
        _check_action(action)
        v = self._view
        if isinstance(action, Recount):
            raise IllegalAction("recount.table-only", "a recount is the observer's record of a hand shown at the "
                                "end; the full game state knows every hand")
        if isinstance(action, Relabel):
            raise IllegalAction("relabel.table-only", "a relabel is the observer's correction of a card id the "
                                "camera misread; the full game state knows every card")
        if isinstance(action, TurnTo):
            raise IllegalAction("turn.table-only", "a turn passed on is the observer's record of what the camera "
                                "saw; the full game state knows whose turn it is")
        if isinstance(action, TableWalk):
            raise IllegalAction("walk.table-only", "a table walk is the observer's record of what the camera saw; "
                                "the full game state takes walks only")
        if not v.over and v.current_player is not None and not isinstance(action, Pause):
            if action.card in self.deck and action.card not in self.hands[v.current_player]:
                raise IllegalAction(
                    "card.not-in-hand",
                    f"{self.deck.card(action.card).label} ({action.card}) is not in "
                    f"player {v.current_player + 1}'s hand",
                )
        outcome = _advance(v, action, self.rules, self.deck)
        if isinstance(outcome, _Refusal):
            raise IllegalAction(outcome.rule, outcome.reason)
        player = v.current_player
        assert player is not None
        hands = list(self.hands)
        hand = list(hands[player])
        draw_pile = list(self.draw_pile)
        if not isinstance(action, Pause):
            hand.remove(action.card)
        for move in outcome.moves:
            if isinstance(move, _Reshuffle):
                assert not draw_pile
                draw_pile = seeded_shuffle(move.cards, self.seed, f"reshuffle-day-{move.index + 1}")
            else:
                hand += draw_pile[: move.count]
                del draw_pile[: move.count]
        hands[player] = tuple(hand)
        self.hands = tuple(hands)
        self.draw_pile = tuple(draw_pile)
        self._view = outcome.view
        assert self._view.hand_counts == self.hand_sizes()
        assert self._view.draw_pile_size == len(self.draw_pile)
        return outcome.verdict

    def is_over(self) -> bool:
        return self._view.over

    def scores(self) -> tuple[int, ...]:
        """Blisters in each player's hand (the game's penalty score: lower is better)."""
        return tuple(self.deck.blisters(h) for h in self.hands)

    def winners(self) -> tuple[int, ...]:
        """Fewest blisters; tie: fewer cards; still tied: shared. Meaningful once the game is over."""
        return _ranking(self.scores(), self.hand_sizes())

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return []

    def public_view(self) -> PublicView:
        return self._view

    def public_action(self, action: Action) -> Action:
        """What the camera sees: the card laid (walk or gladiola) or a pause."""
        _check_action(action)
        return action

    def observer(self) -> "Observer":
        return Observer(self._view, self.rules, self.deck)

    def describe(self, action: Action) -> str:
        _check_action(action)
        return _describe(self._view, action, self.deck)

    # -- JSON ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        v = self._view
        return {
            "game": NAME,
            "players": v.players,
            "seed": self.seed,
            "rules": self.rules.to_json(),
            "deck": _deck_to_json(self.deck),
            "day": v.day,
            "current_player": v.current_player,
            "turn": v.turn,
            "over": v.over,
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "walk_pile": list(v.walk_pile),
            "set_aside": [list(p) for p in v.set_aside],
            "reshuffles": v.reshuffles,
            "gladiolas": list(v.gladiolas),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "State":
        if not isinstance(data, Mapping) or data.get("game") != NAME:
            got = data.get("game") if isinstance(data, Mapping) else type(data).__name__
            raise CompanionError(f"expected a saved {TITLE} state (game {NAME!r}), got {got!r}")
        try:
            hands = tuple(_ids(h) for h in data["hands"])
            draw_pile = _ids(data["draw_pile"])
            seed = int(data["seed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CompanionError(f"malformed saved {TITLE} state: {exc!r}") from None
        # the public part is stored as in a view, with the hidden piles as counts derived here
        view = PublicView.from_json(
            {**data, "hand_counts": [len(h) for h in hands], "draw_pile_size": len(draw_pile)}
        )
        return cls(
            rules=Rules.from_json(data.get("rules")),
            deck=_deck_from_json(data.get("deck")),
            seed=seed,
            view=view,
            hands=hands,
            draw_pile=draw_pile,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        v = self._view
        return (
            f"State(players={v.players}, day={v.day}, turn={v.turn}, current_player={v.current_player}, "
            f"top={v.walk_pile[-1]}, hands={self.hand_sizes()}, draw={len(self.draw_pile)}, over={v.over})"
        )


def new_game(players: int, seed: int, rules: Rules | None = None, data: Deck | None = None) -> State:
    """Deal a new game: 8 cards each from the shuffled 63 non-START cards, random start player."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CompanionError(f"{TITLE} is for {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
    if data is not None and not isinstance(data, Deck):
        raise CompanionError(f"expected a gladiola Deck (see load_deck), got {type(data).__name__}")
    deck = data or _bundled_deck()
    start = deck.start.id
    pack = seeded_shuffle([c.id for c in deck.cards if c.id != start], seed, "deal")
    hands = tuple(tuple(pack[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(players))
    first = seeded_shuffle(list(range(players)), seed, "start-player")[0]
    return State.build(
        hands,
        draw_pile=pack[players * HAND_SIZE :],
        current_player=first,
        seed=seed,
        rules=rules,
        deck=deck,
    )


# --------------------------------------------------------------------------------------------
# The observer


class Observer:
    """What a camera can know: public piles, hand counts, turn and day, the moves it sees.

    ``apply`` never raises for an illegal move: it returns ``Verdict.illegal`` and stays
    unchanged. At the end each player shows their hand (:meth:`reveal_hand`); once every hand is
    revealed, :meth:`scores` and :meth:`winners` are known.
    """

    def __init__(
        self,
        view: PublicView,
        rules: Rules | None = None,
        deck: Deck | None = None,
        revealed: Sequence[tuple[str, ...] | None] | None = None,
    ) -> None:
        self._view = view
        self.rules = rules or Rules()
        self.deck = deck or _bundled_deck()
        self._revealed: tuple[tuple[str, ...] | None, ...] = (
            tuple(revealed) if revealed is not None else (None,) * view.players
        )
        if len(self._revealed) != view.players:
            raise CompanionError(f"expected {view.players} revealed-hand slots, got {len(self._revealed)}")

    @classmethod
    def start(
        cls, players: int, first_player: int, rules: Rules | None = None, deck: Deck | None = None
    ) -> "Observer":
        """An observer at the start of a live game (cards dealt, nothing played yet)."""
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise CompanionError(f"{TITLE} is for {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
        if not 0 <= first_player < players:
            raise CompanionError(f"first player: expected 0..{players - 1}, got {first_player}")
        deck = deck or _bundled_deck()
        view = PublicView(
            players=players,
            day=1,
            current_player=first_player,
            turn=0,
            walk_pile=(deck.start.id,),
            set_aside=(),
            reshuffles=0,
            gladiolas=(),
            hand_counts=(HAND_SIZE,) * players,
            draw_pile_size=DECK_SIZE - 1 - HAND_SIZE * players,
            over=False,
        )
        return cls(view, rules, deck)

    @property
    def players(self) -> int:
        return self._view.players

    @property
    def current_player(self) -> int | None:
        return self._view.current_player

    def public_view(self) -> PublicView:
        return self._view

    def is_over(self) -> bool:
        return self._view.over

    def judge(self, action: Action) -> Verdict:
        """The verdict ``apply`` would give, without changing anything."""
        _check_action(action)
        shown = self._shown_already(action)
        if shown is not None:
            return shown
        outcome = _advance(self._view, action, self.rules, self.deck)
        if isinstance(outcome, _Refusal):
            return Verdict.illegal(outcome.rule, outcome.reason)
        return outcome.verdict

    def apply(self, action: Action) -> Verdict:
        """Judge and record a seen action; an illegal one leaves the observer unchanged."""
        _check_action(action)
        shown = self._shown_already(action)
        if shown is not None:
            return shown
        outcome = _advance(self._view, action, self.rules, self.deck)
        if isinstance(outcome, _Refusal):
            return Verdict.illegal(outcome.rule, outcome.reason)
        self._view = outcome.view
        return outcome.verdict

    def describe(self, action: Action) -> str:
        _check_action(action)
        return _describe(self._view, action, self.deck)

    def _shown_already(self, action: Action) -> Verdict | None:
        """The refusal of a :class:`Recount` of a hand already revealed, or of a
        :class:`Relabel` to a card already shown in a hand; else None."""
        if isinstance(action, Recount) and 0 <= action.player < len(self._revealed) \
                and self._revealed[action.player] is not None:
            return Verdict.illegal("recount.revealed", f"player {action.player + 1} has already revealed their hand")
        if isinstance(action, Relabel) and any(h is not None and action.as_card in h for h in self._revealed):
            return Verdict.illegal("relabel.shown", f"{action.as_card} was already shown in a hand")
        return None

    # -- scoring at the end --------------------------------------------------------------------

    def reveal_hand(self, player: int, card_ids: Sequence[str]) -> None:
        """Record the hand ``player`` shows at the end; CompanionError if it cannot be right.

        The hand must hold as many cards as counted: when the table shows another number, a
        :class:`Recount` (applied first) makes the count the table's."""
        v = self._view
        if not v.over:
            raise CompanionError("hands are revealed only once the game is over")
        if not 0 <= player < v.players:
            raise CompanionError(f"player: expected 0..{v.players - 1}, got {player}")
        if self._revealed[player] is not None:
            raise CompanionError(f"player {player + 1} has already revealed their hand")
        ids = tuple(card_ids)
        if len(ids) != v.hand_counts[player]:
            raise CompanionError(
                f"player {player + 1} must hold {v.hand_counts[player]} cards, got {len(ids)}"
            )
        if len(set(ids)) != len(ids):
            raise CompanionError(f"a card appears twice in player {player + 1}'s hand: {sorted(ids)}")
        table = v.on_table()
        shown = {c for h in self._revealed if h is not None for c in h}
        for cid in ids:
            card = self.deck.get(cid)
            if card is None:
                raise CompanionError(f"unknown card {cid!r} in player {player + 1}'s hand")
            if cid in table:
                raise CompanionError(f"{card.label} ({cid}) lies on the table, it cannot be in a hand")
            if cid in shown:
                raise CompanionError(f"{card.label} ({cid}) was already shown by another player")
        revealed = list(self._revealed)
        revealed[player] = ids
        self._revealed = tuple(revealed)

    def revealed(self) -> tuple[tuple[str, ...] | None, ...]:
        return self._revealed

    def _hands(self) -> tuple[tuple[str, ...], ...]:
        missing = [str(p + 1) for p, h in enumerate(self._revealed) if h is None]
        if missing:
            raise CompanionError(f"hands of player(s) {', '.join(missing)} not yet revealed")
        return tuple(h for h in self._revealed if h is not None)

    def shown_blisters(self) -> tuple[int | None, ...]:
        """Blisters of each hand revealed so far (None where a hand is not yet)."""
        return tuple(None if h is None else self.deck.blisters(h) for h in self._revealed)

    def scores(self) -> tuple[int, ...]:
        """Blisters per player; CompanionError until every hand is revealed."""
        return tuple(self.deck.blisters(h) for h in self._hands())

    def winners(self) -> tuple[int, ...]:
        hands = self._hands()
        return _ranking(self.scores(), tuple(len(h) for h in hands))

    # -- JSON ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "game": NAME,
            "rules": self.rules.to_json(),
            "deck": _deck_to_json(self.deck),
            "view": self._view.to_json(),
            "revealed": [None if h is None else list(h) for h in self._revealed],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Observer":
        if not isinstance(data, Mapping) or data.get("game") != NAME:
            raise CompanionError(f"expected a saved {TITLE} observer (game {NAME!r})")
        try:
            view = PublicView.from_json(data["view"])
            revealed = [None if h is None else _ids(h) for h in data["revealed"]]
        except (KeyError, TypeError) as exc:
            raise CompanionError(f"malformed saved {TITLE} observer: {exc!r}") from None
        return cls(view, Rules.from_json(data.get("rules")), _deck_from_json(data.get("deck")), revealed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Observer) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]
