"""The dashboard's door: address, tokens, POST-only changes, input checks, traversal, size, headers.

Each test checks one promise of the issue against the real app (Flask test client) and, for path
traversal, against a real threaded werkzeug server spoken to over a raw socket, so that no client
library normalises the paths on the way.
"""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import companion.commands.play as play
from companion.cli import build_parser, main
from companion.dashboard import create_app
from companion.session import Session, SimulatedMoves
from companion.store import GameStore

CSRF = "door-csrf"
TOKEN = "door-access-token"
SAFE = {"GET", "HEAD", "OPTIONS"}
PAGE = {"X-CSRF-Token": CSRF, "Origin": "http://localhost"}


def _app(tmp: Path, game: str = "gladiola", **config):
    store = GameStore(tmp / f"{game}.sqlite3")
    sim = SimulatedMoves(game, 3, 1, pace=0)
    session = Session.new(store, game, ("Ann", "Ben", "Cy"), sim.observer())
    return create_app(session, {"TESTING": True, "CSRF_TOKEN": CSRF, "SSE_HEARTBEAT": 0.05,
                                "STREAM_WAIT": 0.05, **config})


@pytest.fixture
def app(tmp_path):
    return _app(tmp_path)


def _changing_routes(app) -> list[tuple[str, set[str]]]:
    return [(r.rule, set(r.methods or ()) - SAFE) for r in app.url_map.iter_rules() if set(r.methods or ()) - SAFE]


# -- listening address and the access token ----------------------------------------------------


def test_play_listens_on_loopback_by_default():
    args = build_parser().parse_args(["play", "--game", "gladiola", "--players", "2", "--source", "simulate:1"])
    assert args.host == "127.0.0.1"


class _FakeServer:
    """Stands in for werkzeug's server: records the app and returns from serve_forever at once."""

    def __init__(self, host, port, app, threaded):
        self.app, self.server_port = app, 8765
        _FakeServer.last = self

    def serve_forever(self):
        pass

    def server_close(self):
        pass


@pytest.mark.parametrize("host, remote", [("127.0.0.1", False), ("localhost", False), ("::1", False),
                                          ("0.0.0.0", True), ("192.168.1.20", True), ("::", True)])
def test_non_loopback_warns_and_prints_the_token_once(host, remote, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("werkzeug.serving.make_server", _FakeServer)
    code = main(["play", "--game", "gladiola", "--players", "2", "--source", "simulate:1", "--pace", "0",
                 "--db", str(tmp_path / "g.sqlite3"), "--host", host])
    out, err = capsys.readouterr()
    app = _FakeServer.last.app
    token = app.config["ACCESS_TOKEN"]
    assert code == 0
    if not remote:
        assert token is None and "warning" not in err and "token=" not in out
        return
    assert "warning" in err and host in err
    assert token and len(token) >= 16
    assert (out + err).count(token) == 1, "the token is shown exactly once"
    client = app.test_client()
    csrf = {"X-CSRF-Token": app.config["CSRF_TOKEN"]}
    assert client.post("/api/pause", headers=csrf).status_code == 403
    assert client.post("/api/pause", headers={**csrf, "X-Access-Token": "wrong"}).status_code == 403
    # past the door: the route itself answers (play has closed the log already, so not 200)
    assert client.post("/api/pause", headers={**csrf, "X-Access-Token": token}).status_code in (400, 503)
    assert client.get(f"/?token={token}").status_code == 200  # sets the cookie the page then sends
    assert client.post("/api/undo", headers=csrf).status_code in (400, 503)


def test_given_token_is_used(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("werkzeug.serving.make_server", _FakeServer)
    main(["play", "--game", "gladiola", "--players", "2", "--source", "simulate:1", "--pace", "0",
          "--db", str(tmp_path / "g.sqlite3"), "--host", "0.0.0.0", "--token", TOKEN])
    assert _FakeServer.last.app.config["ACCESS_TOKEN"] == TOKEN
    assert f"?token={TOKEN}" in capsys.readouterr().out


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_loopback_host_headers_are_served(app, host):
    assert app.test_client().get("/state.json", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "192.168.1.20:8765", "127.0.0.1.evil.example"])
def test_foreign_host_header_is_refused_on_loopback(app, host):
    """DNS rebinding: a page whose name now points at 127.0.0.1 must not read the page or post."""
    client = app.test_client()
    r = client.get("/", headers={"Host": host})
    assert r.status_code == 400 and CSRF not in r.get_data(as_text=True)
    assert client.post("/api/pause", headers={**PAGE, "Host": host}).status_code == 400


def test_any_host_with_access_token(tmp_path):
    app = _app(tmp_path, ACCESS_TOKEN=TOKEN)
    assert app.test_client().get("/state.json", headers={"Host": "192.168.1.20:8765"}).status_code == 200


# -- state-changing routes: POST only, CSRF and same origin --------------------------------------


def test_every_state_changing_route_is_post_only(app):
    routes = _changing_routes(app)
    assert routes, "the app has state-changing routes"
    for rule, methods in routes:
        assert methods == {"POST"}, (rule, methods)
        assert rule.startswith(("/api/", "/calibrate/")), rule
    changing = {rule for rule, _ in routes}
    assert any(rule.startswith("/calibrate/") for rule in changing)
    for rule in changing:
        assert app.test_client().get(rule).status_code == 405, rule


@pytest.mark.parametrize("headers, why", [
    ({}, "CSRF"),
    ({"X-CSRF-Token": "wrong"}, "CSRF"),
    ({"X-CSRF-Token": CSRF, "Origin": "http://evil.example"}, "request from"),
    ({"X-CSRF-Token": CSRF, "Origin": "null"}, "request from"),
    ({"X-CSRF-Token": CSRF, "Referer": "http://evil.example/page"}, "request from"),
    ({"X-CSRF-Token": CSRF, "Sec-Fetch-Site": "cross-site"}, "same-origin"),
    ({"X-CSRF-Token": CSRF, "Sec-Fetch-Site": "same-site"}, "same-origin"),
])
def test_posts_without_csrf_or_from_elsewhere_are_refused(app, headers, why):
    client = app.test_client()
    before = client.get("/state.json").get_json()["version"]
    for rule, _ in _changing_routes(app):
        r = client.post(rule, json={}, headers=headers)
        assert r.status_code == 403 and why in r.get_json()["error"], (rule, r.get_json())
    assert client.get("/state.json").get_json()["version"] == before


# -- input validation ------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries({}, optional={
    "action": JSON | st.fixed_dictionaries({"type": st.sampled_from(["pause", "walk", "income", "build", "x"])},
                                           optional={"card": JSON, "take": JSON, "space": JSON}),
    "player": JSON, "cards": JSON, "revealed": JSON,
})


