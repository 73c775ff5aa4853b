"""Rendered scenes with known geometry, for tests and for measuring calibration accuracy.

* :func:`marker_scene`: the marker sheet lying on a textured table, seen by a tilted pinhole
  camera, with blur and sensor noise. Returns the true table-mm -> pixel homography.
* :func:`distorted_board_view`: a calibration board seen from a pose through a lens with known
  OpenCV distortion coefficients.

Everything is drawn in plane millimetres first and then warped, so perspective is exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import MarkerSheet, render_sheet


@dataclass(frozen=True)
class Pose:
    """A camera looking at a table point.

    ``tilt_deg``: angle between the optical axis and the table normal; ``yaw_deg``: direction it
    looks from; ``roll_deg``: turn about the optical axis; ``distance_mm``: camera to target.
    """

    tilt_deg: float
    yaw_deg: float
    roll_deg: float
    distance_mm: float
    target_mm: tuple[float, float]


def camera_matrix(width: int, height: int, focal_px: float) -> np.ndarray:
    return np.array([[focal_px, 0, width / 2], [0, focal_px, height / 2], [0, 0, 1]], np.float64)


def pose_rt(pose: Pose) -> tuple[np.ndarray, np.ndarray]:
    """World -> camera rotation and translation. Table z points into the table (away from the camera)."""
    def rz(a: float) -> np.ndarray:
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])

    t = math.radians(pose.tilt_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    r = rz(math.radians(pose.roll_deg)) @ rx @ rz(math.radians(pose.yaw_deg))
    target = np.array([pose.target_mm[0], pose.target_mm[1], 0.0])
    # The camera sits on the optical axis, distance_mm before the target.
    centre = target - r.T @ np.array([0.0, 0.0, pose.distance_mm])
    return r, -r @ centre


def plane_homography(k: np.ndarray, pose: Pose) -> np.ndarray:
    """Table-plane millimetres (x, y, 0) -> pinhole pixels."""
    r, t = pose_rt(pose)
    h = k @ np.column_stack([r[:, 0], r[:, 1], t])
    return h / h[2, 2]


def table_texture(size_mm: tuple[float, float], px_per_mm: float, seed: int) -> np.ndarray:
    """A wood-like BGR surface: stretched low-frequency grain plus fine noise."""
    rng = np.random.default_rng(seed)
    w, h = round(size_mm[0] * px_per_mm), round(size_mm[1] * px_per_mm)
    coarse = rng.normal(0, 1, (max(2, h // 40), max(2, w // 4))).astype(np.float32)
    grain = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
    shade = 0.55 + 0.08 * np.tanh(grain) + 0.03 * fine
    base = np.array([70, 120, 170], np.float32) / 255.0  # brown in BGR
    return np.clip(shade[..., None] * base[None, None, :] * 255 * 1.3, 0, 255).astype(np.uint8)


def _pixels_to_mm(px_per_mm: float, x0_mm: float, y0_mm: float) -> np.ndarray:
    """Raster pixel centres -> plane millimetres for a raster whose top-left edge is at (x0, y0) mm.

    Pixel i covers [i, i+1) / px_per_mm, so its centre is at (i + 0.5) / px_per_mm.
    """
    return np.array([[1 / px_per_mm, 0, x0_mm + 0.5 / px_per_mm], [0, 1 / px_per_mm, y0_mm + 0.5 / px_per_mm], [0, 0, 1]])


def _warp(src: np.ndarray, src_to_dst: np.ndarray, size: tuple[int, int], supersample: int, border: int) -> np.ndarray:
    """Warp with supersampling (render big, shrink with area averaging) to avoid aliasing.

    Pixel-centre conventions are kept exact: big pixel U shows final position (U + 0.5) / s - 0.5.
    """
    s = float(supersample)
    up = np.array([[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1]])
    big = cv2.warpPerspective(src, up @ src_to_dst, (size[0] * supersample, size[1] * supersample),
                              flags=cv2.INTER_LINEAR, borderMode=border, borderValue=0)
    return cv2.resize(big, size, interpolation=cv2.INTER_AREA)


def marker_scene(
    sheet: MarkerSheet,
    pose: Pose,
    size: tuple[int, int] = (1280, 720),
    focal_px: float = 1000.0,
    blur_sigma: float = 0.8,
    noise_sigma: float = 3.0,
    seed: int = 0,
    table_mm: tuple[float, float] = (1200.0, 900.0),
    px_per_mm: float = 4.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Render the sheet on a table; returns (BGR image, true table-mm -> pixel homography).

    The table extends ``table_mm`` around the sheet, centred on it; the table frame is the
    sheet's frame (origin at its top-left corner).
    """
    k = camera_matrix(size[0], size[1], focal_px)
    h_true = plane_homography(k, pose)
    # Table texture centred on the sheet; it is mirrored beyond its edges.
    ox = (table_mm[0] - sheet.width_mm) / 2
    oy = (table_mm[1] - sheet.height_mm) / 2
    table = table_texture(table_mm, px_per_mm, seed)
    img = _warp(table, h_true @ _pixels_to_mm(px_per_mm, -ox, -oy), size, 2, cv2.BORDER_REFLECT)
    # The sheet is warped on its own with a coverage mask, so it appears exactly once.
    paper = cv2.cvtColor(render_sheet(sheet, dpi=px_per_mm * 25.4, caption=True), cv2.COLOR_GRAY2BGR)
    paper = (paper.astype(np.float32) * 0.92).astype(np.uint8)
    sheet_h = h_true @ _pixels_to_mm(px_per_mm, 0.0, 0.0)
    paper_px = _warp(paper, sheet_h, size, 2, cv2.BORDER_CONSTANT).astype(np.float32)
    cover = _warp(np.full(paper.shape[:2], 255, np.uint8), sheet_h, size, 2, cv2.BORDER_CONSTANT)
    alpha = (cover.astype(np.float32) / 255.0)[..., None]
    # paper_px is already weighted by coverage (its border is black), so it is added as is.
    img = np.clip(img.astype(np.float32) * (1 - alpha) + paper_px, 0, 255).astype(np.uint8)
    img = _degrade(img, blur_sigma, noise_sigma, seed)
    return img, h_true


