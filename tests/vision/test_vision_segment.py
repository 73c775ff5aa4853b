"""Tests of the learned card segmenter (vision.segment) and the detector path built on it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from samples.render.dataset import scene_seed
from samples.render.layouts import LayoutKind
from samples.render.scene import SceneConfig, render_scene
from samples.render.specs import CardKind, Game
from synth_cards import background, card_face, card_quad, paste_card
from vision.detect import DetectConfig, _complete_hidden, detect_cards
from vision.segment import INPUT_H, INPUT_W, MODEL_PATH, CardMaps, card_regions, letterbox, load_segmenter

# Scene seeds of set 3000 lie far above the training seeds (< 500000) and apart from the tuning
# sets (1000-1999) and the final report set (910000).
TEST_SET = 3000
SEGMENTER = DetectConfig(use_segmenter=True, seg_max_unsure=1.0)
"""The segmenter path itself (no fallback to the classical path for unfamiliar frames)."""


def test_model_file_is_shipped_and_small() -> None:
    assert MODEL_PATH.is_file()
    assert MODEL_PATH.stat().st_size < 2 * 1024 * 1024


def test_model_runs_with_cv2_dnn_and_gives_probabilities() -> None:
    net = cv2.dnn.readNetFromONNX(str(MODEL_PATH))
    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, (INPUT_H, INPUT_W, 3), dtype=np.uint8)
    net.setInput(cv2.dnn.blobFromImage(image, 1 / 255))
    prob = net.forward()
    assert prob.shape == (1, 3, INPUT_H, INPUT_W)
    assert prob.min() >= 0.0 and prob.max() <= 1.0
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, atol=1e-4)


def test_segmenter_marks_a_card_on_a_table() -> None:
    img = background("dark", 960, 540)
    quad = card_quad((480, 270), 250, 20)
    paste_card(img, quad, card_face())
    maps = load_segmenter().maps(img)
    assert maps.interior.shape == (270, 480)  # 960x540 scaled by 0.5 into the 480x368 canvas
    f = maps.factor
    cx, cy = (np.round(quad.mean(axis=0) * f)).astype(int)
    assert maps.interior[cy, cx] > 0.5  # centre of the card: interior is the most likely class
    assert maps.interior[5, 5] < 0.2 and maps.boundary[5, 5] < 0.2  # table in a corner


@pytest.mark.parametrize(("size", "canvas_size", "expected"), [
    ((640, 480), (320, 240), (320, 240)),
    ((1280, 720), (320, 240), (320, 180)),
    ((600, 800), (320, 240), (180, 240)),
    ((1280, 720), (INPUT_W, INPUT_H), (480, 270)),
    ((640, 480), (INPUT_W, INPUT_H), (480, 360)),
])
def test_letterbox_keeps_aspect_and_pads(size: tuple[int, int], canvas_size: tuple[int, int],
                                         expected: tuple[int, int]) -> None:
    image = np.full((size[1], size[0], 3), 200, np.uint8)
    canvas, factor = letterbox(image, canvas_size)
    assert canvas.shape == (canvas_size[1], canvas_size[0], 3)
    w, h = expected
    assert round(size[0] * factor) == w and round(size[1] * factor) == h
    assert (canvas[:h, :w] == 200).all()
    assert (canvas[h:, :] == 0).all() and (canvas[:, w:] == 0).all()


def test_letterbox_of_a_frame_far_taller_than_wide_keeps_a_pixel_column() -> None:
    """A 39 x 60102 frame (a decoder's odd answer to a damaged file) scales its width below half a
    pixel: the canvas still gets one column of it instead of OpenCV refusing a zero size."""
    image = np.full((60102, 39, 3), 200, np.uint8)
    canvas, _ = letterbox(image)
    assert canvas.shape == (INPUT_H, INPUT_W, 3)
    assert (canvas[:, :1] == 200).all() and (canvas[:, 1:] == 0).all()


def test_maps_of_a_frame_far_taller_than_wide_keep_a_pixel_column() -> None:
    """The maps keep that column too (a 32 x 33794 frame from a damaged GIF gave maps 0 pixels wide,
    and OpenCV's labelling of the regions refused them): regions and detection run on them."""
    image = np.full((33794, 32, 3), 180, np.uint8)
    segmenter = load_segmenter()
    assert segmenter is not None
    maps = segmenter.maps(image)
    assert maps.interior.shape == (INPUT_H, 1)
    assert all(r.mask.shape == (INPUT_H, 1) for r in card_regions(maps))
    assert all(np.isfinite(d.quad.as_array()).all() for d in detect_cards(image))


def _maps_from_classes(classes: np.ndarray) -> CardMaps:
    interior = (classes == 1).astype(np.float32)
    boundary = (classes == 2).astype(np.float32)
    return CardMaps(interior, boundary, 1.0)


def test_regions_are_split_by_the_boundary_band() -> None:
    classes = np.zeros((60, 100), np.uint8)
    classes[10:50, 10:45] = 1
    classes[10:50, 46:80] = 1
    classes[10:50, 44:47] = 2  # the line between two touching cards
    regions = card_regions(_maps_from_classes(classes))
    assert len(regions) == 2
    left, right = sorted(regions, key=lambda r: np.argwhere(r.mask)[:, 1].mean())
    # Each region grew one pixel into the band: the two masks meet but do not swallow each other.
    assert np.argwhere(left.mask)[:, 1].max() == 44
    assert np.argwhere(right.mask)[:, 1].min() == 46
    assert all(r.score == pytest.approx(1.0) for r in regions)


def test_tiny_specks_are_not_regions() -> None:
    classes = np.zeros((40, 40), np.uint8)
    classes[5:7, 5:7] = 1
    assert card_regions(_maps_from_classes(classes)) == []


@pytest.mark.parametrize("covered_end", ["left", "right"])
def test_hidden_card_is_extended_under_the_card_on_top(covered_end: str) -> None:
    # A 40x60 card (long side horizontal here) of which only 36 px of the length are seen; the
    # card lying on top of the rest is to the left or right.
    cardish = np.zeros((100, 200), np.float32)
    if covered_end == "left":
        cardish[20:60, 40:76] = 1.0  # seen part
        cardish[10:70, 10:40] = 1.0  # card on top
        want_x = (16.0, 75.0)
    else:
        cardish[20:60, 100:136] = 1.0
        cardish[10:70, 136:170] = 1.0
        want_x = (100.0, 159.0)
    x0 = 40 if covered_end == "left" else 100
    contour = np.array([[x0, 20], [x0 + 35, 20], [x0 + 35, 59], [x0, 59]], np.float32)
    rect = cv2.minAreaRect(contour)
    quad = _complete_hidden(rect, cardish, (39.0, 59.0))
    assert quad is not None
    xs = sorted(quad[:, 0])
    assert xs[0] == pytest.approx(want_x[0], abs=1.0) and xs[-1] == pytest.approx(want_x[1], abs=1.0)


def test_piece_with_nothing_beside_it_is_not_extended() -> None:
    cardish = np.zeros((100, 200), np.float32)
    cardish[20:60, 40:76] = 1.0
    contour = np.array([[40, 20], [75, 20], [75, 59], [40, 59]], np.float32)
    assert _complete_hidden(cv2.minAreaRect(contour), cardish, (39.0, 59.0)) is None


@pytest.mark.parametrize("bg", ["noise", "pattern"])
def test_a_frame_unlike_the_training_goes_to_the_classical_detector(bg: str) -> None:
    # the test helper's "pattern" cloth is not one of the renderer's tables, and the network
    # shipped since session 10 is unsure about a fifth of it
    if bg == "noise":
        rng = np.random.default_rng(4)
        img = cv2.GaussianBlur(rng.integers(0, 256, (540, 960, 3), dtype=np.uint8), (3, 3), 0)
    else:
        img = background(bg, 960, 540)
    paste_card(img, card_quad((480, 270), 250, 10), card_face())
    default = DetectConfig()
    assert load_segmenter().maps(img).unsure_share() > default.seg_max_unsure
    classical = DetectConfig(use_segmenter=False)
    assert detect_cards(img, default) == detect_cards(img, classical)


@pytest.mark.parametrize("bg", ["light", "dark", "wood", "cloth"])
def test_a_familiar_frame_stays_with_the_segmenter(bg: str) -> None:
    img = background(bg, 960, 540)
    paste_card(img, card_quad((480, 270), 250, 10), card_face())
    assert load_segmenter().maps(img).unsure_share() < DetectConfig().seg_max_unsure
    assert detect_cards(img, DetectConfig()) == detect_cards(img, SEGMENTER)


def test_missing_model_falls_back_to_the_classical_detector(tmp_path: Path) -> None:
    img = background("wood", 960, 540)
    paste_card(img, card_quad((480, 270), 250, 10), card_face())
    missing = DetectConfig(use_segmenter=True, segmenter_path=tmp_path / "none.onnx")
    classical = DetectConfig(use_segmenter=False)
    assert detect_cards(img, missing) == detect_cards(img, classical)


def _corner_error(truth: np.ndarray, found: np.ndarray) -> float:
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))


