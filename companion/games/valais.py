"""Valais*Wallis Digital: build a chronological row of Valais history cards.

Rules as implemented (see ``docs/interpretations/valais.md`` for every decided point):

* A catalogue of cards (200 in the real game), each with a year (optionally a full date) and
  possibly a joker kind (1815, 1865, 1915, 1965). The first card of the timeline comes from the
  top of the shuffled stack; each player gets 6 (2-3 players), 5 (4-5) or 4 (6-8) cards.
* A turn: the current player puts one of their cards into the timeline at a position
  ``0..len(timeline)`` and turns it. It is correct when its date is not before its left
  neighbour's and not after its right neighbour's (equal dates fit on either side; a year-only
  date equals every date of that year). A correct card stays; a wrong one is discarded and the
  player draws a replacement (an empty stack is refilled from the shuffled discards).
* A joker placed correctly opens a decision of the same player (``legal_actions`` then offers
  only that decision): 1815 ``RevealOwn``; 1865 ``KeepCard`` then ``GiveCard`` to each other
  player still in; 1915 ``RemoveFromTimeline``; 1965 ``DiscardOwn`` then ``KeepCard``.
* Rounds: every player still in, in seat order from the first player, once; a player without
  cards at their turn is skipped. At the end of a round: exactly one player still in without
  cards wins; two or more -> only they stay in and each draws one card; none -> next round.

Players are seat indices ``0..players-1``; messages call seat ``i`` "player i+1".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import date as _calendar_date
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

from companion.errors import CompanionError, DataFileError, IllegalAction
from companion.games.base import Verdict, parse_int, read_csv_rows, samples_dir, seeded_shuffle

NAME = "valais"
TITLE = "Valais*Wallis Digital"
SCORE_LABEL = "cards left"
MIN_PLAYERS = 2
MAX_PLAYERS = 8
FIRST_YEAR = 1815
LAST_YEAR = 2015
MIN_CATALOGUE_SIZE = 20
CATALOGUE_HEADER = ("id", "year", "date", "title", "joker", "sample")

#: Stand-in for a card whose identity the observer does not know (observer piles hold only these).
HIDDEN = -1


# --------------------------------------------------------------------------------------------
# Dates, cards, catalogue


_DATE_RE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


@dataclass(frozen=True)
class CardDate:
    """The date printed on a card: a year, optionally with month, optionally with day.

    A date stands for the interval of days it covers. Two dates are compared at the precision
    they share: ``1865`` equals ``1865-07-14``, while ``1865-07-14`` is before ``1865-08-30``.
    ``==`` stays structural (for views and JSON); use :meth:`compare` for chronology.
    """

    year: int
    month: int | None = None
    day: int | None = None

    def __post_init__(self) -> None:
        if self.month is None and self.day is not None:
            raise CompanionError(f"date: a day needs a month, got day {self.day} without month")
        try:
            _calendar_date(self.year, self.month or 1, self.day or 1)
        except (ValueError, TypeError) as exc:
            raise CompanionError(f"date: expected a calendar date, got {self._text()} ({exc})") from None

    @classmethod
    def parse(cls, text: str) -> "CardDate":
        """Read ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""
        match = _DATE_RE.match(str(text).strip())
        if not match:
            raise CompanionError(f"date: expected YYYY, YYYY-MM or YYYY-MM-DD, got {text!r}")
        year, month, day = match.groups()
        return cls(int(year), None if month is None else int(month), None if day is None else int(day))

    def _key(self) -> tuple[int, ...]:
        return tuple(v for v in (self.year, self.month, self.day) if v is not None)

    def compare(self, other: "CardDate") -> int:
        """-1 if ``self`` is before ``other``, 1 if after, 0 if they are equal at shared precision."""
        mine, theirs = self._key(), other._key()
        n = min(len(mine), len(theirs))
        a, b = mine[:n], theirs[:n]
        return (a > b) - (a < b)

    def _text(self) -> str:
        parts = [f"{self.year:04d}"]
        if self.month is not None:
            parts.append(f"{self.month:02d}")
        if self.day is not None:
            parts.append(f"{self.day:02d}")
        return "-".join(parts)

    def __str__(self) -> str:
        return self._text()


@lru_cache(maxsize=4096)
def _parse_date(text: str) -> CardDate:
    return CardDate.parse(text)


class Joker(Enum):
    """The four joker kinds, named by their year."""

    J1815 = 1815
    J1865 = 1865
    J1915 = 1915
    J1965 = 1965

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class SeenCard:
    """What anyone sees of a card lying date side up: its id, its date and its joker mark."""

    card_id: int
    date: CardDate
    joker: Joker | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.card_id, "date": str(self.date), "joker": None if self.joker is None else self.joker.value}

    @classmethod
    def from_json(cls, data: Any) -> "SeenCard":
        if not isinstance(data, dict):
            raise CompanionError(f"card: expected an object with id, date, joker, got {data!r}")
        return cls(
            _json_int(data, "id", "card"),
            _parse_date(str(data.get("date"))),
            _joker_from_json(data.get("joker")),
        )


@dataclass(frozen=True)
class Card:
    """One catalogue entry. ``sample`` marks invented entries (not a real historical fact)."""

    card_id: int
    date: CardDate
    title: str
    joker: Joker | None = None
    sample: bool = True

    def seen(self) -> SeenCard:
        return SeenCard(self.card_id, self.date, self.joker)


@dataclass(frozen=True)
class Catalogue:
    """The card list of a deck; ``path`` is where it was read from ("" when built in code)."""

    cards: tuple[Card, ...]
    path: str = ""
    #: card id -> what is seen of it face up; built once, shared read-only by every state
    seen_by_id: dict[int, SeenCard] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        ids = [c.card_id for c in self.cards]
        if len(set(ids)) != len(ids):
            raise CompanionError("catalogue: expected unique card ids, got duplicates")
        object.__setattr__(self, "seen_by_id", {c.card_id: c.seen() for c in self.cards})

    def __len__(self) -> int:
        return len(self.cards)

    def card(self, card_id: int) -> Card:
        for card in self.cards:
            if card.card_id == card_id:
                return card
        raise CompanionError(f"catalogue: no card with id {card_id}")


def _joker_from_json(value: Any) -> Joker | None:
    if value is None:
        return None
    try:
        return Joker(int(value))
    except (ValueError, TypeError):
        raise CompanionError(f"joker: expected one of 1815, 1865, 1915, 1965 or null, got {value!r}") from None


