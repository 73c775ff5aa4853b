#!/usr/bin/env python3
"""Train the small card-segmentation network used by :mod:`vision.segment` and export it to ONNX.

Two steps, each deterministic for its arguments. The first shipped model (session 8) was made with::

    python scripts/train_card_segmenter.py render --out /tmp/segdata --scenes 1500 --first-seed 100000 --jobs 2
    python scripts/train_card_segmenter.py train --data /tmp/segdata --steps 900 --onnx /tmp/a/card_seg.onnx
    python scripts/train_card_segmenter.py train --data /tmp/segdata --steps 1300 --crop-w 192 --crop-h 160 \
        --lr 3e-3 --seed 11 --init /tmp/a/card_seg.pt --onnx /tmp/b/card_seg.onnx
    python scripts/train_card_segmenter.py train --data /tmp/segdata --steps 1300 --crop-w 192 --crop-h 160 \
        --lr 2e-3 --seed 12 --init /tmp/b/card_seg.pt --onnx vision/models/card_seg.onnx

(each ``train`` also saves its weights next to the ONNX file as ``.pt``; about 25 minutes of
CPU in all on two cores).

``render`` draws scenes with :func:`samples.render.scene.render_scene` (all three games, every
layout, table, blur, hand and resolution condition the renderer balances over), scales each image
into the network's fixed input (see :data:`vision.segment.INPUT_W`, letterboxed at the top left)
and builds a per-pixel target there:

* 0 background: table, hands and arms, Via Appia stone tiles, the letterbox padding;
* 1 card interior: the part of a card that is seen (cards painted in stacking order, hands on
  top), minus the boundary band;
* 2 boundary band: pixels whose 3x3 neighbourhood holds more than one card label (or card and
  background), i.e. the seen outline of every card, including the line between two overlapping
  or touching cards.

The renderer's ground truth has no hand mask, but its hand drawing uses a random generator of
its own purpose: the same draws are replayed here with the renderer's own helpers, which gives
the exact hand mask. Scene seeds must stay below 500000 (evaluation sets use set seeds >= 1000,
i.e. scene seeds >= 720720000).

``train`` fits a small U-Net (about 0.1 M parameters, see :func:`build_model`) with
class-weighted cross entropy on random crops, with flips and photometric jitter, and writes an
ONNX file (opset 13, static input size, softmax probabilities as output; written by a small
protobuf writer below, so no onnx package is needed) that :mod:`vision.segment` runs with ``cv2.dnn``. PyTorch is
needed only here, never at run time.

Options for fine-tuning a shipped model at the 480x368 canvas: ``--freeze-bn`` (batch norms stay
on their running statistics, so training starts exactly at the file's function), ``--schedule
cosine``, ``--seam-crops`` (crops centred near the lines between two cards), ``--widen-band``
with ``--seams-only`` (the band between two cards made wider in the targets, see
:func:`widen_band`; at 480x368 the rendered band is only two pixels and breaks easily, which
merges cards), ``--widen-out`` and ``--seam-weight``. The model shipped since session 10 was
fine-tuned so from the one made above (its ``--onnx`` then was ``vision/models/card_seg.onnx``)::

    python scripts/train_card_segmenter.py render --out /tmp/seg480 --scenes 1500 --first-seed 200000 \
        --jobs 2 --input-w 480 --input-h 368
    python scripts/train_card_segmenter.py train --data /tmp/seg480 --steps 800 --crop-w 256 --crop-h 192 \
        --lr 5e-4 --schedule cosine --warmup 0.1 --freeze-bn --seam-crops 0.5 --widen-band 1 --seams-only \
        --threads 1 --seed 21 --init vision/models/card_seg.onnx --onnx /tmp/segB/D/card_seg.onnx

Validation prints per-class pixel recall, the recall of seam pixels and an instance recall and
precision (:func:`instance_matches`); these are rough guides only, the detector's own
evaluation (``scripts/eval_detect_renders.py --model``) decides.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.render.camera import apply_homography, distort_points, distortion_maps  # noqa: E402
from samples.render.layouts import make_layout  # noqa: E402
from samples.render.scene import (  # noqa: E402
    _draw_hand,
    _game_specs,
    _hand_mask,
    _rng,
    _sample_edges,
    render_scene,
)
from samples.render.specs import CardKind, Game  # noqa: E402
from vision.segment import INPUT_H, INPUT_W, letterbox  # noqa: E402

MAX_TRAIN_SEED = 500000
GAMES = (Game.GLADIOLA, Game.VALAIS, Game.APPIA)


# ----------------------------------------------------------------------------- targets


def scene_target(seed: int, game: Game, size: tuple[int, int] = (INPUT_W, INPUT_H)) -> tuple[np.ndarray, np.ndarray]:
    """Render one scene; return the network input letterboxed into ``size`` (width, height; BGR
    uint8) and its class map."""
    scene = render_scene(seed, game)
    truth = scene.truth
    cond = truth.conditions
    width, height = cond.width, cond.height
    hom = np.array(truth.homography)
    cards = make_layout(cond.layout, game, _game_specs(game), _rng(seed, "layout", game))
    if len(cards) != len(truth.cards):
        raise RuntimeError(f"layout replay gave {len(cards)} cards, truth has {len(truth.cards)} (seed {seed})")
    quads = [apply_homography(hom, p.corners_mm()) for p in cards]
    for quad, card in zip(quads, truth.cards):
        got = distort_points(quad, width, height, cond.distortion_k1)
        if np.abs(got - np.array(card.corners)).max() > 0.05:
            raise RuntimeError(f"layout replay does not match the truth corners (seed {seed})")
    # Hands: replay the renderer's draws (same generator purpose, same order of calls).
    hands = np.zeros((height, width), np.uint8)
    hand_rng = _rng(seed, "hands", game)
    scratch = np.zeros((height, width, 3), np.uint8)
    for _ in range(cond.hands):
        pick = int(hand_rng.integers(len(quads)))
        w_mm, h_mm = cards[pick].spec.size_mm()
        scale = math.sqrt(abs(cv2.contourArea(quads[pick].astype(np.float32))) / (w_mm * h_mm))
        reach = quads[pick].mean(axis=0) + hand_rng.normal(0, 0.2, 2) * np.ptp(quads[pick], axis=0)
        palm_px = scale * hand_rng.uniform(78, 95)
        mask = _hand_mask(hand_rng, width, height, reach, palm_px)
        _draw_hand(scratch, mask, hand_rng, palm_px)
        np.maximum(hands, mask, out=hands)
    k1 = cond.distortion_k1
    if k1 > 0:
        map1, map2 = distortion_maps(width, height, k1)
        hands = cv2.remap(hands, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    image, factor = letterbox(scene.image, size)
    # Card labels at the network's scale, painted bottom to top; tiles count as background.
    label = np.zeros((size[1], size[0]), np.int32)
    for i, (quad, card) in enumerate(zip(quads, truth.cards)):
        edge = distort_points(_sample_edges(quad, 8), width, height, k1) * factor
        value = 0 if card.spec.kind is CardKind.TILE else i + 1
        cv2.fillPoly(label, [np.round(edge * 16).astype(np.int32)], value, cv2.LINE_8, 4)
    small_hands = cv2.resize(hands, (round(width * factor), round(height * factor)), interpolation=cv2.INTER_AREA)
    label[: small_hands.shape[0], : small_hands.shape[1]][small_hands >= 128] = 0
    return image, classes_from_labels(label)


def classes_from_labels(label: np.ndarray) -> np.ndarray:
    """Class map (0 background, 1 interior, 2 boundary) from a card-id map (0 = no card)."""
    lab = label.astype(np.float32)
    kernel = np.ones((3, 3), np.uint8)
    hi = cv2.dilate(lab, kernel)
    lo = cv2.erode(lab, kernel)
    out = np.zeros(label.shape, np.uint8)
    out[label > 0] = 1
    out[hi != lo] = 2
    return out


def _render_chunk(args: tuple[int, int, tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    first, count, size = args
    images, targets = [], []
    for k in range(first, first + count):
        game = GAMES[k % len(GAMES)]
        image, target = scene_target(k, game, size)
        images.append(image)
        targets.append(target)
    return np.stack(images), np.stack(targets)


def cmd_render(args: argparse.Namespace) -> None:
    if args.first_seed + args.scenes > MAX_TRAIN_SEED:
        raise SystemExit(f"training seeds must stay below {MAX_TRAIN_SEED}, got up to {args.first_seed + args.scenes}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chunk = 50
    jobs = [(s, min(chunk, args.first_seed + args.scenes - s), (args.input_w, args.input_h))
            for s in range(args.first_seed, args.first_seed + args.scenes, chunk)]
    start = time.time()
    from multiprocessing import Pool

    with Pool(args.jobs) as pool:
        for (first, count, _), (images, targets) in zip(jobs, pool.imap(_render_chunk, jobs)):
            np.savez_compressed(out / f"chunk_{first:07d}.npz", images=images, targets=targets)
            print(f"seeds {first}..{first + count - 1} done, {time.time() - start:.0f} s", flush=True)


# ----------------------------------------------------------------------------- model and training

WIDTHS = (12, 24, 32, 48)
"""Channels at 1/2, 1/4, 1/8 and 1/16 of the input resolution."""


def build_model():
    """A U-Net with strided-convolution downsampling (about 0.1 M parameters).

    Encoder: per level a stride-2 3x3 convolution and a 3x3 convolution (batch norm, ReLU).
    Decoder: nearest 2x upsampling, concatenation with the encoder output of that level, one 3x3
    convolution. Head: upsample to the input size, concatenate the input itself (for sharp
    class borders) and a 3x3 convolution to the three class scores.
    """
    import torch
    from torch import nn

    def cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True))

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down = nn.ModuleList()
            cin = 3
            for w in WIDTHS:
                self.down.append(nn.Sequential(cbr(cin, w, 2), cbr(w, w)))
                cin = w
            self.up = nn.ModuleList(cbr(WIDTHS[i] + WIDTHS[i + 1], WIDTHS[i]) for i in range(len(WIDTHS) - 2, -1, -1))
            self.head = nn.Conv2d(WIDTHS[0] + 3, 3, 3, 1, 1)
            self.resize = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = x - 0.5
            inp = x
            skips = []
            for d in self.down:
                x = d(x)
                skips.append(x)
            x = skips.pop()
            for u in self.up:
                x = u(torch.cat([self.resize(x), skips.pop()], 1))
            return self.head(torch.cat([self.resize(x), inp], 1))

    return UNet()


def _load(data: Path) -> tuple[np.ndarray, np.ndarray]:
    """The images and targets of one render directory, padded (black, background) to a multiple
    of 16 on both sides: the network halves the resolution four times, and letterboxing into the
    bigger canvas would have given the same padding."""
    images, targets = [], []
    for f in sorted(data.glob("chunk_*.npz")):
        z = np.load(f)
        images.append(z["images"])
        targets.append(z["targets"])
    if not images:
        raise SystemExit(f"expected chunk_*.npz files in {data}, found none")
    images, targets = np.concatenate(images), np.concatenate(targets)
    pad_h, pad_w = -images.shape[1] % 16, -images.shape[2] % 16
    if pad_h or pad_w:
        images = np.pad(images, ((0, 0), (0, pad_h), (0, pad_w), (0, 0)))
        targets = np.pad(targets, ((0, 0), (0, pad_h), (0, pad_w)))
    return images, targets


def seam_mask(target: np.ndarray) -> np.ndarray:
    """Boundary pixels with no background within two pixels: the lines between two cards that
    overlap or touch (the part of the band that separates card instances)."""
    near_bg = cv2.dilate((target == 0).astype(np.uint8), np.ones((5, 5), np.uint8))
    return (target == 2) & (near_bg == 0)


def widen_band(target: np.ndarray, pixels: int, seams_only: bool = False) -> np.ndarray:
    """``target`` with the boundary band grown ``pixels`` into the card interiors (never into the
    background): a wider band between two cards is harder to break, which is what keeps two
    card instances apart. With ``seams_only`` only the band between two cards (see
    :func:`seam_mask`) grows, so a card's outline against the table stays where it is."""
    out = target.copy()
    kernel = np.ones((3, 3), np.uint8)
    band = seam_mask(target) if seams_only else target == 2
    for _ in range(pixels):
        band = cv2.dilate(band.astype(np.uint8), kernel) > 0
        band &= out != 0
        out[band] = 2
    return out


