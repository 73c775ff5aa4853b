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
  a START card turned for the next day with no FINISH seen -> :class:`Walk` of a FINISH card
  (the camera missed it; preceded by a :class:`TableWalk` of the walk refused last when the
  FINISH fits only on that one; a :class:`TableWalk` itself when the step rules refuse it) and
  a new pile. A walk read for sure on the pile that never came to rest before the next card
  covered it (a glimpse, see :class:`~companion.tracking.tracks.CardSettled`) is a
  :class:`Walk` before that card's, when it is a step between the two (on the refused card the
  players built on, when that card is accepted from the table first).
* :class:`ValaisMoves`: whenever the table is calm, the dates along the row are aligned with the
  accepted timeline; one date left over -> :class:`PlaceSeen` at its place among the accepted
  cards (cards pushed along are just the accepted ones again); a wrong card still lying there or
  then taken away -> nothing; an accepted card missing after a card was taken off the table
  while a 1915 joker asks for a removal -> :class:`RemoveFromTimeline` (otherwise a notice).
  A card put into the row after the engine's count ended the game reopens it: a
  :class:`~companion.games.valais.MissedDraw` for the player who had finished, then the move.
* :class:`AppiaMoves`: an income card leaves the display -> :class:`Income`; when it was the last
  one, the move waits for the seven new cards and carries them as ``revealed``.

Everything the tracker could not decide goes to :meth:`Tracker.notices` for the dashboard.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from companion.errors import CompanionError
from companion.games import appia, canonical_name, gladiola, valais
from companion.tracking.geometry import card_size, polygon_area, quad_iou, quarter_turns, share_inside, up_angle
from companion.tracking.tracks import (
    CardRemoved,
    CardSettled,
    CardTracker,
    Glimpse,
    Reading,
    SettledCard,
    TableEvent,
    TrackConfig,
)
from companion.tracking.zones import (
    Zone,
    Zones,
    ZoneKind,
    beside_pile,
    display_zone,
    gladiola_zones,
    order_along_row,
    row_zone,
)
from vision.types import CardDate as VisionDate
from vision.types import CardKind, CardObservation, FrameResult, Quad


OVER_NOTICE = ("a card was put down after the game ended by the companion's count: if play goes on, a move "
               "was missed; correct the log on the dashboard")
"""Told once when a new card settles after the engine says the game is over (Via Appia)."""
REOPEN_NOTICE = ("a card was put into the row after the game ended by the companion's count: the game goes on, "
                 "counting a draw the camera missed for the player who had finished; check the hand counts")
"""Told when a Valais*Wallis move seen after the count ended the game reopens it."""
WRONG_GONE_LOOKS = 8
"""A Valais*Wallis card judged wrong counts as taken away once this many calm looks in a row
missed it (a card the detector loses for a frame or two is still there)."""
WRONG_AWAY_LOOKS = 5
"""... or once this many did when a hand next comes over the table (to lay the next card): a card of
the same date laid after it, in the same stretch of the row, is another card. Valais*Wallis film
118: 1993 judged wrong, taken away, missed on 7 calm looks, then the next player laid the deck's
other 1993 in the same place; it was taken for the first one still lying there (a move missed).
Of the 335 wrong cards taken away on the five Valais*Wallis tuning films, that 1993 is the only one
ever "seen again" once a calm look had missed it (see docs/BENCHMARKS.md, session 18)."""
ROW_MOVE_REACH = 3.0
"""An accepted Valais*Wallis card gone from the row is found again this many card sizes away."""
ROW_NEW_REACH = 1.6
"""A dated card at rest outside the row zone but this near (card sizes, centre to centre) a card
of the row lies in the row: put at the row's end, it started the next line under the first card
(a second line's first card lies about 1.35 card sizes under the line above)."""
ROW_STIRRED = 0.5
"""A Valais*Wallis row is not judged while a card on the move lies within this many card sizes
(centre to centre) of a card of the row at rest."""
ROW_SAME_PLACE = 0.6
"""Two Valais*Wallis cards at rest whose outlines overlap this much (IoU) are one card: cards of
the row lie side by side, never on one another (film 167, frame 7011: a stale track of the 1859,
left where the card lay before the row was pushed along, took the card's outline over and
settled on its place beside the card's own track, and the row held two 1859s: a phantom)."""
ROW_FRAGMENT_SIZE = 0.6
ROW_FRAGMENT_INSIDE = 0.85
"""A restless outline smaller than ``ROW_FRAGMENT_SIZE`` of a Valais*Wallis row card at rest and
lying ``ROW_FRAGMENT_INSIDE`` within it is a piece of that card (see ``_fragment_of``)."""
GLADIOLA_NEAR = 1.5
"""A gladiola within this many card sizes of one laid before is laid beside the pile too."""
GLADIOLA_SHIFT = 0.1
"""A counted gladiola's track settling this many card sizes further from the pile: another
gladiola laid over it (the outline of two overlapping cards is often one, its middle half a fan
step further on); an outline flickering back towards the pile is no new card."""
GLADIOLA_AGAIN = 0.2
"""A gladiola settling on a track of its own within this many card sizes of where a counted one
lay is that one showing again from under the gladiola laid over it (its track followed the
new card), not one more."""
GLADIOLA_BACK = 0.08
"""A counted gladiola's track settling back within this many card sizes of a place counted
before is that card outlined again, not one more (an outline a fan step on moves 0.15 card
sizes and more: fresh film 193's flickered back to 4-5 px, 0.04, of where it was counted)."""


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

    def calm(self, cards: Sequence[SettledCard], restless: Sequence[Quad], width: int, height: int,
             view: Any) -> Outcome:
        """Called after a frame's events while no hand is over the table: the cards at rest and
        where the others lie, both as seen just now."""
        ...

    def busy(self) -> None:
        """Called for a frame in which the table is busy (a hand over it, cards on the move)."""
        ...

    def misread(self, settled: Reading, now: Reading) -> bool:
        """Whether a card at rest on its place, settled as ``settled`` and now read as ``now``,
        is the same card misread one of the two times (it is then not restless: see
        :meth:`CardTracker.restless`), rather than another card put there."""
        ...

    cards_after_end: bool
    """Whether players lay cards down once the game is over (Via Gladiola: hands shown)."""

    def reopen(self, view: Any) -> Conclusion | None:
        """Once the engine's count has ended the game: the correction to apply before a move
        seen now (the game then goes on), or None when no move counts after the end."""
        ...

    @property
    def zones(self) -> Zones: ...

    zone_kinds: tuple[ZoneKind, ...]
    """The zones of this game a player may draw."""

    def draw_zone(self, zone: Zone) -> None:
        """A zone a player drew: it stands in place of the one found automatically."""
        ...

    def forget_drawn_zones(self) -> None:
        """Back to the zones found automatically."""
        ...

    @property
    def drawn_zones(self) -> Zones:
        """The zones players drew (standing in place of those found)."""
        ...


