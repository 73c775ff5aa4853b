"""The replay-against-truth comparison (scripts/eval_replay.py) on edited copies of a real log."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "samples" / "videos" / "gladiola.log.json"


@pytest.fixture(scope="module")
def tool():
    return load_script("eval_replay")


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads(TRUTH.read_text())


def seen(log: dict) -> list[dict]:
    return [e for e in log["events"] if e["action"]["type"] != "pause"]


def test_the_truth_against_itself_matches_every_seen_move(tool, truth):
    score = tool.compare(truth, truth)
    n = len(seen(truth))
    assert n > 10
    assert (score.truth_moves, score.found_moves, score.matched, score.missed, score.phantom) == (n, n, n, 0, 0)
    assert score.verdicts_equal == n and score.players_equal == n and score.cards_equal == n


def test_a_missed_move_and_a_phantom_are_counted_once_each(tool, truth):
    found = copy.deepcopy(truth)
    walks = [i for i, e in enumerate(found["events"]) if e["action"]["type"] == "walk"]
    dropped = found["events"].pop(walks[3])
    phantom = copy.deepcopy(found["events"][walks[6]])
    phantom["action"] = {"type": "walk", "card": "W99"}
    found["events"].insert(walks[6], phantom)
    score = tool.compare(found, truth)
    n = len(seen(truth))
    assert score.matched == n - 1
    assert score.missed == 1 and score.phantom == 1
    assert score.missed_actions == (json.dumps(dropped["action"], sort_keys=True),)
    assert score.phantom_actions == ('{"card": "W99", "type": "walk"}',)


def test_a_finish_card_named_by_another_id_still_matches_but_not_as_the_same_card(tool, truth):
    found = copy.deepcopy(truth)
    finish = next(e for e in found["events"] if e["action"]["type"] == "walk" and e["action"]["card"].startswith("F"))
    other = next(f"F{k}" for k in range(1, 7) if f"F{k}" != finish["action"]["card"])
    finish["action"]["card"] = other
    walk = next(e for e in found["events"] if e["action"]["type"] == "walk" and e["action"]["card"].startswith("W"))
    walk["action"]["card"] = "W49" if walk["action"]["card"] != "W49" else "W48"
    score = tool.compare(found, truth)
    n = len(seen(truth))
    # another FINISH card is the same move on camera (they differ only in blisters); another walk is not
    assert (score.matched, score.missed, score.phantom) == (n - 1, 1, 1)
    assert score.cards_equal == n - 2


def test_a_different_verdict_or_player_is_seen(tool, truth):
    found = copy.deepcopy(truth)
    event = seen(found)[2]
    event["verdict"]["draws"] += 1
    event["player"] = (event["player"] + 1) % len(found["players"])
    score = tool.compare(found, truth)
    n = len(seen(truth))
    assert score.matched == n
    assert score.verdicts_equal == n - 1 and score.players_equal == n - 1


def test_logs_of_different_games_are_refused(tool, truth):
    other = dict(truth, game="valais")
    with pytest.raises(ValueError, match="same game"):
        tool.compare(other, truth)


def test_the_command_line_reports_a_clear_error_for_a_missing_file(tool, tmp_path, capsys):
    assert tool.main([str(tmp_path / "nope.json"), str(TRUTH)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("eval_replay: error:") and len(err.strip().splitlines()) == 1


def test_latency_is_announce_frame_minus_rest_frame(tool, truth):
    found = copy.deepcopy(truth)
    frames = {"video": {"fps": 10}, "events": []}
    for k, event in enumerate(found["events"]):
        if event["action"]["type"] != "pause":
            frames["events"].append({"turn": event["turn"], "settle_frame": 100 * k})
            event["frame"] = 100 * k + (k % 3)
    score = tool.compare(found, truth, frames)
    seen_turns = [k for k, e in enumerate(found["events"]) if e["action"]["type"] != "pause"]
    assert score.latency_frames == tuple(k % 3 for k in seen_turns)
    assert score.fps == 10.0


def test_valais_places_compare_by_the_seen_year_and_count_positions_apart(tool):
    from companion.games.valais import load_catalogue

    truth = json.loads((ROOT / "samples" / "videos" / "valais.log.json").read_text())
    catalogue = load_catalogue()
    found = copy.deepcopy(truth)
    places = [e for e in found["events"] if e["action"]["type"] == "place"]
    assert len(places) > 5
    for event in places:
        card = catalogue.card(event["action"]["card"])
        event["action"] = {"type": "place-seen", "position": event["action"]["position"],
                           "card": {"id": 1000000 + card.card_id, "date": str(card.date.year), "joker": None}}
    found["events"].insert(3, {"turn": 0, "player": 0, "action": {"type": "remove", "index": 2},
                               "verdict": {"legal": True, "draws": 0}})
    places[1]["action"]["position"] += 1  # seen at another place in the row: the same move
    places[2]["action"]["card"]["date"] = "1066"  # another year: not the same move
    score = tool.compare(found, truth)
    n = len(seen(truth))
    assert (score.matched, score.missed, score.phantom) == (n - 1, 1, 1)
    assert score.positions_equal == n - 2


def test_valais_joker_steps_in_the_hand_are_not_compared(tool):
    truth = json.loads((ROOT / "samples" / "videos" / "valais.log.json").read_text())
    found = copy.deepcopy(truth)
    n = len(tool._seen(truth["events"]))
    truth["events"].insert(4, {"turn": 0, "player": 1, "action": {"type": "reveal-own", "card": 26},
                               "verdict": {"legal": True, "draws": 0}})
    found["events"].insert(6, {"turn": 0, "player": 1, "action": {"type": "reveal-seen", "card": None},
                               "verdict": {"legal": True, "draws": 0}})
    found["events"].insert(7, {"turn": 0, "player": 1, "action": {"type": "keep", "card": None},
                               "verdict": {"legal": True, "draws": 0}})
    score = tool.compare(found, truth)
    assert (score.truth_moves, score.matched, score.missed, score.phantom) == (n, n, 0, 0)


def test_pause_frames_are_the_first_frames_of_the_pause_turns(tool, truth):
    pauses = [e["turn"] for e in truth["events"] if e["action"]["type"] == "pause"]
    assert len(pauses) > 3
    frames = {"events": [{"turn": e["turn"], "first_frame": 10 * e["turn"]} for e in truth["events"]]}
    frames["events"][0]["first_frame"] = None  # a turn the video does not show
    expected = tuple(10 * t for t in pauses if t != truth["events"][0]["turn"])
    assert tool.pause_frames(truth, frames) == expected
    seats = {e["turn"]: e["player"] for e in truth["events"]}
    assert tool.pause_presses(truth, frames) == tuple((f, seats[f // 10]) for f in expected)
