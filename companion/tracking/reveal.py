"""Via Gladiola's end of game: a hand shown in a row, read by the camera, as card ids.

:func:`hand_ids` turns a :class:`vision.hand.ShownHand` into card ids of the deck: a walk card
by its km value (each value is printed on one card only), a FINISH or gladiola card by its kind
and blister count (any such card not yet on the table or shown will do for scoring). One card
whose identity is unsure makes the whole hand unsure: no ids, keep watching.

:func:`next_player` says whose hand a row is: hands are shown in seat order, by the players who
hold cards and have not shown them yet. :class:`HandWatch` asks for a few calm readings that
agree before it names a hand. The table overrules the count for the last hand to be shown: a
row read whole and sure with another number of cards than the companion counted (a move it
missed or gave to another player) is named too, after more readings agree; :class:`RevealedHand`
then says what was counted, and the caller applies a
:class:`companion.games.gladiola.Recount` before revealing it. Only the last hand: while other
players are still to show theirs, the count is what tells one player's row from the next one's
(a row whose reading was missed would otherwise give the next player's cards to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.errors import CompanionError
from companion.games.gladiola import Card, CardKind, Deck

AGREE = 3
"""How many readings of calm frames in a row must give the same ids before a hand is named."""
RECOUNT_AGREE = 5
"""As :data:`AGREE`, for a row with another number of cards than the companion counted."""
RECOUNT_REACH = 3
"""Largest difference between a row's number of cards and the companion's count for the row to
be taken as the hand (a bigger one is more likely a pile or a part of a row than a miscount)."""


@dataclass(frozen=True)
class RevealedHand:
    """The hand ``player`` showed, as card ids of the deck, with its blister total; ``counted``:
    the cards the companion counted for the player (None: as many as shown)."""

    player: int
    cards: tuple[str, ...]
    blisters: int
    counted: int | None = None

    @property
    def recounted(self) -> bool:
        return self.counted is not None and self.counted != len(self.cards)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"player": self.player, "cards": list(self.cards), "blisters": self.blisters}
        if self.recounted:
            out["counted"] = self.counted
        return out


def _candidates(card: object, deck: Deck) -> list[Card]:
    """The deck's cards a read card can be (empty when it was not read well enough)."""
    kind = getattr(getattr(card, "kind", None), "value", None)
    value, blisters = getattr(card, "value", None), getattr(card, "blisters", None)
    if kind == CardKind.WALK.value and value is not None:
        found = [c for c in deck.cards if c.kind is CardKind.WALK and c.value == value]
        # a blister count read beside the value must agree with the card it names
        return [c for c in found if blisters is None or c.blisters == blisters]
    if kind == CardKind.FINISH.value and blisters is not None:
        return [c for c in deck.cards if c.kind is CardKind.FINISH and c.blisters == blisters]
    if kind == CardKind.GLADIOLA.value and blisters is not None:
        return [c for c in deck.cards if c.kind is CardKind.GLADIOLA and c.blisters == blisters]
    return []


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


class HandWatch:
    """Names a shown hand once ``agree`` readings in a row give the same ids for it.

    Feed it one row reading per calm frame with :meth:`see` (``hands``: the rows read in the
    frame; ``view``: the observer's public view; ``revealed``: the hands shown so far, one per
    seat, None where not yet). A frame without a row, or with a row that does not fit the next
    player's hand, starts the count again. A row of as many cards as counted is taken first;
    otherwise, when the player is the last one to show a hand, the one row (no choice between
    several) whose cards are all sure and whose number is within ``RECOUNT_REACH`` of the count,
    after ``recount_agree`` readings.
    """

    def __init__(self, deck: Deck, agree: int = AGREE, recount_agree: int = RECOUNT_AGREE) -> None:
        if agree < 1:
            raise CompanionError(f"agree: expected at least 1 reading, got {agree}")
        if recount_agree < agree:
            raise CompanionError(f"recount_agree: expected at least agree ({agree}) readings, got {recount_agree}")
        self.deck = deck
        self.agree = agree
        self.recount_agree = recount_agree
        self._last: tuple[int, tuple[str, ...]] | None = None
        self._count = 0

    def reset(self) -> None:
        self._last, self._count = None, 0

    def see(self, hands: Sequence[object], view: object,
            revealed: Sequence[Sequence[str] | None]) -> RevealedHand | None:
        counts = tuple(getattr(view, "hand_counts", ()))
        player = next_player(counts, revealed)
        if player is None or not getattr(view, "over", False):
            self.reset()
            return None
        on_table = view.on_table() if hasattr(view, "on_table") else frozenset()
        taken = frozenset(on_table) | {c for h in revealed if h is not None for c in h}
        last = sum(1 for p, n in enumerate(counts) if n > 0 and (p >= len(revealed) or revealed[p] is None)) == 1
        exact, other = [], []
        for hand in hands:
            size = len(getattr(hand, "cards", ()))
            if size == 0 or (size != counts[player] and (not last or abs(size - counts[player]) > RECOUNT_REACH)):
                continue
            ids = hand_ids(hand, self.deck, taken)
            if ids is not None:
                (exact if size == counts[player] else other).append(ids)
        if exact:
            found = (player, exact[0])
        elif len(other) == 1:
            found = (player, other[0])
        else:
            self.reset()
            return None
        if found == self._last:
            self._count += 1
        else:
            self._last, self._count = found, 1
        cards = found[1]
        if self._count < (self.agree if len(cards) == counts[player] else self.recount_agree):
            return None
        self.reset()
        return RevealedHand(player, cards, self.deck.blisters(cards), counts[player])
