"""Completing partly hidden cards to whole-card quads (vision.detect, segmenter path).

A card half under another shows a clean strip that fills its own outline but has no card's
shape, and a card running out of the image shows a short piece: both are grown to a whole
card's size, keep ``visible=False``, and are then scored against the whole card's corners.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from samples.render.layouts import Placement
from samples.render.scene import SceneConfig, render_scene
from samples.render.specs import CardKind, Game, Side, default_specs
from samples.render.tables import TableKind
from vision.detect import _End, _grow_ends, _Growth, _Piece, _typical_size, detect_cards
from vision.pipeline import CardReader, PipelineConfig
from vision.read.types import Deck

WALKS = [s for s in default_specs(Game.GLADIOLA) if s.kind is CardKind.WALK]


def _corner_error(truth: np.ndarray, found: np.ndarray) -> float:
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))


def _long_side(quad: np.ndarray) -> float:
    return float(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).max())


def _half_covered(angle: float, shift_mm: float, table: TableKind):
    """A walk card with another lying on its far half (shifted along the card's short side),
    and a third card alone."""
    a = math.radians(angle)
    placements = (
        Placement(WALKS[3], Side.FRONT, (0.0, 0.0), angle),
        Placement(WALKS[7], Side.FRONT, (shift_mm * math.cos(a), shift_mm * math.sin(a)), angle),
        Placement(WALKS[9], Side.FRONT, (150.0, 60.0), angle + 10),
    )
    config = SceneConfig(resolution=(1280, 720), placements=placements, table=table, hands=0, glare=False,
                         degrade=False, tilt_deg=15.0, fill=0.6)
    return render_scene(3, Game.GLADIOLA, config)


@pytest.mark.parametrize(("angle", "shift", "table"), [
    (25.0, 30.0, TableKind.CLOTH_DARK),
    (70.0, 36.0, TableKind.CLOTH_DARK),
    (-40.0, 36.0, TableKind.FELT),
])
def test_half_covered_card_gets_its_whole_quad(angle: float, shift: float, table: TableKind) -> None:
    scene = _half_covered(angle, shift, table)
    below, top, alone = (np.array(c.corners) for c in scene.truth.cards)
    assert 0.5 <= scene.truth.cards[0].visible_fraction <= 0.65
    dets = detect_cards(scene.image)
    assert len(dets) == 3

    def nearest(truth: np.ndarray):
        return min(dets, key=lambda d: _corner_error(truth, d.quad.as_array()))

    hidden = nearest(below)
    # the whole card, hidden half included, within 5% of its long side (about 8 px here)
    assert _corner_error(below, hidden.quad.as_array()) < 0.05 * _long_side(below)
    assert not hidden.visible
    for truth in (top, alone):
        assert nearest(truth).visible
        assert _corner_error(truth, nearest(truth).quad.as_array()) < 0.05 * _long_side(truth)


@pytest.mark.parametrize(("angle", "table"), [(90.0, TableKind.WOOD), (-20.0, TableKind.CLOTH_DARK)])
def test_card_running_out_of_the_image_is_completed_out_of_view(angle: float, table: TableKind) -> None:
    row = tuple(Placement(w, Side.FRONT, (x, 0.0), angle) for w, x in zip(WALKS, (-200.0, 0.0, 200.0)))
    config = SceneConfig(resolution=(1280, 720), placements=row, table=table, hands=0, glare=False, degrade=False,
                         tilt_deg=0.0, fill=1.2)
    scene = render_scene(5, Game.GLADIOLA, config)
    dets = detect_cards(scene.image)
    for card in (scene.truth.cards[0], scene.truth.cards[2]):
        truth = np.array(card.corners)
        assert card.visible_fraction < 0.75  # a good part of it lies outside the image
        found = min(dets, key=lambda d: _corner_error(truth, d.quad.as_array()))
        assert _corner_error(truth, found.quad.as_array()) < 0.05 * _long_side(truth)
        assert not found.visible
        outside = found.quad.as_array()
        assert (outside < 0).any() or (outside[:, 0] > 1279).any() or (outside[:, 1] > 719).any()


def test_completed_card_is_read_as_partly_hidden() -> None:
    scene = _half_covered(-40.0, 36.0, TableKind.FELT)
    below = np.array(scene.truth.cards[0].corners)
    result = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)).read_frame(scene.image)
    hidden = min(result.observations, key=lambda c: _corner_error(below, c.quad.as_array()))
    assert _corner_error(below, hidden.quad.as_array()) < 0.05 * _long_side(below)
    assert not hidden.visible
    assert hidden.blisters is None  # a hidden part may hold blisters: the count stays open


def _end(card: bool = True, outside: bool = False, neighbour: int = -1, weight: float = 0.0) -> _End:
    return _End(card, outside, neighbour, weight)


def _plan(left: _End, right: _End) -> _Growth:
    box = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 30.0], [0.0, 30.0]])
    return _Growth(box, np.array([1.0, 0.0]), 10.0, (left, right))


def test_hand_of_strips_grows_each_under_the_card_on_top() -> None:
    # Pieces 0, 1, 2 are the seen strips of a hand left to right, 3 the whole card on top at the
    # right end. Piece 0 has only 1 beside it; 1 and 2 have cards on both ends, of equal areas.
    plans = {
        0: _plan(_end(card=False), _end(neighbour=1, weight=5.0)),
        1: _plan(_end(neighbour=0, weight=5.0), _end(neighbour=2, weight=5.0)),
        2: _plan(_end(neighbour=1, weight=5.0), _end(neighbour=3, weight=5.0)),
    }
    assert _grow_ends(plans, whole={3}) == {0: 1, 1: 1, 2: 1}
    # mirrored: the card on top at the left end
    plans = {
        0: _plan(_end(neighbour=3, weight=5.0), _end(neighbour=1, weight=5.0)),
        1: _plan(_end(neighbour=0, weight=5.0), _end(neighbour=2, weight=5.0)),
        2: _plan(_end(neighbour=1, weight=5.0), _end(card=False)),
    }
    assert _grow_ends(plans, whole={3}) == {0: 0, 1: 0, 2: 0}


def test_growth_without_clues_prefers_the_border_then_the_bigger_neighbour() -> None:
    plans = {
        0: _plan(_end(card=False, outside=True), _end(neighbour=5, weight=9.0)),
        1: _plan(_end(neighbour=6, weight=2.0), _end(neighbour=7, weight=9.0)),
        2: _plan(_end(card=False), _end(card=False)),
    }
    assert _grow_ends(plans, whole=set()) == {0: 0, 1: 1}
    grown = plans[0].quad(0)
    assert grown[:, 0].min() == pytest.approx(-10.0) and grown[:, 0].max() == pytest.approx(10.0)


def _piece(short: float, long: float) -> _Piece:
    return _Piece(np.zeros((4, 2)), 1.0, 1.0, ((0.0, 0.0), (short, long), 0.0))


def test_typical_size_leaves_out_square_merged_pieces() -> None:
    # one true card (34 x 56) and two pieces that are strips of two or three cards seen as one
    whole = [_piece(34.0, 56.0), _piece(50.0, 58.0), _piece(51.0, 58.5), _piece(36.0, 57.0)]
    assert _typical_size(whole) == pytest.approx((35.0, 56.5))
    assert _typical_size([_piece(50.0, 58.0)]) == pytest.approx((50.0, 58.0))  # nothing better
    assert _typical_size([]) is None
    # with no piece of a card's shape, the size seen in earlier frames stands (a fan of gladiolas
    # the only piece in full view: film 163)
    assert _typical_size([_piece(50.0, 58.0)], (34.0, 55.0)) == (34.0, 55.0)
    assert _typical_size(whole, (30.0, 50.0)) == pytest.approx((35.0, 56.5))  # the frame's own cards first
    # and so it does with no piece in full view at all (fresh film 173: the walk pile alone)
    assert _typical_size([], (34.0, 55.0)) == (34.0, 55.0)


def test_typical_size_leaves_out_pieces_much_smaller_than_the_cards_seen_before() -> None:
    # the end of a card peeking out from under a pile's top card looks whole (film 166's W23 under
    # W29): with a card size seen in earlier frames it sets no size; alone, that size stands
    sliver = _piece(17.0, 34.0)
    assert _typical_size([sliver]) == pytest.approx((17.0, 34.0))  # nothing seen before: all there is
    assert _typical_size([sliver], (33.0, 51.0)) == (33.0, 51.0)
    assert _typical_size([sliver, _piece(34.0, 52.0)], (33.0, 51.0)) == pytest.approx((34.0, 52.0))
    # cards a little smaller than those seen (further from the camera) still count
    assert _typical_size([_piece(26.0, 40.0)], (33.0, 51.0)) == pytest.approx((26.0, 40.0))


def test_a_pile_tops_quad_with_one_corner_on_the_card_below_is_mended() -> None:
    # A pile's top card, with the card below peeking out at its lower left: an outline that
    # runs to the lower card's corner is no parallelogram, and the corner the other three put
    # elsewhere lies on the top card's edges; a quad that is already right stays as it is.
    import cv2

    from vision.detect import DetectConfig, _mend_corner, _skew

    image = np.full((400, 400), 90, np.uint8)
    below = np.array([[150, 110], [250, 110], [250, 260], [150, 260]], np.float64) + [-30, 25]
    top = np.array([[150, 110], [250, 110], [250, 260], [150, 260]], np.float64)
    cv2.fillConvexPoly(image, below.astype(np.int32), 200)
    cv2.polylines(image, [below.astype(np.int32)], True, 40, 2)
    cv2.fillConvexPoly(image, top.astype(np.int32), 235)
    cv2.polylines(image, [top.astype(np.int32)], True, 40, 2)
    image = cv2.GaussianBlur(image, (3, 3), 0)
    skewed = top.copy()
    skewed[3] = below[3]  # the lower left corner on the card below
    assert _skew(skewed) > 0.2
    mended, _ = _mend_corner(image, skewed, 0.5, 3.0, DetectConfig())
    assert _corner_error(top, mended) < 4.0
    right, support = _mend_corner(image, top, 0.9, 3.0, DetectConfig())
    assert np.array_equal(right, top) and support == 0.9


def _drawn(cards: list[np.ndarray], rules: tuple[int, ...] = (), rule_x: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Cards drawn in order (light, dark border) on a gray table, with short printed rules at
    heights ``rules`` between ``rule_x`` across the last card, slightly blurred."""
    import cv2

    image = np.full((400, 400), 90, np.uint8)
    for card in cards:
        cv2.fillConvexPoly(image, card.astype(np.int32), 235)
        cv2.polylines(image, [card.astype(np.int32)], True, 40, 2)
    for y in rules:
        cv2.line(image, (rule_x[0], y), (rule_x[1], y), 60, 1)
    return cv2.GaussianBlur(image, (3, 3), 0)


def test_a_pile_tops_quad_running_on_over_the_card_below_is_cut_back_to_a_card() -> None:
    # A pile's top card lies a little lower than the card below, whose top peeks out above it:
    # an outline from the lower card's top to the top card's bottom is longer than a card. Its
    # top side is moved down onto the top card's edge (not onto the short lines printed on the
    # card); a quad of a card's shape stays, and so does a long one without such an edge.
    from vision.detect import DetectConfig, _card_aspect, _mend_side

    top = np.array([[150, 180], [250, 180], [250, 326], [150, 326]], np.float64)
    below = top + [0, -32]
    image = _drawn([below, top], rules=(230, 250, 270), rule_x=(165, 225))  # rules printed on the top card
    merged = np.array([below[0], below[1], top[2], top[3]])
    assert _card_aspect(merged) < 0.6
    mended, _ = _mend_side(image, merged, 0.8, 3.0, DetectConfig())
    assert _corner_error(top, mended) < 4.0
    right, support = _mend_side(image, top, 0.9, 3.0, DetectConfig())
    assert np.array_equal(right, top) and support == 0.9
    kept, _ = _mend_side(_drawn([merged]), merged, 0.8, 3.0, DetectConfig())
    assert np.array_equal(kept, merged)


def test_a_pile_tops_quad_with_a_strip_of_the_card_below_beside_it_is_cut_back_to_a_card() -> None:
    # The START card below peeks out beside the top card's long side (and a little below it): an
    # outline taking in the strip is wider than a card. Its far long side is moved in onto the top
    # card's edge; a wide outline without such an edge stays as it is.
    from vision.detect import SIDE_MIN_WIDE, DetectConfig, _card_aspect, _mend_side

    top = np.array([[150, 150], [240, 150], [240, 293], [150, 293]], np.float64)
    below = top + [-28, 18]
    image = _drawn([below, top], rules=(190, 210, 230), rule_x=(160, 225))  # rules printed on the top card
    merged = np.array([below[0], top[1], top[2], below[3]])
    assert _card_aspect(merged) > SIDE_MIN_WIDE
    mended, _ = _mend_side(image, merged, 0.8, 3.0, DetectConfig())
    assert _corner_error(top, mended) < 4.0
    kept, _ = _mend_side(_drawn([merged]), merged, 0.8, 3.0, DetectConfig())
    assert np.array_equal(kept, merged)


class _BlueSegmenter:
    """A stand-in for the segmentation network: it takes the blue channel's light pixels for card
    interior (at any scale), so a test draws in blue what the network sees and in green and red
    the cards' true edges (most of the gray image the corners are refined on)."""

    def maps_of_canvas(self, canvas: np.ndarray, used: tuple[int, int]):
        from vision.segment import CardMaps

        h, w = used
        blue = canvas[:h, :w, 0]
        return CardMaps((blue > 150).astype(np.float32) * 0.95, np.zeros((h, w), np.float32), 1.0)


def _card_at(cx: float, cy: float, angle: float = 0.0, w: float = 100.0, h: float = 150.0) -> np.ndarray:
    """The corners (clockwise from top-left) of a w x h card centred at (cx, cy), turned ``angle`` degrees."""
    a = math.radians(angle)
    across, down = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    centre = np.array([cx, cy])
    return np.array([centre + sx * across * w / 2 + sy * down * h / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _scene(cards: list[np.ndarray], seen: list[np.ndarray]) -> np.ndarray:
    """A 1280 x 720 frame: ``cards`` (last on top) light with dark outlines in green and red;
    the ``seen`` polygons light in blue."""
    import cv2

    true = np.full((720, 1280), 100, np.uint8)
    for card in cards:
        cv2.fillConvexPoly(true, card.round().astype(np.int32), 235)
        cv2.polylines(true, [card.round().astype(np.int32)], True, 40, 3)
    blue = np.full((720, 1280), 100, np.uint8)
    for poly in seen:
        cv2.fillConvexPoly(blue, poly.round().astype(np.int32), 235)
    return cv2.GaussianBlur(cv2.merge([blue, true, true]), (3, 3), 0)


@pytest.mark.parametrize("angle", [0.0, 3.0])
def test_a_pile_top_seen_only_with_the_card_below_is_cut_back_to_its_own_edge(angle: float) -> None:
    # The network sees the pile's top card together with the ends of the card below peeking out
    # above it, as one piece that fills its outline poorly (partly hidden), closer too. The piece
    # is cut back onto the top card's own edge, and stays partly hidden.
    from vision.detect import DetectConfig, _detect_segmented
    from vision.segment import CardMaps, letterbox

    top = _card_at(550, 325)
    below = _card_at(550, 290, angle)
    ends = [np.array([top[0] + [x, -35], top[0] + [x + 10, -35], top[0] + [x + 10, 0], top[0] + [x, 0]]) for x in (0, 90)]
    image = _scene([below, top], [top] + ends)
    segmenter = _BlueSegmenter()
    canvas, factor = letterbox(image)
    maps = segmenter.maps_of_canvas(canvas, (round(720 * factor), round(1280 * factor)))
    found = _detect_segmented(image, segmenter, DetectConfig(), CardMaps(maps.interior, maps.boundary, factor))  # type: ignore[arg-type]
    assert len(found) == 1
    assert _corner_error(top, found[0].quad.as_array()) < 5.0
    assert not found[0].visible


def test_a_closer_look_that_cuts_the_card_off_looks_again_wider() -> None:
    # The whole-frame maps split a card at a printed row: its upper piece's box, grown a little,
    # ends inside the card, whose region then runs into the box's edge. A second, wider look
    # holds the whole card. A piece that looks whole itself gets no wider look (that would take
    # in the cards beside a pile's top): without a whole card found closer it stands.
    from vision.detect import DetectConfig, _zoom_piece

    card = _card_at(550, 325)
    image = _scene([card], [card])
    factor = 0.375
    upper = np.array([card[0], card[1], card[1] + [0, 112], card[0] + [0, 112]])
    piece = _Piece((upper + 0.5) * factor - 0.5, 0.8, 0.9, ((550 * factor, 300 * factor), (100 * factor, 112 * factor), 0.0))
    closer = _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig())  # type: ignore[arg-type]
    whole = [(p.quad + 0.5) / factor - 0.5 for p in closer if p.fill >= 0.9]
    assert len(whole) == 1 and _corner_error(card, whole[0]) < 3.0
    looks_whole = replace(piece, fill=0.95)
    assert _zoom_piece(image, _BlueSegmenter(), looks_whole, factor, DetectConfig()) == []  # type: ignore[arg-type]


def _upper_piece(card: np.ndarray, factor: float, extra: float = 0.0) -> _Piece:
    """The whole-frame piece of ``card`` (upright, 100 x 150) split off at 112 px by its print, in
    map pixels; ``extra`` widens it to the right (a piece holding more than that card)."""
    upper = np.array([card[0], card[1] + [extra, 0], card[1] + [extra, 112], card[0] + [0, 112]])
    centre = upper.mean(axis=0) * factor
    return _Piece((upper + 0.5) * factor - 0.5, 0.8, 0.9, (tuple(centre), ((100 + extra) * factor, 112 * factor), 0.0))


def test_the_wider_look_keeps_only_what_overlaps_the_piece_looked_at() -> None:
    # A light slip lies beside the card, inside the wider box only: the wider look sees it as a
    # card of its own, which is not the piece's card and is left out. When the card itself is not
    # seen whole there either, the wider look gives nothing and the coarse piece stands.
    from vision.detect import DetectConfig, _zoom_piece

    factor = 0.375
    card = _card_at(550, 325)
    slip = np.array([[618.0, 262.0], [646.0, 262.0], [646.0, 318.0], [618.0, 318.0]])
    piece = _upper_piece(card, factor)
    image = _scene([card], [card, slip])
    closer = [(p.quad + 0.5) / factor - 0.5 for p in _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig())]  # type: ignore[arg-type]
    assert len(closer) == 1 and _corner_error(card, closer[0]) < 3.0
    notched = np.vstack([card[:2], card[2] + [0, -40], card[2] + [-40, -40], card[2] + [-40, 0], card[3:]])
    image = _scene([card], [notched, slip])
    assert _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig()) == []  # type: ignore[arg-type]


