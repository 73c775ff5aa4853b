"""``companion replay``: the Pause button pressed at given frames (``--pause-at``) and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion.commands.replay import judge, replay
from companion.pauses import PausePress, parse_presses, still_settling
from companion.errors import CompanionError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def stills(tmp_path: Path) -> Path:
    still = sorted((ROOT / "samples" / "stills" / "gladiola").glob("*.jpg"))[0]
    for k in range(3):
        shutil.copy(still, tmp_path / f"frame_{k:03d}.jpg")
    return tmp_path


def test_pauses_pressed_at_frames_are_judged_in_turn(stills: Path) -> None:
    log = replay(str(stills), "gladiola", ("Ann", "Ben", "Cy"), first_player=1,
                 pause_at=(PausePress(2), PausePress(0)))
    pauses = [e for e in log["events"] if e["action"] == {"type": "pause"}]
    assert [(e["player"], e["frame"]) for e in pauses] == [(1, 0), (2, 2)]
    assert all(e["verdict"]["legal"] and e["verdict"]["draws"] == 1 for e in pauses)
    assert log["frames"] == 3


def test_a_player_pressing_their_own_pause_button_out_of_the_count_gets_the_turn(stills: Path) -> None:
    # Seat 1 is to play by the count, but seat 0 presses their button, then seat 1 presses theirs.
    log = replay(str(stills), "gladiola", ("Ann", "Ben", "Cy"), first_player=1,
                 pause_at=(PausePress(0, 0), PausePress(1, 1), PausePress(2)))
    actions = [(e["player"], e["action"]["type"]) for e in log["events"]]
    assert actions == [(1, "turn-to"), (0, "pause"), (1, "pause"), (2, "pause")]
    assert all(e["verdict"]["legal"] for e in log["events"])


def test_pause_frames_are_checked(stills: Path) -> None:
    assert parse_presses("28,31:2, 400") == (PausePress(28), PausePress(31, 2), PausePress(400))
    assert parse_presses(None) == ()
    for bad in ("28;31", "-3", "x", "4:x", "4:-1"):
        with pytest.raises(CompanionError, match="--pause-at"):
            parse_presses(bad)
    with pytest.raises(CompanionError, match="Via Gladiola"):
        replay(str(stills), "valais", ("Ann", "Ben"), pause_at=(PausePress(1),))
    with pytest.raises(CompanionError, match="seats 0..2"):
        replay(str(stills), "gladiola", ("Ann", "Ben", "Cy"), pause_at=(PausePress(1, 3),))


def test_a_joker_placed_right_is_followed_by_its_steps_in_the_hand() -> None:
    from companion.games import valais

    observer = valais.Observer.start(2, 0, first_card=109)  # 1920
    events: list = []
    judge(observer, valais.PlaceSeen(valais.load_catalogue().card(63).seen(), 0), 40, events)  # 1865 joker
    assert [e["action"]["type"] for e in events] == ["place-seen", "keep", "give"]
    assert all(e["verdict"]["legal"] for e in events) and [e["frame"] for e in events] == [40, 40, 40]
    assert observer.public_view().step is valais.Step.PLACE and observer.current_player == 1
    wrong: list = []
    judge(observer, valais.PlaceSeen(valais.load_catalogue().card(140).seen(), 0), 50, wrong)  # 1965 put first
    assert [e["action"]["type"] for e in wrong] == ["place-seen"]  # a wrong joker has no effect


def test_a_pause_waits_only_for_cards_coming_to_rest_when_it_fell_due() -> None:
    # The card played before the pause, still settling on the pile, holds the pause; the next
    # player's card carried in elsewhere afterwards does not (film 124: W46 judged first and
    # given to the pauser).
    from tests.tracking.film import card_quad

    pile = card_quad(640, 360)
    assert still_settling((card_quad(646, 357),), (pile,))
    assert not still_settling((card_quad(640, 620),), (pile,))
    assert not still_settling((card_quad(646, 357),), ())
