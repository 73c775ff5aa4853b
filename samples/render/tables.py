"""Procedural table surfaces, generated in table millimetres (so perspective applies to them).

Each surface is a square tile of :data:`TILE_PX` pixels covering :data:`TILE_MM` millimetres;
the scene places it with a random rotation and offset and mirrors it beyond its edges. Tiles are
cached per (kind, variant), so a scene only pays for the perspective warp.
"""

from __future__ import annotations

import zlib
from enum import Enum
from functools import lru_cache

import cv2
import numpy as np

TILE_PX = 768
TILE_MM = 1000.0
VARIANTS = 4


class TableKind(Enum):
    """The surface a game is played on."""

    WOOD = "wood"
    FELT = "felt"
    CLOTH_LIGHT = "cloth_light"
    CLOTH_DARK = "cloth_dark"
    CLOTH_WHITE = "cloth_white"
    TABLECLOTH = "tablecloth"  # patterned: checks, stripes or dots


def _rng(kind: TableKind, variant: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(kind.value.encode()), variant])


def _smooth_noise(rng: np.random.Generator, cells: tuple[int, int], size: int = TILE_PX) -> np.ndarray:
    """Low-frequency noise: a coarse random grid upsampled with cubic interpolation (float32)."""
    coarse = rng.normal(0, 1, cells).astype(np.float32)
    return cv2.resize(coarse, (size, size), interpolation=cv2.INTER_CUBIC)


def _folds(rng: np.random.Generator) -> np.ndarray:
    """Soft cloth folds: stretched low-frequency ridges, about 1 +- 0.08."""
    n = _smooth_noise(rng, (3, 7))
    angle = float(rng.uniform(0, 180))
    m = cv2.getRotationMatrix2D((TILE_PX / 2, TILE_PX / 2), angle, 1.0)
    n = cv2.warpAffine(n, m, (TILE_PX, TILE_PX), borderMode=cv2.BORDER_REFLECT)
    return 1.0 + 0.07 * np.tanh(n)


def _weave(rng: np.random.Generator, amplitude: float) -> np.ndarray:
    """Fine fabric texture: per-pixel grain plus a faint thread grid."""
    fine = rng.normal(0, 1, (TILE_PX, TILE_PX)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (3, 3), 0.7)
    ys, xs = np.mgrid[0:TILE_PX, 0:TILE_PX].astype(np.float32)
    grid = np.sin(xs * 2.1) * np.sin(ys * 2.1)
    return 1.0 + amplitude * (0.6 * fine + 0.4 * grid)


def _colourise(tone: np.ndarray, bgr: tuple[float, float, float]) -> np.ndarray:
    return np.clip(tone[..., None] * np.array(bgr, np.float32)[None, None, :], 0, 255).astype(np.uint8)


def _wood(rng: np.random.Generator) -> np.ndarray:
    palettes = [(70, 110, 160), (50, 80, 125), (95, 140, 190), (40, 58, 88), (110, 150, 185)]
    base = np.array(palettes[int(rng.integers(len(palettes)))], np.float32) * rng.uniform(0.9, 1.1)
    ys, xs = np.mgrid[0:TILE_PX, 0:TILE_PX].astype(np.float32)
    plank_px = float(rng.uniform(90, 160)) / (TILE_MM / TILE_PX)
    plank = np.floor(ys / plank_px)
    warp = _smooth_noise(rng, (6, 3)) * 14 + _smooth_noise(rng, (24, 6)) * 3
    phase = (plank * 37.0) % 11.0
    rings = np.sin((ys + warp + phase * 9) * rng.uniform(0.35, 0.6) + xs * 0.004)
    streak = cv2.resize(rng.normal(0, 1, (TILE_PX, 48)).astype(np.float32), (TILE_PX, TILE_PX),
                        interpolation=cv2.INTER_LINEAR)
    plank_tone = 1.0 + 0.08 * np.sin(plank * 12.9898 + float(rng.uniform(0, 6)))
    tone = plank_tone * (1.0 + 0.07 * rings ** 3 + 0.05 * streak)
    seam = np.abs(((ys + plank_px / 2) % plank_px) - plank_px / 2) < 1.2
    tone[seam] *= 0.55
    return _colourise(tone, tuple(base))


def _felt(rng: np.random.Generator) -> np.ndarray:
    palettes = [(60, 110, 30), (40, 90, 25), (110, 60, 30), (40, 40, 130), (70, 70, 70)]
    base = palettes[int(rng.integers(len(palettes)))]
    mottle = 1.0 + 0.05 * _smooth_noise(rng, (12, 12))
    fine = 1.0 + 0.07 * rng.normal(0, 1, (TILE_PX, TILE_PX)).astype(np.float32)
    return _colourise(mottle * fine, base)


def _cloth(rng: np.random.Generator, palettes: list[tuple[int, int, int]], weave: float) -> np.ndarray:
    base = palettes[int(rng.integers(len(palettes)))]
    return _colourise(_folds(rng) * _weave(rng, weave), base)


def _tablecloth(rng: np.random.Generator) -> np.ndarray:
    ys, xs = np.mgrid[0:TILE_PX, 0:TILE_PX].astype(np.float32)
    px_per_mm = TILE_PX / TILE_MM
    colours = [(40, 40, 190), (150, 90, 40), (60, 130, 60), (40, 140, 220)]
    ink = np.array(colours[int(rng.integers(len(colours)))], np.float32)
    white = np.array([238, 242, 244], np.float32)
    pattern = int(rng.integers(3))
    period = float(rng.uniform(18, 45)) * px_per_mm
    if pattern == 0:  # gingham: overlapping bands give three tones
        a = ((xs // (period / 2)) % 2).astype(np.float32)
        b = ((ys // (period / 2)) % 2).astype(np.float32)
        mix = (a + b) / 2
    elif pattern == 1:  # stripes, two widths
        mix = (((xs % period) < period * 0.3) | ((xs % period) > period * 0.8) * 0.5).astype(np.float32)
    else:  # dots
        cx = (xs % period) - period / 2
        cy = (ys % period) - period / 2
        mix = ((cx * cx + cy * cy) < (period * 0.22) ** 2).astype(np.float32)
    mix = cv2.GaussianBlur(mix, (3, 3), 0.8)
    img = white[None, None, :] * (1 - mix[..., None]) + ink[None, None, :] * mix[..., None]
    tone = _folds(rng) * _weave(rng, 0.03)
    return np.clip(img * tone[..., None], 0, 255).astype(np.uint8)


@lru_cache(maxsize=VARIANTS * len(TableKind))
def table_tile(kind: TableKind, variant: int) -> np.ndarray:
    """The BGR tile of one surface variant (read-only, cached)."""
    rng = _rng(kind, variant)
    if kind is TableKind.WOOD:
        img = _wood(rng)
    elif kind is TableKind.FELT:
        img = _felt(rng)
    elif kind is TableKind.CLOTH_LIGHT:
        img = _cloth(rng, [(200, 215, 225), (190, 200, 200), (215, 200, 180), (170, 200, 210)], 0.05)
    elif kind is TableKind.CLOTH_DARK:
        img = _cloth(rng, [(80, 45, 30), (50, 50, 52), (45, 30, 95), (40, 70, 45)], 0.08)
    elif kind is TableKind.CLOTH_WHITE:
        img = _cloth(rng, [(242, 244, 245), (232, 240, 246), (246, 242, 236)], 0.025)
    else:
        img = _tablecloth(rng)
    img.setflags(write=False)
    return img