def test_the_wider_look_is_taken_only_when_a_card_found_holds_the_piece() -> None:
    # The piece looked at runs on to the right of the card over the table: the card seen whole in
    # the wider look covers too little of it to be the piece's card, so the coarse piece stands.
    from vision.detect import WIDER_COVER, DetectConfig, _zoom_piece

    factor = 0.375
    card = _card_at(550, 325)
    image = _scene([card], [card])
    assert len(_zoom_piece(image, _BlueSegmenter(), _upper_piece(card, factor), factor, DetectConfig())) == 1  # type: ignore[arg-type]
    wide = _upper_piece(card, factor, extra=100 * (1 / WIDER_COVER - 1) + 10)
    assert _zoom_piece(image, _BlueSegmenter(), wide, factor, DetectConfig()) == []  # type: ignore[arg-type]


def test_a_card_beside_a_piece_looked_at_closer_is_found_once() -> None:
    # Two cards joined in the whole-frame maps by a thin bridge over the table make one sprawling
    # piece, filling its box poorly; a third card lies inside that box with its own region. The
    # closer look at the sprawling piece sees all three cards apart: the third is found once,
    # not once from its own region and once more from the closer look.
    from vision.detect import DetectConfig, _detect_segmented
    from vision.segment import CardMaps, letterbox

    left, middle, right = _card_at(400, 240), _card_at(560, 270), _card_at(720, 240)
    bridge = np.array([[440.0, 168.0], [680.0, 168.0], [680.0, 178.0], [440.0, 178.0]])  # above the middle card
    image = _scene([left, middle, right], [left, middle, right])
    segmenter = _BlueSegmenter()
    canvas, factor = letterbox(_scene([left, middle, right], [left, middle, right, bridge]))
    maps = segmenter.maps_of_canvas(canvas, (round(720 * factor), round(1280 * factor)))
    found = _detect_segmented(image, segmenter, DetectConfig(), CardMaps(maps.interior, maps.boundary, factor))  # type: ignore[arg-type]
    assert len(found) == 3
    for card in (left, middle, right):
        assert min(_corner_error(card, d.quad.as_array()) for d in found) < 4.0


