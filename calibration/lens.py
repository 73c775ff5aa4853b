"""Lens calibration from a printed board, and fast undistortion of frames.

Boards (``BoardSpec.parse``):

* ``chessboard:COLSxROWS:SQUAREmm``: COLS x ROWS *inner* corners (OpenCV's convention), so
  ``chessboard:9x6:25mm`` is a board of 10 x 7 squares of 25 mm.
* ``charuco:COLSxROWS:SQUAREmm:MARKERmm[:DICT]``: COLS x ROWS *squares*, ArUco markers of
  MARKER mm in the white squares, dictionary ``4x4_50`` unless given. Works when part of the
  board is out of view.

The lens model is OpenCV's (k1, k2, p1, p2, k3). :class:`Undistorter` precomputes the remap
tables once, so undistorting a frame is a single ``cv2.remap``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.images import to_gray
from calibration.markers import ArucoDictionary

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


class BoardKind(Enum):
    CHESSBOARD = "chessboard"
    CHARUCO = "charuco"


_MM = r"(\d+(?:\.\d+)?)\s*(?:mm)?"
_BOARD_RE = re.compile(rf"^(chessboard|charuco):(\d+)x(\d+):{_MM}(?::{_MM})?(?::([\w]+))?$", re.IGNORECASE)


@dataclass(frozen=True)
class BoardSpec:
    """A calibration board. For a chessboard ``cols``/``rows`` count inner corners; for ChArUco, squares."""

    kind: BoardKind
    cols: int
    rows: int
    square_mm: float
    marker_mm: float = 0.0
    dictionary: ArucoDictionary = ArucoDictionary.D4X4_50

    def __post_init__(self) -> None:
        low = 2 if self.kind is BoardKind.CHESSBOARD else 3
        if self.cols < low or self.rows < low:
            raise CalibrationError(f"a {self.kind.value} needs at least {low}x{low}, got {self.cols}x{self.rows}")
        if self.square_mm <= 0:
            raise CalibrationError(f"square size must be positive, got {self.square_mm} mm")
        if self.kind is BoardKind.CHARUCO and not (0 < self.marker_mm < self.square_mm):
            raise CalibrationError(
                f"a ChArUco marker must be smaller than its square ({self.square_mm} mm), got {self.marker_mm} mm"
            )

    @classmethod
    def parse(cls, text: str) -> BoardSpec:
        m = _BOARD_RE.match(text.strip())
        if not m:
            raise CalibrationError(
                "expected a board like chessboard:9x6:25mm or charuco:7x5:30mm:22mm[:4x4_50], "
                f"got {text!r}"
            )
        kind = BoardKind(m.group(1).lower())
        cols, rows, square = int(m.group(2)), int(m.group(3)), float(m.group(4))
        if kind is BoardKind.CHESSBOARD:
            if m.group(5) or m.group(6):
                raise CalibrationError(f"a chessboard takes COLSxROWS:SQUAREmm only, got {text!r}")
            return cls(kind, cols, rows, square)
        if not m.group(5):
            raise CalibrationError(f"a ChArUco board needs its marker size (charuco:7x5:30mm:22mm), got {text!r}")
        dictionary = ArucoDictionary.parse(m.group(6)) if m.group(6) else ArucoDictionary.D4X4_50
        return cls(kind, cols, rows, square, float(m.group(5)), dictionary)

    def __str__(self) -> str:
        if self.kind is BoardKind.CHESSBOARD:
            return f"chessboard:{self.cols}x{self.rows}:{self.square_mm:g}mm"
        return f"charuco:{self.cols}x{self.rows}:{self.square_mm:g}mm:{self.marker_mm:g}mm:{self.dictionary.value}"

    @property
    def squares(self) -> tuple[int, int]:
        """Number of squares across and down."""
        if self.kind is BoardKind.CHESSBOARD:
            return self.cols + 1, self.rows + 1
        return self.cols, self.rows

    @property
    def size_mm(self) -> tuple[float, float]:
        sx, sy = self.squares
        return sx * self.square_mm, sy * self.square_mm

    def corner_grid_mm(self) -> np.ndarray:
        """Inner corners as a (rows, cols, 2) grid in board millimetres (origin: board's top-left)."""
        ix, iy = self.squares[0] - 1, self.squares[1] - 1
        xs, ys = np.meshgrid(np.arange(1, ix + 1), np.arange(1, iy + 1))
        return np.stack([xs, ys], axis=-1).astype(np.float64) * self.square_mm

    def charuco(self) -> "cv2.aruco.CharucoBoard":
        return cv2.aruco.CharucoBoard((self.cols, self.rows), self.square_mm, self.marker_mm, self.dictionary.cv())

    def render(self, px_per_mm: float, margin_mm: float = 10.0) -> np.ndarray:
        """The board as a gray image with a white margin; board origin at (margin, margin) mm."""
        sx, sy = self.squares
        board_w, board_h = round(sx * self.square_mm * px_per_mm), round(sy * self.square_mm * px_per_mm)
        margin = round(margin_mm * px_per_mm)
        if self.kind is BoardKind.CHARUCO:
            inner = self.charuco().generateImage((board_w, board_h), marginSize=0, borderBits=1)
        else:
            inner = np.full((board_h, board_w), 255, np.uint8)
            edges_x = np.round(np.arange(sx + 1) * self.square_mm * px_per_mm).astype(int)
            edges_y = np.round(np.arange(sy + 1) * self.square_mm * px_per_mm).astype(int)
            for j in range(sy):
                for i in range(sx):
                    if (i + j) % 2 == 0:
                        inner[edges_y[j]:edges_y[j + 1], edges_x[i]:edges_x[i + 1]] = 0
        return cv2.copyMakeBorder(inner, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=255)


@dataclass(frozen=True)
class BoardView:
    """Board corners found in one image: pixels (N, 2) and board millimetres (N, 2), same order.

    ``grid`` is True when every inner corner was found, in row-major order (rows of ``cols``).
    """

    image_points: tuple[tuple[float, float], ...]
    board_points: tuple[tuple[float, float], ...]
    grid: bool

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.image_points, np.float64), np.asarray(self.board_points, np.float64)


