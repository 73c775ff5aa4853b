"""The frame pipeline: detection + reading, cache reuse on a steady frame, read contract."""

from __future__ import annotations

import numpy as np
import pytest

from samples.render import Game, LayoutKind, SceneConfig, render_scene
from synth_cards import corner_error
from vision.pipeline import CardReader, PipelineConfig
from vision.read import Deck
from vision.read.types import CardReading
from vision.types import CardKind, Detection, FieldConfidences, Quad


def test_steady_frame_reads_nothing_new_and_confident_fields_are_right() -> None:
    scene = render_scene(3, Game.APPIA, SceneConfig(resolution=(960, 540), degrade=False,
                                                    layout=LayoutKind.SCATTERED, hands=0))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("appia"), tesseract=False))
    dets = [Detection(Quad.from_array(c.corners), 1.0) for c in scene.truth.cards if c.visible_fraction > 0.97]
    first = reader.read_detections(scene.image, dets)
    reads = reader.reads
    second = reader.read_detections(scene.image, dets)
    assert reads == len(dets) and reader.reads == reads
    assert first == second
    truths = [c for c in scene.truth.cards if c.visible_fraction > 0.97]
    for obs, truth in zip(first.observations, truths):
        assert obs.kind.value in (truth.spec.kind.value, "unknown")
        if obs.confidence >= 0.5 and obs.kind.value == "income":
            # the reader put the card's true top-left corner first
            assert np.allclose(obs.quad.corners[0], truth.corners[0], atol=1e-6)
    payload = first.to_json()
    assert payload["image"] == {"width": 960, "height": 540}
    assert len(payload["cards"]) == len(dets)


def _counting_detector(monkeypatch) -> list[int]:
    import vision.pipeline as pipeline

    calls: list[int] = []
    real = pipeline.detect_cards

    def counted(image, config, card_size=None):
        calls.append(1)
        return real(image, config, card_size)

    monkeypatch.setattr(pipeline, "detect_cards", counted)
    return calls


def test_a_still_table_is_detected_once_and_a_moved_card_again(monkeypatch) -> None:
    calls = _counting_detector(monkeypatch)
    scene = render_scene(5, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                       layout=LayoutKind.SCATTERED, hands=0))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False))
    rng = np.random.default_rng(0)
    first = reader.read_frame(scene.image)
    # sensor noise of a few gray levels: the same table
    noisy = np.clip(scene.image.astype(np.int16) + rng.integers(-3, 4, scene.image.shape), 0, 255).astype(np.uint8)
    again = reader.read_frame(noisy)
    assert len(calls) == 1 and reader.detections_reused == 1
    assert [o.quad for o in again.observations] == [o.quad for o in first.observations]
    # a card slides by 12 pixels: the frame is detected afresh
    moved = scene.image.copy()
    assert first.observations
    x0, y0, x1, y1 = (int(v) for v in first.observations[0].quad.bbox())
    moved[y0:y1, x0 + 12:x1 + 12] = scene.image[y0:y1, x0:x1][:, : max(0, min(x1, moved.shape[1] - 12) - x0)]
    reader.read_frame(moved)
    assert len(calls) == 2
    reader.reset()
    reader.read_frame(moved)
    assert len(calls) == 3


def test_the_size_of_cards_read_sure_in_full_view_is_handed_to_the_detector(monkeypatch) -> None:
    import vision.pipeline as pipeline

    sizes: list[tuple[float, float] | None] = []
    real = pipeline.detect_cards
    monkeypatch.setattr(pipeline, "detect_cards",
                        lambda image, config, size=None: sizes.append(size) or real(image, config, size))
    scene = render_scene(5, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                       layout=LayoutKind.SCATTERED, hands=0))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False, reuse_diff=0))
    assert reader.card_size() is None
    first = reader.read_frame(scene.image)
    reader.read_frame(scene.image)
    assert sizes[0] is None and sizes[1] is not None

    def sides(quad: Quad) -> list[float]:
        top, right, bottom, left = quad.side_lengths()
        return sorted(((top + bottom) / 2, (right + left) / 2))

    read = [sides(o.quad) for o in first.observations if o.visible and o.confidence >= 0.5]
    assert len(read) >= 3
    assert sizes[1] == pytest.approx(tuple(np.median(np.array(read), axis=0)))
    truth = [sides(Quad.from_array(c.corners)) for c in scene.truth.cards if c.visible_fraction > 0.99]
    assert sizes[1] == pytest.approx(tuple(np.median(np.array(truth), axis=0)), rel=0.15)  # (a tilted camera)
    reader.reset()
    assert reader.card_size() is None


