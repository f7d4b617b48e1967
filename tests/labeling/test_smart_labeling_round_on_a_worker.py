"""A smart-labeling round end to end on PostgreSQL, Redis and a live worker: real handwritten digits
with five labels per class, a round started through the REST API, a suggestion for every unlabeled
digit (mostly right), the round's ranking, a bulk accept of one class above 0.9 that labels those
samples through the activity log, and a version that holds only what a person labeled or accepted."""

from __future__ import annotations

import pytest
from datasets.models import ImportBatch, Sample, SampleActivity
from jobs.models import Job, JobEvent

from tests.datasets.factories import dataset_with_samples, digit_class
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PER_CLASS = 5
UNLABELED = 150
BATCH = 20


def test_round_suggests_ranks_and_bulk_accept_labels_samples(live_worker, tenants, api_client):
    alice = api_client(tenants["alice"])
    dataset = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Digits",
        per_class=PER_CLASS,
        classes=range(10),
        unlabeled=UNLABELED,
    )
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=300,
        interval=0.5,
        what="the archive import",
    )
    assert Sample.objects.filter(dataset=dataset).count() == 10 * PER_CLASS + UNLABELED
    # the truth of every unlabeled digit (factories.folder_layout: loose_i is digit 1000 + i)
    truth = {
        s.pk: str(digit_class(1000 + int(s.original_name[6:10])))
        for s in Sample.objects.filter(dataset=dataset, label=None)
    }
    human = Sample.objects.filter(dataset=dataset, label__isnull=False).order_by("pk").first()
    assert human is not None

    base = f"/api/v1/datasets/{dataset.pk}"
    started = alice.post(f"{base}/smart-labeling/", {"batch_size": BATCH, "seed": 1}, format="json")
    assert started.status_code == 202, started.content
    assert started.json()["status"] == "queued"

    def finished():
        job = Job.objects.get(pk=started.json()["job"])
        return job if job.status in ("succeeded", "failed", "cancelled") else None

    job = wait_for(finished, timeout=180, interval=0.5, what="the smart-labeling round")
    assert job.status == "succeeded", job.error
    assert job.result["smart_round"] == started.json()["id"] and job.result["suggestions"] == UNLABELED
    assert JobEvent.objects.filter(job=job, type="progress").count() >= 2  # the round showed progress

    smart_round = alice.get(f"{base}/smart-labeling/{started.json()['id']}/").json()
    assert smart_round["status"] == "succeeded", smart_round
    summary = smart_round["summary"]
    assert summary["labeled"] == 10 * PER_CLASS and summary["unlabeled"] == UNLABELED
    assert summary["ranked"] == BATCH and sum(summary["per_class_suggested"]) == UNLABELED

    suggestions = []
    url = f"{base}/suggestions/?page_size=500"
    suggestions = alice.get(url).json()["results"]
    assert {s["sample"]["id"] for s in suggestions} == set(truth)  # one for every unlabeled sample
    assert sorted(s["rank"] for s in suggestions if s["rank"] is not None) == list(range(1, BATCH + 1))
    right = sum(s["label_name"] == truth[s["sample"]["id"]] for s in suggestions)
    assert right / UNLABELED >= 0.8, f"{right} of {UNLABELED} suggestions right"

    three = next(label for label in alice.get(f"{base}/labels/").json()["results"] if label["name"] == "3")
    confident = [s for s in suggestions if s["label"] == three["id"] and s["confidence"] >= 0.9]
    assert confident, "no confident suggestion of class 3"
    accepted = alice.post(
        f"{base}/suggestions/accept/", {"label": three["id"], "min_confidence": 0.9}, format="json"
    ).json()
    assert accepted == {"accepted": len(confident), "skipped": []}
    labeled = Sample.objects.filter(pk__in=[s["sample"]["id"] for s in confident])
    assert set(labeled.values_list("label__name", flat=True)) == {"3"}
    log = SampleActivity.objects.filter(sample__in=labeled)
    assert log.count() == len(confident) and set(log.values_list("source", "actor")) == {
        ("suggestion", tenants["alice"].pk)
    }
    untouched = Sample.objects.get(pk=human.pk)
    assert (untouched.label_id, untouched.label_version) == (human.label_id, human.label_version)
    listed = alice.get(f"{base}/samples/{confident[0]['sample']['id']}/").json()
    assert listed["label"] == three["id"] and listed["suggestion"] is None
    pending = alice.get(
        f"{base}/samples/{next(iter(set(truth) - set(labeled.values_list('pk', flat=True))))}/"
    )
    assert pending.json()["suggestion"]["round"] == started.json()["id"]

    # a version holds the person's labels and the accepted suggestions, nothing else
    version = alice.post(f"{base}/versions/", {"seed": 3}, format="json")
    assert version.status_code == 201, version.content
    assert version.json()["sample_count"] == 10 * PER_CLASS + len(confident)
    assert version.json()["unlabeled_excluded"] == UNLABELED - len(confident)
