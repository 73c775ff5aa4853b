"""``--profile`` with an enrolled deck: ``score`` takes values and blisters from the enrollment."""

from __future__ import annotations

import json

import cv2
import numpy as np

from calibration.deck import DeckGame, enroll
from companion.cli import main
from tests.calibration.test_deck import H, LABELS, W, face


def table_photo(labels, angles) -> np.ndarray:
    """Cards of the own design lying apart on a dark table, each turned by its angle."""
    photo = np.full((720, 1280, 3), (45, 60, 80), np.uint8)
    src = np.float32([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    for k, (label, angle) in enumerate(zip(labels, angles)):
        centre = np.array([240 + 400 * k, 360], np.float32)
        turn = cv2.getRotationMatrix2D((0, 0), -angle, 1.0)[:, :2]
        corners = ((src - [W / 2, H / 2]) * 1.25) @ turn.T + centre
        matrix = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
        card = cv2.warpPerspective(face(label), matrix, (1280, 720))
        mask = cv2.warpPerspective(np.full((H, W), 255, np.uint8), matrix, (1280, 720))
        photo[mask > 127] = card[mask > 127]
    return cv2.GaussianBlur(photo, (0, 0), 0.8)


def test_score_with_an_enrolled_deck_reads_the_users_cards(tmp_path, capsys):
    profile = tmp_path / "profile"
    enroll(DeckGame.GLADIOLA, [(lab, face(lab)) for lab in LABELS]).save(profile)
    shown = [LABELS[0], LABELS[3], LABELS[6]]  # W03 (1 blister), W33 (4), F3 (2)
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), table_photo(shown, [8, -12, 176]))

    assert main(["score", str(photo), "--game", "gladiola", "--profile", str(profile), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    read = sorted((c["kind"], c["value"], c["blisters"]) for c in data["cards"])
    assert read == sorted((lab.kind.value, lab.value, lab.blisters) for lab in shown)
    assert data["blisters"] == 1 + 4 + 2 and data["count"] == 3
    upside_down = next(c for c in data["cards"] if c["kind"] == "finish")
    xs, ys = zip(*upside_down["corners"])
    assert ys[0] > np.mean(ys), "the card lies upside down: its own top-left corner is at the bottom"


def test_profile_folder_without_anything_is_an_error(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), table_photo([LABELS[0]], [0]))
    assert main(["score", str(photo), "--game", "gladiola", "--profile", str(empty)]) == 2
    assert "no calibration profile here" in capsys.readouterr().err
