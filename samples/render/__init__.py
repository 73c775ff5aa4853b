"""Card and scene renderer with ground truth: synthetic, realistic test data for vision work.

* :mod:`samples.render.specs`: what is printed on a card (:class:`CardSpec`) and readers for the
  deck, catalogue and income files.
* :mod:`samples.render.cards`: card styles, face layouts (where each printed element is) and
  face rendering.
* :mod:`samples.render.scene`: :func:`render_scene`, a webcam-like photo of a table with exact
  ground truth (corners, visible fraction, conditions).
* :mod:`samples.render.dataset`: :func:`write_set` and :func:`bench_render`.

Command line: ``python -m samples.render set OUT --game G --count N --seed S`` and
``python -m samples.render bench --n N``.
"""

from samples.render.cards import STYLES, Box, CardStyle, Face, FaceLayout, LayoutItem, Role, face_layout, render_face
from samples.render.dataset import BenchStats, bench_render, scene_seed, write_set
from samples.render.layouts import GAME_LAYOUTS, LayoutKind, Placement
from samples.render.scene import (BlurKind, CardTruth, Conditions, GroundTruth, Lighting, Occlusion, Scene,
                                  SceneConfig, render_scene)
from samples.render.specs import (CardKind, CardSpec, Game, Side, SizeClass, appia_road_tiles, default_specs,
                                  read_appia_income, read_gladiola_deck, read_valais_catalogue)
from samples.render.tables import TableKind

__all__ = [
    "BenchStats", "BlurKind", "Box", "CardKind", "CardSpec", "CardStyle", "CardTruth", "Conditions", "Face",
    "FaceLayout", "GAME_LAYOUTS", "Game", "GroundTruth", "LayoutItem", "LayoutKind", "Lighting", "Occlusion",
    "Placement", "Role", "STYLES", "Scene", "SceneConfig", "Side", "SizeClass", "TableKind", "appia_road_tiles",
    "bench_render", "default_specs", "face_layout", "read_appia_income", "read_gladiola_deck",
    "read_valais_catalogue", "render_face", "render_scene", "scene_seed", "write_set",
]
