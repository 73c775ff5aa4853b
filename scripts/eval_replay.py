#!/usr/bin/env python3
"""Compare a replay's event log with the ground-truth log of the game that was filmed.

Usage::

    companion replay samples/videos/valais.mp4 --game valais --players 2 --json > /tmp/replay.json
    python scripts/eval_replay.py /tmp/replay.json samples/videos/valais.log.json \
        [--frames samples/videos/valais.truth.json.gz] [--json]
    python scripts/eval_replay.py - samples/videos/gladiola.log.json \
        --frames samples/videos/gladiola.truth.json.gz --print-pauses   # for replay --pause-at

Both files have the ``simulate`` JSON shape (``{"game", "players", "events": [{"turn",
"player", "action", "verdict"}]}``). Only moves a camera can see are compared: actions other
than ``pause`` (a Via Gladiola pause happens in a player's hand and is entered with the Pause
button). The two sequences of seen actions are aligned in order (longest matching blocks, as
``difflib`` does), so a missed move costs one move, not everything after it.

Reported: truth moves, moves found, matched, missed, phantom (found but not in the truth), and
for the matched ones how many verdicts agree (same legality and the same number of cards to
draw) and how many are attributed to the same player. With ``--frames`` (the video's per-frame
truth, which holds the frame where each filmed move's card came to rest) also the latency from
that frame to the frame where the replay announced the move, for the matched moves.

Via Gladiola's end: with ``--frames`` the hands shown on camera (the replay's ``reveals``) are
compared with the truth's ``reveals``: per player the blister total read and the true one (a
hand not read counts as not revealed, never as right), and the final scores and winners with
the ones the true hands give.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import gzip
import json
import statistics
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HIDDEN_ACTIONS = frozenset({"pause", "remove", "table-walk", "reveal-own", "reveal-seen", "keep", "give",
                            "discard-own", "missed-wrong", "missed-draw", "turn-to", "recount", "relabel"})
"""Not compared: a pause and the Valais*Wallis joker steps (a 1815's card turned over, a 1865's
or 1965's keep, give and discard) happen in a hand, and the rendered films show none of them;
``remove`` is the camera's record of a wrong card taken off the row, ``table-walk`` the companion accepting a refused card the players built on (the walk itself was compared when
it was laid), ``missed-wrong``/``missed-draw`` corrections for moves the camera missed and
``turn-to`` the turn passed to the player whose arm laid the next card, ``recount`` a shown
hand's number of cards taken from the table, ``relabel`` a FINISH or gladiola on the table given
a twin's id because a shown hand holds the id it was logged under;
the game's own log lists none of these."""


@dataclass(frozen=True)
class ReplayScore:
    """How a replayed log compares with the truth (counts of seen moves)."""

    truth_moves: int
    found_moves: int
    matched: int
    missed: int
    phantom: int
    verdicts_equal: int
    players_equal: int
    cards_equal: int
    """Matched moves naming the same card id (Via Gladiola, whose FINISH and gladiola cards
    match by kind; a Valais*Wallis move seen names a date, never a card id)."""
    positions_equal: int
    """Matched Valais*Wallis placements at the same row position (0 for other games)."""
    missed_actions: tuple[str, ...]
    phantom_actions: tuple[str, ...]
    latency_frames: tuple[int, ...] = ()
    """Per matched move with a known rest frame: announce frame minus rest frame."""
    fps: float | None = None
    hands: tuple["HandScore", ...] = ()
    """Via Gladiola with ``--frames``: per player who showed a hand in the film."""
    # final scores and winners of both logs (None where a log has none)
    scores_true: tuple[int, ...] | None = None
    scores_found: tuple[int, ...] | None = None
    winners_true: tuple[int, ...] | None = None
    winners_found: tuple[int, ...] | None = None


@dataclass(frozen=True)
class HandScore:
    """One player's shown hand: the blister total in the truth and as revealed by the replay
    (None when the replay named no hand for the player)."""

    player: int
    cards: int
    blisters_true: int
    blisters_found: int | None
    same_cards: bool
    """The replay named the same walk cards and the same kinds and counts of the others."""

    @property
    def right(self) -> bool:
        return self.blisters_found == self.blisters_true


def _seen(events: list[dict]) -> list[dict]:
    return [e for e in events if e["action"].get("type") not in HIDDEN_ACTIONS]


