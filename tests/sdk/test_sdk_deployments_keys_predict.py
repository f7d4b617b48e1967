"""Deployments through the SDK: deploy an (uploaded) model version, keys, predict() from a path,
bytes, a PIL image and a NumPy array, quota 429s retried then raised, revoked keys, stop/start,
switch/rollback, usage, and a server package download."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import sampan
from PIL import Image

from tests.sdk.live_platform import wait_for
from tests.sdk.onnx_models import PLAIN, brightness_classifier

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def brightness(sdk, project, tmp_path):
    path = brightness_classifier(tmp_path / "brightness.onnx")
    return sdk.model_versions.upload_onnx(
        path, project=project, classes=["dark", "bright"], preprocessing=PLAIN
    )


def png(value: int, size: int = 20) -> bytes:
    out = io.BytesIO()
    Image.new("L", (size, size), value).save(out, "PNG")
    return out.getvalue()


def test_deploy_and_predict_from_every_kind_of_image(sdk, brightness, tmp_path):
    deployment = brightness.deploy("brightness")
    assert deployment.status == "active" and deployment.model_version == brightness.id
    assert sdk.deployments.get(deployment.id).name == "brightness"
    with pytest.raises(ValueError, match="deployment key"):
        deployment.predict(png(0))
    created = deployment.create_key("notebook")
    assert created["key"].startswith("spd_") and deployment.key == created["key"]

    white = tmp_path / "white.png"
    white.write_bytes(png(255))
    by_path = deployment.predict(white)
    assert by_path.label == "bright" and by_path.index == 1 and by_path.score > 0.99
    assert by_path.model_version["id"] == brightness.id
    assert deployment.predict(png(0)).label == "dark"
    assert deployment.predict(Image.new("RGB", (8, 8), (250, 250, 250))).label == "bright"
    assert deployment.predict(np.zeros((12, 12, 3), dtype=np.uint8)).label == "dark"
    assert deployment.predict(np.ones((12, 12))).label == "bright"  # floats in [0, 1]
    batch = deployment.predict_batch([png(0), png(255)] * 20, top_k=2, batch_size=32)
    assert [p.label for p in batch] == ["dark", "bright"] * 20 and len(batch[0].top_k) == 2

    # a fresh object (no key kept) with the key given explicitly
    fetched = sdk.deployments.get(deployment.id)
    assert fetched.predict(png(255), key=created["key"]).label == "bright"
    with pytest.raises(TypeError, match="give a path, bytes"):
        deployment.predict(object())

    keys = deployment.keys()
    assert [k["name"] for k in keys] == ["notebook"] and "key" not in keys[0]
    deployment.revoke_key(keys[0])
    with pytest.raises(sampan.AuthenticationError) as caught:
        deployment.predict(png(0))
    assert caught.value.code == "key_revoked"
    with pytest.raises(sampan.AuthenticationError):
        deployment.predict(png(0), key="spd_wrong")

    # usage is flushed from the web process about every second
    usage = wait_for(
        lambda: (u := deployment.usage("1h"))["totals"]["calls"] >= 7 and u,
        timeout=30,
        what="usage to count the calls",
    )
    assert usage["totals"]["p50_ms"] is not None


def test_quota_429_is_retried_then_raised(sdk, brightness, live_web, tenants, token_for):
    deployment = brightness.deploy("quota")
    key = deployment.create_key("one a minute", quota_per_minute=1)["key"]
    assert deployment.predict(png(255)).label == "bright"

    client = sampan.Client(
        live_web, token_for(tenants["alice"]), max_retries=2, backoff=0.01, max_backoff=0.05
    )
    seen: list[int] = []
    client.http.session.hooks["response"].append(lambda response, *a, **k: seen.append(response.status_code))
    limited = client.deployments.get(deployment.id)
    seen.clear()
    with pytest.raises(sampan.RateLimited) as caught:
        limited.predict(png(0), key=key)
    assert seen == [429, 429, 429]  # the first answer and two retries
    assert caught.value.code == "quota_exceeded" and caught.value.retry_after is not None
    assert 0 < caught.value.retry_after <= 60


def test_lifecycle_switch_rollback_stop_start(sdk, brightness, project, tmp_path):
    other = sdk.model_versions.upload_onnx(
        brightness_classifier(tmp_path / "b16.onnx"),
        project=project,
        classes=["night", "day"],
        preprocessing=PLAIN,
    )
    deployment = sdk.deployments.create(brightness, name="lifecycle")
    deployment.create_key()
    deployment.switch(other)
    assert deployment.model_version == other.id and deployment.previous_model_version == brightness.id
    assert deployment.predict(png(255)).label == "day"
    deployment.rollback()
    assert deployment.model_version == brightness.id
    assert deployment.predict(png(255)).label == "bright"
    deployment.stop()
    assert deployment.status == "stopped"
    with pytest.raises(sampan.Conflict) as caught:
        deployment.predict(png(255))
    assert caught.value.code == "deployment_stopped"
    deployment.start()
    assert deployment.predict(png(0)).label == "dark"
    assert [a["action"] for a in deployment.refresh().history][:1] == ["create"] or len(
        deployment.history
    ) == 5
    renamed = sdk.deployments.rename(deployment, "renamed")
    assert renamed.name == "renamed"
    assert [d.id for d in sdk.deployments.list(project=project)] == [deployment.id]
    sdk.deployments.delete(deployment)
    with pytest.raises(sampan.NotFound):
        sdk.deployments.get(deployment.id)


def test_server_package_download(sdk, brightness, tmp_path):
    package = brightness.package("server")
    assert package.kind == "server" and package.status in ("queued", "running")
    with pytest.raises(sampan.Conflict) as caught:
        package.download(tmp_path / "early.zip")
    assert caught.value.code == "package_not_ready"
    package.wait(progress=False, timeout=600)
    path = package.download(tmp_path / "server.zip")
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    assert any(n.endswith("model.onnx") for n in names) and path.stat().st_size == package.size_bytes
    assert [p.id for p in sdk.packages.list(model_version=brightness)] == [package.id]
