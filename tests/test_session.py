"""The live session: moves, correction, undo, reveal, score pad, resume from the log, frame loop."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pytest

from companion.errors import CompanionError
from companion.games import GAME_NAMES, get_game
from companion.session import (
    FrameHub, MoveItem, MoveSource, Origin, Session, SimulatedMoves, run_loop,
)
from companion.sources import BlankSource, Frame
from companion.store import EntryKind, GameStore

NAMES = ("Ann", "Ben", "Cy")


@pytest.fixture
def store(tmp_path):
    with GameStore(tmp_path / "log.sqlite3") as s:
        yield s


def start(store, game, seed=1, players=3):
    sim = SimulatedMoves(game, players, seed, pace=0)
    return sim, Session.new(store, game, NAMES[:players], sim.observer())


def item(action, index=0):
    return MoveItem(index, float(index), action)


def fresh_json(sim, actions):
    obs = sim.observer()
    for a in actions:
        obs.apply(a)
    return obs.to_json()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_moves_are_judged_logged_and_resumed(store, game):
    sim, session = start(store, game)
    for i, action in enumerate(sim.actions[:8]):
        rec = session.submit(item(action, i), Origin.SIMULATION)
        assert rec.verdict.legal and rec.turn == i + 1
    assert session.observer_json() == fresh_json(sim, sim.actions[:8])
    again = Session.resume(store, session.game_id)
    assert again.export() == session.export()
    assert again.observer_json() == session.observer_json()
    assert again.replay_mismatches == 0
    assert [e["action"] for e in again.export()["events"]] == [a.to_json() for a in sim.actions[:8]]


def test_illegal_move_leaves_state_and_is_in_history(store):
    sim, session = start(store, "gladiola")
    before = session.observer_json()
    rec = session.submit(item(get_game("gladiola").Walk("NO-SUCH-CARD")))
    assert not rec.verdict.legal and rec.verdict.rule
    assert session.observer_json() == before
    assert session.view().last == rec


def test_correction_replaces_last_move(store):
    sim, session = start(store, "gladiola")
    first, second = sim.actions[0], sim.actions[1]
    session.submit(item(first))
    misread = get_game("gladiola").Walk("NO-SUCH-CARD")
    session.submit(item(misread, 1))
    rec = session.correct(second)
    assert rec.verdict.legal and rec.corrected and rec.turn == 2
    assert [m.action for m in session.moves()] == [first, second]
    assert session.observer_json() == fresh_json(sim, [first, second])
    again = Session.resume(store, session.game_id)
    assert again.observer_json() == session.observer_json()
    assert [m.action for m in again.moves()] == [first, second]
    kinds = [e.kind for e in store.entries(session.game_id)]
    assert kinds == [EntryKind.MOVE, EntryKind.MOVE, EntryKind.CORRECTION]


def test_undo_rebuilds_from_log(store):
    sim, session = start(store, "valais")
    for i, a in enumerate(sim.actions[:3]):
        session.submit(item(a, i))
    undone = session.undo()
    assert undone.action == sim.actions[2]
    assert session.observer_json() == fresh_json(sim, sim.actions[:2])
    session.submit(item(sim.actions[2], 9))
    assert Session.resume(store, session.game_id).observer_json() == fresh_json(sim, sim.actions[:3])


def test_nothing_to_undo_or_correct(store):
    sim, session = start(store, "gladiola")
    with pytest.raises(CompanionError, match="nothing to undo"):
        session.undo()
    with pytest.raises(CompanionError, match="nothing to correct"):
        session.correct(sim.actions[0])
    assert store.entries(session.game_id) == []


def test_gladiola_end_reveal_and_scores(store):
    sim, session = start(store, "gladiola", seed=3)
    for i, a in enumerate(sim.actions):
        session.submit(item(a, i))
    view = session.view()
    assert view.facts.over and view.facts.scores is None and view.unrevealed == (0, 1, 2)
    hands = sim.hands()
    with pytest.raises(CompanionError):
        session.reveal_hand(0, hands[0][:-1])  # one card short
    assert view.shown == (None, None, None)
    deck = get_game("gladiola").load_deck()
    session.reveal_hand(1, hands[1])  # a hand shown before the others: its blisters are known
    assert session.view().shown == (None, deck.blisters(hands[1]), None) and session.view().facts.scores is None
    for seat, hand in enumerate(hands):
        if seat != 1:
            session.reveal_hand(seat, hand)
    view = session.view()
    assert view.unrevealed == () and view.facts.scores is not None
    assert view.facts.scores == tuple(deck.blisters(h) for h in hands)
    again = Session.resume(store, session.game_id)
    assert again.export()["scores"] == list(view.facts.scores)
    assert [e.kind for e in store.entries(session.game_id)].count(EntryKind.REVEAL) == 3


def test_pause_only_in_gladiola(store):
    sim, session = start(store, "gladiola")
    rec = session.pause()
    assert rec.action == get_game("gladiola").Pause() and rec.origin is Origin.DASHBOARD
    assert rec.verdict.legal
    _, appia = start(store, "appia")
    with pytest.raises(CompanionError, match="Via Gladiola"):
        appia.pause()


def test_appia_score_pad_options_are_entered_by_the_engine(store):
    sim, session = start(store, "appia", players=2)
    pad = session.view().pad
    assert pad and all(not o.needs_display for o in pad)
    push = next(o for o in pad if o.action.to_json()["type"] == "push")
    assert session.enter(push.action).verdict.legal
    outcomes = session.view().pad
    assert outcomes and all(o.action.to_json()["type"] == "quarry-outcome" for o in outcomes)
    assert session.enter(outcomes[0].action).verdict.legal


def test_valais_joker_steps_in_the_hand_are_offered_on_the_pad(store):
    valais = get_game("valais")
    session = Session.new(store, "valais", NAMES[:2], valais.Observer.start(2, 0, first_card=109))  # 1920
    # placing is seen by the camera, not entered: only the correction for a missed wrong card
    assert [o.action for o in session.view().pad] == [valais.MissedWrong()]
    joker = valais.load_catalogue().card(63).seen()  # 1865, a joker: two cards drawn, one kept
    assert session.enter(valais.PlaceSeen(joker, 0)).verdict.legal
    pad = session.view().pad
    assert [o.text for o in pad] == ["keep one of the drawn cards"]
    assert session.enter(pad[0].action).verdict.legal
    give = session.view().pad
    assert [o.action for o in give] == [valais.GiveCard(None, 1)] and give[0].text == f"give a drawn card to {NAMES[1]}"
    assert session.enter(give[0].action).verdict.legal
    assert [o.action for o in session.view().pad] == [valais.MissedWrong()]
    assert session.view().pad[0].text.startswith(f"{NAMES[1]} put a wrong card in")
    assert session.view().facts.current_player == 1


def test_valais_a_card_placed_takes_the_open_hand_step_as_done(store):
    valais = get_game("valais")
    card = valais.load_catalogue().card
    session = Session.new(store, "valais", NAMES[:2], valais.Observer.start(2, 0, first_card=109))  # 1920
    assert session.enter(valais.PlaceSeen(card(4).seen(), 0)).verdict.legal  # 1815-08-04, a 1815 joker
    assert [(o.text, o.action) for o in session.view().pad] == [("turn one of your cards over", valais.RevealSeen(None))]
    # nobody pressed it; the camera sees the next player's card: the turn-over was done in the hand
    rec = session.submit(MoveItem(40, 4.0, valais.PlaceSeen(card(141).seen(), 2)))  # 1965-08-30, a 1965 joker
    assert rec.verdict.legal and rec.player == 1
    taken = session.moves()[-2]
    assert taken.action == valais.RevealSeen(None) and taken.verdict.legal and taken.player == 0
    assert taken.frame_index == 40 and taken.origin is Origin.CAMERA
    logged = [e.payload["action"]["type"] for e in store.entries(session.game_id) if e.kind is EntryKind.MOVE]
    assert logged == ["place-seen", "reveal-seen", "place-seen"]
    # the 1965 joker's discard and keep, unpressed, are taken in order before the next card ...
    session.submit(MoveItem(45, 4.5, valais.PlaceSeen(card(63).seen(), 1)))  # 1865, a 1865 joker
    assert [(m.action, m.player) for m in session.moves()[-3:]] == [
        (valais.DiscardOwn(None), 1), (valais.KeepCard(None), 1), (valais.PlaceSeen(card(63).seen(), 1), 0)]
    # ... and so are the 1865 joker's keep and give
    session.submit(MoveItem(50, 5.0, valais.PlaceSeen(card(105).seen(), 2)))  # 1915, a 1915 joker
    assert [(m.action, m.player) for m in session.moves()[-3:]] == [
        (valais.KeepCard(None), 0), (valais.GiveCard(None, 1), 0), (valais.PlaceSeen(card(105).seen(), 2), 1)]
    assert all(m.verdict.legal for m in session.moves())
    # the 1915 joker's removal is seen on the table, not done in the hand: nothing is taken for
    # it, and a card placed before it is refused
    assert session.view().pad == ()
    before = len(session.moves())
    refused = session.submit(MoveItem(60, 6.0, valais.PlaceSeen(card(10).seen(), 0)))
    assert not refused.verdict.legal and refused.verdict.rule == "turn.step"
    assert len(session.moves()) == before + 1 and session.view().facts.current_player == 1


def test_observations_are_logged_before_their_move(store):
    @dataclass(frozen=True)
    class Seen:
        card: str

        def to_json(self):
            return {"card": self.card}

    sim, session = start(store, "gladiola")
    session.submit(MoveItem(7, 0.7, sim.actions[0], (Seen("a"), Seen("b"))))
    entries = store.entries(session.game_id)
    assert [e.kind for e in entries] == [EntryKind.OBSERVATION, EntryKind.OBSERVATION, EntryKind.MOVE]
    assert [e.payload.get("observation") for e in entries[:2]] == [{"card": "a"}, {"card": "b"}]
    assert all(e.frame_index == 7 for e in entries)


def test_simulated_moves_keep_pace():
    sim = SimulatedMoves("gladiola", 3, 1, pace=1.0)
    img = np.zeros((2, 2, 3), np.uint8)
    got = [len(sim.moves(Frame(i, i * 0.5, img))) for i in range(5)]
    assert got == [1, 0, 1, 0, 1]
    assert isinstance(sim, MoveSource)
    sim.skip(len(sim.actions))
    assert sim.done() and sim.moves(Frame(9, 99.0, img)) == ()


def test_frame_loop_plays_a_simulated_game(store):
    sim, session = start(store, "valais", seed=2)
    hub = FrameHub()
    run_loop(session, BlankSource(32, 24), sim, hub, threading.Event(), Origin.SIMULATION,
             idle=0, stop_when=sim.done)
    assert session.is_over() and len(session.moves()) == len(sim.actions)
    assert hub.number == len(sim.actions) and hub.jpeg[:2] == b"\xff\xd8"
    # the camera's own frame is kept beside the annotated JPEG (for the calibration page)
    assert hub.raw is not None and hub.raw.shape[:2] == (24, 32)


def test_wait_for_change_wakes_on_a_move(store):
    sim, session = start(store, "gladiola")
    version = session.version
    timer = threading.Timer(0.05, lambda: session.submit(item(sim.actions[0])))
    timer.start()
    assert session.wait_for_change(version, timeout=5) == version + 1
    timer.join()


def test_frame_loop_takes_the_hands_a_move_source_reads_at_the_end(store):
    # A move source that reads shown hands (Via Gladiola's camera at the end) hands them over
    # through ``take_reveals``; the loop reveals them, and a refused hand goes to ``on_error``.
    from companion.tracking.reveal import RevealedHand

    sim, session = start(store, "gladiola", seed=3)

    class Reading:
        def __init__(self) -> None:
            self.queue: list[RevealedHand] = []

        def moves(self, frame):
            found = sim.moves(frame)
            if sim.done() and not self.queue and session.revealed_hands() == (None,) * 3:
                hands = sim.hands()
                self.queue = [RevealedHand(0, tuple(hands[0]), 0), RevealedHand(0, tuple(hands[0]), 0)]
                self.queue += [RevealedHand(p, tuple(h), 0) for p, h in enumerate(hands) if p]
            return found

        def take_reveals(self):
            out, self.queue = self.queue, []
            return out

        def annotate(self, frame):
            return frame.image

    errors: list[Exception] = []
    source = Reading()
    run_loop(session, BlankSource(32, 24), source, FrameHub(), threading.Event(), Origin.SIMULATION,
             idle=0, on_error=errors.append, stop_when=lambda: sim.done() and not source.queue)
    assert session.is_over()
    assert session.revealed_hands() == tuple(tuple(h) for h in sim.hands())
    assert [str(e) for e in errors] == ["player 1 has already revealed their hand"]
    assert session.view().facts.scores is not None


def test_the_camera_notices_are_shown_newest_first_and_only_the_latest(store):
    _, session = start(store, "valais")
    assert session.view().notices == () and session.view().to_json()["notices"] == []
    version = session.version
    for k in range(6):
        session.notice(f"  notice {k} ")
    assert session.version == version + 6
    assert session.view().notices == ("notice 5", "notice 4", "notice 3", "notice 2")
    assert session.view().to_json()["notices"][0] == "notice 5"
    for bad in ("", "   ", None):
        with pytest.raises(CompanionError, match="expected a notice text"):
            session.notice(bad)
    # a notice said again moves to the front once; said twice in a row it changes nothing
    session.notice("notice 3")
    assert session.view().notices == ("notice 3", "notice 5", "notice 4", "notice 2")
    version = session.version
    session.notice("notice 3")
    assert session.version == version and session.view().notices[:2] == ("notice 3", "notice 5")
    # notices are not part of the log: a resumed game starts without them
    assert Session.resume(store, session.game_id).view().notices == ()


def test_frame_loop_passes_the_move_sources_notices_on(store):
    sim, session = start(store, "gladiola", seed=4)

    class Noticing:
        def __init__(self) -> None:
            self.frames = 0

        def moves(self, frame):
            self.frames += 1
            return sim.moves(frame)

        def take_notices(self):
            return [f"frame {self.frames}"] if self.frames in (2, 5) else []

        def annotate(self, frame):
            return frame.image

    source = Noticing()
    run_loop(session, BlankSource(32, 24), source, FrameHub(), threading.Event(), Origin.SIMULATION,
             idle=0, stop_when=lambda: source.frames >= 6)
    assert session.view().notices == ("frame 5", "frame 2")
