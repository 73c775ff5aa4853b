"""Sample game videos: a simulated game filmed by a fixed webcam, with exact ground truth.

:func:`plan_video` plays a game with :func:`companion.simulate.simulate`, replays its actions on
the engine and turns each event's change of the public table into *steps*: a :class:`Move`
(a hand comes in from the acting player's side, lays, shifts, turns or takes away cards, and
leaves) or a :class:`Hold` (a calm table). :func:`render_video` draws the frames of a plan
(fixed camera, mild lens distortion, light flicker, sensor noise) and writes

* ``NAME.mp4``: the video (``mp4v`` codec; ``cv2.VideoCapture`` reads it back frame by frame),
* ``NAME.log.json``: the event log, exactly what ``companion simulate --json`` prints,
* ``NAME.truth.json``: per-frame ground truth (every card on the table or in a hand: identity,
  side, corners in image pixels, visible fraction, moving or lying), one frame range per event,
  and the *settles*: for each card an event laid, moved or turned, the first frame in which it
  lies still in its final place with no hand in the image (for removed cards: the first frame
  without hand after it left).

What the table shows, per game (the public view of the engine after each event):

* Via Gladiola: today's walk pile with each card a little off the one beneath (so lower cards
  peek out), the START card at its bottom turned a quarter per day, the set-aside piles of
  finished days in a column to the left, the gladiola spot to the right of the pile. A FINISH
  card is laid and rests; then the day's pile is carried to its set-aside place, then START
  is turned. A reshuffle carries the earliest set-aside pile away. After the last event each
  player in turn lays their hand face up in a row below the pile; it rests and is taken away
  (the last one stays). Hidden things (hands, draw pile, pauses) are off camera: a pause
  gives a short calm hold.
* Valais*Wallis: the timeline row of date-side cards, wrapped into lines of
  :data:`ROW_LENGTH` cards. A placed card comes in event side up, the cards after its position
  shift to make room, it is turned date side up; a wrong card rests, then is taken away and the
  row closes. A 1915 joker takes a card out of the row. Hands, stack and set-aside cards are
  off camera (their events give a short calm hold).

Everything is deterministic for (game, players, seed, config): the frames are bit-identical,
and so are the JSON files.
"""

from __future__ import annotations

import gzip
import json
import math
import time
import zlib
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterator, Union

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.games import get_game
from companion.simulate import GameLog, simulate
from samples.render.camera import Camera, apply_homography, distort_points, distortion_maps
from samples.render.cards import STYLES, CardStyle
from samples.render.layouts import Placement
from samples.render.scene import (_composite_card, _draw_hand, _draw_table, _face_at, _gain_field, _hand_mask,
                                  _level_for)
from samples.render.specs import CardSpec, Game, Side, default_specs
from samples.render.tables import VARIANTS, TableKind

VIDEO_GAMES: tuple[Game, ...] = (Game.GLADIOLA, Game.VALAIS)
ROW_LENGTH = 8            # Valais: cards per line of the timeline row
ROW_PITCH_MM = 68.0       # Valais: centre to centre along a line
LINE_PITCH_MM = 108.0     # Valais: between lines
PALM_MM = 85.0            # an adult palm
LIFT_LEVEL = 5            # shadow level of a card held above the table


# --------------------------------------------------------------------------------------------
# Configuration and plan


@dataclass(frozen=True)
class VideoConfig:
    """How a game is filmed.

    ``move_seconds``: one hand movement (in, lay, out); ``rest_seconds``: calm table after it;
    ``idle_seconds``: calm table for an event the camera cannot see (a pause, a draw).
    ``max_events``: film only the first events (short test videos); None films the whole game.
    ``degrade=False`` turns off noise, flicker and lens distortion. ``table``: the surface
    (None: chosen from the seed).
    """

    fps: int = 10
    resolution: tuple[int, int] = (1280, 720)
    move_seconds: float = 1.2
    rest_seconds: float = 0.6
    idle_seconds: float = 0.3
    intro_seconds: float = 1.0
    max_events: int | None = None
    degrade: bool = True
    table: TableKind | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.fps <= 60:
            raise ValueError(f"expected 1..60 frames per second, got {self.fps}")
        w, h = self.resolution
        if w < 64 or h < 64 or w % 2 or h % 2:
            raise ValueError(f"expected an even resolution of at least 64x64, got {w}x{h}")
        if self.max_events is not None and self.max_events < 0:
            raise ValueError(f"expected a non-negative event limit, got {self.max_events}")

    def frames(self, seconds: float) -> int:
        """Frames for a duration (at least one)."""
        return max(1, round(seconds * self.fps))


class ChangeKind(Enum):
    """What a hand movement did to one card."""

    PLACED = "placed"
    MOVED = "moved"
    TURNED = "turned"
    REMOVED = "removed"


Table = tuple[Placement, ...]  # cards on the table, bottom first, each card once


