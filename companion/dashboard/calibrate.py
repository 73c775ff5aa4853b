"""The ``calibrate`` blueprint: table, lens and deck calibration on the dashboard.

Every flow works on the live loop's latest camera frame (the one the MJPEG view shows): the
hub's ``raw`` frame when it keeps one, else its JPEG decoded. Results go into the profile
directory the app was started with (config ``PROFILE_DIR``; None: the default directory), with
the same functions and files as ``companion calibrate``.

* Table: ``POST table/markers`` finds the printed marker sheet; ``POST table/still`` keeps a
  still on which the user clicks the corners of a rectangle of known size, sent to
  ``POST table/points`` (or ``{"card": NAME}`` alone: the largest card in view). Either gives a
  preview (``GET table/overlay.jpg``: the table's millimetre grid drawn on the frame);
  ``POST table/save`` writes it into the profile.
* Lens: ``POST lens/capture`` adds the current frame when the board is found in it;
  ``POST lens/compute`` calibrates in a background thread and saves the lens; ``GET lens/status``
  reports progress, the error and whether ``GET lens/preview.jpg`` (undistorted) is ready.
* Deck: ``POST deck/scan`` numbers the cards in the frame and proposes a reading for each;
  ``POST deck/enroll`` adds the confirmed (or corrected) cards to the enrolled deck.

State lives in memory per app (``app.extensions["calibrate"]``); images are served from it.
Requests that cannot be done are 400 with a message; no camera frame yet is 503.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
from flask import Blueprint, Flask, Response, abort, current_app, jsonify, make_response, render_template, request

from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, EnrolledDeck, deck_paths, enroll
from calibration.enroll_photo import cut_out, order_upright
from calibration.errors import CalibrationError
from calibration.lens import BoardSpec, LensCalibration, Undistorter, calibrate_lens, find_board
from calibration.markers import ArucoDictionary, MarkerSheet, Paper, detect_markers
from calibration.profile import Profile, default_profile_dir, load_profile, save_profile
from calibration.table import (
    TableGeometry,
    calibrate_from_card,
    calibrate_from_markers,
    calibrate_from_points,
    parse_card_size,
    parse_size_mm,
)
from companion.dashboard.api import BadInput
from companion.dashboard.i18n import LANGUAGES, texts
from companion.dashboard.live import LANG_COOKIE, _language
from companion.session import encode_jpeg
from vision.errors import VisionError

bp = Blueprint("calibrate", __name__, url_prefix="/calibrate")

DEFAULT_BOARD = "chessboard:9x6:25mm"
MIN_VIEWS = 4
"""Board views needed before the lens can be computed (as ``calibrate camera``)."""
MAX_VIEWS = 40
MAX_CARD_MM = 5000.0
DECK_GAMES = tuple(g.value for g in DeckGame)


class NoFrame(Exception):
    """No camera frame has arrived yet (becomes 503)."""


@dataclass
class Workbench:
    """The calibration flows' in-memory state for one app (guarded by ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    # table
    still: np.ndarray | None = None
    still_jpeg: bytes = b""
    still_undistorted: bool = False
    table: TableGeometry | None = None
    overlay_jpeg: bytes = b""
    # lens
    board: BoardSpec | None = None
    views: list[np.ndarray] = field(default_factory=list)
    view_jpeg: bytes = b""
    last_colour: np.ndarray | None = None
    lens_state: str = "idle"
    lens_message: str = ""
    lens: LensCalibration | None = None
    preview_jpeg: bytes = b""
    lens_thread: threading.Thread | None = None
    # deck
    scan_id: int = 0
    scan_game: DeckGame | None = None
    scan_jpeg: bytes = b""
    crops: list[np.ndarray] = field(default_factory=list)
    crop_jpegs: list[bytes] = field(default_factory=list)


def _bench() -> Workbench:
    return current_app.extensions["calibrate"]


