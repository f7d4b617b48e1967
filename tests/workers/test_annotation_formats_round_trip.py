"""COCO, VOC and YOLO written from a set and read back give the same images, statuses, classes (in
their order) and boxes: COCO to 1/100 pixel, VOC to half a pixel (whole pixels), YOLO to
normalized float precision, so a COCO -> Sampan -> COCO round trip keeps every box within a
pixel. The writers keep the archive safe and unambiguous (no ``..``, unique stems)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from workers.annotation_formats import parse_directory, write_directory
from workers.contracts.annotations import InterchangeSet
from workers.object_detection.synthetic import digit_scenes, scenes_as_interchange, write_scenes

TOLERANCE = {"coco": 0.01, "voc": 0.5, "yolo": 0.001}


@pytest.fixture(scope="module")
def scenes() -> list:
    with_digits = digit_scenes(10, size=64, seed=3)
    empty = digit_scenes(2, size=64, seed=4, digits_per_image=(0, 0))
    return with_digits[:5] + empty[:1] + with_digits[5:] + empty[1:]


def _by_name(interchange: InterchangeSet) -> dict[str, dict]:
    return {Path(image["file"]).name: image for image in interchange["images"]}


@pytest.mark.parametrize("format", ["coco", "voc", "yolo"])
def test_scenes_written_and_read_back_keep_every_box(tmp_path: Path, scenes: list, format: str) -> None:
    written = write_scenes(scenes, tmp_path, format)  # type: ignore[arg-type]
    read = parse_directory(tmp_path)
    assert read["format"] == format
    assert read["problems"] == []
    assert read["classes"] == [str(d) for d in range(10)]  # VOC: from labels.txt, not order of use
    back = _by_name(read)
    assert set(back) == set(_by_name(written))
    for original in written["images"]:
        again = back[original["file"]]
        assert (again["width"], again["height"]) == (64, 64)
        assert again["status"] == original["status"]
        assert [a["label"] for a in again["annotations"]] == [a["label"] for a in original["annotations"]]
        for before, after in zip(original["annotations"], again["annotations"], strict=True):
            for key in ("x", "y", "width", "height"):
                assert after["geometry"][key] == pytest.approx(before["geometry"][key], abs=TOLERANCE[format])
            assert "attributes" not in after  # the writers' defaults (iscrowd 0, pose Unspecified) stay out
    assert sum(image["status"] == "no_objects" for image in read["images"]) == 2


def _sources(tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "sources"
    for index, name in enumerate(names):
        path = folder / f"{index}{Path(name).suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (40, 30), (index * 40, 90, 160)).save(path)
    return folder


def test_coco_round_trip_through_a_sampan_set_keeps_attributes_statuses_and_unicode(tmp_path: Path) -> None:
    names = ["猫/一.png", "b.png", "c.jpg"]
    sources = _sources(tmp_path, names)
    interchange: InterchangeSet = {
        "format": "coco",
        "classes": ["狗", "猫", "unused"],
        "images": [
            {
                "file": names[0],
                "width": 40,
                "height": 30,
                "status": "annotated",
                "annotations": [
                    {
                        "kind": "box",
                        "label": "猫",
                        "geometry": {"x": 1.234, "y": 2.5, "width": 10.006, "height": 7.25},
                        "attributes": {"iscrowd": 1, "occluded": True, "color": "black"},
                    }
                ],
            },
            {"file": names[1], "width": 40, "height": 30, "status": "no_objects", "annotations": []},
            {"file": names[2], "width": 40, "height": 30, "status": "unlabeled", "annotations": []},
        ],
        "problems": [],
    }
    out = tmp_path / "coco"
    write_directory(
        interchange, out, "coco", lambda file: sources / f"{names.index(file)}{Path(file).suffix}"
    )
    read = parse_directory(out)
    assert read["classes"] == ["狗", "猫", "unused"]
    statuses = {image["file"]: image["status"] for image in read["images"]}
    assert statuses == {
        "images/猫/一.png": "annotated",
        "images/b.png": "no_objects",
        "images/c.jpg": "unlabeled",
    }
    (box,) = read["images"][2]["annotations"]
    assert box["geometry"] == pytest.approx({"x": 1.23, "y": 2.5, "width": 10.01, "height": 7.25})
    assert box["attributes"] == {"iscrowd": 1, "occluded": True, "color": "black"}


@pytest.mark.parametrize("format", ["voc", "yolo"])
def test_images_with_one_stem_get_their_own_annotation_files(tmp_path: Path, format: str) -> None:
    names = ["a.png", "a.jpg", "A.bmp"]
    sources = _sources(tmp_path, names)
    interchange: InterchangeSet = {
        "format": "coco",
        "classes": ["x"],
        "images": [
            {
                "file": name,
                "width": 0,  # unknown: the writer reads the copied image
                "height": 0,
                "status": "annotated",
                "annotations": [
                    {
                        "kind": "box",
                        "label": "x",
                        "geometry": {"x": 2.0 + i, "y": 3.0, "width": 5.0, "height": 6.0},
                    }
                ],
            }
            for i, name in enumerate(names)
        ],
        "problems": [],
    }
    out = tmp_path / format
    write_directory(
        interchange, out, format, lambda file: sources / f"{names.index(file)}{Path(file).suffix}"
    )  # type: ignore[arg-type]
    read = parse_directory(out)
    assert read["problems"] == []
    assert len(read["images"]) == 3
    assert sorted(image["annotations"][0]["geometry"]["x"] for image in read["images"]) == [2.0, 3.0, 4.0]


def test_written_paths_stay_inside_the_output_folder(tmp_path: Path) -> None:
    source = tmp_path / "source.png"
    Image.new("RGB", (8, 8)).save(source)
    interchange = scenes_as_interchange([])
    interchange["images"] = [
        {"file": "../../escape.png", "width": 8, "height": 8, "status": "no_objects", "annotations": []},
        {"file": "/etc/absolute.png", "width": 8, "height": 8, "status": "no_objects", "annotations": []},
    ]
    out = tmp_path / "out"
    write_directory(interchange, out, "coco", lambda file: source)
    assert not (tmp_path / "escape.png").exists()
    assert sorted(path.relative_to(out).as_posix() for path in out.rglob("*.png")) == [
        "images/escape.png",
        "images/etc/absolute.png",
    ]
    with pytest.raises(ValueError, match="cannot write"):
        write_directory(interchange, out, "label_studio", lambda file: source)  # type: ignore[arg-type]


@pytest.mark.parametrize("format", ["coco", "voc", "yolo"])
def test_boxes_flush_with_the_edges_read_back_without_a_problem(tmp_path: Path, format: str) -> None:
    """Rounding in the written file never pushes a box past the image (no spurious box_clipped)."""
    sources = _sources(tmp_path, ["a.png"])
    boxes = [(0.005, 0.004, 39.995, 29.996), (33.335, 21.115, 6.665, 8.885), (0.0, 0.0, 40.0, 30.0)]
    interchange: InterchangeSet = {
        "format": "coco",
        "classes": ["x"],
        "images": [
            {
                "file": "a.png",
                "width": 40,
                "height": 30,
                "status": "annotated",
                "annotations": [
                    {"kind": "box", "label": "x", "geometry": {"x": x, "y": y, "width": w, "height": h}}
                    for x, y, w, h in boxes
                ],
            }
        ],
        "problems": [],
    }
    write_directory(interchange, tmp_path / "out", format, lambda file: sources / "0.png")  # type: ignore[arg-type]
    read = parse_directory(tmp_path / "out")
    assert read["problems"] == []
    for (x, y, w, h), record in zip(boxes, read["images"][0]["annotations"], strict=True):
        geometry = record["geometry"]
        assert geometry["x"] + geometry["width"] <= 40 and geometry["y"] + geometry["height"] <= 30
        assert geometry["x"] == pytest.approx(x, abs=TOLERANCE[format])
        assert geometry["x"] + geometry["width"] == pytest.approx(x + w, abs=TOLERANCE[format])
        assert geometry["y"] + geometry["height"] == pytest.approx(y + h, abs=TOLERANCE[format])
