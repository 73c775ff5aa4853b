"""Game registry: maps a game name to its engine module.

Each engine module has the same small API (see :mod:`companion.games.base`).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from companion.errors import UnknownGame

_MODULES = {
    "gladiola": "companion.games.gladiola",
    "valais": "companion.games.valais",
    "appia": "companion.games.appia",
}
_ALIASES = {
    "via-gladiola": "gladiola",
    "valais-wallis": "valais",
    "wallis": "valais",
    "via-appia": "appia",
}

GAME_NAMES: tuple[str, ...] = tuple(_MODULES)


def canonical_name(name: str) -> str:
    key = name.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in _MODULES:
        raise UnknownGame(f"unknown game {name!r}: expected one of {', '.join(GAME_NAMES)}")
    return key


def get_game(name: str) -> ModuleType:
    """The engine module for ``name`` (``gladiola``, ``valais``, ``appia`` or an alias)."""
    return import_module(_MODULES[canonical_name(name)])
