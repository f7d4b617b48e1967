"""A detection sample's boxes are read and written whole through the REST API on PostgreSQL: a stale
revision is a 409 carrying the current state and saves nothing; bulk writes are all or nothing; a
bad box is refused naming the annotation and the problem; label rename, merge and delete keep the
boxes consistent."""

from __future__ import annotations

import threading
import time

import pytest
from datasets.exceptions import AnnotationConflict
from datasets.models import Annotation, Label, Sample
from datasets.services.annotations import annotations_write
from datasets.services.labels import label_delete
from django.db import connection, transaction

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def box(label: str, x: float, y: float, w: float, h: float, **attributes) -> dict:
    record = {"kind": "box", "label": label, "geometry": {"x": x, "y": y, "width": w, "height": h}}
    return record | ({"attributes": attributes} if attributes else {})


@pytest.fixture
def detection(tenants, api_client):
    dataset = factories.dataset(tenants["project_a"], name="Street", task_type="object_detection")
    cat, dog = factories.label(dataset, "cat"), factories.label(dataset, "dog")
    samples = [factories.sample(dataset, width=64, height=48) for _ in range(3)]
    return {
        "dataset": dataset,
        "labels": {"cat": cat, "dog": dog},
        "samples": samples,
        "client": api_client(tenants["alice"]),
        "base": f"/api/v1/datasets/{dataset.pk}",
    }


def url(detection, sample) -> str:
    return f"{detection['base']}/samples/{sample.pk}/annotations/"


def test_write_then_read_and_stale_revision_is_409_with_the_current_state(detection):
    client, first = detection["client"], detection["samples"][0]
    empty = client.get(url(detection, first))
    assert empty.status_code == 200
    assert empty.json() == {
        "sample": first.pk,
        "status": "unlabeled",
        "revision": 0,
        "width": 64,
        "height": 48,
        "annotations": [],
    }
    written = client.put(
        url(detection, first),
        {"revision": 0, "annotations": [box("cat", 1, 2, 10, 20, iscrowd=0), box("dog", 30.5, 10, 33.5, 38)]},
        format="json",
    )
    assert written.status_code == 200, written.json()
    body = written.json()
    assert (body["status"], body["revision"]) == ("annotated", 1)
    assert [(a["label"], a["geometry"], a["attributes"]) for a in body["annotations"]] == [
        ("cat", {"x": 1.0, "y": 2.0, "width": 10.0, "height": 20.0}, {"iscrowd": 0}),
        ("dog", {"x": 30.5, "y": 10.0, "width": 33.5, "height": 38.0}, {}),
    ]
    assert all(isinstance(a["id"], int) for a in body["annotations"])

    stale = client.put(url(detection, first), {"revision": 0, "annotations": []}, format="json")
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "annotation_conflict"
    assert error["details"]["current"] == body  # the truth, to merge with
    assert Annotation.objects.filter(sample=first).count() == 2  # nothing saved

    reviewed = client.put(
        url(detection, first), {"revision": 1, "status": "no_objects", "annotations": []}, format="json"
    )
    assert reviewed.status_code == 200
    assert (reviewed.json()["status"], reviewed.json()["revision"], reviewed.json()["annotations"]) == (
        "no_objects",
        2,
        [],
    )


@pytest.mark.parametrize(
    ("annotations", "status", "code", "field"),
    [
        (
            [box("cat", 1, 1, 5, 5), box("cat", 60, 1, 10, 5)],
            None,
            "annotation_out_of_bounds",
            "annotations[1].geometry",
        ),
        ([box("cat", -3, 1, 5, 5)], None, "annotation_out_of_bounds", "annotations[0].geometry"),
        ([box("cat", 1, 1, 0, 5)], None, "annotation_empty_box", "annotations[0].geometry"),
        ([box("cat", 1, 1, 5, -2)], None, "annotation_empty_box", "annotations[0].geometry"),
        ([box("cat", 1, 1, 5, 5), box("horse", 1, 1, 5, 5)], None, "unknown_label", "annotations[1].label"),
        ([box("cat", 1, 1, 5, 5)], "no_objects", "annotation_status_mismatch", "status"),
        ([], "annotated", "annotation_status_mismatch", "status"),
    ],
)
def test_a_bad_box_is_refused_naming_it_and_nothing_is_saved(detection, annotations, status, code, field):
    sample = detection["samples"][1]
    body = {"revision": 0, "annotations": annotations} | ({"status": status} if status else {})
    refused = detection["client"].put(url(detection, sample), body, format="json")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == code
    assert error["message"].startswith(field) and field in error["details"]
    sample.refresh_from_db()
    assert (sample.label_version, sample.annotation_status) == (0, "unlabeled")
    assert not Annotation.objects.filter(sample=sample).exists()