def test_reuse_can_be_turned_off(monkeypatch) -> None:
    calls = _counting_detector(monkeypatch)
    image = render_scene(6, Game.VALAIS, SceneConfig(resolution=(640, 480), degrade=False, hands=0)).image
    reader = CardReader(PipelineConfig(tesseract=False, reuse_diff=0))
    reader.read_frame(image)
    reader.read_frame(image)
    assert len(calls) == 2 and reader.detections_reused == 0


def test_a_card_flagged_partly_hidden_is_read_without_its_blisters() -> None:
    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    truths = [c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk"]
    assert truths
    visible = [Detection(Quad.from_array(c.corners), 1.0) for c in truths]
    hidden = [Detection(Quad.from_array(c.corners), 1.0, visible=False) for c in truths]
    seen = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)).read_detections(scene.image, visible)
    flagged = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)).read_detections(scene.image, hidden)
    off = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False, read_hidden=False))
    not_read = off.read_detections(scene.image, hidden)
    read = [(a, b) for a, b in zip(seen.observations, flagged.observations) if a.value is not None]
    assert read, "expected the readers to read at least one walk card of the scene"
    for a, b in read:
        # the same kind and value as when seen whole, but the blister count is left open
        assert (b.kind, b.value, b.visible) == (a.kind, a.value, False)
        assert b.blisters is None and b.field_confidences.blisters == 0.0
    assert all(o.kind.value == "unknown" for o in not_read.observations)
    assert any(a.blisters is not None for a, _ in read)


def test_another_card_laid_where_one_lay_is_read_anew() -> None:
    # A Valais*Wallis row pushed along brings a card exactly where another lay: the two look
    # alike in a small thumbnail (white card, black year) but the cache must not answer.
    import cv2

    scene = render_scene(5, Game.VALAIS, SceneConfig(resolution=(960, 540), degrade=False,
                                                     layout=LayoutKind.TIMELINE, hands=0))
    dated = [c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.year is not None]
    first, other = next((a, b) for a in dated for b in dated if a.spec.year != b.spec.year)
    there = np.float32(first.corners)
    warp = cv2.getPerspectiveTransform(np.float32(other.corners), there)
    moved = cv2.warpPerspective(scene.image, warp, scene.image.shape[1::-1])
    mask = np.zeros(scene.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, there.astype(np.int32), 255)
    swapped = scene.image.copy()
    swapped[mask > 0] = moved[mask > 0]
    reader = CardReader(PipelineConfig(deck=Deck.for_game("valais"), tesseract=False))
    det = [Detection(Quad.from_array(first.corners), 1.0)]
    before = reader.read_detections(scene.image, det).observations[0]
    after = reader.read_detections(swapped, det).observations[0]
    assert reader.reads == 2
    assert before.date is not None and before.date.year == first.spec.year
    assert after.date is None or after.date.year == other.spec.year


def test_an_unsure_card_is_detected_and_read_afresh_every_few_frames(monkeypatch) -> None:
    # A still frame costs no detection and no reading, unless a card in it was read unsure (a
    # partly hidden card, or nothing read): then every ``recheck_frames`` frames the frame is
    # detected again and that card read again, since the next outline may come out whole.
    import vision.pipeline as pipeline

    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    walks = [c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk"]
    assert len(walks) >= 2
    whole = Detection(Quad.from_array(walks[0].corners), 1.0)
    hidden = Detection(Quad.from_array(walks[1].corners), 1.0, visible=False)
    for found, calls_after, reads_after in (([whole], 1, 1), ([whole, hidden], 3, 4)):
        calls: list[int] = []
        monkeypatch.setattr(pipeline, "detect_cards", lambda image, config, size, f=found: calls.append(1) or list(f))
        reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False, recheck_frames=3))
        results = [reader.read_frame(scene.image) for _ in range(7)]
        assert (len(calls), reader.reads) == (calls_after, reads_after)
        assert all(r == results[0] for r in results)


