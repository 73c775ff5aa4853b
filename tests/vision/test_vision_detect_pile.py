"""The top card of a pile outlined together with the cards below it (vision.detect, segmenter path).

The network may see a pile as one region. Its outline then has no single card's shape (too
square, skewed, or a corner on the card below); the card inside it whose four sides run on
image edges and on the network's card outlines is the pile's top card.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.detect as detect_module
from vision.detect import (CARD_ASPECT, PILE_ASPECT, PILE_SKEW, DetectConfig, _card_aspect, _detect_segmented,
                           _keep_guesses, _outline_evidence, _runs_past, _skew, _top_card, _top_guesses,
                           detect_cards)
from vision.types import Detection, Quad
from vision.segment import CardMaps

FACTOR = 0.375  # map pixels per frame pixel, as for a 1280 x 720 frame


def _card_at(cx: float, cy: float, angle: float = 0.0, w: float = 90.0, h: float = 139.0) -> np.ndarray:
    """Corners (clockwise from top-left) of a ``w`` x ``h`` card centred at (cx, cy), turned
    ``angle`` degrees."""
    a = math.radians(angle)
    across, down = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    return np.array([[cx, cy] + sx * across * w / 2 + sy * down * h / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _frame(cards: list[np.ndarray], frames: tuple[int, ...] = ()) -> np.ndarray:
    """A 720 x 1280 gray frame: ``cards`` drawn in order (light face, dark border), the last one
    with a printed frame line this many pixels inside each of ``frames``; lightly blurred."""
    image = np.full((720, 1280), 80, np.uint8)
    for card in cards:
        cv2.fillConvexPoly(image, card.round().astype(np.int32), 230)
        cv2.polylines(image, [card.round().astype(np.int32)], True, 150, 2)
    centre = cards[-1].mean(axis=0)
    for inset in frames:
        inner = centre + (cards[-1] - centre) * (1 - 2 * inset / 139.0)
        cv2.polylines(image, [inner.round().astype(np.int32)], True, 120, 1)
    return cv2.GaussianBlur(image, (3, 3), 0)


def _maps(seen: list[np.ndarray], outlines: list[np.ndarray], strength: float = 0.35) -> CardMaps:
    """Network maps at ``FACTOR``: the ``seen`` polygons card interior, the ``outlines`` seen as
    card outline with probability ``strength`` (by default too weakly to split the interior, as
    the network sees a pile's top card)."""
    shape = (round(720 * FACTOR), round(1280 * FACTOR))
    interior = np.zeros(shape, np.float32)
    boundary = np.zeros(shape, np.float32)
    for poly in seen:
        cv2.fillConvexPoly(interior, ((poly + 0.5) * FACTOR - 0.5).round().astype(np.int32), 0.95)
    for poly in outlines:
        cv2.polylines(boundary, [((poly + 0.5) * FACTOR - 0.5).round().astype(np.int32)], True, strength, 1)
    interior[boundary > 0] = 0.6
    return CardMaps(interior, boundary, FACTOR)


def _corner_error(truth: np.ndarray, found: np.ndarray) -> float:
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))


def _hull(*cards: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.vstack(cards).astype(np.float32))[:, 0, :].astype(np.float64)


@pytest.mark.parametrize(("angle", "shift"), [(25.0, (6.0, 4.0)), (-8.0, (-12.0, 9.0))])
def test_the_top_card_is_found_inside_an_outline_taking_in_the_card_below(angle: float, shift: tuple) -> None:
    below = _card_at(640, 360)
    top = _card_at(640 + shift[0], 360 + shift[1], angle)
    image = _frame([below, top])
    pile = cv2.boxPoints(cv2.minAreaRect(_hull(below, top).astype(np.float32))).astype(np.float64)
    found = _top_card(image, _maps([pile], [top]), pile, None, 3.0, DetectConfig())
    assert found is not None
    quad, support = found
    assert _corner_error(top, quad) < 4.0
    assert support >= 0.8


def test_without_the_networks_outline_along_it_no_card_is_taken() -> None:
    # The same pile, but the network marks only the pile's outer outline: the top card's sides
    # over the card below have no outline evidence, so the search gives nothing.
    below = _card_at(640, 360)
    top = _card_at(646, 364, 25.0)
    pile = cv2.boxPoints(cv2.minAreaRect(_hull(below, top).astype(np.float32))).astype(np.float64)
    image = _frame([below, top])
    assert _top_card(image, _maps([pile], [pile]), pile, None, 3.0, DetectConfig()) is None
    assert min(_outline_evidence(_maps([pile], [top]), top)) > min(_outline_evidence(_maps([pile], [pile]), top)) + 0.2


def test_a_frame_printed_inside_a_card_is_not_taken_for_the_card() -> None:
    # A lone card with a printed frame line 9 px inside its edge, and an outline a little too
    # big for it (running on 20 px over the table at its foot): of the two card-shaped quads on
    # edges inside, the one the network outlines is the card.
    card = _card_at(640, 360, 10.0)
    image = _frame([card], frames=(9,))
    outline = card.copy()
    outline[2:] += 20.0 * (card[3] - card[0]) / np.linalg.norm(card[3] - card[0])
    assert abs(_card_aspect(outline) - CARD_ASPECT) > 0.06
    found = _top_card(image, _maps([card], [card]), outline, None, 3.0, DetectConfig())
    assert found is not None
    assert _corner_error(card, found[0]) < 4.0


