"""Via Gladiola's end of game: a hand shown in a row, read by the camera, as card ids.

:func:`hand_ids` turns a :class:`vision.hand.ShownHand` into card ids of the deck: a walk card
by its km value (each value is printed on one card only), a FINISH or gladiola card by its kind
and blister count (any such card not yet on the table or shown will do for scoring). One card
whose identity is unsure makes the whole hand unsure: no ids, keep watching.

:func:`next_player` says whose hand a row is: hands are shown in seat order, by the players who
hold cards and have not shown them yet. :class:`HandWatch` follows a row over calm frames and
names the hand once each of its cards was read sure on a few of them, never two ways. The table overrules the count for the last hand to be shown: a
row read whole and sure with another number of cards than the companion counted (a move it
missed or gave to another player) is named too, after more readings agree; :class:`RevealedHand`
then says what was counted, and the caller applies a
:class:`companion.games.gladiola.Recount` before revealing it. Only the last hand, or a hand
whose row the player's own arm laid (an arm only nearer one player's place than the others' names
that player's hand for a row of exactly their count): while other players are still to show theirs, the count or
the arm is what tells one player's row from the next one's (a row whose reading was missed would
otherwise give the next player's cards to it).

A FINISH or gladiola laid during the game may have been logged under a twin's id (its blister
count misread while partly covered): a shown hand then holds a card "on the table". When every
other card of the row is named and free, such a card is named anyway (one; two in a long row)
and the hand comes with a relabel (:attr:`RevealedHand.relabels`): the table's card is taken for
a free card of the same kind, which the caller applies first as a
:class:`companion.games.gladiola.Relabel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.errors import CompanionError
from companion.games.gladiola import RELABEL_KINDS, Card, CardKind, Deck
from vision.types import Quad

AGREE = 3
"""How many calm frames a row must be seen on before its hand is named (each card's sure reading
on at least :data:`SURE_SEEN` of them, or on all of them when fewer)."""
RECOUNT_AGREE = 5
"""As :data:`AGREE`, for a row with another number of cards than the companion counted."""
RECOUNT_REACH = 3
"""Largest difference between a row's number of cards and the companion's count for the row to
be taken as the hand (a bigger one is more likely a pile or a part of a row than a miscount)."""
RELABEL_MOST = 2
"""Most cards of a row that may be named although their id lies on the table (see the module
doc): more such cards make the row more likely a pile of the table than a hand (film 141: a
12-card hand held a gladiola and a FINISH whose twins were logged on the table)."""
RELABEL_NAMED = 3
"""Cards of a row that must be named free, without a relabel, for each relabel made: a short
row of table cards must not pass for a hand."""


@dataclass(frozen=True)
class RevealedHand:
    """The hand ``player`` showed, as card ids of the deck, with its blister total; ``counted``:
    the cards the companion counted for the player (None: as many as shown); ``relabels``:
    (card on the table, free card of the same kind it is taken for) pairs to apply before the
    hand is revealed."""

    player: int
    cards: tuple[str, ...]
    blisters: int
    counted: int | None = None
    relabels: tuple[tuple[str, str], ...] = ()

    @property
    def recounted(self) -> bool:
        return self.counted is not None and self.counted != len(self.cards)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"player": self.player, "cards": list(self.cards), "blisters": self.blisters}
        if self.recounted:
            out["counted"] = self.counted
        if self.relabels:
            out["relabels"] = [{"card": card, "as_card": as_card} for card, as_card in self.relabels]
        return out


def _candidates(card: object, deck: Deck) -> list[Card]:
    """The deck's cards a read card can be (empty when it was not read well enough)."""
    kind = getattr(getattr(card, "kind", None), "value", None)
    value, blisters = getattr(card, "value", None), getattr(card, "blisters", None)
    if kind == CardKind.WALK.value and value is not None:
        found = [c for c in deck.cards if c.kind is CardKind.WALK and c.value == value]
        # a blister count read beside the value must agree with the card it names, unless the
        # value was read surer: a covered strip's plasters are miscounted more often than its
        # index digits (the reveal frames of films 113, 115, 119 and 121: ten counts wrong beside
        # a right value, no value wrong)
        agree = [c for c in found if blisters is None or c.blisters == blisters]
        sure = getattr(card, "field_confidences", None)
        if not agree and sure is not None and sure.value > sure.blisters:
            return found
        return agree
    if kind == CardKind.FINISH.value and blisters is not None:
        return [c for c in deck.cards if c.kind is CardKind.FINISH and c.blisters == blisters]
    if kind == CardKind.GLADIOLA.value and blisters is not None:
        return [c for c in deck.cards if c.kind is CardKind.GLADIOLA and c.blisters == blisters]
    return []


