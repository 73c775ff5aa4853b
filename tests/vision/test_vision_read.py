"""Reading rectified cards: glyph classifier, readers on warped rendered faces, abstention."""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from samples.render.cards import render_face, style_named
from samples.render.specs import CardSpec, Game, Side, default_specs
from vision.read import ACCEPT, READ_H, READ_W, Deck, classify, read_card
from vision.read.types import Face
from vision.types import CardKind


def _specs() -> dict[str, CardSpec]:
    return {s.id: s for g in Game for s in default_specs(g)}


SPECS = _specs()


def _digit_mask(digit: int, font: str) -> np.ndarray:
    f = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/" + font, 40)
    img = Image.new("L", (60, 60), 0)
    ImageDraw.Draw(img).text((10, 5), str(digit), font=f, fill=255)
    return (np.asarray(img) > 127).astype(np.uint8)


@pytest.mark.parametrize("digit", range(10))
@pytest.mark.parametrize("font", ["DejaVuSerifCondensed-Bold.ttf", "DejaVuSans-BoldOblique.ttf"])
def test_glyph_classifier_reads_fonts_outside_its_bank(digit: int, font: str) -> None:
    match = classify(_digit_mask(digit, font))
    assert match.digit == digit
    assert match.margin > 0


def _camera_view(face: np.ndarray, seed: int, turned: bool) -> np.ndarray:
    """The face as a camera sees it: perspective warp into a small quad, blur, noise, JPEG; then
    rectified back with the corner order of the detector (either end may be the top)."""
    rng = np.random.default_rng(seed)
    h, w = face.shape[:2]
    scale = rng.uniform(0.35, 0.6)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) * scale + rng.normal(0, 0.02 * w * scale, (4, 2)).astype(np.float32)
    dst += 40
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst.astype(np.float32))
    canvas = np.full((int(h * scale) + 80, int(w * scale) + 80, 3), 90, np.uint8)
    cam = cv2.warpPerspective(face, m, (canvas.shape[1], canvas.shape[0]), dst=canvas,
                              borderMode=cv2.BORDER_TRANSPARENT)
    cam = cv2.GaussianBlur(cam, (0, 0), rng.uniform(0.5, 1.2))
    cam = np.clip(cam + rng.normal(0, 3, cam.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", cam, [cv2.IMWRITE_JPEG_QUALITY, 70])
    cam = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    src = dst[[2, 3, 0, 1]] if turned else dst
    back = cv2.getPerspectiveTransform(src.astype(np.float32), np.float32([[0, 0], [READ_W, 0], [READ_W, READ_H], [0, READ_H]]))
    return cv2.warpPerspective(cam, back, (READ_W, READ_H))


FACE_CASES = [
    ("W07", "meadow", None), ("W30", "postcard", None), ("W47", "trail", None), ("W18", "trail", None),
    ("1", "marble", None), ("2", "forum", None),
]


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("card_id,style,side", FACE_CASES)
def test_reader_on_warped_faces(card_id: str, style: str, side: Side | None, turned: bool) -> None:
    spec = SPECS[card_id]
    face = np.ascontiguousarray(render_face(spec, style_named(spec.game, style), side, 6.0).image)
    seed = zlib.crc32(f"{card_id}/{style}".encode()) % 1000  # stable across runs (unlike hash())
    reading = read_card(_camera_view(face, seed, turned), Deck.for_game(spec.game.value))
    assert reading.kind.value == spec.kind.value
    assert reading.flipped is turned
    if spec.game is Game.GLADIOLA:
        assert reading.value == spec.value
        assert reading.blisters in (spec.blisters, None)
    else:
        assert (reading.stones, reading.sesterces) == (spec.stones, spec.sesterces)
    assert reading.confidence >= ACCEPT


def _first_dated(style: str) -> CardSpec:
    return next(s for s in default_specs(Game.VALAIS) if s.date and len(s.date) == 10 and not s.joker)


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("style", ["alpine", "heritage"])
def test_year_and_date_on_date_side(style: str, turned: bool) -> None:
    spec = _first_dated(style)
    face = np.ascontiguousarray(render_face(spec, style_named(Game.VALAIS, style), Side.DATE, 6.0).image)
    reading = read_card(_camera_view(face, 7, turned), Deck.for_game("valais"))
    assert reading.kind is CardKind.TIMELINE and reading.face is Face.DATE
    assert reading.flipped is turned
    assert reading.date is not None and reading.date.year == spec.year
    if reading.date.month is not None:
        assert reading.date.to_json() == spec.date


@pytest.mark.parametrize("crop", [
    np.full((READ_H, READ_W, 3), 235, np.uint8),
    np.random.default_rng(1).integers(0, 256, (READ_H, READ_W, 3), dtype=np.uint8),
    np.zeros((50, 30, 3), np.uint8),
])
def test_blank_or_garbage_crop_abstains(crop: np.ndarray) -> None:
    reading = read_card(crop)
    assert reading.kind is CardKind.UNKNOWN
    assert reading.value is None and reading.blisters is None and reading.date is None
    assert reading.confidence < ACCEPT


def _pale(face: np.ndarray, contrast: float) -> np.ndarray:
    """The face printed with ``contrast`` times its ink depth (a pale print), softened a little,
    at the reading size."""
    pale = (255 - (255 - face.astype(np.float32)) * contrast).astype(np.uint8)
    small = cv2.resize(pale, (READ_W, READ_H), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), 1.0)


@pytest.mark.parametrize("card_id,style", [("W25", "trail"), ("W07", "meadow"), ("W30", "postcard")])
def test_pale_print_with_clear_glyphs_reads(card_id: str, style: str) -> None:
    """A print whose darkest ink is washed out (the blur gate is shut) still reads when its
    glyphs are clearly one number; a fainter one abstains rather than guess."""
    from vision.read.reader import _blur_gate, analyse

    spec = SPECS[card_id]
    face = np.ascontiguousarray(render_face(spec, style_named(spec.game, style), None, 6.0).image)
    crop = _pale(face, 0.6)
    assert _blur_gate(analyse(crop)) == 0.0
    reading = read_card(crop, Deck.for_game("gladiola"))
    assert reading.value == spec.value
    assert ACCEPT <= reading.field_confidences.value < 1.0  # a soft print never reads with full confidence
    assert read_card(_pale(face, 0.45), Deck.for_game("gladiola")).value is None


def test_blur_gate_refuses_close_calls_on_soft_prints() -> None:
    from vision.read.reader import _gated

    assert _gated(0.7, 1.0) == pytest.approx(0.7)  # a sharp print is not touched
    assert _gated(0.95, 0.0) >= ACCEPT  # clear glyphs on a soft print
    assert _gated(0.75, 0.0) < ACCEPT  # a close call on a soft print
    assert _gated(0.75, 0.5) >= ACCEPT
    assert _gated(0.1, 0.0) == 0.0
