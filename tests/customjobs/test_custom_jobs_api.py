"""Starting custom training jobs through the API (no worker: the job row, its spec and every
refusal): defaults from the settings, the code's requirements and their hash, limits up to the caps,
entry points, hyperparameter names, dataset versions of the project only, queues, roles, tenants."""

from __future__ import annotations

import pytest
from customjobs.services import requirements_hash
from jobs.models import Job, JobStatus

from tests.customjobs.code_factories import TRAIN_PY, code_archive, make_code_zip
from tests.datasets.factories import dataset_with_samples

pytestmark = [pytest.mark.django_db, pytest.mark.openapi_conformance]

URL = "/api/v1/custom-jobs/"


def error_of(response) -> dict:
    return response.json()["error"]


@pytest.fixture
def zipped(tenants, isolated_storage):
    files = {
        "train.py": TRAIN_PY,
        "trainer/__init__.py": b"",
        "trainer/main.py": TRAIN_PY,
        "requirements.txt": b"tqdm==4.66.1\n",
    }
    return code_archive(
        user=tenants["alice"], project=tenants["project_a"], data=make_code_zip(files), filename="p.zip"
    )


def test_a_job_runs_the_codes_entry_point_with_the_settings_defaults(tenants, api_client, zipped, settings):
    settings.SAMPAN_CUSTOM_JOB_NETWORK = False
    response = api_client(tenants["alice"]).post(
        URL, {"project": tenants["project_a"].pk, "code_archive": zipped.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "training.custom" and body["status"] == "queued" and body["queue"] == "cpu"
    job = Job.objects.get(pk=body["id"])
    assert job.project_id == tenants["project_a"].pk and job.created_by == tenants["alice"]
    assert job.params["code_archive"] == zipped.pk and job.params["dataset_version"] is None
    assert job.params["name"] == "p"
    spec = job.params["spec"]
    assert spec["kind"] == "custom_job_spec" and spec["version"] == 1
    assert spec["code_sha256"] == zipped.sha256 and spec["code_kind"] == "zip"
    assert spec["entry_point"] == "train.py" and spec["args"] == [] and spec["hyperparameters"] == {}
    assert spec["requirements"] == "tqdm==4.66.1\n"
    assert spec["requirements_hash"] == requirements_hash("tqdm==4.66.1\n") != requirements_hash("")
    assert spec["limits"] == {
        "wall_time_s": settings.SAMPAN_CUSTOM_JOB_WALL_TIME_S,
        "memory_mb": settings.SAMPAN_CUSTOM_JOB_MEMORY_MB,
        "cpus": settings.SAMPAN_CUSTOM_JOB_CPUS,
    }
    assert spec["network"] is False and spec["queue"] == "cpu" and "objective" not in spec
    # the job is a job like any other
    assert api_client(tenants["carol"]).get(f"/api/v1/jobs/{job.pk}/").json()["kind"] == "training.custom"


def test_everything_a_job_may_choose(tenants, api_client, zipped):
    digits = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(2)
    )
    from datasets.services import dataset_version_create

    version = dataset_version_create(dataset=digits, user=tenants["alice"], seed=1)
    body = {
        "project": tenants["project_a"].pk,
        "code_archive": zipped.pk,
        "entry_point": "trainer.main",
        "args": ["--epochs", "2", ""],
        "hyperparameters": {"lr": 0.01, "layers": 3, "augment": True, "optimizer": "adam"},
        "requirements": "",
        "dataset_version": version.pk,
        "queue": "gpu",
        "limits": {"wall_time_s": 60, "memory_mb": 512, "cpus": 1},
        "network": True,
        "name": "digits sweep",
    }
    response = api_client(tenants["erin"]).post(URL, body, format="json")
    assert response.status_code == 201, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert (
        job.queue == "gpu"
        and job.params["dataset_version"] == version.pk
        and job.params["name"] == "digits sweep"
    )
    spec = job.params["spec"]
    assert spec["entry_point"] == "trainer.main" and spec["args"] == ["--epochs", "2", ""]
    assert spec["hyperparameters"] == {"lr": 0.01, "layers": 3, "augment": True, "optimizer": "adam"}
    assert type(spec["hyperparameters"]["layers"]) is int and spec["hyperparameters"]["augment"] is True
    assert spec["requirements"] == "" and spec["requirements_hash"] == requirements_hash("")
    assert spec["limits"] == {"wall_time_s": 60, "memory_mb": 512, "cpus": 1}
    assert spec["network"] is True and spec["queue"] == "gpu"


@pytest.mark.parametrize(
    ("limit", "value", "setting"),
    [
        ("wall_time_s", 90000, "SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S"),
        ("memory_mb", 10**6, "SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB"),
        ("cpus", 512, "SAMPAN_CUSTOM_JOB_MAX_CPUS"),
    ],
)
def test_limits_over_the_caps_are_refused_naming_the_cap(
    limit, value, setting, tenants, api_client, zipped, settings
):
    body = {"project": tenants["project_a"].pk, "code_archive": zipped.pk, "limits": {limit: value}}
    response = api_client(tenants["alice"]).post(URL, body, format="json")
    assert response.status_code == 400
    error = error_of(response)
    cap = getattr(settings, setting)
    assert error["code"] == "custom_job_limit_too_high"
    assert (
        setting in error["message"]
        and f"{cap:,}" in error["message"]
        and f"limits.{limit}" in error["details"]
    )
    assert error["details"]["cap"] == cap
    assert not Job.objects.filter(kind="training.custom").exists()


@pytest.mark.parametrize(
    ("extra", "field", "says"),
    [
        ({"entry_point": "missing.py"}, "entry_point", "missing.py"),
        ({"entry_point": "trainer.nothing"}, "entry_point", "trainer/nothing.py"),
        ({"hyperparameters": {"learning-rate": 0.1}}, "hyperparameters", "learning-rate"),
        ({"hyperparameters": {"1st": 1}}, "hyperparameters", "1st"),
        ({"limits": {"memory_mb": 10}}, "limits.memory_mb", "at least 64"),
        ({"limits": {"cpus": 0}}, "limits.cpus", "at least 1"),
    ],
)
def test_a_refused_body_names_the_field(extra, field, says, tenants, api_client, zipped):
    body = {"project": tenants["project_a"].pk, "code_archive": zipped.pk, **extra}
    response = api_client(tenants["alice"]).post(URL, body, format="json")
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert error["code"] == "custom_job_invalid", error
    assert field in error["details"] and says in error["message"], error
    assert not Job.objects.filter(kind="training.custom").exists()


def test_the_code_and_the_dataset_version_must_be_the_projects(tenants, api_client, zipped):
    from workspaces.services import project_create

    other = project_create(user=tenants["alice"], workspace=tenants["ws_a"], name="Project A2")
    alice = api_client(tenants["alice"])
    response = alice.post(URL, {"project": other.pk, "code_archive": zipped.pk}, format="json")
    assert response.status_code == 400 and error_of(response)["code"] == "custom_job_invalid"
    assert "code_archive" in error_of(response)["details"]
    from datasets.services import dataset_version_create

    elsewhere = dataset_with_samples(user=tenants["alice"], project=other, per_class=2, classes=range(2))
    version = dataset_version_create(dataset=elsewhere, user=tenants["alice"], seed=1)
    body = {"project": tenants["project_a"].pk, "code_archive": zipped.pk, "dataset_version": version.pk}
    response = alice.post(URL, body, format="json")
    assert response.status_code == 400 and error_of(response)["code"] == "custom_job_invalid"
    assert "dataset_version" in error_of(response)["details"]
    assert not Job.objects.filter(kind="training.custom").exists()


def test_roles_and_tenants(tenants, api_client, zipped):
    body = {"project": tenants["project_a"].pk, "code_archive": zipped.pk}
    viewer = api_client(tenants["carol"]).post(URL, body, format="json")
    assert viewer.status_code == 403 and error_of(viewer)["code"] == "permission_denied"
    bob = api_client(tenants["bob"])
    stranger = bob.post(URL, body, format="json")
    assert stranger.status_code == 400 and "project" in error_of(stranger)["details"]
    # bob's own project with alice's code: the archive does not exist for him
    own = bob.post(URL, {"project": tenants["project_b"].pk, "code_archive": zipped.pk}, format="json")
    assert own.status_code == 400 and "code_archive" in error_of(own)["details"]
    assert "does not exist" in error_of(own)["message"]
    assert not Job.objects.filter(kind="training.custom").exists()
    assert Job.objects.filter(status=JobStatus.QUEUED).count() == 1  # only tenants' own system.check


def test_a_notebook_archive_runs_the_notebook(tenants, api_client, isolated_storage):
    from tests.customjobs.code_factories import notebook_bytes

    notebook = code_archive(
        user=tenants["alice"], project=tenants["project_a"], data=notebook_bytes(), filename="nb.ipynb"
    )
    alice = api_client(tenants["alice"])
    response = alice.post(
        URL, {"project": tenants["project_a"].pk, "code_archive": notebook.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    spec = Job.objects.get(pk=response.json()["id"]).params["spec"]
    assert spec["code_kind"] == "notebook" and spec["entry_point"] == "nb.ipynb"


def test_a_model_version_made_by_custom_code_shows_its_lineage(tenants, api_client, zipped):
    from tests.training.factories import model_version

    lineage = {
        "kind": "custom_job_lineage",
        "version": 1,
        "code_archive": zipped.pk,
        "code_sha256": zipped.sha256,
        "code_name": zipped.name,
        "entry_point": "train.py",
        "args": ["--epochs", "2"],
        "hyperparameters": {"lr": 0.01, "augment": True},
        "requirements": "tqdm==4.66.1\n",
        "requirements_hash": requirements_hash("tqdm==4.66.1\n"),
        "dataset_version": None,
        "environment": {"python": "3.11.7", "platform": "Linux-x86_64", "packages": {"numpy": "1.26.4"}},
        "job": tenants["job_a"].pk,
    }
    alice = tenants["alice"]
    custom = model_version(
        tenants["project_a"], source="custom", lineage=lineage, template="custom", preset="", created_by=alice
    )
    trained = model_version(tenants["project_a"], created_by=alice)
    client = api_client(tenants["carol"])
    body = client.get(f"/api/v1/model-versions/{custom.pk}/").json()
    assert body["source"] == "custom" and body["lineage"] == lineage
    assert client.get(f"/api/v1/model-versions/{trained.pk}/").json()["lineage"] is None


def test_a_finished_custom_job_answers_its_result(tenants, api_client, zipped):
    alice = api_client(tenants["alice"])
    created = alice.post(URL, {"project": tenants["project_a"].pk, "code_archive": zipped.pk}, format="json")
    result = {
        "kind": "custom_job_result",
        "version": 1,
        "exit_code": 0,
        "stopped": None,
        "reason": "",
        "duration_s": 1.5,
        "peak_memory_mb": 40.0,
        "metrics": {"loss": 0.5},
        "history": [{"step": 1, "loss": 0.5}],
        "artifacts": [{"name": "plot.png", "path": "plot.png"}],
        "model": None,
        "environment": {"python": "3.11.7", "platform": "Linux", "packages": {}},
        "requirements_hash": requirements_hash("tqdm==4.66.1\n"),
        "isolation": {"user": True, "network": True},
        "model_version": None,
        "model_version_name": None,
    }
    Job.objects.filter(pk=created.json()["id"]).update(status=JobStatus.SUCCEEDED, result=result)
    body = alice.get(f"/api/v1/jobs/{created.json()['id']}/").json()
    assert body["status"] == "succeeded" and body["result"] == result
    assert body["params"]["kind"] == "training.custom" and body["params"]["spec"]["entry_point"] == "train.py"


def test_a_retried_post_with_its_idempotency_key_starts_one_job(tenants, api_client, zipped, token_for):
    alice = api_client()  # as the SDK calls it: with a personal token
    alice.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(tenants['alice'])}")
    body = {"project": tenants["project_a"].pk, "code_archive": zipped.pk, "hyperparameters": {"lr": 0.1}}
    first = alice.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="run-1")
    again = alice.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="run-1")
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] and again["Idempotent-Replayed"] == "true"
    assert Job.objects.filter(kind="training.custom").count() == 1
