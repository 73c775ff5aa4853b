"""The camera move source: telling an arm over the table from a card being put down."""

from __future__ import annotations

import cv2
import numpy as np

from companion.tracking import Notice, Zones
from companion.vision_moves import ROW_STILL_SECONDS, VisionMoves


class NoReader:
    def read_frame(self, image):  # pragma: no cover - not used by these tests
        raise AssertionError("not called")


def table() -> np.ndarray:
    image = np.full((360, 640, 3), (150, 170, 190), np.uint8)
    cv2.rectangle(image, (100, 100), (160, 190), (235, 235, 235), -1)
    return image


def calm_source(frames: int = 3, after_end: bool = False) -> tuple[VisionMoves, np.ndarray]:
    """A source that has seen the calm table for a few frames (timed from 0 when ``after_end``),
    and that table."""
    source = VisionMoves("gladiola", reader=NoReader())
    calm = table()
    for k in range(frames):
        source._hand_over_table(calm, now=0.1 * k if after_end else None)
    return source, calm


def test_an_arm_from_the_edge_is_a_hand_but_a_new_card_is_not():
    source = VisionMoves("gladiola", reader=NoReader())
    calm = table()
    assert [source._hand_over_table(calm) for _ in range(5)] == [False] * 5
    with_card = calm.copy()
    cv2.rectangle(with_card, (400, 120), (460, 210), (240, 240, 240), -1)  # put down mid-table
    assert source._hand_over_table(with_card) is False
    with_arm = with_card.copy()
    cv2.rectangle(with_arm, (300, 200), (640, 260), (120, 150, 210), -1)  # reaches in from the right
    assert source._hand_over_table(with_arm) is True
    # while the arm stays, the table model does not learn it
    assert all(source._hand_over_table(with_arm) for _ in range(30))
    # gone again: calm; the new card has become part of the table
    assert [source._hand_over_table(with_card) for _ in range(3)] == [False] * 3


def test_an_arm_near_the_colour_of_the_table_is_a_hand():
    # pale skin on light wood: the arm differs from the table by about 20 in one channel only
    source, calm = calm_source(5)
    with_arm = calm.copy()
    cv2.rectangle(with_arm, (280, 200), (330, 360), (170, 180, 193), -1)  # from the bottom edge
    assert source._hand_over_table(with_arm) is True


def test_slow_light_changes_are_not_a_hand():
    source = VisionMoves("gladiola", reader=NoReader())
    base = table().astype(np.float32)
    flags = [source._hand_over_table(np.clip(base * (1 + 0.004 * k), 0, 255).astype(np.uint8)) for k in range(60)]
    assert not any(flags)


def test_after_the_end_a_row_laid_against_the_edge_becomes_table_but_a_moving_arm_does_not():
    source, calm = calm_source(after_end=True)
    row = calm.copy()
    cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)  # a row reaching the bottom edge
    times = [1.0 + 0.1 * k for k in range(15)]
    flags = [source._hand_over_table(row, now=t) for t in times]
    # an arm first (the region has to stay put for a while), then calm for good
    assert all(f for f, t in zip(flags, times) if t < 1.0 + ROW_STILL_SECONDS - 0.05)
    assert not any(f for f, t in zip(flags, times) if t > 1.0 + ROW_STILL_SECONDS + 0.15)
    assert source.arm is None
    # an arm sweeping in from the right never stays put long enough
    moving = []
    for k in range(15):
        frame = row.copy()
        cv2.rectangle(frame, (300 - 12 * k, 150), (640, 210), (120, 150, 210), -1)
        moving.append(source._hand_over_table(frame, now=3.0 + 0.1 * k))
    assert all(moving)


def test_during_the_game_a_region_at_the_edge_stays_a_hand():
    source, calm = calm_source()
    row = calm.copy()
    cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)
    assert all(source._hand_over_table(row) for _ in range(20))


class OverView:
    players, current_player, over, hand_counts = 3, None, True, (0, 2, 0)


