"""An import that gives samples labels (folder names, a label or target column, annotation files)
logs one activity entry per labeled sample (source ``import``, actor = who imported, before: nothing),
so "who set which label when" has no gap; unlabeled samples get none. The entries are inserted in
bulk: the number of queries does not grow with the number of samples."""

from __future__ import annotations

import json

import pytest
from datasets.models import Sample, SampleActivity
from datasets.services import dataset_create
from datasets.services.activity import activity_revert
from datasets.services.image_imports import import_archive
from datasets.services.table_imports import import_table
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def log(dataset) -> dict[str, tuple]:
    return {
        entry.sample.original_name: (entry.action, entry.source, entry.actor_id, entry.before, entry.after)
        for entry in SampleActivity.objects.filter(dataset=dataset).select_related("sample")
    }


def archive_import(dataset, user, entries: dict[str, bytes]) -> int:
    with CaptureQueriesContext(connection) as queries:
        import_archive(
            dataset=dataset, upload=factories.upload("a.zip", factories.make_zip(entries)), user=user
        )
    return len(queries)


def test_folder_labels_are_logged_in_bulk_and_revert_to_unlabeled(digits, tenants):
    alice = tenants["alice"]
    few = archive_import(
        digits, alice, {"3/a.png": factories.digit_bytes(1), "b.png": factories.digit_bytes(2)}
    )
    three = Sample.objects.get(original_name="3/a.png").label
    assert log(digits) == {
        "3/a.png": (
            "label",
            "import",
            alice.pk,
            {"label": None, "label_name": None},
            {"label": three.pk, "label_name": "3"},
        )
    }
    many = archive_import(
        digits, alice, {f"{i % 3}/{i}.png": factories.digit_bytes(10 + i) for i in range(30)}
    )
    assert SampleActivity.objects.filter(dataset=digits, source="import").count() == 31
    assert many <= few + 2  # new labels: one more insert and re-read; no query per sample

    entry = SampleActivity.objects.get(sample__original_name="3/a.png")
    activity_revert(dataset=digits, activity=entry, actor=alice)
    assert Sample.objects.get(original_name="3/a.png").label_id is None


def test_label_and_target_columns_are_logged(tenants, isolated_storage):
    alice = tenants["alice"]
    texts = dataset_create(
        user=alice, project=tenants["project_a"], name="Reviews", task_type="text_classification"
    )
    table = b"review,sentiment\ngreat stuff,pos\nawful stuff,neg\nno idea,\n"
    import_table(
        dataset=texts,
        upload=factories.upload("r.csv", table),
        user=alice,
        text_column="review",
        label_column="sentiment",
    )
    logged = log(texts)
    assert sorted(logged) == ["row 1: great stuff", "row 2: awful stuff"]
    assert logged["row 2: awful stuff"][4]["label_name"] == "neg"

    houses = dataset_create(
        user=alice, project=tenants["project_a"], name="Houses", task_type="tabular_regression"
    )
    rows = b"rooms,price\n3,250.5\n4,\n5,410\n"
    import_table(dataset=houses, upload=factories.upload("h.csv", rows), user=alice, target_column="price")
    assert {name: (a[0], a[1], a[3], a[4]) for name, a in log(houses).items()} == {
        "row 1": ("target", "import", {"target": None}, {"target": 250.5}),
        "row 3": ("target", "import", {"target": None}, {"target": 410.0}),
    }


def test_annotation_files_log_each_images_boxes(tenants, api_client, isolated_storage):
    alice = tenants["alice"]
    dataset = factories.dataset(tenants["project_a"], name="Streets", task_type="object_detection", by=alice)
    coco = {
        "images": [
            {"id": 1, "file_name": "a.png", "width": 32, "height": 32},
            {"id": 2, "file_name": "b.png", "width": 32, "height": 32},
        ],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [2, 3, 10, 12]}],
        "categories": [{"id": 1, "name": "car"}],
    }
    archive = factories.make_zip(
        {
            "annotations.json": json.dumps(coco).encode(),
            "a.png": factories.digit_bytes(1),
            "b.png": factories.digit_bytes(2),
            "c.png": factories.digit_bytes(3),
        }
    )
    answer = api_client(alice).post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": factories.upload("s.zip", archive), "format": "coco"},
        format="multipart",
    )
    assert answer.status_code == 201, answer.json()
    logged = log(dataset)
    assert sorted(logged) == ["a.png", "b.png"]  # c.png is not in the annotation file: unlabeled
    action, source, actor, before, after = logged["a.png"]
    assert (action, source, actor, before) == (
        "annotations",
        "import",
        alice.pk,
        {"status": "unlabeled", "boxes": []},
    )
    car = after["boxes"][0]
    assert (after["status"], car["label_name"], car["x"], car["width"]) == ("annotated", "car", 2.0, 10.0)
    assert logged["b.png"][4] == {"status": "no_objects", "boxes": []}
