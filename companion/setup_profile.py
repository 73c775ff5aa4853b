"""The user's calibration profile as the reading commands and the live loop use it.

A profile (``calibration.profile``) may hold the lens: frames are then undistorted before
vision looks at them, and card corners are mapped back to the raw image's pixels so the
``read`` contract (corners in image pixels) still holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np


PROFILE_HELP = "calibration profile directory (default: the user's, when it exists)"
"""The ``--profile`` help shared by every command that reads the camera."""


@dataclass(frozen=True)
class CameraSetup:
    """What a loaded profile changes for vision: ``undistorter`` (or None) and ``known_cards``,
    the enrolled deck's recogniser for the pipeline (or None)."""

    undistorter: Any = None
    source: str = ""
    known_cards: Callable[[np.ndarray, np.ndarray | None], Any] | None = None

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """The frame vision should read (undistorted when the lens is known)."""
        return self.undistorter(image) if self.undistorter is not None else image

    def to_raw(self, result: Any) -> Any:
        """A FrameResult read on a prepared frame, with its corners in raw-frame pixels."""
        if self.undistorter is None:
            return result
        from vision.types import Quad

        observations = []
        for obs in result.observations:
            raw = self.undistorter.distort_points(np.asarray(obs.quad.to_json(), np.float64))
            observations.append(replace(obs, quad=Quad(tuple((float(x), float(y)) for x, y in raw))))
        return replace(result, observations=tuple(observations))


def load_setup(directory: str | None, game: str | None = None) -> CameraSetup:
    """The setup of the profile in ``directory``, or of the default profile directory when it
    exists (``None``); a damaged or foreign profile raises CalibrationError. With ``game``
    gladiola and a deck enrolled for it, cards of that deck are recognised by their learned
    look (values and blisters from the enrollment) before zero-shot reading."""
    from calibration.lens import Undistorter
    from calibration.profile import default_profile_dir, load_profile

    where = Path(directory) if directory is not None else default_profile_dir()
    has_deck = any(where.glob("deck-*.json"))
    profile = load_profile(directory, missing_ok=directory is None or has_deck)
    undistorter = Undistorter(profile.lens) if profile.lens is not None else None
    known = _enrolled_gladiola(where) if game == "gladiola" else None
    return CameraSetup(undistorter, str(where), known)


def _enrolled_gladiola(directory: Path) -> Callable[[np.ndarray, np.ndarray | None], Any] | None:
    """The enrolled Via Gladiola deck as a ``PipelineConfig.known_cards`` hook, or None."""
    from calibration.deck import DeckGame, DeckMatcher, deck_paths
    from vision.read.types import CardReading
    from vision.types import CardKind, FieldConfidences

    index, _ = deck_paths(directory, DeckGame.GLADIOLA)
    if not index.exists():
        return None
    matcher = DeckMatcher.load(directory, DeckGame.GLADIOLA)

    def recognise(crop: np.ndarray, outside: np.ndarray | None = None) -> Any:
        found = matcher.match(crop, outside)
        if found is None:
            return None
        sure = float(found.score)
        return CardReading(
            kind=CardKind(found.kind.value), flipped=found.flipped, value=found.value, blisters=found.blisters,
            confidence=sure, orientation_confidence=sure, source="deck",
            # a crop matched once turned a quarter clockwise: the card's top is a corner shift back
            turn=3 if found.turned else 0,
            field_confidences=FieldConfidences(kind=sure, value=sure if found.value is not None else 0.0,
                                               blisters=sure if found.blisters is not None else 0.0),
        )

    return recognise
