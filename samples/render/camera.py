"""Camera geometry: a pinhole camera over the table plane plus radial (barrel) lens distortion.

Table coordinates are millimetres on the table plane with x to the right, y towards the
viewer and z pointing into the table (a right-handed frame), so a camera straight above the
table at height h sits at (0, 0, -h) with the identity rotation and sees the table "as drawn".

Lens model: the pinhole image is rendered first ("undistorted pixels"); the final image is its
barrel-distorted version. For a final (distorted) pixel p_d, with r_d its distance from the
image centre divided by the half diagonal, the undistorted source position is

    p_u = c + (p_d - c) * (1 + k1 * r_d**2) / (1 + k1)

so the image corners map to themselves and straight lines bow outwards (barrel for k1 > 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass(frozen=True, eq=False)
class Camera:
    """A camera looking at the table: intrinsics, pose and lens distortion.

    ``tilt_deg``: angle between the optical axis and the table normal (0 = straight down);
    ``yaw_deg``: compass direction the camera looks from; ``roll_deg``: rotation about the
    optical axis; ``distance_mm``: from the camera centre to the aimed table point;
    ``k1``: barrel distortion strength (0 = none).
    """

    width: int
    height: int
    focal_px: float
    tilt_deg: float
    yaw_deg: float
    roll_deg: float
    distance_mm: float
    target_mm: tuple[float, float]
    k1: float

    @property
    def rotation(self) -> np.ndarray:
        """World-to-camera rotation."""
        return (_rot_z(math.radians(self.roll_deg)) @ _rot_x(math.radians(self.tilt_deg))
                @ _rot_z(math.radians(self.yaw_deg)))

    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre in table coordinates (z negative: above the table)."""
        forward = self.rotation.T @ np.array([0.0, 0.0, 1.0])
        target = np.array([self.target_mm[0], self.target_mm[1], 0.0])
        return target - self.distance_mm * forward

    @property
    def height_mm(self) -> float:
        """Height of the camera centre above the table."""
        return float(-self.centre_mm[2])

    @property
    def intrinsics(self) -> np.ndarray:
        cx, cy = (self.width - 1) / 2, (self.height - 1) / 2  # pixel centres at integer coordinates
        return np.array([[self.focal_px, 0, cx], [0, self.focal_px, cy], [0, 0, 1]])

    def homography(self) -> np.ndarray:
        """3x3 map from table millimetres (x, y, 1) to undistorted image pixels."""
        r = self.rotation
        t = -r @ self.centre_mm
        h = self.intrinsics @ np.column_stack([r[:, 0], r[:, 1], t])
        return h / h[2, 2]

    def distort_points(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted pixel positions (N x 2) -> final distorted image positions."""
        return distort_points(pts, self.width, self.height, self.k1)

    def project(self, table_pts: np.ndarray) -> np.ndarray:
        """Table points (N x 2, mm) -> final image pixels (N x 2), lens distortion included."""
        return self.distort_points(apply_homography(self.homography(), table_pts))


def apply_homography(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to N x 2 points."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return q[:, :2] / q[:, 2:3]


def distort_points(pts: np.ndarray, width: int, height: int, k1: float) -> np.ndarray:
    """Invert the lens model's p_d -> p_u map for each point by Newton iteration on the radius."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if k1 == 0:
        return pts.copy()
    c = np.array([(width - 1) / 2, (height - 1) / 2])
    s = math.hypot(width / 2, height / 2)
    v = (pts - c) / s
    ru = np.hypot(v[:, 0], v[:, 1])
    rd = ru.copy()
    for _ in range(20):  # solve rd * (1 + k1 rd^2) / (1 + k1) = ru
        f = rd * (1 + k1 * rd ** 2) / (1 + k1) - ru
        df = (1 + 3 * k1 * rd ** 2) / (1 + k1)
        rd = rd - f / df
    scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
    return c + v * scale[:, None] * s


@lru_cache(maxsize=24)
def distortion_maps(width: int, height: int, k1: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps (fixed point) that turn an undistorted image into the distorted one.

    The map is smooth, so it is computed on a quarter-size grid and interpolated up.
    """
    sw, sh = (width + 3) // 4 + 1, (height + 3) // 4 + 1
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32) * 4
    cx, cy = (width - 1) / 2, (height - 1) / 2
    s = math.hypot(width / 2, height / 2)
    dx, dy = xs - cx, ys - cy
    f = (1 + k1 * (dx * dx + dy * dy) / (s * s)) / (1 + k1)
    # Grid node j sits at pixel 4j; resizing by exactly 4x with pixel-centre alignment would
    # shift it, so use a warp that maps pixel x to grid x/4.
    up = np.float32([[0.25, 0, 0], [0, 0.25, 0]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    mx = cv2.warpAffine(cx + dx * f, up, (width, height), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(cy + dy * f, up, (width, height), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)
