"""A canary, a shadow and a promotion through the deployment's Traffic tab in headless Chromium
against a live web process (frontend/e2e/canary.mjs): a 90/10 split set in the UI, predictions sent
with the deployment's key straight to the API until both versions have answered, the calls split by
version on the Usage tab as the API counted them, V3 turned on as the shadow and its agreement seen,
the canary promoted after a confirmation, and the history on the Overview naming each change with
the split after it. No job runs: the model versions are registered on the session's tiny trained
digits classifier."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from django.conf import settings

from tests.deploy.factories import deployment_with_key, model_version_from, png
from tests.harness import ARTIFACTS, REPO

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "canary.mjs"
PASSWORD = "canary-passphrase-123"


def test_a_canary_is_set_watched_shadowed_and_promoted_in_the_browser(
    live_web, tenants, trained_digits, tmp_path
):
    from deploy.models import Deployment, DeploymentTraffic

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    v1, v2, v3 = (model_version_from(tenants, trained_digits, number=number) for number in (1, 2, 3))
    deployment, _key, secret = deployment_with_key(tenants, v1)
    image = tmp_path / "digit.png"
    image.write_bytes(png(7))
    out_dir = ARTIFACTS / "e2e-canary"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_DEPLOYMENT=str(deployment.pk),
        E2E_KEY=secret,
        E2E_PRIMARY=str(v1.pk),
        E2E_CANARY=str(v2.pk),
        E2E_SHADOW=str(v3.pk),
        E2E_IMAGE=str(image),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    seen = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))

    # Both versions answered, and the Usage tab showed the calls each one answered.
    answered = {int(version): count for version, count in seen["answeredBy"].items()}
    assert set(answered) == {v1.pk, v2.pk} and sum(answered.values()) >= 40, answered
    assert answered[v1.pk] > answered[v2.pk], f"a 90/10 split answered {answered}"
    lines = seen["usage"].pop("lines")
    assert lines == 2, f"the calls chart drew {lines} series, one per version expected"
    assert {int(version): row["calls"] for version, row in seen["usage"].items()} == answered
    assert seen["usage"][str(v1.pk)]["role"] == "primary" and seen["usage"][str(v2.pk)]["role"] == "canary"
    # The shadow (the same model) compared the served answers and agreed with every one.
    assert seen["shadow"]["compared"] > 0 and seen["shadow"]["agreement"] == "100.0%", seen["shadow"]

    deployment.refresh_from_db()
    assert deployment.model_version_id == v2.pk and deployment.previous_model_version_id == v1.pk
    assert list(
        DeploymentTraffic.objects.filter(deployment=deployment).values_list("model_version", "role")
    ) == [(v3.pk, "shadow")], "the promotion removed the canary and kept the shadow"
    actions = list(
        Deployment.objects.get(pk=deployment.pk).events.order_by("at", "pk").values_list("action", flat=True)
    )
    assert actions == ["create", "traffic", "shadow", "promote"], actions

    # The history, newest first, says what each change left.
    history = seen["history"]
    assert [entry["action"] for entry in history] == ["promote", "shadow", "traffic", "create"], history
    assert "Canary promoted" in history[0]["text"] and "V2 100% (primary)" in history[0]["text"]
    assert "Shadow: V3" in history[0]["text"] and "Shadow: V3" in history[1]["text"]
    assert "V1 90% (primary) · V2 10% (canary)" in history[2]["text"]
