"""Tests of the card and scene renderer (samples.render)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import DataFileError
from samples.render import (GAME_LAYOUTS, STYLES, BlurKind, CardKind, CardSpec, Game, LayoutKind, Lighting,
                            Placement, Role, SceneConfig, Side, SizeClass, TableKind, appia_road_tiles,
                            bench_render, face_layout, read_appia_income, read_gladiola_deck,
                            read_valais_catalogue, render_face, render_scene, write_set)
from samples.render.camera import Camera, apply_homography, distort_points
from samples.render.cards import FONT_DIR

# Small hard-coded decks: the tests must not depend on the editable sample data files.
GLADIOLA = (
    CardSpec("S", Game.GLADIOLA, CardKind.START, value=0, blisters=0),
    *(CardSpec(f"W{v:02d}", Game.GLADIOLA, CardKind.WALK, value=v, blisters=v % 6) for v in (3, 8, 17, 26, 38, 49)),
    CardSpec("F1", Game.GLADIOLA, CardKind.FINISH, value=50, blisters=2),
    CardSpec("G1", Game.GLADIOLA, CardKind.GLADIOLA, blisters=4),
)
VALAIS = (
    CardSpec("V1", Game.VALAIS, CardKind.TIMELINE, year=1815, date="1815-08-04", title="Valais joins the Swiss "
             "Confederation", joker=True),
    CardSpec("V2", Game.VALAIS, CardKind.TIMELINE, year=1865, date="1865-07-14", title="First ascent of the "
             "Matterhorn", joker=True),
    CardSpec("V3", Game.VALAIS, CardKind.TIMELINE, year=1906, date="1906", title="Simplon tunnel opens"),
    CardSpec("V4", Game.VALAIS, CardKind.TIMELINE, year=1965, date="1965-08-30", title="Mattmark disaster"),
    CardSpec("V5", Game.VALAIS, CardKind.TIMELINE, year=1942, date="1942", title="Sample event"),
)
APPIA = (
    *(CardSpec(f"I{k}", Game.APPIA, CardKind.INCOME, stones=s, sesterces=c)
      for k, (s, c) in enumerate([(3, 1), (1, 3), (2, 2), (4, 0), (0, 5), (2, 3), (1, 1), (3, 2)])),
    *appia_road_tiles()[::5],
)
DECKS = {Game.GLADIOLA: GLADIOLA, Game.VALAIS: VALAIS, Game.APPIA: APPIA}
SMALL = (320, 240)


# --------------------------------------------------------------------------------------------
# A tiny reader that uses only the renderer's own layout: template-match digits, count symbols.


def _digit_templates(font_name: str) -> dict[str, np.ndarray]:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT_DIR + font_name, 80)
    templates = {}
    for d in "0123456789":
        img = Image.new("L", (120, 120), 0)
        ImageDraw.Draw(img).text((10, 10), d, font=font, fill=255)
        arr = np.asarray(img)
        x, y, w, h = cv2.boundingRect(arr)
        templates[d] = cv2.resize(arr[y:y + h, x:x + w], (20, 30), interpolation=cv2.INTER_AREA).astype(np.float32)
    return templates


def _ink_components(gray: np.ndarray, min_area: int) -> list[tuple[int, int, int, int]]:
    """Bounding boxes of dark blobs (Otsu threshold), left to right."""
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
    boxes = [tuple(int(v) for v in stats[i, :4]) for i in range(1, n) if stats[i, 4] >= min_area]
    return sorted(boxes)


def read_number(gray: np.ndarray, font_name: str) -> str:
    """Read the digits in a value/year crop by matching each ink blob to rendered digits."""
    templates = _digit_templates(font_name)
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    out = ""
    for x, y, w, h in _ink_components(gray, min_area=max(4, gray.size // 400)):
        if h < gray.shape[0] * 0.4:
            continue
        blob = cv2.resize(ink[y:y + h, x:x + w], (20, 30), interpolation=cv2.INTER_AREA).astype(np.float32)
        scores = {d: float(cv2.matchTemplate(blob, t, cv2.TM_CCOEFF_NORMED)[0, 0]) for d, t in templates.items()}
        out += max(scores, key=scores.get)
    return out


def _crop(image: np.ndarray, box: tuple[int, int, int, int], pad: int = 0) -> np.ndarray:
    x0, y0, x1, y1 = box
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return gray[max(0, y0 - pad):y1 + pad, max(0, x0 - pad):x1 + pad]


def _count_blobs_in(image: np.ndarray, boxes: list[tuple[int, int, int, int]], paper_rgb: tuple[int, ...]) -> int:
    """Count symbol blobs that differ from the paper colour inside the union of ``boxes`` (plus margin)."""
    x0 = min(b[0] for b in boxes) - 6
    y0 = min(b[1] for b in boxes) - 6
    x1 = max(b[2] for b in boxes) + 6
    y1 = max(b[3] for b in boxes) + 6
    region = image[y0:y1, x0:x1].astype(np.int16)
    paper = np.array(paper_rgb[::-1], np.int16)
    differs = (np.abs(region - paper).sum(axis=2) > 60).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(differs)
    return sum(1 for i in range(1, n) if stats[i, 4] > 30)


# --------------------------------------------------------------------------------------------
# Readers


@pytest.mark.parametrize("text, expected_error", [
    ("id,kind,value,blisters\nW1,walk,1,2\n", None),
    ("# comment\n\nid,kind,value,blisters\n# another\nW1,walk,1,2\nG1,gladiola,,3\n", None),
    ("id,kind,value\nW1,walk,1\n", "expected header id,kind,value,blisters"),
    ("id,kind,value,blisters\nW1,walk,x,2\n", ":2: value: expected an integer, got 'x'"),
    ("id,kind,value,blisters\nW1,jog,1,2\n", ":2: kind: expected one of"),
    ("id,kind,value,blisters\nW1,walk,1\n", ":2: expected 4 cells, got 3"),
])
def test_gladiola_reader(tmp_path: Path, text: str, expected_error: str | None) -> None:
    path = tmp_path / "deck.csv"
    path.write_text(text, encoding="utf-8")
    if expected_error is None:
        specs = read_gladiola_deck(path)
        assert specs[0] == CardSpec("W1", Game.GLADIOLA, CardKind.WALK, value=1, blisters=2)
        assert all(s.kind in (CardKind.WALK, CardKind.GLADIOLA) for s in specs)
    else:
        with pytest.raises(DataFileError, match=expected_error.replace("(", r"\(")):
            read_gladiola_deck(path)


def test_valais_and_appia_readers(tmp_path: Path) -> None:
    cat = tmp_path / "valais.csv"
    cat.write_text("# c\nid,year,date,title,joker,sample\n1,1865,1865-07-14,\"Matterhorn, first ascent\",1865,no\n"
                   "2,1900,,Sample,,yes\n", encoding="utf-8")
    first, second = read_valais_catalogue(cat)
    assert (first.year, first.date, first.title, first.joker) == (1865, "1865-07-14", "Matterhorn, first ascent", True)
    assert (second.date, second.joker) == ("1900", False)
    cat.write_text("id,year,date,title,joker,sample\n1,1865,1866-01-01,x,,no\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="date: expected 1865-MM-DD"):
        read_valais_catalogue(cat)
    income = tmp_path / "income.csv"
    income.write_text("id,stones,sesterces\n# x\n1,3,1\n", encoding="utf-8")
    assert read_appia_income(income) == (CardSpec("1", Game.APPIA, CardKind.INCOME, stones=3, sesterces=1),)


def test_project_data_files_parse() -> None:
    deck, cat, income = read_gladiola_deck(), read_valais_catalogue(), read_appia_income()
    assert sum(s.kind is CardKind.WALK for s in deck) == 49 and len(deck) == 64
    assert len(cat) == 200 and all(1815 <= s.year <= 2015 for s in cat)
    assert len(income) >= 14
    tiles = appia_road_tiles()
    assert [sum(t.size_class is c for t in tiles) for c in SizeClass] == [24, 13, 9]


# --------------------------------------------------------------------------------------------
# Faces and layouts


@pytest.mark.parametrize("game", list(Game))
def test_layout_boxes_lie_on_the_card(game: Game) -> None:
    for style in STYLES[game]:
        for spec in DECKS[game]:
            for side in ((Side.EVENT, Side.DATE) if game is Game.VALAIS else (Side.FRONT,)):
                layout = face_layout(spec, style, side)
                for item in layout.items:
                    b = item.box
                    assert 0 <= b.x0 < b.x1 <= layout.width_mm and 0 <= b.y0 < b.y1 <= layout.height_mm, item


@pytest.mark.parametrize("style_index", [0, 1, 2])
@pytest.mark.parametrize("value", [3, 17, 38, 49])
def test_gladiola_value_and_blisters_read_back(style_index: int, value: int) -> None:
    style = STYLES[Game.GLADIOLA][style_index]
    spec = next(s for s in GLADIOLA if s.value == value)
    face = render_face(spec, style, None, 10.0)
    upright = face.layout.boxes(Role.VALUE)[0].box.px(10.0)
    assert read_number(_crop(face.image, upright, pad=4), style.value_font) == str(value)
    rotated = face.layout.boxes(Role.VALUE_ROTATED)[0].box.px(10.0)
    turned = cv2.rotate(_crop(face.image, rotated, pad=4), cv2.ROTATE_180)
    assert read_number(turned, style.value_font) == str(value)
    blisters = [item.box.px(10.0) for item in face.layout.boxes(Role.BLISTER)]
    assert len(blisters) == spec.blisters
    if blisters:
        assert _count_blobs_in(face.image, blisters, style.paper) == spec.blisters


@pytest.mark.parametrize("style", STYLES[Game.VALAIS], ids=lambda s: s.name)
@pytest.mark.parametrize("spec", VALAIS, ids=lambda s: s.id)
def test_valais_year_read_back(style, spec: CardSpec) -> None:
    face = render_face(spec, style, Side.DATE, 10.0)
    box = face.layout.boxes(Role.YEAR)[0].box.px(10.0)
    assert read_number(_crop(face.image, box, pad=4), style.value_font) == str(spec.year)
    assert bool(face.layout.boxes(Role.JOKER)) == spec.joker
    assert bool(face.layout.boxes(Role.DATE)) == (len(spec.date or "") == 10)


@pytest.mark.parametrize("style", STYLES[Game.APPIA], ids=lambda s: s.name)
@pytest.mark.parametrize("spec", APPIA[:8], ids=lambda s: s.id)
def test_appia_income_read_back(style, spec: CardSpec) -> None:
    face = render_face(spec, style, None, 10.0)
    for role, count_role, n in ((Role.STONE, Role.STONE_COUNT, spec.stones),
                                (Role.SESTERCE, Role.SESTERCE_COUNT, spec.sesterces)):
        box = face.layout.boxes(count_role)[0].box.px(10.0)
        assert read_number(_crop(face.image, box, pad=4), style.value_font) == str(n)
        symbols = [item.box.px(10.0) for item in face.layout.boxes(role)]
        assert len(symbols) == n
        if symbols:
            assert _count_blobs_in(face.image, symbols, style.paper) == n


def test_faces_have_rounded_corners_and_real_proportions() -> None:
    for spec, size in ((GLADIOLA[1], (590, 910)), (APPIA[0], (560, 870))):
        face = render_face(spec, STYLES[spec.game][0], None, 10.0)
        assert face.image.shape[:2] == (size[1], size[0])
        assert face.alpha[0, 0] == 0 and face.alpha[size[1] // 2, size[0] // 2] == 255
    small, large = (render_face(t, STYLES[Game.APPIA][0], None, 10.0).image.shape for t in
                    (appia_road_tiles()[-1], appia_road_tiles()[0]))
    assert large[0] == 3 * small[0] and large[1] == small[1]


# --------------------------------------------------------------------------------------------
# Camera and lens


@pytest.mark.parametrize("tilt, roll, yaw", [(0, 0, 0), (25, 10, 40), (40, -30, 200)])
def test_homography_matches_opencv_projection(tilt: float, roll: float, yaw: float) -> None:
    cam = Camera(1280, 720, 900.0, tilt, yaw, roll, 700.0, (30.0, -20.0), 0.0)
    pts = np.array([[0.0, 0.0], [100.0, 50.0], [-80.0, 120.0], [30.0, -20.0]])
    rvec, _ = cv2.Rodrigues(cam.rotation)
    tvec = -cam.rotation @ cam.centre_mm
    expected, _ = cv2.projectPoints(np.column_stack([pts, np.zeros(4)]), rvec, tvec, cam.intrinsics, None)
    assert np.allclose(apply_homography(cam.homography(), pts), expected.reshape(-1, 2), atol=1e-6)
    assert np.allclose(apply_homography(cam.homography(), pts[3:]), [[639.5, 359.5]], atol=1e-6)
    assert cam.height_mm == pytest.approx(700.0 * math.cos(math.radians(tilt)))


@pytest.mark.parametrize("k1", [0.0, 0.08, 0.22])
def test_distortion_inverts_the_remap_model(k1: float) -> None:
    w, h = 800, 600
    rng = np.random.default_rng(3)
    p_d = rng.uniform([0, 0], [w, h], (50, 2))
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    r2 = ((p_d - c) ** 2).sum(axis=1, keepdims=True) / (math.hypot(w / 2, h / 2) ** 2)
    p_u = c + (p_d - c) * (1 + k1 * r2) / (1 + k1)
    assert np.allclose(distort_points(p_u, w, h, k1), p_d, atol=1e-6)


# --------------------------------------------------------------------------------------------
# Scenes


@pytest.mark.parametrize("game", list(Game))
def test_scene_is_deterministic_per_seed(game: Game) -> None:
    cfg = SceneConfig(resolution=SMALL, specs=DECKS[game])
    a, b, c = render_scene(7, game, cfg), render_scene(7, game, cfg), render_scene(8, game, cfg)
    assert a.jpeg == b.jpeg and np.array_equal(a.image, b.image)
    assert json.dumps(a.truth.to_json()) == json.dumps(b.truth.to_json())
    assert a.jpeg != c.jpeg
    assert np.array_equal(cv2.imdecode(np.frombuffer(a.jpeg, np.uint8), cv2.IMREAD_COLOR), a.image)


def _colour_step(img: np.ndarray, a: np.ndarray, b: np.ndarray, inward: np.ndarray, others: list[np.ndarray],
                 reach: float = 1.5) -> list[float]:
    """Colour difference (BGR distance) across the segment a-b, at points along it whose outer
    sample does not fall on another card."""
    steps = []
    for t in np.linspace(0.25, 0.75, 9):
        p = a + (b - a) * t
        inside, outside = p + inward * reach, p - inward * reach
        if any(cv2.pointPolygonTest(np.float32(q), tuple(map(float, outside)), True) > -3 for q in others):
            continue
        cin = cv2.getRectSubPix(img, (1, 1), tuple(map(float, inside)))[0, 0]
        cout = cv2.getRectSubPix(img, (1, 1), tuple(map(float, outside)))[0, 0]
        steps.append(float(np.linalg.norm(cin - cout)))
    return steps


@pytest.mark.parametrize("game, seed, tilt, distortion", [
    (Game.GLADIOLA, 1, 0.0, False), (Game.GLADIOLA, 2, 35.0, True), (Game.VALAIS, 3, 20.0, True),
    (Game.APPIA, 4, 30.0, True), (Game.APPIA, 5, 10.0, True),
])
def test_corners_land_on_card_edges(game: Game, seed: int, tilt: float, distortion: bool) -> None:
    """On a white cloth, every free card's ground-truth outline sits on a strong colour edge, and
    the same outline moved 8 px outwards does not."""
    cfg = SceneConfig(resolution=(960, 720), specs=DECKS[game], table=TableKind.CLOTH_WHITE,
                      layout=LayoutKind.SCATTERED, hands=0, glare=False, degrade=False, distortion=distortion,
                      tilt_deg=tilt, fill=0.75)
    scene = render_scene(seed, game, cfg)
    assert (scene.truth.conditions.distortion_k1 > 0) == distortion
    img = cv2.GaussianBlur(scene.image, (3, 3), 0).astype(np.float32)
    quads = [np.array(card.corners) for card in scene.truth.cards]
    checked = 0
    for k, card in enumerate(scene.truth.cards):
        quad = quads[k]
        if card.visible_fraction < 1.0:
            continue
        others = [q for j, q in enumerate(quads) if j != k]
        centre = quad.mean(axis=0)
        for i in range(4):
            a, b = quad[i], quad[(i + 1) % 4]
            mid = (a + b) / 2
            inward = (centre - mid) / np.linalg.norm(centre - mid)
            on_edge = _colour_step(img, a, b, inward, others)
            assert not on_edge or min(on_edge) > 50, (card.spec.id, i, on_edge)
            off_edge = _colour_step(img, a - 8 * inward, b - 8 * inward, inward, others)
            assert not off_edge or np.median(off_edge) < 20, (card.spec.id, i, off_edge)
            checked += len(on_edge) > 0
        # Corner order: the card's own top-left first, clockwise in the image (positive area, y down).
        area = 0.5 * sum(quad[i, 0] * quad[(i + 1) % 4, 1] - quad[(i + 1) % 4, 0] * quad[i, 1] for i in range(4))
        assert area > 0
    assert checked >= 4


def test_value_read_back_from_a_rendered_scene() -> None:
    """Rectify each free card with its ground-truth corners; the renderer's layout then finds the value."""
    style = STYLES[Game.GLADIOLA][0]
    walks = [s for s in GLADIOLA if s.kind is CardKind.WALK][:4]
    placements = tuple(Placement(s, Side.FRONT, (k * 110.0, (k % 2) * 20.0), angle)
                       for k, (s, angle) in enumerate(zip(walks, (0.0, 30.0, 185.0, -70.0))))
    cfg = SceneConfig(resolution=(1280, 720), placements=placements, table=TableKind.WOOD, hands=0, glare=False,
                      degrade=False, distortion=True, tilt_deg=20.0, fill=0.7, style=style.name)
    scene = render_scene(11, Game.GLADIOLA, cfg)
    assert all(card.visible_fraction == 1.0 for card in scene.truth.cards)
    ppm = 6.0
    size = (round(59 * ppm), round(91 * ppm))
    target = np.float32([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]])
    for card in scene.truth.cards:
        m = cv2.getPerspectiveTransform(np.float32(card.corners), target)
        flat = cv2.warpPerspective(scene.image, m, size)
        box = face_layout(card.spec, style).boxes(Role.VALUE)[0].box.px(ppm)
        assert read_number(_crop(flat, box, pad=3), style.value_font) == str(card.spec.value), card.spec.id


