"""A live game: the engine's observer, fed moves, backed by the game log.

The seam to tracking is :class:`MoveSource`: the frame loop hands it each frame and gets back the
moves that frame completed, as :class:`MoveItem` (frame index, timestamp, public action, and the
observations that led to it). Until tracking exists, :class:`SimulatedMoves` replays a
``companion.simulate`` game at a given pace.

:class:`Session` owns the observer. Every change (move, correction, undo, revealed hand) is first
written to the :class:`~companion.store.GameStore` and then applied, so the in-memory state is
always what replaying the log gives; :meth:`Session.resume` rebuilds it exactly that way. All
methods are thread-safe (the frame loop and dashboard requests call them concurrently).
"""

from __future__ import annotations

import enum
import threading
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from companion.errors import CompanionError
from companion.games import canonical_name, get_game
from companion.games.base import Verdict
from companion.pauses import PauseSchedule
from companion.sources import Frame, FrameSource, SourceState, SourceStatus
from companion.store import Entry, EntryKind, GameRecord, GameStore

HISTORY_SHOWN = 12
NOTICES_SHOWN = 4
"""How many of the camera's latest notices (things it saw but could not judge, or asks the players
to do) the dashboard shows."""


class Origin(enum.Enum):
    """Where a move came from."""

    CAMERA = "camera"
    DASHBOARD = "dashboard"
    SIMULATION = "simulation"


@runtime_checkable
class JsonValue(Protocol):
    def to_json(self) -> Any: ...


@dataclass(frozen=True)
class MoveItem:
    """One move as tracking (or a simulation) reports it: the frame that completed it, that
    frame's timestamp, the game's public action, and what was seen on the way (anything with
    ``to_json()``; stored in the log as observation entries)."""

    frame_index: int | None
    timestamp: float
    action: Any
    observations: tuple[JsonValue, ...] = ()


@runtime_checkable
class MoveSource(Protocol):
    """Turns frames into moves (tracking implements this)."""

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        """Look at one frame; return the moves it completes (usually none)."""
        ...

    def annotate(self, frame: Frame) -> np.ndarray:
        """The frame's image with what was recognised drawn on it (for the dashboard)."""
        ...


# ------------------------------------------------------------------------------------------------
# Records and views


@dataclass(frozen=True)
class MoveRecord:
    """An effective move of the game (corrections applied, undone moves gone)."""

    seq: int
    turn: int
    player: int | None
    action: Any
    verdict: Verdict
    text: str
    origin: Origin
    frame_index: int | None
    timestamp: float
    corrected: bool = False

    def to_json(self, players: Sequence[str]) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "player": self.player,
            "name": None if self.player is None else players[self.player],
            "action": self.action.to_json(),
            "text": self.text,
            "verdict": self.verdict.to_json(),
            "origin": self.origin.value,
            "frame": self.frame_index,
            "corrected": self.corrected,
        }


@dataclass(frozen=True)
class PadOption:
    """A score-pad button (Via Appia): the action it enters and its label.
    ``needs_display``: the action takes the last income card, so the 7 new cards must be given."""

    text: str
    action: Any
    needs_display: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "action": self.action.to_json(), "needs_display": self.needs_display}


@dataclass(frozen=True)
class GameFacts:
    """What the dashboard shows about the game, the same shape for every game."""

    phase_label: str  # "day", "round" or "phase"
    phase: str
    current_player: int | None
    hand_counts: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    winners: tuple[int, ...]
    over: bool