class _MapsOf:
    """A stand-in for the segmentation network returning fixed maps for the whole frame."""

    def __init__(self, maps: CardMaps) -> None:
        self._maps = maps

    def maps(self, frame: np.ndarray) -> CardMaps:
        return self._maps

    def maps_of_canvas(self, canvas: np.ndarray, used: tuple[int, int]) -> CardMaps:
        h, w = used
        interior = cv2.resize(self._maps.interior, (w, h), interpolation=cv2.INTER_NEAREST)
        boundary = cv2.resize(self._maps.boundary, (w, h), interpolation=cv2.INTER_NEAREST)
        return CardMaps(interior, boundary, 1.0)


def test_a_pile_seen_as_one_region_is_reported_as_its_top_card() -> None:
    # The network sees the whole pile (the top card turned 25 degrees on the card below) as one
    # card region, the two cards' union: the detection is the top card, in full view; without
    # the outline evidence the pile's outline stands as before.
    below = _card_at(640, 360)
    top = _card_at(646, 364, 25.0)
    image = cv2.cvtColor(_frame([below, top]), cv2.COLOR_GRAY2BGR)
    hull = _hull(below, top)
    maps = _maps([below, top], [top])
    config = DetectConfig(seg_zoom=1.0)  # no closer look (the stand-in has no maps for parts of the frame)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(found) == 1
    assert _corner_error(top, found[0].quad.as_array()) < 4.0
    assert found[0].visible
    blind = _maps([below, top], [hull])
    kept = _detect_segmented(image, _MapsOf(blind), config, blind)  # type: ignore[arg-type]
    assert len(kept) == 1 and _corner_error(top, kept[0].quad.as_array()) > 10.0


