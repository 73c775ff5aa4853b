"""``companion eval DIR --json``: accuracy of the vision pipeline against ground truth."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.errors import CompanionError


def run(args: argparse.Namespace) -> int:
    from companion import evaluation as ev

    folder = Path(args.dir)
    if not folder.is_dir():
        raise CompanionError(f"eval: expected a folder (a rendered set or Pascal-VOC photos), got {args.dir!r}")
    if (folder / "index.json").exists():
        from vision.pipeline import CardReader, PipelineConfig
        from vision.read.types import Deck

        readers: dict[str, CardReader] = {}

        def read(image, game):
            # (still photos: the covered cards of spread hands are looked for and motion blur is
            # taken out where it left a card unread, as ``read`` does)
            reader = readers.setdefault(game, CardReader(PipelineConfig(deck=Deck.for_game(game), fans=True,
                                                                        deblur=True)))
            reader.reset()  # every image is a new scene: no reading may come from another
            return reader.read_frame(image).to_json()

        result = ev.evaluate_rendered(folder, read, args.min_visible, progress=not args.json).to_json()
        matrix = Path(args.confusion or folder / "confusion.png")
        ev.confusion_png(ev.Counter({tuple(k.split("->")): n for k, n in result["confusion"].items()}), matrix)
        result["confusion_png"] = str(matrix)
    else:
        from vision.detect import detect_cards

        def detect(image):
            return [d.quad.as_array() for d in detect_cards(image)]

        result = ev.evaluate_voc(folder, detect)
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        det = result["detection"]
        print(f"{result.get('frames', result.get('images'))} images, {result['cards']} cards: "
              f"recall {det['recall']}, precision {det['precision']}")
        for name, f in result.get("fields", {}).items():
            print(f"  {name:<10} accuracy {f['accuracy']}  abstained {f['abstained']}  confident wrong {f['confident_wrong']}")
        if "frames_exact" in result:
            print(f"  frames with every card right: {result['frames_exact']}; confident wrong overall: {result['confident_wrong']}")
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("eval", help="measure reading accuracy on a rendered set or labelled photos")
    p.add_argument("dir", help="a rendered set (index.json) or a folder of photos with Pascal-VOC XML")
    p.add_argument("--min-visible", type=float, default=0.5,
                   help="cards less visible than this are not required (default 0.5)")
    p.add_argument("--confusion", help="where to write the kind confusion matrix PNG")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)