class NoMoves:
    zones = drawn_zones = Zones()

    def __init__(self):
        self.told = []

    def update(self, *args, **kwargs):
        return []

    def notices(self):
        return tuple(self.told)

    def tell(self, frame_index, timestamp, message):
        self.told.append(Notice(frame_index, timestamp, message))


class Blank:
    def read_frame(self, image):
        return None


def arms_after_the_end() -> VisionMoves:
    """A source after the game's end that only looks at the arms (no reader, tracker or hands)."""
    source = VisionMoves("gladiola", view=lambda: OverView(), reader=Blank(), tracker=NoMoves())
    source._watch = None
    return source


def test_the_frames_a_row_lay_still_against_the_edge_are_no_arm_of_whoever_laid_it():
    from companion.sources import Frame

    source = arms_after_the_end()
    calm = table()
    row = calm.copy()
    cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)  # laid against the bottom edge
    frames = [calm] * 3
    for k in range(4):  # an arm from the left edge, moving as it lays the row
        arm = row.copy()
        cv2.rectangle(arm, (0, 180 + 10 * k), (300 + 20 * k, 230 + 10 * k), (120, 150, 210), -1)
        frames.append(arm)
    frames += [row] * 10
    for i, image in enumerate(frames):
        source.moves(Frame(i, 0.1 * i, image))
    assert source.hand is False
    # the arm stretches kept all come in from the left edge, none from the row's bottom edge
    entries = [e for stretch in source._arms for e in stretch]
    assert entries and all(e.x == 0.0 for e in entries)


def test_a_hand_named_with_a_table_twin_comes_after_its_relabel_and_recount(monkeypatch):
    import vision.hand
    from companion.games import gladiola
    from companion.sources import Frame
    from companion.tracking.reveal import RevealedHand

    class Watch:
        """Names player 1's hand (shown with 3 cards, counted 2) holding the table's G1."""

        def __init__(self):
            self.seen = 0

        def reset(self):
            pass

        def unread(self):
            return None

        def see(self, rows, view, revealed, laid_by=None, laid_near=None):
            self.seen += 1
            if self.seen != 2:
                return None
            return RevealedHand(1, ("W05", "W09", "G1"), 0, 2, (("G1", "G2"),))

    configs = []
    monkeypatch.setattr(vision.hand, "read_hands", lambda image, config: configs.append(config) or [])
    source = VisionMoves("gladiola", view=lambda: OverView(), reader=Blank(), tracker=NoMoves())
    source._watch = Watch()
    found = [item for i in range(6) for item in source.moves(Frame(i, 0.1 * i, table()))]
    assert [item.action for item in found] == [gladiola.Relabel("G1", "G2"), gladiola.Recount(1, 3)]
    assert [hand.cards for hand in source.take_reveals()] == [("W05", "W09", "G1")]
    # the rows are read knowing each walk card's blisters (a covered card's count may settle its value)
    deck = gladiola.load_deck()
    walks = {c.value: c.blisters for c in deck.cards if c.kind is gladiola.CardKind.WALK}
    assert configs and dict(configs[0].walk_blisters) == walks
    # ... and the blister counts a FINISH may carry (a count outside them is print, not plasters)
    assert configs[0].finish_blisters == {c.blisters for c in deck.cards if c.kind is gladiola.CardKind.FINISH}


def test_a_row_whose_edge_flickers_at_the_arm_threshold_still_lies_still():
    """Beside the row, a strip of the table differs from the calm table by about the arm
    threshold and comes and goes from the region frame by frame while the picture stands still
    (film 138): the row still comes to rest."""
    source, calm = calm_source(after_end=True)
    frames = []
    for k in range(15):
        row = calm.copy()
        cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)
        # 3 grey levels either side of the threshold
        lift = 19 if k % 2 else 13
        row[300:360, 520:640] = np.clip(np.array(calm[0, 0], np.int32) + lift, 0, 255).astype(np.uint8)
        frames.append(row)
    flags = [source._hand_over_table(f, now=1.0 + 0.1 * k) for k, f in enumerate(frames)]
    assert flags[0] and not any(flags[-8:])


