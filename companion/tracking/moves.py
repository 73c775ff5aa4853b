"""From settled table changes to the public actions each game's Observer takes.

:class:`Tracker` is the one class the session uses::

    tracker = Tracker("gladiola")
    for i, (t, frame_result) in enumerate(frames):
        for move in tracker.update(i, t, frame_result, view=observer.public_view()):
            verdict = observer.apply(move.action)

``view`` (optional) is the Observer's current ``public_view()``. With it the tracker reads the
walk pile top, the cards already on the table, the Valais timeline and the Appia display from
the engine; without it, it keeps its own model and assumes every move it reported was accepted.

The first time the table is calm and every card on it has settled, the tracker takes that
layout as the starting position (no moves): the START card (Gladiola), the first timeline card
(Valais), the seven income cards (Appia). Later changes become moves, one interpreter per game:

* :class:`GladiolaMoves`: a new reading settles on the walk pile -> :class:`Walk` of the deck
  card with that reading not yet on the table (preceded by a :class:`TableWalk` of the card
  beneath when that card was refused but the players built on it); a gladiola settles beside the pile ->
  :class:`LayGladiola`; a START card settles after a FINISH -> new pile, and the START card's
  quarter turn against day 1 is checked against the day the engine expects (a notice if not);
  a START card turned for the next day with no FINISH seen -> :class:`TableWalk` of a FINISH
  card (the camera missed it) and a new pile.
* :class:`ValaisMoves`: a card settles in the row with a readable date -> :class:`PlaceSeen` at
  its position in row order; a wrong card that is then taken away -> nothing; a timeline card
  taken away while a 1915 joker asks for a removal -> :class:`RemoveFromTimeline` (otherwise
  a notice, and a track that shows its date again takes it over).
* :class:`AppiaMoves`: an income card leaves the display -> :class:`Income`; when it was the last
  one, the move waits for the seven new cards and carries them as ``revealed``.

Everything the tracker could not decide goes to :meth:`Tracker.notices` for the dashboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion.errors import CompanionError
from companion.games import appia, canonical_name, gladiola, valais
from companion.tracking.geometry import quarter_turns, up_angle
from companion.tracking.tracks import (
    CardRemoved,
    CardSettled,
    CardTracker,
    Reading,
    SettledCard,
    TableEvent,
    TrackConfig,
)
from companion.tracking.zones import (
    Zones,
    ZoneKind,
    beside_pile,
    display_zone,
    gladiola_zones,
    order_along_row,
    row_zone,
)
from vision.types import CardDate as VisionDate
from vision.types import CardKind, CardObservation, FrameResult


@dataclass(frozen=True)
class TrackedMove:
    """One public action concluded from the table.

    ``action``: the engine's public action to feed ``observer.apply``. ``evidence``: the
    observations that led to it. ``unsure``: names of action fields the camera cannot see and
    that the tracker filled with a default (e.g. ``"take"`` for a Via Appia income); the
    dashboard should let the players correct them.
    """

    frame_index: int
    timestamp: float
    action: Any
    evidence: tuple[CardObservation, ...]
    unsure: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notice:
    """Something the tracker saw but could not turn into a move, for the players to check."""

    frame_index: int
    timestamp: float
    message: str


@dataclass(frozen=True)
class Conclusion:
    """An interpreter's result for one event: an action and what backs it."""

    action: Any
    evidence: tuple[CardObservation, ...]
    unsure: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """All an interpreter concluded from one event."""

    conclusions: tuple[Conclusion, ...] = ()
    notes: tuple[str, ...] = ()


class GameMoves(Protocol):
    """What the tracker asks of a per-game interpreter."""

    def start(self, cards: Sequence[SettledCard], width: int, height: int, view: Any) -> tuple[str, ...]: ...

    def interpret(self, event: TableEvent, width: int, height: int, view: Any) -> Outcome: ...

    @property
    def zones(self) -> Zones: ...


# --------------------------------------------------------------------------------------------
# Via Gladiola


