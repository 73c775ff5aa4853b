"""The covered cards of a spread hand, found from a card in full view.

Cards held or laid as a hand are spread along their width: each lies a little beyond the one
before and under it, turned a few degrees, so that every covered card shows a strip along one of
its long sides. All of them lie on the table plane and have one size, so the card in full view
fixes where everything is: its four corners and the card's printed size (59 x 91 mm) give the
homography from table millimetres to the image. In those millimetres each next card is a
59 x 91 mm rectangle whose pose (shift along and across the card before, turn) is searched on a
grid: the pose whose outline, where no card before covers it (its far long side whole, its two
short sides from there to the card on it), lies on image edges all along is the next card; the
network's card classes must cover its strip. The search goes on card after card until no pose
shows an outline, in both directions from the card in full view.

Each covered card is then warped to a portrait crop with its strip on the left (its corner index
in the strip's top-left corner whichever way up it lies, as in a shown row of
:mod:`vision.hand`), the part under the cards on it marked hidden, and read as a covered card of a
shown row is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.detect import _clockwise, _poly_overlap, _quad_iou, _shoelace
from vision.hand import HandConfig, border_at_left, ink_before_index, read_covered
from vision.read.reader import CARD_H_MM, CARD_W_MM, READ_H, READ_W
from vision.read.types import CardReading, Deck, Face
from vision.segment import CardMaps, load_segmenter
from vision.types import CardKind, FieldConfidences, Quad

HALF_W, HALF_H = CARD_W_MM / 2, CARD_H_MM / 2


@dataclass(frozen=True)
class FanConfig:
    """Tunables of :func:`find_fans`.

    ``shift_mm``: least and most distance (mm, along the card's width) of a card's centre from the
    centre of the card on it (its strip's width); ``slide_mm``: most distance along the card's
    height; ``turn_deg``: most turn against the card on it; ``grid``: the coarse search's steps
    (shift mm, slide mm, turn degrees; refined twice, see :func:`_next_card`); ``sample_mm``:
    spacing of the outline samples; ``corner_mm``: the rounded corner left out at each end of a
    side; ``least_side``/``least_ends``: least edge evidence (0-1, against the starting card's own
    outline) along the far side and along the seen parts of the short sides; ``least_end_mm``:
    least seen length of each short side; ``least_cardish``: least mean of the network's card
    classes over the strip; ``least_outline``: least mean of its outline class along the far
    side; ``most_cards``: longest chain each way.
    """

    shift_mm: tuple[float, float] = (10.0, 55.0)
    slide_mm: float = 16.0
    turn_deg: float = 16.0
    grid: tuple[float, float, float] = (3.0, 3.0, 2.0)
    sample_mm: float = 2.0
    corner_mm: float = 4.0
    least_side: float = 0.55
    least_ends: float = 0.45
    least_end_mm: float = 8.0
    least_cardish: float = 0.6
    least_outline: float = 0.3
    most_cards: int = 12


@dataclass(frozen=True)
class FanCard:
    """A covered card of a spread hand.

    ``quad``: the whole card's outline in image pixels, its seen strip's upper corner first, then
    clockwise (the strip is the crop's left side); ``covers``: the outlines of the cards lying on
    it (image pixels, card order); ``shown_mm``: how much of its width is in view; ``score``:
    the edge evidence of its seen outline (0-1); ``seed``: the index of the card in full view
    (of those given to :func:`find_fans`) it was found from.
    """

    quad: Quad
    covers: tuple[Quad, ...]
    shown_mm: float
    score: float
    seed: int = 0


@dataclass(frozen=True)
class _Pose:
    """A card's rectangle on the table: centre (mm) and turn (radians) in the frame of the card in
    full view (x along its width, y down along its height), and its size against that card's
    (``scale``: an outline found a little inside or outside the card in full view makes every
    card under it look a little larger or smaller)."""

    x: float
    y: float
    turn: float
    scale: float = 1.0

    def place(self, local: np.ndarray) -> np.ndarray:
        """Points (..., 2) in the card's own millimetres placed on the table."""
        return (local * self.scale) @ _rotation(self.turn).T + (self.x, self.y)

    def corners(self) -> np.ndarray:
        """The rectangle's corners (top-left, top-right, bottom-right, bottom-left in its own frame)."""
        return self.place(np.array([[-HALF_W, -HALF_H], [HALF_W, -HALF_H], [HALF_W, HALF_H], [-HALF_W, HALF_H]]))


def _rotation(turn: float) -> np.ndarray:
    c, s = math.cos(turn), math.sin(turn)
    return np.array([[c, -s], [s, c]])


def _plane(quad: Quad) -> np.ndarray:
    """Homography from the card-centred millimetres of ``quad``'s card to image pixels."""
    src = np.float32([[-HALF_W, -HALF_H], [HALF_W, -HALF_H], [HALF_W, HALF_H], [-HALF_W, HALF_H]])
    dst = Quad.card_order(quad.as_array()).as_array().astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def _to_image(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (..., 2) in table millimetres mapped to image pixels (NaN behind the camera)."""
    flat = pts.reshape(-1, 2)
    w = flat @ h[2, :2] + h[2, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (flat @ h[0, :2] + h[0, 2]) / w
        y = (flat @ h[1, :2] + h[1, 2]) / w
    out = np.stack([x, y], axis=-1)
    out[w <= 1e-6] = np.nan
    return out.reshape(pts.shape)


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of a float32 image at points (..., 2); 0 outside it."""
    flat = pts.reshape(-1, 2).astype(np.float32)
    bad = ~np.isfinite(flat).all(axis=1)
    flat[bad] = -1e4
    n = len(flat)
    cols = 1024  # (remap takes maps under 32767 pixels a side)
    rows = -(-n // cols)
    padded = np.full((rows * cols, 2), -1e4, np.float32)
    padded[:n] = flat
    got = cv2.remap(img, padded[:, 0].reshape(rows, cols), padded[:, 1].reshape(rows, cols), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    return got.reshape(-1)[:n].reshape(pts.shape[:-1])


@dataclass(frozen=True, eq=False)
class _Scene:
    """What every pose is judged on: image gradients, the network's card map and the plane."""

    gx: np.ndarray
    gy: np.ndarray
    cardish: np.ndarray | None
    boundary: np.ndarray | None
    map_factor: float
    plane: np.ndarray
    ref: float


def _on_map(scene: _Scene, values: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Samples of one of the network's maps (``scene.cardish`` or ``scene.boundary``) at points
    (..., 2) in table millimetres."""
    return _sample(values, (_to_image(scene.plane, pts) + 0.5) * scene.map_factor - 0.5)


def _edge_strength(scene: _Scene, pts: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """The image gradient across an edge through each point (..., 2, table mm) with the given
    normals (table mm), in gray levels a pixel."""
    a = _to_image(scene.plane, pts - 0.6 * normals)
    b = _to_image(scene.plane, pts + 0.6 * normals)
    d = b - a
    with np.errstate(divide="ignore", invalid="ignore"):
        n_img = d / np.linalg.norm(d, axis=-1, keepdims=True)
    mid = (a + b) / 2
    return np.nan_to_num(np.abs(_sample(scene.gx, mid) * n_img[..., 0] + _sample(scene.gy, mid) * n_img[..., 1]))


def _evidence(scene: _Scene, pts: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """:func:`_edge_strength` against the card in full view's outline, capped at 1."""
    return np.minimum(1.0, _edge_strength(scene, pts, normals) / scene.ref)


def _outline_points(config: FanConfig, side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample points (card-centred mm) of a card's outline seen past the cards on it when they
    lie on its ``-side`` side: its far long side (x = side * 29.5) and both short sides from
    there across; their outward normals; and which part each is (0 far side, 1 top, 2 bottom)."""
    step, corner = config.sample_mm, config.corner_mm
    ys = np.arange(-HALF_H + corner, HALF_H - corner + 1e-6, step)
    xs = side * np.arange(HALF_W - corner, -HALF_W + corner - 1e-6, -step)
    far = np.column_stack([np.full_like(ys, side * HALF_W), ys])
    top = np.column_stack([xs, np.full_like(xs, -HALF_H)])
    bottom = np.column_stack([xs, np.full_like(xs, HALF_H)])
    pts = np.vstack([far, top, bottom])
    normals = np.vstack([np.tile([side, 0.0], (len(far), 1)), np.tile([0.0, -1.0], (len(top), 1)),
                         np.tile([0.0, 1.0], (len(bottom), 1))])
    part = np.concatenate([np.zeros(len(far), int), np.ones(len(top), int), np.full(len(bottom), 2)])
    return pts, normals, part


def _inside_any(pts: np.ndarray, covers: Sequence[_Pose], grow: float = 0.0) -> np.ndarray:
    """Which points (..., 2) lie inside any of the rectangles ``covers`` grown by ``grow`` mm."""
    inside = np.zeros(pts.shape[:-1], bool)
    for pose in covers:
        local = (pts - (pose.x, pose.y)) @ _rotation(pose.turn)
        inside |= ((np.abs(local[..., 0]) < HALF_W * pose.scale + grow)
                   & (np.abs(local[..., 1]) < HALF_H * pose.scale + grow))
    return inside


def _scores(scene: _Scene, poses: np.ndarray, covers: Sequence[_Pose], side: int,
            config: FanConfig, far_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge evidence of the seen outline of each pose (rows of x, y, turn, scale): along the far side,
    along the short sides' seen parts, and the seen length of the shorter of those (mm); with
    ``far_only`` the far side alone, at every other sample (the others come out 0)."""
    local, normals, part = _outline_points(config, side)
    if far_only:
        keep = np.nonzero(part == 0)[0][::2]
        local, normals, part = local[keep], normals[keep], part[keep]
    cos, sin = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
    scale = poses[:, 3:4]
    pts = np.stack([(cos * local[:, 0] - sin * local[:, 1]) * scale + poses[:, 0:1],
                    (sin * local[:, 0] + cos * local[:, 1]) * scale + poses[:, 1:2]], -1)
    nrm = np.stack([cos * normals[:, 0] - sin * normals[:, 1], sin * normals[:, 0] + cos * normals[:, 1]], -1)
    seen = ~_inside_any(pts, covers, grow=0.5)
    ev = _evidence(scene, pts, nrm)
    far = part == 0
    far_ev = np.where(seen[:, far].all(axis=1), ev[:, far].mean(axis=1), 0.0)
    ends_ev = np.zeros(len(poses))
    least = np.full(len(poses), np.inf)
    for k in (1, 2):
        mask = seen & (part == k)[None, :]
        n = mask.sum(axis=1)
        ends_ev += np.where(n > 0, (ev * mask).sum(axis=1) / np.maximum(n, 1), 0.0) / 2
        least = np.minimum(least, n * config.sample_mm)
    return far_ev, ends_ev, least


def _strip_cardish(scene: _Scene, pose: _Pose, covers: Sequence[_Pose], side: int) -> float:
    """Mean of the network's card classes over the seen strip of a card at ``pose``."""
    if scene.cardish is None:
        return 1.0
    xs, ys = np.meshgrid(np.linspace(-HALF_W + 3, HALF_W - 3, 12), np.linspace(-HALF_H + 4, HALF_H - 4, 16))
    pts = pose.place(np.stack([xs, ys], -1).reshape(-1, 2))
    pts = pts[~_inside_any(pts, covers, grow=1.0)]
    if len(pts) < 8:
        return 0.0
    return float(_on_map(scene, scene.cardish, pts).mean())


BEYOND_MM = (1.5, 9.0)
"""The band past a card's long side (mm) where the strip of a card under it would show."""


def _cardish_beyond(scene: _Scene, pose: _Pose, side: int) -> float:
    """Mean of the network's card classes in the band just past the ``side`` long side of the card
    at ``pose`` (see :data:`BEYOND_MM`)."""
    if scene.cardish is None:
        return 1.0
    xs, ys = np.meshgrid(side * (HALF_W + np.linspace(*BEYOND_MM, 4)), np.linspace(-HALF_H + 6, HALF_H - 6, 12))
    pts = pose.place(np.stack([xs, ys], -1).reshape(-1, 2))
    return float(_on_map(scene, scene.cardish, pts).mean())


COARSE_KEPT = 800
"""Most poses of the coarse grid, the best on their far sides, judged whole (a far side on strong
edges saturates the evidence: hundreds of poses may reach it)."""
COARSE_SIDE = 0.8
"""Share of ``least_side`` the far side of a coarse pose must reach to be judged whole (a coarse
pose lies up to half a step off the card)."""


def _judged(scene: _Scene, grid: np.ndarray, last: _Pose, covers: Sequence[_Pose], side: int, config: FanConfig,
            far_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The poses of ``grid`` (rows of shift, slide, turn in degrees against ``last``, scale), their
    far sides' and short sides' evidence, and their total (0 where a short side shows too little)."""
    # (the shift is the centre's at the size of the card on it: another size keeps the far side)
    shift = grid[:, 0] + HALF_W * (last.scale - grid[:, 3])
    offsets = np.column_stack([side * shift, grid[:, 1]]) @ _rotation(last.turn).T
    poses = np.column_stack([last.x + offsets[:, 0], last.y + offsets[:, 1], last.turn + np.radians(grid[:, 2]),
                             grid[:, 3]])
    far, ends, least = _scores(scene, poses, covers, side, config, far_only)
    return poses, far, ends, np.where(least >= config.least_end_mm, (far + ends) / 2, 0.0)


def _grid(centre: np.ndarray, span: np.ndarray, steps: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Every combination of the values ``centre`` +- ``span`` in ``steps`` (per column), the shifts
    (first column) kept within ``lo``-``hi``."""
    axes = [np.arange(c - s, c + s + 1e-6, st) for c, s, st in zip(centre, span, steps)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(axes))
    return grid[(grid[:, 0] >= lo) & (grid[:, 0] <= hi)]


SCALE_STEP = 0.015
"""Step of a card's size (against the card on it) when it is refined."""
SCALE_REACH = 0.09
"""Most change of a card's size against the card on it (an outline of the card in full view
along its border's inner edge makes the cards 4-7% smaller)."""
SCALE_SHRINK = 0.03
"""Most a card may be smaller than the card on it (the detector's outlines of cards in full view
are a little small, never large: median 0.97-0.985 of the truth's size per card style, 90th
percentile 1.0, on set 1101800)."""
COARSE_STARTS = 5
"""How many of the coarse grid's best poses (a step apart at least) are refined: the best coarse
pose may lie a step off the card while another lies nearer it."""


def _next_card(scene: _Scene, last: _Pose, covers: Sequence[_Pose], side: int,
               config: FanConfig) -> tuple[_Pose, float] | None:
    """The card lying under ``last`` on its ``side`` side, and its score, or None."""
    lo, hi = config.shift_mm
    # (the coarse grid keeps the size of the card on it; refinement lets it change)
    steps = np.array(config.grid + (SCALE_STEP,), float)
    grid = _grid(np.array([(lo + hi) / 2, 0.0, 0.0, last.scale]),
                 np.array([(hi - lo) / 2, config.slide_mm, config.turn_deg, 0.0]), steps, lo, hi)
    # the coarse grid judged on its far sides first: only the poses nearly good enough there are
    # judged whole (most searches, past a hand's last card, end here)
    _, far, _, _ = _judged(scene, grid, last, covers, side, config, far_only=True)
    near = np.argsort(-far)[:COARSE_KEPT]
    near = near[far[near] >= COARSE_SIDE * config.least_side]
    if not len(near):
        return None
    grid = grid[near]
    _, _, _, total = _judged(scene, grid, last, covers, side, config)
    starts: list[np.ndarray] = []
    for k in np.argsort(-total):
        if total[k] <= 0 or len(starts) == COARSE_STARTS:
            break
        if all((np.abs(grid[k, :3] - g[:3]) > steps[:3] * 1.01).any() for g in starts):
            starts.append(grid[k])
    best = None
    # two refinements at the size of the card on it: half a coarse step round the pose in
    # quarter steps, then an eighth in sixteenths; then the size alone (its far side staying),
    # then the pose once more at that size
    rounds = ((np.r_[steps[:3] / 2, 0.0], np.r_[steps[:3] / 4, 1.0]),
              (np.r_[steps[:3] / 8, 0.0], np.r_[steps[:3] / 16, 1.0]))
    for start in starts:
        centre = start
        for span, fine in rounds:
            fine_grid = _grid(centre, span, fine, lo, hi)
            poses, far, ends, total = _judged(scene, fine_grid, last, covers, side, config)
            k = int(np.argmax(total))
            centre = fine_grid[k]
            if best is None or total[k] > best[3]:
                best = (poses[k], far[k], ends[k], total[k], centre)
    if best is None:
        return None
    centre = best[4]
    # the size: of the sizes from a little smaller to larger (its far side staying) whose short
    # sides lie on edges nearly as well, the one whose short sides lie most on the network's
    # outline (a dark border has two edges, and the inner one, against the paper, may be the
    # stronger: judged on edges alone, covered cards came out up to 8% small); then the pose once
    # more at that size
    sizes = _grid(centre, np.array([0.0, 0.0, 0.0, SCALE_REACH]), np.array([1.0, 1.0, 1.0, SCALE_STEP]), lo, hi)
    sizes = sizes[sizes[:, 3] >= centre[3] - SCALE_SHRINK]
    poses, far, ends, total = _judged(scene, sizes, last, covers, side, config)
    outline = np.array([_ends_outline(scene, _Pose(*(float(v) for v in p)), covers, side, config) for p in poses])
    here = int(np.argmin(np.abs(sizes[:, 3] - centre[3])))
    fit = (ends >= SNAP_EDGE * ends[here]) & (far >= SNAP_EDGE * far[here])
    k = int(np.argmax(np.where(fit, outline, -1.0)))
    centre = sizes[k]
    fine_grid = _grid(centre, np.r_[steps[:3] / 16, 0.0], np.r_[steps[:3] / 32, 1.0], lo, hi)
    poses, far, ends, total = _judged(scene, fine_grid, last, covers, side, config)
    k = int(np.argmax(total))
    centre = fine_grid[k]
    pose_arr, far_k, ends_k, total_k = poses[k], far[k], ends[k], total[k]
    if far_k < config.least_side or ends_k < config.least_ends:
        return None
    # the best pose at a bound of the search is no card's: the outline it lies on continues
    # outside what a spread hand can be (a whole card beside the one on it, print across it)
    bounds = np.array([[lo, hi], [-config.slide_mm, config.slide_mm], [-config.turn_deg, config.turn_deg]])
    margin = np.array(config.grid) / 2
    if ((centre[:3] <= bounds[:, 0] + margin) | (centre[:3] >= bounds[:, 1] - margin)).any():
        return None
    pose = _snap_far_side(scene, _Pose(*(float(v) for v in pose_arr)), side, config)
    if _strip_cardish(scene, pose, covers, side) < config.least_cardish:
        return None
    if _far_outline(scene, pose, side, config) < config.least_outline:
        return None
    return pose, float(total_k)


SNAP_MM = 4.5
"""Farthest (mm) a card's far side is moved out onto the network's outline (see
:func:`_snap_far_side`)."""
SNAP_EDGE = 0.8
"""Share of the found far side's edge evidence the moved far side must keep."""


def _line_means(scene: _Scene, pose: _Pose, side: int, config: FanConfig, dx: float) -> tuple[float, float]:
    """Edge evidence and mean outline class along a line ``dx`` mm outside the card's far side."""
    ys = np.arange(-HALF_H + config.corner_mm, HALF_H - config.corner_mm + 1e-6, config.sample_mm)
    pts = pose.place(np.column_stack([np.full_like(ys, side * (HALF_W + dx / pose.scale)), ys]))
    normals = np.tile(_rotation(pose.turn) @ np.array([float(side), 0.0]), (len(pts), 1))
    edge = float(_evidence(scene, pts, normals).mean())
    if scene.boundary is None:
        return edge, 0.0
    return edge, float(_on_map(scene, scene.boundary, pts).mean())


def _snap_far_side(scene: _Scene, pose: _Pose, side: int, config: FanConfig) -> _Pose:
    """``pose`` moved out (along its width) to the line past its far side that lies on the network's
    outline, where that line is an edge too: a card's dark border has two edges, and the inner one
    (against the paper) may be the stronger (rendered spread hand 7: the last card's far side found
    on its border's inner edge, 4 mm inside the card, the network's outline there)."""
    options = [(dx, *_line_means(scene, pose, side, config, dx)) for dx in np.arange(0.0, SNAP_MM + 1e-6, 0.5)]
    edge0, outline0 = options[0][1], options[0][2]
    dx, _, outline = max(((d, e, o) for d, e, o in options if e >= SNAP_EDGE * edge0), key=lambda t: t[2])
    if dx <= 0 or outline <= outline0:
        return pose
    move = _rotation(pose.turn) @ np.array([side * dx, 0.0])
    return _Pose(pose.x + float(move[0]), pose.y + float(move[1]), pose.turn, pose.scale)


def _ends_outline(scene: _Scene, pose: _Pose, covers: Sequence[_Pose], side: int, config: FanConfig) -> float:
    """Mean of the network's outline class along the seen parts of a card's short sides."""
    if scene.boundary is None:
        return 0.0
    local, _, part = _outline_points(config, side)
    pts = pose.place(local[part > 0])
    pts = pts[~_inside_any(pts, covers, grow=0.5)]
    if not len(pts):
        return 0.0
    return float(_on_map(scene, scene.boundary, pts).mean())


def _far_outline(scene: _Scene, pose: _Pose, side: int, config: FanConfig) -> float:
    """Mean of the network's outline class along the card's far side (the most within 2 mm of
    each point across it: a pose found from a partly hidden card's outline may be that far off):
    a card's side is an outline, a line printed across a card in full view
    is not (tuning stills 1101800/82 and /114: the middle line of a walk card's km table and a
    gladiola's stem, with the card's top and bottom edges, taken for a card under its neighbour:
    0.02-0.16 there, 0.4-0.98 along the sides of the covered cards of five spread hands)."""
    if scene.boundary is None:
        return 1.0
    ys = np.arange(-HALF_H + config.corner_mm, HALF_H - config.corner_mm + 1e-6, config.sample_mm)
    best = np.zeros(len(ys))
    for dx in np.arange(-2.0, 2.01, 0.5):
        local = np.column_stack([np.full_like(ys, side * (HALF_W + dx / pose.scale)), ys])
        best = np.maximum(best, _on_map(scene, scene.boundary, pose.place(local)))
    return float(best.mean())


def _crop_corners(pose: _Pose, side: int) -> np.ndarray:
    """A covered card's corners (mm) in crop order: its seen strip's upper corner first, then
    clockwise, so that the strip lies along the crop's left side."""
    c = pose.corners()  # top-left, top-right, bottom-right, bottom-left in the card's own frame
    # (the strip on the card's right: turned half round, the right side comes first)
    return c[[2, 3, 0, 1]] if side > 0 else c


def _shown_mm(pose: _Pose, side: int, covers: Sequence[_Pose]) -> float:
    """How far (mm) the card's middle row is in view from its far side."""
    xs = np.arange(0.0, CARD_W_MM, 0.25)
    pts = pose.place(np.column_stack([side * (HALF_W - xs), np.zeros_like(xs)]))
    hidden = _inside_any(pts, covers)
    return float(xs[np.argmax(hidden)]) if hidden.any() else CARD_W_MM


def _reference(scene: _Scene, config: FanConfig) -> float:
    """The median edge strength along the card in full view's own outline."""
    local = []
    for side in (1, -1):
        pts, normals, _ = _outline_points(config, side)
        local.append((pts, normals))
    pts = np.vstack([p for p, _ in local])
    normals = np.vstack([n for _, n in local])
    return float(np.median(_edge_strength(scene, pts, normals)))


SPLIT_AT = (0.55, 0.92)
"""Where (share of the outline's width from the far long side) a card in full view outlined together
with the strip of the card under it may end (see :func:`_split_seed`)."""
SPLIT_EDGE = 0.7
"""Least edge evidence along the line a seed is split at."""
SPLIT_SLANT_DEG = 8.0
"""Most slant of that line against the outline's long sides."""
SPLIT_OUTLINE = 0.5
"""Least mean of the network's outline class along that line (printed lines across a card, such
as a walk card's km table, have none)."""


def _split_seed(scene: _Scene, side: int, config: FanConfig) -> np.ndarray | None:
    """The corners (card-centred mm of the seed's outline) of the card in full view when its outline
    ran on past its ``side`` long side over the strip of the card under it (tuning still 1101800/22:
    W11's outline took in W33's strip, 1.3 cards wide, read 11 all the same): the line across the
    outline, nearly parallel to its long sides (the outline's plane is stretched, so the card's
    side may slant in it), that is an edge and an outline of the network all along; None when
    there is none."""
    if scene.boundary is None:
        return None
    ts = np.arange(-HALF_H + config.corner_mm, HALF_H - config.corner_mm + 1e-6, config.sample_mm)
    best = None
    for share in np.arange(SPLIT_AT[0], SPLIT_AT[1] + 1e-6, 0.025):
        x = side * (-HALF_W + share * CARD_W_MM)
        for slant in np.radians(np.arange(-SPLIT_SLANT_DEG, SPLIT_SLANT_DEG + 1e-6, 1.0)):
            pts = np.column_stack([x + ts * math.tan(slant), ts])
            normal = np.array([math.cos(slant), -math.sin(slant)]) * side
            edge = float(_evidence(scene, pts, np.tile(normal, (len(ts), 1))).mean())
            if edge < SPLIT_EDGE or (best is not None and edge <= best[0]):
                continue
            outline = float(_on_map(scene, scene.boundary, pts).mean())
            if outline >= SPLIT_OUTLINE:
                best = (edge, x, slant)
    if best is None:
        return None
    _, x, slant = best
    far = -side * HALF_W
    top, bottom = x - HALF_H * math.tan(slant), x + HALF_H * math.tan(slant)
    corners = [[far, -HALF_H], [top, -HALF_H], [bottom, HALF_H], [far, HALF_H]]
    return np.array(corners if side > 0 else [corners[1], corners[0], corners[3], corners[2]])


SPLIT_AGREE_MM = 6.0
"""Farthest (mm) the far side of the card found under a split outline's card may lie from the
outline's side (see :func:`find_fans`; 4.7 mm where the split was right, 11.9 and 17.1 where
it cut a card in two on tuning stills 1101900/36 and /368)."""


def _off_outline(outline: _Scene, part: _Scene, pose: _Pose, side: int) -> float:
    """How far (mm, in ``part``'s plane) the middle of the far side of the card at ``pose`` (found
    in ``part``) lies from the ``side`` long side of the outline of ``outline``'s card."""
    ends = _to_image(outline.plane, np.array([[side * HALF_W, -HALF_H], [side * HALF_W, HALF_H]]))
    a, b = _to_image(np.linalg.inv(part.plane), ends)
    mid = pose.place(np.array([side * HALF_W, 0.0]))
    d = b - a
    return float(abs(d[0] * (mid[1] - a[1]) - d[1] * (mid[0] - a[0])) / max(np.linalg.norm(d), 1e-9))


def _gradients(gray: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The x and y gradients (gray levels a pixel) of ``gray`` smoothed at ``sigma`` pixels."""
    smooth = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), sigma)
    return cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3) / 8.0, cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3) / 8.0


def _covered_on(plane: np.ndarray, top: Quad, tops: Sequence[Quad], whole: Sequence[bool], side: int) -> bool:
    """Whether a card in full view among ``tops`` lies on the card ``top`` (its plane ``plane``) on
    its ``side`` side (centre past the card's centre that way, overlapping it)."""
    inverse = np.linalg.inv(plane)
    for other, seen in zip(tops, whole):
        if not seen or other is top:
            continue
        centre = _to_image(inverse, np.array(other.centroid))
        if np.isfinite(centre).all() and centre[0] * side > 0 and overlap_share(top.as_array(), other.as_array()) > 0.05:
            return True
    return False


SEED_AREA = (0.6, 1.6)
"""Least and most image area of a covered card against the card in full view it was found from
(perspective makes cards further off smaller; a plane fixed by a wrong outline makes them any
size: a card cut by the image's side, its outline completed out of view, gave cards twice and
three times its size)."""


def find_fans(image: np.ndarray, tops: Sequence[Quad], config: FanConfig = FanConfig(),
              maps: CardMaps | None = None, whole: Sequence[bool] | None = None) -> list[FanCard]:
    """The covered cards found under each card ``tops`` (image pixels), both ways; ``whole``: which
    of them are in full view (default: all; only their outlines may be split, see
    :func:`_split_seed`: a partly hidden card's outline has the side of the card on it inside)."""
    if not tops:
        return []
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if maps is None and image.ndim == 3:
        segmenter = load_segmenter()
        maps = segmenter.maps(image) if segmenter is not None else None
    cardish = None if maps is None else (maps.interior + maps.boundary).astype(np.float32)
    boundary = None if maps is None else maps.boundary.astype(np.float32)
    factor = 1.0 if maps is None else maps.factor
    found: list[FanCard] = []
    fields: dict[float, tuple[np.ndarray, np.ndarray]] = {}
    for seed, top in enumerate(tops):
        plane = _plane(top)
        px_per_mm = float(np.mean(top.side_lengths())) / ((CARD_W_MM + CARD_H_MM) / 2)
        sigma = round(max(1.0, 0.5 * px_per_mm), 1)
        if sigma not in fields:
            fields[sigma] = _gradients(gray, sigma)
        gx, gy = fields[sigma]
        scene = _Scene(gx, gy, cardish, boundary, factor, plane, 1.0)
        ref = _reference(scene, config)
        if ref <= 1e-3:
            continue
        scene = _Scene(gx, gy, cardish, boundary, factor, plane, ref)
        outline_scene = scene
        for side in (1, -1):
            if whole is not None and not whole[seed] and _covered_on(plane, top, tops, whole, side):
                continue  # (a partly hidden start: the card on it is no card under it)
            scene = outline_scene
            split = _split_seed(scene, side, config) if whole is None or whole[seed] else None
            if split is not None:
                # the outline may have taken in the strip of the card under it on this side: then
                # start from the card itself (its own plane: the outline's was stretched across
                # the strip), when the card found under it ends where the outline did
                part = _Scene(gx, gy, cardish, boundary, factor,
                              _plane(Quad.card_order(_to_image(scene.plane, split))), ref)
                first = _next_card(part, _Pose(0.0, 0.0, 0.0), [_Pose(0.0, 0.0, 0.0)], side, config)
                if first is not None and _off_outline(scene, part, first[0], side) <= SPLIT_AGREE_MM:
                    scene = part
            plane = scene.plane
            chain = [_Pose(0.0, 0.0, 0.0)]
            for _ in range(config.most_cards):
                if _cardish_beyond(scene, chain[-1], side) < config.least_cardish:
                    break  # (no card shows past this one's side: nothing to search)
                nxt = _next_card(scene, chain[-1], chain, side, config)
                if nxt is None:
                    break
                pose, score = nxt
                corners = _to_image(plane, _crop_corners(pose, side))
                if not np.isfinite(corners).all():
                    break
                area = abs(float(cv2.contourArea(corners.astype(np.float32))))
                if not SEED_AREA[0] <= area / max(top.area, 1.0) <= SEED_AREA[1]:
                    break  # (no card of the table's plane: the plane is wrong)
                covers = tuple(Quad.card_order(_to_image(plane, c.corners())) for c in chain)
                found.append(FanCard(Quad.from_array(corners), covers, _shown_mm(pose, side, chain), score, seed))
                chain.append(pose)
    return found


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4 x 2 arrays, image pixels)."""
    return _quad_iou(a, b)


def overlap_share(a: np.ndarray, b: np.ndarray) -> float:
    """The share of convex quad ``a`` (4 x 2, image pixels) lying inside convex quad ``b``."""
    area = abs(_shoelace(a))
    return _poly_overlap(_clockwise(a), _clockwise(b)) / area if area > 0 else 0.0


def read_fan_card(image: np.ndarray, card: FanCard, deck: Deck, margin_mm: float = 0.5) -> CardReading:
    """Read a covered card of a spread hand from its strip (see :func:`vision.hand.read_covered`)."""
    quad = card.quad.as_array().astype(np.float32)
    dst = np.float32([[0, 0], [READ_W - 1, 0], [READ_W - 1, READ_H - 1], [0, READ_H - 1]])
    to_crop = cv2.getPerspectiveTransform(quad, dst)
    crop = cv2.warpPerspective(image, to_crop, (READ_W, READ_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    hidden = np.zeros((READ_H, READ_W), np.uint8)
    grow = margin_mm * READ_W / CARD_W_MM
    for cover in card.covers:
        pts = cv2.perspectiveTransform(cover.as_array().reshape(-1, 1, 2).astype(np.float32), to_crop).reshape(-1, 2)
        centre = pts.mean(axis=0)
        out = pts + grow * (pts - centre) / np.linalg.norm(pts - centre, axis=1, keepdims=True)
        cv2.fillConvexPoly(hidden, out.round().astype(np.int32), 1)
    if not border_at_left(crop, hidden.astype(bool)):
        # the crop's side is no card's edge: the pose lies a few millimetres into the card, where
        # its index may be cut to a lone digit (a two-digit card's strip cut 8.5 mm in read as its
        # second digit alone at 1.0; the 20 covered cards read right on the tuning stills 1101600
        # and 1101800 all show their border there)
        return CardReading()
    reading = read_covered(crop, hidden.astype(bool), card.shown_mm, HandConfig(deck=deck))
    # the strip's plasters are not counted: a covered card's pose is found to a millimetre or two,
    # and a count from the strip (its row mirrored at the card's centre line, or measured from the
    # row's start) needs the crop on the card to a millimetre (rendered spread hand 7: W04's two
    # plasters counted three at 0.8 in a crop 2 mm narrower than the card)
    reading = reading.without_blisters()
    if reading.value is not None and reading.field_confidences.value < LONE_END:
        # one index in view, the other end under the cards on it: a close call stays open
        # (tuning still 1101800/33: W40's strip, its 4 cut at the crop's top, read 10 at 0.51;
        # the 21 values read right on the tuning stills' covered cards were read at 0.78 or more)
        return _unread(reading)
    if reading.kind is CardKind.WALK and reading.value is not None and reading.value < 10:
        # the pose of a covered card is found to a millimetre or two: a strip's crop may cut a
        # two-digit index's first digit off at its side, and a finger may lie over it (tuning
        # stills 1101600/106 and /70: W39 and F4's 50 read as 9 at 1.0 and 0.89, ink before the
        # 9 on 0.13 and 0.87 of the band; 0.00-0.02 before the five one-digit indices read right)
        ink = ink_before_index(crop, hidden.astype(bool))
        if ink is None or ink > LONE_INK:
            return _unread(reading)
    return reading


def _unread(reading: CardReading) -> CardReading:
    """``reading`` with nothing read (a walk card unnamed by its value is unnamed)."""
    return replace(reading, value=None, blisters=None, kind=CardKind.UNKNOWN, face=Face.NONE, confidence=0.0,
                   field_confidences=FieldConfidences())


LONE_END = 0.7
"""Least confidence of a covered card's value read from the one index in its strip (see
:func:`read_fan_card`)."""


LONE_INK = 0.06
"""Largest share of ink before a covered card's one-digit index for the value to stand (see
:func:`read_fan_card`)."""


__all__ = ["FanCard", "FanConfig", "find_fans", "overlap_share", "quad_iou", "read_fan_card"]