def test_visible_fraction_free_covered_and_cut() -> None:
    walk = [s for s in GLADIOLA if s.kind is CardKind.WALK]
    placements = (
        Placement(walk[0], Side.FRONT, (0.0, 0.0), 10.0),
        Placement(walk[1], Side.FRONT, (0.0, 0.0), 10.0),     # exactly on top: hides walk[0] completely
        Placement(walk[2], Side.FRONT, (150.0, 0.0), -20.0),  # alone
        Placement(walk[3], Side.FRONT, (150.0, 40.0), -20.0),  # half over walk[2]
    )
    cfg = SceneConfig(resolution=(640, 480), placements=placements, hands=0, degrade=False, tilt_deg=15.0, fill=0.7)
    v = [c.visible_fraction for c in render_scene(5, Game.GLADIOLA, cfg).truth.cards]
    assert v[0] == 0.0 and v[1] == 1.0 and v[3] == 1.0
    assert 0.3 < v[2] < 0.75
    # Cut by the image border: the outer cards of a wide row stick out of a tightly framed image.
    row = tuple(Placement(w, Side.FRONT, (x, 0.0), 5.0) for w, x in zip(walk, (-200.0, 0.0, 200.0)))
    cut = render_scene(5, Game.GLADIOLA, SceneConfig(resolution=(640, 480), placements=row, hands=0,
                                                     degrade=False, tilt_deg=0.0, fill=1.15))
    inside = [all(0 <= x < 640 and 0 <= y < 480 for x, y in card.corners) for card in cut.truth.cards]
    fractions = [card.visible_fraction for card in cut.truth.cards]
    assert inside == [False, True, False]
    assert fractions[1] == 1.0 and 0.3 < fractions[0] < 1.0 and 0.3 < fractions[2] < 1.0


