"""Card faces: styles, layouts and rendering.

Every face is drawn from a :class:`~samples.render.specs.CardSpec`, a :class:`CardStyle` and a
:class:`~samples.render.specs.Side` at a chosen resolution (pixels per millimetre; print
resolution is 10 px/mm). The layout (:func:`face_layout`) is computed in millimetres first and
the renderer draws exactly into its boxes, so a test or a vision experiment can find where the
value, the year or each blister symbol is printed on a rendered face.

There are at least two styles per game (colours, fonts, border widths, decoration), so that
nothing downstream can rely on a single exact design.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from samples.render.specs import CardKind, CardSpec, Game, Side

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
PRINT_PX_PER_MM = 10.0

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class CardStyle:
    """One visual design of a game's cards.

    ``paper``: face background (for stone tiles: the stone's base colour); ``ink``: text colour;
    ``accent``/``accent2``: border and decoration colours; fonts are DejaVu file names;
    ``border_mm``: width of the coloured border; ``frame_line``: draw a thin inner frame.
    """

    name: str
    game: Game
    paper: RGB
    ink: RGB
    accent: RGB
    accent2: RGB
    value_font: str
    text_font: str
    border_mm: float
    corner_radius_mm: float
    frame_line: bool


STYLES: dict[Game, tuple[CardStyle, ...]] = {
    Game.GLADIOLA: (
        CardStyle("meadow", Game.GLADIOLA, (250, 249, 242), (28, 62, 30), (64, 142, 62), (214, 72, 110),
                  "DejaVuSans-Bold.ttf", "DejaVuSans.ttf", 2.6, 3.5, False),
        CardStyle("postcard", Game.GLADIOLA, (246, 236, 214), (118, 30, 42), (205, 92, 122), (70, 110, 160),
                  "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", 1.2, 3.0, True),
        CardStyle("trail", Game.GLADIOLA, (232, 242, 250), (20, 40, 90), (30, 80, 160), (240, 150, 40),
                  "DejaVuSansCondensed-Bold.ttf", "DejaVuSansCondensed.ttf", 4.0, 4.0, True),
    ),
    Game.VALAIS: (
        CardStyle("alpine", Game.VALAIS, (252, 252, 250), (25, 25, 30), (200, 32, 45), (250, 250, 250),
                  "DejaVuSans-Bold.ttf", "DejaVuSans.ttf", 2.0, 3.5, False),
        CardStyle("heritage", Game.VALAIS, (236, 222, 192), (70, 45, 25), (120, 80, 40), (180, 40, 40),
                  "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", 1.0, 2.5, True),
    ),
    Game.APPIA: (
        CardStyle("marble", Game.APPIA, (244, 236, 220), (90, 35, 20), (178, 72, 40), (120, 120, 118),
                  "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", 2.2, 3.0, True),
        CardStyle("forum", Game.APPIA, (226, 232, 238), (20, 30, 70), (40, 60, 130), (152, 146, 134),
                  "DejaVuSansCondensed-Bold.ttf", "DejaVuSansCondensed.ttf", 3.0, 3.5, False),
    ),
}


def style_named(game: Game, name: str) -> CardStyle:
    """The style of ``game`` called ``name``."""
    for style in STYLES[game]:
        if style.name == name:
            return style
    names = [s.name for s in STYLES[game]]
    raise ValueError(f"expected a {game.value} style name in {names}, got {name!r}")


class Role(Enum):
    """What a layout box holds."""

    VALUE = "value"                  # the km value, upright (top-left corner)
    VALUE_ROTATED = "value_rotated"  # the km value rotated 180 degrees (bottom-right corner)
    UNIT = "unit"                    # "km" under each value
    INTERVAL = "interval"            # one walk interval line (text + draw icons)
    BLISTER = "blister"              # one blister (plaster) symbol
    DAY = "day"                      # one START day marker (text rotated by ``angle``)
    BANNER = "banner"                # START / FINISH lettering
    FLOWER = "flower"                # the gladiola drawing
    PICTURE = "picture"              # Valais event picture
    TITLE = "title"                  # event title text
    YEAR = "year"                    # the large year on the date side
    DATE = "date"                    # the full date line on the date side
    JOKER = "joker"                  # joker badge
    STONE = "stone"                  # one stone symbol on an income card
    STONE_COUNT = "stone_count"      # the stone count digit
    SESTERCE = "sesterce"            # one coin symbol on an income card
    SESTERCE_COUNT = "sesterce_count"


@dataclass(frozen=True)
class Box:
    """An axis-aligned box on the face in millimetres (x right, y down, origin top-left)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def px(self, px_per_mm: float) -> tuple[int, int, int, int]:
        """The box in whole pixels at ``px_per_mm``: (x0, y0, x1, y1), x1/y1 exclusive."""
        return (round(self.x0 * px_per_mm), round(self.y0 * px_per_mm),
                round(self.x1 * px_per_mm), round(self.y1 * px_per_mm))

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(frozen=True)
class LayoutItem:
    """One printed element: its role, its box, its text (if any) and its rotation in degrees
    (counter-clockwise, 0 = upright)."""

    role: Role
    box: Box
    text: str | None = None
    angle: int = 0


@dataclass(frozen=True)
class FaceLayout:
    """Where everything is printed on one face of one card in one style."""

    spec: CardSpec
    style: CardStyle
    side: Side
    width_mm: float
    height_mm: float
    items: tuple[LayoutItem, ...]

    def boxes(self, role: Role) -> tuple[LayoutItem, ...]:
        """All items with the given role, in layout order."""
        return tuple(item for item in self.items if item.role is role)


@dataclass(frozen=True, eq=False)
class Face:
    """A rendered face: BGR image, alpha (255 inside the rounded outline) and its layout."""

    image: np.ndarray
    alpha: np.ndarray
    layout: FaceLayout
    px_per_mm: float


def sides_of(spec: CardSpec) -> tuple[Side, ...]:
    """The printed sides of a card: Valais cards have an event and a date side."""
    return (Side.EVENT, Side.DATE) if spec.game is Game.VALAIS else (Side.FRONT,)


def _stable_rng(*parts: object) -> np.random.Generator:
    """A generator seeded from a stable hash of ``parts`` (independent of PYTHONHASHSEED)."""
    return np.random.default_rng(zlib.crc32(repr(parts).encode("utf-8")))


# --------------------------------------------------------------------------------------------
# Layout


def _row(role: Role, count: int, cx: float, y0: float, w: float, h: float, gap: float) -> list[LayoutItem]:
    """``count`` equal boxes in a centred horizontal row."""
    total = count * w + max(0, count - 1) * gap
    x = cx - total / 2
    return [LayoutItem(role, Box(x + i * (w + gap), y0, x + i * (w + gap) + w, y0 + h)) for i in range(count)]


def _gladiola_layout(spec: CardSpec, style: CardStyle, w: float, h: float) -> list[LayoutItem]:
    """Via Gladiola: corner values, intervals, blister row, START days, FINISH banner, flower."""
    m = style.border_mm + 2.2
    items: list[LayoutItem] = []
    vw, vh = 21.0, 13.0
    if spec.kind in (CardKind.WALK, CardKind.FINISH):
        text = str(spec.value)
        items.append(LayoutItem(Role.VALUE, Box(m, m, m + vw, m + vh), text))
        items.append(LayoutItem(Role.UNIT, Box(m, m + vh + 1.2, m + 8.5, m + vh + 5.0), "km"))
        items.append(LayoutItem(Role.VALUE_ROTATED, Box(w - m - vw, h - m - vh, w - m, h - m), text, 180))
        items.append(LayoutItem(Role.UNIT, Box(w - m - 8.5, h - m - vh - 5.0, w - m, h - m - vh - 1.2), "km", 180))
    if spec.kind is CardKind.START:
        d = 8.0
        corners = [  # day 1 top right; each marker reads upright when its corner is at top right
            ("1", Box(w - m - d, m, w - m, m + d), 0),
            ("2", Box(m, m, m + d, m + d), 90),
            ("3", Box(m, h - m - d, m + d, h - m), 180),
            ("4", Box(w - m - d, h - m - d, w - m, h - m), 270),
        ]
        items += [LayoutItem(Role.DAY, box, text, angle) for text, box, angle in corners]
        items.append(LayoutItem(Role.BANNER, Box(m + d + 1, m + 1, w - m - d - 1, m + 7), "START"))
        items.append(LayoutItem(Role.VALUE, Box(w / 2 - 6, m + 11, w / 2 + 6, m + 11 + vh), "0"))
        items.append(LayoutItem(Role.UNIT, Box(w / 2 - 4.2, m + 12 + vh, w / 2 + 4.2, m + 15.8 + vh), "km"))
    if spec.kind in (CardKind.WALK, CardKind.START):
        v = spec.value or 0
        top = m + 22.0 if spec.kind is CardKind.WALK else m + 33.0
        for k in range(3):
            lo, hi = v + 1 + 5 * k, v + 5 + 5 * k
            items.append(LayoutItem(Role.INTERVAL, Box(m + 1, top + 8.2 * k, w - m - 1, top + 8.2 * k + 6.0),
                                    f"{lo}\u2013{hi}|{k}"))
    if spec.kind is CardKind.FINISH:
        items.append(LayoutItem(Role.BANNER, Box(m + 2, 34.0, w - m - 2, 44.0), "FINISH"))
    if spec.kind is CardKind.GLADIOLA:
        items.append(LayoutItem(Role.FLOWER, Box(m + 4, m + 2, w - m - 4, 62.0)))
        items.append(LayoutItem(Role.TITLE, Box(m + 2, 63.5, w - m - 2, 69.0), "Gladiole"))
    blisters = spec.blisters or 0
    if blisters:
        y0 = {CardKind.WALK: 58.5, CardKind.FINISH: 50.0, CardKind.GLADIOLA: 72.0}.get(spec.kind, 70.0)
        items += _row(Role.BLISTER, blisters, w / 2, y0, 8.2, 3.8, 1.6)
    return items


def _valais_layout(spec: CardSpec, style: CardStyle, side: Side, w: float, h: float) -> list[LayoutItem]:
    """Valais*Wallis: event side (picture + title) or date side (large year, date, title)."""
    m = style.border_mm + 2.0
    title = spec.title or ""
    items: list[LayoutItem] = []
    if side is Side.EVENT:
        items.append(LayoutItem(Role.PICTURE, Box(m, m, w - m, 60.0)))
        items.append(LayoutItem(Role.TITLE, Box(m + 0.5, 62.0, w - m - 0.5, h - m - 1.0), title))
        if spec.joker:
            items.append(LayoutItem(Role.JOKER, Box(w - m - 17.0, m + 1.0, w - m - 1.0, m + 7.0), "JOKER"))
        return items
    if spec.joker:
        items.append(LayoutItem(Role.JOKER, Box(w / 2 - 10.0, m + 1.5, w / 2 + 10.0, m + 8.0), "JOKER"))
    items.append(LayoutItem(Role.YEAR, Box(m + 1.0, 20.0, w - m - 1.0, 36.0), str(spec.year)))
    if spec.date and len(spec.date) == 10:
        yyyy, mm, dd = spec.date.split("-")
        items.append(LayoutItem(Role.DATE, Box(m + 6.0, 39.5, w - m - 6.0, 44.5), f"{int(dd)}.{int(mm)}.{yyyy}"))
    items.append(LayoutItem(Role.TITLE, Box(m + 0.5, 50.0, w - m - 0.5, h - m - 2.0), title))
    return items


def _appia_layout(spec: CardSpec, style: CardStyle, w: float, h: float) -> list[LayoutItem]:
    """Via Appia income card: stone half on top, sesterce half below; tiles print nothing."""
    if spec.kind is CardKind.TILE:
        return []
    m = style.border_mm + 2.0
    items: list[LayoutItem] = []
    half = h / 2
    stones, coins = spec.stones or 0, spec.sesterces or 0
    items.append(LayoutItem(Role.STONE_COUNT, Box(m + 1, m + 2, m + 12, m + 16), str(stones)))
    items.append(LayoutItem(Role.SESTERCE_COUNT, Box(m + 1, half + 3, m + 12, half + 17), str(coins)))
    items += _symbol_grid(Role.STONE, stones, Box(m + 14, m + 2, w - m - 1, half - 3), 9.0, 7.0)
    items += _symbol_grid(Role.SESTERCE, coins, Box(m + 14, half + 3, w - m - 1, h - m - 2), 8.0, 8.0)
    return items


def _symbol_grid(role: Role, count: int, area: Box, sw: float, sh: float) -> list[LayoutItem]:
    """Place ``count`` symbols of size sw x sh in rows of at most 3, centred in ``area``."""
    if count == 0:
        return []
    per_row = min(3, count)
    rows = (count + per_row - 1) // per_row
    gap_x = (area.width - per_row * sw) / (per_row + 1)
    gap_y = max(1.0, (area.height - rows * sh) / (rows + 1))
    items = []
    for i in range(count):
        r, c = divmod(i, per_row)
        in_row = min(per_row, count - r * per_row)
        offset = (per_row - in_row) * (sw + gap_x) / 2
        x = area.x0 + gap_x + offset + c * (sw + gap_x)
        y = area.y0 + gap_y + r * (sh + gap_y)
        items.append(LayoutItem(role, Box(x, y, x + sw, y + sh)))
    return items


def face_layout(spec: CardSpec, style: CardStyle, side: Side | None = None) -> FaceLayout:
    """The layout of one face of ``spec`` in ``style`` (``side`` defaults to the card's first side)."""
    if style.game is not spec.game:
        raise ValueError(f"expected a {spec.game.value} style for card {spec.id!r}, got {style.game.value}")
    sides = sides_of(spec)
    side = sides[0] if side is None else side
    if side not in sides:
        raise ValueError(f"card {spec.id!r}: expected a side in {[s.value for s in sides]}, got {side.value}")
    w, h = spec.size_mm()
    if spec.game is Game.GLADIOLA:
        items = _gladiola_layout(spec, style, w, h)
    elif spec.game is Game.VALAIS:
        items = _valais_layout(spec, style, side, w, h)
    else:
        items = _appia_layout(spec, style, w, h)
    return FaceLayout(spec, style, side, w, h, tuple(items))


# --------------------------------------------------------------------------------------------
# Drawing helpers


@lru_cache(maxsize=256)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT_DIR + name, max(4, size))


