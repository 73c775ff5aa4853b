"""Tesseract fallback: read digit strings from many small crops with one Tesseract process.

Each Tesseract call starts a process (about 100 ms), so all crops of a frame are binarised,
scaled to about 30 px text height, given a white border and stacked into one tall image; the
words Tesseract returns are assigned back to crops by their vertical position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

TEXT_HEIGHT = 30
BORDER = 20


@dataclass(frozen=True)
class OcrText:
    """Digits read from one crop and Tesseract's confidence in [0, 1] (0 when nothing was read)."""

    text: str
    confidence: float


def _prepare(crop: np.ndarray) -> np.ndarray:
    """Gray, Otsu-binarised (dark text on white), scaled to ~TEXT_HEIGHT px text, white border."""
    gray = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ys = np.nonzero((bw == 0).any(axis=1))[0]
    text_h = max(1, int(ys.max() - ys.min() + 1)) if len(ys) else bw.shape[0]
    scale = TEXT_HEIGHT / text_h
    bw = cv2.resize(bw, (max(1, round(bw.shape[1] * scale)), max(1, round(bw.shape[0] * scale))),
                    interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(bw, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_CONSTANT, value=255)


def read_digits(crops: Sequence[np.ndarray]) -> list[OcrText]:
    """Digit strings of several one-line crops, read in a single Tesseract call.

    Returns one :class:`OcrText` per crop (empty text and zero confidence when unread, and for
    every crop when Tesseract is not available).
    """
    if not crops:
        return []
    try:
        import pytesseract
    except ImportError:
        return [OcrText("", 0.0) for _ in crops]
    tiles = [_prepare(c) for c in crops]
    width = max(t.shape[1] for t in tiles)
    spans, rows, y = [], [], 0
    for t in tiles:
        pad = np.full((t.shape[0], width), 255, np.uint8)
        pad[:, : t.shape[1]] = t
        rows.append(pad)
        spans.append((y, y + t.shape[0]))
        y += t.shape[0]
    sheet = np.vstack(rows)
    try:
        data = pytesseract.image_to_data(sheet, config="--psm 6 -c tessedit_char_whitelist=0123456789.",
                                         output_type=pytesseract.Output.DICT)
    except (pytesseract.TesseractNotFoundError, pytesseract.TesseractError, OSError):
        return [OcrText("", 0.0) for _ in crops]
    words: list[list[tuple[int, str, float]]] = [[] for _ in crops]
    for text, left, top, height, conf in zip(data["text"], data["left"], data["top"], data["height"], data["conf"]):
        text = str(text).strip()
        if not text:
            continue
        cy = top + height / 2
        for k, (y0, y1) in enumerate(spans):
            if y0 <= cy < y1:
                words[k].append((int(left), text, max(0.0, float(conf)) / 100.0))
                break
    out = []
    for ws in words:
        ws.sort()
        text = "".join(w for _, w, _ in ws)
        out.append(OcrText(text, min((c for _, _, c in ws), default=0.0)))
    return out