@dataclass(frozen=True)
class Move:
    """A hand changes the table from ``before`` to ``after``.

    ``event``: the log turn this belongs to (None for the final hand reveal); ``player``: whose
    hand (decides the border it enters from); ``carried``: new cards carried in showing another
    side than they end up with (they are turned over on arrival); ``reveal``: the player whose
    hand is being shown (final reveal), else None.
    """

    event: int | None
    player: int
    before: Table
    after: Table
    carried: tuple[tuple[str, Side], ...] = ()
    reveal: int | None = None


@dataclass(frozen=True)
class Hold:
    """A calm table for ``seconds``."""

    event: int | None
    table: Table
    seconds: float


Step = Union[Move, Hold]


@dataclass(frozen=True)
class VideoPlan:
    """A filmed game before rendering: the log, the steps and the cards' specs."""

    game: Game
    seed: int
    log: GameLog
    events: int                       # how many log events are filmed
    steps: tuple[Step, ...]
    specs: tuple[CardSpec, ...]
    reveals: tuple[tuple[int, tuple[str, ...]], ...]  # (player, hand cards) at the end (Gladiola)

    def log_json(self) -> dict[str, Any]:
        """The event log in ``companion simulate --json`` form (truncated to the filmed events)."""
        data = self.log.to_json()
        data["events"] = data["events"][: self.events]
        return data


def _rng(seed: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(("video/" + purpose).encode("utf-8"))])


def _without(table: Table, ids: set[str]) -> Table:
    return tuple(p for p in table if p.spec.id not in ids)


# --------------------------------------------------------------------------------------------
# Via Gladiola


class _GladiolaTable:
    """Where each Gladiola card lies: assigns poses as the public view changes."""

    def __init__(self, seed: int, specs: dict[str, CardSpec]) -> None:
        self.seed = seed
        self.specs = specs
        self.poses: dict[str, Placement] = {}

    def start_pose(self, day: int) -> Placement:
        jitter = _rng(self.seed, f"start/{day}").normal(0, 2.5)
        return Placement(self.specs["S"], Side.FRONT, (0.0, 0.0), 90.0 * (day - 1) + float(jitter), 0)

    def pile_pose(self, card: str, pile: tuple[str, ...], day: int) -> Placement:
        """A card laid on top of ``pile`` (START first): a little off the card beneath."""
        rng = _rng(self.seed, f"pile/{day}/{len(pile)}")
        below = self.poses.get(pile[-1]) if len(pile) > 1 else None
        x, y = below.centre if below is not None else (0.0, 0.0)
        x = float(np.clip(x + rng.normal(0, 6), -22, 22))
        y = float(np.clip(y + rng.normal(0, 7), -22, 22))
        return Placement(self.specs[card], Side.FRONT, (x, y), float(rng.normal(0, 8)), len(pile))

    def aside_pose(self, card: str, day: int, k: int) -> Placement:
        rng = _rng(self.seed, f"aside/{day}/{k}")
        centre = (-170.0 + rng.normal(0, 1.5), -112.0 + 112.0 * (day - 1) + rng.normal(0, 1.5))
        return Placement(self.specs[card], Side.FRONT, (float(centre[0]), float(centre[1])),
                         float(rng.normal(0, 3)), k)

    def gladiola_pose(self, card: str, k: int) -> Placement:
        rng = _rng(self.seed, f"gladiola/{k}")
        return Placement(self.specs[card], Side.FRONT, (122.0 + 21.0 * k, -12.0 + 5.0 * k + rng.normal(0, 2)),
                         float(rng.normal(0, 5)), k)

    def reveal_row(self, player: int, cards: tuple[str, ...]) -> Table:
        rng = _rng(self.seed, f"reveal/{player}")
        n = len(cards)
        step = min(34.0, 380.0 / max(1, n - 1))
        out = []
        for i, card in enumerate(cards):
            x = (i - (n - 1) / 2) * step
            out.append(Placement(self.specs[card], Side.FRONT, (x + rng.normal(0, 1), 222.0 + rng.normal(0, 2)),
                                 float(rng.normal(0, 2.5)), i))
        return tuple(out)

    def table(self, view: Any) -> Table:
        """The cards of a public view, bottom first, with poses assigned on first sight."""
        out: list[Placement] = []
        on_table = view.on_table() | {"S"}
        for card in [c for c in self.poses if c not in on_table]:  # reshuffled cards come back anew
            del self.poses[card]
        for day, pile in enumerate(view.set_aside, start=1):
            for k, card in enumerate(pile):
                pose = self.poses.get(card)
                if pose is None or pose.centre[0] > -100:  # not yet in its set-aside place
                    pose = self.poses[card] = self.aside_pose(card, day, k)
                out.append(pose)
        self.poses["S"] = self.start_pose(view.day)
        out.append(self.poses["S"])
        for i, card in enumerate(view.walk_pile[1:], start=1):
            if card not in self.poses:
                self.poses[card] = self.pile_pose(card, view.walk_pile[:i], view.day)
            out.append(self.poses[card])
        for k, card in enumerate(view.gladiolas):
            if card not in self.poses:
                self.poses[card] = self.gladiola_pose(card, k)
            out.append(self.poses[card])
        return tuple(out)


