"""The calibration page: table, lens and deck flows on frames fed through the frame hub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.deck import DeckGame, EnrolledDeck
from calibration.lens import BoardSpec, LensCalibration
from calibration.markers import DEFAULT_SHEET
from calibration.profile import Profile, load_profile, save_profile
from calibration.synthetic import Pose, camera_matrix, distorted_board_view, distortion_source_map, marker_scene
from companion.dashboard.i18n import TEXTS
from companion.session import encode_jpeg
from tests.dashboard.conftest import CSRF

ROOT = Path(__file__).resolve().parents[2]
STILLS = ROOT / "samples" / "stills"
POST_ROUTES = ["/calibrate/table/markers", "/calibrate/table/still", "/calibrate/table/points",
               "/calibrate/table/save", "/calibrate/lens/capture", "/calibrate/lens/reset",
               "/calibrate/lens/compute", "/calibrate/deck/scan", "/calibrate/deck/enroll"]


@pytest.fixture
def profile_dir(tmp_path):
    return tmp_path / "profile"


@pytest.fixture
def app(make_app, profile_dir):
    return make_app("gladiola", PROFILE_DIR=str(profile_dir))


@pytest.fixture
def show(app):
    """Put a frame on the hub the way the live loop does (as JPEG)."""

    def publish(image: np.ndarray) -> None:
        app.config["FRAME_HUB"].publish(encode_jpeg(image, 95))

    return publish


def _error(r) -> str:
    return r.get_json()["error"]


def _scene() -> tuple[np.ndarray, np.ndarray]:
    return marker_scene(DEFAULT_SHEET, Pose(25.0, 70.0, 4.0, 700.0, (105.0, 148.0)), size=(640, 480), focal_px=620.0,
                        seed=3, table_mm=(700.0, 600.0), px_per_mm=2.0)


def _grid_error_mm(table_json: dict, h_true: np.ndarray) -> float:
    """Largest error (mm) of a saved table calibration over the marker sheet."""
    h = np.asarray(table_json["image_to_table"], np.float64)
    xs, ys = np.meshgrid(np.linspace(0, 210, 8), np.linspace(0, 297, 8))
    mm = np.stack([xs.ravel(), ys.ravel()], axis=1)
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), h_true)
    back = cv2.perspectiveTransform(px, h).reshape(-1, 2)
    return float(np.linalg.norm(back - mm, axis=1).max())


# ------------------------------------------------------------------------------------------------
# Page and request checks


@pytest.mark.parametrize("lang", ["en", "de"])
def test_page_in_both_languages(client, lang):
    r = client.get(f"/calibrate/?lang={lang}")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and f'<html lang="{lang}">' in html
    for key in ("cal_table", "cal_lens", "cal_deck", "cal_find_markers", "cal_capture", "cal_scan"):
        assert TEXTS[lang][key] in html
    assert f'content="{CSRF}"' in html and "calibrate.js" in html
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'src="' in tag or 'type="application/json"' in tag, tag
    assert "style=" not in html and "onclick" not in html
    assert r.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_main_page_links_to_calibration(client):
    assert 'href="/calibrate/"' in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/static/calibrate.js", "/static/calibrate.css"])
def test_static_files(client, path):
    r = client.get(path)
    assert r.status_code == 200
    r.close()


@pytest.mark.parametrize("path", POST_ROUTES)
def test_post_only_with_csrf_and_same_origin(client, path):
    assert client.get(path).status_code == 405
    assert client.post(path, json={}).status_code == 403
    r = client.post(path, json={}, headers={"X-CSRF-Token": CSRF, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "expected a request from" in _error(r)


@pytest.mark.parametrize("path, body", [("/calibrate/table/markers", {}), ("/calibrate/table/still", {}),
                                        ("/calibrate/lens/capture", {}),
                                        ("/calibrate/deck/scan", {"game": "gladiola"})])
def test_no_camera_frame_yet_is_503(post, path, body):
    r = post(path, body)
    assert r.status_code == 503 and "expected a camera frame" in _error(r)


def test_malformed_body_is_400(post):
    r = post("/calibrate/table/markers", headers={"Content-Type": "application/json"}, data="[1, 2")
    assert r.status_code == 400 and "expected a JSON object body" in _error(r)


def test_images_are_404_until_made(client):
    for path in ("/calibrate/table/still.jpg", "/calibrate/table/overlay.jpg", "/calibrate/lens/view.jpg",
                 "/calibrate/lens/preview.jpg", "/calibrate/deck/frame.jpg", "/calibrate/deck/card/1.jpg"):
        assert client.get(path).status_code == 404, path


# ------------------------------------------------------------------------------------------------
# Table


def test_table_from_markers_previewed_then_saved(post, client, show, profile_dir):
    image, h_true = _scene()
    show(image)
    r = post("/calibrate/table/markers", {"paper": "a4", "marker_mm": 40})
    assert r.status_code == 200, r.get_json()
    table = r.get_json()["table"]
    assert table["source"] == "markers" and table["points_used"] == 16 and table["residual_mm"] < 1.0
    assert not (profile_dir / "profile.json").exists()  # previewed, not yet saved
    overlay = client.get("/calibrate/table/overlay.jpg")
    assert overlay.mimetype == "image/jpeg" and overlay.headers["Cache-Control"] == "no-store"
    drawn = cv2.imdecode(np.frombuffer(overlay.data, np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == image.shape and np.abs(drawn.astype(int) - image.astype(int)).max() > 100  # grid drawn
    r = post("/calibrate/table/save")
    assert r.status_code == 200 and r.get_json()["saved"]
    saved = json.loads((profile_dir / "profile.json").read_text())
    assert saved["format"] == "table-companion-profile" and saved["lens"] is None
    assert _grid_error_mm(saved["table"], h_true) <= 1.5
    status = client.get("/calibrate/status.json").get_json()
    assert status["table"]["source"] == "markers" and status["profile"] == str(profile_dir)


def test_table_save_keeps_the_lens_and_undistorts(post, show, profile_dir):
    image, _ = _scene()
    k = camera_matrix(640, 480, 620.0)
    lens = LensCalibration(640, 480, tuple(tuple(float(v) for v in row) for row in k), (0.0, 0.0, 0.0, 0.0, 0.0),
                           0.2, 8, "chessboard:9x6:25mm")
    save_profile(Profile(lens=lens), profile_dir)
    show(image)
    assert post("/calibrate/table/markers").status_code == 200
    assert post("/calibrate/table/save").status_code == 200
    profile = load_profile(profile_dir)
    assert profile.lens == lens and profile.table is not None and profile.table.undistorted


def test_raw_frame_is_preferred_to_the_annotated_jpeg(app, post, show):
    """A hub that keeps the raw frame next to the annotated JPEG: calibration uses the raw one."""
    show(np.full((480, 640, 3), 90, np.uint8))
    app.config["FRAME_HUB"].raw = _scene()[0]
    r = post("/calibrate/table/markers")
    assert r.status_code == 200 and r.get_json()["table"]["points_used"] == 16


def test_no_markers_leaves_a_still_to_click_on(post, client, show):
    show(np.full((480, 640, 3), 90, np.uint8))
    r = post("/calibrate/table/markers")
    assert r.status_code == 400 and "expected at least 2 of the sheet's markers" in _error(r)
    still = client.get("/calibrate/table/still.jpg")
    assert still.status_code == 200 and still.mimetype == "image/jpeg"
    assert post("/calibrate/table/save").status_code == 400


def test_table_from_four_clicked_corners(post, show, profile_dir):
    image, h_true = _scene()
    show(image)
    assert post("/calibrate/table/still").get_json() == {"width": 640, "height": 480, "undistorted": False}
    sheet = np.array([[0, 0], [210, 0], [210, 297], [0, 297]], np.float64)
    corners = cv2.perspectiveTransform(sheet.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    r = post("/calibrate/table/points", {"points": corners.round(2).tolist(), "size": "210x297"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["table"]["source"] == "points"
    assert post("/calibrate/table/save").status_code == 200
    assert _grid_error_mm(json.loads((profile_dir / "profile.json").read_text())["table"], h_true) <= 0.5


def test_table_from_the_largest_card(post, show):
    show(cv2.imread(str(STILLS / "gladiola" / "0004.jpg")))
    post("/calibrate/table/still")
    r = post("/calibrate/table/points", {"card": "gladiola"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["table"]["source"] == "card"


def test_points_need_a_still(post, show):
    r = post("/calibrate/table/points", {"points": [[0, 0], [10, 0], [10, 10], [0, 10]], "size": "10x10"})
    assert r.status_code == 400 and "expected a still" in _error(r)


SQUARE = [[100, 100], [300, 100], [300, 300], [100, 300]]


@pytest.mark.parametrize("body, message", [
    ({"points": SQUARE[:3], "size": "100x100"}, "expected 4 [x, y] pairs"),
    ({"points": [[100, 100], [300, 100], [300, 300], [100, 900]], "size": "100x100"},
     "points[3] y: expected a number in 0..479"),
    ({"points": [[100, 100], [300, 100], [300, 300], [100, "a"]], "size": "100x100"}, "points[3] y: expected a number"),
    ({"points": SQUARE[::-1], "size": "100x100"}, "counter-clockwise"),
    ({"points": SQUARE, "size": "100x100", "card": "gladiola"}, "got both"),
    ({"points": SQUARE}, "got neither"),
    ({"points": SQUARE, "size": "big"}, "expected the rectangle size as WIDTHxHEIGHT"),
    ({"points": SQUARE, "size": "9000x100"}, "up to 5000 mm"),
    ({"size": "100x100"}, "expected points"),
    ({"points": SQUARE, "card": "huge"}, "expected a card size"),
])
def test_points_are_validated(post, show, body, message):
    show(np.full((480, 640, 3), 90, np.uint8))
    post("/calibrate/table/still")
    r = post("/calibrate/table/points", body)
    assert r.status_code == 400 and message in _error(r)


@pytest.mark.parametrize("body, message", [({"paper": "a9"}, "expected a paper size"),
                                           ({"marker_mm": 0}, "expected a number in 5..200"),
                                           ({"marker_mm": True}, "expected a number")])
def test_marker_sheet_options_are_validated(post, show, body, message):
    show(_scene()[0])
    r = post("/calibrate/table/markers", body)
    assert r.status_code == 400 and message in _error(r)


def test_damaged_profile_is_a_clear_error(post, show, profile_dir, client):
    profile_dir.mkdir()
    (profile_dir / "profile.json").write_text("{nope")
    show(_scene()[0])
    r = post("/calibrate/table/markers")
    assert r.status_code == 400 and "damaged profile" in _error(r)
    assert "damaged profile" in client.get("/calibrate/status.json").get_json()["problem"]


# ------------------------------------------------------------------------------------------------
# Lens

SPEC = BoardSpec.parse("chessboard:9x6:25mm")


def _board_views() -> list[np.ndarray]:
    """The board in 8 poses through a barrel-distorting lens (as the lens tests render it)."""
    size, ppm, margin = (400, 300), 2.5, 12.0
    k = camera_matrix(size[0], size[1], 330.0)
    smap = distortion_source_map(k, np.array([-0.38, 0.14, 0.0, 0.0, 0.0]), size)
    board = SPEC.render(ppm, margin)
    bw, bh = SPEC.size_mm
    c, d = (bw / 2, bh / 2), 305.0
    poses = [Pose(0, 0, 0, d, c), Pose(30, 0, 5, d * 1.1, c), Pose(30, 90, -5, d * 1.1, c),
             Pose(35, 200, 10, d * 1.13, c), Pose(25, 300, 0, d * 1.03, c)]
    poses += [Pose(15, 90 * i + 20, 10, d * 1.25, (bw * fx, bh * fy))
              for i, (fx, fy) in enumerate([(0.2, 0.25), (0.8, 0.25), (0.8, 0.75)])]
    views = [distorted_board_view(board, ppm, margin, k, smap, p, seed=i, supersample=False)
             for i, p in enumerate(poses)]
    return [cv2.cvtColor(v, cv2.COLOR_GRAY2BGR) for v in views]


@pytest.fixture(scope="module")
def board_views() -> list[np.ndarray]:
    return _board_views()


def test_lens_capture_compute_and_save(app, post, client, show, board_views, profile_dir):
    show(np.full((300, 400, 3), 128, np.uint8))
    r = post("/calibrate/lens/capture", {"board": str(SPEC)})
    assert r.status_code == 400 and "expected the board chessboard:9x6:25mm in the current frame" in _error(r)
    captured = 0
    for view in board_views:
        show(view)
        r = post("/calibrate/lens/capture", {"board": str(SPEC)})
        if r.status_code == 200:
            captured += 1
            assert r.get_json()["found"] == 54 and r.get_json()["lens_job"]["views"] == captured
    assert captured >= 6
    assert client.get("/calibrate/lens/view.jpg").mimetype == "image/jpeg"
    r = post("/calibrate/lens/compute")
    assert r.status_code == 202 and r.get_json()["lens_job"]["state"] == "running"
    app.extensions["calibrate"].lens_thread.join(timeout=120)
    job = client.get("/calibrate/lens/status").get_json()["lens_job"]
    assert job["state"] == "done", job
    assert job["rms_px"] < 0.5 and job["preview"]
    lens = load_profile(profile_dir).lens
    assert lens is not None and lens.views == captured and lens.d[0] < -0.25
    preview = cv2.imdecode(np.frombuffer(client.get("/calibrate/lens/preview.jpg").data, np.uint8), cv2.IMREAD_COLOR)
    assert preview.shape == (300, 400, 3)
    status = client.get("/calibrate/status.json").get_json()
    assert status["lens_saved"]["views"] == captured


def test_lens_needs_views_and_a_valid_board(post, show, board_views):
    r = post("/calibrate/lens/compute")
    assert r.status_code == 400 and "expected at least 4 views" in _error(r)
    show(board_views[0])
    r = post("/calibrate/lens/capture", {"board": "chessboard:1x6:25mm"})
    assert r.status_code == 400 and "at least 2x2" in _error(r)
    r = post("/calibrate/lens/capture", {"board": 7})
    assert r.status_code == 400 and "expected a board like" in _error(r)
    assert post("/calibrate/lens/capture", {"board": str(SPEC)}).get_json()["lens_job"]["views"] == 1
    # another board starts the views over; reset forgets them
    r = post("/calibrate/lens/capture", {"board": "chessboard:8x5:25mm"})
    assert r.status_code == 400
    assert post("/calibrate/lens/capture", {"board": str(SPEC)}).get_json()["lens_job"]["views"] == 1
    assert post("/calibrate/lens/reset").get_json()["lens_job"]["views"] == 0


# ------------------------------------------------------------------------------------------------
# Deck


def _truth(game: str, name: str) -> list[dict]:
    return json.loads((STILLS / game / f"{name}.json").read_text())["cards"]


def test_deck_scan_propose_correct_and_enroll_over_two_scans(post, client, show, profile_dir):
    frame = cv2.imread(str(STILLS / "gladiola" / "0004.jpg"))
    truth = {(c["kind"], c["value"]): c for c in _truth("gladiola", "0004")}
    show(frame)
    r = post("/calibrate/deck/scan", {"game": "gladiola"})
    assert r.status_code == 200, r.get_json()
    scan = r.get_json()
    assert scan["game"] == "gladiola" and scan["enrolled"] == 0
    cards = scan["cards"]
    assert [c["n"] for c in cards] == [1, 2]
    assert {(c["kind"], c["value"]) for c in cards} == set(truth)  # both walk cards read
    assert all(c["known"] is None for c in cards)
    assert client.get("/calibrate/deck/frame.jpg").mimetype == "image/jpeg"
    crop = cv2.imdecode(np.frombuffer(client.get("/calibrate/deck/card/2.jpg").data, np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape[0] > crop.shape[1]  # upright portrait
    # the user corrects what was not read (a blister count left open) from the real card
    answers = [{"n": c["n"], "kind": c["kind"], "value": c["value"],
                "blisters": truth[(c["kind"], c["value"])]["blisters"], "year": None} for c in cards]
    r = post("/calibrate/deck/enroll", {"scan": scan["scan"], "cards": answers})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["total"] == 2
    deck = EnrolledDeck.load(profile_dir, DeckGame.GLADIOLA)
    assert sorted((lab.kind.value, lab.value, lab.blisters) for lab in deck.labels) == sorted(
        (t["kind"], t["value"], t["blisters"]) for t in truth.values())
    # a second scan of the same cards: the enrolled deck now recognises them
    scan = post("/calibrate/deck/scan", {"game": "gladiola"}).get_json()
    assert scan["enrolled"] == 2
    known = {c["known"] for c in scan["cards"]}
    assert known == {lab.identity for lab in deck.labels}
    for c in scan["cards"]:
        assert truth[(c["kind"], c["value"])]["blisters"] == c["blisters"]
    # enrolling one of them again adds a second identity (e.g. a second copy), never a clash
    first = scan["cards"][0]
    r = post("/calibrate/deck/enroll", {"scan": scan["scan"], "cards": [{**first, "year": None}]})
    assert r.status_code == 200 and r.get_json()["total"] == 3
    ids = [lab.identity for lab in EnrolledDeck.load(profile_dir, DeckGame.GLADIOLA).labels]
    assert len(set(ids)) == 3 and ids[2].endswith("-2") and ids[2][:-2] in ids[:2]
    assert client.get("/calibrate/status.json").get_json()["deck"] == {"gladiola": 3, "valais": 0}


def test_valais_cards_are_enrolled_with_their_year(post, show, profile_dir):
    show(cv2.imread(str(STILLS / "valais" / "0007.jpg")))
    scan = post("/calibrate/deck/scan", {"game": "valais"}).get_json()
    assert scan["cards"] and all(c["kind"] == "timeline" and c["value"] is None for c in scan["cards"])
    assert any(c["year"] is not None for c in scan["cards"])  # a date side read proposes its year
    r = post("/calibrate/deck/enroll", {"scan": scan["scan"], "cards": [{"n": 1, "kind": "timeline", "year": 1900}]})
    assert r.status_code == 200, r.get_json()
    assert EnrolledDeck.load(profile_dir, DeckGame.VALAIS).labels[0].year == 1900
    walk = {"n": 1, "kind": "walk", "value": 3, "blisters": 1}
    r = post("/calibrate/deck/enroll", {"scan": scan["scan"], "cards": [walk]})
    assert r.status_code == 400 and "expected a kind in ['timeline']" in _error(r)


@pytest.fixture
def scanned(post, show):
    show(cv2.imread(str(STILLS / "gladiola" / "0004.jpg")))
    return post("/calibrate/deck/scan", {"game": "gladiola"}).get_json()


BAD_CARDS = [
    ([], "expected a non-empty list"),
    ("all", "expected a non-empty list"),
    ([{"n": 3, "kind": "walk", "value": 3, "blisters": 1}], "expected a card number 1..2"),
    ([{"n": True, "kind": "walk", "value": 3, "blisters": 1}], "expected a card number"),
    ([{"n": 1, "kind": "walk", "value": 3, "blisters": 1}, {"n": 1, "kind": "walk", "value": 4, "blisters": 1}],
     "got card 1 again"),
    ([{"n": 1, "kind": "joker", "value": 3, "blisters": 1}], "card 1: kind: expected one of"),
    ([{"n": 1, "kind": "walk", "value": 60, "blisters": 1}], "expected a km value 1..49"),
    ([{"n": 1, "kind": "walk", "value": "3", "blisters": 1}], "value: expected a whole number"),
    ([{"n": 1, "kind": "walk", "value": 3, "blisters": None}], "expected blisters 0..9"),
    ([{"n": 2, "kind": "gladiola", "value": 4, "blisters": 1}], "expected no km value on a gladiola"),
    ([{"n": 1, "kind": "walk", "value": 3, "blisters": 1, "year": 1900}], "expected no year"),
    # one good card does not let a bad one through: nothing is enrolled
    ([{"n": 1, "kind": "walk", "value": 3, "blisters": 1}, {"n": 2, "kind": "start", "value": 7, "blisters": 0}],
     "card 2: card 'start-7-b0': expected a km value 0..0"),
]


def test_enroll_validates_each_card(post, scanned, profile_dir):
    assert len(scanned["cards"]) == 2
    for cards, message in BAD_CARDS:
        r = post("/calibrate/deck/enroll", {"scan": scanned["scan"], "cards": cards})
        assert r.status_code == 400 and message in _error(r), (cards, _error(r))
    assert not (profile_dir / "deck-gladiola.json").exists()


def test_enroll_needs_the_last_scan(post, scanned):
    card = [{"n": 1, "kind": "walk", "value": 3, "blisters": 1}]
    r = post("/calibrate/deck/enroll", {"scan": scanned["scan"] - 1, "cards": card})
    assert r.status_code == 400 and "scan again" in _error(r)
    r = post("/calibrate/deck/scan", {"game": "appia"})
    assert r.status_code == 400 and "expected a game in ['gladiola', 'valais']" in _error(r)
