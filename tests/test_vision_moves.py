"""The camera move source: telling an arm over the table from a card being put down."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision_moves import ROW_STILL_SECONDS, VisionMoves


class NoReader:
    def read_frame(self, image):  # pragma: no cover - not used by these tests
        raise AssertionError("not called")


def table() -> np.ndarray:
    image = np.full((360, 640, 3), (150, 170, 190), np.uint8)
    cv2.rectangle(image, (100, 100), (160, 190), (235, 235, 235), -1)
    return image


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
    source = VisionMoves("gladiola", reader=NoReader())
    calm = table()
    for _ in range(5):
        source._hand_over_table(calm)
    with_arm = calm.copy()
    cv2.rectangle(with_arm, (280, 200), (330, 360), (170, 180, 193), -1)  # from the bottom edge
    assert source._hand_over_table(with_arm) is True


def test_slow_light_changes_are_not_a_hand():
    source = VisionMoves("gladiola", reader=NoReader())
    base = table().astype(np.float32)
    flags = [source._hand_over_table(np.clip(base * (1 + 0.004 * k), 0, 255).astype(np.uint8)) for k in range(60)]
    assert not any(flags)


def test_after_the_end_a_row_laid_against_the_edge_becomes_table_but_a_moving_arm_does_not():
    source = VisionMoves("gladiola", reader=NoReader())
    calm = table()
    for k in range(3):
        source._hand_over_table(calm, now=0.1 * k)
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
    source = VisionMoves("gladiola", reader=NoReader())
    calm = table()
    for _ in range(3):
        source._hand_over_table(calm)
    row = calm.copy()
    cv2.rectangle(row, (150, 300), (520, 360), (240, 240, 240), -1)
    assert all(source._hand_over_table(row) for _ in range(20))


class OverView:
    players, current_player, over, hand_counts = 3, None, True, (0, 2, 0)


class NoMoves:
    def update(self, *args, **kwargs):
        return []


def test_the_frames_a_row_lay_still_against_the_edge_are_no_arm_of_whoever_laid_it():
    from companion.sources import Frame

    class Blank:
        def read_frame(self, image):
            return None

    source = VisionMoves("gladiola", view=lambda: OverView(), reader=Blank(), tracker=NoMoves())
    source._watch = None  # only the arms are looked at here
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

    class Blank:
        def read_frame(self, image):
            return None

    class Watch:
        """Names player 1's hand (shown with 3 cards, counted 2) holding the table's G1."""

        def __init__(self):
            self.seen = 0

        def reset(self):
            pass

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
