"""Data passed between the vision stages and handed to ``companion``.

All types are frozen dataclasses. Numpy arrays appear only as the rectified card image inside
:class:`CardObservation` (excluded from equality and hashing); JSON dicts appear only in the
``to_json``/``from_json`` converters at the edge.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from vision.errors import InvalidQuadError, VisionError

Point = tuple[float, float]


def _check_unit(name: str, value: float) -> None:
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise VisionError(f"{name} must be a number in [0, 1], got {value!r}")


@dataclass(frozen=True)
class Quad:
    """Four corners of a card in image pixels (x right, y down).

    The first corner is the card's top-left, the others follow clockwise as seen on screen
    (top-right, bottom-right, bottom-left). Build from unordered detector output with
    :meth:`card_order`, which also decides which end is "up" (see there).
    """

    corners: tuple[Point, Point, Point, Point]

    def __post_init__(self) -> None:
        if len(self.corners) != 4:
            raise InvalidQuadError(f"a quad needs 4 corners, got {len(self.corners)}")
        clean: list[Point] = []
        for i, point in enumerate(self.corners):
            if len(point) != 2:
                raise InvalidQuadError(f"corner {i} must be (x, y), got {point!r}")
            x, y = float(point[0]), float(point[1])
            if not (math.isfinite(x) and math.isfinite(y)):
                raise InvalidQuadError(f"corner {i} must be finite, got ({x}, {y})")
            clean.append((x, y))
        object.__setattr__(self, "corners", tuple(clean))

    @classmethod
    def from_array(cls, points: np.ndarray | Sequence[Sequence[float]]) -> Quad:
        """Wrap 4 points in the given order (no reordering)."""
        arr = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if arr.shape != (4, 2):
            raise InvalidQuadError(f"expected 4 points of (x, y), got an array of shape {arr.shape}")
        return cls(tuple((float(x), float(y)) for x, y in arr))  # type: ignore[arg-type]

    @classmethod
    def card_order(cls, points: np.ndarray | Sequence[Sequence[float]]) -> Quad:
        """Order 4 corners of a convex outline as top-left first, clockwise, long side vertical.

        The corners must go round the outline (either direction). The first side (top-left to
        top-right) is made a short side; of the two short sides the one whose midpoint is higher
        in the image (smaller y, then smaller x) becomes the top. Which printed end is really up
        is decided later from content (see :func:`vision.rectify.rectify`).
        """
        arr = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if arr.shape != (4, 2):
            raise InvalidQuadError(f"expected 4 points of (x, y), got an array of shape {arr.shape}")
        if _signed_area(arr) < 0:
            arr = arr[::-1]
        sides = np.linalg.norm(np.roll(arr, -1, axis=0) - arr, axis=1)
        start = 0 if sides[0] + sides[2] <= sides[1] + sides[3] else 1
        other = start + 2
        mid_a = (arr[start] + arr[(start + 1) % 4]) / 2
        mid_b = (arr[other] + arr[(other + 1) % 4]) / 2
        if (mid_b[1], mid_b[0]) < (mid_a[1], mid_a[0]):
            start = other
        return cls.from_array(np.roll(arr, -start, axis=0))

    def as_array(self) -> np.ndarray:
        """Corners as a float64 array of shape (4, 2)."""
        return np.array(self.corners, dtype=np.float64)

    @property
    def area(self) -> float:
        """Enclosed area in square pixels."""
        return abs(_signed_area(self.as_array()))

    @property
    def centroid(self) -> Point:
        """Mean of the four corners."""
        c = self.as_array().mean(axis=0)
        return (float(c[0]), float(c[1]))

    def bbox(self) -> tuple[float, float, float, float]:
        """Axis-aligned bounding box ``(xmin, ymin, xmax, ymax)``."""
        arr = self.as_array()
        return (float(arr[:, 0].min()), float(arr[:, 1].min()), float(arr[:, 0].max()), float(arr[:, 1].max()))

    def side_lengths(self) -> tuple[float, float, float, float]:
        """Lengths of top, right, bottom, left sides."""
        arr = self.as_array()
        d = np.linalg.norm(np.roll(arr, -1, axis=0) - arr, axis=1)
        return (float(d[0]), float(d[1]), float(d[2]), float(d[3]))

    def is_convex(self) -> bool:
        """True if the corners form a strictly convex polygon."""
        arr = self.as_array()
        crosses = []
        for i in range(4):
            a, b, c = arr[i], arr[(i + 1) % 4], arr[(i + 2) % 4]
            u, v = b - a, c - b
            crosses.append(float(u[0] * v[1] - u[1] * v[0]))
        return all(x > 0 for x in crosses) or all(x < 0 for x in crosses)

    def scaled(self, factor: float) -> Quad:
        """The same quad with every coordinate multiplied by ``factor``."""
        return Quad.from_array(self.as_array() * factor)

    def to_json(self) -> list[list[float]]:
        """``[[x, y], ...]`` in corner order, rounded to 0.01 px."""
        return [[round(x, 2), round(y, 2)] for x, y in self.corners]

    @classmethod
    def from_json(cls, data: Any) -> Quad:
        """Inverse of :meth:`to_json`."""
        if not isinstance(data, list) or len(data) != 4:
            raise InvalidQuadError(f"expected a list of 4 [x, y] pairs, got {data!r}")
        return cls.from_array(data)


def _signed_area(arr: np.ndarray) -> float:
    """Shoelace area; positive when the points go clockwise on screen (y down)."""
    x, y = arr[:, 0], arr[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


class CardKind(Enum):
    """What a card is, as far as vision can tell. Values are the JSON strings."""

    WALK = "walk"
    FINISH = "finish"
    START = "start"
    GLADIOLA = "gladiola"
    TIMELINE = "timeline"
    INCOME = "income"
    UNKNOWN = "unknown"


TILE_SIZES: tuple[str, ...] = ("small", "medium", "large")
"""Size classes of Via Appia road tiles, as :attr:`CardObservation.size` and JSON ``size``."""

_DATE_RE = re.compile(r"^(\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?$")


@dataclass(frozen=True, order=True)
class CardDate:
    """A date printed on a timeline card: a year, optionally with month and day."""

    year: int
    month: int | None = None
    day: int | None = None

    def __post_init__(self) -> None:
        if self.month is None and self.day is not None:
            raise VisionError(f"a date with a day needs a month, got day {self.day} without one")
        if self.month is not None and not 1 <= self.month <= 12:
            raise VisionError(f"month must be 1..12, got {self.month}")
        if self.day is not None and not 1 <= self.day <= 31:
            raise VisionError(f"day must be 1..31, got {self.day}")

    def to_json(self) -> str:
        """``"1865"``, ``"1865-08"`` or ``"1865-08-04"``."""
        text = f"{self.year}"
        if self.month is not None:
            text += f"-{self.month:02d}"
        if self.day is not None:
            text += f"-{self.day:02d}"
        return text

    @classmethod
    def from_json(cls, text: str) -> CardDate:
        """Inverse of :meth:`to_json`."""
        match = _DATE_RE.match(text) if isinstance(text, str) else None
        if match is None:
            raise VisionError(f"expected a date like 1865 or 1865-08-04, got {text!r}")
        year, month, day = match.groups()
        return cls(int(year), int(month) if month else None, int(day) if day else None)


@dataclass(frozen=True)
class FieldConfidences:
    """Confidence in [0, 1] for each field read from a card."""

    kind: float = 0.0
    value: float = 0.0
    blisters: float = 0.0
    date: float = 0.0

    def __post_init__(self) -> None:
        for name in ("kind", "value", "blisters", "date"):
            _check_unit(f"{name} confidence", getattr(self, name))


@dataclass(frozen=True)
class Detection:
    """One card outline found by :func:`vision.detect.detect_cards`.

    ``visible`` is False when part of the card is hidden (under another card, or cut by the
    image border); the quad is then the best estimate of the whole card's outline.
    ``inside`` holds quads where a card may lie inside this one when the outline may take in more
    than one card (a pile's top card whose side could not be told from the card below): a reader
    that cannot read the outline tries them, and ``also_inside`` (guesses on weaker evidence)
    when they give no reading.
    """

    quad: Quad
    confidence: float
    visible: bool = True
    inside: tuple[Quad, ...] = ()
    also_inside: tuple[Quad, ...] = ()

    def __post_init__(self) -> None:
        _check_unit("detection confidence", self.confidence)


@dataclass(frozen=True)
class CardObservation:
    """Everything vision knows about one card in one frame.

    ``image`` is the rectified upright card (BGR uint8) or None; it takes no part in equality.
    Fields that could not be read confidently are None with low field confidence.
    ``stones``/``sesterces`` are the two halves of a Via Appia income card (``value`` and
    ``blisters`` stay None for it); ``size`` is a Via Appia road tile's size class
    (``small``/``medium``/``large``; the tile's kind stays ``unknown``).
    """

    quad: Quad
    kind: CardKind = CardKind.UNKNOWN
    value: int | None = None
    blisters: int | None = None
    date: CardDate | None = None
    confidence: float = 0.0
    field_confidences: FieldConfidences = field(default_factory=FieldConfidences)
    visible: bool = True
    image: np.ndarray | None = field(default=None, compare=False, hash=False, repr=False)
    stones: int | None = None
    sesterces: int | None = None
    size: str | None = None

    def __post_init__(self) -> None:
        _check_unit("observation confidence", self.confidence)
        if self.size is not None and self.size not in TILE_SIZES:
            raise VisionError(f"size must be one of {list(TILE_SIZES)} or None, got {self.size!r}")

    def to_json(self) -> dict[str, Any]:
        """The ``CARD`` object of the ``companion read`` JSON contract."""
        out: dict[str, Any] = {
            "corners": self.quad.to_json(),
            "kind": self.kind.value,
            "value": self.value,
            "blisters": self.blisters,
            "date": self.date.to_json() if self.date is not None else None,
            "confidence": round(self.confidence, 4),
        }
        if self.kind is CardKind.INCOME:
            out["stones"] = self.stones
            out["sesterces"] = self.sesterces
        if self.size is not None:
            out["size"] = self.size
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CardObservation:
        """Inverse of :meth:`to_json` (without image and field confidences)."""
        try:
            return cls(
                quad=Quad.from_json(data["corners"]),
                kind=CardKind(data["kind"]),
                value=data.get("value"),
                blisters=data.get("blisters"),
                date=CardDate.from_json(data["date"]) if data.get("date") is not None else None,
                confidence=float(data["confidence"]),
                stones=data.get("stones"),
                sesterces=data.get("sesterces"),
                size=data.get("size"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"expected a card object with corners, kind and confidence, got {data!r} ({exc})") from exc


@dataclass(frozen=True)
class FrameResult:
    """All card observations of one frame, with the frame's size in pixels."""

    width: int
    height: int
    observations: tuple[CardObservation, ...] = ()

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise VisionError(f"frame size must be positive, got {self.width}x{self.height}")
        object.__setattr__(self, "observations", tuple(self.observations))

    def to_json(self) -> dict[str, Any]:
        """``{"image": {"width", "height"}, "cards": [...]}`` as in the ``read`` contract."""
        return {
            "image": {"width": self.width, "height": self.height},
            "cards": [obs.to_json() for obs in self.observations],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FrameResult:
        """Inverse of :meth:`to_json`."""
        try:
            image = data["image"]
            cards: Iterable[dict[str, Any]] = data["cards"]
            return cls(int(image["width"]), int(image["height"]), tuple(CardObservation.from_json(c) for c in cards))
        except (KeyError, TypeError) as exc:
            raise VisionError(f"expected {{'image': {{width, height}}, 'cards': [...]}}, got {data!r}") from exc
