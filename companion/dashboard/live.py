"""The ``live`` blueprint: the page, the camera stream, state events and state JSON (all GET)."""

from __future__ import annotations

import functools
import json
from typing import Any, Iterator

from flask import Blueprint, Response, abort, current_app, jsonify, make_response, render_template, request

from companion.dashboard.api import zone_listing
from companion.dashboard.i18n import DEFAULT_LANGUAGE, LANGUAGES, texts
from companion.dashboard.security import TOKEN_COOKIE, _same
from companion.session import FrameHub, Session, encode_jpeg

bp = Blueprint("live", __name__)
LANG_COOKIE = "companion_lang"
BOUNDARY = "frame"


def _session() -> Session | None:
    return current_app.config["SESSION"]


def _language() -> tuple[str, bool]:
    """The language asked for (query, cookie, browser) and whether the query chose it."""
    asked = request.args.get("lang")
    if asked is not None:
        if asked not in LANGUAGES:
            abort(400, description=f"lang: expected one of {', '.join(LANGUAGES)}, got {asked!r}")
        return asked, True
    cookie = request.cookies.get(LANG_COOKIE)
    if cookie in LANGUAGES:
        return cookie, False
    best = request.accept_languages.best_match(LANGUAGES)
    return best or DEFAULT_LANGUAGE, False


def _state_json() -> dict[str, Any] | None:
    session = _session()
    return None if session is None else session.view().to_json()


@bp.errorhandler(400)
def _bad_request(exc: Any) -> tuple[Response, int]:
    return jsonify(error=getattr(exc, "description", "bad request")), 400


@bp.get("/")
def index() -> Response:
    lang, chosen = _language()
    token = request.args.get("token")
    wanted = current_app.config.get("ACCESS_TOKEN")
    if token is not None and not _same(token, wanted):
        abort(400, description="token: expected the access token printed by `companion play`, got a wrong one")
    page = render_template(
        "index.html",
        lang=lang,
        other=[x for x in LANGUAGES if x != lang][0],
        t=texts(lang),
        state=_state_json(),
        csrf=current_app.config["CSRF_TOKEN"],
    )
    response = make_response(page)
    if chosen:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="Strict")
    if token is not None:
        response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict")
    return response


@bp.get("/zones.json")
def zones() -> Response:
    """The table's zones (see :func:`companion.dashboard.api.zone_listing`)."""
    return jsonify(zone_listing(current_app.config.get("MOVES")))


@bp.get("/state.json")
def state() -> Response:
    data = _state_json()
    if data is None:
        return jsonify(error="no game is running"), 503
    return jsonify(data)


def _sse(data: dict[str, Any]) -> str:
    return f"id: {data['version']}\nevent: state\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@bp.get("/events")
def events() -> Response:
    session = _session()
    if session is None:
        return jsonify(error="no game is running"), 503
    heartbeat = float(current_app.config["SSE_HEARTBEAT"])

    def stream() -> Iterator[str]:
        view = session.view().to_json()
        version = view["version"]
        yield "retry: 2000\n" + _sse(view)
        while True:
            now = session.wait_for_change(version, heartbeat)
            if now == version:
                yield ": still here\n\n"
                continue
            view = session.view().to_json()
            version = view["version"]
            yield _sse(view)

    return Response(stream(), mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"})


@functools.lru_cache(maxsize=1)
def placeholder_jpeg() -> bytes:
    """A dark frame shown until the first camera image arrives."""
    import cv2
    import numpy as np

    image = np.full((360, 640, 3), 40, np.uint8)
    cv2.putText(image, "waiting for the camera", (150, 190), cv2.FONT_HERSHEY_SIMPLEX, 0.9,
                (200, 200, 200), 2, cv2.LINE_AA)
    return encode_jpeg(image)


PART_HEAD = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n".encode()


def _part(jpeg: bytes) -> bytes:
    """One frame of the stream followed by the next part's head: a browser takes a frame as
    whole only once the next part has begun (Chromium: once its headers have come), so each
    frame is sent with the head of the one after it; without that the last frame of a film, or
    of a camera standing still, is never shown and the page never finishes loading."""
    return jpeg + b"\r\n" + PART_HEAD


@bp.get("/stream.mjpg")
def stream_mjpg() -> Response:
    hub: FrameHub = current_app.config["FRAME_HUB"]
    wait = float(current_app.config["STREAM_WAIT"])

    def frames() -> Iterator[bytes]:
        number, jpeg = hub.number, hub.jpeg
        yield PART_HEAD + _part(jpeg or placeholder_jpeg())
        while True:
            new, jpeg = hub.wait(number, wait)
            if new != number:
                number = new
                yield _part(jpeg)

    return Response(frames(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}")
