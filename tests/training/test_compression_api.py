"""Compressing a model version through the API, against PostgreSQL: what a compression run is asked
for (a preset's recipes, or recipes, a target profile, a teacher) is checked before a job is queued,
each refusal a 400 with a stable code naming the problem; a compressed model version shows its
parent and lineage; browser latencies are stored into a finished run's report. The job itself runs
in tests/training/test_compression_live.py."""

from __future__ import annotations

import pytest
from jobs.models import Job

from tests.datasets.factories import tenancy_objects
from tests.training.factories import EVALUATION, compression, model_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def parent(tenants):
    """Project A's V1: an image classifier with a model file, trained on a dataset version."""
    version = tenancy_objects(tenants)["version"]
    return model_version(
        tenants["project_a"],
        dataset_version=version,
        checkpoint_key="models/placeholder/checkpoint.pt",
        params={"model": "cnn_small", "image_size": 32},
        classes=["0", "1"],
        evaluation=EVALUATION,
    )


def compress(client, version_id: int, body: dict):
    return client.post(f"/api/v1/model-versions/{version_id}/compress/", body, format="json")


def refusal(response, code: str) -> str:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    return error["message"]


def test_a_preset_queues_a_compress_job_with_its_recipes_and_the_target(tenants, api_client, parent):
    client = api_client(tenants["alice"])
    started = compress(client, parent.pk, {"preset": "balanced", "target_profile": "edge-arm-slow"})
    assert started.status_code == 202, started.content
    run = started.json()
    assert run["parent"] == parent.pk and run["parent_name"] == "V1" and run["preset"] == "balanced"
    assert run["status"] == "queued" and run["report"] is None
    assert run["spec"]["recipes"] == [
        {"name": "pruned-50-int8", "prune": {"flops_ratio": 0.5}, "quantize": "auto"}
    ]
    assert run["spec"]["target"]["name"] == "edge-arm-slow" and run["spec"]["target"]["slowdown"] == 4.0
    job = Job.objects.get(pk=run["job"])
    assert job.kind == "training.compress"
    assert job.params == {
        "model_version": parent.pk,
        "spec": run["spec"],
        "teacher": None,
        "compression": run["id"],
    }
    shown = client.get(f"/api/v1/compressions/{run['id']}/").json()
    assert shown["job"] == job.pk and shown["progress"]["kind"] == "progress"
    listed = client.get("/api/v1/compressions/", {"project": tenants["project_a"].pk}).json()
    assert [r["id"] for r in listed["results"]] == [run["id"]]
    assert api_client(tenants["bob"]).get("/api/v1/compressions/").json()["count"] == 0

    # the other presets: int8 alone (the default), pruned to a quarter without a latency budget,
    # a half-width student of the parent's architecture
    smaller = compress(client, parent.pk, {}).json()
    assert smaller["preset"] == "smaller"
    assert smaller["spec"]["recipes"] == [{"name": "int8", "quantize": "auto"}]
    assert smaller["spec"]["target"]["name"] == "worker-cpu"
    faster = compress(client, parent.pk, {"preset": "faster"}).json()
    assert faster["spec"]["recipes"][0]["prune"] == {"flops_ratio": 0.25}
    distilled = compress(client, parent.pk, {"preset": "distilled", "max_metric_drop": 0.01}).json()
    assert distilled["spec"]["recipes"] == [
        {"name": "distilled-int8", "distill": {"student": "cnn_small@0.5"}, "quantize": "auto"}
    ]
    assert distilled["spec"]["max_metric_drop"] == 0.01
    # a distill recipe that names no student (the web app's "default") gets the preset's student
    unnamed = compress(client, parent.pk, {"recipes": [{"name": "small", "distill": {}}]}).json()
    assert unnamed["spec"]["recipes"] == [{"name": "small", "distill": {"student": "cnn_small@0.5"}}]


def test_faster_prunes_to_the_latency_budget_of_a_workspace_target(tenants, api_client, parent):
    from deploy.models import TargetProfile

    profile = TargetProfile.objects.create(
        workspace=tenants["ws_a"], name="kiosk", slowdown=2.0, latency_budget_ms=3.0
    )
    client = api_client(tenants["alice"])
    run = compress(client, parent.pk, {"preset": "faster", "target_profile": str(profile.pk)}).json()
    assert run["spec"]["recipes"] == [
        {"name": "pruned-3ms-int8", "prune": {"latency_ms": 3.0}, "quantize": "auto"}
    ]
    assert run["spec"]["target"]["name"] == "kiosk"
    by_name = compress(client, parent.pk, {"preset": "faster", "target_profile": "kiosk"})
    assert by_name.status_code == 202
    # another workspace's profile is not found by this one
    other = TargetProfile.objects.create(workspace=tenants["ws_b"], name="theirs")
    refused = compress(client, parent.pk, {"target_profile": str(other.pk)})
    assert "No target profile" in refusal(refused, "invalid")