class _ZoneKeeper:
    """The zones of a table: those found automatically (``_zones`` is set as play shows where
    the pile, the row or the display lies) with those a player drew on the dashboard in place of
    them, which stand until forgotten."""

    zone_kinds: tuple[ZoneKind, ...] = ()
    _found: Zones = Zones()
    _drawn: Zones = Zones()

    @property
    def _zones(self) -> Zones:
        zones = self._found
        for zone in self._drawn.zones:
            zones = zones.with_zone(zone)
        return zones

    @_zones.setter
    def _zones(self, zones: Zones) -> None:
        self._found = zones

    @property
    def zones(self) -> Zones:
        return self._zones

    def draw_zone(self, zone: Zone) -> None:
        if zone.kind not in self.zone_kinds:
            raise CompanionError(f"zone: expected one of {', '.join(k.value for k in self.zone_kinds)}, "
                                 f"got {zone.kind.value}")
        self._drawn = self._drawn.with_zone(zone)

    def forget_drawn_zones(self) -> None:
        self._drawn = Zones()

    @property
    def drawn_zones(self) -> Zones:
        return self._drawn


class _EventMoves(_ZoneKeeper):
    """For interpreters that conclude every move from single events: nothing to do when calm."""

    cards_after_end = False

    def calm(self, cards: Sequence[SettledCard], restless: Sequence[Quad], width: int, height: int,
             view: Any) -> Outcome:
        return Outcome()

    def busy(self) -> None:
        pass

    def misread(self, settled: Reading, now: Reading) -> bool:
        return False

    def reopen(self, view: Any) -> Conclusion | None:
        return None


# --------------------------------------------------------------------------------------------
# Via Gladiola


