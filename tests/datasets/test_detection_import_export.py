"""Object-detection archives through the import endpoint on PostgreSQL (COCO, VOC, YOLO, Label Studio,
plain images): images become samples with their boxes and status, labels come in the format's class
order, every bad box/file/line is reported by file (and line or annotation) while the rest imports,
two formats in one archive are refused naming both. Export writes COCO, VOC and YOLO, and a COCO
archive comes back from Sampan with every box within a pixel."""

from __future__ import annotations

import io
import json
import zipfile
from functools import cache
from pathlib import Path, PurePosixPath

import pytest
from datasets.models import Annotation, ImportBatch, Label, Sample
from datasets.services.image_imports import import_stored_archive
from PIL import Image

from tests.datasets import factories

pytestmark = pytest.mark.django_db


@cache
def _scenes():
    from workers.object_detection.synthetic import digit_scenes

    return digit_scenes(6, size=64, seed=11, digits_per_image=(1, 3))


def zip_folder(root: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                archive.writestr(path.relative_to(root).as_posix(), path.read_bytes())
    return out.getvalue()


def png(width: int = 64, height: int = 48, shade: int = 0) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (shade, 120, 200 - shade)).save(out, "PNG")
    return out.getvalue()


def stem(name: str) -> str:
    return PurePosixPath(name).stem


def boxes_by_stem(dataset) -> dict[str, list[tuple[str, float, float, float, float]]]:
    found: dict[str, list] = {}
    for sample in Sample.objects.filter(dataset=dataset):
        found[stem(sample.original_name)] = sorted(
            (a.label.name, *(a.geometry[k] for k in ("x", "y", "width", "height")))
            for a in Annotation.objects.filter(sample=sample).select_related("label")
        )
    return found


def set_boxes_by_stem(interchange) -> dict[str, list[tuple[str, float, float, float, float]]]:
    return {
        stem(image["file"]): sorted(
            (r["label"], *(r["geometry"][k] for k in ("x", "y", "width", "height")))
            for r in image["annotations"]
        )
        for image in interchange["images"]
    }


def assert_within_a_pixel(found: dict, expected: dict) -> None:
    assert sorted(found) == sorted(expected)
    for name, boxes in expected.items():
        assert len(found[name]) == len(boxes), name
        for got, want in zip(found[name], boxes, strict=True):
            assert got[0] == want[0], name
            assert all(abs(a - b) <= 1.0 for a, b in zip(got[1:], want[1:], strict=True)), (name, got, want)


@pytest.fixture
def detection(tenants, api_client, isolated_storage):
    dataset = factories.dataset(tenants["project_a"], name="Digit scenes", task_type="object_detection")
    return {
        "dataset": dataset,
        "client": api_client(tenants["alice"]),
        "base": f"/api/v1/datasets/{dataset.pk}",
    }


def post_archive(detection, data: bytes, **fields):
    return detection["client"].post(
        f"{detection['base']}/imports/",
        {"archive": factories.upload("upload.zip", data), **fields},
        format="multipart",
    )


@pytest.mark.parametrize("layout", ["coco", "voc", "yolo"])
def test_each_format_imports_images_boxes_and_labels_in_class_order(detection, tmp_path, layout):
    from workers.object_detection.synthetic import write_scenes

    written = write_scenes(_scenes(), tmp_path / layout, layout)
    answer = post_archive(detection, zip_folder(tmp_path / layout))
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["imported"], body["failed"], body["mapping"]) == (6, 0, {"annotation_format": "auto"})
    assert [p for p in body["problems"] if p["code"] != "box_clipped"] == []
    labels = list(Label.objects.filter(dataset=detection["dataset"]).values_list("name", flat=True))
    assert labels == written["classes"] == [str(d) for d in range(10)]
    assert_within_a_pixel(boxes_by_stem(detection["dataset"]), set_boxes_by_stem(written))
    statuses = set(
        Sample.objects.filter(dataset=detection["dataset"]).values_list("annotation_status", flat=True)
    )
    assert statuses == {"annotated"}


