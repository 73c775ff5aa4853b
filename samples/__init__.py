"""Bundled game data (decks, catalogues, boards), the card and scene renderer, sample media."""