class GladiolaMoves(_EventMoves):
    """Via Gladiola: walks on the pile, gladiolas beside it, day changes by the START card."""

    cards_after_end = True  # the hands are shown on the table for scoring
    zone_kinds = (ZoneKind.WALK_PILE, ZoneKind.GLADIOLA_SPOT, ZoneKind.SCORING)

    def __init__(self, deck: gladiola.Deck | None = None) -> None:
        self.deck = deck or gladiola.load_deck()
        self._zones = Zones()
        self._top = self.deck.start.id
        self._on_table: set[str] = {self.deck.start.id}
        self._day = 1
        self._day1_angle: float | None = None
        self._awaiting_start = False
        self._start_shown: int | None = None  # the day a new day's START card shows when not today's
        self._judged: tuple[str, str] | None = None  # the last walk reported, and the top it was laid on
        self._gladiolas: dict[int, Quad] = {}  # tracks of gladiolas counted as laid: where they lay
        self._gladiola_places: list[Quad] = []  # everywhere a gladiola counted as laid lay
        self._gladiola_calm: float | None = None  # the calm spell the last gladiola counted settled in
        self._walk_rest: tuple[float | None, float] | None = None  # the last walk's calm spell and settling time

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
                # the START card shows the next day, so a FINISH was laid: judged as the walk it
                # was when the step rules allow it (the players learn what to draw), else the
                # table overrules
                conclusions: tuple[Conclusion, ...] = ()
                refused = self._judged[0] if self._judged and self._judged[0] not in self._on_table else None
                if refused is not None and not self._finish_fits(self._top) and self._finish_fits(refused):
                    # the walk refused last lay on the pile and the FINISH followed it
                    conclusions = (Conclusion(gladiola.TableWalk(refused), event.evidence),)
                    self._on_table.add(refused)
                    self._top = refused
                walk = gladiola.Walk(finish) if self._finish_fits(self._top) else gladiola.TableWalk(finish)
                self._on_table.add(finish)
                self._awaiting_start = True
                self._day += 1
                return Outcome(conclusions + (Conclusion(walk, event.evidence),),
                               self._new_pile(card, None, width, height))
            return Outcome(notes=self._new_pile(card, event.previous, width, height))
        if not self._zones.zones:
            return Outcome()
        if reading.kind in (CardKind.WALK, CardKind.FINISH) and self._zones.holds(ZoneKind.WALK_PILE, card.quad):
            if _again(event):
                return Outcome()  # the same card, its blister count read anew (a FINISH's, say)
            card_id = self._card_for(reading)
            if card_id is None or card_id in self._on_table:
                if self._card_for(reading, allow_on_table=True) is not None:
                    return Outcome()  # a card already counted shows again (e.g. a bad walk taken back)
                return Outcome(notes=(f"walk pile shows {reading.describe()}: no such card left in the deck",))
            if self._judged == (card_id, self._top):
                # the engine refused this card on this top and it settled again (nudged, or its
                # outline seen anew): the verdict stands, nothing new to judge
                return Outcome(notes=(f"the refused {reading.describe()} still lies on the walk pile",))
            notes = self._start_turned() + self._blister_check(card_id, reading)
            conclusions = self._glimpsed_walks(event, card_id)
            under = None if conclusions else self._built_on(event.previous, card_id, event.glimpsed)
            if under is not None:
                conclusions = (Conclusion(gladiola.TableWalk(under), event.evidence),)
                self._on_table.add(under)
                self._top = under
                conclusions += self._glimpsed_walks(event, card_id)
            self._judged = (card_id, self._top)
            self._top = card_id
            self._on_table.add(card_id)
            self._zones = self._found.with_zone(gladiola_zones(card.quad, width, height).get(ZoneKind.WALK_PILE))  # type: ignore[arg-type]
            if reading.kind is CardKind.FINISH:
                self._awaiting_start = True
                self._day += 1
            self._walk_rest = (event.calm_since, card.since)
            return Outcome(conclusions + (Conclusion(gladiola.Walk(card_id), event.evidence),), notes)
        if reading.kind is CardKind.GLADIOLA and self._new_gladiola(card, event.calm_since):
            card_id = self._card_for(reading)
            if card_id is None:
                return Outcome(notes=("a gladiola appeared beside the pile, but all gladiolas are already laid",))
            self._on_table.add(card_id)
            return Outcome((Conclusion(gladiola.LayGladiola(card_id), event.evidence),),
                           self._blister_check(card_id, reading))
        return Outcome()

    def _glimpsed_values(self, glimpsed: Sequence[Glimpse]) -> list[int]:
        """The values of the walk cards glimpsed that are not on the table yet."""
        out = []
        for glimpse in glimpsed:
            seen = self._card_for(glimpse.reading) if glimpse.reading.kind is CardKind.WALK else None
            value = self.deck.card(seen).value if seen is not None and seen not in self._on_table else None
            if value is not None:
                out.append(value)
        return out

    def _glimpsed_walks(self, event: CardSettled, card_id: str) -> tuple[Conclusion, ...]:
        """Walks read for sure on the pile that never came to rest before ``card_id`` covered
        them: each one a legal step on the top before it and below the card laid on it."""
        out: list[Conclusion] = []
        value = self.deck.card(card_id).value
        for glimpse in event.glimpsed:
            if glimpse.reading.kind is not CardKind.WALK:
                continue
            seen = self._card_for(glimpse.reading)
            if seen is None or seen in self._on_table or seen == card_id:
                continue
            low, mid = self.deck.card(self._top).value, self.deck.card(seen).value
            assert value is not None and low is not None and mid is not None
            if not (0 < mid - low <= gladiola.MAX_STEP and mid < value):
                continue
            out.append(Conclusion(gladiola.Walk(seen), glimpse.evidence))
            self._on_table.add(seen)
            self._top = seen
        return tuple(out)

    def _new_gladiola(self, card: SettledCard, calm_since: float | None) -> bool:
        """Whether a gladiola settling at ``card`` is one more laid: beside the pile, or next to
        the gladiolas laid before (players lay them in a fanned row that grows away from the
        pile), on a track of its own or on a counted gladiola's track a little away from where
        that one lay (laid over it, shifted; a gladiola on the table does not wander). One hand
        lays one card: no more gladiola is counted in the calm spell (``calm_since``) one was in,
        nor one settling with a walk, at the same moment of the same calm spell (what the walk's
        hand stirred: film 132's fanned row, its outline shifted away from the pile as W49 was
        laid beside it, was counted as a gladiola more). (A gladiola settling later in a walk's
        calm spell was laid by a hand the camera missed: film 132's G6.)"""
        before = self._gladiolas.get(card.track_id)
        again = calm_since is not None and (calm_since == self._gladiola_calm
                                            or (calm_since, card.since) == self._walk_rest)
        if before is not None:
            self._gladiolas[card.track_id] = card.quad
            pile = self._zones.get(ZoneKind.WALK_PILE)
            if pile is None:
                shift = math.dist(before.centroid, card.quad.centroid)
            else:  # a fan grows away from the pile; an outline coming back is the same cards
                centre = (statistics.fmean(x for x, _ in pile.polygon), statistics.fmean(y for _, y in pile.polygon))
                shift = math.dist(centre, card.quad.centroid) - math.dist(centre, before.centroid)
            # an outline flickering between the last card and more of the fan comes back to a
            # place counted before: no card more (fresh film 193, the fan's last gladiola
            # outlined 134 and 112 px wide by turns, the narrow one counted again each time)
            returned = any(math.dist(q.centroid, card.quad.centroid) < GLADIOLA_BACK * card_size(q)
                           for q in self._gladiola_places)
            new = not again and not returned and shift > GLADIOLA_SHIFT * card_size(before)
        elif self._zones.holds(ZoneKind.WALK_PILE, card.quad) or any(
                math.dist(q.centroid, card.quad.centroid) < GLADIOLA_AGAIN * card_size(q) for q in self._gladiola_places):
            return False
        else:
            new = not again and (beside_pile(self._zones, card.quad) or any(
                math.dist(q.centroid, card.quad.centroid) < GLADIOLA_NEAR * card_size(q) for q in self._gladiolas.values()))
            if new:
                self._gladiolas[card.track_id] = card.quad
        if new:
            self._gladiola_places.append(card.quad)
            self._gladiola_calm = calm_since
        return new

    def _missed_finish(self, card: SettledCard) -> str | None:
        """A free FINISH card id when ``card`` (a START card) is turned for the day after today
        although no FINISH card was seen to end today (its top card went unread, say). Not while
        today's pile holds no walk yet: a FINISH needs a walk of 35 or more under it, and a START
        card turned on to the next day then is turned too far (the new day's START card first
        rests as the day before left it, when that day's pile is carried off it)."""
        if (self._awaiting_start or self._day1_angle is None or self._day >= gladiola.DAYS
                or self._top == self.deck.start.id):
            return None
        shown = 1 + quarter_turns(self._day1_angle, up_angle(card.quad))
        if shown != self._day + 1:
            return None
        return self._card_for(Reading(CardKind.FINISH, gladiola.FINISH_VALUE))

    def _finish_fits(self, top: str) -> bool:
        """Whether the step rules allow a FINISH card on ``top``."""
        value = self.deck.card(top).value
        return 0 < gladiola.FINISH_VALUE - (value if value is not None else 0) <= gladiola.MAX_STEP

    def _built_on(self, previous: Reading | None, card_id: str, glimpsed: Sequence[Glimpse] = ()) -> str | None:
        """The refused walk card the players laid ``card_id`` on, when the table overrules.

        ``previous`` is what the pile showed before. When that is a walk card the engine does
        not have on the table (it refused it, or the camera missed the card before it and the
        refusal was wrong), and the new card is a legal step from it but not from the engine's
        top, the players built on the refused card: it is returned, to be accepted as a
        :class:`TableWalk` first. The card laid on it may also be a walk glimpsed between the
        two (``glimpsed``: covered by ``card_id`` before it came to rest). A refused card that
        was taken back and replaced by a card legal on the engine's top leaves nothing to
        overrule.
        """
        if previous is None or previous.kind is not CardKind.WALK:
            return None
        under = self._card_for(previous)
        if under is None or under == self._top:
            return None
        value = self.deck.card(card_id).value
        low, top = self.deck.card(under).value, self.deck.card(self._top).value
        assert value is not None and low is not None and top is not None
        between = [v for v in self._glimpsed_values(glimpsed) if low < v < value]
        if between:
            value = min(between)  # the card laid on the refused one
        fits_under = 0 < value - low <= gladiola.MAX_STEP
        fits_top = 0 < value - top <= gladiola.MAX_STEP
        return under if fits_under and not fits_top else None

    def _blister_check(self, card_id: str, reading: Reading) -> tuple[str, ...]:
        printed = self.deck.card(card_id).blisters
        if reading.blisters is not None and reading.blisters != printed:
            return (f"card {card_id}: camera counts {reading.blisters} blisters, the deck file says {printed}",)
        return ()

    def _start_turned(self) -> tuple[str, ...]:
        """The note that the START card under the first walk of the day shows another day, once."""
        shown, self._start_shown = self._start_shown, None
        return () if shown is None else (f"the START card is turned for day {shown}, expected day {self._day}",)

    def _new_pile(self, card: SettledCard, previous: Reading | None, width: int, height: int) -> tuple[str, ...]:
        """A START card settled: the walk pile of day 1, or of the day a FINISH card ended the last
        one on. Which day it shows is noted only when a walk is laid on it (:meth:`_start_turned`):
        the card comes to rest showing the day before when the day's pile is carried off it, and
        is turned a moment later."""
        if previous is not None and previous.kind is CardKind.START and not self._awaiting_start:
            if self._start_shown is not None and self._day1_angle is not None and self._top == self.deck.start.id:
                shown = 1 + quarter_turns(self._day1_angle, up_angle(card.quad))
                self._start_shown = shown if shown != self._day else None
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
        self._start_shown = shown if shown != self._day else None
        return ()