def test_a_box_on_the_edge_is_kept_and_a_hair_over_is_clipped(detection):
    sample = detection["samples"][1]
    written = detection["client"].put(
        url(detection, sample), {"revision": 0, "annotations": [box("cat", 0, 0, 64.0001, 48)]}, format="json"
    )
    assert written.status_code == 200
    assert written.json()["annotations"][0]["geometry"] == {"x": 0.0, "y": 0.0, "width": 64.0, "height": 48.0}


def test_bulk_is_all_or_nothing(detection):
    client, (a, b, c) = detection["client"], detection["samples"]
    bulk = f"{detection['base']}/annotations/bulk/"
    client.put(url(detection, b), {"revision": 0, "annotations": [box("dog", 1, 1, 4, 4)]}, format="json")
    items = [
        {"sample": a.pk, "revision": 0, "annotations": [box("cat", 1, 1, 5, 5)]},
        {"sample": b.pk, "revision": 0, "annotations": []},  # stale: b is at revision 1
        {"sample": c.pk, "revision": 0, "status": "no_objects", "annotations": []},
    ]
    conflict = client.post(bulk, {"items": items}, format="json")
    assert conflict.status_code == 409
    error = conflict.json()["error"]
    assert error["code"] == "annotation_conflict"
    assert [(s["sample"], s["revision"], len(s["annotations"])) for s in error["details"]["conflicts"]] == [
        (b.pk, 1, 1)
    ]
    assert list(Sample.objects.filter(pk__in=[a.pk, c.pk]).values_list("label_version", flat=True)) == [0, 0]

    items[1]["revision"] = 1
    items[2]["annotations"] = [box("cat", 1, 1, 5, 50)]  # taller than the image
    items[2].pop("status")
    bad = client.post(bulk, {"items": items}, format="json")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "annotation_out_of_bounds"
    assert bad.json()["error"]["message"].startswith("items[2].annotations[0].geometry")
    assert not Annotation.objects.filter(sample__in=[a, c]).exists()

    items[2] = {"sample": c.pk, "revision": 0, "status": "no_objects", "annotations": []}
    done = client.post(bulk, {"items": items}, format="json")
    assert done.status_code == 200, done.json()
    assert [
        (s["sample"], s["status"], s["revision"], len(s["annotations"])) for s in done.json()["items"]
    ] == [
        (a.pk, "annotated", 1, 1),
        (b.pk, "unlabeled", 2, 0),
        (c.pk, "no_objects", 1, 0),
    ]


def test_label_rename_merge_and_delete_keep_boxes_consistent(detection):
    client, base, (a, b, _) = detection["client"], detection["base"], detection["samples"]
    cat, dog = detection["labels"]["cat"], detection["labels"]["dog"]
    client.put(url(detection, a), {"revision": 0, "annotations": [box("cat", 1, 1, 5, 5)]}, format="json")
    client.put(
        url(detection, b),
        {"revision": 0, "annotations": [box("dog", 1, 1, 5, 5), box("cat", 9, 9, 3, 3)]},
        format="json",
    )
    labels = {lab["name"]: lab["sample_count"] for lab in client.get(f"{base}/labels/").json()["results"]}
    assert labels == {"cat": 2, "dog": 1}  # images having a box of the label

    assert client.patch(f"{base}/labels/{cat.pk}/", {"name": "kitten"}, format="json").status_code == 200
    assert [x["label"] for x in client.get(url(detection, a)).json()["annotations"]] == ["kitten"]

    merged = client.post(f"{base}/labels/{dog.pk}/merge/", {"into": cat.pk}, format="json")
    assert merged.status_code == 200 and merged.json()["affected_samples"] == 1
    after = client.get(url(detection, b)).json()
    assert [x["label"] for x in after["annotations"]] == ["kitten", "kitten"] and after["revision"] == 2

    deleted = client.delete(f"{base}/labels/{cat.pk}/")
    assert deleted.status_code == 200 and deleted.json()["affected_samples"] == 2
    for sample in (a, b):
        state = client.get(url(detection, sample)).json()
        assert (state["annotations"], state["status"]) == ([], "unlabeled")