@dataclass(frozen=True)
class SessionView:
    """A snapshot of the session for the dashboard; ``version`` grows with every change."""

    version: int
    game_id: int
    game: str
    title: str
    players: tuple[str, ...]
    turn: int
    facts: GameFacts
    score_label: str
    last: MoveRecord | None
    history: tuple[MoveRecord, ...]
    can_pause: bool
    unrevealed: tuple[int, ...]
    pad: tuple[PadOption, ...]
    source: SourceStatus
    notices: tuple[str, ...] = ()
    """The camera's latest notices, newest first."""
    shown: tuple[int | None, ...] = ()
    """Via Gladiola at the end: the blisters of each hand shown so far (None: not yet shown),
    known before every hand is shown and the scores are."""

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {
            "version": self.version,
            "game_id": self.game_id,
            "game": self.game,
            "title": self.title,
            "players": list(self.players),
            "turn": self.turn,
            "phase_label": f.phase_label,
            "phase": f.phase,
            "current_player": f.current_player,
            "hand_counts": None if f.hand_counts is None else list(f.hand_counts),
            "scores": None if f.scores is None else list(f.scores),
            "score_label": self.score_label,
            "winners": list(f.winners),
            "over": f.over,
            "last": None if self.last is None else self.last.to_json(self.players),
            "history": [m.to_json(self.players) for m in self.history],
            "can_pause": self.can_pause,
            "unrevealed": list(self.unrevealed),
            "pad": [o.to_json() for o in self.pad],
            "source": self.source.to_json(),
            "notices": list(self.notices),
            "shown": list(self.shown),
        }


# ------------------------------------------------------------------------------------------------
# Per-game facts


def _facts(game: str, observer: Any) -> GameFacts:
    view = observer.public_view()
    over = bool(observer.is_over())
    if game == "gladiola":
        try:
            scores: tuple[int, ...] | None = tuple(observer.scores())
            winners = tuple(observer.winners())
        except CompanionError:  # hands not all revealed yet
            scores, winners = None, ()
        return GameFacts("day", str(view.day), view.current_player, tuple(view.hand_counts), scores, winners, over)
    if game == "valais":
        return GameFacts(
            "round", str(view.round_no), view.current_player, tuple(view.hand_counts),
            tuple(observer.scores()), tuple(observer.winners()), over,
        )
    return GameFacts(
        "phase", view.phase.value, view.current_player, None,
        tuple(observer.scores()), tuple(observer.winners()), over,
    )


_HAND_TEXTS = {"reveal-seen": "turn one of your cards over", "keep": "keep one of the drawn cards",
               "give": "give a drawn card to {to}", "discard-own": "discard a card from the hand"}


def _pad_options(game: str, module: ModuleType, observer: Any, names: Sequence[str] = ()) -> tuple[PadOption, ...]:
    """Via Appia's score pad: every legal action now, or every quarry outcome after a push.
    Valais*Wallis: what happens out of the camera's sight: the joker step a player takes in the
    hand, and the corrections for a move the camera missed (players named by ``names``)."""
    if game == "valais":
        def name(seat: int) -> str:
            return names[seat] if 0 <= seat < len(names) else f"player {seat + 1}"

        hand = tuple(PadOption(_HAND_TEXTS[a.to_json()["type"]].format(to=name(getattr(a, "to_player", 0))), a)
                     for a in observer.hand_actions())
        fixes = tuple(
            PadOption(f"{name(observer.current_player)} put a wrong card in and took it away unseen: the turn passes"
                      if isinstance(a, module.MissedWrong)
                      else f"the game goes on: {name(a.player)} drew a card unseen", a)
            for a in observer.corrections())
        return hand + fixes
    if game != "appia" or observer.is_over():
        return ()
    table = observer.table
    if table.phase is module.Phase.QUARRY:
        actions = [o for o, _ in module.quarry_distribution(table.pushed)]
    else:
        actions = observer.legal_actions()
    return tuple(
        PadOption(module.describe(a), a, bool(table.income_empties_display(a))) for a in actions
    )


def _describe(game: str, module: ModuleType, observer: Any, action: Any) -> str:
    if game == "appia":
        return module.describe(action)
    if game == "valais" and isinstance(action, module.PlaceSeen):
        return f"place {action.card.date} (card {action.card.card_id}) at position {action.position}"
    if game == "valais" and isinstance(action, (module.MissedWrong, module.MissedDraw)):
        return module.describe_correction(action)
    describe = getattr(observer, "describe", None)
    if describe is not None:
        try:
            return str(describe(action))
        except CompanionError:
            pass
    return str(action.to_json())


