#!/usr/bin/env python3
"""Measure the card detector on labelled real photos (Pascal-VOC boxes).

Usage: ``python scripts/eval_realdata.py DIR [--split odd|even|all] [--out OUTDIR] [--classical | --fuse]
[--model PATH] [--no-ranks]`` (the learned segmenter path unless ``--classical``; ``--fuse`` combines it with the
classical path on every frame, not only on the frames the network is partly unsure about).

Every ``*.jpg``/``*.png`` in DIR with a same-named ``.xml`` is read. Detections' axis-aligned
bounding boxes are matched greedily (highest IoU first) to the labelled boxes at IoU >= 0.7.
Prints recall, precision (all detections, and fully visible ones only), mean IoU of matches,
per-image misses and false detections, and detection time per image. Unless ``--no-ranks``, each
matched card's rank index is read (:class:`vision.read.playing.PlayingCardReader`, digits 9 and 10)
and tallied per label: read as 9, as 10, abstained, confidently wrong. Annotated images
(labels red, matched detections green, false detections blue) go to OUTDIR.

The split selects files by the number in their name: ``odd`` is the tuning half, ``even`` the
held-out half.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.evaluation import RankTally, read_playing_rank  # noqa: E402
from vision.detect import DetectConfig, config_with, detect_cards  # noqa: E402
from vision.errors import VisionError  # noqa: E402
from vision.io import load_image  # noqa: E402
from vision.types import Detection  # noqa: E402

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class ImageScore:
    name: str
    labels: int
    detections: int
    visible_detections: int
    matched: int
    matched_visible: int
    ious: tuple[float, ...]
    missed: tuple[Box, ...]
    seconds: float
    ranks: RankTally


def read_voc(path: Path, width: int, height: int) -> list[Box]:
    """Boxes of a Pascal-VOC file, rescaled if the XML's size differs from the image's."""
    root = ET.parse(path).getroot()
    size = root.find("size")
    sx = sy = 1.0
    if size is not None:
        xw, xh = int(size.findtext("width", "0")), int(size.findtext("height", "0"))
        if xw > 0 and xh > 0:
            sx, sy = width / xw, height / xh
    boxes = []
    for obj in root.iter("object"):
        bb = obj.find("bndbox")
        if bb is None:
            continue
        x0, y0, x1, y1 = (float(bb.findtext(k, "nan")) for k in ("xmin", "ymin", "xmax", "ymax"))
        boxes.append((x0 * sx, y0 * sy, x1 * sx, y1 * sy))
    return boxes


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def greedy_match(dets: list[Box], labels: list[Box], threshold: float) -> list[tuple[int, int, float]]:
    """Pairs (detection, label, iou) with iou >= threshold, best pairs first, each used once."""
    pairs = sorted(
        ((iou(d, g), i, j) for i, d in enumerate(dets) for j, g in enumerate(labels)), reverse=True
    )
    used_d: set[int] = set()
    used_g: set[int] = set()
    out = []
    for v, i, j in pairs:
        if v < threshold:
            break
        if i in used_d or j in used_g:
            continue
        used_d.add(i)
        used_g.add(j)
        out.append((i, j, v))
    return out


def number_of(path: Path) -> int | None:
    found = re.findall(r"\d+", path.stem)
    return int(found[-1]) if found else None


def voc_names(path: Path) -> list[str]:
    """Label names of a Pascal-VOC file, in the order of :func:`read_voc`'s boxes."""
    return [obj.findtext("name", "").strip() for obj in ET.parse(path).getroot().iter("object")
            if obj.find("bndbox") is not None]


