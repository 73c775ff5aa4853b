"""The camera's move source: vision reads each frame, tracking turns settled changes into moves.

:class:`VisionMoves` implements the session's ``MoveSource``: per frame it runs the vision
pipeline (detect, rectify, read, with its per-card cache), tells the tracker whether an arm is
over the table, and hands the tracker's concluded moves to the session as ``MoveItem``s.

Via Gladiola's players: where an arm crosses the image border tells whose move it is
(:class:`companion.tracking.seats.SeatMap` learns each player's place); when a card is laid by an
arm clearly from another player's place than the count says, a :class:`gladiola.TurnTo` goes
before the move (the camera missed a move in between).

Via Gladiola's end: once the observed game is over, calm frames (no arm over the table) are
searched for a shown hand laid in a row (:mod:`vision.hand`); when a few readings
agree on its cards (:class:`companion.tracking.reveal.HandWatch`) the hand is queued for
:meth:`VisionMoves.take_reveals`, as the hand of the player whose arm laid the row (their place
at the table, when it is clear), else of the next player in seat order. When the row holds another
number of cards than counted, a :class:`gladiola.Recount` is returned as a move of that frame
first (the table overrules the count; moves are applied before the reveals).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import cv2
import numpy as np

from companion.games import canonical_name, gladiola
from companion.session import MoveItem
from companion.setup_profile import CameraSetup
from companion.sources import Frame
from companion.tracking import TrackConfig, Tracker
from companion.tracking.reveal import HandWatch, RevealedHand
from companion.tracking.seats import ROW_SEAT_REACH, SEAT_REACH, ArmEntry, SeatMap

#: hand detection works on frames shrunk to this grid (width, height)
HAND_GRID = (160, 90)
#: a pixel differs from the calm table when a colour channel changes by more than this
HAND_DIFF = 28.0
#: an arm is a changed region touching the border covering at least this share of the frame
HAND_AREA = 0.01
#: how fast the calm table follows slow changes (share of the new frame per calm frame)
HAND_ADAPT = 0.08
#: Via Gladiola: how many stretches of frames with an arm are kept until the next card is laid
ARMS_KEPT = 8
#: Via Gladiola: an arm out of sight (or unseen by the arm detector) for at most this many seconds
#: and back at the same place is the same arm
ARM_GAP = 0.3
#: Via Gladiola's shown hands are looked for on every this many calm frames after the game's end
REVEAL_EVERY = 2


class VisionMoves:
    """Frames -> vision -> tracking -> moves. ``view`` returns the observer's public view."""

    def __init__(
        self,
        game: str,
        view: Callable[[], Any] | None = None,
        reader: Any = None,
        tracker: Tracker | None = None,
        track_config: TrackConfig = TrackConfig(),
        setup: CameraSetup = CameraSetup(),
        revealed: Callable[[], Sequence[Sequence[str] | None]] | None = None,
    ) -> None:
        """``revealed``: the hands shown so far, one per seat (None where not yet); without it
        the hands this source named are taken as shown."""
        from vision.pipeline import CardReader, PipelineConfig
        from vision.read.types import Deck

        self.game = canonical_name(game)
        self.view = view
        self.setup = setup
        self.reader = reader or CardReader(PipelineConfig(deck=Deck.for_game(self.game),
                                                          known_cards=setup.known_cards))
        self.tracker = tracker or Tracker(self.game, track_config)
        self._background: np.ndarray | None = None
        self._last: tuple[int, Any, np.ndarray] | None = None
        self.hand = False
        self.revealed = revealed
        self._watch: HandWatch | None = None
        self._named: dict[int, tuple[str, ...]] = {}
        self._pending: list[RevealedHand] = []
        self._calm_frames = 0
        self._calm_start = 0.0
        """When the current stretch of frames without an arm over the table began."""
        self.arm: ArmEntry | None = None
        """Where the arm over the table in the last frame crossed the image border."""
        self._arms: list[list[ArmEntry]] = []
        """Arm entries since the last move, one list per stretch of frames with an arm."""
        self._arm_time = 0.0
        """When the last arm entry was seen."""
        self._seats: SeatMap | None = None
        if self.game == "gladiola":
            from companion.games.gladiola import load_deck

            self._watch = HandWatch(load_deck())

    def _hand_over_table(self, image: np.ndarray) -> bool:
        """Whether an arm reaches over the table: a large region that differs from the calm
        table and touches the image border (arms come in from the edge; a card put down does
        not touch it). The calm table is a slowly updated background of small frames."""
        small = cv2.resize(image, HAND_GRID, interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        if self._background is None:
            self._background = small
            return False
        changed = (np.abs(small - self._background).max(axis=2) > HAND_DIFF).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        h, w = changed.shape
        hand = False
        self.arm = None
        for k in range(1, count):
            x, y, bw, bh, area = stats[k]
            touches = x == 0 or y == 0 or x + bw == w or y + bh == h
            if touches and area >= HAND_AREA * w * h:
                hand = True
                self.arm = _border_entry(labels == k)
                break
        # the table adapts slowly (light drifts, cards settle in); never while an arm is over it
        rate = 0.0 if hand else HAND_ADAPT
        self._background = (1 - rate) * self._background + rate * small
        return hand

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        image = self.setup.prepare(frame.image)
        result = self.reader.read_frame(image)
        self.hand = self._hand_over_table(image)
        self._last = (frame.index, result, image)
        view = self.view() if self.view is not None else None
        if self.arm is not None and self.game == "gladiola":
            del self._arms[:-ARMS_KEPT]
            # one arm: frames with an arm at the same place, with gaps of at most ARM_GAP seconds
            if (not self._arms or frame.timestamp - self._arm_time > ARM_GAP + 1e-9
                    or self._arms[-1][-1].distance(self.arm) > SEAT_REACH):
                self._arms.append([])
            self._arms[-1].append(self.arm)
            self._arm_time = frame.timestamp
        found = self.tracker.update(frame.index, frame.timestamp, result, view=view, hand=self.hand or None)
        recount = self._watch_hands(image, view, frame.timestamp)
        items = [MoveItem(m.frame_index, m.timestamp, m.action, tuple(m.evidence)) for m in found]
        if recount is not None:
            items.append(MoveItem(frame.index, frame.timestamp, recount, ()))
        return self._whose(items, view) if self.game == "gladiola" else items

    def _whose(self, items: list[MoveItem], view: Any) -> list[MoveItem]:
        """Via Gladiola: learn the players' places from the arms of their moves, and put a
        :class:`TurnTo` before a card laid clearly from another player's place than the count's.

        The cards laid in one frame (a card judged late together with the next) are paired in
        order with the last as many stretches of frames with an arm before them."""
        laid = [k for k, item in enumerate(items) if isinstance(item.action, (gladiola.Walk, gladiola.LayGladiola))]
        if not laid or view is None or view.over or view.current_player is None:
            return items
        arms, self._arms = self._arms, []
        if len(arms) < len(laid):
            return items  # fewer arms than cards: nothing to pair them with
        if self._seats is None:
            self._seats = SeatMap(view.players)
        out: list[MoveItem] = []
        expected = view.current_player
        stretches = arms[len(arms) - len(laid):]
        for k, item in enumerate(items):
            if k in laid:
                if out and _ends_day(out[-1].action):
                    return out + items[k:]  # who starts the next day is the rules' matter: no guess
                stretch = stretches[laid.index(k)]
                entry = ArmEntry.middle(stretch)
                player = self._seats.who(entry)
                if player is not None and player != expected:
                    out.append(MoveItem(item.frame_index, item.timestamp, gladiola.TurnTo(player), ()))
                    expected = player
                self._seats.learn(expected, entry)
            out.append(item)
            if isinstance(item.action, (gladiola.Walk, gladiola.LayGladiola, gladiola.TableWalk)):
                expected = (expected + 1) % view.players
        return out

    def _row_layer(self) -> int | None:
        """The player whose arm left the table just as this calm spell began (the one who laid
        the row in view), by their place at the table; None when that is not clear (no arm seen
        then, or places not learnt)."""
        if self._seats is None or not self._arms or self._arm_time < self._calm_start - ARM_GAP - 1e-9:
            return None
        return self._seats.who(ArmEntry.middle(self._arms[-1]), reach=ROW_SEAT_REACH)

    def take_reveals(self) -> list[RevealedHand]:
        """The shown hands named since the last call (Via Gladiola, after the game's end)."""
        out, self._pending = self._pending, []
        return out

    def _watch_hands(self, image: np.ndarray, view: Any, frame_time: float) -> gladiola.Recount | None:
        """Read a shown hand on calm frames once the game is over (see the module doc); the
        recount to apply before the hand named, if it holds another number of cards than counted."""
        if self._watch is None or view is None or not getattr(view, "over", False):
            return None
        if self.hand:
            self._calm_frames = 0
            self._watch.reset()
            return None
        if self._calm_frames == 0:
            self._calm_start = frame_time
        self._calm_frames += 1
        if self._calm_frames % REVEAL_EVERY:
            return None
        from vision.hand import read_hands

        # only an arm over the table holds the reading back: the overlapping cards of a shown
        # row are outlined anew every few frames (their tracks stay restless however still the
        # row lies), and the readings that must agree keep a row still being laid from counting
        rows = read_hands(image)

        revealed = self.revealed() if self.revealed is not None else None
        if revealed is None:
            seats = len(getattr(view, "hand_counts", ()))
            revealed = [self._named.get(p) for p in range(seats)]
        named = self._watch.see(rows, view, revealed, self._row_layer())
        if named is None:
            return None
        self._named[named.player] = named.cards
        self._pending.append(named)
        return gladiola.Recount(named.player, len(named.cards)) if named.recounted else None

    def annotate(self, frame: Frame) -> np.ndarray:
        """The frame with each card's outline and reading, and a mark while an arm is over the table."""
        if self._last is None or self._last[0] != frame.index:
            return frame.image.copy()
        image = self._last[2].copy()
        scale = max(1.0, image.shape[1] / 1280)
        for obs in self._last[1].observations:
            pts = np.round(np.array(obs.quad.to_json(), dtype=np.float64)).astype(np.int32)
            read = obs.kind.value != "unknown"
            colour = (60, 200, 60) if read and obs.visible else (0, 165, 255)
            cv2.polylines(image, [pts], True, colour, max(2, int(2 * scale)), cv2.LINE_AA)
            label = _label(obs)
            x, y = int(pts[:, 0].min()), int(pts[:, 1].min()) - 6
            cv2.putText(image, label, (x, max(14, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                        (255, 255, 255), max(3, int(4 * scale)), cv2.LINE_AA)
            cv2.putText(image, label, (x, max(14, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                        colour, max(1, int(2 * scale)), cv2.LINE_AA)
        if self.hand:
            cv2.putText(image, "hand over the table: waiting", (16, int(36 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.9 * scale, (0, 0, 255), max(2, int(2 * scale)), cv2.LINE_AA)
        return image


def _label(obs: Any) -> str:
    if obs.kind.value == "unknown":
        return "?"
    if obs.date is not None:
        return obs.date.to_json()
    if obs.value is not None:
        return f"{obs.value} km" + (f" +{obs.blisters}" if obs.blisters else "")
    return obs.kind.value


def _border_entry(mask: np.ndarray) -> ArmEntry:
    """Where a region touching the image border crosses it: the mean of its border pixels, as
    shares of the width and height."""
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    edge = (xs == 0) | (ys == 0) | (xs == w - 1) | (ys == h - 1)
    if edge.any():
        xs, ys = xs[edge], ys[edge]
    return ArmEntry(float(xs.mean()) / max(1, w - 1), float(ys.mean()) / max(1, h - 1))


def _ends_day(action: object) -> bool:
    """Whether ``action`` lays a FINISH card (the day ends; who plays next depends on the rules)."""
    card = getattr(action, "card", None)
    found = gladiola.load_deck().get(card) if isinstance(card, str) else None
    return found is not None and found.kind is gladiola.CardKind.FINISH