# ------------------------------------------------------------------------------------------------
# The session


class Session:
    """One live game backed by the log. Build it with :meth:`new` or :meth:`resume`."""

    def __init__(self, store: GameStore, record: GameRecord) -> None:
        self.store = store
        self.record = record
        self.game = canonical_name(record.game)
        self.module: ModuleType = get_game(self.game)
        self.players = record.players
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self._moves: list[MoveRecord] = []
        self._reveals: list[tuple[int, tuple[str, ...]]] = []
        self._observer = self._fresh_observer()
        self._source = SourceStatus(SourceState.OK, "waiting for frames")
        self._notices: list[str] = []
        self.replay_mismatches = 0
        self._replay(store.entries(record.game_id))

    # -- construction ----------------------------------------------------------------------------

    @classmethod
    def new(cls, store: GameStore, game: str, players: Sequence[str], observer: Any) -> "Session":
        """Start logging a new game whose play begins at ``observer`` (e.g. ``Observer.start(...)``)."""
        name = canonical_name(game)
        module = get_game(name)
        if not isinstance(observer, module.Observer):
            raise CompanionError(f"expected a {module.TITLE} observer, got {type(observer).__name__}")
        if len(players) != observer.players:
            raise CompanionError(f"expected {observer.players} player names, got {len(players)}")
        game_id = store.create_game(name, list(players), observer.to_json())
        return cls(store, store.game(game_id))

    @classmethod
    def resume(cls, store: GameStore, game_id: int | None = None, game: str | None = None) -> "Session":
        """Rebuild a logged game (the latest one, of ``game`` if given, when ``game_id`` is None)."""
        if game_id is None:
            record = store.latest_game(None if game is None else canonical_name(game))
            if record is None:
                raise CompanionError(f"{store.path}: expected a game to resume, got an empty log")
        else:
            record = store.game(game_id)
        return cls(store, record)

    def _fresh_observer(self) -> Any:
        return self.module.Observer.from_json(dict(self.record.start))

    # -- replay ----------------------------------------------------------------------------------

    def _replay(self, entries: Sequence[Entry]) -> None:
        for entry in entries:
            data = entry.payload
            if entry.kind is EntryKind.OBSERVATION:
                continue
            if entry.kind is EntryKind.MOVE:
                action = self.module.action_from_json(data["action"])
                rec = self._apply(entry.seq, action, Origin(data.get("origin", "camera")),
                                  entry.frame_index, entry.timestamp, corrected=False)
            elif entry.kind is EntryKind.CORRECTION:
                if not self._moves:
                    continue
                last = self._moves.pop()
                self._reveals.clear()
                self._rebuild()
                action = self.module.action_from_json(data["action"])
                rec = self._apply(entry.seq, action, last.origin, last.frame_index, last.timestamp, corrected=True)
            elif entry.kind is EntryKind.UNDO:
                if self._moves:
                    self._moves.pop()
                    self._reveals.clear()
                    self._rebuild()
                continue
            else:  # REVEAL
                cards = tuple(str(c) for c in data["cards"])
                self._observer.reveal_hand(int(data["player"]), cards)
                self._reveals.append((int(data["player"]), cards))
                continue
            logged = data.get("verdict")
            if logged is not None and Verdict.from_json(logged) != rec.verdict:
                self.replay_mismatches += 1

    def _rebuild(self) -> None:
        """Replay the effective moves and reveals on a fresh observer."""
        obs = self._fresh_observer()
        for m in self._moves:
            obs.apply(m.action)
        for player, cards in self._reveals:
            obs.reveal_hand(player, cards)
        self._observer = obs

    def _apply(self, seq: int, action: Any, origin: Origin, frame_index: int | None,
               timestamp: float, corrected: bool) -> MoveRecord:
        player = self._observer.current_player
        if player is None and self._moves:
            player = self._moves[-1].player
        text = _describe(self.game, self.module, self._observer, action)
        verdict = self._observer.apply(action)
        rec = MoveRecord(seq, len(self._moves) + 1, player, action, verdict, text, origin,
                         frame_index, timestamp, corrected)
        self._moves.append(rec)
        return rec

    def _touch(self) -> None:
        self._version += 1
        self._changed.notify_all()

    def _check_action(self, action: Any) -> None:
        if not hasattr(action, "to_json"):
            raise CompanionError(f"expected a {self.module.TITLE} action, got {type(action).__name__}")
        # Round-trip through JSON so only what the log can hold is ever applied.
        self.module.action_from_json(action.to_json())

    # -- changes ---------------------------------------------------------------------------------

    def submit(self, item: MoveItem, origin: Origin = Origin.CAMERA) -> MoveRecord:
        """Judge and log one move (and the observations that led to it).

        Valais*Wallis: a card placed while the player before still has a joker step to take in
        the hand (turn a card over, keep, give, discard: nobody pressed it on the pad) means the
        step was done out of sight; it is logged first, as taken, then the placement."""
        self._check_action(item.action)
        with self._lock:
            while self.game == "valais" and isinstance(item.action, self.module.PlaceSeen):
                steps = self._observer.hand_actions()
                if not steps:
                    break
                if not self._submit(MoveItem(item.frame_index, item.timestamp, steps[0]), origin).verdict.legal:
                    break
            return self._submit(item, origin)

    def _submit(self, item: MoveItem, origin: Origin) -> MoveRecord:
        with self._lock:
            player = self._observer.current_player
            if player is None and self._moves:
                player = self._moves[-1].player
            text = _describe(self.game, self.module, self._observer, item.action)
            verdict = self._observer.apply(item.action)
            rows: list[tuple[EntryKind, Mapping[str, Any], int | None, float | None]] = [
                (EntryKind.OBSERVATION, {"observation": o.to_json()}, item.frame_index, item.timestamp)
                for o in item.observations
            ]
            rows.append((
                EntryKind.MOVE,
                {"action": item.action.to_json(), "verdict": verdict.to_json(), "player": player,
                 "origin": origin.value},
                item.frame_index, item.timestamp,
            ))
            try:
                entries = self.store.append_many(self.record.game_id, rows)
            except CompanionError:
                self._rebuild()
                raise
            rec = MoveRecord(entries[-1].seq, len(self._moves) + 1, player, item.action, verdict, text,
                             origin, item.frame_index, item.timestamp)
            self._moves.append(rec)
            self._touch()
            return rec

    def enter(self, action: Any, origin: Origin = Origin.DASHBOARD) -> MoveRecord:
        """A move entered by hand (score pad, Pause button)."""
        return self.submit(MoveItem(None, time.time(), action), origin)

    def pause(self, player: int | None = None) -> MoveRecord:
        """Via Gladiola: a player pauses (draws one card instead of walking). ``player``: the
        seat whose own Pause button was pressed; when the count has another player to play (a
        move the camera missed or gave to the wrong player), the turn passes to them first.
        None: whoever is to play."""
        if self.game != "gladiola":
            raise CompanionError(f"Pause is a Via Gladiola move, this game is {self.module.TITLE}")
        if player is not None and (isinstance(player, bool) or not isinstance(player, int)
                                   or not 0 <= player < len(self.players)):
            raise CompanionError(f"pause: expected a seat 0..{len(self.players) - 1}, got {player!r}")
        with self._lock:
            *before, pause = self.module.pause_by(self._observer.current_player, player)
            for action in before:
                self.enter(action)
            return self.enter(pause)

    def correct(self, action: Any) -> MoveRecord:
        """Replace the last move's action (a misreading) and judge the game again from there."""
        self._check_action(action)
        with self._lock:
            if not self._moves:
                raise CompanionError("nothing to correct: expected at least one move, got none")
            last = self._moves[-1]
            before = self._moves[:-1]
            obs = self._fresh_observer()
            for m in before:
                obs.apply(m.action)
            player = obs.current_player if obs.current_player is not None else last.player
            text = _describe(self.game, self.module, obs, action)
            verdict = obs.apply(action)
            entry = self.store.append(
                self.record.game_id, EntryKind.CORRECTION,
                {"action": action.to_json(), "verdict": verdict.to_json(), "player": player,
                 "replaces": last.seq},
            )
            self._moves = before + [MoveRecord(entry.seq, last.turn, player, action, verdict, text, last.origin,
                                               last.frame_index, last.timestamp, True)]
            self._reveals.clear()
            self._observer = obs
            self._touch()
            return self._moves[-1]

    def undo(self) -> MoveRecord:
        """Take back the last move; returns it."""
        with self._lock:
            if not self._moves:
                raise CompanionError("nothing to undo: expected at least one move, got none")
            last = self._moves[-1]
            self.store.append(self.record.game_id, EntryKind.UNDO, {"undoes": last.seq})
            self._moves.pop()
            self._reveals.clear()
            self._rebuild()
            self._touch()
            return last

    def reveal_hand(self, player: int, card_ids: Sequence[str]) -> None:
        """Via Gladiola, game over: ``player`` shows their hand (checked by the engine)."""
        if self.game != "gladiola":
            raise CompanionError(f"hands are shown only in Via Gladiola, this game is {self.module.TITLE}")
        cards = tuple(str(c) for c in card_ids)
        with self._lock:
            self._observer.reveal_hand(player, cards)  # raises before anything is logged
            try:
                self.store.append(self.record.game_id, EntryKind.REVEAL, {"player": player, "cards": list(cards)})
            except CompanionError:
                self._rebuild()
                raise
            self._reveals.append((player, cards))
            self._touch()

    def revealed_hands(self) -> tuple[tuple[str, ...] | None, ...]:
        """Via Gladiola: the hands shown so far, one per seat (None where not yet); else ()."""
        with self._lock:
            return self._observer.revealed() if self.game == "gladiola" else ()

    def set_source_status(self, status: SourceStatus) -> None:
        with self._lock:
            if status != self._source:
                self._source = status
                self._touch()

    def notice(self, message: str) -> None:
        """Show the players something the camera saw but could not judge, or asks them to do
        (not logged: the moves, verdicts and corrections are); the latest
        :data:`NOTICES_SHOWN` different ones are shown."""
        if not isinstance(message, str) or not message.strip():
            raise CompanionError(f"expected a notice text, got {message!r}")
        text = message.strip()
        with self._lock:
            if self._notices and self._notices[-1] == text:
                return  # said again: nothing new to show
            # (a notice said again comes first once, not twice: the tracker repeats some after
            # every move, film 167's "the timeline card 2000 is no longer seen" over 150 times)
            self._notices = ([n for n in self._notices if n != text] + [text])[-NOTICES_SHOWN:]
            self._touch()

    # -- reading ---------------------------------------------------------------------------------

    @property
    def game_id(self) -> int:
        return self.record.game_id

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    def moves(self) -> tuple[MoveRecord, ...]:
        with self._lock:
            return tuple(self._moves)

    def observer_json(self) -> dict[str, Any]:
        with self._lock:
            return self._observer.to_json()

    def is_over(self) -> bool:
        with self._lock:
            return bool(self._observer.is_over())

    def public_view(self) -> Any:
        """The observer's public view now (what tracking needs to know about the table)."""
        with self._lock:
            return self._observer.public_view()

    def action_from_json(self, data: Any) -> Any:
        """Parse an action of this game (CompanionError with the engine's message if malformed)."""
        return self.module.action_from_json(data)

    def view(self) -> SessionView:
        with self._lock:
            facts = _facts(self.game, self._observer)
            unrevealed: tuple[int, ...] = ()
            shown: tuple[int | None, ...] = ()
            if self.game == "gladiola" and facts.over:
                unrevealed = tuple(p for p, h in enumerate(self._observer.revealed()) if h is None)
                shown = self._observer.shown_blisters()
            return SessionView(
                version=self._version,
                game_id=self.record.game_id,
                game=self.game,
                title=self.module.TITLE,
                players=self.players,
                turn=len(self._moves),
                facts=facts,
                score_label=getattr(self.module, "SCORE_LABEL", "score"),
                last=self._moves[-1] if self._moves else None,
                history=tuple(reversed(self._moves[-HISTORY_SHOWN:])),
                can_pause=self.game == "gladiola" and not facts.over,
                unrevealed=unrevealed,
                pad=_pad_options(self.game, self.module, self._observer, self.players),
                source=self._source,
                notices=tuple(reversed(self._notices)),
                shown=shown,
            )

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the version differs from ``version`` or ``timeout`` passes; the version now."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != version, timeout=timeout)
            return self._version

    def export(self) -> dict[str, Any]:
        """The log in the ``companion simulate --json`` shape (``scores`` null until known)."""
        with self._lock:
            facts = _facts(self.game, self._observer)
            return {
                "game": self.game,
                "game_id": self.record.game_id,
                "players": list(self.players),
                "events": [
                    {"turn": m.turn, "player": m.player, "action": m.action.to_json(),
                     "verdict": m.verdict.to_json()}
                    for m in self._moves
                ],
                "scores": None if facts.scores is None else list(facts.scores),
                "winners": list(facts.winners),
            }