def widen_out(target: np.ndarray, pixels: int) -> np.ndarray:
    """``target`` with the boundary band grown ``pixels`` outwards into the background: cards
    that nearly touch get a band over the whole gap, and the interior keeps its place (a card's
    quad comes from its interior region grown by a pixel)."""
    out = target.copy()
    kernel = np.ones((3, 3), np.uint8)
    for _ in range(pixels):
        grown = cv2.dilate((out == 2).astype(np.uint8), kernel) > 0
        out[grown & (out == 0)] = 2
    return out


def instance_matches(pred: np.ndarray, target: np.ndarray, min_area: int = 60,
                     iou: float = 0.7) -> tuple[int, int, int]:
    """Compare card instances in a predicted and a target class map: instances are the
    4-connected components of the interior class (the boundary band cuts cards apart), those
    under ``min_area`` pixels are ignored. Returns (target instances, predicted instances,
    target instances matched by a predicted one with IoU >= ``iou``)."""
    def comps(classes: np.ndarray) -> list[np.ndarray]:
        count, labels, stats, _ = cv2.connectedComponentsWithStats((classes == 1).astype(np.uint8), connectivity=4)
        return [labels == k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= min_area]

    want, got = comps(target), comps(pred)
    used: set[int] = set()
    hits = 0
    for w in want:
        for j, g in enumerate(got):
            if j in used:
                continue
            inter = int(np.count_nonzero(w & g))
            if inter and inter / int(np.count_nonzero(w | g)) >= iou:
                used.add(j)
                hits += 1
                break
    return len(want), len(got), hits