# --------------------------------------------------------------------------------------------
# Valais*Wallis Digital


def _engine_date(date: VisionDate) -> valais.CardDate:
    return valais.CardDate(date.year, date.month, date.day)


class ValaisMoves(_ZoneKeeper):
    """Valais*Wallis: cards placed into the row, wrong cards taken away, joker-1915 removals.

    The row is judged as a whole whenever the table is calm (:meth:`calm`): the dates seen
    along the row are aligned with the accepted timeline, so cards pushed along by a card put
    in between (which the tracker, following cards by where they lie, sees as cards changing
    their dates) are simply the accepted cards again, and what is left over is the card put in.
    The row is read from the end leftmost on screen unless the accepted cards' dates say
    otherwise, or ``right_to_left`` is set.
    """

    cards_after_end = False
    zone_kinds = (ZoneKind.ROW,)

    def __init__(self, catalogue: valais.Catalogue | None = None, right_to_left: bool = False) -> None:
        self.catalogue = catalogue or valais.load_catalogue()
        self.right_to_left = right_to_left
        self._zones = Zones()
        self._timeline: list[valais.SeenCard] = []  # the accepted row (the engine's when it is known)
        self._wrong: list[_Wrong] = []  # cards judged wrong that may still lie in the row
        self._unseen: dict[_Wrong, int] = {}  # how many calm looks in a row missed each of them
        self._discarded: set[int] = set()  # cards judged wrong (taken away, onto the discards)
        self._where: dict[int, Quad] = {}  # where each accepted card was last seen, by card id
        self._judged: _Wrong | None = None  # the last card accepted, until the engine's view confirms it
        self._evidence: dict[int, tuple[CardObservation, ...]] = {}  # by track: why it reads as it does
        self._taken: tuple[CardObservation, ...] = ()  # how the card last taken off the table looked
        self._told: set[str] = set()
        self._synthetic = 0

    def _sync(self, view: valais.PublicView | None) -> None:
        if view is None:
            return
        self._timeline = list(view.timeline)
        if self._judged is not None:
            if all(seen.card_id != self._judged.card_id for seen in self._timeline):
                self._wrong.append(self._judged)
            self._judged = None

    def _free(self, date: valais.CardDate) -> list[valais.Card]:
        """The catalogue cards not in the timeline that show ``date``; for a year read alone when
        none does, those showing a full date in that year (its day and month not read: film 125's
        1852-12-21 read as 1852 while the deck's one 1852 lay in the timeline)."""
        used = {seen.card_id for seen in self._timeline}
        same = [c for c in self.catalogue.cards if c.date == date and c.card_id not in used]
        if not same and date.month is None:
            same = [c for c in self.catalogue.cards
                    if c.date.year == date.year and c.date.month is not None and c.card_id not in used]
        return same

    def _seen(self, date: valais.CardDate) -> tuple[valais.SeenCard, tuple[str, ...]]:
        same = self._free(date)
        same.sort(key=lambda c: c.card_id in self._discarded)  # a card judged wrong went to the discards
        if same:
            notes = () if len(same) == 1 else (f"{len(same)} catalogue cards show {date}: took card {same[0].card_id}",)
            return same[0].seen(), notes
        self._synthetic += 1
        card_id = 1_000_000 + self._synthetic
        return valais.SeenCard(card_id, date), (f"no catalogue card shows {date}: recorded as card {card_id}",)

    def _used_up(self, date: valais.CardDate) -> bool:
        """Whether the deck has cards with ``date`` and all of them lie in the timeline (and, for
        a year read alone, no card of that year's with a full date is left, see :meth:`_free`)."""
        return any(c.date == date for c in self.catalogue.cards) and not self._free(date)

    def _row(self, cards: Sequence[SettledCard]) -> list[SettledCard]:
        """The cards lying in the row (timeline cards, and cards not read at all), in row order;
        with a dated card just beside the row zone (a card put at the row's end that starts a
        next line under it, see ``ROW_NEW_REACH``). Of two cards at one place (``ROW_SAME_PLACE``)
        the one settled last stands."""
        cards = _one_per_place(cards)
        row = [c for c in cards if c.reading.kind in (CardKind.TIMELINE, CardKind.UNKNOWN)
               and (not self._zones.zones or self._zones.holds(ZoneKind.ROW, c.quad))]
        size = statistics.median(card_size(c.quad) for c in row) if row else None
        if size is not None:
            row += [c for c in cards if c not in row and c.reading.kind is CardKind.TIMELINE
                    and c.reading.date is not None
                    and min(math.dist(c.quad.centroid, r.quad.centroid) for r in row) <= ROW_NEW_REACH * size]
        return [row[i] for i in order_along_row([c.quad.centroid for c in row], size)]

    def start(self, cards: Sequence[SettledCard], width: int, height: int, view: Any) -> tuple[str, ...]:
        dated = [c for c in self._row(cards) if c.reading.date is not None]
        if not dated:
            return ("no dated card seen: the timeline row is found when its first card settles",)
        if view is not None:
            self._timeline = list(view.timeline)
        else:
            for card in dated:
                self._timeline.append(self._seen(_engine_date(card.reading.date))[0])  # type: ignore[arg-type]
        self._zones = Zones((row_zone([c.quad for c in dated]),))
        return ()

    def interpret(self, event: TableEvent, width: int, height: int, view: Any) -> Outcome:
        """Events only keep what backs a reading; the row is judged when the table is calm."""
        if isinstance(event, CardSettled):
            self._evidence[event.card.track_id] = event.evidence
        else:
            self._taken = event.evidence
        return Outcome()

    def calm(self, cards: Sequence[SettledCard], restless: Sequence[Quad], width: int, height: int,
             view: Any) -> Outcome:
        """Judge the row (see the class doc) when no card in it is moving or changing: none in
        the row zone, and none where a card of the row rests (its track, or another, on the move
        there: film 131's 2007 moved to a second line and back, its old track's place then taken
        by the next card, 2014, still turning; that place read as 2007 once more, a phantom).
        A piece of a row card outlined on its own (``_fragment_of``) is no card on the move."""
        row = self._row(cards)
        restless = [q for q in restless if not _fragment_of(q, row)]
        if any(not self._zones.zones or self._zones.holds(ZoneKind.ROW, q) for q in restless):
            return Outcome()
        if any(math.dist(q.centroid, c.quad.centroid) < ROW_STIRRED * card_size(c.quad) for q in restless for c in row):
            return Outcome()
        self._sync(view)
        dates = [None if c.reading.date is None else _engine_date(c.reading.date) for c in row]
        accepted = [seen.date for seen in self._timeline]
        pairs = _align(dates, accepted)
        backwards = _align(dates[::-1], accepted)
        if len(backwards) > len(pairs) or (len(backwards) == len(pairs) and self.right_to_left and len(pairs) < 2):
            row, dates, pairs = row[::-1], dates[::-1], backwards
        for i, j in pairs:
            self._where[self._timeline[j].card_id] = row[i].quad
        unseen = list(self._wrong)  # judged wrong, not (yet) seen lying in the row
        ids = [seen.card_id for seen in self._timeline]
        notes: list[str] = []
        placed: tuple[int, int] | None = None  # (row index, timeline position)
        gone: list[int] = []
        for (i0, j0), (i1, j1) in zip([(-1, -1)] + pairs, pairs + [(len(row), len(accepted))]):
            extras, unread = [], 0
            for i in range(i0 + 1, i1):
                if dates[i] is None:
                    unread += 1
                elif (put := next((w for w in unseen if w.lies(dates[i], j0, j1, ids)), None)) is not None:  # type: ignore[arg-type]
                    unseen.remove(put)  # a card judged wrong, still lying where it was put
                else:
                    extras.append(i)
            missing = list(accepted[j0 + 1:j1])
            fresh, misread = [], set()
            # the cards reading most like a missing one stand for it first, and of those the
            # ones that lay in the row longest: of two cards reading alike one missing card, the
            # one on the newer track is the card put in (film 157: a year-only 1951 put in just
            # left of a 1951-03-08 read as its year); a card reading the missing one's year is
            # likelier it than one a digit off (film 169: the accepted 1884-07-22 read as 1884
            # on a new track beside a 1844-08-26 put in on an older one; the 1844 stood for it
            # and the 1884 was judged a card put in)
            def closest(i: int) -> tuple[int, int]:
                return (min((_likeness(dates[i], d) for d in missing), default=3), row[i].track_id)  # type: ignore[arg-type]

            for i in sorted(extras, key=closest):
                options = [d for d in missing if _resembles(dates[i], d)]  # type: ignore[arg-type]
                like = min(options, key=lambda d: _likeness(dates[i], d)) if options else None  # type: ignore[arg-type]
                if like is None and self._used_up(dates[i]):  # type: ignore[arg-type]
                    self._tell(notes, f"a card reads {dates[i]}, but every card of the deck with that date already "
                               "lies in the timeline")
                    continue
                if like is None:
                    bisect.insort(fresh, i)
                    continue
                self._where[self._timeline[j0 + 1 + accepted[j0 + 1:j1].index(like)].card_id] = row[i].quad
                missing.remove(like)
                misread.add(i)
                self._tell(notes, f"a timeline card reads {dates[i]} where the row holds {like}")
            if fresh and placed is None:
                # the accepted cards lying before the new one in this stretch: unread, or misread
                before = sum(1 for i in range(i0 + 1, fresh[0]) if dates[i] is None or i in misread)
                placed = (fresh[0], j0 + 1 + min(before, j1 - j0 - 1))
            elif missing and not extras and not unread:
                gone.extend(range(j0 + 1, j1))
        gone = [j for j in gone if not self._moved_off_row(self._timeline[j], row, cards)]
        lying = [self._where[seen.card_id] for seen in self._timeline if seen.card_id in self._where]
        if lying:  # the zone round the accepted cards where they lie (read right, or misread)
            self._zones = Zones((row_zone(lying),))
        for wrong in set(self._wrong):
            looks = self._unseen.get(wrong, 0) + 1 if wrong in unseen else 0
            self._unseen[wrong] = looks
            if looks >= WRONG_GONE_LOOKS:  # not seen for a while: taken away, as the verdict said
                self._taken_away(wrong)
        if placed is not None:
            index, position = placed
            return Outcome((self._place(row[index], dates[index], position),), tuple(notes))  # type: ignore[arg-type]
        if gone and self._taken and (view is None or view.step is valais.Step.REMOVE_1915):
            removal = Conclusion(valais.RemoveFromTimeline(gone[0]), self._taken)
            del self._timeline[gone[0]]
            self._told.clear()
            self._taken = ()
            return Outcome((removal,), tuple(notes))
        for j in gone if not restless else ():  # a card on the move may be the one missing
            self._tell(notes, f"the timeline card {accepted[j]} is no longer seen: only a 1915 joker takes a card "
                       "out of the timeline")
        return Outcome(notes=tuple(notes))

    def busy(self) -> None:
        """A hand over the table: a card judged wrong that the last calm looks all missed was taken
        away before it came (see ``WRONG_AWAY_LOOKS``)."""
        for wrong, looks in list(self._unseen.items()):
            if looks >= WRONG_AWAY_LOOKS:
                self._taken_away(wrong)

    def misread(self, settled: Reading, now: Reading) -> bool:
        """A row card at rest read as one accepted card, then as another (both lie in the
        timeline): one of the readings is wrong, the card is the same (film 157's 1915 joker, read
        as the 1901 beside it and settled so, then read rightly: restless until it settled anew,
        it kept the row from being judged while a wrong 1859 lay there, and the move was missed).
        A card of another date read where an accepted one lay is a card put there (film 131)."""
        def accepted(date: VisionDate | None) -> bool:  # (a year read alone: a whole date of that year)
            return date is not None and any(seen.date == _engine_date(date) or (date.month is None and seen.date.year == date.year)
                                            for seen in self._timeline)
        return (accepted(settled.date) and accepted(now.date)
                and settled.date.year != now.date.year)  # type: ignore[union-attr]

    def _taken_away(self, wrong: _Wrong) -> None:
        """Forget ``wrong``: no card seen from now on is taken for it."""
        self._wrong = [w for w in self._wrong if w != wrong]
        del self._unseen[wrong]

    def reopen(self, view: Any) -> Conclusion | None:
        """A card put into the row after the count ended the game: the player who finished
        drew a card the camera missed (the likeliest slip: a wrong card taken for another)."""
        if not view.winners:
            return None
        return Conclusion(valais.MissedDraw(view.winners[0]), ())

    def _moved_off_row(self, seen: valais.SeenCard, row: Sequence[SettledCard], cards: Sequence[SettledCard]) -> bool:
        """Whether accepted card ``seen``, missing from its place in the row with nothing lying
        there, was moved just beyond the row zone (players starting a second line): the one card
        at rest outside the row reading its date, near the row's cards. The zone then takes it
        in (its place is remembered)."""
        if not row:
            return False
        size = statistics.median(card_size(c.quad) for c in row)
        same = [c for c in cards if c not in row and c.reading.kind is CardKind.TIMELINE
                and c.reading.date is not None and _engine_date(c.reading.date) == seen.date]
        if len(same) != 1 or min(math.dist(same[0].quad.centroid, c.quad.centroid) for c in row) > ROW_MOVE_REACH * size:
            return False
        self._where[seen.card_id] = same[0].quad
        return True

    def _place(self, card: SettledCard, date: valais.CardDate, position: int) -> Conclusion:
        seen, _ = self._seen(date)
        left = self._timeline[position - 1].date if position > 0 else None
        right = self._timeline[position].date if position < len(self._timeline) else None
        fits = (left is None or date.compare(left) >= 0) and (right is None or date.compare(right) <= 0)
        put = _Wrong(seen.card_id, date, self._timeline[position - 1].card_id if position > 0 else None,
                      self._timeline[position].card_id if position < len(self._timeline) else None)
        if fits:
            self._timeline.insert(position, seen)
            self._where[seen.card_id] = card.quad
        else:
            self._wrong.append(put)
            self._discarded.add(seen.card_id)
        self._judged = put if fits else None
        self._told.clear()
        return Conclusion(valais.PlaceSeen(seen, position), self._evidence.get(card.track_id, ()))

    def _tell(self, notes: list[str], note: str) -> None:
        """Add ``note`` to ``notes`` the first time it comes up since the last move."""
        if note not in self._told:
            self._told.add(note)
            notes.append(note)


