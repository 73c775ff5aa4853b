"""Round 4 of enrollment accuracy: crops turned by a quarter, twins whose telling part sits a little
off, blisters that stand out more than at enrollment, and blur at the descriptor's edge."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, enroll
from calibration.features import (
    GRID_H,
    GRID_W,
    LUMA_H,
    LUMA_W,
    Descriptor,
    best_nudge,
    blur_kernels,
    blur_margin,
    describe,
    luma_cell_errors,
    nudges,
    quarter_turn,
)
from tests.calibration.blur import streak
from tests.calibration.test_enroll_accuracy import LABELS, H, W, seen, slate


@pytest.fixture(scope="module")
def plain_matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, slate(lab)) for lab in LABELS]))


def squeezed_sideways(card: np.ndarray) -> np.ndarray:
    """The portrait crop cut from a quad whose long side was taken for the short one: the card
    lies on its side, squeezed into the portrait frame."""
    return cv2.resize(cv2.rotate(card, cv2.ROTATE_90_COUNTERCLOCKWISE), (W, H), interpolation=cv2.INTER_AREA)


def test_quarter_turn_undoes_a_card_cut_on_its_side():
    card = slate(LABELS[0])
    back = quarter_turn(squeezed_sideways(card))
    assert back.shape == card.shape
    assert float(np.abs(back.astype(float) - card).mean()) < 6.0
    assert float(np.abs(squeezed_sideways(card).astype(float) - card).mean()) > 20.0


@pytest.mark.parametrize("identity", ["W34", "W29", "G5"])
def test_a_crop_on_its_side_is_recognised_turned(plain_matcher, identity):
    label = next(lab for lab in LABELS if lab.identity == identity)
    m, why = plain_matcher.explain(seen(squeezed_sideways(slate(label)), 7))
    assert m is not None, why
    assert (m.kind, m.value, m.blisters, m.turned) == (label.kind, label.value, label.blisters, True)
    upright = plain_matcher.match(seen(slate(label), 7))
    assert upright is not None and not upright.turned


def test_a_card_of_another_deck_on_its_side_still_abstains(plain_matcher):
    other = np.full((H, W, 3), (235, 238, 240), np.uint8)
    cv2.putText(other, "17", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 7, cv2.LINE_AA)
    assert plain_matcher.match(seen(squeezed_sideways(other), 4)) is None


def blister_column(offset: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two twin templates (3 and 2 blisters in a column near the right edge, the same picture)
    and a query of the first whose column sits ``offset`` pixels lower than in its template."""
    def draw(n: int, dy: float) -> np.ndarray:
        img = np.zeros((LUMA_H, LUMA_W), np.float32)
        cv2.rectangle(img, (10, 20), (30, 60), 1.5, -1)  # the shared picture
        for k in range(n):
            cv2.circle(img, (42, int(round(8 + 9 * k + dy))), 3, 2.0, -1, cv2.LINE_AA)
        return cv2.GaussianBlur(img, (0, 0), 1.0)
    return draw(3, 0.0), draw(2, 0.0), draw(3, offset)


def test_nudges_find_the_shift_of_the_telling_part():
    ta, _, query = blister_column(2.0)
    moved = nudges(ta)
    assert moved.shape == (81, LUMA_H, LUMA_W)
    mask = np.zeros((LUMA_H, LUMA_W), bool)
    mask[:, 36:] = True
    fitted = best_nudge(query, moved, mask)
    assert float(np.abs(fitted - query)[mask].mean()) < 0.1 * float(np.abs(ta - query)[mask].mean())


