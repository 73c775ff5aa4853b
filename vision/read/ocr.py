"""Tesseract fallback: read digit strings from many small crops with one Tesseract process.

Each Tesseract call starts a process (about 100 ms), so all crops of a frame are binarised,
scaled to about 30 px text height, given a white border and stacked into one tall image; the
words Tesseract returns are assigned back to crops by their vertical position. Every crop is
stacked a second time at 24 px text height, and only texts read alike at both scales stand.
Date lines (``d.m.yyyy`` under a Valais*Wallis year) get two looks of their own in one call
(:func:`read_date_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.reader import glyphs_contradict

TEXT_HEIGHT = 30
CHECK_HEIGHT = 24
"""Text height (px) of the second reading each crop gets in the same Tesseract call."""
BORDER = 20


@dataclass(frozen=True)
class OcrText:
    """Digits read from one crop and Tesseract's confidence in [0, 1] (0 when nothing was read)."""

    text: str
    confidence: float


def _prepare(crop: np.ndarray, text_height: int = TEXT_HEIGHT) -> tuple[np.ndarray, float]:
    """Gray, Otsu-binarised (dark text on white), scaled to about ``text_height`` px text, white
    border; and the scale factor applied."""
    gray = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ys = np.nonzero((bw == 0).any(axis=1))[0]
    text_h = max(1, int(ys.max() - ys.min() + 1)) if len(ys) else bw.shape[0]
    scale = text_height / text_h
    bw = cv2.resize(bw, (max(1, round(bw.shape[1] * scale)), max(1, round(bw.shape[0] * scale))),
                    interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(bw, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_CONSTANT, value=255), scale


def _run_tesseract(tiles: list[np.ndarray]) -> list[list[tuple[int, str, float, int]]] | None:
    """Tesseract's words (left, text, confidence, right; tile pixels) on each of several tiles,
    read as one stacked sheet; None when Tesseract is not available."""
    try:
        import pytesseract
    except ImportError:
        return None
    width = max(t.shape[1] for t in tiles)
    spans, rows, y = [], [], 0
    for t in tiles:
        pad = np.full((t.shape[0], width), 255, np.uint8)
        pad[:, : t.shape[1]] = t
        rows.append(pad)
        spans.append((y, y + t.shape[0]))
        y += t.shape[0]
    try:
        data = pytesseract.image_to_data(np.vstack(rows),
                                         config="--psm 6 -c tessedit_char_whitelist=0123456789.",
                                         output_type=pytesseract.Output.DICT)
    except (pytesseract.TesseractNotFoundError, pytesseract.TesseractError, OSError):
        return None
    words: list[list[tuple[int, str, float, int]]] = [[] for _ in tiles]
    for text, left, top, box_w, height, conf in zip(data["text"], data["left"], data["top"], data["width"],
                                                    data["height"], data["conf"]):
        text = str(text).strip()
        if not text:
            continue
        cy = top + height / 2
        for k, (y0, y1) in enumerate(spans):
            if y0 <= cy < y1:
                words[k].append((int(left), text, max(0.0, float(conf)) / 100.0, int(left) + int(box_w)))
                break
    for ws in words:
        ws.sort()
    return words


def read_digits(crops: Sequence[np.ndarray]) -> list[OcrText]:
    """Digit strings of several one-line crops, read in a single Tesseract call.

    Returns one :class:`OcrText` per crop (empty text and zero confidence when unread, and for
    every crop when Tesseract is not available). Each crop is read twice in the same call, at
    two text heights; a text stands only when the second reading gives the same digits (a guess
    from a blurred or cut digit changes with the scale, a clear print does not) and the in-process
    glyph templates do not surely read another digit in its place; otherwise its confidence is 0.
    """
    if not crops:
        return []
    prepared = [_prepare(c) for c in crops]
    checks = [_prepare(c, CHECK_HEIGHT)[0] for c in crops]
    words = _run_tesseract([t for t, _ in prepared] + checks)
    if words is None:
        return [OcrText("", 0.0) for _ in crops]
    out = []
    for ws, again, crop, (_, scale) in zip(words[: len(crops)], words[len(crops):], crops, prepared):
        text = "".join(w for _, w, _, _ in ws)
        conf = min((c for _, _, c, _ in ws), default=0.0)
        if ws and "".join(w for _, w, _, _ in again) != text:
            conf = 0.0
        elif ws:
            x0, x1 = ((min(w[0] for w in ws) - BORDER) / scale, (max(w[3] for w in ws) - BORDER) / scale)
            if glyphs_contradict(crop, text, x0, x1):
                conf = 0.0
        out.append(OcrText(text, conf))
    return out


DATE_HEIGHTS = (28, 48)
"""Text heights (px) of the two looks each date line gets in one Tesseract call: binarised at the
first, gray at the second (Tesseract thresholds it itself); the readings must agree."""
DATE_SPAN_SLACK = 0.6
"""How far (in character pitches) the ink of a date line may reach beyond the characters
Tesseract read in it before a character counts as lost (film 157's 24.5.1954 read as 4.5.1954)."""


def _date_look(band: np.ndarray, text_height: int, binarise: bool) -> tuple[np.ndarray, float]:
    """A date line's crop scaled so its digits (about 0.6 of the band's height) are
    ``text_height`` px tall, binarised or gray, with a border; and the scale applied."""
    gray = band if band.ndim == 2 else cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)
    scale = text_height / (0.6 * gray.shape[0])
    gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    if binarise:
        _, gray = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        return cv2.copyMakeBorder(gray, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_CONSTANT, value=255), scale
    gray = cv2.normalize(gray, None, 0, 255, cv2.NORM_MINMAX)  # a faded line's gray stretched to black
    return cv2.copyMakeBorder(gray, BORDER, BORDER, BORDER, BORDER, cv2.BORDER_REPLICATE), scale