class GladiolaMoves:
    """Via Gladiola: walks on the pile, gladiolas beside it, day changes by the START card."""

    def __init__(self, deck: gladiola.Deck | None = None) -> None:
        self.deck = deck or gladiola.load_deck()
        self._zones = Zones()
        self._top = self.deck.start.id
        self._on_table: set[str] = {self.deck.start.id}
        self._day = 1
        self._day1_angle: float | None = None
        self._awaiting_start = False
        self._judged: tuple[str, str] | None = None  # the last walk reported, and the top it was laid on

    @property
    def zones(self) -> Zones:
        return self._zones

    def _sync(self, view: gladiola.PublicView | None) -> None:
        if view is None:
            return
        self._top = view.walk_pile[-1] if view.walk_pile else self.deck.start.id
        self._on_table = set(view.on_table())
        if view.day != self._day:
            self._awaiting_start = view.day > self._day and self._top == self.deck.start.id
            self._day = view.day

    def start(self, cards: Sequence[SettledCard], width: int, height: int, view: Any) -> tuple[str, ...]:
        self._sync(view)
        start = next((c for c in cards if c.reading.kind is CardKind.START), None)
        if start is not None:
            self._zones = gladiola_zones(start.quad, width, height)
            self._day1_angle = (up_angle(start.quad) - 90.0 * (self._day - 1)) % 360.0
            return ()
        top = next((c for c in cards if self._card_for(c.reading, allow_on_table=True) == self._top), None)
        if top is not None:
            self._zones = gladiola_zones(top.quad, width, height)
            return ()
        return ("no START card seen: the walk pile is found when a START card settles",)

    def _card_for(self, reading: Reading, allow_on_table: bool = False) -> str | None:
        """The deck card id with this reading (a free one for FINISH and gladiola cards)."""
        if reading.kind is CardKind.START:
            return self.deck.start.id
        if reading.kind is CardKind.WALK:
            if reading.value is None or not 1 <= reading.value <= 49:
                return None
            return self.deck.walk_card(reading.value).id
        kinds = {CardKind.FINISH: gladiola.CardKind.FINISH, CardKind.GLADIOLA: gladiola.CardKind.GLADIOLA}
        if reading.kind not in kinds:
            return None
        pool = [c for c in self.deck.of_kind(kinds[reading.kind]) if allow_on_table or c.id not in self._on_table]
        pool.sort(key=lambda c: (reading.blisters is not None and c.blisters != reading.blisters, c.id))
        return pool[0].id if pool else None

    def interpret(self, event: TableEvent, width: int, height: int, view: Any) -> Outcome:
        self._sync(view)
        if not isinstance(event, CardSettled):
            return Outcome()
        card, reading = event.card, event.card.reading
        if reading.kind is CardKind.START:
            finish = self._missed_finish(card)
            if finish is not None:
                # the table overrules: the START card shows the next day, so a FINISH was laid
                self._on_table.add(finish)
                self._awaiting_start = True
                self._day += 1
                return Outcome((Conclusion(gladiola.TableWalk(finish), event.evidence),),
                               self._new_pile(card, None, width, height))
            return Outcome(notes=self._new_pile(card, event.previous, width, height))
        if not self._zones.zones:
            return Outcome()
        if reading.kind in (CardKind.WALK, CardKind.FINISH) and self._zones.holds(ZoneKind.WALK_PILE, card.quad):
            if event.previous == reading:
                return Outcome()
            card_id = self._card_for(reading)
            if card_id is None or card_id in self._on_table:
                if self._card_for(reading, allow_on_table=True) is not None:
                    return Outcome()  # a card already counted shows again (e.g. a bad walk taken back)
                return Outcome(notes=(f"walk pile shows {reading.describe()}: no such card left in the deck",))
            if self._judged == (card_id, self._top):
                # the engine refused this card on this top and it settled again (nudged, or its
                # outline seen anew): the verdict stands, nothing new to judge
                return Outcome(notes=(f"the refused {reading.describe()} still lies on the walk pile",))
            notes = self._blister_check(card_id, reading)
            conclusions: tuple[Conclusion, ...] = ()
            under = self._built_on(event.previous, card_id)
            if under is not None:
                conclusions = (Conclusion(gladiola.TableWalk(under), event.evidence),)
                self._on_table.add(under)
                self._top = under
            self._judged = (card_id, self._top)
            self._top = card_id
            self._on_table.add(card_id)
            self._zones = self._zones.with_zone(gladiola_zones(card.quad, width, height).get(ZoneKind.WALK_PILE))  # type: ignore[arg-type]
            if reading.kind is CardKind.FINISH:
                self._awaiting_start = True
                self._day += 1
            return Outcome(conclusions + (Conclusion(gladiola.Walk(card_id), event.evidence),), notes)
        if reading.kind is CardKind.GLADIOLA and beside_pile(self._zones, card.quad) and event.previous != reading:
            card_id = self._card_for(reading)
            if card_id is None:
                return Outcome(notes=("a gladiola appeared beside the pile, but all gladiolas are already laid",))
            self._on_table.add(card_id)
            return Outcome((Conclusion(gladiola.LayGladiola(card_id), event.evidence),),
                           self._blister_check(card_id, reading))
        return Outcome()

    def _missed_finish(self, card: SettledCard) -> str | None:
        """A free FINISH card id when ``card`` (a START card) is turned for the day after today
        although no FINISH card was seen to end today (its top card went unread, say)."""
        if self._awaiting_start or self._day1_angle is None or self._day >= gladiola.DAYS:
            return None
        shown = 1 + quarter_turns(self._day1_angle, up_angle(card.quad))
        if shown != self._day + 1:
            return None
        return self._card_for(Reading(CardKind.FINISH, gladiola.FINISH_VALUE))

    def _built_on(self, previous: Reading | None, card_id: str) -> str | None:
        """The refused walk card the players laid ``card_id`` on, when the table overrules.

        ``previous`` is what the pile showed before. When that is a walk card the engine does
        not have on the table (it refused it, or the camera missed the card before it and the
        refusal was wrong), and the new card is a legal step from it but not from the engine's
        top, the players built on the refused card: it is returned, to be accepted as a
        :class:`TableWalk` first. A refused card that was taken back and replaced by a card
        legal on the engine's top leaves nothing to overrule.
        """
        if previous is None or previous.kind is not CardKind.WALK:
            return None
        under = self._card_for(previous)
        if under is None or under == self._top:
            return None
        value = self.deck.card(card_id).value
        low, top = self.deck.card(under).value, self.deck.card(self._top).value
        assert value is not None and low is not None and top is not None
        fits_under = 0 < value - low <= gladiola.MAX_STEP
        fits_top = 0 < value - top <= gladiola.MAX_STEP
        return under if fits_under and not fits_top else None

    def _blister_check(self, card_id: str, reading: Reading) -> tuple[str, ...]:
        printed = self.deck.card(card_id).blisters
        if reading.blisters is not None and reading.blisters != printed:
            return (f"card {card_id}: camera counts {reading.blisters} blisters, the deck file says {printed}",)
        return ()

    def _new_pile(self, card: SettledCard, previous: Reading | None, width: int, height: int) -> tuple[str, ...]:
        if previous is not None and previous.kind is CardKind.START and not self._awaiting_start:
            return ()
        if self._day1_angle is None:
            self._zones = gladiola_zones(card.quad, width, height)
            self._day1_angle = up_angle(card.quad)
            return ()
        if not self._awaiting_start:
            if self._zones.holds(ZoneKind.WALK_PILE, card.quad):
                return ()
            return ("a START card settled away from the walk pile, but no FINISH card ended the day",)
        self._zones = gladiola_zones(card.quad, width, height)
        self._top = self.deck.start.id
        self._awaiting_start = False
        shown = 1 + quarter_turns(self._day1_angle, up_angle(card.quad))
        if shown != self._day:
            return (f"the START card is turned for day {shown}, expected day {self._day}",)
        return ()