def init_app(app: Flask) -> None:
    """Register the blueprint and give the app its calibration workbench."""
    app.extensions["calibrate"] = Workbench()
    app.register_blueprint(bp)


# ------------------------------------------------------------------------------------------------
# Helpers


def _profile_dir() -> Path:
    configured = current_app.config.get("PROFILE_DIR")
    return Path(configured) if configured else default_profile_dir()


def _profile() -> Profile:
    return load_profile(_profile_dir(), missing_ok=True)


def latest_frame() -> np.ndarray:
    """The live loop's latest frame (BGR): the hub's raw frame if it keeps one, else its JPEG."""
    hub = current_app.config["FRAME_HUB"]
    raw = getattr(hub, "raw", None)
    if isinstance(raw, np.ndarray) and raw.size:
        return raw.copy()
    jpeg = hub.jpeg
    if not jpeg:
        raise NoFrame("expected a camera frame from the live loop, got none yet; is `companion play` reading a camera?")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise NoFrame("expected a JPEG camera frame, got bytes that do not decode")
    return image


def _prepared(frame: np.ndarray, profile: Profile) -> tuple[np.ndarray, bool]:
    """The frame undistorted with the profile's lens (and whether it was)."""
    if profile.lens is None:
        return frame, False
    return Undistorter(profile.lens)(frame), True


def _jpeg_response(data: bytes) -> Response:
    if not data:
        abort(404, description="no such image yet")
    response = make_response(data)
    response.mimetype = "image/jpeg"
    response.headers["Cache-Control"] = "no-store"
    return response


def _body() -> dict[str, Any]:
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("expected a JSON object body (Content-Type: application/json), got something else")
    return data


