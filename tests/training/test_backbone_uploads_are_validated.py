"""Uploading backbones through the API, without a worker: the size limit (413), names and
duplicates, roles, project filters, deletion, and what a training job refuses to start from
(a backbone still being checked, an invalid one, another project's, one that fits another model)."""

from __future__ import annotations

import hashlib
import io

import pytest
import torch
from jobs.models import Job
from training.models import Backbone

from tests.datasets.factories import blob_files, dataset_with_samples, upload
from workers.image_classification.models import build_model

pytestmark = pytest.mark.django_db


def state_dict_bytes(arch: str = "cnn_small", num_classes: int = 10) -> bytes:
    out = io.BytesIO()
    torch.save(build_model(arch, num_classes).state_dict(), out)
    return out.getvalue()


def post_backbone(client, project, data: bytes, *, filename: str = "weights.pt", **fields):
    return client.post(
        "/api/v1/backbones/",
        {"project": project.pk, "file": upload(filename, data), **fields},
        format="multipart",
    )


def second_project(tenants):
    from workspaces.services import project_create

    return project_create(user=tenants["alice"], workspace=tenants["ws_a"], name="Project A2")


def make_backbone(
    project, *, name: str, status: str, arch: str | None = "cnn_small", error: str = ""
) -> Backbone:
    """A backbone row as a finished check leaves it (the check itself is tested with a live worker)."""
    summary = (
        {
            "architecture": arch,
            "fits": [arch] if arch else [],
            "tensors": 38,
            "parameters": 137304,
            "head_classes": 10,
            "dtypes": ["float32", "int64"],
        }
        if status == "valid"
        else {}
    )
    return Backbone.objects.create(
        workspace_id=project.workspace_id,
        project=project,
        name=name,
        filename=f"{name}.pt",
        blob_key=f"backbones/xx/{name}.pt",
        sha256=name.ljust(64, "0"),
        size_bytes=1,
        status=status,
        error=error,
        summary=summary,
    )


def test_an_upload_is_stored_by_content_and_queues_its_check(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    data = state_dict_bytes()
    response = post_backbone(client, tenants["project_a"], data, filename="small-cnn.pt")
    assert response.status_code == 201, response.content
    body = response.json()
    sha = hashlib.sha256(data).hexdigest()
    assert (
        body["name"] == "small-cnn" and body["filename"] == "small-cnn.pt"
    )  # the name defaults to the file's
    assert body["status"] == "pending" and body["summary"] is None and body["error"] == ""
    assert (
        body["sha256"] == sha and body["size_bytes"] == len(data) and body["workspace"] == tenants["ws_a"].pk
    )
    assert blob_files(isolated_storage) == [f"backbones/{sha[:2]}/{sha}.pt"]
    job = Job.objects.get(pk=body["job"])
    assert (
        job.kind == "training.check_backbone"
        and job.params == {"backbone": body["id"]}
        and job.queue == "cpu"
    )

    # The same content in another project shares the stored file; in the same project it is refused.
    other = second_project(tenants)
    assert post_backbone(client, other, data, name="copy").status_code == 201
    assert len(blob_files(isolated_storage)) == 1
    again = post_backbone(client, tenants["project_a"], data, name="again")
    assert (
        again.status_code == 400
        and "already uploaded to the project as 'small-cnn'" in again.json()["error"]["message"]
    )
    same_name = post_backbone(client, tenants["project_a"], b"other bytes", name="small-cnn")
    assert same_name.status_code == 400 and "name" in same_name.json()["error"]["details"]

    listed = client.get(f"/api/v1/backbones/?project={tenants['project_a'].pk}").json()
    assert [row["name"] for row in listed["results"]] == ["small-cnn"]
    assert client.get(f"/api/v1/backbones/?project={other.pk}").json()["count"] == 1
    assert api_client(tenants["bob"]).get("/api/v1/backbones/").json()["count"] == 0


def test_a_file_over_the_limit_answers_413_and_stores_nothing(
    tenants, api_client, isolated_storage, settings
):
    settings.SAMPAN_BACKBONE_MAX_UPLOAD_BYTES = 4_096
    response = post_backbone(
        api_client(tenants["alice"]), tenants["project_a"], b"\0" * 5_000, filename="big.pt"
    )
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "upload_too_large" and "SAMPAN_BACKBONE_MAX_UPLOAD_BYTES" in error["message"]
    assert "5,000 bytes" in error["message"] and error["details"]["limit_bytes"] == 4_096
    assert not Backbone.objects.exists() and blob_files(isolated_storage) == []


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({}, "file", "No file was submitted"),
        ({"file": b""}, "file", "is empty"),
        ({"file": b"x", "project": 999_999}, "project", "does not exist"),
    ],
)
def test_missing_or_empty_uploads_are_refused(tenants, api_client, isolated_storage, fields, field, says):
    body = {"project": fields.get("project", tenants["project_a"].pk)}
    if "file" in fields:
        body["file"] = upload("weights.pt", fields["file"])
    response = api_client(tenants["alice"]).post("/api/v1/backbones/", body, format="multipart")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["details"] and says in response.json()["error"]["message"]
    assert not Backbone.objects.exists() and blob_files(isolated_storage) == []


