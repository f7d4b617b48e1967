"""A study on digits with two live workers, against PostgreSQL (Optuna's storage too), Redis and
real Celery worker processes: it spends its whole trial budget with pruning active, keeps going when
one worker is SIGKILLed mid-trial, promotes its best trial to a model version with lineage and
reports the honest lift against the preset. Every answer is checked against the OpenAPI schema."""

from __future__ import annotations

import os
import signal

import psutil
import pytest
from jobs.models import Job

from tests.datasets.factories import dataset_with_samples
from tests.harness import start_worker, wait_for

pytestmark = [
    pytest.mark.openapi_conformance,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

EPOCHS = 4
N_TRIALS = 6


def digits_version(tenants, api_client, *, per_class: int) -> dict:
    dataset = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Digits",
        per_class=per_class,
        classes=range(10),
    )
    response = api_client(tenants["alice"]).post(
        f"/api/v1/datasets/{dataset.pk}/versions/", {"seed": 3}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def pids_of(process: psutil.Process) -> set[int]:
    try:
        return {process.pid, *(child.pid for child in process.children(recursive=True))}
    except psutil.NoSuchProcess:
        return set()


def test_study_spends_its_budget_on_two_workers_with_pruning_and_a_lost_worker(
    live_worker, tenants, api_client
):
    from automl.models import Study, Trial
    from automl.services import studies_reconcile
    from jobs.services import jobs_reap_stale

    client = api_client(tenants["alice"])
    version = digits_version(tenants, api_client, per_class=15)
    second = start_worker("automl-worker-2")
    try:
        created = client.post(
            "/api/v1/studies/",
            {
                "dataset_version": version["id"],
                "name": "digits search",
                "preset": "fast",
                "fixed_params": {"epochs": EPOCHS, "model": "cnn_small", "image_size": 32, "batch_size": 16},
                "search_space": [
                    {"name": "learning_rate", "type": "float", "low": 1e-5, "high": 3e-2, "log": True},
                    {"name": "weight_decay", "type": "float", "low": 1e-6, "high": 1e-2, "log": True},
                    {"name": "augmentation", "type": "categorical", "choices": ["none", "light"]},
                ],
                "sampler": "sde",
                "pruner": "successive_halving",
                "n_trials": N_TRIALS,
                "parallelism": 2,
                "seed": 5,
                "report_seeds": 1,
            },
            format="json",
        )
        assert created.status_code == 201, created.content
        study_id = created.json()["id"]
        assert created.json()["trials"]["running"] == 2, "parallelism 2: two trials queued at once"

        # kill the second worker (its whole process group) while it trains a trial
        worker_process = psutil.Process(second.proc.pid)

        def trial_running_on_second() -> Job | None:
            pids = pids_of(worker_process)
            for job in Job.objects.filter(kind="automl.trial", status="running", params__study=study_id):
                if int(job.lease_owner.rsplit("/", 1)[1]) in pids and job.progress.get("epoch"):
                    return job
            return None

        victim = wait_for(
            trial_running_on_second, timeout=300, interval=0.1, what="a trial running on worker 2"
        )
        os.killpg(second.proc.pid, signal.SIGKILL)
        second.proc.wait(timeout=30)
        victim.refresh_from_db()
        killed_mid_trial = victim.status == "running"

        def study_done() -> bool:
            jobs_reap_stale()
            studies_reconcile()
            return Study.objects.get(pk=study_id).status == "completed"

        wait_for(study_done, timeout=900, interval=1, what="the study to spend its budget")
    finally:
        second.stop()

    study = client.get(f"/api/v1/studies/{study_id}/").json()
    assert study["status"] == "completed"
    assert study["trials"]["total"] == N_TRIALS and study["trials"]["running"] == 0
    trials = client.get(f"/api/v1/studies/{study_id}/trials/").json()
    assert [t["number"] for t in trials] == list(range(N_TRIALS))
    assert {t["state"] for t in trials} <= {"complete", "pruned", "failed"}
    assert study["trials"]["complete"] >= 1

    # pruning was active: every trial reported its epochs, and pruned trials stopped early
    for trial in trials:
        epochs = [point["epoch"] for point in trial["intermediate"]]
        assert epochs == list(range(1, len(epochs) + 1)) and epochs, trial
        if trial["state"] == "complete":
            assert len(epochs) == EPOCHS
    pruned = [t for t in trials if t["state"] == "pruned"]
    assert pruned, "successive halving pruned no trial"
    assert all(
        t["pruned_at_epoch"] < EPOCHS and len(t["intermediate"]) == t["pruned_at_epoch"] for t in pruned
    )

    # the trial on the killed worker was taken over (or, had it just finished, recorded once)
    victim.refresh_from_db()
    victim_trial = Trial.objects.get(job=victim)
    if killed_mid_trial:
        assert victim.attempt >= 2, "the lost trial's job was not retried"
    assert victim_trial.state in ("complete", "pruned", "failed")

    results = client.get(f"/api/v1/studies/{study_id}/results/").json()
    best = results["best_trial"]
    assert best["value"] == max(t["value"] for t in trials if t["state"] == "complete")
    assert [p["trial"] for p in results["history"]] == sorted(
        t["number"] for t in trials if t["state"] == "complete"
    )
    assert results["history"][-1]["best"] == best["value"]

    promoted = client.post(f"/api/v1/studies/{study_id}/promote/", {}, format="json")
    assert promoted.status_code == 201, promoted.content
    model = promoted.json()
    assert model["dataset_version"] == version["id"] and model["template"] == "image_classification"
    assert (
        model["metrics"]["automl"]["study"] == study_id
        and model["metrics"]["automl"]["trial"] == best["number"]
    )
    for name, value in best["params"].items():
        assert model["params"][name] == value
    assert model["metrics"]["test"]["accuracy"] == best["test_metrics"]["accuracy"]
    onnx = client.get(f"/api/v1/model-versions/{model['id']}/onnx/")
    assert onnx.status_code == 200
    again = client.post(f"/api/v1/studies/{study_id}/promote/", {}, format="json")
    assert again.status_code == 409
    assert client.get(f"/api/v1/studies/{study_id}/").json()["best_trial"]["model_version"] == model["id"]

    # the honest lift: the preset and the best parameters with the same seed on the same data
    def lift_done():
        studies_reconcile()
        lift = client.get(f"/api/v1/studies/{study_id}/results/").json()["lift"]
        return lift if lift["status"] == "finished" else None

    lift = wait_for(lift_done, timeout=600, interval=1, what="the honest-lift runs")
    assert lift["seeds"] == [5] and not lift["errors"]
    assert len(lift["baseline"]["values"]) == 1 and len(lift["best"]["values"]) == 1
    assert lift["lift"] == pytest.approx(lift["best"]["mean"] - lift["baseline"]["mean"])