@pytest.mark.parametrize(("angle", "shift"), [(0.0, (10.0, 22.0)), (8.0, (10.0, 22.0)), (-12.0, (-8.0, 24.0))])
def test_a_pile_outlined_with_a_cards_shape_is_reported_as_its_top_card(angle: float, shift: tuple) -> None:
    # The card below lies turned as the top card, shifted 20-odd px along it: the pile's outline
    # (top card and the strip of the card below) has a card's shape, but the network sees the top
    # card's edge across the region, and the outline runs on past it: the top card is reported.
    # Without that edge in the maps the outline stands (the film 105 W36 case: 17 px off).
    a = math.radians(angle)
    offset = np.array([shift[0] * math.cos(a) - shift[1] * math.sin(a), shift[0] * math.sin(a) + shift[1] * math.cos(a)])
    top = _card_at(640, 360, angle)
    below = _card_at(640 + offset[0], 360 + offset[1], angle)
    image = cv2.cvtColor(_frame([below, top]), cv2.COLOR_GRAY2BGR)
    config = DetectConfig(seg_zoom=1.0)
    blind = _maps([below, top], [_hull(below, top)], 0.55)
    kept = _detect_segmented(image, _MapsOf(blind), config, blind)  # type: ignore[arg-type]
    assert len(kept) == 1
    outline = kept[0].quad.as_array()
    assert _skew(outline) <= PILE_SKEW and abs(_card_aspect(outline) - CARD_ASPECT) <= PILE_ASPECT
    assert _corner_error(top, outline) > 15.0
    maps = _maps([below, top], [top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(found) == 1
    assert _corner_error(top, found[0].quad.as_array()) < 4.0
    assert found[0].visible


def test_a_card_replaces_a_card_shaped_outline_only_where_the_outline_runs_on_past_one_side() -> None:
    card = _card_at(640, 360, 10.0)
    down = (card[3] - card[0]) / np.linalg.norm(card[3] - card[0])
    pile = card.copy()
    pile[2:] += 20.0 * down  # a strip of the card below at its foot, 20 px (0.13 of the outline)
    assert _runs_past(pile, card)
    assert not _runs_past(card, card)
    short = card.copy()
    short[2:] += 8.0 * down  # 8 px: within a printed border's width
    assert not _runs_past(short, card)
    centre = card.mean(axis=0)
    assert not _runs_past(card, centre + (card - centre) * 0.8)  # a line printed 14 px in all round
    assert not _runs_past(pile, card + 10.0 * np.array([down[1], -down[0]]))  # sticking out 10 px


def test_lone_cards_whose_outlines_lose_a_cards_shape_do_not_set_off_the_search(monkeypatch) -> None:
    # ``companion bench``'s 720p frame: ten lone cards under a 15-degree tilt, several of whose
    # refined outlines have no card's shape (a side on the printed border's inner edge). Each
    # card's region fills its box and shows no card edge inside, so no pile's top is looked for;
    # taking every region for a pile's, the search runs on them.
    from companion.bench import grid_scene

    image = grid_scene(10, 5, (1280, 720), seed=2, fill=0.7).image
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(1)
        return _top_card(*args, **kwargs)

    monkeypatch.setattr(detect_module, "_top_card", counted)
    assert len(detect_cards(image)) == 10
    assert calls == []
    monkeypatch.setattr(detect_module, "PILE_BOX_FILL", 1.5)
    assert len(detect_cards(image)) == 10
    assert len(calls) >= 4


def _bordered(cards: list[np.ndarray], border: float = 7.0) -> np.ndarray:
    """A 720 x 1280 BGR frame: ``cards`` drawn in order, each with a dark printed border ``border``
    px wide round a light face; the last one's left side casts a faint shadow; lightly blurred."""
    image = np.full((720, 1280), 150, np.uint8)
    for card in cards:
        centre = card.mean(axis=0)
        cv2.fillConvexPoly(image, card.round().astype(np.int32), 60)
        face = centre + (card - centre) * (1 - 2 * border / 90.0)
        cv2.fillConvexPoly(image, face.round().astype(np.int32), 230)
    top = cards[-1]
    cv2.line(image, tuple(int(v) for v in top[0].round()), tuple(int(v) for v in top[3].round()), 44, 1)
    return cv2.cvtColor(cv2.GaussianBlur(image, (3, 3), 0), cv2.COLOR_GRAY2BGR)


def test_a_top_card_whose_side_lies_on_the_border_below_comes_with_guesses_where_it_lies() -> None:
    # The card below sticks out 24 px at the foot and 4 px at the left, so the top card's left
    # side lies on the border of the card below, of the same colour: no edge but a faint shadow.
    # No card found inside passes, and the outline (a card's shape) stands; it carries guesses,
    # one of them near the top card, for the reader to try.
    top = _card_at(640, 360)
    below = _card_at(636, 384)
    image = _bordered([below, top])
    maps = _maps([below, top], [top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), DetectConfig(seg_zoom=1.0), maps)  # type: ignore[arg-type]
    assert len(found) == 1
    assert _corner_error(top, found[0].quad.as_array()) > 20.0
    assert 1 <= len(found[0].inside) <= detect_module.TOP_GUESSES
    assert min(_corner_error(top, q.as_array()) for q in found[0].inside) < 7.0
    # a lone card's outline is not searched and carries none
    lone = _bordered([top])
    alone = _detect_segmented(lone, _MapsOf(_maps([top], [top])), DetectConfig(seg_zoom=1.0), _maps([top], [top]))  # type: ignore[arg-type]
    assert len(alone) == 1 and alone[0].inside == ()


def _unseen_sides(maps: CardMaps, card: np.ndarray, sides: tuple[int, ...]) -> CardMaps:
    """``maps`` with the network's outline wiped along the given sides of ``card``."""
    boundary = maps.boundary.copy()
    for k in sides:
        ends = ((card[[k, (k + 1) % 4]] + 0.5) * FACTOR - 0.5).round().astype(np.int32)
        cv2.line(boundary, tuple(int(v) for v in ends[0]), tuple(int(v) for v in ends[1]), 0.0, 3)
    return CardMaps(maps.interior, boundary, maps.factor)


def test_a_top_card_laid_askew_with_one_side_unseen_by_the_network_is_a_guess() -> None:
    # A top card turned 15 degrees on the card below: all four of its sides lie on image edges,
    # but the network does not outline the one crossing the border below (film 130's W42). With
    # one side unseen it is still a guess, of the second set; with two unseen it is none.
    below = _card_at(640, 360)
    top = _card_at(650, 356, 15.0)
    image = _frame([below, top])
    pile = cv2.boxPoints(cv2.minAreaRect(_hull(below, top).astype(np.float32))).astype(np.float64)
    maps = _maps([pile], [top], 0.5)
    first, second = _top_guesses(image, _unseen_sides(maps, top, (0,)), pile, None, 3.0, DetectConfig())
    assert second and min(_corner_error(top, q) for q in second) < 4.0
    assert all(_corner_error(top, q) > 6.0 for q in first)
    two = _top_guesses(image, _unseen_sides(maps, top, (0, 1)), pile, None, 3.0, DetectConfig())
    assert all(_corner_error(top, q) > 6.0 for q in two[0] + two[1])


def test_a_guess_nearly_the_outline_a_card_was_found_inside_is_dropped() -> None:
    # A pile's top card found inside the pile's outline (kept with its outline), and a guess of
    # the card below completed under it, nearly that outline (film 101's G7 pile): the guess is
    # the pile again and is dropped; a guess elsewhere stands, and so does the same guess when
    # no outline is kept with the top card.
    top = _card_at(640, 360)
    below = _card_at(650, 405)  # IoU 0.43 with the top card, 0.68 with the outline
    outline = cv2.boxPoints(cv2.minAreaRect(_hull(below, top).astype(np.float32))).astype(np.float64)
    found = (Detection(Quad.card_order(top), 0.9), outline)
    under = (Detection(Quad.card_order(below), 0.7, visible=False), None)
    away = (Detection(Quad.card_order(_card_at(300, 360)), 0.6, visible=False), None)
    assert _keep_guesses([found, under, away], [], 0.5) == [found[0], away[0]]
    assert _keep_guesses([(found[0], None), under, away], [], 0.5) == [found[0], under[0], away[0]]
    # the top card detected for sure already: its find is dropped, and its outline with it
    assert _keep_guesses([found, under, away], [top], 0.5) == [under[0], away[0]]


def test_a_pile_of_no_cards_shape_little_bigger_than_a_card_is_searched_for_its_top_card() -> None:
    # Two cards stick out from under the top card, one at each long side (film 123's W39 on the
    # START card): the pile's region is less than 1.6 times a card but of no card's shape. It is
    # searched for its top card, not dropped; a lone card elsewhere gives the typical size.
    from vision.detect import _plausible_shape

    lone = _card_at(300, 360)
    left, right, top = _card_at(775, 360), _card_at(825, 360), _card_at(800, 360, 2.0)
    image = cv2.cvtColor(_frame([lone, left, right, top]), cv2.COLOR_GRAY2BGR)
    hull = _hull(left, right, top)
    assert not _plausible_shape(cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32))).astype(np.float64), DetectConfig())
    maps = _maps([lone, hull], [lone, top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), DetectConfig(seg_zoom=1.0), maps)  # type: ignore[arg-type]
    near_pile = [d for d in found if abs(d.quad.as_array()[:, 0].mean() - 800) < 60]
    assert len(near_pile) == 1 and near_pile[0].visible
    assert _corner_error(top, near_pile[0].quad.as_array()) < 6.0


