"""Tests of scripts/eval_shown_hands.py: shown hands read from a film, compared with its truth."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from companion.games.gladiola import load_deck
from vision.hand import HandCard
from tests.scripts import load_script
from vision.types import CardKind, Quad

ROOT = Path(__file__).resolve().parents[1]
FILM = ROOT / "samples" / "videos" / "gladiola"
QUAD = Quad(((0.0, 0.0), (59.0, 0.0), (59.0, 91.0), (0.0, 91.0)))


@pytest.fixture(scope="module")
def tool():
    return load_script("eval_shown_hands")


def _card(kind: CardKind, value: int | None = None, blisters: int | None = None) -> HandCard:
    return HandCard(QUAD, 34.0, False, kind, value, blisters)


def _truth(*ids: str) -> list[dict]:
    deck = load_deck()
    return [{"id": i, "kind": deck.get(i).kind.value, "value": deck.get(i).value, "blisters": deck.get(i).blisters}
            for i in ids]


def test_cards_are_right_abstained_or_wrong_by_what_they_can_name(tool):
    deck = load_deck()
    truth = _truth("W17", "F2", "G5", "W30")
    cards = [_card(CardKind.WALK, 17), _card(CardKind.FINISH, 50, 1),  # F2 or its twin F4: right
             _card(CardKind.GLADIOLA), _card(CardKind.WALK, 31)]  # no count: abstained; 31: wrong
    score, notes = tool.score_row(cards, truth, deck)
    assert (score.rows, score.found, score.right, score.abstained, score.wrong, score.whole) == (1, 1, 2, 1, 1, 0)
    assert len(notes) == 2 and "WRONG" in notes[1] and "W30" in notes[1]
    whole, _ = tool.score_row(cards[:2], truth[:2], deck)
    assert whole.whole == 1 and whole + score == tool.RowScore(2, 2, 4, 1, 1, 1)
    missing, notes = tool.score_row(None, truth, deck)
    assert missing == tool.RowScore(rows=1) and notes == ["no row of 4 cards"]


def test_the_bundled_films_shown_hands_are_read_without_a_wrong_card(tool, capsys):
    truth = json.load(gzip.open(FILM.with_name("gladiola.truth.json.gz")))
    cards = sum(len(r["cards"]) for r in truth["reveals"])
    assert tool.main([str(FILM), "--offsets", "6", "--json"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["rows"] == len(truth["reveals"]) == total["found"]
    assert total["right"] + total["abstained"] + total["wrong"] == cards
    assert total["wrong"] == 0 and total["right"] >= 0.9 * cards


def test_a_film_without_its_truth_file_is_a_clear_error(tool, tmp_path):
    with pytest.raises(SystemExit, match="expected a film's truth file"):
        tool.main([str(tmp_path / "g999")])
