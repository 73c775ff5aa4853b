"""Measure deck enrollment on a deck drawn in a style the readers were never built for.

    python scripts/eval_enrollment.py [--scenes 150] [--valais-scenes 60] [--seed 0] [--json]
                                      [--dump DIR]

1. Draws every card of the sample Via Gladiola deck (and 64 Valais*Wallis event sides) in an
   own "slate" style (dark card, Hershey fonts, blister crosses in a side column, one shared
   gladiola picture, procedural event pictures) that samples.render does not know.
2. Enrollment: one clean photo per card (a single card on a table, rendered by
   samples.render.scene with degrade=False and a random camera), located with
   calibration.enroll_photo.locate_card (the card's outline on the plain background, checked
   against vision.detect's quads), exactly as ``companion calibrate deck`` does; timed.
3. Recognition: hard scenes from render_scene with random conditions (perspective, lens
   distortion, blur, noise, JPEG, glare, hands, overlapping cards, coloured light). Each card is
   cut out with its ground-truth quad and matched; a card in full view left unanswered (or a Via
   Gladiola card left without its plaster count) is matched once more from the scene with its
   motion blur taken out, as the pipeline does (``PipelineConfig.deblur``; the time counts in
   the match time). Reported per visibility bucket: answered,
   abstained, value and blister accuracy over all cards (``value_of_all``, ``blisters_of_all``:
   an abstention counts as a miss) and over the answers, confident-wrong answers, answers read
   from the crop turned a quarter (``quarter_turned``: the crop was cut on the card's side), match
   time.

``--dump DIR`` writes every fully visible card that was missed (abstained, wrong, or blisters left
open) as a PNG into DIR: the crop as matched, the enrollment crop of the true card and those of
the two nearest cards of other looks, each with its descriptor lightness below it, captions
(seed, card, answer, blur, distances) and the matcher's reason (``DeckMatcher.explain``).

The custom faces reach the renderer by replacing ``samples.render.scene._face_at`` inside this
process only (the renderer itself is unchanged).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import samples.render.scene as scene_mod  # noqa: E402
from calibration.deck import CardLabel, DeckGame, DeckKind, DeckMatcher, Match, enroll  # noqa: E402
from calibration.enroll_photo import locate_card  # noqa: E402
from calibration.features import describe  # noqa: E402
from samples.render.cards import Face  # noqa: E402
from samples.render.layouts import Placement  # noqa: E402
from samples.render.scene import BlurKind, SceneConfig, render_scene  # noqa: E402
from samples.render.specs import CardKind, CardSpec, Game, Side, default_specs  # noqa: E402
from samples.render.tables import TableKind  # noqa: E402
from vision.deblur import MotionBlur, deblurred_crop, estimate_motion_blur  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.pipeline import PLAIN_SMEAR  # noqa: E402
from vision.rectify import RectifyConfig, outside_mask, rectify  # noqa: E402
from vision.types import Quad  # noqa: E402

DRAW_PPM = 6.0
CROP = RectifyConfig(240, 368)
SLATE = (74, 58, 48)        # BGR card colour
CHALK = (236, 240, 242)
ENROLL_TABLE = TableKind.CLOTH_WHITE
"""Enrollment photos are taken on a plain background that contrasts with the dark cards."""
BLISTER = (40, 120, 240)


# --------------------------------------------------------------------------------------------
# The unseen style


def _text(img: np.ndarray, text: str, centre: tuple[float, float], height: float, colour: tuple[int, int, int],
          thick: int, font: int = cv2.FONT_HERSHEY_TRIPLEX, flip: bool = False) -> None:
    """Draw ``text`` centred at ``centre`` with glyphs ``height`` px high (turned 180 if ``flip``)."""
    scale = height / 22.0
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 4
    patch = np.zeros((th + 2 * pad + 6, tw + 2 * pad, 3), np.uint8)
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.putText(mask, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    if flip:
        mask = cv2.rotate(mask, cv2.ROTATE_180)
    x0 = int(round(centre[0] - mask.shape[1] / 2))
    y0 = int(round(centre[1] - mask.shape[0] / 2))
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + mask.shape[1]), min(h, y0 + mask.shape[0])
    m = mask[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.float32)[:, :, None] / 255
    region = img[ya:yb, xa:xb].astype(np.float32)
    img[ya:yb, xa:xb] = (region * (1 - m) + np.array(colour, np.float32) * m).astype(np.uint8)


def _blisters(img: np.ndarray, n: int, s: float) -> None:
    """``n`` blister crosses in a column down the right edge of the upper half."""
    w = img.shape[1]
    for k in range(n):
        cx, cy = int(w - 9 * s), int((14 + 9 * k) * s)
        cv2.circle(img, (cx, cy), int(3.6 * s), BLISTER, -1, cv2.LINE_AA)
        arm = int(2.2 * s)
        cv2.line(img, (cx - arm, cy), (cx + arm, cy), CHALK, max(1, int(0.8 * s)), cv2.LINE_AA)
        cv2.line(img, (cx, cy - arm), (cx, cy + arm), CHALK, max(1, int(0.8 * s)), cv2.LINE_AA)


def _gladiola_picture(img: np.ndarray, s: float) -> None:
    w, h = img.shape[1], img.shape[0]
    cx = int(w * 0.42)
    cv2.line(img, (cx, int(h * 0.85)), (cx, int(h * 0.25)), (60, 150, 60), int(1.6 * s), cv2.LINE_AA)
    for k in range(6):
        y = int(h * 0.3 + k * 7.5 * s)
        side = -1 if k % 2 else 1
        cv2.ellipse(img, (cx + side * int(3.5 * s), y), (int(5.5 * s), int(3.2 * s)), 25 * side, 0, 360,
                    (150, 60, 230), -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx - int(6 * s), int(h * 0.8)), (int(7 * s), int(2.5 * s)), -30, 0, 360, (60, 150, 60), -1,
                cv2.LINE_AA)


def draw_face(spec: CardSpec, side: Side, ppm: float = DRAW_PPM) -> np.ndarray:
    """A BGR face of ``spec`` in the slate style at ``ppm`` pixels per millimetre."""
    w, h = round(59 * ppm), round(91 * ppm)
    s = ppm
    img = np.full((h, w, 3), SLATE, np.uint8)
    cv2.rectangle(img, (int(2.5 * s), int(2.5 * s)), (w - int(2.5 * s), h - int(2.5 * s)), CHALK, max(1, int(0.5 * s)),
                  cv2.LINE_AA)
    if spec.game is Game.VALAIS:
        rng = np.random.default_rng(zlib.crc32(spec.id.encode()))
        if side is Side.DATE:
            _text(img, str(spec.year), (w / 2, h * 0.4), 13 * s, CHALK, max(1, int(s)))
            return img
        sky = tuple(int(v) for v in rng.integers(90, 220, 3))
        cv2.rectangle(img, (int(5 * s), int(6 * s)), (w - int(5 * s), int(h * 0.7)), sky, -1)
        for _ in range(7):
            col = tuple(int(v) for v in rng.integers(0, 255, 3))
            x, y = int(rng.uniform(6, 53) * s), int(rng.uniform(8, 60) * s)
            r = int(rng.uniform(3, 11) * s)
            if rng.random() < 0.5:
                cv2.circle(img, (x, y), r, col, -1, cv2.LINE_AA)
            else:
                pts = (np.array([[x, y - r], [x + r, y + r], [x - r, y + r]]) + rng.integers(-r // 2, r // 2 + 1, (3, 2)))
                cv2.fillConvexPoly(img, pts.astype(np.int32), col, cv2.LINE_AA)
        words = (spec.title or spec.id).split()
        for k in range(0, min(len(words), 6), 2):
            _text(img, " ".join(words[k:k + 2])[:18], (w / 2, h * 0.76 + k * 3.2 * s), 3.2 * s, CHALK, 1,
                  cv2.FONT_HERSHEY_COMPLEX_SMALL)
        return img
    thick = max(1, int(0.9 * s))
    if spec.kind is CardKind.GLADIOLA:
        _gladiola_picture(img, s)
    elif spec.kind is CardKind.START:
        _text(img, "START", (w / 2, h / 2), 9 * s, (80, 220, 250), thick)
        for k, (x, y) in enumerate(((0.8, 0.1), (0.8, 0.9), (0.2, 0.9), (0.2, 0.1))):
            _text(img, f"T{k + 1}", (w * x, h * y), 4 * s, CHALK, 1, flip=y > 0.5)
    else:
        v = spec.value or 0
        if spec.kind is CardKind.FINISH:
            for k in range(12):
                x0 = int(4 * s + k * 4.25 * s)
                cv2.rectangle(img, (x0, int(h * 0.6)), (x0 + int(2.1 * s), int(h * 0.64)), CHALK, -1)
            _text(img, "ZIEL", (w / 2, h * 0.7), 6 * s, CHALK, thick)
        _text(img, str(v), (w * 0.45, h * 0.45), 16 * s, CHALK, max(1, int(1.3 * s)))
        _text(img, str(v), (9 * s, 7 * s), 5 * s, (80, 220, 250), thick, cv2.FONT_HERSHEY_DUPLEX)
        _text(img, str(v), (w - 9 * s, h - 7 * s), 5 * s, (80, 220, 250), thick, cv2.FONT_HERSHEY_DUPLEX, flip=True)
        if spec.kind is CardKind.WALK:
            for k in range(3):
                _text(img, f"{v + 1 + 5 * k}-{v + 5 + 5 * k}  {'*' * k or '-'}", (w * 0.45, h * (0.7 + 0.07 * k)),
                      3.6 * s, CHALK, 1, cv2.FONT_HERSHEY_SIMPLEX)
    _blisters(img, spec.blisters or 0, s)
    return img


def _alpha(w: int, h: int, ppm: float) -> np.ndarray:
    big = np.zeros((h * 4, w * 4), np.uint8)
    r = int(3.0 * ppm * 4)
    cv2.rectangle(big, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


_FACES: dict[tuple[str, Side, float], Face] = {}


def _slate_face_at(spec: CardSpec, style: object, side: Side, level: float) -> Face:
    """Replacement of the renderer's face cache: slate faces at the requested scale."""
    key = (spec.id, side, level)
    if key not in _FACES:
        big = draw_face(spec, side, DRAW_PPM)
        size = (round(59 * level), round(91 * level))
        image = cv2.resize(big, size, interpolation=cv2.INTER_AREA) if size != big.shape[1::-1] else big
        _FACES[key] = Face(image, _alpha(size[0], size[1], level), None, level)  # type: ignore[arg-type]
    return _FACES[key]