def bundled_catalogue_path() -> Path:
    return samples_dir() / "catalogues" / "valais.csv"


@lru_cache(maxsize=1)
def _bundled() -> Catalogue:
    return _read_catalogue(bundled_catalogue_path())


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Read and validate a catalogue CSV (``None``: the bundled sample catalogue).

    Columns ``id,year,date,title,joker,sample``; ``#`` lines are comments. Checks: at least
    :data:`MIN_CATALOGUE_SIZE` rows, unique positive ids, years in 1815..2015, ``date`` empty or
    ``YYYY-MM-DD`` in that year, ``joker`` empty or a joker year, ``sample`` ``yes``/``no``, a
    non-empty title. Raises :class:`DataFileError` with the offending line.
    """
    if path is None:
        return _bundled()
    return _read_catalogue(Path(path))


def _read_catalogue(path: Path) -> Catalogue:
    cards: list[Card] = []
    seen_ids: dict[int, int] = {}
    for row in read_csv_rows(path, CATALOGUE_HEADER):
        card_id = parse_int(row, path, "id", 1, 10**9)
        if card_id in seen_ids:
            raise DataFileError(path, row.line, f"id: expected a unique id, got {card_id} again (first on line {seen_ids[card_id]})")
        seen_ids[card_id] = row.line
        year = parse_int(row, path, "year", FIRST_YEAR, LAST_YEAR)
        raw_date = row.values["date"]
        if raw_date:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw_date):
                raise DataFileError(path, row.line, f"date: expected empty or YYYY-MM-DD, got {raw_date!r}")
            try:
                card_date = CardDate.parse(raw_date)
            except CompanionError as exc:
                raise DataFileError(path, row.line, str(exc)) from None
            if card_date.year != year:
                raise DataFileError(path, row.line, f"date: expected a date in {year}, got {raw_date}")
        else:
            card_date = CardDate(year)
        title = row.values["title"]
        if not title:
            raise DataFileError(path, row.line, "title: expected a title, got an empty field")
        raw_joker = row.values["joker"]
        joker = None
        if raw_joker:
            try:
                joker = Joker(int(raw_joker))
            except ValueError:
                raise DataFileError(path, row.line, f"joker: expected empty or 1815/1865/1915/1965, got {raw_joker!r}") from None
        raw_sample = row.values["sample"].lower()
        if raw_sample not in ("yes", "no"):
            raise DataFileError(path, row.line, f"sample: expected yes or no, got {row.values['sample']!r}")
        cards.append(Card(card_id, card_date, title, joker, raw_sample == "yes"))
    if len(cards) < MIN_CATALOGUE_SIZE:
        raise DataFileError(path, None, f"expected at least {MIN_CATALOGUE_SIZE} cards, got {len(cards)}")
    return Catalogue(tuple(cards), str(path))


# --------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True)
class Rules:
    """Options; each default is the interpretation documented in ``docs/interpretations``."""

    hand_size_2_3: int = 6
    hand_size_4_5: int = 5
    hand_size_6_8: int = 4
    #: an empty stack is refilled by shuffling the discards
    reshuffle_discards: bool = True
    #: after a wrong placement the replacement is drawn before the wrong card reaches the discards
    draw_before_discarding_wrong: bool = True
    #: a 1965 joker placed as the last card (nothing to discard) has no effect
    joker1965_lapses_without_card: bool = True

    def hand_size(self, players: int) -> int:
        if players <= 3:
            return self.hand_size_2_3
        if players <= 5:
            return self.hand_size_4_5
        return self.hand_size_6_8

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Rules":
        data = data or {}
        if not isinstance(data, dict):
            raise CompanionError(f"valais rules: expected an object, got {data!r}")
        try:
            return _rules_from_items(tuple(sorted((k, type(v).__name__, v) for k, v in data.items())))
        except TypeError:  # unhashable values: let the checks below report them
            return cls._from_dict(data)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> "Rules":
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise CompanionError(f"valais rules: expected options among {', '.join(known)}, got {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in data.items():
            default = getattr(cls, name)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise CompanionError(f"valais rules: {name} expected true/false, got {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise CompanionError(f"valais rules: {name} expected a positive integer, got {value!r}")
            values[name] = value
        return cls(**values)


@lru_cache(maxsize=64)
def _rules_from_items(items: tuple[tuple[str, str, Any], ...]) -> Rules:
    # the type name is part of the key so that True and 1 are not confused by the cache
    return Rules._from_dict({k: v for k, _, v in items})


# --------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class Place:
    """Put own card ``card_id`` into the timeline before the card now at ``position``."""

    card_id: int
    position: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "place", "card": self.card_id, "position": self.position}


@dataclass(frozen=True)
class PlaceSeen:
    """Public form of :class:`Place`: the camera sees the card once it is turned."""

    card: SeenCard
    position: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "place-seen", "card": self.card.to_json(), "position": self.position}


@dataclass(frozen=True)
class RevealOwn:
    """Joker 1815: turn own card ``card_id`` over and read its date."""

    card_id: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "reveal-own", "card": self.card_id}


@dataclass(frozen=True)
class RevealSeen:
    """Public form of :class:`RevealOwn`: the turned card as the table saw it; ``None`` when it
    was turned in the hand, out of the camera's sight, and nobody entered its date."""

    card: SeenCard | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "reveal-seen", "card": None if self.card is None else self.card.to_json()}


@dataclass(frozen=True)
class KeepCard:
    """Joker 1865/1965: keep one of the cards set aside (``None`` in the public form)."""

    card_id: int | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "keep", "card": self.card_id}


@dataclass(frozen=True)
class GiveCard:
    """Joker 1865: give a set-aside card to ``to_player`` (``card_id`` None in the public form)."""

    card_id: int | None
    to_player: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "give", "card": self.card_id, "to": self.to_player}


@dataclass(frozen=True)
class RemoveFromTimeline:
    """Joker 1915: take the card at ``index`` out of the timeline (it goes to the discards)."""

    index: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "remove", "index": self.index}


@dataclass(frozen=True)
class DiscardOwn:
    """Joker 1965: discard own card ``card_id`` (public form: the id only if it was revealed)."""

    card_id: int | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard-own", "card": self.card_id}


