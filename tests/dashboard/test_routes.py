"""Every dashboard route: pages, streams, POST-only controls, input validation, security."""

from __future__ import annotations

import re

import pytest

from companion.dashboard import create_app
from companion.games import get_game
from companion.session import MoveItem
from companion.dashboard.i18n import TEXTS
from tests.dashboard.conftest import CSRF

POST_ROUTES = ["/api/pause", "/api/undo", "/api/correct", "/api/reveal", "/api/pad", "/api/zone", "/api/zones/forget"]


def test_index_headers_and_no_inline_script(client):
    r = client.get("/")
    assert r.status_code == 200
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    html = r.get_data(as_text=True)
    assert f'content="{CSRF}"' in html
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'src="' in tag or 'type="application/json"' in tag, tag
    assert "style=" not in html and "onclick" not in html


@pytest.mark.parametrize("lang", ["de", "en"])
def test_language_choice(client, lang):
    r = client.get(f"/?lang={lang}")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and f'<html lang="{lang}">' in html
    assert TEXTS[lang]["undo"] in html
    assert f"companion_lang={lang}" in r.headers["Set-Cookie"]
    assert f'<html lang="{lang}">' in client.get("/").get_data(as_text=True)  # the cookie remembers


def test_language_from_browser(client):
    html = client.get("/", headers={"Accept-Language": "de-CH,de;q=0.9"}).get_data(as_text=True)
    assert '<html lang="de">' in html


def test_unknown_language_is_400(client):
    r = client.get("/?lang=fr")
    assert r.status_code == 400 and "expected one of en, de" in r.get_json()["error"]


def test_i18n_languages_have_the_same_keys():
    assert set(TEXTS["de"]) == set(TEXTS["en"])


@pytest.mark.parametrize("path", ["/static/dashboard.js", "/static/dashboard.css"])
def test_static_files(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.headers["X-Frame-Options"] == "DENY"
    r.close()


def test_state_json(client):
    r = client.get("/state.json")
    data = r.get_json()
    assert r.status_code == 200 and data["game"] == "gladiola" and data["players"] == ["Ann", "Ben", "Cy"]
    hand = get_game("gladiola").HAND_SIZE
    assert data["turn"] == 0 and data["can_pause"] and data["hand_counts"] == [hand] * 3
    assert data["phase_label"] == "day" and data["phase"] == "1" and data["last"] is None
    assert r.headers["Cache-Control"] == "no-store"


def test_state_carries_the_camera_notices_and_the_page_has_their_box(app, client):
    assert client.get("/state.json").get_json()["notices"] == []
    page = client.get("/").get_data(as_text=True)
    assert 'id="notice-box"' in page and "The camera says" in page
    assert "Die Kamera meldet" in client.get("/?lang=de").get_data(as_text=True)
    app.config["SESSION"].notice("Ben's shown hand: 1 card of 9 cannot be read")
    assert client.get("/state.json").get_json()["notices"] == ["Ben's shown hand: 1 card of 9 cannot be read"]


def test_no_session(tmp_path):
    client = create_app(None, {"TESTING": True}).test_client()
    assert client.get("/").status_code == 200
    assert client.get("/state.json").status_code == 503
    assert client.get("/events").status_code == 503


def test_events_stream_pushes_state_then_changes(app, client, post):
    r = client.get("/events", buffered=False)
    assert r.mimetype == "text/event-stream"
    chunks = iter(r.response)
    first = next(chunks).decode()
    assert "event: state" in first and '"turn": 0' in first
    sim = app.config["SIM"]
    app.config["SESSION"].submit(MoveItem(0, 0.0, sim.actions[0]))
    for chunk in chunks:
        text = chunk.decode()
        if text.startswith("id:"):
            assert '"turn": 1' in text
            break
    r.close()


def test_mjpeg_stream_sends_jpeg_parts(app, client):
    hub = app.config["FRAME_HUB"]
    r = client.get("/stream.mjpg", buffered=False)
    assert r.mimetype == "multipart/x-mixed-replace"
    chunks = iter(r.response)
    part = next(chunks)
    head = b"--frame\r\nContent-Type: image/jpeg\r\n\r\n"
    assert part.startswith(head + b"\xff\xd8")  # the placeholder
    # each frame comes with the next part's head: a browser shows a frame only once the next
    # part has begun, and after a film's last frame no other comes
    assert part.endswith(b"\xff\xd9\r\n" + head)
    hub.publish(b"\xff\xd8fake-jpeg")
    assert next(chunks) == b"\xff\xd8fake-jpeg\r\n" + head
    r.close()


@pytest.mark.parametrize("path", POST_ROUTES)
def test_state_changing_routes_are_post_only(client, path):
    assert client.get(path).status_code == 405


@pytest.mark.parametrize("path", POST_ROUTES)
def test_post_needs_csrf_token(client, path):
    r = client.post(path, json={})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = client.post(path, json={}, headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Referer": "http://evil.example/page"},
    {"Sec-Fetch-Site": "cross-site"},
])
def test_cross_origin_posts_are_refused(client, headers):
    r = client.post("/api/pause", headers={"X-CSRF-Token": CSRF, **headers})
    assert r.status_code == 403 and "expected" in r.get_json()["error"]