scene_mod._face_at = _slate_face_at  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------
# Enrollment photos and crops


def m_look(m: Match) -> tuple[object, ...]:
    """The printed fields of an answer, comparable with ``CardLabel.look``."""
    return (m.kind, m.value, m.blisters, m.year)


def label_of(spec: CardSpec) -> CardLabel:
    if spec.game is Game.VALAIS:
        return CardLabel(spec.id, DeckKind.TIMELINE, year=spec.year)
    return CardLabel(spec.id, DeckKind(spec.kind.value), spec.value, spec.blisters)


def enrollment_photo(spec: CardSpec, side: Side, seed: int) -> np.ndarray:
    """A clean photo of one card alone on a table, turned so that the card's top is up."""
    cfg = SceneConfig(resolution=(1280, 960), specs=(spec,), placements=(Placement(spec, side, (0.0, 0.0), 0.0),),
                      blur=BlurKind.NONE, glare=False, hands=0, degrade=False, tilt_deg=8.0, fill=0.55,
                      table=ENROLL_TABLE)
    sc = render_scene(seed, spec.game, cfg)
    c = np.array(sc.truth.cards[0].corners)
    up = c[0] - c[3]
    turns = int(round(math.degrees(math.atan2(up[0], -up[1])) / 90.0)) % 4  # clockwise angle of "up" / 90
    img = sc.image
    for _ in range(turns):
        img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return img