def test_a_pile_of_no_cards_shape_alone_on_the_table_is_searched_for_its_top_card() -> None:
    # As above with no card in full view anywhere (film 129: the walk pile alone on the table,
    # found on no frame for 14 frames): no typical size to weigh the pile by, still searched.
    from vision.detect import _plausible_shape

    left, right, top = _card_at(775, 360), _card_at(825, 360), _card_at(800, 360, 2.0)
    image = cv2.cvtColor(_frame([left, right, top]), cv2.COLOR_GRAY2BGR)
    hull = _hull(left, right, top)
    assert not _plausible_shape(cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32))).astype(np.float64), DetectConfig())
    maps = _maps([hull], [top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), DetectConfig(seg_zoom=1.0), maps)  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0


def test_a_small_pile_alone_on_the_table_is_searched_whatever_its_area() -> None:
    # As above with smaller cards (film 142: the camera further off, the walk pile's outline
    # 3.6 times the least card area, dropped as a lone piece under 4 times it for 17 frames).
    from vision.detect import _plausible_shape

    left, right, top = (_card_at(781, 360, 0.0, 70, 108), _card_at(819, 360, 0.0, 70, 108),
                        _card_at(800, 360, 2.0, 70, 108))
    image = cv2.cvtColor(_frame([left, right, top]), cv2.COLOR_GRAY2BGR)
    hull = _hull(left, right, top)
    box = cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32))).astype(np.float64)
    config = DetectConfig(seg_zoom=1.0)
    assert not _plausible_shape(box, config)
    assert abs(cv2.contourArea(box.astype(np.float32))) < config.lone_piece_area_factor * config.min_area_frac * 1280 * 720
    maps = _maps([hull], [top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0


def test_a_pile_spread_over_two_cards_is_searched_for_a_top_card_of_a_cards_size() -> None:
    # The START card sticks out beside the pile and the card below above it (film 133's W44 laid
    # askew on W40): the top card covers less than TOP_MIN_SHARE of the pile's outline, which no
    # lone card's outline is. It is found; with one of its sides unseen by the network, the
    # pile's outline stands hidden with a guess on it, where it was dropped before.
    lone = _card_at(300, 360)
    start, below, top = _card_at(740, 370), _card_at(815, 330), _card_at(800, 380, 20.0)
    image = cv2.cvtColor(_frame([lone, start, below, top]), cv2.COLOR_GRAY2BGR)
    hull = _hull(start, below, top)
    box = cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32))).astype(np.float64)
    card_area = 90.0 * 139.0
    assert abs(cv2.contourArea(box.astype(np.float32))) > detect_module.TOP_SPREAD * card_area
    assert card_area < detect_module.TOP_MIN_SHARE * abs(cv2.contourArea(box.astype(np.float32)))
    config = DetectConfig(seg_zoom=1.0)
    maps = _maps([lone, hull], [lone, top], 0.55)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    near_pile = [d for d in found if abs(d.quad.as_array()[:, 0].mean() - 780) < 80]
    assert len(near_pile) == 1 and near_pile[0].visible
    assert _corner_error(top, near_pile[0].quad.as_array()) < 6.0
    unseen = _unseen_sides(maps, top, (3,))
    hidden = _detect_segmented(image, _MapsOf(unseen), config, unseen)  # type: ignore[arg-type]
    near_pile = [d for d in hidden if abs(d.quad.as_array()[:, 0].mean() - 780) < 80]
    assert len(near_pile) == 1 and not near_pile[0].visible
    assert min(_corner_error(top, q.as_array()) for q in near_pile[0].inside + near_pile[0].also_inside) < 6.0


def test_a_pile_with_a_card_in_full_view_is_searched_whatever_its_size_against_the_least_area() -> None:
    # Small cards: the pile's outline (its top card turned over the card below, which sticks
    # out at one side) is a little bigger than the lone card but under the size a partly hidden
    # piece needs when no card is in full view (film 135's W16 on W4, lost 15 frames). The lone
    # card gives the size, so the pile is searched, and its top card found.
    from vision.detect import _plausible_shape, _region_piece, _shoelace
    from vision.segment import card_regions

    config = DetectConfig(seg_zoom=1.0)
    lone = _card_at(300, 360, 0.0, 80.0, 124.0)
    below, top = _card_at(820, 355, 12.0, 80.0, 124.0), _card_at(800, 360, -10.0, 80.0, 124.0)
    image = cv2.cvtColor(_frame([lone, below, top]), cv2.COLOR_GRAY2BGR)
    maps = _maps([lone, _hull(below, top)], [lone, top], 0.55)
    pile = next(p for r in card_regions(maps) if (p := _region_piece(r)).quad[:, 0].mean() > 200)
    least = config.lone_piece_area_factor * config.min_area_frac * maps.interior.size
    assert 80.0 * 124.0 * FACTOR**2 < abs(_shoelace(pile.quad)) < least
    assert not _plausible_shape(pile.quad, config)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    near_pile = [d for d in found if abs(d.quad.as_array()[:, 0].mean() - 800) < 60]
    assert len(near_pile) == 1 and near_pile[0].visible
    assert _corner_error(top, near_pile[0].quad.as_array()) < 6.0


def _cut_pile_maps(lone: list[np.ndarray], pile: list[np.ndarray], band: float) -> CardMaps:
    """Network maps at ``FACTOR`` of the ``lone`` cards and a ``pile`` (its top card last) seen as
    one region, cut in two by an outline across the pile ``band`` of the top card's height down
    (a band printed across the card taken for an edge); the top card's own outline too weak to
    split the pile."""
    shape = (round(720 * FACTOR), round(1280 * FACTOR))
    interior = np.zeros(shape, np.float32)
    boundary = np.zeros(shape, np.float32)
    to_map = lambda poly: ((np.asarray(poly) + 0.5) * FACTOR - 0.5).round().astype(np.int32)  # noqa: E731
    for card in lone + pile:
        cv2.fillConvexPoly(interior, to_map(card), 0.95)
    cv2.polylines(boundary, [to_map(card) for card in lone] + [to_map(_hull(*pile))], True, 0.7, 1)
    top = pile[-1]
    cv2.polylines(boundary, [to_map(top)], True, 0.45, 1)
    a, b = top[0] + band * (top[3] - top[0]), top[1] + band * (top[2] - top[1])
    cv2.line(boundary, tuple(to_map(2 * a - b).tolist()), tuple(to_map(2 * b - a).tolist()), 0.8, 2)
    interior[boundary > 0.6] = 0.2
    interior[(boundary > 0) & (boundary < 0.6)] = 0.6
    return CardMaps(interior, boundary, FACTOR)


