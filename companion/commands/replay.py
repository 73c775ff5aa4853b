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
import sys
from typing import Any

from companion.errors import CompanionError
from companion.games import canonical_name, get_game
from companion.pauses import PAUSE_AT_HELP, PausePress, PauseSchedule, check_presses, parse_presses
from companion.setup_profile import PROFILE_HELP

REPLAYABLE = ("gladiola", "valais")


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
    check_presses(pause_at, game, module.TITLE, len(names))
    pauses = PauseSchedule(pause_at)
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
                    for press in pauses.at_end(frames) if observer is not None else ():  # pressed before the end
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
            if pauses and observer is not None:  # (see companion.pauses for when a press is made)
                for press in pauses.due(frame.index, frame.timestamp, vision.restless()):
                    _press(observer, module, press, frame.index, events)
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
                 progress=not args.json, profile=args.profile, pause_at=parse_presses(args.pause_at))
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


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("replay", help="judge a recorded game (video or image folder) headless")
    p.add_argument("source", help="a video file or a folder of images")
    p.add_argument("--game", required=True, help="gladiola or valais")
    p.add_argument("--players", required=True, help="a count or comma-separated names")
    p.add_argument("--first-player", type=int, default=0, help="seat index of the start player")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--pause-at", metavar="FRAMES", help=PAUSE_AT_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
