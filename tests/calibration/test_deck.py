"""Deck enrollment: labels, the deck files, recognising enrolled cards, and `calibrate deck`."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.deck import (
    CardLabel,
    DeckGame,
    DeckKind,
    DeckMatcher,
    EnrolledDeck,
    deck_paths,
    enroll,
    label_from_name,
    read_labels,
)
from calibration.enroll_photo import choose_quad, densify, locate_card, plain_background_quad
from calibration.errors import CalibrationError
from calibration.features import blur_kernels, blur_luma, describe
from companion.cli import main
from tests.calibration.blur import streak

W, H = 180, 276


def face(label: CardLabel, tint: tuple[int, int, int] = (235, 238, 240)) -> np.ndarray:
    """A simple own card design: paper, a frame, the value in the middle and a top corner, blister dots."""
    img = np.full((H, W, 3), tint, np.uint8)
    cv2.rectangle(img, (8, 8), (W - 9, H - 9), (40, 90, 30), 3)
    text = str(label.value) if label.value is not None else str(label.year) if label.year else "*"
    if label.kind is DeckKind.GLADIOLA:
        cv2.ellipse(img, (W // 2, H // 2), (30, 60), 0, 0, 360, (150, 40, 200), -1)
    else:
        scale = 2.6 if len(text) <= 2 else 1.3
        cv2.putText(img, text, (30, 160), cv2.FONT_HERSHEY_SIMPLEX, scale, (30, 30, 30), 6, cv2.LINE_AA)
    cv2.putText(img, text[:2], (14, 36), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 160), 2, cv2.LINE_AA)
    for k in range(label.blisters or 0):
        cv2.circle(img, (W - 30, 40 + 26 * k), 10, (30, 110, 240), -1, cv2.LINE_AA)
    return img


LABELS = (
    CardLabel("W03", DeckKind.WALK, 3, 1),
    CardLabel("W08", DeckKind.WALK, 8, 2),
    CardLabel("W38", DeckKind.WALK, 38, 0),
    CardLabel("W33", DeckKind.WALK, 33, 4),
    CardLabel("F1", DeckKind.FINISH, 50, 0),
    CardLabel("F2", DeckKind.FINISH, 50, 1),
    CardLabel("F3", DeckKind.FINISH, 50, 2),
    CardLabel("G1", DeckKind.GLADIOLA, None, 3),
    CardLabel("G2", DeckKind.GLADIOLA, None, 3),
    CardLabel("S", DeckKind.START, 0, 0),
)


@pytest.fixture(scope="module")
def matcher() -> DeckMatcher:
    return DeckMatcher(enroll(DeckGame.GLADIOLA, [(lab, face(lab)) for lab in LABELS]))


def camera_view(card: np.ndarray, seed: int, turned: bool, cover: float = 0.0) -> np.ndarray:
    """The card seen by a camera and cut out again with slightly wrong corners, light, blur, noise."""
    rng = np.random.default_rng(seed)
    if turned:
        card = cv2.rotate(card, cv2.ROTATE_180)
    src = np.float32([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    dst = np.float32([[60, 40], [250, 62], [262, 340], [45, 322]]) + rng.normal(0, 4, (4, 2)).astype(np.float32)
    table = np.full((380, 320, 3), (40, 70, 110), np.uint8)
    mask = cv2.warpPerspective(np.full((H, W), 255, np.uint8), cv2.getPerspectiveTransform(src, dst), (320, 380))
    warped = cv2.warpPerspective(card, cv2.getPerspectiveTransform(src, dst), (320, 380))
    scene = np.where(mask[..., None] > 127, warped, table)
    if cover:  # a hand over the lower part of the card
        y = int(dst[:, 1].max() - cover * (dst[:, 1].max() - dst[:, 1].min()))
        cv2.rectangle(scene, (0, y), (319, 379), (120, 160, 210), -1)
    scene = cv2.GaussianBlur(scene, (0, 0), 1.0)
    gain = rng.uniform(0.8, 1.05, 3)
    scene = np.clip(scene * gain + rng.normal(0, 4, scene.shape), 0, 255).astype(np.uint8)
    back = dst + rng.normal(0, 0.5, (4, 2)).astype(np.float32)  # imperfect detected corners
    return cv2.warpPerspective(scene, cv2.getPerspectiveTransform(back, src * 0.5), (W // 2, H // 2))


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("index", range(len(LABELS)))
def test_recognises_enrolled_cards_in_camera_views(matcher, index, turned):
    label = LABELS[index]
    m = matcher.match(camera_view(face(label), seed=index, turned=turned))
    assert m is not None
    assert (m.kind, m.value, m.blisters) == (label.kind, label.value, label.blisters)
    assert m.flipped is turned
    if label.identity not in ("G1", "G2"):  # the two gladiolas look the same: either may be named
        assert m.identity == label.identity
    assert 0.0 < m.score <= 1.0


def test_partly_covered_card_is_still_recognised(matcher):
    m = matcher.match(camera_view(face(LABELS[2]), seed=5, turned=False, cover=0.2))
    assert m is not None and m.identity == "W38"


@pytest.mark.parametrize("label", [CardLabel("W27", DeckKind.WALK, 27, 3), CardLabel("X", DeckKind.WALK, 1, 5)])
def test_unknown_card_is_rejected_or_never_confidently_wrong(matcher, label):
    m = matcher.match(camera_view(face(label, tint=(200, 230, 250)), seed=1, turned=False))
    assert m is None


def test_unlike_picture_is_rejected(matcher):
    rng = np.random.default_rng(3)
    noise = cv2.resize(rng.integers(0, 255, (20, 14, 3), dtype=np.uint8), (W, H), interpolation=cv2.INTER_NEAREST)
    assert matcher.match(noise) is None


def test_blisters_left_open_when_the_blister_area_is_hidden(matcher):
    view = camera_view(face(LABELS[5]), seed=2, turned=False)
    view[: H // 4, W // 4:] = (120, 160, 210)  # the blister column of F2 (and its rivals) is covered
    m = matcher.match(view)
    assert m is None or (m.kind is DeckKind.FINISH and m.value == 50 and m.blisters in (None, 1))


def test_confusable_pairs_are_listed_nearest_first(matcher):
    pairs = matcher.confusable(4)
    assert len(pairs) == 4
    assert [d for _, _, d in pairs] == sorted(d for _, _, d in pairs)
    assert all({a, b} != {"G1", "G2"} for a, b, _ in pairs)  # same look: not a confusion


# --------------------------------------------------------------------------------------------
# Deck files


def test_save_and_load_round_trip(tmp_path, matcher):
    deck = matcher.deck
    index = deck.save(tmp_path)
    assert index == tmp_path / "deck-gladiola.json"
    data = json.loads(index.read_text())
    assert (data["format"], data["version"], data["game"]) == ("table-companion-deck", 1, "gladiola")
    loaded = EnrolledDeck.load(tmp_path, DeckGame.GLADIOLA)
    assert loaded.labels == deck.labels
    np.testing.assert_array_equal(loaded.luma, deck.luma)
    again = DeckMatcher.load(tmp_path, "gladiola").match(camera_view(face(LABELS[1]), 9, True))
    assert again is not None and again.identity == "W08"


def _edit_index(key: str, value: object):
    def edit(tmp_path):
        index, _ = deck_paths(tmp_path, DeckGame.GLADIOLA)
        data = json.loads(index.read_text())
        data[key] = value
        index.write_text(json.dumps(data))
    return edit


def _write(name: str, content: bytes):
    def edit(tmp_path):
        (tmp_path / name).write_bytes(content)
    return edit


@pytest.mark.parametrize(
    "damage, message",
    [
        (_write("deck-gladiola.json", b'{"format": "table-companion-deck", "vers'), "damaged deck index: expected JSON"),
        (_write("deck-gladiola.json", b"\xff\xd8\xff\xe0JFIF"), "expected a JSON deck index, got binary data"),
        (_edit_index("format", "someone-else"), "not a table-companion deck"),
        (_edit_index("version", 9), "deck version 9 is newer"),
        (_edit_index("game", "valais"), "expected a gladiola deck, got one for 'valais'"),
        (_edit_index("descriptor", {"luma": [8, 8]}), "expected descriptor settings"),
        (_edit_index("cards", []), 'expected a non-empty "cards" list'),
        (_edit_index("cards", [{"id": "A", "kind": "joker"}]), "card 0: expected a card with id and a known kind"),
        (_edit_index("arrays", "../elsewhere.npz"), 'expected "arrays" to name a file next to the index'),
        (_write("deck-gladiola.npz", b"PK\x03\x04 not really a zip"), "damaged deck arrays: expected sha256"),
        (lambda p: (p / "deck-gladiola.npz").unlink(), "cannot read the deck arrays"),
        (lambda p: (p / "deck-gladiola.json").unlink(), "no enrolled gladiola deck here"),
    ],
)
def test_damaged_or_foreign_deck(tmp_path, matcher, damage, message):
    matcher.deck.save(tmp_path)
    damage(tmp_path)
    with pytest.raises(CalibrationError, match=message):
        DeckMatcher.load(tmp_path, DeckGame.GLADIOLA)


def test_card_count_must_match_the_arrays(tmp_path, matcher):
    matcher.deck.save(tmp_path)
    _edit_index("cards", [lab.to_json() for lab in LABELS[:3]])(tmp_path)
    with pytest.raises(CalibrationError, match="expected descriptor arrays for 3 cards"):
        EnrolledDeck.load(tmp_path, DeckGame.GLADIOLA)


# --------------------------------------------------------------------------------------------
# Labels


@pytest.mark.parametrize(
    "name, game, expected",
    [
        ("walk-17-b3.jpg", DeckGame.GLADIOLA, (DeckKind.WALK, 17, 3, None)),
        ("FINISH-50-b1-second.png", DeckGame.GLADIOLA, (DeckKind.FINISH, 50, 1, None)),
        ("start-0-b0.jpg", DeckGame.GLADIOLA, (DeckKind.START, 0, 0, None)),
        ("gladiola-b4_2.jpg", DeckGame.GLADIOLA, (DeckKind.GLADIOLA, None, 4, None)),
        ("timeline-1865.jpg", DeckGame.VALAIS, (DeckKind.TIMELINE, None, None, 1865)),
    ],
)
def test_label_from_file_name(name, game, expected):
    assert label_from_name(name, game).look == expected


@pytest.mark.parametrize(
    "name, game, message",
    [
        ("IMG_0042.jpg", DeckGame.GLADIOLA, "expected a file name like walk-17-b3"),
        ("walk-50-b1.jpg", DeckGame.GLADIOLA, "expected a km value 1..49 for a walk card, got 50"),
        ("finish-49-b0.jpg", DeckGame.GLADIOLA, "expected a km value 50..50 for a finish card, got 49"),
        ("timeline-1865.jpg", DeckGame.GLADIOLA, "expected a kind in"),
        ("walk-3-b1.jpg", DeckGame.VALAIS, "expected a kind in \\['timeline'\\]"),
    ],
)
def test_bad_label_file_names(name, game, message):
    with pytest.raises(CalibrationError, match=message):
        label_from_name(name, game)


def test_read_labels_csv(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("# my deck\nfile,kind,value,blisters\nW17.jpg,walk,17,3\n\ng.jpg,gladiola,,5\nf.jpg,finish,50,0\n")
    labels = read_labels(path, DeckGame.GLADIOLA)
    assert labels == {
        "W17.jpg": CardLabel("W17", DeckKind.WALK, 17, 3),
        "g.jpg": CardLabel("g", DeckKind.GLADIOLA, None, 5),
        "f.jpg": CardLabel("f", DeckKind.FINISH, 50, 0),
    }
    valais = tmp_path / "valais.csv"
    valais.write_text("file,kind,value,blisters,year,id\na.jpg,timeline,,,1865,matterhorn\n")
    assert read_labels(valais, DeckGame.VALAIS) == {"a.jpg": CardLabel("matterhorn", DeckKind.TIMELINE, year=1865)}


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "expected a header file,kind,value,blisters, got an empty file"),
        ("file,kind,value\nW1.jpg,walk,1\n", ":1: expected the header file,kind,value,blisters"),
        ("file,kind,value,blisters\nW1.jpg,walk,1\n", ":2: expected 4 cells, got 3"),
        ("file,kind,value,blisters\nW1.jpg,joker,1,0\n", ":2: kind: expected one of"),
        ("file,kind,value,blisters\nW1.jpg,walk,one,0\n", ":2: value: expected an integer or an empty cell, got 'one'"),
        ("file,kind,value,blisters\nW1.jpg,walk,,0\n", ":2: card 'W1': expected a km value 1..49 for a walk card, got None"),
        ("file,kind,value,blisters\ng.jpg,gladiola,4,2\n", ":2: card 'g': expected no km value on a gladiola, got 4"),
        ("file,kind,value,blisters\nW1.jpg,walk,1,12\n", ":2: card 'W1': expected blisters 0..9, got 12"),
        ("file,kind,value,blisters\nW1.jpg,walk,1,0\nW1.jpg,walk,2,0\n", ":3: file: expected each photo once"),
        ("file,kind,value,blisters\n", "expected at least one labelled photo"),
    ],
)
def test_bad_labels_csv(tmp_path, content, message):
    path = tmp_path / "labels.csv"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message) as info:
        read_labels(path, DeckGame.GLADIOLA)
    assert str(path) in str(info.value)


def test_valais_labels_need_a_year(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("file,kind,value,blisters\na.jpg,timeline,,\n")
    with pytest.raises(CalibrationError, match="expected a year 1..9999 for a Valais"):
        read_labels(path, DeckGame.VALAIS)


# --------------------------------------------------------------------------------------------
# Command line


def _photo(label: CardLabel) -> np.ndarray:
    """A card lying upright on a plain dark table, photographed from above."""
    photo = np.full((420, 340, 3), (60, 45, 35), np.uint8)
    card = cv2.resize(face(label), (W, H))
    photo[70:70 + H, 80:80 + W] = card
    return photo


@pytest.fixture
def photo_dir(tmp_path):
    d = tmp_path / "photos"
    d.mkdir()
    chosen = LABELS[:4] + LABELS[5:6]
    names = ["walk-3-b1.png", "walk-8-b2.png", "walk-38-b0.png", "walk-33-b4.png", "finish-50-b1.png"]
    for lab, name in zip(chosen, names):
        cv2.imwrite(str(d / name), _photo(lab))
    return d


def test_cli_enrolls_from_file_names_and_recognises(tmp_path, photo_dir, capsys):
    profile = tmp_path / "profile"
    assert main(["calibrate", "deck", "--game", "gladiola", "--images", str(photo_dir), "--profile", str(profile),
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["cards"] == 5 and record["game"] == "gladiola"
    matcher = DeckMatcher.load(profile, "gladiola")
    m = matcher.match(camera_view(face(LABELS[3]), seed=4, turned=True))
    assert m is not None and (m.value, m.blisters, m.flipped) == (33, 4, True)


def test_cli_enrolls_with_labels_csv(tmp_path, photo_dir, capsys):
    labels = tmp_path / "labels.csv"
    rows = ["file,kind,value,blisters,id"] + [f"{p.name},walk,{i + 1},0,c{i}" for i, p in enumerate(sorted(photo_dir.iterdir()))]
    labels.write_text("\n".join(rows) + "\n")
    assert main(["calibrate", "deck", "--game", "gladiola", "--images", str(photo_dir), "--labels", str(labels),
                 "--profile", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("enrolled 5 gladiola cards in ")
    assert [lab.identity for lab in EnrolledDeck.load(tmp_path / "p", DeckGame.GLADIOLA).labels] == [f"c{i}" for i in range(5)]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--game", "appia"], "expected a game in ['gladiola', 'valais'] for deck enrollment, got 'appia'"),
        (["--game", "gladiola", "--labels", "MISSING"], "expected a labels CSV file, but no such file exists"),
        (["--game", "valais"], "expected a kind in ['timeline'] for valais"),
        (["--game", "gladiola", "--labels", "LABELS"], "expected a label for every photo, got none for"),
    ],
)
def test_cli_errors_are_one_line(tmp_path, photo_dir, capsys, extra, message):
    (tmp_path / "partial.csv").write_text("file,kind,value,blisters\nwalk-3-b1.png,walk,3,1\n")
    args = [a.replace("MISSING", str(tmp_path / "nope.csv")).replace("LABELS", str(tmp_path / "partial.csv"))
            for a in extra]
    assert main(["calibrate", "deck", "--images", str(photo_dir), "--profile", str(tmp_path / "p"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion: error: ") and err.count("\n") == 1
    assert message in err
    assert not (tmp_path / "p").exists()


def test_cli_rejects_a_folder_without_images(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["calibrate", "deck", "--game", "gladiola", "--images", str(tmp_path / "empty"),
                 "--profile", str(tmp_path / "p")]) == 2
    assert "expected image files" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Finding the card in an enrollment photo


def _tilted_photo(angle: float, light_card: bool) -> tuple[np.ndarray, np.ndarray]:
    """A card turned by ``angle`` degrees on a vignetted plain background, and its true corners."""
    h, w = 600, 800
    yy, xx = np.mgrid[0:h, 0:w]
    shade = 1.0 - 0.35 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 4
    base = np.array((60, 45, 35) if light_card else (225, 230, 235), np.float32)
    photo = np.clip(base * shade[..., None], 0, 255).astype(np.uint8)
    card = face(LABELS[3]) if light_card else 255 - face(LABELS[3])
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    corners = np.float32([[310, 162], [490, 162], [490, 438], [310, 438]])
    true = cv2.transform(corners[None], rot)[0]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [W, 0], [W, H], [0, H]]), true)
    warped = cv2.warpPerspective(card, m, (w, h))
    inside = cv2.warpPerspective(np.full((H, W), 255, np.uint8), m, (w, h)) > 127
    photo[inside] = warped[inside]
    return photo, true


@pytest.mark.parametrize("angle, light_card", [(0.0, True), (20.0, True), (-35.0, False), (12.0, False)])
def test_outline_of_a_card_on_a_plain_background(angle, light_card):
    photo, true = _tilted_photo(angle, light_card)
    quad = plain_background_quad(photo)
    assert quad is not None
    assert np.abs(quad - true).max() < 4.0  # top-left first, clockwise, the card's top up


def test_detections_that_disagree_with_the_outline_are_ignored():
    photo, true = _tilted_photo(0.0, True)
    digit = np.float64([[360, 250], [400, 250], [400, 310], [360, 310]])  # a printed digit taken for a card
    assert np.abs(choose_quad(photo, [digit]) - true).max() < 4.0
    # The outline's sides are fitted, so it stands even against a detection that agrees with it.
    close = true + 3.0
    assert np.abs(choose_quad(photo, [close]) - true).max() < 1.5


def _rounded_card_photo(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A dark card with rounded corners (radius 7% of its width), turned by ``angle`` degrees, on a
    white cloth larger than the outline search size; and its true corners (where its sides meet)."""
    h, w = 960, 1280
    photo = np.full((h, w, 3), (236, 240, 238), np.uint8)
    cw, ch, r = 360, 555, 25
    card = np.zeros((ch, cw), np.uint8)
    cv2.rectangle(card, (r, 0), (cw - 1 - r, ch - 1), 255, -1)
    cv2.rectangle(card, (0, r), (cw - 1, ch - 1 - r), 255, -1)
    for cx, cy in ((r, r), (cw - 1 - r, r), (r, ch - 1 - r), (cw - 1 - r, ch - 1 - r)):
        cv2.circle(card, (cx, cy), r, 255, -1, cv2.LINE_AA)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    x0, y0 = (w - cw) / 2, (h - ch) / 2
    true = cv2.transform(np.float32([[[x0 - 0.5, y0 - 0.5], [x0 + cw - 0.5, y0 - 0.5], [x0 + cw - 0.5, y0 + ch - 0.5],
                                      [x0 - 0.5, y0 + ch - 0.5]]]), rot)[0]
    shift = np.float64([[1, 0, x0], [0, 1, y0], [0, 0, 1]])
    m = np.vstack([rot, [0, 0, 1]]) @ shift
    alpha = cv2.warpAffine(card, m[:2], (w, h), flags=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    photo = (photo * (1 - alpha) + np.float32((74, 58, 48)) * alpha).astype(np.uint8)
    return photo, true


@pytest.mark.parametrize("angle", [0.0, 8.0, -15.0])
def test_outline_of_a_card_with_rounded_corners_meets_its_sides(angle):
    """Lines fitted along the straight sides meet where the card's sides do, not where a polygon
    round the rounded corners cuts into the card (4-12 px inside before)."""
    photo, true = _rounded_card_photo(angle)
    quad = plain_background_quad(photo)
    assert quad is not None
    assert np.abs(quad - true).max() < 2.0


def test_densify_puts_points_along_every_side():
    square = np.float64([[0, 0], [10, 0], [10, 10], [0, 10]])
    pts = densify(square, 1.0)
    assert len(pts) == 40
    assert np.abs(pts[:, 1]).min() == 0 and ((pts[:, 1] == 0) & (pts[:, 0] > 2) & (pts[:, 0] < 8)).sum() == 5
    assert np.all((pts >= 0) & (pts <= 10))


def test_photo_without_a_card_is_an_error():
    with pytest.raises(CalibrationError, match="expected one card in the photo"):
        locate_card(np.full((300, 500, 3), 128, np.uint8))
    scan = cv2.resize(face(LABELS[0]), (120, 184))
    assert locate_card(scan).shape == (368, 240, 3)


# --------------------------------------------------------------------------------------------
# Hard views: a crop cut a little off, coloured light, camera blur


def _moved(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    return cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), (img.shape[1], img.shape[0]),
                          borderMode=cv2.BORDER_REPLICATE)


