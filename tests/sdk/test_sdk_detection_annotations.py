"""Object-detection data through the SDK against the live platform: import a COCO archive of digit
scenes (a folder, zipped on the way), read and write a sample's boxes with the revision guard
(sampan.AnnotationConflict carrying the current state), bulk writes all or nothing, bad boxes named,
"no objects", the list filters, and export back to COCO with every box within a pixel."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path, PurePosixPath

import pytest
import sampan

from workers.object_detection.synthetic import digit_scenes, write_scenes

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCENES = 12


@pytest.fixture
def coco_folder(tmp_path) -> tuple[Path, dict[str, list[tuple[str, list[float]]]]]:
    """12 64x64 digit scenes of one class written as COCO; the boxes by image file name."""
    folder = tmp_path / "scenes-coco"
    written = write_scenes(
        digit_scenes(SCENES, size=64, seed=3, classes="one"), folder, "coco", classes="one"
    )
    truth = {
        PurePosixPath(image["file"]).name: [
            (record["label"], [record["geometry"][k] for k in ("x", "y", "width", "height")])
            for record in image["annotations"]
        ]
        for image in written["images"]
    }
    return folder, truth


@pytest.fixture
def scenes(sdk, project, coco_folder):
    dataset = sdk.datasets.create("scenes", project=project, task_type="object_detection")
    folder, truth = coco_folder
    result = dataset.import_annotations(folder, format="coco", progress=False)
    assert result.imported == SCENES and result.failed == 0, result.problems
    assert result.labels_created == ["digit"]
    return dataset, truth


def test_read_write_boxes_with_the_revision_guard(scenes):
    dataset, truth = scenes
    samples = list(dataset.samples(annotation_status="annotated"))
    assert len(samples) == SCENES and all(s["box_count"] >= 1 for s in samples)
    first = samples[0]
    current = dataset.annotations(first)
    assert current["status"] == "annotated" and (current["width"], current["height"]) == (64, 64)
    boxes = [
        (a["label"], [a["geometry"][k] for k in ("x", "y", "width", "height")])
        for a in current["annotations"]
    ]
    expected = truth[PurePosixPath(first["original_name"]).name]
    assert sorted(b[0] for b in boxes) == sorted(b[0] for b in expected)
    for (_, got), (_, want) in zip(sorted(boxes), sorted(expected), strict=True):
        assert got == pytest.approx(want, abs=1.0)

    # a write names the revision it read (taken from the state passed in); a stale one is refused
    written = dataset.set_annotations(current, [sampan.box("digit", 2, 3, 20, 24, difficult=True)])
    assert written["revision"] > current["revision"] and len(written["annotations"]) == 1
    assert written["annotations"][0]["attributes"] == {"difficult": True}
    with pytest.raises(sampan.AnnotationConflict) as conflict:
        dataset.set_annotations(first["id"], [], revision=current["revision"], status="no_objects")
    assert conflict.value.status == 409 and conflict.value.code == "annotation_conflict"
    assert conflict.value.current["revision"] == written["revision"]
    assert conflict.value.current["annotations"][0]["geometry"]["width"] == pytest.approx(20)
    assert isinstance(conflict.value, sampan.Conflict)

    # "reviewed, no objects" differs from "not labeled yet"; records as read are written back as is
    empty = dataset.set_annotations(first["id"], [], status="no_objects")  # revision read first
    assert empty["status"] == "no_objects" and empty["annotations"] == []
    assert [s["id"] for s in dataset.samples(annotation_status="no_objects")] == [first["id"]]
    again = dataset.set_annotations(empty, written["annotations"])
    assert (
        again["status"] == "annotated"
        and again["annotations"][0]["geometry"] == written["annotations"][0]["geometry"]
    )

    # a bad box is a 400 naming the annotation; an unknown label is not created
    with pytest.raises(sampan.BadRequest) as bad:
        dataset.set_annotations(
            again, [sampan.box("digit", 1, 1, 10, 10), sampan.box("digit", 60, 60, 30, 30)]
        )
    assert bad.value.code == "annotation_out_of_bounds" and "annotations[1]" in bad.value.message
    with pytest.raises(sampan.BadRequest) as unknown:
        dataset.set_annotations(again, [sampan.box("cat", 1, 1, 10, 10)])
    assert unknown.value.code == "unknown_label"
    assert [label.name for label in dataset.labels()] == ["digit"]


def test_bulk_writes_are_all_or_nothing(scenes):
    dataset, _ = scenes
    samples = list(dataset.samples())[:3]
    states = [dataset.annotations(s) for s in samples]
    items = [
        {
            "sample": state["sample"],
            "revision": state["revision"],
            "annotations": [sampan.box("digit", 4, 4, 8 + i, 8)],
        }
        for i, state in enumerate(states)
    ]
    written = dataset.set_annotations_bulk(items)
    assert [w["sample"] for w in written] == [s["id"] for s in samples]
    assert [w["annotations"][0]["geometry"]["width"] for w in written] == [8, 9, 10]

    # the same items again carry stale revisions: nothing is written, every conflict is listed
    with pytest.raises(sampan.AnnotationConflict) as conflict:
        dataset.set_annotations_bulk(
            [
                {**items[0], "revision": written[0]["revision"], "status": "no_objects", "annotations": []},
                *items[1:],
            ]
        )
    assert sorted(c["sample"] for c in conflict.value.conflicts) == [s["id"] for s in samples[1:]]
    assert dataset.annotations(samples[0])["status"] == "annotated"  # the fresh item was not written either
    with pytest.raises(ValueError, match="at most 500"):
        dataset.set_annotations_bulk([items[0]] * 501)


def test_box_label_filter_and_export_back_to_coco(scenes, tmp_path):
    dataset, truth = scenes
    label = dataset.labels()[0]
    assert len(list(dataset.samples(box_label="digit"))) == SCENES
    assert len(list(dataset.samples(box_label=label.id))) == SCENES
    statistics = dataset.statistics()
    assert statistics["detection"]["annotated"] == SCENES
    assert statistics["detection"]["boxes"] == sum(len(boxes) for boxes in truth.values())

    archive = dataset.export(tmp_path / "export.zip", format="coco")
    with zipfile.ZipFile(io.BytesIO(Path(archive).read_bytes())) as exported:
        names = exported.namelist()
        coco = next(
            json.loads(exported.read(n))
            for n in names
            if n.endswith(".json") and b'"categories"' in exported.read(n)
        )
    assert [c["name"] for c in coco["categories"]] == ["digit"]
    files = {image["id"]: PurePosixPath(image["file_name"]).name for image in coco["images"]}
    assert sorted(files.values()) == sorted(truth) and all(
        any(n.endswith(f) for n in names) for f in files.values()
    )
    got: dict[str, list[list[float]]] = {}
    for annotation in coco["annotations"]:
        got.setdefault(files[annotation["image_id"]], []).append(annotation["bbox"])
    for name, boxes in truth.items():  # the round trip COCO -> Sampan -> COCO keeps every box within a pixel
        assert len(got[name]) == len(boxes)
        for have, (_, want) in zip(sorted(got[name]), sorted(boxes, key=lambda b: b[1]), strict=True):
            assert have == pytest.approx(want, abs=1.0)
    with pytest.raises(ValueError, match="coco, voc, yolo"):
        dataset.export(tmp_path / "x.zip", format="csv")
    with pytest.raises(ValueError, match="format must be one of"):
        dataset.import_annotations(tmp_path, format="pascal")