def _only_free(card: object, taken: frozenset[str], deck: Deck) -> tuple[str, ...]:
    """For a FINISH or gladiola read as such but its blisters not, the free cards of its kind
    (none ``taken``) when they all have one blister count (which of them does not change a score;
    film 119's F4, the only FINISH left, its one plaster unseen in a covered strip); else none."""
    kind = getattr(getattr(card, "kind", None), "value", None)
    if getattr(card, "blisters", None) is not None or kind not in (CardKind.FINISH.value, CardKind.GLADIOLA.value):
        return ()
    free = [c for c in deck.cards if c.kind.value == kind and c.id not in taken]
    return tuple(c.id for c in free) if free and len({c.blisters for c in free}) == 1 else ()


def hand_ids(hand: object, deck: Deck, taken: frozenset[str] = frozenset()) -> tuple[str, ...] | None:
    """Card ids for every card of a read row (``hand.cards``), or None when any card is unsure
    or names no free card. ``taken``: ids on the table or already shown."""
    used = set(taken)
    ids: list[str] = []
    for card in getattr(hand, "cards", ()):
        free = [c for c in _candidates(card, deck) if c.id not in used]
        if not free:
            return None
        ids.append(free[0].id)
        used.add(free[0].id)
    return tuple(ids) if ids else None


def next_player(hand_counts: Sequence[int], revealed: Sequence[object | None]) -> int | None:
    """The first player in seat order who holds cards and has not shown them, or None."""
    for player, count in enumerate(hand_counts):
        if count > 0 and (player >= len(revealed) or revealed[player] is None):
            return player
    return None


@dataclass(frozen=True)
class UnreadRow:
    """A shown row whose hand cannot be named yet: ``positions`` (0-based, in the row's order)
    of its ``size`` cards were never read sure, on any of ``frames`` frames; ``quads`` are
    where they lie in the image."""

    player: int
    size: int
    positions: tuple[int, ...]
    quads: tuple[Quad, ...]
    frames: int


@dataclass
class _Track:
    """One row followed over calm frames: its place and size, and per card position the sure
    readings seen (candidate ids -> frames)."""

    player: int
    centre: tuple[float, float]
    size: int
    reach: float
    seen: list[dict[tuple[str, ...], int]]
    frames: int = 0
    last: object = None
    """The row as read on its latest frame."""


def _place(hand: object) -> tuple[tuple[float, float], float] | None:
    """A row's centre in image pixels and how far it may move and still be the same row (a
    quarter of its short side, a card's height), or None without a quad."""
    quad = getattr(hand, "quad", None)
    if not isinstance(quad, Quad):
        return None
    return quad.centroid, PLACE_REACH * min(quad.side_lengths())


PLACE_REACH = 0.25
"""How far (share of a card's height) a row's centre may move between frames and stay one row."""


