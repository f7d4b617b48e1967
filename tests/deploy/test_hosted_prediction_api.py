"""The hosted prediction API end to end: a deployment of a trained digits model served by a real
gunicorn web process, its keys (shown once, hashed, revocable, expiring, scoped to one deployment),
JSON base64 / multipart / raw image requests, stop and start, switch and rollback."""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from tests.deploy.factories import b64, deployment_with_key, jpeg, model_version_from, png

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def post(live_web, deployment_id, secret=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if secret:
        headers.setdefault("Authorization", f"Bearer {secret}")
    return requests.post(
        f"{live_web}/api/v1/deployments/{deployment_id}/predict/", headers=headers, timeout=30, **kwargs
    )


def test_deploy_create_key_and_predict_in_every_format(live_web, tenants, api_client, trained_digits):
    from deploy.models import DeploymentKey

    mv = model_version_from(tenants, trained_digits)
    alice = api_client(tenants["alice"])
    created = alice.post("/api/v1/deployments/", {"model_version": mv.pk, "name": "digits"}, format="json")
    assert created.status_code == 201, created.content
    deployment = created.json()
    assert deployment["status"] == "active" and deployment["model_version"] == mv.pk
    assert deployment["predict_url"] == f"/api/v1/deployments/{deployment['id']}/predict/"
    assert [h["action"] for h in deployment["history"]] == ["create"]

    key = alice.post(
        f"/api/v1/deployments/{deployment['id']}/keys/",
        {"name": "app", "quota_per_minute": 1000},
        format="json",
    )
    assert key.status_code == 201, key.content
    secret = key.json()["key"]
    assert secret.startswith("spd_") and key.json()["prefix"] == secret[:12]
    stored = DeploymentKey.objects.get(pk=key.json()["id"])
    assert stored.digest == hashlib.sha256(secret.encode()).hexdigest() and secret not in str(stored.__dict__)
    listed = alice.get(f"/api/v1/deployments/{deployment['id']}/keys/").json()
    assert (
        [k["name"] for k in listed] == ["app"] and "key" not in listed[0] and listed[0]["status"] == "active"
    )

    # JSON with base64 images, a batch of three, top_k 3
    indexes = [0, 1, 2]
    answer = post(
        live_web,
        deployment["id"],
        secret,
        json={"instances": [{"image": b64(png(i))} for i in indexes], "top_k": 3},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["model_version"] == {"id": mv.pk, "name": "V1", "template": "image_classification"}
    assert len(body["predictions"]) == 3 and body["latency_ms"] > 0
    for prediction in body["predictions"]:
        scores = [c["score"] for c in prediction["top_k"]]
        assert len(scores) == 3 and scores == sorted(scores, reverse=True) and 0 < sum(scores) <= 1.0001
        assert all(c["label"] == str(c["index"]) for c in prediction["top_k"])
    json_top1 = [p["top_k"][0]["label"] for p in body["predictions"]]

    # the same images as multipart file parts, and one as a raw body (X-Sampan-Key header), and as a JPEG
    files = [("file", (f"{i}.png", png(i), "image/png")) for i in indexes]
    multipart = post(live_web, deployment["id"], secret, files=files, data={"top_k": "2"})
    assert multipart.status_code == 200, multipart.text
    assert [p["top_k"][0]["label"] for p in multipart.json()["predictions"]] == json_top1
    assert all(len(p["top_k"]) == 2 for p in multipart.json()["predictions"])
    raw = post(
        live_web,
        deployment["id"],
        data=png(0),
        headers={"Content-Type": "image/png", "X-Sampan-Key": secret},
        params={"top_k": 1},
    )
    assert raw.status_code == 200, raw.text
    assert raw.json()["predictions"][0]["top_k"][0]["label"] == json_top1[0]
    assert len(raw.json()["predictions"][0]["top_k"]) == 1
    single = post(
        live_web, deployment["id"], secret, json={"image": "data:image/jpeg;base64," + b64(jpeg(0))}
    )
    assert single.status_code == 200 and len(single.json()["predictions"][0]["top_k"]) == 5

    # served by ONNX Runtime: the web process that answered never loaded torch
    from tests.test_process_boundaries import _pid_listening, has_libtorch

    assert not has_libtorch(_pid_listening(live_web))


def test_keys_missing_invalid_revoked_expired_and_of_another_deployment(
    live_web, tenants, api_client, trained_digits
):
    mv = model_version_from(tenants, trained_digits)
    deployment, key, secret = deployment_with_key(tenants, mv)
    other, _, other_secret = deployment_with_key(tenants, mv, name="other")
    body = {"instances": [{"image": b64(png(3))}]}
    assert post(live_web, deployment.pk, secret, json=body).status_code == 200

    missing = post(live_web, deployment.pk, json=body)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "missing_key"
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    invalid = post(live_web, deployment.pk, "spd_not-a-real-key", json=body)
    assert invalid.status_code == 401 and invalid.json()["error"]["code"] == "invalid_key"
    user_token = post(live_web, deployment.pk, headers={"Authorization": "Token abc"}, json=body)
    assert user_token.status_code == 401
    wrong = post(live_web, deployment.pk, other_secret, json=body)
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "key_wrong_deployment"
    unknown_deployment = post(live_web, other.pk + 1000, secret, json=body)
    assert unknown_deployment.status_code == 403

    revoked = api_client(tenants["alice"]).delete(f"/api/v1/deployments/{deployment.pk}/keys/{key.pk}/")
    assert revoked.status_code == 204
    refused = post(live_web, deployment.pk, secret, json=body)  # the very next request
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "key_revoked"
    listed = api_client(tenants["alice"]).get(f"/api/v1/deployments/{deployment.pk}/keys/").json()
    assert listed[0]["status"] == "revoked"

    from deploy import services

    soon, expiring = services.deployment_key_create(
        user=tenants["alice"],
        deployment=deployment,
        name="short",
        expires_at=timezone.now() + timedelta(seconds=2),
    )
    assert post(live_web, deployment.pk, expiring, json=body).status_code == 200
    time.sleep(2.2)
    expired = post(live_web, deployment.pk, expiring, json=body)
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "key_expired"
    past = api_client(tenants["alice"]).post(
        f"/api/v1/deployments/{deployment.pk}/keys/",
        {"name": "past", "expires_at": "2020-01-01T00:00:00Z"},
        format="json",
    )
    assert past.status_code == 400 and "expires_at" in past.json()["error"]["details"]


def test_stop_start_switch_and_rollback(live_web, tenants, api_client, trained_digits):
    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    deployment, _, secret = deployment_with_key(tenants, v1)
    alice = api_client(tenants["alice"])
    body = {"instances": [{"image": b64(png(5))}]}
    url = f"/api/v1/deployments/{deployment.pk}"

    assert post(live_web, deployment.pk, secret, json=body).json()["model_version"]["id"] == v1.pk
    stopped = alice.post(f"{url}/stop/")
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
    refused = post(live_web, deployment.pk, secret, json=body)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "deployment_stopped"
    assert alice.post(f"{url}/start/").json()["status"] == "active"
    assert post(live_web, deployment.pk, secret, json=body).status_code == 200

    switched = alice.post(f"{url}/switch/", {"model_version": v2.pk}, format="json")
    assert switched.status_code == 200, switched.content
    assert switched.json()["model_version"] == v2.pk and switched.json()["previous_model_version"] == v1.pk
    answer = post(live_web, deployment.pk, secret, json=body)
    assert answer.json()["model_version"]["id"] == v2.pk and answer.headers["X-Sampan-Model-Version"] == str(
        v2.pk
    )

    rolled = alice.post(f"{url}/rollback/")
    assert rolled.status_code == 200 and rolled.json()["model_version"] == v1.pk
    assert rolled.json()["previous_model_version"] == v2.pk
    assert post(live_web, deployment.pk, secret, json=body).json()["model_version"]["id"] == v1.pk
    history = alice.get(f"{url}/").json()["history"]
    assert [(h["action"], h["model_version"]) for h in history] == [
        ("create", v1.pk),
        ("stop", v1.pk),
        ("start", v1.pk),
        ("switch", v2.pk),
        ("rollback", v1.pk),
    ]

    same = alice.post(f"{url}/switch/", {"model_version": v1.pk}, format="json")
    assert same.status_code == 400
    other_project = model_version_from(tenants, trained_digits, number=1, project=tenants["project_b"])
    foreign = alice.post(f"{url}/switch/", {"model_version": other_project.pk}, format="json")
    assert foreign.status_code == 400 and "model_version" in foreign.json()["error"]["details"]

    viewer = api_client(tenants["carol"])
    assert viewer.get(f"{url}/").status_code == 200
    assert viewer.post(f"{url}/stop/").status_code == 403
    assert viewer.post(f"{url}/keys/", {"name": "mine"}, format="json").status_code == 403
    assert api_client(tenants["bob"]).get(f"{url}/").status_code == 404

    assert alice.delete(f"{url}/").status_code == 204
    gone = post(live_web, deployment.pk, secret, json=body)
    assert gone.status_code == 401


def test_deleting_a_project_deletes_its_deployments_and_a_deployed_version_is_kept(
    tenants, api_client, trained_digits
):
    from deploy.models import Deployment, DeploymentKey, Package
    from django.db.models import RestrictedError

    mv = model_version_from(tenants, trained_digits)
    deployment, key, _ = deployment_with_key(tenants, mv)
    Package.objects.create(
        workspace=tenants["ws_a"], project=tenants["project_a"], model_version=mv, kind="server"
    )
    with pytest.raises(RestrictedError):
        mv.delete()
    assert (
        api_client(tenants["alice"]).delete(f"/api/v1/projects/{tenants['project_a'].pk}/").status_code == 204
    )
    assert not Deployment.objects.filter(pk=deployment.pk).exists()
    assert not DeploymentKey.objects.filter(pk=key.pk).exists() and not Package.objects.exists()
