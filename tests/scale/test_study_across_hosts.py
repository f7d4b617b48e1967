"""A study whose trials run on two hosts that share no disk (issue 22, "Many hosts"): Optuna's RDB storage
is the test PostgreSQL, blobs are in one S3 bucket, each worker has its own SAMPAN_HOME. Worker A is
SIGKILLed mid-trial (after the trial's checkpoint reached the bucket) and its SAMPAN_HOME deleted; the
reaper requeues the trial, which resumes from its mirrored checkpoint, A comes back as an empty host, and
the study spends exactly its trial budget."""

from __future__ import annotations

import pytest
from jobs.models import Job, JobEvent

from tests.harness import wait_for
from tests.scale.digits import digits_version

pytestmark = pytest.mark.django_db(transaction=True)

EPOCHS = 5
N_TRIALS = 5


def test_a_study_spends_its_budget_on_two_hosts_when_one_is_lost_mid_trial(
    hosts, object_storage, tenants, api_client
):
    from automl.models import Study, Trial
    from automl.services import studies_reconcile
    from jobs.services import jobs_reap_stale
    from training.checkpoint_mirror import mirror_prefix

    # checkpoints are copied often, so a trial of a few fast epochs is mirrored while it trains
    mirror_every = {"SAMPAN_CHECKPOINT_MIRROR_SECONDS": "0.1"}
    a, b = hosts.worker("a", env=mirror_every), hosts.worker("b", env=mirror_every)
    client = api_client(tenants["alice"])
    version = digits_version(client, tenants, per_class=12)
    created = client.post(
        "/api/v1/studies/",
        {
            "dataset_version": version,
            "name": "digits on two hosts",
            "preset": "fast",
            "fixed_params": {
                "epochs": EPOCHS,
                "model": "cnn_small",
                "image_size": 48,
                "batch_size": 16,
                "validation": "holdout",
            },
            "search_space": [
                {"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True},
                {"name": "weight_decay", "type": "float", "low": 1e-6, "high": 1e-2, "log": True},
            ],
            "sampler": "sde",
            "pruner": "none",  # every trial trains all its epochs: the kill lands mid-trial
            "n_trials": N_TRIALS,
            "parallelism": 2,
            "seed": 5,
            "report_seeds": 0,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    study_id = created.json()["id"]

    def mirrored(job: Job) -> bool:
        return any(
            key.endswith(".complete")
            for key in object_storage.keys(f"{object_storage.prefix}/{mirror_prefix(job)}/")
        )

    def trial_on_a_with_a_mirrored_checkpoint() -> Job | None:
        running = Job.objects.filter(kind="automl.trial", status="running", params__study=study_id)
        return next((job for job in running.filter(lease_node=a.hostname) if mirrored(job)), None)

    victim = wait_for(
        trial_on_a_with_a_mirrored_checkpoint,
        timeout=600,
        interval=0.2,
        what="a trial on A with a mirrored checkpoint",
    )
    a.kill()
    a.wipe_home()
    victim.refresh_from_db()
    killed_mid_trial = victim.status == "running"

    def requeued() -> bool:
        jobs_reap_stale()
        studies_reconcile()
        return Job.objects.get(pk=victim.pk).status != "running"

    wait_for(requeued, timeout=120, interval=1, what="the reaper to requeue the lost host's trial")
    a.start()  # the host comes back with an empty disk

    def study_done() -> bool:
        jobs_reap_stale()
        studies_reconcile()
        return Study.objects.get(pk=study_id).status == "completed"

    wait_for(study_done, timeout=1200, interval=1, what="the study to spend its budget")

    study = client.get(f"/api/v1/studies/{study_id}/").json()
    assert study["status"] == "completed"
    assert study["trials"]["total"] == N_TRIALS and study["trials"]["running"] == 0
    trials = client.get(f"/api/v1/studies/{study_id}/trials/").json()
    assert [t["number"] for t in trials] == list(range(N_TRIALS))
    assert {t["state"] for t in trials} == {"complete"}, [(t["number"], t["state"]) for t in trials]

    jobs = Job.objects.filter(kind="automl.trial", params__study=study_id)
    assert jobs.count() == N_TRIALS
    assert {a.hostname, b.hostname} <= set(jobs.values_list("lease_node", flat=True))

    victim.refresh_from_db()
    assert Trial.objects.get(job=victim).state == "complete"
    if killed_mid_trial:  # (had it just finished, it was recorded once and not run again)
        assert victim.attempt == 2, victim.attempt
        restored = JobEvent.objects.filter(job_id=victim.pk, message__startswith="restored checkpoint")
        assert restored.count() == 1, "the lost trial did not resume from its mirrored checkpoint"
    # every trial's outcome is stored: no mirrored checkpoint is left; no host kept blobs on its disk
    assert object_storage.keys(f"{object_storage.prefix}/runs/") == []
    assert hosts.blob_files() == {}
