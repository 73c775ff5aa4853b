"""Table geometry: the homography between image pixels and table millimetres.

Three ways to get it, best first:

* :func:`calibrate_from_markers`: a printed marker sheet (:mod:`calibration.markers`) lies on
  the table; the table frame is the sheet's frame (origin at the sheet's top-left corner).
* :func:`calibrate_from_points`: four image points at the corners of a rectangle of known size
  (given on the command line or clicked on the dashboard); the origin is the first point.
* :func:`calibrate_from_card`: one detected card of known size; the origin is the card's
  top-left corner. Exact on the card, but errors grow quickly away from it (the card is small).

Image points are pixels (x right, y down) of the frame the calibration was made on; when a
lens calibration is in use they are pixels of the *undistorted* frame (``undistorted=True``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.markers import MarkerSheet, detect_markers, sheet_correspondences

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


@dataclass(frozen=True)
class CardSize:
    """Physical size of a card, portrait (width < height), in millimetres."""

    name: str
    width_mm: float
    height_mm: float

    def __post_init__(self) -> None:
        if not (0 < self.width_mm <= self.height_mm):
            raise CalibrationError(
                f"card size {self.name!r} must be positive and portrait (width <= height), "
                f"got {self.width_mm} x {self.height_mm} mm"
            )

    def corners_mm(self) -> np.ndarray:
        """Corners top-left, top-right, bottom-right, bottom-left with the origin at the top-left."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


# Sizes follow the rules files: Via Gladiola and Valais*Wallis use a common 59 x 91 mm size
# (assumed for Valais*Wallis), Via Appia's income cards are 56 x 87 mm.
GLADIOLA_CARD = CardSize("gladiola", 59.0, 91.0)
VALAIS_CARD = CardSize("valais", 59.0, 91.0)
APPIA_INCOME_CARD = CardSize("appia-income", 56.0, 87.0)
CARD_SIZES: tuple[CardSize, ...] = (GLADIOLA_CARD, VALAIS_CARD, APPIA_INCOME_CARD)

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*(?:mm)?\s*$", re.IGNORECASE)


def parse_card_size(text: str) -> CardSize:
    """A named card size (``gladiola``, ``valais``, ``appia-income``, ``appia``) or ``WxH`` in mm."""
    key = text.strip().lower()
    if key == "appia":
        return APPIA_INCOME_CARD
    for size in CARD_SIZES:
        if size.name == key:
            return size
    w, h = parse_size_mm(text, what="a card size")
    return CardSize(f"{w:g}x{h:g}", min(w, h), max(w, h))


def parse_size_mm(text: str, what: str = "a size") -> tuple[float, float]:
    """Parse ``"WxH"`` or ``"WxHmm"`` as (width, height) in millimetres."""
    m = _SIZE_RE.match(text)
    names = ", ".join(s.name for s in CARD_SIZES)
    if not m:
        raise CalibrationError(f"expected {what} as WIDTHxHEIGHT in mm (e.g. 59x91) or one of {names}, got {text!r}")
    w, h = float(m.group(1)), float(m.group(2))
    if w <= 0 or h <= 0:
        raise CalibrationError(f"expected {what} with positive sides, got {text!r}")
    return w, h


class CalibrationSource(Enum):
    """How a table calibration was obtained."""

    MARKERS = "markers"
    POINTS = "points"
    CARD = "card"


