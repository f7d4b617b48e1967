"""A training job survives losing its host (issue 22, "Many hosts"): worker A trains digits with its
checkpoints mirrored to the S3 bucket (training.checkpoint_mirror), is SIGKILLed after a mirrored
checkpoint and its SAMPAN_HOME deleted; the reaper requeues the job, worker B (another host, an empty
disk) downloads the mirrored checkpoint, resumes from that epoch instead of epoch 0 and records the model
version; the mirror is deleted once the model version is stored."""

from __future__ import annotations

import re

import pytest
from jobs.models import Job, JobEvent

from tests.harness import wait_for
from tests.scale.digits import digits_version, start_training
from tests.training.test_train_detection_through_the_api import finished

pytestmark = pytest.mark.django_db(transaction=True)

EPOCHS = 12
# A copies its newest checkpoint often: the test must see one in the bucket while A still trains (at the
# default 2 s a fast machine trained all 12 epochs between two looks, so nothing was ever mirrored)
MIRROR_EVERY = {"SAMPAN_CHECKPOINT_MIRROR_SECONDS": "0.1"}
MARKER = re.compile(r"/checkpoints/epoch-(\d+)-step-(\d+)\.pt\.complete$")


def mirrored_epochs(storage) -> list[int]:
    return sorted(int(m[1]) for key in storage.keys(f"{storage.prefix}/runs/") if (m := MARKER.search(key)))


def resumed_on(b, job_id: int) -> Job:
    """The reaper requeues the lost host's job, and host ``b`` runs its second attempt to success."""
    from jobs.services import jobs_reap_stale

    def requeued() -> bool:
        jobs_reap_stale()
        return Job.objects.get(pk=job_id).attempt >= 2

    wait_for(requeued, timeout=120, interval=1, what="the reaper to requeue the lost host's job")
    job = finished(job_id, timeout=900)
    assert job.attempt == 2 and job.lease_node == b.hostname, (job.attempt, job.lease_node)
    return job


def test_a_training_job_resumes_on_another_host_from_its_mirrored_checkpoint(
    hosts, object_storage, tenants, api_client
):
    from training.models import ModelVersion

    a = hosts.worker("a", env=MIRROR_EVERY)
    b = hosts.worker("b", env=MIRROR_EVERY, start=False)
    client = api_client(tenants["alice"])
    version = digits_version(client, tenants, per_class=20)
    job_id = start_training(
        client,
        version,
        {"epochs": EPOCHS, "model": "cnn_small", "image_size": 64, "batch_size": 16, "validation": "holdout"},
    )

    def mirrored_while_a_trains() -> list[int]:
        if epochs := mirrored_epochs(object_storage):
            return epochs
        job = Job.objects.get(pk=job_id)  # fail at once, naming why, rather than wait out the timeout
        assert job.status in ("queued", "running") and job.lease_node in (None, "", a.hostname), (
            f"job {job_id} is {job.status} on {job.lease_node!r} and no checkpoint was mirrored:\n"
            f"{a.log()[-4000:]}"
        )
        return []

    # A trains until a checkpoint of a finished epoch is in the bucket, then the host is lost
    wait_for(mirrored_while_a_trains, timeout=600, interval=0.1, what="a mirrored checkpoint")
    job = Job.objects.get(pk=job_id)
    assert job.status == "running" and job.lease_node == a.hostname, (job.status, job.lease_node)
    assert (a.home / "runs").is_dir()
    a.kill()
    mirrored = mirrored_epochs(object_storage)
    a.wipe_home()
    # only the newest is kept: a second one only when A was killed between an upload and the deletion
    # of the one before it
    assert 1 <= len(mirrored) <= 2 and mirrored[0] >= 1, mirrored
    b.start()

    job = resumed_on(b, job_id)

    # B resumed from the mirrored epoch, not from 0; the epochs before it were not trained again
    resumed = job.result["resumed_from"]
    assert resumed is not None and resumed["epoch"] >= mirrored[-1] >= 1, job.result
    assert resumed["checkpoint"].startswith(str(b.home)), resumed
    restored = JobEvent.objects.filter(job_id=job_id, message__startswith="restored checkpoint").values_list(
        "message", flat=True
    )
    assert len(restored) == 1 and f"(epoch {resumed['epoch']}," in restored[0], list(restored)
    validated = list(
        JobEvent.objects.filter(job_id=job_id, type="progress", data__has_key="val_acc")
        .exclude(data__val_acc=None)
        .values_list("data__epoch", flat=True)
    )
    assert set(validated) == set(range(1, EPOCHS + 1))
    assert all(validated.count(e) == 1 for e in range(1, resumed["epoch"])), validated

    model = ModelVersion.objects.get(job_id=job_id)
    assert model.metrics["epochs"] == EPOCHS and model.metrics["test"]["accuracy"] > 0.2
    # the model version is stored: its mirrored checkpoints are gone; no host kept blobs on its disk
    assert mirrored_epochs(object_storage) == []
    assert hosts.blob_files() == {}


