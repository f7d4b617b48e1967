"""Packages through the REST API and a live worker: a deploy.build_package job builds the on-prem
server package and the device SDK of a trained digits model (calibrated on its dataset version's
training images), stores the archive, and the download streams the same bytes again."""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest

from tests.datasets.factories import dataset_with_samples
from tests.deploy.factories import model_version_from
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def built(client, package_id: int) -> dict:
    def finished():
        package = client.get(f"/api/v1/packages/{package_id}/").json()
        return package if package["status"] in ("succeeded", "failed", "cancelled") else None

    package = wait_for(finished, timeout=600, interval=1, what=f"package {package_id}")
    assert package["status"] == "succeeded", package["error"]
    return package


def test_server_package_and_device_sdk_are_built_stored_and_downloaded(
    live_worker, tenants, api_client, trained_digits
):
    from datasets.services import dataset_version_create
    from jobs.models import Job

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=6, classes=range(10)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=3)
    mv = model_version_from(tenants, trained_digits, dataset_version=version)
    alice = api_client(tenants["alice"])

    viewer = api_client(tenants["carol"]).post(
        "/api/v1/packages/", {"model_version": mv.pk, "kind": "server"}, format="json"
    )
    assert viewer.status_code == 403
    bad_kind = alice.post("/api/v1/packages/", {"model_version": mv.pk, "kind": "phone"}, format="json")
    assert bad_kind.status_code == 400 and "kind" in bad_kind.json()["error"]["details"]

    created = {
        kind: alice.post("/api/v1/packages/", {"model_version": mv.pk, "kind": kind}, format="json")
        for kind in ("server", "device")
    }
    for response in created.values():
        assert response.status_code == 201, response.content
        assert response.json()["status"] == "queued" and response.json()["download_url"] is None
        job = Job.objects.get(pk=response.json()["job"])
        assert job.kind == "deploy.build_package" and job.queue == "cpu"
    from deploy.models import Package

    unbuilt = Package.objects.create(
        workspace=tenants["ws_a"], project=tenants["project_a"], model_version=mv, kind="server"
    )
    not_ready = alice.get(f"/api/v1/packages/{unbuilt.pk}/download/")
    assert not_ready.status_code == 409 and not_ready.json()["error"]["code"] == "package_not_ready"
    unbuilt.delete()

    for kind, response in created.items():
        package = built(alice, response.json()["id"])
        assert package["download_url"] == f"/api/v1/packages/{package['id']}/download/"
        assert package["size_bytes"] > 0 and len(package["sha256"]) == 64 and package["report"]
        download = alice.get(package["download_url"])
        assert download.status_code == 200 and download["Content-Type"] == "application/zip"
        assert package["filename"] in download["Content-Disposition"]
        data = b"".join(download.streaming_content)
        assert len(data) == package["size_bytes"] and hashlib.sha256(data).hexdigest() == package["sha256"]
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
        assert any(name.endswith(".onnx") for name in names), names
        assert any(name.endswith("labels.json") for name in names) and any(
            name.endswith("manifest.json") for name in names
        )
        if kind == "device":
            assert any("int8" in name and name.endswith(".onnx") for name in names), names

    listed = alice.get(f"/api/v1/packages/?model_version={mv.pk}").json()["results"]
    assert sorted(p["kind"] for p in listed) == ["device", "server"]
    assert api_client(tenants["bob"]).get(f"/api/v1/packages/{listed[0]['id']}/download/").status_code == 404
