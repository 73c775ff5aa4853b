"""Scene synthesis: a photographed table with cards, and its exact ground truth.

:func:`render_scene` builds one webcam-like image from a seed: a procedural table surface, a
card layout, a perspective camera with barrel distortion, soft card shadows, glare, hands and
arms over the cards, uneven coloured light, blur, sensor noise and JPEG loss. Every random
choice comes from a numpy Generator seeded with (seed, purpose), so a seed always gives the same
bytes. Categorical conditions (table, layout, lighting, blur, glare, hands) are balanced: every
run of ``n`` consecutive seeds that is aligned to a multiple of ``n`` (n = number of options) uses
each option exactly once, so any 2n-1 consecutive seeds cover all options.

Ground truth per card: identity and printed fields, the four corners in final image pixels
(the card's own top-left first, clockwise, after lens distortion) and the visible fraction
(occlusion by cards above, by hands, and by the image border).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from samples.render.camera import Camera, apply_homography, distort_points, distortion_maps
from samples.render.cards import STYLES, CardStyle, Face, render_face, style_named
from samples.render.layouts import GAME_LAYOUTS, LayoutKind, Placement, make_layout
from samples.render.specs import CardSpec, Game, Side, default_specs
from samples.render.tables import TILE_MM, TILE_PX, VARIANTS, TableKind, table_tile

RESOLUTIONS: tuple[tuple[int, int], ...] = ((640, 480), (800, 600), (1024, 768), (1280, 720), (1600, 900),
                                            (1920, 1080))
FACE_LEVELS: tuple[float, ...] = (1.5, 3.0, 6.0)  # px/mm of cached faces; the largest is rendered
HAND_LABEL = 255


class Lighting(Enum):
    """White balance of the light."""

    NEUTRAL = "neutral"
    WARM = "warm"
    COLD = "cold"


class BlurKind(Enum):
    """Image blur."""

    NONE = "none"
    DEFOCUS = "defocus"
    MOTION = "motion"


class Occlusion(Enum):
    """How hidden the cards are (from the ground truth): NONE all >= 0.99 visible, PARTIAL some
    card between 0.5 and 0.99, HEAVY some card below 0.5."""

    NONE = "none"
    PARTIAL = "partial"
    HEAVY = "heavy"


@dataclass(frozen=True)
class SceneConfig:
    """Optional fixed choices for :func:`render_scene`; ``None`` means "choose from the seed".

    ``degrade=False`` turns off blur and sensor noise, uses JPEG quality 95 and no lens
    distortion unless ``distortion=True`` (clean images for geometry tests). ``fill`` is the
    fraction of the image the layout spans. ``placements`` replaces the generated layout (the
    layout condition is then ``custom``).
    """

    resolution: tuple[int, int] | None = None
    specs: tuple[CardSpec, ...] | None = None
    table: TableKind | None = None
    layout: LayoutKind | None = None
    style: str | None = None
    lighting: Lighting | None = None
    blur: BlurKind | None = None
    glare: bool | None = None
    hands: int | None = None
    distortion: bool | None = None
    tilt_deg: float | None = None
    fill: float | None = None
    degrade: bool = True
    placements: tuple[Placement, ...] | None = None


@dataclass(frozen=True)
class Conditions:
    """The conditions an image was made under (for per-condition accuracy breakdowns)."""

    table: TableKind
    table_variant: int
    layout: LayoutKind
    style: str
    width: int
    height: int
    tilt_deg: float
    roll_deg: float
    yaw_deg: float
    camera_height_mm: float
    focal_px: float
    distortion_k1: float
    lighting: Lighting
    light_falloff: float
    vignetting: float
    white_balance: tuple[float, float, float]
    glare: bool
    shadow_strength: float
    blur: BlurKind
    blur_px: float
    noise_sigma: float
    jpeg_quality: int
    hands: int
    occlusion: Occlusion

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table.value, "table_variant": self.table_variant, "layout": self.layout.value,
            "style": self.style, "width": self.width, "height": self.height,
            "tilt_deg": round(self.tilt_deg, 2), "roll_deg": round(self.roll_deg, 2),
            "yaw_deg": round(self.yaw_deg, 2), "camera_height_mm": round(self.camera_height_mm, 1),
            "focal_px": round(self.focal_px, 1), "distortion_k1": round(self.distortion_k1, 4),
            "lighting": self.lighting.value, "light_falloff": round(self.light_falloff, 3),
            "vignetting": round(self.vignetting, 3), "white_balance": [round(g, 3) for g in self.white_balance],
            "glare": self.glare, "shadow_strength": round(self.shadow_strength, 3), "blur": self.blur.value,
            "blur_px": round(self.blur_px, 2), "noise_sigma": round(self.noise_sigma, 2),
            "jpeg_quality": self.jpeg_quality, "hands": self.hands, "occlusion": self.occlusion.value,
        }


@dataclass(frozen=True)
class CardTruth:
    """Ground truth for one card in one image.

    ``corners``: final image pixels, the card's own top-left first, clockwise (they may lie
    outside the image). ``visible_fraction``: share of the card's area seen in the image (cards
    above, hands and the image border hide it). In JSON, ``year`` is the card's catalogue year
    whichever side is up, while ``date`` is the printed date only when the date side is up.
    ``z``: stacking order, 0 at the bottom.
    """

    spec: CardSpec
    side: Side
    corners: tuple[tuple[float, float], ...]
    visible_fraction: float
    z: int

    def to_json(self) -> dict[str, Any]:
        s = self.spec
        return {
            "id": s.id, "game": s.game.value, "kind": s.kind.value, "side": self.side.value,
            "value": s.value, "blisters": s.blisters, "year": s.year,
            "date": s.date if self.side is not Side.EVENT else None, "joker": s.joker, "title": s.title,
            "stones": s.stones, "sesterces": s.sesterces,
            "size_class": None if s.size_class is None else s.size_class.value,
            "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners],
            "visible_fraction": round(self.visible_fraction, 4), "z": self.z,
        }


@dataclass(frozen=True)
class GroundTruth:
    """Everything known about one rendered image."""

    seed: int
    game: Game
    conditions: Conditions
    cards: tuple[CardTruth, ...]
    homography: tuple[tuple[float, ...], ...] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "game": self.game.value,
            "image": {"width": self.conditions.width, "height": self.conditions.height},
            "conditions": self.conditions.to_json(),
            "table_to_undistorted_image": [list(row) for row in self.homography],
            "cards": [c.to_json() for c in self.cards],
        }


@dataclass(frozen=True, eq=False)
class Scene:
    """A rendered image (BGR uint8, exactly the decoded ``jpeg``), its JPEG bytes and its truth."""

    image: np.ndarray
    jpeg: bytes
    truth: GroundTruth


# --------------------------------------------------------------------------------------------
# Randomness


def _rng(seed: int, purpose: str, game: Game | None = None) -> np.random.Generator:
    """A generator for one purpose of one scene of one game."""
    key = purpose if game is None else f"{game.value}/{purpose}"
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def _balanced(seed: int, purpose: str, options: tuple[Any, ...]) -> Any:
    """Pick from ``options`` so that each aligned block of len(options) seeds uses each exactly once."""
    block, pos = divmod(seed, len(options))
    order = _rng(block, "balanced/" + purpose).permutation(len(options))
    return options[int(order[pos])]


@lru_cache(maxsize=3)
def _game_specs(game: Game) -> tuple[CardSpec, ...]:
    return default_specs(game)


# --------------------------------------------------------------------------------------------
# Faces at the right scale


@lru_cache(maxsize=4096)
def _face_at(spec: CardSpec, style: CardStyle, side: Side, level: float) -> Face:
    """A cached face at one of :data:`FACE_LEVELS` (smaller levels are area-downscaled)."""
    top = FACE_LEVELS[-1]
    face = render_face(spec, style, side, top)
    if level == top:
        return face
    w, h = spec.size_mm()
    size = (round(w * level), round(h * level))
    image = cv2.resize(face.image, size, interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(face.alpha, size, interpolation=cv2.INTER_AREA)
    image.setflags(write=False)
    alpha.setflags(write=False)
    return Face(image, alpha, face.layout, level)


def _level_for(px_per_mm: float) -> float:
    """The smallest cached level at least as fine as the card's image scale."""
    for level in FACE_LEVELS:
        if level >= px_per_mm:
            return level
    return FACE_LEVELS[-1]


