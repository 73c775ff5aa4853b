"""Tests of vision.hand: shown hands laid as an overlapping row, rendered like the sample films."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np
import pytest

from companion.games.gladiola import load_deck
from samples.render.specs import Game
from samples.render.video import Hold, Move, VideoConfig, _Renderer, _Shown, plan_video
from vision.hand import HandInputError, read_hands
from vision.types import CardKind

SEED = 19  # the bundled film's game: its first shown hand (9 cards, a FINISH among walk cards)


@lru_cache(maxsize=1)
def _deck() -> dict[str, tuple[str, int | None, int]]:
    """Card id -> (kind, value, blisters) of the bundled deck."""
    return {c.id: (c.kind.value, c.value, c.blisters) for c in load_deck().cards}


@lru_cache(maxsize=2)
def _shown(seed: int, players: int = 3, fps: int | None = None, player: int | None = None
           ) -> tuple[np.ndarray, tuple[str, ...]]:
    """The calm frame after the first hand (``player``'s, when given) is laid out (as the film
    of ``players`` at ``fps`` shows it), and its cards."""
    config = VideoConfig() if fps is None else VideoConfig(fps=fps)
    plan = plan_video(Game.GLADIOLA, players, seed, config)
    renderer = _Renderer(plan, config)
    for k, step in enumerate(plan.steps):
        if isinstance(step, Move) and step.reveal is not None and player in (None, step.reveal):
            hold = plan.steps[k + 1]
            assert isinstance(hold, Hold)
            img = renderer.table_img.copy()
            renderer._draw_cards(img, [_Shown(p, 1.0, False) for p in hold.table])
            cards = next(c for p, c in plan.reveals if p == step.reveal)
            return renderer._finish(img, 0), cards
    raise AssertionError(f"seed {seed} shows no hand")


def _check(cards, truth: tuple[str, ...]) -> int:
    """Every card read agrees with the truth (abstaining is allowed); returns how many walk
    values were read."""
    walks = 0
    for card, cid in zip(cards, truth):
        kind, value, blisters = _deck()[cid]
        if card.kind is CardKind.UNKNOWN:
            continue
        assert card.kind.value == kind, (cid, card)
        if card.value is not None:
            assert card.value == value, (cid, card)
            walks += kind == "walk"
        if card.blisters is not None:
            assert card.blisters == blisters, (cid, card)
    return walks


def test_reads_a_shown_row_in_laying_order():
    image, truth = _shown(SEED)
    hands = read_hands(image)
    assert len(hands) == 1
    hand = hands[0]
    assert hand.count == len(truth)
    assert [c.whole for c in hand.cards] == [False] * (len(truth) - 1) + [True]
    assert _check(hand.cards, truth) >= len(truth) - 3
    top = hand.cards[-1]
    assert top.value == _deck()[truth[-1]][1] and top.shown_mm == pytest.approx(59.0)
    # the covered cards show strips of the renderer's step (34 mm), the quads lie left to right
    assert all(20 < c.shown_mm < 40 for c in hand.cards[:-1])
    xs = [c.quad.centroid[0] for c in hand.cards]
    assert xs == sorted(xs)


def test_a_row_turned_round_reads_the_same():
    image, truth = _shown(SEED)
    hands = read_hands(cv2.rotate(image, cv2.ROTATE_180))
    assert len(hands) == 1 and hands[0].count == len(truth)
    assert _check(hands[0].cards, truth) >= len(truth) - 3
    # the quads now run right to left in the image: the row's direction is not assumed
    xs = [c.quad.centroid[0] for c in hands[0].cards]
    assert xs == sorted(xs, reverse=True)


def test_no_row_on_an_empty_table():
    image, _ = _shown(SEED)
    table = np.full_like(image, tuple(int(v) for v in np.median(image.reshape(-1, 3), axis=0)))
    assert read_hands(table) == ()


@pytest.mark.parametrize("bad", [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8),
                                 np.zeros((100, 100, 3), np.float32), "frame.png"])
def test_bad_input_raises(bad):
    with pytest.raises(HandInputError, match="expected a BGR uint8 image"):
        read_hands(bad)


def test_a_shorter_line_beside_a_card_edge_is_not_its_outline():
    """A covered gladiola's stem a few mm left of the next card's edge: the edge starts at the
    card's outline (the long line), not at the stem."""
    from vision.hand import HandConfig, _edges

    config = HandConfig()
    profile = np.zeros(300, np.float32)
    slant = np.zeros(300, np.float32)
    profile[[40, 44]] = (0.84, 0.78)  # a card's outline and its printed border line
    profile[158] = 0.6                # a stem, 3 mm before the next card's edge
    profile[[170, 176]] = (0.83, 0.74)
    profile[280] = 0.8
    edges = _edges(profile, slant, config)
    assert [(e.lo, e.hi) for e in edges] == [(40.0, 44.0), (170.0, 176.0), (280.0, 280.0)]
    assert [e.x for e in edges] == [40.0, 170.0, 280.0]


def test_an_edge_steeper_than_the_slants_tried_is_followed_only_there():
    """A card edge leaning 8.5 degrees (the row's first card seen aslant) takes a steeper slant
    than the config's; an edge leaning 3 degrees keeps its own."""
    from vision.hand import HandConfig, _edge_profile

    strip = np.full((240, 400, 3), 235, np.uint8)
    for x_mid, degrees in ((100, 8.5), (300, -3.0)):
        t = np.tan(np.radians(degrees))
        cv2.line(strip, (int(x_mid - t * 120), 0), (int(x_mid + t * 120), 239), (40, 40, 40), 2)
    profile, slant = _edge_profile(strip, (0, 240), HandConfig())
    steep, plain = int(np.argmax(profile[:200])), 200 + int(np.argmax(profile[200:]))
    assert slant[steep] == 9.0 and profile[steep] > 0.9
    assert slant[plain] == -3.0 and profile[plain] > 0.9
    assert abs(steep - 100) <= 3 and abs(plain - 300) <= 3


PAPER = (228, 236, 240)   # BGR: the cards' off-white
PLASTER = (150, 190, 232)  # BGR: a plaster's beige