def _fragment_of(quad: Quad, row: Sequence[SettledCard]) -> bool:
    """Whether ``quad`` is a piece of a card of ``row`` at rest outlined on its own: smaller than
    ``ROW_FRAGMENT_SIZE`` of that card, and ``ROW_FRAGMENT_INSIDE`` of it within the card's outline
    (film 167, frames 7761-7774: the lower part of a 1859 and a corner of a 1988, each outlined as
    an unread card, were restless on every frame, and a wrong 1925 lay in the row unjudged until
    the next hand took it away)."""
    area = polygon_area(quad.corners)
    for card in row:
        size = polygon_area(card.quad.corners)
        if 0 < area < ROW_FRAGMENT_SIZE * size and share_inside(quad, card.quad) >= ROW_FRAGMENT_INSIDE:
            return True
    return False


def _one_per_place(cards: Sequence[SettledCard]) -> list[SettledCard]:
    """``cards`` without those lying where a card settled later lies (see ``ROW_SAME_PLACE``)."""
    kept: list[SettledCard] = []
    for card in sorted(cards, key=lambda c: (-c.since, -c.track_id)):
        if all(quad_iou(card.quad, other.quad) < ROW_SAME_PLACE for other in kept):
            kept.append(card)
    return [c for c in cards if c in kept]


