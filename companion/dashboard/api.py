"""The ``api`` blueprint: every state-changing route (POST only, JSON in and out).

A move that breaks a rule is not an error: the answer is 200 with the verdict. Input that cannot
be a move (malformed JSON, an unknown card, no move to undo) is 400 with a message saying what was
expected and what was got.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from flask import Blueprint, Response, current_app, jsonify, request

from companion.errors import CompanionError
from companion.session import MoveRecord, Session
from companion.store import StoreError
from companion.tracking.zones import Zone

bp = Blueprint("api", __name__, url_prefix="/api")


class BadInput(Exception):
    """A request the API cannot take (becomes 400)."""


def _session() -> Session:
    session = current_app.config["SESSION"]
    if session is None:
        raise BadInput("no game is running")
    return session


def _body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("expected a JSON object body (Content-Type: application/json), got "
                       + ("nothing" if not request.data else "something else"))
    return data


def _answer(record: MoveRecord | None, session: Session) -> Response:
    return jsonify(
        move=None if record is None else record.to_json(session.players),
        state=session.view().to_json(),
    )


def _guard(handler: Callable[[], Response]) -> Callable[[], Response | tuple[Response, int]]:
    def wrapped() -> Response | tuple[Response, int]:
        try:
            return handler()
        except StoreError as exc:
            return jsonify(error=f"the game log cannot be written: {exc}"), 503
        except (BadInput, CompanionError) as exc:
            return jsonify(error=str(exc)), 400

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


@bp.post("/pause")
@_guard
def pause() -> Response:
    """Via Gladiola: a player pauses; an optional JSON body ``{"player": seat}`` names the seat
    whose own button was pressed (else whoever is to play)."""
    session = _session()
    data = request.get_json(silent=True) if request.data else {}
    if not isinstance(data, dict):
        raise BadInput("expected no body or a JSON object such as {\"player\": 0}, got something else")
    return _answer(session.pause(data.get("player")), session)


@bp.post("/undo")
@_guard
def undo() -> Response:
    """Take back the last move."""
    session = _session()
    session.undo()
    return _answer(None, session)


@bp.post("/correct")
@_guard
def correct() -> Response:
    """Replace the last move's action: body ``{"action": {...}}``."""
    session = _session()
    body = _body()
    if "action" not in body:
        raise BadInput(f"expected an 'action' field, got fields {sorted(body)}")
    action = session.action_from_json(body["action"])
    return _answer(session.correct(action), session)


@bp.post("/reveal")
@_guard
def reveal() -> Response:
    """Via Gladiola, game over: body ``{"player": 0, "cards": ["id", ...]}`` (or a comma string)."""
    session = _session()
    body = _body()
    player = body.get("player")
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < len(session.players):
        raise BadInput(f"player: expected a seat 0..{len(session.players) - 1}, got {player!r}")
    cards = body.get("cards")
    if isinstance(cards, str):
        cards = [c.strip() for c in cards.split(",") if c.strip()]
    if not isinstance(cards, list) or not all(isinstance(c, str) and c for c in cards):
        raise BadInput(f"cards: expected a list of card ids, got {cards!r}")
    session.reveal_hand(player, cards)
    return _answer(None, session)


@bp.post("/pad")
@_guard
def pad() -> Response:
    """Via Appia score pad, Valais*Wallis joker steps in the hand: body ``{"action": {...},
    "revealed": [7 ids]?}``."""
    session = _session()
    if session.game == "gladiola":
        raise BadInput(f"the pad is for Via Appia and Valais*Wallis, this game is {session.module.TITLE}")
    body = _body()
    data = body.get("action")
    if not isinstance(data, dict):
        raise BadInput(f"action: expected an object, got {data!r}")
    revealed = body.get("revealed")
    if revealed is not None:
        if isinstance(revealed, str):
            try:
                revealed = [int(x) for x in revealed.replace(" ", "").split(",") if x]
            except ValueError:
                raise BadInput(f"revealed: expected card ids separated by commas, got {body['revealed']!r}") from None
        if data.get("type") != "income":
            raise BadInput(f"revealed: new cards come only with an income action, got {data.get('type')!r}")
        data = {**data, "revealed": revealed}
    action = session.action_from_json(data)
    return _answer(session.enter(action), session)


def _keeps_zones(moves: Any) -> bool:
    """Whether ``moves`` is the camera's move source (a simulation keeps no zones)."""
    return moves is not None and hasattr(moves, "draw_zone")


def _camera() -> Any:
    """The camera's move source, which keeps the table's zones (BadInput without one)."""
    moves = current_app.config.get("MOVES")
    if not _keeps_zones(moves):
        raise BadInput("zones: expected a game watched by a camera, got "
                       + ("none" if moves is None else "a game without one (simulated)"))
    return moves


def zone_listing(moves: Any) -> dict[str, Any]:
    """The zones as the dashboard shows them: the kinds a player may draw, each zone (found or
    drawn) and the camera image's size, which the polygons' pixels refer to."""
    if not _keeps_zones(moves):
        return {"kinds": [], "zones": [], "size": None}
    tracker = moves.tracker
    drawn = {z.kind for z in tracker.drawn_zones.zones}
    return {
        "kinds": [k.value for k in tracker.zone_kinds],
        "zones": [dict(z.to_json(), drawn=z.kind in drawn) for z in tracker.zones.zones],
        "size": None if moves.frame_size is None else list(moves.frame_size),
    }


@bp.post("/zone")
@_guard
def zone() -> Response:
    """A zone drawn on the camera image: body ``{"kind": "walk-pile", "polygon": [[x, y], ...]}``
    in the image's pixels; it stands in place of the zone found automatically."""
    moves = _camera()
    body = _body()
    kinds = [k.value for k in moves.tracker.zone_kinds]
    if body.get("kind") not in kinds:
        raise BadInput(f"kind: expected one of {', '.join(kinds)}, got {body.get('kind')!r}")
    polygon = body.get("polygon")
    if (not isinstance(polygon, list) or not 3 <= len(polygon) <= 64
            or not all(isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                                   and math.isfinite(v) for v in p) for p in polygon)):
        raise BadInput(f"polygon: expected 3 to 64 points [x, y] in image pixels, got {polygon!r}"[:300])
    moves.draw_zone(Zone.from_json({"kind": body["kind"], "polygon": polygon}))
    return jsonify(zones=zone_listing(moves))


@bp.post("/zones/forget")
@_guard
def forget_zones() -> Response:
    """Back to the zones found automatically."""
    moves = _camera()
    moves.tracker.forget_drawn_zones()
    return jsonify(zones=zone_listing(moves))