def _covered_crop(kind: CardKind, plasters: int, shown_mm: float, flipped: bool = False,
                  index: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A reading-size crop of a covered card: its blister row centred at the kind's printed
    height, everything right of ``shown_mm`` under the next card; and that hidden mask."""
    from vision.read.reader import BLISTER_GAP_MM, BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, CARD_H_MM, \
        CARD_W_MM, READ_H, READ_W

    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    crop = np.full((READ_H, READ_W, 3), PAPER, np.uint8)
    cv2.rectangle(crop, (0, 0), (READ_W - 1, READ_H - 1), (150, 60, 20), int(2.5 * ppx))  # blue border
    top = BLISTER_ROW_MM[kind] if not flipped else CARD_H_MM - BLISTER_ROW_MM[kind] - BLISTER_H_MM
    length = plasters * BLISTER_MM + (plasters - 1) * BLISTER_GAP_MM
    left = CARD_W_MM / 2 - length / 2
    for k in range(plasters):
        x0 = left + k * (BLISTER_MM + BLISTER_GAP_MM)
        cv2.ellipse(crop, (int((x0 + BLISTER_MM / 2) * ppx), int((top + BLISTER_H_MM / 2) * ppy)),
                    (int(BLISTER_MM / 2 * ppx), int(BLISTER_H_MM / 2 * ppy)), 0, 0, 360, PLASTER, -1)
    if index:
        cv2.putText(crop, "37", (int(7 * ppx), int(18 * ppy)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (90, 40, 30), 5)
    hidden = np.zeros(crop.shape[:2], bool)
    hidden[:, int(shown_mm * ppx):] = True
    crop[hidden] = (150, 60, 20)  # the next card's border and face
    return crop, hidden


@pytest.mark.parametrize("plasters", [2, 3, 4, 5])
def test_a_covered_gladiola_counts_its_blisters_from_the_row_start(plasters):
    from vision.hand import _count_from_left_end

    crop, hidden = _covered_crop(CardKind.GLADIOLA, plasters, 27.0)
    count, conf = _count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)
    assert (count, conf >= 0.5) == (plasters, True)


def test_a_row_start_left_out_of_the_plaster_marks_makes_the_count_unsure():
    from vision.hand import _count_from_left_end
    from vision.read.reader import BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, CARD_H_MM, CARD_W_MM, READ_H, READ_W

    crop, hidden = _covered_crop(CardKind.GLADIOLA, 5, 27.0)
    assert _count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)[0] == 5
    # the first plaster in a cooler light: off the paper, but not warmer than it
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    left = CARD_W_MM / 2 - (5 * BLISTER_MM + 4 * 1.6) / 2
    top = BLISTER_ROW_MM[CardKind.GLADIOLA]
    ys = slice(int((top - 0.5) * ppy), int((top + BLISTER_H_MM + 0.5) * ppy))
    first = crop[ys, int(left * ppx): int((left + BLISTER_MM) * ppx) + 1]
    first[(first != PAPER).any(axis=2)] = (188, 198, 204)
    count, conf = _count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)
    assert count != 5 and conf == 0.0  # the row's start is found a plaster late, the row's fit says 5


def test_a_row_start_barely_in_view_is_not_counted():
    from vision.hand import _count_from_left_end

    # one plaster starts at 25.4 mm: 1.6 mm of it shows before the next card
    crop, hidden = _covered_crop(CardKind.FINISH, 1, 27.0)
    assert _count_from_left_end(crop, hidden, CardKind.FINISH, False)[1] == 0.0
    # no row at all: nothing to count from
    crop, hidden = _covered_crop(CardKind.FINISH, 0, 27.0)
    assert _count_from_left_end(crop, hidden, CardKind.FINISH, False)[1] == 0.0


def test_a_narrow_strip_without_index_and_a_low_plaster_row_is_a_gladiola():
    from vision.hand import _gladiola_from_strip

    crop, hidden = _covered_crop(CardKind.GLADIOLA, 3, 27.0)
    found = _gladiola_from_strip(crop, hidden)
    assert found is not None and found.kind is CardKind.GLADIOLA and found.blisters == 3 and not found.flipped
    crop, hidden = _covered_crop(CardKind.GLADIOLA, 4, 27.0, flipped=True)
    found = _gladiola_from_strip(crop, hidden)
    assert found is not None and found.blisters == 4 and found.flipped
    # a corner index: a walk or FINISH card the reader could not read, never a gladiola
    crop, hidden = _covered_crop(CardKind.GLADIOLA, 3, 27.0, index=True)
    assert _gladiola_from_strip(crop, hidden) is None
    # a walk card's row lies higher: no gladiola row
    crop, hidden = _covered_crop(CardKind.WALK, 3, 27.0)
    assert _gladiola_from_strip(crop, hidden) is None


def test_a_card_lower_than_the_one_under_it_takes_its_own_top_edge():
    from vision.hand import _card_rows

    # the card under it shows its top edge 12 rows higher; the card is 320 rows high
    assert _card_rows([40.0, 52.0], [372.0], None) == (40.0, 372.0)  # outermost: first estimate
    assert _card_rows([40.0, 52.0], [372.0], 320.0) == (52.0, 372.0)
    assert _card_rows([40.0], [300.0], 320.0) is None  # no pair this far apart


def _index_crop(text: str, cut_px: int) -> tuple[np.ndarray, np.ndarray]:
    """A reading-size crop of a covered walk card showing its corner index ``text`` in a bold
    sans face; the next card's edge lies ``cut_px`` pixels inside the last digit (negative: that
    far right of it). The hidden part is painted with the paper colour, as the row reader does."""
    from PIL import Image, ImageDraw, ImageFont

    from vision.read.glyphs import FONT_DIR
    from vision.read.reader import READ_H, READ_W

    img = Image.new("RGB", (READ_W, READ_H), PAPER[::-1])
    ImageDraw.Draw(img).text((30, 38), text, font=ImageFont.truetype(FONT_DIR + "DejaVuSans-Bold.ttf", 68),
                             fill=(40, 30, 30))
    crop = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR).copy()
    right = int(np.nonzero((crop[:120].min(axis=2) < 128).any(axis=0))[0][-1])
    hidden = np.zeros((READ_H, READ_W), bool)
    hidden[:, right + 1 - cut_px:] = True
    crop[hidden] = PAPER
    return crop, hidden


@pytest.mark.parametrize("value", [15, 26, 30, 36, 45])
def test_a_corner_index_cut_by_the_next_card_is_read_with_cut_templates(value):
    from vision.hand import HandConfig, _read_cut_index
    from vision.read.reader import read_card

    deck = HandConfig().deck
    crop, hidden = _index_crop(str(value), 8)  # a fifth of the last digit under the next card
    assert read_card(crop, deck).kind is CardKind.UNKNOWN  # too cut for the whole-digit templates
    found = _read_cut_index(crop, hidden, deck)
    assert found is not None and (found.kind, found.value) == (CardKind.WALK, value)
    assert found.confidence >= 0.5
    # cut less or more: read right or not at all, never another value
    for cut in range(0, 16, 2):
        again = _read_cut_index(*_index_crop(str(value), cut), deck)
        assert again is None or again.value == value, (cut, again)


def test_an_index_clear_of_the_next_card_is_left_to_the_reader():
    from vision.hand import HandConfig, _read_cut_index

    assert _read_cut_index(*_index_crop("30", -10), HandConfig().deck) is None


def _region(*rects: tuple[int, int, int, int]) -> np.ndarray:
    """The (x, y) pixels of a mask filled with the given rectangles (x0, y0, x1, y1)."""
    mask = np.zeros((200, 400), np.uint8)
    for x0, y0, x1, y1 in rects:
        mask[y0:y1, x0:x1] = 1
    return np.column_stack(np.nonzero(mask)[::-1]).astype(np.float32)


def test_a_pile_touching_the_rows_side_is_cut_off_the_row():
    from vision.hand import _row_band

    # a row 250 x 48 with a card-sized pile standing on its left end, and a speck of the frame's
    # border hanging below it: the band is the row alone
    joined = _region((60, 100, 310, 148), (70, 40, 115, 100), (200, 148, 206, 175))
    band = _row_band(joined)
    assert band is not None
    (_, _), (w, h), _ = cv2.minAreaRect(band)
    assert max(w, h) == pytest.approx(250, abs=3) and min(w, h) == pytest.approx(48, abs=3)
    assert band[:, 1].min() >= 99 and band[:, 1].max() <= 148
    # a plain row is its own band
    assert _row_band(_region((60, 100, 310, 148))) is None


def test_a_row_joined_to_a_pile_is_read():
    image, truth = _shown(SEED)
    hand = read_hands(image)[0]
    # a blank card-coloured block standing on the row's first card, touching it
    q = hand.cards[0].quad.as_array()
    x0, y0 = int(q[:, 0].min()), int(q[:, 1].min())
    height = int(q[:, 1].max() - q[:, 1].min())
    joined = image.copy()
    joined[max(0, y0 - height): y0 + 2, x0: x0 + int(0.6 * height)] = PAPER
    hands = read_hands(joined)
    assert [h.count for h in hands] == [len(truth)]
    assert _check(hands[0].cards, truth) >= len(truth) - 3


def test_cards_seen_aslant_are_cropped_at_the_top_cards_width():
    """A camera tilted towards the players shortens the cards' height: the row stretched across
    is read with crops as wide as its top card, not the width the height gives."""
    image, truth = _shown(SEED)
    plain = read_hands(image)[0].cards[-1].quad
    wide = cv2.resize(image, None, fx=1.12, fy=1.0, interpolation=cv2.INTER_LINEAR)
    hands = read_hands(wide)
    assert len(hands) == 1 and hands[0].count == len(truth)
    assert _check(hands[0].cards, truth) >= len(truth) - 3
    top = hands[0].cards[-1].quad
    w0, h0 = plain.side_lengths()[:2]
    w1, h1 = top.side_lengths()[:2]
    assert (w1 / h1) / (w0 / h0) == pytest.approx(1.12, abs=0.05)


@pytest.mark.parametrize("player", [0, 1])
def test_a_row_on_a_checked_cloth_is_cut_at_the_cards_edges_not_the_checks(player):
    """Fresh film 173: blue-bordered cards shown on a blue and white checked cloth, the checks'
    edges a few millimetres above and below the row taken for the cards' outermost edges. Cut
    at those, every crop was 15% too tall, most cards went unread and neither hand was named;
    cut again near the height the top card's width gives, each is read whole."""
    image, truth = _shown(173, 3, 15, player)
    hands = [h for h in read_hands(image) if h.count == len(truth)]
    assert len(hands) == 1
    assert _check(hands[0].cards, truth) >= len(truth) - 2


def test_a_clean_finish_band_reaching_past_a_single_plaster_is_no_row():
    from vision.hand import _no_plaster_seen

    # no plaster where a row of one would show (25.4-33.6 mm): seen clean
    crop, hidden = _covered_crop(CardKind.FINISH, 0, 36.0)
    assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False)
    # a row of one or two shows its start there
    for plasters in (1, 2):
        crop, hidden = _covered_crop(CardKind.FINISH, plasters, 36.0)
        assert not _no_plaster_seen(crop, hidden, CardKind.FINISH, False)
    # a strip ending before a single plaster would show tells nothing
    crop, hidden = _covered_crop(CardKind.FINISH, 0, 27.0)
    assert not _no_plaster_seen(crop, hidden, CardKind.FINISH, False)


@pytest.mark.parametrize("plasters", [0, 1, 2])
def test_a_covered_finish_reaching_just_past_the_centre_is_zero_only_when_clean(plasters):
    from vision.hand import CLEAN_REACH_MM, _no_plaster_seen

    # the strip ends 2 mm past the centre line: a single plaster shows 6 of its 8.2 mm
    crop, hidden = _covered_crop(CardKind.FINISH, plasters, 59.0 / 2 + 2.0)
    assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_REACH_MM) == (plasters == 0)
    # the row printed at the other end (the card upside down) is looked at too
    crop, hidden = _covered_crop(CardKind.FINISH, plasters, 59.0 / 2 + 2.0, flipped=True)
    assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_REACH_MM) == (plasters == 0)