def test_pause_posts_a_move(post, app):
    r = post("/api/pause")
    assert r.status_code == 200
    data = r.get_json()
    assert data["move"]["action"] == {"type": "pause"} and data["state"]["turn"] == 1
    assert app.config["SESSION"].moves()[-1].origin.value == "dashboard"


def test_a_player_pressing_their_own_pause_button_gets_the_turn(post, app):
    session = app.config["SESSION"]
    to_play = session.view().facts.current_player
    seat = (to_play + 1) % len(session.players)
    r = post("/api/pause", {"player": seat})
    assert r.status_code == 200
    moves = session.moves()
    assert [m.action.to_json()["type"] for m in moves] == ["turn-to", "pause"]
    assert moves[-1].player == seat and moves[-1].verdict.legal
    r = post("/api/pause", {"player": (seat + 1) % len(session.players)})  # the one to play now
    assert r.status_code == 200 and [m.action.to_json()["type"] for m in session.moves()][2:] == ["pause"]


@pytest.mark.parametrize("body, message", [({"player": 7}, "expected a seat 0..2"), ({"player": "x"}, "expected a seat")])
def test_pause_for_a_seat_that_is_not_there_is_refused(post, body, message):
    r = post("/api/pause", body)
    assert r.status_code == 400 and message in r.get_json()["error"]


def test_undo_and_its_400(post):
    r = post("/api/undo")
    assert r.status_code == 400 and "nothing to undo" in r.get_json()["error"]
    post("/api/pause")
    r = post("/api/undo")
    assert r.status_code == 200 and r.get_json()["state"]["turn"] == 0


@pytest.mark.parametrize("body, message", [
    (None, "expected a JSON object body"),
    ({"act": {}}, "expected an 'action' field"),
    ({"action": {"type": "fly"}}, "expected walk, pause, gladiola, table-walk, turn-to or recount"),
    ({"action": "pause"}, "expected an action object"),
])
def test_correct_validates_input(post, body, message):
    post("/api/pause")
    r = post("/api/correct", body)
    assert r.status_code == 400 and message in r.get_json()["error"]


def test_correct_replaces_last_move(post, app):
    sim = app.config["SIM"]
    post("/api/pause")
    r = post("/api/correct", {"action": sim.actions[0].to_json()})
    assert r.status_code == 200
    move = r.get_json()["move"]
    assert move["corrected"] and move["action"] == sim.actions[0].to_json() and move["verdict"]["legal"]


@pytest.mark.parametrize("body, message", [
    ({"player": 5, "cards": ["W01"]}, "expected a seat 0..2"),
    ({"player": True, "cards": ["W01"]}, "expected a seat"),
    ({"player": 0, "cards": [1, 2]}, "expected a list of card ids"),
    ({"player": 0, "cards": "W01,W02"}, "only once the game is over"),
])
def test_reveal_validates_input(post, body, message):
    r = post("/api/reveal", body)
    assert r.status_code == 400 and message in r.get_json()["error"]