class HandWatch:
    """Names a shown hand once every card of its row was read sure on ``agree`` calm frames.

    Feed it the rows read on each calm frame with :meth:`see` (``hands``: the rows read in the
    frame; ``view``: the observer's public view; ``revealed``: the hands shown so far, one per
    seat, None where not yet). The watch follows one row (same number of cards, same place) and
    keeps, per card position, the sure readings seen on its frames: a card unread on one frame
    may be read on the next. The hand is named once every position has one sure reading seen on
    :data:`SURE_SEEN` frames (``agree`` if fewer) and the row was seen on ``agree`` frames or
    more; a position ever read sure as two different cards starts the watch again (from the
    frame that contradicted). A row naming a card on the table or already shown is no row of
    this hand (but for one FINISH or gladiola twin, see the module doc). A frame without a
    fitting row changes nothing (the caller starts the watch again when an arm is over the
    table); a row in another place starts it again. Hands are shown in one place, so while a
    player's hand is not named, a row of :data:`OTHER_HAND_CARDS` sure cards none of which was
    seen in that player's row is another player's and not taken.

    A row of as many cards as counted is taken first; otherwise, when the player is the last one
    to show a hand, the one row (no choice between several) whose number is within
    ``RECOUNT_REACH`` of the count, after ``recount_agree`` frames. A row holding a FINISH or
    gladiola logged on the table under its id (see the module doc) also needs
    ``recount_agree`` frames.
    """

    def __init__(self, deck: Deck, agree: int = AGREE, recount_agree: int = RECOUNT_AGREE) -> None:
        if agree < 1:
            raise CompanionError(f"agree: expected at least 1 reading, got {agree}")
        if recount_agree < agree:
            raise CompanionError(f"recount_agree: expected at least agree ({agree}) readings, got {recount_agree}")
        self.deck = deck
        self.agree = agree
        self.recount_agree = recount_agree
        self._track: _Track | None = None
        self._claim: tuple[int, set[str]] | None = None

    @property
    def _count(self) -> int:
        """Frames seen of the row followed (0 without one)."""
        return self._track.frames if self._track is not None else 0

    def unread(self) -> UnreadRow | None:
        """While a row is followed: its cards never read sure on any of its frames (None without
        a row, or when every card was read sure at least once)."""
        track = self._track
        if track is None or track.last is None:
            return None
        cards = tuple(getattr(track.last, "cards", ()))
        missing = tuple(k for k, seen in enumerate(track.seen) if not seen)
        if not missing or len(cards) != track.size:
            return None
        return UnreadRow(track.player, track.size, missing,
                         tuple(getattr(cards[k], "quad") for k in missing), track.frames)

    def reset(self) -> None:
        """Forget the row followed (an arm over the table may move it); the cards seen in the
        waiting player's row are kept (see :meth:`see`)."""
        self._track = None

    def _another_hand(self, player: int, readings: Sequence[tuple[str, ...] | None]) -> bool:
        """Whether a row shows another hand than the one seen before for ``player``: at least
        :data:`OTHER_HAND_CARDS` cards read sure as one card each, none of them seen before."""
        if self._claim is None or self._claim[0] != player:
            return False
        unique = {ids[0] for ids in readings if ids is not None and len(ids) == 1}
        return len(unique) >= OTHER_HAND_CARDS and not unique & self._claim[1]

    def _readings(self, hand: object, taken: frozenset[str],
                  table: frozenset[str] = frozenset()) -> list[tuple[str, ...] | None] | None:
        """Per card, the ids a sure reading names (None: unsure); None for the whole row when a
        sure reading names only cards taken (the row is another one), unless it may be a
        twin logged on the table (:func:`_relabel_options`; at most :data:`RELABEL_MOST`)."""
        out: list[tuple[str, ...] | None] = []
        relabels = 0
        for card in getattr(hand, "cards", ()):
            ids = tuple(c.id for c in _candidates(card, self.deck)) or _only_free(card, taken, self.deck)
            if not ids:
                out.append(None)
                continue
            if all(i in taken for i in ids):
                relabels += 1
                if relabels > RELABEL_MOST or not _relabel_options(ids, taken, table, self.deck):
                    return None
            out.append(ids)
        return out

    def _follows(self, player: int, hand: object) -> bool:
        track, place = self._track, _place(hand)
        if track is None or track.player != player or len(getattr(hand, "cards", ())) != track.size:
            return False
        if place is None:
            return True
        (x, y), _ = place
        return ((x - track.centre[0]) ** 2 + (y - track.centre[1]) ** 2) ** 0.5 <= track.reach

    def _choose(self, player: int, exact: list[tuple[object, list[tuple[str, ...] | None]]],
                other: list[tuple[object, list[tuple[str, ...] | None]]]
                ) -> tuple[object, list[tuple[str, ...] | None]] | None:
        """The row to watch this frame: of the counted size first (the one followed, else the
        best read), else a recount's row (the one followed, else the only one)."""
        for rows in (exact, other):
            followed = [pair for pair in rows if self._follows(player, pair[0])]
            if followed:
                return followed[0]
            if rows is exact and exact:
                return max(exact, key=lambda pair: sum(r is not None for r in pair[1]))
        return other[0] if len(other) == 1 else None

    def see(self, hands: Sequence[object], view: object,
            revealed: Sequence[Sequence[str] | None], laid_by: int | None = None,
            laid_near: int | None = None) -> RevealedHand | None:
        """``laid_by``: the player whose arm laid the row, when their place at the table tells:
        their hand is watched instead of the next one in seat order (a hand the camera could not
        read no longer holds back everyone after it), and a row of theirs read whole overrules
        their count as for the last hand. ``laid_near``: the player whose place the arm was
        nearest to, less clearly: their hand is watched instead when a row holds exactly their
        count (no recount). A row of a count that only one waiting player has is that player's
        hand, after as many readings as a recount, when the seat order's player has no row in
        view or the arm's player has another count (the arm leaving last may be the previous
        player's, taking their own row away)."""
        counts = tuple(getattr(view, "hand_counts", ()))

        def waiting(p: int | None) -> bool:
            return (p is not None and 0 <= p < len(counts) and counts[p] > 0
                    and (p >= len(revealed) or revealed[p] is None))

        player = next_player(counts, revealed)
        sizes = [len(getattr(h, "cards", ())) for h in hands]
        pending = [p for p in range(len(counts)) if waiting(p)]
        # the waiting players whose count only they have and a row in view has
        owners = {p for p in pending if counts[p] in sizes and sum(counts[q] == counts[p] for q in pending) == 1}
        by_arm = waiting(laid_by)
        by_count = False
        if by_arm and counts[laid_by] not in sizes and len(owners) == 1:
            # the arm that left last may have taken the last row away while the next player laid
            # theirs (fresh film 175: the rows of 8 and 5 cards given by the arm to the players
            # before, who held 15 and 8): a row of a count only one waiting player has is theirs
            player, by_arm, by_count = owners.pop(), False, True
        elif by_arm:
            player = laid_by
        elif waiting(laid_near) and counts[laid_near] in sizes:
            player = laid_near
        elif player is not None and counts[player] not in sizes:
            # no row of the seat order's player in view (their hand cannot be read, say): the
            # same, with no arm telling (fresh film 175: the first player's 15 cards never read
            # whole held back the next players' rows)
            others = owners - {player}
            if len(others) == 1 and not (waiting(laid_near) and laid_near not in others):
                player, by_count = others.pop(), True
        if player is None or not getattr(view, "over", False):
            self._track, self._claim = None, None
            return None
        on_table = frozenset(view.on_table()) if hasattr(view, "on_table") else frozenset()
        taken = on_table | {c for h in revealed if h is not None for c in h}
        # a row of another size than counted is taken for the last hand, or from the player's own arm
        last = by_arm or len(pending) == 1
        exact: list[tuple[object, list[tuple[str, ...] | None]]] = []
        other: list[tuple[object, list[tuple[str, ...] | None]]] = []
        for hand in hands:
            size = len(getattr(hand, "cards", ()))
            if size == 0 or (size != counts[player] and (not last or abs(size - counts[player]) > RECOUNT_REACH)):
                continue
            readings = self._readings(hand, taken, on_table)
            if readings is None or self._another_hand(player, readings):
                continue
            if size == counts[player]:
                exact.append((hand, readings))
            elif all(r is not None for r in readings) or self._follows(player, hand):
                other.append((hand, readings))  # a recount starts from a row read whole
        chosen = self._choose(player, exact, other)
        if chosen is None:
            return None  # nothing of this hand in view: keep what was seen
        hand, readings = chosen
        if not self._follows(player, hand):
            place = _place(hand)
            centre, reach = place if place is not None else ((0.0, 0.0), 0.0)
            self._track = _Track(player, centre, len(readings), reach, [{} for _ in readings])
        track = self._track
        assert track is not None
        for seen, ids in zip(track.seen, readings):
            if ids is not None and any(known != ids for known in seen):
                # read sure as two different cards: which is right is not known, start again
                self._track = _Track(track.player, track.centre, track.size, track.reach,
                                     [{} if r is None else {r: 1} for r in readings], 1, hand)
                return None
        for seen, ids in zip(track.seen, readings):
            if ids is not None:
                seen[ids] = seen.get(ids, 0) + 1
        track.frames += 1
        track.last = hand
        if self._claim is None or self._claim[0] != player:
            self._claim = (player, set())
        self._claim[1].update(ids[0] for ids in readings if ids is not None and len(ids) == 1)
        need = self.agree if track.size == counts[player] and not by_count else self.recount_agree
        if track.frames < need or any(not seen or max(seen.values()) < min(self.agree, SURE_SEEN)
                                      for seen in track.seen):
            return None
        assigned = _assign([next(iter(seen)) for seen in track.seen], taken, on_table, self.deck)
        if assigned is None:
            return None
        cards, relabels = assigned
        if relabels and track.frames < self.recount_agree:
            return None  # a card of the table in the hand: as many readings as a recount
        self._track, self._claim = None, None
        return RevealedHand(player, cards, self.deck.blisters(cards), counts[player], relabels)