@pytest.mark.parametrize(("index", "game", "layout"), [
    (4, Game.APPIA, LayoutKind.SCATTERED),
    (5, Game.VALAIS, LayoutKind.TOUCHING),
])
def test_rendered_scene_cards_found_with_small_corner_error(index: int, game: Game, layout: LayoutKind) -> None:
    config = SceneConfig(resolution=(1280, 720), layout=layout, hands=0, degrade=False, tilt_deg=15.0)
    scene = render_scene(scene_seed(TEST_SET, index), game, config)
    dets = detect_cards(scene.image, SEGMENTER)
    cards = [c for c in scene.truth.cards if c.spec.kind is not CardKind.TILE]
    whole = [c for c in cards if c.visible_fraction >= 0.99]
    assert whole
    for card in whole:
        truth = np.array(card.corners)
        error = min(_corner_error(truth, d.quad.as_array()) for d in dets)
        # within 3% of the card's long side at the worst corner (the corner a touching card
        # meets is the hardest; the median over rendered sets is about 4.6 px)
        long_side = max(np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1))
        assert error < 0.03 * long_side, f"card {card.spec.id}: best corner error {error:.1f} px of {long_side:.0f}"
    # Every detection lies on a card (no false cards on the table).
    for det in dets:
        centre = det.quad.as_array().mean(axis=0)
        assert any(cv2.pointPolygonTest(np.array(c.corners, np.float32), tuple(map(float, centre)), False) >= 0
                   for c in cards)


