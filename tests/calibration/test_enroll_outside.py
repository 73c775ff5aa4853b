"""Round 11 of enrollment accuracy: the part of a crop cut from beyond the image's edge counts as
hidden, so a card running out of the frame is not named as a card with fewer blisters."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.deck import DeckGame, DeckMatcher, enroll
from calibration.errors import CalibrationError
from calibration.features import GRID_H, GRID_W, describe, outside_cells, quarter_turn_mask, rotate_180
from tests.calibration.test_enroll_accuracy import H, W, seen, slate
from tests.calibration.test_enroll_slots import DECK
from vision.rectify import RectifyConfig, outside_mask, rectify
from vision.types import Quad

CROP = RectifyConfig(W, H)


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in DECK]))


def _cut_off(identity: str, seed: int, cut: int) -> tuple[np.ndarray, np.ndarray]:
    """The crop of ``identity`` lying in a frame whose right edge cuts off its last ``cut`` pixel
    columns (the blister column), and the crop's outside mask."""
    card = seen(slate(next(lab for lab in DECK if lab.identity == identity)), seed)
    x0, y0 = 30, 40
    frame = np.full((H + 80, x0 + W - cut, 3), (40, 60, 50), np.uint8)
    frame[y0:y0 + H, x0:] = card[:, :W - cut]
    quad = Quad.from_array([[x0, y0], [x0 + W - 1, y0], [x0 + W - 1, y0 + H - 1], [x0, y0 + H - 1]])
    return rectify(frame, quad, CROP), outside_mask(frame.shape[:2], quad, CROP)


def test_outside_cells_follow_the_mask_and_turn_with_the_descriptor():
    crop, outside = _cut_off("W12", 0, 60)
    cells = outside_cells(outside, outside.shape).reshape(GRID_H, GRID_W)
    # The last 60 of 240 columns (less the cut border) are the two right grid columns.
    assert cells[:, -2:].all() and not cells[:, :-2].any()
    q = describe(crop, outside)
    assert q.outside is not None and (q.outside.reshape(GRID_H, GRID_W) == cells).all()
    assert (rotate_180(q).outside.reshape(GRID_H, GRID_W) == cells[::-1, ::-1]).all()
    assert describe(crop, np.zeros_like(outside)).outside is None
    # Turned a quarter clockwise, the right side becomes the bottom.
    turned = quarter_turn_mask(outside)
    assert turned.shape == outside.shape and turned[-40:].all() and not turned[:H // 2].any()
    with pytest.raises(CalibrationError, match="outside mask"):
        describe(crop, outside[:, :10])


def test_a_card_running_out_of_the_image_is_not_named_with_fewer_blisters(matcher):
    label = next(lab for lab in DECK if lab.identity == "W44")  # five blisters
    cuts = [_cut_off("W44", s, 60) for s in range(3)]
    told = [matcher.match(crop, outside) for crop, outside in cuts]
    for m in told:
        assert m is None or (m.value, m.blisters) == (label.value, label.blisters), m
    assert any(m is not None for m in told)
    # Without the mask the repeated edge reads as blank blister slots: a card with fewer blisters.
    blind = [matcher.match(crop) for crop, _ in cuts]
    assert any(m is not None and m.blisters is not None and m.blisters < label.blisters for m in blind)


def test_outside_cells_are_hidden_cells(matcher):
    crop, outside = _cut_off("W44", 1, 60)
    q = describe(crop, outside)
    _, out, _ = matcher._dist(q)
    assert out[q.outside].all()
    # A card in full view has no outside mask and is read as before.
    whole = seen(slate(next(lab for lab in DECK if lab.identity == "W44")), 1)
    m = matcher.match(whole, np.zeros(whole.shape[:2], bool))
    assert m is not None and m.identity == "W44"