def test_a_card_read_below_the_sure_confidence_is_read_again(monkeypatch) -> None:
    # A card read while a shadow still lay on it got a doubtful reading (film 110: a 1885 at
    # 0.38, under the tracker's voting line): it is read again every few frames, not kept.
    import vision.pipeline as pipeline
    from dataclasses import replace

    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    walk = next(c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk")
    monkeypatch.setattr(pipeline, "detect_cards", lambda image, config, size: [Detection(Quad.from_array(walk.corners), 1.0)])
    real = pipeline.read_card
    confidences = iter([0.38] + [0.9] * 10)
    monkeypatch.setattr(pipeline, "read_card", lambda crop, deck: replace(real(crop, deck), confidence=next(confidences)))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False, recheck_frames=3))
    seen = [reader.read_frame(scene.image).observations[0].confidence for _ in range(7)]
    assert seen == [0.38, 0.38, 0.38, 0.9, 0.9, 0.9, 0.9]
    assert reader.reads == 2


def test_a_year_read_over_an_unread_date_line_is_read_again_until_the_date_is_whole(monkeypatch) -> None:
    # Film 169: the accepted 1884-07-22, read as a year-only 1884 under a passing hand, kept that
    # reading from the cache for the rest of the game (the card looked the same). A year read
    # over a date line left unread is read again every ``partial_recheck`` frames until the
    # date is read whole; a year-only card (no date line) is not.
    import vision.pipeline as pipeline
    from dataclasses import replace

    from vision.types import CardDate

    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    card = next(c for c in scene.truth.cards if c.visible_fraction > 0.97)
    monkeypatch.setattr(pipeline, "detect_cards", lambda image, config, size: [Detection(Quad.from_array(card.corners), 1.0)])
    whole = CardReading(kind=CardKind.TIMELINE, date=CardDate(1884, 7, 22), confidence=1.0,
                        field_confidences=FieldConfidences(kind=1.0, date=1.0), date_line=(0.2, 0.41, 0.8, 0.51))

    def run(first: CardReading) -> tuple[list[CardDate | None], int]:
        readings = iter([first, first] + [whole] * 10)
        monkeypatch.setattr(pipeline, "read_card", lambda crop, deck: next(readings))
        reader = CardReader(PipelineConfig(deck=Deck.for_game("valais"), tesseract=False, partial_recheck=4))
        return [reader.read_frame(scene.image).observations[0].date for _ in range(12)], reader.reads

    year = replace(whole, date=CardDate(1884))
    dates, reads = run(year)
    assert dates == [CardDate(1884)] * 8 + [CardDate(1884, 7, 22)] * 4 and reads == 3
    dates, reads = run(replace(year, date_line=None))  # a year-only card: read once
    assert dates == [CardDate(1884)] * 12 and reads == 1


def test_a_second_look_at_an_unread_card_calls_no_tesseract(monkeypatch) -> None:
    # An outline on bare table reads as nothing: the first reading asks Tesseract, the second
    # looks every few frames use the in-process readers only.
    import vision.pipeline as pipeline

    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    blank = scene.image.copy()
    blank[:] = blank[5:6, 5:6]  # the table's colour everywhere: nothing to read
    quad = Detection(Quad.from_array(np.array([[400, 150], [520, 150], [520, 330], [400, 330]], np.float64)), 1.0)
    monkeypatch.setattr(pipeline, "detect_cards", lambda image, config, size: [quad])
    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), recheck_frames=3))
    results = [reader.read_frame(blank) for _ in range(7)]
    assert all(r.observations[0].kind.value == "unknown" for r in results)
    assert reader.ocr_calls == 1 and reader.reads == 3


def _row_card():
    """A rendered Valais*Wallis row, one of its date cards in full view, and the map from the
    card's unit square to the image."""
    import cv2

    scene = render_scene(5, Game.VALAIS, SceneConfig(resolution=(960, 540), degrade=False,
                                                     layout=LayoutKind.TIMELINE, hands=0))
    card = next(c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.year is not None)
    corners = Quad.card_order(np.array(card.corners, np.float64)).as_array().astype(np.float32)
    return scene, card, cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), corners)


def test_a_card_whose_print_changed_in_a_few_digits_is_read_anew() -> None:
    # 1992 laid exactly where 1897 lay: most of the two cards' thumbnails are alike (white card,
    # black year), so the mean and 95th-percentile differences stay small; the year's digits
    # differ a lot, and the cache must not hand the new card the old card's reading.
    import cv2

    scene, card, to_image = _row_card()
    changed = scene.image.copy()
    for x0 in (0.30, 0.55):  # two digits of the year painted over
        patch = np.float32([[[x0, 0.24]], [[x0 + 0.08, 0.24]], [[x0 + 0.08, 0.34]], [[x0, 0.34]]])
        cv2.fillConvexPoly(changed, cv2.perspectiveTransform(patch, to_image).reshape(-1, 2).astype(np.int32),
                           (20, 20, 20))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("valais"), tesseract=False))
    det = [Detection(Quad.from_array(card.corners), 1.0)]
    reader.read_detections(scene.image, det)
    reader.read_detections(changed, det)
    assert reader.reads == 2