@pytest.mark.parametrize("bg", ["light", "dark", "wood", "pattern", "cloth"])
def test_empty_table_gives_no_segmented_cards(bg: str) -> None:
    assert detect_cards(background(bg, seed=11), SEGMENTER) == []


def _found_whole_cards(scene, config: DetectConfig) -> tuple[int, int]:
    from companion.evaluation import greedy_match, quad_iou

    dets = detect_cards(scene.image, config)
    cards = [c for c in scene.truth.cards if c.spec.kind is not CardKind.TILE and c.visible_fraction > 0.97]
    scores = np.array([[quad_iou(np.array(c.corners), d.quad.as_array()) for d in dets] for c in cards])
    return len(greedy_match(scores, 0.7)), len(cards)


@pytest.mark.parametrize(("index", "game"), [(27, Game.VALAIS)])
def test_two_cards_touching_along_their_long_sides_are_split(index: int, game: Game) -> None:
    """Side by side, two cards make a region of a card's shape and twice its area; the closer
    look splits it (without it, such a pair comes out as one card). The network shipped since
    session 10 separates most such pairs itself: of 30 TOUCHING test scenes per game, this is
    the one that still needs the split."""
    config = SceneConfig(resolution=(1280, 720), layout=LayoutKind.TOUCHING, hands=0, degrade=False, tilt_deg=15.0)
    scene = render_scene(scene_seed(TEST_SET, index), game, config)
    found, total = _found_whole_cards(scene, DetectConfig())
    assert total >= 4 and found == total
    unsplit, _ = _found_whole_cards(scene, DetectConfig(seg_split_area=100.0))
    assert unsplit <= total - 1
