"""Card identities across frames, stability, and "is a hand over the table?".

:class:`CardTracker` turns the per-frame :class:`~vision.types.FrameResult` stream into table
events: :class:`CardSettled` (a card came to rest with a confirmed reading, or its confirmed
reading changed while it rested) and :class:`CardRemoved` (a card that had settled is gone).

How it decides:

* **Identity.** Each observation is matched to at most one track, greedily by quad overlap
  (IoU) with the track's last quad, plus a bonus when the observation's reading equals the
  track's confirmed reading (appearance). Unmatched observations start new tracks.
* **Readings by vote.** Visible observations with ``confidence >= min_confidence`` vote, and
  partly hidden walk and FINISH readings at ``hidden_min_confidence`` or more.
  A track keeps the last ``vote_window`` votes since it last moved; a reading is confirmed when
  it has at least ``min_votes`` votes and more than ``vote_share`` of the window. A single
  misread frame therefore never changes a card.
* **Settling.** A track "changes" when a corner moves more than ``move_tolerance`` from where it
  rests (its anchor) or when its confirmed reading changes; a quad that jumps back to where the
  card rested before its last change, showing the same card (or nothing readable), or back to
  just where a card coming in was read (its votes not yet turned the reading), is the
  detector flickering between two outlines of a card at rest (a pile's top card alone or with
  the edges below it), not a move; nor is an outline of the same card a few pixels round where it
  rests or rested before (see ``JITTER_REACH``: the detector outlining a card at rest anew, or the
  cards of a gladiola fan in turn). It is settled once it
  has not changed for ``settle_seconds`` of calm table (see below) and has a confirmed reading.
  Cards settling in the same frame are reported in the order they came to where they lie.
* **Hands.** The table is *busy* in a frame when the caller says a hand is seen (``hand=True``,
  e.g. from :func:`skin_fraction`), when a card is moving (not an outline never read that has
  jumped about one place for a while), or when at least ``unstable_share``
  of the established cards moved or vanished in that frame (not where another outline seen in
  that frame overlaps the vanished one much or covers most of it: the same cards outlined
  another way, e.g. a whole fan as one card; nor a card last seen, or now seen, partly hidden:
  a card under another is outlined now more, now less of it, now not at all). Nothing is
  concluded while busy, and the settle clock of every card restarts when the table calms down.
* **Removal.** A settled card unseen for ``lost_seconds`` of calm table is removed. A card that
  never settled (carried across by a hand) disappears silently. A card counts as unstable only
  during the first ``settle_seconds`` after it vanished: a card hidden by a resting hand for
  longer than ``settle_seconds + lost_seconds`` is taken as removed unless the caller reports
  the hand (``hand=True``).
* **Return.** A settled card missing for ``settle_seconds`` of calm table and then seen again
  where it lay (not yet removed) is not taken to lie there still until its reading is confirmed
  anew from what is seen since (see ``RETURN_SECONDS``): the card may have been taken away and
  another put in its place (a card pushed along the row leaves its old track behind, and the next
  card laid there takes it over).
"""

from __future__ import annotations

import functools
import math
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from companion.errors import CompanionError
from companion.tracking.geometry import card_size, corner_shift, quad_iou, share_inside
from vision.types import CardDate, CardKind, CardObservation, FrameResult, Quad