@pytest.mark.parametrize("dx, dy", [(3, 0), (0, 3), (-3, 2)])
def test_enrollment_crop_cut_a_little_off_still_matches(dx, dy):
    """W33's enrollment crop is about a millimetre off; its camera views still match it in both orientations."""
    cards = [(lab, _moved(face(lab), dx, dy) if lab.identity == "W33" else face(lab)) for lab in LABELS]
    shifted = DeckMatcher(enroll(DeckGame.GLADIOLA, cards))
    for seed in range(4):
        m = shifted.match(camera_view(face(LABELS[3]), seed=seed, turned=bool(seed % 2)))
        assert m is not None and m.identity == "W33" and m.flipped is bool(seed % 2)


@pytest.mark.parametrize("gains", [(0.7, 0.85, 1.0), (1.0, 0.9, 0.75)])
def test_colour_cast_of_the_light_cancels_out(gains):
    card = face(LABELS[3])
    cast = np.clip(card * np.array(gains), 0, 255).astype(np.uint8)
    plain, tinted = describe(card), describe(cast)
    assert float(np.abs(plain.chroma - tinted.chroma).mean()) < 0.08
    assert float(np.abs(plain.luma - tinted.luma).mean()) < 0.05


@pytest.mark.parametrize("index", [1, 2, 5, 6])
@pytest.mark.parametrize("length, angle", [(9, 0), (11, 90), (13, 30)])
def test_motion_blurred_cards_are_recognised(matcher, index, length, angle):
    label = LABELS[index]
    view = cv2.filter2D(camera_view(face(label), seed=index, turned=False), -1, streak(length, angle))
    m = matcher.match(view)
    assert m is not None
    assert (m.kind, m.value, m.blisters) == (label.kind, label.value, label.blisters)


def test_blur_kernels_are_normalised_and_centred():
    kernels = blur_kernels()
    assert len(kernels) >= 6
    for kernel in kernels:
        assert kernel.sum() == pytest.approx(1.0, abs=1e-5)
        ys, xs = np.mgrid[0:kernel.shape[0], 0:kernel.shape[1]]
        centre = (kernel.shape[1] - 1) / 2
        assert abs(float((kernel * xs).sum()) - centre) < 0.25 and abs(float((kernel * ys).sum()) - centre) < 0.25
    luma = describe(face(LABELS[0])).luma
    assert blur_luma(luma, None) is luma
    soft = blur_luma(luma, kernels[-1])
    assert soft.std() == pytest.approx(luma.std(), rel=0.1) and not np.allclose(soft, luma)
