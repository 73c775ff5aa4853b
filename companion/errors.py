"""Exception hierarchy of the companion package.

Every error the companion raises on purpose derives from :class:`CompanionError`; the
command line turns each into a one-line message and a non-zero exit status.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every deliberate error in ``companion``."""


class IllegalAction(CompanionError):
    """An action broke a rule of the game.

    ``rule`` names the rule (a short identifier such as ``"walk.max-step"``) so that tests and
    the dashboard can tell which rule was broken; the message says what was expected and what
    was got.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [rule {rule}]")
        self.rule = rule
        self.reason = message


class DataFileError(CompanionError):
    """A game data file (deck, catalogue, board, profile, saved game) is malformed."""

    def __init__(self, path: object, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line
        self.reason = message


class UnknownGame(CompanionError):
    """A game name that is not registered."""
