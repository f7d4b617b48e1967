"""The pool smart labeling and the quality report read (``datasets.services.pools.label_pool``): for
each task type every sample in id order, labels as indices in the user's label order (unlabeled:
None), regression targets, detection boxes (unlabeled: None, reviewed with no objects: []), the
content (an image file, a text, a row with the table's columns and target); a version's pool has its
splits and classes, and a sample deleted since keeps a negative id."""

from __future__ import annotations

from pathlib import Path

import pytest
from datasets.models import Sample
from datasets.services import dataset_version_create
from datasets.services.annotations import annotations_write
from datasets.services.labels import labels_reorder
from datasets.services.pools import label_pool

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def test_image_classification_pool_follows_the_users_label_order(
    tenants, isolated_storage, tmp_path, settings
):
    dataset = factories.dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(3), unlabeled=1
    )
    labels = {label.name: label for label in dataset.labels.all()}
    labels_reorder(dataset=dataset, label_ids=[labels["2"].pk, labels["0"].pk, labels["1"].pk])

    pool = label_pool(dataset=dataset, cache_dir=tmp_path / "cache")

    rows = list(
        Sample.objects.filter(dataset=dataset).order_by("pk").values_list("pk", "label__name", "sha256")
    )
    assert pool["kind"] == "label_pool" and pool["task_type"] == "image_classification"
    assert pool["classes"] == ["2", "0", "1"]
    assert [s["id"] for s in pool["samples"]] == [pk for pk, _, _ in rows]
    assert [s["label"] for s in pool["samples"]] == [
        None if name is None else ["2", "0", "1"].index(name) for _, name, _ in rows
    ]
    assert [s["label"] for s in pool["samples"]].count(None) == 1
    assert [s["sha256"] for s in pool["samples"]] == [sha for _, _, sha in rows]
    first = pool["samples"][0]
    assert first["split"] == "" and first["width"] == 32 and first["height"] == 32
    with open(first["image_path"], "rb") as image:
        assert image.read(8) == b"\x89PNG\r\n\x1a\n"

    # object storage has no local paths: the blobs are copied into cache_dir
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "tests.datasets.factories.NoLocalPathStorage",
            "OPTIONS": {"location": str(isolated_storage)},
        },
    }
    subset = label_pool(dataset=dataset, cache_dir=tmp_path / "cache", sample_ids=[rows[1][0], rows[3][0]])
    assert [s["id"] for s in subset["samples"]] == [rows[1][0], rows[3][0]]
    assert all(s["image_path"].startswith(str(tmp_path / "cache")) for s in subset["samples"])


def test_text_and_tabular_pools_carry_texts_rows_columns_and_targets(tenants, tmp_path):
    project = tenants["project_a"]
    texts = factories.dataset(project, task_type="text_classification")
    good, bad = factories.label(texts, "好"), factories.label(texts, "差")
    for text, label in (("很好", good), ("太差了", bad), ("还没标", None)):
        factories.sample(texts, label=label, text=text, format="TEXT", blob_key="", width=0, height=0)
    pool = label_pool(dataset=texts, cache_dir=tmp_path)
    assert pool["classes"] == ["好", "差"]
    assert [(s["text"], s["label"]) for s in pool["samples"]] == [
        ("很好", 0),
        ("太差了", 1),
        ("还没标", None),
    ]
    assert "image_path" not in pool["samples"][0] and "columns" not in pool

    schema = {"columns": [{"name": "size", "type": "numeric"}, {"name": "city", "type": "categorical"}]}
    table = factories.dataset(project, task_type="tabular_classification")
    table.schema = {**schema, "target": "churn", "task": "classification"}
    table.save(update_fields=["schema"])
    yes = factories.label(table, "yes")
    factories.sample(table, label=yes, values={"size": 3, "city": "上海"}, format="ROW")
    factories.sample(table, values={"size": None, "city": "北京"}, format="ROW")
    pool = label_pool(dataset=table, cache_dir=tmp_path)
    assert pool["columns"] == schema["columns"] and pool["target"] == "churn"
    assert [(s["values"], s["label"]) for s in pool["samples"]] == [
        ({"size": 3, "city": "上海"}, 0),
        ({"size": None, "city": "北京"}, None),
    ]

    prices = factories.dataset(project, task_type="tabular_regression")
    prices.schema = {**schema, "target": "price", "task": "regression"}
    prices.save(update_fields=["schema"])
    factories.sample(prices, values={"size": 1, "city": "a"}, target=2.5, format="ROW")
    factories.sample(prices, values={"size": 2, "city": "b"}, target=None, format="ROW")
    pool = label_pool(dataset=prices, cache_dir=tmp_path)
    assert pool["target"] == "price" and pool["classes"] == []
    assert [(s["label"], s["target"]) for s in pool["samples"]] == [(None, 2.5), (None, None)]


def box(label: str, x: float, y: float, w: float, h: float) -> dict:
    return {"kind": "box", "label": label, "geometry": {"x": x, "y": y, "width": w, "height": h}}


def test_detection_pool_tells_unlabeled_from_no_objects(tenants, tmp_path):
    dataset = factories.dataset(tenants["project_a"], name="Scenes", task_type="object_detection")
    factories.label(dataset, "dog")
    factories.label(dataset, "cat")
    annotated, empty, unlabeled = (factories.sample(dataset, width=100, height=50) for _ in range(3))
    annotations_write(
        dataset=dataset,
        sample_id=annotated.pk,
        revision=0,
        annotations=[box("cat", 1, 2, 30, 20), box("dog", 40, 5, 10.5, 10)],
    )
    annotations_write(dataset=dataset, sample_id=empty.pk, revision=0, annotations=[], status="no_objects")

    pool = label_pool(dataset=dataset, cache_dir=tmp_path)

    assert pool["classes"] == ["dog", "cat"]
    by_id = {s["id"]: s for s in pool["samples"]}
    assert by_id[annotated.pk]["boxes"] == [
        {"label": 1, "x": 1.0, "y": 2.0, "width": 30.0, "height": 20.0},
        {"label": 0, "x": 40.0, "y": 5.0, "width": 10.5, "height": 10.0},
    ]
    assert by_id[empty.pk]["boxes"] == [] and by_id[unlabeled.pk]["boxes"] is None
    assert all(s["label"] is None and s["width"] == 100 for s in pool["samples"])


def test_version_pool_has_splits_classes_and_survives_deleted_samples(tenants, tmp_path):
    dataset = factories.dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=5, classes=range(2), unlabeled=2
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=3)
    gone = Sample.objects.filter(dataset=dataset, label__isnull=False).order_by("pk").first()
    assert gone is not None
    gone_id = gone.pk
    gone.delete()

    pool = label_pool(dataset=dataset, version=version, cache_dir=tmp_path)

    entries = list(version.entries.order_by("pk").values_list("pk", "sample_id", "split", "label_index"))
    assert pool["classes"] == list(version.classes) == ["0", "1"]
    assert len(pool["samples"]) == 10  # the unlabeled samples are not in the version
    assert [(s["id"], s["split"], s["label"]) for s in pool["samples"]] == [
        (sample_id if sample_id is not None else -entry, split, index)
        for entry, sample_id, split, index in entries
    ]
    assert gone_id not in {s["id"] for s in pool["samples"]}
    assert sum(1 for s in pool["samples"] if s["id"] < 0) == 1
    assert {s["split"] for s in pool["samples"]} <= {"train", "val", "test"}
    assert all(Path(s["image_path"]).read_bytes()[:4] == b"\x89PNG" for s in pool["samples"])
