"""Fixtures in the style of the Flask tutorial: an app around a fresh session, a test client."""

from __future__ import annotations

import pytest

from companion.dashboard import create_app
from companion.session import SimulatedMoves, Session
from companion.store import GameStore

CSRF = "test-csrf-token"


@pytest.fixture
def store(tmp_path):
    with GameStore(tmp_path / "log.sqlite3") as s:
        yield s


@pytest.fixture
def make_app(store):
    """``make_app(game, **config)``: an app around a new session of ``game`` (seed 1, 3 players)."""

    def build(game: str = "gladiola", players: int = 3, **config):
        sim = SimulatedMoves(game, players, 1, pace=0)
        session = Session.new(store, game, ("Ann", "Ben", "Cy")[:players], sim.observer())
        app = create_app(session, {"TESTING": True, "CSRF_TOKEN": CSRF, "SSE_HEARTBEAT": 0.05,
                                   "STREAM_WAIT": 0.05, **config})
        app.config["SIM"] = sim
        return app

    return build


@pytest.fixture
def app(make_app):
    return make_app("gladiola")


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def post(client):
    """POST JSON the way the page does (CSRF header, same origin)."""

    def send(path, body=None, headers=None, **kw):
        h = {"X-CSRF-Token": CSRF, "Origin": "http://localhost", **(headers or {})}
        return client.post(path, json=body, headers=h, **kw)

    return send


class NoCards:
    """A card reader that finds nothing (the zones need a camera image, not cards)."""

    def read_frame(self, image):
        from vision.types import FrameResult

        return FrameResult(image.shape[1], image.shape[0], ())


def camera_moves(game: str = "gladiola", width: int = 640, height: int = 360):
    """The camera's move source after one blank frame of ``width`` x ``height``."""
    import numpy as np

    from companion.sources import Frame
    from companion.vision_moves import VisionMoves

    moves = VisionMoves(game, reader=NoCards())
    moves.moves(Frame(0, 0.0, np.zeros((height, width, 3), np.uint8)))
    return moves