def _number(value: Any, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadInput(f"{what}: expected a number, got {value!r}")
    if not low <= value <= high:
        raise BadInput(f"{what}: expected a number in {low:g}..{high:g}, got {value!r}")
    return float(value)


def _whole(value: Any, what: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{what}: expected a whole number or nothing, got {value!r}")
    return value


def _guard(handler: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except NoFrame as exc:
            return jsonify(error=str(exc)), 503
        except (BadInput, CalibrationError, VisionError) as exc:
            return jsonify(error=str(exc)), 400

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


@bp.errorhandler(400)
def _bad_request(exc: Any) -> tuple[Response, int]:
    return jsonify(error=getattr(exc, "description", "bad request")), 400


@bp.errorhandler(404)
def _not_found(exc: Any) -> tuple[Response, int]:
    return jsonify(error=getattr(exc, "description", "not found")), 404


# ------------------------------------------------------------------------------------------------
# Page and status


@bp.get("/")
def page() -> Response:
    lang, chosen = _language()
    session = current_app.config["SESSION"]
    game = session.game if session is not None and session.game in DECK_GAMES else DECK_GAMES[0]
    html = render_template(
        "calibrate.html", lang=lang, other=[x for x in LANGUAGES if x != lang][0], t=texts(lang),
        csrf=current_app.config["CSRF_TOKEN"], game=game, games=DECK_GAMES, board=DEFAULT_BOARD,
        papers=[p.name.lower() for p in Paper],
    )
    response = make_response(html)
    if chosen:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="Strict")
    return response


def _deck_count(directory: Path, game: DeckGame) -> int | None:
    """Cards enrolled for ``game`` (0 when none; None when the deck files are damaged)."""
    if not deck_paths(directory, game)[0].exists():
        return 0
    try:
        return len(EnrolledDeck.load(directory, game).labels)
    except CalibrationError:
        return None


def _lens_json(bench: Workbench) -> dict[str, Any]:
    lens = bench.lens
    return {
        "board": str(bench.board) if bench.board else None, "views": len(bench.views), "min_views": MIN_VIEWS,
        "max_views": MAX_VIEWS, "state": bench.lens_state, "message": bench.lens_message,
        "rms_px": None if lens is None else round(lens.rms_px, 4), "preview": bool(bench.preview_jpeg),
        "view": bool(bench.view_jpeg),
    }


@bp.get("/status.json")
@_guard
def status() -> Response:
    """What the profile holds and where the flows stand."""
    directory = _profile_dir()
    bench = _bench()
    try:
        profile: Profile | None = _profile()
        problem = None
    except CalibrationError as exc:
        profile, problem = None, str(exc)
    with bench.lock:
        lens = _lens_json(bench)
    return jsonify(
        profile=str(directory), problem=problem,
        table=None if profile is None or profile.table is None else _table_json(profile.table),
        lens_saved=None if profile is None or profile.lens is None else
        {"rms_px": round(profile.lens.rms_px, 4), "views": profile.lens.views, "board": profile.lens.board},
        deck={g.value: _deck_count(directory, g) for g in DeckGame},
        lens_job=lens,
    )


# ------------------------------------------------------------------------------------------------
# Table


def _table_json(geo: TableGeometry) -> dict[str, Any]:
    centre = (geo.image_width / 2, geo.image_height / 2)
    return {
        "source": geo.source.value, "points_used": geo.points_used, "residual_mm": round(geo.residual_mm, 3),
        "max_residual_mm": round(geo.max_residual_mm, 3), "mm_per_px": round(geo.mm_per_pixel(centre), 4),
        "width": geo.image_width, "height": geo.image_height, "undistorted": geo.undistorted,
    }


def _grid_step(extent_mm: float) -> float:
    """A round grid spacing giving about 8-25 lines over ``extent_mm``."""
    for step in (10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0):
        if extent_mm / step <= 25:
            return step
    return 2000.0


def draw_table_grid(image: np.ndarray, geo: TableGeometry, points_px: np.ndarray | None = None) -> np.ndarray:
    """The frame with the table's millimetre grid drawn through the homography, the origin and
    axes marked, and ``points_px`` (calibration points) as small circles."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    h, w = out.shape[:2]
    inverse = geo.inverse
    corners = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    try:
        seen = geo.to_table(corners)
    except CalibrationError:
        return out
    low, high = np.maximum(seen.min(axis=0), -5000.0), np.minimum(seen.max(axis=0), 5000.0)
    step = _grid_step(float(max(high - low)))
    thick = max(1, round(w / 900))

    def project(mm: np.ndarray) -> np.ndarray | None:
        homo = np.hstack([mm, np.ones((len(mm), 1))]) @ inverse.T
        if np.any(homo[:, 2] <= 1e-9):
            return None  # beyond the table plane's horizon
        return homo[:, :2] / homo[:, 2:3]

    def line(a: tuple[float, float], b: tuple[float, float], colour: tuple[int, int, int], width: int) -> None:
        t = np.linspace(0.0, 1.0, 24)[:, None]
        pts = project(np.asarray(a) * (1 - t) + np.asarray(b) * t)
        if pts is not None and np.all(np.abs(pts) < 1e5):
            cv2.polylines(out, [np.round(pts).astype(np.int32)], False, colour, width, cv2.LINE_AA)

    for x in np.arange(math.floor(low[0] / step) * step, high[0] + step, step):
        major = abs(x % (5 * step)) < 1e-6
        line((x, low[1]), (x, high[1]), (90, 220, 255) if major else (60, 160, 200), thick * (2 if major else 1))
    for y in np.arange(math.floor(low[1] / step) * step, high[1] + step, step):
        major = abs(y % (5 * step)) < 1e-6
        line((low[0], y), (high[0], y), (90, 220, 255) if major else (60, 160, 200), thick * (2 if major else 1))
    axis = 2 * step
    line((0.0, 0.0), (axis, 0.0), (40, 40, 240), thick * 3)
    line((0.0, 0.0), (0.0, axis), (40, 200, 40), thick * 3)
    origin = project(np.zeros((1, 2)))
    if origin is not None and np.all(np.abs(origin) < 1e5):
        x0, y0 = (int(v) for v in np.round(origin[0]))
        cv2.circle(out, (x0, y0), 5 * thick, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.putText(out, f"0 mm, grid {step:g} mm", (x0 + 8 * thick, y0 - 8 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * thick, (255, 255, 255), thick, cv2.LINE_AA)
    if points_px is not None:
        for x, y in np.asarray(points_px, np.float64).reshape(-1, 2):
            cv2.circle(out, (int(round(x)), int(round(y))), 4 * thick, (255, 0, 255), thick, cv2.LINE_AA)
    return out


def _take_still(bench: Workbench, profile: Profile) -> np.ndarray:
    still, undistorted = _prepared(latest_frame(), profile)
    bench.still, bench.still_undistorted = still, undistorted
    bench.still_jpeg = encode_jpeg(still, 90)
    bench.table, bench.overlay_jpeg = None, b""
    return still


def _show_table(bench: Workbench, geo: TableGeometry, points: np.ndarray | None) -> Response:
    assert bench.still is not None
    bench.table = geo
    bench.overlay_jpeg = encode_jpeg(draw_table_grid(bench.still, geo, points), 85)
    return jsonify(table=_table_json(geo), saved=False)


def _sheet(body: dict[str, Any]) -> MarkerSheet:
    paper = body.get("paper", "a4")
    if not isinstance(paper, str):
        raise BadInput(f"paper: expected one of {[p.name.lower() for p in Paper]}, got {paper!r}")
    marker = _number(body.get("marker_mm", 40.0), "marker_mm", 5.0, 200.0)
    dictionary = body.get("dictionary", ArucoDictionary.D4X4_50.value)
    if not isinstance(dictionary, str):
        raise BadInput(f"dictionary: expected a name like 4x4_50, got {dictionary!r}")
    try:
        return MarkerSheet.corners_layout(Paper.parse(paper), marker, 15.0, ArucoDictionary.parse(dictionary))
    except CalibrationError as exc:
        raise BadInput(str(exc)) from None


@bp.post("/table/markers")
@_guard
def table_markers() -> Response:
    """Take the current frame and find the printed marker sheet: body ``{"paper"?, "marker_mm"?}``."""
    sheet = _sheet(_body())
    profile = _profile()
    bench = _bench()
    with bench.lock:
        still = _take_still(bench, profile)
        geo = calibrate_from_markers(still, sheet, undistorted=bench.still_undistorted)
        found = [np.asarray(d.corners_px) for d in detect_markers(still, sheet.dictionary)]
        return _show_table(bench, geo, np.vstack(found) if found else None)


@bp.post("/table/still")
@_guard
def table_still() -> Response:
    """Keep the current frame as the still to click the corners on."""
    profile = _profile()
    bench = _bench()
    with bench.lock:
        still = _take_still(bench, profile)
        return jsonify(width=int(still.shape[1]), height=int(still.shape[0]), undistorted=bench.still_undistorted)


def _points(value: Any, size: tuple[int, int]) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 4:
        raise BadInput(f"points: expected 4 [x, y] pairs clockwise from the top-left, got {value!r:.80}")
    out = []
    for i, p in enumerate(value):
        if not isinstance(p, list) or len(p) != 2:
            raise BadInput(f"points[{i}]: expected [x, y], got {p!r}")
        out.append([_number(p[0], f"points[{i}] x", 0, size[0] - 1), _number(p[1], f"points[{i}] y", 0, size[1] - 1)])
    return np.asarray(out, np.float64)


@bp.post("/table/points")
@_guard
def table_points() -> Response:
    """Fit the table to a rectangle of known size on the still.

    Body ``{"points": [[x, y] x4], "size": "WxH"}`` (mm) or ``{"points": [...], "card": NAME}``
    (a card of known size: gladiola, valais, appia or WxH); ``{"card": NAME}`` alone uses the
    largest card found on the still.
    """
    body = _body()
    bench = _bench()
    with bench.lock:
        if bench.still is None:
            raise BadInput("expected a still to click on first (press 'Take a still'), got none")
        still = bench.still
        size = (int(still.shape[1]), int(still.shape[0]))
        points = _points(body["points"], size) if "points" in body else None
        card, rect = body.get("card"), body.get("size")
        if (card is None) == (rect is None):
            raise BadInput("expected either size (the rectangle's WxH in mm) or card (a card size), got "
                           + ("both" if card is not None else "neither"))
        if rect is not None:
            if points is None:
                raise BadInput("expected points (the 4 clicked corners) with size, got none")
            if not isinstance(rect, str):
                raise BadInput(f"size: expected WxH in mm like 210x297, got {rect!r}")
            w_mm, h_mm = parse_size_mm(rect, what="the rectangle size")
            if max(w_mm, h_mm) > MAX_CARD_MM:
                raise BadInput(f"size: expected sides up to {MAX_CARD_MM:g} mm, got {rect!r}")
            geo = calibrate_from_points(points, w_mm, h_mm, size, bench.still_undistorted)
        else:
            if not isinstance(card, str):
                raise BadInput(f"card: expected a card size name or WxH, got {card!r}")
            known = parse_card_size(card)
            if points is None:
                from companion.commands.calibrate import _largest_card

                points = _largest_card(still)
            geo = calibrate_from_card(points, known, size, bench.still_undistorted)
        return _show_table(bench, geo, points)


@bp.post("/table/save")
@_guard
def table_save() -> Response:
    """Write the previewed table calibration into the profile (the lens part is kept)."""
    bench = _bench()
    with bench.lock:
        geo = bench.table
        if geo is None:
            raise BadInput("expected a table calibration to save (find the markers or click 4 corners first), got none")
        profile = _profile()
        if geo.undistorted != (profile.lens is not None):
            raise BadInput("the profile's lens changed since this still was taken; take the still again")
        path = save_profile(Profile(table=geo, lens=profile.lens), _profile_dir())
        return jsonify(table=_table_json(geo), saved=True, profile=str(path))


@bp.get("/table/still.jpg")
def table_still_jpg() -> Response:
    return _jpeg_response(_bench().still_jpeg)


@bp.get("/table/overlay.jpg")
def table_overlay_jpg() -> Response:
    return _jpeg_response(_bench().overlay_jpeg)


# ------------------------------------------------------------------------------------------------
# Lens


def _board(body: dict[str, Any]) -> BoardSpec:
    text = body.get("board", DEFAULT_BOARD)
    if not isinstance(text, str):
        raise BadInput(f"board: expected a board like {DEFAULT_BOARD}, got {text!r}")
    return BoardSpec.parse(text)


@bp.post("/lens/capture")
@_guard
def lens_capture() -> Response:
    """Add the current frame as a view when the board is found in it: body ``{"board": SPEC}``."""
    spec = _board(_body())
    frame = latest_frame()
    bench = _bench()
    with bench.lock:
        if bench.lens_state == "running":
            raise BadInput("expected to wait: the lens is being computed from the views so far")
        size = frame.shape[:2]
        if bench.board != spec or (bench.views and bench.views[0].shape[:2] != size):
            bench.board, bench.views, bench.view_jpeg, bench.last_colour = spec, [], b"", None
        if len(bench.views) >= MAX_VIEWS:
            raise BadInput(f"expected at most {MAX_VIEWS} views, got that many already; compute the lens now")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    view = find_board(gray, spec)  # outside the lock: the board search can take a moment
    if view is None:
        raise BadInput(f"expected the board {spec} in the current frame, found none; "
                       "show the whole board, flat and sharp")
    drawn = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    for x, y in view.image_points:
        cv2.circle(drawn, (int(round(x)), int(round(y))), max(2, frame.shape[1] // 300), (0, 220, 0), -1, cv2.LINE_AA)
    with bench.lock:
        if bench.board != spec:
            raise BadInput("the board changed while this view was searched; capture again")
        bench.views.append(gray)
        bench.last_colour = frame
        bench.view_jpeg = encode_jpeg(drawn, 85)
        if bench.lens_state in ("done", "failed"):
            bench.lens_state, bench.lens_message = "idle", ""
        return jsonify(found=len(view.image_points), lens_job=_lens_json(bench))


@bp.post("/lens/reset")
@_guard
def lens_reset() -> Response:
    """Forget the captured views."""
    bench = _bench()
    with bench.lock:
        if bench.lens_state == "running":
            raise BadInput("expected to wait: the lens is being computed")
        bench.views, bench.view_jpeg, bench.last_colour = [], b"", None
        bench.lens_state, bench.lens_message, bench.lens, bench.preview_jpeg = "idle", "", None, b""
        return jsonify(lens_job=_lens_json(bench))


def _compute_lens(bench: Workbench, views: list[np.ndarray], spec: BoardSpec, last: np.ndarray | None,
                  directory: Path) -> None:
    """The background job: calibrate, save into the profile, prepare the undistorted preview."""
    try:
        lens, used = calibrate_lens(views, spec, min_views=MIN_VIEWS)
        profile = load_profile(directory, missing_ok=True)
        save_profile(Profile(table=profile.table, lens=lens), directory)
        note = ""
        if profile.table is not None and not profile.table.undistorted:
            note = "the table calibration was made on raw frames: calibrate the table again"
        preview = encode_jpeg(Undistorter(lens)(last), 85) if last is not None else b""
        with bench.lock:
            bench.lens, bench.preview_jpeg = lens, preview
            bench.lens_state, bench.lens_message = "done", note
    except Exception as exc:  # the job reports every failure on the page instead of dying silently
        with bench.lock:
            bench.lens_state, bench.lens_message = "failed", str(exc)


@bp.post("/lens/compute")
@_guard
def lens_compute() -> tuple[Response, int]:
    """Start the lens calibration from the captured views (runs in the background)."""
    bench = _bench()
    directory = _profile_dir()
    with bench.lock:
        if bench.lens_state == "running":
            raise BadInput("expected one computation at a time, one is running")
        if bench.board is None or len(bench.views) < MIN_VIEWS:
            raise BadInput(f"expected at least {MIN_VIEWS} views of the board, got {len(bench.views)}")
        bench.lens_state, bench.lens_message, bench.lens, bench.preview_jpeg = "running", "", None, b""
        job = threading.Thread(target=_compute_lens, name="lens-calibration", daemon=True,
                               args=(bench, list(bench.views), bench.board, bench.last_colour, directory))
        bench.lens_thread = job
        job.start()
        return jsonify(lens_job=_lens_json(bench)), 202


@bp.get("/lens/status")
def lens_status() -> Response:
    bench = _bench()
    with bench.lock:
        return jsonify(lens_job=_lens_json(bench))


@bp.get("/lens/view.jpg")
def lens_view_jpg() -> Response:
    return _jpeg_response(_bench().view_jpeg)


@bp.get("/lens/preview.jpg")
def lens_preview_jpg() -> Response:
    return _jpeg_response(_bench().preview_jpeg)


# ------------------------------------------------------------------------------------------------
# Deck


def _game(value: Any) -> DeckGame:
    if not isinstance(value, str):
        raise BadInput(f"game: expected one of {list(DECK_GAMES)}, got {value!r}")
    return DeckGame.parse(value)


def _matcher(directory: Path, game: DeckGame) -> DeckMatcher | None:
    """The enrolled deck's matcher, None when none is enrolled (a damaged deck is an error)."""
    if not deck_paths(directory, game)[0].exists():
        return None
    return DeckMatcher.load(directory, game)


def _proposal(n: int, obs: Any, crop: np.ndarray, game: DeckGame, matcher: DeckMatcher | None) -> dict[str, Any]:
    """What the companion thinks card ``n`` is: the enrolled deck's answer first, else the reader's."""
    known = matcher.match(crop) if matcher is not None else None
    if known is not None:
        return {"n": n, "kind": known.kind.value, "value": known.value, "blisters": known.blisters,
                "year": known.year, "confidence": round(known.score, 3), "known": known.identity}
    kind = obs.kind.value
    if game is DeckGame.VALAIS:
        year = obs.date.year if obs.date is not None else None
        return {"n": n, "kind": DeckKind.TIMELINE.value, "value": None, "blisters": None, "year": year,
                "confidence": round(obs.confidence, 3), "known": None}
    fields = kind in {k.value for k in DeckKind} and kind != DeckKind.TIMELINE.value
    return {"n": n, "kind": kind if fields else None, "value": obs.value, "blisters": obs.blisters, "year": None,
            "confidence": round(obs.confidence, 3), "known": None}


def _numbered(image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    out = image.copy()
    thick = max(2, image.shape[1] // 500)
    for n, quad in enumerate(quads, 1):
        pts = np.round(quad).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 200, 255), thick, cv2.LINE_AA)
        cx, cy = (int(v) for v in quad.mean(axis=0))
        scale = 0.8 * thick
        (tw, th), _ = cv2.getTextSize(str(n), cv2.FONT_HERSHEY_SIMPLEX, scale, 2 * thick)
        cv2.rectangle(out, (cx - tw // 2 - 6, cy - th // 2 - 6), (cx + tw // 2 + 6, cy + th // 2 + 6), (0, 0, 0), -1)
        cv2.putText(out, str(n), (cx - tw // 2, cy + th // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 230, 255),
                    2 * thick, cv2.LINE_AA)
    return out


@bp.post("/deck/scan")
@_guard
def deck_scan() -> Response:
    """Number the cards in the current frame and propose a reading for each: body ``{"game": G}``.

    Cards read with their orientation are cut out that way up; others as they lie (lay them
    upright, their top towards the top of the picture).
    """
    from vision.pipeline import CardReader, PipelineConfig
    from vision.read.types import Deck

    game = _game(_body().get("game"))
    directory = _profile_dir()
    frame, _ = _prepared(latest_frame(), _profile())
    matcher = _matcher(directory, game)
    result = CardReader(PipelineConfig(deck=Deck.for_game(game.value))).read_frame(frame)
    quads, crops, cards = [], [], []
    for obs in result.observations:
        if not obs.visible or not obs.quad.is_convex():
            continue
        quad = obs.quad.as_array() if obs.kind.value != "unknown" else order_upright(obs.quad.as_array())
        crop = cut_out(frame, quad)
        quads.append(quad)
        crops.append(crop)
        cards.append(_proposal(len(cards) + 1, obs, crop, game, matcher))
    bench = _bench()
    with bench.lock:
        bench.scan_id += 1
        bench.scan_game, bench.crops = game, crops
        bench.crop_jpegs = [encode_jpeg(c, 85) for c in crops]
        bench.scan_jpeg = encode_jpeg(_numbered(frame, quads), 85)
        return jsonify(scan=bench.scan_id, game=game.value, cards=cards,
                       enrolled=len(matcher.deck.labels) if matcher is not None else 0)


def identity_for(label_fields: tuple[DeckKind, int | None, int | None, int | None], taken: set[str]) -> str:
    """A card identity in the style of enrollment file names (``walk-17-b3``, ``gladiola-b4``,
    ``timeline-1865``), made unique against ``taken`` with a ``-2``, ``-3`` ... suffix."""
    kind, value, blisters, year = label_fields
    if kind is DeckKind.TIMELINE:
        base = f"timeline-{year}"
    elif kind is DeckKind.GLADIOLA:
        base = f"gladiola-b{blisters}"
    else:
        base = f"{kind.value}-{value}-b{blisters}"
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}-{k}"
    return name


def _labels(cards: Any, game: DeckGame, count: int, taken: set[str]) -> list[tuple[int, CardLabel]]:
    if not isinstance(cards, list) or not cards:
        raise BadInput(f"cards: expected a non-empty list of confirmed cards, got {cards!r:.80}")
    out: list[tuple[int, CardLabel]] = []
    seen: set[int] = set()
    taken = set(taken)
    for entry in cards:
        if not isinstance(entry, dict):
            raise BadInput(f"cards: expected objects {{n, kind, value, blisters, year}}, got {entry!r:.60}")
        n = entry.get("n")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= count:
            raise BadInput(f"n: expected a card number 1..{count} of the last scan, got {n!r}")
        if n in seen:
            raise BadInput(f"n: expected each card once, got card {n} again")
        seen.add(n)
        kind_text = entry.get("kind")
        try:
            kind = DeckKind(kind_text)
        except ValueError:
            raise BadInput(f"card {n}: kind: expected one of {sorted(k.value for k in DeckKind)}, "
                           f"got {kind_text!r}") from None
        fields = (kind, _whole(entry.get("value"), f"card {n}: value"),
                  _whole(entry.get("blisters"), f"card {n}: blisters"), _whole(entry.get("year"), f"card {n}: year"))
        label = CardLabel(identity_for(fields, taken), *fields)
        try:
            label.check(game)
        except CalibrationError as exc:
            raise BadInput(f"card {n}: {exc}") from None
        taken.add(label.identity)
        out.append((n, label))
    return out


def merged(old: EnrolledDeck | None, new: EnrolledDeck) -> EnrolledDeck:
    """``old`` with ``new``'s cards appended (identities must not clash)."""
    if old is None:
        return new
    sources = (old.sources or ("",) * len(old.labels)) + (new.sources or ("",) * len(new.labels))
    return EnrolledDeck(old.game, old.labels + new.labels, np.concatenate([old.luma, new.luma]),
                        np.concatenate([old.chroma, new.chroma]), sources)


@bp.post("/deck/enroll")
@_guard
def deck_enroll() -> Response:
    """Add confirmed cards of the last scan to the deck: body ``{"scan": ID, "cards": [{"n", "kind",
    "value", "blisters", "year"}]}`` (only the cards to enroll)."""
    body = _body()
    bench = _bench()
    directory = _profile_dir()
    with bench.lock:
        scan = body.get("scan")
        if bench.scan_game is None or isinstance(scan, bool) or scan != bench.scan_id:
            raise BadInput(f"scan: expected the number of the last scan ({bench.scan_id or 'none yet'}), got "
                           f"{scan!r}; scan again")
        game = bench.scan_game
        old = EnrolledDeck.load(directory, game) if deck_paths(directory, game)[0].exists() else None
        taken = {lab.identity for lab in old.labels} if old is not None else set()
        chosen = _labels(body.get("cards"), game, len(bench.crops), taken)
        new = enroll(game, [(label, bench.crops[n - 1]) for n, label in chosen],
                     tuple(f"dashboard scan {bench.scan_id} card {n}" for n, _ in chosen))
        deck = merged(old, new)
        index = deck.save(directory)
        close = DeckMatcher(deck).confusable(1)
        warning = None
        if close and close[0][2] < 0.1:
            warning = f"{close[0][0]} and {close[0][1]} look almost the same (distance {close[0][2]:.3f})"
        return jsonify(enrolled=[label.identity for _, label in chosen], total=len(deck.labels), deck=str(index),
                       warning=warning)


@bp.get("/deck/frame.jpg")
def deck_frame_jpg() -> Response:
    return _jpeg_response(_bench().scan_jpeg)


@bp.get("/deck/card/<int:n>.jpg")
def deck_card_jpg(n: int) -> Response:
    jpegs = _bench().crop_jpegs
    return _jpeg_response(jpegs[n - 1] if 1 <= n <= len(jpegs) else b"")