def _lr_lambda(schedule: str, steps: int, warmup: float):
    """Learning-rate factor per step for the ``cosine`` schedule: linear warm-up over the first
    ``warmup`` share of the steps, then cosine decay to zero."""
    ramp = max(1, round(steps * warmup))

    def factor(step: int) -> float:
        if step < ramp:
            return (step + 1) / ramp
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - ramp) / max(1, steps - ramp))))

    return factor


def cmd_train(args: argparse.Namespace) -> None:
    import torch
    from torch import nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    # Several directories may hold different canvas sizes (the same scenes seen at other
    # scales); validation scenes and the exported input size come from the first one.
    sets = [_load(Path(d)) for d in args.data]
    images = [im for ims, _ in sets for im in ims]
    targets = [tg for _, tgs in sets for tg in tgs]
    size = (sets[0][0].shape[2], sets[0][0].shape[1])
    n = len(sets[0][0])
    n_val = min(64, max(8, n // 20))
    order = rng.permutation(n)
    val_idx, train_idx = order[:n_val], np.concatenate([order[n_val:], np.arange(n, len(images))])
    if not len(train_idx):
        raise SystemExit(f"expected more scenes than the {n_val} kept for validation, got {len(images)}")
    for d, (ims, _) in zip(args.data, sets):
        print(f"{d}: {len(ims)} scenes at {ims.shape[2]}x{ims.shape[1]}", flush=True)
    print(f"{len(train_idx)} train and {n_val} validation scenes, input {size[0]}x{size[1]}, "
          f"crops {args.crop_w}x{args.crop_h}", flush=True)
    del sets
    model = build_model()
    if args.init and args.init.endswith(".onnx"):
        load_onnx_weights(model, Path(args.init))
        print(f"starting from {args.init}", flush=True)
    elif args.init:
        model.load_state_dict(torch.load(args.init))
        print(f"starting from {args.init}", flush=True)
    print(f"{sum(p.numel() for p in model.parameters())} parameters", flush=True)
    class_weight = torch.tensor([1.0, 1.0, args.boundary_weight])
    pixel_loss = nn.CrossEntropyLoss(reduction="none")

    def loss_fn(logits: torch.Tensor, y: torch.Tensor, seam: torch.Tensor) -> torch.Tensor:
        """Class-weighted cross entropy (weighted mean), seam pixels weighted ``--seam-weight``
        times more than the rest of the boundary band."""
        w = class_weight[y] * (1.0 + (args.seam_weight - 1.0) * seam)
        return (pixel_loss(logits, y) * w).sum() / w.sum()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    if args.schedule == "onecycle":
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, _lr_lambda(args.schedule, args.steps, args.warmup))
    out = Path(args.onnx)
    out.parent.mkdir(parents=True, exist_ok=True)
    seams: dict[int, np.ndarray] = {}

    def set_train() -> None:
        model.train()
        if args.freeze_bn:
            # keep the batch norms on their running statistics: a model started from an ONNX
            # file then starts exactly where the file is, instead of re-normalising per batch
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()

    def corner(i: int) -> tuple[int, int]:
        """Top-left corner of a crop of image ``i``: random, or (with probability ``--seam-crops``)
        centred on a random seam pixel when the image has any."""
        max_y, max_x = images[i].shape[0] - args.crop_h, images[i].shape[1] - args.crop_w
        if args.seam_crops > 0 and rng.random() < args.seam_crops:
            if i not in seams:
                seams[i] = np.argwhere(seam_mask(targets[i])).astype(np.int32)
            pts = seams[i]
            if len(pts):
                cy, cx = pts[int(rng.integers(len(pts)))]
                jy = rng.integers(-args.crop_h // 4, args.crop_h // 4 + 1)
                jx = rng.integers(-args.crop_w // 4, args.crop_w // 4 + 1)
                y0 = int(np.clip(cy - args.crop_h // 2 + jy, 0, max_y))
                x0 = int(np.clip(cx - args.crop_w // 2 + jx, 0, max_x))
                return y0, x0
        return int(rng.integers(0, max_y + 1)), int(rng.integers(0, max_x + 1))

    def crops(idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        xs, ys = [], []
        for i in idx:
            y0, x0 = corner(int(i))
            x = images[i][y0: y0 + args.crop_h, x0: x0 + args.crop_w].astype(np.float32) * (1 / 255)
            y = targets[i][y0: y0 + args.crop_h, x0: x0 + args.crop_w]
            if rng.random() < 0.5:
                x, y = x[:, ::-1], y[:, ::-1]
            if rng.random() < 0.5:
                x, y = x[::-1], y[::-1]
            gain = rng.uniform(0.75, 1.25) * rng.uniform(0.9, 1.1, 3)
            xs.append(np.clip(x * gain + rng.uniform(-0.08, 0.08), 0, 1).astype(np.float32).transpose(2, 0, 1))
            if args.widen_band:
                y = widen_band(y, args.widen_band, args.seams_only)
            if args.widen_out:
                y = widen_out(y, args.widen_out)
            ys.append(y)
        if args.seam_weight != 1.0:
            seam = np.stack([seam_mask(y) for y in ys])
        else:
            seam = np.zeros((len(ys),) + ys[0].shape, bool)
        return (torch.from_numpy(np.ascontiguousarray(np.stack(xs))), torch.from_numpy(np.stack(ys).astype(np.int64)),
                torch.from_numpy(seam.astype(np.float32)))

    def validate() -> np.ndarray:
        """Per-class pixel recall on the validation scenes, the recall of seam pixels, and the
        instance recall and precision (see :func:`instance_matches`)."""
        model.eval()
        correct, count = np.zeros(4), np.zeros(4)
        n_want = n_got = n_hit = 0
        with torch.no_grad():
            for b in range(0, n_val, 8):
                idx = val_idx[b: b + 8]
                x = torch.from_numpy(np.stack([images[i] for i in idx]).astype(np.float32).transpose(0, 3, 1, 2)
                                     * (1 / 255))
                y = torch.from_numpy(np.stack([targets[i] for i in idx]).astype(np.int64))
                pred = model(x).argmax(1)
                for c in range(3):
                    sel = y == c
                    count[c] += int(sel.sum())
                    correct[c] += int((pred[sel] == c).sum())
                sel = torch.from_numpy(np.stack([seam_mask(targets[i]) for i in idx]))
                count[3] += int(sel.sum())
                correct[3] += int((pred[sel] == 2).sum())
                for k, i in enumerate(idx):
                    a, b, c = instance_matches(pred[k].numpy(), targets[i])
                    n_want, n_got, n_hit = n_want + a, n_got + b, n_hit + c
        set_train()
        return np.concatenate([correct / np.maximum(count, 1), [n_hit / max(n_want, 1), n_hit / max(n_got, 1)]])

    start = time.time()
    running = 0.0
    if args.log_every:
        acc = validate()
        print(f"step 0 val recall bg/interior/boundary {acc[0]:.3f}/{acc[1]:.3f}/{acc[2]:.3f} seam {acc[3]:.3f} "
              f"instances recall/precision {acc[4]:.3f}/{acc[5]:.3f}", flush=True)
    set_train()
    for step in range(1, args.steps + 1):
        x, y, seam = crops(train_idx[rng.integers(0, len(train_idx), args.batch)])
        loss = loss_fn(model(x), y, seam)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running += loss.item()
        if step % args.log_every == 0 or step == args.steps:
            acc = validate()
            print(f"step {step}/{args.steps} loss {running / args.log_every:.4f} val recall bg/interior/boundary "
                  f"{acc[0]:.3f}/{acc[1]:.3f}/{acc[2]:.3f} seam {acc[3]:.3f} instances {acc[4]:.3f}/{acc[5]:.3f}  "
                  f"lr {sched.get_last_lr()[0]:.2e}  "
                  f"{time.time() - start:.0f} s", flush=True)
            running = 0.0
            torch.save(model.state_dict(), out.with_suffix(".pt"))
    model.eval()
    export(model, out, size)


# ----------------------------------------------------------------------------- ONNX export
# A minimal protobuf writer for the few ONNX messages needed, so exporting needs no onnx package.


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        out.append(low | 0x80 if n else low)
        if not n:
            return bytes(out)


def _pb_int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _pb_bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint((field << 3) | 2) + _varint(len(data)) + data


def _pb_tensor(name: str, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array)
    code = {np.dtype(np.float32): 1, np.dtype(np.int64): 7}[array.dtype]
    return (b"".join(_pb_int(1, d) for d in array.shape) + _pb_int(2, code) + _pb_bytes(8, name)
            + _pb_bytes(9, array.tobytes()))


def _pb_attr(name: str, value: int | str | list[int]) -> bytes:
    if isinstance(value, int):
        return _pb_bytes(1, name) + _pb_int(3, value) + _pb_int(20, 2)
    if isinstance(value, str):
        return _pb_bytes(1, name) + _pb_bytes(4, value) + _pb_int(20, 3)
    return _pb_bytes(1, name) + b"".join(_pb_int(8, v) for v in value) + _pb_int(20, 7)


def _pb_node(op: str, inputs: list[str], outputs: list[str], name: str, **attrs) -> bytes:
    return (b"".join(_pb_bytes(1, i) for i in inputs) + b"".join(_pb_bytes(2, o) for o in outputs)
            + _pb_bytes(3, name) + _pb_bytes(4, op) + b"".join(_pb_bytes(5, _pb_attr(k, v)) for k, v in attrs.items()))


def _pb_value(name: str, shape: tuple[int, ...]) -> bytes:
    dims = b"".join(_pb_bytes(1, _pb_int(1, d)) for d in shape)
    return _pb_bytes(1, name) + _pb_bytes(2, _pb_bytes(1, _pb_int(1, 1) + _pb_bytes(2, dims)))


def onnx_bytes(model, size: tuple[int, int] = (INPUT_W, INPUT_H)) -> bytes:
    """The trained network as an ONNX model (opset 13) with batch norms folded into the
    convolutions and a softmax over the classes at the end. The input offset stays an explicit
    Sub: folding it into the first bias would be wrong at the zero-padded border."""
    nodes: list[bytes] = []
    inits: list[bytes] = [_pb_tensor("half", np.full((1, 1, 1, 1), 0.5, np.float32)),
                          _pb_tensor("scales", np.array([1, 1, 2, 2], np.float32))]
    counter = [0]

    def conv(x: str, conv_mod, bn=None, relu: bool = True) -> str:
        counter[0] += 1
        k = counter[0]
        w = conv_mod.weight.detach().numpy().astype(np.float64)
        b = conv_mod.bias.detach().numpy().astype(np.float64) if conv_mod.bias is not None else np.zeros(w.shape[0])
        if bn is not None:
            g = bn.weight.detach().numpy() / np.sqrt(bn.running_var.detach().numpy() + bn.eps)
            w = w * g[:, None, None, None]
            b = (b - bn.running_mean.detach().numpy()) * g + bn.bias.detach().numpy()
        inits.append(_pb_tensor(f"w{k}", w.astype(np.float32)))
        inits.append(_pb_tensor(f"b{k}", b.astype(np.float32)))
        s = conv_mod.stride[0]
        nodes.append(_pb_node("Conv", [x, f"w{k}", f"b{k}"], [f"c{k}"], f"conv{k}", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[s, s]))
        if not relu:
            return f"c{k}"
        nodes.append(_pb_node("Relu", [f"c{k}"], [f"r{k}"], f"relu{k}"))
        return f"r{k}"

    def cbr(x: str, seq) -> str:
        return conv(x, seq[0], seq[1])

    def up(x: str) -> str:
        counter[0] += 1
        nodes.append(_pb_node("Resize", [x, "", "scales"], [f"u{counter[0]}"], f"resize{counter[0]}", mode="nearest"))
        return f"u{counter[0]}"

    def cat(a: str, b: str) -> str:
        counter[0] += 1
        nodes.append(_pb_node("Concat", [a, b], [f"k{counter[0]}"], f"concat{counter[0]}", axis=1))
        return f"k{counter[0]}"

    nodes.append(_pb_node("Sub", ["image", "half"], ["centred"], "centre"))
    x = "centred"
    skips = []
    for level in model.down:
        x = cbr(cbr(x, level[0]), level[1])
        skips.append(x)
    x = skips.pop()
    for u in model.up:
        x = cbr(cat(up(x), skips.pop()), u)
    logits = conv(cat(up(x), "centred"), model.head, None, relu=False)
    nodes.append(_pb_node("Softmax", [logits], ["prob"], "softmax", axis=1))
    graph = (b"".join(_pb_bytes(1, nd) for nd in nodes) + _pb_bytes(2, "card_seg")
             + b"".join(_pb_bytes(5, t) for t in inits)
             + _pb_bytes(11, _pb_value("image", (1, 3, size[1], size[0])))
             + _pb_bytes(12, _pb_value("prob", (1, 3, size[1], size[0]))))
    return (_pb_int(1, 7) + _pb_bytes(2, "train_card_segmenter") + _pb_bytes(7, graph)
            + _pb_bytes(8, _pb_bytes(1, "") + _pb_int(2, 13)))


def _pb_fields(data: bytes):
    """Yield (field number, wire type, value) of one protobuf message (varint and length-delimited
    fields only, which is all that :func:`onnx_bytes` writes)."""
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            value, pos = data[pos: pos + length], pos + length
        else:
            raise SystemExit(f"expected only varint or bytes fields in the ONNX file, got wire type {wire}")
        yield field, wire, value


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def load_onnx_weights(model, path: Path) -> None:
    """Start ``model`` from an ONNX file written by :func:`onnx_bytes` (batch norms were folded
    into the convolutions there: the folded weights go into each convolution and its batch norm
    becomes the identity plus the folded bias). Works for any input size the file was made for."""
    import torch

    graph = next(v for f, _, v in _pb_fields(Path(path).read_bytes()) if f == 7)
    tensors: dict[str, np.ndarray] = {}
    for field, _, value in _pb_fields(graph):
        if field != 5:
            continue
        dims, name, raw = [], "", b""
        for f, _, v in _pb_fields(value):
            if f == 1:
                dims.append(v)
            elif f == 8:
                name = v.decode()
            elif f == 9:
                raw = v
        tensors[name] = np.frombuffer(raw, np.float32).reshape(dims).copy()
    convs = sorted((int(n[1:]) for n in tensors if n[0] == "w" and n[1:].isdigit()))
    layers = []
    for level in model.down:
        layers += [level[0], level[1]]
    layers += list(model.up)
    if len(convs) != len(layers) + 1:
        raise SystemExit(f"expected {len(layers) + 1} convolutions in {path}, found {len(convs)}")
    with torch.no_grad():
        for k, seq in zip(convs, layers):
            conv, bn = seq[0], seq[1]
            if conv.weight.shape != tensors[f"w{k}"].shape:
                raise SystemExit(f"expected weights of shape {tuple(conv.weight.shape)} for conv{k}, "
                                 f"got {tensors[f'w{k}'].shape}")
            conv.weight.copy_(torch.from_numpy(tensors[f"w{k}"]))
            bn.weight.fill_(1.0)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.bias.copy_(torch.from_numpy(tensors[f"b{k}"]))
        model.head.weight.copy_(torch.from_numpy(tensors[f"w{convs[-1]}"]))
        model.head.bias.copy_(torch.from_numpy(tensors[f"b{convs[-1]}"]))


def export(model, path: Path, size: tuple[int, int] = (INPUT_W, INPUT_H)) -> None:
    """Write ``model`` as ONNX for a fixed input ``size`` (width, height) and check that cv2.dnn
    reproduces PyTorch's probabilities."""
    import torch

    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(onnx_bytes(model, size))
    net = cv2.dnn.readNetFromONNX(str(path))
    x = np.random.default_rng(0).random((1, 3, size[1], size[0]), dtype=np.float32)
    net.setInput(x)
    got = net.forward()
    with torch.no_grad():
        want = torch.softmax(model(torch.from_numpy(x)), 1).numpy()
    diff = float(np.abs(got - want).max())
    print(f"wrote {path} ({path.stat().st_size} bytes), cv2.dnn vs torch max difference {diff:.2e}", flush=True)
    if diff > 1e-3:
        raise SystemExit(f"expected cv2.dnn to match torch within 1e-3, got {diff}")


def cmd_export(args: argparse.Namespace) -> None:
    import torch

    model = build_model()
    model.load_state_dict(torch.load(args.weights))
    export(model, Path(args.onnx), (args.input_w, args.input_h))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="render training scenes and targets")
    r.add_argument("--out", required=True)
    r.add_argument("--scenes", type=int, default=2400)
    r.add_argument("--first-seed", type=int, default=100000)
    r.add_argument("--jobs", type=int, default=2)
    t = sub.add_parser("train", help="train and export to ONNX")
    t.add_argument("--data", required=True, nargs="+", help="one or more directories written by render")
    t.add_argument("--steps", type=int, default=600)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--crop-w", type=int, default=160)
    t.add_argument("--crop-h", type=int, default=128)
    t.add_argument("--log-every", type=int, default=50)
    t.add_argument("--lr", type=float, default=4e-3)
    t.add_argument("--boundary-weight", type=float, default=3.0)
    t.add_argument("--widen-band", type=int, default=0,
                   help="grow the boundary band of the training targets this many pixels into the cards")
    t.add_argument("--widen-out", type=int, default=0,
                   help="grow the boundary band of the training targets this many pixels into the background")
    t.add_argument("--seams-only", action="store_true", help="widen only the band between two cards")
    t.add_argument("--seam-weight", type=float, default=1.0,
                   help="extra loss weight factor on seam pixels (boundary between two cards, see seam_mask)")
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--seed", type=int, default=7)
    t.add_argument("--schedule", choices=("onecycle", "cosine"), default="onecycle",
                   help="learning-rate schedule: one-cycle, or linear warm-up then cosine decay to zero")
    t.add_argument("--warmup", type=float, default=0.05, help="warm-up share of the steps (cosine schedule)")
    t.add_argument("--freeze-bn", action="store_true",
                   help="keep batch norms on their running statistics while training (use when fine-tuning)")
    t.add_argument("--seam-crops", type=float, default=0.0,
                   help="share of crops centred near a seam between two cards (see seam_mask)")
    t.add_argument("--onnx", default="vision/models/card_seg.onnx")
    t.add_argument("--init", default=None, help="start from these saved weights (.pt, or an .onnx file this script wrote)")
    e = sub.add_parser("export", help="export saved weights (.pt) to ONNX")
    e.add_argument("--weights", required=True)
    e.add_argument("--onnx", default="vision/models/card_seg.onnx")
    for p in (r, e):
        p.add_argument("--input-w", type=int, default=INPUT_W, help="network input width (default: the shipped one)")
        p.add_argument("--input-h", type=int, default=INPUT_H, help="network input height")
    args = parser.parse_args()
    {"render": cmd_render, "train": cmd_train, "export": cmd_export}[args.cmd](args)


if __name__ == "__main__":
    main()