@dataclass(frozen=True)
class _Wrong:
    """A card put into the row (judged wrong, or judged right and not yet confirmed): its date
    and the accepted cards it was put between (None: a row end)."""

    card_id: int
    date: valais.CardDate
    left: int | None
    right: int | None

    def lies(self, date: valais.CardDate, j0: int, j1: int, ids: Sequence[int]) -> bool:
        """Whether a card reading ``date`` seen between accepted cards ``j0`` and ``j1`` (timeline
        indices into ``ids``; -1 and len for the ends) may be this one, still where it was put:
        the same date (or the same year, its day and month now read or not: film 125's
        1886-04-20 was judged as 1886, then read whole), in a stretch of the row that overlaps
        the one between the neighbours it was put between (a neighbour misread or unseen widens
        the stretch seen; a card accepted since narrows it)."""
        low = ids.index(self.left) if self.left in ids else -1
        high = ids.index(self.right) if self.right in ids else len(ids)
        printed_apart = (date.month is None) != (self.date.month is None)
        same = date == self.date or (printed_apart and _resembles(date, self.date))
        return same and j0 < high and j1 > low


def _resembles(read: valais.CardDate, accepted: valais.CardDate) -> bool:
    """Whether ``read`` may be ``accepted`` misread: printed alike (both a year, or both a full
    date) with at most one digit of the year different, or the same year read without the day
    and month printed beside it (or with a day and month read into a year-only card)."""
    if (read.month is None) != (accepted.month is None):
        return read.year == accepted.year
    return sum(a != b for a, b in zip(f"{read.year:04d}", f"{accepted.year:04d}")) <= 1