def evaluate(path: Path, out_dir: Path | None, threshold: float, config: DetectConfig,
             read_ranks: bool = True) -> ImageScore:
    image = load_image(path)
    h, w = image.shape[:2]
    labels = read_voc(path.with_suffix(".xml"), w, h)
    detect_cards(image, config)  # warm-up so the timing below is steady-state
    t0 = time.perf_counter()
    dets: list[Detection] = detect_cards(image, config)
    seconds = time.perf_counter() - t0
    boxes = [d.quad.bbox() for d in dets]
    matches = greedy_match(boxes, labels, threshold)
    matched_d = {i for i, _, _ in matches}
    matched_g = {j for _, j, _ in matches}
    ranks = RankTally()
    if read_ranks:
        names = voc_names(path.with_suffix(".xml"))
        for i, j, _ in matches:
            ranks.add(names[j], read_playing_rank(image, dets[i].quad.as_array()))
    if out_dir is not None:
        canvas = image.copy()
        for g in labels:
            cv2.rectangle(canvas, (int(g[0]), int(g[1])), (int(g[2]), int(g[3])), (0, 0, 255), 1)
        for i, d in enumerate(dets):
            colour = (0, 200, 0) if i in matched_d else (255, 80, 0)
            pts = d.quad.as_array().round().astype(np.int32)
            cv2.polylines(canvas, [pts], True, colour, 2 if d.visible else 1)
            cv2.circle(canvas, tuple(int(v) for v in pts[0]), 5, colour, -1)
            cv2.putText(canvas, f"{d.confidence:.2f}", tuple(int(v) for v in pts[0] + 6), 0, 0.5, colour, 1)
        cv2.imwrite(str(out_dir / f"{path.stem}.png"), canvas)
    return ImageScore(
        name=path.name,
        labels=len(labels),
        detections=len(dets),
        visible_detections=sum(d.visible for d in dets),
        matched=len(matches),
        matched_visible=sum(1 for i, _, _ in matches if dets[i].visible),
        ious=tuple(v for _, _, v in matches),
        missed=tuple(g for j, g in enumerate(labels) if j not in matched_g),
        seconds=seconds,
        ranks=ranks,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--split", choices=("odd", "even", "all"), default="all")
    parser.add_argument("--out", type=Path, default=Path("/tmp/eval_realdata"))
    parser.add_argument("--iou", type=float, default=0.7)
    parser.add_argument("--classical", action="store_true", help="use the classical detector, not the segmenter")
    parser.add_argument("--fuse", action="store_true", help="combine with the classical path on every frame (by default only on frames the network is partly unsure about)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=NUMBER",
                        help="override a numeric DetectConfig field, e.g. --set seg_zoom=2 (repeatable)")
    parser.add_argument("--model", type=Path, default=None, help="segmentation model (ONNX) instead of the shipped one")
    parser.add_argument("--no-ranks", action="store_true", help="do not read the rank digits 9 and 10")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        print(f"error: expected a directory of labelled images, got {args.directory}", file=sys.stderr)
        return 2
    files = sorted(
        (p for p in args.directory.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.with_suffix(".xml").exists()),
        key=lambda p: (number_of(p) or 0, p.name),
    )
    if args.split != "all":
        want = 1 if args.split == "odd" else 0
        files = [p for p in files if number_of(p) is not None and number_of(p) % 2 == want]
    if not files:
        print(f"error: expected labelled images (IMAGE + IMAGE.xml) in {args.directory}, found none", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    config = DetectConfig(use_segmenter=not args.classical, fuse_classical=args.fuse)
    try:
        config = config_with(config, args.set)
    except ValueError as exc:
        parser.error(f"--set: {exc}")
    if args.model is not None:
        config = replace(config, segmenter_path=args.model)
    scores: list[ImageScore] = []
    for path in files:
        try:
            scores.append(evaluate(path, args.out, args.iou, config, not args.no_ranks))
        except VisionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    labels = sum(s.labels for s in scores)
    matched = sum(s.matched for s in scores)
    dets = sum(s.detections for s in scores)
    vis = sum(s.visible_detections for s in scores)
    matched_vis = sum(s.matched_visible for s in scores)
    ious = [v for s in scores for v in s.ious]
    times = [s.seconds * 1000 for s in scores]
    for s in scores:
        flag = "" if s.matched == s.labels and s.detections == s.matched else "  <--"
        print(
            f"{s.name:18s} labels {s.labels}  dets {s.detections} (visible {s.visible_detections})"
            f"  matched {s.matched}  {s.seconds * 1000:6.1f} ms{flag}"
        )
        for g in s.missed:
            print(f"    missed label box {tuple(round(v) for v in g)}")
    print(f"\nsplit={args.split} images={len(scores)} labels={labels} detections={dets} (visible {vis})")
    print(f"recall@IoU{args.iou}: {matched / labels:.3f} ({matched}/{labels})")
    print(f"precision (all detections): {matched / dets if dets else 0:.3f} ({matched}/{dets})")
    print(f"precision (visible only):   {matched_vis / vis if vis else 0:.3f} ({matched_vis}/{vis})")
    print(f"mean IoU of matches: {statistics.fmean(ious) if ious else 0:.3f}")
    print(f"time per image: mean {statistics.fmean(times):.1f} ms, median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
    if not args.no_ranks:
        ranks = RankTally()
        for s in scores:
            ranks = ranks.merged(s.ranks)
        table = ranks.to_json()
        print("\nrank reading of matched cards (label: cards, read 9, read 10, abstained, confident wrong):")
        for label, row in table["per_label"].items():
            print(f"  {label:8s} {row['cards']:3d}  9: {row['read_9']:3d}  10: {row['read_10']:3d}"
                  f"  abstained: {row['abstained']:3d}  wrong: {row['confident_wrong']:3d}")
        for name, f in table["fields"].items():
            print(f"  {name:10s} cards {f['cards']}  right {f['accuracy']}  abstained {f['abstained']}"
                  f"  confident wrong {f['confident_wrong']}")
    print(f"annotated images: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
