#!/usr/bin/env python3
"""Read the hands shown at the end of rendered Via Gladiola films and compare with the truth.

Usage::

    python scripts/eval_shown_hands.py /tmp/films/g101 /tmp/films/g105 [--offsets 6,14] [--json] [-v]

Each FILM is a path without extension to a film rendered by ``samples.render.video``
(``FILM.mp4`` and ``FILM.truth.json.gz``). For every hand the truth says was shown, the frames
``settle_frame + offset`` are read with :func:`vision.hand.read_hands`, configured with the
deck's blister counts as the live companion does. The row with as many cards as the hand is
compared card by card (laying order): a card is *right* when the deck cards its reading can
name (as the live companion names them, :func:`companion.tracking.reveal._candidates`) include
one of the true card's kind, value and blisters; *abstained* when its reading names none;
*wrong* otherwise. A row is *whole* when every card is right. ``-v`` lists every card not right
and every row not found.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from companion.games import gladiola  # noqa: E402
from companion.tracking.reveal import _candidates  # noqa: E402
from vision.hand import HandConfig, read_hands  # noqa: E402


@dataclass(frozen=True)
class RowScore:
    """Shown rows and their cards, as counted by :func:`score_row` (summed over rows)."""

    rows: int = 0
    found: int = 0
    right: int = 0
    abstained: int = 0
    wrong: int = 0
    whole: int = 0

    def __add__(self, other: RowScore) -> RowScore:
        return RowScore(*(a + b for a, b in zip(asdict(self).values(), asdict(other).values())))


def _same(card: gladiola.Card, truth: dict) -> bool:
    return (card.kind.value == truth["kind"] and card.blisters == truth["blisters"]
            and (truth["kind"] != "walk" or card.value == truth["value"]))


def score_row(cards: list | None, truth: list[dict], deck: gladiola.Deck) -> tuple[RowScore, list[str]]:
    """One shown row: ``cards`` the read row's cards (None: no row of that size found),
    ``truth`` the true cards (``kind``, ``value``, ``blisters``) in laying order. Returns the
    score and a line per card not right."""
    if cards is None:
        return RowScore(rows=1), [f"no row of {len(truth)} cards"]
    right = abstained = wrong = 0
    notes = []
    for k, (card, true) in enumerate(zip(cards, truth)):
        named = _candidates(card, deck)
        seen = f"read {card.kind.value} {card.value} b{card.blisters}"
        if not named:
            abstained += 1
            notes.append(f"card {k} ({true['id']}): abstained, {seen}")
        elif any(_same(c, true) for c in named):
            right += 1
        else:
            wrong += 1
            notes.append(f"card {k} ({true['id']}): WRONG, {seen}")
    return RowScore(1, 1, right, abstained, wrong, int(right == len(truth))), notes


def _frames(video: Path, wanted: set[int]) -> dict[int, object]:
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise SystemExit(f"error: expected a readable video, got {video}")
    frames, index = {}, 0
    try:
        while wanted and index <= max(wanted):
            ok, image = cap.read()
            if not ok:
                break
            if index in wanted:
                frames[index] = image
            index += 1
    finally:
        cap.release()
    return frames


def evaluate(film: Path, offsets: list[int], config: HandConfig, deck: gladiola.Deck,
             verbose: bool = False) -> RowScore:
    truth_file = film.with_name(film.name + ".truth.json.gz")
    try:
        truth = json.load(gzip.open(truth_file))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: expected a film's truth file {truth_file}: {exc}") from None
    reveals = truth.get("reveals", [])
    frames = _frames(film.with_name(film.name + ".mp4"),
                     {r["settle_frame"] + o for r in reveals for o in offsets})
    total = RowScore()
    for reveal in reveals:
        true_cards = [dict(truth["cards"][cid], id=cid) for cid in reveal["cards"]]
        for offset in offsets:
            index = reveal["settle_frame"] + offset
            image = frames.get(index)
            rows = [] if image is None else [h for h in read_hands(image, config) if h.count == len(true_cards)]
            score, notes = score_row(list(rows[-1].cards) if rows else None, true_cards, deck)
            total += score
            if verbose:
                for note in notes:
                    print(f"{film.name} player {reveal['player']} frame {index}: {note}", file=sys.stderr)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("films", nargs="+", type=Path, help="film paths without extension")
    parser.add_argument("--offsets", default="6,14", help="frames after each row settles to read (default 6,14)")
    parser.add_argument("--json", action="store_true", help="print per film and total as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every card not right")
    args = parser.parse_args(argv)
    offsets = [int(x) for x in args.offsets.split(",")]
    deck = gladiola.load_deck()
    walks = tuple(sorted((c.value, c.blisters) for c in deck.cards
                         if c.kind is gladiola.CardKind.WALK and c.value is not None))
    finishes = frozenset(c.blisters for c in deck.cards if c.kind is gladiola.CardKind.FINISH)
    config = HandConfig(walk_blisters=walks, finish_blisters=finishes)
    results, total = {}, RowScore()
    for k, film in enumerate(args.films, 1):
        score = evaluate(film, offsets, config, deck, args.verbose)
        results[film.name] = score
        total += score
        if not args.json:
            print(f"[{k}/{len(args.films)}] {film.name}: {asdict(score)}", flush=True)
    if args.json:
        print(json.dumps({"films": {n: asdict(s) for n, s in results.items()}, "total": asdict(total)}, indent=2))
    else:
        print(f"total: {asdict(total)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
