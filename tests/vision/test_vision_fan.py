"""The covered cards of a spread hand (vision.fan), found from a card in full view and read."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
import pytest

from samples.render.layouts import LayoutKind, Placement
from samples.render.scene import Scene, SceneConfig, render_scene
from samples.render.specs import CardKind, Game, Side, default_specs
from samples.render.tables import TableKind
from vision.deblur import MotionBlur
from vision.fan import FanCard, find_fans, overlap_share, quad_iou, read_fan_card
from vision.pipeline import CardReader, PipelineConfig
from vision.read.types import Deck
from vision.types import Quad

DECK = Deck.for_game("gladiola")
WALKS = {s.value: s for s in default_specs(Game.GLADIOLA) if s.kind is CardKind.WALK}


@lru_cache(maxsize=4)
def _hand(seed: int, table: TableKind = TableKind.WOOD) -> Scene:
    """A rendered spread hand, bending as a held hand does (seed 7: nine cards, each turned
    about 6 degrees against the one on it, every covered card showing 0.66-0.76 of itself)."""
    config = SceneConfig(resolution=(1280, 720), layout=LayoutKind.SPREAD_HAND, hands=0, glare=False,
                         degrade=False, tilt_deg=15.0, table=table)
    return render_scene(seed, Game.GLADIOLA, config)


def _matched(scene: Scene, observations) -> dict[str, object]:
    """Truth card id -> the observation lying on it (IoU 0.7 and more), for the cards in view
    at least half."""
    out = {}
    for card in scene.truth.cards:
        if card.visible_fraction < 0.5:
            continue
        near = [o for o in observations if quad_iou(np.array(card.corners), o.quad.as_array()) >= 0.7]
        if near:
            out[card.spec.id] = near[0]
    return out


def test_a_spread_hand_is_found_card_by_card_under_its_top_card() -> None:
    scene = _hand(7)
    required = [c for c in scene.truth.cards if c.visible_fraction >= 0.5]
    assert len(required) == 9
    plain = CardReader(PipelineConfig(deck=DECK)).read_frame(scene.image).observations
    fans = CardReader(PipelineConfig(deck=DECK, fans=True)).read_frame(scene.image).observations
    # the detector alone finds the top card only; under it, every covered card
    assert len(_matched(scene, plain)) <= 2
    found = _matched(scene, fans)
    assert set(found) == {c.spec.id for c in required}
    truth = {c.spec.id: c.spec for c in required}
    read = 0
    for cid, obs in found.items():
        if obs.value is not None:
            assert obs.value == truth[cid].value, cid
            read += 1
        if obs.blisters is not None:
            assert obs.blisters == truth[cid].blisters, cid
    assert read >= 6
    covered = [o for cid, o in found.items() if next(c for c in required if c.spec.id == cid).visible_fraction < 0.9]
    assert covered and not any(o.visible for o in covered)


@pytest.mark.parametrize("table", [TableKind.TABLECLOTH, TableKind.CLOTH_DARK])
def test_a_grid_of_whole_cards_gains_no_card(table: TableKind) -> None:
    specs = [WALKS[v] for v in (12, 23, 31, 45, 7, 19)]
    grid = tuple(Placement(s, Side.FRONT, (62.0 * (k % 3), 95.0 * (k // 3)), 8.0) for k, s in enumerate(specs))
    config = SceneConfig(resolution=(1280, 720), placements=grid, table=table, hands=0, glare=False, degrade=False,
                         tilt_deg=20.0, fill=0.7)
    image = render_scene(11, Game.GLADIOLA, config).image
    plain = CardReader(PipelineConfig(deck=DECK)).read_frame(image).observations
    fans = CardReader(PipelineConfig(deck=DECK, fans=True)).read_frame(image).observations
    assert [o.quad for o in fans] == [o.quad for o in plain]


def test_nothing_is_searched_without_a_card_in_view() -> None:
    assert find_fans(_hand(7).image, []) == []


@pytest.mark.parametrize(("below", "above"), [(39, 12), (28, 5)])
def test_a_strip_cut_before_its_first_digit_is_not_read_as_the_second(below: int, above: int) -> None:
    """A two-digit walk card under another, its strip's crop placed 7.5-9.5 mm into the card (a
    pose found that far off): the first digit is cut at the crop's side or gone, and the second,
    standing alone, must not be taken for a one-digit index."""
    placements = (Placement(WALKS[below], Side.FRONT, (0.0, 0.0), 0.0),
                  Placement(WALKS[above], Side.FRONT, (32.0, 0.0), 0.0, level=1))
    config = SceneConfig(resolution=(1280, 720), placements=placements, table=TableKind.WOOD, hands=0, glare=False,
                         degrade=False, tilt_deg=0.0, fill=0.5)
    scene = render_scene(3, Game.GLADIOLA, config)
    card, top = (np.array(c.corners, float) for c in scene.truth.cards)
    across = (card[1] - card[0]) / 59.0  # one millimetre along the card's width
    shown = 32.0  # (the top card's left side lies 2.5 mm right of the lower card's centre)
    whole = FanCard(Quad.from_array(card), (Quad.from_array(top),), shown, 1.0)
    assert read_fan_card(scene.image, whole, DECK).value == below
    for cut_mm in (7.5, 8.5, 9.5):
        shifted = FanCard(Quad.from_array(card + cut_mm * across), (Quad.from_array(top),), shown - cut_mm, 1.0)
        assert read_fan_card(scene.image, shifted, DECK).value in (None, below), cut_mm


def test_a_covered_card_keeps_its_plasters_uncounted() -> None:
    """Found to a millimetre or two, a covered card's strip is not counted (see read_fan_card)."""
    scene = _hand(7)
    fans = CardReader(PipelineConfig(deck=DECK, fans=True)).read_frame(scene.image).observations
    covered = [o for o in fans if not o.visible]
    assert len(covered) >= 7
    assert all(o.blisters is None and o.field_confidences.blisters == 0.0 for o in covered)


