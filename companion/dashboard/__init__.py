"""The live dashboard: a Flask app factory with three blueprints.

``create_app(session=None, test_config=None)`` builds the app around a running
:class:`~companion.session.Session` (None: a page that says no game is running). The
``live`` blueprint serves the page, the MJPEG camera stream, server-sent state events and a JSON
state; the ``api`` blueprint takes the state-changing POSTs (pause, undo, correct, reveal, score
pad); the ``calibrate`` blueprint runs the table, lens and deck calibration on the camera frame.
:mod:`companion.dashboard.security` adds the headers and the request checks.

Config keys: ``SESSION``, ``FRAME_HUB`` (a :class:`~companion.session.FrameHub`),
``ACCESS_TOKEN`` (None on loopback; required for POSTs otherwise), ``CSRF_TOKEN`` (random per
app), ``SSE_HEARTBEAT`` and ``STREAM_WAIT`` (seconds), ``PROFILE_DIR`` (the calibration profile
the ``calibrate`` blueprint writes; None: the default directory), ``MOVES`` (the camera's move
source, :class:`~companion.vision_moves.VisionMoves`, which keeps the table's zones; None or a
simulation: no zones to draw).
"""

from __future__ import annotations

import secrets
from typing import Any, Mapping

from flask import Flask

from companion.session import FrameHub, Session


def create_app(session: Session | None = None, test_config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        SESSION=session,
        FRAME_HUB=FrameHub(),
        ACCESS_TOKEN=None,
        CSRF_TOKEN=secrets.token_urlsafe(24),
        SSE_HEARTBEAT=15.0,
        STREAM_WAIT=1.0,
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
        PROFILE_DIR=None,
        MOVES=None,
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.debug = False  # never debug mode, whatever the environment says

    from companion.dashboard import api, calibrate, live, security

    security.init_app(app)
    app.register_blueprint(live.bp)
    app.register_blueprint(api.bp)
    calibrate.init_app(app)
    return app
