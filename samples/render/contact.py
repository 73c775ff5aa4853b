"""A contact sheet of the renderer's output: card faces in every style, then sample scenes.

``python -m samples.render.contact docs/contact-sheet.png``
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from samples.render.cards import STYLES, render_face, sides_of
from samples.render.dataset import scene_seed
from samples.render.scene import render_scene
from samples.render.specs import CardKind, CardSpec, Game, default_specs

FACE_PPM = 2.5
BACKGROUND = (60, 60, 60)


def _examples(game: Game, specs: tuple[CardSpec, ...]) -> list[CardSpec]:
    """A few telling cards of a game: one of each kind, jokers and full dates included."""
    if game is Game.GLADIOLA:
        picks = [next(s for s in specs if s.kind is k) for k in (CardKind.START, CardKind.FINISH, CardKind.GLADIOLA)]
        walks = [s for s in specs if s.kind is CardKind.WALK]
        return picks + [max(walks, key=lambda s: (s.blisters or 0, s.value or 0)), walks[len(walks) // 2]]
    if game is Game.VALAIS:
        joker = next(s for s in specs if s.joker)
        plain = next(s for s in specs if not s.joker and s.date and len(s.date) == 4 and s.year != joker.year)
        return [joker, plain]
    income = [s for s in specs if s.kind is CardKind.INCOME]
    income = [income[0], next(s for s in income if (s.stones, s.sesterces) != (income[0].stones, income[0].sesterces))]
    tiles = [s for s in specs if s.kind is CardKind.TILE]
    return income + [tiles[0], tiles[-1]]


def _cell(img: np.ndarray, h: int) -> np.ndarray:
    """Pad an image to height ``h`` on the sheet background."""
    out = np.full((h, img.shape[1] + 8, 3), BACKGROUND, np.uint8)
    out[:img.shape[0], 4:4 + img.shape[1]] = img
    return out


def face_rows() -> list[np.ndarray]:
    """One row per (game, style) of example faces, alpha-composited on the background."""
    rows = []
    for game in Game:
        specs = default_specs(game)
        for style in STYLES[game]:
            cells = []
            for spec in _examples(game, specs):
                for side in sides_of(spec):
                    face = render_face(spec, style, side, FACE_PPM)
                    a = face.alpha.astype(np.float32)[..., None] / 255
                    img = (face.image * a + np.array(BACKGROUND) * (1 - a)).astype(np.uint8)
                    cells.append(_cell(img, round(91 * FACE_PPM) + 6))
            rows.append(np.hstack(cells))
    return rows


def scene_tiles(per_game: int = 4, width: int = 420) -> list[np.ndarray]:
    """Rows of downscaled sample scenes, ``per_game`` per game."""
    tiles = []
    for game in Game:
        images = []
        for i in range(per_game):
            scene = render_scene(scene_seed(2, i), game)
            h = round(width * scene.image.shape[0] / scene.image.shape[1])
            img = cv2.resize(scene.image, (width, h), interpolation=cv2.INTER_AREA)
            images.append(_cell(img, round(width * 0.75) + 6))
        tiles.append(np.hstack(images))
    return tiles


def contact_sheet(path: str | Path) -> Path:
    """Write the sheet (PNG) and return its path."""
    rows = face_rows() + scene_tiles()
    width = max(r.shape[1] for r in rows)
    padded = [np.hstack([r, np.full((r.shape[0], width - r.shape[1], 3), BACKGROUND, np.uint8)]) for r in rows]
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), np.vstack(padded), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return out


if __name__ == "__main__":
    print(contact_sheet(sys.argv[1] if len(sys.argv) > 1 else "docs/contact-sheet.png"))
