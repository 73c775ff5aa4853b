"""Whose move: players' places learnt from where their arms cross the image border."""

from __future__ import annotations

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.games import gladiola
from companion.session import MoveItem
from companion.tracking.seats import ROW_NEAR_MARGIN, ROW_SEAT_REACH, SEAT_REACH, ArmEntry, SeatMap
from companion.vision_moves import VisionMoves, _border_entry

BOTTOM, LEFT, TOP = ArmEntry(0.5, 1.0), ArmEntry(0.0, 0.4), ArmEntry(0.6, 0.0)


def learnt(*places: ArmEntry) -> SeatMap:
    seats = SeatMap(len(places))
    for _ in range(2):
        for player, place in enumerate(places):
            seats.learn(player, ArmEntry(place.x + 0.01, place.y))
    return seats


def test_a_place_is_known_after_two_arms_and_names_its_player_only_when_clear():
    seats = SeatMap(3)
    seats.learn(0, BOTTOM)
    assert seats.seat(0) is None and seats.who(BOTTOM) is None
    seats = learnt(BOTTOM, LEFT, TOP)
    assert seats.who(ArmEntry(0.02, 0.45)) == 1
    assert seats.who(ArmEntry(0.55, 0.98)) == 0
    assert seats.who(ArmEntry(1.0, 0.5)) is None  # nobody sits on the right
    assert seats.who(ArmEntry(0.25, 0.7)) is None  # far from every place


def test_the_arm_laying_a_shown_hand_may_reach_farther_along_its_side():
    seats = learnt(BOTTOM, LEFT, TOP)
    lower = ArmEntry(0.0, 0.57)  # the left player's arm, low down the side, laying a whole row
    assert seats.who(lower) is None
    assert seats.who(lower, reach=ROW_SEAT_REACH) == 1
    # between two places it stays unclear however far the reach
    assert seats.who(ArmEntry(0.25, 0.2), reach=ROW_SEAT_REACH) is None


def test_a_row_arm_nearer_one_place_is_near_it_but_not_clearly_at_it():
    seats = learnt(BOTTOM, LEFT, TOP)
    corner = ArmEntry(0.15, 0.65)  # low on the left, towards the bottom player's side
    assert seats.who(corner, reach=ROW_SEAT_REACH) is None
    assert seats.who(corner, reach=ROW_SEAT_REACH, margin=ROW_NEAR_MARGIN) == 1
    # farther than the reach from every place it is near none
    assert seats.who(ArmEntry(0.25, 0.78), reach=ROW_SEAT_REACH, margin=ROW_NEAR_MARGIN) is None


def test_an_arm_at_a_known_place_counts_for_its_player_whatever_the_count_says():
    seats = SeatMap(3)
    seats.learn(0, BOTTOM)
    seats.learn(2, TOP)
    # after a missed move the count is one behind: the arms still find their places
    seats.learn(1, TOP)
    seats.learn(2, LEFT)  # a new place, and player 2 has one: the only player without a place
    seats.learn(2, BOTTOM)
    seats.learn(0, LEFT)
    assert (seats.seat(0), seats.seat(1), seats.seat(2)) == (BOTTOM, LEFT, TOP)
    assert seats.who(ArmEntry(0.05, 0.4)) == 1
    # a fourth place with two players placed and none free: not learnt
    crowd = SeatMap(4)
    crowd.learn(0, BOTTOM)
    crowd.learn(0, ArmEntry(1.0, 0.5))
    assert crowd.seat(0) is None and crowd.seat(1) is None
    with pytest.raises(CompanionError):
        SeatMap(0)


def test_border_entry_is_where_the_region_crosses_the_border():
    mask = np.zeros((90, 160), bool)
    mask[60:, 30:50] = True  # an arm from the bottom edge
    entry = _border_entry(mask)
    assert entry.y == pytest.approx(1.0) and entry.x == pytest.approx(39.5 / 159)


class View:
    """The parts of the Via Gladiola public view the move source looks at."""

    def __init__(self, current: int) -> None:
        self.players, self.current_player, self.over = 3, current, False


def test_a_card_laid_from_another_players_place_passes_the_turn_first():
    source = VisionMoves("gladiola")
    source._seats = learnt(BOTTOM, LEFT, TOP)
    walk = MoveItem(5, 0.5, gladiola.Walk("W20"))
    source._arms = [[BOTTOM], [TOP, TOP]]  # the last arm before the card came to rest laid it
    got = source._whose([walk], View(current=1))
    assert [i.action for i in got] == [gladiola.TurnTo(2), walk.action] and source._arms == []
    source._arms = [[LEFT]]
    assert source._whose([walk], View(current=1)) == [walk]
    # no arm seen, or fewer arms than cards: the count stands
    assert source._whose([walk], View(current=0)) == [walk]
    source._arms = [[TOP]]
    both = [walk, MoveItem(5, 0.5, gladiola.Walk("W25"))]
    assert source._whose(both, View(current=0)) == both
    # two cards judged at once are paired in order with the last two arms
    source._arms = [[BOTTOM], [LEFT], [TOP]]
    assert [i.action for i in source._whose(both, View(current=0))] == [gladiola.TurnTo(1)] + [i.action for i in both]
    # after a FINISH the next day's first player is the rules' matter: no guess, whether the
    # two are judged together or apart (the arm before the first card may have cleared up)
    finish = [MoveItem(5, 0.5, gladiola.Walk("F2")), walk]
    source._arms = [[BOTTOM], [LEFT]]
    assert source._whose(finish, View(current=0)) == finish
    source._arms = [[LEFT]]
    assert source._whose(finish[:1], View(current=1)) == finish[:1]
    source._arms = [[TOP]]
    assert source._whose([walk], View(current=1)) == [walk]
    source._arms = [[TOP]]  # the day's second card is guessed again
    assert [i.action for i in source._whose([walk], View(current=1))] == [gladiola.TurnTo(2), walk.action]


def test_a_card_from_the_place_of_the_player_who_just_played_keeps_the_count():
    # two players reaching in at one place: the arm names the one who had the turn before, but
    # one player taking two turns running would need every other player's move missed
    source = VisionMoves("gladiola")
    source._seats = learnt(BOTTOM, LEFT, TOP)
    walk = MoveItem(5, 0.5, gladiola.Walk("W20"))
    source._arms = [[BOTTOM]]
    assert source._whose([walk], View(current=1)) == [walk]
    # the same arm when the count gives the turn to the player after the next one: a move missed
    source._arms = [[BOTTOM]]
    assert [i.action for i in source._whose([walk], View(current=2))] == [gladiola.TurnTo(0), walk.action]
