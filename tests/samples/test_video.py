"""Tests of the sample game videos (samples.render.video): short renders into tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games import get_game
from companion.simulate import simulate
from samples.render.specs import Game, Side
from samples.render.video import (ChangeKind, Hold, Move, VideoConfig, iter_frames, plan_frames, plan_video,
                                  read_truth, render_video)

# Tiny, fast videos: low resolution, short moves, the first few events only.
TINY = VideoConfig(fps=10, resolution=(256, 144), move_seconds=0.5, rest_seconds=0.3, idle_seconds=0.1,
                   intro_seconds=0.2, max_events=4)
CASES = [(Game.GLADIOLA, 3, 19), (Game.VALAIS, 2, 1)]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[Game, tuple[Path, dict]]:
    out = {}
    for game, players, seed in CASES:
        d = tmp_path_factory.mktemp(game.value)
        result = render_video(d, "v", game, players, seed, TINY)
        out[game] = (d, read_truth(result.truth))
    return out


def _decode(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


@pytest.mark.parametrize("game,players,seed", CASES)
def test_frames_decode_in_order(rendered, game, players, seed):
    d, truth = rendered[game]
    decoded = _decode(d / "v.mp4")
    assert len(decoded) == truth["video"]["frames"] == len(truth["frames"])
    assert decoded[0].shape == (144, 256, 3)
    # Frame-exact: each decoded frame is nearer its own source frame than the neighbours' ones.
    source = [img for img, _ in iter_frames(plan_video(game, players, seed, TINY), TINY)]
    assert len(source) == len(decoded)
    errors = [float(np.abs(a.astype(int) - b).mean()) for a, b in zip(decoded, source)]
    assert max(errors) < 6.0
    # Aligned frame by frame: shifting by one frame either way fits worse.
    for shift in (-1, 1):
        pairs = [(decoded[i], source[i + shift]) for i in range(max(0, -shift), len(source) - max(0, shift))]
        shifted = float(np.mean([np.abs(a.astype(int) - b).mean() for a, b in pairs]))
        assert float(np.mean(errors)) < shifted
    # Where the picture changes a lot between frames, the decoded frame matches its own index.
    changed = [i for i in range(1, len(source) - 1)
               if min(np.abs(source[i].astype(int) - source[j]).mean() for j in (i - 1, i + 1)) > errors[i] + 2]
    assert changed
    for i in changed:
        errs = [float(np.abs(decoded[i].astype(int) - source[j]).mean()) for j in (i - 1, i, i + 1)]
        assert errs.index(min(errs)) == 1


@pytest.mark.parametrize("game,players,seed", CASES)
def test_log_equals_simulate(rendered, game, players, seed):
    d, truth = rendered[game]
    log = json.loads((d / "v.log.json").read_text(encoding="utf-8"))
    full = simulate(game.value, players, seed).to_json()
    assert log["events"] == full["events"][:4]
    assert {k: v for k, v in log.items() if k != "events"} == {k: v for k, v in full.items() if k != "events"}
    assert [e["turn"] for e in truth["events"]] == [1, 2, 3, 4]
    # The plan of the whole game carries the whole log unchanged.
    assert plan_video(game, players, seed).log_json() == full


@pytest.mark.parametrize("game,players,seed", CASES)
def test_settle_frames_show_the_card_on_the_table(rendered, game, players, seed):
    _, truth = rendered[game]
    w, h = truth["video"]["width"], truth["video"]["height"]
    settles = [s for s in truth["settles"] if s["change"] != "removed"]
    assert settles
    placed_events = {s["event"] for s in settles if s["change"] == "placed"}
    assert placed_events, "expected at least one card laid in the first events"
    for s in settles:
        frame = truth["frames"][s["frame"]]
        assert not frame["hand"]
        card = next(c for c in frame["cards"] if c["id"] == s["card"])
        assert not card["moving"] and card["event"] == s["event"]
        corners = np.array(card["corners"])
        assert corners.shape == (4, 2)
        assert (corners[:, 0] >= 0).all() and (corners[:, 0] < w).all()
        assert (corners[:, 1] >= 0).all() and (corners[:, 1] < h).all()
        # the frame before the settle still shows the hand or the card moving
        before = truth["frames"][s["frame"] - 1]
        assert before["hand"] or any(c["moving"] for c in before["cards"])
    for s in truth["settles"]:
        if s["change"] == "removed":
            assert s["card"] not in {c["id"] for c in truth["frames"][s["frame"]]["cards"]}


@pytest.mark.parametrize("game,players,seed", CASES)
def test_every_event_of_the_whole_game_is_filmed(game, players, seed):
    plan = plan_video(game, players, seed)
    module = get_game(game.value)
    state = module.new_game(players, seed)
    events = {s.event for s in plan.steps} - {None}
    assert events == set(range(1, len(plan.log.events) + 1))
    # The table after each event's last step is the engine's public table.
    last: dict[int, tuple] = {}
    for s in plan.steps:
        if s.event is not None:
            last[s.event] = s.after if isinstance(s, Move) else s.table
    for e in plan.log.events:
        state.apply(e.action)
        ids = {p.spec.id for p in last[e.turn]}
        view = state.public_view()
        if game is Game.GLADIOLA:
            assert ids == set(view.on_table()) | {"S"}
        else:
            assert ids == {str(c.card_id) for c in view.timeline}
            assert all(p.side is Side.DATE for p in last[e.turn])


def test_gladiola_day_change_and_reveal():
    plan = plan_video(Game.GLADIOLA, 3, 19)
    starts = [p.angle_deg for s in plan.steps if isinstance(s, Hold) for p in s.table if p.spec.id == "S"]
    turns = sorted({round(a / 90) for a in starts})
    assert turns == [0, 1, 2, 3]  # START turned a quarter per day
    assert [p for p, _ in plan.reveals] == [0, 1, 2]
    reveal_moves = [s for s in plan.steps if isinstance(s, Move) and s.reveal is not None]
    assert [s.reveal for s in reveal_moves] == [0, 1, 2]


def test_valais_card_is_turned_over_on_arrival():
    plan = plan_video(Game.VALAIS, 2, 1)
    places = [s for s in plan.steps if isinstance(s, Move) and s.carried]
    assert places and all(side is Side.EVENT for s in places for _, side in s.carried)


def test_same_seed_same_video(rendered, tmp_path):
    d, truth = rendered[Game.VALAIS]
    again = render_video(tmp_path, "v", Game.VALAIS, 2, 1, TINY)
    assert read_truth(again.truth) == truth
    assert (tmp_path / "v.log.json").read_bytes() == (d / "v.log.json").read_bytes()
    assert again.frames == plan_frames(plan_video(Game.VALAIS, 2, 1, TINY), TINY)
    other = read_truth(render_video(tmp_path / "o", "v", Game.VALAIS, 2, 2, TINY).truth)
    assert other["frames"] != truth["frames"]


@pytest.mark.parametrize("kwargs", [{"fps": 0}, {"resolution": (33, 100)}, {"max_events": -1}])
def test_bad_config(kwargs):
    with pytest.raises(ValueError):
        VideoConfig(**kwargs)


def test_no_video_for_appia():
    from companion.errors import CompanionError

    with pytest.raises(CompanionError, match="expected a game with a video"):
        plan_video(Game.APPIA, 3, 0)


def test_changes_are_named():
    assert {c.value for c in ChangeKind} == {"placed", "moved", "turned", "removed"}


@pytest.mark.parametrize("players, seed", [(5, 189), (6, 190), (6, 3)])
def test_players_sharing_a_side_sit_apart(players, seed):
    # With five or six players two share a side of the table; their arms come in at least a
    # third of the side apart, as people sit (film 190 seated two 7% of the side apart).
    from samples.render.video import _Renderer

    renderer = _Renderer(plan_video(Game.GLADIOLA, players, seed), VideoConfig(resolution=(256, 144)))
    for p in range(4, players):
        assert renderer.seat_side[p] == renderer.seat_side[p - 4]
        assert abs(renderer.seat_t[p] - renderer.seat_t[p - 4]) >= 0.3
    # the seats of players alone on a side are those drawn before (films of 2-4 players unchanged)
    alone = [p for p in range(min(players, 4)) if p + 4 >= players]
    assert all(0.3 <= renderer.seat_t[p] <= 0.7 for p in alone)