def test_a_pile_top_the_network_cuts_in_two_along_a_printed_band_is_found_whole(monkeypatch) -> None:
    # The network sees a band printed across the top card as an outline and cuts the pile into
    # two regions, each too small, or of no card's shape, to stand alone with no other card in
    # view (film 133's W45 on a pile alone on the table, cut at its row of plaster marks, its
    # walk missed). The two are joined, and the top card is found inside them.
    from vision.segment import card_regions

    top = _card_at(640, 360, 15.0)
    cards = [_card_at(630, 372, -12.0), top]
    image = cv2.cvtColor(_frame(cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([], cards, 0.6)
    assert len(card_regions(maps)) == 2
    config = DetectConfig(seg_zoom=1.0)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0
    monkeypatch.setattr(detect_module, "JOIN_MOST", 0)  # not joined, both pieces are dropped
    assert _detect_segmented(image, _MapsOf(maps), config, maps) == []  # type: ignore[arg-type]


def test_a_pile_top_cut_in_two_beside_a_card_in_full_view_is_found_whole(monkeypatch) -> None:
    # As above with a lone card giving the size (film 130's FINISH on the pile, cut at its
    # checkered band): the lower part is too small for a card and dropped, the upper part, with
    # the pile's edges, is kept as a partly hidden card. Joined, the top card is found, in place
    # of the partly hidden piece.
    from vision.segment import card_regions

    lone, top = _card_at(300, 360), _card_at(640, 360, 15.0)
    cards = [_card_at(628, 350, -10.0), top]
    image = cv2.cvtColor(_frame([lone] + cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([lone], cards, 0.68)
    assert len(card_regions(maps)) == 3
    config = DetectConfig(seg_zoom=1.0)
    found = [d for d in _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
             if d.quad.as_array()[:, 0].mean() > 450]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0
    monkeypatch.setattr(detect_module, "JOIN_MOST", 0)  # not joined: a partly hidden piece only
    alone = [d for d in _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
             if d.quad.as_array()[:, 0].mean() > 450]
    assert len(alone) == 1 and not alone[0].visible and _corner_error(top, alone[0].quad.as_array()) > 20.0


def test_a_small_pile_alone_cut_in_two_is_found_with_the_card_size_seen_before() -> None:
    # Fresh film 173: the walk pile alone on a checked cloth, its top card W16 cut by the network
    # at its row of plaster marks into an upper part and a lower end, neither in full view; the
    # cards there are small (78 x 119 pixels). With no card in full view to give the size, the
    # pieces are too small to be cards and the pile was lost for 40 frames, its walk missed. The
    # card size seen in earlier frames gives the size, and the top card is found.
    top = _card_at(640, 360, 8.0, 78, 119)
    cards = [_card_at(632, 352, -6.0, 78, 119), _card_at(636, 356, 2.0, 78, 119), top]
    image = cv2.cvtColor(_frame(cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([], cards, 0.72)
    config = DetectConfig(seg_zoom=1.0)
    assert _detect_segmented(image, _MapsOf(maps), config, maps) == []  # type: ignore[arg-type]
    found = _detect_segmented(image, _MapsOf(maps), config, maps, (78.0, 119.0))  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0


def test_a_spread_pile_taken_for_a_partly_hidden_card_is_looked_into_for_its_top_card() -> None:
    # Fresh film 175, white cards on white cloth: W11 laid on the walk pile, the cards below
    # sticking out. On most frames the network's region of the pile had no card's shape and was
    # completed as a partly hidden card (the typical size came from a FINISH pile nearer the
    # camera), its top card never looked for, and the walk was missed. Such a piece, its region
    # showing more than one card, is looked into; the top card is found in full view.
    from samples.render.specs import Game
    from samples.render.video import Move, VideoConfig, _Renderer, _Shown, plan_video

    config = VideoConfig(fps=15)
    plan = plan_video(Game.GLADIOLA, 4, 175, config)
    renderer = _Renderer(plan, config)
    hold = next(plan.steps[k + 1] for k, step in enumerate(plan.steps) if isinstance(step, Move) and step.event == 20)
    image = renderer.table_img.copy()
    renderer._draw_cards(image, [_Shown(p, 1.0, False) for p in hold.table])
    frame = renderer._finish(image, 0)
    frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 50])[1], cv2.IMREAD_COLOR)
    found = [d for d in detect_module.detect_cards(frame, card_size=(98.2, 151.2))
             if np.linalg.norm(d.quad.as_array().mean(axis=0) - (594.0, 300.0)) < 12.0]
    assert len(found) == 1 and found[0].visible


def _near_pile(image: np.ndarray, maps: CardMaps) -> list[Detection]:
    """The detections right of x = 450 (the pile's side of the frame), without closer looks."""
    found = _detect_segmented(image, _MapsOf(maps), DetectConfig(seg_zoom=1.0), maps)  # type: ignore[arg-type]
    return [d for d in found if d.quad.as_array()[:, 0].mean() > 450]


def test_a_pile_top_cut_into_a_strip_of_a_cards_shape_and_an_outline_without_it_is_found_whole(monkeypatch) -> None:
    # The network cuts the top card at a band printed across it: its lower end alone is a small
    # region of a card's shape, taken for a card in full view; its upper part, with the cards
    # below sticking out above and beside it, an outline the top card does not fit inside (film
    # 153's W16 on the walk pile, read on none of the 11 frames it lay on top, its walk missed).
    # The two are joined and the top card found whole, in place of the strip.
    from vision.segment import card_regions

    lone, top = _card_at(300, 360), _card_at(640, 380)
    cards = [_card_at(680, 345, 6.0), top]
    image = cv2.cvtColor(_frame([lone] + cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([lone], cards, 0.66)
    assert len(card_regions(maps)) == 3
    found = _near_pile(image, maps)
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0
    monkeypatch.setattr(detect_module, "JOIN_SMALL", 0.0)  # the strip stands alone: a card too small
    assert all(_corner_error(top, d.quad.as_array()) > 20.0 for d in _near_pile(image, maps))


def test_a_pile_top_cut_into_two_thirds_of_a_card_and_an_outline_is_found_whole(monkeypatch) -> None:
    # As above, the upper part the bigger one: about 0.7 of a card in full view, the lower end
    # with the card below sticking out under it (film 156's W38, its upper part 0.62 to 0.69 of
    # a card, missed with pieces under 0.6 of a card joined only).
    lone, top = _card_at(300, 360), _card_at(640, 360)
    cards = [_card_at(650, 410, -8.0), top]
    image = cv2.cvtColor(_frame([lone] + cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([lone], cards, 0.66)
    found = _near_pile(image, maps)
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0
    monkeypatch.setattr(detect_module, "JOIN_SMALL", 0.6)
    assert all(_corner_error(top, d.quad.as_array()) > 20.0 for d in _near_pile(image, maps))


def test_a_pieces_end_smaller_than_any_card_is_offered_for_joining(monkeypatch) -> None:
    # Film 159's W38 on the walk pile, cut at its row of plaster marks near its lower end: that
    # end, under the least card area, was left out, so the upper part (with the cards below)
    # could not be joined with it and the card went unread, its walk missed. Such an end is now
    # tried joined like any piece dropped for its size.
    lone, top = _card_at(300, 360), _card_at(640, 380)
    cards = [_card_at(625, 350), top]
    image = cv2.cvtColor(_frame([lone] + cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([lone], cards, 0.82)
    config = DetectConfig(seg_zoom=1.0)
    least = config.min_area_frac * maps.interior.size
    offered: list[list[float]] = []
    joined = detect_module._joined

    def spy(pieces, dropped, *rest):  # type: ignore[no-untyped-def]
        offered.append([abs(detect_module._shoelace(pieces[k].quad)) for k in dropped])
        return joined(pieces, dropped, *rest)

    monkeypatch.setattr(detect_module, "_joined", spy)
    _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(offered) == 1 and len(offered[0]) == 1 and offered[0][0] < least


def test_a_small_piece_in_full_view_is_joined_with_a_partly_hidden_one_across_a_narrow_gap() -> None:
    # Film 156's W38 on the walk pile, cut at its row of plaster marks: its upper part in full
    # view, 0.62 to 0.69 of a card, and its lower end with the cards below, kept as a partly
    # hidden card on some frames, two map pixels apart (fresh film 170's W45: three). The two
    # are tried joined; not a piece of neither kind (two partly hidden ones), nor two regions
    # four pixels apart.
    from vision.detect import _joined, _region_piece
    from vision.segment import CardRegion

    def region(y0: int, y1: int) -> np.ndarray:
        mask = np.zeros((120, 120), np.uint8)
        mask[y0:y1, 40:75] = 255
        return mask

    def pairs(gap: int, small: list[int]) -> list[tuple[int, int]]:
        upper, lower = region(20, 60), region(60 + gap, 90)
        pieces = [_region_piece(CardRegion(m, int(np.count_nonzero(m)), 0.9)) for m in (upper, lower)]
        masks = {id(p): m for p, m in zip(pieces, (upper, lower))}
        return [parts for _, parts in _joined(pieces, [], [0, 1], masks, small)]

    assert pairs(2, [0]) == [(0, 1)]
    assert pairs(3, [0]) == [(0, 1)]
    assert pairs(2, []) == []
    assert pairs(4, [0]) == []


def test_a_top_card_sharing_a_side_with_its_piles_outline_is_found_when_that_side_makes_no_strong_line(monkeypatch) -> None:
    # Film 154's W49 on a pile squared up below it, the cards below sticking out at the left and
    # at the bottom: the top card's upper end is the pile's, and running close beside the ends
    # of the cards below it made no line among the 60 strongest inside the outline (rank 155 of
    # 384), so no quad had a side there and the whole pile was read as one card (nothing), its
    # walk missed. The outline's own sides are lines too now.
    top = _card_at(640, 360)
    cards = [_card_at(605, 370), _card_at(622, 365), top]
    image = cv2.cvtColor(_frame(cards), cv2.COLOR_GRAY2BGR)
    maps = _maps([_hull(*cards)], [_hull(*cards), top], 0.55)
    config = DetectConfig(seg_zoom=1.0)
    strongest = detect_module._strong_lines

    def top_end_weak(crop: np.ndarray, votes: int, cfg: DetectConfig, most: int) -> np.ndarray:
        lines = strongest(crop, votes, cfg, most)
        level = np.abs(np.degrees(lines[:, 1]) - 90.0) < 5.0
        return lines[~(level & (lines[:, 0] < 40.0))]  # (the top end lies about 30 px into the crop)

    monkeypatch.setattr(detect_module, "_strong_lines", top_end_weak)
    found = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(found) == 1 and _corner_error(top, found[0].quad.as_array()) < 4.0
    monkeypatch.setattr(detect_module, "_with_sides", lambda lines, quad: lines)
    alone = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(alone) == 1 and _corner_error(top, alone[0].quad.as_array()) > 20.0


def _lower_part(quad: np.ndarray, share: float = 0.45) -> np.ndarray:
    """``quad`` with its first side moved ``share`` of the way towards the opposite side."""
    cut = quad.copy()
    cut[[0, 1]] = quad[[0, 1]] + share * (quad[[3, 2]] - quad[[0, 1]])
    return cut


def test_an_outline_cut_across_its_top_card_yields_to_the_card_found_inside_it(monkeypatch) -> None:
    # The straightest edge across a pile's outline may be a band printed across the top card (film
    # 166's FINISH banner): the outline cut back there is not taken when the outline uncut holds a
    # card on at least as much edge. Here the cut is made by a stand-in, at 45% of the outline.
    below, top, lone = _card_at(640, 360, 14.0), _card_at(640, 360), _card_at(300, 360)
    image = cv2.cvtColor(_frame([lone, below, top]), cv2.COLOR_GRAY2BGR)
    maps = _maps([below, top, lone], [top, lone])
    cuts: list[np.ndarray] = []

    def cut_across(gray, quad, support, radius, config):
        cuts.append(_lower_part(quad))
        return cuts[-1], support

    monkeypatch.setattr(detect_module, "_mend_side", cut_across)
    config = DetectConfig(seg_zoom=1.0)
    found = [d for d in _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
             if d.quad.as_array()[:, 0].mean() > 450]
    assert len(cuts) == 1
    assert len(found) == 1 and found[0].visible and _corner_error(top, found[0].quad.as_array()) < 4.0
    # with no card found inside, the cut stands
    monkeypatch.setattr(detect_module, "_top_card", lambda *args, **kwargs: None)
    kept = [d for d in _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
            if d.quad.as_array()[:, 0].mean() > 450]
    assert len(kept) == 1 and _corner_error(cuts[-1], kept[0].quad.as_array()) < 4.0


def test_a_pile_top_crowded_out_of_the_strongest_lines_is_guessed_from_more(monkeypatch) -> None:
    # Lines printed across a top card (a FINISH card's checkered banner) may outnumber the lines
    # looked at first, leaving a side of the card out, and no guess is made: an outline of a
    # pile's size is looked at again with more lines, for guesses (to be read), not for a card
    # taken as found. Here ten printed lines crowd out the card's sides when only ten are looked
    # at first.
    below, top = _card_at(646, 368, -8.0), _card_at(640, 360, 12.0)
    image = _frame([below, top])
    across = (top[1] - top[0]) / np.linalg.norm(top[1] - top[0])
    down = (top[3] - top[0]) / np.linalg.norm(top[3] - top[0])
    for k in range(10):  # a band of dark rules, each as long as the card is wide
        start = top[0] + (30 + 4 * k) * down + 4 * across
        cv2.line(image, tuple(start.round().astype(int)), tuple((start + 82 * across).round().astype(int)), 40, 1)
    pile = cv2.boxPoints(cv2.minAreaRect(_hull(below, top).astype(np.float32))).astype(np.float64)
    maps = _maps([pile], [top])
    area = 90.0 * 139.0
    assert detect_module.TOP_MORE_AREA * area <= abs(detect_module._shoelace(pile)) <= detect_module.TOP_SPREAD * area
    monkeypatch.setattr(detect_module, "TOP_LINES", 10)
    assert _top_card(image, maps, pile, area, 3.0, DetectConfig()) is None
    first, second = _top_guesses(image, maps, pile, area, 3.0, DetectConfig())
    assert min(_corner_error(top, q) for q in first + second) < 4.0
    monkeypatch.setattr(detect_module, "TOP_MORE_LINES", 10)  # no second look with more lines
    assert _top_guesses(image, maps, pile, area, 3.0, DetectConfig()) == ((), ())
    monkeypatch.setattr(detect_module, "TOP_MORE_LINES", 150)  # an outline of more cards (a row): no second look
    assert _top_guesses(image, maps, pile, area / 2.0, 3.0, DetectConfig()) == ((), ())


@pytest.mark.parametrize("angle", [0.0, 20.0, 90.0])
def test_a_card_outline_running_across_a_quad_shows_a_card_lying_on_it(angle: float) -> None:
    # Fresh film 183: W23 on a pile over the START card laid crosswise; the network cut the pile's
    # region at the START's lower edge, and the START's outline inside the upper part was taken
    # for the pile's top card (in full view, read as nothing), W23's walk missed. W23's sides
    # run across the START from side to side; a top card shows at most its own print's lines.
    from vision.detect import TOP_CROSSED, _crossed

    boundary = np.zeros((200, 300), np.float32)
    centre = np.array([150.0, 100.0])
    rot = cv2.getRotationMatrix2D((0.0, 0.0), angle, 1.0)[:, :2]
    quad = np.array([[-45.0, -30.0], [45.0, -30.0], [45.0, 30.0], [-45.0, 30.0]]) @ rot.T + centre
    cv2.polylines(boundary, [np.round(quad).astype(np.int32)], True, 1.0, 1)  # its own outline
    clean = _crossed(CardMaps(np.zeros_like(boundary), boundary.copy(), 1.0), quad)
    # a line printed inside, short of the sides, is no card's edge
    short = boundary.copy()
    a, b = np.array([-20.0, 5.0]) @ rot.T + centre, np.array([20.0, 5.0]) @ rot.T + centre
    cv2.line(short, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), 1.0, 2)
    printed = _crossed(CardMaps(np.zeros_like(boundary), short, 1.0), quad)
    # another card's side running across it
    crossing = boundary.copy()
    a, b = np.array([10.0, -60.0]) @ rot.T + centre, np.array([10.0, 60.0]) @ rot.T + centre
    cv2.line(crossing, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), 1.0, 2)
    crossed = _crossed(CardMaps(np.zeros_like(boundary), crossing, 1.0), quad)
    assert clean < TOP_CROSSED and printed < TOP_CROSSED <= crossed


@pytest.mark.parametrize("band", [0.45, 0.5])
def test_a_pile_top_cut_into_two_halves_of_a_cards_shape_is_one_card_of_the_size_seen_before(band: float) -> None:
    # Fresh film 193: a FINISH laid on the walk pile, the network cutting it at its checkered
    # banner into two halves, each of a card's shape taken sideways and filling its quad, so both
    # stood as cards in full view, read as nothing on every frame of its rest (the day's end was
    # told 4 s late). With the card size seen in earlier frames the two make one card again.
    top = _card_at(640, 360, 4.0)
    cards = [_card_at(636, 345, -3.0), top]
    image = cv2.cvtColor(_frame(cards), cv2.COLOR_GRAY2BGR)
    maps = _cut_pile_maps([], cards, band)
    config = DetectConfig(seg_zoom=1.0)
    apart = _detect_segmented(image, _MapsOf(maps), config, maps)  # type: ignore[arg-type]
    assert len(apart) == 2 and all(d.visible and _corner_error(top, d.quad.as_array()) > 50.0 for d in apart)
    found = _detect_segmented(image, _MapsOf(maps), config, maps, (90.0, 139.0))  # type: ignore[arg-type]
    assert len(found) == 1 and found[0].visible
    assert _corner_error(top, found[0].quad.as_array()) < 6.0


def test_two_strips_of_cards_side_by_side_are_not_taken_for_halves_of_one() -> None:
    # The strips of a row of cards lying over each other are pieces of a card's shape too; side
    # by side they make a piece wider than any card (its aspect out of a card's), and stay two.
    from vision.detect import SIDE_CARD_ASPECT, _halves_joined, _region_piece, _shoelace
    from vision.segment import CardRegion

    card = 90.0 * 139.0 * FACTOR**2
    masks, pieces = {}, []
    for x0 in (100, 100 + round(0.72 * 90 * FACTOR) + 1):
        mask = np.zeros((270, 480), np.uint8)
        mask[100:100 + round(139 * FACTOR), x0:x0 + round(0.72 * 90 * FACTOR)] = 255
        piece = _region_piece(CardRegion(mask, int(np.count_nonzero(mask)), 0.9))
        masks[id(piece)] = mask
        pieces.append(piece)
    both = pieces[0].quad.tolist() + pieces[1].quad.tolist()
    assert _card_aspect(np.array(cv2.boxPoints(cv2.minAreaRect(np.float32(both))))) > SIDE_CARD_ASPECT[1]
    whole = lambda p, fill: p.fill >= fill  # noqa: E731
    assert _halves_joined(pieces, masks, card, whole, DetectConfig()) == pieces
    # the same two pieces stacked end to end make one card's outline: joined
    stacked = []
    for y0 in (100, 100 + round(0.5 * 139 * FACTOR)):
        mask = np.zeros((270, 480), np.uint8)
        mask[y0:y0 + round(0.5 * 139 * FACTOR), 100:100 + round(90 * FACTOR)] = 255
        piece = _region_piece(CardRegion(mask, int(np.count_nonzero(mask)), 0.9))
        masks[id(piece)] = mask
        stacked.append(piece)
    joined = _halves_joined(stacked, masks, card, whole, DetectConfig())
    assert len(joined) == 1 and abs(abs(_shoelace(joined[0].quad)) / card - 1.0) < 0.1


def test_halves_whose_joined_piece_takes_in_the_edges_of_cards_below_are_joined() -> None:
    # Fresh film 200: W14 on the walk pile, cut at its row of plaster marks; its upper part takes
    # in the edges of the cards below sticking out at its sides and above it. Joined, the two
    # fill a little less of their quad than a card in full view does, and are one card still.
    from vision.detect import HALVES_FILL, _halves_joined, _region_piece
    from vision.segment import CardRegion

    w, h = 90 * FACTOR, 139 * FACTOR
    card = w * h
    x, y = 200.0, 100.0

    def region(rects: list[tuple[float, float, float, float]]):
        mask = np.zeros((270, 480), np.uint8)
        for x0, x1, y0, y1 in rects:
            mask[round(y0):round(y1), round(x0):round(x1)] = 255
        return _region_piece(CardRegion(mask, int(np.count_nonzero(mask)), 0.9)), mask

    upper, upper_mask = region([(x, x + w, y, y + h / 2),  # the top card's upper half
                                (x - 0.1 * w, x, y + 0.1 * h, y + 0.4 * h),  # the cards below it, at its sides
                                (x + w, x + 1.1 * w, y + 0.1 * h, y + 0.4 * h),
                                (x + 0.35 * w, x + 0.65 * w, y - 0.1 * h, y)])  # and above it
    lower, lower_mask = region([(x, x + w, y + h / 2, y + h)])
    masks = {id(upper): upper_mask, id(lower): lower_mask}
    joined = _halves_joined([upper, lower], masks, card, lambda p, fill: p.fill >= fill, DetectConfig())
    assert len(joined) == 1 and HALVES_FILL <= joined[0].fill < 0.9
    # a card in full view fills 0.9 of its quad: the two halves were left apart at that bar
    assert _halves_joined([upper, lower], masks, card, lambda p, fill: p.fill >= max(fill, 0.9), DetectConfig()) == [upper, lower]