def test_overlap_measures() -> None:
    a = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    b = a + [5, 0]
    assert quad_iou(a, a) == pytest.approx(1.0)
    assert quad_iou(a, b) == pytest.approx(50 / 150)
    assert overlap_share(a, b) == pytest.approx(0.5)
    assert overlap_share(a, a + [20, 0]) == 0.0


def test_an_outline_taking_in_the_strip_below_still_starts_the_hand() -> None:
    """The detector may outline the top card together with the strip of the card under it (one
    card-shaped quad 1.5 cards wide): the card under it is found all the same, whole."""
    placements = (Placement(WALKS[23], Side.FRONT, (0.0, 0.0), 10.0),
                  Placement(WALKS[41], Side.FRONT, (-30.0 * np.cos(np.radians(10.0)), -30.0 * np.sin(np.radians(10.0))),
                            10.0, level=1))
    config = SceneConfig(resolution=(1280, 720), placements=placements, table=TableKind.FELT, hands=0, glare=False,
                         degrade=False, tilt_deg=10.0, fill=0.5)
    scene = render_scene(5, Game.GLADIOLA, config)
    below, top = (np.array(c.corners, float) for c in scene.truth.cards)
    # the top card's outline run on over the lower card's strip: one long side of the top card
    # replaced by the lower card's far long side (the larger of the two quads so made)
    options = []
    for side in ([0, 3], [1, 2]):
        merged = top.copy()
        merged[side] = below[side]
        options.append(merged)
    # (a third of a pixel off the top card's corners: OpenCV's polygon intersection, behind
    # quad_iou, miscounts outlines sharing a corner exactly)
    merged = max(options, key=lambda q: Quad.from_array(q).area) + 0.3
    assert Quad.from_array(merged).is_convex() and 0.55 < quad_iou(merged, top) < 0.75
    found = find_fans(scene.image, [Quad.from_array(merged)])
    assert any(quad_iou(below, c.quad.as_array()) >= 0.85 for c in found)
    assert all(quad_iou(top, c.quad.as_array()) < 0.5 for c in found)


def test_a_partly_hidden_start_looks_away_from_the_card_on_it() -> None:
    """From a card read partly hidden, the hand is not searched on the side where a card in full
    view lies on it (the card found there would be that card, taken for one under it)."""
    from vision.fan import _covered_on, _plane

    start = Quad.from_array(np.array([[100.0, 100.0], [159.0, 100.0], [159.0, 191.0], [100.0, 191.0]]))
    on_right = Quad.from_array(np.array([[130.0, 102.0], [189.0, 102.0], [189.0, 193.0], [130.0, 193.0]]))
    apart = Quad.from_array(np.array([[300.0, 100.0], [359.0, 100.0], [359.0, 191.0], [300.0, 191.0]]))
    plane = _plane(start)
    tops = [start, on_right, apart]
    assert _covered_on(plane, start, tops, [False, True, True], 1)
    assert not _covered_on(plane, start, tops, [False, True, True], -1)
    # (a card lying on it counts only when in full view; one apart from it never)
    assert not _covered_on(plane, start, tops, [False, False, True], 1)
    assert not _covered_on(plane, start, [start, apart], [False, True], 1)


def test_a_hand_smeared_by_motion_is_found_and_read_once_the_smear_is_taken_out() -> None:
    # a 9-pixel smear leaves the top card unread, so no hand is followed; with the smear taken
    # out (PipelineConfig.deblur) the top card is read, the hand followed under it and covered
    # strips read from the deblurred frame too, none wrongly
    scene = _hand(7)
    image = cv2.filter2D(scene.image, -1, MotionBlur(9.0, math.radians(150.0), 0.0).kernel(),
                         borderType=cv2.BORDER_REFLECT)
    plain = CardReader(PipelineConfig(deck=DECK, fans=True)).read_frame(image).observations
    assert len(_matched(scene, plain)) <= 3
    found = _matched(scene, CardReader(PipelineConfig(deck=DECK, fans=True, deblur=True)).read_frame(image).observations)
    assert len(found) >= 8
    truth = {c.spec.id: c.spec for c in scene.truth.cards}
    covered = [(cid, o) for cid, o in found.items() if not o.visible and o.value is not None]
    assert len(covered) >= 3
    assert all(o.value == truth[cid].value for cid, o in found.items() if o.value is not None)