@dataclass(frozen=True)
class MissedWrong:
    """Observer correction: the current player put a wrong card in and took it away while the
    camera did not see it; the card goes to the discards, they draw one and the turn passes."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "missed-wrong"}


@dataclass(frozen=True)
class MissedDraw:
    """Observer correction: ``player`` holds one card more than the companion counted (a draw
    it did not see). A game the count had ended goes on with a new round."""

    player: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "missed-draw", "player": self.player}


Correction = Union[MissedWrong, MissedDraw]


def describe_correction(action: Correction) -> str:
    """The log's text for a correction."""
    if isinstance(action, MissedWrong):
        return "a wrong card put in and taken away unseen"
    return f"{_player(action.player)} drew a card unseen"


Action = Union[Place, PlaceSeen, RevealOwn, RevealSeen, KeepCard, GiveCard, RemoveFromTimeline, DiscardOwn,
               MissedWrong, MissedDraw]


def _json_int(data: dict[str, Any], key: str, what: str, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise CompanionError(f"{what}: expected an integer field {key!r}, got {value!r}")
    return value


def action_from_json(data: Any) -> Action:
    """Rebuild an action from its ``to_json`` form; raises CompanionError when malformed."""
    if not isinstance(data, dict) or "type" not in data:
        raise CompanionError(f"valais action: expected an object with a 'type', got {data!r}")
    kind = data["type"]
    what = f"valais action {kind!r}"
    if kind == "place":
        return Place(_json_int(data, "card", what), _json_int(data, "position", what))
    if kind == "place-seen":
        return PlaceSeen(SeenCard.from_json(data.get("card")), _json_int(data, "position", what))
    if kind == "reveal-own":
        return RevealOwn(_json_int(data, "card", what))
    if kind == "reveal-seen":
        return RevealSeen(None if data.get("card") is None else SeenCard.from_json(data.get("card")))
    if kind == "keep":
        return KeepCard(_json_int(data, "card", what, optional=True))
    if kind == "give":
        return GiveCard(_json_int(data, "card", what, optional=True), _json_int(data, "to", what))
    if kind == "remove":
        return RemoveFromTimeline(_json_int(data, "index", what))
    if kind == "discard-own":
        return DiscardOwn(_json_int(data, "card", what, optional=True))
    if kind == "missed-wrong":
        return MissedWrong()
    if kind == "missed-draw":
        return MissedDraw(_json_int(data, "player", what))
    raise CompanionError(
        "valais action: expected type place, place-seen, reveal-own, reveal-seen, keep, give, "
        f"remove, discard-own, missed-wrong or missed-draw, got {kind!r}"
    )


# --------------------------------------------------------------------------------------------
# Views


class Step(Enum):
    """What the current player must do now."""

    PLACE = "place"
    REVEAL_1815 = "reveal-1815"
    KEEP_1865 = "keep-1865"
    GIVE_1865 = "give-1865"
    REMOVE_1915 = "remove-1915"
    DISCARD_1965 = "discard-1965"
    KEEP_1965 = "keep-1965"


_STEP_JOKER = {
    Step.PLACE: None,
    Step.REVEAL_1815: Joker.J1815,
    Step.KEEP_1865: Joker.J1865,
    Step.GIVE_1865: Joker.J1865,
    Step.REMOVE_1915: Joker.J1915,
    Step.DISCARD_1965: Joker.J1965,
    Step.KEEP_1965: Joker.J1965,
}

_STEP_WANTS = {
    Step.PLACE: "place one of your cards into the timeline",
    Step.REVEAL_1815: "joker 1815: turn one of your own cards over",
    Step.KEEP_1865: "joker 1865: keep one of the drawn cards",
    Step.GIVE_1865: "joker 1865: give a drawn card to the next player",
    Step.REMOVE_1915: "joker 1915: remove one card from the timeline",
    Step.DISCARD_1965: "joker 1965: discard one of your cards",
    Step.KEEP_1965: "joker 1965: keep one of the drawn cards",
}


@dataclass(frozen=True)
class PublicView:
    """Everything a table observer can know.

    ``revealed[p]``: the cards of player ``p`` turned over by a 1815 joker and still in that hand
    (everybody at the table saw them). ``set_aside``: cards drawn for a 1865/1965 joker and not yet
    kept, given or discarded. ``recipients``: players still to receive a card from a 1865 joker.
    """

    players: int
    timeline: tuple[SeenCard, ...]
    hand_counts: tuple[int, ...]
    stack_size: int
    discard_size: int
    set_aside: int
    current_player: int | None
    round_no: int
    first_player: int
    players_in: tuple[int, ...]
    step: Step
    pending_joker: Joker | None
    recipients: tuple[int, ...]
    revealed: tuple[tuple[SeenCard, ...], ...]
    over: bool
    winners: tuple[int, ...]

    def next_to_place(self) -> int | None:
        """Who places next when the current player's turn ends now with their hand's size kept
        (a wrong card taken back and one drawn): the next seat in the round order (from
        ``first_player``, players still in) holding cards; after the round's last, the next
        round's first when no hand is empty (the round's end then changes nothing). None when
        that is not known so (a hand empty: the round's end may end the game or put players out)
        or the current player is not to place a card."""
        if self.step is not Step.PLACE or self.current_player is None or self.over:
            return None

        def place(p: int) -> int:  # (the order of :meth:`_Table._round_order`)
            return (p - self.first_player) % self.players

        later = [p for p in self.players_in if place(p) > place(self.current_player) and self.hand_counts[p] > 0]
        if later:
            return min(later, key=place)
        if any(self.hand_counts[p] == 0 for p in self.players_in):
            return None
        return min(self.players_in, key=place)


_STEP_ACTIONS: dict[Step, tuple[type, ...]] = {
    Step.PLACE: (Place, PlaceSeen),
    Step.REVEAL_1815: (RevealOwn, RevealSeen),
    Step.KEEP_1865: (KeepCard,),
    Step.GIVE_1865: (GiveCard,),
    Step.REMOVE_1915: (RemoveFromTimeline,),
    Step.DISCARD_1965: (DiscardOwn,),
    Step.KEEP_1965: (KeepCard,),
}


def _player(p: int) -> str:
    return f"player {p + 1}"


def _players(ps: list[int] | tuple[int, ...]) -> str:
    names = [_player(p) for p in ps]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------------------------
# The shared table: all rule logic, on piles of card ids (State) or of HIDDEN tokens (Observer)


class _Table:
    """Rule logic shared by :class:`State` and :class:`Observer`.

    Piles are lists of card ids; the observer's piles hold :data:`HIDDEN` tokens only, so the
    same code tracks identities for the state and counts for the observer.
    """

    _knows_cards = True

    def __init__(self, players: int, rules: Rules, seed: int, first_player: int) -> None:
        self.players = players
        self.rules = rules
        self.seed = seed
        self.first_player = first_player
        self.round_no = 1
        self.active = [True] * players
        self.order = self._round_order()
        self.turn_pos = 0
        self.step = Step.PLACE
        self.recipients: list[int] = []
        self.over = False
        self.winner_seats: tuple[int, ...] = ()
        self.timeline: list[SeenCard] = []
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stack: list[int] = []
        self.discard: list[int] = []
        self.aside: list[int] = []
        self.revealed: list[list[SeenCard]] = [[] for _ in range(players)]
        self.reshuffles = 0

    # ---- queries

    @property
    def current_player(self) -> int | None:
        if self.over:
            return None
        return self.order[self.turn_pos]

    def is_over(self) -> bool:
        return self.over

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return []

    def scores(self) -> tuple[int, ...]:
        """Cards left in hand per player (players who are out keep their count)."""
        return tuple(len(h) for h in self.hands)

    def winners(self) -> tuple[int, ...]:
        return self.winner_seats if self.over else ()

    def players_in(self) -> tuple[int, ...]:
        return tuple(p for p in range(self.players) if self.active[p])

    def public_view(self) -> PublicView:
        return PublicView(
            players=self.players,
            timeline=tuple(self.timeline),
            hand_counts=tuple(len(h) for h in self.hands),
            stack_size=len(self.stack),
            discard_size=len(self.discard),
            set_aside=len(self.aside),
            current_player=self.current_player,
            round_no=self.round_no,
            first_player=self.first_player,
            players_in=self.players_in(),
            step=self.step,
            pending_joker=_STEP_JOKER[self.step],
            recipients=tuple(self.recipients),
            revealed=tuple(tuple(r) for r in self.revealed),
            over=self.over,
            winners=self.winners(),
        )

    # ---- token helpers (the observer replaces identities by HIDDEN)

    def _token(self, card_id: int | None) -> int:
        return card_id if self._knows_cards and card_id is not None else HIDDEN

    def _take(self, pile: list[int], card_id: int | None) -> int:
        token = self._token(card_id)
        if token == HIDDEN:
            return pile.pop()
        pile.remove(token)
        return token

    def _forget_revealed(self, player: int, card_id: int | None) -> None:
        self.revealed[player] = [c for c in self.revealed[player] if c.card_id != card_id]

    # ---- flow

    def _round_order(self) -> list[int]:
        seats = [(self.first_player + i) % self.players for i in range(self.players)]
        return [p for p in seats if self.active[p]]

    def _draw(self, dest: list[int], count: int, messages: list[str]) -> int:
        """Move up to ``count`` cards from the stack to ``dest``, refilling the stack if allowed."""
        drawn = 0
        for _ in range(count):
            if not self.stack:
                if self.rules.reshuffle_discards and self.discard:
                    messages.append(
                        f"draw pile empty: shuffle the {len(self.discard)} discarded cards into a new draw pile"
                    )
                    self.stack = seeded_shuffle(self.discard, self.seed, f"reshuffle-{self.reshuffles}")
                    self.reshuffles += 1
                    self.discard = []
                else:
                    missing = count - drawn
                    messages.append(f"no card left to draw: {missing} draw{'s' if missing > 1 else ''} lost")
                    break
            dest.append(self.stack.pop())
            drawn += 1
        return drawn

    def _end_turn(self, messages: list[str]) -> None:
        self.step = Step.PLACE
        self.recipients = []
        self.turn_pos += 1
        self._advance(messages)

    def _advance(self, messages: list[str]) -> None:
        """Skip players without cards; close rounds until someone can play or the game is over."""
        while not self.over:
            while self.turn_pos < len(self.order) and not self.hands[self.order[self.turn_pos]]:
                self.turn_pos += 1
            if self.turn_pos < len(self.order):
                return
            self._end_round(messages)
            if self.over:
                return
            self.round_no += 1
            self.order = self._round_order()
            self.turn_pos = 0

    def _end_round(self, messages: list[str]) -> None:
        messages.append(f"round {self.round_no} ends")
        finished = [p for p in self._round_order() if not self.hands[p]]
        if len(finished) == 1:
            self.over = True
            self.winner_seats = (finished[0],)
            messages.append(f"{_player(finished[0])} wins")
            return
        if not finished:
            return
        out = [p for p in range(self.players) if self.active[p] and p not in finished]
        for p in out:
            self.active[p] = False
        both = "both" if len(finished) == 2 else "all"
        if out:
            messages.append(
                f"{_players(finished)} {both} finished: they play on, {_players(out)} "
                f"{'is' if len(out) == 1 else 'are'} out; each still in draws one card"
            )
        else:
            messages.append(f"{_players(finished)} {both} finished: they play on; each draws one card")
        for p in finished:
            self._draw(self.hands[p], 1, messages)
        if not any(self.hands[p] for p in finished):
            self.over = True
            self.winner_seats = tuple(sorted(finished))
            messages.append(f"no card left for the play-off: {_players(finished)} share the win")

    # ---- rule checks on the public form (shared)

    def _check_public(self, action: Action) -> tuple[str, str] | None:
        if self.over:
            return ("game.over", "the game is over")
        wants = _STEP_ACTIONS[self.step]
        if not isinstance(action, wants):
            got = action.to_json().get("type") if hasattr(action, "to_json") else repr(action)
            return ("turn.step", f"expected: {_STEP_WANTS[self.step]}; got a {got} action")
        if isinstance(action, (Place, PlaceSeen)):
            if not 0 <= action.position <= len(self.timeline):
                return ("place.position", f"position must be 0..{len(self.timeline)}, got {action.position}")
            card_id = action.card_id if isinstance(action, Place) else action.card.card_id
            if any(c.card_id == card_id for c in self.timeline):
                return ("place.in-timeline", f"card {card_id} already lies in the timeline")
        if (isinstance(action, RevealSeen) and action.card is not None
                and any(c.card_id == action.card.card_id for c in self.timeline)):
            return ("joker1815.own-card", f"card {action.card.card_id} lies in the timeline, not in a hand")
        if isinstance(action, GiveCard) and action.to_player != self.recipients[0]:
            return (
                "joker1865.give-order",
                f"the next card goes to {_player(self.recipients[0])}, got {_player(action.to_player)}"
                if 0 <= action.to_player < self.players
                else f"the next card goes to {_player(self.recipients[0])}, got player index {action.to_player}",
            )
        if isinstance(action, RemoveFromTimeline) and not 0 <= action.index < len(self.timeline):
            return ("joker1915.index", f"index must be 0..{len(self.timeline) - 1}, got {action.index}")
        return None

    # ---- performing (arguments already validated)

    def _perform(self, action: Action, seen: SeenCard | None) -> Verdict:
        messages: list[str] = []
        draws = 0
        player = self.current_player
        assert player is not None
        if isinstance(action, (Place, PlaceSeen)):
            assert seen is not None
            draws = self._place(player, seen, action.position, messages)
        elif isinstance(action, (RevealOwn, RevealSeen)):
            if seen is None:  # turned in the hand, its date not entered
                messages.append(f"{_player(player)} turns a card over in the hand")
            else:
                if seen not in self.revealed[player]:
                    self.revealed[player].append(seen)
                messages.append(f"{_player(player)} turns a card over: {seen.date}")
            self._end_turn(messages)
        elif isinstance(action, KeepCard):
            self.hands[player].append(self._take(self.aside, action.card_id))
            if self.step is Step.KEEP_1965:
                rest = len(self.aside)
                self.discard.extend(self.aside)
                self.aside = []
                messages.append(f"keep one, discard the other {rest}" if rest else "keep the card")
                self._end_turn(messages)
            elif self.recipients:
                self.step = Step.GIVE_1865
                messages.append(f"give one card to {_player(self.recipients[0])}")
            else:
                self._end_turn(messages)
        elif isinstance(action, GiveCard):
            self.hands[action.to_player].append(self._take(self.aside, action.card_id))
            self.recipients.pop(0)
            if self.recipients and self.aside:
                messages.append(f"give one card to {_player(self.recipients[0])}")
            else:
                self._end_turn(messages)
        elif isinstance(action, RemoveFromTimeline):
            removed = self.timeline.pop(action.index)
            self.discard.append(self._token(removed.card_id))
            messages.append(f"{removed.date} leaves the timeline")
            self._end_turn(messages)
        elif isinstance(action, DiscardOwn):
            self.discard.append(self._take(self.hands[player], action.card_id))
            self._forget_revealed(player, action.card_id)
            draws = self._start_1965_draw(messages)
        return Verdict.ok(*messages, draws=draws)

    def _place(self, player: int, card: SeenCard, position: int, messages: list[str]) -> int:
        token = self._take(self.hands[player], card.card_id)
        self._forget_revealed(player, card.card_id)
        left = self.timeline[position - 1] if position > 0 else None
        right = self.timeline[position] if position < len(self.timeline) else None
        too_early = left is not None and card.date.compare(left.date) < 0
        too_late = right is not None and card.date.compare(right.date) > 0
        if not (too_early or too_late):
            self.timeline.insert(position, card)
            if left is not None and right is not None:
                where = f"between {left.date} and {right.date}"
            elif left is not None:
                where = f"after {left.date}"
            elif right is not None:
                where = f"before {right.date}"
            else:
                where = "as the first card"
            messages.append(f"correct: {card.date} fits {where}")
            if card.joker is None:
                self._end_turn(messages)
                return 0
            return self._start_joker(player, card.joker, messages)
        if too_late:
            assert right is not None
            messages.append(f"wrong: {card.date} is after {right.date} — take the card away and draw one")
        else:
            assert left is not None
            messages.append(f"wrong: {card.date} is before {left.date} — take the card away and draw one")
        if self.rules.draw_before_discarding_wrong:
            drawn = self._draw(self.hands[player], 1, messages)
            self.discard.append(token)
        else:
            self.discard.append(token)
            drawn = self._draw(self.hands[player], 1, messages)
        self._end_turn(messages)
        return drawn

    def _start_joker(self, player: int, joker: Joker, messages: list[str]) -> int:
        if joker is Joker.J1815:
            if not self.hands[player]:
                messages.append("joker 1815: no card left to turn over, the joker has no effect")
                self._end_turn(messages)
            else:
                self.step = Step.REVEAL_1815
                messages.append("joker 1815: turn one of your own cards over and read its date")
            return 0
        if joker is Joker.J1865:
            wanted = len(self.players_in())
            drawn = self._draw(self.aside, wanted, messages)
            if not drawn:
                messages.append("joker 1865: nothing to draw, the joker has no effect")
                self._end_turn(messages)
                return 0
            others = [(player + i) % self.players for i in range(1, self.players)]
            self.recipients = [p for p in others if self.active[p]][: drawn - 1]
            self.step = Step.KEEP_1865
            messages.append(
                f"joker 1865: draw {drawn} card{'s' if drawn > 1 else ''}, keep one"
                + (f" and give one each to {_players(self.recipients)}" if self.recipients else "")
            )
            return drawn
        if joker is Joker.J1915:
            if len(self.timeline) < 2:
                messages.append("joker 1915: the timeline keeps its only card, the joker has no effect")
                self._end_turn(messages)
            else:
                self.step = Step.REMOVE_1915
                messages.append("joker 1915: remove one card from the timeline")
            return 0
        if not self.hands[player]:
            if self.rules.joker1965_lapses_without_card:
                messages.append("joker 1965: no card left to discard, the joker has no effect")
                self._end_turn(messages)
                return 0
            return self._start_1965_draw(messages)
        self.step = Step.DISCARD_1965
        messages.append("joker 1965: discard one of your cards, then draw 3 and keep one")
        return 0

    def _start_1965_draw(self, messages: list[str]) -> int:
        drawn = self._draw(self.aside, 3, messages)
        if not drawn:
            messages.append("joker 1965: nothing to draw")
            self._end_turn(messages)
            return 0
        self.step = Step.KEEP_1965
        messages.append(f"joker 1965: draw {drawn}, keep one" + (", discard the rest" if drawn > 1 else ""))
        return drawn

    # ---- JSON (shared part)

    def _public_json(self) -> dict[str, Any]:
        """Everything public, with hidden piles as counts: the observer's JSON form."""
        data = self._flow_json()
        data.update(
            {
                "timeline": [c.to_json() for c in self.timeline],
                "hands": [len(h) for h in self.hands],
                "stack": len(self.stack),
                "discard": len(self.discard),
                "aside": len(self.aside),
                "revealed": [[c.to_json() for c in r] for r in self.revealed],
            }
        )
        return data

    def _flow_json(self) -> dict[str, Any]:
        return {
            "game": NAME,
            "players": self.players,
            "rules": self.rules.to_json(),
            "first_player": self.first_player,
            "round": self.round_no,
            "active": list(self.active),
            "order": list(self.order),
            "turn_pos": self.turn_pos,
            "step": self.step.value,
            "recipients": list(self.recipients),
            "over": self.over,
            "winners": list(self.winner_seats),
            "reshuffles": self.reshuffles,
        }

    def _load_flow(self, data: dict[str, Any]) -> None:
        self.round_no = int(data["round"])
        self.active = [bool(a) for a in data["active"]]
        self.order = [int(p) for p in data["order"]]
        self.turn_pos = int(data["turn_pos"])
        self.step = Step(data["step"])
        self.recipients = [int(p) for p in data["recipients"]]
        self.over = bool(data["over"])
        self.winner_seats = tuple(int(p) for p in data["winners"])
        self.reshuffles = int(data["reshuffles"])
        limit = len(self.order) + (1 if self.over else 0)
        if len(self.active) != self.players or not 0 <= self.turn_pos < limit:
            raise CompanionError(
                f"valais state: expected {self.players} 'active' flags and 0 <= turn_pos < {limit}, "
                f"got {len(self.active)} flags and turn_pos {self.turn_pos}"
            )


def _check_players(players: Any) -> int:
    if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CompanionError(f"valais: expected {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
    return players


# --------------------------------------------------------------------------------------------
# Full-information state


class State(_Table):
    """The full-information game state; :meth:`apply` mutates it in place."""

    _knows_cards = True

    def __init__(self, players: int, rules: Rules, seed: int, first_player: int, catalogue: Catalogue) -> None:
        super().__init__(players, rules, seed, first_player)
        self.catalogue = catalogue
        self.cards: dict[int, SeenCard] = catalogue.seen_by_id  # never mutated

    # ---- construction for tests and custom setups

    @classmethod
    def custom(
        cls,
        hands: list[list[int]],
        timeline: list[int],
        stack: list[int] = (),  # type: ignore[assignment]
        discard: list[int] = (),  # type: ignore[assignment]
        *,
        catalogue: Catalogue | None = None,
        rules: Rules | None = None,
        seed: int = 0,
        first_player: int = 0,
        current: int | None = None,
        players_in: tuple[int, ...] | None = None,
        round_no: int = 1,
    ) -> "State":
        """A state from explicit piles (card ids of ``catalogue``; the stack's top is its LAST id).

        ``current`` is the player to move (default ``first_player``); the round order is the
        players in (default all) in seat order from ``first_player``. Cards of the catalogue not
        named anywhere are simply not in the game.
        """
        players = _check_players(len(hands))
        catalogue = catalogue or _bundled()
        state = cls(players, rules or Rules(), seed, first_player, catalogue)
        named = [c for h in hands for c in h] + list(timeline) + list(stack) + list(discard)
        unknown = [c for c in named if c not in state.cards]
        if unknown or len(set(named)) != len(named):
            raise CompanionError(f"valais custom state: expected distinct catalogue ids, got {named}")
        state.hands = [list(h) for h in hands]
        state.timeline = [state.cards[c] for c in timeline]
        state.stack = list(stack)
        state.discard = list(discard)
        state.round_no = round_no
        if players_in is not None:
            state.active = [p in players_in for p in range(players)]
        state.order = state._round_order()
        who = first_player if current is None else current
        if who not in state.order:
            raise CompanionError(f"valais custom state: expected the current player among {state.order}, got {who}")
        state.turn_pos = state.order.index(who)
        return state

    # ---- API

    def all_cards(self) -> tuple[int, ...]:
        """Every card id in play, each once: timeline, hands, stack, discards, set aside."""
        out = [c.card_id for c in self.timeline]
        for hand in self.hands:
            out.extend(hand)
        out.extend(self.stack)
        out.extend(self.discard)
        out.extend(self.aside)
        return tuple(out)

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        player = self.order[self.turn_pos]
        step = self.step
        if step is Step.PLACE:
            slots = range(len(self.timeline) + 1)
            return [Place(c, pos) for c in sorted(self.hands[player]) for pos in slots]
        if step is Step.REVEAL_1815:
            return [RevealOwn(c) for c in sorted(self.hands[player])]
        if step in (Step.KEEP_1865, Step.KEEP_1965):
            return [KeepCard(c) for c in sorted(self.aside)]
        if step is Step.GIVE_1865:
            return [GiveCard(c, self.recipients[0]) for c in sorted(self.aside)]
        if step is Step.REMOVE_1915:
            return [RemoveFromTimeline(i) for i in range(len(self.timeline))]
        return [DiscardOwn(c) for c in sorted(self.hands[player])]

    def _check_private(self, action: Action) -> tuple[str, str] | None:
        if isinstance(action, (PlaceSeen, RevealSeen)):
            return ("action.kind", f"the full state takes the player's own action, got the public {action.to_json()['type']}")
        player = self.order[self.turn_pos]
        hand = self.hands[player]
        if isinstance(action, Place) and action.card_id not in hand:
            return ("place.own-card", f"card {action.card_id} is not in {_player(player)}'s hand {sorted(hand)}")
        if isinstance(action, RevealOwn) and action.card_id not in hand:
            return ("joker1815.own-card", f"card {action.card_id} is not in {_player(player)}'s hand {sorted(hand)}")
        if isinstance(action, DiscardOwn) and action.card_id not in hand:
            return ("joker1965.own-card", f"card {action.card_id} is not in {_player(player)}'s hand {sorted(hand)}")
        if isinstance(action, (KeepCard, GiveCard)) and action.card_id not in self.aside:
            return ("joker.set-aside", f"card {action.card_id} is not among the drawn cards {sorted(self.aside)}")
        return None

    def apply(self, action: Action) -> Verdict:
        """Apply a legal action; an illegal one raises IllegalAction and changes nothing."""
        if isinstance(action, (MissedWrong, MissedDraw)):
            raise IllegalAction("action.kind", f"the full state takes the players' own actions, got the "
                                f"observer's correction {action.to_json()['type']}")
        problem = self._check_public(action) or self._check_private(action)
        if problem is not None:
            raise IllegalAction(*problem)
        seen = None
        if isinstance(action, Place):
            seen = self.cards[action.card_id]
        elif isinstance(action, RevealOwn):
            seen = self.cards[action.card_id]
        return self._perform(action, seen)

    def public_action(self, action: Action) -> Action:
        """What the camera sees of ``action`` (call it before applying the action)."""
        if isinstance(action, Place):
            return PlaceSeen(self.cards[action.card_id], action.position)
        if isinstance(action, RevealOwn):
            return RevealSeen(self.cards[action.card_id])
        if isinstance(action, KeepCard):
            return KeepCard(None)
        if isinstance(action, GiveCard):
            return GiveCard(None, action.to_player)
        if isinstance(action, DiscardOwn):
            player = self.current_player
            known = player is not None and any(c.card_id == action.card_id for c in self.revealed[player])
            return DiscardOwn(action.card_id if known else None)
        return action

    def observer(self) -> "Observer":
        return Observer.from_json(self._observer_json())

    def _observer_json(self) -> dict[str, Any]:
        return self._public_json()

    def describe(self, action: Action) -> str:
        card = None
        if isinstance(action, (Place, RevealOwn, DiscardOwn, KeepCard, GiveCard)) and action.card_id in self.cards:
            card = self.cards[action.card_id]
        label = f"card {card.card_id} ({card.date}{', joker ' + str(card.joker) if card and card.joker else ''})" if card else "a card"
        if isinstance(action, Place):
            return f"place {label} at position {action.position}"
        if isinstance(action, RevealOwn):
            return f"turn over {label}"
        if isinstance(action, KeepCard):
            return f"keep {label}"
        if isinstance(action, GiveCard):
            return f"give {label} to {_player(action.to_player)}"
        if isinstance(action, RemoveFromTimeline):
            if 0 <= action.index < len(self.timeline):
                return f"remove {self.timeline[action.index].date} (position {action.index}) from the timeline"
            return f"remove position {action.index} from the timeline"
        if isinstance(action, DiscardOwn):
            return f"discard {label}"
        if isinstance(action, PlaceSeen):
            return f"place {action.card.date} at position {action.position}"
        if isinstance(action, RevealSeen):
            return "turn over a card in the hand" if action.card is None else f"turn over {action.card.date}"
        if isinstance(action, (MissedWrong, MissedDraw)):
            return describe_correction(action)
        return repr(action)

    # ---- JSON

    def to_json(self) -> dict[str, Any]:
        data = self._flow_json()
        data.update(
            {
                "seed": self.seed,
                "timeline": [c.card_id for c in self.timeline],
                "hands": [list(h) for h in self.hands],
                "stack": list(self.stack),
                "discard": list(self.discard),
                "aside": list(self.aside),
                "revealed": [[c.card_id for c in r] for r in self.revealed],
                # the bundled catalogue is referenced, a custom one is stored card by card
                "catalogue": None if self.catalogue is _bundled() else [c.to_json() for c in self.cards.values()],
            }
        )
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "State":
        try:
            if data.get("game") != NAME:
                raise CompanionError(f"valais state: expected game {NAME!r}, got {data.get('game')!r}")
            stored = data.get("catalogue")
            if stored is None:
                catalogue = _bundled()
            else:
                seen = [SeenCard.from_json(c) for c in stored]
                catalogue = Catalogue(tuple(Card(s.card_id, s.date, f"card {s.card_id}", s.joker) for s in seen))
            state = cls(
                _check_players(data["players"]),
                Rules.from_json(data["rules"]),
                int(data["seed"]),
                int(data["first_player"]),
                catalogue,
            )
            state._load_flow(data)
            state.timeline = [state.cards[int(c)] for c in data["timeline"]]
            state.hands = [list(map(int, h)) for h in data["hands"]]
            state.stack = list(map(int, data["stack"]))
            state.discard = list(map(int, data["discard"]))
            state.aside = list(map(int, data["aside"]))
            state.revealed = [[state.cards[int(c)] for c in r] for r in data["revealed"]]
            if len(state.hands) != state.players or len(state.revealed) != state.players:
                raise CompanionError(f"valais state: expected {state.players} hands, got {len(state.hands)}")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CompanionError(f"valais state: malformed JSON ({type(exc).__name__}: {exc})") from None
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def new_game(players: int, seed: int, rules: Rules | None = None, data: Catalogue | None = None) -> State:
    """Shuffle the catalogue (salt "deal"), deal the hands, turn the first timeline card.

    Seat 0 plays first. Cards are dealt one at a time from the top (end) of the shuffled stack.
    """
    players = _check_players(players)
    rules = rules or Rules()
    catalogue = data if data is not None else _bundled()
    size = rules.hand_size(players)
    needed = players * size + 1
    if len(catalogue) < needed:
        raise CompanionError(
            f"valais: {players} players with {size} cards need at least {needed} cards, the catalogue has {len(catalogue)}"
        )
    state = State(players, rules, seed, 0, catalogue)
    state.stack = seeded_shuffle([c.card_id for c in catalogue.cards], seed, "deal")
    for _ in range(size):
        for p in range(players):
            state.hands[p].append(state.stack.pop())
    state.timeline = [state.cards[state.stack.pop()]]
    return state


# --------------------------------------------------------------------------------------------
# Observer


class Observer(_Table):
    """What a camera can know: the timeline with dates, counts of every hidden pile, turns, jokers.

    Feed it public actions (:class:`PlaceSeen`, :class:`RevealSeen`, :class:`KeepCard`,
    :class:`GiveCard`, :class:`RemoveFromTimeline`, :class:`DiscardOwn`) and the corrections
    for what the camera missed (:class:`MissedWrong`, :class:`MissedDraw`); an illegal one
    returns ``Verdict.illegal`` and leaves the observer unchanged.
    """

    _knows_cards = False

    @classmethod
    def start(
        cls,
        players: int,
        first_player: int,
        first_card: SeenCard | int,
        rules: Rules | None = None,
        catalogue: Catalogue | None = None,
        deck_size: int | None = None,
    ) -> "Observer":
        """A fresh game: hands dealt, ``first_card`` turned (a seen card, or a card id of the
        catalogue). The deck size comes from ``deck_size`` or the catalogue (``None``: the
        bundled one)."""
        players = _check_players(players)
        if isinstance(first_card, int) and not isinstance(first_card, bool):
            first_card = (catalogue if catalogue is not None else _bundled()).card(first_card).seen()
        if not isinstance(first_card, SeenCard):
            raise CompanionError(f"valais observer: expected the first card as SeenCard or id, got {first_card!r}")
        if not isinstance(first_player, int) or not 0 <= first_player < players:
            raise CompanionError(f"valais observer: expected first player 0..{players - 1}, got {first_player!r}")
        rules = rules or Rules()
        size = deck_size if deck_size is not None else len(catalogue if catalogue is not None else _bundled())
        hand = rules.hand_size(players)
        rest = size - players * hand - 1
        if rest < 0:
            raise CompanionError(f"valais observer: expected at least {players * hand + 1} cards, got {size}")
        obs = cls(players, rules, 0, first_player)
        obs.hands = [[HIDDEN] * hand for _ in range(players)]
        obs.stack = [HIDDEN] * rest
        obs.timeline = [first_card]
        return obs

    def apply(self, action: Action) -> Verdict:
        if isinstance(action, (MissedWrong, MissedDraw)):
            return self._correct(action)
        if not isinstance(action, (PlaceSeen, RevealSeen, KeepCard, GiveCard, RemoveFromTimeline, DiscardOwn)):
            return Verdict.illegal("action.kind", f"the observer takes what the camera sees, got {action!r}")
        problem = self._check_public(action)
        if problem is not None:
            return Verdict.illegal(*problem)
        seen = action.card if isinstance(action, (PlaceSeen, RevealSeen)) else None
        return self._perform(action, seen)

    def _can_draw(self) -> bool:
        """Whether a card can be drawn now (from the stack, or from the discards reshuffled)."""
        return bool(self.stack) or (self.rules.reshuffle_discards and bool(self.discard))

    def _correct(self, action: Correction) -> Verdict:
        """Count in a move the camera missed (see :class:`MissedWrong`, :class:`MissedDraw`)."""
        messages: list[str] = []
        if isinstance(action, MissedWrong):
            if self.over or self.step is not Step.PLACE:
                return Verdict.illegal("missed-wrong.step", "a missed wrong card is counted in when a player is "
                                       f"to place a card, got {'the game over' if self.over else self.step.value}")
            player = self.order[self.turn_pos]
            if not self._can_draw():
                return Verdict.illegal("missed-wrong.stack", "expected a card left to draw, the draw pile is empty")
            self.discard.append(self.hands[player].pop())
            self._draw(self.hands[player], 1, messages)
            messages.insert(0, f"{_player(player)} put a wrong card in and took it away unseen; the turn passes")
            self._end_turn(messages)
            return Verdict.ok(*messages, draws=1)
        player = action.player
        if not isinstance(player, int) or not 0 <= player < self.players:
            return Verdict.illegal("missed-draw.player", f"expected a player index 0..{self.players - 1}, got {player!r}")
        if not self.active[player]:
            return Verdict.illegal("missed-draw.player", f"expected a player still in, {_player(player)} is out")
        if not self.over and self.step is not Step.PLACE:
            return Verdict.illegal("missed-draw.step", f"finish the joker first ({_STEP_WANTS[self.step]})")
        if not self._can_draw():
            return Verdict.illegal("missed-draw.stack", "expected a card left to draw, the draw pile is empty")
        self._draw(self.hands[player], 1, messages)
        messages.insert(0, f"{_player(player)} holds one card more than counted")
        if self.over:
            self.over = False
            self.winner_seats = ()
            self.round_no += 1
            self.order = self._round_order()
            self.turn_pos = 0
            self.step = Step.PLACE
            messages.append(f"the game goes on: round {self.round_no}")
            self._advance(messages)
        return Verdict.ok(*messages, draws=1)

    def corrections(self) -> list[Correction]:
        """The corrections that make sense now: a missed wrong card of the player to place; once
        the count has ended the game, a missed draw of each player still in (the game goes on)."""
        if not self._can_draw():
            return []
        if self.over:
            return [MissedDraw(p) for p in self.players_in()]
        if self.step is Step.PLACE and self.hands[self.order[self.turn_pos]]:
            return [MissedWrong()]
        return []

    def hand_actions(self) -> list[Action]:
        """The public action the current player takes now in the hand, out of the camera's
        sight (turning a card over for a 1815 joker, keeping, giving or discarding for a 1865 or
        1965 joker), or none: a player enters it on the dashboard, a replay takes it as done, and
        so does a session when the camera sees the next card placed first."""
        if self.over:
            return []
        if self.step is Step.REVEAL_1815:
            return [RevealSeen(None)]
        if self.step in (Step.KEEP_1865, Step.KEEP_1965):
            return [KeepCard(None)]
        if self.step is Step.GIVE_1865:
            return [GiveCard(None, self.recipients[0])]
        if self.step is Step.DISCARD_1965:
            return [DiscardOwn(None)]
        return []

    def to_json(self) -> dict[str, Any]:
        return self._public_json()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Observer":
        try:
            obs = cls(_check_players(data["players"]), Rules.from_json(data["rules"]), 0, int(data["first_player"]))
            obs._load_flow(data)
            obs.timeline = [SeenCard.from_json(c) for c in data["timeline"]]
            obs.hands = [[HIDDEN] * int(n) for n in data["hands"]]
            obs.stack = [HIDDEN] * int(data["stack"])
            obs.discard = [HIDDEN] * int(data["discard"])
            obs.aside = [HIDDEN] * int(data["aside"])
            obs.revealed = [[SeenCard.from_json(c) for c in r] for r in data["revealed"]]
            if len(obs.hands) != obs.players or len(obs.revealed) != obs.players:
                raise CompanionError(f"valais observer: expected {obs.players} hands, got {len(obs.hands)}")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CompanionError(f"valais observer: malformed JSON ({type(exc).__name__}: {exc})") from None
        return obs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Observer) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]
