"""``companion calibrate``: marker sheets, table geometry and the camera lens.

    companion calibrate markers --out FILE.png [--paper a4] [--marker-mm 40] [--dpi 300]
                                [--board SPEC]
    companion calibrate table IMAGE|--source S [--sheet LAYOUT.json] [--profile DIR] [--json]
    companion calibrate table IMAGE --points x1,y1,...,x4,y4 --size WxH [--profile DIR]
    companion calibrate table IMAGE --card-size gladiola|WxH [--card x1,y1,...] [--profile DIR]
    companion calibrate camera --images DIR|--source S --board SPEC [--profile DIR] [--json]
    companion calibrate deck --game gladiola|valais --images DIR [--labels CSV] [--profile DIR] [--json]

``table`` writes the ``table`` part of the profile, ``camera`` the ``lens`` part; the other part
is kept. When the profile already has a lens, ``table`` undistorts the image first. ``deck``
learns the user's own deck from one upright photo per card (Valais*Wallis: the event side) and
writes ``deck-GAME.json`` and ``deck-GAME.npz`` next to the profile (see :mod:`calibration.deck`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from calibration.errors import CalibrationError


def _floats(text: str, count: int, what: str) -> list[float]:
    try:
        values = [float(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise CalibrationError(f"expected {what} as {count} comma-separated numbers, got {text!r}") from None
    if len(values) != count:
        raise CalibrationError(f"expected {what} as {count} comma-separated numbers, got {len(values)} in {text!r}")
    return values


def _emit(args: argparse.Namespace, record: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        json.dump(record, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(text)


def run_markers(args: argparse.Namespace) -> int:
    from calibration.markers import ArucoDictionary, MarkerSheet, Paper, write_sheet

    out = Path(args.out)
    if args.board:
        from PIL import Image

        from calibration.lens import BoardSpec

        spec = BoardSpec.parse(args.board)
        if out.suffix.lower() != ".png":
            raise CalibrationError(f"{out}: expected a .png output path, got suffix {out.suffix or '(none)'!r}")
        if not out.parent.is_dir():
            raise CalibrationError(f"{out}: expected an existing output directory, {out.parent} does not exist")
        Image.fromarray(spec.render(args.dpi / 25.4)).save(out, dpi=(args.dpi, args.dpi))
        _emit(args, {"image": str(out), "board": str(spec), "dpi": args.dpi}, f"wrote {out} ({spec}, {args.dpi:g} dpi)")
        return 0
    sheet = MarkerSheet.corners_layout(Paper.parse(args.paper), args.marker_mm, args.margin_mm,
                                       ArucoDictionary.parse(args.dictionary))
    image, layout = write_sheet(sheet, out, args.dpi)
    _emit(args, {"image": str(image), "layout": str(layout), "sheet": sheet.to_json(), "dpi": args.dpi},
          f"wrote {image} and its layout {layout}; print at 100% scale")
    return 0


def _frame_for_table(args: argparse.Namespace, lens_undistort: Any) -> np.ndarray:
    from calibration.images import iter_frames, read_image

    if args.image and args.source:
        raise CalibrationError("expected either IMAGE or --source, got both")
    if args.image:
        frame = read_image(args.image)
    elif args.source:
        frames = list(iter_frames(args.source, 1))
        frame = frames[0]
    else:
        raise CalibrationError("expected an IMAGE or --source to calibrate the table from, got neither")
    return lens_undistort(frame) if lens_undistort else frame


def run_table(args: argparse.Namespace) -> int:
    from calibration.lens import Undistorter
    from calibration.markers import DEFAULT_SHEET, read_sheet
    from calibration.profile import Profile, load_profile, save_profile
    from calibration.table import (
        calibrate_from_card,
        calibrate_from_markers,
        calibrate_from_points,
        parse_card_size,
        parse_size_mm,
    )

    # Arguments are checked before any image is read.
    rect = card = points = card_corners = None
    if args.points:
        if not args.size:
            raise CalibrationError("expected --size WxH (the rectangle's size in mm) with --points, got none")
        rect = parse_size_mm(args.size, what="the rectangle size")
        points = np.asarray(_floats(args.points, 8, "--points")).reshape(4, 2)
    elif args.card_size:
        card = parse_card_size(args.card_size)
        if args.card:
            card_corners = np.asarray(_floats(args.card, 8, "--card")).reshape(4, 2)
    sheet = read_sheet(args.sheet) if args.sheet else DEFAULT_SHEET
    profile = load_profile(args.profile, missing_ok=True)
    undistort = Undistorter(profile.lens) if profile.lens else None
    frame = _frame_for_table(args, undistort)
    size = (int(frame.shape[1]), int(frame.shape[0]))
    undistorted = undistort is not None
    if rect is not None and points is not None:
        geo = calibrate_from_points(points, rect[0], rect[1], size, undistorted)
    elif card is not None:
        corners = card_corners if card_corners is not None else _largest_card(frame)
        geo = calibrate_from_card(corners, card, size, undistorted)
    else:
        geo = calibrate_from_markers(frame, sheet, min_markers=args.min_markers, undistorted=undistorted)
    path = save_profile(Profile(table=geo, lens=profile.lens), args.profile)
    text = (f"table calibrated from {geo.source.value} ({geo.points_used} points, residual {geo.residual_mm:.2f} mm RMS, "
            f"{geo.max_residual_mm:.2f} mm max, {geo.mm_per_pixel((size[0] / 2, size[1] / 2)):.3f} mm/px at the centre); "
            f"saved {path}")
    _emit(args, {"profile": str(path), "table": geo.to_json()}, text)
    return 0


def _largest_card(frame: np.ndarray) -> np.ndarray:
    """The outline of the biggest fully visible card vision finds (top-left first, clockwise)."""
    from vision.detect import detect_cards

    found = [d for d in detect_cards(frame) if d.visible]
    if not found:
        raise CalibrationError("expected a fully visible card in the image for --card-size, found none; pass --card x1,y1,...")
    best = max(found, key=lambda d: _area(np.asarray(d.quad.corners)))
    return np.asarray(best.quad.corners, dtype=np.float64)


def _area(q: np.ndarray) -> float:
    x, y = q[:, 0], q[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def run_camera(args: argparse.Namespace) -> int:
    from calibration.images import image_files, iter_frames, read_image
    from calibration.lens import BoardSpec, calibrate_lens
    from calibration.profile import Profile, load_profile, save_profile

    spec = BoardSpec.parse(args.board)
    if bool(args.images) == bool(args.source):
        raise CalibrationError("expected exactly one of --images DIR or --source S")
    if args.images:
        frames = (read_image(f) for f in image_files(args.images))
    else:
        frames = iter_frames(args.source, args.frames)
    lens, views = calibrate_lens(frames, spec, min_views=args.min_views, fit_k3=args.fit_k3)
    profile = load_profile(args.profile, missing_ok=True)
    table = profile.table
    if table is not None and not table.undistorted:
        note = "; the table calibration was made on raw frames: run `calibrate table` again"
    else:
        note = ""
    path = save_profile(Profile(table=table, lens=lens), args.profile)
    text = (f"lens calibrated from {lens.views} views of {spec}: reprojection {lens.rms_px:.3f} px RMS, "
            f"f = {lens.k[0, 0]:.1f} px, k1 = {lens.d[0]:.4f}, k2 = {lens.d[1]:.4f}; saved {path}{note}")
    _emit(args, {"profile": str(path), "lens": lens.to_json()}, text)
    return 0


def _locate_card(photo: np.ndarray) -> np.ndarray:
    """The single card of an enrollment photo, rectified upright.

    The card's outline against the plain background decides; quads from the card detector are
    used where they agree with it (the detector alone can take a large printed digit for a card).
    A photo that is already a tight portrait crop of a card is used as it is.
    """
    from calibration.enroll_photo import locate_card
    from vision.detect import detect_cards

    return locate_card(photo, [d.quad.as_array() for d in detect_cards(photo)])


def run_deck(args: argparse.Namespace) -> int:
    import time

    from calibration.deck import DeckGame, DeckMatcher, enroll_photos, read_labels
    from calibration.images import image_files, read_image
    from calibration.profile import default_profile_dir

    game = DeckGame.parse(args.game)
    labels = read_labels(args.labels, game) if args.labels else None
    files = image_files(args.images)
    start = time.perf_counter()
    deck = enroll_photos(game, files, labels, _locate_card, read_image)
    index = deck.save(args.profile if args.profile else default_profile_dir())
    seconds = time.perf_counter() - start
    close = DeckMatcher(deck).confusable(3)
    warn = ""
    if close and close[0][2] < 0.1:
        warn = f"; warning: {close[0][0]} and {close[0][1]} look almost the same (distance {close[0][2]:.3f})"
    text = f"enrolled {len(deck.labels)} {game.value} cards in {seconds:.1f} s; saved {index}{warn}"
    record = {"profile": str(index.parent), "deck": str(index), "game": game.value, "cards": len(deck.labels),
              "seconds": round(seconds, 2), "closest": [[a, b, round(d, 4)] for a, b, d in close]}
    _emit(args, record, text)
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("calibrate", help="print a marker sheet, calibrate the table geometry or the camera lens")
    cal = p.add_subparsers(dest="calibrate_command", required=True, metavar="WHAT")

    m = cal.add_parser("markers", help="write a printable ArUco marker sheet (PNG) and its mm layout (JSON)")
    m.add_argument("--out", required=True, help="output PNG; the layout goes next to it as .json")
    m.add_argument("--paper", default="a4", help="a4, a3 or letter (default a4)")
    m.add_argument("--marker-mm", type=float, default=40.0, help="marker side in mm (default 40)")
    m.add_argument("--margin-mm", type=float, default=15.0, help="paper edge to marker in mm (default 15)")
    m.add_argument("--dictionary", default="4x4_50", help="ArUco dictionary: 4x4_50, 5x5_50, 6x6_50")
    m.add_argument("--dpi", type=float, default=300.0)
    m.add_argument("--board", help="write a lens calibration board instead, e.g. chessboard:9x6:25mm")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=run_markers)

    t = cal.add_parser("table", help="compute the image -> table millimetre homography")
    t.add_argument("image", nargs="?", help="an image of the table")
    t.add_argument("--source", help="camera index, video file/URL or image folder (first frame is used)")
    t.add_argument("--sheet", help="marker layout JSON written by `calibrate markers` (default: the A4 sheet)")
    t.add_argument("--min-markers", type=int, default=2, help="sheet markers needed (default 2)")
    t.add_argument("--points", help="fallback: x1,y1,...,x4,y4 clockwise from a rectangle's top-left (pixels)")
    t.add_argument("--size", help="with --points: the rectangle's real size WxH in mm")
    t.add_argument("--card-size", help="fallback: a card of known size in view (gladiola, valais, appia, or WxH mm)")
    t.add_argument("--card", help="with --card-size: its corners x1,...,y4 (else the largest detected card)")
    t.add_argument("--profile", help="profile directory (default: the user config directory)")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=run_table)

    c = cal.add_parser("camera", help="calibrate lens intrinsics and distortion from a printed board")
    c.add_argument("--images", help="directory of board images")
    c.add_argument("--source", help="camera index, video file/URL or image folder")
    c.add_argument("--frames", type=int, default=60, help="with --source: frames to read (default 60)")
    c.add_argument("--board", required=True, help="chessboard:9x6:25mm or charuco:7x5:30mm:22mm[:4x4_50]")
    c.add_argument("--min-views", type=int, default=4, help="views with the board needed (default 4)")
    c.add_argument("--fit-k3", action="store_true", help="also fit k3 (strong wide-angle lenses)")
    c.add_argument("--profile", help="profile directory (default: the user config directory)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=run_camera)

    d = cal.add_parser("deck", help="learn the user's own deck from one photo per card")
    d.add_argument("--game", required=True, help="gladiola or valais (Valais*Wallis: photograph the event side)")
    d.add_argument("--images", required=True, help="directory with one upright photo per card")
    d.add_argument("--labels", help="CSV with header file,kind,value,blisters[,year][,id]; without it the "
                   "labels come from file names like walk-17-b3.jpg, gladiola-b4.jpg, timeline-1865.jpg")
    d.add_argument("--profile", help="profile directory (default: the user config directory)")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=run_deck)
