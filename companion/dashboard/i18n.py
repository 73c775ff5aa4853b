"""Dashboard texts in German and English: one small dict per language, same keys in each."""

from __future__ import annotations

from typing import Mapping

LANGUAGES: tuple[str, ...] = ("en", "de")
DEFAULT_LANGUAGE = "en"

TEXTS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "title": "Table companion",
        "camera": "Camera",
        "turn": "Move",
        "day": "Day",
        "round": "Round",
        "phase": "Phase",
        "player": "Player",
        "hand": "Cards in hand",
        "score": "Score",
        "to_move": "to move",
        "waiting": "Waiting for the first move",
        "legal": "OK",
        "illegal": "Not allowed",
        "draw": "draw {n}",
        "game_over": "Game over",
        "winner": "Winner",
        "pause": "Pause (P)",
        "undo": "Undo last move (U)",
        "correct": "Correct last move",
        "correct_help": "The last move as the camera read it; change it and send.",
        "send": "Send",
        "reveal": "Show your hand",
        "reveal_help": "Card ids, separated by commas",
        "pad": "Score pad",
        "new_cards": "7 new income cards (ids, commas)",
        "history": "Moves",
        "source_ok": "camera OK",
        "source_lost": "camera lost: play on, the state is kept",
        "source_reconnecting": "reconnecting to the camera",
        "source_ended": "no more frames",
        "error": "Error",
        "language": "Deutsch",
        "corrected": "corrected",
    },
    "de": {
        "title": "Spielbegleiter",
        "camera": "Kamera",
        "turn": "Zug",
        "day": "Tag",
        "round": "Runde",
        "phase": "Phase",
        "player": "Spieler",
        "hand": "Karten auf der Hand",
        "score": "Wertung",
        "to_move": "ist am Zug",
        "waiting": "Warte auf den ersten Zug",
        "legal": "OK",
        "illegal": "Nicht erlaubt",
        "draw": "{n} ziehen",
        "game_over": "Spielende",
        "winner": "Sieg",
        "pause": "Pause (P)",
        "undo": "Letzten Zug zurücknehmen (U)",
        "correct": "Letzten Zug berichtigen",
        "correct_help": "Der letzte Zug, wie die Kamera ihn gelesen hat; ändern und senden.",
        "send": "Senden",
        "reveal": "Handkarten zeigen",
        "reveal_help": "Karten-IDs, durch Kommas getrennt",
        "pad": "Wertungsblock",
        "new_cards": "7 neue Einkommenskarten (IDs, Kommas)",
        "history": "Züge",
        "source_ok": "Kamera OK",
        "source_lost": "Kamera weg: weiterspielen, der Spielstand bleibt",
        "source_reconnecting": "Kamera wird neu verbunden",
        "source_ended": "keine Bilder mehr",
        "error": "Fehler",
        "language": "English",
        "corrected": "berichtigt",
    },
}


def texts(language: str) -> Mapping[str, str]:
    """The texts of ``language`` (``en`` or ``de``)."""
    return TEXTS[language]
