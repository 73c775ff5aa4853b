"""Accuracy of the vision pipeline against ground truth (``companion eval``).

Two kinds of folder:

* a rendered set (``index.json`` + ``NNNN.jpg``/``NNNN.json`` from ``companion samples set``):
  detection recall and precision, per-field accuracy (kind, value, blisters, year, date),
  confident-wrong rate, whole-frame exact rate, a breakdown per condition and a kind
  confusion matrix;
* a folder of real photos with Pascal-VOC labels (``*.xml`` beside each image): detection
  recall and precision at axis-aligned box IoU >= 0.7, and, for ordinary playing cards labelled
  with rank names (nine, ten, jack, ...), the reading of the rank digits 9 and 10 on the
  detected cards: per label how many read as 9, as 10, abstained, and confidently wrong.

A card is *required* when its visible fraction is at least ``min_visible``; detections matched to
cards that are not required (hidden under others, mostly out of the image) or to Via Appia road
tiles are neither hits nor false positives. A field counts as right only when it was read and
is correct: abstaining counts against accuracy but is not a confident wrong reading.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from companion.errors import CompanionError

CARD_KINDS = ("walk", "finish", "start", "gladiola", "timeline", "income", "unknown")
MATCH_IOU = 0.5
VOC_IOU = 0.7


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals (4x2 arrays, any corner order)."""
    a = cv2.convexHull(np.asarray(a, np.float32)).reshape(-1, 2)
    b = cv2.convexHull(np.asarray(b, np.float32)).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two axis-aligned boxes ``(x0, y0, x1, y1)``."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def greedy_match(scores: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Pairs (truth, detection) by descending score, each used once, score >= threshold."""
    pairs = []
    used_t: set[int] = set()
    used_d: set[int] = set()
    order = np.dstack(np.unravel_index(np.argsort(-scores, axis=None), scores.shape))[0] if scores.size else []
    for t, d in order:
        if scores[t, d] < threshold:
            break
        if t in used_t or d in used_d:
            continue
        used_t.add(int(t))
        used_d.add(int(d))
        pairs.append((int(t), int(d)))
    return pairs


@dataclass
class Tally:
    """Counts for one group of images (all, or one condition value)."""

    required: int = 0
    found: int = 0
    detections: int = 0
    false_positives: int = 0
    fields: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))
    frames: int = 0
    exact_frames: int = 0

    def field(self, name: str, truth: Any, read: Any) -> bool:
        """Record one field: [total, right, abstained, confidently wrong]; True when right."""
        row = self.fields[name]
        row[0] += 1
        if read is None:
            row[2] += 1
            return False
        if read == truth:
            row[1] += 1
            return True
        row[3] += 1
        return False

    def to_json(self) -> dict[str, Any]:
        fields = {
            name: {"cards": t, "accuracy": _ratio(r, t), "abstained": _ratio(a, t), "confident_wrong": _ratio(w, t)}
            for name, (t, r, a, w) in sorted(self.fields.items())
        }
        total_reads = sum(t for t, *_ in self.fields.values())
        wrong = sum(w for *_, w in self.fields.values())
        return {
            "frames": self.frames,
            "cards": self.required,
            "detection": {"recall": _ratio(self.found, self.required),
                          "precision": _ratio(self.detections - self.false_positives, self.detections),
                          "found": self.found, "false_positives": self.false_positives},
            "fields": fields,
            "confident_wrong": _ratio(wrong, total_reads),
            "frames_exact": _ratio(self.exact_frames, self.frames),
        }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 5) if b else None


def _truth_fields(card: dict[str, Any]) -> dict[str, Any]:
    """What a perfect reader reports for a ground-truth card, field by field."""
    kind = card["kind"]
    out: dict[str, Any] = {"kind": kind}
    if kind in ("walk", "finish", "start"):
        out["value"] = card["value"]
    if kind in ("walk", "finish", "start", "gladiola"):
        out["blisters"] = card["blisters"]
    if kind == "timeline" and card.get("date"):
        out["year"] = int(str(card["date"])[:4])
        out["date"] = str(card["date"])
    if kind == "income":
        out["stones"] = card.get("stones")
        out["sesterces"] = card.get("sesterces")
    return out