FOLD_RECORD = re.compile(r"/folds/(fold-\d+)/fold\.json$")
FOLD_CHECKPOINT = re.compile(r"/folds/(fold-\d+)/checkpoints/epoch-\d+-step-\d+\.pt\.complete$")


def test_a_cross_validated_job_moves_hosts_without_training_its_finished_folds_again(
    hosts, object_storage, tenants, api_client
):
    """A cross-validated training (3 folds) loses host A after its first fold finished: B restores the
    finished folds' records and the fold in progress's checkpoint from the bucket, so no finished fold
    is trained twice."""
    from training.models import ModelVersion

    a = hosts.worker("a", env=MIRROR_EVERY)
    b = hosts.worker("b", env=MIRROR_EVERY, start=False)
    client = api_client(tenants["alice"])
    version = digits_version(client, tenants, per_class=10)
    job_id = start_training(
        client,
        version,
        {
            "epochs": 4,
            "model": "cnn_small",
            "image_size": 48,
            "batch_size": 16,
            "validation": "cross_validation",
            "folds": 3,
        },
    )

    def keys(pattern: re.Pattern) -> set[str]:
        return {
            m[1]
            for key in object_storage.keys(f"{object_storage.prefix}/runs/")
            if (m := pattern.search(key))
        }

    def first_fold_mirrored() -> bool:
        job = Job.objects.get(pk=job_id)
        assert job.status in ("queued", "running"), (
            f"job {job_id} ended ({job.status}) first:\n{a.log()[-4000:]}"
        )
        return "fold-0" in keys(FOLD_RECORD)

    wait_for(first_fold_mirrored, timeout=600, interval=0.1, what="the first fold's record in the bucket")
    assert Job.objects.get(pk=job_id).lease_node == a.hostname
    a.kill()
    finished_folds = sorted(keys(FOLD_RECORD))
    folds_in_progress = keys(FOLD_CHECKPOINT) - set(finished_folds)
    a.wipe_home()
    b.start()

    resumed_on(b, job_id)

    events = list(JobEvent.objects.filter(job_id=job_id).values_list("message", flat=True))
    restored = [e for e in events if e.startswith(f"restored {len(finished_folds)} finished fold(s)")]
    assert len(restored) == 1 and all(f in restored[0] for f in finished_folds), events
    for fold in folds_in_progress:  # its mirrored checkpoint came back
        assert any(e.startswith(f"restored {fold} checkpoint") for e in events), (fold, events)
    # every fold finished exactly once over both hosts: the restored ones were not trained again
    for i in range(1, 4):
        done = [e for e in events if e.startswith(f"fold {i}/3 done")]
        assert len(done) == 1, (i, done)
    model = ModelVersion.objects.get(job_id=job_id)
    spread = model.evaluation["cross_validation"]  # the three folds' held-out scores, in the report
    assert spread["folds"] == 3 and len(spread["scores"]) == 3, spread
    # the outcome is stored: nothing of the run is left in the bucket, no host kept blobs
    assert not object_storage.keys(f"{object_storage.prefix}/runs/")
    assert hosts.blob_files() == {}
