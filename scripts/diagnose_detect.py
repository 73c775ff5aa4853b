#!/usr/bin/env python3
"""Why cards count as missed or as false positives in ``companion eval`` (detection only).

Usage::

    python scripts/diagnose_detect.py SET [SET ...] [--dump DIR] [--min-visible 0.5] [--limit N]

Each SET is a rendered set (``companion samples set``). Every image is run through
:func:`vision.detect.detect_cards` (the quads ``companion eval`` scores; the reader never moves
them) and matched to the truth exactly as ``companion eval`` does (quad IoU >= MATCH_IOU,
greedy, truth quads are whole cards even where covered or outside the image).

Every miss of a required card is put in one class:

* ``piece``: a detection lies mostly inside the card but covers only part of it (the visible
  piece of a covered card);
* ``edge``: like ``piece``, for a card that runs out of the image (the detection stops at the
  border);
* ``merged``: a detection covers this card and a good part of another card (a pile, a fan,
  touching cards seen as one);
* ``taken``: the nearest detection is matched to another card (it overlaps this one a little);
* ``offset``: some other overlap with IoU below the threshold (a wrong outline);
* ``nothing``: no detection overlaps the card by 10% of its area.

Every unmatched detection (false positive) is put in one class: ``on-missed`` (it overlaps a
missed required card: the same event as that miss, counted twice by the score), ``on-hidden``
(it overlaps a card that is not required), ``duplicate`` (it overlaps a found card), ``nothing``.

The table is printed overall, per game, per visible-fraction bucket, per layout, per blur and
per hands condition. ``--dump DIR`` writes each image with a miss or false positive: truth in
green (thin when not required), detections in red (thin when flagged not fully visible), misses
labelled with their class.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.evaluation import MATCH_IOU, greedy_match, quad_iou  # noqa: E402
from vision.detect import DetectConfig, config_with, detect_cards  # noqa: E402

MISS_CLASSES = ("piece", "edge", "merged", "taken", "offset", "nothing")
FP_CLASSES = ("on-missed", "on-hidden", "duplicate", "nothing")


def _area(quad: np.ndarray) -> float:
    return float(cv2.contourArea(cv2.convexHull(quad.astype(np.float32))))


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    a = cv2.convexHull(a.astype(np.float32)).reshape(-1, 2)
    b = cv2.convexHull(b.astype(np.float32)).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(max(inter, 0.0))


def _in_view(quad: np.ndarray, width: int, height: int) -> float:
    """Share of the quad's area inside the image."""
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    return _overlap(quad, frame) / max(_area(quad), 1e-6)


def _vis_bucket(v: float) -> str:
    return "0.5-0.7" if v < 0.7 else "0.7-0.9" if v < 0.9 else "0.9-0.97" if v < 0.97 else ">=0.97"


def classify_frame(truth: dict, dets: list[np.ndarray], min_visible: float) -> tuple[list[dict], list[dict]]:
    """Misses and false positives of one frame, each a dict with its class."""
    cards = truth["cards"]
    w, h = truth["image"]["width"], truth["image"]["height"]
    tq = [np.array(c["corners"], np.float64) for c in cards]
    scores = np.zeros((len(cards), len(dets)))
    for i, t in enumerate(tq):
        for j, d in enumerate(dets):
            scores[i, j] = quad_iou(t, d)
    pairs = dict(greedy_match(scores, MATCH_IOU))
    matched = set(pairs.values())
    required = [i for i, c in enumerate(cards) if c["kind"] != "tile" and c["visible_fraction"] >= min_visible]
    missed = [i for i in required if i not in pairs]
    misses = []
    for i in missed:
        t = tq[i]
        t_area = _area(t)
        best, best_j = 0.0, -1
        for j, d in enumerate(dets):
            cover = _overlap(t, d) / t_area
            if cover > best:
                best, best_j = cover, j
        kind = "nothing"
        if best >= 0.1:
            d = dets[best_j]
            d_area = _area(d)
            inside = _overlap(t, d) / max(d_area, 1e-6)
            others = [k for k in range(len(cards)) if k != i and cards[k]["kind"] != "tile"
                      and _overlap(tq[k], d) > 0.3 * min(d_area, _area(tq[k]))
                      and _overlap(tq[k], d) > 0.25 * _area(tq[k])]
            if best_j in matched:
                kind = "taken"
            elif inside >= 0.8 and d_area < 0.8 * t_area:
                kind = "edge" if _in_view(t, w, h) < 0.97 else "piece"
            elif others and d_area > 0.8 * t_area:
                kind = "merged"
            else:
                kind = "offset"
        misses.append({"card": i, "class": kind, "cover": round(best, 3),
                       "iou": round(float(scores[i].max()) if len(dets) else 0.0, 3),
                       "visible": cards[i]["visible_fraction"]})
    fps = []
    for j, d in enumerate(dets):
        if j in matched:
            continue
        d_area = _area(d)
        hit = [i for i in range(len(cards)) if _overlap(tq[i], d) > 0.3 * d_area]
        if any(i in missed for i in hit):
            kind = "on-missed"
        elif any(i in pairs and i in required for i in hit):
            kind = "duplicate"
        elif hit:
            kind = "on-hidden"
        else:
            kind = "nothing"
        fps.append({"det": j, "class": kind})
    return misses, fps