def test_a_narrow_border_is_painted_only_as_wide_as_it_is():
    from vision.hand import FRAME_MM, _frame_mask
    from vision.read.reader import CARD_W_MM, READ_W

    ppx = READ_W / CARD_W_MM
    crop, hidden = _covered_crop(CardKind.WALK, 2, 34.0)  # a border about 1.5 mm wide
    inner = int(np.argmax((crop[180] == PAPER).all(axis=1)))  # the first paper column
    assert 0 < inner < FRAME_MM * ppx - 6
    wide = _frame_mask(crop, hidden)
    narrow = _frame_mask(crop, hidden, narrow=True)
    assert wide[180].argmin() == round(FRAME_MM * ppx)
    assert inner <= narrow[180].argmin() <= inner + 3
    # the top and bottom likewise (fresh film 166's W31: a crop placed tight at the top, the
    # index's top painted away)
    top = int(np.argmax((crop[:, 100] == PAPER).all(axis=1)))
    bottom = int(np.argmax((crop[::-1, 100] == PAPER).all(axis=1)))
    assert wide[:, 100].argmin() == round(FRAME_MM * ppx)
    assert top <= narrow[:, 100].argmin() <= top + 3
    assert bottom <= narrow[::-1, 100].argmin() <= bottom + 3


def _finish_read(blisters: int | None = None):
    from vision.read.types import CardReading, Face

    return CardReading(kind=CardKind.FINISH, face=Face.FRONT, value=50, blisters=blisters, confidence=0.9)


@pytest.mark.parametrize("plasters", [1, 2, 3])
def test_the_top_finish_counts_a_pale_row_from_its_extent(plasters):
    from vision.hand import _whole_count
    from vision.read.reader import CARD_W_MM, READ_W

    crop, _ = _covered_crop(CardKind.FINISH, plasters, CARD_W_MM)  # nothing covered
    # each plaster's light middle, nearly paper: its marks fall apart in two
    ppx = READ_W / CARD_W_MM
    middle = (crop == PLASTER).all(axis=2) & (np.abs(np.arange(READ_W)[None, :] - READ_W / 2) < 1.2 * ppx)
    if plasters == 1:
        crop[middle] = PAPER
    read = _whole_count(crop, _finish_read())
    assert read.blisters == plasters and read.field_confidences.blisters >= 0.5


@pytest.mark.parametrize("plasters", [0, 1, 2])
def test_the_top_finish_with_a_clean_band_has_no_blisters(plasters):
    from vision.hand import _whole_count
    from vision.read.reader import CARD_W_MM

    # the reader left the count open; no plaster colour where the row may lie is a zero
    crop, _ = _covered_crop(CardKind.FINISH, plasters, CARD_W_MM)
    read = _whole_count(crop, _finish_read())
    assert (read.blisters == 0) == (plasters == 0)
    if plasters == 0:
        assert read.field_confidences.blisters >= 0.5 and read.confidence >= 0.5
    # nor at the other end of a card turned round
    crop, _ = _covered_crop(CardKind.FINISH, plasters, CARD_W_MM, flipped=True)
    assert (_whole_count(crop, _finish_read()).blisters == 0) == (plasters == 0)


def test_the_top_finish_keeps_an_unclear_row_unread():
    from vision.hand import _whole_count
    from vision.read.reader import CARD_W_MM, READ_W

    ppx = READ_W / CARD_W_MM
    # a row off the card's centre line is no printed row
    crop, _ = _covered_crop(CardKind.FINISH, 2, CARD_W_MM)
    shifted = np.full_like(crop, PAPER)
    shifted[:, int(4 * ppx):] = crop[:, : READ_W - int(4 * ppx)]
    assert _whole_count(shifted, _finish_read()).blisters is None
    # a row at both ends: which end is up is not plain
    up, _ = _covered_crop(CardKind.FINISH, 2, CARD_W_MM)
    down, _ = _covered_crop(CardKind.FINISH, 2, CARD_W_MM, flipped=True)
    both = np.where((down == PLASTER).all(axis=2)[..., None], down, up)
    assert _whole_count(both, _finish_read()).blisters is None
    # a count the reader made stands
    assert _whole_count(crop, _finish_read(5)).blisters == 5


def _walk_blisters() -> tuple[tuple[int, int], ...]:
    return tuple(sorted((value, blisters) for kind, value, blisters in _deck().values()
                        if kind == "walk" and value is not None))


def _close_8_0(masks, bank=None):
    """Template scores of a corner index "28" whose 8 nearly matches a 0 (as on film 101)."""
    rows = np.full((len(masks), 10), 0.45)
    rows[0, 2] = 0.961
    if len(masks) > 1:
        rows[1, [8, 0, 6, 9]] = 0.962, 0.89, 0.83, 0.795
    return rows


@pytest.mark.parametrize("plasters, value", [(0, 28), (1, None)])
def test_a_close_call_index_is_settled_by_the_strips_blisters(monkeypatch, plasters, value):
    import vision.hand
    from vision.hand import HandConfig, _index_by_blisters
    from vision.read.reader import decode_value, glyph_confidence

    monkeypatch.setattr(vision.hand, "classify_all", _close_8_0)
    allowed = sorted(v for v, _ in _walk_blisters() if v >= 10)
    assert glyph_confidence(decode_value(_close_8_0([0, 0]), allowed)) < 0.5  # the reader's refusal
    crop, hidden = _covered_crop(CardKind.WALK, plasters, 34.4)
    cv2.putText(crop, "28", (30, 88), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (90, 40, 30), 7)  # a two-digit index
    found = _index_by_blisters(crop, crop, hidden, HandConfig(walk_blisters=_walk_blisters()))
    # no plaster: of the values printed without one only 28 and 29 are near, and 28 leads clearly;
    # one plaster would make it a 20, but the templates rank 28 first: no value is promoted
    assert (found.value, found.blisters) == (value, 0) if value else found is None
    # without the deck's blisters nothing is settled
    assert _index_by_blisters(crop, crop, hidden, HandConfig()) is None


@pytest.mark.parametrize("mirror, sure, start, expected", [(5, 0.0, 0.8, 5), (4, 0.3, 0.95, None), (4, 0.0, 0.93, 5),
                                                            (4, 0.0, 0.8, 5), (4, 0.0, 0.7, None)])
def test_a_covered_gladiolas_unsure_mirror_count_stands_when_the_row_start_agrees(monkeypatch, mirror, sure, start,
                                                                                  expected):
    # An unsure mirrored count stands when the row's start gives the same count; another count
    # from the start leaves it unsure, unless the mirror counted nothing sure at all (film 133's
    # F4, mirrored into a narrow mark: 4 at 0.0) and the start is sure (1 at 0.93 there; at
    # least 0.75).
    import vision.hand
    from vision.hand import HandConfig, _read_piece
    from vision.read.types import CardReading, Face
    from vision.types import FieldConfidences

    gladiola = CardReading(kind=CardKind.GLADIOLA, face=Face.FRONT, confidence=0.9,
                           field_confidences=FieldConfidences(kind=0.9))
    monkeypatch.setattr(vision.hand, "read_card", lambda crop, deck: gladiola)
    monkeypatch.setattr(vision.hand, "count_blisters_in_row", lambda a, kind, flipped: (mirror, sure))
    monkeypatch.setattr(vision.hand, "_count_from_left_end", lambda crop, hidden, kind, flipped: (5, start))
    crop, hidden = _covered_crop(CardKind.GLADIOLA, 5, 33.5)  # the row starts 5.8 mm in
    assert _read_piece(crop, hidden, 33.5, HandConfig()).blisters == expected


@pytest.mark.parametrize(("text", "edge", "cut"), [("37", 80, True), ("37", 84, True), ("3", 80, False), ("3", 90, False),
                                                   ("37", 72, False)])
def test_a_sliver_of_a_second_digit_at_the_next_cards_edge_is_seen(text, edge, cut):
    """A one-digit index with ink running into the next card's edge right of it may be two
    digits (the reader drops the sliver); a lone digit, or an edge too close to see, is not."""
    from vision.hand import _ink_cut_beside
    from vision.read.reader import READ_H, READ_W

    crop = np.full((READ_H, READ_W, 3), PAPER, np.uint8)
    cv2.putText(crop, text, (28, 92), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (90, 40, 30), 6)
    hidden = np.zeros(crop.shape[:2], bool)
    hidden[:, edge:] = True
    crop[hidden] = PAPER  # painted over, as the strip's reader sees it
    assert _ink_cut_beside(crop, hidden) is cut


