"""Geometry and zones: overlap, row order, zone membership, user adjustment."""

from __future__ import annotations

import math

import pytest

from companion.errors import CompanionError
from companion.tracking import Zone, ZoneKind, Zones
from companion.tracking.geometry import convex_hull, quad_iou, quarter_turns, up_angle
from companion.tracking.zones import beside_pile, gladiola_zones, order_along_row, row_zone
from tests.tracking.film import card_quad


@pytest.mark.parametrize(
    "dx, dy, expected",
    [(0, 0, 1.0), (30, 0, 30 * 90 / (2 * 60 * 90 - 30 * 90)), (60, 0, 0.0), (0, 200, 0.0)],
)
def test_quad_iou(dx, dy, expected):
    assert quad_iou(card_quad(100, 100), card_quad(100 + dx, 100 + dy)) == pytest.approx(expected)


@pytest.mark.parametrize("angle, turns", [(0, 0), (90, 1), (180, 2), (270, 3), (85, 1), (-5, 0)])
def test_up_angle_and_quarter_turns(angle, turns):
    quad = card_quad(50, 50, angle=angle)
    assert up_angle(quad) == pytest.approx(angle % 360, abs=1e-6)
    assert quarter_turns(0.0, up_angle(quad)) == turns


@pytest.mark.parametrize("angle", [0, 30, 90, 145])
@pytest.mark.parametrize("shuffle", [(0, 1, 2, 3, 4), (3, 0, 4, 2, 1)])
def test_order_along_straight_and_rotated_row(angle, shuffle):
    a = math.radians(angle)
    points = [(500 + 100 * k * math.cos(a), 300 + 100 * k * math.sin(a)) for k in range(5)]
    given = [points[i] for i in shuffle]
    order = [shuffle[i] for i in order_along_row(given)]
    assert order in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0])
    first, last = points[order[0]], points[order[-1]]
    assert first < last  # read from the end leftmost (then topmost) on screen


def test_order_along_curved_row():
    points = [(400 + 200 * math.cos(t), 400 - 200 * math.sin(t)) for t in (math.pi, 0.75 * math.pi, 0.5 * math.pi,
                                                                          0.25 * math.pi, 0.0)]
    assert order_along_row(list(reversed(points))) == [4, 3, 2, 1, 0]


def test_order_along_row_reads_a_close_second_line_from_its_start():
    # An arched row of eight and, close under its start, a second line of four (as a filmed
    # game left it): the second line follows the first, read from its left end too.
    first = [(848, 165), (936, 150), (1020, 135), (1106, 133), (1193, 135), (1283, 145), (1366, 165), (1449, 185)]
    second = [(1105, 265), (855, 300), (1020, 275), (937, 280)]
    points = first + second
    assert order_along_row(points, 90.0) == list(range(8)) + [9, 11, 10, 8]
    # a row bent down at its left end (filmed): the end card starts the row, not the highest
    bent = [(150, 330), (277, 287), (422, 253), (566, 240), (718, 229), (866, 238), (1007, 254), (1143, 284)]
    assert order_along_row(bent + [(186, 535)], 100.0) == list(range(9))
    # a gap in the first line (a card about to go in) does not start a new line there
    gapped = first[:3] + [(x + 200, y) for x, y in first[3:]]
    assert order_along_row(gapped, 90.0) == list(range(8))


def test_a_second_line_bent_up_under_the_first_lines_end_is_read_from_its_start():
    # Filmed (Valais 110, frame 4508): the first line arches down to its right end; the second
    # line bends up towards the right, its right end card nearer the first line's last card
    # than any other: the walk must not step back along the row onto it.
    first = [(253, 306), (359, 261), (466, 227), (584, 198), (706, 174), (826, 169), (944, 175), (1065, 184)]
    second = [(299, 475), (399, 436), (506, 406), (617, 377), (730, 355), (849, 354), (958, 353)]
    points = first + second[::-1]
    assert order_along_row(points, 119.0) == list(range(8)) + [14, 13, 12, 11, 10, 9, 8]


def test_row_zone_holds_the_row_and_its_ends_but_not_far_cards():
    quads = [card_quad(400 + 80 * k, 300) for k in range(4)]
    zone = row_zone(quads)
    assert all(zone.holds(q) for q in quads)
    assert zone.holds(card_quad(400 - 80, 300)) and zone.holds(card_quad(400 + 80 * 4, 300))
    assert not zone.holds(card_quad(500, 600))


def test_row_zone_takes_in_a_second_line_begun_under_the_row():
    # Eight cards in a row, the row going on under its start: a card put beside the first card
    # of the second line is in the zone, a card two lines further down is not.
    quads = [card_quad(200 + 80 * k, 200) for k in range(8)] + [card_quad(200, 330)]
    zone = row_zone(quads)
    assert all(zone.holds(q) for q in quads)
    assert zone.holds(card_quad(280, 330))
    assert not zone.holds(card_quad(280, 600))
    assert not row_zone(quads[:8]).holds(card_quad(280, 330))  # the band alone would miss it


def test_convex_hull_drops_inner_and_collinear_points():
    hull = convex_hull([(0, 0), (4, 0), (2, 0), (4, 3), (0, 3), (1, 1), (4, 3)])
    assert sorted(hull) == [(0.0, 0.0), (0.0, 3.0), (4.0, 0.0), (4.0, 3.0)]
    assert convex_hull([(1, 1), (2, 2)]) == ((1.0, 1.0), (2.0, 2.0))


def test_gladiola_zones_beside_but_not_on_the_pile():
    zones = gladiola_zones(card_quad(640, 360), 1280, 720)
    assert beside_pile(zones, card_quad(640 + 130, 360))
    assert not beside_pile(zones, card_quad(640, 360))
    assert not beside_pile(zones, card_quad(100, 100))


def test_user_adjusted_zone_replaces_the_automatic_one_and_round_trips():
    zones = gladiola_zones(card_quad(640, 360), 1280, 720)
    mine = Zone(ZoneKind.WALK_PILE, ((0, 0), (100, 0), (100, 100), (0, 100)))
    adjusted = zones.with_zone(mine)
    assert adjusted.get(ZoneKind.WALK_PILE) == mine and len(adjusted.zones) == len(zones.zones)
    assert Zones.from_json(adjusted.to_json()) == Zones.from_json(adjusted.to_json())
    assert Zones.from_json(adjusted.to_json()).get(ZoneKind.WALK_PILE) == mine


@pytest.mark.parametrize("bad", [[{"kind": "nowhere", "polygon": [[0, 0], [1, 0], [1, 1]]}],
                                 [{"kind": "row", "polygon": [[0, 0], [1, 0]]}], {"kind": "row"}])
def test_bad_zone_json_is_refused(bad):
    with pytest.raises(CompanionError):
        Zones.from_json(bad)


@pytest.mark.parametrize("shuffle", [(0, 1, 2, 3, 4, 5, 6), (6, 2, 0, 5, 1, 4, 3)])
def test_a_row_going_on_in_a_second_line_is_read_like_text(shuffle):
    # five cards in the first line, the row goes on under its start (the table ended)
    points = [(400 + 100 * k, 300 + 6 * k) for k in range(5)] + [(405, 470), (505, 476)]
    given = [points[i] for i in shuffle]
    assert [shuffle[i] for i in order_along_row(given, size=90.0)] == [0, 1, 2, 3, 4, 5, 6]
    # upside down for the camera: exactly the reverse (the dates then say which way to read)
    turned = [(1280 - x, 720 - y) for x, y in given]
    assert [shuffle[i] for i in order_along_row(turned, size=90.0)] == [6, 5, 4, 3, 2, 1, 0]