def _key(event: dict) -> str:
    """What identifies a move on camera. Valais*Wallis: the camera sees a date side, not a card
    id, so a ``place`` (card id) and a ``place-seen`` (date) compare by the year seen; the row
    position is counted apart (``positions_equal``), since after one missed card every later
    position differs by one while the verdicts, judged on the neighbours, can still agree."""
    action = event["action"]
    if action.get("type") == "place":
        card = _valais_catalogue().card(int(action["card"]))
        seen = str(card.joker.value) if card.joker is not None else str(card.date.year)
        return json.dumps({"type": "place", "seen": seen}, sort_keys=True)
    if action.get("type") == "place-seen":
        card = action["card"]
        seen = str(card["joker"]) if card.get("joker") else str(card["date"])[:4]
        return json.dumps({"type": "place", "seen": seen}, sort_keys=True)
    if action.get("type") in ("walk", "gladiola"):
        kind = _gladiola_kinds().get(action.get("card"))
        if kind in ("finish", "gladiola"):
            # These cards differ only in their blisters, which the camera often cannot count on
            # the pile: a move compares by the kind of card; ``cards_equal`` counts the ids.
            return json.dumps({"type": action["type"], "card": kind}, sort_keys=True)
    return json.dumps(action, sort_keys=True)


@functools.lru_cache(maxsize=1)
def _gladiola_kinds() -> dict[str, str]:
    """Card id -> kind of every card of the Via Gladiola deck."""
    from companion.games.gladiola import load_deck

    return {card.id: card.kind.value for card in load_deck().cards}


@functools.lru_cache(maxsize=1)
def _valais_catalogue():
    from companion.games.valais import load_catalogue

    return load_catalogue()


def _verdict(event: dict) -> tuple[bool, int]:
    v = event["verdict"]
    return bool(v["legal"]), int(v.get("draws", 0))


def _card_key(card_id: str) -> str:
    """A walk card by its id, FINISH and gladiola cards by kind and blister count (the camera
    tells them apart by nothing else)."""
    kind = _gladiola_kinds().get(card_id)
    if kind in ("finish", "gladiola"):
        return f"{kind}/{_gladiola_blisters()[card_id]}"
    return card_id


@functools.lru_cache(maxsize=1)
def _gladiola_blisters() -> dict[str, int]:
    from companion.games.gladiola import load_deck

    return {card.id: card.blisters for card in load_deck().cards}


def compare_hands(found: dict, truth: dict, frames: dict) -> tuple[HandScore, ...]:
    """Per player who showed a hand in the film: the truth's hand against the replay's ``reveals``."""
    blisters = _gladiola_blisters()
    got = {int(r["player"]): r for r in found.get("reveals", [])}
    out = []
    for shown in frames.get("reveals", []):
        player, cards = int(shown["player"]), list(shown["cards"])
        mine = got.get(player)
        out.append(HandScore(
            player=player, cards=len(cards), blisters_true=sum(blisters[c] for c in cards),
            blisters_found=int(mine["blisters"]) if mine is not None else None,
            same_cards=mine is not None and sorted(map(_card_key, mine["cards"])) == sorted(map(_card_key, cards))))
    return tuple(out)


def _tuple(values: list | None) -> tuple[int, ...] | None:
    return tuple(int(v) for v in values) if values is not None else None


def compare(found: dict, truth: dict, frames: dict | None = None) -> ReplayScore:
    """Align the seen moves of ``found`` with those of ``truth`` and count the differences;
    ``frames`` (a video's per-frame truth) adds the latency of each matched move."""
    if found.get("game") != truth.get("game"):
        raise ValueError(f"expected logs of the same game, got {found.get('game')!r} and {truth.get('game')!r}")
    got, want = _seen(found["events"]), _seen(truth["events"])
    matcher = difflib.SequenceMatcher(a=[_key(e) for e in got], b=[_key(e) for e in want], autojunk=False)
    pairs = [(i, j) for block in matcher.get_matching_blocks() for i, j in
             zip(range(block.a, block.a + block.size), range(block.b, block.b + block.size))]
    used_got = {i for i, _ in pairs}
    used_want = {j for _, j in pairs}
    latency: list[int] = []
    if frames is not None:
        settle = {e["turn"]: e.get("settle_frame") for e in frames["events"]}
        for i, j in sorted(pairs):
            rest = settle.get(want[j]["turn"])
            if rest is not None and "frame" in got[i]:
                latency.append(int(got[i]["frame"]) - int(rest))
    hands: tuple[HandScore, ...] = ()
    if frames is not None and found.get("game") == "gladiola" and frames.get("reveals"):
        hands = compare_hands(found, truth, frames)
    return ReplayScore(
        hands=hands, scores_true=_tuple(truth.get("scores")), scores_found=_tuple(found.get("scores")),
        winners_true=_tuple(truth.get("winners")), winners_found=_tuple(found.get("winners")),
        latency_frames=tuple(latency),
        fps=float(frames["video"]["fps"]) if frames is not None else None,
        truth_moves=len(want),
        found_moves=len(got),
        matched=len(pairs),
        missed=len(want) - len(pairs),
        phantom=len(got) - len(pairs),
        verdicts_equal=sum(_verdict(got[i]) == _verdict(want[j]) for i, j in pairs),
        players_equal=sum(got[i]["player"] == want[j]["player"] for i, j in pairs),
        cards_equal=sum(got[i]["action"].get("card") == want[j]["action"].get("card") for i, j in pairs),
        positions_equal=sum("position" in want[j]["action"]
                            and got[i]["action"].get("position") == want[j]["action"]["position"] for i, j in pairs),
        missed_actions=tuple(_key(e) for j, e in enumerate(want) if j not in used_want),
        phantom_actions=tuple(_key(e) for i, e in enumerate(got) if i not in used_got),
    )