# ------------------------------------------------------------------------------------------------
# A simulated move source


class SimulatedMoves:
    """Replays a seeded ``companion.simulate`` game's public actions, one every ``pace`` seconds
    of frame time (``pace=0``: one per frame).

    ``observer()`` is the observer at the start of that game, ``hands()`` the hands at its end
    (what the players would show), for Via Gladiola's reveal.
    """

    def __init__(self, game: str, players: int, seed: int, pace: float = 1.0) -> None:
        from companion.simulate import random_step
        import random

        self.game = canonical_name(game)
        module = get_game(self.game)
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise CompanionError(
                f"{module.TITLE} takes {module.MIN_PLAYERS}..{module.MAX_PLAYERS} players, got {players}"
            )
        state = module.new_game(players, seed)
        self._start = state.observer().to_json()
        self._module = module
        rng = random.Random(f"policy:{self.game}:{seed}")
        actions: list[Any] = []
        while not state.is_over():
            action = random_step(state, rng)
            actions.append(state.public_action(action))
            state.apply(action)
        self.actions: tuple[Any, ...] = tuple(actions)
        self._hands = tuple(tuple(h) for h in getattr(state, "hands", ())) if self.game == "gladiola" else ()
        self.pace = pace
        self.position = 0
        self._last_time: float | None = None
        self._last_text = ""

    def observer(self) -> Any:
        return self._module.Observer.from_json(self._start)

    def hands(self) -> tuple[tuple[str, ...], ...]:
        return self._hands

    def skip(self, count: int) -> None:
        """Continue after ``count`` actions (a resumed game has them in its log already)."""
        self.position = max(0, min(len(self.actions), count))

    def done(self) -> bool:
        return self.position >= len(self.actions)

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        if self.done():
            return ()
        if self._last_time is not None and frame.timestamp - self._last_time < self.pace:
            return ()
        self._last_time = frame.timestamp
        action = self.actions[self.position]
        self.position += 1
        self._last_text = str(action.to_json())
        return (MoveItem(frame.index, frame.timestamp, action),)

    def annotate(self, frame: Frame) -> np.ndarray:
        import cv2

        image = frame.image.copy()
        cv2.putText(image, f"simulated game: move {self.position}/{len(self.actions)}", (16, 32),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (230, 230, 230), 2, cv2.LINE_AA)
        cv2.putText(image, self._last_text[:70], (16, 64), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (160, 220, 160), 1, cv2.LINE_AA)
        return image


