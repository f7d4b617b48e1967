"""A detector's training survives kill -9 of the process running it (PostgreSQL, Redis, the live
worker): the reaper requeues the job, the next attempt resumes from the last complete checkpoint,
every epoch is validated once and one model version is recorded.

It kills a pool child of the session's live worker, so it runs with the other integration tests,
not in the fault suite's process (which starts workers of its own)."""

from __future__ import annotations

import os
import signal

import pytest
from jobs.models import Job, JobEvent

from tests.harness import wait_for
from tests.training.test_train_detection_through_the_api import detection_version, finished

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EPOCHS = 6


def test_detector_killed_mid_training_resumes_from_its_last_checkpoint(
    live_worker, tenants, api_client, tmp_path
):
    from jobs.services import jobs_reap_stale
    from training.models import ModelVersion

    client = api_client(tenants["alice"])
    version = detection_version(tenants, client, tmp_path, n=48, size=64)
    started = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "params": {"epochs": EPOCHS, "image_size": 64, "augmentation": "none"},
        },
        format="json",
    )
    assert started.status_code == 201, started.content
    job_id = started.json()["id"]

    def validated_epochs() -> list[int]:
        return list(
            JobEvent.objects.filter(job_id=job_id, type="progress", data__has_key="val_map50").values_list(
                "data__epoch", flat=True
            )
        )

    wait_for(
        lambda: max(validated_epochs(), default=0) >= 2, timeout=300, interval=0.2, what="two finished epochs"
    )
    job = Job.objects.get(pk=job_id)
    assert job.status == "running" and job.attempt == 1
    validated_before = max(validated_epochs())
    os.kill(int(job.lease_owner.rsplit("/", 1)[1]), signal.SIGKILL)  # the training process dies mid-run

    def requeued() -> bool:
        jobs_reap_stale()
        return Job.objects.get(pk=job_id).attempt >= 2

    wait_for(requeued, timeout=120, interval=1, what="the reaper to requeue the training job")
    job = finished(job_id, timeout=1500)
    assert job.attempt == 2
    resumed = job.result["resumed_from"]
    # a checkpoint is written after its epoch's validation: the kill may fall between the two
    assert resumed is not None and 1 <= resumed["epoch"] <= validated_before + 1, job.result
    assert job.result["metrics"]["epochs"] == EPOCHS
    epochs = validated_epochs()
    assert set(epochs) == set(range(1, EPOCHS + 1))
    # the epochs up to the resumed checkpoint are not trained (nor validated) again; a run resumed
    # at an epoch boundary sends that epoch's report once more (the kill may have come between its
    # checkpoint and its report), with the same figures
    assert all(epochs.count(e) == 1 for e in range(1, resumed["epoch"])), epochs
    last = resumed["epoch"]
    assert epochs.count(last) in ((1, 2) if resumed["batch_in_epoch"] == 0 else (1,)), (epochs, resumed)
    reports = JobEvent.objects.filter(
        job_id=job_id, type="progress", data__has_key="val_map50", data__epoch=last
    ).values_list("data__val_map50", "data__step")
    assert len(set(reports)) == 1, list(reports)
    model = ModelVersion.objects.get(job_id=job_id)
    assert model.template == "object_detection" and model.metrics["test"]["map50"] >= 0.0
    assert ModelVersion.objects.filter(project=tenants["project_a"]).count() == 1
