"""Accuracy figures for table and lens calibration on rendered scenes with known truth.

    python -m calibration.measure [--out DIR]

Table: the A4 marker sheet on a wood table at 1280x720, tilts 0..40 degrees, several
directions, blur and noise; error = largest distance (mm) between true table points and where
the estimated homography puts their true image points, over the sheet and over a 600 x 600 mm
area centred on it. Lens: a 9x6 chessboard through a barrel lens (k1=-0.38, k2=0.14) at
640x480 from 9 poses; straightness = largest deviation (px) of board corners from lines fitted
to each row and column, on the raw views and re-detected on the undistorted views.
Prints one JSON object; with ``--out`` the rendered scenes are saved as PNGs there.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.lens import BoardSpec, Undistorter, calibrate_lens, find_board, max_line_deviation
from calibration.markers import DEFAULT_SHEET
from calibration.synthetic import Pose, camera_matrix, distorted_board_view, distortion_source_map, marker_scene
from calibration.table import calibrate_from_markers


def _grid_error(h_est: Any, h_true: np.ndarray, lo: tuple[float, float], hi: tuple[float, float]) -> float:
    xs, ys = np.meshgrid(np.linspace(lo[0], hi[0], 25), np.linspace(lo[1], hi[1], 25))
    mm = np.stack([xs.ravel(), ys.ravel()], axis=1)
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    return float(np.linalg.norm(h_est.to_table(px) - mm, axis=1).max())


def measure_table(out: Path | None) -> dict[str, Any]:
    rows = []
    for i, (tilt, yaw, blur) in enumerate([(t, y, b) for t in (0, 20, 30, 40) for y in (0, 120, 250) for b in (0.8, 1.5)]):
        if tilt == 0 and yaw != 0:
            continue
        pose = Pose(tilt, yaw, 3.0 * i, 900.0, (105.0, 148.0))
        image, h_true = marker_scene(DEFAULT_SHEET, pose, blur_sigma=blur, noise_sigma=4.0, seed=i)
        if out:
            cv2.imwrite(str(out / f"table_t{tilt}_y{yaw}_b{blur}.png"), image)
        t0 = time.perf_counter()
        geo = calibrate_from_markers(image, DEFAULT_SHEET)
        ms = (time.perf_counter() - t0) * 1000
        rows.append({
            "tilt_deg": tilt, "yaw_deg": yaw, "blur_sigma": blur, "points": geo.points_used,
            "fit_rms_mm": round(geo.residual_mm, 3),
            "max_err_sheet_mm": round(_grid_error(geo, h_true, (0, 0), (210, 297)), 3),
            "max_err_600mm_mm": round(_grid_error(geo, h_true, (-195, -152), (405, 448)), 3),
            "calibrate_ms": round(ms, 1),
        })
    return {"scenes": rows,
            "worst_sheet_mm": max(r["max_err_sheet_mm"] for r in rows),
            "worst_600mm_mm": max(r["max_err_600mm_mm"] for r in rows)}


def measure_lens(out: Path | None) -> dict[str, Any]:
    spec = BoardSpec.parse("chessboard:9x6:25mm")
    size, ppm, margin = (640, 480), 4.0, 12.0
    k, d = camera_matrix(size[0], size[1], 520.0), np.array([-0.38, 0.14, 0.0, 0.0, 0.0])
    board, smap = spec.render(ppm, margin), distortion_source_map(k, d, size)
    bw, bh = spec.size_mm
    c, dist = (bw / 2, bh / 2), 300.0
    poses = [Pose(0, 0, 0, dist, c), Pose(30, 0, 5, dist * 1.1, c), Pose(30, 90, -5, dist * 1.1, c),
             Pose(35, 200, 10, dist * 1.13, c), Pose(25, 300, 0, dist * 1.03, c)]
    poses += [Pose(15, 90 * i + 20, 10, dist * 1.25, (bw * fx, bh * fy))
              for i, (fx, fy) in enumerate([(0.2, 0.25), (0.8, 0.25), (0.8, 0.75), (0.2, 0.75)])]
    views = [distorted_board_view(board, ppm, margin, k, smap, p, seed=i) for i, p in enumerate(poses)]
    lens, _ = calibrate_lens(views, spec)
    undistort = Undistorter(lens)
    rows = []
    for i, image in enumerate(views):
        raw = find_board(image, spec)
        if raw is None:
            rows.append({"view": i, "found": False})
            continue
        t0 = time.perf_counter()
        fixed_img = undistort(image)
        ms = (time.perf_counter() - t0) * 1000
        fixed = find_board(fixed_img, spec)
        if out:
            cv2.imwrite(str(out / f"lens_view{i}.png"), np.hstack([image, fixed_img]))
        grid = (spec.rows, spec.cols, 2)
        rows.append({
            "view": i, "found": True,
            "raw_max_dev_px": round(max_line_deviation(np.asarray(raw.image_points).reshape(grid)), 3),
            "undistorted_max_dev_px": None if fixed is None else
            round(max_line_deviation(np.asarray(fixed.image_points).reshape(grid)), 3),
            "undistort_ms": round(ms, 2),
        })
    found = [r for r in rows if r["found"] and r["undistorted_max_dev_px"] is not None]
    return {
        "true": {"f_px": 520.0, "k1": -0.38, "k2": 0.14},
        "fitted": {"f_px": round(lens.k[0, 0], 2), "cx": round(lens.k[0, 2], 2), "cy": round(lens.k[1, 2], 2),
                   "dist": [round(v, 4) for v in lens.dist_coeffs], "rms_px": round(lens.rms_px, 3), "views": lens.views},
        "views": rows,
        "worst_raw_px": max(r["raw_max_dev_px"] for r in found),
        "worst_undistorted_px": max(r["undistorted_max_dev_px"] for r in found),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="directory for the rendered PNGs")
    args = parser.parse_args()
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"table": measure_table(out), "lens": measure_lens(out)}, indent=1))


if __name__ == "__main__":
    main()