def pause_presses(truth: dict, frames: dict) -> tuple[tuple[int, int], ...]:
    """(frame, seat) of each of the truth's pauses: the first frame of its turn in the video
    truth and the player who paused, as the pauser pressing their own Pause button."""
    first = {e["turn"]: e.get("first_frame") for e in frames["events"]}
    return tuple((int(first[e["turn"]]), int(e["player"])) for e in truth["events"]
                 if e["action"].get("type") == "pause" and first.get(e["turn"]) is not None)


def pause_frames(truth: dict, frames: dict) -> tuple[int, ...]:
    """The frames at which the truth's pauses happened (see :func:`pause_presses`)."""
    return tuple(frame for frame, _ in pause_presses(truth, frames))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("replay", help="the replay's JSON output (not read with --print-pauses; give -)")
    parser.add_argument("truth", help="the ground-truth log (e.g. samples/videos/valais.log.json)")
    parser.add_argument("--frames", help="the video's per-frame truth (e.g. samples/videos/valais.truth.json.gz)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--print-pauses", action="store_true",
                        help="only print the truth's pauses as FRAME:SEAT (needs --frames), for replay --pause-at")
    args = parser.parse_args(argv)
    try:
        truth = json.loads(Path(args.truth).read_text())
        frames = json.loads(gzip.decompress(Path(args.frames).read_bytes())) if args.frames else None
        if args.print_pauses:
            if frames is None:
                raise ValueError("--print-pauses needs --frames")
            print(",".join(f"{frame}:{seat}" for frame, seat in pause_presses(truth, frames)))
            return 0
        found = json.loads(Path(args.replay).read_text())
        score = compare(found, truth, frames)
    except (OSError, ValueError, KeyError, TypeError, EOFError, gzip.BadGzipFile) as exc:
        print(f"eval_replay: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(asdict(score), indent=2))
        return 0
    print(f"truth moves {score.truth_moves}, found {score.found_moves}: matched {score.matched}, "
          f"missed {score.missed}, phantom {score.phantom}")
    same = {"gladiola": f", same card {score.cards_equal}",
            "valais": f", same row position {score.positions_equal}"}.get(str(found.get("game")), "")
    print(f"of the matched: verdict equal {score.verdicts_equal}, player equal {score.players_equal}{same}")
    if score.latency_frames and score.fps:
        median, worst = statistics.median(score.latency_frames), max(score.latency_frames)
        print(f"latency from rest to verdict ({len(score.latency_frames)} moves): median {median} frames = "
              f"{median / score.fps:.2f} s, max {worst} frames = {worst / score.fps:.2f} s at {score.fps:g} fps")
    if score.hands:
        right = sum(h.right for h in score.hands)
        named = sum(h.blisters_found is not None for h in score.hands)
        print(f"shown hands: {len(score.hands)}, revealed {named}, blister total right {right}")
        for h in score.hands:
            got = "not revealed" if h.blisters_found is None else f"{h.blisters_found}"
            print(f"  player {h.player}: {h.cards} cards, blisters true {h.blisters_true}, read {got}"
                  + (" (same cards)" if h.same_cards else ""))
        print(f"scores true {list(score.scores_true or [])}, found {score.scores_found and list(score.scores_found)}; "
              f"winners true {list(score.winners_true or [])}, found {score.winners_found and list(score.winners_found)}")
    for action in score.missed_actions:
        print(f"  missed  {action}")
    for action in score.phantom_actions:
        print(f"  phantom {action}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