@pytest.mark.parametrize(("text", "edge", "sliver"), [("40", 86, True), ("41", 108, False), ("41", 160, False)])
def test_a_last_digit_cut_to_a_sliver_is_no_one(text, edge, sliver):
    """The left sliver of a 0 cut by the next card's edge looks like a 1; a whole 1, right at
    the edge (108: one column past its ink) or clear of it, is one."""
    from vision.hand import _one_is_a_sliver
    from vision.read.reader import READ_H, READ_W

    crop = np.full((READ_H, READ_W, 3), PAPER, np.uint8)
    cv2.putText(crop, text, (28, 100), cv2.FONT_HERSHEY_SIMPLEX, 2.2, (90, 40, 30), 5)
    hidden = np.zeros(crop.shape[:2], bool)
    hidden[:, edge:] = True
    crop[hidden] = PAPER
    assert _one_is_a_sliver(crop, hidden) is sliver


def test_a_covered_finish_read_upright_is_looked_at_its_own_rows_height_only():
    from vision.hand import CLEAN_REACH_MM, _no_plaster_seen
    from vision.read.reader import BLISTER_H_MM, BLISTER_ROW_MM, CARD_H_MM, CARD_W_MM, READ_H, READ_W

    # A clean FINISH strip with warm marks where the row would be for the card turned round (on
    # the films its chequered banner): not clean at either end's height, clean at its own.
    crop, hidden = _covered_crop(CardKind.FINISH, 0, 59.0 / 2 + 2.0)
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    y = int((CARD_H_MM - BLISTER_ROW_MM[CardKind.FINISH] - BLISTER_H_MM / 2) * ppy)
    for x_mm in (8.0, 16.0, 24.0):
        cv2.ellipse(crop, (int(x_mm * ppx), y), (int(3 * ppx), int(2 * ppy)), 0, 0, 360, PLASTER, -1)
    assert not _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_REACH_MM)
    assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_REACH_MM, both_ends=False)
    # at its own row's height the marks count
    assert not _no_plaster_seen(crop, hidden, CardKind.FINISH, True, CLEAN_REACH_MM, both_ends=False)


def test_a_lone_digit_where_the_rows_two_digit_indices_begin_is_no_value():
    # A covered strip whose lone digit begins where the row's two-digit indices begin, with the
    # next card's edge closer to it than its width, may be a two-digit index cut: its value is
    # dropped (a 5 may be a FINISH's 50: its kind too). Printed centred (a half digit further
    # right), or with room for a second digit, it stands; without two two-digit indices in the
    # row to tell by, a cut one is dropped.
    from vision.hand import _Index, _lone_digits_checked
    from vision.read.types import CardReading, Deck, FieldConfidences

    def walk(value: int) -> CardReading:
        return CardReading(kind=CardKind.WALK, value=value, confidence=0.9,
                           field_confidences=FieldConfidences(kind=0.9, value=0.9))

    deck = Deck.for_game("gladiola")
    readings = [walk(28), walk(44), walk(5), walk(2), walk(7), walk(3)]
    indices = [_Index(30, 27, 38, True), _Index(28, 38, 33, True), _Index(30, 34, 4, False),
               _Index(31, 33, 7, False), _Index(50, 37, 1, False), _Index(30, 35, 40, False)]
    checked = _lone_digits_checked(readings, indices, deck)
    assert [(r.kind.value, r.value) for r in checked] == [
        ("walk", 28), ("walk", 44), ("unknown", None), ("walk", None), ("walk", 7), ("walk", 3)]
    assert checked[3].field_confidences.value == 0.0 and checked[2].confidence == 0.0
    alone = _lone_digits_checked(readings[2:], indices[2:], deck)
    assert [r.value for r in alone] == [None, None, None, 3]


def _edges_mm(*pairs: tuple[float, float]) -> list:
    """Card edges across a strip at 4 px/mm, as (millimetres, share of the height)."""
    from vision.hand import _Edge

    return [_Edge(4 * mm, 4 * mm - 2, 4 * mm + 2, 0.0, share) for mm, share in pairs]


def test_an_upright_line_printed_on_the_top_card_is_no_card_edge():
    # Film 121: a gladiola on top of the row, its stem standing upright in the strip, gave one
    # edge too many, the top card looked half as wide as a card and the row was not read.
    from vision.hand import _printed_on_top
    from vision.read.reader import CARD_W_MM

    card_w = 4 * CARD_W_MM
    row = [(0, 0.8), (28, 0.8), (56, 0.8), (84, 0.8)]
    stem = (84 + 30, 0.55)
    right = (84 + CARD_W_MM, 0.8)
    assert [e.x for e in _printed_on_top(_edges_mm(*row, stem, right), card_w, 0.12)] == \
        [e.x for e in _edges_mm(*row, right)]
    # an edge as strong as the cards' own is left: a card's edge, the row is then no row
    strong = _edges_mm(*row, (84 + 30, 0.9), right)
    assert _printed_on_top(strong, card_w, 0.12) == strong
    plain = _edges_mm(*row, right)
    assert _printed_on_top(plain, card_w, 0.12) == plain


def test_a_row_is_read_from_the_end_whose_top_card_needs_no_edge_left_out():
    # Film 148 (edges as measured, mm at 4 px/mm): a row box taller than the cards made their
    # steps look wide; read one way, the far end's two steps with the edge between them left out
    # (as print on a top card) were a card wide, and the row was read backwards. The other way
    # ends with a plain top card; when both ways need an edge left out, the first way is kept.
    from vision import hand

    one_way = _edges_mm((14.75, 0.83), (68.5, 0.82), (99.75, 0.79), (131.75, 0.8), (165, 0.82), (196.75, 0.82),
                        (227.25, 0.84), (260.25, 0.81), (291.75, 0.84), (324.25, 0.8), (354.25, 0.86))
    other_way = _edges_mm((14.75, 0.86), (44, 0.8), (77.25, 0.84), (109, 0.81), (141.75, 0.84), (172.25, 0.82),
                          (204, 0.82), (237.25, 0.8), (269.25, 0.79), (300.5, 0.82), (354.25, 0.83))
    strips = (hand._Strip(np.zeros((1, 1, 3), np.uint8), np.eye(3), (0, 1)),
              hand._Strip(np.ones((1, 1, 3), np.uint8), np.eye(3), (0, 1)))
    config = hand.HandConfig()
    strip, edges, _ = hand._oriented_strip(
        hand._RowStrips(None, None, config, {False: (strips[0], one_way), True: (strips[1], other_way)}), config)
    assert strip is strips[1] and edges == other_way
    # the other way's top card with a stem standing in it: both ways need an edge left out
    stem = other_way[:-1] + _edges_mm((330, 0.55), (354.25, 0.83))
    strip, edges, _ = hand._oriented_strip(
        hand._RowStrips(None, None, config, {False: (strips[0], one_way), True: (strips[1], stem)}), config)
    assert strip is strips[0] and len(edges) == len(one_way) - 1


def test_a_weak_line_printed_on_a_covered_card_close_to_a_card_edge_is_no_card_edge():
    # Film 126: a covered gladiola's stem, 0.52 on edges, 8 mm before the next card's edge
    # (0.85): a strip of 8 mm is no card's, and the row was dropped. A weak edge that close
    # is print; one as strong as the cards', or weak but far from both neighbours, stays.
    from vision.hand import _printed_between

    cards = [(0, 0.87), (34, 0.87), (71, 0.87), (105, 0.85), (140, 0.88)]
    stem = (97, 0.52)
    assert [e.x for e in _printed_between(_edges_mm(*cards[:3], stem, *cards[3:]), 40)] == \
        [e.x for e in _edges_mm(*cards)]
    strong = _edges_mm(*cards[:3], (97, 0.8), *cards[3:])
    assert _printed_between(strong, 40) == strong
    apart = _edges_mm(*cards[:3], (88, 0.52), *cards[3:])
    assert _printed_between(apart, 40) == apart
    # the next card's outline 30 px after the stem, its printed border line (the edge's strongest
    # peak) 42 px after it: the gap is to the outline (film 132, a 12-card row dropped)
    from vision.hand import _Edge
    edges = [_Edge(74, 74, 74, 6.0, 0.83), _Edge(202, 191, 205, 6.0, 0.84), _Edge(303, 303, 303, 6.0, 0.51),
             _Edge(345, 333, 345, 6.0, 0.85), _Edge(465, 455, 465, 1.5, 0.87)]
    assert [e.x for e in _printed_between(edges, 40)] == [74, 202, 345, 465]