# --------------------------------------------------------------------------------------------
# Valais*Wallis Digital


def _engine_date(date: VisionDate) -> valais.CardDate:
    return valais.CardDate(date.year, date.month, date.day)


class ValaisMoves:
    """Valais*Wallis: cards placed into the row, wrong cards taken away, joker-1915 removals.

    The row is read from the end leftmost on screen unless the accepted cards' dates say
    otherwise, or ``right_to_left`` is set.
    """

    def __init__(self, catalogue: valais.Catalogue | None = None, right_to_left: bool = False) -> None:
        self.catalogue = catalogue or valais.load_catalogue()
        self.right_to_left = right_to_left
        self._zones = Zones()
        self._row: dict[int, tuple[SettledCard, valais.SeenCard]] = {}  # accepted, by track id
        self._wrong: set[int] = set()
        self._orphans: list[valais.SeenCard] = []  # accepted cards whose track was lost
        self._synthetic = 0

    @property
    def zones(self) -> Zones:
        return self._zones

    def _sync(self, view: valais.PublicView | None) -> None:
        if view is None:
            return
        ids = {c.card_id for c in view.timeline}
        for tid in [t for t, (_, seen) in self._row.items() if seen.card_id not in ids]:
            del self._row[tid]
            self._wrong.add(tid)
        self._orphans = [seen for seen in self._orphans if seen.card_id in ids]

    def _seen(self, date: VisionDate) -> tuple[valais.SeenCard, tuple[str, ...]]:
        wanted = _engine_date(date)
        used = {seen.card_id for _, seen in self._row.values()} | {seen.card_id for seen in self._orphans}
        same = [c for c in self.catalogue.cards if c.date == wanted and c.card_id not in used]
        if same:
            notes = () if len(same) == 1 else (f"{len(same)} catalogue cards show {wanted}: took card {same[0].card_id}",)
            return same[0].seen(), notes
        self._synthetic += 1
        card_id = 1_000_000 + self._synthetic
        return valais.SeenCard(card_id, wanted), (f"no catalogue card shows {wanted}: recorded as card {card_id}",)

    def _ordered(self, extra: SettledCard | None = None) -> list[int]:
        """Track ids of the accepted row (plus ``extra``) in timeline order."""
        cards = [c for c, _ in self._row.values()] + ([extra] if extra is not None else [])
        order = [cards[i].track_id for i in order_along_row([c.quad.centroid for c in cards])]
        dated = [self._row[t][1].date for t in order if t in self._row]
        first, last = (dated[0], dated[-1]) if dated else (None, None)
        if first is not None and last is not None and first.compare(last) != 0:
            reverse = first.compare(last) > 0
        else:
            reverse = self.right_to_left
        return order[::-1] if reverse else order

    def start(self, cards: Sequence[SettledCard], width: int, height: int, view: Any) -> tuple[str, ...]:
        dated = [c for c in cards if c.reading.date is not None]
        if not dated:
            return ("no dated card seen: the timeline row is found when its first card settles",)
        timeline = tuple(view.timeline) if view is not None else ()
        for card in dated:
            seen = next((s for s in timeline if s.date == _engine_date(card.reading.date)), None)  # type: ignore[arg-type]
            if seen is None:
                seen, _ = self._seen(card.reading.date)  # type: ignore[arg-type]
            self._row[card.track_id] = (card, seen)
        self._zones = Zones((row_zone([c.quad for c, _ in self._row.values()]),))
        return ()

    def interpret(self, event: TableEvent, width: int, height: int, view: Any) -> Outcome:
        self._sync(view)
        tid = event.card.track_id
        if isinstance(event, CardRemoved):
            if tid in self._wrong:
                self._wrong.discard(tid)
                return Outcome()
            if tid not in self._row:
                return Outcome()
            # without the engine's view every accepted card taken away counts as a removal
            if view is not None and view.step is not valais.Step.REMOVE_1915:
                # no 1915 joker asks for a removal: the card was pushed along or covered and its
                # track lost; it stays in the timeline until a track shows its date again
                seen = self._row.pop(tid)[1]
                self._orphans.append(seen)
                self._refresh_zone()
                return Outcome(notes=(f"the timeline card {seen.date} is no longer seen: only a 1915 joker takes "
                                      "a card out of the timeline",))
            index = self._ordered().index(tid)
            del self._row[tid]
            self._refresh_zone()
            return Outcome((Conclusion(valais.RemoveFromTimeline(index), event.evidence),))
        card = event.card
        if tid in self._row:
            self._row[tid] = (card, self._row[tid][1])
            if event.previous is not None and event.previous.date != card.reading.date:
                return Outcome(notes=(f"a timeline card now reads {card.reading.describe()}, before {event.previous.describe()}",))
            return Outcome()
        if card.reading.date is None or tid in self._wrong:
            return Outcome()
        if self._zones.zones and not self._zones.holds(ZoneKind.ROW, card.quad):
            return Outcome()
        card, tid = self._unshift(card)
        if tid == card.track_id and tid not in self._row:
            handed, leftover = self._hand_over(card)
            if handed:
                if leftover is None or leftover.reading.date is None or self._accepted(leftover.reading.date):
                    return Outcome()
                card, tid = leftover, leftover.track_id  # the track that gave its card away shows the one placed
        seen, notes = self._seen(card.reading.date)
        order = self._ordered(card)
        before = order[: order.index(tid)]
        position = len(before)
        left = self._row[before[-1]][1] if before else None
        after = order[order.index(tid) + 1:]
        right = self._row[after[0]][1] if after else None
        fits = (left is None or seen.date.compare(left.date) >= 0) and (right is None or seen.date.compare(right.date) <= 0)
        if fits:
            self._row[tid] = (card, seen)
            self._refresh_zone()
        else:
            self._wrong.add(tid)
        if not self._zones.zones:
            self._refresh_zone()
        return Outcome((Conclusion(valais.PlaceSeen(seen, position), event.evidence),), notes)

    def _unshift(self, card: SettledCard) -> tuple[SettledCard, int]:
        """The card really placed when ``card`` appeared in the row.

        Putting a card into the row pushes the cards beside it along, and the tracker, which
        follows cards by where they lie, then sees a row position change its date and a "new"
        card at the end of the shifted run showing a date the row already had. When the new
        card's date and the changed positions' readings are exactly the accepted dates of those
        positions plus one more, the accepted cards are handed on to the tracks that now show
        them, and the track left with the unaccounted date is the card that was placed."""
        changed = [t for t, (c, seen) in self._row.items()
                   if c.reading.date is not None and _engine_date(c.reading.date) != seen.date]
        if not changed:
            return card, card.track_id
        tracks = {t: self._row[t][0] for t in changed}
        tracks[card.track_id] = card
        free = {t: self._row[t][1] for t in changed}  # accepted cards waiting for their new track
        assignment: dict[int, valais.SeenCard] = {}
        for t, c in sorted(tracks.items(), key=lambda item: item[0] != card.track_id):
            date = _engine_date(c.reading.date)  # type: ignore[arg-type]
            match = next((k for k, seen in free.items() if seen.date == date), None)
            if match is not None:
                assignment[t] = free.pop(match)
        placed = [t for t in tracks if t not in assignment]
        if free or len(placed) != 1:
            return card, card.track_id  # not a clean shift: judge the new card as seen
        for t in changed:
            del self._row[t]
        for t, seen in assignment.items():
            self._row[t] = (tracks[t], seen)
        return tracks[placed[0]], placed[0]

    def _hand_over(self, card: SettledCard) -> tuple[bool, SettledCard | None]:
        """Whether ``card`` is an accepted row card seen on a new track: an accepted card with
        its date whose own track now shows another date (the row was pushed along, and not as
        one clean shift), or whose track was lost. The accepted card moves to ``card``'s track.
        Also returns the track that gave it away, now showing another card (maybe the one
        placed), or None."""
        date = _engine_date(card.reading.date)  # type: ignore[arg-type]
        for t, (c, seen) in self._row.items():
            if seen.date == date and (c.reading.date is None or _engine_date(c.reading.date) != date):
                del self._row[t]
                self._row[card.track_id] = (card, seen)
                self._refresh_zone()
                return True, c
        orphan = next((seen for seen in self._orphans if seen.date == date), None)
        if orphan is None:
            return False, None
        self._orphans.remove(orphan)
        self._row[card.track_id] = (card, orphan)
        self._refresh_zone()
        return True, None

    def _accepted(self, date: VisionDate) -> bool:
        """Whether an accepted card (on a track or lost) has this date."""
        wanted = _engine_date(date)
        return any(seen.date == wanted for _, seen in self._row.values()) or any(
            seen.date == wanted for seen in self._orphans)

    def _refresh_zone(self) -> None:
        if self._row:
            self._zones = Zones((row_zone([c.quad for c, _ in self._row.values()]),))