def test_a_fan_seen_as_one_piece_wider_than_a_card_is_looked_at_closer_for_its_top_card() -> None:
    # Film 187's gladiola fan: in the whole-frame maps the top card and the strip of the card
    # below are one piece of 1.4 cards, wider than a card; closer, they show apart. The piece is
    # looked at closer for being wider than a card (not only for being twice a card's size), and
    # the top card is found in full view.
    from vision.detect import SPLIT_WIDE_AREA, DetectConfig, _detect_segmented
    from vision.segment import CardMaps, letterbox

    lone = [_card_at(200 + 150 * k, 200) for k in range(3)]
    below, top = _card_at(800, 420), _card_at(840, 420)
    strip = np.array([below[0], top[0] - [3, 0], top[3] - [3, 0], below[3]])
    fan = np.array([below[0], top[1], top[2], below[3]])
    assert SPLIT_WIDE_AREA < 1.4 < DetectConfig().seg_split_area
    image = _scene(lone + [below, top], lone + [strip, top])
    segmenter = _BlueSegmenter()
    canvas, factor = letterbox(_scene(lone + [below, top], lone + [fan]))
    maps = segmenter.maps_of_canvas(canvas, (round(720 * factor), round(1280 * factor)))
    found = _detect_segmented(image, segmenter, DetectConfig(), CardMaps(maps.interior, maps.boundary, factor))  # type: ignore[arg-type]
    assert any(d.visible and _corner_error(top, d.quad.as_array()) < 4.0 for d in found)
    for card in lone:
        assert any(d.visible and _corner_error(card, d.quad.as_array()) < 4.0 for d in found)


