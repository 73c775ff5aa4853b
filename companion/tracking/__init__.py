"""Frames to moves: card identities over frames, stability, zones, and per-game move rules.

``Tracker`` (in :mod:`companion.tracking.moves`) is the entry point; :mod:`.tracks` follows cards
and decides when they have settled, :mod:`.zones` finds the areas of the table.
"""

from companion.tracking.moves import Notice, TrackedMove, Tracker
from companion.tracking.tracks import (
    CardRemoved,
    CardSettled,
    CardTracker,
    Reading,
    SettledCard,
    TrackConfig,
    skin_fraction,
)
from companion.tracking.zones import Zone, ZoneKind, Zones

__all__ = [
    "CardRemoved",
    "CardSettled",
    "CardTracker",
    "Notice",
    "Reading",
    "SettledCard",
    "TrackConfig",
    "TrackedMove",
    "Tracker",
    "Zone",
    "ZoneKind",
    "Zones",
    "skin_fraction",
]