GLIMPSES_KEPT = 3
"""How many unsettled readings a track remembers until it settles."""
GLIMPSE_REACH = 0.5
"""A reading glimpsed on another track counts for a card settling within this many card sizes."""
GLIMPSE_GAP = 0.3
"""A track's reading giving way to another counts as a glimpse (a card covered by the next one)
only when the first was not seen for this many seconds before the second was, or when it won
its vote or was seen on a calm table (a card misread while a hand puts it down is neither)."""
ARRIVE_REACH = 0.25
"""A track's move this many card sizes or further brings a card there anew (see ``_Track.arrived``);
cards settling in the same frame are reported in the order they arrived."""
TURN_VOTES = 2
"""A track whose last this many votes agree on another card than its reading is not at rest."""
STAND_IN_IOU = 0.5
"""A settled card missing in a frame while another outline seen there overlaps it this much is
not gone from view: the same cards outlined another way (two overlapping gladiolas seen now as
one card, now as the other), so it does not count towards a hand over the table."""
STAND_IN_COVER = 0.8
"""Likewise a settled card missing while one outline seen there covers this share of its area:
several cards outlined as one (a whole gladiola fan taken for a single card for a few frames)."""
UNREAD_AT_REST = 0.4
"""An outline never read that has not moved for this many seconds (the settle time) is not a card
on the move (see :meth:`CardTracker.restless`): fresh Valais*Wallis film 199, an outline
straddling two cards of the row, unread and still, came back after every arm over the table and
held the row's judgement back while wrong cards were put in and taken away again: 24 of 164
placements missed (5 with this; 13 with 1 s)."""
STAND_IN_HIDDEN = 0.5
"""Likewise a settled card missing while an outline never read and flagged partly hidden takes in
this share of where it settled: the detector outlining the card with what lies around it (fresh
film 194: W38 on the walk pile outlined for six frames with the pile and the START card below as
one unread outline, 117 px across, holding 0.56 of W38's place; the table counted as busy, and a
gladiola that had come to rest meanwhile was judged 2.47 s late)."""
TAKES_IN_COVER = 0.9
"""An unread outline holding this share of a resting card's outline ..."""
TAKES_IN_GROWTH = 1.35
"""... and at most this many times its area is that card outlined with a piece of the card below
it, not a move (see :func:`_takes_in`)."""
JITTER_REACH = 0.06
"""An outline of a card showing the same card (or nothing readable) whose centre lies within this
many card sizes of where the card rests ..."""
JITTER_CORNERS = 0.3
"""... and no corner of which is further than this many card sizes from there is the same card at
rest outlined anew (the detector runs afresh every few frames and an edge of the card below may
take a corner a few pixels off), not a move: it neither restarts the card's settle clock nor
counts towards a hand over the table. A card turned or pushed moves further."""
JITTER_REACH_NAMED = 0.15
"""The same for an outline read as the very walk card the track holds (its km value is printed on
one card of the deck only), or as the FINISH it holds: the top card of the walk pile is outlined now alone, now with a
piece of the card below, now askew, and its centre jumps up to an eighth of a card (film 135:
W32 on W27 outlined five ways, its verdict 2.2 s after it rested). Another card laid there
reads otherwise; a card pushed further than this still moves."""
TAKES_IN_GROWTH_NAMED = 2.0
"""The same for an outline read as the very walk card the track holds, up to this many times its
area (fresh film 150's W48 on the walk pile, outlined for three frames with the pile's edges
below it, 1.66 times its area: its rest restarted, the verdict 13 frames after it rested)."""
JITTER_CORNERS_NAMED = 0.45
"""... and a corner of such an outline may lie this many card sizes off (film 138's W36 on the
pile, outlined with a corner of the card below and then without it: a corner 0.34 card sizes
away restarted its rest, verdict 9 frames after it rested)."""
RETURN_SECONDS = 1.0
"""A settled card seen again after it was missing on a calm table (see the module doc's *Return*)
is neither at rest nor counted among the settled cards until its votes since then confirm a
reading, or for at most this long seen again with no reading confirmed (an outline never read
then stands for the card it last showed, as before it went missing). Valais*Wallis film 118:
card 2000 pushed one place along the row and back left its track at the row's end, unseen for
0.7 s of calm; the next card laid there (1868, frame 452) took over that track and its settled
2000 counted in the row for two frames before three votes of 1868 had turned it: a second 2000
reported as placed."""
BELOW_SHARE = 0.3
"""Share of a partly hidden outline never read that must lie under a card seen in the same frame
for its jumps not to make the table busy (see :meth:`CardTracker._glimpse_below`)."""
WOBBLE_SECONDS = 1.0
"""An outline never read that has been seen this long ..."""
WOBBLE_REACH = 0.75
"""... and still lies within this many card sizes of where it was first seen is a restless outline
of cards at rest (the overlapping cards of a gladiola fan, outlined anew every few frames), not a
card a hand carries: its jumps do not make the table busy (film 123: two such outlines 0.54 card
sizes from where they were first seen kept W45 from settling until the next hand came)."""

DOUBT_FACTOR = 2.0
"""A card settled and then read as another card, with no hand over the table since it settled
(no busy frame but those its own outline made, never out of sight or seen without a vote: see
``_Track.stirred``) and without moving off its place, must rest this many times
``settle_seconds`` at the new reading: no hand changed it, so one of the two readings is a
misread (film 129: W23 at rest, outlined a few pixels off, was read 13 from a cached crop for
eight frames, a phantom walk)."""


@dataclass(frozen=True)
class TrackConfig:
    """Tunables of the tracker; times in seconds, so they hold at any frame rate.

    ``move_tolerance``: a corner may wander this fraction of the card size (square root of its
    area), but at least ``min_move_px`` pixels, before the card counts as moved.
    ``iou_match``: least overlap for an observation to continue a track.
    ``appearance_bonus``: added to the IoU score when the reading names the track's card (its blister
    count and date precision aside).
    ``vote_window``/``min_votes``/``vote_share``: reading confirmation (see module doc).
    ``min_confidence``: observations below it do not vote.
    ``hidden_min_confidence``: a card vision flags as partly hidden votes only when read at
    least this sure, and only as a kind with a printed value (the top card of a pile whose
    outline ran into the cards below it is often flagged so; a blister count is never read
    from it).
    ``settle_seconds``: how long a card must rest, on a calm table, to count as placed.
    ``lost_seconds``: how long a settled card must be missing, on a calm table, to count as gone.
    ``unstable_share``: share of established cards moving or missing that marks a hand.
    ``evidence_size``: how many agreeing observations a settled event carries.
    """

    move_tolerance: float = 0.04
    min_move_px: float = 3.0
    iou_match: float = 0.3
    appearance_bonus: float = 0.25
    vote_window: int = 7
    min_votes: int = 3
    vote_share: float = 0.5
    min_confidence: float = 0.5
    hidden_min_confidence: float = 0.7
    settle_seconds: float = 0.4
    lost_seconds: float = 1.0
    unstable_share: float = 0.3
    evidence_size: int = 5

    def __post_init__(self) -> None:
        positive = ("move_tolerance", "min_move_px", "iou_match", "settle_seconds", "lost_seconds",
                    "unstable_share")
        for name in positive:
            if not getattr(self, name) > 0:
                raise CompanionError(f"TrackConfig.{name}: expected a positive number, got {getattr(self, name)!r}")
        if not 1 <= self.min_votes <= self.vote_window:
            raise CompanionError(
                f"TrackConfig: expected 1 <= min_votes <= vote_window, got {self.min_votes} and {self.vote_window}"
            )
        if not 0 <= self.vote_share < 1:
            raise CompanionError(f"TrackConfig.vote_share: expected a number in [0, 1), got {self.vote_share!r}")
        if not 0 <= self.min_confidence <= 1:
            raise CompanionError(f"TrackConfig.min_confidence: expected [0, 1], got {self.min_confidence!r}")
        if self.evidence_size < 1:
            raise CompanionError(f"TrackConfig.evidence_size: expected at least 1, got {self.evidence_size}")


