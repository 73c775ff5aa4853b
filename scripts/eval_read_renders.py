"""Measure the card readers on rendered scenes with exact ground truth.

Two passes over the same scenes:

* ``truth``: every card with visible fraction >= ``--min-visible`` is given to
  :meth:`vision.pipeline.CardReader.read_detections` with its ground-truth corners in the
  detector's corner convention (:meth:`vision.types.Quad.card_order`, so the reader must find
  which end is up itself); cards seen at least 30% are passed too, as hidden, so tiles can be
  sized against their neighbours as in a real frame.
* ``e2e``: :meth:`vision.pipeline.CardReader.read_frame` (detector + reader) on the whole image;
  each ground-truth card is matched to the detection with the highest IoU (>= 0.5).

Besides the scene's conditions, Via Gladiola cards are broken down by whether their blister row
is seen whole (``blister_row``: in the image and under no other card; the truth does not know
hands) and, end to end, by whether the detector flagged the card as partly hidden (the pipeline
drops the blister count of those).

A field counts as right only when it was read and is correct; an abstention (None) is not
right and not wrong; a wrong value is "confident wrong" (every reported field is confident by
construction: low-confidence fields are reported as None). Per-condition breakdowns show where
the abstentions come from. ``--sheet`` writes a contact sheet of failing crops.

Usage::

    .venv/bin/python scripts/eval_read_renders.py --games gladiola valais appia --seeds 0 40
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.render.scene import CardTruth, SceneConfig, render_scene  # noqa: E402
from samples.render.specs import CardKind as SpecKind  # noqa: E402
from samples.render.specs import Game, Side  # noqa: E402
import vision.pipeline as pipeline_module  # noqa: E402
from vision.pipeline import CardReader, PipelineConfig  # noqa: E402
from vision.read import Deck  # noqa: E402
from vision.types import CardKind, CardObservation, Detection, Quad  # noqa: E402

FIELDS = ("kind", "value", "blisters", "year", "date", "stones", "sesterces", "size", "up")


@dataclass(frozen=True)
class Expected:
    """What a perfect reader reports for one card; None means "field does not apply"."""

    kind: str
    value: int | None = None
    blisters: int | None = None
    year: int | None = None
    date: str | None = None
    stones: int | None = None
    sesterces: int | None = None
    size: str | None = None
    up: bool | None = None
    """Whether the orientation is scored (cards whose ends differ)."""
    group: str = ""
    """Name of the card group in the report (the kind, or ``event`` for a Valais event side)."""


def expected_of(truth: CardTruth) -> Expected:
    """The expected reading of a ground-truth card."""
    s = truth.spec
    if s.kind is SpecKind.TILE:
        return Expected("unknown", size=s.size_class.value if s.size_class else None)
    if s.kind is SpecKind.TIMELINE:
        if truth.side is Side.EVENT:
            return Expected("timeline", group="timeline-event")
        return Expected("timeline", year=s.year, date=s.date if s.date and "-" in s.date else None, up=True)
    if s.kind is SpecKind.INCOME:
        return Expected("income", stones=s.stones, sesterces=s.sesterces, up=True)
    if s.kind is SpecKind.GLADIOLA:
        return Expected("gladiola", blisters=s.blisters)
    return Expected(s.kind.value, value=s.value, blisters=s.blisters, up=True)


def got_of(o: CardObservation, gt: np.ndarray) -> dict[str, object]:
    """The fields an observation reports (None = abstained); ``up`` is True when its quad starts
    at the card's true top-left corner."""
    up = None
    if o.kind is not CardKind.UNKNOWN:
        q0 = o.quad.as_array()[0]
        up = int(np.argmin(np.linalg.norm(gt - q0, axis=1))) == 0
    return {
        "kind": None if o.kind is CardKind.UNKNOWN and o.size is None else o.kind.value,
        "value": o.value, "blisters": o.blisters,
        "year": o.date.year if o.date is not None else None,
        "date": o.date.to_json() if o.date is not None and o.date.month is not None else None,
        "stones": o.stones, "sesterces": o.sesterces, "size": o.size, "up": up,
    }


@dataclass
class Tally:
    """Right / wrong / abstained counts of one field."""

    right: int = 0
    wrong: int = 0
    abstained: int = 0

    @property
    def n(self) -> int:
        return self.right + self.wrong + self.abstained

    def text(self) -> str:
        if self.n == 0:
            return "-"
        return f"{100 * self.right / self.n:5.1f}% ({self.right}/{self.wrong}/{self.abstained})"