def find_board(image: np.ndarray, spec: BoardSpec) -> BoardView | None:
    """Find the board's inner corners with sub-pixel accuracy; None when it is not (enough) in view."""
    gray = to_gray(image)
    if spec.kind is BoardKind.CHESSBOARD:
        flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_ACCURACY
        ok, corners = cv2.findChessboardCornersSB(gray, (spec.cols, spec.rows), flags=flags)
        if not ok or corners is None:
            return None
        pts = corners.reshape(-1, 2).astype(np.float64)
        # A plain chessboard may be found from either end (it looks the same turned by half a
        # turn); the order is consistent within a view, which is all calibration needs.
        grid = spec.corner_grid_mm().reshape(-1, 2)
        return BoardView(_tuples(pts), _tuples(grid), True)
    detector = cv2.aruco.CharucoDetector(spec.charuco())
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < 6:
        return None
    ids = ids.ravel()
    obj = np.asarray(spec.charuco().getChessboardCorners(), np.float64)[ids, :2]
    img = corners.reshape(-1, 2).astype(np.float64)
    total = (spec.cols - 1) * (spec.rows - 1)
    order = np.argsort(ids)
    return BoardView(_tuples(img[order]), _tuples(obj[order]), len(ids) == total)


def _tuples(arr: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in arr.reshape(-1, 2))