class IdleMoves:
    """A move source that finds no moves (a camera without tracking: moves come from the
    dashboard). It passes frames through unannotated."""

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        return ()

    def annotate(self, frame: Frame) -> np.ndarray:
        return frame.image


# ------------------------------------------------------------------------------------------------
# The frame loop


@dataclass
class FrameHub:
    """The latest annotated frame as JPEG, for the MJPEG stream, and the camera's own frame
    before any correction, for the calibration page (thread-safe)."""

    jpeg: bytes = b""
    number: int = 0
    raw: np.ndarray | None = None
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, jpeg: bytes, raw: np.ndarray | None = None) -> None:
        with self._cond:
            self.jpeg = jpeg
            self.raw = raw
            self.number += 1
            self._cond.notify_all()

    def wait(self, after: int, timeout: float) -> tuple[int, bytes]:
        """The frame after number ``after`` (or the current one when ``timeout`` passes)."""
        with self._cond:
            self._cond.wait_for(lambda: self.number != after, timeout=timeout)
            return self.number, self.jpeg


def encode_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise CompanionError(f"cannot encode a frame of shape {image.shape} as JPEG")
    return buf.tobytes()


def run_loop(
    session: Session,
    source: FrameSource,
    moves: MoveSource,
    hub: FrameHub,
    stop: threading.Event,
    origin: Origin = Origin.CAMERA,
    idle: float = 0.02,
    on_error: Callable[[Exception], None] | None = None,
    stop_when: Callable[[], bool] | None = None,
    stall_after: float | None = 5.0,
    pauses: PauseSchedule | None = None,
) -> None:
    """Read frames until ``stop`` is set or the source ends: moves go to the session, annotated
    frames to the hub, the source's state to the session. A move the log cannot take is reported
    to ``on_error`` and the loop goes on. ``stop_when``: an extra end condition, checked per frame.
    ``stall_after``: a read that blocks longer than this many seconds shows the source as LOST
    (a watchdog thread tells the session, since the loop itself is stuck in the read).
    ``pauses``: a recorded Via Gladiola game's presses of the Pause button (``moves`` must then
    say where cards are not at rest: ``restless()``, as the camera's move source does)."""
    reading_since: list[float | None] = [None]
    done = threading.Event()
    if stall_after is not None:
        stalled = SourceStatus(SourceState.LOST, f"the camera stopped answering (no frame for over {stall_after:g} s)")

        def watch() -> None:
            while not done.wait(min(1.0, stall_after / 2)):
                since = reading_since[0]
                if since is not None and time.monotonic() - since > stall_after:
                    session.set_source_status(stalled)

        threading.Thread(target=watch, name="frame-watchdog", daemon=True).start()
    try:
        _frame_loop(session, source, moves, hub, stop, origin, idle, on_error, stop_when, reading_since, pauses)
    finally:
        done.set()