def _gladiola_steps(log: GameLog, events: int, seed: int, config: VideoConfig,
                    specs: dict[str, CardSpec]) -> tuple[list[Step], tuple[tuple[int, tuple[str, ...]], ...]]:
    module = get_game("gladiola")
    state = module.new_game(len(log.players), seed)
    place = _GladiolaTable(seed, specs)
    table = place.table(state.public_view())
    steps: list[Step] = [Hold(None, table, config.intro_seconds)]
    for event in log.events[:events]:
        before = state.public_view()
        state.apply(event.action)
        after = state.public_view()
        player = event.player if event.player is not None else 0
        turn = event.turn
        start_steps = len(steps)
        if after.day != before.day:
            # FINISH lies on the old pile first; a reshuffle (drawing) follows; then the pile is
            # carried to its set-aside place (START stays); then START is turned for the new day.
            finished = after.set_aside[len(before.set_aside)]
            laid = replace(before, walk_pile=("S",) + tuple(finished), gladiolas=after.gladiolas)
            views = [laid, replace(laid, set_aside=after.set_aside[: len(before.set_aside)],
                                   reshuffles=after.reshuffles),
                     replace(after, day=before.day), after]
        else:
            # A walk, a gladiola or a pause: the new card first, then the reshuffle (if any).
            views = [replace(after, set_aside=before.set_aside, reshuffles=before.reshuffles), after]
        for view in views:
            new_table = place.table(view)
            if new_table != table:
                steps += [Move(turn, player, table, new_table), Hold(turn, new_table, config.rest_seconds)]
                table = new_table
        if len(steps) == start_steps:
            steps.append(Hold(turn, table, config.idle_seconds))
    reveals: list[tuple[int, tuple[str, ...]]] = []
    if events == len(log.events):
        for p, hand in enumerate(state.hands):
            if not hand:
                continue
            reveals.append((p, tuple(hand)))
            shown = table + place.reveal_row(p, tuple(hand))
            steps += [Move(None, p, table, shown, reveal=p), Hold(None, shown, config.rest_seconds * 2)]
            if p != max(q for q, h in enumerate(state.hands) if h):
                steps.append(Move(None, p, shown, table))
            else:
                table = shown
        steps.append(Hold(None, table, config.rest_seconds))
    return steps, tuple(reveals)


# --------------------------------------------------------------------------------------------
# Valais*Wallis


class _ValaisRow:
    """Poses of the timeline row: slot k is line k // ROW_LENGTH, column k % ROW_LENGTH."""

    def __init__(self, seed: int, specs: dict[str, CardSpec]) -> None:
        self.seed = seed
        self.specs = specs

    def pose(self, card: str, slot: int, side: Side = Side.DATE) -> Placement:
        line, col = divmod(slot, ROW_LENGTH)
        rng = _rng(self.seed, f"row/{card}")
        x = (col - (ROW_LENGTH - 1) / 2) * ROW_PITCH_MM + rng.normal(0, 1.5)
        y = line * LINE_PITCH_MM + 0.0006 * x * x + rng.normal(0, 1.5)
        return Placement(self.specs[card], side, (float(x), float(y)), float(rng.normal(0, 2.0)))

    def table(self, row: tuple[str, ...]) -> Table:
        return tuple(self.pose(card, k) for k, card in enumerate(row))


def _valais_steps(log: GameLog, events: int, seed: int, config: VideoConfig,
                  specs: dict[str, CardSpec]) -> list[Step]:
    module = get_game("valais")
    state = module.new_game(len(log.players), seed)
    place = _ValaisRow(seed, specs)

    def row_of(view: Any) -> tuple[str, ...]:
        return tuple(str(c.card_id) for c in view.timeline)

    table = place.table(row_of(state.public_view()))
    steps: list[Step] = [Hold(None, table, config.intro_seconds)]
    for event in log.events[:events]:
        before = row_of(state.public_view())
        state.apply(event.action)
        after = row_of(state.public_view())
        player = event.player if event.player is not None else 0
        turn = event.turn
        action = event.action
        if isinstance(action, module.Place):
            card = str(action.card_id)
            tried = before[: action.position] + (card,) + before[action.position:]
            tried_table = place.table(tried)
            steps += [Move(turn, player, table, tried_table, carried=((card, Side.EVENT),)),
                      Hold(turn, tried_table, config.rest_seconds)]
            table = tried_table
        after_table = place.table(after)
        if after_table != table:
            steps += [Move(turn, player, table, after_table), Hold(turn, after_table, config.rest_seconds)]
            table = after_table
        if not steps or getattr(steps[-1], "event", None) != turn:
            steps.append(Hold(turn, table, config.idle_seconds))
    steps.append(Hold(None, table, config.rest_seconds))
    return steps


