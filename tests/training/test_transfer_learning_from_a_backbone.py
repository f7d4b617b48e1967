"""Transfer learning end to end, against PostgreSQL, Redis and a live worker: uploaded backbones
are checked on the worker with weights_only=True (a real state_dict is valid; a pickled object, a
truncated file and garbage are invalid, and nothing in them runs), and a training run through the
API starts from a valid backbone and records it in the model version's lineage."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pytest
import torch
from jobs.models import Job

from tests.datasets.factories import upload
from tests.harness import wait_for
from tests.training.test_train_digits_through_the_api import digits_version, finished
from workers.image_classification.models import build_model

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class Payload:
    """Unpickling this would create a file: proof that it never ran."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (Path.touch, (self.target,))


def saved(obj) -> bytes:
    out = io.BytesIO()
    torch.save(obj, out)
    return out.getvalue()


def upload_backbone(client, project, name: str, data: bytes) -> dict:
    response = client.post(
        "/api/v1/backbones/",
        {"project": project.pk, "name": name, "file": upload(f"{name}.pt", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "pending"
    return response.json()


def checked(client, backbone_id: int) -> dict:
    def done():
        body = client.get(f"/api/v1/backbones/{backbone_id}/").json()
        return body if body["status"] != "pending" else None

    return wait_for(done, timeout=120, interval=0.3, what=f"the check of backbone {backbone_id}")


def test_backbones_are_checked_on_the_worker_and_a_run_starts_from_a_valid_one(
    live_worker, tenants, api_client, tmp_path
):
    client = api_client(tenants["alice"])
    project = tenants["project_a"]
    proof = tmp_path / "payload-ran"
    pretrained = build_model("cnn_small", 1000)  # e.g. weights trained elsewhere on another label set
    real = saved(pretrained.state_dict())
    uploads = {
        "small-cnn": real,
        "narrow-resnet": saved(build_model("resnet_narrow", 10).state_dict()),
        "pickled-object": saved({"features.0.0.weight": torch.zeros(3), "extra": Payload(proof)}),
        "plain-pickle": pickle.dumps(Payload(proof), protocol=2),  # no torch framing at all
        "truncated": real[: len(real) // 2],
        "garbage": b"these are not the weights you are looking for" * 10,
    }
    ids = {name: upload_backbone(client, project, name, data)["id"] for name, data in uploads.items()}
    results = {name: checked(client, backbone_id) for name, backbone_id in ids.items()}

    valid = results["small-cnn"]
    assert valid["status"] == "valid" and valid["error"] == "", valid
    parameters = sum(
        v.numel()
        for k, v in pretrained.state_dict().items()
        if not k.endswith(("running_mean", "running_var", "num_batches_tracked"))
    )
    assert valid["summary"] == {
        "architecture": "cnn_small",
        "fits": ["cnn_small"],
        "tensors": len(pretrained.state_dict()),
        "parameters": parameters,
        "head_classes": 1000,
        "dtypes": ["float32", "int64"],
    }
    assert results["narrow-resnet"]["summary"]["architecture"] == "resnet_narrow"
    check_job = Job.objects.get(pk=valid["job"])
    assert check_job.kind == "training.check_backbone" and check_job.status == "succeeded"

    for name in ("pickled-object", "plain-pickle"):
        assert results[name]["status"] == "invalid" and results[name]["summary"] is None
        assert results[name]["error"].startswith(f"{name}.pt: refused: it holds a pickled "), results[name][
            "error"
        ]
        assert "weights_only=True and may contain only tensors" in results[name]["error"]
    assert not proof.exists(), "an object in an uploaded file was unpickled"
    for name in ("truncated", "garbage"):
        assert results[name]["status"] == "invalid"
        assert results[name]["error"].startswith(f"{name}.pt: not a readable PyTorch state_dict file"), (
            results[name]
        )
    assert "/tmp" not in "".join(r["error"] for r in results.values()), (
        "errors name the upload, not worker paths"
    )

    # Training: refused from an invalid backbone or one that fits another model, run from the valid one.
    version = digits_version(tenants, api_client, per_class=12)
    for name, says in (
        ("garbage", "is invalid: garbage.pt: not a readable"),
        ("narrow-resnet", "does not fit the cnn_small model of this run: it fits resnet_narrow"),
    ):
        refused = client.post(
            "/api/v1/training-jobs/",
            {"dataset_version": version["id"], "preset": "fast", "backbone": ids[name]},
            format="json",
        )
        assert refused.status_code == 400 and says in refused.json()["error"]["message"], refused.content
    started = client.post(
        "/api/v1/training-jobs/",
        {
            "dataset_version": version["id"],
            "preset": "fast",
            "params": {"epochs": 2},
            "backbone": ids["small-cnn"],
        },
        format="json",
    )
    assert started.status_code == 201, started.content
    assert started.json()["params"]["backbone"] == ids["small-cnn"]
    in_use = client.delete(f"/api/v1/backbones/{ids['small-cnn']}/")
    assert in_use.status_code == 409 and "in use by training job" in in_use.json()["error"]["message"]
    job = finished(started.json()["id"], timeout=300)

    model = client.get(f"/api/v1/model-versions/{job.result['model_version']}/").json()
    # every entry but the head (fc.weight, fc.bias) was copied from the file
    assert model["backbone"] == {
        "id": ids["small-cnn"],
        "name": "small-cnn",
        "sha256": valid["sha256"],
        "tensors": len(pretrained.state_dict()) - 2,
    }
    assert client.delete(f"/api/v1/backbones/{ids['small-cnn']}/").status_code == 204
    kept = client.get(f"/api/v1/model-versions/{model['id']}/").json()
    assert kept["backbone"]["name"] == "small-cnn", "the lineage outlives the deleted backbone"


def test_a_backbone_that_does_not_fit_fails_the_job_with_the_mismatched_keys(
    live_worker, tenants, api_client
):
    """The API refuses a backbone whose check says it fits another model; should the recorded
    summary be wrong (e.g. written by an older release), the trainer still refuses it, clearly."""
    from training.models import Backbone

    client = api_client(tenants["alice"])
    backbone = upload_backbone(
        client, tenants["project_a"], "narrow-resnet", saved(build_model("resnet_narrow", 10).state_dict())
    )
    assert checked(client, backbone["id"])["summary"]["fits"] == ["resnet_narrow"]
    Backbone.objects.filter(pk=backbone["id"]).update(summary={"fits": ["cnn_small"]})
    version = digits_version(tenants, api_client, per_class=6)
    started = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version["id"], "preset": "fast", "backbone": backbone["id"]},
        format="json",
    )
    assert started.status_code == 201, started.content
    job = wait_for(
        lambda: Job.objects.filter(pk=started.json()["id"], status="failed").first(),
        timeout=120,
        what="the training job to fail",
    )
    assert job.error.startswith(
        "BackboneError: backbone 'narrow-resnet' does not fit the SmallCNN backbone: "
    ), job.error
    assert "missing (" in job.error and "features.0.0.weight" in job.error and "/runs/" not in job.error
