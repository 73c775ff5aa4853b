"""The playing-card rank reader on rendered card faces (Hershey fonts, unlike the reader's templates)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion import evaluation as ev
from vision.errors import InvalidImageError
from vision.read.playing import PlayingCardReader, RankReading

PAPER = 245


def render_card(text: str, font: int = cv2.FONT_HERSHEY_DUPLEX, colour: tuple[int, int, int] = (30, 30, 30),
                width: int = 250, height: int = 350) -> np.ndarray:
    """A white card with ``text`` and a pip in the top-left corner, the same turned round bottom-right."""
    half = np.full((height, width, 3), PAPER, np.uint8)
    cv2.putText(half, text, (8, 48), font, 1.5 if len(text) == 1 else 1.25, colour, 2, cv2.LINE_AA)
    cv2.circle(half, (24, 76), 10, colour, -1)
    cv2.circle(half, (width // 2, height // 2), 30, colour, -1)  # a centre pip
    return np.minimum(half, np.ascontiguousarray(np.rot90(half, 2)))


@pytest.mark.parametrize("text,rank", [("9", 9), ("10", 10)])
@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_nine_and_ten_are_read_whichever_side_is_up(text, rank, turns):
    card = np.ascontiguousarray(np.rot90(render_card(text), turns))
    got = PlayingCardReader().read(card)
    assert got.rank == rank and got.symbol == text and got.confidence >= 0.5


@pytest.mark.parametrize("font", [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_TRIPLEX])
def test_red_index_in_other_fonts(font):
    assert PlayingCardReader().read(render_card("9", font, (60, 40, 220))).rank == 9
    assert PlayingCardReader().read(render_card("10", font, (60, 40, 220))).rank == 10


@pytest.mark.parametrize("text", ["A", "J", "Q", "K", "6", "8"])
def test_other_ranks_are_recognised_but_not_reported_as_nine_or_ten(text):
    card = render_card(text)
    assert PlayingCardReader().read(card).rank is None
    everything = PlayingCardReader(frozenset(range(1, 14))).read(card)
    assert everything.symbol in (None, text)  # never another rank: a letter is not forced into a digit


@pytest.mark.parametrize("text", ["A", "Q", "K", "6", "8"])
def test_other_ranks_are_read_when_allowed(text):
    assert PlayingCardReader(frozenset(range(1, 14))).read(render_card(text)).symbol == text


def test_blank_card_and_a_lone_bar_abstain():
    blank = np.full((350, 250, 3), PAPER, np.uint8)
    assert PlayingCardReader().read(blank) == RankReading(None, 0.0)
    bar = blank.copy()
    cv2.line(bar, (20, 14), (20, 46), (30, 30, 30), 3)  # a broken glyph: a bare stem matches anything
    bar = np.minimum(bar, np.ascontiguousarray(np.rot90(bar, 2)))
    assert PlayingCardReader(frozenset(range(1, 14))).read(bar).rank is None


def test_views_that_disagree_abstain():
    nine, king = render_card("9"), render_card("K")
    mixed = nine.copy()
    mixed[175:] = king[175:]  # a 9 index at the top, a K index at the bottom
    assert PlayingCardReader().read(mixed).rank is None


def test_bad_input_and_bad_ranks_are_rejected():
    with pytest.raises(InvalidImageError, match="card image"):
        PlayingCardReader().read(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="1..13"):
        PlayingCardReader(frozenset({14}))


def test_rank_is_read_from_a_tilted_card_in_a_photo_by_its_quad():
    card = render_card("10")
    h, w = card.shape[:2]
    quad = np.float32([[300, 80], [480, 150], [390, 400], [210, 330]])  # turned about 20 degrees
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]), quad)
    photo = np.full((480, 640, 3), (40, 70, 110), np.uint8)
    warped = cv2.warpPerspective(card, m, (640, 480))
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (640, 480)) > 0
    photo[inside] = warped[inside]
    assert ev.read_playing_rank(photo, quad) == 10
    assert ev.read_playing_rank(photo, np.roll(quad, 1, axis=0)) == 10


def test_rank_tally_counts_reads_abstentions_and_wrong_reads():
    tally = ev.RankTally()
    for label, read in [("nine", 9), ("nine", None), ("ten", 9), ("king", 10), ("king", None)]:
        tally.add(label, read)
    out = tally.to_json()
    assert out["per_label"]["nine"] == {"cards": 2, "read_9": 1, "read_10": 0, "abstained": 1, "confident_wrong": 0}
    assert out["per_label"]["ten"]["confident_wrong"] == 1 and out["per_label"]["king"]["read_10"] == 1
    assert out["fields"]["rank 9/10"] == {"cards": 3, "accuracy": 0.33333, "abstained": 0.33333,
                                          "confident_wrong": 0.33333}
    assert out["fields"]["rank other"]["confident_wrong"] == 0.5


def test_voc_eval_reads_the_ranks_of_matched_cards(tmp_path):
    photo = np.full((400, 600, 3), (40, 70, 110), np.uint8)
    boxes = {"nine": (40, 20), "ten": (330, 20)}
    quads = []
    xml = "<annotation>"
    for name, (x, y) in boxes.items():
        photo[y: y + 350, x: x + 250] = render_card("9" if name == "nine" else "10")
        quads.append(np.array([[x, y], [x + 249, y], [x + 249, y + 349], [x, y + 349]], float))
        xml += (f"<object><name>{name}</name><bndbox><xmin>{x}</xmin><ymin>{y}</ymin>"
                f"<xmax>{x + 249}</xmax><ymax>{y + 349}</ymax></bndbox></object>")
    cv2.imwrite(str(tmp_path / "a.png"), photo)
    (tmp_path / "a.xml").write_text(xml + "</annotation>")
    found = ev.evaluate_voc(tmp_path, lambda img: quads[:1])  # only the nine is detected
    assert found["detection"]["recall"] == 0.5
    assert found["ranks"] == {"nine": {"cards": 1, "read_9": 1, "read_10": 0, "abstained": 0, "confident_wrong": 0}}
    both = ev.evaluate_voc(tmp_path, lambda img: quads)
    assert both["fields"]["rank 9/10"]["accuracy"] == 1.0
    assert "ranks" not in ev.evaluate_voc(tmp_path, lambda img: quads, read_rank=None)


def test_missing_template_fonts_are_named_in_the_error(monkeypatch, tmp_path):
    from vision.errors import VisionError
    from vision.read import playing

    playing.rank_bank.cache_clear()
    monkeypatch.setattr(playing, "FONT_ROOT", str(tmp_path) + "/")
    try:
        with pytest.raises(VisionError, match="fonts-liberation"):
            playing.rank_bank()
    finally:
        playing.rank_bank.cache_clear()