def _fit_font(name: str, text: str, width: int, height: int) -> ImageFont.FreeTypeFont:
    """The largest font size at which ``text``'s ink fits into width x height pixels."""
    probe = _font(name, 100)
    x0, y0, x1, y1 = probe.getbbox(text)
    scale = min(width / max(1, x1 - x0), height / max(1, y1 - y0))
    return _font(name, int(100 * scale))


def _text_in_box(img: Image.Image, box: tuple[int, int, int, int], text: str, font_name: str,
                 fill: RGB, angle: int = 0, align_left: bool = False) -> None:
    """Draw ``text`` scaled to fill ``box`` (ink bounding box), rotated by ``angle`` degrees CCW."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    tw, th = (bh, bw) if angle in (90, 270) else (bw, bh)
    font = _fit_font(font_name, text, tw, th)
    gx0, gy0, gx1, gy1 = font.getbbox(text)
    layer = Image.new("L", (tw, th), 0)
    ox = 0 if align_left else (tw - (gx1 - gx0)) // 2
    ImageDraw.Draw(layer).text((ox - gx0, (th - (gy1 - gy0)) // 2 - gy0), text, font=font, fill=255)
    if angle:
        layer = layer.rotate(angle, expand=True)
    img.paste(Image.new("RGB", layer.size, fill), (x0, y0), layer)


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """Greedy word wrap of ``text`` to ``width`` pixels."""
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _paragraph(img: Image.Image, box: tuple[int, int, int, int], text: str, font_name: str, fill: RGB,
               max_px: int) -> None:
    """Wrap ``text`` into ``box``, shrinking the font until it fits."""
    x0, y0, x1, y1 = box
    size = max_px
    while True:
        font = _font(font_name, size)
        lines = _wrap(text, font, x1 - x0)
        line_h = int(size * 1.18)
        widest = max((font.getlength(line) for line in lines), default=0)
        if (len(lines) * line_h <= y1 - y0 and widest <= x1 - x0) or size <= 8:
            break
        size -= 2
    draw = ImageDraw.Draw(img)
    top = y0 + ((y1 - y0) - len(lines) * line_h) // 2
    for i, line in enumerate(lines):
        lw = font.getlength(line)
        draw.text((x0 + ((x1 - x0) - lw) / 2, top + i * line_h), line, font=font, fill=fill)


def _shade(c: RGB, f: float) -> RGB:
    """Colour ``c`` scaled by ``f`` (clipped)."""
    return tuple(int(max(0, min(255, v * f))) for v in c)  # type: ignore[return-value]


def _draw_blister(draw: ImageDraw.ImageDraw, b: tuple[int, int, int, int], ppm: float) -> None:
    """A sticking plaster: beige rounded strip, darker outline, pale pad, a few vent holes."""
    x0, y0, x1, y1 = b
    r = (y1 - y0) // 2
    line = max(1, round(0.25 * ppm))
    draw.rounded_rectangle(b, radius=r, fill=(232, 190, 150), outline=(150, 96, 62), width=line)
    pw = (x1 - x0) * 0.3
    cx = (x0 + x1) / 2
    draw.rectangle((cx - pw / 2, y0 + line + 1, cx + pw / 2, y1 - line - 1), fill=(250, 232, 214))
    dot = max(1, round(0.22 * ppm))
    for fx in (0.17, 0.83):
        for fy in (0.35, 0.65):
            px, py = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
            draw.ellipse((px - dot / 2, py - dot / 2, px + dot / 2, py + dot / 2), fill=(176, 128, 92))


def _draw_card_icon(draw: ImageDraw.ImageDraw, x: float, y: float, h: float, style: CardStyle) -> None:
    """A small upright card symbol (one card to draw)."""
    w = h * 0.66
    draw.rounded_rectangle((x, y, x + w, y + h), radius=max(1, int(h * 0.12)), fill=style.accent,
                           outline=_shade(style.accent, 0.6), width=max(1, int(h * 0.08)))


def _draw_interval(img: Image.Image, item: LayoutItem, ppm: float, style: CardStyle) -> None:
    """One interval line: range text left, 0-2 card icons right (a dash for none)."""
    text, draws = (item.text or "|0").split("|")
    x0, y0, x1, y1 = item.box.px(ppm)
    h = y1 - y0
    draw = ImageDraw.Draw(img)
    draw.line((x0, y1, x1, y1), fill=_shade(style.accent, 0.9), width=max(1, int(0.2 * ppm)))
    _text_in_box(img, (x0 + int(0.5 * ppm), y0 + h // 6, x0 + int(0.62 * (x1 - x0)), y1 - h // 6), text,
                 style.text_font, style.ink, align_left=True)
    n = int(draws)
    icon_h = h * 0.8
    if n == 0:
        cx = x1 - icon_h * 0.8
        draw.line((cx - icon_h * 0.35, (y0 + y1) / 2, cx + icon_h * 0.35, (y0 + y1) / 2), fill=style.ink,
                  width=max(1, int(0.35 * ppm)))
    for k in range(n):
        _draw_card_icon(draw, x1 - (k + 1) * icon_h * 0.85, y0 + h * 0.1, icon_h, style)


def _draw_flower(img: Image.Image, b: tuple[int, int, int, int], spec: CardSpec) -> None:
    """A gladiola: curved stem, two sword leaves, a spike of funnel blossoms."""
    rng = _stable_rng("flower", spec.id)
    draw = ImageDraw.Draw(img)
    x0, y0, x1, y1 = b
    w, h = x1 - x0, y1 - y0
    cx = x0 + w * (0.5 + rng.uniform(-0.06, 0.06))
    bend = rng.uniform(-0.12, 0.12) * w
    stem = [(cx + bend * (t ** 2), y1 - t * h * 0.95) for t in np.linspace(0, 1, 12)]
    green = (52, 120, 50)
    draw.line(stem, fill=green, width=max(2, w // 40), joint="curve")
    for side in (-1, 1):
        leaf = [(cx, y1), (cx + side * w * 0.22, y0 + h * 0.45), (cx + side * w * 0.04, y1 - h * 0.1)]
        draw.polygon(leaf, fill=(70, 150, 64), outline=(40, 96, 40))
    petal = (int(rng.integers(200, 250)), int(rng.integers(40, 120)), int(rng.integers(60, 140)))
    for k in range(6):
        t = 0.45 + 0.09 * k
        px, py = stem[min(11, int(t * 11))]
        side = -1 if k % 2 else 1
        size = w * (0.2 - 0.018 * k)
        bx = px + side * size * 0.35
        draw.ellipse((bx - size / 2, py - size * 0.42, bx + size / 2, py + size * 0.42),
                     fill=petal, outline=_shade(petal, 0.65), width=max(1, w // 120))
        draw.ellipse((bx - size / 7, py - size / 7, bx + size / 7, py + size / 7), fill=(250, 236, 120))


def _draw_picture(img: Image.Image, b: tuple[int, int, int, int], spec: CardSpec, style: CardStyle) -> None:
    """A simple generated scene: sky, mountains with snow, a sun or moon, a house or figure."""
    rng = _stable_rng("picture", spec.id)
    bx0, by0, bx1, by1 = b
    pic = Image.new("RGB", (bx1 - bx0, by1 - by0))
    x0, y0, x1, y1 = 0, 0, bx1 - bx0, by1 - by0
    w, h = x1 - x0, y1 - y0
    sky_top = np.array([rng.integers(60, 140), rng.integers(120, 190), rng.integers(200, 250)], np.float32)
    sky_bottom = np.array([235, 225, 205], np.float32)
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    sky = (sky_top * (1 - t) + sky_bottom * t).astype(np.uint8)
    pic.paste(Image.fromarray(np.repeat(sky[:, None, :], w, axis=1)), (0, 0))
    draw = ImageDraw.Draw(pic)
    sr = w * rng.uniform(0.06, 0.1)
    sx, sy = x0 + w * rng.uniform(0.15, 0.85), y0 + h * rng.uniform(0.12, 0.3)
    draw.ellipse((sx - sr, sy - sr, sx + sr, sy + sr), fill=(250, 214, 90))
    for layer in range(int(rng.integers(2, 4))):
        base = y0 + h * (0.62 + 0.1 * layer)
        n = int(rng.integers(3, 6))
        peaks = [(x0, y1)]
        for k in range(n + 1):
            peaks.append((x0 + w * (k + rng.uniform(-0.3, 0.3)) / n, base - h * rng.uniform(0.1, 0.45)))
        peaks.append((x1, y1))
        tone = 150 - 40 * layer
        colour = (int(tone * 0.7), int(tone * 0.8), int(tone))
        draw.polygon(peaks, fill=colour)
        for px, py in peaks[1:-1]:
            if py < base - h * 0.25:
                cap = h * 0.07
                draw.polygon([(px, py), (px - cap * 0.8, py + cap), (px + cap * 0.8, py + cap)], fill=(245, 245, 250))
    draw.rectangle((x0, y1 - h * 0.12, x1, y1), fill=(84, 140, 70))
    fx = x0 + w * rng.uniform(0.2, 0.8)
    fy = y1 - h * 0.12
    draw.rectangle((fx - w * 0.04, fy - h * 0.14, fx + w * 0.04, fy - h * 0.02), fill=style.accent)
    draw.ellipse((fx - w * 0.035, fy - h * 0.22, fx + w * 0.035, fy - h * 0.14), fill=(236, 196, 160))
    img.paste(pic, (bx0, by0))
    draw = ImageDraw.Draw(img)
    draw.rectangle(b, outline=_shade(style.ink, 1.0), width=max(1, w // 120))


def _draw_stone_icon(draw: ImageDraw.ImageDraw, b: tuple[int, int, int, int], colour: RGB) -> None:
    """A hewn stone block seen slightly from above: top face lighter than the front."""
    x0, y0, x1, y1 = b
    w, h = x1 - x0, y1 - y0
    top = [(x0 + w * 0.18, y0), (x1, y0), (x1 - w * 0.18, y0 + h * 0.35), (x0, y0 + h * 0.35)]
    draw.polygon(top, fill=_shade(colour, 1.25))
    draw.polygon([(x0, y0 + h * 0.35), (x1 - w * 0.18, y0 + h * 0.35), (x1 - w * 0.18, y1), (x0, y1)],
                 fill=colour)
    draw.polygon([(x1 - w * 0.18, y0 + h * 0.35), (x1, y0), (x1, y1 - h * 0.35), (x1 - w * 0.18, y1)],
                 fill=_shade(colour, 0.7))


def _draw_coin(draw: ImageDraw.ImageDraw, b: tuple[int, int, int, int]) -> None:
    """A gold coin with a rim and an inner ring."""
    x0, y0, x1, y1 = b
    d = x1 - x0
    draw.ellipse(b, fill=(226, 178, 60), outline=(150, 100, 30), width=max(1, d // 12))
    inset = d * 0.22
    draw.ellipse((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=(170, 120, 40), width=max(1, d // 16))


def _stone_texture(w: int, h: int, spec: CardSpec, style: CardStyle) -> np.ndarray:
    """Grey stone: blotchy low-frequency tone, fine speckle, a few cracks and bevelled edges (RGB)."""
    rng = _stable_rng("stone", spec.id, style.name)
    base = np.array(style.accent2, np.float32)
    blotch = cv2.resize(rng.normal(0, 1, (max(2, h // 24), max(2, w // 24))).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    speck = rng.normal(0, 1, (h, w)).astype(np.float32)
    tone = 1.0 + 0.08 * blotch + 0.05 * speck
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys))
    bevel = np.clip(edge / max(2.0, 0.05 * min(w, h)), 0, 1)
    light = np.where((xs < ys * w / h), 1.12, 0.86).astype(np.float32)
    tone *= bevel + (1 - bevel) * light
    img = np.clip(base[None, None, :] * tone[..., None], 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(1, 4))):
        pts = [(float(rng.uniform(0, w)), float(rng.uniform(0, h)))]
        for _ in range(int(rng.integers(3, 7))):
            px, py = pts[-1]
            pts.append((px + float(rng.normal(0, w * 0.12)), py + float(rng.normal(0, h * 0.12))))
        cv2.polylines(img, [np.array(pts, np.int32)], False, tuple(int(c * 0.62) for c in style.accent2), 1,
                      cv2.LINE_AA)
    return img


# --------------------------------------------------------------------------------------------
# Rendering


def _paint_face(layout: FaceLayout, ppm: float) -> Image.Image:
    """Draw the face described by ``layout`` at ``ppm`` pixels per millimetre (RGB image)."""
    spec, style = layout.spec, layout.style
    W, H = round(layout.width_mm * ppm), round(layout.height_mm * ppm)
    if spec.kind is CardKind.TILE:
        return Image.fromarray(_stone_texture(W, H, spec, style))
    img = Image.new("RGB", (W, H), style.paper)
    draw = ImageDraw.Draw(img)
    bw = max(1, round(style.border_mm * ppm))
    r = round(style.corner_radius_mm * ppm)
    border = style.accent
    if spec.game is Game.VALAIS and layout.side is Side.DATE and style.name == "alpine":
        border = _shade(style.accent, 0.85)
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=r, outline=border, width=bw)
    if style.frame_line:
        inset = bw + round(0.8 * ppm)
        draw.rounded_rectangle((inset, inset, W - 1 - inset, H - 1 - inset), radius=max(1, r - inset // 2),
                               outline=_shade(style.accent, 0.8), width=max(1, round(0.25 * ppm)))
    if spec.game is Game.APPIA and spec.kind is CardKind.INCOME:
        y = H // 2
        draw.line((bw + ppm, y, W - bw - ppm, y), fill=style.accent, width=max(1, round(0.6 * ppm)))
    if spec.kind is CardKind.FINISH:
        banner = layout.boxes(Role.BANNER)[0].box.px(ppm)
        sq = max(2, round(2.5 * ppm))
        for i, x in enumerate(range(bw, W - bw, sq)):
            for j, yy in enumerate((banner[1] - 2 * sq, banner[1] - sq, banner[3] + 0, banner[3] + sq)):
                if (i + j) % 2 == 0:
                    draw.rectangle((x, yy, min(W - bw, x + sq) - 1, yy + sq - 1), fill=style.ink)
    for item in layout.items:
        b = item.box.px(ppm)
        role = item.role
        if role in (Role.VALUE, Role.VALUE_ROTATED, Role.YEAR, Role.STONE_COUNT, Role.SESTERCE_COUNT):
            _text_in_box(img, b, item.text or "", style.value_font, style.ink, item.angle)
        elif role is Role.UNIT:
            _text_in_box(img, b, item.text or "", style.text_font, _shade(style.ink, 1.3), item.angle)
        elif role is Role.INTERVAL:
            _draw_interval(img, item, ppm, style)
        elif role is Role.BLISTER:
            _draw_blister(draw, b, ppm)
        elif role is Role.DAY:
            draw.ellipse(b, fill=style.accent)
            pad = (b[2] - b[0]) // 4
            _text_in_box(img, (b[0] + pad, b[1] + pad, b[2] - pad, b[3] - pad), item.text or "",
                         style.value_font, style.paper, item.angle)
        elif role is Role.BANNER:
            _text_in_box(img, b, item.text or "", style.value_font, style.accent2 if spec.kind is CardKind.START
                         else style.ink)
        elif role is Role.FLOWER:
            _draw_flower(img, b, spec)
        elif role is Role.PICTURE:
            _draw_picture(img, b, spec, style)
        elif role is Role.TITLE:
            if spec.kind is CardKind.GLADIOLA:
                _text_in_box(img, b, item.text or "", style.text_font, style.ink)
            else:
                _paragraph(img, b, item.text or "", style.text_font, style.ink, max_px=round(3.6 * ppm))
        elif role is Role.DATE:
            _text_in_box(img, b, item.text or "", style.text_font, style.ink)
        elif role is Role.JOKER:
            draw.rounded_rectangle(b, radius=(b[3] - b[1]) // 2, fill=style.accent2 if style.name != "alpine"
                                   else style.accent)
            pad = (b[3] - b[1]) // 5
            _text_in_box(img, (b[0] + 2 * pad, b[1] + pad, b[2] - 2 * pad, b[3] - pad), "JOKER",
                         "DejaVuSans-Bold.ttf", (255, 255, 255))
        elif role is Role.STONE:
            _draw_stone_icon(draw, b, style.accent2)
        elif role is Role.SESTERCE:
            _draw_coin(draw, b)
    return img


@lru_cache(maxsize=64)
def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    """255 inside a rounded rectangle filling w x h, anti-aliased edges (read-only, cached)."""
    scale = 4
    big = Image.new("L", (w * scale, h * scale), 0)
    ImageDraw.Draw(big).rounded_rectangle((0, 0, w * scale - 1, h * scale - 1), radius=radius * scale, fill=255)
    mask = np.asarray(big.resize((w, h), Image.Resampling.BOX))
    mask.setflags(write=False)
    return mask


@lru_cache(maxsize=2048)
def render_face(spec: CardSpec, style: CardStyle, side: Side | None = None,
                px_per_mm: float = PRINT_PX_PER_MM) -> Face:
    """Render one face. Cached: the returned arrays are read-only and shared."""
    layout = face_layout(spec, style, side)
    img = cv2.cvtColor(np.asarray(_paint_face(layout, px_per_mm)), cv2.COLOR_RGB2BGR)
    h, w = img.shape[:2]
    radius = 1 if spec.kind is CardKind.TILE else round(style.corner_radius_mm * px_per_mm)
    alpha = _rounded_mask(w, h, radius)
    img.setflags(write=False)
    return Face(img, alpha, layout, px_per_mm)
