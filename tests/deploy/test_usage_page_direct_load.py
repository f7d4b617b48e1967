"""Pages opened directly by URL in headless Chromium against a live web process.

A deployment's usage page, opened and reloaded (frontend/e2e/usage_direct.mjs): both charts draw
their series (the calls bars, the p50, p95 and p99 latency lines), each legend on one row, in English
and in Chinese, with no page error, console error or CSP violation. Usage comes from real calls with
a key plus usage minutes written for the previous minutes, so the latency lines have more than one
point to join. A model version's page (frontend/e2e/model_version_try.mjs): Try it before deploying,
one image and a batch, as a viewer."""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import timedelta

import pytest
import requests
from django.conf import settings
from django.utils import timezone

from tests.deploy.factories import deployment_with_key, model_version_from, png
from tests.harness import ARTIFACTS, REPO

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "usage_direct.mjs"
PASSWORD = "usage-passphrase-123"


def earlier_minutes(deployment, key, minutes: int = 4) -> None:
    """Usage minutes of the last few minutes, as a web process writes them (deploy.usage)."""
    from deploy.models import UsageMinute
    from deploy.usage import bucket_of

    now = timezone.now().replace(second=0, microsecond=0)
    for back in range(1, minutes + 1):
        latencies = [2.0 + back, 3.0 + back, 9.0 + back]
        histogram: dict[str, int] = {}
        for latency in latencies:
            histogram[str(bucket_of(latency))] = histogram.get(str(bucket_of(latency)), 0) + 1
        UsageMinute.objects.create(
            deployment=deployment,
            key=key,
            minute=now - timedelta(minutes=back),
            writer="test",
            calls=len(latencies),
            errors=1 if back == 2 else 0,
            latency_ms_sum=sum(latencies),
            histogram=histogram,
        )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_usage_page_draws_both_charts_when_opened_by_url_and_reloaded(
    live_web, tenants, trained_digits, lang
):
    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    deployment, key, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    for index in range(3):
        answer = requests.post(
            f"{live_web}/api/v1/deployments/{deployment.pk}/predict/",
            files={"file": (f"{index}.png", png(index), "image/png")},
            headers={"Authorization": f"Bearer {secret}"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
    earlier_minutes(deployment, key)

    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_DEPLOYMENT=str(deployment.pk),
        E2E_LANG=lang,
        E2E_ARTIFACTS=str(ARTIFACTS / "e2e-usage-direct"),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300, cwd=REPO / "frontend"
    )
    print(result.stdout[-4000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    drawn = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))
    for load in ("direct", "reload"):
        assert drawn[load]["calls"]["bars"] >= 2 and drawn[load]["latency"]["lines"] == 3
        legends = drawn[load]["latency"]["legendTexts"]
        assert legends == ["p50", "p95", "p99"], legends
        expected = ["Calls", "Errors"] if lang == "en" else ["调用次数", "错误数"]
        assert drawn[load]["calls"]["legendTexts"] == expected


@pytest.mark.parametrize("lang", ["zh-CN"])
def test_a_model_version_is_tried_on_its_page_before_deploying(
    live_web, tenants, trained_digits, tmp_path, lang
):
    """The model version's page opened by URL: one image, then a batch, answered without a deployment
    or a key, the same labels as the platform's predictor gives through the API; no usage anywhere."""
    from deploy.models import Deployment, UsageMinute

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    carol = tenants["carol"]  # a viewer may try
    carol.set_password(PASSWORD)
    carol.save()
    mv = model_version_from(tenants, trained_digits)
    paths = []
    for index in (3, 7, 1):
        path = tmp_path / f"digit-{index}.png"
        path.write_bytes(png(index))
        paths.append(str(path))
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=carol.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_MODEL_VERSION=str(mv.pk),
        E2E_IMAGES=json.dumps(paths),
        E2E_LANG=lang,
        E2E_ARTIFACTS=str(ARTIFACTS / "e2e-model-version-try"),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(REPO / "frontend" / "e2e" / "model_version_try.mjs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO / "frontend",
    )
    print(result.stdout[-4000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    shown = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))
    from tests.deploy.factories import b64

    client_answer = requests.post(
        f"{live_web}/api/v1/model-versions/{mv.pk}/try/",
        json={"instances": [{"image": b64(png(i))} for i in (3, 7, 1)], "top_k": 1},
        headers={"Authorization": f"Bearer {token_of(carol)}"},
        timeout=30,
    )
    assert client_answer.status_code == 200, client_answer.text
    assert shown["batch"] == [p["top_k"][0]["label"] for p in client_answer.json()["predictions"]]
    assert shown["one"] == shown["batch"][0]
    assert not Deployment.objects.exists() and not UsageMinute.objects.exists()


def token_of(user) -> str:
    from accounts.services import api_token_create

    return api_token_create(user=user, name="browser check").key
