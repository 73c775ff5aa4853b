"""``companion bench``: the fixed scenes and one short run of every measurement."""

from __future__ import annotations

import pytest

from companion.bench import bench, grid_scene


def test_grid_scene_shows_every_card_whole():
    scene = grid_scene(12, 4, (1920, 1080), seed=1)
    assert scene.image.shape == (1080, 1920, 3)
    assert len(scene.truth.cards) == 12
    assert all(c.visible_fraction > 0.99 for c in scene.truth.cards)


def test_short_bench_reports_every_figure():
    result = bench(runs=1, frames=2, baseline_frames=1)
    for key in ("cold_score_1080p_12_cards", "steady_frame_720p_10_cards", "detect_only_720p",
                "baseline_tesseract_per_card_720p", "steady_frame_720p_10_cards_detected_each_frame"):
        assert result[key]["median_ms"] > 0
    # the ratio is taken before the medians are rounded to 0.1 ms
    assert result["speedup_vs_baseline"] == pytest.approx(
        result["baseline_tesseract_per_card_720p"]["median_ms"] / result["steady_frame_720p_10_cards"]["median_ms"],
        rel=0.05, abs=0.1)
    # the steady frames differ by sensor noise only: their detections were reused, and every
    # card of them is read (so the frames use cached readings)
    assert result["steady_frame_720p_10_cards"]["detections_reused"] >= 2
    assert result["steady_frame_720p_10_cards"]["cards_read_median"] == 10
    assert result["render_1280x720"]["n"] == 10