@pytest.mark.parametrize("game", ["gladiola", "valais", "appia"])
def test_any_json_body_gets_200_or_400_with_a_message(game, tmp_path):
    app = _app(tmp_path, game)
    client = app.test_client()
    rules = [rule for rule, _ in _changing_routes(app)]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.sampled_from(rules), FIELDS | JSON)
    def check(rule, body):
        r = client.post(rule, data=json.dumps(body), headers={**PAGE, "Content-Type": "application/json"})
        calibration = rule.startswith("/calibrate/")
        # the calibration routes answer 503 (with a message) while there is no camera frame
        assert r.status_code in ((200, 400, 503) if calibration else (200, 400)), (rule, body, r.status_code)
        data = r.get_json()
        if r.status_code != 200:
            assert isinstance(data["error"], str) and data["error"] and "\n" not in data["error"]
        elif not calibration:
            assert "state" in data

    check()


@pytest.mark.parametrize("body, ctype", [
    (b"{not json", "application/json"),
    (b"\xff\xfe\x00", "application/json"),
    (b"player=1", "application/x-www-form-urlencoded"),
    (b"[1, 2]", "application/json"),
    (b"", "application/json"),
])
@pytest.mark.parametrize("rule", ["/api/correct", "/api/reveal"])
def test_malformed_bodies_are_400(app, rule, body, ctype):
    r = app.test_client().post(rule, data=body, headers={**PAGE, "Content-Type": ctype})
    assert r.status_code == 400 and "expected" in r.get_json()["error"]


@pytest.mark.parametrize("query", ["lang=fr", "lang=", "lang=de%00", "token=guess"])
def test_bad_query_values_are_400(app, query):
    r = app.test_client().get(f"/?{query}")
    assert r.status_code == 400 and r.get_json()["error"]


# -- request size -----------------------------------------------------------------------------------


def test_oversized_bodies_are_413_on_every_post_route(app):
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert limit and limit <= 1024 * 1024
    client = app.test_client()
    before = client.get("/state.json").get_json()["version"]
    for rule, _ in _changing_routes(app):
        r = client.post(rule, data=b"{" + b" " * limit + b"}", headers={**PAGE, "Content-Type": "application/json"})
        assert r.status_code == 413, rule
        assert r.headers["X-Frame-Options"] == "DENY"
    assert client.get("/state.json").get_json()["version"] == before


