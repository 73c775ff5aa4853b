"""The camera move source: telling an arm over the table from a card being put down."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision_moves import VisionMoves


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


def test_slow_light_changes_are_not_a_hand():
    source = VisionMoves("gladiola", reader=NoReader())
    base = table().astype(np.float32)
    flags = [source._hand_over_table(np.clip(base * (1 + 0.004 * k), 0, 255).astype(np.uint8)) for k in range(60)]
    assert not any(flags)