def locate(photo: np.ndarray) -> np.ndarray:
    """The card of an enrollment photo, cut out exactly as ``companion calibrate deck`` does."""
    return locate_card(photo, [d.quad.as_array() for d in detect_cards(photo)])


@dataclass
class Tally:
    n: int = 0
    answered: int = 0
    value_ok: int = 0
    blisters_answered: int = 0
    blisters_ok: int = 0
    identity_ok: int = 0
    flip_ok: int = 0
    turned: int = 0
    wrong: int = 0

    def to_json(self) -> dict[str, object]:
        a = max(1, self.answered)
        n = max(1, self.n)
        return {"cards": self.n, "answered": self.answered, "abstained": self.n - self.answered,
                "value_of_all": round(self.value_ok / n, 4), "blisters_of_all": round(self.blisters_ok / n, 4),
                "value_accuracy": round(self.value_ok / a, 4),
                "blister_answers": self.blisters_answered,
                "blister_accuracy": round(self.blisters_ok / max(1, self.blisters_answered), 4),
                "look_accuracy": round(self.identity_ok / a, 4), "orientation_accuracy": round(self.flip_ok / a, 4),
                "quarter_turned": self.turned, "confident_wrong": self.wrong}


def bucket(v: float) -> str:
    return "full (>=0.95)" if v >= 0.95 else "partial (0.7-0.95)" if v >= 0.7 else "hidden (<0.7)"