def _degrade(img: np.ndarray, blur_sigma: float, noise_sigma: float, seed: int) -> np.ndarray:
    out = img.astype(np.float32)
    if blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur_sigma)
    if noise_sigma > 0:
        out += np.random.default_rng(seed + 1).normal(0, noise_sigma, out.shape).astype(np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def distortion_source_map(k: np.ndarray, dist: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """For every pixel of the distorted image, the pinhole (undistorted) pixel it shows: (H, W, 2)."""
    w, h = size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xs, ys], axis=-1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12)
    und = cv2.undistortPoints(pts, k, dist, P=k, criteria=crit)
    return und.reshape(h, w, 2)


def distorted_board_view(
    board_img: np.ndarray,
    board_px_per_mm: float,
    board_origin_mm: float,
    k: np.ndarray,
    source_map: np.ndarray,
    pose: Pose,
    blur_sigma: float = 0.6,
    noise_sigma: float = 2.0,
    seed: int = 0,
    supersample: bool = True,
) -> np.ndarray:
    """A gray view of a flat board through a distorting lens.

    ``board_img`` is the printed board (gray) at ``board_px_per_mm`` whose board frame starts at
    ``board_origin_mm`` (its white margin); ``source_map`` comes from :func:`distortion_source_map`.
    The background beyond the board is mid-gray.
    """
    h_plane = plane_homography(k, pose)  # board mm -> pinhole px
    shift = board_origin_mm * board_px_per_mm - 0.5  # board raster pixel centres
    mm_to_board_px = np.array([[board_px_per_mm, 0, shift], [0, board_px_per_mm, shift], [0, 0, 1]])
    pin_to_board = mm_to_board_px @ np.linalg.inv(h_plane)
    hh, ww = source_map.shape[:2]
    # Supersampling: each output pixel averages 4 sub-positions in the distorted image.
    offsets = [(dx, dy) for dy in (-0.25, 0.25) for dx in (-0.25, 0.25)] if supersample else [(0.0, 0.0)]
    acc = np.zeros((hh, ww), np.float32)
    for dx, dy in offsets:
        src = _shifted(source_map, dx, dy) if (dx, dy) != (0.0, 0.0) else source_map
        flat = src.reshape(-1, 2)
        homo = np.hstack([flat, np.ones((len(flat), 1))]) @ pin_to_board.T
        bxy = (homo[:, :2] / homo[:, 2:3]).reshape(hh, ww, 2).astype(np.float32)
        acc += cv2.remap(board_img, bxy[..., 0], bxy[..., 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=128).astype(np.float32)
    img = (acc / len(offsets)).astype(np.uint8)
    return _degrade(img, blur_sigma, noise_sigma, seed)


def _shifted(source_map: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The source map at a sub-pixel offset, by linear interpolation of the map itself."""
    hh, ww = source_map.shape[:2]
    xs, ys = np.meshgrid(np.arange(ww, dtype=np.float32) + dx, np.arange(hh, dtype=np.float32) + dy)
    return cv2.remap(source_map.astype(np.float32), xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
