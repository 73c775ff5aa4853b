"""Detector tests on synthetic scenes with known corners."""

from __future__ import annotations


import numpy as np
import pytest

from synth_cards import background, card_face, card_quad, corner_error, paste_card
from vision.detect import DetectConfig, detect_cards
from vision.errors import InvalidImageError


def _scene(bg: str, quads: list[np.ndarray], seed: int = 0, colour=(250, 250, 250)) -> np.ndarray:
    img = background(bg, seed=seed)
    for i, q in enumerate(quads):
        paste_card(img, q, card_face(colour, seed=seed + i))
    return img


@pytest.mark.parametrize(
    "bg, angle, tilt",
    [
        ("dark", 0, 0),
        ("dark", 33, 0),
        ("light", 90, 0),
        ("wood", 17, 0),
        ("wood", 128, 25),
        ("pattern", 62, 0),
        ("pattern", 5, 40),
        ("cloth", 21, 0),
        ("dark", 75, 40),
        ("light", 160, 35),
    ],
)
def test_single_card_corners_within_3px(bg: str, angle: float, tilt: float) -> None:
    truth = card_quad((640, 360), 330, angle, tilt)
    dets = detect_cards(_scene(bg, [truth]))
    assert len(dets) == 1, [d.quad.to_json() for d in dets]
    assert dets[0].visible
    assert corner_error(dets[0].quad.as_array(), truth) < 3.0


def test_coloured_card_on_light_table() -> None:
    truth = card_quad((500, 380), 300, 12)
    dets = detect_cards(_scene("light", [truth], colour=(60, 140, 230)))
    assert len(dets) == 1
    assert corner_error(dets[0].quad.as_array(), truth) < 3.0


@pytest.mark.parametrize("bg", ["dark", "wood", "cloth"])
def test_touching_cards_are_split(bg: str) -> None:
    h = 300
    w = h * 250 / 360
    left = card_quad((640 - w / 2, 360), h, 0)
    right = card_quad((640 + w / 2, 360), h, 0)
    dets = detect_cards(_scene(bg, [left, right], seed=3))
    assert len(dets) == 2, [d.quad.to_json() for d in dets]
    errors = sorted(min(corner_error(d.quad.as_array(), t) for t in (left, right)) for d in dets)
    assert errors[-1] < 3.0


def test_several_cards_at_various_angles() -> None:
    truths = [card_quad((250, 250), 260, 10), card_quad((640, 380), 260, -35), card_quad((1030, 330), 260, 95, 20)]
    dets = detect_cards(_scene("wood", truths, seed=5))
    assert len(dets) == 3
    for t in truths:
        assert min(corner_error(d.quad.as_array(), t) for d in dets) < 3.0


@pytest.mark.parametrize("bg", ["light", "dark", "wood", "pattern", "cloth"])
def test_empty_table_has_no_detections(bg: str) -> None:
    assert detect_cards(background(bg, seed=11)) == []


def test_card_cut_by_border_is_not_visible() -> None:
    truth = card_quad((80, 360), 330, 0)
    dets = detect_cards(_scene("dark", [truth]))
    assert dets, "a card half outside the frame should still be reported"
    assert all(not d.visible for d in dets)


def test_grayscale_input_is_accepted() -> None:
    truth = card_quad((640, 360), 330, 20)
    gray = _scene("dark", [truth])[:, :, 1].copy()
    dets = detect_cards(gray)
    assert len(dets) == 1


@pytest.mark.parametrize(
    "bad, expected",
    [
        (np.zeros((720, 1280, 3), np.float32), "uint8"),
        (np.zeros((10, 10, 3), np.uint8), "32x32"),
        (np.zeros((720, 1280, 2), np.uint8), "shape"),
        ([[1, 2], [3, 4]], "numpy"),
    ],
)
def test_bad_input_is_refused(bad, expected: str) -> None:
    with pytest.raises(InvalidImageError, match=expected):
        detect_cards(bad)


def test_config_min_area_filters_small_cards() -> None:
    truth = card_quad((640, 360), 120, 0)
    img = _scene("dark", [truth])
    assert len(detect_cards(img)) == 1
    assert detect_cards(img, DetectConfig(min_area_frac=0.05)) == []
