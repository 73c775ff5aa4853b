"""Motion blur for calibration tests, drawn independently of ``calibration.features``."""

from __future__ import annotations

import cv2
import numpy as np


def streak(length: int, angle: float) -> np.ndarray:
    """A normalised straight motion-blur kernel ``length`` pixels long at ``angle`` degrees."""
    kernel = np.zeros((length, length), np.float32)
    c = length // 2
    dx, dy = np.cos(np.radians(angle)) * c, np.sin(np.radians(angle)) * c
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    return kernel / kernel.sum()
