"""Label management says how many samples each change touches; label writes on samples use
optimistic concurrency (409 with the current value, nothing silently overwritten); a label
deleted while a write is in flight gives a clear 4xx and leaves nothing corrupted."""

from __future__ import annotations

import threading
import time

import pytest
from datasets.models import Label, Sample
from datasets.services.labels import label_delete, sample_set_label
from django.db import connection, transaction

from tests.datasets.factories import dataset_with_samples

pytestmark = pytest.mark.django_db


@pytest.fixture
def labeled(tenants, api_client, isolated_storage):
    """Classes 0, 1, 2 with 3 samples each, plus 2 unlabeled."""
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=3, classes=range(3), unlabeled=2
    )
    labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset)}
    return {
        "dataset": dataset,
        "labels": labels,
        "client": api_client(tenants["alice"]),
        "base": f"/api/v1/datasets/{dataset.pk}",
    }


def samples_of(label: Label | None, dataset) -> list[int]:
    return sorted(Sample.objects.filter(dataset=dataset, label=label).values_list("pk", flat=True))


def test_labels_list_with_sample_counts_and_create_rename(labeled):
    client, base = labeled["client"], labeled["base"]
    listed = client.get(f"{base}/labels/").json()["results"]
    assert [(lab["name"], lab["sample_count"]) for lab in listed] == [("0", 3), ("1", 3), ("2", 3)]
    assert all(lab["color"].startswith("#") for lab in listed)
    created = client.post(f"{base}/labels/", {"name": "cat", "color": "#112233"}, format="json")
    assert created.status_code == 201 and created.json()["sample_count"] == 0
    taken = client.post(f"{base}/labels/", {"name": "cat"}, format="json")
    assert taken.status_code == 400 and "already has a label named 'cat'" in taken.json()["error"]["message"]
    slash = client.post(f"{base}/labels/", {"name": "a/b"}, format="json")
    assert slash.status_code == 400 and "folder names" in slash.json()["error"]["message"]
    renamed = client.patch(f"{base}/labels/{labeled['labels']['0'].pk}/", {"name": "zero"}, format="json")
    assert renamed.status_code == 200 and renamed.json() | {"created_at": None} == {
        "id": labeled["labels"]["0"].pk,
        "name": "zero",
        "color": labeled["labels"]["0"].color,
        "position": 0,
        "shortcut": "",
        "key": "1",
        "sample_count": 3,
        "created_at": None,
    }
    onto = client.patch(f"{base}/labels/{labeled['labels']['1'].pk}/", {"name": "zero"}, format="json")
    assert onto.status_code == 400 and "merge the two labels instead" in onto.json()["error"]["message"]


def test_delete_says_how_many_samples_change_and_unlabels_them(labeled):
    client, dataset, label = labeled["client"], labeled["dataset"], labeled["labels"]["1"]
    members = samples_of(label, dataset)
    url = f"{labeled['base']}/labels/{label.pk}/"
    dry = client.delete(f"{url}?dry_run=1")
    assert dry.status_code == 200 and dry.json() == {
        "label": label.pk,
        "affected_samples": 3,
        "dry_run": True,
    }
    assert samples_of(label, dataset) == members
    done = client.delete(url)
    assert done.status_code == 200 and done.json() == {
        "label": label.pk,
        "affected_samples": 3,
        "dry_run": False,
    }
    assert not Label.objects.filter(pk=label.pk).exists()
    assert set(members) <= set(samples_of(None, dataset))
    assert set(Sample.objects.filter(pk__in=members).values_list("label_version", flat=True)) == {1}
    assert client.delete(url).status_code == 404


def test_merge_moves_samples_and_says_how_many(labeled):
    client, dataset = labeled["client"], labeled["dataset"]
    source, target = labeled["labels"]["0"], labeled["labels"]["2"]
    url = f"{labeled['base']}/labels/{source.pk}/merge/"
    dry = client.post(url, {"into": target.pk, "dry_run": True}, format="json")
    assert dry.json() == {"label": source.pk, "into": target.pk, "affected_samples": 3, "dry_run": True}
    assert len(samples_of(target, dataset)) == 3
    done = client.post(url, {"into": target.pk}, format="json")
    assert done.status_code == 200 and done.json()["affected_samples"] == 3
    assert len(samples_of(target, dataset)) == 6 and not Label.objects.filter(pk=source.pk).exists()
    itself = client.post(f"{labeled['base']}/labels/{target.pk}/merge/", {"into": target.pk}, format="json")
    assert itself.status_code == 400 and "into itself" in itself.json()["error"]["message"]
    gone = client.post(f"{labeled['base']}/labels/{target.pk}/merge/", {"into": source.pk}, format="json")
    assert gone.status_code == 400 and f"No label {source.pk}" in gone.json()["error"]["message"]