@dataclass(frozen=True)
class LensCalibration:
    """Intrinsics and distortion of one camera at one resolution."""

    image_width: int
    image_height: int
    camera_matrix: Matrix3
    dist_coeffs: tuple[float, ...]
    rms_px: float
    views: int
    board: str

    def __post_init__(self) -> None:
        if self.image_width <= 0 or self.image_height <= 0:
            raise CalibrationError(f"image size must be positive, got {self.image_width} x {self.image_height}")
        k = np.asarray(self.camera_matrix, np.float64)
        if k.shape != (3, 3) or not np.all(np.isfinite(k)) or k[0, 0] <= 0 or k[1, 1] <= 0:
            raise CalibrationError(f"expected a camera matrix with positive focal lengths, got {self.camera_matrix!r}")
        if len(self.dist_coeffs) not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(self.dist_coeffs)):
            raise CalibrationError(f"expected 4, 5, 8, 12 or 14 finite distortion coefficients, got {self.dist_coeffs!r}")

    @property
    def k(self) -> np.ndarray:
        return np.asarray(self.camera_matrix, np.float64)

    @property
    def d(self) -> np.ndarray:
        return np.asarray(self.dist_coeffs, np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "image_size": [self.image_width, self.image_height],
            "camera_matrix": [list(r) for r in self.camera_matrix],
            "dist_coeffs": list(self.dist_coeffs),
            "rms_px": self.rms_px,
            "views": self.views,
            "board": self.board,
        }

    @classmethod
    def from_json(cls, data: Any) -> LensCalibration:
        if not isinstance(data, dict):
            raise CalibrationError(f"expected the lens calibration as an object, got {type(data).__name__}")
        try:
            w, h = (int(v) for v in data["image_size"])
            k = tuple(tuple(float(v) for v in row) for row in data["camera_matrix"])
            if len(k) != 3 or any(len(r) != 3 for r in k):
                raise ValueError(f"camera_matrix must be 3x3, got {data['camera_matrix']!r}")
            return cls(w, h, k, tuple(float(v) for v in data["dist_coeffs"]),  # type: ignore[arg-type]
                       float(data["rms_px"]), int(data["views"]), str(data["board"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                "expected lens calibration fields image_size, camera_matrix (3x3), dist_coeffs, rms_px, "
                f"views, board; got an invalid entry ({type(exc).__name__}: {exc})"
            ) from None


def calibrate_lens(
    images: Iterable[np.ndarray], spec: BoardSpec, min_views: int = 4, fit_k3: bool = False
) -> tuple[LensCalibration, list[BoardView]]:
    """Calibrate from frames showing the board in different poses.

    Frames where the board is not found are skipped. Returns the calibration and the views used.
    By default k3 is held at 0 (k1, k2, p1, p2 only): with few views a free k3 tends to fit the
    noise and makes the model fold over near the frame corners. ``fit_k3`` frees it for strong
    wide-angle lenses.
    """
    views: list[BoardView] = []
    size: tuple[int, int] | None = None
    seen = 0
    for image in images:
        seen += 1
        here = (int(image.shape[1]), int(image.shape[0]))
        if size is None:
            size = here
        elif here != size:
            raise CalibrationError(f"expected every calibration frame at {size[0]}x{size[1]}, got one at {here[0]}x{here[1]}")
        view = find_board(image, spec)
        if view is not None:
            views.append(view)
    if size is None:
        raise CalibrationError("expected calibration frames, got none")
    if len(views) < min_views:
        raise CalibrationError(
            f"expected the board {spec} in at least {min_views} frames, found it in {len(views)} of {seen}; "
            "check the board description (inner corners for a chessboard) and show the whole board"
        )
    obj = [np.hstack([v.arrays()[1], np.zeros((len(v.image_points), 1))]).astype(np.float32) for v in views]
    img = [v.arrays()[0].astype(np.float32).reshape(-1, 1, 2) for v in views]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-10)
    flags = 0 if fit_k3 else cv2.CALIB_FIX_K3
    rms, k, d, _, _ = cv2.calibrateCamera(obj, img, size, None, None, flags=flags, criteria=criteria)
    if not np.isfinite(rms):
        raise CalibrationError(f"expected a finite calibration from {len(views)} views, the solver diverged")
    k = np.asarray(k, np.float64)
    lens = LensCalibration(size[0], size[1], tuple(tuple(float(v) for v in r) for r in k),  # type: ignore[arg-type]
                           tuple(float(v) for v in np.ravel(d)), float(rms), len(views), str(spec))
    return lens, views


class Undistorter:
    """Undistorts frames of one calibrated camera with precomputed remap tables.

    ``alpha`` chooses the output view as in ``cv2.getOptimalNewCameraMatrix``: 0 keeps only
    valid pixels (crops the edges), 1 keeps every source pixel (black corners). The default 1
    keeps cards at the frame edges. Output frames have the calibration's size.
    """

    def __init__(self, lens: LensCalibration, alpha: float = 1.0) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise CalibrationError(f"alpha must be in [0, 1], got {alpha}")
        self.lens = lens
        size = (lens.image_width, lens.image_height)
        new_k, _ = cv2.getOptimalNewCameraMatrix(lens.k, lens.d, size, alpha, size)
        self.new_camera_matrix: np.ndarray = np.asarray(new_k, np.float64)
        self._map1, self._map2 = cv2.initUndistortRectifyMap(lens.k, lens.d, None, self.new_camera_matrix, size, cv2.CV_16SC2)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """Undistort a frame of the calibrated size (any channel count)."""
        h, w = frame.shape[:2]
        if (w, h) != (self.lens.image_width, self.lens.image_height):
            raise CalibrationError(
                f"expected a frame of {self.lens.image_width}x{self.lens.image_height} (the lens calibration's size), got {w}x{h}"
            )
        return cv2.remap(frame, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def undistort_points(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Raw-frame pixels (N, 2) -> pixels of the undistorted frame."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
        out = cv2.undistortPoints(pts, self.lens.k, self.lens.d, P=self.new_camera_matrix, criteria=crit)
        return out.reshape(-1, 2)

    def distort_points(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Pixels of the undistorted frame (N, 2) -> raw-frame pixels (e.g. to draw on the raw video)."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        rays = np.hstack([pts, np.ones((len(pts), 1))]) @ np.linalg.inv(self.new_camera_matrix).T
        out, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.lens.k, self.lens.d)
        return out.reshape(-1, 2)


def max_line_deviation(grid: np.ndarray) -> float:
    """Largest distance (pixels) of a point from the straight line fitted to its row or column.

    ``grid`` is (rows, cols, 2): board corners that are collinear on the physical board. Lines are
    total-least-squares fits.
    """
    g = np.asarray(grid, np.float64)
    if g.ndim != 3 or g.shape[2] != 2 or min(g.shape[:2]) < 2:
        raise CalibrationError(f"expected a (rows, cols, 2) corner grid, got shape {g.shape}")
    worst = 0.0
    lines = [g[r] for r in range(g.shape[0])] + [g[:, c] for c in range(g.shape[1])]
    for line in lines:
        if len(line) < 3:
            continue
        centred = line - line.mean(axis=0)
        _, _, vt = np.linalg.svd(centred)
        worst = max(worst, float(np.abs(centred @ vt[1]).max()))
    return worst
