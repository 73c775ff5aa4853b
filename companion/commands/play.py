"""``companion play``: watch a live game, judge the moves, serve the dashboard.

The frame loop runs in a thread (frames -> moves -> session -> log; annotated frames -> MJPEG);
the dashboard is served in the main thread on 127.0.0.1 unless ``--host`` says otherwise, in
which case a warning is printed and POSTs need the printed access token. ``--source
simulate:SEED`` replays a simulated game's moves without any camera.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import sys
import threading
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.games import GAME_NAMES, canonical_name, get_game
from companion.pauses import PAUSE_AT_HELP, PauseSchedule, check_presses, parse_presses
from companion.setup_profile import PROFILE_HELP

SIMULATE_PREFIX = "simulate:"


def default_db() -> Path:
    """``$XDG_DATA_HOME/companion/games.sqlite3`` (``~/.local/share`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "companion" / "games.sqlite3"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _int_list(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise CompanionError(f"{what}: expected integers separated by commas, got {text!r}") from None


def live_observer(game: str, players: int, args: argparse.Namespace) -> Any:
    """The observer at the start of a live game, from the setup options."""
    module = get_game(game)
    first = args.first_player
    if game == "gladiola":
        return module.Observer.start(players, first)
    if game == "valais":
        if args.first_card is None:
            raise CompanionError("valais: expected --first-card ID (the card turned up at the start), got none")
        return module.Observer.start(players, first, args.first_card)
    if args.display is None:
        raise CompanionError("appia: expected --display IDS (the 7 income cards laid out), got none")
    return module.Observer.start(players, first, _int_list(args.display, "--display"))


def run(args: argparse.Namespace) -> int:
    from companion.session import (
        FrameHub, Origin, Session, SimulatedMoves, run_loop,
    )
    from companion.simulate import player_names
    from companion.sources import BlankSource, PacedSource, SourceKind, classify, open_source
    from companion.store import GameStore

    game = canonical_name(args.game)
    names = player_names(args.players)
    simulated = args.source.startswith(SIMULATE_PREFIX)
    recorded = not simulated and classify(args.source)[0] in (SourceKind.FILE, SourceKind.FOLDER)
    presses = parse_presses(args.pause_at)
    check_presses(presses, game, get_game(game).TITLE, len(names))
    if presses and not recorded:
        raise CompanionError(f"--pause-at: expected a recorded game (a video file or a folder of images) "
                             f"as --source, got {args.source!r}; at a live table the players press Pause themselves")
    if presses and args.resume is not None:
        raise CompanionError("--pause-at: presses are for a game played from the film's first frame; "
                             "expected --pause-at or --resume, got both")
    db = Path(args.db) if args.db else default_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    store = GameStore(db)
    sim: SimulatedMoves | None = None
    if simulated:
        seed_text = args.source[len(SIMULATE_PREFIX):]
        if not seed_text.lstrip("-").isdigit():
            raise CompanionError(f"--source: expected simulate:SEED with an integer seed, got {args.source!r}")
        sim = SimulatedMoves(game, len(names), int(seed_text), args.pace)
        source: Any = BlankSource()
        moves: Any = sim
        origin = Origin.SIMULATION
    else:
        source = open_source(args.source)
        if recorded and not args.headless:
            source = PacedSource(source)
        origin = Origin.CAMERA

    resume = args.resume
    if resume == "latest" and store.latest_game(game) is None:
        # stopped before the game's start was logged (killed at once): nothing to lose, play begins
        print(f"companion: no {game} game logged in {db} to resume: a new game starts")
        resume = None
    if resume is not None:
        game_id = None if resume == "latest" else _game_id(resume)
        session = Session.resume(store, game_id, game if game_id is None else None)
        if session.game != game:
            raise CompanionError(f"--resume: game {session.game_id} is {session.game}, expected {game}")
        if sim is not None:
            sim.skip(len(session.moves()))
        print(f"companion: resumed game {session.game_id} after {len(session.moves())} moves")
    else:
        observer = sim.observer() if sim is not None else live_observer(game, len(names), args)
        session = Session.new(store, game, names, observer)
        print(f"companion: game {session.game_id} ({session.module.TITLE}) logged in {db}")

    if sim is None:
        from companion.vision_moves import VisionMoves

        from companion.setup_profile import load_setup

        moves = VisionMoves(game, view=session.public_view, setup=load_setup(args.profile, game),
                            revealed=session.revealed_hands, names=session.players)

    hub = FrameHub()
    stop = threading.Event()
    pauses = PauseSchedule(presses) if presses else None

    def report(exc: Exception) -> None:
        print(f"companion: error: {exc}", file=sys.stderr)

    if args.headless:
        try:
            run_loop(session, source, moves, hub, stop, origin, idle=0, on_error=report,
                     stop_when=(sim.done if sim is not None else None), pauses=pauses)
            if sim is not None and game == "gladiola" and session.is_over():
                for seat, hand in enumerate(sim.hands()):
                    if session.view().unrevealed and seat in session.view().unrevealed:
                        session.reveal_hand(seat, hand)
            view = session.view()
            print(f"companion: game {session.game_id}: {view.turn} moves, over: {view.facts.over}, "
                  f"scores: {list(view.facts.scores) if view.facts.scores is not None else 'unknown'}")
        finally:
            source.close()
            store.close()
        return 0

    from werkzeug.serving import make_server

    from companion.dashboard import create_app

    token = None
    if not is_loopback(args.host):
        token = args.token or secrets.token_urlsafe(16)
        print(f"companion: warning: the dashboard listens on {args.host}, reachable from other machines; "
              "changes need the access token in the address below", file=sys.stderr)
    app = create_app(session, {"FRAME_HUB": hub, "ACCESS_TOKEN": token, "PROFILE_DIR": args.profile,
                               "MOVES": moves})
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, SystemExit) as exc:  # werkzeug exits when the port is taken
        source.close()
        store.close()
        raise CompanionError(
            f"--host/--port: expected a free address to listen on, got {args.host}:{args.port} "
            f"(in use or not allowed: {exc})"
        ) from None
    loop = threading.Thread(
        target=run_loop, name="frame-loop", daemon=True,
        kwargs=dict(session=session, source=source, moves=moves, hub=hub, stop=stop, origin=origin,
                    idle=(max(0.02, min(args.pace, 0.2)) if sim is not None else 0.0), on_error=report,
                    pauses=pauses),
    )
    loop.start()
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    address = f"http://{shown_host}:{server.server_port}/" + (f"?token={token}" if token else "")
    print(f"companion: dashboard at {address}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
        loop.join(timeout=5)
        source.close()
        store.close()
    return 0


def _game_id(text: str) -> int:
    if not text.isdigit():
        raise CompanionError(f"--resume: expected a game id or nothing (the latest game), got {text!r}")
    return int(text)


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("play", help="watch a live game and serve the dashboard")
    p.add_argument("--game", required=True, help=f"one of {', '.join(GAME_NAMES)}")
    p.add_argument("--players", required=True, help="comma-separated names (or a count)")
    p.add_argument("--source", required=True,
                   help="camera index (0), video FILE, image DIR, rtsp/http URL, or simulate:SEED")
    p.add_argument("--db", help=f"game log (default {default_db()})")
    p.add_argument("--resume", nargs="?", const="latest", metavar="GAME_ID",
                   help="continue a logged game (default: the latest of --game)")
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--token", help="access token when --host is not loopback (default: a random one)")
    p.add_argument("--first-player", type=int, default=0, help="seat of the first player (from 0)")
    p.add_argument("--first-card", type=int, help="valais: id of the card turned up at the start")
    p.add_argument("--display", help="appia: the 7 income card ids laid out, comma-separated")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--pause-at", metavar="FRAMES", help=PAUSE_AT_HELP)
    p.add_argument("--pace", type=float, default=1.5, help="simulate: seconds between moves")
    p.add_argument("--headless", action="store_true",
                   help="no dashboard: run the frame loop until the source (or simulation) ends")
    p.set_defaults(func=run)