def test_the_enrolled_deck_hook_is_told_which_crop_pixels_lie_outside_the_image() -> None:
    """A card running out of the frame: the hook gets a mask over the part beyond the image's
    edge (the crop only repeats the edge there); a card inside the frame gets None."""
    image = np.full((300, 400, 3), 90, np.uint8)
    inside = Detection(Quad.from_array(np.array([[50, 40], [150, 40], [150, 190], [50, 190]], float)), 1.0)
    # the right half of this card lies past the image's right edge (x = 399)
    cut = Detection(Quad.from_array(np.array([[340, 60], [460, 60], [460, 240], [340, 240]], float)), 1.0)
    seen: list[np.ndarray | None] = []

    def hook(crop: np.ndarray, outside: np.ndarray | None):
        seen.append(outside)
        return None

    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False, known_cards=hook))
    reader.read_detections(image, [inside, cut])
    assert len(seen) == 2 and seen[0] is None
    mask = seen[1]
    assert mask is not None and mask.shape == (reader.config.rectify.height, reader.config.rectify.width)
    share = float(mask.mean())
    assert 0.4 < share < 0.55  # 60 of the card's 120 px lie outside
    assert not mask[:, : mask.shape[1] // 3].any() and mask[:, -mask.shape[1] // 4:].all()


def _grown(corners: np.ndarray, down: float, side: float) -> np.ndarray:
    """``corners`` (card order) with the foot moved ``down`` of the card's length further down
    and the left side ``side`` of its width further out: an outline taking in the card below."""
    c = np.asarray(corners, np.float64).copy()
    length, width = c[3] - c[0], c[1] - c[0]
    c[2:] += down * length
    c[[0, 3]] -= side * width
    return c


def _pile_top():
    """A rendered scene, a walk card in full view in it (truth, corners) and an outline taking in
    a strip below and beside it, as a pile's outline would."""
    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    truth = next(c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk")
    card = np.asarray(truth.corners, np.float64)
    return scene, truth, card, Quad.card_order(_grown(card, 0.3, 0.2))


def test_a_card_is_read_at_a_guess_inside_an_outline_that_reads_as_nothing() -> None:
    # The detector's outline of a pile takes in a strip of the cards below and reads as nothing;
    # it carries guesses where the top card may lie: the card is read at the guess that reads
    # surely, reported there, and the next frame takes it from the cache.
    scene, truth, card, outline = _pile_top()
    config = PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)
    alone = CardReader(config).read_detections(scene.image, [Detection(outline, 1.0)]).observations[0]
    assert alone.kind.value == "unknown" or alone.confidence < 0.5
    guesses = (Quad.card_order(_grown(card, 0.25, 0.0)), Quad.card_order(card), Quad.card_order(card + 1.0))
    reader = CardReader(config)
    det = [Detection(outline, 1.0, inside=guesses)]
    first = reader.read_detections(scene.image, det).observations[0]
    assert (first.kind.value, first.value) == ("walk", truth.spec.value)
    assert float(np.abs(Quad.card_order(first.quad.as_array()).as_array() - Quad.card_order(card).as_array()).max()) <= 1.0 + 1e-6
    reads = reader.reads
    again = reader.read_detections(scene.image, det).observations[0]
    assert reader.reads == reads and again == first


def test_a_pile_outline_yields_to_guesses_naming_another_card_or_when_unsure(monkeypatch) -> None:
    # Film 166: a pile's outline took in the peeking corner of the card below and was read from
    # that end alone, as the card below, at 0.54-0.69 (W40 on W34) and at 1.0 (W43 on W23, the
    # top card's own index at the other end cut off); the guesses inside read the top card. The
    # outline's reading is made such a one here (another value): the guesses are read and win,
    # however sure the outline's reading. An outline read surely as the guesses' card keeps its
    # reading (even when a guess reads surer: its count may be left open); one read unsurely
    # takes the guesses' quad and reading.
    import vision.pipeline as pipeline

    scene, truth, card, outline = _pile_top()
    config = PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)
    guesses = (Quad.card_order(card), Quad.card_order(card + 1.0))
    real = pipeline.read_card
    other = 34 if truth.spec.value != 34 else 33

    def seen_with_outline_at(value: int, confidence: float) -> tuple[object, int]:
        calls: list[int] = []

        def read(crop: np.ndarray, deck: Deck) -> CardReading:
            calls.append(1)
            if len(calls) == 1:  # the outline, read first
                return CardReading(kind=CardKind.WALK, value=value, confidence=confidence,
                                   field_confidences=FieldConfidences(kind=1.0, value=confidence))
            return real(crop, deck)

        monkeypatch.setattr(pipeline, "read_card", read)
        seen = CardReader(config).read_detections(scene.image, [Detection(outline, 1.0, inside=guesses)]).observations[0]
        return seen, len(calls)

    for confidence in (0.65, 0.9, 1.0):
        seen, calls = seen_with_outline_at(other, confidence)
        assert (seen.kind.value, seen.value, calls) == ("walk", truth.spec.value, 3)
        assert seen.confidence >= 0.5 and corner_error(seen.quad.as_array(), card) < 3.0
    for confidence in (0.6, 1.0):
        seen, calls = seen_with_outline_at(truth.spec.value, confidence)
        assert (seen.value, seen.confidence, calls) == (truth.spec.value, confidence, 3)
        assert corner_error(seen.quad.as_array(), card) > 3.0  # the outline's own quad
    seen, calls = seen_with_outline_at(truth.spec.value, 0.3)
    assert seen.value == truth.spec.value and seen.confidence > 0.3 and corner_error(seen.quad.as_array(), card) < 3.0