OTHER_HAND_CARDS = 3
"""Cards read sure (each naming one card) a row needs, none of them seen in the waiting player's
row before, to be taken as another player's hand: when a hand was never named, the next one
laid in its place is not taken for it (a whole hand shares no card with another)."""
SURE_SEEN = 2
"""Frames a card position needs its sure reading on (fewer when ``agree`` is; the row itself
needs ``agree`` frames)."""


def _relabel_options(choice: Sequence[str], taken: frozenset[str] | set[str], table: frozenset[str],
                     deck: Deck) -> list[tuple[str, str]]:
    """For a position whose options ``choice`` are all taken: (option lying on the table, free
    card of the same kind to take it for) pairs, best first; empty when no relabel fits (not a
    FINISH or gladiola, no option on the table, no free card of the kind). A card covered
    while it lay on the table shows fewer blisters (the films' three: 4 read as 1, 3 as 1, 2
    as 0), so free cards with more blisters than the option come first, most blisters first.
    Which twin it is does not change any score: table cards count for no one."""
    pairs: list[tuple[tuple[bool, int, str], str, str]] = []
    for option in choice:
        card = deck.get(option)
        if card is None or card.kind not in RELABEL_KINDS or option not in table:
            continue
        for twin in deck.of_kind(card.kind):
            if twin.id not in taken:
                rank = (twin.blisters <= card.blisters, -twin.blisters, twin.id)
                pairs.append((rank, option, twin.id))
    return [(option, twin) for _, option, twin in sorted(pairs)]


