"""Per-key quotas (429 + Retry-After), usage counted per deployment with latency percentiles, and a
version switch under concurrent load that drops no request."""

from __future__ import annotations

import threading

import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
BODY = {"instances": [{"image": b64(png(7))}]}


def post(live_web, deployment_id, secret, body=BODY):
    return requests.post(
        f"{live_web}/api/v1/deployments/{deployment_id}/predict/",
        json=body,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )


def test_quota_per_key_answers_429_with_retry_after(live_web, tenants, trained_digits):
    from deploy import services

    mv = model_version_from(tenants, trained_digits)
    deployment, _, limited = deployment_with_key(tenants, mv, quota_per_minute=3)
    _, unlimited = services.deployment_key_create(
        user=tenants["alice"], deployment=deployment, name="unlimited"
    )
    statuses = [post(live_web, deployment.pk, limited).status_code for _ in range(3)]
    refused = post(live_web, deployment.pk, limited)
    if refused.status_code == 200:  # the minute turned over between the calls: a fresh window
        statuses = [post(live_web, deployment.pk, limited).status_code for _ in range(2)]
        refused = post(live_web, deployment.pk, limited)
    assert set(statuses) == {200}
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "quota_exceeded" and error["details"]["quota_per_minute"] == 3
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= 60 and error["details"]["retry_after_seconds"] == retry_after
    # another key of the same deployment is not affected
    assert post(live_web, deployment.pk, unlimited).status_code == 200


def test_usage_counts_calls_errors_and_percentiles(live_web, tenants, api_client, trained_digits):
    mv = model_version_from(tenants, trained_digits)
    deployment, key, secret = deployment_with_key(tenants, mv)
    for _ in range(6):
        assert post(live_web, deployment.pk, secret).status_code == 200
    for _ in range(2):
        assert post(live_web, deployment.pk, secret, {"instances": []}).status_code == 400
    assert (
        post(live_web, deployment.pk, "spd_wrong").status_code == 401
    )  # not a call of this deployment's keys

    alice = api_client(tenants["alice"])
    url = f"/api/v1/deployments/{deployment.pk}/usage/?window=1h"

    def counted():
        usage = alice.get(url).json()
        return usage if usage["totals"]["calls"] == 8 else None

    usage = wait_for(counted, timeout=20, interval=0.5, what="usage to be written")
    totals = usage["totals"]
    assert totals["errors"] == 2 and usage["window"] == "1h" and usage["bucket_seconds"] == 60
    assert 0 < totals["p50_ms"] <= totals["p95_ms"] <= totals["p99_ms"]
    assert sum(point["calls"] for point in usage["series"]) == 8
    assert sum(point["errors"] for point in usage["series"]) == 2
    for window in ("24h", "7d"):
        assert (
            alice.get(f"/api/v1/deployments/{deployment.pk}/usage/?window={window}").json()["totals"]["calls"]
            == 8
        )
    assert alice.get(f"/api/v1/deployments/{deployment.pk}/usage/?window=2y").status_code == 400
    keys = alice.get(f"/api/v1/deployments/{deployment.pk}/keys/").json()
    assert keys[0]["last_used_at"] is not None

    other = api_client(tenants["bob"]).get(url)
    assert other.status_code == 404


def test_switching_versions_under_concurrent_load_drops_nothing(
    live_web, tenants, api_client, trained_digits
):
    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    deployment, _, secret = deployment_with_key(tenants, v1)
    assert post(live_web, deployment.pk, secret).status_code == 200  # v1 loaded
    results: list[tuple[int, int | None]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client():
        with requests.Session() as session:
            while not stop.is_set():
                response = session.post(
                    f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
                    json=BODY,
                    headers={"Authorization": f"Bearer {secret}"},
                    timeout=30,
                )
                version = response.json()["model_version"]["id"] if response.status_code == 200 else None
                with lock:
                    results.append((response.status_code, version))

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    alice = api_client(tenants["alice"])
    try:
        for target in (v2, v1, v2):
            before = len(results)
            wait_for(
                lambda before=before: len(results) >= before + 10,
                timeout=60,
                what="requests between switches",
            )
            assert (
                alice.post(
                    f"/api/v1/deployments/{deployment.pk}/switch/",
                    {"model_version": target.pk},
                    format="json",
                ).status_code
                == 200
            )
        count = len(results)
        wait_for(lambda: len(results) >= count + 10, timeout=60, what="requests after the last switch")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    statuses = {status for status, _ in results}
    assert statuses == {200}, f"{len(results)} requests: statuses {statuses}"
    versions = [version for _, version in results]
    assert {v1.pk, v2.pk} <= set(versions)
    assert versions[-1] == v2.pk