def _panel(crop: np.ndarray, caption: str) -> np.ndarray:
    """A crop (at ``CROP`` size) with its descriptor lightness below it and a caption above."""
    crop = cv2.resize(crop, (CROP.width, CROP.height), interpolation=cv2.INTER_AREA)
    luma = describe(crop).luma
    grey = np.clip(128 + 50 * luma, 0, 255).astype(np.uint8)
    grey = cv2.resize(grey, (CROP.width, CROP.width * luma.shape[0] // luma.shape[1]), interpolation=cv2.INTER_NEAREST)
    panel = np.vstack([np.full((22, CROP.width, 3), 255, np.uint8), crop, cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)])
    cv2.putText(panel, caption, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    return panel


def dump_miss(directory: Path, name: str, crop: np.ndarray, truth: int, matcher: DeckMatcher,
              enrolled: list[np.ndarray], answer: str, blur: str) -> None:
    """One PNG: the missed crop, the true card's enrollment crop and the two nearest other looks."""
    dist = matcher.distances(crop).min(axis=0)
    labels = matcher.deck.labels
    rivals = [int(i) for i in np.argsort(dist) if labels[int(i)].look != labels[truth].look][:2]
    panels = [_panel(crop, f"{name} -> {answer} ({blur})")]
    for i in [truth, *rivals]:
        panels.append(_panel(enrolled[i], f"{labels[i].identity} d={dist[i]:.3f}"))
    sheet = np.hstack(panels)
    why = np.full((22, sheet.shape[1], 3), 255, np.uint8)
    cv2.putText(why, matcher.explain(crop)[1][:150], (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 160), 1,
                cv2.LINE_AA)
    directory.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(directory / f"{name}.png"), np.vstack([sheet, why]))


def _deblurred_match(matcher: DeckMatcher, image: np.ndarray, quad: Quad, blur: MotionBlur | None,
                     outside: np.ndarray | None) -> Match | None:
    """The matcher's answer for ``quad`` cut from ``image`` with ``blur`` taken out (None when no
    plain smear was estimated, as in the pipeline)."""
    if blur is None or blur.prominence < PLAIN_SMEAR:
        return None
    return matcher.match(deblurred_crop(image, quad, blur, CROP), outside)


def _filled_in_match(m: Match | None, again: Match | None) -> Match | None:
    """``m`` completed by ``again`` the way the pipeline completes a reading: ``again`` whole when
    ``m`` is None, its blister count when ``m`` left it open and both name the same printed card."""
    if m is None or again is None:
        return again if m is None else m
    if m.blisters is None and again.blisters is not None and (again.kind, again.value, again.year) == (
            m.kind, m.value, m.year):
        return again
    return m


def evaluate(game: Game, specs: tuple[CardSpec, ...], side: Side, scenes: int, seed0: int,
             dump: Path | None = None) -> dict[str, object]:
    dgame = DeckGame(game.value)
    t0 = time.perf_counter()
    photos = [enrollment_photo(s, side, 1000 + i) for i, s in enumerate(specs)]
    t_render = time.perf_counter() - t0
    t0 = time.perf_counter()
    crops = [locate(p) for p in photos]
    deck = enroll(dgame, [(label_of(s), c) for s, c in zip(specs, crops)])
    t_enroll = time.perf_counter() - t0
    matcher = DeckMatcher(deck)
    tallies: dict[str, Tally] = defaultdict(Tally)
    errors = []
    match_time, matched = 0.0, 0
    known = {s.id for s in specs}
    blurs: dict[int, MotionBlur | None] = {}
    for k in range(scenes):
        sc = render_scene(seed0 + k, game, SceneConfig(specs=specs))
        for truth in sc.truth.cards:
            if truth.side is not side or truth.spec.id not in known or truth.visible_fraction < 0.3:
                continue
            gt = Quad.from_array(truth.corners)
            crop = rectify(sc.image, gt, CROP)
            outside = outside_mask(sc.image.shape[:2], gt, CROP)
            flipped_truth = Quad.card_order(gt.as_array()).corners[0] != gt.corners[0]
            t = time.perf_counter()
            m = matcher.match(crop, outside)
            if truth.visible_fraction >= 0.95 and (m is None or (m.blisters is None and game is Game.GLADIOLA)):
                # as the pipeline does (PipelineConfig.deblur) for a card in full view it left
                # partly unread: matched again with the frame's motion blur taken out
                if k not in blurs:
                    blurs[k] = estimate_motion_blur(sc.image)
                m = _filled_in_match(m, _deblurred_match(matcher, sc.image, gt, blurs[k], outside))
            match_time += time.perf_counter() - t
            matched += 1
            spec = truth.spec
            if dump is not None and truth.visible_fraction >= 0.95 and (
                    m is None or m_look(m) != label_of(spec).look):
                answer = "abstain" if m is None else f"{m.identity}/b{m.blisters}"
                dump_miss(dump, f"{seed0 + k}-{spec.id}", crop, specs.index(spec), matcher, crops, answer,
                          str(sc.truth.conditions.to_json()["blur"]))
            for name in (bucket(truth.visible_fraction), "all (>=0.3)"):
                tl = tallies[name]
                tl.n += 1
                if m is None:
                    continue
                tl.answered += 1
                value_ok = (m.kind.value == spec.kind.value and m.value == spec.value and m.year == spec.year)
                tl.value_ok += value_ok
                tl.identity_ok += value_ok and m.blisters in (None, spec.blisters)
                tl.flip_ok += m.flipped == flipped_truth and not m.turned
                tl.turned += m.turned
                if m.blisters is not None:
                    tl.blisters_answered += 1
                    tl.blisters_ok += m.blisters == spec.blisters
                bad = not value_ok or (m.blisters is not None and m.blisters != spec.blisters)
                tl.wrong += bad
                if bad and name.startswith("all"):
                    errors.append({"seed": seed0 + k, "card": spec.id, "got": [m.identity, m.value, m.blisters],
                                   "score": m.score, "visible": round(truth.visible_fraction, 3),
                                   "conditions": {c: sc.truth.conditions.to_json()[c] for c in ("blur", "glare", "hands", "layout")}})
    return {
        "game": game.value, "cards_enrolled": len(specs),
        "enrollment_seconds": round(t_enroll, 2), "photo_render_seconds": round(t_render, 2),
        "scenes": scenes, "match_ms_per_card": round(1000 * match_time / max(1, matched), 2),
        "confusable_pairs": [[a, b, round(d, 3)] for a, b, d in matcher.confusable(3)],
        "buckets": {k: v.to_json() for k, v in sorted(tallies.items())},
        "errors": errors[:20],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=150)
    ap.add_argument("--valais-scenes", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--dump", type=Path, default=None, metavar="DIR",
                    help="write missed fully visible cards as PNGs into DIR (e.g. /tmp/enroll_dbg)")
    args = ap.parse_args()
    results = [evaluate(Game.GLADIOLA, default_specs(Game.GLADIOLA), Side.FRONT, args.scenes, args.seed,
                        args.dump)]
    if args.valais_scenes:
        valais = default_specs(Game.VALAIS)[:64]
        results.append(evaluate(Game.VALAIS, valais, Side.EVENT, args.valais_scenes, args.seed))
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for r in results:
        print(f"== {r['game']}: {r['cards_enrolled']} cards enrolled in {r['enrollment_seconds']} s "
              f"(detect + rectify + describe; rendering the photos took {r['photo_render_seconds']} s); "
              f"{r['scenes']} scenes; {r['match_ms_per_card']} ms per match")
        print(f"   closest different-looking pairs: {r['confusable_pairs']}")
        for name, b in r["buckets"].items():
            print(f"   {name:20s} {json.dumps(b)}")
        for e in r["errors"]:
            print(f"   wrong: {json.dumps(e)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
