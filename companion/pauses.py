"""Scripted presses of Via Gladiola's Pause button for a recorded game.

A pause happens in a player's hand, so no camera sees it: at the table a player presses the
Pause button on the dashboard. A recorded game (a film, a folder of frames) carries no presses,
so ``companion replay`` and ``companion play`` take them as ``--pause-at FRAME[:SEAT],...`` and
press them when the film reaches those frames. Both use :class:`PauseSchedule`, which presses a
pause once the card played before it has been judged: the press is held while a card that was
coming to rest when it fell due still is (at most :data:`PAUSE_HOLD` seconds), not for the next
player's card carried in meanwhile (film 124: W46, laid after a pause fell due, was judged
before the pause and given to the pauser).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.errors import CompanionError

if TYPE_CHECKING:  # the tracker is imported when a film runs, not for every command's parser
    from vision.types import Quad

PAUSE_HOLD = 1.5
"""Seconds a scripted pause waits at most for a card still coming to rest."""

PAUSE_AT_HELP = ("Via Gladiola, recorded games: comma-separated frame numbers at which the Pause button is "
                 "pressed, each as FRAME or FRAME:SEAT (the seat index of the player pressing their button)")


@dataclass(frozen=True)
class PausePress:
    """The Pause button pressed at video frame ``frame`` by the player in seat ``player`` (each
    player has a button of their own; None: the button of whoever the count says is to play).
    A press by another player than the count's passes the turn to them first."""

    frame: int
    player: int | None = None


def parse_presses(text: str | None) -> tuple[PausePress, ...]:
    """``"28,31:2,400"`` -> presses at frames 28 and 400 (the count's player) and at frame 31 by
    seat 2; CompanionError for anything else."""
    if not text:
        return ()
    presses = []
    for part in text.split(","):
        frame, _, seat = part.strip().partition(":")
        try:
            press = PausePress(int(frame), int(seat) if seat else None)
        except ValueError:
            raise CompanionError(f"--pause-at: expected comma-separated FRAME or FRAME:SEAT, got {text!r}") from None
        if press.frame < 0 or (press.player is not None and press.player < 0):
            raise CompanionError(f"--pause-at: expected frame and seat numbers of 0 or more, got {text!r}")
        presses.append(press)
    return tuple(presses)


def check_presses(presses: tuple[PausePress, ...], game: str, title: str, players: int) -> None:
    """CompanionError unless the presses suit the game (Via Gladiola) and its seats."""
    if presses and game != "gladiola":
        raise CompanionError(f"--pause-at: pauses are a Via Gladiola move, this game is {title}")
    wrong = [p.player for p in presses if p.player is not None and not 0 <= p.player < players]
    if wrong:
        raise CompanionError(f"--pause-at: expected seats 0..{players - 1}, got {wrong[0]}")


def still_settling(restless: tuple[Quad, ...], waited: tuple[Quad, ...]) -> bool:
    """Whether a card ``restless`` now lies where one was coming to rest when a pause fell due
    (within half a card's size of it)."""
    from companion.tracking.geometry import card_size

    return any(math.dist(q.centroid, w.centroid) < 0.5 * card_size(w) for q in restless for w in waited)


class PauseSchedule:
    """The presses of a recorded game, handed out frame by frame as they fall due."""

    def __init__(self, presses: tuple[PausePress, ...]) -> None:
        self._waiting = sorted(presses, key=lambda p: p.frame)
        self._due: float | None = None  # when the first press waiting fell due
        self._waited: tuple[Quad, ...] = ()  # where cards were coming to rest then

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def due(self, frame_index: int, timestamp: float, restless: tuple[Quad, ...]) -> list[PausePress]:
        """The presses to make after frame ``frame_index`` (at ``timestamp`` seconds) has been
        looked at; ``restless``: where cards are not at rest in it."""
        if not self._waiting or self._waiting[0].frame > frame_index:
            return []
        if self._due is None:
            self._due, self._waited = timestamp, restless
        if still_settling(restless, self._waited) and timestamp - self._due < PAUSE_HOLD:
            return []
        self._due = None
        return self._take(lambda p: p.frame <= frame_index)

    def at_end(self, frames: int) -> list[PausePress]:
        """The presses left when the film ends after ``frames`` frames that fell within it."""
        return self._take(lambda p: p.frame < frames)

    def _take(self, wanted: Callable[[PausePress], bool]) -> list[PausePress]:
        taken = [p for p in self._waiting if wanted(p)]
        self._waiting = self._waiting[len(taken):]
        return taken
