"""Who laid a card: where the arm came in from (Via Gladiola).

Players sit round the table and reach in from their own side, so the place where an arm crosses
the image border tells them apart. :class:`SeatMap` learns each player's place from the moves
attributed to them (at the start of a game the count of turns is right) and, for a new move,
names the player whose place the arm came in at, when that is clear: then a move the camera
missed no longer shifts the player of every later move. Once a place has been seen, arms there
count for its player whatever the count says.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from companion.errors import CompanionError

SEAT_REACH = 0.12
"""An arm comes in at a player's place when it crosses the border within this distance of it
(in shares of the image's width and height)."""
SEAT_MARGIN = 2.0
"""... and every other player's place is at least this many times farther away."""
SEAT_SAMPLES = 8
"""How many of a player's latest arm entries make their place."""
ROW_SEAT_REACH = 0.3
"""The reach for the arm that lays a shown hand at the end: players reach farther along their
side for a whole row than for the pile, and no move is judged from it (the hand must still fit
the player's count)."""
ROW_NEAR_MARGIN = 1.4
"""A shown row's arm is *near* a player's place when every other place is at least this many
times farther (the row then goes to that player only when it holds exactly their count)."""
MIN_SAMPLES = 2
"""A player's place is known after this many arm entries."""


@dataclass(frozen=True)
class ArmEntry:
    """Where an arm crosses the image border, as shares of the image's width and height."""

    x: float
    y: float

    def distance(self, other: "ArmEntry") -> float:
        return math.dist((self.x, self.y), (other.x, other.y))

    @staticmethod
    def middle(entries: "Sequence[ArmEntry]") -> "ArmEntry":
        """The median place of several entries (the frames of one arm)."""
        return ArmEntry(statistics.median(e.x for e in entries), statistics.median(e.y for e in entries))


class SeatMap:
    """Each player's place at the table, learnt from the arms of their moves."""

    def __init__(self, players: int) -> None:
        if players < 1:
            raise CompanionError(f"expected at least one player, got {players}")
        self._entries: list[deque[ArmEntry]] = [deque(maxlen=SEAT_SAMPLES) for _ in range(players)]

    def _place(self, player: int) -> tuple[ArmEntry, int] | None:
        """The middle of the player's arm entries and how many there are (None: no entries)."""
        entries = self._entries[player]
        if not entries:
            return None
        return ArmEntry.middle(entries), len(entries)

    def seat(self, player: int) -> ArmEntry | None:
        """The player's place (middle of their latest arm entries), or None while unknown."""
        place = self._place(player)
        return place[0] if place is not None and place[1] >= MIN_SAMPLES else None

    def who(self, entry: ArmEntry, reach: float = SEAT_REACH, margin: float = SEAT_MARGIN) -> int | None:
        """The player whose place ``entry`` is clearly at (within ``reach``, every other place
        ``margin`` times farther), or None (places unknown, or unclear)."""
        places = [(s.distance(entry), p) for p in range(len(self._entries)) if (s := self.seat(p)) is not None]
        if len(places) < 2:
            return None
        places.sort()
        (near, player), (second, _) = places[0], places[1]
        if near > reach or second < max(reach, margin * near):
            return None
        return player

    def learn(self, player: int, entry: ArmEntry) -> None:
        """Count ``entry``, the arm of a move the count gives to ``player``. An arm at a place
        already seen (even once) is that place's player's, whatever the count says (the count
        goes wrong after a move the camera missed); an arm elsewhere is ``player``'s when they
        have no place yet, else the one player without a place's (if there is one)."""
        places = [self._place(p) for p in range(len(self._entries))]
        near = [(place[0].distance(entry), p) for p, place in enumerate(places)
                if place is not None and place[0].distance(entry) <= SEAT_REACH]
        if near:
            owner = min(near)[1]
        elif places[player] is None:
            owner = player
        else:
            free = [p for p, place in enumerate(places) if place is None]
            if len(free) != 1:
                return
            owner = free[0]
        self._entries[owner].append(entry)
