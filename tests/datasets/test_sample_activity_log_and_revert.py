"""Every label, box and review change of a sample is logged (who, from where, before and after);
writes outside a review make a reviewed sample unreviewed again; a change can be reverted from the
log unless the sample changed since (409 label_conflict)."""

from __future__ import annotations

import pytest
from datasets.exceptions import LabelConflict
from datasets.models import ReviewStatus, Sample, SampleActivity
from datasets.services.activity import activity_revert, samples_set_review
from datasets.services.annotations import annotations_write
from datasets.services.labels import label_delete, label_merge, sample_set_label, samples_set_labels

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def box(label: str, x: float, y: float, w: float, h: float) -> dict:
    return {"kind": "box", "label": label, "geometry": {"x": x, "y": y, "width": w, "height": h}}


@pytest.fixture
def classification(tenants):
    dataset = factories.dataset(tenants["project_a"], name="Pets")
    cat, dog = factories.label(dataset, "cat"), factories.label(dataset, "dog")
    samples = [factories.sample(dataset) for _ in range(3)]
    return dataset, cat, dog, samples


def log_of(sample: Sample) -> list[tuple[str, str, object, object]]:
    return [(a.action, a.source, a.before, a.after) for a in SampleActivity.objects.filter(sample=sample)]


def test_label_writes_are_logged_and_unreview_the_sample(classification, tenants):
    dataset, cat, dog, (one, two, three) = classification
    alice = tenants["alice"]
    sample_set_label(dataset=dataset, sample_id=one.pk, label_id=cat.pk, label_version=0, actor=alice)
    samples_set_review(dataset=dataset, sample_ids=[one.pk], status=ReviewStatus.ACCEPTED, actor=alice)
    assert Sample.objects.get(pk=one.pk).review_status == ReviewStatus.ACCEPTED

    samples_set_labels(
        dataset=dataset,
        changes=[
            {"id": one.pk, "label": dog.pk, "label_version": 1},
            {"id": two.pk, "label": cat.pk, "label_version": 0},
        ],
        actor=alice,
        source="suggestion",
    )
    assert Sample.objects.get(pk=one.pk).review_status == ReviewStatus.UNREVIEWED
    cat_entry = {"label": cat.pk, "label_name": "cat"}
    dog_entry = {"label": dog.pk, "label_name": "dog"}
    nothing = {"label": None, "label_name": None}
    assert log_of(one) == [
        ("label", "suggestion", cat_entry, dog_entry),
        ("review", "review", {"review_status": "unreviewed"}, {"review_status": "accepted"}),
        ("label", "manual", nothing, cat_entry),
    ]
    assert SampleActivity.objects.filter(sample=one)[0].actor == alice
    assert log_of(three) == []

    # a merge logs every moved sample in one go; a delete leaves them unlabeled
    assert label_merge(label=cat, into=dog, actor=alice) == 1
    assert log_of(two)[0] == ("label", "label_change", cat_entry, dog_entry)
    assert label_delete(label=dog, actor=alice) == 2
    assert log_of(one)[0] == ("label", "label_change", dog_entry, nothing)


def test_revert_restores_before_and_refuses_when_the_sample_changed_since(classification, tenants):
    dataset, cat, dog, (one, *_) = classification
    alice, bob = tenants["alice"], tenants["bob"]
    sample_set_label(dataset=dataset, sample_id=one.pk, label_id=cat.pk, label_version=0, actor=alice)
    sample_set_label(dataset=dataset, sample_id=one.pk, label_id=dog.pk, label_version=1, actor=bob)
    to_cat, to_dog = SampleActivity.objects.filter(sample=one).order_by("id")

    with pytest.raises(LabelConflict) as refused:
        activity_revert(dataset=dataset, activity=to_cat, actor=alice)
    assert refused.value.code == "label_conflict"
    assert Sample.objects.get(pk=one.pk).label_id == dog.pk

    entry = activity_revert(dataset=dataset, activity=to_dog, actor=alice)
    assert (entry.source, entry.reverts_id, entry.actor) == ("revert", to_dog.pk, alice)
    assert entry.after == {"label": cat.pk, "label_name": "cat"}
    assert Sample.objects.get(pk=one.pk).label_id == cat.pk
    # now the first change is the latest one again: it can be reverted back to unlabeled
    activity_revert(dataset=dataset, activity=to_cat, actor=alice)
    assert Sample.objects.get(pk=one.pk).label_id is None