# -- headers and debug mode ----------------------------------------------------------------------------


@pytest.mark.parametrize("method, path, kw", [
    ("get", "/", {}), ("get", "/state.json", {}), ("get", "/static/dashboard.js", {}),
    ("get", "/no-such-page", {}), ("get", "/api/pause", {}), ("post", "/api/pause", {}),
    ("get", "/?lang=xx", {}),
])
def test_security_headers_on_every_answer(app, method, path, kw):
    r = getattr(app.test_client(), method)(path, **kw)
    csp = r.headers["Content-Security-Policy"]
    script = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script
    assert "frame-ancestors 'none'" in csp
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    r.close()


def test_page_has_no_inline_script(app):
    import re

    html = app.test_client().get("/").get_data(as_text=True)
    for tag, body in re.findall(r"(<script[^>]*>)(.*?)</script>", html, flags=re.S):
        assert 'src="' in tag or 'type="application/json"' in tag, tag
        if 'type="application/json"' in tag:
            assert "</" not in body  # data island cannot close itself early
    assert not re.search(r"\son[a-z]+=", html), "no inline event handlers"


def test_never_debug_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = create_app(None, {"DEBUG": True})
    assert app.debug is False

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret detail")

    r = app.test_client().get("/boom")
    body = r.get_data(as_text=True)
    assert r.status_code == 500 and "secret detail" not in body and "Traceback" not in body
    assert "use_debugger" not in Path(play.__file__).read_text()


# -- path traversal ---------------------------------------------------------------------------------

TRAVERSALS = [
    "../__init__.py", "..%2f__init__.py", "%2e%2e/__init__.py", "%2e%2e%2f__init__.py",
    "..%5c__init__.py", "..\\__init__.py", "%252e%252e%252f__init__.py", "..%252f__init__.py",
    "....//__init__.py", "..;/__init__.py", "%c0%ae%c0%ae/__init__.py", "../../../../../../etc/passwd",
    "..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd", "%2e%2e%5c%2e%2e%5cetc%5cpasswd", "/etc/passwd",
    "%2fetc%2fpasswd", "dashboard.js%00.png", "../templates/index.html", "..%2ftemplates%2findex.html",
]
SECRETS = ("def create_app", "root:x:0", "{% ", "import ")


def _assert_not_served(status: int, body: bytes, path: str) -> None:
    """Refused, or (for doubled slashes) redirected to the merged path inside the same route."""
    text = body.decode("utf-8", "replace")
    assert status in (400, 404, 405, 308), (path, status)
    assert not any(s in text for s in SECRETS), path


@pytest.mark.parametrize("tail", TRAVERSALS)
@pytest.mark.parametrize("prefix", ["/static/", "/", "/api/", "/static/../static/"])
def test_traversal_through_the_test_client(app, prefix, tail):
    r = app.test_client().get(prefix + tail)
    _assert_not_served(r.status_code, r.get_data(), prefix + tail)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    app = _app(tmp_path_factory.mktemp("door"))
    app.config["TESTING"] = False
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv.server_port
    srv.shutdown()
    srv.server_close()


def _raw_get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{port}")
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


@pytest.mark.parametrize("tail", TRAVERSALS)
@pytest.mark.parametrize("prefix", ["/static/", "/"])
def test_traversal_against_a_real_server(server, prefix, tail):
    status, body = _raw_get(server, prefix + tail)
    _assert_not_served(status, body, prefix + tail)


def test_real_server_still_serves_static(server):
    status, body = _raw_get(server, "/static/dashboard.js")
    assert status == 200 and body


def _open_fds() -> int:
    import os

    return len(os.listdir("/proc/self/fd"))


def test_many_posts_do_not_pile_up_connections(server):
    """Each request of the threaded server runs in a new thread; the game log must not keep one
    SQLite connection (memory, file descriptors) per finished thread."""
    import time

    def post(path: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", server, timeout=5)
        try:
            conn.request("POST", path, body=b"{}", headers={
                "X-CSRF-Token": CSRF, "Origin": f"http://127.0.0.1:{server}", "Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            return r.status
        finally:
            conn.close()

    post("/api/pause")
    time.sleep(0.2)
    before = _open_fds()
    for k in range(60):
        assert post("/api/undo" if k % 2 else "/api/pause") in (200, 400)
    time.sleep(0.2)
    assert _open_fds() - before < 20