# --------------------------------------------------------------------------------------------
# Planning


def _specs_by_id(game: Game) -> dict[str, CardSpec]:
    return {s.id: s for s in default_specs(game)}


def plan_video(game: Game, players: int | str, seed: int, config: VideoConfig = VideoConfig()) -> VideoPlan:
    """Simulate a game and turn its events into hand movements and calm holds."""
    if game not in VIDEO_GAMES:
        raise CompanionError(f"expected a game with a video ({', '.join(g.value for g in VIDEO_GAMES)}), "
                             f"got {game.value}")
    if seed < 0:
        raise CompanionError(f"expected a non-negative seed, got {seed}")
    log = simulate(game.value, players, seed)
    events = len(log.events) if config.max_events is None else min(config.max_events, len(log.events))
    specs = _specs_by_id(game)
    reveals: tuple[tuple[int, tuple[str, ...]], ...] = ()
    if game is Game.GLADIOLA:
        steps, reveals = _gladiola_steps(log, events, seed, config, specs)
    else:
        steps = _valais_steps(log, events, seed, config, specs)
    used = {p.spec.id for s in steps for t in ((s.before, s.after) if isinstance(s, Move) else (s.table,))
            for p in t}
    return VideoPlan(game, seed, log, events, tuple(steps), tuple(specs[i] for i in sorted(used)), reveals)


# --------------------------------------------------------------------------------------------
# Frame truth


@dataclass(frozen=True)
class CardInFrame:
    """One card in one frame: corners in final image pixels (own top-left first, clockwise),
    the share of it that can be seen, whether a hand is moving it, and the last event that laid,
    moved or turned it (None: it lay there from the start, or it belongs to the final reveal)."""

    card: str
    side: Side
    corners: tuple[tuple[float, float], ...]
    visible_fraction: float
    moving: bool
    event: int | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.card, "side": self.side.value,
                "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
                "visible": round(self.visible_fraction, 3), "moving": self.moving, "event": self.event}


@dataclass(frozen=True)
class FrameTruth:
    """Ground truth of one frame: the step it belongs to, whether a hand is seen, the cards."""

    index: int
    step: int
    event: int | None
    hand: bool
    cards: tuple[CardInFrame, ...]

    def to_json(self) -> dict[str, Any]:
        return {"frame": self.index, "step": self.step, "event": self.event, "hand": self.hand,
                "cards": [c.to_json() for c in self.cards]}


@dataclass(frozen=True)
class Settle:
    """A card that a move changed, and the first calm frame (no hand) after the change."""

    event: int | None
    card: str
    change: ChangeKind
    frame: int

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "card": self.card, "change": self.change.value, "frame": self.frame}


# --------------------------------------------------------------------------------------------
# Rendering