def _face_to_table(p: Placement, level: float) -> np.ndarray:
    """3x3 map from face pixels (pixel centres at integers) to table millimetres."""
    w, h = p.spec.size_mm()
    k = 1.0 / level
    local = np.array([[k, 0, 0.5 * k - w / 2], [0, k, 0.5 * k - h / 2], [0, 0, 1]])
    a = math.radians(p.angle_deg)
    rigid = np.array([[math.cos(a), -math.sin(a), p.centre[0]], [math.sin(a), math.cos(a), p.centre[1]],
                      [0, 0, 1]])
    return rigid @ local


# --------------------------------------------------------------------------------------------
# Drawing stages


def _make_camera(rng: np.random.Generator, cards: list[Placement], width: int, height: int, tilt: float,
                 k1: float, fill: float) -> Camera:
    """Aim a camera so that the layout spans about ``fill`` of the image."""
    pts = np.vstack([p.corners_mm() for p in cards])
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    extent = float(np.max(pts.max(axis=0) - pts.min(axis=0)))
    hfov = math.radians(rng.uniform(52, 78))
    focal = (width / 2) / math.tan(hfov / 2)
    yaw = rng.uniform(0, 360)
    roll = rng.normal(0, 6) if rng.random() < 0.8 else rng.uniform(-180, 180)
    target = (float(centre[0] + rng.normal(0, 0.08 * extent)), float(centre[1] + rng.normal(0, 0.08 * extent)))
    distance = max(250.0, extent * focal / (min(width, height) * max(fill, 0.2)))
    for _ in range(3):
        cam = Camera(width, height, focal, tilt, yaw, roll, distance, target, k1)
        img_pts = apply_homography(cam.homography(), pts)
        span = np.max(img_pts.max(axis=0) - img_pts.min(axis=0))
        want = fill * (width if np.argmax(img_pts.max(axis=0) - img_pts.min(axis=0)) == 0 else height)
        distance = float(np.clip(distance * span / max(want, 1.0), 200.0, 4000.0))
    return Camera(width, height, focal, tilt, yaw, roll, distance, target, k1)


