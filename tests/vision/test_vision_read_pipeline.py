"""The frame pipeline: detection + reading, cache reuse on a steady frame, read contract."""

from __future__ import annotations

import numpy as np

from samples.render import Game, LayoutKind, SceneConfig, render_scene
from vision.pipeline import CardReader, PipelineConfig
from vision.read import Deck
from vision.types import Detection, Quad


def test_steady_frame_reads_nothing_new_and_confident_fields_are_right() -> None:
    scene = render_scene(3, Game.APPIA, SceneConfig(resolution=(960, 540), degrade=False,
                                                    layout=LayoutKind.SCATTERED, hands=0))
    reader = CardReader(PipelineConfig(deck=Deck.for_game("appia"), tesseract=False))
    dets = [Detection(Quad.from_array(c.corners), 1.0) for c in scene.truth.cards if c.visible_fraction > 0.97]
    first = reader.read_detections(scene.image, dets)
    reads = reader.reads
    second = reader.read_detections(scene.image, dets)
    assert reads == len(dets) and reader.reads == reads
    assert first == second
    truths = [c for c in scene.truth.cards if c.visible_fraction > 0.97]
    for obs, truth in zip(first.observations, truths):
        assert obs.kind.value in (truth.spec.kind.value, "unknown")
        if obs.confidence >= 0.5 and obs.kind.value == "income":
            # the reader put the card's true top-left corner first
            assert np.allclose(obs.quad.corners[0], truth.corners[0], atol=1e-6)
    payload = first.to_json()
    assert payload["image"] == {"width": 960, "height": 540}
    assert len(payload["cards"]) == len(dets)