@pytest.mark.parametrize("card_id,style,shift_mm", [("W42", "meadow", 4.0), ("W44", "postcard", 3.0), ("W32", "postcard", 3.0)])
def test_a_border_painted_into_the_index_of_a_crop_set_off_the_card_names_no_other_value(card_id, style, shift_mm):
    # The strip's crop starts a few millimetres inside the card: the border painted at its full
    # width cuts the first digit (4 reads as 1); painted only as wide as it is, the index reads
    # whole. Two readings that disagree give no value, never the cut one.
    from tests.vision.test_vision_blisters import SPECS, _crop, _face
    from vision.hand import HandConfig, _painted, _read_piece
    from vision.read.reader import CARD_H_MM, CARD_W_MM, READ_H, READ_W, read_card

    config = HandConfig()
    crop = _crop(_face(SPECS[card_id], style), 0.0, CARD_H_MM, shift_mm, CARD_W_MM + shift_mm)
    hidden = np.zeros((READ_H, READ_W), bool)
    hidden[:, int(31.0 / CARD_W_MM * READ_W):] = True
    crop[hidden] = (150, 60, 20)
    true = SPECS[card_id].value
    assert read_card(_painted(crop, hidden), config.deck).value not in (None, true)  # the cut reading
    assert read_card(_painted(crop, hidden, narrow=True), config.deck).value == true
    assert _read_piece(crop, hidden, 31.0, config).value in (None, true)


def test_a_first_plaster_half_left_out_of_the_marks_makes_the_count_unsure(monkeypatch):
    # Film 124's G4 under the next card: the cooler left half of its first plaster was no plaster
    # mark, so the marks began half a plaster late, where a row of 3 begins, and the printed
    # row's fit hardly preferred another count. The band as measured there (per column: marks,
    # and '#' more than 0.3 of the rows off the paper): off-paper columns a little before the
    # marks' start make the count unsure; without them the same marks give 3.
    from vision import hand

    marks = "." * 43 + "#" * 15 + "." * 3 + "#" * 15 + "." * 7 + "#" * 5 + "." * 13
    off = ("." * 22 + "######++" + "." * 13 + "#" * 14 + "+...." + "#" * 14 + "+.....+" + "#" * 11 + "." * 7)
    crop, hidden = _covered_crop(CardKind.GLADIOLA, 0, 28.8)

    def band(profile: str):
        share = {"#": 0.5, "+": 0.2, ".": 0.0}
        return lambda *args, **kwargs: hand._Band(np.array([c == "#" for c in marks]), 20, 20 + len(marks),
                                                  np.array([share[c] for c in profile], np.float32))

    monkeypatch.setattr(hand, "_plaster_band", band("." * 30 + off[30:]))
    count, conf = hand._count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)
    assert count == 3 and conf > 0.9
    monkeypatch.setattr(hand, "_plaster_band", band(off))
    assert hand._count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)[1] == 0.0



@pytest.mark.parametrize("lean,width", [(6.0, 5), (8.0, 4)])
def test_a_cards_edge_is_fitted_where_the_card_below_darkens_into_its_border(lean, width):
    """The next card's border is a dark band a few px wide, its slant known only coarsely (6
    degrees): the band's inner side is as strong a step as its outer one, and the covered card
    ends at the outer one (film 138: a fit through both left the band's outer half on W47's crop,
    joined to its 7, and the card was unread)."""
    from vision.hand import _Edge, _fit_line, _side_steps

    strip = np.full((200, 300, 3), 235, np.uint8)
    t = np.tan(np.radians(lean))
    for y in range(200):
        x = int(round(150 + t * (y - 99.5)))  # the border's outer side
        strip[y, x:x + width] = (60, 120, 40)
        if y % 20 < 6:  # the covered card's print running up to the border in some rows
            strip[y, x - 9:x] = (40, 60, 30)
    _, darker = _side_steps(strip)
    x_outer, slope = _fit_line(darker, (0, 200), _Edge(150.0, 150.0, 150.0 + width, 6.0, 0.9), 4.0)
    # (the steps lie between columns 149 and 150)
    assert abs(x_outer - 149.5) <= 0.6 and abs(slope - t) < 0.01


def test_a_first_plaster_with_a_cool_rounded_end_is_counted_from_its_warm_part():
    """A covered FINISH's two plasters, 6 columns (1.5 mm) before the first one's warm print off
    the paper but not warm (films 141 and 144: the FINISH's count left open): that is the
    plaster's own end, not a plaster before it, and the row's start still gives the count."""
    from vision.hand import _count_from_left_end
    from vision.read.reader import BLISTER_GAP_MM, BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, CARD_H_MM, \
        CARD_W_MM, READ_H, READ_W

    crop, hidden = _covered_crop(CardKind.FINISH, 2, 34.0)
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    left = int((CARD_W_MM / 2 - BLISTER_MM - BLISTER_GAP_MM / 2) * ppx)
    top = BLISTER_ROW_MM[CardKind.FINISH]
    # cool: off the paper, not warmer (an outline or shading ahead of the warm print)
    crop[int((top + 0.8) * ppy):int((top + BLISTER_H_MM - 0.8) * ppy), left - 6:left] = (188, 198, 204)
    count, conf = _count_from_left_end(crop, hidden, CardKind.FINISH, False)
    assert count == 2 and conf >= 0.5


@pytest.mark.parametrize("mirrored", [4, 5])
def test_a_finish_counted_in_its_mirror_as_no_finish_can_be_is_counted_from_the_row_start(monkeypatch, mirrored):
    """The mirrored strip of a covered FINISH counts the chequer's lower edge as four or five
    plasters, which no FINISH of the deck carries (films 141 and 144): the count from the row's
    start stands alone; without the deck's counts the mirror's doubt keeps the count open."""
    import vision.hand as hand
    from vision.hand import HandConfig, _read_piece
    from vision.read.types import CardReading, FieldConfidences

    crop, hidden = _covered_crop(CardKind.FINISH, 2, 34.0)
    finish = CardReading(kind=CardKind.FINISH, value=50, confidence=0.9,
                         field_confidences=FieldConfidences(kind=0.9, value=0.9, blisters=0.0, date=0.0),
                         orientation_confidence=0.95)
    monkeypatch.setattr(hand, "read_card", lambda card, deck: finish)
    monkeypatch.setattr(hand, "count_blisters_in_row", lambda a, kind, flipped: (mirrored, 0.4))
    monkeypatch.setattr(hand, "_count_from_left_end", lambda *args: (2, 0.8))
    read = _read_piece(crop, hidden, 34.0, HandConfig(finish_blisters=frozenset({0, 1, 2})))
    assert (read.kind, read.blisters) == (CardKind.FINISH, 2)
    assert _read_piece(crop, hidden, 34.0, HandConfig()).blisters is None


def _cool_finish(plasters: int, length_mm: float, gap_mm: float, shown_mm: float,
                 shift_mm: float = 0.0, kind: CardKind = CardKind.FINISH) -> tuple[np.ndarray, np.ndarray]:
    """A covered FINISH's (or ``kind``'s) crop whose centred plasters (``length_mm`` long,
    ``gap_mm`` apart, moved ``shift_mm`` right) are off the paper but not warm (a cool light)."""
    from vision.read.reader import BLISTER_H_MM, BLISTER_ROW_MM, CARD_H_MM, CARD_W_MM, READ_H, READ_W

    crop, hidden = _covered_crop(kind, 0, shown_mm)
    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    top = BLISTER_ROW_MM[kind]
    left = CARD_W_MM / 2 - (plasters * length_mm + (plasters - 1) * gap_mm) / 2 + shift_mm
    for k in range(plasters):
        x = left + k * (length_mm + gap_mm) + length_mm / 2
        cv2.ellipse(crop, (int(x * ppx), int((top + BLISTER_H_MM / 2) * ppy)),
                    (int(length_mm / 2 * ppx), int(BLISTER_H_MM / 2 * ppy)), 0, 0, 360, (185, 195, 205), -1)
    crop[hidden] = (150, 60, 20)
    return crop, hidden


@pytest.mark.parametrize("plasters, length, gap, shown, shift", [
    (1, 8.2, 1.6, 31.0, 0.0), (1, 5.5, 4.4, 34.0, 1.5), (1, 8.2, 1.6, 37.0, -1.0),
    (2, 8.2, 1.6, 31.0, 0.0), (2, 5.5, 4.4, 34.0, 0.0), (2, 8.2, 1.6, 27.0, 1.0)])
def test_a_covered_finish_counts_from_where_its_band_leaves_the_paper(plasters, length, gap, shown, shift):
    """Plasters too cool for the warm marks, of two deck styles' sizes, in crops set up to 1.5 mm
    off the card: where the band first leaves the paper gives a FINISH's count (films 134, 136,
    139 and 142: the count left open, the hand unnamed)."""
    from vision.hand import _count_from_left_end, _finish_from_row_start

    crop, hidden = _cool_finish(plasters, length, gap, shown, shift)
    assert _count_from_left_end(crop, hidden, CardKind.FINISH, False)[1] == 0.0  # no warm marks
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) == (plasters, 0.75)
    # without the deck's counts, or for a deck whose FINISH cards carry more, nothing is said
    assert _finish_from_row_start(crop, hidden, False, frozenset()) is None
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2, 3})) is None


def test_a_covered_finish_whose_band_leaves_the_paper_between_the_counts_places_is_not_counted():
    from vision.hand import _finish_from_row_start

    # a single plaster's start 5.8 mm left of the centre: neither one plaster's place nor two's
    crop, hidden = _cool_finish(1, 8.2, 1.6, 34.0, -1.7)
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) is None
    # a run from one plaster's place going on past it: two plasters joined, begun too late
    crop, hidden = _cool_finish(1, 14.0, 1.6, 40.0, 3.0)
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) is None