def test_annotations_belong_to_detection_datasets_only(tenants, api_client):
    dataset = factories.dataset(tenants["project_a"], name="Digits")
    sample = factories.sample(dataset)
    client = api_client(tenants["alice"])
    answer = client.get(f"/api/v1/datasets/{dataset.pk}/samples/{sample.pk}/annotations/")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "annotations_unsupported"


def test_viewers_read_but_cannot_write_and_other_tenants_get_404(detection, tenants, api_client):
    sample = detection["samples"][0]
    viewer = api_client(tenants["carol"])
    assert viewer.get(url(detection, sample)).status_code == 200
    refused = viewer.put(url(detection, sample), {"revision": 0, "annotations": []}, format="json")
    assert refused.status_code == 403
    outsider = api_client(tenants["bob"]).get(url(detection, sample))
    assert outsider.status_code == 404
    bulk = api_client(tenants["bob"]).post(
        f"{detection['base']}/annotations/bulk/",
        {"items": [{"sample": sample.pk, "revision": 0, "annotations": []}]},
        format="json",
    )
    assert bulk.status_code == 404


def _in_thread(target, **kwargs):
    """Run target in a thread with its own database connection; returns (thread, outcome)."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = target(**kwargs)
        except Exception as exc:  # handed back to the test
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_one_wins_and_a_label_delete_waits_for_a_write_in_flight(tenants):
    dataset = factories.dataset(tenants["project_a"], name="Racing boxes", task_type="object_detection")
    factories.label(dataset, "cat")
    sample = factories.sample(dataset, width=64, height=48)

    # 1. Two writes of revision 0: the second waits for the first's transaction, then is refused
    #    with the first's result as the current state.
    with transaction.atomic():
        annotations_write(
            dataset=dataset, sample_id=sample.pk, revision=0, annotations=[box("cat", 1, 1, 5, 5)]
        )
        racing, raced = _in_thread(
            annotations_write, dataset=dataset, sample_id=sample.pk, revision=0, annotations=[]
        )
        time.sleep(0.3)
    racing.join(20)
    assert not racing.is_alive()
    refused = raced["error"]
    assert isinstance(refused, AnnotationConflict)
    assert (refused.details["current"]["revision"], len(refused.details["current"]["annotations"])) == (1, 1)

    # 2. A label delete that starts while a write with its boxes is in flight waits for it, then
    #    deletes those boxes too: no box is left pointing at a deleted label.
    cat = Label.objects.get(dataset=dataset, name="cat")
    with transaction.atomic():
        annotations_write(
            dataset=dataset,
            sample_id=sample.pk,
            revision=1,
            annotations=[box("cat", 1, 1, 5, 5), box("cat", 9, 9, 5, 5)],
        )
        deleting, deleted = _in_thread(label_delete, label=cat)
        time.sleep(0.3)
    deleting.join(20)
    assert not deleting.is_alive() and deleted == {"value": 1}
    sample.refresh_from_db()
    assert (sample.annotation_status, sample.label_version) == ("unlabeled", 3)
    assert not Annotation.objects.filter(sample=sample).exists()
    assert not Label.objects.filter(dataset=dataset).exists()


def test_deleting_a_dataset_or_its_project_takes_its_boxes_along(detection, tenants):
    client, a = detection["client"], detection["samples"][0]
    client.put(url(detection, a), {"revision": 0, "annotations": [box("cat", 1, 1, 5, 5)]}, format="json")
    assert client.delete(f"{detection['base']}/").status_code == 204
    assert not Annotation.objects.exists() and not Label.objects.filter(name="cat").exists()

    other = factories.dataset(tenants["project_a"], name="Second", task_type="object_detection")
    factories.label(other, "dog")
    sample = factories.sample(other, width=10, height=10)
    annotations_write(dataset=other, sample_id=sample.pk, revision=0, annotations=[box("dog", 1, 1, 2, 2)])
    tenants["project_a"].delete()  # the collector: samples cascade, the label's RESTRICT allows it
    assert not Annotation.objects.exists()