def test_a_row_that_drops_out_of_the_region_for_a_frame_lies_still_when_it_shows_again():
    """A pale row a little over the arm threshold: on one frame none of it is (film 138: the row
    left the region for a frame as the calm table learnt it, then came back and was taken for
    an arm at the bottom edge, the place of the player before)."""
    source, calm = calm_source(after_end=True)

    def row(lift: int) -> np.ndarray:
        image = calm.copy()
        image[300:360, 150:520] = np.clip(np.array(calm[0, 0], np.int32) + lift, 0, 255).astype(np.uint8)
        return image

    flags = [source._hand_over_table(row(25), now=1.0 + 0.1 * k) for k in range(5)]
    assert flags[0] and not flags[-1]
    assert source._hand_over_table(row(8), now=1.5) is False and source.arm is None  # under the threshold
    assert source._hand_over_table(row(25), now=1.6) is False and source.arm is None


def test_an_arm_joined_to_a_row_lying_still_enters_where_the_row_does_not():
    from companion.vision_moves import _border_entry

    mask = np.zeros((90, 160), bool)
    mask[70:90, 40:120] = True   # a row against the bottom edge
    mask[30:40, 0:60] = True     # an arm from the left edge
    mask[35:75, 50:60] = True    # reaching down to the row
    row = np.zeros_like(mask)
    row[70:90, 40:120] = True
    assert _border_entry(mask).y > 0.7  # the mean of both crossings lies between them
    entry = _border_entry(mask, row)
    assert entry.x == 0.0 and abs(entry.y - 34.5 / 89) < 0.01
    # a region all of whose border pixels lay still keeps them all
    assert _border_entry(row, row).y == 1.0


def test_an_arm_reaching_a_row_lying_still_keeps_all_its_frames():
    """A row lies still against the bottom edge; an arm comes in from the left and its last frame
    reaches down to the row (one region with it, crossing the border at the left, the row's
    pixels left out); the row's next rest begins with that frame: the frames taken back as the
    row's are those at the row's place only, not the arm's last (film 138: player 1's arm from
    the left, taken back with the row's frames, left an earlier arm the last one)."""
    from companion.sources import Frame

    source = arms_after_the_end()
    calm = table()
    row = calm.copy()
    cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)
    frames = [calm] * 3 + [row] * 6
    for k in range(4):
        arm = row.copy()
        cv2.rectangle(arm, (0, 180 + 10 * k), (300 + 20 * k, 230 + 10 * k), (120, 150, 210), -1)
        if k == 3:
            cv2.rectangle(arm, (330, 230), (380, 300), (120, 150, 210), -1)  # the hand on the row
        frames.append(arm)
    frames += [row] * 10
    for i, image in enumerate(frames):
        source.moves(Frame(i, 0.1 * i, image))
    assert len(source._arms[-1]) == 4 and all(e.x == 0.0 for e in source._arms[-1])


