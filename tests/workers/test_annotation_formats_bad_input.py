"""Every bad input of an annotation archive is reported by file, line and annotation, and the rest
is read: boxes outside the image (cut, or left out when mostly outside), boxes without area,
unknown categories, annotations whose image is missing, images listed twice, malformed
XML/JSON/txt (named with the line), sizes the files misstate, and mixed formats (refused, naming
both). Also: each format's detection, Label Studio's percentages and upload names, YOLO's class
files, defensive XML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from workers.annotation_formats import parse_directory
from workers.annotation_formats.yolo import names_from_yaml_subset
from workers.contracts.annotations import ImportProblem, InterchangeSet


def _image(root: Path, relative: str, size: tuple[int, int] = (100, 80)) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (120, 130, 140)).save(path)


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _problems(interchange: InterchangeSet) -> list[tuple]:
    def key(problem: ImportProblem) -> tuple:
        return (
            problem["file"],
            problem.get("line"),
            problem.get("annotation"),
            problem["code"],
            problem["action"],
        )

    return sorted((key(problem) for problem in interchange["problems"]), key=repr)


def _image_entry(interchange: InterchangeSet, file: str) -> dict:
    return next(image for image in interchange["images"] if image["file"] == file)  # type: ignore[return-value]


def _boxes(interchange: InterchangeSet, file: str) -> list[tuple]:
    return [
        (a["label"], *(round(a["geometry"][k], 3) for k in ("x", "y", "width", "height")))
        for a in _image_entry(interchange, file)["annotations"]
    ]


def test_coco_bad_boxes_categories_and_images_are_reported_and_the_rest_kept(tmp_path: Path) -> None:
    for name in ("a.png", "b.png", "d.png", "e.png"):
        _image(tmp_path, f"images/{name}")
    _image(tmp_path, "images/c.png", (50, 50))
    document = {
        "images": [
            {"id": 1, "file_name": "a.png", "width": 100, "height": 80},
            {"id": 2, "file_name": "b.png", "width": 100, "height": 80},
            {"id": 3, "file_name": "c.png", "width": 60, "height": 60},
            {"id": 4, "file_name": "d.png"},
            {"id": 5, "file_name": "d.png"},
            {"id": 6, "file_name": "missing.png"},
        ],
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20]},
            {"id": 2, "image_id": 1, "category_id": 1, "bbox": [90, 70, 20, 20]},
            {"id": 3, "image_id": 1, "category_id": 2, "bbox": [-5, 10, 20, 20], "iscrowd": 0},
            {"id": 4, "image_id": 1, "category_id": 1, "bbox": [10, 10, 0, 5]},
            {"id": 5, "image_id": 2, "category_id": 99, "bbox": [1, 1, 5, 5]},
            {"id": 6, "image_id": 42, "category_id": 1, "bbox": [1, 1, 5, 5]},
            {"id": 7, "image_id": 3, "category_id": 2, "bbox": [0, 0, 55, 55]},
            {"id": 8, "image_id": 6, "category_id": 1, "bbox": [1, 1, 5, 5]},
            {"id": 9, "image_id": 1, "category_id": 1, "bbox": "oops"},
            {"id": 10, "image_id": 5, "category_id": 1, "bbox": [1, 1, 5, 5]},
        ],
    }
    _write(tmp_path, "annotations/instances.json", json.dumps(document, indent=1))
    read = parse_directory(tmp_path)
    assert read["format"] == "coco"
    assert read["classes"] == ["cat", "dog"]
    file = "annotations/instances.json"
    assert _problems(read) == sorted(
        [
            (file, None, 2, "box_outside_image", "skipped"),
            (file, None, 3, "box_clipped", "clipped"),
            (file, None, 4, "box_empty", "skipped"),
            (file, None, 5, "unknown_category", "skipped"),
            (file, None, 6, "image_missing", "skipped"),
            (file, None, 7, "box_clipped", "clipped"),
            (file, None, 9, "malformed_file", "skipped"),
            (file, None, "image 3", "image_size_mismatch", "clipped"),
            (file, None, "image 5", "image_listed_twice", "skipped"),
            (file, None, "image 6", "image_missing", "skipped"),
        ],
        key=repr,
    )
    assert _boxes(read, "images/a.png") == [("cat", 10, 10, 20, 20), ("dog", 0, 10, 15, 20)]
    assert _boxes(read, "images/c.png") == [("dog", 0, 0, 50, 50)]
    c = _image_entry(read, "images/c.png")
    assert (c["width"], c["height"]) == (50, 50)  # the image's own size, not the declared 60x60
    statuses = {image["file"]: image["status"] for image in read["images"]}
    assert statuses == {
        "images/a.png": "annotated",
        "images/b.png": "unlabeled",  # its only box was refused: someone should look again
        "images/c.png": "annotated",
        "images/d.png": "no_objects",
        "images/e.png": "unlabeled",  # in the archive, in no annotation file
    }
    messages = {problem["annotation"]: problem["message"] for problem in read["problems"]}
    assert "25% inside" in messages[2]
    assert "declared 60x60 but is 50x50" in messages["image 3"]


def test_a_malformed_json_file_is_named_with_its_line(tmp_path: Path) -> None:
    _image(tmp_path, "a.png")
    _write(tmp_path, "broken.json", '{\n  "images": [],\n  "categories": [,]\n}\n')
    read = parse_directory(tmp_path)
    assert read["format"] == "images"
    assert _problems(read) == [("broken.json", 3, None, "malformed_file", "skipped")]
    assert [image["status"] for image in read["images"]] == ["unlabeled"]


VOC_OBJECT = (
    "<object><name>{name}</name>"
    "<bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
)


def _voc(
    filename: str, *objects: str, size: str = "<size><width>100</width><height>80</height></size>"
) -> str:
    return (
        f"<annotation>\n<filename>{filename}</filename>\n{size}\n" + "\n".join(objects) + "\n</annotation>\n"
    )


def test_voc_problems_name_the_file_and_line_and_entities_are_never_expanded(tmp_path: Path) -> None:
    _image(tmp_path, "JPEGImages/a.jpg")
    _image(tmp_path, "JPEGImages/b.jpg")
    good = VOC_OBJECT.format(name="cat", x0=10, y0=20, x1=40, y1=60)
    _write(
        tmp_path,
        "Annotations/a.xml",
        _voc(
            "a.jpg",
            good,
            VOC_OBJECT.format(name="cat", x0=50, y0=20, x1=40, y1=60),
            "<object><name>dog</name>\n<pose>Left</pose></object>",
            VOC_OBJECT.format(name="dog", x0=90, y0=0, x1=110, y1=30).replace(
                "</name>", "</name><difficult>1</difficult>"
            ),
        ),
    )
    _write(tmp_path, "Annotations/again.xml", _voc("a.jpg", good))
    _write(
        tmp_path, "Annotations/bad.xml", "<annotation>\n<filename>b.jpg</filename>\n<object>\n</annotation>\n"
    )
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n'
        "<annotation><filename>&lol2;</filename></annotation>\n"
    )
    _write(tmp_path, "Annotations/bomb.xml", bomb)
    _write(tmp_path, "Annotations/nothing.xml", _voc("nothing.jpg", good))
    read = parse_directory(tmp_path)
    assert read["format"] == "voc"
    assert _problems(read) == sorted(
        [
            ("Annotations/a.xml", 5, 1, "box_empty", "skipped"),
            ("Annotations/a.xml", 6, 2, "malformed_file", "skipped"),
            ("Annotations/a.xml", 8, 3, "box_clipped", "clipped"),
            ("Annotations/again.xml", 3, None, "image_listed_twice", "skipped"),
            ("Annotations/bad.xml", 4, None, "malformed_file", "skipped"),
            ("Annotations/bomb.xml", 2, None, "malformed_file", "skipped"),
            ("Annotations/nothing.xml", 1, None, "image_missing", "skipped"),
        ],
        key=repr,
    )
    assert _boxes(read, "JPEGImages/a.jpg") == [("cat", 10, 20, 30, 40), ("dog", 90, 0, 10, 30)]
    dog = _image_entry(read, "JPEGImages/a.jpg")["annotations"][1]
    assert dog["attributes"] == {"difficult": 1}
    assert _image_entry(read, "JPEGImages/b.jpg")["status"] == "unlabeled"
    assert not any(
        "lol" in problem["message"] for problem in read["problems"] if "DOCTYPE" not in problem["message"]
    )


def test_yolo_lines_are_checked_one_by_one(tmp_path: Path) -> None:
    _image(tmp_path, "images/train/a.png", (100, 50))
    _image(tmp_path, "images/train/b.png", (100, 50))
    _image(tmp_path, "images/train/c.png", (100, 50))
    lines = [
        "0 0.5 0.5 0.2 0.2",
        "1 0.5 0.5 abc 0.1",
        "7 0.5 0.5 0.1 0.1",
        "0 0.99 0.5 0.2 0.2",
        "",
        "0 0.1 0.1 0 0.1",
        "1 0.1 0.1 0.3 0.1 0.3 0.4",
    ]
    _write(tmp_path, "labels/train/a.txt", "\n".join(lines) + "\n")
    _write(tmp_path, "labels/train/b.txt", "")
    _write(tmp_path, "labels/train/ghost.txt", "0 0.5 0.5 0.1 0.1\n")
    _write(tmp_path, "data.yaml", "path: .\ntrain: images/train\nnames:\n  0: cat\n  1: dog  # a comment\n")
    _write(tmp_path, "README.txt", "exported by a tool\n")
    read = parse_directory(tmp_path)
    assert read["format"] == "yolo"
    assert read["classes"] == ["cat", "dog"]
    assert _problems(read) == sorted(
        [
            ("labels/train/a.txt", 2, None, "malformed_file", "skipped"),
            ("labels/train/a.txt", 3, None, "unknown_category", "skipped"),
            ("labels/train/a.txt", 4, None, "box_clipped", "clipped"),
            ("labels/train/a.txt", 6, None, "box_empty", "skipped"),
            ("labels/train/ghost.txt", None, None, "image_missing", "skipped"),
        ],
        key=repr,
    )
    assert _boxes(read, "images/train/a.png") == [
        ("cat", 40, 20, 20, 10),
        ("cat", 89, 20, 11, 10),
        ("dog", 10, 5, 20, 15),
    ]
    statuses = [image["status"] for image in read["images"]]
    assert statuses == ["annotated", "no_objects", "unlabeled"]


def test_yolo_without_class_names_is_refused_and_classes_txt_gives_them(tmp_path: Path) -> None:
    _image(tmp_path, "obj_train_data/a.jpg")
    _write(tmp_path, "obj_train_data/a.txt", "0 0.5 0.5 0.2 0.2\n")
    read = parse_directory(tmp_path)
    assert read["images"] == []
    assert _problems(read) == [("obj_train_data/a.txt", None, None, "yolo_classes_missing", "refused")]
    _write(tmp_path, "obj.names", "person\n\n")
    read = parse_directory(tmp_path)
    assert read["classes"] == ["person"]
    assert _boxes(read, "obj_train_data/a.jpg") == [("person", 40, 32, 20, 16)]


def test_the_yaml_subset_reads_the_names_yolo_tools_write() -> None:
    assert names_from_yaml_subset("nc: 2\nnames: ['cat', \"dog's\", plain]  # x\n") == [
        "cat",
        "dog's",
        "plain",
    ]
    assert names_from_yaml_subset("names:\n  - cat\n  - 'a # b'\nval: x\n") == ["cat", "a # b"]
    assert names_from_yaml_subset('names:\n  0: cat\n  1: "狗"\ntrain: x\n') == {"0": "cat", "1": "狗"}
    assert names_from_yaml_subset("names: {0: cat, 1: dog}\n") == {"0": "cat", "1": "dog"}
    assert names_from_yaml_subset("train: images\n") is None


def test_label_studio_percentages_rotation_uploads_and_cancelled_annotations(tmp_path: Path) -> None:
    _image(tmp_path, "cat.jpg", (200, 100))
    _image(tmp_path, "imgs/dog.png", (100, 100))
    for name in ("empty.png", "rot.png", "brush.png"):
        _image(tmp_path, name, (100, 100))

    def rectangle(x: float, y: float, w: float, h: float, label: str, rotation: float = 0) -> dict:
        value = {"x": x, "y": y, "width": w, "height": h, "rotation": rotation, "rectanglelabels": [label]}
        return {
            "id": f"r{x}",
            "type": "rectanglelabels",
            "from_name": "label",
            "to_name": "image",
            "value": value,
        }

    tasks = [
        {
            "id": 1,
            "data": {"image": "/data/upload/3/1a2b3c4d-cat.jpg"},
            "annotations": [{"result": [rectangle(10, 20, 30, 40, "Cat")]}],
        },
        {
            "id": 2,
            "data": {"image": "http://localhost:8080/data/local-files/?d=imgs/dog.png"},
            "annotations": [{"was_cancelled": True, "result": [rectangle(1, 1, 5, 5, "Dog")]}],
        },
        {"id": 3, "data": {"image": "empty.png"}, "annotations": [{"result": []}]},
        {
            "id": 4,
            "data": {"image": "rot.png"},
            "annotations": [{"result": [rectangle(50, 20, 20, 10, "Dog", 90)]}],
        },
        {
            "id": 5,
            "data": {"image": "brush.png"},
            "annotations": [
                {
                    "result": [
                        {"id": "b1", "type": "brushlabels", "value": {"brushlabels": ["Dog"]}},
                        rectangle(0, 0, 50, 50, "Dog"),
                    ]
                }
            ],
        },
        {
            "id": 6,
            "data": {"image": "nowhere.png"},
            "annotations": [{"result": [rectangle(1, 1, 5, 5, "Cat")]}],
        },
    ]
    _write(tmp_path, "export.json", json.dumps(tasks))
    read = parse_directory(tmp_path)
    assert read["format"] == "label_studio"
    assert read["classes"] == ["Cat", "Dog"]
    assert _problems(read) == [
        ("export.json", None, "b1", "unsupported_annotation", "skipped"),
        ("export.json", None, "task 6", "image_missing", "skipped"),
    ]
    assert _boxes(read, "cat.jpg") == [("Cat", 20, 20, 60, 40)]
    assert _boxes(read, "rot.png") == [("Dog", 40, 20, 10, 20)]
    assert _boxes(read, "brush.png") == [("Dog", 0, 0, 50, 50)]
    statuses = {image["file"]: image["status"] for image in read["images"]}
    assert statuses["imgs/dog.png"] == "unlabeled" and statuses["empty.png"] == "no_objects"


def test_two_formats_in_one_archive_are_refused_naming_both_unless_one_is_chosen(tmp_path: Path) -> None:
    _image(tmp_path, "images/a.png")
    coco = {
        "images": [{"id": 1, "file_name": "a.png"}],
        "categories": [{"id": 1, "name": "cat"}],
        "annotations": [],
    }
    _write(tmp_path, "annotations.json", json.dumps(coco))
    _write(
        tmp_path, "Annotations/a.xml", _voc("a.png", VOC_OBJECT.format(name="dog", x0=1, y0=1, x1=9, y1=9))
    )
    read = parse_directory(tmp_path)
    assert read["images"] == []
    (problem,) = read["problems"]
    assert problem["code"] == "mixed_annotation_formats" and problem["action"] == "refused"
    assert (
        "COCO (annotations.json)" in problem["message"]
        and "Pascal VOC (Annotations/a.xml)" in problem["message"]
    )
    assert parse_directory(tmp_path, "voc")["classes"] == ["dog"]
    assert parse_directory(tmp_path, "coco")["images"][0]["status"] == "no_objects"
    missing = parse_directory(tmp_path, "yolo")
    assert _problems(missing) == [("", None, None, "annotation_format_not_found", "refused")]
    with pytest.raises(ValueError, match="unknown interchange format"):
        parse_directory(tmp_path, "csv")  # type: ignore[arg-type]


def test_plain_images_come_unlabeled_with_their_real_size(tmp_path: Path) -> None:
    _image(tmp_path, "a.png", (30, 20))
    _write(tmp_path, "notes.txt", "some notes\n")
    _write(tmp_path, "fake.png", "not an image")
    _write(tmp_path, "__MACOSX/._a.png", "resource fork")
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees: the intake stores it upright
    Image.new("RGB", (40, 20)).save(tmp_path / "turned.jpg", exif=exif)
    read = parse_directory(tmp_path)
    assert read["format"] == "images" and read["classes"] == []
    assert [
        (image["file"], image["width"], image["height"], image["status"]) for image in read["images"]
    ] == [
        ("a.png", 30, 20, "unlabeled"),
        ("turned.jpg", 20, 40, "unlabeled"),
    ]
    assert _problems(read) == [("fake.png", None, None, "not_an_image", "skipped")]


def test_coco_files_merge_and_bad_names_unreadable_images_and_links_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    _image(root, "train/a.png")
    _image(root, "val/b.png")
    _write(root, "val/broken.png", "truncated")
    outside = tmp_path / "outside.png"
    Image.new("RGB", (10, 10)).save(outside)
    (root / "train" / "linked.png").symlink_to(outside)
    train = {
        "images": [{"id": 1, "file_name": "a.png"}, {"id": 2, "file_name": "linked.png"}],
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "   "}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 5, 5]},
            {"id": 2, "image_id": 1, "category_id": 2, "bbox": [1, 1, 5, 5]},
        ],
    }
    val = {
        "images": [{"id": 1, "file_name": "b.png"}, {"id": 2, "file_name": "broken.png"}],
        "categories": [{"id": 7, "name": "dog"}, {"id": 8, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 8, "bbox": [2, 2, 5, 5]},
            {"id": 2, "image_id": 2, "category_id": 7, "bbox": [2, 2, 5, 5]},
        ],
    }
    _write(root, "train/_annotations.coco.json", json.dumps(train))
    _write(root, "val/_annotations.coco.json", json.dumps(val))
    read = parse_directory(root)
    assert read["classes"] == ["cat", "dog"]
    assert [image["file"] for image in read["images"]] == ["train/a.png", "val/b.png"]  # never the link
    assert _problems(read) == sorted(
        [
            ("train/_annotations.coco.json", None, None, "bad_label", "skipped"),
            ("train/_annotations.coco.json", None, "image 2", "image_missing", "skipped"),
            ("val/broken.png", None, None, "not_an_image", "skipped"),
        ],
        key=repr,
    )
    assert _boxes(read, "train/a.png") == [("cat", 1, 1, 5, 5)]
    assert _boxes(read, "val/b.png") == [("cat", 2, 2, 5, 5)]