def _likeness(read: valais.CardDate, accepted: valais.CardDate) -> int:
    """How far ``read`` is from being ``accepted`` misread (see :func:`_resembles`): 0 the same
    year (a day and month lost or read into it, or the same date), 1 a digit of the year off
    with the rest alike, 2 a digit off and the day or month too, 3 no resemblance."""
    if not _resembles(read, accepted):
        return 3
    if read.year == accepted.year:
        return 0
    return 1 if (read.month, read.day) == (accepted.month, accepted.day) else 2


def _align(seen: Sequence[valais.CardDate | None], accepted: Sequence[valais.CardDate]) -> list[tuple[int, int]]:
    """The longest in-order matching of row dates to accepted dates (unread dates match
    nothing), as (row index, timeline index) pairs."""
    n, m = len(seen), len(accepted)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            same = seen[i] is not None and seen[i] == accepted[j]
            best[i][j] = best[i + 1][j + 1] + 1 if same else max(best[i + 1][j], best[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if seen[i] is not None and seen[i] == accepted[j] and best[i][j] == best[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


# --------------------------------------------------------------------------------------------
# Via Appia


def _income_halves(reading: Reading) -> tuple[int | None, int | None]:
    """(stones, sesterces) of an income card reading."""
    return reading.stones, reading.sesterces


class AppiaMoves(_EventMoves):
    """Via Appia: income cards taken from the display and the seven laid out after the last one.

    Vision reads an income card's two halves into ``stones`` and ``sesterces`` (see
    :func:`_income_halves`). Which half the player takes cannot be seen: the move carries
    ``take`` (default stones) and names it in ``unsure``.
    """

    zone_kinds = (ZoneKind.DISPLAY,)

    def __init__(self, cards: Sequence[appia.IncomeCard] | None = None, take: appia.Resource = appia.Resource.STONES) -> None:
        self.cards = tuple(cards) if cards is not None else appia.default_data().cards
        self.take = take
        self._zones = Zones()
        self._display: dict[int, int] = {}  # track id -> card id
        self._taken: list[int] = []
        self._refill: tuple[int, tuple[CardObservation, ...]] | None = None
        self._incoming: dict[int, SettledCard] = {}

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


def _again(event: TableEvent) -> bool:
    """Whether ``event`` is a card settling again with the reading it had (see ``_judge``)."""
    return (isinstance(event, CardSettled) and event.previous is not None
            and event.previous.bare == event.card.reading.bare)


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
        self._told_over = False
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

    @property
    def zone_kinds(self) -> tuple[ZoneKind, ...]:
        """The zones of this game a player may draw."""
        return self.moves.zone_kinds

    def draw_zone(self, zone: Zone) -> None:
        """A zone a player drew on the dashboard; it stands in place of the one found
        automatically until :meth:`forget_drawn_zones` (CompanionError for a zone this game has
        not)."""
        self.moves.draw_zone(zone)

    def forget_drawn_zones(self) -> None:
        self.moves.forget_drawn_zones()

    @property
    def drawn_zones(self) -> Zones:
        return self.moves.drawn_zones

    def notices(self) -> tuple[Notice, ...]:
        return tuple(self._notices)

    def tell(self, frame_index: int, timestamp: float, message: str) -> None:
        """Add a notice for the players (the tracker's own, or its move source's: a shown row to spread)."""
        self._notices.append(Notice(frame_index, timestamp, message))

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
        if self._started and self.cards.busy:
            self.moves.busy()
        if not self._started:
            if self.cards.busy or not self.cards.all_settled():
                return []
            self._started = True
            self._start_layout = self.cards.settled_cards()
            for note in self.moves.start(self._start_layout, result.width, result.height, view):
                self.tell(frame_index, timestamp, note)
            return []
        if view is not None and view.over:
            reopen = self.moves.reopen(view)
            if reopen is None:
                # once the game is over, cards moved about are not moves; but a new card put down
                # while play goes on may mean the engine ended the game on a count a missed move
                # made wrong: the players are told once
                laid = any(isinstance(e, CardSettled) and e.previous is None and e.card.reading.known for e in events)
                if laid and not self.moves.cards_after_end and not self._told_over:
                    self._told_over = True
                    self.tell(frame_index, timestamp, OVER_NOTICE)
                return []
            # the table overrules the count: a move seen now means the game went on
            moves = self._judge(frame_index, timestamp, events, result, view)
            if not moves:
                return []
            self.tell(frame_index, timestamp, REOPEN_NOTICE)
            return [TrackedMove(frame_index, timestamp, reopen.action, moves[0].evidence)] + moves
        return self._judge(frame_index, timestamp, events, result, view)

    def _judge(self, frame_index: int, timestamp: float, events: Sequence[TableEvent], result: FrameResult,
               view: Any) -> list[TrackedMove]:
        """The moves this frame's events and, with no hand over the table, the calm table show.

        Cards read as something new are taken before cards settling again as what they were (an
        outline seen anew, nudged): what a new card is laid as decides what the others mean (a
        gladiola's outline shifted as a walk was laid, settling with it, makes no gladiola)."""
        out: list[TrackedMove] = []
        for event in sorted(events, key=_again):
            outcome = self.moves.interpret(event, result.width, result.height, view)
            for note in outcome.notes:
                self.tell(frame_index, timestamp, note)
            for c in outcome.conclusions:
                out.append(TrackedMove(frame_index, timestamp, c.action, c.evidence, c.unsure))
            if outcome.conclusions:
                view = None  # the view predates these moves: the interpreter's own model stands
        if not self.cards.busy:
            recent = self.config.settle_seconds
            outcome = self.moves.calm(self.cards.settled_cards(seen_within=recent), self.cards.restless(recent, self.moves.misread),
                                      result.width, result.height, view)
            for note in outcome.notes:
                self.tell(frame_index, timestamp, note)
            for c in outcome.conclusions:
                out.append(TrackedMove(frame_index, timestamp, c.action, c.evidence, c.unsure))
        return out
