"""Writing sets of rendered scenes to disk, and timing the renderer."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from samples.render.scene import SceneConfig, render_scene
from samples.render.specs import Game

# Scene i of a set with seed s uses scene seed s * SEED_STRIDE + i. The stride is divisible by
# every option count up to 16, so the balanced conditions of render_scene start a fresh block
# at scene 0: any set of n scenes uses each of n options of a condition exactly once.
SEED_STRIDE = 720720


def scene_seed(set_seed: int, index: int) -> int:
    """The render seed of scene ``index`` in the set made with ``set_seed``."""
    if set_seed < 0 or index < 0:
        raise ValueError(f"expected non-negative set seed and index, got {set_seed} and {index}")
    return set_seed * SEED_STRIDE + index


def write_set(out_dir: str | Path, game: Game, count: int, seed: int, progress: bool = True,
              config: SceneConfig = SceneConfig()) -> Path:
    """Render ``count`` scenes of ``game`` into ``out_dir``: ``NNNN.jpg`` (the exact image bytes),
    ``NNNN.json`` (ground truth) and ``index.json`` (every scene's seed, files and conditions).

    Deterministic: the same arguments give byte-identical files. Returns the index path.
    """
    if count < 0:
        raise ValueError(f"expected a non-negative count, got {count}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries: list[dict[str, Any]] = []
    for i in tqdm(range(count), desc=f"render {game.value}", unit="img", disable=not progress):
        s = scene_seed(seed, i)
        scene = render_scene(s, game, config)
        stem = f"{i:04d}"
        (out / f"{stem}.jpg").write_bytes(scene.jpeg)
        truth = scene.truth.to_json()
        truth["file"] = f"{stem}.jpg"
        (out / f"{stem}.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        entries.append({"image": f"{stem}.jpg", "truth": f"{stem}.json", "seed": s,
                        "cards": len(scene.truth.cards), "conditions": truth["conditions"]})
    index = out / "index.json"
    index.write_text(json.dumps({"game": game.value, "seed": seed, "count": count, "scenes": entries}, indent=1)
                     + "\n", encoding="utf-8")
    return index


@dataclass(frozen=True)
class BenchStats:
    """Render times in milliseconds. ``first_ms`` includes filling the face and table caches;
    ``cpu_median_ms`` is the median CPU time of this process (less disturbed by other load)."""

    n: int
    width: int
    height: int
    first_ms: float
    median_ms: float
    mean_ms: float
    p90_ms: float
    max_ms: float
    cpu_median_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def bench_render(n: int, seed: int, game: Game = Game.GLADIOLA,
                 config: SceneConfig = SceneConfig(resolution=(1280, 720))) -> BenchStats:
    """Render ``n`` scenes (scene seeds as in :func:`write_set`) and time each one."""
    if n < 1:
        raise ValueError(f"expected at least one scene to time, got {n}")
    if config.resolution is None:
        config = replace(config, resolution=(1280, 720))
    times = []
    cpu = []
    for i in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        render_scene(scene_seed(seed, i), game, config)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    ordered = sorted(times)
    width, height = config.resolution or (0, 0)
    return BenchStats(n=n, width=width, height=height, first_ms=times[0], median_ms=statistics.median(times),
                      mean_ms=statistics.fmean(times), p90_ms=ordered[min(n - 1, int(0.9 * n))],
                      max_ms=ordered[-1], cpu_median_ms=statistics.median(cpu))