@dataclass(frozen=True)
class Reading:
    """What is printed on a card, as one vote: the fields vision read in one frame."""

    kind: CardKind
    value: int | None = None
    blisters: int | None = None
    date: CardDate | None = None
    stones: int | None = None
    sesterces: int | None = None

    @classmethod
    def of(cls, obs: CardObservation) -> Reading:
        return cls(obs.kind, obs.value, obs.blisters, obs.date, obs.stones, obs.sesterces)

    @property
    def known(self) -> bool:
        """False for a card vision could not tell (kind unknown)."""
        return self.kind is not CardKind.UNKNOWN

    @functools.cached_property
    def bare(self) -> Reading:
        """The reading without its blister count, its date without day and month (votes agree on
        a card whatever its count, and however much of its date was read). Kept once made: the
        tracker asks it of every vote and every pairing of a card with a track, in every frame."""
        date = self.date if self.date is None or self.date.month is None else CardDate(self.date.year)
        return replace(self, blisters=None, date=date)

    def describe(self) -> str:
        parts = [self.kind.value]
        if self.value is not None:
            parts.append(f"value {self.value}")
        if self.blisters is not None:
            parts.append(f"{self.blisters} blisters")
        if self.date is not None:
            parts.append(f"date {self.date.to_json()}")
        if self.stones is not None or self.sesterces is not None:
            parts.append(f"{self.stones} stones | {self.sesterces} sesterces")
        return ", ".join(parts)


@dataclass(frozen=True)
class SettledCard:
    """A card at rest on the table: its track id, where it lies and what it shows."""

    track_id: int
    quad: Quad
    reading: Reading
    since: float


@dataclass(frozen=True)
class Glimpse:
    """A reading confirmed at one place that never settled (a hand stayed over it until the
    next card covered it), with the observations that agree with it."""

    reading: Reading
    evidence: tuple[CardObservation, ...]


@dataclass(frozen=True)
class CardSettled:
    """A card came to rest with a confirmed reading, or its reading changed while at rest.

    ``previous``: the reading it had when it last settled (None for a card new to the table).
    ``moved``: it settled somewhere else than where it last settled.
    ``evidence``: the observations that agree with ``card.reading`` (most recent last).
    ``glimpsed``: readings confirmed where this card settles, since it last settled, that never
    settled themselves: on its own track (oldest first), then on other tracks it covers; e.g. a
    walk card covered by the next one while hands stayed over the pile.
    ``calm_since``: when the table last calmed down before the card settled; cards settling in
    the same calm spell share it (what one visit of a hand left behind).
    """

    card: SettledCard
    previous: Reading | None
    moved: bool
    evidence: tuple[CardObservation, ...]
    glimpsed: tuple[Glimpse, ...] = ()
    calm_since: float | None = None


@dataclass(frozen=True)
class CardRemoved:
    """A card that had settled has been gone for long enough: ``card`` is how it last lay."""

    card: SettledCard
    evidence: tuple[CardObservation, ...]


TableEvent = CardSettled | CardRemoved


