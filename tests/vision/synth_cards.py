"""Synthetic table scenes for the vision tests: cards warped by a homography onto backgrounds.

Every scene returns the true corner positions (the projected corners of the card rectangle,
i.e. the virtual corners of a rounded card), so detector accuracy can be measured in pixels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CARD_W, CARD_H = 250, 360


def background(kind: str, width: int = 1280, height: int = 720, seed: int = 0) -> np.ndarray:
    """A table surface: ``light``, ``dark``, ``wood``, ``pattern`` or ``cloth`` (white cloth)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "light":
        img = np.full((height, width, 3), (170, 180, 190), np.float32)
    elif kind == "dark":
        img = np.full((height, width, 3), (45, 40, 38), np.float32)
    elif kind == "wood":
        grain = np.sin(yy / 9.0 + 3.0 * np.sin(xx / 150.0)) * 0.5 + 0.5
        img = np.stack([40 + 50 * grain, 70 + 70 * grain, 110 + 90 * grain], axis=2)
    elif kind == "pattern":
        checks = ((xx // 40 + yy // 40) % 2).astype(np.float32)
        img = np.stack([60 + 120 * checks, 90 + 40 * checks, 150 - 60 * checks], axis=2)
    elif kind == "cloth":
        img = np.full((height, width, 3), (218, 222, 225), np.float32)
    else:
        raise ValueError(f"unknown background {kind!r}")
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def card_face(colour: tuple[int, int, int] = (250, 250, 250), seed: int = 0) -> np.ndarray:
    """A card image with rounded corners outside the card left black (masked out later)."""
    face = np.full((CARD_H, CARD_W, 3), colour, np.uint8)
    cv2.rectangle(face, (30, 50), (CARD_W - 30, CARD_H - 50), (40, 60, 170), 3)
    cv2.putText(face, "7", (8, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 3)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        c = (int(rng.integers(60, CARD_W - 60)), int(rng.integers(90, CARD_H - 90)))
        cv2.circle(face, c, 18, (int(rng.integers(0, 200)), 80, 40), -1)
    return face


def card_mask(radius: int = 18) -> np.ndarray:
    """White where the rounded-rectangle card is."""
    mask = np.zeros((CARD_H, CARD_W), np.uint8)
    cv2.rectangle(mask, (radius, 0), (CARD_W - 1 - radius, CARD_H - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (CARD_W - 1, CARD_H - 1 - radius), 255, -1)
    for cx, cy in ((radius, radius), (CARD_W - 1 - radius, radius), (radius, CARD_H - 1 - radius), (CARD_W - 1 - radius, CARD_H - 1 - radius)):
        cv2.circle(mask, (cx, cy), radius, 255, -1)
    return mask


def card_quad(center: tuple[float, float], height_px: float, angle_deg: float, tilt_deg: float = 0.0) -> np.ndarray:
    """Image corners (TL, TR, BR, BL of the card) of a card of the given on-screen height.

    ``tilt_deg`` foreshortens the card's vertical axis as a camera tilted about the card's
    horizontal axis would, and narrows its far edge (a simple perspective model).
    """
    h = height_px
    w = h * CARD_W / CARD_H
    t = math.radians(tilt_deg)
    fh = h * math.cos(t)
    shrink = 1.0 - 0.35 * math.sin(t)
    local = np.array([[-w / 2 * shrink, -fh / 2], [w / 2 * shrink, -fh / 2], [w / 2, fh / 2], [-w / 2, fh / 2]])
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return local @ rot.T + np.array(center)


def paste_card(scene: np.ndarray, quad: np.ndarray, face: np.ndarray | None = None, shadow: bool = True) -> None:
    """Warp a card (rounded corners, optional soft shadow) onto ``scene`` at ``quad`` in place."""
    face = card_face() if face is None else face
    src = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (scene.shape[1], scene.shape[0])
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(card_mask(), m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    if shadow:
        sh = cv2.GaussianBlur(alpha, (0, 0), 4)
        sh = np.roll(sh, (4, 4), axis=(0, 1))
        scene[:] = (scene.astype(np.float32) * (1 - 0.35 * sh[..., None])).astype(np.uint8)
    out = scene.astype(np.float32) * (1 - alpha[..., None]) + warped.astype(np.float32) * alpha[..., None]
    scene[:] = np.clip(out, 0, 255).astype(np.uint8)


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance after the best cyclic matching of the two corner lists."""
    best = math.inf
    for cand in (found, found[::-1]):
        for shift in range(4):
            d = np.linalg.norm(np.roll(cand, shift, axis=0) - truth, axis=1).max()
            best = min(best, float(d))
    return best