def test_a_review_verdict_reverts_to_the_status_before_it(classification, tenants):
    dataset, cat, _dog, (one, *_) = classification
    alice, bob = tenants["alice"], tenants["bob"]
    samples_set_review(dataset=dataset, sample_ids=[one.pk], status=ReviewStatus.ACCEPTED, actor=alice)
    samples_set_review(dataset=dataset, sample_ids=[one.pk], status=ReviewStatus.REJECTED, actor=bob)
    accepted, rejected = SampleActivity.objects.filter(sample=one).order_by("id")

    with pytest.raises(LabelConflict):  # the sample is no longer accepted
        activity_revert(dataset=dataset, activity=accepted, actor=alice)
    entry = activity_revert(dataset=dataset, activity=rejected, actor=alice)
    assert (entry.action, entry.source, entry.reverts_id) == ("review", "revert", rejected.pk)
    assert entry.actor == alice
    assert (entry.before, entry.after) == ({"review_status": "rejected"}, {"review_status": "accepted"})
    assert Sample.objects.get(pk=one.pk).review_status == ReviewStatus.ACCEPTED
    activity_revert(dataset=dataset, activity=accepted, actor=alice)
    assert Sample.objects.get(pk=one.pk).review_status == ReviewStatus.UNREVIEWED


def test_box_changes_are_logged_and_reverted(tenants):
    dataset = factories.dataset(tenants["project_a"], name="Street", task_type="object_detection")
    factories.label(dataset, "cat"), factories.label(dataset, "dog")
    sample = factories.sample(dataset, width=64, height=48)
    alice = tenants["alice"]
    annotations_write(
        dataset=dataset, sample_id=sample.pk, revision=0, annotations=[box("cat", 1, 2, 10, 10)], actor=alice
    )
    annotations_write(
        dataset=dataset,
        sample_id=sample.pk,
        revision=1,
        annotations=[box("cat", 1, 2, 10, 10), box("dog", 20, 20, 5, 5)],
        actor=alice,
        source="task",
    )
    latest, first = SampleActivity.objects.filter(sample=sample)
    assert (first.before, first.source) == ({"status": "unlabeled", "boxes": []}, "manual")
    assert [b["label_name"] for b in latest.after["boxes"]] == ["cat", "dog"]
    assert latest.source == "task" and len(latest.before["boxes"]) == 1

    entry = activity_revert(dataset=dataset, activity=latest, actor=alice)
    assert entry.action == "annotations" and entry.source == "revert"
    sample.refresh_from_db()
    assert sample.annotations.count() == 1 and sample.label_version == 3


