"""Tests of vision.hand: shown hands laid as an overlapping row, rendered like the sample films."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from companion.games.gladiola import load_deck
from samples.render.specs import Game
from samples.render.video import Hold, Move, VideoConfig, _Renderer, _Shown, plan_video
from vision.hand import HandInputError, read_hands
from vision.types import CardKind

SEED = 19  # the bundled film's game: its first shown hand (9 cards, a FINISH among walk cards)


@lru_cache(maxsize=1)
def _deck() -> dict[str, tuple[str, int | None, int]]:
    """Card id -> (kind, value, blisters) of the bundled deck."""
    return {c.id: (c.kind.value, c.value, c.blisters) for c in load_deck().cards}


@lru_cache(maxsize=2)
def _shown(seed: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """The calm frame after the first hand is laid out (as the film shows it), and its cards."""
    config = VideoConfig()
    plan = plan_video(Game.GLADIOLA, 3, seed, config)
    renderer = _Renderer(plan, config)
    for k, step in enumerate(plan.steps):
        if isinstance(step, Move) and step.reveal is not None:
            hold = plan.steps[k + 1]
            assert isinstance(hold, Hold)
            img = renderer.table_img.copy()
            renderer._draw_cards(img, [_Shown(p, 1.0, False) for p in hold.table])
            cards = next(c for p, c in plan.reveals if p == step.reveal)
            return renderer._finish(img, 0), cards
    raise AssertionError(f"seed {seed} shows no hand")


def _check(cards, truth: tuple[str, ...]) -> int:
    """Every card read agrees with the truth (abstaining is allowed); returns how many walk
    values were read."""
    walks = 0
    for card, cid in zip(cards, truth):
        kind, value, blisters = _deck()[cid]
        if card.kind is CardKind.UNKNOWN:
            continue
        assert card.kind.value == kind, (cid, card)
        if card.value is not None:
            assert card.value == value, (cid, card)
            walks += kind == "walk"
        if card.blisters is not None:
            assert card.blisters == blisters, (cid, card)
    return walks


def test_reads_a_shown_row_in_laying_order():
    image, truth = _shown(SEED)
    hands = read_hands(image)
    assert len(hands) == 1
    hand = hands[0]
    assert hand.count == len(truth)
    assert [c.whole for c in hand.cards] == [False] * (len(truth) - 1) + [True]
    assert _check(hand.cards, truth) >= len(truth) - 3
    top = hand.cards[-1]
    assert top.value == _deck()[truth[-1]][1] and top.shown_mm == pytest.approx(59.0)
    # the covered cards show strips of the renderer's step (34 mm), the quads lie left to right
    assert all(20 < c.shown_mm < 40 for c in hand.cards[:-1])
    xs = [c.quad.centroid[0] for c in hand.cards]
    assert xs == sorted(xs)


def test_a_row_turned_round_reads_the_same():
    image, truth = _shown(SEED)
    hands = read_hands(cv2.rotate(image, cv2.ROTATE_180))
    assert len(hands) == 1 and hands[0].count == len(truth)
    assert _check(hands[0].cards, truth) >= len(truth) - 3
    # the quads now run right to left in the image: the row's direction is not assumed
    xs = [c.quad.centroid[0] for c in hands[0].cards]
    assert xs == sorted(xs, reverse=True)


def test_no_row_on_an_empty_table():
    image, _ = _shown(SEED)
    table = np.full_like(image, tuple(int(v) for v in np.median(image.reshape(-1, 3), axis=0)))
    assert read_hands(table) == ()


@pytest.mark.parametrize("bad", [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8),
                                 np.zeros((100, 100, 3), np.float32), "frame.png"])
def test_bad_input_raises(bad):
    with pytest.raises(HandInputError, match="expected a BGR uint8 image"):
        read_hands(bad)


def test_a_shorter_line_beside_a_card_edge_is_not_its_outline():
    """A covered gladiola's stem a few mm left of the next card's edge: the edge starts at the
    card's outline (the long line), not at the stem."""
    from vision.hand import HandConfig, _edges

    config = HandConfig()
    profile = np.zeros(300, np.float32)
    slant = np.zeros(300, np.float32)
    profile[[40, 44]] = (0.84, 0.78)  # a card's outline and its printed border line
    profile[158] = 0.6                # a stem, 3 mm before the next card's edge
    profile[[170, 176]] = (0.83, 0.74)
    profile[280] = 0.8
    edges = _edges(profile, slant, config)
    assert [(e.lo, e.hi) for e in edges] == [(40.0, 44.0), (170.0, 176.0), (280.0, 280.0)]
    assert [e.x for e in edges] == [40.0, 170.0, 280.0]