def _read_fields(card: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``want`` as read; a year read alone for a card printed with a full date in
    that year counts as no date read (the reader's way of saying it could not read the day)."""
    out = {"kind": None if card["kind"] == "unknown" else card["kind"]}
    for name in want:
        if name == "year":
            out["year"] = int(str(card["date"])[:4]) if card.get("date") else None
        elif name == "date":
            read = str(card["date"]) if card.get("date") else None
            year_alone = read is not None and len(read) == 4 and len(want["date"]) > 4
            out["date"] = None if year_alone and want["date"].startswith(read) else read
        elif name != "kind":
            out[name] = card.get(name)
    return out


def _condition_keys(conditions: dict[str, Any]) -> dict[str, str]:
    """The condition values an image is broken down by (numbers bucketed)."""
    keys = {}
    for name in ("table", "layout", "style", "lighting", "blur", "occlusion"):
        if name in conditions:
            keys[name] = str(conditions[name])
    if "tilt_deg" in conditions:
        tilt = float(conditions["tilt_deg"])
        keys["tilt"] = "0-15" if tilt < 15 else "15-30" if tilt < 30 else "30-40"
    if "hands" in conditions:
        keys["hands"] = str(conditions["hands"])
    if "width" in conditions:
        keys["resolution"] = f"{conditions['width']}x{conditions['height']}"
    return keys


@dataclass
class RenderedEval:
    overall: Tally
    per_condition: dict[str, dict[str, Tally]]
    confusion: Counter
    seconds: list[float]
    failures: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "rendered",
            **self.overall.to_json(),
            "ms_per_frame_median": round(float(np.median(self.seconds)) * 1000, 1) if self.seconds else None,
            "per_condition": {
                name: {value: tally.to_json() for value, tally in sorted(values.items())}
                for name, values in sorted(self.per_condition.items())
            },
            "confusion": {f"{t}->{r}": n for (t, r), n in sorted(self.confusion.items())},
            # confidently wrong readings first (they matter most), then misses and abstentions
            "failures": sorted(self.failures, key=lambda f: f.get("read") is None)[:50],
        }


def evaluate_rendered(folder: Path, read: Callable[[np.ndarray, str], dict[str, Any]],
                      min_visible: float = 0.5, progress: bool = False) -> RenderedEval:
    """Read every image of a rendered set with ``read(image, game) -> read-JSON`` and score it."""
    index_path = folder / "index.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8"))
        scenes = index["scenes"]
        game = index["game"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CompanionError(f"{index_path}: expected a rendered set's index.json, got {exc}") from None
    overall = Tally()
    per_condition: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    confusion: Counter = Counter()
    seconds: list[float] = []
    failures: list[dict[str, Any]] = []
    items = scenes
    if progress:
        from tqdm import tqdm

        items = tqdm(scenes, desc=f"eval {game}", unit="img")
    for entry in items:
        truth = json.loads((folder / entry["truth"]).read_text(encoding="utf-8"))
        image = cv2.imread(str(folder / entry["image"]), cv2.IMREAD_COLOR)
        if image is None:
            raise CompanionError(f"{folder / entry['image']}: expected a readable image, got nothing")
        start = time.perf_counter()
        got = read(image, game)
        seconds.append(time.perf_counter() - start)
        tallies = [overall] + [per_condition[k][v] for k, v in _condition_keys(truth["conditions"]).items()]
        _score_frame(truth, got, min_visible, tallies, confusion, failures)
    return RenderedEval(overall, per_condition, confusion, seconds, failures)


def _score_frame(truth: dict[str, Any], got: dict[str, Any], min_visible: float, tallies: list[Tally],
                 confusion: Counter, failures: list[dict[str, Any]]) -> None:
    cards = truth["cards"]
    dets = got["cards"]
    scores = np.zeros((len(cards), len(dets)))
    for i, c in enumerate(cards):
        for j, d in enumerate(dets):
            scores[i, j] = quad_iou(np.array(c["corners"]), np.array(d["corners"]))
    pairs = dict(greedy_match(scores, MATCH_IOU))
    matched_dets = set(pairs.values())
    required = [i for i, c in enumerate(cards) if c["kind"] != "tile" and c["visible_fraction"] >= min_visible]
    ignored_dets = {pairs[i] for i, c in enumerate(cards) if i in pairs and i not in required}
    false_pos = [j for j in range(len(dets)) if j not in matched_dets]
    frame_ok = not false_pos
    for t in tallies:
        t.frames += 1
        t.required += len(required)
        t.detections += len(dets) - len(ignored_dets)
        t.false_positives += len(false_pos)
    for i in required:
        card = cards[i]
        if i not in pairs:
            frame_ok = False
            failures.append({"file": truth.get("file"), "card": card["id"], "problem": "missed"})
            continue
        for t in tallies:
            t.found += 1
        want = _truth_fields(card)
        read = _read_fields(dets[pairs[i]], want)
        confusion[(card["kind"], dets[pairs[i]]["kind"])] += 1
        for name, value in want.items():
            right = [t.field(name, value, read.get(name)) for t in tallies][0]
            if not right:
                frame_ok = False
                failures.append({"file": truth.get("file"), "card": card["id"], "field": name,
                                 "truth": value, "read": read.get(name)})
    for t in tallies:
        t.exact_frames += int(frame_ok)


def confusion_png(confusion: Counter, path: Path) -> None:
    """Draw the kind confusion matrix (rows: truth, columns: reading) as a PNG."""
    truths = sorted({t for t, _ in confusion})
    reads = list(CARD_KINDS)
    cell, left, top = 70, 110, 110
    img = np.full((top + cell * len(truths) + 10, left + cell * len(reads) + 10, 3), 255, np.uint8)
    for r, t in enumerate(truths):
        total = sum(n for (tt, _), n in confusion.items() if tt == t) or 1
        cv2.putText(img, t, (6, top + r * cell + cell // 2 + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        for c, k in enumerate(reads):
            n = confusion.get((t, k), 0)
            share = n / total
            good = (t == k) or (t == "tile" and k == "unknown")
            colour = (255, 255 - int(200 * share), 255 - int(200 * share)) if good else (255 - int(200 * share), 255 - int(200 * share), 255)
            x, y = left + c * cell, top + r * cell
            cv2.rectangle(img, (x, y), (x + cell - 2, y + cell - 2), colour, -1)
            cv2.putText(img, str(n), (x + 8, y + cell // 2 + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    for c, k in enumerate(reads):
        x = left + c * cell + 6
        cv2.putText(img, k[:8], (x, top - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, "truth (rows) vs reading (columns)", (6, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    if not cv2.imwrite(str(path), img):
        raise CompanionError(f"{path}: expected a writable PNG path, could not write")


def voc_boxes(xml_path: Path) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The labelled boxes ``(name, (xmin, ymin, xmax, ymax))`` of a Pascal-VOC file."""
    try:
        root = ET.parse(xml_path).getroot()
        out = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            out.append((obj.findtext("name", "").strip(),
                        tuple(float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))))
        return out
    except (ET.ParseError, AttributeError, TypeError, ValueError) as exc:
        raise CompanionError(f"{xml_path}: expected Pascal-VOC XML with object boxes, got {exc}") from None


VOC_RANKS: dict[str, int] = {"ace": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                             "eight": 8, "nine": 9, "ten": 10, "jack": 11, "queen": 12, "king": 13}
"""Rank of each Pascal-VOC label name of a playing card (ace 1 ... king 13)."""
READ_RANKS = (9, 10)
"""The ranks the VOC mode reads (the printed digits 9 and 10); every other card should abstain."""


@dataclass
class RankTally:
    """Rank readings of detected playing cards, per label: read as 9, as 10, abstained, confidently wrong."""

    rows: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, label: str, read: int | None) -> None:
        """Record one card labelled ``label`` that was read as ``read`` (None: abstained)."""
        row = self.rows[label]
        row["cards"] += 1
        if read is None:
            row["abstained"] += 1
            return
        row[f"read_{read}"] += 1
        if read != VOC_RANKS.get(label):
            row["confident_wrong"] += 1

    def merged(self, other: RankTally) -> RankTally:
        """A new tally holding both tallies' counts."""
        out = RankTally()
        for tally in (self, other):
            for label, row in tally.rows.items():
                out.rows[label].update(row)
        return out

    def to_json(self) -> dict[str, Any]:
        """Counts per label, and two summary fields: "rank 9/10" (nines and tens: read right,
        abstained, read wrong) and "rank other" (every other card, where abstaining is right)."""
        per_label = {}
        for label, row in sorted(self.rows.items(), key=lambda kv: (VOC_RANKS.get(kv[0], 99), kv[0])):
            per_label[label] = {"cards": row["cards"], **{f"read_{r}": row[f"read_{r}"] for r in READ_RANKS},
                                "abstained": row["abstained"], "confident_wrong": row["confident_wrong"]}
        digit = [row for label, row in self.rows.items() if VOC_RANKS.get(label) in READ_RANKS]
        other = [row for label, row in self.rows.items() if VOC_RANKS.get(label) not in READ_RANKS]
        n_digit = sum(r["cards"] for r in digit)
        n_other = sum(r["cards"] for r in other)
        wrong_digit = sum(r["confident_wrong"] for r in digit)
        wrong_other = sum(r["confident_wrong"] for r in other)
        right = sum(r["cards"] - r["abstained"] - r["confident_wrong"] for r in digit)
        return {
            "per_label": per_label,
            "fields": {
                "rank 9/10": {"cards": n_digit, "accuracy": _ratio(right, n_digit),
                              "abstained": _ratio(sum(r["abstained"] for r in digit), n_digit),
                              "confident_wrong": _ratio(wrong_digit, n_digit)},
                "rank other": {"cards": n_other, "accuracy": _ratio(n_other - wrong_other, n_other),
                               "abstained": _ratio(n_other - wrong_other, n_other),
                               "confident_wrong": _ratio(wrong_other, n_other)},
            },
        }


def read_playing_rank(image: np.ndarray, quad: np.ndarray) -> int | None:
    """The rank (9 or 10) printed on the ordinary playing card at ``quad`` in ``image``, or None."""
    from vision.errors import VisionError
    from vision.read.playing import PlayingCardReader
    from vision.rectify import rectify
    from vision.types import Quad

    try:
        crop = rectify(image, Quad.from_array(quad))
        return PlayingCardReader(frozenset(READ_RANKS)).read(crop).rank
    except VisionError:
        return None


def evaluate_voc(folder: Path, detect: Callable[[np.ndarray], list[np.ndarray]],
                 files: Sequence[Path] | None = None,
                 read_rank: Callable[[np.ndarray, np.ndarray], int | None] | None = read_playing_rank) -> dict[str, Any]:
    """Detection recall and precision at box IoU >= 0.7 on a Pascal-VOC labelled folder.

    ``read_rank(image, quad)`` reads the rank of each detected card matched to a label (None: no
    rank reading); the readings are tallied per label name (see :class:`RankTally`).
    """
    xmls = sorted(files if files is not None else folder.glob("*.xml"))
    if not xmls:
        raise CompanionError(f"{folder}: expected a rendered set (index.json) or Pascal-VOC *.xml labels, found neither")
    labelled = found = dets_total = true_dets = 0
    seconds = []
    ious = []
    misses = []
    ranks = RankTally()
    rank_seconds: list[float] = []
    for xml in xmls:
        image_path = next((xml.with_suffix(s) for s in (".jpg", ".jpeg", ".png") if xml.with_suffix(s).exists()), None)
        if image_path is None:
            raise CompanionError(f"{xml}: expected an image beside the label file, found none")
        labelled_boxes = voc_boxes(xml)
        truth = [b for _, b in labelled_boxes]
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise CompanionError(f"{image_path}: expected a readable image, got nothing")
        start = time.perf_counter()
        quads = detect(image)
        seconds.append(time.perf_counter() - start)
        boxes = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())) for q in quads]
        scores = np.array([[box_iou(t, b) for b in boxes] for t in truth]) if truth and boxes else np.zeros((len(truth), len(boxes)))
        pairs = greedy_match(scores, VOC_IOU)
        labelled += len(truth)
        found += len(pairs)
        dets_total += len(boxes)
        true_dets += len(pairs)
        ious += [scores[t, d] for t, d in pairs]
        if read_rank is not None:
            for t, d in pairs:
                start = time.perf_counter()
                ranks.add(labelled_boxes[t][0], read_rank(image, quads[d]))
                rank_seconds.append(time.perf_counter() - start)
        if len(pairs) < len(truth) or len(boxes) > len(pairs):
            misses.append({"file": image_path.name, "labelled": len(truth), "found": len(pairs),
                           "false_positives": len(boxes) - len(pairs)})
    result: dict[str, Any] = {
        "kind": "pascal-voc",
        "images": len(xmls),
        "cards": labelled,
        "detection": {"recall": _ratio(found, labelled), "precision": _ratio(true_dets, dets_total),
                      "iou_threshold": VOC_IOU, "mean_iou": round(float(np.mean(ious)), 4) if ious else None},
        "ms_per_image_median": round(float(np.median(seconds)) * 1000, 1),
        "imperfect_images": misses,
    }
    if read_rank is not None:
        rank_json = ranks.to_json()
        result["fields"] = rank_json["fields"]
        result["ranks"] = rank_json["per_label"]
        result["rank_ms_per_card_median"] = round(float(np.median(rank_seconds)) * 1000, 1) if rank_seconds else None
    return result