def _draw_table(cam: Camera, kind: TableKind, variant: int, rng: np.random.Generator,
                centre: np.ndarray) -> np.ndarray:
    """The table surface seen by the camera (undistorted image, BGR uint8)."""
    tile = table_tile(kind, variant)
    scale = (TILE_MM / TILE_PX) * rng.uniform(0.8, 1.25)
    a = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    off = centre + rng.normal(0, 80, 2)
    half = TILE_PX / 2
    tile_to_table = np.array([[c, -s, off[0] - c * half + s * half], [s, c, off[1] - s * half - c * half],
                              [0, 0, 1]])
    m = cam.homography() @ tile_to_table
    img = cv2.warpPerspective(tile, m, (cam.width, cam.height), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT_101)
    tint = rng.uniform(0.92, 1.08, 3)
    return cv2.multiply(img, (float(tint[0]), float(tint[1]), float(tint[2]), 0.0))


def _bbox(pts: np.ndarray, margin: float, width: int, height: int) -> tuple[int, int, int, int] | None:
    """Integer bounding box of points plus margin, clipped to the image; None if empty."""
    x0 = max(0, int(math.floor(pts[:, 0].min() - margin)))
    y0 = max(0, int(math.floor(pts[:, 1].min() - margin)))
    x1 = min(width, int(math.ceil(pts[:, 0].max() + margin)) + 1)
    y1 = min(height, int(math.ceil(pts[:, 1].max() + margin)) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _composite_card(img: np.ndarray, face: Face, face_to_img: np.ndarray, quad: np.ndarray,
                    glare: np.ndarray | None, shadow_offset: np.ndarray, shadow_sigma: float,
                    shadow_strength: float) -> None:
    """Cast the card's soft shadow, then warp ``face`` into the card's bounding box and blend it.

    Works in place on the bounding box of card plus shadow only; ``glare`` is a full-frame
    uint8 field of specular light added to card pixels (not to the table).
    """
    margin = 3 * shadow_sigma + float(np.abs(shadow_offset).max()) + 2
    box = _bbox(quad, margin, img.shape[1], img.shape[0])
    if box is None:
        return
    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    region = img[y0:y1, x0:x1]
    # Shadow: a blurred, offset copy of the outline darkens what lies below.
    shadow = np.zeros((size[1], size[0]), np.float32)
    poly = np.round((quad + shadow_offset - [x0, y0]) * 16).astype(np.int32)
    cv2.fillConvexPoly(shadow, poly, shadow_strength, cv2.LINE_AA, 4)
    k = int(2 * round(3 * shadow_sigma) + 1)
    shadow = cv2.GaussianBlur(shadow, (k, k), shadow_sigma)
    shaded = cv2.blendLinear(region, np.zeros_like(region), 1.0 - shadow, shadow)
    # Card.
    m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ face_to_img
    colour = cv2.warpPerspective(face.image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpPerspective(face.alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0)
    if glare is not None:
        colour = cv2.add(colour, cv2.cvtColor(glare[y0:y1, x0:x1], cv2.COLOR_GRAY2BGR))
    a = alpha.astype(np.float32) * (1 / 255)
    region[:] = cv2.blendLinear(colour, shaded, a, 1.0 - a)


def _hand_mask(rng: np.random.Generator, width: int, height: int, reach: np.ndarray,
               palm_px: float, entry: np.ndarray | None = None) -> np.ndarray:
    """An arm entering from the image border whose fingers reach towards ``reach`` (uint8 mask).

    ``entry``: where the arm comes from (pixels, usually beyond the border); None chooses a
    border point from ``rng``. The same random draws are made either way.
    """
    mask = np.zeros((height, width), np.uint8)
    side = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    if entry is None:
        entry = np.array([[t * width, height + palm_px], [t * width, -palm_px], [-palm_px, t * height],
                          [width + palm_px, t * height]][side])
    else:
        entry = np.asarray(entry, dtype=np.float64)
    direction = reach - entry
    direction /= max(1e-6, float(np.linalg.norm(direction)))
    target = reach - direction * palm_px * rng.uniform(0.3, 1.3)  # palm centre; fingers point at reach
    normal = np.array([-direction[1], direction[0]])
    palm_len = palm_px * 1.05
    wrist = target - direction * palm_len * 0.55
    # Forearm: narrow at the wrist, wider towards the elbow beyond the image border.
    wrist_half = palm_px * rng.uniform(0.33, 0.4)
    far = entry - direction * palm_px
    reach_len = float(np.linalg.norm(far - wrist))
    elbow_half = wrist_half * (1.0 + min(0.6, reach_len / (palm_px * 4.0)))
    arm = np.array([wrist + normal * wrist_half, far + normal * elbow_half, far - normal * elbow_half,
                    wrist - normal * wrist_half])
    cv2.fillConvexPoly(mask, np.round(arm * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    cv2.circle(mask, tuple(np.int32(wrist)), int(wrist_half), 255, -1, cv2.LINE_AA)
    angle = math.degrees(math.atan2(direction[1], direction[0]))
    cv2.ellipse(mask, tuple(np.int32(target)), (int(palm_len * 0.55), int(palm_px * 0.5)), angle, 0, 360, 255, -1,
                cv2.LINE_AA)
    finger_w = max(2, int(palm_px * 0.19))
    curl = rng.uniform(-0.25, 0.25)
    for spread, length in ((-0.33, 0.8), (-0.11, 0.95), (0.11, 0.9), (0.33, 0.7)):
        base = target + direction * palm_len * 0.4 + normal * spread * palm_px * 1.0
        bend = direction + normal * (spread * 0.6 + curl)
        bend /= np.linalg.norm(bend)
        mid = base + bend * palm_px * length * 0.5
        tip = mid + (bend + normal * curl * 0.5) * palm_px * length * 0.45
        cv2.line(mask, tuple(np.int32(base)), tuple(np.int32(mid)), 255, finger_w, cv2.LINE_AA)
        cv2.line(mask, tuple(np.int32(mid)), tuple(np.int32(tip)), 255, max(2, int(finger_w * 0.9)), cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    tbase = target + normal * thumb_side * palm_px * 0.4 - direction * palm_len * 0.1
    ttip = tbase + (normal * thumb_side * 0.75 + direction * 0.55) * palm_px * 0.75
    cv2.line(mask, tuple(np.int32(tbase)), tuple(np.int32(ttip)), 255, int(finger_w * 1.15), cv2.LINE_AA)
    return mask


SKIN_TONES: tuple[tuple[int, int, int], ...] = ((150, 175, 224), (128, 156, 205), (100, 130, 184),
                                                 (70, 96, 146), (52, 70, 108), (170, 195, 236))


def _draw_hand(img: np.ndarray, mask: np.ndarray, rng: np.random.Generator, palm_px: float) -> None:
    """Soft shadow and shaded skin for one hand mask (uint8), in place, within the mask's box."""
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32) * rng.uniform(0.9, 1.1, 3)
    shift = rng.normal(0, 1, 2) * palm_px * 0.12 + palm_px * 0.18
    sigma = max(1.0, palm_px * 0.12)
    darkness = rng.uniform(0.3, 0.5)
    x, y, w, h = cv2.boundingRect(mask)
    if w == 0 or h == 0:
        return
    pad = int(3 * sigma + np.abs(shift).max()) + 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(mask.shape[1], x + w + pad), min(mask.shape[0], y + h + pad)
    region = img[y0:y1, x0:x1]
    m = mask[y0:y1, x0:x1]
    bw, bh = x1 - x0, y1 - y0
    sw, sh = max(1, bw // 4), max(1, bh // 4)
    small = cv2.resize(m, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32) * (1 / 255)
    moved = cv2.warpAffine(small, np.float32([[1, 0, shift[0] / 4], [0, 1, shift[1] / 4]]), (sw, sh))
    shadow = cv2.resize(cv2.GaussianBlur(moved, (0, 0), sigma / 4), (bw, bh)) * darkness
    roundness = cv2.GaussianBlur(small, (0, 0), max(0.7, palm_px * 0.08 / 4))
    tone = (0.6 + 0.45 * roundness)[..., None] * skin[None, None, :]
    colour = cv2.resize(np.clip(tone, 0, 255).astype(np.uint8), (bw, bh), interpolation=cv2.INTER_LINEAR)
    shaded = cv2.blendLinear(region, np.zeros_like(region), 1.0 - shadow, shadow)
    a = m.astype(np.float32) * (1 / 255)
    region[:] = cv2.blendLinear(colour, shaded, a, 1.0 - a)


def _gain_field(rng: np.random.Generator, width: int, height: int, falloff: float, vignetting: float,
                white_balance: tuple[float, float, float]) -> np.ndarray:
    """Per-channel gain over the image: a light spot with falloff, lens vignetting and white
    balance, as uint8 in units of 1/128 (3 channels, for ``cv2.multiply(..., scale=1/128)``)."""
    gw, gh = 48, 27
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    u, v = xs / (gw - 1) - 0.5, ys / (gh - 1) - 0.5
    lx, ly = rng.uniform(-0.6, 0.6, 2)
    d2 = (u - lx) ** 2 + (v - ly) ** 2
    r2 = (u ** 2 + v ** 2) * 2
    gain = (1.0 - falloff * np.clip(d2, 0, 1.5)) * (1.0 - vignetting * r2 * r2 * 0.5 - vignetting * r2 * 0.5)
    gain *= rng.uniform(0.85, 1.12)
    small = gain[..., None] * np.array(white_balance, np.float32)[None, None, :] * 128
    return cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (width, height), interpolation=cv2.INTER_LINEAR)


def _blur(img: np.ndarray, kind: BlurKind, amount: float, rng: np.random.Generator) -> np.ndarray:
    """Defocus (disk kernel) or linear motion blur of ``amount`` px."""
    if kind is BlurKind.NONE or amount <= 0:
        return img
    if kind is BlurKind.DEFOCUS:
        r = amount
        n = int(2 * math.ceil(r) + 1)
        kernel = np.zeros((n, n), np.float32)
        cv2.circle(kernel, (n // 2, n // 2), int(round(r)), 1.0, -1, cv2.LINE_AA)
    else:
        n = int(2 * math.ceil(amount / 2) + 1)
        kernel = np.zeros((n, n), np.float32)
        a = rng.uniform(0, math.pi)
        dx, dy = math.cos(a) * amount / 2, math.sin(a) * amount / 2
        c = n // 2
        cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
                 cv2.LINE_AA)
    kernel /= kernel.sum()
    return cv2.filter2D(img, -1, kernel, borderType=cv2.BORDER_REFLECT)


def _sample_edges(quad: np.ndarray, per_edge: int) -> np.ndarray:
    """Points along the closed polygon ``quad`` (corners included)."""
    out = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        for t in np.linspace(0, 1, per_edge, endpoint=False):
            out.append(a + (b - a) * t)
    return np.array(out)


# --------------------------------------------------------------------------------------------
# The scene


def _style_for(game: Game, seed: int, config: SceneConfig) -> CardStyle:
    if config.style is not None:
        return style_named(game, config.style)
    return _balanced(seed, game.value + "/style", STYLES[game])


def render_scene(seed: int, game: Game, config: SceneConfig = SceneConfig()) -> Scene:
    """Render one scene of ``game`` for ``seed`` (a non-negative integer)."""
    if seed < 0:
        raise ValueError(f"expected a non-negative seed, got {seed}")
    # Conditions -------------------------------------------------------------------------
    cond_rng = _rng(seed, "conditions", game)
    width, height = config.resolution or RESOLUTIONS[int(cond_rng.integers(len(RESOLUTIONS)))]
    table = config.table or _balanced(seed, game.value + "/table", tuple(TableKind))
    variant = int(cond_rng.integers(VARIANTS))
    if config.placements:
        layout_kind = LayoutKind.CUSTOM
    else:
        layout_kind = config.layout or _balanced(seed, game.value + "/layout", GAME_LAYOUTS[game])
    style = _style_for(game, seed, config)
    lighting = config.lighting or _balanced(seed, game.value + "/lighting", tuple(Lighting))
    blur = config.blur or _balanced(seed, game.value + "/blur", tuple(BlurKind))
    if not config.degrade:
        blur = BlurKind.NONE
    glare = config.glare if config.glare is not None else _balanced(seed, game.value + "/glare", (False, True))
    hands = config.hands if config.hands is not None else _balanced(seed, game.value + "/hands", (0, 1, 0, 1, 2))
    drawn_k1 = round(float(cond_rng.uniform(0.03, 0.22)) * 200) / 200
    use_distortion = (config.distortion if config.distortion is not None
                      else config.degrade and bool(cond_rng.random() < 0.7))
    k1 = drawn_k1 if use_distortion else 0.0
    tilt = float(config.tilt_deg if config.tilt_deg is not None else cond_rng.uniform(0, 40))
    fill = float(config.fill if config.fill is not None else
                 (cond_rng.uniform(0.45, 0.95) if cond_rng.random() < 0.85 else cond_rng.uniform(1.0, 1.5)))
    falloff = float(cond_rng.uniform(0, 0.45))
    vignetting = float(cond_rng.uniform(0, 0.35))
    warmth = {Lighting.NEUTRAL: 0.0, Lighting.WARM: cond_rng.uniform(0.08, 0.22),
              Lighting.COLD: -cond_rng.uniform(0.06, 0.16)}[lighting]
    white_balance = (1.0 - warmth, 1.0, 1.0 + warmth * 0.8)  # B, G, R gains
    shadow_strength = float(cond_rng.uniform(0.15, 0.45))
    blur_px = {BlurKind.NONE: 0.0, BlurKind.DEFOCUS: cond_rng.uniform(1.0, 3.5),
               BlurKind.MOTION: cond_rng.uniform(3.0, 12.0)}[blur]
    noise_sigma = float(cond_rng.uniform(0.8, 4.5)) if config.degrade else 0.0
    quality = int(cond_rng.integers(45, 96)) if config.degrade else 95

    # Layout and camera ---------------------------------------------------------------------
    specs = config.specs if config.specs is not None else _game_specs(game)
    layout_rng = _rng(seed, "layout", game)
    cards = list(config.placements) if config.placements else make_layout(layout_kind, game, specs, layout_rng)
    cam = _make_camera(_rng(seed, "camera", game), cards, width, height, tilt, k1, fill)
    hom = cam.homography()
    all_pts = np.vstack([p.corners_mm() for p in cards])
    img = _draw_table(cam, table, variant, _rng(seed, "table", game), (all_pts.min(0) + all_pts.max(0)) / 2)

    # Cards -----------------------------------------------------------------------------------
    paint_rng = _rng(seed, "paint", game)
    glare_field = None
    card_quads = [apply_homography(hom, p.corners_mm()) for p in cards]
    if glare:  # the light's reflection: a bright soft spot on the glossy cards near one card
        aim = card_quads[int(paint_rng.integers(len(card_quads)))]
        gx, gy = aim.mean(axis=0) + paint_rng.normal(0, 0.25, 2) * np.ptp(aim, axis=0)
        gr = paint_rng.uniform(0.02, 0.07) * width
        ys, xs = np.ogrid[0:height:4, 0:width:4]
        small = paint_rng.uniform(70, 170) * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * gr * gr))
        glare_field = cv2.resize(small.astype(np.float32), (width, height)).astype(np.uint8)
    light_angle = paint_rng.uniform(0, 2 * math.pi)
    light_dir = np.array([math.cos(light_angle), math.sin(light_angle)])
    quads, scales = [], []
    for p, quad in zip(cards, card_quads):
        quads.append(quad)
        w_mm, h_mm = p.spec.size_mm()
        scale = math.sqrt(abs(cv2.contourArea(quad.astype(np.float32))) / (w_mm * h_mm))
        scales.append(scale)
        level = _level_for(scale)
        face = _face_at(p.spec, style, p.side, level)
        sigma = max(0.8, scale * (0.6 + 0.25 * p.level))
        _composite_card(img, face, hom @ _face_to_table(p, level), quad, glare_field,
                        light_dir * scale * (0.7 + 0.3 * p.level), sigma, shadow_strength)

    # Hands -----------------------------------------------------------------------------------
    hand_rng = _rng(seed, "hands", game)
    hand_total = np.zeros((height, width), np.uint8)
    for _ in range(hands):
        pick = int(hand_rng.integers(len(quads)))
        reach = quads[pick].mean(axis=0) + hand_rng.normal(0, 0.2, 2) * np.ptp(quads[pick], axis=0)
        palm_px = scales[pick] * hand_rng.uniform(78, 95)  # an adult palm is about 8-9.5 cm wide
        mask = _hand_mask(hand_rng, width, height, reach, palm_px)
        _draw_hand(img, mask, hand_rng, palm_px)
        np.maximum(hand_total, mask, out=hand_total)

    # Lens --------------------------------------------------------------------------------------
    if k1 > 0:
        map1, map2 = distortion_maps(width, height, k1)
        img = cv2.remap(img, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        hand_total = cv2.remap(hand_total, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    # Ground truth: corners and visible fractions in the final image -------------------------
    label = np.zeros((height, width), np.uint8)
    full_counts = []
    truths_corners = []
    for i, quad in enumerate(quads):
        corners_d = distort_points(quad, width, height, k1)
        truths_corners.append(corners_d)
        poly = np.round(distort_points(_sample_edges(quad, 8), width, height, k1) * 16).astype(np.int32)
        cv2.fillPoly(label, [poly], i + 1, cv2.LINE_8, 4)
        lo = np.floor(poly.min(axis=0) / 16).astype(np.int32) - 1
        hi = np.ceil(poly.max(axis=0) / 16).astype(np.int32) + 2
        own = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
        cv2.fillPoly(own, [poly - lo * 16], 1, cv2.LINE_8, 4)
        full_counts.append(int(np.count_nonzero(own)))
    label = np.maximum(label, cv2.threshold(hand_total, 127, HAND_LABEL, cv2.THRESH_BINARY)[1])
    counts = cv2.calcHist([label], [0], None, [256], [0, 256]).ravel()
    visible = [min(1.0, counts[i + 1] / c) if c else 0.0 for i, c in enumerate(full_counts)]
    worst = min(visible)
    occlusion = Occlusion.NONE if worst >= 0.99 else (Occlusion.PARTIAL if worst >= 0.5 else Occlusion.HEAVY)

    # Sensor ------------------------------------------------------------------------------------
    img = _blur(img, blur, blur_px, _rng(seed, "blur", game))
    gain = _gain_field(_rng(seed, "light", game), width, height, falloff, vignetting, white_balance)
    img = cv2.multiply(img, gain, scale=1 / 128)
    if noise_sigma > 0:  # luma + chroma noise, spatially correlated like a demosaiced webcam sensor
        noise_rng = _rng(seed, "noise", game)
        hw, hh = (width + 1) // 2, (height + 1) // 2
        luma = noise_rng.standard_normal((hh, hw, 1), dtype=np.float32)
        chroma = noise_rng.standard_normal((hh, hw, 3), dtype=np.float32)
        small = np.round((luma * 1.1 + chroma * 0.55) * noise_sigma).astype(np.int16)
        img = cv2.add(img, cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR), dtype=cv2.CV_8U)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    jpeg = buf.tobytes()
    final = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    conditions = Conditions(
        table=table, table_variant=variant, layout=layout_kind, style=style.name, width=width, height=height,
        tilt_deg=tilt, roll_deg=cam.roll_deg, yaw_deg=cam.yaw_deg, camera_height_mm=cam.height_mm,
        focal_px=cam.focal_px, distortion_k1=k1, lighting=lighting, light_falloff=falloff,
        vignetting=vignetting, white_balance=white_balance, glare=glare, shadow_strength=shadow_strength,
        blur=blur, blur_px=blur_px, noise_sigma=noise_sigma, jpeg_quality=quality, hands=hands,
        occlusion=occlusion,
    )
    truths = tuple(
        CardTruth(p.spec, p.side, tuple((float(x), float(y)) for x, y in corners), float(v), z)
        for z, (p, corners, v) in enumerate(zip(cards, truths_corners, visible))
    )
    homography = tuple(tuple(float(v) for v in row) for row in hom)
    return Scene(final, jpeg, GroundTruth(seed, game, conditions, truths, homography))
