"""Timeline order along a bent, rotated or upside-down row of date sides."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.timeline import check_timeline, not_after, row_order
from vision.types import CardDate, CardKind, CardObservation, Quad


def _card(cx: float, cy: float, angle_deg: float, date: CardDate | None) -> CardObservation:
    """An upright-read card centred at (cx, cy), turned by angle_deg (its top-left corner first)."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-30, -45], [30, -45], [30, 45], [-30, 45]], float)
    return CardObservation(quad=Quad.from_array(local @ rot.T + [cx, cy]), kind=CardKind.TIMELINE, date=date,
                           confidence=0.9)


def _row(years: list[int], rotation: float, bend: float) -> list[CardObservation]:
    """Cards placed left to right in their own reading direction along a bent row, then the whole
    row turned by ``rotation`` degrees about the origin; returned shuffled."""
    cards = []
    for i, year in enumerate(years):
        x = i * 70.0 - 35.0 * len(years)
        y = bend * x * x
        slope = math.degrees(math.atan(2 * bend * x))
        r = math.radians(rotation)
        cx, cy = x * math.cos(r) - y * math.sin(r) + 800, x * math.sin(r) + y * math.cos(r) + 500
        cards.append((i, _card(cx, cy, slope + rotation, CardDate(year))))
    order = np.random.default_rng(len(years) + int(rotation)).permutation(len(cards))
    return [cards[k][1] for k in order]


@pytest.mark.parametrize("rotation", [0.0, 37.0, 90.0, 180.0, 245.0])
@pytest.mark.parametrize("bend", [0.0, 0.0015, -0.002])
def test_row_is_followed_in_reading_direction(rotation: float, bend: float) -> None:
    years = [1815, 1840, 1865, 1900, 1915, 1950, 1965, 2000]
    cards = _row(years, rotation, bend)
    result = check_timeline(cards)
    assert [cards[i].date.year for i in result.order] == years  # type: ignore[union-attr]
    assert result.in_order and result.misplaced == ()


@pytest.mark.parametrize("years,wrong", [
    ([1815, 1900, 1865, 1870, 1950], {1900}),
    ([2000, 1815, 1840, 1865], {2000}),
    ([1815, 1840, 1865, 1820], {1820}),
])
def test_out_of_place_cards_are_reported(years: list[int], wrong: set[int]) -> None:
    cards = _row(years, 180.0, 0.001)
    result = check_timeline(cards)
    assert not result.in_order
    assert {cards[i].date.year for i in result.misplaced} == wrong  # type: ignore[union-attr]


@pytest.mark.parametrize("a,b,expected", [
    (CardDate(1865), CardDate(1865, 7, 14), True),
    (CardDate(1865, 7, 14), CardDate(1865, 7, 2), False),
    (CardDate(1865, 8), CardDate(1865, 7, 30), False),
    (CardDate(1864, 12, 31), CardDate(1865), True),
])
def test_dates_compare_at_common_precision(a: CardDate, b: CardDate, expected: bool) -> None:
    assert not_after(a, b) is expected


def test_cards_without_date_are_left_out() -> None:
    cards = _row([1815, 1840], 0.0, 0.0) + [_card(0, 0, 0, None)]
    assert len(check_timeline(cards).order) == 2
    assert row_order([]) == ()