def test_twins_whose_telling_part_sits_off_are_compared_after_a_nudge(plain_matcher):
    ta, tb, query = blister_column(2.0)
    q = Descriptor(query, np.zeros((36, 24, 2), np.float32))
    usable = np.ones((LUMA_H, LUMA_W), bool)
    moved = (nudges(ta), nudges(tb))
    plain = plain_matcher._pair_evidence(q, ta, tb, usable)
    nudged = plain_matcher._pair_evidence(q, ta, tb, usable, moved)
    assert plain < 0.7
    assert nudged > 0.9
    # ... and a nudge never gives the lead to the card that is not there.
    other = Descriptor(cv2.warpAffine(tb, np.float32([[1, 0, 0], [0, 1, 1.5]]), (LUMA_W, LUMA_H)), q.chroma)
    assert plain_matcher._pair_evidence(other, ta, tb, usable, moved) < -0.8


def brighter_blisters(label: CardLabel) -> np.ndarray:
    """``slate(label)`` with its blisters printed in a lighter colour than at enrollment."""
    img = slate(label)
    for k in range(label.blisters or 0):
        cv2.circle(img, (W - 36, 60 + 36 * k), 14, (120, 200, 255), -1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("identity, seed", [("G5", 11), ("G4", 11), ("G3", 12)])
def test_blisters_that_stand_out_more_than_at_enrollment_still_count(plain_matcher, identity, seed):
    """Their cells fit no template (G5's would leave its count open), yet they follow the twin's."""
    label = next(lab for lab in LABELS if lab.identity == identity)
    m, why = plain_matcher.explain(seen(brighter_blisters(label), seed))
    assert m is not None, why
    assert (m.kind, m.blisters) == (DeckKind.GLADIOLA, label.blisters), why


def test_blur_margin_marks_the_pixels_a_blur_fills_from_outside():
    assert not blur_margin(None).any()
    across = blur_margin(streak(13, 0.0))  # a horizontal streak 13 descriptor pixels long
    assert across[:, :3].all() and across[:, -3:].all()
    assert not across[:, 8:-8].any()
    assert not across[LUMA_H // 2, LUMA_W // 2]
    assert not across[:, LUMA_W // 2].any()  # nothing comes in from above or below
    assert len(blur_kernels()) == 6 + 6 * 8


def test_cell_errors_on_masked_pixels_only():
    query = np.zeros((LUMA_H, LUMA_W), np.float32)
    template = np.zeros_like(query)
    template[:, -2:] = 3.0  # differs only on the two outer columns
    mask = np.ones_like(query, bool)
    mask[:, -2:] = False
    full = luma_cell_errors(query, template[None])
    masked = luma_cell_errors(query, template[None], mask)
    assert full.shape == masked.shape == (1, GRID_H * GRID_W)
    assert full[0].reshape(GRID_H, GRID_W)[:, -1].min() > 2.0
    assert float(masked.max()) == 0.0


class _Laid:
    """Templates as laid over a query (stands in for the matcher's views)."""

    def __init__(self, templates: dict[int, np.ndarray]) -> None:
        self.templates = templates

    def blurred(self, card: int) -> np.ndarray:
        return self.templates[card]


def test_print_counts_as_followed_only_where_the_candidate_has_print(plain_matcher):
    """A blister printed brighter than at enrollment follows its template; an occluder's edge that
    happens to follow the faint texture of a plain cell does not."""
    rng = np.random.default_rng(2)
    blister = np.zeros((LUMA_H, LUMA_W), np.float32)
    cv2.circle(blister, (44, 3), 2, 1.5, -1)                 # print in cell (0, 7)
    faint = np.zeros_like(blister)
    faint[36:42, 0:6] = rng.normal(0, 0.05, (6, 6))          # texture only in plain cell (6, 0)
    query = np.zeros_like(blister)
    query[0:6, 42:48] = 2.5 * blister[0:6, 42:48]            # the blister, much brighter
    query[36:42, 0:6] = 40 * faint[36:42, 0:6]               # an edge shaped like the texture
    q = Descriptor(query, np.zeros((36, 24, 2), np.float32))
    followed = plain_matcher._followed(q, [0, 1], _Laid({0: blister, 1: faint})).reshape(GRID_H, GRID_W)
    assert followed[0, 7]
    assert not followed[6, 0]
    assert followed.sum() == 1