def _ease(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def _corners_mm(p: Placement, squash: float) -> np.ndarray:
    """The card's corners on the table, its width scaled by ``squash`` (turning over)."""
    w, h = p.spec.size_mm()
    w = w * squash
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(p.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return local @ rot.T + np.array(p.centre)


def _face_matrix(p: Placement, level: float, squash: float) -> np.ndarray:
    """3x3 map from face pixels to table millimetres, the width scaled by ``squash``."""
    w, h = p.spec.size_mm()
    kx, ky = squash / level, 1.0 / level
    local = np.array([[kx, 0, 0.5 * kx - w * squash / 2], [0, ky, 0.5 * ky - h / 2], [0, 0, 1]])
    a = math.radians(p.angle_deg)
    rigid = np.array([[math.cos(a), -math.sin(a), p.centre[0]], [math.sin(a), math.cos(a), p.centre[1]],
                      [0, 0, 1]])
    return rigid @ local


@dataclass(frozen=True)
class _Shown:
    """A card as drawn in one frame."""

    pose: Placement
    squash: float
    moving: bool


def _fit_camera(rng: np.random.Generator, steps: tuple[Step, ...], width: int, height: int, k1: float) -> Camera:
    """A camera over the whole play area: slightly tilted, the table's y axis roughly down the image."""
    pts = np.vstack([p.corners_mm() for s in steps for t in ((s.before, s.after) if isinstance(s, Move)
                                                              else (s.table,)) for p in t])
    lo, hi = pts.min(axis=0) - 12, pts.max(axis=0) + 12
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    centre = (float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2))
    hfov = math.radians(rng.uniform(58, 68))
    focal = (width / 2) / math.tan(hfov / 2)
    tilt, yaw, roll = float(rng.uniform(10, 20)), float(rng.normal(0, 3)), float(rng.normal(0, 2))
    distance = 800.0
    for _ in range(6):
        cam = Camera(width, height, focal, tilt, yaw, roll, distance, centre, k1)
        img = apply_homography(cam.homography(), box)
        over = max((img[:, 0].max() - img[:, 0].min()) / (0.94 * width),
                   (img[:, 1].max() - img[:, 1].min()) / (0.94 * height))
        distance *= over
        cam = Camera(width, height, focal, tilt, yaw, roll, distance, centre, k1)
        img = apply_homography(cam.homography(), box)
        shift = np.array([(width - 1) / 2, (height - 1) / 2]) - (img.min(axis=0) + img.max(axis=0)) / 2
        inv = np.linalg.inv(cam.homography())
        moved = apply_homography(inv, np.array([[(width - 1) / 2 - shift[0], (height - 1) / 2 - shift[1]]]))[0]
        aim = apply_homography(inv, np.array([[(width - 1) / 2, (height - 1) / 2]]))[0]
        centre = (float(centre[0] + moved[0] - aim[0]), float(centre[1] + moved[1] - aim[1]))
    return Camera(width, height, focal, tilt, yaw, roll, distance, centre, k1)


class _Renderer:
    """Draws the frames of a plan with one camera, table, style and light."""

    def __init__(self, plan: VideoPlan, config: VideoConfig) -> None:
        self.plan = plan
        self.config = config
        self.width, self.height = config.resolution
        seed = plan.seed
        rng = _rng(seed, "setup")
        self.k1 = round(float(rng.uniform(0.03, 0.08)), 3) if config.degrade else 0.0
        self.camera = _fit_camera(_rng(seed, "camera"), plan.steps, self.width, self.height, self.k1)
        self.hom = self.camera.homography()
        self.inv = np.linalg.inv(self.hom)
        kinds = tuple(TableKind)
        drawn_kind = kinds[int(rng.integers(len(kinds)))]
        self.table_kind = config.table or drawn_kind
        variant = int(rng.integers(VARIANTS))
        styles = STYLES[plan.game]
        self.style: CardStyle = styles[seed % len(styles)]
        centre = apply_homography(self.inv, np.array([[(self.width - 1) / 2, (self.height - 1) / 2]]))[0]
        self.table_img = _draw_table(self.camera, self.table_kind, variant, _rng(seed, "table"), centre)
        self.gain = _gain_field(_rng(seed, "light"), self.width, self.height, float(rng.uniform(0.05, 0.3)),
                                float(rng.uniform(0.05, 0.25)), (1.0, 1.0, 1.0))
        self.shadow_strength = float(rng.uniform(0.2, 0.4))
        a = rng.uniform(0, 2 * math.pi)
        self.light_dir = np.array([math.cos(a), math.sin(a)])
        self.noise_sigma = float(rng.uniform(0.8, 1.4)) if config.degrade else 0.0
        self.flicker_phase = float(rng.uniform(0, 2 * math.pi))
        self.maps = distortion_maps(self.width, self.height, self.k1) if self.k1 > 0 else None
        sides = (0, 1, 2, 3)  # bottom, left, top, right
        self.seat_side = {p: sides[p % 4] for p in range(len(plan.log.players))}
        self.seat_t = {p: float(_rng(seed, f"seat/{p}").uniform(0.3, 0.7)) for p in range(len(plan.log.players))}
        for p in range(4, len(plan.log.players)):
            # five or six players: two share a side, sitting apart as people do (one in each
            # half of it; drawn anywhere in the middle, two could sit a few centimetres apart,
            # which no table seats and no arm could tell apart)
            first = bool(_rng(seed, f"seat/{p}/half").integers(2))
            near, far = (float(_rng(seed, f"seat/{p}/{k}").uniform(0.15, 0.35)) for k in ("near", "far"))
            self.seat_t[p - 4], self.seat_t[p] = (near, 1 - far) if first else (1 - far, near)

    # -- geometry

    def _quad(self, shown: _Shown) -> np.ndarray:
        return apply_homography(self.hom, _corners_mm(shown.pose, shown.squash))

    def _scale_at(self, centre_mm: tuple[float, float]) -> float:
        """Image pixels per table millimetre near a point."""
        c = np.array(centre_mm)
        pts = apply_homography(self.hom, np.array([c, c + [10.0, 0.0], c + [0.0, 10.0]]))
        a, b = pts[1] - pts[0], pts[2] - pts[0]
        return float(math.sqrt(abs(a[0] * b[1] - a[1] * b[0])) / 10.0)

    def _seat_points(self, player: int, palm_px: float) -> tuple[np.ndarray, np.ndarray]:
        """(a point just beyond the border where carried cards appear, where the arm enters)."""
        side, t = self.seat_side[player], self.seat_t[player]
        w, h = self.width, self.height
        off = 1.6 * palm_px
        border, out = {0: ((t * w, h), (0, 1)), 1: ((0, t * h), (-1, 0)), 2: ((t * w, 0), (0, -1)),
                       3: ((w, t * h), (1, 0))}[side]
        b, o = np.array(border, float), np.array(out, float)
        return b + o * off, b + o * (off + 2.5 * palm_px)

    # -- drawing

    def _draw_cards(self, img: np.ndarray, cards: list[_Shown]) -> list[np.ndarray]:
        quads = []
        for s in cards:
            quad = self._quad(s)
            quads.append(quad)
            scale = self._scale_at(s.pose.centre)
            level = _level_for(scale)
            face = _face_at(s.pose.spec, self.style, s.pose.side, level)
            lift = LIFT_LEVEL if s.moving else s.pose.level
            sigma = max(0.8, scale * (0.6 + 0.25 * min(lift, 6)))
            _composite_card(img, face, self.hom @ _face_matrix(s.pose, level, s.squash), quad, None,
                            self.light_dir * scale * (0.7 + 0.3 * min(lift, 6)), sigma, self.shadow_strength)
        return quads

    def _finish(self, img: np.ndarray, frame: int) -> np.ndarray:
        """Lens, light flicker and sensor noise of one frame."""
        if self.maps is not None:
            img = cv2.remap(img, self.maps[0], self.maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        if not self.config.degrade:
            return cv2.multiply(img, self.gain, scale=1 / 128)
        t = frame / self.config.fps
        flicker = 1.0 + 0.012 * math.sin(2 * math.pi * 0.7 * t + self.flicker_phase) \
            + 0.006 * float(_rng(self.plan.seed, f"flicker/{frame}").standard_normal())
        img = cv2.multiply(img, self.gain, scale=flicker / 128)
        rng = _rng(self.plan.seed, f"noise/{frame}")
        hw, hh = (self.width + 1) // 2, (self.height + 1) // 2
        noise = rng.standard_normal((hh, hw, 3), dtype=np.float32) * self.noise_sigma
        small = np.round(noise).astype(np.int16)
        return cv2.add(img, cv2.resize(small, (self.width, self.height), interpolation=cv2.INTER_LINEAR),
                       dtype=cv2.CV_8U)

    def _visible(self, quads: list[np.ndarray], hand: np.ndarray | None) -> list[float]:
        """Visible share of each card (undistorted image; later cards and the hand hide earlier ones)."""
        label = np.zeros((self.height, self.width), np.uint8)
        areas = []
        for i, quad in enumerate(quads):
            cv2.fillConvexPoly(label, np.round(quad * 16).astype(np.int32), i + 1, cv2.LINE_8, 4)
            areas.append(abs(cv2.contourArea(quad.astype(np.float32))))
        if hand is not None:
            label[hand > 127] = 255
        counts = cv2.calcHist([label], [0], None, [256], [0, 256]).ravel()
        return [min(1.0, float(counts[i + 1]) / a) if a > 0.5 else 0.0 for i, a in enumerate(areas)]

    def _truth(self, index: int, step: int, event: int | None, cards: list[_Shown], quads: list[np.ndarray],
               hand: np.ndarray | None, last_event: dict[str, int | None]) -> FrameTruth:
        visible = self._visible(quads, hand)
        out = []
        for s, quad, v in zip(cards, quads, visible):
            corners = distort_points(quad, self.width, self.height, self.k1)
            out.append(CardInFrame(s.pose.spec.id, s.pose.side, tuple((float(x), float(y)) for x, y in corners),
                                   v, s.moving, last_event.get(s.pose.spec.id)))
        return FrameTruth(index, step, event, hand is not None, tuple(out))

    # -- frames

    def frames(self) -> Iterator[tuple[np.ndarray, FrameTruth]]:
        """Every frame (BGR uint8) with its truth, in order."""
        last_event: dict[str, int | None] = {}
        index = 0
        for k, step in enumerate(self.plan.steps):
            if isinstance(step, Hold):
                shown = [_Shown(p, 1.0, False) for p in step.table]
                base = self.table_img.copy()
                quads = self._draw_cards(base, shown)
                truth_cards = self._truth(0, k, step.event, shown, quads, None, last_event).cards
                for _ in range(self.config.frames(step.seconds)):
                    yield self._finish(base.copy(), index), FrameTruth(index, k, step.event, False, truth_cards)
                    index += 1
                continue
            before = {p.spec.id: p for p in step.before}
            for p in step.after:
                if before.get(p.spec.id) != p:
                    last_event[p.spec.id] = step.event
            for img, cards, quads, hand in self._move_frames(k, step):
                yield self._finish(img, index), self._truth(index, k, step.event, cards, quads, hand, last_event)
                index += 1

    def _move_frames(self, k: int, move: Move) -> Iterator[tuple[np.ndarray, list[_Shown], list[np.ndarray],
                                                                 np.ndarray | None]]:
        before = {p.spec.id: p for p in move.before}
        after = {p.spec.id: p for p in move.after}
        carried = dict(move.carried)
        new = [i for i in after if i not in before]
        gone = [i for i in before if i not in after]
        moved = [i for i in after if i in before and before[i] != after[i]]
        static = [p for p in move.before if p.spec.id in after and after[p.spec.id] == p]
        focus_ids = new or gone or moved
        focus_mm = np.mean([(after.get(i) or before[i]).centre for i in focus_ids], axis=0)
        palm_px = self._scale_at((float(focus_mm[0]), float(focus_mm[1]))) * PALM_MM
        off_img, entry = self._seat_points(move.player, palm_px)
        off_mm = apply_homography(self.inv, off_img[None])[0]
        base = self.table_img.copy()
        static_shown = [_Shown(p, 1.0, False) for p in static]
        static_quads = self._draw_cards(base, static_shown)
        n = self.config.frames(self.config.move_seconds)
        a_end, b_end = 0.4, 0.75
        hand_seed = zlib.crc32(f"{self.plan.seed}/hand/{k}".encode())

        def pose_at(card: str, u: float) -> tuple[Placement, float, bool]:
            """Pose, squash and moving flag of a changing card at move time u in [0, 1]."""
            if card in new:
                end = after[card]
                show = carried.get(card, end.side)
                if u < a_end:
                    v = _ease(u / a_end)
                    c = off_mm + (np.array(end.centre) - off_mm) * v
                    return replace(end, centre=(float(c[0]), float(c[1])), side=show), 1.0, True
                if u < b_end and show != end.side:
                    v = (u - a_end) / (b_end - a_end)
                    return replace(end, side=show if v < 0.5 else end.side), max(0.04, abs(math.cos(math.pi * v))), True
                return end, 1.0, u < b_end
            if card in gone:
                start = before[card]
                if u < b_end:
                    return start, 1.0, u >= a_end
                v = _ease((u - b_end) / (1 - b_end))
                c = np.array(start.centre) + (off_mm - np.array(start.centre)) * v
                return replace(start, centre=(float(c[0]), float(c[1]))), 1.0, True
            start, end = before[card], after[card]
            if u < a_end:
                return start, 1.0, False
            if u < b_end:
                v = _ease((u - a_end) / (b_end - a_end))
                c = np.array(start.centre) + (np.array(end.centre) - np.array(start.centre)) * v
                turn = start.side != end.side
                squash = max(0.04, abs(math.cos(math.pi * v))) if turn else 1.0
                side = start.side if (v < 0.5 or not turn) else end.side
                return Placement(end.spec, side, (float(c[0]), float(c[1])),
                                 start.angle_deg + (end.angle_deg - start.angle_deg) * v, end.level), squash, True
            return end, 1.0, False

        changing = [i for i in move.after if i.spec.id not in {p.spec.id for p in static}]
        order = [p.spec.id for p in changing] + gone
        for j in range(n):
            u = j / (n - 1) if n > 1 else 1.0
            shown = [_Shown(*pose_at(i, u)) for i in order]
            img = base.copy()
            quads = self._draw_cards(img, shown)
            # The hand: in from the seat, holding the focus cards, out again.
            hold = np.mean([np.array(s.pose.centre) for i, s in zip(order, shown) if i in focus_ids], axis=0)
            hold_img = apply_homography(self.hom, hold[None])[0]
            toward = entry - hold_img
            toward /= max(1e-6, float(np.linalg.norm(toward)))
            grip = hold_img + toward * palm_px * 0.35
            if u < a_end and not new:
                target = off_img + (grip - off_img) * _ease(u / a_end)
            elif u >= b_end and not gone:
                target = grip + (off_img - grip) * _ease((u - b_end) / (1 - b_end))
            else:
                target = grip
            mask = _hand_mask(np.random.default_rng(hand_seed), self.width, self.height, target, palm_px, entry)
            hand = None
            if mask.any():
                _draw_hand(img, mask, np.random.default_rng(hand_seed + 1), palm_px)
                hand = mask
            yield img, static_shown + shown, static_quads + quads, hand


# --------------------------------------------------------------------------------------------
# Writing


@dataclass(frozen=True)
class VideoResult:
    """What :func:`render_video` wrote and how long it took."""

    video: Path
    log: Path
    truth: Path
    frames: int
    fps: int
    seconds: float
    render_seconds: float
    settles: tuple[Settle, ...]

    def to_json(self) -> dict[str, Any]:
        return {"video": str(self.video), "log": str(self.log), "truth": str(self.truth), "frames": self.frames,
                "fps": self.fps, "seconds": round(self.seconds, 2), "render_seconds": round(self.render_seconds, 2)}


def _settles(plan: VideoPlan, truths: list[FrameTruth]) -> tuple[Settle, ...]:
    """For each move and each card it changed: the first frame after the move's hand or cards
    were seen moving with no hand in the image and no card moving (a removed card is gone then)."""
    first_of_step: dict[int, int] = {}
    for t in truths:
        first_of_step.setdefault(t.step, t.index)
    out = []
    for k, step in enumerate(plan.steps):
        if not isinstance(step, Move) or k not in first_of_step:
            continue
        calm, busy = None, False
        for t in truths[first_of_step[k]:]:
            quiet = not t.hand and not any(c.moving for c in t.cards)
            if busy and quiet:
                calm = t.index
                break
            busy = busy or not quiet
        if calm is None:
            continue
        before = {p.spec.id: p for p in step.before}
        after = {p.spec.id: p for p in step.after}
        for card, p in after.items():
            if card not in before:
                out.append(Settle(step.event, card, ChangeKind.PLACED, calm))
            elif before[card] != p:
                kind = ChangeKind.TURNED if before[card].centre == p.centre and before[card].side != p.side \
                    else ChangeKind.MOVED
                out.append(Settle(step.event, card, kind, calm))
        for card in before:
            if card not in after:
                out.append(Settle(step.event, card, ChangeKind.REMOVED, calm))
    return tuple(out)


def plan_frames(plan: VideoPlan, config: VideoConfig = VideoConfig()) -> int:
    """How many frames :func:`render_video` writes for a plan."""
    return sum(config.frames(config.move_seconds) if isinstance(s, Move) else config.frames(s.seconds)
               for s in plan.steps)


def iter_frames(plan: VideoPlan, config: VideoConfig = VideoConfig()) -> Iterator[tuple[np.ndarray, FrameTruth]]:
    """The frames of a plan with their truth, without writing anything."""
    return _Renderer(plan, config).frames()


def render_video(out_dir: str | Path, name: str, game: Game, players: int | str, seed: int,
                 config: VideoConfig = VideoConfig(), progress: Callable[[int], None] | None = None) -> VideoResult:
    """Plan, render and write ``NAME.mp4``, ``NAME.log.json`` and ``NAME.truth.json.gz``.

    ``progress`` is called with the number of frames written so far (for a progress bar).
    """
    started = time.perf_counter()
    plan = plan_video(game, players, seed, config)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    video = out / f"{name}.mp4"
    renderer = _Renderer(plan, config)
    writer = cv2.VideoWriter(str(video), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"mp4v"), config.fps,
                             config.resolution)
    if not writer.isOpened():
        raise CompanionError(f"cannot write {video}: expected OpenCV with an FFmpeg mp4v encoder, got none")
    truths: list[FrameTruth] = []
    try:
        for img, truth in renderer.frames():
            writer.write(img)
            truths.append(truth)
            if progress is not None:
                progress(len(truths))
    finally:
        writer.release()
    settles = _settles(plan, truths)
    log_path = out / f"{name}.log.json"
    log_path.write_text(json.dumps(plan.log_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    truth_path = out / f"{name}.truth.json.gz"
    data = truth_json(plan, config, renderer, truths, settles, video.name)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with open(truth_path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw)
    return VideoResult(video, log_path, truth_path, len(truths), config.fps, len(truths) / config.fps,
                       time.perf_counter() - started, settles)


def truth_json(plan: VideoPlan, config: VideoConfig, renderer: _Renderer, truths: list[FrameTruth],
               settles: tuple[Settle, ...], video_name: str) -> dict[str, Any]:
    """The whole ground truth of a video as one JSON object."""
    ranges: dict[int, list[int]] = {}
    for t in truths:
        if t.event is not None:
            r = ranges.setdefault(t.event, [t.index, t.index])
            r[1] = t.index
    by_event: dict[int, int] = {}
    for s in settles:
        if s.event is not None and s.change is not ChangeKind.REMOVED:
            by_event.setdefault(s.event, s.frame)
    cam = renderer.camera
    reveal_frames = {}
    for s in settles:
        if s.event is None and s.change is ChangeKind.PLACED:
            reveal_frames.setdefault(s.card, s.frame)
    return {
        "game": plan.game.value, "seed": plan.seed, "players": list(plan.log.players),
        "video": {"file": video_name, "codec": "mp4v", "fps": config.fps, "width": config.resolution[0],
                  "height": config.resolution[1], "frames": len(truths),
                  "seconds": round(len(truths) / config.fps, 2)},
        "events_filmed": plan.events, "events_total": len(plan.log.events),
        "conditions": {"table": renderer.table_kind.value, "style": renderer.style.name,
                       "tilt_deg": round(cam.tilt_deg, 2), "yaw_deg": round(cam.yaw_deg, 2),
                       "roll_deg": round(cam.roll_deg, 2), "focal_px": round(cam.focal_px, 1),
                       "camera_height_mm": round(cam.height_mm, 1), "distortion_k1": renderer.k1,
                       "noise_sigma": round(renderer.noise_sigma, 2)},
        "table_to_undistorted_image": [[float(v) for v in row] for row in renderer.hom],
        "cards": {s.id: s.to_json() for s in plan.specs},
        "events": [{"turn": turn, "first_frame": r[0], "last_frame": r[1], "settle_frame": by_event.get(turn)}
                   for turn, r in sorted(ranges.items())],
        "settles": [s.to_json() for s in settles],
        "reveals": [{"player": p, "cards": list(cards),
                     "settle_frame": reveal_frames.get(cards[0]) if cards else None} for p, cards in plan.reveals],
        "frames": [t.to_json() for t in truths],
    }


def read_truth(path: str | Path) -> dict[str, Any]:
    """Load a ``NAME.truth.json.gz`` written by :func:`render_video`."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data