def _ink_span(band: np.ndarray) -> tuple[int, int] | None:
    """The first and last column (band pixels) holding dark ink (Otsu on the band)."""
    gray = band if band.ndim == 2 else cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)
    _, bw = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    cols = np.nonzero(bw.sum(axis=0) >= 2 * 255)[0]
    return (int(cols[0]), int(cols[-1]) + 1) if len(cols) else None


def read_date_lines(bands: Sequence[np.ndarray]) -> list[str]:
    """The text (digits and dots) of several ``d.m.yyyy`` lines, read in one Tesseract call.

    Each line is looked at twice (see ``DATE_HEIGHTS``); a text stands only when both looks read
    it alike and its characters span the line's ink (none lost at either end, see
    ``DATE_SPAN_SLACK``); otherwise, and without Tesseract, the text is empty.
    """
    if not bands:
        return []
    looks = [[_date_look(b, h, binarise=k == 0) for b in bands] for k, h in enumerate(DATE_HEIGHTS)]
    words = _run_tesseract([t for look in looks for t, _ in look])
    if words is None:
        return ["" for _ in bands]
    out = []
    for i, band in enumerate(bands):
        texts = []
        span = _ink_span(band)
        for k, look in enumerate(looks):
            ws = words[k * len(bands) + i]
            text = "".join(w for _, w, _, _ in ws)
            if not ws or span is None:
                texts.append(None)
                continue
            scale = look[i][1]
            left, right = (min(w[0] for w in ws) - BORDER) / scale, (max(w[3] for w in ws) - BORDER) / scale
            pitch = (right - left) / max(1, len(text))
            lost = span[0] < left - DATE_SPAN_SLACK * pitch or span[1] > right + DATE_SPAN_SLACK * pitch
            texts.append(None if lost else text)
        out.append(texts[0] if texts[0] is not None and all(t == texts[0] for t in texts) else "")
    return out