def test_label_studio_export_and_plain_images(detection):
    tasks = [
        {
            "id": 1,
            "data": {"image": "/data/upload/1/0a1b2c3d-street.png"},
            "annotations": [
                {
                    "result": [
                        {
                            "type": "rectanglelabels",
                            "original_width": 64,
                            "original_height": 48,
                            "value": {
                                "x": 25,
                                "y": 50,
                                "width": 50,
                                "height": 25,
                                "rectanglelabels": ["car"],
                            },
                        }
                    ]
                }
            ],
        }
    ]
    archive = factories.make_zip({"export.json": json.dumps(tasks).encode(), "street.png": png()})
    answer = post_archive(detection, archive, format="label_studio")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["mapping"] == {"annotation_format": "label_studio"}
    assert boxes_by_stem(detection["dataset"]) == {"street": [("car", 16.0, 24.0, 32.0, 12.0)]}

    plain = post_archive(detection, factories.make_zip({"a.png": png(shade=1), "b/c.png": png(shade=2)}))
    assert plain.status_code == 201 and plain.json()["imported"] == 2
    statuses = dict(
        Sample.objects.filter(dataset=detection["dataset"]).values_list("original_name", "annotation_status")
    )
    assert statuses["a.png"] == statuses["b/c.png"] == "unlabeled"
    assert Label.objects.filter(dataset=detection["dataset"], name="b").count() == 0  # folders are no labels
    labeled = post_archive(detection, factories.make_zip({"d.png": png(shade=9)}), label="car")
    assert labeled.status_code == 400 and "take no label" in labeled.json()["error"]["message"]
    classification = factories.dataset(detection["dataset"].project, name="Folders")
    refused = detection["client"].post(
        f"/api/v1/datasets/{classification.pk}/imports/",
        {
            "archive": factories.upload("a.zip", factories.make_zip({"a/d.png": png(shade=9)})),
            "format": "coco",
        },
        format="multipart",
    )
    assert refused.status_code == 400 and refused.json()["error"]["message"].startswith("format:")


