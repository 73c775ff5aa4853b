"""The evaluator behind ``companion eval``: matching, scoring and the two folder kinds."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion import evaluation as ev
from companion.cli import main
from companion.errors import CompanionError
from samples.render.dataset import write_set
from samples.render.scene import SceneConfig
from samples.render.specs import Game


@pytest.mark.parametrize("a, b, expected", [
    ([[0, 0], [10, 0], [10, 10], [0, 10]], [[0, 0], [10, 0], [10, 10], [0, 10]], 1.0),
    ([[0, 0], [10, 0], [10, 10], [0, 10]], [[5, 0], [15, 0], [15, 10], [5, 10]], 1 / 3),
    ([[0, 0], [10, 0], [10, 10], [0, 10]], [[20, 20], [30, 20], [30, 30], [20, 30]], 0.0),
    ([[0, 0], [10, 0], [10, 10], [0, 10]], [[0, 10], [10, 10], [10, 0], [0, 0]], 1.0),  # any order
])
def test_quad_iou(a, b, expected):
    assert ev.quad_iou(np.array(a), np.array(b)) == pytest.approx(expected, abs=1e-6)


def test_greedy_match_takes_best_pairs_once():
    scores = np.array([[0.9, 0.8], [0.85, 0.2], [0.1, 0.3]])
    assert sorted(ev.greedy_match(scores, 0.5)) == [(0, 0)]
    pairs = ev.greedy_match(scores, 0.15)
    assert (0, 0) in pairs and len({t for t, _ in pairs}) == len(pairs) == len({d for _, d in pairs})


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("set")
    write_set(folder, Game.GLADIOLA, 3, seed=77, progress=False, config=SceneConfig(resolution=(640, 480)))
    return folder


def perfect_reader(folder: Path):
    """A reader that answers with the ground truth: the evaluator must give it full marks."""
    truths = {json.loads(p.read_text())["file"]: json.loads(p.read_text()) for p in folder.glob("0*.json")}
    images = {name: cv2.imread(str(folder / name)) for name in truths}

    def read(image, game):
        name = next(n for n, im in images.items() if im.shape == image.shape and np.array_equal(im, image))
        cards = []
        for c in truths[name]["cards"]:
            if c["kind"] == "tile":
                continue
            cards.append({"corners": c["corners"], "kind": c["kind"], "value": c["value"],
                          "blisters": c["blisters"], "date": c["date"], "confidence": 1.0})
        return {"image": {}, "cards": cards}
    return read


def test_perfect_reader_scores_full_marks(rendered):
    result = ev.evaluate_rendered(rendered, perfect_reader(rendered)).to_json()
    assert result["cards"] > 0
    assert result["detection"] == {"recall": 1.0, "precision": 1.0, "found": result["cards"], "false_positives": 0}
    assert all(f["accuracy"] == 1.0 for f in result["fields"].values())
    assert result["frames_exact"] == 1.0 and result["confident_wrong"] == 0.0
    assert result["per_condition"]["table"], "the breakdown lists table types"


def test_blind_and_lying_readers_are_told_apart(rendered):
    blind = ev.evaluate_rendered(rendered, lambda image, game: {"image": {}, "cards": []}).to_json()
    assert blind["detection"]["recall"] == 0.0 and blind["frames_exact"] == 0.0
    truth_read = perfect_reader(rendered)

    def liar(image, game):
        got = truth_read(image, game)
        for c in got["cards"]:
            if c["value"] is not None:
                c["value"] = (c["value"] + 1) % 51
        return got

    lying = ev.evaluate_rendered(rendered, liar).to_json()
    assert lying["fields"]["value"]["confident_wrong"] == 1.0
    assert lying["fields"]["value"]["accuracy"] == 0.0


def test_confusion_png_is_written(tmp_path):
    path = tmp_path / "m.png"
    ev.confusion_png(Counter({("walk", "walk"): 5, ("walk", "unknown"): 1, ("gladiola", "walk"): 2}), path)
    image = cv2.imread(str(path))
    assert image is not None and image.shape[0] > 100


def test_voc_folder_detection_recall(tmp_path):
    image = np.full((300, 400, 3), 60, np.uint8)
    cv2.rectangle(image, (100, 60), (180, 180), (245, 245, 245), -1)
    cv2.imwrite(str(tmp_path / "a.jpg"), image)
    (tmp_path / "a.xml").write_text(
        "<annotation><object><name>nine</name><bndbox><xmin>100</xmin><ymin>60</ymin>"
        "<xmax>180</xmax><ymax>180</ymax></bndbox></object>"
        "<object><name>ten</name><bndbox><xmin>250</xmin><ymin>60</ymin>"
        "<xmax>330</xmax><ymax>180</ymax></bndbox></object></annotation>")
    found = ev.evaluate_voc(tmp_path, lambda img: [np.array([[100, 60], [180, 60], [180, 180], [100, 180]], float)])
    assert found["cards"] == 2 and found["detection"]["recall"] == 0.5 and found["detection"]["precision"] == 1.0


def test_bad_folders_give_clear_errors(tmp_path, capsys):
    with pytest.raises(CompanionError, match="neither"):
        ev.evaluate_voc(tmp_path, lambda img: [])
    (tmp_path / "x.xml").write_text("<annotation><object>")
    (tmp_path / "x.jpg").write_bytes(b"")
    with pytest.raises(CompanionError, match="Pascal-VOC"):
        ev.evaluate_voc(tmp_path, lambda img: [])
    assert main(["eval", str(tmp_path / "nope"), "--json"]) == 2
    assert "expected a folder" in capsys.readouterr().err


def test_eval_command_on_a_rendered_set(rendered, capsys, tmp_path):
    code = main(["eval", str(rendered), "--json", "--confusion", str(tmp_path / "c.png")])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["frames"] == 3 and set(data["fields"]) >= {"kind", "value", "blisters"}
    assert (tmp_path / "c.png").exists()


def test_full_dates_are_judged_apart_from_their_year(tmp_path):
    folder = tmp_path / "valais"
    write_set(folder, Game.VALAIS, 3, seed=78, progress=False, config=SceneConfig(resolution=(640, 480)))
    truth_read = perfect_reader(folder)
    perfect = ev.evaluate_rendered(folder, truth_read).to_json()["fields"]
    assert perfect["date"]["cards"] == perfect["year"]["cards"] > 0 and perfect["date"]["accuracy"] == 1.0

    def rewrite(change):
        def read(image, game):
            got = truth_read(image, game)
            for c in got["cards"]:
                if c["date"] and len(c["date"]) == 10:
                    c["date"] = change(c["date"])
            return got
        return ev.evaluate_rendered(folder, read).to_json()["fields"]

    full = sum(1 for p in folder.glob("0*.json") for c in json.loads(p.read_text())["cards"]
               if c["kind"] == "timeline" and c["date"] and len(c["date"]) == 10 and c["visible_fraction"] >= 0.5)
    assert full > 0
    year_alone = rewrite(lambda d: d[:4])  # the day and month not read: unsure, not wrong
    assert year_alone["year"]["accuracy"] == 1.0 and year_alone["date"]["confident_wrong"] == 0.0
    assert round(year_alone["date"]["abstained"] * year_alone["date"]["cards"]) == full
    other_day = rewrite(lambda d: d[:8] + ("02" if d[8:] != "02" else "03"))
    assert round(other_day["date"]["confident_wrong"] * other_day["date"]["cards"]) == full
    assert other_day["year"]["accuracy"] == 1.0