def test_viewers_cannot_upload_or_delete(tenants, api_client, isolated_storage):
    carol = api_client(tenants["carol"])
    refused = post_backbone(carol, tenants["project_a"], state_dict_bytes())
    assert refused.status_code == 403 and "upload backbones" in refused.json()["error"]["message"]
    backbone = make_backbone(tenants["project_a"], name="ours", status="valid")
    assert carol.get(f"/api/v1/backbones/{backbone.pk}/").status_code == 200
    assert carol.delete(f"/api/v1/backbones/{backbone.pk}/").status_code == 403


def test_the_check_kind_starts_only_through_an_upload(tenants, api_client):
    response = api_client(tenants["alice"]).post(
        "/api/v1/jobs/",
        {"workspace": tenants["ws_a"].pk, "kind": "training.check_backbone", "params": {"backbone": 1}},
        format="json",
    )
    assert response.status_code == 400 and "/api/v1/backbones/" in response.json()["error"]["message"]


def test_deleting_removes_the_file_unless_shared_and_waits_for_training_that_uses_it(
    tenants, api_client, isolated_storage, django_capture_on_commit_callbacks
):
    client = api_client(tenants["alice"])
    data = state_dict_bytes()
    first = post_backbone(client, tenants["project_a"], data, name="first").json()
    other = second_project(tenants)
    second = post_backbone(client, other, data, name="second").json()
    job = Job.objects.create(
        workspace=tenants["ws_a"],
        project=tenants["project_a"],
        kind="training.run",
        params={"backbone": first["id"]},
        status="running",
    )

    busy = client.delete(f"/api/v1/backbones/{first['id']}/")
    assert busy.status_code == 409 and f"training job #{job.pk}" in busy.json()["error"]["message"]
    Job.objects.filter(pk=job.pk).update(status="succeeded")
    with django_capture_on_commit_callbacks(execute=True):
        assert client.delete(f"/api/v1/backbones/{first['id']}/").status_code == 204
    assert len(blob_files(isolated_storage)) == 1, "the other project's backbone still holds the file"
    with django_capture_on_commit_callbacks(execute=True):
        assert client.delete(f"/api/v1/backbones/{second['id']}/").status_code == 204
    assert blob_files(isolated_storage) == []


@pytest.fixture
def version_a(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=6, classes=range(2)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("pending", "'pending' is still being checked; start the run when its status is valid"),
        ("invalid", "'invalid' is invalid: weights.pt: refused: it holds a pickled builtins.eval object"),
        ("other project", "'other project' belongs to another project"),
        ("other tenant", "Invalid pk"),
        ("other model", "'other model' does not fit the cnn_small model of this run: it fits resnet18."),
        (
            "unrecognised",
            "'unrecognised' does not fit the cnn_small model of this run: its keys and shapes match none",
        ),
    ],
)
def test_training_refuses_a_backbone_it_cannot_use(tenants, api_client, version_a, case, says):
    other_project = second_project(tenants)
    project = {"other project": other_project, "other tenant": tenants["project_b"]}.get(
        case, tenants["project_a"]
    )
    status = "valid" if case in ("other project", "other tenant", "other model", "unrecognised") else case
    arch = {"other model": "resnet18", "unrecognised": None}.get(case, "cnn_small")
    backbone = make_backbone(
        project,
        name=case,
        status=status,
        arch=arch,
        error="weights.pt: refused: it holds a pickled builtins.eval object" if case == "invalid" else "",
    )
    response = api_client(tenants["alice"]).post(
        "/api/v1/training-jobs/",
        {"dataset_version": version_a.pk, "preset": "fast", "backbone": backbone.pk},
        format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert "backbone" in error["details"] and says in error["message"], error["message"]
    assert not Job.objects.filter(kind="training.run").exists()