def test_bad_coco_input_is_reported_per_file_and_annotation_and_the_rest_imports(detection):
    document = {
        "images": [
            {"id": 1, "file_name": "a.png", "width": 64, "height": 48},
            {"id": 2, "file_name": "b.png", "width": 64, "height": 48},
            {"id": 3, "file_name": "missing.png", "width": 64, "height": 48},
            {"id": 4, "file_name": "a.png", "width": 64, "height": 48},  # listed twice
        ],
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
        "annotations": [
            {"id": 10, "image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20]},  # fine
            {"id": 11, "image_id": 1, "category_id": 2, "bbox": [50, 10, 20, 10]},  # clipped at x = 64
            {"id": 12, "image_id": 1, "category_id": 1, "bbox": [60, 40, 30, 30]},  # mostly outside
            {"id": 13, "image_id": 2, "category_id": 1, "bbox": [5, 5, 0, 10]},  # zero width
            {"id": 14, "image_id": 2, "category_id": 99, "bbox": [5, 5, 10, 10]},  # unknown category
            {"id": 15, "image_id": 7, "category_id": 1, "bbox": [5, 5, 10, 10]},  # no such image
            {"id": 16, "image_id": 2, "category_id": 2, "bbox": [1, 2, 30, 40]},  # fine
        ],
    }
    archive = factories.make_zip(
        {
            "annotations.json": json.dumps(document).encode(),
            "a.png": png(shade=3),
            "b.png": png(shade=4),
            "broken.json": b'{"images": [',  # malformed JSON: reported, the rest goes on
        }
    )
    answer = post_archive(detection, archive, format="coco")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["imported"] == 2
    problems = {(p["code"], p["file"], p.get("annotation"), p.get("action")) for p in body["problems"]}
    codes = {p["code"] for p in body["problems"]}
    assert {
        "box_clipped",
        "box_outside_image",
        "box_empty",
        "unknown_category",
        "image_missing",
        "image_listed_twice",
        "malformed_file",
    } <= codes, body["problems"]
    assert all(p["file"] for p in body["problems"]) and all(p["message"] for p in body["problems"])
    assert any(code == "box_clipped" and action == "clipped" for code, _, _, action in problems)
    assert any(code == "malformed_file" and file == "broken.json" for code, file, _, _ in problems)
    found = boxes_by_stem(detection["dataset"])
    assert found["a"] == [("cat", 4.0, 4.0, 20.0, 20.0), ("dog", 50.0, 10.0, 14.0, 10.0)]
    assert found["b"] == [("dog", 1.0, 2.0, 30.0, 40.0)]
    assert list(Label.objects.filter(dataset=detection["dataset"]).values_list("name", flat=True)) == [
        "cat",
        "dog",
    ]


def test_a_malformed_yolo_line_is_named_with_its_line(detection):
    archive = factories.make_zip(
        {
            "classes.txt": b"cat\ndog\n",
            "images/a.png": png(shade=5),
            "labels/a.txt": b"0 0.5 0.5 0.25 0.5\nnot a box\n1 0.25 0.25 0.25 0.25\n",
        }
    )
    answer = post_archive(detection, archive)
    assert answer.status_code == 201, answer.json()
    malformed = [p for p in answer.json()["problems"] if p["code"] == "malformed_file"]
    assert [(p["file"], p.get("line")) for p in malformed] == [("labels/a.txt", 2)]
    assert len(boxes_by_stem(detection["dataset"])["a"]) == 2


def test_mixed_formats_are_refused_naming_both_and_nothing_is_imported(detection, tmp_path):
    from workers.object_detection.synthetic import write_scenes

    write_scenes(_scenes()[:2], tmp_path / "mixed", "coco")
    voc = (
        b"<annotation><filename>x.png</filename>"
        b"<size><width>64</width><height>64</height></size></annotation>"
    )
    (tmp_path / "mixed" / "x.xml").write_bytes(voc)
    answer = post_archive(detection, zip_folder(tmp_path / "mixed"))
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "mixed_annotation_formats"
    assert "COCO" in error["message"] and "VOC" in error["message"]
    assert not Sample.objects.filter(dataset=detection["dataset"]).exists()
    assert not Label.objects.filter(dataset=detection["dataset"]).exists()


def test_a_background_import_reads_the_format_it_was_given(detection, tmp_path):
    from workers.object_detection.synthetic import write_scenes

    written = write_scenes(_scenes()[:3], tmp_path / "yolo", "yolo")
    data = zip_folder(tmp_path / "yolo")
    batch = factories.import_batch(
        detection["dataset"], status="queued", mapping={"annotation_format": "yolo"}
    )
    done = import_stored_archive(
        batch=batch, fileobj=io.BytesIO(data), size=len(data), report=lambda *a, **k: None
    )
    assert (done.status, done.imported) == ("succeeded", 3)
    assert ImportBatch.objects.get(pk=batch.pk).labels_created == written["classes"]
    assert_within_a_pixel(boxes_by_stem(detection["dataset"]), set_boxes_by_stem(written))


def test_coco_round_trip_keeps_every_box_within_a_pixel_and_voc_yolo_export(detection, tmp_path):
    from workers.annotation_formats import parse_directory
    from workers.object_detection.synthetic import write_scenes

    written = write_scenes(_scenes(), tmp_path / "in", "coco")
    assert post_archive(detection, zip_folder(tmp_path / "in")).status_code == 201
    client, base = detection["client"], detection["base"]
    sample = Sample.objects.filter(dataset=detection["dataset"]).order_by("pk").first()
    state = client.get(f"{base}/samples/{sample.pk}/annotations/").json()
    client.put(
        f"{base}/samples/{sample.pk}/annotations/",
        {"revision": state["revision"], "status": "no_objects", "annotations": []},
        format="json",
    )
    expected = set_boxes_by_stem(written) | {stem(sample.original_name): []}
    for layout in ("coco", "voc", "yolo"):
        answer = client.get(f"{base}/export/", {"format": layout})
        assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
        folder = tmp_path / f"out-{layout}"
        with zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content))) as archive:
            archive.extractall(folder)
        back = parse_directory(folder)
        assert back["format"] == layout and back["classes"][:10] == written["classes"]
        assert_within_a_pixel(set_boxes_by_stem(back), expected)
    assert client.get(f"{base}/export/", {"format": "label_studio"}).status_code == 400
    version = client.post(f"{base}/versions/", {"seed": 5}, format="json").json()
    answer = client.get(f"{base}/export/", {"format": "yolo", "version": version["id"]})
    with zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content))) as archive:
        archive.extractall(tmp_path / "version-yolo")
    assert_within_a_pixel(set_boxes_by_stem(parse_directory(tmp_path / "version-yolo")), expected)


