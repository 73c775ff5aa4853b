"""Motion blur: how far and which way the picture was smeared, and the smear taken back out.

A camera (or table) moving while the shutter is open smears every point of the frame along one
short straight line: the frame is the sharp picture convolved with a line kernel of some length
and direction. The print of a card then runs together along that line (digits, plaster rows),
and the readers rightly leave most of it unread.

Estimation (:func:`estimate_motion_blur`) uses the cepstrum: the spectrum of a line kernel of
length L is a sinc along the line's direction, whose zeros come every 1/L cycles per pixel; in
the logarithm of the frame's power spectrum they make a ripple, and the inverse transform of that
logarithm (the cepstrum) has a deep negative peak at distance L from its origin in the line's
direction. The power spectrum is averaged over windowed tiles of the gray frame, its slow fall
with frequency taken out, and the cepstrum searched over lengths and directions; the 8-pixel
blocks of a JPEG file leave their own peaks at multiples of 8 pixels along the axes, which are
not searched. The peak lies about a pixel and a half beyond the kernel's length (the line is
drawn with soft ends), which :data:`PEAK_OFFSET_PX` takes off.

Deblurring (:func:`deblur`) divides the region's spectrum by the kernel's, damped where the
kernel passes little (Wiener filter with a constant noise-to-signal ratio), after padding the
region by reflection so its edges do not wrap round.

The estimate is not a test for blur: a sharp frame also has a deepest point in its cepstrum, if
one that stands out less from the other directions (:attr:`MotionBlur.prominence`). The pipeline
therefore only ever uses what a deblurred crop adds (fields the frame itself left unread), never
what it contradicts, and counts plasters on it only where the smear is plain
(:attr:`vision.pipeline.PipelineConfig.deblur`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import InvalidImageError
from vision.rectify import RectifyConfig, rectify
from vision.types import Quad

TILE = 256
"""Side (pixels) of the square tiles whose power spectra are averaged."""
MIN_TILE_STD = 2.0
"""Tiles flatter than this (gray levels, standard deviation) carry no spectrum worth averaging."""
MAX_TILES = 32
"""At most this many tiles (the most textured ones) are transformed: enough for a stable average
at any frame size, and a bound on the time (on the tuning stills' motion blurs 32 tiles found
lengths and directions as well as 48)."""
LENGTHS_PX = np.arange(3.0, 14.01, 0.5)
"""Peak distances searched (pixels): motion blurs of about 1.5 to 12.5 pixels."""
ANGLES_DEG = np.arange(0.0, 180.0, 2.0)
"""Directions searched (degrees, image x towards image y; a line has no sign)."""
PEAK_OFFSET_PX = 1.5
"""How far beyond the kernel's length the cepstral peak lies (measured on rendered blurs)."""
JPEG_BLOCK = 8
"""Side (pixels) of a JPEG block: cepstral points within a pixel of its multiples on both axes
are skipped."""
NOISE_TO_SIGNAL = 0.01
"""Wiener filter constant: larger keeps more blur and less noise and ringing."""


@dataclass(frozen=True)
class MotionBlur:
    """A straight motion blur: ``length`` pixels along ``angle`` (radians, in [0, pi), from the
    image's x axis towards its y axis); ``depth``: how deep its cepstral peak was (negative);
    ``prominence``: how far the peak lies below the cepstrum's other directions at its distance,
    in median absolute deviations (a real smear stands out in one direction; a sharp or defocused
    frame's deepest point barely does: on the tuning stills a median of 9 for motion blurs, 5 for
    sharp frames, 4 for defocused ones)."""

    length: float
    angle: float
    depth: float
    prominence: float = 0.0

    def kernel(self) -> np.ndarray:
        """The line kernel (float32, summing to 1), drawn as the blur is modelled."""
        n = int(2 * math.ceil(self.length / 2) + 1)
        k = np.zeros((n, n), np.float32)
        dx, dy = math.cos(self.angle) * self.length / 2, math.sin(self.angle) * self.length / 2
        c = n // 2
        cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
                 cv2.LINE_AA)
        return k / float(k.sum())


def _check(image: np.ndarray) -> None:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise InvalidImageError(f"expected a non-empty image array, got {getattr(image, 'shape', type(image))}")


def _gray(image: np.ndarray) -> np.ndarray:
    _check(image)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return gray.astype(np.float32)


