"""A training job runs its preset fitted to the dataset version and the workers online (the
template's rule, workers.templates.recommend) and records the choices with their reasons; ``adapt:
false`` runs the preset as declared; a parameter the user set is kept; the training estimates show
each preset's choices, without a query per preset."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.jobs.factories import worker_node

pytestmark = pytest.mark.django_db

CPU2 = {"cpu_count": 2, "cuda": []}
GPU = {"cpu_count": 16, "cuda": [{"index": 0, "name": "NVIDIA H200", "memory_bytes": 1}]}


def detection_version(project, *, images: int):
    """A detection dataset version of ``images`` images (train + val), two classes of boxes."""
    from datasets.models import Dataset, DatasetVersion

    dataset = Dataset.objects.create(
        workspace=project.workspace, project=project, name=f"Parts {images}", task_type="object_detection"
    )
    val = max(1, images // 10)
    return DatasetVersion.objects.create(
        dataset=dataset,
        number=1,
        seed=1,
        train_ratio=0.8,
        val_ratio=0.1,
        test_ratio=0.1,
        classes=["螺丝", "nut"],
        counts={"train": {"螺丝": images, "nut": images}, "val": {"螺丝": 2, "nut": 2}, "test": {"nut": 1}},
        split_sizes={"train": images - val, "val": val, "test": 2},
        sample_count=images + 2,
    )


def start(client, version, **body):
    answer = client.post("/api/v1/training-jobs/", {"dataset_version": version.pk, **body}, format="json")
    assert answer.status_code == 201, answer.content
    shown = client.get(f"/api/v1/training-jobs/{answer.json()['id']}/")
    assert shown.status_code == 200, shown.content
    return shown.json()


@pytest.mark.openapi_conformance
def test_a_small_dataset_runs_the_fitted_preset_and_records_why(tenants, api_client):
    worker_node(queues=("cpu",), devices=CPU2)
    version = detection_version(tenants["project_a"], images=18)
    job = start(api_client(tenants["alice"]), version, preset="balanced")
    assert job["preset"] == "balanced" and job["params"]["batch_size"] == 4  # the preset says 16
    recommendation = job["recommendation"]
    assert recommendation["kind"] == "preset_recommendation" and recommendation["preset"] == "balanced"
    assert recommendation["data"] == {"train_samples": 18, "classes": 2}
    assert recommendation["hardware"] == {"gpus": 0, "cpu_count": 2, "workers": 1}
    assert recommendation["values"] == job["params"]
    assert recommendation["choices"] == [
        {
            "param": "batch_size",
            "value": 4,
            "preset_value": 16,
            "reason": "18 training images: batches of 4 make 5 optimizer steps per epoch instead of 2.",
            # the same reason as a code and its values, which the UI says in the user's language
            "reason_code": "images_batch_steps",
            "reason_params": {"count": 18, "batch": 4, "steps": 5, "before": 2},
        }
    ]
    # the generic job resource answers the same record in the job's params
    generic = api_client(tenants["alice"]).get(f"/api/v1/jobs/{job['id']}/").json()
    assert generic["params"]["recommendation"] == recommendation


def test_adapt_false_runs_the_preset_as_declared(tenants, api_client):
    from workers.templates import registry

    worker_node(queues=("cpu",), devices=CPU2)
    version = detection_version(tenants["project_a"], images=18)
    job = start(api_client(tenants["alice"]), version, preset="balanced", adapt=False)
    assert job["params"] == registry.get("object_detection").validate_params("balanced")
    assert job["params"]["batch_size"] == 16 and job["recommendation"] is None


def test_a_parameter_the_user_set_is_kept_and_not_listed(tenants, api_client):
    worker_node(queues=("cpu",), devices=CPU2)
    version = detection_version(tenants["project_a"], images=18)
    job = start(api_client(tenants["alice"]), version, preset="balanced", params={"batch_size": 16})
    assert job["params"]["batch_size"] == 16
    assert job["recommendation"]["choices"] == [] and job["recommendation"]["values"]["batch_size"] == 16


def test_the_choice_follows_the_workers_online(tenants, api_client):
    from training.services import training_job_create

    version = detection_version(tenants["project_a"], images=3000)
    on_cpu = training_job_create(user=tenants["alice"], dataset_version=version, preset="accurate")
    assert on_cpu.params["params"]["model"] == "det_medium"
    (choice,) = on_cpu.params["recommendation"]["choices"]
    assert choice["param"] == "model" and choice["preset_value"] == "det_resnet18"
    assert on_cpu.params["recommendation"]["hardware"]["workers"] == 0  # none online: a CPU is assumed
    worker_node(queues=("cpu", "gpu"), devices=GPU)
    on_gpu = training_job_create(user=tenants["alice"], dataset_version=version, preset="accurate")
    assert on_gpu.queue == "gpu" and on_gpu.params["params"]["model"] == "det_resnet18"
    assert on_gpu.params["recommendation"]["hardware"] == {"gpus": 1, "cpu_count": 16, "workers": 1}
    assert on_gpu.params["recommendation"]["choices"] == []


@pytest.mark.openapi_conformance
def test_the_estimates_show_each_presets_choices_without_a_query_per_preset(tenants, api_client):
    worker_node(queues=("cpu",), devices=CPU2)
    worker_node(queues=("cpu",), devices={"cpu_count": 8, "cuda": []})
    version = detection_version(tenants["project_a"], images=18)
    client = api_client(tenants["alice"])
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(f"/api/v1/training-estimates/?dataset_version={version.pk}")
    assert answer.status_code == 200, answer.content
    assert len(queries) <= 6, [q["sql"] for q in queries]
    presets = {p["preset"]: p for p in answer.json()["presets"]}
    for name, preset in presets.items():
        recommendation = preset["recommendation"]
        assert recommendation["preset"] == name and recommendation["data"]["train_samples"] == 18
        assert recommendation["hardware"] == {"gpus": 0, "cpu_count": 2, "workers": 2}  # the smallest
        assert preset["model"] == recommendation["values"]["model"]
    assert [
        (c["param"], c["preset_value"], c["value"]) for c in presets["fast"]["recommendation"]["choices"]
    ] == [("batch_size", 8, 4)]
    assert [c["value"] for c in presets["balanced"]["recommendation"]["choices"]] == [4]
    # what the estimates showed is what a job started now records
    job = start(client, version, preset="fast")
    assert job["recommendation"] == presets["fast"]["recommendation"]


def test_a_warm_start_keeps_the_network_its_weights_fit(tenants):
    from training.services import training_job_create

    from tests.training.factories import model_version

    version = detection_version(tenants["project_a"], images=3000)
    parent = model_version(
        tenants["project_a"],
        dataset_version=version,
        template="object_detection",
        preset="accurate",
        params={"model": "det_resnet18", "image_size": 128},
        checkpoint_key="models/parent/model.pt",
    )
    # on CPU workers the accurate preset would take det_medium: not with ResNet-18 weights to start from
    job = training_job_create(
        user=tenants["alice"], dataset_version=version, preset="accurate", warm_start_from=parent
    )
    assert job.params["params"]["model"] == "det_resnet18" and job.params["warm_start_from"] == parent.pk
    assert "model" not in {c["param"] for c in job.params["recommendation"]["choices"]}