def test_a_malformed_voc_file_is_named_and_the_other_files_import(detection):
    good = (
        b"<annotation><filename>a.png</filename><size><width>64</width><height>48</height></size>"
        b"<object><name>cat</name><bndbox><xmin>2</xmin><ymin>3</ymin><xmax>12</xmax><ymax>13</ymax>"
        b"</bndbox></object></annotation>"
    )
    broken = (
        b"<annotation><filename>b.png</filename>\n<size><width>64</width>\n<object><name>cat</annotation>"
    )
    archive = factories.make_zip(
        {"a.xml": good, "a.png": png(shade=6), "b.xml": broken, "b.png": png(shade=7)}
    )
    answer = post_archive(detection, archive, format="voc")
    assert answer.status_code == 201, answer.json()
    malformed = [p for p in answer.json()["problems"] if p["code"] == "malformed_file"]
    assert [p["file"] for p in malformed] == ["b.xml"] and all(p.get("line") for p in malformed)
    found = boxes_by_stem(detection["dataset"])
    assert found["a"] == [("cat", 2.0, 3.0, 10.0, 10.0)] and found["b"] == []


def test_a_coco_archive_annotates_images_imported_plain_before_and_keeps_labeled_ones(detection, tmp_path):
    from workers.object_detection.synthetic import write_scenes

    written = write_scenes(_scenes()[:3], tmp_path / "coco", "coco")
    images = sorted((tmp_path / "coco").rglob("*.png"))
    assert len(images) == 3
    first = post_archive(detection, factories.make_zip({p.name: p.read_bytes() for p in images}))
    assert first.status_code == 201 and first.json()["imported"] == 3
    client, base = detection["client"], detection["base"]
    samples = list(Sample.objects.filter(dataset=detection["dataset"]).order_by("pk"))
    reviewed = samples[0]
    client.put(
        f"{base}/samples/{reviewed.pk}/annotations/",
        {"revision": 0, "status": "no_objects", "annotations": []},
        format="json",
    )
    second = post_archive(detection, zip_folder(tmp_path / "coco"))
    assert second.status_code == 201, second.json()
    assert (second.json()["imported"], second.json()["duplicates"]) == (0, 3)
    expected = set_boxes_by_stem(written) | {stem(reviewed.original_name): []}
    assert_within_a_pixel(boxes_by_stem(detection["dataset"]), expected)
    states = {
        s.pk: (s.annotation_status, s.label_version)
        for s in Sample.objects.filter(pk__in=[x.pk for x in samples])
    }
    assert states[reviewed.pk] == ("no_objects", 1)  # a person's review is kept
    assert all(states[s.pk] == ("annotated", 1) for s in samples[1:])
