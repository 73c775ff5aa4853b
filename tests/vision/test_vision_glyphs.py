"""The in-process digit reader's hole cue (vision.read.glyphs): only an 8 has two holes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read.glyphs import EIGHT_PENALTY, FONTS, by_holes, classify_all, holes, render_digit


@pytest.mark.parametrize("font", FONTS)
def test_holes_of_each_rendered_digit(font: str) -> None:
    # 0, 4, 6 and 9 enclose one hole, 8 two, the rest none (a mono zero's dot lies in its hole)
    assert [holes(render_digit(font, d)) for d in range(10)] == [1, 0, 0, 0, 1, 0, 1, 0, 2, 1]


def test_a_speck_of_paper_in_a_stroke_is_no_hole() -> None:
    three = render_digit(FONTS[1], 3).copy()
    ys, xs = np.nonzero(three)
    y, x = int(np.median(ys)), int(xs[ys == int(np.median(ys))].max()) - 3
    three[y - 1:y + 1, x - 1:x + 1] = 0  # a 2 x 2 gap inside the stroke
    assert holes(three) == 0
    assert holes(np.zeros((10, 10), np.uint8)) == 0


def test_two_holes_lower_every_digit_but_8() -> None:
    eight, zero = render_digit(FONTS[0], 8), render_digit(FONTS[0], 0)
    scores = classify_all([eight, zero])
    adjusted = by_holes([eight, zero], scores)
    others = np.arange(10) != 8
    assert np.allclose(adjusted[0, others], scores[0, others] - EIGHT_PENALTY)
    assert adjusted[0, 8] == scores[0, 8]
    assert np.array_equal(adjusted[1], scores[1])