@pytest.mark.parametrize("shown", [59.0 / 2 - 2.7, 59.0 / 2 - 2.2])
def test_a_single_plaster_cut_short_by_the_next_card_counts_but_a_shadow_does_not(shown):
    """Fresh films 177 and 179 (F2): a single plaster's first 1.2-2 mm in view before the next
    card, too short a run for a plaster's start; the hands went unnamed. A run into the next card
    counts when the rows past the band are paper in its columns (a plaster's height); the next
    card's shadow, running the card's height, does not."""
    from vision.hand import _finish_from_row_start
    from vision.read.reader import CARD_W_MM, READ_W

    crop, hidden = _cool_finish(1, 8.2, 1.6, shown)
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) == (1, 0.75)
    crop, hidden = _cool_finish(0, 8.2, 1.6, shown)
    ppx = READ_W / CARD_W_MM
    crop[int(0.1 * len(crop)):int(0.9 * len(crop)), int((shown - 1.5) * ppx):int(shown * ppx)] = (185, 195, 205)
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) is None


@pytest.mark.parametrize("plasters, cool, clean", [(0, False, True), (1, False, False), (1, True, False), (2, True, False)])
def test_a_finish_strip_ending_short_of_the_centre_is_zero_only_without_plaster_outlines(plasters, cool, clean):
    """Fresh films 175 and 179 (F5): clean strips ending 1.5 mm short of and 1.2 mm past the
    centre line, no plaster where a single one would show 2.6 mm or more; the counts were left
    open (a clean band had to reach 1.5 mm past the line). Clean of warm marks and of anything
    off the paper (a plaster in a cool light is not warm), it is no blisters."""
    from vision.hand import CLEAN_OUTLINE_REACH_MM, CLEAN_REACH_MM, _no_plaster_seen

    shown = 59.0 / 2 - 1.2
    crop, hidden = _cool_finish(plasters, 8.2, 1.6, shown) if cool else _covered_crop(CardKind.FINISH, plasters, shown)
    assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_OUTLINE_REACH_MM, outline=True) is clean
    assert not _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_REACH_MM, outline=True)
    if cool:  # the warm marks alone miss it
        assert _no_plaster_seen(crop, hidden, CardKind.FINISH, False, CLEAN_OUTLINE_REACH_MM)


@pytest.mark.parametrize("plasters, shown, shift", [(1, 29.0, 0.0), (2, 24.5, 0.0), (2, 27.7, -0.6), (3, 22.0, 1.0),
                                                     (4, 22.0, 0.0), (1, 34.0, -1.6), (4, 24.0, -1.6)])
def test_a_covered_gladiola_in_a_cool_light_counts_from_where_its_band_leaves_the_paper(plasters, shown, shift):
    """Fresh film 175's G2: two plasters too cool for the warm marks, the strip ending before the
    first one does; where the band first runs off the paper gives the count (the row is centred)."""
    from vision.hand import _count_from_left_end, _gladiola_from_row_start

    crop, hidden = _cool_finish(plasters, 8.2, 1.6, shown, shift, kind=CardKind.GLADIOLA)
    assert _count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)[1] == 0.0  # no warm marks
    assert _gladiola_from_row_start(crop, hidden, False) == (plasters, 0.75)
    # a run beginning between two rows' places is no count
    crop, hidden = _cool_finish(plasters, 8.2, 1.6, shown + 2.5, 2.5, kind=CardKind.GLADIOLA)
    assert _gladiola_from_row_start(crop, hidden, False) is None


@pytest.mark.parametrize("plasters, most", [(0, 1), (4, None)])
def test_a_cut_index_keeps_its_value_when_the_strips_blisters_rule_its_rivals_out(monkeypatch, plasters, most):
    """Fresh film 175's W31: its 1 at the next card's edge, maybe the left sliver of a cut 0, 3 or
    8. W31 has no blister, W30 and W33 four, W38 five; the strip, clean where a row of two would
    show, leaves at most one: 31 stands (the hand went unnamed). A strip showing plasters keeps
    the value dropped."""
    import vision.hand
    from vision.hand import HandConfig, _blisters_at_most, _read_piece, _rivals_ruled_out
    from vision.read.types import CardReading, Deck, Face
    from vision.types import FieldConfidences

    crop, hidden = _covered_crop(CardKind.WALK, plasters, 25.3)
    assert _blisters_at_most(crop, hidden) == most
    config = HandConfig(walk_blisters=((11, 4), (30, 4), (31, 0), (33, 4), (38, 5)))
    assert _rivals_ruled_out(crop, hidden, 31, {30, 33, 38}, config) is (plasters == 0)
    assert not _rivals_ruled_out(crop, hidden, 31, {30, 33, 38}, HandConfig())  # the counts unknown
    assert not _rivals_ruled_out(crop, hidden, 11, {13}, config)  # W11's four would show
    walk = CardReading(kind=CardKind.WALK, face=Face.FRONT, value=31, confidence=0.95,
                       field_confidences=FieldConfidences(kind=0.95, value=0.95))
    monkeypatch.setattr(vision.hand, "read_card", lambda crop, deck: walk)
    monkeypatch.setattr(vision.hand, "_one_is_a_sliver", lambda painted, hidden: True)
    config = HandConfig(deck=Deck.for_game("gladiola"), walk_blisters=config.walk_blisters)
    assert _read_piece(crop, hidden, 25.3, config).value == (31 if plasters == 0 else None)


@pytest.mark.parametrize("plasters, expected", [(5, 38), (3, 18), (4, None)])
def test_two_paintings_reading_different_values_are_settled_by_the_blister_count(monkeypatch, plasters, expected):
    """Fresh film 175's W38, its crop tight at the left: the border painted at full width cut the
    3 into a 1 (18 at 1.0), painted only as wide as it is the card read 38; the two disagreeing,
    the value was dropped and the hand went unnamed. The count of the row in view (W38 five, W18
    three) names the one that fits; a count fitting neither leaves the value open."""
    import vision.hand
    from vision.hand import HandConfig, _read_piece
    from vision.read.types import CardReading, Deck, Face
    from vision.types import FieldConfidences

    def walk(value: int) -> CardReading:
        return CardReading(kind=CardKind.WALK, face=Face.FRONT, value=value, confidence=1.0,
                           field_confidences=FieldConfidences(kind=1.0, value=1.0))

    monkeypatch.setattr(vision.hand, "_painted", lambda crop, hidden, narrow=False: "narrow" if narrow else "wide")
    monkeypatch.setattr(vision.hand, "read_card",
                        lambda crop, deck: walk({"wide": 18, "narrow": 38}.get(crop if isinstance(crop, str) else "", 0)))
    crop, hidden = _covered_crop(CardKind.WALK, plasters, 36.0)
    config = HandConfig(deck=Deck.for_game("gladiola"), walk_blisters=((18, 3), (38, 5)))
    assert _read_piece(crop, hidden, 36.0, config).value == expected


def test_a_rows_first_strip_of_table_holds_no_paper_but_a_covered_cards_does():
    """Fresh film 147: a line of the wood grain 19 mm before the row's first card was taken for
    the first card's edge, the strip between read as an unknown eighth card of a hand of seven;
    a row's first strip is dropped when hardly any of it is in the next card's paper colour."""
    from vision.hand import FIRST_PAPER, _paper_share

    ppm = 4.0
    strip = np.full((200, 600, 3), (60, 110, 160), np.uint8)  # wood
    strip[:, 80:81] = (30, 60, 90)  # a dark grain line
    for x0 in (156, 290, 424):  # three cards, the last one whole
        cv2.rectangle(strip, (x0, 10), (x0 + 236, 190), PAPER, -1)
        cv2.rectangle(strip, (x0, 10), (x0 + 236, 190), (40, 120, 40), 4)
        cv2.putText(strip, "37", (x0 + 12, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 60, 30), 3)
    band = (0, 200)
    assert _paper_share(strip, 80, 156, band, 156, 290, ppm) < FIRST_PAPER
    # the light falling off along the row: the first card is measured against its neighbour
    strip = (strip * np.linspace(0.75, 1.0, 600)[None, :, None]).astype(np.uint8)
    assert _paper_share(strip, 156, 290, band, 290, 424, ppm) > 0.6


def test_a_plaster_split_by_its_pale_middle_still_starts_the_row():
    """Fresh film 148's F6 (two plasters of 5.5 mm): the first plaster's first 1.2 mm lay apart
    from the rest of it, and the row was taken to start at the rest, one plaster's place."""
    from vision.hand import _finish_from_row_start
    from vision.read.reader import CARD_W_MM, READ_W

    crop, hidden = _cool_finish(2, 5.5, 4.4, 34.0)
    ppx = READ_W / CARD_W_MM
    first = CARD_W_MM / 2 - (2 * 5.5 + 4.4) / 2
    crop[:, int((first + 1.2) * ppx):int((first + 2.2) * ppx)] = PAPER  # the pale middle
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) == (2, 0.75)


