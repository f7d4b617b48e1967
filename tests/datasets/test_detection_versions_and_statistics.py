"""Object-detection datasets through the REST API on PostgreSQL: the sample list's box fields, filters
and counts; the statistics' box figures; a version snapshots the reviewed images with their boxes
(unlabeled left out, no_objects kept with no boxes) and its manifest is a DetectionManifest."""

from __future__ import annotations

import pytest
from datasets.models import Annotation, DatasetVersion
from datasets.services import dataset_version_check_trainable, dataset_version_manifest
from datasets.services.annotations import annotations_write

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def box(label: str, x: float, y: float, w: float, h: float) -> dict:
    return {"kind": "box", "label": label, "geometry": {"x": x, "y": y, "width": w, "height": h}}


@pytest.fixture
def scene(tenants, api_client):
    """Six 100x50 images: four annotated (cat boxes on all four, a dog on one), one reviewed with no
    objects, one unlabeled."""
    dataset = factories.dataset(tenants["project_a"], name="Scenes", task_type="object_detection")
    cat, dog = factories.label(dataset, "cat"), factories.label(dataset, "dog")
    samples = [factories.sample(dataset, width=100, height=50) for _ in range(6)]
    writes = [
        [box("cat", 0, 0, 10, 5)],  # 1% of the image
        [box("cat", 0, 0, 50, 25), box("dog", 50, 25, 50, 25)],  # 25% each
        [box("cat", 0, 0, 100, 50), box("cat", 10, 10, 1, 1), box("cat", 20, 20, 1, 1)],  # 100%, 0.02% x2
        [box("cat", 5, 5, 20, 10)],  # 4%
    ]
    for sample, records in zip(samples, writes, strict=False):
        annotations_write(dataset=dataset, sample_id=sample.pk, revision=0, annotations=records)
    annotations_write(
        dataset=dataset, sample_id=samples[4].pk, revision=0, annotations=[], status="no_objects"
    )
    return {
        "dataset": dataset,
        "cat": cat,
        "dog": dog,
        "samples": samples,
        "client": api_client(tenants["alice"]),
        "base": f"/api/v1/datasets/{dataset.pk}",
    }


def test_sample_list_fields_filters_and_counts(scene):
    client, base, s = scene["client"], scene["base"], scene["samples"]
    cat, dog = scene["cat"].pk, scene["dog"].pk
    page = client.get(f"{base}/samples/").json()
    assert page["counts"] | {"per_label": None} == {
        "total": 6,
        "labeled": 5,
        "unlabeled": 1,
        "annotated": 4,
        "no_objects": 1,
        "per_label": None,
    }
    assert [(row["name"], row["count"]) for row in page["counts"]["per_label"]] == [("cat", 4), ("dog", 1)]
    assert [(r["annotation_status"], r["box_count"], r["box_labels"]) for r in page["results"]] == [
        ("annotated", 1, [cat]),
        ("annotated", 2, [cat, dog]),
        ("annotated", 3, [cat]),
        ("annotated", 1, [cat]),
        ("no_objects", 0, []),
        ("unlabeled", 0, []),
    ]

    assert page["results"][1]["boxes"] == [
        {"label": cat, "x": 0.0, "y": 0.0, "width": 50.0, "height": 25.0},
        {"label": dog, "x": 50.0, "y": 25.0, "width": 50.0, "height": 25.0},
    ]
    one = client.get(f"{base}/samples/{s[1].pk}/").json()
    assert (one["annotation_status"], one["box_count"], one["box_labels"]) == ("annotated", 2, [cat, dog])

    def ids(**query) -> tuple[int, list[int]]:
        answer = client.get(f"{base}/samples/", query).json()
        return answer["count"], [r["id"] for r in answer["results"]]

    assert ids(box_label=dog) == (1, [s[1].pk])
    assert ids(label=dog) == (1, [s[1].pk])  # a label filter on a detection dataset is by box
    assert ids(annotation_status="no_objects") == (1, [s[4].pk])
    assert ids(annotation_status="unlabeled") == (1, [s[5].pk])
    assert ids(unlabeled="true") == (1, [s[5].pk])
    assert ids(unlabeled="false")[0] == 5
    assert ids(box_label=cat, annotation_status="annotated") == (4, [x.pk for x in s[:4]])
    datasets = client.get("/api/v1/datasets/", {"project": scene["dataset"].project_id}).json()["results"]
    assert [(d["sample_count"], d["labeled_count"]) for d in datasets if d["id"] == scene["dataset"].pk] == [
        (6, 5)
    ]