def _two_walks():
    """A rendered scene with two walks of different values in full view, a reader's config, and
    an outline grown round the first walk."""
    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    walks = [c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk"]
    a, b = next((a, b) for a in walks for b in walks if a.spec.value != b.spec.value)
    config = PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)
    return scene, a, b, config, Quad.card_order(_grown(np.asarray(a.corners, np.float64), 0.3, 0.2))


def test_a_reading_not_read_by_most_guesses_is_not_taken() -> None:
    # Two guesses, each on another card, each read surely: which one lies inside the outline is
    # not told, so the outline stays unread rather than take either. So it does when one guess
    # reads surely and two read nothing (guesses cutting through a card may read a fragment of
    # its print), while one guess alone, read surely, stands.
    scene, a, b, config, outline = _two_walks()
    one = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(Quad.from_array(a.corners),))]).observations[0]
    assert (one.kind.value, one.value) == ("walk", a.spec.value)
    both = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(Quad.from_array(a.corners), Quad.from_array(b.corners)))]).observations[0]
    assert both.kind.value == "unknown" or both.confidence < 0.5
    few = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(Quad.from_array(a.corners), outline, outline))]).observations[0]
    assert few.kind.value == "unknown" or few.confidence < 0.5


def test_half_the_guesses_do_for_a_reading_no_cut_print_can_give() -> None:
    # Two of four guesses read a card surely and two read nothing: a two-digit value cannot be
    # a fragment of a longer print, so it is taken; a single digit may be a 19 cut to 9, so it
    # is not; nor is a two-digit value when a third guess reads another card.
    scene = render_scene(11, Game.GLADIOLA, SceneConfig(resolution=(960, 540), degrade=False,
                                                        layout=LayoutKind.SCATTERED, hands=0))
    walks = [c for c in scene.truth.cards if c.visible_fraction > 0.97 and c.spec.kind.value == "walk"]
    two = next(c for c in walks if c.spec.value >= 10)
    one = next(c for c in walks if c.spec.value < 10)
    config = PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False)

    def read(card, other=None) -> tuple[str, int | None, float]:
        corners = np.asarray(card.corners, np.float64)
        outline = Quad.card_order(_grown(corners, 0.3, 0.2))
        fourth = outline if other is None else Quad.from_array(other.corners)
        guesses = (Quad.card_order(corners), Quad.card_order(corners + 1.0), outline, fourth)
        seen = CardReader(config).read_detections(scene.image, [Detection(outline, 1.0, inside=guesses)]).observations[0]
        return seen.kind.value, seen.value, seen.confidence

    kind, value, _ = read(two)
    assert (kind, value) == ("walk", two.spec.value)
    kind, _, confidence = read(one)
    assert kind == "unknown" or confidence < 0.5
    other = next(c for c in walks if c.spec.value != two.spec.value)
    kind, _, confidence = read(two, other)
    assert kind == "unknown" or confidence < 0.5