def _measured_band(marks: str, profile: str, share: dict[str, float]):
    """A stand-in for :func:`vision.hand._plaster_band` giving a band as measured on a film: per
    column from the frame line (crop column 20), ``marks`` '#' where plaster marks run, and
    ``profile`` the share of rows off the paper by symbol."""
    from vision import hand

    return lambda *args, **kwargs: hand._Band(np.array([c == "#" for c in marks]), 20, 20 + len(marks),
                                              np.array([share[c] for c in profile], np.float32))


def test_a_faint_run_leading_into_the_plaster_marks_is_where_the_row_starts(monkeypatch):
    # Film 124's G3 under the next card (band as measured: per column, marks '#', and '+' a few
    # of the rows off the paper): the left half of its first plaster, a cool pale outline, was
    # no mark, so the marks began where a row of 2 would, and nothing more than 0.3 off the
    # paper lay before them: counted 2 at 0.84. The faint run into the marks starts the row.
    from vision import hand

    marks = "." * 65 + "#" * 15 + "..." + "#" * 14 + ".."
    off = "." * 43 + "+" * 9 + "." + "+" * 11 + "#" * 15 + "+...+" + "#" * 15
    crop, hidden = _covered_crop(CardKind.GLADIOLA, 0, 29.0)
    band = lambda profile: _measured_band(marks, profile, {"#": 0.5, "+": 0.2, ".": 0.0})  # noqa: E731

    monkeypatch.setattr(hand, "_plaster_band", band(off))
    count, conf = hand._count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)
    assert count == 3 and conf > 0.9
    # without the faint run the marks' start stands
    monkeypatch.setattr(hand, "_plaster_band", band("." * 65 + off[65:]))
    assert hand._count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)[0] == 2
    # a faint run with more off the paper a pitch before it: where the row starts is not plain
    monkeypatch.setattr(hand, "_plaster_band", band("." * 20 + "++++" + off[24:]))
    assert hand._count_from_left_end(crop, hidden, CardKind.GLADIOLA, False)[1] == 0.0


def test_a_blurred_halo_before_the_plaster_marks_does_not_start_the_row(monkeypatch):
    # Fresh film 150's F2 in a blurred shown hand (band as measured, marks '#' and off the paper
    # '+'): its one plaster's marks start 25.3 mm from the left edge, where a row of one starts;
    # 2.7 mm of haze off the paper leads into them, from where the row would hold 1.57 plasters.
    # The haze is no plaster's cooler part: the marks' start counts, where it was left open.
    from vision import hand

    marks = "." * 83 + "#" * 30
    off = "." * 72 + "+" * 11 + "#" * 30
    crop, hidden = _covered_crop(CardKind.FINISH, 1, 33.9)
    band = lambda profile: _measured_band(marks, profile, {"#": 0.9, "+": 0.5, ".": 0.0})  # noqa: E731

    monkeypatch.setattr(hand, "_plaster_band", band(off))
    count, conf = hand._count_from_left_end(crop, hidden, CardKind.FINISH, False)
    assert count == 1 and conf > 0.9
    monkeypatch.setattr(hand, "LEFT_HALO_FRAC", 0.0)  # every faint run a plaster's part
    assert hand._count_from_left_end(crop, hidden, CardKind.FINISH, False)[1] == 0.0


def test_a_finish_whose_count_is_missed_in_a_crop_turned_with_its_slanting_side_is_counted_level(monkeypatch):
    # Fresh film 150's first shown hand (4 players, 15 fps, seed 150): its FINISH (F6, two
    # plasters) lies with its sides slanting 9 degrees and its top edge level, so the crop
    # turned with its side reaches 5 mm above the card at its right and the plaster row is
    # looked for too high: read without a count, the hand left unnamed. Cut again level, it
    # counts 2; a count of the chequer's edge that no FINISH of the deck has is not taken.
    from vision import hand

    image, truth = _shown(150, 4, 15, 0)
    finish = truth.index("F6")
    deck = load_deck()
    config = hand.HandConfig(
        walk_blisters=tuple(sorted((c.value, c.blisters) for c in deck.cards if c.kind.value == "walk")),
        finish_blisters=frozenset(c.blisters for c in deck.cards if c.kind.value == "finish"))

    def finish_read(cfg: hand.HandConfig):
        rows = [h for h in read_hands(image, cfg) if h.count == len(truth)]
        assert len(rows) == 1
        _check(rows[0].cards, truth)
        return rows[0].cards[finish]

    card = finish_read(config)
    assert card.kind is CardKind.FINISH and card.blisters == 2
    assert finish_read(hand.HandConfig()).blisters is None  # no deck: any count of print could stand
    monkeypatch.setattr(hand, "LEVEL_RECOUNT_KINDS", ())
    assert finish_read(config).blisters is None


def _finish_under_banner(low_mm: float, banner_end_mm: float, square_mm: float, plasters: int,
                         shown_mm: float = 30.5) -> tuple[np.ndarray, np.ndarray]:
    """A covered FINISH's blurred crop: its chequered banner from 40 mm down to ``banner_end_mm``,
    ``plasters`` centred plasters ``low_mm`` below their printed place, shown to ``shown_mm``."""
    from vision.read.reader import BLISTER_GAP_MM, BLISTER_H_MM, BLISTER_MM, BLISTER_ROW_MM, CARD_H_MM, \
        CARD_W_MM, READ_H, READ_W

    ppx, ppy = READ_W / CARD_W_MM, READ_H / CARD_H_MM
    crop = np.full((READ_H, READ_W, 3), PAPER, np.uint8)
    cv2.rectangle(crop, (0, 0), (READ_W - 1, READ_H - 1), (150, 60, 20), int(2.5 * ppx))
    for i, y in enumerate(np.arange(40.0, banner_end_mm, square_mm)):
        for j, x in enumerate(np.arange(3.0, CARD_W_MM - 3.0, square_mm)):
            if (i + j) % 2 == 0:
                cv2.rectangle(crop, (int(x * ppx), int(y * ppy)),
                              (int((x + square_mm) * ppx), int(min(y + square_mm, banner_end_mm) * ppy)), (120, 40, 20), -1)
    top = BLISTER_ROW_MM[CardKind.FINISH] + low_mm
    left = CARD_W_MM / 2 - (plasters * BLISTER_MM + (plasters - 1) * BLISTER_GAP_MM) / 2
    for k in range(plasters):
        x = left + k * (BLISTER_MM + BLISTER_GAP_MM) + BLISTER_MM / 2
        cv2.ellipse(crop, (int(x * ppx), int((top + BLISTER_H_MM / 2) * ppy)),
                    (int(BLISTER_MM / 2 * ppx), int(BLISTER_H_MM / 2 * ppy)), 0, 0, 360, PLASTER, -1)
    crop = cv2.GaussianBlur(crop, (7, 7), 0)
    hidden = np.zeros(crop.shape[:2], bool)
    hidden[:, int(shown_mm * ppx):] = True
    crop[hidden] = (150, 60, 20)
    return crop, hidden


@pytest.mark.parametrize("low_mm, banner_end_mm, square_mm", [(2.5, 51.5, 2.0), (3.0, 52.5, 2.5)])
def test_a_covered_finish_band_is_looked_for_below_its_chequered_banner(monkeypatch, low_mm, banner_end_mm, square_mm):
    # Films 119 and 136: a FINISH's one plaster just under its chequered banner, half hidden, the
    # crop placed a few millimetres high. The band was found at the banner's lower row (its
    # blurred squares also made the paper between them the band's paper, so the paper below
    # looked warm everywhere): the count was left open. The band now starts clear of the banner.
    from vision import hand

    crop, hidden = _finish_under_banner(low_mm, banner_end_mm, square_mm, 1)
    count, conf = hand._count_from_left_end(crop, hidden, CardKind.FINISH, False)
    assert count == 1 and conf > 0.9
    monkeypatch.setattr(hand, "BANNER_DARK", 2.0)  # no row is the banner
    assert hand._count_from_left_end(crop, hidden, CardKind.FINISH, False)[1] == 0.0


@pytest.mark.parametrize("low_mm, banner_end_mm", [(5.0, 54.5), (5.5, 55.0)])
def test_a_finish_band_under_a_banner_reaching_through_the_searched_rows_is_found_past_it(low_mm, banner_end_mm):
    # Fresh films 164 (F3) and 179 (F6): two plasters just under a banner that reached (on a crop
    # placed high) so far into the rows searched for the band that no band fitted clear of it:
    # the band was found on the banner's squares and the counts left open.
    from vision.hand import _count_from_left_end, _finish_from_row_start
    from vision.read.reader import BLISTER_H_MM, BLISTER_ROW_MM, BLISTER_SEARCH_MM

    # (the plasters end below the searched rows, the banner leaves no band's height clear in them)
    assert BLISTER_ROW_MM[CardKind.FINISH] + BLISTER_SEARCH_MM + BLISTER_H_MM < low_mm + BLISTER_ROW_MM[CardKind.FINISH] + BLISTER_H_MM
    assert banner_end_mm > BLISTER_ROW_MM[CardKind.FINISH] + BLISTER_SEARCH_MM
    crop, hidden = _finish_under_banner(low_mm, banner_end_mm, 2.0, 2, shown_mm=33.0)
    count, conf = _count_from_left_end(crop, hidden, CardKind.FINISH, False)
    assert count == 2 and conf >= 0.5
    assert _finish_from_row_start(crop, hidden, False, frozenset({0, 1, 2})) == (2, 0.75)