def test_statistics_count_boxes_per_class_per_image_and_by_relative_area(scene):
    stats = scene["client"].get(f"{scene['base']}/statistics/").json()["detection"]
    assert stats["boxes"] == 7
    assert stats["boxes_per_class"] == [{"label": "cat", "count": 6}, {"label": "dog", "count": 1}]
    assert stats["boxes_per_image"] == {"bins": [1.0, 2.0, 3.0, 4.0], "counts": [2, 1, 1]}
    edges = stats["relative_area"]["bins"]
    assert len(edges) == 11 and edges[0] == pytest.approx(1e-4) and edges[-1] == pytest.approx(1.0)
    expected = [0] * 10
    for area in [0.01, 0.25, 0.25, 1.0, 0.0002, 0.0002, 0.04]:
        expected[min(9, max(i for i in range(10) if area >= edges[i] - 1e-12))] += 1
    assert stats["relative_area"]["counts"] == expected and sum(expected) == 7
    assert (stats["images_without_boxes"], stats["unlabeled"], stats["no_objects"], stats["annotated"]) == (
        2,
        1,
        1,
        4,
    )


def test_a_version_snapshots_reviewed_images_and_its_manifest_is_a_detection_manifest(scene, tmp_path):
    client, base, s = scene["client"], scene["base"], scene["samples"]
    made = client.post(
        f"{base}/versions/",
        {"seed": 3, "train_ratio": 0.6, "val_ratio": 0.2, "test_ratio": 0.2},
        format="json",
    )
    assert made.status_code == 201, made.json()
    assert sum(made.json()["totals"].values()) == 5  # images per split (counts are boxes)
    version = DatasetVersion.objects.get(pk=made.json()["id"])
    assert (version.classes, version.sample_count, version.unlabeled_excluded) == (["cat", "dog"], 5, 1)
    assert sum(sum(c.values()) for c in version.counts.values()) == 7  # boxes per class per split
    manifest = dataset_version_manifest(version=version, cache_dir=tmp_path)
    assert (manifest["kind"], manifest["version"], manifest["classes"]) == ("detection", 1, ["cat", "dog"])
    by_id = {m["id"]: m for m in manifest["samples"]}
    assert sorted(by_id) == sorted(x.pk for x in s[:5])
    assert by_id[s[4].pk]["boxes"] == [] and by_id[s[1].pk]["width"] == 100
    assert by_id[s[1].pk]["boxes"] == [
        {"label": 0, "x": 0.0, "y": 0.0, "width": 50.0, "height": 25.0},
        {"label": 1, "x": 50.0, "y": 25.0, "width": 50.0, "height": 25.0},
    ]
    assert {m["split"] for m in manifest["samples"]} <= {"train", "val", "test"}
    dataset_version_check_trainable(version=version, min_per_class=1)
    with pytest.raises(Exception, match="'dog' has 1"):
        dataset_version_check_trainable(version=version, min_per_class=2)

    # later edits leave the snapshot alone
    Annotation.objects.filter(sample=s[1]).delete()
    again = dataset_version_manifest(version=version, cache_dir=tmp_path)
    assert len({m["id"]: m for m in again["samples"]}[s[1].pk]["boxes"]) == 2


def test_a_version_needs_reviewed_images(tenants, api_client):
    dataset = factories.dataset(tenants["project_a"], name="Empty boxes", task_type="object_detection")
    factories.sample(dataset)
    refused = api_client(tenants["alice"]).post(f"/api/v1/datasets/{dataset.pk}/versions/", {}, format="json")
    assert refused.status_code == 400 and "no reviewed images" in refused.json()["error"]["message"]


def test_the_detection_sample_list_takes_the_same_queries_for_one_image_or_many(tenants, api_client):
    """tests/test_list_query_budgets.py budgets the sample list on a classification dataset; a
    detection dataset's list adds the box fields (one query for the page's boxes) and its counts."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    dataset = factories.dataset(tenants["project_a"], name="Budget boxes", task_type="object_detection")
    labels = [factories.label(dataset, f"class {i}") for i in range(3)]
    client = api_client(tenants["alice"])

    def add(n: int) -> None:
        for i in range(n):
            sample = factories.sample(dataset, width=40, height=40)
            records = [box(labels[(i + j) % 3].name, j, j, 5, 5) for j in range(1 + i % 3)]
            annotations_write(dataset=dataset, sample_id=sample.pk, revision=0, annotations=records)

    def queries() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as captured:
            answer = client.get(f"/api/v1/datasets/{dataset.pk}/samples/")
        assert answer.status_code == 200
        assert all(row["box_count"] >= 1 for row in answer.json()["results"])
        return answer.json()["count"], len(captured)

    add(1)
    queries()  # warm what a process caches
    one = queries()
    add(4)
    many = queries()
    assert (one[0], many[0]) == (1, 5)
    assert many[1] == one[1] <= 5, f"{one[1]} queries for one image, {many[1]} for five"
