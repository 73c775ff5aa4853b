"""The media bundled in ``samples/``: still images per game, one video per game, a contact sheet.

Everything is made from fixed, documented seeds, so ``companion samples make`` rebuilds the
same files:

* ``stills/<game>/``: :data:`STILLS_PER_GAME` scenes per game from
  :func:`samples.render.dataset.write_set` with set seed :data:`STILLS_SEED` (the balanced
  conditions of the renderer make the set cover every table, layout, lighting and blur kind).
* ``videos/<game>.mp4`` with ``.log.json`` and ``.truth.json.gz``: see :data:`VIDEOS`.

Size budget: stills and videos together stay below 25 MB (checked by :func:`bundle_size`).
The Valais video is filmed on felt: the mp4v encoder spends far more bits on wood grain.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from tqdm import tqdm

from samples.render.contact import BACKGROUND, face_rows
from samples.render.dataset import write_set
from samples.render.specs import Game
from samples.render.tables import TableKind
from samples.render.video import VideoConfig, VideoResult, plan_frames, plan_video, render_video

STILLS_SEED = 1
STILLS_PER_GAME = 10
BUDGET_BYTES = 25 * 1024 * 1024


@dataclass(frozen=True)
class BundledVideo:
    """One bundled video: which game, how many players, which simulation seed, which config."""

    game: Game
    players: int
    seed: int
    config: VideoConfig

    @property
    def name(self) -> str:
        return self.game.value


VIDEOS: tuple[BundledVideo, ...] = (
    BundledVideo(Game.GLADIOLA, 3, 19, VideoConfig()),  # 35 events, 70 s
    BundledVideo(Game.VALAIS, 2, 1, VideoConfig(table=TableKind.FELT)),  # 22 events, 65 s
)


def make_stills(out_dir: str | Path, progress: bool = True) -> list[Path]:
    """Write the still sets of every game under ``out_dir/stills``; returns the index files."""
    root = Path(out_dir) / "stills"
    return [write_set(root / game.value, game, STILLS_PER_GAME, STILLS_SEED, progress=progress) for game in Game]


def make_video(out_dir: str | Path, video: BundledVideo, progress: bool = True) -> VideoResult:
    """Render one video with a progress bar over its frames."""
    total = plan_frames(plan_video(video.game, video.players, video.seed, video.config), video.config)
    with tqdm(total=total, desc=f"video {video.name}", unit="frame", disable=not progress) as bar:
        def step(done: int) -> None:
            bar.update(done - bar.n)

        return render_video(Path(out_dir) / "videos", video.name, video.game, video.players, video.seed,
                            video.config, progress=step)


def make_videos(out_dir: str | Path, progress: bool = True) -> list[VideoResult]:
    """Render every bundled video under ``out_dir/videos``."""
    return [make_video(out_dir, v, progress) for v in VIDEOS]


def bundle_size(out_dir: str | Path) -> int:
    """Bytes of everything under ``out_dir/stills`` and ``out_dir/videos``."""
    root = Path(out_dir)
    return sum(f.stat().st_size for d in ("stills", "videos") for f in (root / d).rglob("*") if f.is_file())


def contact_sheet(stills_dir: str | Path, path: str | Path, width: int = 420,
                  read: Callable[[str], np.ndarray | None] = cv2.imread) -> Path:
    """Card faces in every style, then the bundled stills (one row per game, 4 per row)."""
    rows = face_rows()
    for game in Game:
        images = sorted((Path(stills_dir) / game.value).glob("*.jpg"))
        cells = []
        for f in images:
            img = read(str(f))
            if img is None:
                continue
            h = round(width * img.shape[0] / img.shape[1])
            cell = np.full((round(width * 0.75) + 6, width + 8, 3), BACKGROUND, np.uint8)
            cell[:h, 4:4 + width] = cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)
            cells.append(cell)
        for i in range(0, len(cells), 4):
            rows.append(np.hstack(cells[i:i + 4]))
    full = max(r.shape[1] for r in rows)
    padded = [np.hstack([r, np.full((r.shape[0], full - r.shape[1], 3), BACKGROUND, np.uint8)]) for r in rows]
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), np.vstack(padded), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return out
