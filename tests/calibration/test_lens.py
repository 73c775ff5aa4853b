"""Lens calibration on rendered views of a chessboard through a lens with known distortion."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.lens import BoardKind, BoardSpec, LensCalibration, Undistorter, calibrate_lens, find_board, max_line_deviation
from calibration.synthetic import Pose, camera_matrix, distorted_board_view, distortion_source_map

SPEC = BoardSpec.parse("chessboard:9x6:25mm")
SIZE = (400, 300)
K_TRUE = camera_matrix(SIZE[0], SIZE[1], 330.0)
D_TRUE = np.array([-0.38, 0.14, 0.0, 0.0, 0.0])  # barrel
PPM, MARGIN = 2.5, 12.0


def _grid(view) -> np.ndarray:
    return np.asarray(view.image_points).reshape(SPEC.rows, SPEC.cols, 2)


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    board = SPEC.render(PPM, MARGIN)
    smap = distortion_source_map(K_TRUE, D_TRUE, SIZE)
    bw, bh = SPEC.size_mm
    c, d = (bw / 2, bh / 2), 305.0
    poses = [Pose(0, 0, 0, d, c), Pose(30, 0, 5, d * 1.1, c), Pose(30, 90, -5, d * 1.1, c),
             Pose(35, 200, 10, d * 1.13, c), Pose(25, 300, 0, d * 1.03, c)]
    # boards pushed towards the frame corners, so the model is fitted out to the edges
    poses += [Pose(15, 90 * i + 20, 10, d * 1.25, (bw * fx, bh * fy))
              for i, (fx, fy) in enumerate([(0.2, 0.25), (0.8, 0.25), (0.8, 0.75), (0.2, 0.75)])]
    return [distorted_board_view(board, PPM, MARGIN, K_TRUE, smap, p, seed=i, supersample=False)
            for i, p in enumerate(poses)]


@pytest.fixture(scope="module")
def lens(views) -> LensCalibration:
    return calibrate_lens(views, SPEC)[0]


def test_calibration_recovers_intrinsics(lens):
    assert lens.views >= 6
    assert lens.rms_px < 0.5
    assert lens.k[0, 0] == pytest.approx(330.0, rel=0.03)
    assert lens.k[0, 2] == pytest.approx(200.0, abs=5)
    assert lens.d[0] < -0.25  # barrel recognised


def test_undistorted_edges_are_straight(views, lens):
    undistort = Undistorter(lens)
    before, after = [], []
    for image in views:
        raw = find_board(image, SPEC)
        if raw is None:  # board partly out of view
            continue
        before.append(max_line_deviation(_grid(raw)))
        fixed = find_board(undistort(image), SPEC)
        assert fixed is not None
        after.append(max_line_deviation(_grid(fixed)))
    assert max(before) > 1.2, "the rendered lens must bend the board's lines visibly"
    assert max(after) <= 1.0
    assert np.mean(after) < np.mean(before) / 3


def test_point_mapping_round_trip(lens):
    undistort = Undistorter(lens)
    pts = np.array([[10.0, 10.0], [200.0, 150.0], [390.0, 290.0]])
    assert np.allclose(undistort.distort_points(undistort.undistort_points(pts)), pts, atol=0.01)


def test_undistorter_rejects_other_frame_size(lens):
    with pytest.raises(CalibrationError, match=r"expected a frame of 400x300 .* got 640x480"):
        Undistorter(lens)(np.zeros((480, 640, 3), np.uint8))


def test_too_few_views_is_a_clear_error(views):
    blank = [np.full_like(views[0], 128)] * 3 + views[:1]
    with pytest.raises(CalibrationError, match=r"at least 4 frames, found it in 1 of 4"):
        calibrate_lens(blank, SPEC)


def test_lens_json_round_trip(lens):
    assert LensCalibration.from_json(json.loads(json.dumps(lens.to_json()))) == lens


@pytest.mark.parametrize(
    "text, kind, cols, rows, square, marker",
    [("chessboard:9x6:25mm", BoardKind.CHESSBOARD, 9, 6, 25.0, 0.0),
     ("charuco:7x5:30mm:22mm", BoardKind.CHARUCO, 7, 5, 30.0, 22.0),
     ("CHARUCO:5x4:40:30:5x5_50", BoardKind.CHARUCO, 5, 4, 40.0, 30.0)],
)
def test_board_spec_parse(text, kind, cols, rows, square, marker):
    spec = BoardSpec.parse(text)
    assert (spec.kind, spec.cols, spec.rows, spec.square_mm, spec.marker_mm) == (kind, cols, rows, square, marker)
    assert BoardSpec.parse(str(spec)) == spec


@pytest.mark.parametrize("text", ["chessboard:9x6", "charuco:7x5:30mm", "charuco:7x5:30mm:40mm", "chessboard:1x6:25mm",
                                  "chessboard:9x6:25mm:10mm", "circles:4x11:20mm"])
def test_board_spec_rejects(text):
    with pytest.raises(CalibrationError):
        BoardSpec.parse(text)


def test_charuco_board_found_on_its_own_rendering():
    spec = BoardSpec.parse("charuco:5x4:30mm:22mm")
    view = find_board(spec.render(px_per_mm=3.0, margin_mm=10.0), spec)
    assert view is not None and view.grid
    img, board = view.arrays()
    # board mm -> image px is a pure scale + offset on the flat rendering
    assert np.allclose(img, (board + 10.0) * 3.0 - 0.5, atol=0.6)


def test_max_line_deviation_measures_bend():
    xs, ys = np.meshgrid(np.arange(5.0), np.arange(4.0))
    grid = np.stack([xs * 10, ys * 10], axis=-1)
    assert max_line_deviation(grid) == pytest.approx(0.0, abs=1e-9)
    bent = grid.copy()
    bent[1, 2, 1] += 3.0  # push one middle point of row 1 down by 3 px
    assert 1.5 < max_line_deviation(bent) <= 3.0