def test_bad_requests_are_refused_with_codes_and_queue_nothing(tenants, api_client, parent):
    client = api_client(tenants["alice"])
    project = tenants["project_a"]

    message = refusal(compress(client, parent.pk, {"recipes": [{"name": "x"}]}), "compression_bad_recipe")
    assert "nothing to do" in message
    message = refusal(
        compress(client, parent.pk, {"recipes": [{"name": "p", "prune": {"flops_ratio": 1.5}}]}),
        "compression_bad_recipe",
    )
    assert "flops_ratio" in message
    twice = [{"name": "a", "quantize": "static"}, {"name": "a", "quantize": "qat"}]
    assert "two recipes" in refusal(compress(client, parent.pk, {"recipes": twice}), "compression_bad_recipe")
    both = {"preset": "smaller", "recipes": [{"name": "int8", "quantize": "static"}]}
    assert "not both" in refusal(compress(client, parent.pk, both), "compression_bad_recipe")
    assert "quantize" in refusal(
        compress(client, parent.pk, {"recipes": [{"name": "q", "quantize": "int4"}]}),
        "compression_bad_recipe",
    )
    unknown_preset = compress(client, parent.pk, {"preset": "tiny"})
    assert unknown_preset.status_code == 400 and "preset" in unknown_preset.json()["error"]["details"]
    assert "No target profile" in refusal(compress(client, parent.pk, {"target_profile": "mars"}), "invalid")

    forecaster = model_version(project, template="time_series_forecasting", checkpoint_key="x")
    assert "cannot be compressed" in refusal(compress(client, forecaster.pk, {}), "compression_not_supported")
    onnx_only = model_version(project, dataset_version=parent.dataset_version, checkpoint_key="")
    assert "no model file" in refusal(compress(client, onnx_only.pk, {}), "compression_not_supported")
    no_data = model_version(project, checkpoint_key="x")
    assert "no dataset version" in refusal(compress(client, no_data.pk, {}), "compression_not_supported")

    # teachers: same project, template and classes, with a model file; only for distillation
    distill = {"recipes": [{"name": "student", "distill": {"student": "cnn_small@0.5"}}]}
    text = model_version(project, template="text_classification", checkpoint_key="x", classes=["0", "1"])
    message = refusal(compress(client, parent.pk, {**distill, "teacher": text.pk}), "teacher_mismatch")
    assert "same template" in message
    other_classes = model_version(project, checkpoint_key="x", classes=["1", "0"])
    message = refusal(
        compress(client, parent.pk, {**distill, "teacher": other_classes.pk}), "teacher_mismatch"
    )
    assert "other classes" in message
    fine = model_version(project, checkpoint_key="x", classes=["0", "1"])
    message = refusal(
        compress(client, parent.pk, {"preset": "smaller", "teacher": fine.pk}), "compression_bad_recipe"
    )
    assert "no recipe distills" in message
    theirs = model_version(tenants["project_b"], checkpoint_key="x", classes=["0", "1"])
    assert compress(client, parent.pk, {**distill, "teacher": theirs.pk}).status_code == 400
    assert not Job.objects.filter(kind="training.compress").exists()

    taught = compress(client, parent.pk, {**distill, "teacher": fine.pk})
    assert taught.status_code == 202, taught.content
    assert Job.objects.get(kind="training.compress").params["teacher"] == fine.pk
    assert (
        api_client(tenants["carol"])
        .post(f"/api/v1/model-versions/{parent.pk}/compress/", {}, format="json")
        .status_code
        == 403
    )


def test_a_compressed_version_shows_its_parent_and_lineage(tenants, api_client, parent):
    child = model_version(
        tenants["project_a"],
        dataset_version=parent.dataset_version,
        source="compressed",
        compressed_from=parent,
        lineage={
            "kind": "compression_lineage",
            "version": 1,
            "parent": parent.pk,
            "teacher": None,
            "recipe": {"name": "int8", "quantize": "auto"},
            "compression": 7,
        },
    )
    client = api_client(tenants["alice"])
    shown = client.get(f"/api/v1/model-versions/{child.pk}/").json()
    assert shown["source"] == "compressed" and shown["compressed_from"] == parent.pk
    assert shown["lineage"]["kind"] == "compression_lineage" and shown["lineage"]["parent"] == parent.pk
    child.checkpoint_key = "models/placeholder/pruned.pt"
    child.save(update_fields=["checkpoint_key"])
    retrain = client.post(
        f"/api/v1/model-versions/{child.pk}/retrain/",
        {"dataset_version": parent.dataset_version_id},
        format="json",
    )
    assert retrain.status_code == 400 and "is compressed" in retrain.json()["error"]["message"]
    listed = client.get("/api/v1/model-versions/", {"source": "compressed"}).json()["results"]
    assert [v["id"] for v in listed] == [child.pk]
    assert client.get(f"/api/v1/model-versions/{parent.pk}/").json()["compressed_from"] is None