@dataclass
class _Track:
    """Mutable per-card bookkeeping (internal)."""

    track_id: int
    quad: Quad
    anchor: Quad
    first_seen: float
    last_change: float
    last_seen: float
    votes: deque[tuple[Reading, CardObservation, float]] = field(default_factory=deque)
    reading: Reading | None = None
    settled: SettledCard | None = None
    moved_now: bool = False
    seen_now: bool = False
    before: Quad | None = None
    """Where the card rested before its last move (a detector flickering between two outlines of
    a card at rest makes the quad jump back and forth between them)."""
    flicker: bool = False
    """The last jump went back to ``before``: the card rests at either outline."""
    covered: bool = False
    """The last outline seen was flagged partly hidden (vision's ``visible`` False)."""
    shaky: bool = False
    """This frame's outline or the one before was flagged partly hidden, and this one shows the
    track's card or nothing readable: a move between them may be the detector outlining a
    covered card another way (see :meth:`CardTracker._is_busy`)."""
    glimpsed: list[Glimpse] = field(default_factory=list)
    """Readings confirmed here since the last settling that gave way to another unsettled."""
    glimpse_told: bool = False
    """The current (unsettled) reading was handed on as a glimpse to a card settling over it."""
    showing: bool = False
    """This frame's observation read as the track's card (not unread, not another card)."""
    shown_at: float = 0.0
    """When an observation last voted for ``reading``."""
    shown_calm: bool = False
    """``reading`` won its vote or was shown on a calm table (no hand over it): not a card
    misread while it was put down."""
    changed_now: bool = False
    """``reading`` won its vote in this frame."""
    stirred: bool = False
    """Since the track last settled, the table was busy by a hand or another card's move, or the
    track was not seen, or seen with no vote (covered, unread, unsure)."""
    origin: Quad | None = None
    """Where the track was first seen."""
    arrived: float = 0.0
    """When the card the track shows came where it lies: the track's start, its last move further
    than ``ARRIVE_REACH`` card sizes, or when another card's reading took over its place."""
    missing: bool = False
    """A settled card missing for ``settle_seconds`` of calm table: when it is seen again its votes
    are dropped and it is *returning* (see ``RETURN_SECONDS``)."""
    returned: float | None = None
    """When a missing card was seen again, until its reading is confirmed anew (or
    ``RETURN_SECONDS`` later): while set, the card is neither at rest nor settled."""


def _same_card(reading: Reading | None, obs: CardObservation) -> bool:
    """Whether ``obs`` may show the card a track holds: unread, or the same kind, value and year
    (a blister count, a date's day and month, may come and go with the outline)."""
    if obs.kind is CardKind.UNKNOWN or reading is None:
        return True
    seen = Reading.of(obs).bare
    return seen.kind is reading.kind and seen.value == reading.value and seen.date == reading.bare.date


def _coming(track: _Track, obs: CardObservation) -> bool:
    """Whether ``obs`` reads as the card every vote since the track last moved names (at least
    one): a card put where another lay, seen again before its votes have turned the reading
    (the detector seeing it now alone, now as one outline with the pile below)."""
    return (obs.kind is not CardKind.UNKNOWN and bool(track.votes)
            and all(_same_card(r, obs) for r, _, _ in track.votes))


def _turning(track: _Track) -> bool:
    """Whether the track's latest votes all name another card than its reading: the card there
    is changing (one put where another lay) before the votes have turned its reading."""
    if track.reading is None or len(track.votes) < TURN_VOTES:
        return False
    latest = {r.bare for r, _, _ in list(track.votes)[-TURN_VOTES:]}
    return len(latest) == 1 and latest != {track.reading.bare}


def _stands_in(outline: Quad, missing: Quad) -> bool:
    """Whether ``outline``, seen where a settled card went missing, shows that card outlined
    another way (see ``STAND_IN_IOU`` and ``STAND_IN_COVER``)."""
    if quad_iou(outline, missing) >= STAND_IN_IOU:
        return True
    return share_inside(missing, outline) >= STAND_IN_COVER


def _counted_anew(old: Reading, new: Reading) -> bool:
    """Whether ``new`` is ``old``'s card with its blister count read anew: the same card lying
    there all along, its rest not restarted (film 111's W16 read bare, then with its 5 blisters
    just as it would have settled; film 127's FINISH the same way). A walk card's km value is
    printed on one card only, so any count will do; a FINISH or gladiola, of which several
    differ only by their blisters, only when none was read before."""
    if not old.known or old.bare != new.bare:
        return False
    return (old.kind is CardKind.WALK and old.value is not None) or old.blisters is None


def _takes_in(outline: Quad, card: Quad, growth: float = TAKES_IN_GROWTH) -> bool:
    """Whether ``outline`` holds nearly all of ``card`` and is at most ``growth`` times bigger
    (see ``TAKES_IN_COVER`` and ``TAKES_IN_GROWTH``): the card outlined together with a piece of
    the card below it (film 126's W36 on the walk pile, read on the frames before and after)."""
    return card.area > 0 and outline.area <= growth * card.area and share_inside(card, outline) >= TAKES_IN_COVER


def _votes(obs: CardObservation, cfg: TrackConfig) -> bool:
    """Whether ``obs`` takes part in its track's vote (see :class:`TrackConfig`)."""
    if obs.visible:
        return obs.confidence >= cfg.min_confidence
    return obs.confidence >= cfg.hidden_min_confidence and obs.kind in (CardKind.WALK, CardKind.FINISH)


