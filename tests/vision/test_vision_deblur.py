"""Motion blur estimated from a frame's cepstrum and taken back out; the pipeline reads only the
fields a blurred card left open from the deblurred frame."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from samples.render import SceneConfig, render_scene
from samples.render.scene import BlurKind
from samples.render.specs import Game
from vision.deblur import MotionBlur, deblur, estimate_motion_blur
from vision.errors import InvalidImageError
from vision.pipeline import PLAIN_SMEAR, CardReader, PipelineConfig, _filled_in
from vision.read import Deck
from vision.read.types import CardReading, Face
from vision.types import CardKind, FieldConfidences


def _sharp_scene(seed: int) -> np.ndarray:
    return render_scene(seed, Game.GLADIOLA, SceneConfig(resolution=(1280, 720), degrade=False)).image


def _smeared(image: np.ndarray, blur: MotionBlur, quality: int = 85) -> np.ndarray:
    out = cv2.filter2D(image, -1, blur.kernel(), borderType=cv2.BORDER_REFLECT)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@pytest.mark.parametrize("length,degrees", [(6.0, 30.0), (9.0, 115.0), (11.0, 160.0)])
def test_the_length_and_direction_of_a_motion_blur_are_found(length: float, degrees: float) -> None:
    blurred = _smeared(_sharp_scene(31), MotionBlur(length, math.radians(degrees), 0.0))
    found = estimate_motion_blur(blurred)
    assert found is not None
    assert abs(found.length - length) <= 1.5
    # (what matters for taking it out: how far the ends of the found line miss the true one's)
    off = math.radians((math.degrees(found.angle) - degrees + 90.0) % 180.0 - 90.0)
    assert length * abs(math.sin(off)) <= 1.5, f"found {math.degrees(found.angle):.0f} degrees for {degrees:.0f}"
    assert found.prominence >= PLAIN_SMEAR  # (a plain smear: plasters may be counted after it)


@pytest.mark.parametrize("radius", [2, 3])
def test_a_defocused_frame_shows_no_plain_smear(radius: int) -> None:
    # the deepest point of a defocused frame's cepstrum hardly stands out of its ring: plasters
    # are not counted on crops deblurred with the motion kernel it suggests
    kernel = np.zeros((2 * radius + 1, 2 * radius + 1), np.float32)
    cv2.circle(kernel, (radius, radius), radius, 1.0, -1, cv2.LINE_AA)
    defocused = cv2.filter2D(_sharp_scene(31), -1, kernel / kernel.sum())
    ok, data = cv2.imencode(".jpg", defocused, [cv2.IMWRITE_JPEG_QUALITY, 85])
    found = estimate_motion_blur(cv2.imdecode(data, cv2.IMREAD_COLOR))
    assert found is not None and found.prominence < PLAIN_SMEAR


def test_deblurring_brings_the_frame_back_towards_the_sharp_one() -> None:
    sharp = _sharp_scene(32)
    blur = MotionBlur(9.0, math.radians(50.0), 0.0)
    blurred = _smeared(sharp, blur, quality=95)
    box = (300, 150, 900, 550)
    x0, y0, x1, y1 = box
    before = np.abs(blurred[y0:y1, x0:x1].astype(float) - sharp[y0:y1, x0:x1]).mean()
    restored = deblur(blurred, blur, box)
    assert restored.shape == (y1 - y0, x1 - x0, 3) and restored.dtype == np.uint8
    after = np.abs(restored.astype(float) - sharp[y0:y1, x0:x1]).mean()
    assert after < 0.9 * before, f"mean error {before:.1f} -> {after:.1f}"


def test_bad_input_gives_a_clear_error_or_no_estimate() -> None:
    assert estimate_motion_blur(np.zeros((100, 100, 3), np.uint8)) is None  # (smaller than a tile)
    assert estimate_motion_blur(np.full((400, 400), 128, np.uint8)) is None  # (no texture)
    with pytest.raises(InvalidImageError):
        estimate_motion_blur(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(InvalidImageError):
        deblur(np.zeros((50, 50, 3), np.uint8), MotionBlur(5.0, 0.3, 0.0), (60, 60, 80, 80))


def _walk(value: int | None, blisters: int | None, kind: CardKind = CardKind.WALK) -> CardReading:
    return CardReading(kind=kind, face=Face.FRONT, value=value, blisters=blisters, confidence=0.9,
                       field_confidences=FieldConfidences(kind=0.9, value=0.9 if value is not None else 0.0,
                                                          blisters=0.8 if blisters is not None else 0.0))


def test_only_the_fields_left_open_are_filled_in() -> None:
    assert _filled_in(_walk(23, None), _walk(23, 2)) == CardReading(
        kind=CardKind.WALK, face=Face.FRONT, value=23, blisters=2, confidence=0.8,
        field_confidences=FieldConfidences(kind=0.9, value=0.9, blisters=0.8))
    filled = _filled_in(_walk(23, None), _walk(None, 2))
    assert (filled.value, filled.blisters, filled.confidence) == (23, 2, 0.8)
    # another card named (another value, another kind): the first reading stands; an unknown
    # card takes the second whole
    assert _filled_in(_walk(23, None), _walk(28, 2)) == _walk(23, None)
    assert _filled_in(_walk(None, None), _walk(None, 3, CardKind.GLADIOLA)) == _walk(None, None)
    assert _filled_in(CardReading(), _walk(12, 1)) == _walk(12, 1)
    assert _filled_in(CardReading(), CardReading()) == CardReading()


def test_a_motion_blurred_scene_reads_more_with_deblurring_and_nothing_against_it() -> None:
    scene = render_scene(1174, Game.GLADIOLA, SceneConfig(resolution=(1280, 720), blur=BlurKind.MOTION,
                                                          hands=0, glare=False))
    assert scene.truth.conditions.blur_px >= 6.0  # (a blur that leaves most of the print unread)
    deck = Deck.for_game("gladiola")
    plain = CardReader(PipelineConfig(deck=deck, tesseract=False)).read_frame(scene.image)
    reader = CardReader(PipelineConfig(deck=deck, tesseract=False, deblur=True))
    sharpened = reader.read_frame(scene.image)
    assert reader.deblurred_reads > 0

    def fields(result) -> int:
        return sum((o.value is not None) + (o.blisters is not None) + (o.kind is not CardKind.UNKNOWN)
                   for o in result.observations)

    assert fields(sharpened) > fields(plain)
    for o in sharpened.observations:
        centre = o.quad.as_array().mean(axis=0)
        near = [c for c in scene.truth.cards if np.hypot(*(np.mean(c.corners, axis=0) - centre)) < 20]
        if o.kind is CardKind.UNKNOWN or not near:
            continue
        spec = near[0].spec
        assert o.kind.value == spec.kind.value
        assert o.value in (None, spec.value)
        assert o.blisters in (None, spec.blisters)