# --------------------------------------------------------------------------------------------
# Via Appia


def _income_halves(reading: Reading) -> tuple[int | None, int | None]:
    """(stones, sesterces) of an income card reading."""
    return reading.stones, reading.sesterces


class AppiaMoves:
    """Via Appia: income cards taken from the display and the seven laid out after the last one.

    Vision reads an income card's two halves into ``stones`` and ``sesterces`` (see
    :func:`_income_halves`). Which half the player takes cannot be seen: the move carries
    ``take`` (default stones) and names it in ``unsure``.
    """

    def __init__(self, cards: Sequence[appia.IncomeCard] | None = None, take: appia.Resource = appia.Resource.STONES) -> None:
        self.cards = tuple(cards) if cards is not None else appia.default_data().cards
        self.take = take
        self._zones = Zones()
        self._display: dict[int, int] = {}  # track id -> card id
        self._taken: list[int] = []
        self._refill: tuple[int, tuple[CardObservation, ...]] | None = None
        self._incoming: dict[int, SettledCard] = {}

    @property
    def zones(self) -> Zones:
        return self._zones

    def _pick(self, reading: Reading, allowed: set[int]) -> int | None:
        for card in sorted(self.cards, key=lambda c: c.id):
            if card.id in allowed and (card.stones, card.sesterces) == _income_halves(reading):
                return card.id
        return None

    def start(self, cards: Sequence[SettledCard], width: int, height: int, view: Any) -> tuple[str, ...]:
        income = [c for c in cards if c.reading.kind is CardKind.INCOME]
        if not income:
            return ("no income card seen: the display is found when income cards settle",)
        allowed = set(view.display) if view is not None else {c.id for c in self.cards}
        notes: list[str] = []
        for card in income:
            card_id = self._pick(card.reading, allowed)
            if card_id is None:
                stones, sesterces = _income_halves(card.reading)
                notes.append(f"income card with {stones} stones and {sesterces} sesterces: no such card free")
                continue
            allowed.discard(card_id)
            self._display[card.track_id] = card_id
        if view is not None:
            self._taken = list(view.taken)
        self._zones = Zones((display_zone([c.quad for c in income]),))
        return tuple(notes)

    def interpret(self, event: TableEvent, width: int, height: int, view: Any) -> Outcome:
        tid = event.card.track_id
        if isinstance(event, CardRemoved):
            if tid not in self._display:
                self._incoming.pop(tid, None)
                return Outcome()
            card_id = self._display.pop(tid)
            if self._display:
                self._taken.append(card_id)
                return Outcome((Conclusion(appia.Income(card_id, self.take), event.evidence, ("take",)),))
            self._refill = (card_id, event.evidence)
            self._incoming = {}
            return Outcome()
        card = event.card
        if card.reading.kind is not CardKind.INCOME or tid in self._display:
            return Outcome()
        if self._refill is None:
            if self._zones.holds(ZoneKind.DISPLAY, card.quad):
                return Outcome(notes=("an income card was added to the display outside a refill",))
            return Outcome()
        self._incoming[tid] = card
        if len(self._incoming) < appia.DISPLAY_SIZE:
            return Outcome()
        last, evidence = self._refill
        pile = {c.id for c in self.cards} - set(self._taken) - {last} - set(self._display.values())
        chosen: dict[int, int] = {}
        for new_tid, new_card in sorted(self._incoming.items()):
            card_id = self._pick(new_card.reading, pile)
            if card_id is None:
                return Outcome(notes=(f"a new income card ({new_card.reading.describe()}) matches no card of the draw pile",))
            pile.discard(card_id)
            chosen[new_tid] = card_id
        self._display = chosen
        self._taken = []
        self._refill = None
        self._zones = Zones((display_zone([c.quad for c in self._incoming.values()]),))
        self._incoming = {}
        revealed = tuple(chosen[t] for t in sorted(chosen))
        return Outcome((Conclusion(appia.Income(last, self.take, revealed), evidence + event.evidence, ("take",)),))


