"""Marker sheet, table homography and its fallbacks, on rendered scenes with known truth."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.markers import DEFAULT_SHEET, detect_markers, read_sheet, render_sheet, write_sheet
from calibration.synthetic import Pose, marker_scene
from calibration.table import (
    GLADIOLA_CARD,
    CalibrationSource,
    TableGeometry,
    calibrate_from_card,
    calibrate_from_markers,
    calibrate_from_points,
    parse_card_size,
)

SHEET = DEFAULT_SHEET


def _grid_error_mm(geo: TableGeometry, h_true: np.ndarray, x: tuple[float, float], y: tuple[float, float]) -> float:
    """Largest table error (mm) over a grid of true table points seen through the true homography."""
    xs, ys = np.meshgrid(np.linspace(*x, 12), np.linspace(*y, 12))
    mm = np.stack([xs.ravel(), ys.ravel()], axis=1)
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    return float(np.linalg.norm(geo.to_table(px) - mm, axis=1).max())


def _scene(tilt: float, yaw: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return marker_scene(SHEET, Pose(tilt, yaw, 4.0, 700.0, (105.0, 148.0)), size=(640, 480), focal_px=620.0,
                        blur_sigma=0.8, noise_sigma=3.0, seed=seed, table_mm=(700.0, 600.0), px_per_mm=2.0)


def test_sheet_written_and_redetected(tmp_path):
    image_path, layout_path = write_sheet(SHEET, tmp_path / "sheet.png", dpi=100)
    assert read_sheet(layout_path) == SHEET
    printed = cv2.imread(str(image_path), cv2.IMREAD_GRAYSCALE)
    assert printed.shape == (round(297 / 25.4 * 100), round(210 / 25.4 * 100))
    found = detect_markers(printed, SHEET.dictionary)
    assert [d.marker_id for d in found] == [0, 1, 2, 3]
    scale = 100 / 25.4
    for d in found:
        # rendered corners sit on pixel edges: centre convention is -0.5 px
        expected = SHEET.marker(d.marker_id).corners_mm() * scale - 0.5
        assert np.abs(np.asarray(d.corners_px) - expected).max() < 1.0


@pytest.mark.parametrize("tilt, yaw", [(0.0, 0.0), (25.0, 70.0), (40.0, -30.0), (40.0, 160.0)])
def test_homography_error_within_1mm_on_tilted_scene(tilt, yaw):
    image, h_true = _scene(tilt, yaw, seed=int(tilt + yaw))
    geo = calibrate_from_markers(image, SHEET)
    assert geo.source is CalibrationSource.MARKERS
    assert geo.points_used == 16
    assert _grid_error_mm(geo, h_true, (0, 210), (0, 297)) <= 1.0
    # and the inverse mapping agrees with the truth in pixels
    truth_px = cv2.perspectiveTransform(np.array([[[105.0, 148.0]]]), h_true).reshape(2)
    assert np.linalg.norm(geo.to_image([[105.0, 148.0]])[0] - truth_px) < 1.0


def test_too_few_markers_is_a_clear_error():
    image, _ = _scene(20.0, 0.0)
    blank = np.full_like(image, 120)
    with pytest.raises(CalibrationError, match=r"expected at least 2 of the sheet's markers .* found 0"):
        calibrate_from_markers(blank, SHEET)


def test_four_point_fallback_recovers_truth():
    image, h_true = _scene(35.0, 20.0)
    rect_mm = np.array([[0, 0], [210, 0], [210, 297], [0, 297]], float)
    corners_px = cv2.perspectiveTransform(rect_mm.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    geo = calibrate_from_points(corners_px, 210, 297, (image.shape[1], image.shape[0]))
    assert geo.source is CalibrationSource.POINTS
    assert _grid_error_mm(geo, h_true, (-100, 300), (-100, 400)) < 1e-3


@pytest.mark.parametrize(
    "points, message",
    [
        ([[0, 0], [0, 100], [100, 100], [100, 0]], "counter-clockwise"),
        ([[0, 0], [100, 100], [100, 0], [0, 100]], "crossed or concave"),
        ([[0, 0], [50, 0], [100, 0], [0, 100]], "on one line"),
        ([[0, 0], [100, 0], [100, 100]], "expected 4"),
    ],
)
def test_bad_points_are_rejected(points, message):
    with pytest.raises(CalibrationError, match=message):
        calibrate_from_points(points, 100, 100, (640, 480))


def test_card_size_fallback():
    _, h_true = _scene(30.0, 45.0)
    # a Via Gladiola card lying turned by 20 degrees at (300, 200) mm
    origin, a = np.array([300.0, 200.0]), np.radians(20)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    card_mm = GLADIOLA_CARD.corners_mm() @ rot.T + origin
    card_px = cv2.perspectiveTransform(card_mm.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    geo = calibrate_from_card(card_px, parse_card_size("gladiola"), (640, 480))
    assert geo.source is CalibrationSource.CARD
    # distances on the table are right (the frame is the card's own): the card's diagonal ...
    ends = geo.to_table(card_px[[0, 2]])
    assert np.linalg.norm(ends[1] - ends[0]) == pytest.approx(np.hypot(59, 91), abs=1e-3)
    # ... and a 100 mm step next to the card
    step_mm = np.array([origin + rot @ [0, 100], origin + rot @ [100, 100]])
    step_px = cv2.perspectiveTransform(step_mm.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    got = geo.to_table(step_px)
    assert np.linalg.norm(got[1] - got[0]) == pytest.approx(100, abs=0.01)
    # expected card size in pixels at the card's centre matches the true outline
    w_px, h_px = geo.card_size_px(GLADIOLA_CARD, card_px.mean(axis=0))
    assert h_px == pytest.approx(np.linalg.norm(card_px[3] - card_px[0]), rel=0.05)
    assert w_px == pytest.approx(np.linalg.norm(card_px[1] - card_px[0]), rel=0.05)


@pytest.mark.parametrize("text, size", [("gladiola", (59, 91)), ("appia", (56, 87)), ("91x59", (59, 91)),
                                        ("63.5x88mm", (63.5, 88))])
def test_parse_card_size(text, size):
    card = parse_card_size(text)
    assert (card.width_mm, card.height_mm) == size


@pytest.mark.parametrize("text", ["", "big", "0x5", "59x", "-3x4"])
def test_parse_card_size_rejects(text):
    with pytest.raises(CalibrationError, match="expected a card size"):
        parse_card_size(text)


def test_geometry_json_round_trip_and_rescale():
    image, h_true = _scene(20.0, 10.0)
    geo = calibrate_from_markers(image, SHEET)
    again = TableGeometry.from_json(json.loads(json.dumps(geo.to_json())))
    assert again == geo
    half = geo.with_image_size(320, 240)
    pt = np.array([[400.0, 300.0]])
    assert np.allclose(half.to_table(pt / 2), geo.to_table(pt))


def test_rendered_sheet_has_caption_clear_of_markers():
    plain = render_sheet(SHEET, dpi=50, caption=False)
    captioned = render_sheet(SHEET, dpi=50, caption=True)
    diff = np.argwhere(plain != captioned)
    assert len(diff) > 0
    s = 50 / 25.4
    for m in SHEET.markers:
        inside = ((diff[:, 1] >= m.x_mm * s - 1) & (diff[:, 1] <= (m.x_mm + m.size_mm) * s + 1)
                  & (diff[:, 0] >= m.y_mm * s - 1) & (diff[:, 0] <= (m.y_mm + m.size_mm) * s + 1))
        assert not inside.any()
