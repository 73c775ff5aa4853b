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
at the table, when it is clear; or the place it was nearest to, for a row of exactly that player's
count), else of the next player in seat order. A row laid against the image's edge looks like an
arm at first; once it lies still a moment it is none. When the row holds another
number of cards than counted, a :class:`gladiola.Recount` is returned as a move of that frame
first (the table overrules the count; moves are applied before the reveals); when one of its
FINISH or gladiola cards was logged on the table under its id (a twin read while covered), a
:class:`gladiola.Relabel` of the table's card goes before it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.games import canonical_name, gladiola, valais
from companion.session import MoveItem
from companion.setup_profile import CameraSetup
from companion.sources import Frame
from companion.tracking import TrackConfig, Tracker
from companion.tracking.geometry import polygon_area
from companion.tracking.reveal import HandWatch, RevealedHand, UnreadRow
from companion.tracking.seats import ROW_NEAR_MARGIN, ROW_SEAT_REACH, SEAT_REACH, ArmEntry, SeatMap
from companion.tracking.zones import Zone, ZoneKind
from vision.types import Quad

#: hand detection works on frames shrunk to this grid (width, height)
HAND_GRID = (160, 90)
#: a pixel differs from the calm table when a colour channel changes by more than this (an arm
#: near the table's colour, pale skin on light wood, differs from it by 15-25; film 141: at 28
#: the hand laying G3 went unseen and the gladiola was not counted. Measured on 25 films' frames
#: in play: 83% of the frames with a hand found at 28, 92% at 16, 4 and 6 frames without one
#: taken for an arm)
HAND_DIFF = 16.0
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
#: after the game's end, a changed region touching the border that stays put this many seconds is
#: a shown row laid against the image's edge, not an arm (arms move): calm while it stays put
ROW_STILL_SECONDS = 0.3
#: ... staying put: at most this share of its pixels differ (by more than ``ROW_STILL_DIFF`` in a
#: colour channel) from the frame it came to rest in, and at least this share of it lies where
#: it lay the frame before, not counting pixels within ``ROW_STILL_NOISE`` of that frame's (a row's
#: pixels near the arm threshold come and go from the region while the picture stands still:
#: film 138, where player 1's row came to rest anew every two frames and the frames it was taken
#: for an arm at the bottom edge gave it to player 0; they differed by at most 6, the pixels an
#: arm left by 48 at the median)
ROW_STILL_MOTION = 0.03
ROW_STILL_DIFF = 28.0
ROW_STILL_OVERLAP = 0.9
ROW_STILL_NOISE = 10.0
#: Via Gladiola: a shown row followed this many seconds of calm frames with cards never read sure
#: on any of them: the players are asked to spread it (a card whose plasters lie under its
#: neighbour cannot be scored: film 168, a FINISH and a gladiola in a 15-card row)
SPREAD_SECONDS = 1.0
#: ... and on at least this many of the frames the row was read on
SPREAD_FRAMES = 4
#: the colour (BGR) the annotated image marks those cards with (magenta: unlike the outlines of
#: cards read, green, and unread, orange)
SPREAD_COLOUR = (255, 0, 255)
#: the colour (BGR) of the zones' outlines on the camera image (light blue)
ZONE_COLOUR = (255, 200, 80)
#: a zone a player draws covers at least this share of the camera image (room for a card)
MIN_ZONE_SHARE = 0.005


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
        names: Sequence[str] = (),
    ) -> None:
        """``revealed``: the hands shown so far, one per seat (None where not yet); without it
        the hands this source named are taken as shown. ``names``: the players' names, for the
        notices (seat numbers without them)."""
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
        self.names = tuple(names)
        self._notices_taken = 0
        self._unread: UnreadRow | None = None
        """The shown row whose players were asked to spread it, while it is in view."""
        self._spread_told: tuple[int, tuple[int, ...]] | None = None
        self._watch: HandWatch | None = None
        self._walk_blisters: tuple[tuple[int, int], ...] = ()
        self._finish_blisters: frozenset[int] = frozenset()
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
        self._day_ended = False
        """Via Gladiola: the last card laid was a FINISH (the next card starts a day)."""
        self._still: tuple[np.ndarray, np.ndarray, float, int] | None = None
        """Where the border region came to rest, the small frame then, since when, and on how
        many frames it was seen at rest (see :meth:`_lies_still`)."""
        self._unarm = 0
        """Arm entries to take back: the frames of a region at rest learnt into the calm table."""
        self._unarm_at = ArmEntry(0.0, 0.0)
        """... where that region meets the image border (only entries there are taken back)."""
        self._rested: np.ndarray | None = None
        """The last region found lying still (a shown row against the edge, or the place one was
        taken from before the calm table learnt it gone): an arm joined to it crosses the border
        elsewhere."""
        if self.game == "gladiola":
            from companion.games.gladiola import load_deck

            deck = load_deck()
            self._watch = HandWatch(deck)
            # a covered card's blister count may settle its km value (vision.hand)
            self._walk_blisters = tuple(sorted((c.value, c.blisters) for c in deck.cards
                                               if c.kind is gladiola.CardKind.WALK and c.value is not None))
            # ... and a FINISH's count is one its deck holds
            self._finish_blisters = frozenset(c.blisters for c in deck.cards if c.kind is gladiola.CardKind.FINISH)

    def _hand_over_table(self, image: np.ndarray, now: float | None = None) -> bool:
        """Whether an arm reaches over the table: a large region that differs from the calm
        table and touches the image border (arms come in from the edge; a card put down does
        not touch it). The calm table is a slowly updated background of small frames.

        ``now`` (seconds; only once the game is over): a region that stays put for
        :data:`ROW_STILL_SECONDS` is a shown row lying against the image's edge, no arm while it
        stays so (else it would hold the reading of every later row back)."""
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
        region: np.ndarray | None = None
        for k in range(1, count):
            x, y, bw, bh, area = stats[k]
            touches = x == 0 or y == 0 or x + bw == w or y + bh == h
            if touches and area >= HAND_AREA * w * h:
                hand = True
                region = labels == k
                self.arm = _border_entry(region, self._rested if now is not None else None)
                break
        if now is not None and region is not None and self._lies_still(region, small, now):
            # a row laid against the edge (or an arm held still): no arm while it stays put; the
            # calm table learns it slowly as it learns a card put down
            self.arm, hand = None, False
        if region is None and self._still is not None:
            # the row may drop out of the region for a frame (the calm table learning it): where it
            # rested is kept, so that it lies still at once when it shows again (film 138); the
            # frames counted before it dropped out are not taken back later
            self._still = (*self._still[:3], 0)
        # the table adapts slowly (light drifts, cards settle in); never while an arm is over it
        rate = 0.0 if hand else HAND_ADAPT
        self._background = (1 - rate) * self._background + rate * small
        return hand

    def _lies_still(self, region: np.ndarray, small: np.ndarray, now: float) -> bool:
        """Whether the border ``region`` stayed put since :data:`ROW_STILL_SECONDS` before
        ``now``: hardly any of it lies outside where it came to rest (it may shrink as the calm
        table learns it) and few of its pixels differ from that frame's (:data:`ROW_STILL_MOTION`;
        an arm sliding in drifts off both); remembers where it rests for the next frame."""
        if self._still is not None:
            rest, rest_image, since, frames = self._still
            diff = np.abs(small - rest_image).max(axis=2)
            moved = (diff > ROW_STILL_DIFF) & region
            outside = int((region & ~rest & (diff > ROW_STILL_NOISE)).sum())
            size = max(1, int(region.sum()))
            if outside <= (1 - ROW_STILL_OVERLAP) * size and int(moved.sum()) <= ROW_STILL_MOTION * size:
                if now - since >= ROW_STILL_SECONDS - 1e-9:
                    if frames > 0:
                        # those frames saw a row, not an arm: where the row meets the border (the
                        # first of them may have seen the arm that laid it leave: film 138)
                        self._unarm, self._unarm_at = frames, _border_entry(region)
                    self._still = (region, rest_image, since, 0)
                    self._rested = region
                    return True
                self._still = (region, rest_image, since, frames + 1)
                return False
        self._still = (region, small, now, 1)
        return False

    def moves(self, frame: Frame) -> Sequence[MoveItem]:
        image = self.setup.prepare(frame.image)
        result = self.reader.read_frame(image)
        view = self.view() if self.view is not None else None
        over = self.game == "gladiola" and bool(getattr(view, "over", False))
        self.hand = self._hand_over_table(image, frame.timestamp if over else None)
        self._last = (frame.index, result, image)
        if self.arm is not None and self.game in ("gladiola", "valais"):
            del self._arms[:-ARMS_KEPT]
            # one arm: frames with an arm at the same place, with gaps of at most ARM_GAP seconds
            if (not self._arms or frame.timestamp - self._arm_time > ARM_GAP + 1e-9
                    or self._arms[-1][-1].distance(self.arm) > SEAT_REACH):
                self._arms.append([])
            self._arms[-1].append(self.arm)
            self._arm_time = frame.timestamp
        # a row at rest against the edge was taken for an arm for a few frames: not whose arm laid it
        while self._unarm > 0 and self._arms and self._arms[-1][-1].distance(self._unarm_at) <= SEAT_REACH:
            self._arms[-1].pop()
            if not self._arms[-1]:
                self._arms.pop()
            self._unarm -= 1
        self._unarm = 0
        found = self.tracker.update(frame.index, frame.timestamp, result, view=view, hand=self.hand or None)
        shown = self._watch_hands(image, view, frame.index, frame.timestamp)
        items = [MoveItem(m.frame_index, m.timestamp, m.action, tuple(m.evidence)) for m in found]
        items += [MoveItem(frame.index, frame.timestamp, action, ()) for action in shown]
        if self.game == "valais":
            return self._whose_card(items, view)
        return self._whose(items, view) if self.game == "gladiola" else items

    def _whose(self, items: list[MoveItem], view: Any) -> list[MoveItem]:
        """Via Gladiola: learn the players' places from the arms of their moves, and put a
        :class:`TurnTo` before a card laid clearly from another player's place than the count's.

        The cards laid in one frame (a card judged late together with the next) are paired in
        order with the last as many stretches of frames with an arm before them. The first card
        of a day is not: who starts the day is the rules' matter, and the arms before it may be
        the clearing up after the FINISH (film 124: the START card moved from the top of the
        picture, then W08 laid from the bottom by an arm the colour of the table, unseen). Nor is
        a card whose arm came in at the place of the player who had the turn before: two
        players reaching in at one place is likelier than every other player's move missed
        (film 142: five players, two of them reaching for the pile across the same stretch of
        the bottom edge; each of one's moves was given to the other)."""
        laid = [k for k, item in enumerate(items) if isinstance(item.action, (gladiola.Walk, gladiola.LayGladiola))]
        if not laid or view is None or view.over or view.current_player is None:
            return items
        day_ended, self._day_ended = self._day_ended, _ends_day(items[laid[-1]].action)
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
                first_of_day, day_ended = day_ended, _ends_day(item.action)
                if not first_of_day:
                    entry = ArmEntry.middle(stretches[laid.index(k)])
                    player = self._seats.who(entry)
                    if player is not None and player != expected and not _played_last(player, expected, view.players):
                        out.append(MoveItem(item.frame_index, item.timestamp, gladiola.TurnTo(player), ()))
                        expected = player
                    self._seats.learn(expected, entry)
            out.append(item)
            if isinstance(item.action, (gladiola.Walk, gladiola.LayGladiola, gladiola.TableWalk)):
                expected = (expected + 1) % view.players
        return out

    def _whose_card(self, items: list[MoveItem], view: Any) -> list[MoveItem]:
        """Valais*Wallis: learn the players' places from the arms that put cards into the row, and
        put a :class:`valais.MissedWrong` before a card put in clearly from the place of the
        player who plays after the one the count has: the count's player put a wrong card in and
        took it away while the camera did not see it (fresh film 199, four players: a wrong 1872
        lay in the row for less than a second, never judged; from then on every card was given
        to the player before the one who put it in). Only one card put in at a time, and not
        where the round's end may change who plays next (see :meth:`valais.PublicView.next_to_place`)."""
        placed = [item for item in items if isinstance(item.action, valais.PlaceSeen)]
        if len(placed) != 1 or view is None or view.over or view.current_player is None:
            if placed:
                self._arms = []  # the arms before these cards are not paired with any
            return items
        arms, self._arms = self._arms, []
        if not arms:
            return items
        if self._seats is None:
            self._seats = SeatMap(view.players)
        entry = ArmEntry.middle(arms[-1])
        expected = view.current_player
        player = self._seats.who(entry, reach=ROW_SEAT_REACH)  # (players reach along the row as for a shown row)
        if player is not None and player != expected and player == view.next_to_place() and view.stack_size > 0:
            self._seats.learn(player, entry)
            k = items.index(placed[0])
            return items[:k] + [MoveItem(placed[0].frame_index, placed[0].timestamp, valais.MissedWrong(), ())] + items[k:]
        self._seats.learn(expected, entry)
        return items

    def _row_layer(self) -> tuple[int | None, int | None]:
        """The player whose arm left the table just as this calm spell began (the one who laid
        the row in view), by their place at the table: the one it was clearly at, and the one
        it was nearest to (:data:`ROW_NEAR_MARGIN`); None when that is not known (no arm seen
        then, places not learnt, or no place near enough)."""
        if self._seats is None or not self._arms or self._arm_time < self._calm_start - ARM_GAP - 1e-9:
            return None, None
        entry = ArmEntry.middle(self._arms[-1])
        return (self._seats.who(entry, reach=ROW_SEAT_REACH),
                self._seats.who(entry, reach=ROW_SEAT_REACH, margin=ROW_NEAR_MARGIN))

    def take_notices(self) -> list[str]:
        """The texts of the tracker's notices (this source's own among them) added since the last call."""
        every = self.tracker.notices()
        out, self._notices_taken = every[self._notices_taken:], len(every)
        return [n.message for n in out]

    def _player_name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"player {seat + 1}"

    def _ask_to_spread(self, frame_index: int, frame_time: float) -> None:
        """Ask the players to spread a shown row whose hand cannot be named because cards of it
        were never read (see :data:`SPREAD_SECONDS`); the annotated image marks those cards."""
        assert self._watch is not None
        row = self._watch.unread()
        if row is None or row.frames < SPREAD_FRAMES or frame_time - self._calm_start < SPREAD_SECONDS - 1e-9:
            self._unread = None
            return
        self._unread = row
        if self._spread_told == (row.player, row.positions):
            return
        self._spread_told = (row.player, row.positions)
        count = len(row.positions)
        cards = "1 card" if count == 1 else f"{count} cards"
        self.tracker.tell(frame_index, frame_time, (
            f"{self._player_name(row.player)}'s shown hand: {cards} of {row.size} cannot be read (marked on the "
            f"camera image): spread the row so that every card's km and plasters show"))

    @property
    def frame_size(self) -> tuple[int, int] | None:
        """(width, height) of the camera image the zones lie in (as shown on the dashboard), or
        None before the first frame."""
        if self._last is None:
            return None
        height, width = self._last[2].shape[:2]
        return width, height

    def draw_zone(self, zone: Zone) -> None:
        """Put a zone a player drew on the camera image in place of the one found automatically
        (CompanionError for a zone outside the image, too small to hold a card, or one this game
        has not)."""
        size = self.frame_size
        if size is None:
            raise CompanionError("zone: expected a camera image to draw on, got none yet")
        width, height = size
        if not all(-1 <= x <= width + 1 and -1 <= y <= height + 1 for x, y in zone.polygon):
            raise CompanionError(f"zone: expected corners inside the {width}x{height} camera image, "
                                 f"got {[[round(x), round(y)] for x, y in zone.polygon]}")
        share = polygon_area(zone.polygon) / (width * height)
        if share < MIN_ZONE_SHARE:
            raise CompanionError(f"zone: expected at least {MIN_ZONE_SHARE:.1%} of the camera image "
                                 f"(room for a card), got {share:.2%}")
        self.tracker.draw_zone(zone)

    def restless(self) -> tuple[Quad, ...]:
        """Where cards seen lately are not at rest (moving, just put down, changing what they show)."""
        return self.tracker.cards.restless(self.tracker.config.settle_seconds)

    def take_reveals(self) -> list[RevealedHand]:
        """The shown hands named since the last call (Via Gladiola, after the game's end)."""
        out, self._pending = self._pending, []
        return out

    def _watch_hands(self, image: np.ndarray, view: Any, frame_index: int, frame_time: float) -> list[gladiola.Action]:
        """Read a shown hand on calm frames once the game is over (see the module doc); the
        moves to apply before the hand named: the relabels of table cards it holds, then a
        recount if it holds another number of cards than counted."""
        if self._watch is None or view is None or not getattr(view, "over", False):
            return []
        if self.hand:
            self._calm_frames = 0
            self._watch.reset()
            self._unread = None
            return []
        if self._calm_frames == 0:
            self._calm_start = frame_time
        self._calm_frames += 1
        if self._calm_frames % REVEAL_EVERY:
            return []
        from vision.hand import HandConfig, read_hands

        # only an arm over the table holds the reading back: the overlapping cards of a shown
        # row are outlined anew every few frames (their tracks stay restless however still the
        # row lies), and the readings that must agree keep a row still being laid from counting
        rows = read_hands(image, HandConfig(walk_blisters=self._walk_blisters, finish_blisters=self._finish_blisters))

        revealed = self.revealed() if self.revealed is not None else None
        if revealed is None:
            seats = len(getattr(view, "hand_counts", ()))
            revealed = [self._named.get(p) for p in range(seats)]
        laid_by, laid_near = self._row_layer()
        named = self._watch.see(rows, view, revealed, laid_by, laid_near)
        if named is None:
            self._ask_to_spread(frame_index, frame_time)
            return []
        self._unread = None
        self._named[named.player] = named.cards
        self._pending.append(named)
        actions: list[gladiola.Action] = [gladiola.Relabel(card, as_card) for card, as_card in named.relabels]
        if named.recounted:
            actions.append(gladiola.Recount(named.player, len(named.cards)))
        return actions

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
        if self._unread is not None:
            for quad in self._unread.quads:
                pts = np.round(np.array(quad.to_json(), dtype=np.float64)).astype(np.int32)
                cv2.polylines(image, [pts], True, SPREAD_COLOUR, max(4, int(5 * scale)), cv2.LINE_AA)
            cv2.putText(image, "spread the row: the cards marked cannot be read", (16, int(36 * scale)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale, SPREAD_COLOUR, max(2, int(2 * scale)), cv2.LINE_AA)
        self._draw_zones(image, scale)
        if self.hand:
            cv2.putText(image, "hand over the table: waiting", (16, int(36 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.9 * scale, (0, 0, 255), max(2, int(2 * scale)), cv2.LINE_AA)
        return image

    def _draw_zones(self, image: np.ndarray, scale: float) -> None:
        """Outline the zones (thin: found, thick: drawn by a player), each with its name; a
        scoring area that is the whole image is not drawn."""
        height, width = image.shape[:2]
        drawn = {z.kind for z in self.tracker.drawn_zones.zones}
        for zone in self.tracker.zones.zones:
            if zone.kind is ZoneKind.SCORING and polygon_area(zone.polygon) >= 0.95 * width * height:
                continue
            pts = np.round(np.array(zone.polygon, dtype=np.float64)).astype(np.int32)
            thick = zone.kind in drawn
            cv2.polylines(image, [pts], True, ZONE_COLOUR, max(1, int((3 if thick else 1) * scale)), cv2.LINE_AA)
            x, y = int(pts[:, 0].min()) + 4, int(pts[:, 1].max()) - 6
            cv2.putText(image, zone.kind.value, (x, min(height - 4, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                        ZONE_COLOUR, max(1, int(scale)), cv2.LINE_AA)


def _label(obs: Any) -> str:
    if obs.kind.value == "unknown":
        return "?"
    if obs.date is not None:
        return obs.date.to_json()
    if obs.value is not None:
        return f"{obs.value} km" + (f" +{obs.blisters}" if obs.blisters else "")
    return obs.kind.value


def _played_last(player: int, expected: int, players: int) -> bool:
    """Whether ``player`` had the turn before ``expected``'s, with three players or more (with two,
    one move missed makes the count say so)."""
    return players >= 3 and player == (expected - 1) % players


def _border_entry(mask: np.ndarray, rested: np.ndarray | None = None) -> ArmEntry:
    """Where a region touching the image border crosses it: the mean of its border pixels, as
    shares of the width and height; those of ``rested`` left out while others remain (an arm
    reaching over a row lying against the edge is one region with it: film 138, player 1's arm
    from the left joined to the place of player 0's row at the bottom edge, their mean
    between the two players' places)."""
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    edge = (xs == 0) | (ys == 0) | (xs == w - 1) | (ys == h - 1)
    if rested is not None and (edge & ~rested[ys, xs]).any():
        edge &= ~rested[ys, xs]
    if edge.any():
        xs, ys = xs[edge], ys[edge]
    return ArmEntry(float(xs.mean()) / max(1, w - 1), float(ys.mean()) / max(1, h - 1))


def _ends_day(action: object) -> bool:
    """Whether ``action`` lays a FINISH card (the day ends; who plays next depends on the rules)."""
    card = getattr(action, "card", None)
    found = gladiola.load_deck().get(card) if isinstance(card, str) else None
    return found is not None and found.kind is gladiola.CardKind.FINISH