def test_browser_latency_is_stored_into_a_finished_report(tenants, api_client, parent):
    child = model_version(tenants["project_a"], source="compressed", compressed_from=parent)
    run = compression(parent, variants=[child])
    client = api_client(tenants["alice"])
    url = f"/api/v1/compressions/{run.pk}/browser-latency/"
    body = {"model_version": child.pk, "median_ms": 2.5, "p90_ms": 3.0, "runs": 20, "user_agent": "Chrome"}
    stored = client.post(url, body, format="json")
    assert stored.status_code == 200, stored.content
    [entry] = stored.json()["report"]["browser_latency"]
    assert entry["model_version"] == child.pk and entry["median_ms"] == 2.5 and entry["backend"] == "wasm"
    # the same browser measuring again replaces its figure; the parent may be measured too
    client.post(url, {**body, "median_ms": 2.0}, format="json")
    client.post(url, {**body, "model_version": parent.pk, "median_ms": 4.0}, format="json")
    kept = client.get(f"/api/v1/compressions/{run.pk}/").json()["report"]["browser_latency"]
    assert sorted((b["model_version"], b["median_ms"]) for b in kept) == [(parent.pk, 4.0), (child.pk, 2.0)]

    stranger = model_version(tenants["project_a"])
    refused = client.post(url, {**body, "model_version": stranger.pk}, format="json")
    assert (
        refused.status_code == 400
        and "neither the parent nor a variant" in refused.json()["error"]["message"]
    )
    assert client.post(url, {**body, "runs": 0}, format="json").status_code == 400
    unfinished = compression(parent, report=False)
    waiting = client.post(f"/api/v1/compressions/{unfinished.pk}/browser-latency/", body, format="json")
    assert waiting.status_code == 409 and waiting.json()["error"]["code"] == "compression_not_finished"


def test_a_result_is_recorded_once_as_model_versions_with_lineage(tenants, parent, tmp_path):
    """What the job records from the compute plane's result (``compression_record``): each variant
    as the project's next model version with its files, lineage and evaluation, and the report with
    model versions in place of files; a retried job's second recording changes nothing."""
    from django.core.files.storage import default_storage
    from training.compression import compression_record
    from training.models import ModelVersion

    run = compression(parent, report=False)
    (tmp_path / "int8.onnx").write_bytes(b"int8 onnx")
    (tmp_path / "pruned.onnx").write_bytes(b"pruned onnx")
    (tmp_path / "pruned.pt").write_bytes(b"pruned checkpoint")
    summary = {"size_bytes": 9, "parameters": 10, "flops": 20, "precision": "int8", "metric": "accuracy"}
    variant = {
        "preprocessing": {"image_size": [32, 32]},
        "classes": ["0", "1"],
        "evaluation": EVALUATION,
        "notes": ["static int8 kept"],
    }
    result = {
        "kind": "compression_result",
        "version": 1,
        "template": "image_classification",
        "parent": {**summary, "precision": "fp32", "value": 0.5, "delta": 0.0},
        "variants": [
            {
                **variant,
                "name": "int8",
                "recipe": {"name": "int8", "quantize": "static"},
                "checkpoint": None,
                "onnx": str(tmp_path / "int8.onnx"),
                "params": {},
                "summary": {**summary, "value": 0.5, "delta": 0.0},
            },
            {
                **variant,
                "name": "pruned-50",
                "recipe": {"name": "pruned-50", "prune": {"flops_ratio": 0.5}},
                "checkpoint": str(tmp_path / "pruned.pt"),
                "onnx": str(tmp_path / "pruned.onnx"),
                "params": {"channels": [4, 8]},
                "summary": {**summary, "precision": "fp32", "value": 0.4, "delta": -0.1},
            },
        ],
        "skipped": [{"name": "distilled", "reason": "no student"}],
    }
    recorded = compression_record(compression=run, result=result)
    int8, pruned = ModelVersion.objects.filter(compressed_from=parent).order_by("number")
    assert (int8.name, pruned.name) == ("V2", "V3") and int8.source == pruned.source == "compressed"
    assert int8.checkpoint_key == "" and default_storage.open(int8.onnx_key).read() == b"int8 onnx"
    assert default_storage.open(pruned.checkpoint_key).read() == b"pruned checkpoint"
    assert pruned.params == {**parent.params, "channels": [4, 8]}
    assert pruned.lineage == {
        "kind": "compression_lineage",
        "version": 1,
        "parent": parent.pk,
        "teacher": None,
        "recipe": {"name": "pruned-50", "prune": {"flops_ratio": 0.5}},
        "compression": run.pk,
    }
    assert pruned.metrics["test"]["accuracy"] == EVALUATION["accuracy"] and pruned.evaluation == EVALUATION
    report = recorded.report
    assert [(v["name"], v["model_version"], v["model_version_name"]) for v in report["variants"]] == [
        ("int8", int8.pk, "V2"),
        ("pruned-50", pruned.pk, "V3"),
    ]
    assert report["parent"]["model_version"] == parent.pk and report["skipped"][0]["name"] == "distilled"
    assert report["browser_latency"] == [] and "checkpoint" not in report["variants"][0]

    again = compression_record(compression=run, result=result)
    assert again.report == report and ModelVersion.objects.filter(compressed_from=parent).count() == 2
