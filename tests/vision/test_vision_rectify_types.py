"""rectify output and orientation; Quad ordering and JSON round trips."""

from __future__ import annotations

import numpy as np
import pytest

from synth_cards import background, card_quad, paste_card
from vision.errors import InvalidQuadError, VisionError
from vision.rectify import RectifyConfig, outside_mask, rectify
from vision.types import CardDate, CardKind, CardObservation, FieldConfidences, FrameResult, Quad


def _marked_card() -> np.ndarray:
    """A plain card face with a black bar across its top end."""
    face = np.full((360, 250, 3), 240, np.uint8)
    face[10:60] = 0
    return face


@pytest.mark.parametrize("angle", [0, 90, 180 + 30, 270, 300])
def test_rectify_is_portrait_with_requested_size(angle: float) -> None:
    img = background("dark")
    quad = card_quad((640, 360), 330, angle)
    paste_card(img, quad, _marked_card(), shadow=False)
    for order in (quad, quad[::-1], np.roll(quad, 1, axis=0)):
        out = rectify(img, Quad.from_array(order))
        assert out.shape == (460, 300, 3)
        # The bar is across a short end: its rows are dark, the middle rows are light.
        ends = min(out[20:60].mean(), out[-60:-20].mean())
        assert ends < 80 and out[200:260].mean() > 180


def test_upside_down_hook_turns_card() -> None:
    img = background("dark")
    quad = card_quad((640, 360), 330, 0)
    paste_card(img, quad, _marked_card(), shadow=False)
    plain = rectify(img, Quad.from_array(quad))
    assert plain[20:60].mean() < 80  # bar at top
    turned = rectify(img, Quad.from_array(quad), upside_down=lambda card: bool(card[20:60].mean() < 80))
    assert turned[-60:-20].mean() < 80 and turned[20:60].mean() > 180


def test_rectify_config_must_be_portrait() -> None:
    with pytest.raises(VisionError, match="portrait"):
        RectifyConfig(width=500, height=300)
    out = rectify(background("dark"), Quad.from_array(card_quad((640, 360), 300, 10)), RectifyConfig(100, 160))
    assert out.shape == (160, 100, 3)


def test_rectify_refuses_non_convex_quad() -> None:
    with pytest.raises(InvalidQuadError):
        rectify(background("dark"), Quad.from_array([[0, 0], [100, 100], [100, 0], [0, 100]]))


@pytest.mark.parametrize(
    "points, first",
    [
        ([[10, 10], [80, 10], [80, 110], [10, 110]], (10, 10)),  # upright, already ordered
        ([[10, 110], [80, 110], [80, 10], [10, 10]], (10, 10)),  # counter-clockwise input
        ([[0, 0], [120, 0], [120, 70], [0, 70]], (0, 70)),  # landscape: tie on height, the left end is the top
    ],
)
def test_card_order_starts_top_left_clockwise_long_side_vertical(points, first) -> None:
    q = Quad.card_order(points)
    assert q.corners[0] == first
    top, right, bottom, left = q.side_lengths()
    assert top < right and bottom < left
    arr = q.as_array()
    u, v = arr[1] - arr[0], arr[2] - arr[1]
    cross = u[0] * v[1] - u[1] * v[0]
    assert cross > 0  # clockwise on screen (y down)


def test_quad_validation_and_geometry() -> None:
    with pytest.raises(InvalidQuadError, match="4"):
        Quad.from_array([[0, 0], [1, 0], [1, 1]])
    with pytest.raises(InvalidQuadError, match="finite"):
        Quad(((0, 0), (1, 0), (1, float("nan")), (0, 1)))
    q = Quad.from_array([[0, 0], [10, 0], [10, 20], [0, 20]])
    assert q.area == 200 and q.bbox() == (0, 0, 10, 20) and q.centroid == (5, 10)
    assert Quad.from_json(q.to_json()) == q


def test_frame_result_json_round_trip() -> None:
    obs = CardObservation(
        quad=Quad.from_array([[1.5, 2], [30, 2], [30, 50], [1.5, 50]]),
        kind=CardKind.TIMELINE,
        date=CardDate(1865, 8, 4),
        confidence=0.8,
        field_confidences=FieldConfidences(kind=0.9, date=0.7),
        image=np.zeros((4, 4, 3), np.uint8),
    )
    frame = FrameResult(640, 480, (obs,))
    data = frame.to_json()
    assert data["image"] == {"width": 640, "height": 480}
    assert data["cards"][0]["date"] == "1865-08-04" and data["cards"][0]["kind"] == "timeline"
    back = FrameResult.from_json(data)
    assert back.observations[0].date == CardDate(1865, 8, 4)
    assert back.observations[0].quad == obs.quad


@pytest.mark.parametrize("text", ["18x5", "1865-13", "", "1865-08-4"])
def test_bad_dates_are_refused(text: str) -> None:
    with pytest.raises(VisionError):
        CardDate.from_json(text)


def test_confidence_out_of_range_is_refused() -> None:
    with pytest.raises(VisionError, match=r"\[0, 1\]"):
        FieldConfidences(kind=1.5)


@pytest.mark.parametrize("kind,stones,sesterces,size,keys", [
    (CardKind.INCOME, 3, 1, None, {"stones": 3, "sesterces": 1}),
    (CardKind.INCOME, None, None, None, {"stones": None, "sesterces": None}),
    (CardKind.UNKNOWN, None, None, "medium", {"size": "medium"}),
    (CardKind.WALK, None, None, None, {}),
])
def test_income_halves_and_tile_size_in_read_json(kind, stones, sesterces, size, keys) -> None:
    obs = CardObservation(quad=Quad.from_array([[0, 0], [20, 0], [20, 30], [0, 30]]), kind=kind, stones=stones,
                          sesterces=sesterces, size=size, confidence=0.7)
    data = obs.to_json()
    assert data["value"] is None and data["blisters"] is None
    extra = {k: v for k, v in data.items() if k not in ("corners", "kind", "value", "blisters", "date", "confidence")}
    assert extra == keys
    back = CardObservation.from_json(data)
    assert (back.stones, back.sesterces, back.size) == (stones, sesterces, size)


def test_unknown_tile_size_is_refused() -> None:
    with pytest.raises(VisionError):
        CardObservation(quad=Quad.from_array([[0, 0], [20, 0], [20, 30], [0, 30]]), size="huge")


def test_outside_mask_marks_the_part_of_a_crop_beyond_the_image() -> None:
    img = background("dark")  # 640 x 360
    h, w = img.shape[:2]
    # A portrait quad whose right half lies beyond the image's right edge.
    quad = Quad.from_array([[w - 100, 50], [w + 100, 50], [w + 100, 350], [w - 100, 350]])
    config = RectifyConfig(100, 150)
    mask = outside_mask(img.shape[:2], quad, config)
    assert mask.shape == (150, 100) and mask.dtype == bool
    assert mask[:, 52:].all() and not mask[:, :48].any()
    # Fully inside: nothing outside; any corner order gives the same mask.
    inside = Quad.from_array(card_quad((320, 180), 300, 10))
    assert not outside_mask(img.shape[:2], inside, config).any()
    flipped = outside_mask(img.shape[:2], Quad.from_array(np.roll(quad.as_array(), 2, axis=0)), config)
    assert (flipped == mask).all()
    with pytest.raises(VisionError, match="image size"):
        outside_mask((0, 10), quad, config)