def test_a_card_read_inside_an_outline_flagged_partly_hidden_is_in_full_view() -> None:
    # A pile seen as pieces gives an outline flagged partly hidden; the top card read at its
    # guesses lies on top of the pile: reported in full view, with its blisters.
    scene, truth, card, outline = _pile_top()
    reader = CardReader(PipelineConfig(deck=Deck.for_game("gladiola"), tesseract=False))
    hidden = Detection(outline, 0.6, visible=False, inside=(Quad.card_order(card), Quad.card_order(card + 1.0)))
    seen = reader.read_detections(scene.image, [hidden]).observations[0]
    assert (seen.kind.value, seen.value, seen.visible) == ("walk", truth.spec.value, True)
    again = reader.read_detections(scene.image, [hidden]).observations[0]
    assert again == seen and again.visible


def test_the_second_set_of_guesses_is_read_only_when_the_first_gives_nothing() -> None:
    # The first set reads nothing (it cuts through the card): the card is read at the second
    # set. When the first set reads a card, the second (here on another card) is not taken,
    # unless the first set is one guess: the second then joins its vote.
    scene, a, b, config, outline = _two_walks()
    at_a, at_b = Quad.from_array(a.corners), Quad.from_array(b.corners)
    second = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(outline, outline), also_inside=(at_a,))]).observations[0]
    assert (second.kind.value, second.value) == ("walk", a.spec.value)
    a_again = Quad.from_array(np.asarray(a.corners) + 1.0)
    first = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(at_a, a_again), also_inside=(at_b,))]).observations[0]
    assert (first.kind.value, first.value) == ("walk", a.spec.value)
    torn = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(at_a,), also_inside=(at_b,))]).observations[0]
    assert torn.kind.value == "unknown" or torn.confidence < 0.5
    neither = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(outline,), also_inside=(outline,))]).observations[0]
    assert neither.kind.value == "unknown" or neither.confidence < 0.5
    # a first set of one guess is weak: the second set joins its vote
    at_a_too = (at_a, a_again, Quad.from_array(np.asarray(a.corners) - 1.0))
    outvoted = CardReader(config).read_detections(
        scene.image, [Detection(outline, 1.0, inside=(at_b,), also_inside=at_a_too)]).observations[0]
    assert (outvoted.kind.value, outvoted.value) == ("walk", a.spec.value)


def test_a_card_read_with_an_edge_across_its_print_is_read_anew_once_the_edge_is_gone() -> None:
    # the edge of a card held over a row card crosses its year as a thin dark line: a small
    # share of the thumbnail (the mean, 95th and 99th percentiles stay low) but a strong
    # difference at one spot; the reading made under it must not be reused once it is gone
    import cv2

    scene, card, to_image = _row_card()
    crossed = scene.image.copy()
    line = np.float32([[[0.63, 0.24]], [[0.69, 0.33]]])
    ends = cv2.perspectiveTransform(line, to_image).reshape(-1, 2).astype(np.int32)
    cv2.line(crossed, tuple(ends[0]), tuple(ends[1]), (20, 20, 20), 2)
    reader = CardReader(PipelineConfig(deck=Deck.for_game("valais"), tesseract=False))
    det = [Detection(Quad.from_array(card.corners), 1.0)]
    reader.read_detections(crossed, det)
    reader.read_detections(scene.image, det)
    assert reader.reads == 2
    reader.read_detections(scene.image, det)
    assert reader.reads == 2  # the clean card's own reading is reused
    # without the spot check, the other cache checks let the reading under the line stand
    lax = CardReader(PipelineConfig(deck=Deck.for_game("valais"), tesseract=False, cache_spot=255.0))
    lax.read_detections(crossed, det)
    lax.read_detections(scene.image, det)
    assert lax.reads == 1


@pytest.mark.parametrize(("text", "expected"), [
    ("13.7.1845", "1845-07-13"), ("1.12.1845", "1845-12-01"),
    ("13.7.1846", "1845"),  # the line's year is not the one printed large
    ("26.80.1845", "1845"), ("31.2.1845", "1845"), ("13.7", "1845"), ("1371845", "1845"),
    ("", "1845"), ("123.7.1845", "1845"),
])
def test_a_date_line_read_by_tesseract_must_be_a_day_and_month_of_the_year_read(text: str, expected: str) -> None:
    from vision.pipeline import _date_from_ocr
    from vision.read.types import CardReading, Face
    from vision.types import CardDate, CardKind

    reading = CardReading(kind=CardKind.TIMELINE, face=Face.DATE, date=CardDate(1845), date_line=(0.1, 0.4, 0.9, 0.5))
    assert _date_from_ocr(text, reading).date.to_json() == expected
