"""Enrolled cards that are hard to tell apart: skewed enrollment crops, blurred near twins."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, enroll
from calibration.features import (
    LUMA_H,
    LUMA_W,
    Descriptor,
    align_template,
    blur_kernels,
    blur_luma,
    describe,
    warp_luma,
)
from tests.calibration.blur import streak

W, H = 240, 368


def slate(label: CardLabel) -> np.ndarray:
    """A dark card with a light frame, a big value, a small corner value and a blister column."""
    img = np.full((H, W, 3), (74, 58, 48), np.uint8)
    cv2.rectangle(img, (10, 10), (W - 11, H - 11), (236, 240, 242), 2, cv2.LINE_AA)
    text = "*" if label.value is None else str(label.value)
    cv2.putText(img, text, (50, 200), cv2.FONT_HERSHEY_DUPLEX, 2.8, (236, 240, 242), 6, cv2.LINE_AA)
    cv2.putText(img, text, (22, 48), cv2.FONT_HERSHEY_DUPLEX, 0.8, (80, 220, 250), 2, cv2.LINE_AA)
    for k in range(label.blisters or 0):
        cv2.circle(img, (W - 36, 60 + 36 * k), 14, (40, 120, 240), -1, cv2.LINE_AA)
    return img


LABELS = (
    CardLabel("W24", DeckKind.WALK, 24, 2),
    CardLabel("W34", DeckKind.WALK, 34, 2),
    CardLabel("W44", DeckKind.WALK, 44, 2),
    CardLabel("W28", DeckKind.WALK, 28, 0),
    CardLabel("W29", DeckKind.WALK, 29, 0),
    CardLabel("G3", DeckKind.GLADIOLA, None, 3),
    CardLabel("G4", DeckKind.GLADIOLA, None, 4),
    CardLabel("G5", DeckKind.GLADIOLA, None, 5),
)


def skewed(img: np.ndarray, corner: tuple[float, float]) -> np.ndarray:
    """``img`` as cut out from a quad whose top-right corner was ``corner`` pixels off."""
    src = np.float32([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    dst = src.copy()
    dst[1] += corner
    m = cv2.getPerspectiveTransform(dst, src)
    return cv2.warpPerspective(img, m, (W, H), borderMode=cv2.BORDER_REPLICATE)


def seen(card: np.ndarray, seed: int, turned: bool = False, blur: np.ndarray | None = None) -> np.ndarray:
    """The card as cut out of a camera frame: a little tilted, blurred, noisy, under coloured light."""
    rng = np.random.default_rng(seed)
    if turned:
        card = cv2.rotate(card, cv2.ROTATE_180)
    src = np.float32([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    m = cv2.getPerspectiveTransform(src, src + rng.normal(0, 1.5, (4, 2)).astype(np.float32))
    view = cv2.warpPerspective(card, m, (W, H), borderMode=cv2.BORDER_REPLICATE)
    if blur is not None:
        view = cv2.filter2D(view, -1, blur)
    gains = rng.uniform(0.85, 1.05, 3)
    return np.clip(view * gains + rng.normal(0, 3, view.shape), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def skewed_matcher() -> DeckMatcher:
    """W34 and G4 were enrolled from crops cut with one corner about 3 mm off."""
    off = {"W34": (-12.0, 6.0), "G4": (-10.0, -5.0)}
    cards = [(lab, skewed(slate(lab), off[lab.identity]) if lab.identity in off else slate(lab)) for lab in LABELS]
    return DeckMatcher(enroll(DeckGame.GLADIOLA, cards))


def test_alignment_undoes_a_skew():
    luma = describe(slate(LABELS[1])).luma
    warp = np.float64([[1.015, 0.02, 0.5], [0.005, 0.985, -0.4], [0.0001, 0.0, 1.0]])
    bent = warp_luma(luma, warp)
    found = align_template(bent, luma, np.ones((LUMA_H, LUMA_W), bool))
    assert found is not None
    before = float(np.abs(bent - luma).mean())
    after = float(np.abs(bent - warp_luma(luma, found)).mean())
    assert after < 0.3 * before


def test_alignment_refuses_a_far_move():
    luma = describe(slate(LABELS[1])).luma
    far = warp_luma(luma, np.float64([[1, 0, 8.0], [0, 1, 0], [0, 0, 1]]))
    assert align_template(far, luma, np.ones((LUMA_H, LUMA_W), bool), 0.0, 0.0) is None


@pytest.mark.parametrize("identity", ["W34", "W24", "W44", "G3", "G5"])
@pytest.mark.parametrize("seed", [1, 2])
def test_near_twins_with_a_skewed_enrollment_crop(skewed_matcher, identity, seed):
    label = next(lab for lab in LABELS if lab.identity == identity)
    m = skewed_matcher.match(seen(slate(label), seed, turned=seed == 2))
    assert m is not None
    assert (m.kind, m.value, m.blisters, m.flipped) == (label.kind, label.value, label.blisters, seed == 2)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_skewed_blister_twin_is_never_read_wrong(skewed_matcher, seed):
    """G4's own crop is skewed: it may leave its blister count open, but never names another."""
    m = skewed_matcher.match(seen(slate(LABELS[6]), seed, turned=seed == 2))
    assert m is not None and m.kind is DeckKind.GLADIOLA and m.blisters in (4, None)