def _search_map() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cepstrum coordinates of every (length, angle) searched, and which of them are kept."""
    lengths, angles = np.meshgrid(LENGTHS_PX, np.radians(ANGLES_DEG), indexing="ij")
    dx, dy = lengths * np.cos(angles), lengths * np.sin(angles)
    jpeg = ((np.abs(dx - JPEG_BLOCK * np.round(dx / JPEG_BLOCK)) < 1.0)
            & (np.abs(dy - JPEG_BLOCK * np.round(dy / JPEG_BLOCK)) < 1.0))
    c = TILE // 2
    return (c + dx).astype(np.float32), (c + dy).astype(np.float32), ~jpeg


_MAP_X, _MAP_Y, _KEEP = _search_map()


def estimate_motion_blur(image: np.ndarray) -> MotionBlur | None:
    """The straight motion blur that best explains the frame's spectrum, or None when the frame
    is smaller than a tile or has no texture at all."""
    gray = _gray(image)
    h, w = gray.shape
    textured = [(float(t.std()), t) for t in (gray[y:y + TILE, x:x + TILE] for y in range(0, h - TILE + 1, TILE // 2)
                                              for x in range(0, w - TILE + 1, TILE // 2))]
    tiles = [t for sd, t in sorted(textured, key=lambda st: -st[0]) if sd >= MIN_TILE_STD][:MAX_TILES]
    if not tiles:
        return None
    window = np.outer(np.hanning(TILE), np.hanning(TILE)).astype(np.float32)
    power = np.zeros((TILE, TILE), np.float64)
    for tile in tiles:
        power += np.abs(np.fft.fft2((tile - tile.mean()) * window)) ** 2
    log_power = np.log(power / len(tiles) + 1e-6).astype(np.float32)
    log_power -= cv2.GaussianBlur(log_power, (0, 0), 8)  # (the spectrum's slow fall with frequency)
    cepstrum = np.fft.fftshift(np.real(np.fft.ifft2(log_power))).astype(np.float32)
    values = cv2.remap(cepstrum, _MAP_X, _MAP_Y, cv2.INTER_LINEAR)
    values = np.where(_KEEP, values, np.inf)
    i, j = np.unravel_index(int(np.argmin(values)), values.shape)
    length = max(2.0, float(LENGTHS_PX[i]) - PEAK_OFFSET_PX)
    ring = values[i][np.isfinite(values[i])]
    middle = float(np.median(ring))
    spread = float(np.median(np.abs(ring - middle))) + 1e-9
    return MotionBlur(length, math.radians(float(ANGLES_DEG[j])), float(values[i, j]),
                      (middle - float(values[i, j])) / spread)


def deblur(image: np.ndarray, blur: MotionBlur, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """The region ``box`` (x0, y0, x1, y1; the whole image when None) of ``image`` with ``blur``
    taken back out (same dtype and channels as the image, clipped to 0..255)."""
    _check(image)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box if box is not None else (0, 0, w, h)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        raise InvalidImageError(f"expected a region inside the {w}x{h} image, got {box}")
    k = blur.kernel()
    pad = k.shape[0] * 2
    region = cv2.copyMakeBorder(image[y0:y1, x0:x1], pad, pad, pad, pad, cv2.BORDER_REFLECT)
    rh, rw = region.shape[:2]
    psf = np.zeros((rh, rw), np.float32)
    psf[:k.shape[0], :k.shape[1]] = k
    psf = np.roll(psf, (-(k.shape[0] // 2), -(k.shape[1] // 2)), axis=(0, 1))
    spectrum = np.fft.rfft2(psf)
    inverse = np.conj(spectrum) / (np.abs(spectrum) ** 2 + NOISE_TO_SIGNAL)
    planes = region[..., None] if region.ndim == 2 else region
    out = np.empty(planes.shape, np.float32)
    for c in range(planes.shape[2]):
        out[..., c] = np.fft.irfft2(np.fft.rfft2(planes[..., c].astype(np.float32)) * inverse, s=(rh, rw))
    out = out[pad:rh - pad, pad:rw - pad]
    out = np.clip(out, 0, 255).astype(image.dtype)
    return out[..., 0] if image.ndim == 2 else out


def deblurred_crop(image: np.ndarray, quad: Quad, blur: MotionBlur, config: RectifyConfig) -> np.ndarray:
    """The rectified crop of ``quad`` cut from ``image`` with ``blur`` taken out of the quad's
    region (grown by twice the blur's length, so the filter sees the card's surroundings)."""
    corners = quad.as_array()
    margin = int(np.ceil(2 * blur.length)) + 4
    x0, y0 = (np.floor(corners.min(axis=0)).astype(int) - margin).tolist()
    x1, y1 = (np.ceil(corners.max(axis=0)).astype(int) + margin).tolist()
    x0, y0 = max(0, x0), max(0, y0)
    region = deblur(image, blur, (x0, y0, x1, y1))
    return rectify(region, Quad.from_array(corners - np.float32([x0, y0])), config)
