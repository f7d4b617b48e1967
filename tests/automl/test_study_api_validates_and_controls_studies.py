"""Studies through the API without workers: the default search space, validation errors that name
the field, pause/resume/stop, and Optuna's record of the study in PostgreSQL (schema optuna). Every
answer is checked against the OpenAPI schema (tests/openapi_conformance.py)."""

from __future__ import annotations

import pytest

from tests.datasets.factories import dataset_with_samples

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]


@pytest.fixture
def version(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=6, classes=range(3)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


def post(client, version, **body):
    return client.post("/api/v1/studies/", {"dataset_version": version.pk, **body}, format="json")


def test_default_study_uses_the_templates_search_space_and_queues_parallel_trials(
    tenants, api_client, version
):
    from automl import engine
    from automl.models import Study
    from jobs.models import Job

    client = api_client(tenants["alice"])
    response = post(client, version, n_trials=5, parallelism=3)
    assert response.status_code == 201, response.content
    study = response.json()
    names = {d["name"] for d in study["search_space"]}
    assert {"learning_rate", "weight_decay", "batch_size", "epochs", "model", "augmentation"} <= names
    assert study["sampler"] == "sde" and study["pruner"] == "median" and study["preset"] == "balanced"
    assert study["status"] == "running" and study["trials"] == {
        "total": 3,
        "running": 3,
        "complete": 0,
        "pruned": 0,
        "failed": 0,
    }
    jobs = Job.objects.filter(kind="automl.trial", params__study=study["id"])
    assert jobs.count() == 3 and {j.status for j in jobs} == {"queued"}

    trials = client.get(f"/api/v1/studies/{study['id']}/trials/").json()
    assert [t["number"] for t in trials] == [0, 1, 2]
    assert len({tuple(sorted(t["params"].items())) for t in trials}) == 3, "three distinct points"
    for trial in trials:
        lr = trial["params"]["learning_rate"]
        assert 1e-4 <= lr <= 1e-2 and trial["params"]["model"] in ("cnn_small", "resnet_narrow")

    # Optuna's own record lives in the platform's database
    import optuna

    loaded = optuna.load_study(
        study_name=Study.objects.get(pk=study["id"]).optuna_name, storage=engine.storage()
    )
    assert len(loaded.trials) == 3 and loaded.direction == optuna.study.StudyDirection.MAXIMIZE
    assert engine.storage_url()[0].startswith("postgresql+psycopg://")

    # jobs of a study cannot be started by hand through /jobs/
    generic = client.post(
        "/api/v1/jobs/", {"workspace": tenants["ws_a"].pk, "kind": "automl.trial"}, format="json"
    )
    assert generic.status_code == 400 and "/api/v1/studies/" in generic.json()["error"]["message"]


def test_a_fixed_parameter_leaves_the_default_search_space(tenants, api_client, version):
    """docs/sdk.md's example: fixed_params={"epochs": 5} with no search_space searches the rest."""
    client = api_client(tenants["alice"])
    response = post(client, version, n_trials=2, parallelism=1, fixed_params={"epochs": 5})
    assert response.status_code == 201, response.content
    study = response.json()
    names = {d["name"] for d in study["search_space"]}
    assert "epochs" not in names and {"learning_rate", "batch_size"} <= names
    assert study["fixed_params"]["epochs"] == 5


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (
            {"search_space": [{"name": "learning_rate", "type": "float", "low": 0.1, "high": 0.01}]},
            "search_space[0].high",
            "greater than low",
        ),
        (
            {
                "search_space": [
                    {"name": "learning_rate", "type": "float", "low": 0, "high": 0.1, "log": True}
                ]
            },
            "search_space[0].low",
            "log-scale",
        ),
        (
            {"search_space": [{"name": "colour", "type": "float", "low": 0, "high": 1}]},
            "search_space[0].name",
            "Unknown",
        ),
        (
            {"search_space": [{"name": "model", "type": "categorical", "choices": ["resnet_narrow", "vgg"]}]},
            "search_space[0].choices",
            "vgg",
        ),
        (
            {"search_space": [{"name": "epochs", "type": "int", "low": 0, "high": 5}]},
            "search_space[0].low",
            "between",
        ),
        (
            {"search_space": [{"name": "batch_size", "type": "float", "low": 8, "high": 64}]},
            "search_space[0].type",
            "int",
        ),
        ({"search_space": []}, "search_space", "non-empty"),
        (
            {
                "fixed_params": {"epochs": 3},
                "search_space": [{"name": "epochs", "type": "int", "low": 2, "high": 4}],
            },
            "search_space[0].name",
            "fixed",
        ),
        ({"fixed_params": {"epochs": -1}}, "fixed_params.epochs", "between"),
        (
            {"search_space": [{"name": "warmup_epochs", "type": "int", "low": 0, "high": 40}]},
            "search_space[0].name",
            "warmup_epochs",
        ),
        ({"sampler": "annealing"}, "sampler", ""),
        ({"parallelism": 0}, "parallelism", ""),
    ],
)
def test_bad_studies_are_refused_naming_the_field(tenants, api_client, version, body, field, words):
    from automl.models import Study

    response = post(api_client(tenants["alice"]), version, **body)
    assert response.status_code == 400, response.content
    details = response.json()["error"]["details"]
    assert field in details, details
    assert words in " ".join(details[field])
    assert not Study.objects.exists()