def _draw(image: np.ndarray, truth: dict, dets, flags, misses, min_visible: float) -> np.ndarray:
    out = image.copy()
    for c in truth["cards"]:
        q = np.round(np.array(c["corners"])).astype(np.int32)
        thick = 2 if c["visible_fraction"] >= min_visible and c["kind"] != "tile" else 1
        cv2.polylines(out, [q], True, (0, 200, 0), thick, cv2.LINE_AA)
    for d, visible in zip(dets, flags):
        cv2.polylines(out, [np.round(d).astype(np.int32)], True, (0, 0, 255), 2 if visible else 1, cv2.LINE_AA)
    for m in misses:
        c = np.array(truth["cards"][m["card"]]["corners"]).mean(axis=0)
        cv2.putText(out, m["class"], (int(c[0]) - 20, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 0), 1,
                    cv2.LINE_AA)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--min-visible", type=float, default=0.5)
    ap.add_argument("--limit", type=int, default=0, help="images per set (0: all)")
    ap.add_argument("--set", dest="assign", action="append", default=[], help="DetectConfig FIELD=NUMBER")
    ap.add_argument("--json", action="store_true", help="also print every miss and false positive as JSON lines")
    args = ap.parse_args(argv)
    config = config_with(DetectConfig(), args.assign)
    groups: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    for folder in args.sets:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        scenes = index["scenes"][: args.limit or None]
        for entry in scenes:
            truth = json.loads((folder / entry["truth"]).read_text(encoding="utf-8"))
            image = cv2.imread(str(folder / entry["image"]), cv2.IMREAD_COLOR)
            found = detect_cards(image, config)
            dets = [d.quad.as_array() for d in found]
            misses, fps = classify_frame(truth, dets, args.min_visible)
            cond = truth["conditions"]
            frame_keys = {"all": "all", "game": index["game"], "layout": cond.get("layout", "?"),
                          "blur": cond.get("blur", "?"), "hands": str(cond.get("hands", "?"))}
            for i, c in enumerate(truth["cards"]):
                if c["kind"] == "tile" or c["visible_fraction"] < args.min_visible:
                    continue
                keys = dict(frame_keys, visible=_vis_bucket(c["visible_fraction"]))
                for name, value in keys.items():
                    groups[name][value]["required"] += 1
            for m in misses:
                keys = dict(frame_keys, visible=_vis_bucket(m["visible"]))
                for name, value in keys.items():
                    groups[name][value]["miss:" + m["class"]] += 1
            for f in fps:
                for name, value in frame_keys.items():
                    groups[name][value]["fp:" + f["class"]] += 1
            if args.json:
                for m in misses + fps:
                    print(json.dumps({"set": str(folder), "file": entry["image"], **m}))
            if args.dump and (misses or fps):
                pic = _draw(image, truth, dets, [d.visible for d in found], misses, args.min_visible)
                cv2.imwrite(str(args.dump / f"{folder.name}_{Path(entry['image']).stem}.png"), pic)
    head = ["required", "missed"] + list(MISS_CLASSES) + ["fp"] + list(FP_CLASSES)
    print(f"{'group':<24}" + "".join(f"{h:>10}" for h in head))
    for name in ("all", "game", "visible", "layout", "blur", "hands"):
        for value, row in sorted(groups[name].items()):
            missed = sum(row["miss:" + k] for k in MISS_CLASSES)
            fp = sum(row["fp:" + k] for k in FP_CLASSES)
            cells = [row["required"], missed] + [row["miss:" + k] for k in MISS_CLASSES] + [fp]
            cells += [row["fp:" + k] for k in FP_CLASSES]
            print(f"{(name + '=' + value)[:24]:<24}" + "".join(f"{c:>10}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