@dataclass
class Report:
    """All tallies of one pass."""

    fields: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_cond: dict[tuple[str, str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    cards: int = 0
    cards_wrong: int = 0
    unmatched: int = 0
    ms: list[float] = field(default_factory=list)
    failures: list[tuple[np.ndarray, str]] = field(default_factory=list)


def score(report: Report, exp: Expected, got: dict[str, object], conds: dict[str, str],
          crop: np.ndarray | None, label: str) -> None:
    """Add one card to the report."""
    report.cards += 1
    wrong_any = False
    bad = []
    for name in FIELDS:
        want = getattr(exp, name)
        if name == "kind":
            pass
        elif want is None:
            continue
        have = got[name]
        if name == "up":
            have = None if have is None else bool(have)
            ok = have is True
            abst = have is None
        elif name == "kind" and exp.kind == "unknown":
            ok = got["kind"] in (None, "unknown")
            abst = False
        else:
            ok = have == want
            abst = have is None
        group = exp.group or exp.kind
        t = report.fields[f"{group}.{name}"]
        if ok:
            t.right += 1
        elif abst:
            t.abstained += 1
        else:
            t.wrong += 1
            wrong_any = True
        if not ok:
            bad.append(f"{name}:{want}->{have}")
        for cname, cval in conds.items():
            if name in ("kind", "value", "blisters", "year"):
                ct = report.by_cond[(cname, cval, f"{group}.{name}")]
                if ok:
                    ct.right += 1
                elif abst:
                    ct.abstained += 1
                else:
                    ct.wrong += 1
    report.cards_wrong += wrong_any
    if bad and crop is not None and (wrong_any or len(report.failures) < 300):
        report.failures.append((crop, ("WRONG " if wrong_any else "") + label + " " + " ".join(bad)))


def conditions_of(scene_truth: object) -> dict[str, str]:
    c = scene_truth.conditions  # type: ignore[attr-defined]
    tilt = "tilt<15" if c.tilt_deg < 15 else ("tilt<30" if c.tilt_deg < 30 else "tilt>=30")
    return {"blur": c.blur.value, "hands": str(c.hands), "tilt": tilt, "table": c.table.value, "style": c.style}


BLISTER_ROW_TOP_MM = {SpecKind.WALK: 58.5, SpecKind.FINISH: 50.0, SpecKind.GLADIOLA: 72.0, SpecKind.START: 70.0}
"""Top of the printed blister row (mm from the card's top on a 59 x 91 mm Via Gladiola card)."""


def blister_row_seen(card: CardTruth, cards: tuple[CardTruth, ...], width: int, height: int) -> str | None:
    """Whether the blister row of a Via Gladiola card lies fully in the image and under no other
    card (``seen``) or not (``hidden``); None for other cards. Hands are not known to the truth,
    so a row under a hand counts as seen. The whole band is judged for a card without blisters."""
    top = BLISTER_ROW_TOP_MM.get(card.spec.kind)
    if top is None or card.spec.game is not Game.GLADIOLA:
        return None
    n = card.spec.blisters or 0
    half = (n * 8.2 + (n - 1) * 1.6) / 2 if n else 24.6
    row_mm = np.float32([[29.5 - half, top], [29.5 + half, top], [29.5 + half, top + 3.8], [29.5 - half, top + 3.8]])
    to_image = cv2.getPerspectiveTransform(np.float32([[0, 0], [59, 0], [59, 91], [0, 91]]),
                                           np.float32(card.corners))
    row = cv2.perspectiveTransform(row_mm.reshape(1, 4, 2), to_image)[0]
    margin = max(width, height)  # a row partly outside the image is drawn on a larger canvas
    canvas = np.zeros((height + 2 * margin, width + 2 * margin), np.uint8)

    def fill(poly: np.ndarray, value: int) -> None:  # (quarter-pixel precision)
        cv2.fillPoly(canvas, [np.round((poly + margin) * 4).astype(np.int32)], value, cv2.LINE_8, 2)

    fill(row, 1)
    total = int(canvas.sum())
    for other in cards:
        if other.z > card.z:
            fill(np.float32(other.corners), 0)
    inside = int(canvas[margin: margin + height, margin: margin + width].sum())
    return "seen" if total and inside >= 0.97 * total else "hidden"


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = abs(cv2.contourArea(a.astype(np.float32))) + abs(cv2.contourArea(b.astype(np.float32))) - inter
    return float(inter / union) if union > 0 else 0.0


class OcrTimer:
    """Wraps the pipeline's Tesseract call to time it and count the crops sent."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.crops = 0
        self._inner = pipeline_module.read_digits

    def __call__(self, crops):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = self._inner(crops)
        self.ms.append((time.perf_counter() - t0) * 1000)
        self.crops += len(crops)
        return out


def run(games: list[Game], seeds: range, min_visible: float, e2e: bool, use_deck: bool,
        tesseract: bool) -> tuple[Report, Report, OcrTimer]:
    truth_rep, e2e_rep = Report(), Report()
    timer = OcrTimer()
    pipeline_module.read_digits = timer  # type: ignore[assignment]
    for game in games:
        deck = Deck.for_game(game.value) if use_deck else Deck()
        config = PipelineConfig(deck=deck, tesseract=tesseract, keep_images=True)
        for seed in seeds:
            scene = render_scene(seed, game, SceneConfig())
            conds = conditions_of(scene.truth)
            h, w = scene.image.shape[:2]

            def card_conds(c: CardTruth) -> dict[str, str]:
                row = blister_row_seen(c, scene.truth.cards, w, h)
                return conds if row is None else {**conds, "blister_row": row}

            shown = [c for c in scene.truth.cards if c.visible_fraction >= 0.3]
            dets = [Detection(Quad.card_order(np.array(c.corners, np.float64)), 1.0, c.visible_fraction >= min_visible)
                    for c in shown]
            reader = CardReader(config)
            t0 = time.perf_counter()
            result = reader.read_detections(scene.image, dets)
            n_read = sum(d.visible for d in dets)
            if n_read:
                truth_rep.ms.append((time.perf_counter() - t0) * 1000 / n_read)
            for c, o in zip(shown, result.observations):
                if c.visible_fraction < min_visible:
                    continue
                gt = np.array(c.corners, np.float64)
                score(truth_rep, expected_of(c), got_of(o, gt), card_conds(c), o.image,
                      f"{game.value}/{seed}/{c.spec.id}")
            if not e2e:
                continue
            reader = CardReader(config)
            t0 = time.perf_counter()
            result = reader.read_frame(scene.image)
            e2e_rep.ms.append((time.perf_counter() - t0) * 1000)
            quads = [o.quad.as_array() for o in result.observations]
            for c in shown:
                if c.visible_fraction < min_visible:
                    continue
                gt = np.array(c.corners, np.float64)
                best, bi = 0.0, -1
                for i, q in enumerate(quads):
                    v = iou(gt, q)
                    if v > best:
                        best, bi = v, i
                if best < 0.5:
                    e2e_rep.unmatched += 1
                    continue
                o = result.observations[bi]
                flagged = {"detector": "whole" if o.visible else "partly hidden"}
                score(e2e_rep, expected_of(c), got_of(o, gt), {**card_conds(c), **flagged}, o.image,
                      f"{game.value}/{seed}/{c.spec.id}")
    pipeline_module.read_digits = timer._inner  # type: ignore[assignment]
    return truth_rep, e2e_rep, timer


def print_report(name: str, rep: Report, per_card_ms: bool) -> dict[str, object]:
    print(f"\n== {name}: {rep.cards} cards, any-field wrong {rep.cards_wrong} "
          f"({100 * rep.cards_wrong / max(1, rep.cards):.2f}%)"
          + (f", unmatched {rep.unmatched}" if rep.unmatched else ""))
    if rep.ms:
        arr = np.array(rep.ms)
        unit = "card" if per_card_ms else "frame"
        print(f"   ms per {unit}: median {np.median(arr):.1f}, mean {arr.mean():.1f}, p90 {np.percentile(arr, 90):.1f}")
    print_targets(rep)
    print("   field: right% (right/wrong/abstained)")
    for key in sorted(rep.fields):
        print(f"   {key:22s} {rep.fields[key].text()}")
    return {k: {"right": t.right, "wrong": t.wrong, "abstained": t.abstained} for k, t in rep.fields.items()}


TARGETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Via Gladiola kind", ("walk.kind", "finish.kind", "start.kind", "gladiola.kind")),
    ("Via Gladiola value", ("walk.value", "finish.value", "start.value")),
    ("Via Gladiola blisters", ("walk.blisters", "finish.blisters", "start.blisters", "gladiola.blisters")),
    ("Valais year", ("timeline.year",)),
    ("Valais event side kind", ("timeline-event.kind",)),
    ("Via Appia income halves", ("income.stones", "income.sesterces")),
    ("Via Appia tile size", ("unknown.size",)),
)


def print_targets(rep: Report) -> None:
    """The headline figures: field accuracy per target group and the confident-wrong rate."""
    print("   targets (right / wrong / abstained):")
    for name, keys in TARGETS:
        t = Tally()
        for k in keys:
            f = rep.fields.get(k)
            if f is not None:
                t.right += f.right
                t.wrong += f.wrong
                t.abstained += f.abstained
        print(f"   {name:26s} {t.text()}")
    print(f"   {'confident wrong (any field)':26s} {100 * rep.cards_wrong / max(1, rep.cards):.2f}% "
          f"({rep.cards_wrong} of {rep.cards} cards)")


def print_conditions(rep: Report) -> None:
    print("\n   per condition (only fields with misses):")
    by_field: dict[str, list[tuple[str, str, Tally]]] = defaultdict(list)
    for (cname, cval, f), t in rep.by_cond.items():
        by_field[f].append((cname, cval, t))
    for f in sorted(by_field):
        rows = sorted(by_field[f])
        if all(t.right == t.n for _, _, t in rows):
            continue
        print(f"   {f}:")
        for cname, cval, t in rows:
            if t.right < t.n:
                print(f"      {cname}={cval:10s} {t.text()}")


def contact_sheet(failures: list[tuple[np.ndarray, str]], path: Path, cols: int = 8) -> None:
    """Write failing crops with their labels as one PNG."""
    if not failures:
        return
    failures = sorted(failures, key=lambda f: not f[1].startswith("WRONG"))  # confident wrongs first
    cw, ch = 150, 230 + 36
    rows = (len(failures) + cols - 1) // cols
    sheet = np.full((rows * ch, cols * cw, 3), 255, np.uint8)
    for i, (crop, label) in enumerate(failures):
        r, c = divmod(i, cols)
        small = cv2.resize(crop, (cw - 4, 230 - 4), interpolation=cv2.INTER_AREA)
        sheet[r * ch + 2: r * ch + 228, c * cw + 2: c * cw + cw - 2] = small
        words = label.split(" ")
        lines, cur = [], ""
        for w in words:
            if len(cur) + len(w) > 24:
                lines.append(cur)
                cur = w
            else:
                cur = (cur + " " + w).strip()
        lines.append(cur)
        for k, line in enumerate(lines[:3]):
            cv2.putText(sheet, line, (c * cw + 2, r * ch + 240 + 11 * k), cv2.FONT_HERSHEY_PLAIN, 0.75,
                        (0, 0, 200) if label.startswith("WRONG") else (0, 0, 0), 1, cv2.LINE_AA)
    cv2.imwrite(str(path), sheet)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", default=["gladiola", "valais", "appia"])
    p.add_argument("--seeds", nargs=2, type=int, default=[0, 30], metavar=("FIRST", "STOP"))
    p.add_argument("--min-visible", type=float, default=0.9)
    p.add_argument("--no-e2e", action="store_true", help="skip the detector pass")
    p.add_argument("--no-tesseract", action="store_true", help="in-process reader only")
    p.add_argument("--any-deck", action="store_true", help="read without knowing the game")
    p.add_argument("--sheet", type=Path, help="write failing crops (truth pass) to this PNG")
    p.add_argument("--json", type=Path, help="write the field tallies as JSON")
    args = p.parse_args(argv)
    games = [Game(g) for g in args.games]
    truth_rep, e2e_rep, timer = run(games, range(*args.seeds), args.min_visible, not args.no_e2e, not args.any_deck,
                                    not args.no_tesseract)
    out = {"truth": print_report("truth corners", truth_rep, True)}
    if timer.ms:
        print(f"   tesseract: {len(timer.ms)} calls, {timer.crops} crops, "
              f"median {np.median(timer.ms):.0f} ms per call, "
              f"{sum(timer.ms) / max(1, timer.crops):.1f} ms per crop")
    print_conditions(truth_rep)
    if not args.no_e2e:
        out["e2e"] = print_report("end to end (detector + reader)", e2e_rep, False)
        print_conditions(e2e_rep)
    if args.sheet:
        contact_sheet(truth_rep.failures, args.sheet)
        print(f"\ncontact sheet: {args.sheet} ({len(truth_rep.failures)} crops)")
        if e2e_rep.failures:
            e2e_sheet = args.sheet.with_name(args.sheet.stem + "-e2e" + args.sheet.suffix)
            contact_sheet(e2e_rep.failures, e2e_sheet)
            print(f"contact sheet (end to end): {e2e_sheet} ({len(e2e_rep.failures)} crops)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