def test_pause_resume_and_stop(tenants, api_client, version):
    from jobs.models import Job

    client = api_client(tenants["alice"])
    study = post(
        client,
        version,
        n_trials=4,
        parallelism=1,
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}],
    ).json()
    url = f"/api/v1/studies/{study['id']}/"
    assert client.post(url + "resume/").status_code == 409
    paused = client.post(url + "pause/")
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    assert client.post(url + "pause/").status_code == 409
    resumed = client.post(url + "resume/")
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"
    assert resumed.json()["trials"]["total"] == 1, "resuming does not exceed the parallelism"
    stopped = client.post(url + "stop/")
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
    assert set(
        Job.objects.filter(kind="automl.trial", params__study=study["id"]).values_list("status", flat=True)
    ) == {"cancelled"}
    assert client.post(url + "promote/", {}, format="json").status_code == 409
    viewer = api_client(tenants["carol"]).post(url + "pause/")
    assert viewer.status_code == 403


def test_wall_time_budget_and_failed_trials_end_the_study(tenants, api_client, version):
    from datetime import timedelta

    from automl.models import Study, Trial
    from automl.services import trial_record_failed

    client = api_client(tenants["alice"])
    created = post(
        client,
        version,
        n_trials=10,
        parallelism=1,
        timeout_seconds=3600,
        report_seeds=2,
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}],
    ).json()
    study = Study.objects.get(pk=created["id"])
    first = Trial.objects.get(study=study)
    trial_record_failed(trial=first, error="RuntimeError: out of memory")
    assert Trial.objects.filter(study=study).count() == 2, "a failed trial frees its slot for the next one"

    Study.objects.filter(pk=study.pk).update(started_at=study.started_at - timedelta(hours=2))
    second = Trial.objects.get(study=study, number=1)
    trial_record_failed(trial=second, error="RuntimeError: out of memory")
    body = client.get(f"/api/v1/studies/{study.pk}/").json()
    assert body["status"] == "completed", "past its wall time no trial starts and the study ends"
    assert body["trials"] == {"total": 2, "running": 0, "complete": 0, "pruned": 0, "failed": 2}
    assert body["best_trial"] is None
    results = client.get(f"/api/v1/studies/{study.pk}/results/").json()
    assert results["lift"]["status"] == "not_started" and results["history"] == []
    trials = client.get(f"/api/v1/studies/{study.pk}/trials/").json()
    assert [t["error"] for t in trials] == ["RuntimeError: out of memory"] * 2


def test_results_rank_parameters_and_keep_the_best_so_far(tenants, api_client, version):
    import math

    from automl.models import Trial
    from automl.services import _tell
    from optuna.trial import TrialState

    client = api_client(tenants["alice"])
    study = post(
        client,
        version,
        n_trials=12,
        parallelism=12,
        sampler="random",
        search_space=[
            {"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True},
            {"name": "augmentation", "type": "categorical", "choices": ["light", "strong"]},
        ],
    ).json()
    # the score depends on the learning rate (peak at 1e-3) far more than on the augmentation
    for trial in Trial.objects.filter(study_id=study["id"]).order_by("number"):
        value = (
            1
            - abs(math.log10(trial.params["learning_rate"]) + 3) / 2
            + (0.01 if trial.params["augmentation"] == "light" else 0)
        )
        _tell(trial, state=TrialState.COMPLETE, value=value)
        Trial.objects.filter(pk=trial.pk).update(state="complete", value=value)

    results = client.get(f"/api/v1/studies/{study['id']}/results/").json()
    history = results["history"]
    assert [p["trial"] for p in history] == list(range(12))
    assert all(b["best"] >= a["best"] for a, b in zip(history, history[1:], strict=False))
    assert results["best_trial"]["value"] == history[-1]["best"] == max(p["value"] for p in history)
    importances = results["importances"]
    assert set(importances) == {"learning_rate", "augmentation"}
    assert sum(importances.values()) == pytest.approx(1.0)
    assert importances["learning_rate"] > importances["augmentation"]


def test_study_list_costs_the_same_queries_for_many_studies(
    tenants, api_client, version, django_assert_max_num_queries
):
    client = api_client(tenants["alice"])
    space = [{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}]
    for _ in range(4):
        assert post(client, version, n_trials=2, parallelism=1, search_space=space).status_code == 201
    with django_assert_max_num_queries(8):
        listed = client.get("/api/v1/studies/").json()
    assert listed["count"] == 4 and all(row["trials"]["running"] == 1 for row in listed["results"])


def test_a_trial_whose_worker_is_lost_for_good_fails_and_the_study_goes_on(tenants, api_client, version):
    from automl.models import Trial
    from automl.services import studies_reconcile
    from jobs.models import Job

    client = api_client(tenants["alice"])
    study = post(
        client,
        version,
        n_trials=2,
        parallelism=1,
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}],
    ).json()
    first = Trial.objects.get(study_id=study["id"])
    # what the reaper leaves when the last attempt's worker went silent too
    lost = "worker vm/123 lost: no heartbeat for 61s on attempt 3 of 3; gave up after 3 attempts"
    Job.objects.filter(pk=first.job_id).update(status="failed", attempt=3, error=lost)

    assert studies_reconcile()["studies"] == 1
    trials = client.get(f"/api/v1/studies/{study['id']}/trials/").json()
    assert [(t["number"], t["state"]) for t in trials] == [(0, "failed"), (1, "running")]
    assert trials[0]["error"] == lost and trials[0]["job_status"] == "failed"
    assert client.get(f"/api/v1/studies/{study['id']}/").json()["status"] == "running"
