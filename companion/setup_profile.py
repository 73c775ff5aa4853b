"""The user's calibration profile as the reading commands and the live loop use it.

A profile (``calibration.profile``) may hold the lens: frames are then undistorted before
vision looks at them, and card corners are mapped back to the raw image's pixels so the
``read`` contract (corners in image pixels) still holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CameraSetup:
    """What a loaded profile changes for vision: ``undistorter`` or None."""

    undistorter: Any = None
    source: str = ""

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


def load_setup(directory: str | None) -> CameraSetup:
    """The setup of the profile in ``directory``, or of the default profile directory when it
    exists (``None``); a damaged or foreign profile raises CalibrationError."""
    from calibration.lens import Undistorter
    from calibration.profile import default_profile_dir, load_profile

    profile = load_profile(directory, missing_ok=directory is None)
    where = str(directory) if directory is not None else str(default_profile_dir())
    undistorter = Undistorter(profile.lens) if profile.lens is not None else None
    return CameraSetup(undistorter, where)