def _aslant_reader(seed: int) -> Callable[[], tuple[int, int]]:
    """A reader of the shown row of ``_shown(seed)`` seen by a camera looking at the table
    aslant (the frame's far side 5% narrower on each end): each call reads it anew and returns
    how many cards were read and how many walk values, every reading checked against the truth."""
    image, truth = _shown(seed)
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    far = np.float32([[0.05 * w, 0], [0.95 * w, 0], [w, h], [0, h]])
    view = cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, far), (w, h), borderMode=cv2.BORDER_REPLICATE)

    def read() -> tuple[int, int]:
        hands = [hand_ for hand_ in read_hands(view) if hand_.count == len(truth)]
        assert len(hands) == 1
        return sum(c.kind is not CardKind.UNKNOWN for c in hands[0].cards), _check(hands[0].cards, truth)

    return read


def test_a_covered_card_whose_side_slants_by_perspective_is_read_with_level_edges(monkeypatch):
    # A camera looking at the table aslant (the frame's far side 5% narrower on each end): the
    # cards' sides slant while their top and bottom edges stay level. A crop turned as far as
    # the side slants reads fewer cards; cut again level, they read, none wrongly.
    from vision import hand

    read = _aslant_reader(11)
    monkeypatch.setattr(hand, "OTHER_EDGE_MM", 1e9)  # (no cut at other edges either, see below)
    kinds, walks = read()
    monkeypatch.setattr(hand, "LEVEL_SLANT_DEG", 90.0)  # never cut again
    kinds_turned, walks_turned = read()
    assert kinds > kinds_turned and walks > walks_turned


def test_an_unread_covered_card_is_cut_again_at_the_other_edges_its_strip_shows(monkeypatch):
    # The scene above, with no level cut: a card cut at the top and bottom edges nearest the
    # cards' height apart may have been cut at a neighbour's edges (fresh film 159's W30, lying
    # higher than the cards beside it, its index cut off at the top). Unread cards are cut again
    # at the other edges found in their strips: more cards read, none wrongly.
    from vision import hand

    read = _aslant_reader(11)
    monkeypatch.setattr(hand, "LEVEL_SLANT_DEG", 90.0)
    kinds, walks = read()
    monkeypatch.setattr(hand, "OTHER_EDGE_MM", 1e9)
    kinds_once, walks_once = read()
    assert kinds > kinds_once and walks > walks_once


def test_a_row_whose_cards_look_narrow_for_its_box_is_found_by_the_cards_heights(monkeypatch):
    # The frame's far side 7% narrower on each end: the cards look narrower than the row box's
    # height makes a card, and lie higher and lower in it; the top card is then no card wide for
    # the box, but is for the height most cards show.
    from vision import hand

    image, truth = _shown(SEED)
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    far = np.float32([[0.07 * w, 0], [0.93 * w, 0], [w, h], [0, h]])
    view = cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, far), (w, h), borderMode=cv2.BORDER_REPLICATE)
    hands = read_hands(view)
    assert len(hands) == 1 and hands[0].count == len(truth)
    assert _check(hands[0].cards, truth) >= len(truth) - 2
    monkeypatch.setattr(hand, "SAME_WIDTH", 10.0)  # the box's width only
    assert read_hands(view) == ()



def test_a_finish_counted_from_its_row_start_as_no_finish_can_be_is_not_taken(monkeypatch):
    """Fresh film 170's second shown hand: its FINISH (F4, one plaster) lay under a gladiola;
    the mirrored strip counted 5 at no confidence and the count from the row's start, also 5 at
    0.86, was taken in its place: a FINISH no card of the deck is, the hand left unnamed. A
    count no FINISH of the deck carries is refused however it was made."""
    import vision.hand as hand
    from vision.hand import HandConfig, _read_piece
    from vision.read.types import CardReading, FieldConfidences

    crop, hidden = _covered_crop(CardKind.FINISH, 1, 34.0)
    finish = CardReading(kind=CardKind.FINISH, value=50, confidence=0.9,
                         field_confidences=FieldConfidences(kind=0.9, value=0.9, blisters=0.0, date=0.0),
                         orientation_confidence=0.95)
    monkeypatch.setattr(hand, "read_card", lambda card, deck: finish)
    monkeypatch.setattr(hand, "count_blisters_in_row", lambda a, kind, flipped: (5, 0.0))
    monkeypatch.setattr(hand, "_count_from_left_end", lambda *args: (5, 0.86))
    monkeypatch.setattr(hand, "_no_plaster_seen", lambda *args, **kw: False)
    monkeypatch.setattr(hand, "_finish_from_row_start", lambda *args: (1, 0.8))
    deck = HandConfig(finish_blisters=frozenset({0, 1, 2}))
    assert _read_piece(crop, hidden, 34.0, deck).blisters is None
    assert _read_piece(crop, hidden, 34.0, HandConfig()).blisters == 5  # no deck: the count stands


@pytest.mark.parametrize("style", ["meadow", "postcard", "trail"])
@pytest.mark.parametrize("turned", [False, True])
def test_the_top_finish_lies_the_way_its_banner_says(style, turned):
    # A whole FINISH whose corner index gave its way up only at 0.58: the banner, printed above
    # the card's middle, says which way up it lies, and only that end's row height is looked at
    # for plasters (fresh film 191's F1, no plaster: the other end's row height runs along the
    # banner's edge and the count was left open; the hand went unnamed).
    from samples.render.cards import render_face, style_named
    from samples.render.specs import default_specs
    from vision.hand import _banner_turned, _whole_count
    from vision.read.reader import READ_H, READ_W
    from vision.read.types import CardReading, Face

    specs = {s.id: s for s in default_specs(Game.GLADIOLA)}
    for card, plasters in (("F1", 0), ("F2", 1), ("F3", 2)):
        face = np.ascontiguousarray(render_face(specs[card], style_named(Game.GLADIOLA, style), None, 6.0).image)
        crop = cv2.resize(cv2.GaussianBlur(face, (0, 0), 1.5), (READ_W, READ_H), interpolation=cv2.INTER_AREA)
        if turned:
            crop = cv2.rotate(crop, cv2.ROTATE_180)
        assert _banner_turned(crop) is turned, card
        unsure = CardReading(kind=CardKind.FINISH, face=Face.FRONT, value=50, confidence=0.9, flipped=turned,
                             orientation_confidence=0.58)
        read = _whole_count(crop, unsure)
        assert read.blisters in (None, plasters), card  # never a wrong count
        if plasters == 0:
            assert read.blisters == 0 and read.field_confidences.blisters >= 0.5
    # a walk card's print gives no banner's place
    walk = np.ascontiguousarray(render_face(specs["W23"], style_named(Game.GLADIOLA, style), None, 6.0).image)
    assert _banner_turned(cv2.resize(walk, (READ_W, READ_H), interpolation=cv2.INTER_AREA)) is None


def test_a_covered_finish_counted_two_ways_differently_is_left_open(monkeypatch):
    # The row's start seen from the warm marks and from where the band leaves the paper gives
    # two counts: the count stays open (fresh film 192's F2, one plaster peeking out at the
    # strip's edge, counted 2 at 0.64 one way and 1 at 0.75 the other; the shown hand's total
    # would have been one too high).
    import vision.hand as hand
    from vision.read.reader import CARD_W_MM
    from vision.read.types import CardReading, Face, FieldConfidences

    crop, hidden = _covered_crop(CardKind.FINISH, 1, CARD_W_MM / 2)
    config = hand.HandConfig(finish_blisters=frozenset({0, 1, 2}))
    finish = CardReading(kind=CardKind.FINISH, face=Face.FRONT, value=50, confidence=1.0, orientation_confidence=1.0,
                         field_confidences=FieldConfidences(kind=1.0, value=1.0))
    monkeypatch.setattr(hand, "read_card", lambda *a, **k: finish)  # the strip's index read as a FINISH's
    monkeypatch.setattr(hand, "_count_from_left_end", lambda *a: (2, 0.64))
    monkeypatch.setattr(hand, "_finish_from_row_start", lambda *a: (1, 0.75))
    monkeypatch.setattr(hand, "_no_plaster_seen", lambda *a, **k: False)
    assert hand.read_covered(crop, hidden, CARD_W_MM / 2, config).blisters is None
    # the two ways agreeing, the count stands
    monkeypatch.setattr(hand, "_finish_from_row_start", lambda *a: (2, 0.75))
    assert hand.read_covered(crop, hidden, CARD_W_MM / 2, config).blisters == 2
