"""A study's default budget fits the workers online (GET /studies/defaults/, and a study created
without one), and a study never completes while one of its trials still reads running."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.datasets.factories import dataset_with_samples
from tests.jobs.factories import job, worker_node

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

TEMPLATE = "image_classification"


@pytest.fixture
def version(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=6, classes=range(3)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


def defaults(client, template=TEMPLATE):
    return client.get("/api/v1/studies/defaults/", {"template": template})


def test_no_worker_online_one_trial_at_a_time_and_no_wall_time(tenants, api_client):
    body = defaults(api_client(tenants["alice"])).json()
    assert body["queue"] == "cpu" and body["workers"] == 0 and body["slots"] == 0
    assert body["parallelism"] == 1 and body["n_trials"] == 12
    assert body["timeout_seconds"] is None and body["trial_seconds"] is None and body["measured_runs"] == 0
    assert body["explanation"].startswith("no worker online for the cpu queue")


def test_one_worker_running_one_job_at_a_time(tenants, api_client):
    worker_node("cpu-1@test", queues=("cpu",), concurrency=1)
    body = defaults(api_client(tenants["carol"])).json()  # a viewer may read it too
    assert (body["workers"], body["slots"], body["parallelism"]) == (1, 1, 1)
    assert body["explanation"] == (
        "1 worker online for the cpu queue running 1 job at a time -> 1 trial at a time"
    )


def test_gpu_workers_give_their_concurrency_and_more_trials(tenants, api_client):
    worker_node("cpu-1@test", queues=("cpu",), concurrency=4)  # not the trials' queue once a GPU is up
    worker_node("gpu-1@test", queues=("cpu", "gpu"), concurrency=2)
    worker_node("gpu-2@test", queues=("gpu",), concurrency=1)
    body = defaults(api_client(tenants["alice"])).json()
    assert body["queue"] == "gpu" and (body["workers"], body["slots"], body["parallelism"]) == (2, 3, 3)
    assert body["n_trials"] == 24


def test_measured_runs_size_the_wall_time(tenants, api_client, version):
    """Trials of this template took 10 minutes each: 12 trials one at a time fill the 2 hour target;
    the wall time allows half as long again."""
    from tests.automl.factories import study, trial

    worker_node("cpu-1@test", queues=("cpu",), concurrency=1)
    made = study(version)
    end = timezone.now()
    for minutes in (9, 10, 11):
        ran = job(
            tenants["project_a"],
            kind="automl.trial",
            status="succeeded",
            started_at=end - timedelta(minutes=minutes),
            finished_at=end,
        )
        trial(made, job=ran)
    body = defaults(api_client(tenants["alice"])).json()
    assert body["trial_seconds"] == 600 and body["measured_runs"] == 3
    assert body["n_trials"] == 12 and body["estimated_seconds"] == 7200
    assert body["timeout_seconds"] == 10800
    assert "a trial took 600 s (median of 3), so 12 trials take about 120 min" in body["explanation"]


def test_an_unknown_template_is_refused(tenants, api_client):
    response = defaults(api_client(tenants["alice"]), template="no_such_template")
    assert response.status_code == 400
    assert "template" in response.json()["error"]["details"]
    missing = api_client(tenants["alice"]).get("/api/v1/studies/defaults/")
    assert missing.status_code == 400 and "template" in missing.json()["error"]["details"]


def test_a_study_without_a_budget_gets_the_one_that_fits(tenants, api_client, version):
    worker_node("cpu-1@test", queues=("cpu",), concurrency=1)
    response = api_client(tenants["alice"]).post(
        "/api/v1/studies/", {"dataset_version": version.pk, "report_seeds": 0}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["parallelism"] == 1 and body["n_trials"] == 12
    assert body["trials"]["running"] == 1, "one trial queued: the one worker runs one at a time"
    assert body["my_role"] == "owner"


def test_my_role_on_studies(tenants, api_client, version):
    from tests.automl.factories import study

    made = study(version)
    assert api_client(tenants["carol"]).get(f"/api/v1/studies/{made.pk}/").json()["my_role"] == "viewer"
    listed = api_client(tenants["erin"]).get("/api/v1/studies/").json()["results"]
    assert [row["my_role"] for row in listed] == ["editor"]


def test_the_last_trial_is_final_when_the_study_completes(tenants, api_client, version):
    """The trial's state is written before the study is scheduled to completion, so whoever reads
    a completed study reads no running trial (the study page stopped polling on a stale one)."""
    from automl import services
    from automl.models import Study, Trial

    client = api_client(tenants["alice"])
    created = client.post(
        "/api/v1/studies/",
        {"dataset_version": version.pk, "n_trials": 2, "parallelism": 2, "report_seeds": 0},
        format="json",
    ).json()
    first, last = Trial.objects.filter(study_id=created["id"]).order_by("number")
    services.trial_record_failed(trial=first, error="boom")
    assert Study.objects.get(pk=created["id"]).status == "running", "one trial still in flight"
    # the last trial's job ended without telling (its worker lost for good): the scheduler settles it
    last.job.status = "failed"
    last.job.error = "worker lost"
    last.job.save(update_fields=["status", "error"])
    services.studies_reconcile()
    study = client.get(f"/api/v1/studies/{created['id']}/").json()
    assert study["status"] == "completed"
    assert study["trials"]["running"] == 0
    trials = client.get(f"/api/v1/studies/{created['id']}/trials/").json()
    assert [t["state"] for t in trials] == ["failed", "failed"]
    assert all(t["finished_at"] for t in trials)