@pytest.mark.parametrize("identity, length, angle", [("W34", 9, 80), ("W28", 11, 20), ("G5", 9, 100), ("W29", 7, 135)])
def test_blurred_near_twins(skewed_matcher, identity, length, angle):
    label = next(lab for lab in LABELS if lab.identity == identity)
    m = skewed_matcher.match(seen(slate(label), 3, blur=streak(length, angle)))
    assert m is not None and (m.value, m.blisters) == (label.value, label.blisters)


def test_a_card_of_another_deck_abstains(skewed_matcher):
    other = np.full((H, W, 3), (235, 238, 240), np.uint8)
    cv2.rectangle(other, (10, 10), (W - 11, H - 11), (40, 90, 30), 3)
    cv2.putText(other, "17", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 7, cv2.LINE_AA)
    cv2.ellipse(other, (W // 2, 290), (60, 30), 0, 0, 360, (150, 40, 200), -1)
    assert skewed_matcher.match(seen(other, 4)) is None
    assert skewed_matcher.explain(seen(other, 4))[1]  # and says which test refused it


def start_card(colour: tuple[int, int, int]) -> np.ndarray:
    """A START card whose word is printed in ``colour`` (the turn marks stay light)."""
    img = np.full((H, W, 3), (74, 58, 48), np.uint8)
    cv2.rectangle(img, (10, 10), (W - 11, H - 11), (236, 240, 242), 2, cv2.LINE_AA)
    cv2.putText(img, "START", (30, 200), cv2.FONT_HERSHEY_DUPLEX, 1.5, colour, 4, cv2.LINE_AA)
    for x, y, mark in ((22, 40, "T4"), (190, 40, "T1"), (22, 345, "T3"), (190, 345, "T2")):
        cv2.putText(img, mark, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (236, 240, 242), 2, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_coloured_print_that_stands_out_more_than_at_enrollment(seed):
    """Under another light the yellow word is much lighter against the card than in the enrollment
    photo; its cells then fit no template, yet the print follows the enrolled card's."""
    start = CardLabel("S", DeckKind.START, 0, 0)
    matcher = DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in LABELS] +
                                 [(start, start_card((80, 200, 200)))]))
    m, why = matcher.explain(seen(start_card((0, 230, 255)), seed))
    assert m is not None, why
    assert (m.identity, m.kind, m.value, m.blisters) == ("S", DeckKind.START, 0, 0)


def disk(radius: float) -> np.ndarray:
    """A normalised defocus disk of ``radius`` pixels."""
    n = 2 * int(np.ceil(radius)) + 1
    kernel = np.zeros((n, n), np.float32)
    cv2.circle(kernel, (n // 2, n // 2), int(round(radius)), 1.0, -1, cv2.LINE_AA)
    return kernel / kernel.sum()


LUMA_PX = W * (1 - 2 * 0.07) / LUMA_W
"""Crop pixels per descriptor pixel."""


@pytest.mark.parametrize("kernel, most", [
    (streak(round(9 * LUMA_PX) | 1, 22.5), 0.3), (streak(round(9 * LUMA_PX) | 1, 67.5), 0.3),
    (streak(round(9 * LUMA_PX) | 1, 157.5), 0.3), (streak(round(7 * LUMA_PX) | 1, 112.5), 0.3),
    (disk(3.0 * LUMA_PX), 0.38),
])
def test_blur_kernels_model_long_streaks_in_any_direction_and_wide_defocus(kernel, most):
    """A card blurred by a long streak between the main directions, or by a wide defocus, is fit by
    one of the modelled blurs far better than by the sharp template."""
    card = slate(LABELS[0])
    sharp = describe(card).luma
    query = describe(cv2.filter2D(card, -1, kernel)).luma
    unblurred = float(((sharp - query) ** 2).mean())
    best = min(float(((blur_luma(sharp, k) - query) ** 2).mean()) for k in blur_kernels())
    assert best < most * unblurred


@pytest.mark.parametrize("digit, hidden_rows, first, decided", [
    (2.0, 0, True, True),     # blisters under glare, the digits that differ in plain view: decided
    (0.5, 0, True, False),    # what is left in view differs too little: no decision on noise
    (2.0, 14, True, False),   # much of the card is hidden as well: no decision
    (2.0, 0, False, False),   # the second card's digits, but the hidden blister is only the first's
])
def test_twins_compared_on_their_digits_when_the_blisters_are_hidden(skewed_matcher, digit, hidden_rows, first,
                                                                     decided):
    """Two cards differ most in a blister (hidden under glare) and less in their digits."""
    ta = np.zeros((LUMA_H, LUMA_W), np.float32)
    tb = np.zeros_like(ta)
    ta[4:14, 38:46] = 3.0            # a blister only the first card has
    ta[30:50, 10:30] = digit         # strokes of the first card's digit ...
    tb[30:50, 30:40] = digit         # ... and of the second's
    usable = np.ones_like(ta, bool)
    usable[0:18, 32:48] = False      # glare over the blister column
    usable[LUMA_H - hidden_rows:, :] = False
    rng = np.random.default_rng(5)
    seen_card = ta if first else tb
    query = Descriptor(seen_card + rng.normal(0, 0.2, ta.shape).astype(np.float32), np.zeros((36, 24, 2), np.float32))
    e = skewed_matcher._pair_evidence(query, ta, tb, usable)
    if decided:
        assert e > 0.8
        assert skewed_matcher._pair_evidence(query, tb, ta, usable) < -0.8
    else:
        assert e == 0.0
