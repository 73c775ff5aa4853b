"""``companion read``, ``companion score`` and ``companion timeline``: read one photo.

The JSON contract (DESIGN.md) is kept exactly: ``read`` prints
``{"image": {"width", "height"}, "cards": [CARD...]}``; ``score`` adds ``"blisters"`` (the
total, or null when any Via Gladiola card's blisters could not be read) and ``"count"``;
``timeline`` orders the date-side cards along the row and adds ``"in_order"`` and
``"misplaced"`` (indices into its ``cards``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.errors import CompanionError
from companion.games import GAME_NAMES, canonical_name
from companion.setup_profile import PROFILE_HELP

GLADIOLA_KINDS = ("walk", "finish", "start", "gladiola")


def read_image(path: str, game: str | None, profile: str | None = None):
    """Load ``path`` and read every card in it (undistorted first when the profile knows the
    lens; corners stay in the photo's pixels); bad input raises a VisionError."""
    from companion.setup_profile import load_setup
    from vision.io import load_image
    from vision.pipeline import CardReader, PipelineConfig
    from vision.read.types import Deck

    setup = load_setup(profile, game)
    image = load_image(path)
    reader = CardReader(PipelineConfig(deck=Deck.for_game(game), known_cards=setup.known_cards, fans=True,
                                        deblur=True))
    return setup.to_raw(reader.read_frame(setup.prepare(image)))


def score_json(frame_json: dict[str, Any]) -> dict[str, Any]:
    """Add the blister total and card count of the Via Gladiola cards to a ``read`` result."""
    cards = [c for c in frame_json["cards"] if c["kind"] in GLADIOLA_KINDS]
    unread = [c for c in frame_json["cards"] if c["kind"] == "unknown" or c["blisters"] is None]
    total = None if unread else sum(int(c["blisters"]) for c in cards)
    return {**frame_json, "blisters": total, "count": len(frame_json["cards"]), "unread": len(unread)}


def timeline_json(result) -> dict[str, Any]:
    """Order the date-side cards of a FrameResult along the row and judge the order."""
    from vision.timeline import check_timeline

    observations = result.observations
    checked = check_timeline(observations)
    position = {index: k for k, index in enumerate(checked.order)}
    return {
        "image": {"width": result.width, "height": result.height},
        "cards": [observations[i].to_json() for i in checked.order],
        "in_order": checked.in_order,
        "misplaced": [position[i] for i in checked.misplaced],
        "undated": len(observations) - len(checked.order),
    }


def _game(args: argparse.Namespace) -> str | None:
    return canonical_name(args.game) if getattr(args, "game", None) else None


def _emit(data: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        json.dump(data, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(text)


def _describe(card: dict[str, Any]) -> str:
    parts = [card["kind"]]
    for key in ("value", "date", "stones", "sesterces", "size"):
        if card.get(key) is not None:
            parts.append(f"{key} {card[key]}")
    if card.get("blisters") is not None:
        parts.append(f"{card['blisters']} blisters")
    return ", ".join(parts) + f" (confidence {card['confidence']:.2f})"


def run_read(args: argparse.Namespace) -> int:
    data = read_image(args.image, _game(args), args.profile).to_json()
    lines = [f"{len(data['cards'])} cards in {data['image']['width']}x{data['image']['height']}"]
    lines += [f"  {i + 1}. {_describe(c)}" for i, c in enumerate(data["cards"])]
    _emit(data, args.json, "\n".join(lines))
    return 0


def run_score(args: argparse.Namespace) -> int:
    if canonical_name(args.game) != "gladiola":
        raise CompanionError(f"score counts Via Gladiola blisters: expected --game gladiola, got {args.game!r}")
    data = score_json(read_image(args.image, "gladiola", args.profile).to_json())
    if data["blisters"] is None:
        text = f"{data['count']} cards, {data['unread']} could not be read: no sure total"
    else:
        text = f"{data['count']} cards, {data['blisters']} blisters"
    _emit(data, args.json, text)
    return 0


def run_timeline(args: argparse.Namespace) -> int:
    years = None
    if args.catalogue:
        from companion.games.valais import load_catalogue

        catalogue = load_catalogue(args.catalogue)
        years = sorted({card.date.year for card in catalogue.cards})
    result = read_image(args.image, "valais", args.profile)
    data = timeline_json(result)
    if years is not None:
        data["unknown_years"] = [
            k for k, c in enumerate(data["cards"]) if c["date"] and int(c["date"][:4]) not in years
        ]
    dates = " < ".join(str(c["date"]) for c in data["cards"]) or "no dated cards"
    verdict = "in order" if data["in_order"] else f"out of place: {[k + 1 for k in data['misplaced']]}"
    _emit(data, args.json, f"{dates}\n{verdict}")
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("read", help="find and read every card in a photo")
    p.add_argument("image")
    p.add_argument("--game", choices=GAME_NAMES, help="restrict to the cards of one game")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_read)

    p = sub.add_parser("score", help="total the Via Gladiola blisters of the hand in a photo")
    p.add_argument("image")
    p.add_argument("--game", required=True, help="gladiola")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_score)

    p = sub.add_parser("timeline", help="order a Valais*Wallis row by its dates and judge it")
    p.add_argument("image")
    p.add_argument("--catalogue", help="catalogue CSV: flag years no card of the deck has")
    p.add_argument("--profile", help=PROFILE_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_timeline)
