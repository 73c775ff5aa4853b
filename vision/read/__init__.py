"""Reading rectified cards (vision stage 3): kind, orientation, values, blisters, dates.

Public API: :func:`read_card` (one rectified crop -> :class:`CardReading`), :class:`Deck`
(values the cards may hold), :func:`read_digits` (batched Tesseract fallback) and the digit
glyph classifier :func:`classify`.
"""

from vision.read.glyphs import GlyphMatch, classify, digit_bank
from vision.read.ocr import OcrText, read_digits
from vision.read.reader import ACCEPT, READ_H, READ_W, read_card
from vision.read.types import CardReading, Deck, Face, TileSize

__all__ = [
    "ACCEPT", "CardReading", "Deck", "Face", "GlyphMatch", "OcrText", "READ_H", "READ_W", "TileSize",
    "classify", "digit_bank", "read_card", "read_digits",
]
