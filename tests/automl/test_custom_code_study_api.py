"""Custom-code studies through the API without workers: a study over uploaded code queues trials
as ``automl.trial`` jobs whose spec carries the sampled hyperparameters and the study's objective;
what is refused is refused by name (no search space, no objective, a bad hyperparameter name, a
limit over the cap, an entry point the code lacks, another workspace's code)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

SCRIPT = b"import sampan.run as run\nrun.log_metrics(step=1, score=float(run.params['x']))\n"
SPACE = [
    {"name": "x", "type": "float", "low": 0.0, "high": 1.0},
    {"name": "layers", "type": "int", "low": 1, "high": 4},
    {"name": "opt", "type": "categorical", "choices": ["sgd", "adam"]},
]


def archive_in(project, user, name: str = "train.py", content: bytes = SCRIPT):
    from customjobs.services import code_archive_create
    from django.core.files.uploadedfile import SimpleUploadedFile

    return code_archive_create(project=project, upload=SimpleUploadedFile(name, content), user=user)


@pytest.fixture
def code(tenants, isolated_storage):
    return archive_in(tenants["project_a"], tenants["alice"])


def post(client, code, **body):
    payload = {
        "code_archive": code.pk,
        "search_space": SPACE,
        "objective": {"metric": "score", "direction": "maximize"},
        "n_trials": 3,
        **body,
    }
    return client.post("/api/v1/studies/", payload, format="json")


def test_a_custom_code_study_queues_trials_that_run_the_code_with_sampled_hyperparameters(
    tenants, api_client, code
):
    from automl.models import Study
    from jobs.models import Job

    client = api_client(tenants["alice"])
    response = post(client, code, parallelism=2, limits={"wall_time_s": 60, "memory_mb": 512}, args=["--v"])
    assert response.status_code == 201, response.content
    study = response.json()
    assert study["template"] == "custom" and study["dataset_version"] is None and study["dataset"] is None
    assert study["project"] == tenants["project_a"].pk
    assert study["objective"] == {"metric": "score", "direction": "maximize"}
    assert study["custom_code"]["code_archive"] == code.pk
    assert study["custom_code"]["entry_point"] == "train.py"
    assert study["custom_code"]["limits"]["wall_time_s"] == 60
    assert study["custom_code"]["code_sha256"] == code.sha256
    assert study["trials"]["running"] == 2 and study["report_seeds"] == 0
    kept = Study.objects.get(pk=study["id"]).custom_code
    assert kept is not None and kept["args"] == ["--v"]

    trials = client.get(f"/api/v1/studies/{study['id']}/trials/").json()
    assert [t["number"] for t in trials] == [0, 1]
    for trial in trials:
        job = Job.objects.get(pk=trial["job"])
        assert job.kind == "automl.trial" and job.status == "queued"
        spec = job.params["spec"]
        assert job.params["code_archive"] == code.pk and job.params["trial"] == trial["number"]
        assert spec["kind"] == "custom_job_spec" and spec["entry_point"] == "train.py"
        assert spec["hyperparameters"] == trial["params"]
        assert 0.0 <= spec["hyperparameters"]["x"] <= 1.0 and spec["hyperparameters"]["opt"] in (
            "sgd",
            "adam",
        )
        assert isinstance(spec["hyperparameters"]["layers"], int)
        assert spec["objective"] == {"metric": "score", "direction": "maximize"}
        assert spec["args"] == ["--v"] and spec["limits"]["memory_mb"] == 512

    listed = client.get("/api/v1/studies/", {"project": tenants["project_a"].pk}).json()
    assert any(s["id"] == study["id"] and s["template"] == "custom" for s in listed["results"])


@pytest.mark.parametrize(
    ("body", "code_", "field", "says"),
    [
        ({"search_space": []}, "custom_study_invalid", "search_space", "needs a search space"),
        ({"objective": {"direction": "maximize"}}, None, "objective", ""),
        ({"objective": {"metric": "score", "direction": "up"}}, None, "objective", ""),
        (
            {"search_space": [{"name": "2x", "type": "float", "low": 0, "high": 1}]},
            "custom_study_invalid",
            "search_space[0].name",
            "hyperparameter name",
        ),
        (
            {"search_space": [{"name": "x", "type": "float", "low": 1, "high": 0}]},
            None,
            "search_space[0].high",
            "greater than low",
        ),
        ({"limits": {"wall_time_s": 10**9}}, "custom_job_limit_too_high", "limits.wall_time_s", "cap"),
        ({"entry_point": "missing.py"}, "custom_job_invalid", "entry_point", "missing.py"),
    ],
)
def test_a_bad_custom_study_is_refused_by_name(tenants, api_client, code, body, code_, field, says):
    from automl.models import Study

    response = post(api_client(tenants["alice"]), code, **body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert field in str(error["details"]) or field in error["message"], error
    if code_:
        assert error["code"] == code_, error
    assert says in error["message"] or says in str(error["details"]), error
    assert not Study.objects.exists()


def test_another_workspaces_code_does_not_exist_and_a_viewer_cannot_start_a_study(tenants, api_client, code):
    from automl.models import Study

    bobs = post(api_client(tenants["bob"]), code)
    assert bobs.status_code == 400 and "code_archive" in str(bobs.json()["error"]), bobs.content
    other = archive_in(tenants["project_b"], tenants["bob"])
    mixed = post(api_client(tenants["alice"]), other)
    assert mixed.status_code == 400, mixed.content
    carols = post(api_client(tenants["carol"]), code)
    assert carols.status_code == 403, carols.content
    assert not Study.objects.exists()


def test_a_custom_trial_without_a_model_is_not_promoted_and_says_why(tenants, api_client, code):
    from automl.models import Trial

    client = api_client(tenants["alice"])
    study = post(client, code, n_trials=1).json()
    Trial.objects.filter(study_id=study["id"]).update(state="complete", value=0.9)
    promoted = client.post(f"/api/v1/studies/{study['id']}/promote/", {}, format="json")
    assert promoted.status_code == 409, promoted.content
    assert "wrote no model" in promoted.json()["error"]["message"]
    assert "run.save_model" in promoted.json()["error"]["message"]
