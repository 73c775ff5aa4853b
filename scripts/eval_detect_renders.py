#!/usr/bin/env python3
"""Measure the card detector on rendered game scenes with exact ground truth.

Usage::

    python scripts/eval_detect_renders.py --seed 1000 --cards 1000 [--games gladiola valais appia]
                                          [--out DIR] [--iou 0.7] [--min-visible 0.5] [--speed 40]
                                          [--classical | --fuse] [--model PATH]

The learned segmenter path is measured unless ``--classical`` is given (``--fuse`` combines it with
the classical path on every frame, ``--model`` takes another ONNX file); ``--speed`` times both
paths on the same frames.

Scenes come from :func:`samples.render.scene.render_scene` with the seeds of a set
(:func:`samples.render.dataset.scene_seed`), rendered in memory. Games take turns scene by scene
until at least ``--cards`` required cards (see below) have been rendered.

Ground-truth criterion:

* A *required* card is a card (not a Via Appia stone tile) with a visible fraction of at least
  ``--min-visible`` (0.5). Recall is counted over required cards only.
* Cards below that fraction and stone tiles are *optional*: a detection matching one is neither
  a hit nor a false positive (tiles matched are reported on their own line).
* A detection matching nothing is a false positive. Precision = detections matched to required
  cards / (those + false positives).

Matching: polygon IoU of detection and truth, both clipped to the image (a card cut by the frame
border is compared on the part in view), at least ``--iou``; pairs are taken greedily, best IoU
first, each detection and card once. The corner error of a match is the largest distance between
corresponding corners (best cyclic order), for cards fully in view only.

Besides recall and precision overall and per condition (game, table, tilt bucket, blur, hands,
layout, occlusion, resolution, visible-fraction bucket), it reports how often the ``visible``
flag agrees with the truth (a card counts as fully visible at >= 0.97), the detection time per
frame, and, with ``--speed N``, the median time over N extra frames rendered at 1280x720.
Images with a miss or a false positive are written to ``--out`` (truth outlines: red = missed
required card, yellow = optional; detections: green = matched, blue = false positive, thin line
= reported as not fully visible).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.render.dataset import scene_seed  # noqa: E402
from samples.render.scene import Scene, SceneConfig, render_scene  # noqa: E402
from samples.render.specs import CardKind, Game  # noqa: E402
from vision.detect import DetectConfig, config_with, detect_cards  # noqa: E402
from vision.types import Detection  # noqa: E402

FULLY_VISIBLE = 0.97


@dataclass(frozen=True)
class TruthCard:
    """One ground-truth card or tile of a scene, with the quad clipped to the image."""

    corners: np.ndarray
    clipped: np.ndarray
    visible_fraction: float
    tile: bool
    required: bool
    in_view: bool


@dataclass(frozen=True)
class CardResult:
    """Outcome for one required card."""

    keys: tuple[tuple[str, str], ...]
    found: bool
    corner_error: float | None
    flag_correct: bool | None


@dataclass(frozen=True)
class SceneResult:
    game: str
    index: int
    seed: int
    keys: tuple[tuple[str, str], ...]
    cards: tuple[CardResult, ...]
    false_positives: int
    optional_matched: int
    tiles_matched: int
    tiles_total: int
    ms: float
    failed: bool


def clip_to_image(poly: np.ndarray, width: int, height: int) -> np.ndarray:
    """The part of a convex polygon inside the image rectangle (may be empty)."""
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    area, inter = cv2.intersectConvexConvex(poly.astype(np.float32), frame)
    if inter is None or area <= 0:
        return np.zeros((0, 2), np.float32)
    return inter.reshape(-1, 2)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex polygons."""
    if len(a) < 3 or len(b) < 3:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    inter = max(float(inter), 0.0)
    union = abs(cv2.contourArea(a.astype(np.float32))) + abs(cv2.contourArea(b.astype(np.float32))) - inter
    return inter / union if union > 0 else 0.0


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance after the best cyclic matching (either direction)."""
    best = float("inf")
    for cand in (found, found[::-1]):
        for shift in range(4):
            best = min(best, float(np.linalg.norm(np.roll(cand, shift, axis=0) - truth, axis=1).max()))
    return best


def convex(points: np.ndarray) -> np.ndarray:
    """Convex hull of a quad (a lens-distorted truth quad is convex, but be safe)."""
    return cv2.convexHull(points.astype(np.float32)).reshape(-1, 2)


def tilt_bucket(tilt: float) -> str:
    lo = int(min(tilt, 39.99) // 10) * 10
    return f"{lo:02d}-{lo + 10:02d}"


def visible_bucket(v: float) -> str:
    if v >= FULLY_VISIBLE:
        return ">=0.97"
    if v >= 0.75:
        return "0.75-0.97"
    return "0.50-0.75"


def truth_cards(scene: Scene, min_visible: float) -> list[TruthCard]:
    w, h = scene.truth.conditions.width, scene.truth.conditions.height
    out = []
    for c in scene.truth.cards:
        corners = np.array(c.corners, np.float64)
        clipped = clip_to_image(convex(corners), w, h)
        tile = c.spec.kind is CardKind.TILE
        in_view = bool(
            (corners[:, 0] >= 0).all() and (corners[:, 1] >= 0).all()
            and (corners[:, 0] <= w - 1).all() and (corners[:, 1] <= h - 1).all()
        )
        out.append(TruthCard(corners, clipped, c.visible_fraction, tile,
                             not tile and c.visible_fraction >= min_visible, in_view))
    return out


def match(dets: list[Detection], truths: list[TruthCard], width: int, height: int,
          threshold: float) -> dict[int, int]:
    """Greedy best-IoU matching; returns detection index -> truth index."""
    det_polys = [clip_to_image(d.quad.as_array(), width, height) for d in dets]
    pairs = []
    for i, dp in enumerate(det_polys):
        for j, t in enumerate(truths):
            v = polygon_iou(dp, t.clipped)
            if v >= threshold:
                pairs.append((v, i, j))
    pairs.sort(reverse=True)
    used_d: set[int] = set()
    used_t: set[int] = set()
    out: dict[int, int] = {}
    for _, i, j in pairs:
        if i in used_d or j in used_t:
            continue
        used_d.add(i)
        used_t.add(j)
        out[i] = j
    return out


def draw(scene: Scene, dets: list[Detection], truths: list[TruthCard], matches: dict[int, int]) -> np.ndarray:
    canvas = scene.image.copy()
    matched_t = set(matches.values())
    for j, t in enumerate(truths):
        if t.required and j not in matched_t:
            colour = (0, 0, 255)
        elif not t.required:
            colour = (0, 220, 255)
        else:
            continue
        cv2.polylines(canvas, [np.round(t.corners).astype(np.int32)], True, colour, 2)
        cv2.putText(canvas, f"{t.visible_fraction:.2f}", tuple(int(v) for v in t.corners.mean(axis=0)), 0, 0.5,
                    colour, 1)
    for i, d in enumerate(dets):
        colour = (0, 200, 0) if i in matches else (255, 80, 0)
        pts = np.round(d.quad.as_array()).astype(np.int32)
        cv2.polylines(canvas, [pts], True, colour, 2 if d.visible else 1)
        cv2.putText(canvas, f"{d.confidence:.2f}", tuple(int(v) for v in pts[0] + 6), 0, 0.5, colour, 1)
    return canvas


def evaluate_scene(game: Game, index: int, seed: int, scene: Scene, args: argparse.Namespace,
                   config: DetectConfig, out_dir: Path | None) -> SceneResult:
    cond = scene.truth.conditions
    start = time.perf_counter()
    dets = detect_cards(scene.image, config)
    ms = (time.perf_counter() - start) * 1000
    truths = truth_cards(scene, args.min_visible)
    matches = match(dets, truths, cond.width, cond.height, args.iou)
    matched_t = {j: i for i, j in matches.items()}
    keys = (
        ("game", game.value), ("table", cond.table.value), ("tilt", tilt_bucket(cond.tilt_deg)),
        ("blur", cond.blur.value), ("hands", str(cond.hands)), ("layout", cond.layout.value),
        ("occlusion", cond.occlusion.value), ("resolution", f"{cond.width}x{cond.height}"),
    )
    cards = []
    for j, t in enumerate(truths):
        if not t.required:
            continue
        i = matched_t.get(j)
        err = None
        flag = None
        if i is not None:
            if t.in_view:
                err = corner_error(dets[i].quad.as_array(), t.corners)
            flag = dets[i].visible == (t.visible_fraction >= FULLY_VISIBLE)
        cards.append(CardResult(keys + (("visible", visible_bucket(t.visible_fraction)),), i is not None, err, flag))
    fps = sum(1 for i in range(len(dets)) if i not in matches)
    optional = sum(1 for j in matches.values() if not truths[j].required and not truths[j].tile)
    tiles = sum(1 for j in matches.values() if truths[j].tile)
    failed = fps > 0 or any(not c.found for c in cards)
    if failed and out_dir is not None:
        cv2.imwrite(str(out_dir / f"{game.value}_{index:04d}.png"), draw(scene, dets, truths, matches))
    return SceneResult(game.value, index, seed, keys, tuple(cards), fps, optional, tiles,
                       sum(t.tile for t in truths), ms, failed)


def ratio(a: int, b: int) -> str:
    return f"{a / b * 100:6.2f}% ({a}/{b})" if b else "   n/a"


def report(results: list[SceneResult]) -> None:
    cards = [c for r in results for c in r.cards]
    hits = sum(c.found for c in cards)
    fps = sum(r.false_positives for r in results)
    print(f"scenes {len(results)}  required cards {len(cards)}")
    print(f"recall    {ratio(hits, len(cards))}")
    print(f"precision {ratio(hits, hits + fps)}  false positives {fps}")
    print(f"optional cards (<min visible) matched: {sum(r.optional_matched for r in results)}; "
          f"tiles matched {sum(r.tiles_matched for r in results)}/{sum(r.tiles_total for r in results)} "
          f"(neither counted)")
    errs = [c.corner_error for c in cards if c.corner_error is not None]
    if errs:
        print(f"corner error (max of 4, fully in-view cards): mean {statistics.fmean(errs):.2f} px, "
              f"median {statistics.median(errs):.2f} px, p95 {np.percentile(errs, 95):.2f} px")
    flags = [c.flag_correct for c in cards if c.flag_correct is not None]
    if flags:
        print(f"visible flag agrees with truth (>= {FULLY_VISIBLE}): {ratio(sum(flags), len(flags))}")
    times = [r.ms for r in results]
    print(f"time per frame (mixed resolutions): median {statistics.median(times):.1f} ms, "
          f"mean {statistics.fmean(times):.1f} ms, max {max(times):.1f} ms")
    groups: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        for k in r.keys:
            groups[k][2] += r.false_positives
    for c in cards:
        for k in c.keys:
            groups[k][0] += c.found
            groups[k][1] += 1
    print("\nper condition: recall / false positives")
    for (name, value), (h, n, fp) in sorted(groups.items()):
        print(f"  {name:10s} {value:14s} recall {ratio(h, n):24s} FP {fp}")
    bad = [r for r in results if r.failed]
    if bad:
        print("\nscenes with failures:")
        for r in bad:
            missed = sum(not c.found for c in r.cards)
            print(f"  {r.game}_{r.index:04d} seed {r.seed}: missed {missed}, false positives {r.false_positives}")


def speed(n: int, seed: int, config: DetectConfig) -> None:
    """Median detection time at 1280x720 for ``config`` and, in the same run on the same frames,
    for the other detector path (segmenter vs classical), so the ratio holds on a loaded machine."""
    other = replace(config, use_segmenter=not config.use_segmenter)
    times: dict[str, list[float]] = {"this": [], "other": []}
    games = list(Game)
    for i in range(n):
        scene = render_scene(scene_seed(seed, i), games[i % 3], SceneConfig(resolution=(1280, 720)))
        for key, cfg in (("this", config), ("other", other)):
            detect_cards(scene.image, cfg)
            start = time.perf_counter()
            detect_cards(scene.image, cfg)
            times[key].append((time.perf_counter() - start) * 1000)
    for key, cfg in (("this", config), ("other", other)):
        t = sorted(times[key])
        name = "segmenter" if cfg.use_segmenter else "classical"
        print(f"\nspeed at 1280x720 over {n} frames ({name}): median {statistics.median(t):.1f} ms, "
              f"p90 {t[int(0.9 * (n - 1))]:.1f} ms, max {t[-1]:.1f} ms")
    ratio = statistics.median(times["this"]) / max(statistics.median(times["other"]), 1e-9)
    print(f"median time of this path / the other path in the same run: {ratio:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, required=True, help="set seed (scene seeds via scene_seed)")
    parser.add_argument("--cards", type=int, default=1000, help="render until this many required cards")
    parser.add_argument("--games", nargs="+", choices=[g.value for g in Game], default=[g.value for g in Game])
    parser.add_argument("--out", type=Path, default=None, help="folder for annotated failure images")
    parser.add_argument("--iou", type=float, default=0.7)
    parser.add_argument("--min-visible", type=float, default=0.5)
    parser.add_argument("--speed", type=int, default=0, help="extra 1280x720 frames to time")
    parser.add_argument("--resolution", type=str, default=None, help="fixed WxH instead of mixed resolutions")
    parser.add_argument("--classical", action="store_true", help="use the classical detector, not the segmenter")
    parser.add_argument("--fuse", action="store_true", help="combine with the classical path on every frame (by default only on frames the network is partly unsure about)")
    parser.add_argument("--model", type=Path, default=None, help="segmentation model (ONNX) instead of the shipped one")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=NUMBER",
                        help="override a numeric DetectConfig field, e.g. --set seg_seed_depth=2.5 (repeatable)")
    args = parser.parse_args(argv)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    scene_config = SceneConfig()
    if args.resolution:
        w, h = (int(v) for v in args.resolution.lower().split("x"))
        scene_config = replace(scene_config, resolution=(w, h))
    config = DetectConfig(use_segmenter=not args.classical, fuse_classical=args.fuse)
    if args.model is not None:
        config = replace(config, segmenter_path=args.model)
    try:
        config = config_with(config, args.set)
    except ValueError as exc:
        parser.error(f"--set: {exc}")
    games = [Game(g) for g in args.games]
    results: list[SceneResult] = []
    total = 0
    index = 0
    while total < args.cards:
        for game in games:
            seed = scene_seed(args.seed, index)
            scene = render_scene(seed, game, scene_config)
            total += sum(c.spec.kind is not CardKind.TILE and c.visible_fraction >= args.min_visible
                         for c in scene.truth.cards)
            results.append(evaluate_scene(game, index, seed, scene, args, config, args.out))
        index += 1
    print(f"set seed {args.seed}, games {' '.join(args.games)}, IoU >= {args.iou}, "
          f"required: cards with visible fraction >= {args.min_visible}")
    report(results)
    if args.speed:
        speed(args.speed, args.seed, config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
