"""No cold start: every web process preloads the models of the active deployments (deploy.warm) at
start and after a deploy, switch or canary change, and the serving cache keeps only the model
directories some deployment uses."""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png
from tests.harness import live_env, start_web, wait_for

BODY = {"instances": [{"image": b64(png(7))}]}


def loaded() -> set[int]:
    from deploy import serving

    return set(serving.predictors._predictors)


def predict(client, deployment_id: int, secret: str):
    return client.post(
        f"/api/v1/deployments/{deployment_id}/predict/",
        BODY,
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


@pytest.mark.django_db
def test_warmer_loads_active_deployments_before_their_first_request(tenants, trained_digits, api_client):
    from deploy import services
    from deploy.warm import Warmer

    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    v3 = model_version_from(tenants, trained_digits, number=3)
    deployment, _, secret = deployment_with_key(tenants, v1)
    stopped, _, _ = deployment_with_key(tenants, v3, name="stopped")
    services.deployment_set_status(user=tenants["alice"], deployment=stopped, status="stopped")
    warmer = Warmer()

    assert warmer.run_once() == [v1.pk]
    assert v1.pk in loaded() and v3.pk not in loaded()  # a stopped deployment is not preloaded
    assert warmer.run_once() == []  # nothing changed: nothing loaded again

    services.deployment_switch(user=tenants["alice"], deployment=deployment, model_version=v2)
    assert v2.pk not in loaded()
    assert warmer.run_once() == [v2.pk]
    assert v2.pk in loaded()  # before the first request after the switch
    client = api_client()
    answer = predict(client, deployment.pk, secret)
    assert answer.status_code == 200 and answer.json()["model_version"]["id"] == v2.pk


@pytest.mark.django_db
def test_warmer_loads_canaries_and_the_shadow(tenants, trained_digits):
    from deploy import services
    from deploy.warm import Warmer

    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    v3 = model_version_from(tenants, trained_digits, number=3)
    deployment, _, _ = deployment_with_key(tenants, v1)
    warmer = Warmer()
    warmer.run_once()
    services.deployment_set_traffic(user=tenants["alice"], deployment=deployment, canaries=[(v2, 10)])
    assert warmer.run_once() == [v2.pk]
    assert {v1.pk, v2.pk} <= loaded()
    services.deployment_set_shadow(user=tenants["alice"], deployment=deployment, model_version=v3)
    assert warmer.run_once() == [v3.pk]  # the shadow too, before the first request it shadows


@pytest.mark.django_db
def test_serving_cache_cleanup_removes_only_unused_directories(tenants, trained_digits, settings, tmp_path):
    from deploy import serving
    from deploy.warm import cleanup_serving_cache

    settings.SAMPAN_HOME = tmp_path
    settings.SAMPAN_DEPLOY_CACHE_GRACE_SECONDS = 600
    served = model_version_from(tenants, trained_digits, number=1)
    kept_loaded = model_version_from(tenants, trained_digits, number=2)
    deployment_with_key(tenants, served)
    serving.predictors.get(serving.model_version_state(kept_loaded))  # loaded here, no deployment
    root = tmp_path / "serving-cache"
    old = time.time() - 3600

    def make(name: str, mtime: float) -> None:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "model.onnx").write_bytes(b"x")
        os.utime(root / name, (mtime, mtime))

    served_dir = serving.PredictorCache.model_dir(serving.model_version_state(served)).name
    make(served_dir, old)  # a deployment serves it
    make(f"model-version-{served.pk}-{'a' * 24}", old)  # the same id, other files: stale, removed
    make("model-version-999999-bbbbbbbbbbbbbbbb", old)  # nobody: removed
    make("model-version-999998-cccccccccccccccc", time.time())  # nobody, but just written: kept
    make(".model-version-999997-dddddddddddddddd.12.34", old)  # a copy left by a crash: removed
    make(".model-version-999996-eeeeeeeeeeeeeeee.12.35", time.time())  # a copy in progress: kept
    loaded_dir = serving.PredictorCache.model_dir(serving.model_version_state(kept_loaded))
    os.utime(loaded_dir, (old, old))
    (root / "notes.txt").write_text("not a model directory")

    removed = cleanup_serving_cache()

    assert sorted(removed) == sorted(
        [
            ".model-version-999997-dddddddddddddddd.12.34",
            "model-version-999999-bbbbbbbbbbbbbbbb",
            f"model-version-{served.pk}-{'a' * 24}",
        ]
    )
    assert sorted(p.name for p in root.iterdir()) == sorted(
        [
            served_dir,
            "model-version-999998-cccccccccccccccc",
            ".model-version-999996-eeeeeeeeeeeeeeee.12.35",
            loaded_dir.name,
            "notes.txt",
        ]
    )


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_gunicorn_process_preloads_at_start_and_after_a_switch(tenants, trained_digits, api_client, settings):
    """A web process of its own with preloading on: the model directories appear in the serving cache
    (copied by the web process's loader) before any request, at start and after a switch, and the
    first request after the switch is answered by the new version."""
    from deploy import serving

    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    deployment, _, secret = deployment_with_key(tenants, v1)
    dirs = {mv.pk: serving.PredictorCache.model_dir(serving.model_version_state(mv)) for mv in (v1, v2)}
    for directory in dirs.values():  # left by an earlier run whose database gave out the same ids
        shutil.rmtree(directory, ignore_errors=True)
    web, url = start_web("web-preload", live_env(SAMPAN_DEPLOY_PRELOAD="true"))
    try:
        wait_for(lambda: (dirs[v1.pk] / "manifest.json").is_file(), timeout=60, what="v1 preloaded")
        assert not dirs[v2.pk].exists()
        alice = api_client(tenants["alice"])
        switched = alice.post(
            f"/api/v1/deployments/{deployment.pk}/switch/", {"model_version": v2.pk}, format="json"
        )
        assert switched.status_code == 200
        wait_for(lambda: (dirs[v2.pk] / "manifest.json").is_file(), timeout=60, what="v2 preloaded")
        answer = requests.post(
            f"{url}/api/v1/deployments/{deployment.pk}/predict/",
            json=BODY,
            headers={"Authorization": f"Bearer {secret}"},
            timeout=30,
        )
        assert answer.status_code == 200 and answer.json()["model_version"]["id"] == v2.pk
    finally:
        web.stop()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_every_gunicorn_process_preloads(tenants, trained_digits, api_client):
    """With two web processes, each loads the deployed version at start and the new one after a
    switch (each logs the version it preloaded with its pid)."""
    from tests.harness import ARTIFACTS, LiveProcess

    v1 = model_version_from(tenants, trained_digits, number=1)
    v2 = model_version_from(tenants, trained_digits, number=2)
    deployment, _, _ = deployment_with_key(tenants, v1)
    log = ARTIFACTS / "web-preload-2.log"
    log.unlink(missing_ok=True)

    def two_processes(name, args, env):
        index = args.index("--workers")
        return LiveProcess(name, [*args[: index + 1], "2", *args[index + 2 :]], env)

    def preloaded_by(version: int) -> set[str]:
        pattern = re.compile(rf"web process (\d+) preloaded model version {version} \(")
        return set(pattern.findall(log.read_text(errors="replace")))

    web, _ = start_web("web-preload-2", live_env(SAMPAN_DEPLOY_PRELOAD="true"), start=two_processes)
    try:
        wait_for(lambda: len(preloaded_by(v1.pk)) == 2, timeout=90, what="both processes preloading V1")
        switched = api_client(tenants["alice"]).post(
            f"/api/v1/deployments/{deployment.pk}/switch/", {"model_version": v2.pk}, format="json"
        )
        assert switched.status_code == 200
        wait_for(lambda: len(preloaded_by(v2.pk)) == 2, timeout=90, what="both processes preloading V2")
        assert preloaded_by(v1.pk) == preloaded_by(v2.pk)
    finally:
        web.stop()