def test_the_api_lists_a_samples_log_newest_first_and_reverts(classification, tenants, api_client):
    dataset, cat, dog, (one, two, _) = classification
    client = api_client(tenants["alice"])
    base = f"/api/v1/datasets/{dataset.pk}"
    assert (
        client.patch(
            f"{base}/samples/{one.pk}/", {"label": cat.pk, "label_version": 0}, format="json"
        ).status_code
        == 200
    )
    assert (
        client.patch(
            f"{base}/samples/{one.pk}/", {"label": dog.pk, "label_version": 1}, format="json"
        ).status_code
        == 200
    )
    assert (
        client.patch(
            f"{base}/samples/{two.pk}/", {"label": dog.pk, "label_version": 0}, format="json"
        ).status_code
        == 200
    )

    page = client.get(f"{base}/activity/", {"sample": one.pk}).json()
    assert page["count"] == 2
    latest, first = page["results"]
    assert (latest["actor_username"], latest["source"], latest["action"]) == ("alice", "manual", "label")
    assert latest["before"] == {"label": cat.pk, "label_name": "cat"}
    assert (latest["can_revert"], first["can_revert"]) == (True, False)

    refused = client.post(f"{base}/activity/{first['id']}/revert/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "label_conflict"
    reverted = client.post(f"{base}/activity/{latest['id']}/revert/")
    assert reverted.status_code == 200, reverted.content
    assert (reverted.json()["source"], reverted.json()["reverts"]) == ("revert", latest["id"])
    assert client.get(f"{base}/samples/{one.pk}/").json()["label"] == cat.pk
    assert client.get(f"{base}/activity/").json()["count"] == 4
    assert client.get(f"{base}/activity/", {"sample": "x"}).status_code == 400


def test_an_answer_of_boxes_is_checked_without_writing(tenants):
    from config.exceptions import InvalidInput
    from datasets.services.annotations import annotations_check

    dataset = factories.dataset(tenants["project_a"], name="Checked", task_type="object_detection")
    factories.label(dataset, "cat")
    sample = factories.sample(dataset, width=64, height=48)
    assert (
        annotations_check(dataset=dataset, sample=sample, annotations=[box("cat", 1, 2, 10, 10)])
        == "annotated"
    )
    assert (
        annotations_check(dataset=dataset, sample=sample, annotations=[], status="no_objects") == "no_objects"
    )
    with pytest.raises(InvalidInput) as outside:
        annotations_check(
            dataset=dataset, sample=sample, annotations=[box("cat", 60, 2, 10, 10)], where="answer."
        )
    assert (outside.value.code, outside.value.field) == (
        "annotation_out_of_bounds",
        "answer.annotations[0].geometry",
    )
    with pytest.raises(InvalidInput) as unknown:
        annotations_check(dataset=dataset, sample=sample, annotations=[box("dog", 1, 2, 10, 10)])
    assert unknown.value.code == "unknown_label"
    assert sample.annotations.count() == 0 and SampleActivity.objects.count() == 0


def test_label_merge_and_delete_log_the_boxes_they_move(tenants):
    dataset = factories.dataset(tenants["project_a"], name="Merged boxes", task_type="object_detection")
    cat, dog, pet = (factories.label(dataset, name) for name in ("cat", "dog", "pet"))
    sample = factories.sample(dataset, width=64, height=48)
    alice = tenants["alice"]
    annotations_write(
        dataset=dataset,
        sample_id=sample.pk,
        revision=0,
        annotations=[box("cat", 1, 2, 10, 10), box("dog", 20, 20, 5, 5)],
        actor=alice,
    )
    assert label_merge(label=cat, into=pet, actor=alice) == 1
    merged = SampleActivity.objects.filter(sample=sample).first()
    assert (merged.action, merged.source, merged.actor) == ("annotations", "label_change", alice)
    assert [b["label_name"] for b in merged.before["boxes"]] == ["cat", "dog"]
    assert [b["label_name"] for b in merged.after["boxes"]] == ["pet", "dog"]
    assert label_delete(label=pet, actor=alice) == 1
    deleted = SampleActivity.objects.filter(sample=sample).first()
    assert [b["label_name"] for b in deleted.after["boxes"]] == ["dog"] and deleted.after[
        "status"
    ] == "annotated"
    # the merge cannot be reverted any more: its boxes changed since
    with pytest.raises(LabelConflict):
        activity_revert(dataset=dataset, activity=merged, actor=alice)
    assert label_delete(label=dog, actor=alice) == 1
    emptied = SampleActivity.objects.filter(sample=sample).first()
    assert emptied.after == {"status": "unlabeled", "boxes": []}
    assert Sample.objects.get(pk=sample.pk).annotation_status == "unlabeled"