def test_stale_label_write_answers_409_with_the_current_value(labeled):
    client, base, labels = labeled["client"], labeled["base"], labeled["labels"]
    sample = Sample.objects.filter(dataset=labeled["dataset"], label__isnull=True).first()
    url = f"{base}/samples/{sample.pk}/"
    first = client.patch(url, {"label": labels["0"].pk, "label_version": 0}, format="json")
    assert first.status_code == 200 and (first.json()["label"], first.json()["label_version"]) == (
        labels["0"].pk,
        1,
    )
    # A second labeler still has version 0 on screen.
    stale = client.patch(url, {"label": labels["1"].pk, "label_version": 0}, format="json")
    error = stale.json()["error"]
    assert stale.status_code == 409 and error["code"] == "label_conflict"
    assert "relabeled by someone else" in error["message"] and "nothing was saved" in error["message"]
    assert error["details"]["current"] == {
        "id": sample.pk,
        "label": labels["0"].pk,
        "label_name": "0",
        "label_version": 1,
    }
    sample.refresh_from_db()
    assert (sample.label_id, sample.label_version) == (labels["0"].pk, 1)
    unlabel = client.patch(url, {"label": None, "label_version": 1}, format="json")
    assert (
        unlabel.status_code == 200
        and unlabel.json()["label"] is None
        and unlabel.json()["label_version"] == 2
    )


def test_label_of_another_dataset_is_refused(labeled, tenants):
    other = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Other", per_class=1, classes=[5]
    )
    foreign = Label.objects.get(dataset=other)
    sample = Sample.objects.filter(dataset=labeled["dataset"]).first()
    response = labeled["client"].patch(
        f"{labeled['base']}/samples/{sample.pk}/",
        {"label": foreign.pk, "label_version": sample.label_version},
        format="json",
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "label_deleted"
    assert f"Label {foreign.pk} does not exist in this dataset" in response.json()["error"]["message"]


def test_bulk_label_is_all_or_nothing(labeled):
    client, base, dataset, labels = labeled["client"], labeled["base"], labeled["dataset"], labeled["labels"]
    targets = list(Sample.objects.filter(dataset=dataset, label=labels["2"]).order_by("pk"))
    items = [{"id": s.pk, "label_version": s.label_version} for s in targets]
    # Someone relabels the middle one first.
    client.patch(
        f"{base}/samples/{targets[1].pk}/", {"label": labels["0"].pk, "label_version": 0}, format="json"
    )
    conflict = client.post(
        f"{base}/samples/bulk-label/", {"label": labels["1"].pk, "items": items}, format="json"
    )
    error = conflict.json()["error"]
    assert conflict.status_code == 409 and error["code"] == "label_conflict"
    assert "1 of the 3 samples" in error["message"]
    assert error["details"]["conflicts"] == [
        {"id": targets[1].pk, "label": labels["0"].pk, "label_name": "0", "label_version": 1}
    ]
    assert len(samples_of(labels["1"], dataset)) == 3 and len(samples_of(labels["2"], dataset)) == 2, (
        "nothing may change on a conflict"
    )
    items[1]["label_version"] = 1
    done = client.post(
        f"{base}/samples/bulk-label/", {"label": labels["1"].pk, "items": items}, format="json"
    )
    assert done.status_code == 200
    assert done.json() == {
        "updated": 3,
        "samples": [
            {"id": s.pk, "label": labels["1"].pk, "label_version": 2 if s == targets[1] else 1}
            for s in targets
        ],
    }
    missing = client.post(
        f"{base}/samples/bulk-label/",
        {"label": None, "items": [{"id": 10**9, "label_version": 0}]},
        format="json",
    )
    assert missing.status_code == 400 and "1000000000" in missing.json()["error"]["message"]


def _in_thread(target, *args, **kwargs):
    """Run target in a thread with its own database connection; returns (thread, outcome)."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = target(*args, **kwargs)
        except Exception as exc:  # handed back to the test
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.django_db(transaction=True)
def test_label_deleted_while_a_write_is_in_flight(tenants, api_client, isolated_storage):
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(2), unlabeled=1
    )
    label = Label.objects.get(dataset=dataset, name="0")
    sample = Sample.objects.get(dataset=dataset, label__isnull=True)

    # 1. The write is in flight (its transaction is open) when the delete starts: the delete waits,
    #    then unlabels the freshly written sample too. Nothing points at a deleted label.
    with transaction.atomic():
        sample_set_label(dataset=dataset, sample_id=sample.pk, label_id=label.pk, label_version=0)
        deleting, deleted = _in_thread(label_delete, label=label)
        time.sleep(0.5)
        assert deleting.is_alive(), "the delete did not wait for the write in flight"
    deleting.join(10)
    assert deleted == {"value": 3}
    sample.refresh_from_db()
    assert (sample.label_id, sample.label_version) == (None, 2)

    # 2. The delete is in flight when the write arrives: the write waits, then answers 409 naming
    #    the label; the sample keeps the state the delete left.
    other = Label.objects.get(dataset=dataset, name="1")
    victim = Sample.objects.filter(dataset=dataset, label=other).first()
    client = api_client(tenants["alice"])
    with transaction.atomic():
        label_delete(label=other)
        writing, written = _in_thread(
            client.patch,
            f"/api/v1/datasets/{dataset.pk}/samples/{sample.pk}/",
            {"label": other.pk, "label_version": 2},
            format="json",
        )
        time.sleep(0.5)
        assert writing.is_alive(), "the write did not wait for the delete in flight"
    writing.join(10)
    response = written["value"]
    assert response.status_code == 409 and response.json()["error"]["code"] == "label_deleted"
    assert f"Label {other.pk} does not exist" in response.json()["error"]["message"]
    sample.refresh_from_db()
    victim.refresh_from_db()
    assert (sample.label_id, sample.label_version) == (None, 2)
    assert (victim.label_id, victim.label_version) == (None, 1)
    assert not Label.objects.filter(dataset=dataset).exists()