def _assign(options: Sequence[tuple[str, ...]], taken: frozenset[str], table: frozenset[str] = frozenset(),
            deck: Deck | None = None) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None:
    """One free id per position from its options (each id once) and the relabels that takes,
    or None. A position whose options are all taken is named by an option lying on the table,
    which is relabelled (:func:`_relabel_options`): at most :data:`RELABEL_MOST` times, and
    only when :data:`RELABEL_NAMED` positions or more per relabel were named free."""
    used = set(taken)
    ids: list[str | None] = []
    for choice in options:
        free = [i for i in choice if i not in used]
        ids.append(free[0] if free else None)
        used.update(free[:1])
    stuck = [k for k, cid in enumerate(ids) if cid is None]
    if stuck and (deck is None or len(stuck) > RELABEL_MOST or len(ids) - len(stuck) < RELABEL_NAMED * len(stuck)):
        return None
    relabels: list[tuple[str, str]] = []
    for k in stuck:
        assert deck is not None
        fits = [(option, twin) for option, twin in _relabel_options(options[k], used, table, deck)
                if option not in ids]
        if not fits:
            return None
        option, twin = fits[0]
        ids[k] = option
        relabels.append((option, twin))
        used.add(twin)
    return tuple(i for i in ids if i is not None), tuple(relabels)