def test_reveal_at_game_end(post, app):
    session, sim = app.config["SESSION"], app.config["SIM"]
    for i, a in enumerate(sim.actions):
        session.submit(MoveItem(i, float(i), a))
    assert app.test_client().get("/state.json").get_json()["shown"] == [None, None, None]
    for seat, hand in enumerate(sim.hands()):
        r = post("/api/reveal", {"player": seat, "cards": ",".join(hand)})
        assert r.status_code == 200, r.get_json()
        if seat == 0:  # the first hand's blisters are shown before the scores are known
            first = r.get_json()["state"]
            assert first["scores"] is None and first["shown"][1:] == [None, None] and first["shown"][0] >= 0
    state = r.get_json()["state"]
    assert state["unrevealed"] == [] and state["scores"] is not None and state["winners"]
    assert state["shown"] == state["scores"]


def test_pad_not_for_gladiola(post):
    r = post("/api/pad", {"action": {"type": "push", "stones": 1}})
    assert r.status_code == 400 and "Via Appia and Valais" in r.get_json()["error"]


def test_appia_pad_and_pause_refused(make_app):
    app = make_app("appia", players=2)
    client = app.test_client()
    headers = {"X-CSRF-Token": CSRF}
    pad = client.get("/state.json").get_json()["pad"]
    assert pad
    r = client.post("/api/pad", json={"action": pad[0]["action"]}, headers=headers)
    assert r.status_code == 200 and r.get_json()["move"]["verdict"]["legal"]
    r = client.post("/api/pad", json={"action": {"type": "push", "stones": 1}, "revealed": "1,2"}, headers=headers)
    assert r.status_code == 400 and "only with an income" in r.get_json()["error"]
    r = client.post("/api/pad", json={"action": {"type": "income", "card": 1, "take": "stones"},
                                      "revealed": "a,b"}, headers=headers)
    assert r.status_code == 400 and "separated by commas" in r.get_json()["error"]
    r = client.post("/api/pause", headers=headers)
    assert r.status_code == 400 and "Via Gladiola" in r.get_json()["error"]


def test_valais_pad_enters_the_joker_steps_of_the_hand_and_a_missed_wrong_card(make_app):
    app = make_app("valais", players=2)
    client = app.test_client()
    headers = {"X-CSRF-Token": CSRF}
    page = client.get("/").get_data(as_text=True)
    assert 'id="pad"' in page and "Out of the camera" in page
    state = client.get("/state.json").get_json()
    # a placement is seen by the camera, not entered here; only the correction for a missed one
    assert [o["action"]["type"] for o in state["pad"]] == ["missed-wrong"]
    r = client.post("/api/pad", json={"action": {"type": "keep", "card": None}}, headers=headers)
    assert r.status_code == 200 and not r.get_json()["move"]["verdict"]["legal"]  # no joker asks for it
    before = client.get("/state.json").get_json()
    r = client.post("/api/pad", json={"action": state["pad"][0]["action"]}, headers=headers)
    assert r.status_code == 200 and r.get_json()["move"]["verdict"]["legal"]
    after = client.get("/state.json").get_json()
    assert after["current_player"] != before["current_player"]  # the turn passed
    assert after["hand_counts"] == before["hand_counts"]  # drew one for the wrong card


def test_access_token_required_beyond_loopback(make_app):
    app = make_app("gladiola", ACCESS_TOKEN="s3cret")
    client = app.test_client()
    headers = {"X-CSRF-Token": CSRF}
    r = client.post("/api/pause", headers=headers)
    assert r.status_code == 403 and "access token" in r.get_json()["error"]
    assert client.post("/api/pause", headers={**headers, "X-Access-Token": "nope"}).status_code == 403
    assert client.post("/api/pause", headers={**headers, "X-Access-Token": "s3cret"}).status_code == 200
    assert client.get("/?token=wrong").status_code == 400
    r = client.get("/?token=s3cret")
    assert r.status_code == 200 and "HttpOnly" in r.headers["Set-Cookie"]
    assert client.post("/api/undo", headers=headers).status_code == 200  # the cookie carries the token