def test_hands_hide_cards() -> None:
    cfg = SceneConfig(resolution=SMALL, specs=GLADIOLA, layout=LayoutKind.SPREAD_HAND, degrade=False)
    bare = render_scene(21, Game.GLADIOLA, SceneConfig(**{**cfg.__dict__, "hands": 0}))
    covered = render_scene(21, Game.GLADIOLA, SceneConfig(**{**cfg.__dict__, "hands": 2}))
    assert [c.spec.id for c in bare.truth.cards] == [c.spec.id for c in covered.truth.cards]
    before = sum(c.visible_fraction for c in bare.truth.cards)
    after = sum(c.visible_fraction for c in covered.truth.cards)
    assert after < before - 0.05


@pytest.mark.parametrize("game", list(Game))
def test_every_condition_occurs_in_a_set(tmp_path: Path, game: Game) -> None:
    count = 6
    index = write_set(tmp_path, game, count, seed=3, progress=False,
                      config=SceneConfig(resolution=SMALL, specs=DECKS[game]))
    data = json.loads(index.read_text())
    conds = [s["conditions"] for s in data["scenes"]]
    assert {c["table"] for c in conds} == {t.value for t in TableKind}
    assert {c["layout"] for c in conds} == {k.value for k in GAME_LAYOUTS[game]}
    assert {c["lighting"] for c in conds} == {k.value for k in Lighting}
    assert {c["blur"] for c in conds} == {k.value for k in BlurKind}
    assert {c["glare"] for c in conds} == {False, True}
    assert {c["hands"] for c in conds} == {0, 1, 2}
    assert len({c["style"] for c in conds}) == len(STYLES[game])
    for entry in data["scenes"]:
        truth = json.loads((tmp_path / entry["truth"]).read_text())
        img = cv2.imread(str(tmp_path / entry["image"]))
        assert img.shape[:2] == (truth["image"]["height"], truth["image"]["width"])
        for card in truth["cards"]:
            assert len(card["corners"]) == 4 and 0.0 <= card["visible_fraction"] <= 1.0
            assert card["game"] == game.value
    again = tmp_path / "again"
    write_set(again, game, 2, seed=3, progress=False, config=SceneConfig(resolution=SMALL, specs=DECKS[game]))
    assert (again / "0001.jpg").read_bytes() == (tmp_path / "0001.jpg").read_bytes()


def test_bench_render_reports_consistent_stats() -> None:
    stats = bench_render(3, 0, Game.VALAIS, SceneConfig(resolution=SMALL, specs=VALAIS))
    assert stats.n == 3 and (stats.width, stats.height) == SMALL
    assert 0 < min(stats.median_ms, stats.first_ms) and stats.median_ms <= stats.max_ms
