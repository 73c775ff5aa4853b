"""Profile file format and the `companion calibrate` command line."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.errors import CalibrationError
from calibration.markers import DEFAULT_SHEET
from calibration.profile import Profile, default_profile_dir, load_profile, save_profile
from calibration.synthetic import Pose, marker_scene
from calibration.table import calibrate_from_points
from companion.cli import main

GEO = calibrate_from_points([[10, 10], [300, 20], [310, 200], [5, 190]], 600, 400, (320, 240))


def test_profile_round_trip(tmp_path):
    path = save_profile(Profile(table=GEO), tmp_path)
    assert path == tmp_path / "profile.json"
    data = json.loads(path.read_text())
    assert (data["format"], data["version"]) == ("table-companion-profile", 1)
    assert load_profile(tmp_path) == Profile(table=GEO)


def test_default_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_profile_dir() == tmp_path / "table-companion"
    monkeypatch.setenv("XDG_CONFIG_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_profile_dir() == tmp_path / "home" / ".config" / "table-companion"


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"format": "table-companion-profile", "version": 1, "table": {"image_si', "damaged profile: expected JSON, got a syntax error at line 1"),
        ('{"format": "someone-else", "version": 1}', "not a table-companion profile"),
        ("[1, 2, 3]", "expected a JSON object, got list"),
        ('{"format": "table-companion-profile", "version": 7}', "version 7 is newer"),
        ('{"format": "table-companion-profile", "version": "1"}', 'expected an integer "version"'),
        ('{"format": "table-companion-profile", "version": 1, "table": {"image_size": [640, 480]}}', '"table": expected table calibration fields'),
        ('{"format": "table-companion-profile", "version": 1, "lens": {"image_size": [1, 1], "camera_matrix": [[0,0,0],[0,0,0],[0,0,1]], "dist_coeffs": [0,0,0,0], "rms_px": 0, "views": 1, "board": "x"}}',
         '"lens": expected a camera matrix with positive focal lengths'),
    ],
)
def test_damaged_or_foreign_profile(tmp_path, content, message):
    (tmp_path / "profile.json").write_text(content)
    with pytest.raises(CalibrationError, match=message) as info:
        load_profile(tmp_path)
    assert str(tmp_path / "profile.json") in str(info.value)


def test_binary_profile_and_missing_profile(tmp_path):
    (tmp_path / "profile.json").write_bytes(b"\xff\xfe\x00PNG")
    with pytest.raises(CalibrationError, match="expected a JSON profile, got binary data"):
        load_profile(tmp_path)
    with pytest.raises(CalibrationError, match="no calibration profile here"):
        load_profile(tmp_path / "other")
    assert load_profile(tmp_path / "other", missing_ok=True) == Profile()


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_markers_then_table_from_rendered_scene(tmp_path, capsys):
    code, out, err = _run(capsys, "calibrate", "markers", "--out", str(tmp_path / "sheet.png"), "--dpi", "100", "--json")
    assert code == 0, err
    assert json.loads(out)["sheet"] == DEFAULT_SHEET.to_json()
    image, h_true = marker_scene(DEFAULT_SHEET, Pose(30, 20, 0, 700, (105, 148)), size=(640, 480), focal_px=620,
                                 table_mm=(600, 600), px_per_mm=2.0)
    cv2.imwrite(str(tmp_path / "scene.png"), image)
    code, out, err = _run(capsys, "calibrate", "table", str(tmp_path / "scene.png"), "--sheet",
                          str(tmp_path / "sheet.json"), "--profile", str(tmp_path / "prof"), "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["table"]["source"] == "markers"
    geo = load_profile(tmp_path / "prof").table
    centre_px = cv2.perspectiveTransform(np.array([[[105.0, 148.0]]]), h_true).reshape(1, 2)
    assert np.linalg.norm(geo.to_table(centre_px)[0] - [105, 148]) < 1.0


def test_cli_points_fallback(tmp_path, capsys):
    img = np.full((240, 320, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "t.png"), img)
    code, out, err = _run(capsys, "calibrate", "table", str(tmp_path / "t.png"), "--points", "10,10,300,20,310,200,5,190",
                          "--size", "600x400", "--profile", str(tmp_path))
    assert code == 0, err
    assert load_profile(tmp_path).table == GEO


@pytest.mark.parametrize(
    "argv, message",
    [
        (["calibrate", "table", "{d}/missing.png"], "missing.png: expected an image file, but no such file exists"),
        (["calibrate", "table", "{d}/junk.png"], "expected an image (PNG, JPEG, ...), got data no decoder can read"),
        (["calibrate", "table", "{d}/junk.png", "--points", "1,2,3", "--size", "100x100"], "expected --points as 8 comma-separated numbers"),
        (["calibrate", "camera", "--images", "{d}/nodir", "--board", "chessboard:9x6:25mm"], "expected a directory of images"),
        (["calibrate", "camera", "--images", "{d}", "--board", "chess:9x6"], "expected a board like"),
        (["calibrate", "markers", "--out", "{d}/sheet.jpg"], "expected a .png output path"),
    ],
)
def test_cli_errors_are_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "junk.png").write_bytes(b"not an image at all")
    code, out, err = _run(capsys, *[a.format(d=tmp_path) for a in argv], "--profile", str(tmp_path / "p")) \
        if argv[1] != "markers" else _run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert code == 2
    assert err.startswith("companion: error: ") and err.count("\n") == 1
    assert message in err