class CardTracker:
    """Keeps card tracks over frames and reports table events (see the module doc)."""

    def __init__(self, config: TrackConfig = TrackConfig()) -> None:
        self.config = config
        self._tracks: dict[int, _Track] = {}
        self._next_id = 1
        self._calm_since: float | None = None
        self._busy = False
        self._last_time: float | None = None

    # -- public read-only view -------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether the last frame looked like a hand over the table."""
        return self._busy

    def settled_cards(self, seen_within: float | None = None) -> tuple[SettledCard, ...]:
        """Every card currently at rest (as last settled), by track id; with ``seen_within``
        (seconds) only those seen that recently (a card pushed away leaves its old track behind
        until it counts as gone)."""
        now = self._last_time if self._last_time is not None else 0.0
        return tuple(t.settled for t in sorted(self._tracks.values(), key=lambda t: t.track_id)
                     if t.settled and t.returned is None
                     and (seen_within is None or t.last_seen >= now - seen_within))

    def restless(self, seen_within: float,
                 misread: Callable[[Reading, Reading], bool] | None = None) -> tuple[Quad, ...]:
        """Where the cards seen in the last ``seen_within`` seconds that are not at rest lie
        (moving, just put down, or changing what they show; an outline never read counts until
        it has lain still for ``UNREAD_AT_REST``). With ``misread``: a card lying on
        its settled place whose reading changes counts at rest when ``misread(settled, now)``
        says the change is a misreading of the same card (the game knows which cards can be)."""
        now = self._last_time if self._last_time is not None else 0.0
        recent = [t for t in self._tracks.values() if t.last_seen >= now - seen_within]
        return tuple(t.quad for t in recent
                     if (not self._as_settled(t, t.reading) or _turning(t) or t.returned is not None)
                     and not (misread is not None and self._misread_in_place(t, misread, recent))
                     and not (t.reading is None and now - t.last_change >= UNREAD_AT_REST - 1e-9))

    def _misread_in_place(self, track: _Track, misread: Callable[[Reading, Reading], bool],
                          others: list[_Track]) -> bool:
        """Whether ``track`` lies where it settled and only its reading changes, as ``misread``
        takes for the same card read two ways, and no other of ``others`` settled as what it
        reads now (years alike, see :attr:`Reading.bare`): that card was pushed along onto this
        place (film 167: a card put into a row pushed the cards after it one place on; each old
        place then showed its neighbour, an accepted date, and the row was judged with the
        readings they had settled with)."""
        old = track.settled
        if old is None or track.returned is not None or track.reading is None:
            return False
        if not self._lies_at(old, [track.anchor]):
            return False
        now = list(track.votes)[-1][0] if _turning(track) else track.reading
        if now.bare == old.reading.bare or any(o.settled.reading.bare == now.bare for o in others
                                               if o is not track and o.settled is not None):
            return False
        return misread(old.reading, now)

    def track_count(self) -> int:
        return len(self._tracks)

    def all_settled(self) -> bool:
        """True when there are tracks and each of them is settled at its current reading and place."""
        return bool(self._tracks) and all(self._as_settled(t, t.reading) for t in self._tracks.values())

    def _tolerance(self, quad: Quad) -> float:
        return max(self.config.min_move_px, self.config.move_tolerance * card_size(quad))

    def _as_settled(self, track: _Track, reading: Reading | None) -> bool:
        """Whether the track rests where (at either outline of a flicker), and shows what, it
        showed when it last settled."""
        old = track.settled
        if old is None or old.reading != reading:
            return False
        places = [track.anchor] + ([track.before] if track.flicker and track.before is not None else [])
        return self._lies_at(old, places)

    def _lies_at(self, settled: SettledCard, places: list[Quad]) -> bool:
        """Whether one of ``places`` is where ``settled`` lay, within the move tolerance."""
        return any(corner_shift(settled.quad, q) <= self._tolerance(settled.quad) for q in places)

    # -- the frame step --------------------------------------------------------------------

    def update(self, timestamp: float, result: FrameResult, hand: bool | None = None) -> list[TableEvent]:
        """Take one frame; return the events concluded in it (none while the table is busy)."""
        if self._last_time is not None and timestamp < self._last_time:
            raise CompanionError(f"frames must come in time order: got {timestamp} after {self._last_time}")
        self._last_time = timestamp
        for track in self._tracks.values():
            track.moved_now = False
            track.seen_now = False
            track.changed_now = False
        new_tracks = self._associate(timestamp, result.observations)
        for track in self._tracks.values():
            track.stirred = track.stirred or not track.seen_now
        unstable, moving = self._unsteady(new_tracks)
        self._busy = self._is_busy(unstable, moving, hand)
        if self._busy:
            self._calm_since = None
            stirring = unstable + moving
            for track in self._tracks.values():
                track.stirred = track.stirred or bool(hand) or any(t is not track for t in stirring)
            return []
        for track in self._tracks.values():
            track.shown_calm = track.shown_calm or (track.seen_now and (track.showing or track.changed_now))
        if self._calm_since is None:
            self._calm_since = timestamp
        return self._conclude(timestamp)

    # -- internals -------------------------------------------------------------------------

    def _associate(self, now: float, observations: tuple[CardObservation, ...]) -> list[_Track]:
        pairs: list[tuple[float, int, int]] = []
        tracks = list(self._tracks.values())
        for oi, obs in enumerate(observations):
            reading = Reading.of(obs)
            for track in tracks:
                iou = quad_iou(track.quad, obs.quad)
                if iou < self.config.iou_match:
                    continue
                # (the same card whatever blister count or date precision was read: film 136's F3,
                # read with its count once at rest, lost the bonus to an unread outline's track,
                # whose move then restarted its rest, and the day's end was missed)
                same = track.reading is not None and (reading == track.reading
                                                      or (reading.known and reading.bare == track.reading.bare))
                bonus = self.config.appearance_bonus if same else 0.0
                pairs.append((iou + bonus, oi, track.track_id))
        pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
        used_obs: set[int] = set()
        used_tracks: set[int] = set()
        for _, oi, tid in pairs:
            if oi in used_obs or tid in used_tracks:
                continue
            used_obs.add(oi)
            used_tracks.add(tid)
            self._observe(self._tracks[tid], observations[oi], now)
        created: list[_Track] = []
        for oi, obs in enumerate(observations):
            if oi in used_obs:
                continue
            track = _Track(self._next_id, obs.quad, obs.quad, now, now, now, origin=obs.quad, arrived=now)
            self._next_id += 1
            self._tracks[track.track_id] = track
            self._observe(track, obs, now)
            created.append(track)
        return created

    def _observe(self, track: _Track, obs: CardObservation, now: float) -> None:
        cfg = self.config
        track.seen_now = True
        track.last_seen = now
        track.shaky = (track.covered or not obs.visible) and _same_card(track.reading, obs)
        track.covered = not obs.visible
        track.quad = obs.quad
        if track.missing:  # what was read here before it went missing says nothing of what is seen now
            track.missing, track.returned = False, now
            track.votes.clear()
        if corner_shift(track.anchor, obs.quad) > self._tolerance(track.anchor) and not self._jitter(track, obs):
            at_before = (track.before is not None
                         and corner_shift(track.before, obs.quad) <= self._tolerance(track.before))
            back = track.before is not None and (
                (_same_card(track.reading, obs) and (at_before or self._near(track.before, obs.quad)))
                # the card coming in, seen again just where it was read before the outline jumped
                or (_coming(track, obs) and at_before))
            if not back and math.dist(track.anchor.centroid, obs.quad.centroid) >= ARRIVE_REACH * card_size(track.anchor):
                track.arrived = now
            track.anchor, track.before = (track.before if back else obs.quad), track.anchor  # type: ignore[assignment]
            track.flicker = back
            if not back:
                track.last_change = now
                track.moved_now = True
                track.votes.clear()
        track.showing = (_votes(obs, cfg) and track.reading is not None
                         and Reading.of(obs).bare == track.reading.bare)
        if track.showing:
            track.shown_at = now
        track.stirred = track.stirred or not _votes(obs, cfg)
        if _votes(obs, cfg):
            track.votes.append((Reading.of(obs), obs, now))
            while len(track.votes) > cfg.vote_window:
                track.votes.popleft()
        majority = self._majority(track)
        if track.returned is not None and (majority is not None or now - track.returned >= RETURN_SECONDS - 1e-9):
            track.returned = None
        if majority is not None and majority != track.reading:
            since = min(t for r, _, t in track.votes if r == majority)
            if (track.reading is not None and track.reading.known
                    and (since - track.shown_at >= GLIMPSE_GAP - 1e-9 or track.shown_calm)
                    and (track.settled is None or track.settled.reading != track.reading)):
                # a card seen for sure, then hidden a while (or seen on a calm table), then
                # another card here: the first was covered (a card misread while it is put down
                # turns into its reading at once, with a hand still over it)
                agreeing = self._agreeing(track, track.reading)
                track.glimpsed = (track.glimpsed + [Glimpse(track.reading, agreeing)])[-GLIMPSES_KEPT:]
            if track.reading is not None and not _counted_anew(track.reading, majority):
                # the card changed when the new reading started to be seen, not when it won; it
                # rests where it is seen now, not where the track's outline was as it came in
                # (film 156's G2 laid over G1 in the fanned row: the outline moved on to it with
                # the hand, and, a few pixels on from there, moved again after it had rested)
                track.last_change = max(track.last_change, since)
                track.anchor = obs.quad
                if track.reading.known and majority.bare != track.reading.bare:
                    track.arrived = max(track.arrived, since)
            track.reading = majority
            track.shown_at = now
            track.shown_calm = False
            track.changed_now = True
            track.glimpse_told = False

    def _jitter(self, track: _Track, obs: CardObservation) -> bool:
        """Whether ``obs`` is the track's card at rest outlined anew (see ``JITTER_REACH``), or
        outlined with a piece of the card below it, unread or read as the very walk card it is
        (see :func:`_takes_in`, ``TAKES_IN_GROWTH_NAMED``), or the card
        coming in where another lay outlined anew a few pixels round before its votes have turned
        the track's reading (fresh film 144's W11 laid on the START card: its outline moved by 4
        px after the hand had left, its rest restarted, the verdict 9 frames after it rested)."""
        if not _same_card(track.reading, obs):
            return _coming(track, obs) and self._near(track.anchor, obs.quad)
        unread = obs.kind is CardKind.UNKNOWN
        # (a FINISH ends the day, so no FINISH is laid on another: one read again where a FINISH
        # rests is that card; fresh film 185's F6, outlined 14 px shorter five frames after it
        # rested, its verdict 11 frames after rest)
        named = (obs.kind is CardKind.WALK and obs.value is not None) or obs.kind is CardKind.FINISH
        if named:
            return (self._near(track.anchor, obs.quad, JITTER_REACH_NAMED, JITTER_CORNERS_NAMED)
                    or _takes_in(obs.quad, track.anchor, TAKES_IN_GROWTH_NAMED))
        return self._near(track.anchor, obs.quad) or (unread and _takes_in(obs.quad, track.anchor))

    @staticmethod
    def _near(rest: Quad, quad: Quad, reach: float = JITTER_REACH, corners: float = JITTER_CORNERS) -> bool:
        """Whether ``quad`` is another outline of a card resting at ``rest``: its centre within
        ``reach`` card sizes and no corner further than ``corners`` card sizes (see
        ``JITTER_REACH``)."""
        size = card_size(rest)
        return (math.dist(rest.centroid, quad.centroid) <= reach * size
                and corner_shift(rest, quad) <= corners * size)

    def _majority(self, track: _Track) -> Reading | None:
        if len(track.votes) < self.config.min_votes:
            return None
        # votes agree on a card whatever its blister count (a partly hidden card's is not read);
        # the count confirmed is the one most often read
        counts = Counter(r.bare for r, _, _ in track.votes)
        card, count = max(counts.items(), key=lambda kv: kv[1])
        tied = sum(1 for c in counts.values() if c == count) > 1
        if tied or count < self.config.min_votes or count <= self.config.vote_share * len(track.votes):
            return None
        blisters = Counter(r.blisters for r, _, _ in track.votes
                           if r.blisters is not None and r.bare == card)
        # the same for a date read whole on some frames and as its year alone on others (film
        # 137's 1815-01-12 in the row: the reading turned at every switch, the card was never at
        # rest, and the row was not judged while it lay there)
        dates = Counter(r.date for r, _, _ in track.votes
                        if r.date is not None and r.date.month is not None and r.bare == card)
        if blisters:
            card = replace(card, blisters=blisters.most_common(1)[0][0])
        return replace(card, date=dates.most_common(1)[0][0]) if dates else card

    def _agreeing(self, track: _Track, reading: Reading) -> tuple[CardObservation, ...]:
        """The latest observations of ``track`` that voted for ``reading`` (an event's evidence)."""
        return tuple(o for r, o, _ in track.votes if r == reading)[-self.config.evidence_size:]

    def _covered(self, track: _Track) -> list[Glimpse]:
        """Glimpses of other tracks where ``track`` settles: readings confirmed there (or where
        the track rested before its last jump) that never settled and do not show now (the card
        settling covers them, or leaves only an unreadable edge); each is told once."""
        out: list[Glimpse] = []
        reach = GLIMPSE_REACH * card_size(track.anchor)
        for other in sorted(self._tracks.values(), key=lambda t: t.track_id):
            reading = other.reading
            places = [other.anchor] + ([other.before] if other.before is not None else [])
            if (other is track or (other.seen_now and other.showing) or reading is None or not reading.known
                    or other.glimpse_told or (other.settled is not None and other.settled.reading == reading)
                    or min(math.dist(q.centroid, track.anchor.centroid) for q in places) > reach):
                continue
            other.glimpse_told = True
            agreeing = self._agreeing(other, reading)
            out.append(Glimpse(reading, agreeing))
        return out

    def _is_busy(self, unstable: list[_Track], moving: list[_Track], hand: bool | None) -> bool:
        """Whether a hand is over the table: told so, or enough settled cards ``unstable`` (a
        share of them), or an unsettled card ``moving`` (see :meth:`_unsteady`)."""
        if hand:
            return True
        established = sum(1 for t in self._tracks.values() if t.settled is not None)
        return bool(unstable and len(unstable) >= self.config.unstable_share * established) or bool(moving)

    def _unsteady(self, new_tracks: list[_Track]) -> tuple[list[_Track], list[_Track]]:
        """The settled cards that moved or went missing in this frame, and the unsettled cards
        on the move (see :meth:`_is_busy`)."""
        established = [t for t in self._tracks.values() if t.settled is not None]
        # a card that vanished only just now counts; one long gone is taken away, not covered
        now = self._last_time if self._last_time is not None else 0.0
        seen = [t.quad for t in self._tracks.values() if t.seen_now]
        unread_hidden = [t.quad for t in self._tracks.values() if t.seen_now and t.covered and t.reading is None]
        # a card partly hidden under another (the START card under the walk pile, a pile's lower
        # cards) comes and goes, and jumps between outlines, as the detector finds more or less
        # of it: an arm over the table shows elsewhere too (film 124: the START card's sliver
        # kept the table busy, W34's verdict came 1.3 s after it rested)
        unstable = [
            t for t in established
            if (t.moved_now and not t.shaky)
            or (not t.seen_now and not t.covered and now - t.last_seen <= self.config.settle_seconds + 1e-9
                and not any(_stands_in(q, t.quad) for q in seen)
                and not any(share_inside(t.settled.quad, q) >= STAND_IN_HIDDEN for q in unread_hidden))
        ]
        moving = [t for t in self._tracks.values()
                  if t.moved_now and t.settled is None and t not in new_tracks and not self._wobbling(t, now)
                  and not self._glimpse_below(t)]
        return unstable, moving

    def _glimpse_below(self, track: _Track) -> bool:
        """Whether an unsettled track is an outline never read, partly hidden now, of which at
        least ``BELOW_SHARE`` lies under a card seen in this frame: a card below another outlined
        now more, now less of it (fresh film 182: the START card under W09 outlined anew three
        frames after W09 came to rest, which made the table busy and W09's verdict came 0.8 s
        after it rested)."""
        if track.reading is not None or not track.covered:
            return False
        return any(other is not track and other.seen_now and share_inside(track.quad, other.quad) >= BELOW_SHARE
                   for other in self._tracks.values())

    def _doubted(self, track: _Track, reading: Reading) -> bool:
        """Whether ``reading`` names another card than the one settled at the track's place with
        no hand over the table since (see ``DOUBT_FACTOR``)."""
        old = track.settled
        if old is None or not old.reading.known or old.reading.bare == reading.bare:
            return False
        return not track.stirred and math.dist(old.quad.centroid, track.anchor.centroid) < ARRIVE_REACH * card_size(old.quad)

    def _wobbling(self, track: _Track, now: float) -> bool:
        """Whether an unsettled track is an outline never read that keeps jumping about one place
        (see ``WOBBLE_SECONDS``), rather than a card on the move."""
        if track.reading is not None or track.origin is None or now - track.first_seen < WOBBLE_SECONDS - 1e-9:
            return False
        return math.dist(track.quad.centroid, track.origin.centroid) <= WOBBLE_REACH * card_size(track.origin)

    def _conclude(self, now: float) -> list[TableEvent]:
        cfg = self.config
        assert self._calm_since is not None
        events: list[TableEvent] = []
        settled: list[tuple[float, int, CardSettled]] = []
        for track in sorted(self._tracks.values(), key=lambda t: t.track_id):
            if not track.seen_now:
                continue
            rested = now - max(track.last_change, self._calm_since)
            confirmed = self._majority(track)
            if confirmed is None or confirmed != track.reading:
                continue
            if rested + 1e-9 < cfg.settle_seconds * (DOUBT_FACTOR if self._doubted(track, confirmed) else 1.0):
                continue
            old = track.settled
            if self._as_settled(track, confirmed):
                continue  # back where it was settled (e.g. nudged under a hand and put back)
            card = SettledCard(track.track_id, track.anchor, confirmed, now)
            track.settled, track.stirred = card, False
            moved = old is not None and corner_shift(old.quad, track.anchor) > self._tolerance(old.quad)
            evidence = self._agreeing(track, confirmed)
            glimpsed = tuple(g for g in track.glimpsed + self._covered(track) if g.reading != confirmed)
            track.glimpsed = []
            settled.append((track.arrived, track.track_id,
                            CardSettled(card, old.reading if old else None, moved, evidence, glimpsed, self._calm_since)))
        # cards settling together are told in the order they came (one laid before the other)
        events.extend(e for _, _, e in sorted(settled, key=lambda s: (s[0], s[1])))
        for track in sorted(self._tracks.values(), key=lambda t: t.track_id):
            if track.seen_now:
                continue
            gone = now - max(track.last_seen, self._calm_since)
            if track.settled is not None and not track.missing and gone + 1e-9 >= cfg.settle_seconds:
                track.missing, track.returned = True, None
            if gone + 1e-9 < cfg.lost_seconds:
                continue
            del self._tracks[track.track_id]
            if track.settled is not None:
                evidence = tuple(o for _, o, _ in track.votes)[-cfg.evidence_size:]
                events.append(CardRemoved(track.settled, evidence))
        return events


def skin_fraction(image: np.ndarray, region: tuple[int, int, int, int] | None = None) -> float:
    """Share of pixels in a BGR image (or its ``(x0, y0, x1, y1)`` region) that look like skin.

    A coarse YCrCb box test (Cr 135..180, Cb 85..135), enough to tell "an arm reaches over the
    table" when the share jumps; pass ``hand=share > threshold`` to :meth:`CardTracker.update`.
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise CompanionError(f"skin_fraction: expected a BGR image of shape (h, w, 3), got {image.shape}")
    if region is not None:
        x0, y0, x1, y1 = region
        image = image[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
    if image.size == 0:
        return 0.0
    pixels = image.astype(np.float32)
    b, g, r = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cr = (r - y) * 0.713 + 128.0
    cb = (b - y) * 0.564 + 128.0
    mask = (cr >= 135) & (cr <= 180) & (cb >= 85) & (cb <= 135)
    return float(mask.mean())
