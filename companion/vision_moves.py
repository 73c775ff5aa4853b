"""The camera's move source: vision reads each frame, tracking turns settled changes into moves.

:class:`VisionMoves` implements the session's ``MoveSource``: per frame it runs the vision
pipeline (detect, rectify, read, with its per-card cache), tells the tracker whether an arm is
over the table, and hands the tracker's concluded moves to the session as ``MoveItem``s.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from companion.games import canonical_name
from companion.session import MoveItem
from companion.setup_profile import CameraSetup
from companion.sources import Frame
from companion.tracking import TrackConfig, Tracker, skin_fraction

#: an arm is over the table when the skin-coloured share rises this much above the calm level
HAND_RISE = 0.015
#: frames of calm history for the skin baseline
BASELINE_FRAMES = 90


class VisionMoves:
    """Frames -> vision -> tracking -> moves. ``view`` returns the observer's public view."""

    def __init__(
        self,
        game: str,
        view: Callable[[], Any] | None = None,
        reader: Any = None,
        tracker: Tracker | None = None,
        track_config: TrackConfig = TrackConfig(),
        setup: CameraSetup = CameraSetup(),
    ) -> None:
        from vision.pipeline import CardReader, PipelineConfig
        from vision.read.types import Deck

        self.game = canonical_name(game)
        self.view = view
        self.setup = setup
        self.reader = reader or CardReader(PipelineConfig(deck=Deck.for_game(self.game),
                                                          known_cards=setup.known_cards))
        self.tracker = tracker or Tracker(self.game, track_config)
        self._skin: deque[float] = deque(maxlen=BASELINE_FRAMES)
        self._last: tuple[int, Any, np.ndarray] | None = None
        self.hand = False

    def _hand_over_table(self, image: np.ndarray) -> bool:
        small = cv2.resize(image, (160, 90), interpolation=cv2.INTER_AREA)
        share = skin_fraction(small)
        baseline = min(self._skin) if self._skin else share
        self._skin.append(share)
        return share > baseline + HAND_RISE

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        image = self.setup.prepare(frame.image)
        result = self.reader.read_frame(image)
        self.hand = self._hand_over_table(image)
        self._last = (frame.index, result, image)
        view = self.view() if self.view is not None else None
        found = self.tracker.update(frame.index, frame.timestamp, result, view=view, hand=self.hand or None)
        return [MoveItem(m.frame_index, m.timestamp, m.action, tuple(m.evidence)) for m in found]

    def annotate(self, frame: Frame) -> np.ndarray:
        """The frame with each card's outline and reading, and a mark while an arm is over the table."""
        if self._last is None or self._last[0] != frame.index:
            return frame.image.copy()
        image = self._last[2].copy()
        scale = max(1.0, image.shape[1] / 1280)
        for obs in self._last[1].observations:
            pts = np.round(np.array(obs.quad.to_json(), dtype=np.float64)).astype(np.int32)
            read = obs.kind.value != "unknown"
            colour = (60, 200, 60) if read and obs.visible else (0, 165, 255)
            cv2.polylines(image, [pts], True, colour, max(2, int(2 * scale)), cv2.LINE_AA)
            label = _label(obs)
            x, y = int(pts[:, 0].min()), int(pts[:, 1].min()) - 6
            cv2.putText(image, label, (x, max(14, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                        (255, 255, 255), max(3, int(4 * scale)), cv2.LINE_AA)
            cv2.putText(image, label, (x, max(14, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                        colour, max(1, int(2 * scale)), cv2.LINE_AA)
        if self.hand:
            cv2.putText(image, "hand over the table: waiting", (16, int(36 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.9 * scale, (0, 0, 255), max(2, int(2 * scale)), cv2.LINE_AA)
        return image


def _label(obs: Any) -> str:
    if obs.kind.value == "unknown":
        return "?"
    if obs.date is not None:
        return obs.date.to_json()
    if obs.value is not None:
        return f"{obs.value} km" + (f" +{obs.blisters}" if obs.blisters else "")
    return obs.kind.value
