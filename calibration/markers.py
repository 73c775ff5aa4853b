"""Printable ArUco marker sheets with a known millimetre layout, and finding them in a frame.

The sheet defines the table frame: millimetres with the origin at the sheet's top-left paper
corner, x to the right along the top edge and y down along the left edge (as the sheet is
printed). Each marker's four corners are listed in OpenCV's order (the printed marker's
top-left, top-right, bottom-right, bottom-left), so a detected marker gives four
image-to-table correspondences.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.images import to_gray

MM_PER_INCH = 25.4


class ArucoDictionary(Enum):
    """The predefined ArUco dictionaries we offer (small ones: fast and robust at low resolution)."""

    D4X4_50 = "4x4_50"
    D5X5_50 = "5x5_50"
    D6X6_50 = "6x6_50"

    @property
    def cv_id(self) -> int:
        return {
            ArucoDictionary.D4X4_50: cv2.aruco.DICT_4X4_50,
            ArucoDictionary.D5X5_50: cv2.aruco.DICT_5X5_50,
            ArucoDictionary.D6X6_50: cv2.aruco.DICT_6X6_50,
        }[self]

    @property
    def bits(self) -> int:
        return int(self.value[0])

    def cv(self) -> "cv2.aruco.Dictionary":
        return cv2.aruco.getPredefinedDictionary(self.cv_id)

    @classmethod
    def parse(cls, text: str) -> ArucoDictionary:
        key = text.strip().lower().removeprefix("dict_")
        for d in cls:
            if d.value == key:
                return d
        raise CalibrationError(f"expected an ArUco dictionary ({', '.join(d.value for d in cls)}), got {text!r}")


class Paper(Enum):
    """Paper sizes for the marker sheet, portrait (width, height) in millimetres."""

    A4 = (210.0, 297.0)
    A3 = (297.0, 420.0)
    LETTER = (215.9, 279.4)

    @classmethod
    def parse(cls, text: str) -> Paper:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise CalibrationError(f"expected a paper size ({', '.join(p.name.lower() for p in cls)}), got {text!r}") from None


@dataclass(frozen=True)
class PlacedMarker:
    """One square marker on the sheet: its id, top-left corner and side length in millimetres."""

    marker_id: int
    x_mm: float
    y_mm: float
    size_mm: float

    def corners_mm(self) -> np.ndarray:
        """The 4 corners (top-left, top-right, bottom-right, bottom-left) as a (4, 2) array."""
        x, y, s = self.x_mm, self.y_mm, self.size_mm
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float64)


@dataclass(frozen=True)
class MarkerSheet:
    """The layout of a printed marker sheet (all lengths in millimetres)."""

    width_mm: float
    height_mm: float
    dictionary: ArucoDictionary
    markers: tuple[PlacedMarker, ...]

    def __post_init__(self) -> None:
        if not (self.width_mm > 0 and self.height_mm > 0):
            raise CalibrationError(f"sheet size must be positive, got {self.width_mm} x {self.height_mm} mm")
        if not self.markers:
            raise CalibrationError("a marker sheet needs at least one marker, got none")
        ids = [m.marker_id for m in self.markers]
        if len(set(ids)) != len(ids):
            raise CalibrationError(f"marker ids on a sheet must be unique, got {ids}")
        for m in self.markers:
            if m.size_mm <= 0:
                raise CalibrationError(f"marker {m.marker_id}: size must be positive, got {m.size_mm} mm")
            if m.x_mm < 0 or m.y_mm < 0 or m.x_mm + m.size_mm > self.width_mm or m.y_mm + m.size_mm > self.height_mm:
                raise CalibrationError(
                    f"marker {m.marker_id} must lie on the {self.width_mm} x {self.height_mm} mm sheet, "
                    f"got top-left ({m.x_mm}, {m.y_mm}) and size {m.size_mm} mm"
                )

    @classmethod
    def corners_layout(
        cls,
        paper: Paper = Paper.A4,
        marker_mm: float = 40.0,
        margin_mm: float = 15.0,
        dictionary: ArucoDictionary = ArucoDictionary.D4X4_50,
    ) -> MarkerSheet:
        """Four markers (ids 0..3) in the corners, clockwise from the top-left."""
        w, h = paper.value
        far_x, far_y = w - margin_mm - marker_mm, h - margin_mm - marker_mm
        spots = [(margin_mm, margin_mm), (far_x, margin_mm), (far_x, far_y), (margin_mm, far_y)]
        markers = tuple(PlacedMarker(i, x, y, marker_mm) for i, (x, y) in enumerate(spots))
        return cls(w, h, dictionary, markers)

    def marker(self, marker_id: int) -> PlacedMarker | None:
        for m in self.markers:
            if m.marker_id == marker_id:
                return m
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "width_mm": self.width_mm,
            "height_mm": self.height_mm,
            "dictionary": self.dictionary.value,
            "markers": [
                {"id": m.marker_id, "x_mm": m.x_mm, "y_mm": m.y_mm, "size_mm": m.size_mm} for m in self.markers
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> MarkerSheet:
        try:
            markers = tuple(
                PlacedMarker(int(m["id"]), float(m["x_mm"]), float(m["y_mm"]), float(m["size_mm"]))
                for m in data["markers"]
            )
            return cls(float(data["width_mm"]), float(data["height_mm"]), ArucoDictionary.parse(str(data["dictionary"])), markers)
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                "expected a marker sheet layout with width_mm, height_mm, dictionary and "
                f"markers [{{id, x_mm, y_mm, size_mm}}], got an invalid entry ({type(exc).__name__}: {exc})"
            ) from None


DEFAULT_SHEET = MarkerSheet.corners_layout()


def render_sheet(sheet: MarkerSheet, dpi: float = 300.0, caption: bool = True) -> np.ndarray:
    """Draw the sheet as a gray ``uint8`` image at ``dpi`` (white paper, black markers).

    With ``caption`` a line of text and a 100 mm scale bar are printed in the middle so that a
    user can check the printer kept the scale.
    """
    if dpi <= 0:
        raise CalibrationError(f"dpi must be positive, got {dpi}")
    s = dpi / MM_PER_INCH
    img = np.full((round(sheet.height_mm * s), round(sheet.width_mm * s)), 255, np.uint8)
    cells = sheet.dictionary.bits + 2
    for m in sheet.markers:
        x0, y0 = round(m.x_mm * s), round(m.y_mm * s)
        x1, y1 = round((m.x_mm + m.size_mm) * s), round((m.y_mm + m.size_mm) * s)
        try:
            canon = cv2.aruco.generateImageMarker(sheet.dictionary.cv(), m.marker_id, cells)
        except cv2.error:
            raise CalibrationError(
                f"marker id must exist in dictionary {sheet.dictionary.value}, got {m.marker_id}"
            ) from None
        img[y0:y1, x0:x1] = cv2.resize(canon, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
    if caption:
        _draw_caption(img, sheet, s)
    return img


def _draw_caption(img: np.ndarray, sheet: MarkerSheet, s: float) -> None:
    """Scale bar (100 mm) and a description centred on the sheet, clear of the markers."""
    cx, cy = sheet.width_mm / 2, sheet.height_mm / 2
    bar = min(100.0, sheet.width_mm * 0.6)
    y = round(cy * s)
    x0, x1 = round((cx - bar / 2) * s), round((cx + bar / 2) * s)
    thick = max(1, round(0.5 * s))
    cv2.line(img, (x0, y), (x1, y), 0, thick)
    for x in (x0, x1):
        cv2.line(img, (x, y - round(3 * s)), (x, y + round(3 * s)), 0, thick)
    sizes = sorted({m.size_mm for m in sheet.markers})
    lines = [
        f"{bar:g} mm - print at 100% (no scaling)",
        f"table-companion markers {sheet.dictionary.value}, {'/'.join(f'{v:g}' for v in sizes)} mm",
    ]
    scale = 0.09 * s
    for i, text in enumerate(lines):
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        cv2.putText(img, text, (round(cx * s - tw / 2), y + round((9 + 8 * i) * s)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick, cv2.LINE_AA)


def write_sheet(sheet: MarkerSheet, path: str | os.PathLike[str], dpi: float = 300.0) -> tuple[Path, Path]:
    """Write the printable PNG (with its dpi recorded) and a ``.json`` layout next to it.

    Returns (image path, layout path). The layout is what ``calibrate table --sheet`` reads.
    """
    from PIL import Image

    out = Path(path)
    if out.suffix.lower() != ".png":
        raise CalibrationError(f"{out}: expected a .png output path, got suffix {out.suffix or '(none)'!r}")
    if not out.parent.is_dir():
        raise CalibrationError(f"{out}: expected an existing output directory, {out.parent} does not exist")
    img = render_sheet(sheet, dpi)
    Image.fromarray(img).save(out, dpi=(dpi, dpi))
    layout = out.with_suffix(".json")
    record = {"dpi": dpi, **sheet.to_json()}
    layout.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return out, layout


def read_sheet(path: str | os.PathLike[str]) -> MarkerSheet:
    """Read a layout written by :func:`write_sheet`."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{p}: expected a marker sheet layout (.json), but no such file exists") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{p}: expected a marker sheet layout in JSON, got unreadable data ({exc})") from None
    try:
        return MarkerSheet.from_json(data)
    except CalibrationError as exc:
        raise CalibrationError(f"{p}: {exc}") from None


