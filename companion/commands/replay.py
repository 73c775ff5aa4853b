"""``companion replay VIDEO|DIR --game G --players N --json``: judge a recorded game headless.

The same chain as ``companion play`` (frames -> vision -> tracking -> observer), without the
dashboard; prints the event log in the ``simulate`` JSON shape. The observer starts when the
tracker has taken the starting layout: for Valais*Wallis that layout's dated card is the first
card of the timeline. In Via Gladiola the hands shown at the end are read from the camera
(``reveals``: player, card ids, blister total, frame); once every hand is shown the log has the
scores and winners.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.errors import CompanionError
from companion.games import canonical_name, get_game
from companion.setup_profile import PROFILE_HELP

if TYPE_CHECKING:  # the tracker is imported when a replay runs, not for every command's parser
    from vision.types import Quad

REPLAYABLE = ("gladiola", "valais")
PAUSE_HOLD = 1.5
"""Seconds a pause given with ``--pause-at`` waits at most for a card still coming to rest."""


def _still_settling(restless: tuple[Quad, ...], waited: tuple[Quad, ...]) -> bool:
    """Whether a card ``restless`` now lies where one was coming to rest when a pause fell due
    (within half a card's size of it)."""
    from companion.tracking.geometry import card_size

    return any(math.dist(q.centroid, w.centroid) < 0.5 * card_size(w) for q in restless for w in waited)


@dataclass(frozen=True)
class PausePress:
    """The Pause button pressed at video frame ``frame`` by the player in seat ``player`` (each
    player has a button of their own; None: the button of whoever the count says is to play).
    A press by another player than the count's passes the turn to them first."""

    frame: int
    player: int | None = None


def _first_valais_card(module: Any, layout: Any) -> Any:
    dated = [c for c in layout if c.reading.date is not None]
    if len(dated) != 1:
        raise CompanionError(
            f"valais replay: expected exactly one dated card on the table at the start, got {len(dated)}"
        )
    date = dated[0].reading.date
    wanted = module.CardDate(date.year, date.month, date.day)
    catalogue = module.load_catalogue()
    for card in catalogue.cards:
        if card.date == wanted:
            return card.seen()
    raise CompanionError(f"valais replay: the first card shows {date.to_json()}, which no catalogue card has")


def judge(observer: Any, action: Any, frame_index: int | None, events: list[dict[str, Any]]) -> None:
    """Apply a move seen by the camera and log it in ``events``; then the joker steps the
    players take in the hand (turn a card over, keep, give, discard: on the dashboard they
    press them on the pad), each taken as done at once."""
    actions = [action]
    while actions:
        player = observer.current_player
        verdict = observer.apply(actions[0])
        events.append({"turn": len(events) + 1, "player": player, "action": actions[0].to_json(),
                       "verdict": verdict.to_json(), "frame": frame_index})
        actions = getattr(observer, "hand_actions", list)() if verdict.legal else []


def replay(source_spec: str, game: str, names: tuple[str, ...], first_player: int = 0,
           progress: bool = False, profile: str | None = None, pause_at: tuple[PausePress, ...] = ()) -> dict[str, Any]:
    """Run a recorded game through vision and tracking; return the simulate-shaped log.

    ``pause_at``: Via Gladiola presses of the Pause button (a pause happens in a player's hand,
    so at a real table a player presses it; this replays that, once the card played before has
    been judged)."""
    from companion.setup_profile import load_setup
    from companion.sources import SourceKind, SourceState, classify, open_source
    from companion.vision_moves import VisionMoves

    game = canonical_name(game)
    if game not in REPLAYABLE:
        raise CompanionError(f"replay judges {' and '.join(REPLAYABLE)} from the camera; got {game}")
    module = get_game(game)
    if not module.MIN_PLAYERS <= len(names) <= module.MAX_PLAYERS:
        raise CompanionError(f"{module.TITLE} takes {module.MIN_PLAYERS}..{module.MAX_PLAYERS} players, got {len(names)}")
    if not 0 <= first_player < len(names):
        raise CompanionError(f"--first-player: expected 0..{len(names) - 1}, got {first_player}")
    if pause_at and game != "gladiola":
        raise CompanionError(f"--pause-at: pauses are a Via Gladiola move, this game is {module.TITLE}")
    wrong = [p.player for p in pause_at if p.player is not None and not 0 <= p.player < len(names)]
    if wrong:
        raise CompanionError(f"--pause-at: expected seats 0..{len(names) - 1}, got {wrong[0]}")
    pauses = sorted(pause_at, key=lambda p: p.frame)
    due: float | None = None  # when the first pause waiting to be pressed fell due
    waited: tuple[Quad, ...] = ()  # where cards were coming to rest then
    kind, _ = classify(source_spec)
    if kind not in (SourceKind.FILE, SourceKind.FOLDER):
        raise CompanionError(f"replay: expected a video file or a folder of images, got a {kind.value}")
    source = open_source(source_spec)
    observer: Any = module.Observer.start(len(names), first_player) if game == "gladiola" else None
    vision = VisionMoves(game, view=lambda: observer.public_view() if observer is not None else None,
                         setup=load_setup(profile, game),
                         revealed=(lambda: observer.revealed()) if game == "gladiola" else None, names=names)
    events: list[dict[str, Any]] = []
    reveals: list[dict[str, Any]] = []
    refused: list[str] = []
    texts: list[str] = []
    frames = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(unit="frame", desc="replay", file=sys.stderr)
    try:
        while True:
            frame = source.read()
            if frame is None:
                if source.status.state is SourceState.ENDED:
                    while pauses and pauses[0].frame < frames and observer is not None:  # pressed before the end
                        press = pauses.pop(0)
                        _press(observer, module, press, press.frame, events)
                    break
                continue
            frames += 1
            if bar is not None:
                bar.update(1)
            found = vision.moves(frame)
            if observer is None and vision.tracker.started:
                observer = module.Observer.start(len(names), first_player,
                                                 _first_valais_card(module, vision.tracker.start_layout))
            for item in found:
                if observer is None:
                    continue
                judge(observer, item.action, item.frame_index, events)
            for hand in vision.take_reveals():
                if observer is None:
                    continue
                try:
                    observer.reveal_hand(hand.player, hand.cards)
                except CompanionError as exc:
                    message = f"a hand read for player {hand.player + 1} was refused: {exc}"
                    if message not in refused:  # (the same row is read again while it lies there)
                        refused.append(message)
                    continue
                reveals.append(dict(hand.to_json(), frame=frame.index))
            # a player presses Pause once the card played before has been judged: a pause is
            # held while a card that was coming to rest when it fell due still is (at most
            # PAUSE_HOLD seconds), not for the next player's card laid meanwhile (film 124: W46,
            # laid after a pause fell due, judged before it and given to the pauser)
            if pauses and pauses[0].frame <= frame.index and observer is not None:
                restless = vision.tracker.cards.restless(vision.tracker.config.settle_seconds)
                if due is None:
                    due, waited = frame.timestamp, restless
                if not _still_settling(restless, waited) or frame.timestamp - due >= PAUSE_HOLD:
                    while pauses and pauses[0].frame <= frame.index:
                        _press(observer, module, pauses.pop(0), frame.index, events)
                    due = None
    finally:
        source.close()
        if bar is not None:
            bar.close()
    over = observer is not None and observer.is_over()
    scores = winners = None
    if over and game == "valais":
        scores, winners = list(observer.scores()), list(observer.winners())
    if over and game == "gladiola":
        _reveal_empty_hands(observer)
        if all(h is not None for h in observer.revealed()):
            scores, winners = list(observer.scores()), list(observer.winners())
    return {
        "game": game,
        "players": list(names),
        "events": events,
        "scores": scores,
        "winners": winners,
        "frames": frames,
        "over": over,
        "notices": [n.message for n in vision.tracker.notices()] + refused,
        **({"reveals": reveals} if game == "gladiola" else {}),
    }


def _press(observer: Any, module: Any, press: PausePress, frame_index: int, events: list[dict[str, Any]]) -> None:
    """Judge a press of the Pause button; a press by another player than the one the count
    says is to play passes the turn to the presser first."""
    for action in module.pause_by(observer.public_view().current_player, press.player):
        judge(observer, action, frame_index, events)


def _reveal_empty_hands(observer: Any) -> None:
    """A player left without cards shows an empty hand: nothing for the camera to read."""
    counts = observer.public_view().hand_counts
    for player, hand in enumerate(observer.revealed()):
        if hand is None and counts[player] == 0:
            observer.reveal_hand(player, ())


def run(args: argparse.Namespace) -> int:
    from companion.simulate import player_names

    log = replay(args.source, args.game, player_names(args.players), args.first_player,
                 progress=not args.json, profile=args.profile, pause_at=_frame_list(args.pause_at))
    if args.json:
        json.dump(log, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for e in log["events"]:
            who = log["players"][e["player"]] if e["player"] is not None else "-"
            print(f"{e['turn']:4d}  frame {e['frame']:5d}  {who}: {e['action']}  ->  {'; '.join(e['verdict']['messages'])}")
        for r in log.get("reveals", []):
            print(f"      frame {r['frame']:5d}  {log['players'][r['player']]} shows {' '.join(r['cards'])}: "
                  f"{r['blisters']} blisters")
        print(f"{log['frames']} frames, {len(log['events'])} moves, game over: {log['over']}"
              + (f", scores {log['scores']}, winners {log['winners']}" if log["scores"] is not None else ""))
    return 0


def _frame_list(text: str | None) -> tuple[PausePress, ...]:
    """``"28,31:2,400"`` -> presses at frames 28 and 400 (the count's player) and at frame 31 by
    seat 2; CompanionError for anything else."""
    if not text:
        return ()
    presses = []
    for part in text.split(","):
        frame, _, seat = part.strip().partition(":")
        try:
            press = PausePress(int(frame), int(seat) if seat else None)
        except ValueError:
            raise CompanionError(f"--pause-at: expected comma-separated FRAME or FRAME:SEAT, got {text!r}") from None
        if press.frame < 0 or (press.player is not None and press.player < 0):
            raise CompanionError(f"--pause-at: expected frame and seat numbers of 0 or more, got {text!r}")
        presses.append(press)
    return tuple(presses)


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("replay", help="judge a recorded game (video or image folder) headless")
    p.add_argument("source", help="a video file or a folder of images")
    p.add_argument("--game", required=True, help="gladiola or valais")
    p.add_argument("--players", required=True, help="a count or comma-separated names")
    p.add_argument("--first-player", type=int, default=0, help="seat index of the start player")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--pause-at", metavar="FRAMES",
                   help="Via Gladiola: comma-separated frame numbers at which the Pause button is pressed, "
                        "each as FRAME or FRAME:SEAT (the seat index of the player pressing their button)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