def test_a_closer_look_at_a_fan_counts_a_card_seen_with_a_strip_beside_it_as_two() -> None:
    # A fan of three cards is one region twice a card's size; looked at closer, the first card
    # shows as a strip and the top card as one region with the strip of the middle card beside
    # it, wider than a card. That region holds two cards: the split is taken (its wide piece is
    # cut back to the top card later, see _mend_side). So it is when the top card of a card's
    # shape and the strip of a card below show apart. A closer look showing one card alone, or
    # one card and a piece of no strip's shape, is no split.
    from vision.detect import SIDE_MIN_WIDE, DetectConfig, _card_aspect, _zoom_piece

    first, middle, top = _card_at(550, 325), _card_at(585, 325), _card_at(610, 325)
    factor = 0.375
    fan = np.array([first[0], top[1], top[2], first[3]])
    piece = _Piece((fan + 0.5) * factor - 0.5, 0.95, 0.9, ((580 * factor, 325 * factor), (160 * factor, 150 * factor), 0.0))
    strip = np.array([first[0], middle[0] - [3, 0], middle[3] - [3, 0], first[3]])
    wide = np.array([middle[0], top[1], top[2], middle[3]])
    image = _scene([first, middle, top], [strip, wide])
    closer = _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig(), min_whole=2)  # type: ignore[arg-type]
    assert len(closer) == 2
    assert max(_card_aspect(p.quad) for p in closer) > SIDE_MIN_WIDE
    narrow = np.array([middle[0] + [20, 0], top[1], top[2], middle[3] + [20, 0]])
    image = _scene([first, middle, top], [strip, narrow])
    closer = _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig(), min_whole=2)  # type: ignore[arg-type]
    aspects = sorted(_card_aspect(p.quad) for p in closer)
    assert len(aspects) == 2 and aspects[0] < DetectConfig().min_aspect <= aspects[1] <= SIDE_MIN_WIDE
    image = _scene([first, middle, top], [narrow])
    assert _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig(), min_whole=2) == []  # type: ignore[arg-type]
    stub = np.array([first[0], middle[0] - [3, 0], first[0] + [0, 60]])  # no strip: a corner
    image = _scene([first, middle, top], [stub, narrow])
    assert _zoom_piece(image, _BlueSegmenter(), piece, factor, DetectConfig(), min_whole=2) == []  # type: ignore[arg-type]