@dataclass(frozen=True)
class DetectedMarker:
    """A marker found in an image: its id and 4 corners in pixels (OpenCV corner order)."""

    marker_id: int
    corners_px: tuple[tuple[float, float], ...]


def detect_markers(image: np.ndarray, dictionary: ArucoDictionary) -> list[DetectedMarker]:
    """Find markers of ``dictionary`` with sub-pixel corners, sorted by id."""
    gray = to_gray(image)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    detector = cv2.aruco.ArucoDetector(dictionary.cv(), params)
    corners, ids, _ = detector.detectMarkers(gray)
    found: list[DetectedMarker] = []
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        pts = tuple((float(x), float(y)) for x, y in np.asarray(quad).reshape(4, 2))
        found.append(DetectedMarker(int(marker_id), pts))
    found.sort(key=lambda d: d.marker_id)
    return found


def sheet_correspondences(
    detections: list[DetectedMarker], sheet: MarkerSheet
) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Image points (N, 2), sheet millimetre points (N, 2) and the ids of the sheet markers used.

    Detections whose id is not on the sheet, and repeated ids (ambiguous), are ignored.
    """
    counts: dict[int, int] = {}
    for d in detections:
        counts[d.marker_id] = counts.get(d.marker_id, 0) + 1
    img_pts: list[np.ndarray] = []
    mm_pts: list[np.ndarray] = []
    used: list[int] = []
    for d in detections:
        placed = sheet.marker(d.marker_id)
        if placed is None or counts[d.marker_id] > 1:
            continue
        img_pts.append(np.asarray(d.corners_px, dtype=np.float64))
        mm_pts.append(placed.corners_mm())
        used.append(d.marker_id)
    if not used:
        return np.zeros((0, 2)), np.zeros((0, 2)), ()
    return np.vstack(img_pts), np.vstack(mm_pts), tuple(used)