def _as_points(points: np.ndarray | Sequence[Sequence[float]], what: str) -> np.ndarray:
    arr = np.asarray(points, dtype=np.float64)
    if arr.ndim == 1 and arr.size % 2 == 0:
        arr = arr.reshape(-1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise CalibrationError(f"expected {what} as (x, y) pairs, got an array of shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise CalibrationError(f"expected finite {what}, got {arr.tolist()}")
    return arr


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    homo = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    w = homo[:, 2:3]
    if np.any(np.abs(w) < 1e-12):
        raise CalibrationError("a point maps to infinity (it lies on the horizon of the table plane)")
    return homo[:, :2] / w


def _matrix3(h: np.ndarray) -> Matrix3:
    h = h / h[2, 2]
    return tuple(tuple(float(v) for v in row) for row in h)  # type: ignore[return-value]


@dataclass(frozen=True)
class TableGeometry:
    """A calibrated mapping between the image of one camera set-up and table millimetres.

    ``image_to_table`` is the 3x3 homography (normalised so the last entry is 1).
    ``residual_mm`` / ``max_residual_mm``: RMS and largest distance, on the table, between the
    calibration points and where the homography puts them (0 for exact 4-point fits).
    """

    image_width: int
    image_height: int
    image_to_table: Matrix3
    source: CalibrationSource
    residual_mm: float = 0.0
    max_residual_mm: float = 0.0
    points_used: int = 4
    undistorted: bool = False
    sheet: MarkerSheet | None = None
    card: CardSize | None = None

    def __post_init__(self) -> None:
        if self.image_width <= 0 or self.image_height <= 0:
            raise CalibrationError(f"image size must be positive, got {self.image_width} x {self.image_height}")
        h = np.asarray(self.image_to_table, dtype=np.float64)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)):
            raise CalibrationError(f"expected a finite 3x3 homography, got {self.image_to_table!r}")
        if abs(np.linalg.det(h)) < 1e-15:
            raise CalibrationError("expected an invertible homography, got a singular matrix")

    @property
    def homography(self) -> np.ndarray:
        """Image pixels -> table millimetres (3x3 float64)."""
        return np.asarray(self.image_to_table, dtype=np.float64)

    @property
    def inverse(self) -> np.ndarray:
        """Table millimetres -> image pixels (3x3 float64)."""
        return np.linalg.inv(self.homography)

    def to_table(self, points_px: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Map image points (N, 2) to table millimetres (N, 2)."""
        return _apply(self.homography, _as_points(points_px, "image points"))

    def to_image(self, points_mm: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Map table millimetre points (N, 2) to image pixels (N, 2)."""
        return _apply(self.inverse, _as_points(points_mm, "table points"))

    def mm_per_pixel(self, point_px: Sequence[float]) -> float:
        """Local scale at an image point: millimetres per pixel (geometric mean of both axes)."""
        x, y = float(point_px[0]), float(point_px[1])
        d = 0.5
        pts = self.to_table([[x - d, y], [x + d, y], [x, y - d], [x, y + d]])
        jac = np.column_stack([pts[1] - pts[0], pts[3] - pts[2]])
        return math.sqrt(abs(float(np.linalg.det(jac))))

    def card_quad_px(self, card: CardSize, center_mm: Sequence[float], angle_deg: float = 0.0) -> np.ndarray:
        """Where a card lying at ``center_mm`` and turned by ``angle_deg`` appears: (4, 2) pixels.

        Corners are top-left first, clockwise (as for ``vision.Quad``).
        """
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = card.corners_mm() - [card.width_mm / 2, card.height_mm / 2]
        return self.to_image(local @ rot.T + np.asarray(center_mm, dtype=np.float64))

    def card_size_px(self, card: CardSize, at_px: Sequence[float]) -> tuple[float, float]:
        """Approximate (width, height) in pixels of an upright card whose centre is at ``at_px``."""
        centre = self.to_table([at_px])[0]
        quad = self.card_quad_px(card, centre)
        width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
        height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
        return float(width), float(height)

    def with_image_size(self, width: int, height: int) -> TableGeometry:
        """The same calibration for frames scaled to ``width`` x ``height`` pixels."""
        sx, sy = self.image_width / width, self.image_height / height
        scale = np.diag([sx, sy, 1.0])
        return replace(self, image_width=width, image_height=height, image_to_table=_matrix3(self.homography @ scale))

    def to_json(self) -> dict[str, Any]:
        return {
            "image_size": [self.image_width, self.image_height],
            "image_to_table": [list(row) for row in self.image_to_table],
            "source": self.source.value,
            "residual_mm": self.residual_mm,
            "max_residual_mm": self.max_residual_mm,
            "points_used": self.points_used,
            "undistorted": self.undistorted,
            "sheet": self.sheet.to_json() if self.sheet else None,
            "card": None if self.card is None else
            {"name": self.card.name, "width_mm": self.card.width_mm, "height_mm": self.card.height_mm},
        }

    @classmethod
    def from_json(cls, data: Any) -> TableGeometry:
        if not isinstance(data, dict):
            raise CalibrationError(f"expected the table calibration as an object, got {type(data).__name__}")
        try:
            w, h = (int(v) for v in data["image_size"])
            matrix = tuple(tuple(float(v) for v in row) for row in data["image_to_table"])
            if len(matrix) != 3 or any(len(row) != 3 for row in matrix):
                raise ValueError(f"image_to_table must be 3x3, got {data['image_to_table']!r}")
            source = CalibrationSource(data["source"])
            sheet = MarkerSheet.from_json(data["sheet"]) if data.get("sheet") else None
            card_data = data.get("card")
            card = (CardSize(str(card_data["name"]), float(card_data["width_mm"]), float(card_data["height_mm"]))
                    if card_data else None)
            return cls(
                w, h, matrix, source,  # type: ignore[arg-type]
                residual_mm=float(data.get("residual_mm", 0.0)),
                max_residual_mm=float(data.get("max_residual_mm", 0.0)),
                points_used=int(data.get("points_used", 4)),
                undistorted=bool(data.get("undistorted", False)),
                sheet=sheet,
                card=card,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                "expected table calibration fields image_size [w, h], image_to_table (3x3), source "
                f"({', '.join(s.value for s in CalibrationSource)}), got an invalid entry ({type(exc).__name__}: {exc})"
            ) from None


def _residuals(h: np.ndarray, img: np.ndarray, mm: np.ndarray) -> tuple[float, float]:
    err = np.linalg.norm(_apply(h, img) - mm, axis=1)
    return float(np.sqrt(np.mean(err**2))), float(err.max())


def _image_size(image: np.ndarray) -> tuple[int, int]:
    if image.ndim not in (2, 3) or image.shape[0] == 0 or image.shape[1] == 0:
        raise CalibrationError(f"expected a non-empty image, got an array of shape {image.shape}")
    return int(image.shape[1]), int(image.shape[0])


def calibrate_from_markers(
    image: np.ndarray, sheet: MarkerSheet, min_markers: int = 2, undistorted: bool = False
) -> TableGeometry:
    """Find the sheet's markers and fit the image -> sheet-millimetre homography.

    Needs at least ``min_markers`` distinct markers of the sheet (each gives 4 corners). The
    fit is a RANSAC pass (3 mm) followed by a least-squares fit on the inliers.
    """
    width, height = _image_size(image)
    detections = detect_markers(image, sheet.dictionary)
    img_pts, mm_pts, used = sheet_correspondences(detections, sheet)
    wanted = [m.marker_id for m in sheet.markers]
    if len(used) < max(1, min_markers):
        seen = [d.marker_id for d in detections]
        raise CalibrationError(
            f"expected at least {max(1, min_markers)} of the sheet's markers (ids {wanted}, dictionary "
            f"{sheet.dictionary.value}) in the image, found {len(used)}"
            + (f" (ids seen: {seen})" if seen else "")
            + "; is the whole sheet in view, flat and lit evenly?"
        )
    h, mask = cv2.findHomography(img_pts, mm_pts, cv2.RANSAC, 3.0) if len(used) >= 2 else (None, None)
    if h is not None and mask is not None and int(mask.sum()) >= 8:
        keep = mask.ravel().astype(bool)
        img_pts, mm_pts = img_pts[keep], mm_pts[keep]
    h, _ = cv2.findHomography(img_pts, mm_pts, 0)
    if h is None:
        raise CalibrationError(f"expected a homography from {len(img_pts)} marker corners, but the fit failed (degenerate points)")
    rms, worst = _residuals(h, img_pts, mm_pts)
    return TableGeometry(width, height, _matrix3(h), CalibrationSource.MARKERS, rms, worst, len(img_pts),
                         undistorted, sheet=sheet)


def _check_quad(pts: np.ndarray, what: str) -> None:
    if pts.shape != (4, 2):
        raise CalibrationError(f"expected 4 {what} (8 numbers), got {len(pts)} points")
    edges = np.roll(pts, -1, axis=0) - pts
    nxt = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    scale = float(np.max(np.linalg.norm(edges, axis=1))) ** 2
    if np.any(np.abs(cross) < 1e-6 * max(scale, 1e-12)):
        raise CalibrationError(f"expected 4 {what} forming a quadrilateral, got three (or more) on one line: {pts.tolist()}")
    if np.all(cross < 0):
        raise CalibrationError(
            f"expected the 4 {what} clockwise on screen (top-left, top-right, bottom-right, bottom-left), "
            f"got them counter-clockwise: {pts.tolist()}"
        )
    if not np.all(cross > 0):
        raise CalibrationError(f"expected 4 {what} going round a convex quadrilateral, got a crossed or concave shape: {pts.tolist()}")


def calibrate_from_points(
    points_px: np.ndarray | Sequence[Sequence[float]],
    width_mm: float,
    height_mm: float,
    image_size: tuple[int, int],
    undistorted: bool = False,
) -> TableGeometry:
    """Homography from the image corners of a ``width_mm`` x ``height_mm`` rectangle on the table.

    Points go clockwise on screen from the rectangle's top-left; the table origin is that point,
    x runs towards the second point and y towards the fourth.
    """
    pts = _as_points(points_px, "rectangle corners")
    _check_quad(pts, "rectangle corners")
    if width_mm <= 0 or height_mm <= 0:
        raise CalibrationError(f"expected a rectangle with positive sides, got {width_mm} x {height_mm} mm")
    mm = np.array([[0, 0], [width_mm, 0], [width_mm, height_mm], [0, height_mm]], dtype=np.float64)
    h = cv2.getPerspectiveTransform(pts.astype(np.float32), mm.astype(np.float32))
    return TableGeometry(image_size[0], image_size[1], _matrix3(h), CalibrationSource.POINTS, 0.0, 0.0, 4, undistorted)


def calibrate_from_card(
    corners_px: np.ndarray | Sequence[Sequence[float]],
    card: CardSize,
    image_size: tuple[int, int],
    undistorted: bool = False,
) -> TableGeometry:
    """Homography from one card's outline (top-left first, clockwise, long side vertical).

    The table origin is the card's top-left corner, x along its short top side.
    """
    pts = _as_points(corners_px, "card corners")
    _check_quad(pts, "card corners")
    h = cv2.getPerspectiveTransform(pts.astype(np.float32), card.corners_mm().astype(np.float32))
    return TableGeometry(image_size[0], image_size[1], _matrix3(h), CalibrationSource.CARD, 0.0, 0.0, 4,
                         undistorted, card=card)