def test_a_shown_row_with_cards_never_read_asks_to_be_spread_and_marks_them(monkeypatch):
    import vision.hand
    from companion.sources import Frame
    from companion.vision_moves import SPREAD_COLOUR, SPREAD_SECONDS
    from vision.hand import HandCard, ShownHand
    from vision.types import CardKind, FrameResult, Quad

    def quad(x0: float) -> Quad:
        return Quad(((x0, 100.0), (x0 + 60.0, 100.0), (x0 + 60.0, 190.0), (x0, 190.0)))

    hidden = [HandCard(quad(300.0), 20.0, False, CardKind.GLADIOLA, None, None)]  # plasters unseen
    rows = lambda: [ShownHand(Quad(((240.0, 100.0), (360.0, 100.0), (360.0, 190.0), (240.0, 190.0))),
                              (HandCard(quad(240.0), 20.0, False, CardKind.WALK, 5, None), hidden[0]))]
    monkeypatch.setattr(vision.hand, "read_hands", lambda image, config: rows())
    class Empty:
        def read_frame(self, image):
            return FrameResult(image.shape[1], image.shape[0])

    source = VisionMoves("gladiola", view=lambda: OverView(), reader=Empty(), tracker=NoMoves(),
                         names=("Ann", "Ben", "Cy"))
    fps = 15
    asked_at = None
    for i in range(int(SPREAD_SECONDS * fps) + 10):
        source.moves(Frame(i, i / fps, table()))
        notes = source.take_notices()
        if notes:
            assert asked_at is None and i / fps >= SPREAD_SECONDS
            asked_at = i
            assert notes == ["Ben's shown hand: 1 card of 2 cannot be read (marked on the camera image): "
                             "spread the row so that every card's km and plasters show"]
    assert asked_at is not None  # asked once, not on every frame
    marked = source.annotate(Frame(i, i / fps, table()))
    assert tuple(int(v) for v in marked[145, 300]) == SPREAD_COLOUR  # the unread card's left side
    assert tuple(int(v) for v in marked[145, 240]) != SPREAD_COLOUR  # the card read is not marked
    # spread: the gladiola's plasters show, the hand is named and the mark goes
    hidden[0] = HandCard(quad(300.0), 20.0, False, CardKind.GLADIOLA, None, 4)
    for k in range(i + 1, i + 10):
        source.moves(Frame(k, k / fps, table()))
    assert [hand.player for hand in source.take_reveals()] == [1]
    assert source.take_notices() == []
    assert tuple(int(v) for v in source.annotate(Frame(k, k / fps, table()))[145, 300]) != SPREAD_COLOUR


def test_a_card_put_in_from_the_next_players_place_counts_in_a_wrong_card_missed_before_it():
    # Valais*Wallis, four players: once the places are learnt from the arms that put cards in,
    # a card put in from the place of the player after the one the count has means that player
    # put a wrong card in and took it away unseen (fresh film 199): a MissedWrong goes first.
    from companion.games import valais
    from companion.session import MoveItem
    from companion.tracking.seats import ArmEntry

    places = [ArmEntry(0.3, 1.0), ArmEntry(0.0, 0.4), ArmEntry(0.5, 0.0), ArmEntry(1.0, 0.5)]
    source = VisionMoves("valais", reader=NoReader())
    placed = valais.PlaceSeen(valais.SeenCard(7, valais.CardDate(1900)), 0)

    def put(current: int, entry: ArmEntry, hands: tuple[int, ...] = (3, 3, 3, 3)) -> list:
        view = valais.PublicView(players=4, timeline=(), hand_counts=hands, stack_size=20, discard_size=0,
                                 set_aside=0, current_player=current, round_no=2, first_player=0,
                                 players_in=(0, 1, 2, 3), step=valais.Step.PLACE, pending_joker=None,
                                 recipients=(), revealed=((),) * 4, over=False, winners=())
        source._arms = [[entry]]
        return [item.action for item in source._whose_card([MoveItem(5, 0.5, placed, ())], view)]

    for _ in range(2):  # every player puts a card in from their place, as counted: nothing to add
        for player, place in enumerate(places):
            assert put(player, place) == [placed]
    # player 2 to play by the count; the card comes in along the row from player 3's side
    assert put(2, ArmEntry(0.95, 0.62)) == [valais.MissedWrong(), placed]
    # from two places on (two moves missed, or a slip of the places): left as it is
    assert put(2, places[0]) == [placed]
    # from far off every place: left as it is
    assert put(2, ArmEntry(0.7, 0.7)) == [placed]
    # the round's last player by the count, the card from the first player's place: the next
    # round's first move, when no hand is empty (the round's end changes nothing) ...
    assert put(3, places[0]) == [valais.MissedWrong(), placed]
    # ... but with a hand empty the round's end may end the game or put players out: left as it is
    assert put(3, places[0], hands=(3, 0, 3, 3)) == [placed]
