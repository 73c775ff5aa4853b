"""Types of the reading stage: what one rectified card was read as, and what it may hold."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from vision.types import CardDate, CardKind, CardObservation, FieldConfidences, Quad


class TileSize(Enum):
    """Size class of a Via Appia road tile (by its length along the road: 1, 2 or 3 units)."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"


class Face(Enum):
    """Which printed face a reading found: a plain front, a Valais event side or date side, a tile."""

    FRONT = "front"
    EVENT = "event"
    DATE = "date"
    TILE = "tile"
    NONE = "none"


@dataclass(frozen=True)
class Deck:
    """The values the cards in play can hold; decoding never returns anything outside them.

    ``kinds``: the kinds the reader may report (others are never guessed);
    ``walk_values``: km values of walk cards; ``finish_value``/``start_value``: of FINISH and START;
    ``years``: inclusive range of Valais years; ``income_counts``: inclusive range of each income half;
    ``blister_limits``: per kind, the fewest and most blisters its cards carry (a count outside is
    never reported; kinds not listed are limited by ``max_blisters`` only).
    """

    kinds: frozenset[CardKind] = frozenset(CardKind)
    walk_values: frozenset[int] = frozenset(range(1, 50))
    finish_value: int = 50
    start_value: int = 0
    years: tuple[int, int] = (1815, 2015)
    income_counts: tuple[int, int] = (0, 9)
    max_blisters: int = 9
    blister_limits: tuple[tuple[CardKind, int, int], ...] = ()

    @classmethod
    def for_game(cls, game: str | None) -> Deck:
        """The deck of ``gladiola``, ``valais`` or ``appia`` (any kind when ``game`` is None)."""
        if game is None:
            return cls()
        kinds = {
            "gladiola": {CardKind.WALK, CardKind.FINISH, CardKind.START, CardKind.GLADIOLA},
            "valais": {CardKind.TIMELINE},
            "appia": {CardKind.INCOME},
        }.get(game)
        if kinds is None:
            raise ValueError(f"expected a game in ['appia', 'gladiola', 'valais'] or None, got {game!r}")
        # the rules' components table: walk cards 0-5 blisters, FINISH 0-2, gladiolas 1-5, START 0
        limits = ((CardKind.WALK, 0, 5), (CardKind.FINISH, 0, 2), (CardKind.GLADIOLA, 1, 5),
                  (CardKind.START, 0, 0)) if game == "gladiola" else ()
        return cls(kinds=frozenset(kinds | {CardKind.UNKNOWN}), blister_limits=limits)


@dataclass(frozen=True)
class CardReading:
    """Everything read from one rectified card crop (before it is tied to a quad).

    ``flipped``: the crop as given was upside down (the true top is the crop's bottom edge).
    Fields that could not be read confidently are None with a low field confidence.
    ``stones``/``sesterces``: the two halves of a Via Appia income card; ``tile``: a road
    tile's size class (tiles are reported with kind UNKNOWN in the JSON contract).
    """

    kind: CardKind = CardKind.UNKNOWN
    face: Face = Face.NONE
    flipped: bool = False
    value: int | None = None
    blisters: int | None = None
    date: CardDate | None = None
    stones: int | None = None
    sesterces: int | None = None
    tile: TileSize | None = None
    confidence: float = 0.0
    field_confidences: FieldConfidences = field(default_factory=FieldConfidences)
    orientation_confidence: float = 0.0
    source: str = "glyphs"
    """Which reader produced the fields: ``glyphs`` (in-process) or ``tesseract`` (fallback)."""
    turn: int = 0
    """Quarter turns (clockwise corner shifts) between the detector's corner order and the one read."""
    date_line: tuple[float, float, float, float] | None = None
    """Where a line of ink lies under the year of a date side (a card printed with a full date,
    ``d.m.yyyy``): ``(x0, y0, x1, y1)`` as fractions of the upright card; None when none does.
    The Tesseract fallback reads it when the reader gave the year alone."""

    def without_blisters(self) -> CardReading:
        """This reading with its plaster count left open (confidence 0)."""
        return replace(self, blisters=None, field_confidences=replace(self.field_confidences, blisters=0.0))

    def observation(self, quad: Quad, visible: bool = True, image: object = None) -> CardObservation:
        """A :class:`CardObservation` for ``quad`` (ordered as read: the card's true top-left first)."""
        return CardObservation(
            quad=quad, kind=self.kind, value=self.value, blisters=self.blisters, date=self.date,
            confidence=self.confidence, field_confidences=self.field_confidences, visible=visible,
            image=image,  # type: ignore[arg-type]
            stones=self.stones, sesterces=self.sesterces, size=self.tile.value if self.tile is not None else None,
        )