def test_never_debug(make_app):
    app = make_app("gladiola", DEBUG=True)
    assert app.debug is False


def test_a_whole_via_appia_game_is_played_on_the_score_pad(make_app):
    # Every move entered as a player would: a button of the pad (the legal actions, or after a
    # push the quarry's outcomes), with the seven new income cards typed in when the display
    # empties; the game ends with scores and a winner.
    import random

    app = make_app("appia", players=3)
    client = app.test_client()
    session = app.config["SESSION"]
    headers = {"X-CSRF-Token": CSRF}
    rng = random.Random(7)
    state = client.get("/state.json").get_json()
    moves = 0
    while not state["over"]:
        assert state["pad"], "the pad offers nothing before the game's end"
        option = rng.choice(state["pad"])
        body = {"action": option["action"]}
        if option["needs_display"]:
            pile = sorted(session._observer.table.draw_pile_cards() - {option["action"]["card"]})
            body["revealed"] = ",".join(str(c) for c in rng.sample(pile, 7))
        r = client.post("/api/pad", json=body, headers=headers)
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["move"]["verdict"]["legal"], r.get_json()["move"]
        state = r.get_json()["state"]
        moves += 1
        assert moves < 5000
    assert state["pad"] == [] and state["scores"] is not None and state["winners"]
    assert len(state["scores"]) == 3 and moves > 30


def test_zones_are_listed_drawn_and_forgotten(make_app, post):
    from tests.dashboard.conftest import camera_moves

    moves = camera_moves("gladiola")
    app = make_app("gladiola", MOVES=moves)
    client = app.test_client()

    def send(path, body=None):
        return client.post(path, json=body, headers={"X-CSRF-Token": CSRF, "Origin": "http://localhost"})

    listing = client.get("/zones.json").get_json()
    assert listing == {"kinds": ["walk-pile", "gladiola-spot", "scoring"], "zones": [], "size": [640, 360]}
    box = [[100, 50], [300, 50], [300, 250], [100, 250]]
    for body, message in [
        ({"kind": "row", "polygon": box}, "kind: expected one of walk-pile"),
        ({"kind": "walk-pile", "polygon": box[:2]}, "polygon: expected 3 to 64 points"),
        ({"kind": "walk-pile", "polygon": [[1, 2], [3, "x"], [5, 6]]}, "polygon: expected 3 to 64 points"),
        ({"kind": "walk-pile", "polygon": [[100, 50], [105, 50], [105, 55]]}, "expected at least 0.5%"),
        ({"kind": "walk-pile", "polygon": [[100, 50], [900, 50], [900, 250]]}, "inside the 640x360 camera image"),
    ]:
        r = send("/api/zone", body)
        assert r.status_code == 400 and message in r.get_json()["error"], (body, r.get_json())
    r = send("/api/zone", {"kind": "walk-pile", "polygon": box})
    assert r.status_code == 200
    assert r.get_json()["zones"]["zones"] == [{"kind": "walk-pile", "polygon": [[100.0, 50.0], [300.0, 50.0],
                                                                               [300.0, 250.0], [100.0, 250.0]],
                                               "drawn": True}]
    assert client.get("/zones.json").get_json() == r.get_json()["zones"]
    # the camera image shows the drawn zone
    from companion.sources import Frame
    from companion.vision_moves import ZONE_COLOUR
    import numpy as np

    image = moves.annotate(Frame(0, 0.0, np.zeros((360, 640, 3), np.uint8)))
    assert tuple(image[150, 100]) == ZONE_COLOUR and tuple(image[150, 200]) == (0, 0, 0)
    r = send("/api/zones/forget")
    assert r.status_code == 200 and r.get_json()["zones"]["zones"] == []


def test_zones_need_a_camera(client, post):
    assert client.get("/zones.json").get_json() == {"kinds": [], "zones": [], "size": None}
    for path in ("/api/zone", "/api/zones/forget"):
        r = post(path, {"kind": "walk-pile", "polygon": [[0, 0], [100, 0], [100, 100]]})
        assert r.status_code == 400 and "expected a game watched by a camera" in r.get_json()["error"]