# --------------------------------------------------------------------------------------------
# The tracker


def _interpreter(game: str, data: Any) -> GameMoves:
    if game == "gladiola":
        return GladiolaMoves(data)
    if game == "valais":
        return ValaisMoves(data)
    return AppiaMoves(data)


class Tracker:
    """Frames in, public moves out, for one game (see the module doc).

    ``data``: the game's card data (a Gladiola ``Deck``, a Valais ``Catalogue``, Appia
    ``IncomeCard``s); None means the bundled samples.
    """

    def __init__(self, game: str, config: TrackConfig = TrackConfig(), data: Any = None) -> None:
        self.game = canonical_name(game)
        self.config = config
        self.cards = CardTracker(config)
        self.moves: GameMoves = _interpreter(self.game, data)
        self._started = False
        self._notices: list[Notice] = []
        self._start_layout: tuple[SettledCard, ...] = ()

    @property
    def started(self) -> bool:
        """Whether the starting layout has been taken."""
        return self._started

    @property
    def start_layout(self) -> tuple[SettledCard, ...]:
        return self._start_layout

    @property
    def zones(self) -> Zones:
        return self.moves.zones

    def notices(self) -> tuple[Notice, ...]:
        return tuple(self._notices)

    def update(
        self,
        frame_index: int,
        timestamp: float,
        result: FrameResult,
        view: Any = None,
        hand: bool | None = None,
    ) -> list[TrackedMove]:
        """Take one frame's observations; return the moves concluded in this frame.

        ``view``: the Observer's ``public_view()`` (optional, see the module doc). ``hand``: True
        when something outside vision (e.g. :func:`~companion.tracking.tracks.skin_fraction`)
        sees an arm over the table; None leaves it to the tracker.
        """
        if not isinstance(result, FrameResult):
            raise CompanionError(f"expected a FrameResult, got {type(result).__name__}")
        events = self.cards.update(timestamp, result, hand)
        if not self._started:
            if self.cards.busy or not self.cards.all_settled():
                return []
            self._started = True
            self._start_layout = self.cards.settled_cards()
            for note in self.moves.start(self._start_layout, result.width, result.height, view):
                self._notices.append(Notice(frame_index, timestamp, note))
            return []
        out: list[TrackedMove] = []
        if view is not None and view.over:
            return out  # once the game is over, cards moved about are not moves
        for event in events:
            outcome = self.moves.interpret(event, result.width, result.height, view)
            for note in outcome.notes:
                self._notices.append(Notice(frame_index, timestamp, note))
            for c in outcome.conclusions:
                out.append(TrackedMove(frame_index, timestamp, c.action, c.evidence, c.unsure))
            if outcome.conclusions:
                view = None  # the view predates these moves: the interpreter's own model stands
        return out