def _frame_loop(session: Session, source: FrameSource, moves: MoveSource, hub: FrameHub, stop: threading.Event,
                origin: Origin, idle: float, on_error: Callable[[Exception], None] | None,
                stop_when: Callable[[], bool] | None, reading_since: list[float | None],
                pauses: PauseSchedule | None) -> None:
    def attempt(step: Callable[[], object]) -> None:
        try:
            step()
        except CompanionError as exc:
            if on_error is None:
                raise
            on_error(exc)

    frames = 0
    while not stop.is_set() and not (stop_when is not None and stop_when()):
        reading_since[0] = time.monotonic()
        frame = source.read()
        reading_since[0] = None
        session.set_source_status(source.status)
        if frame is None:
            if source.status.state is SourceState.ENDED:
                for press in pauses.at_end(frames) if pauses else ():  # pressed before the end
                    attempt(lambda: session.pause(press.player))
                return
            stop.wait(idle)
            continue
        frames = frame.index + 1
        for item in moves.moves(frame):
            attempt(lambda: session.submit(item, origin))
        for message in getattr(moves, "take_notices", lambda: [])():
            session.notice(message)
        for hand in getattr(moves, "take_reveals", lambda: [])():  # Via Gladiola's shown hands
            attempt(lambda: session.reveal_hand(hand.player, hand.cards))
        if pauses:  # (see companion.pauses for when a press is made)
            for press in pauses.due(frame.index, frame.timestamp, moves.restless()):  # type: ignore[attr-defined]
                attempt(lambda: session.pause(press.player))
        hub.publish(encode_jpeg(moves.annotate(frame)), raw=frame.image)
        if idle:
            stop.wait(idle)
