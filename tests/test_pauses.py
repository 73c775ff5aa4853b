"""Scripted Pause presses of a recorded game: when they are pressed, the live loop pressing them,
and ``companion play --pause-at`` refusing what it cannot do."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main
from companion.pauses import PAUSE_HOLD, PausePress, PauseSchedule
from companion.session import FrameHub, Origin, Session, run_loop
from companion.sources import Frame, SourceState, SourceStatus
from companion.store import GameStore
from tests.tracking.film import card_quad

PILE = card_quad(640, 360)
ELSEWHERE = card_quad(640, 640)


def test_a_press_waits_for_the_card_coming_to_rest_when_it_fell_due() -> None:
    schedule = PauseSchedule((PausePress(3, 1), PausePress(5)))
    assert schedule.due(2, 0.2, ()) == []  # not yet due
    assert schedule.due(3, 0.3, (PILE,)) == []  # the card played before is still settling
    assert schedule.due(4, 0.4, (card_quad(646, 357), ELSEWHERE)) == []  # still (moved a little)
    assert schedule.due(5, 0.5, (ELSEWHERE,)) == [PausePress(3, 1), PausePress(5)]  # rested: both due
    assert not schedule and schedule.due(6, 0.6, ()) == []


def test_a_press_is_not_held_by_a_card_laid_after_it_fell_due_nor_for_long() -> None:
    schedule = PauseSchedule((PausePress(10),))
    assert schedule.due(10, 1.0, ()) == [PausePress(10)]  # nothing settling when due: at once
    schedule = PauseSchedule((PausePress(10),))
    assert schedule.due(10, 1.0, (PILE,)) == []
    assert schedule.due(11, 1.0 + PAUSE_HOLD - 0.1, (PILE,)) == []
    assert schedule.due(12, 1.0 + PAUSE_HOLD, (PILE,)) == [PausePress(10)]  # held at most PAUSE_HOLD


def test_at_the_end_of_the_film_the_presses_within_it_are_made() -> None:
    schedule = PauseSchedule((PausePress(8), PausePress(4), PausePress(9)))
    assert schedule.due(4, 0.4, (PILE,)) == []
    assert schedule.at_end(9) == [PausePress(4), PausePress(8)]  # frame 9 is past a 9-frame film
    assert schedule  # (the press at frame 9 is never made)


class Film:
    """A finite recorded source: ``count`` frames 0.1 s apart, then the end."""

    def __init__(self, count: int) -> None:
        self._count, self._next = count, 0
        self._status = SourceStatus(SourceState.OK, "film")

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self) -> Frame | None:
        if self._next >= self._count:
            self._status = SourceStatus(SourceState.ENDED, "end of film")
            return None
        frame = Frame(self._next, 0.1 * self._next, np.zeros((24, 32, 3), np.uint8))
        self._next += 1
        return frame

    def close(self) -> None:
        pass


class Resting:
    """A camera move source that sees no moves; a card is coming to rest on the pile at frames 2-3."""

    def __init__(self) -> None:
        self.frame = -1

    def moves(self, frame: Frame) -> list:
        self.frame = frame.index
        return []

    def restless(self) -> tuple:
        return (PILE,) if self.frame in (2, 3) else ()

    def annotate(self, frame: Frame) -> np.ndarray:
        return frame.image


def test_the_live_loop_presses_the_scripted_pauses_for_the_seats_named(tmp_path: Path) -> None:
    with GameStore(tmp_path / "log.sqlite3") as store:
        from companion.games import gladiola

        session = Session.new(store, "gladiola", ("Ann", "Ben", "Cy"), gladiola.Observer.start(3, 0))
        presses = (PausePress(1, 2), PausePress(2), PausePress(5), PausePress(6, 1), PausePress(9))
        errors: list[Exception] = []
        run_loop(session, Film(7), Resting(), FrameHub(), threading.Event(), Origin.CAMERA, idle=0,
                 on_error=errors.append, pauses=PauseSchedule(presses))
        moves = [(m.player, m.action.to_json()["type"]) for m in session.moves()]
        # seat 2 presses out of turn (the turn passes to them); the count's player presses at
        # frame 2, made once the card on the pile rests (frame 4); at frame 5 the count's player
        # (seat 1); at frame 6 seat 1 again, out of turn; the press at frame 9 lies past the film
        assert moves == [(0, "turn-to"), (2, "pause"), (0, "pause"), (1, "pause"), (2, "turn-to"), (1, "pause")]
        assert all(m.verdict.legal for m in session.moves()) and errors == []


def test_the_end_of_the_film_makes_the_presses_held_till_then(tmp_path: Path) -> None:
    with GameStore(tmp_path / "log.sqlite3") as store:
        from companion.games import gladiola

        session = Session.new(store, "gladiola", ("Ann", "Ben"), gladiola.Observer.start(2, 1))
        run_loop(session, Film(4), Resting(), FrameHub(), threading.Event(), Origin.CAMERA, idle=0,
                 pauses=PauseSchedule((PausePress(3),)))  # due at frame 3, the pile still settling
        assert [(m.player, m.action.to_json()["type"]) for m in session.moves()] == [(1, "pause")]


@pytest.mark.parametrize("extra, message", [
    (["--source", "simulate:3"], "expected a recorded game"),
    (["--source", "0"], "expected a recorded game"),
    (["--source", "FILM", "--resume"], "expected --pause-at or --resume"),
    (["--source", "FILM", "--game", "valais", "--first-card", "109"], "pauses are a Via Gladiola move"),
    (["--source", "FILM", "--players", "Ann,Ben"], "expected seats 0..1, got 2"),
])
def test_play_refuses_presses_it_cannot_make(tmp_path: Path, capsys, extra, message) -> None:
    film = tmp_path / "film"
    film.mkdir()
    extra = [str(film) if e == "FILM" else e for e in extra]
    db = tmp_path / "games.sqlite3"
    args = ["play", "--game", "gladiola", "--players", "Ann,Ben,Cy", "--headless", "--db", str(db),
            "--pause-at", "4,9:2"]
    assert main(args + extra) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not db.exists()  # refused before anything was logged
