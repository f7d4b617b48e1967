"""A strict Content-Security-Policy on everything the web server answers (the web app, the API docs
page, Django admin, API errors, hosted predictions on the WSGI fast path), and `Cache-Control:
no-store` on API answers, the ones that carry a new personal token or deployment key first of all;
in headless Chromium, the web app, Swagger UI and admin's login work under the policy with no
violation reported."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import requests

from tests.harness import ARTIFACTS, REPO
from tests.test_tenancy import deployment

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def policy_of(response: requests.Response) -> dict[str, str]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request.method} {response.url}: no Content-Security-Policy"
    return {d.split()[0]: d for d in (part.strip() for part in header.split(";")) if d}


def test_every_answer_carries_a_strict_policy(live_web, tenants):
    dep = deployment(tenants)
    answers = {
        "web app": requests.get(f"{live_web}/login", timeout=10),
        "API docs": requests.get(f"{live_web}/api/docs/", timeout=10),
        "API docs script": requests.get(f"{live_web}/api/docs/?script=", timeout=10),
        "admin login": requests.get(f"{live_web}/admin/login/", timeout=10),
        "API error": requests.get(f"{live_web}/api/v1/workspaces/", timeout=10),
        "unknown route": requests.get(f"{live_web}/api/v1/nothing/", timeout=10),
        "prediction (fast path)": requests.post(
            f"{live_web}/api/v1/deployments/{dep.pk}/predict/",
            json={},
            headers={"X-Sampan-Key": "spd_wrong"},
            timeout=10,
        ),
    }
    for what, response in answers.items():
        directives = policy_of(response)
        # WebAssembly may be compiled (onnxruntime-web), JavaScript may not be eval'ed
        assert directives["script-src"] == "script-src 'self' 'wasm-unsafe-eval'", what
        assert directives["object-src"] == "object-src 'none'" and "frame-ancestors" in directives, what
        assert directives["default-src"] == "default-src 'self'", what
    docs = answers["API docs"].text
    assert "<script>" not in docs and "?script=" in docs, "Swagger UI's init script must not be inline"
    assert answers["API docs script"].headers["Content-Type"].startswith("application/javascript")
    assert answers["prediction (fast path)"].status_code == 401


def test_new_secrets_and_api_answers_are_not_stored(live_web, tenants, token_for):
    dep = deployment(tenants)
    headers = {"Authorization": f"Bearer {token_for(tenants['alice'])}"}
    token = requests.post(f"{live_web}/api/v1/tokens/", json={"name": "laptop"}, headers=headers, timeout=10)
    assert token.status_code == 201 and token.json()["key"].startswith("spk_")
    assert token.headers["Cache-Control"] == "no-store"
    key = requests.post(
        f"{live_web}/api/v1/deployments/{dep.pk}/keys/", json={"name": "ci"}, headers=headers, timeout=10
    )
    assert key.status_code == 201 and key.json()["key"].startswith("spd_")
    assert key.headers["Cache-Control"] == "no-store"
    assert (
        requests.get(f"{live_web}/api/v1/tokens/", headers=headers, timeout=10).headers["Cache-Control"]
        == "no-store"
    )
    predicted = requests.post(
        f"{live_web}/api/v1/deployments/{dep.pk}/predict/",
        json={},
        headers={"X-Sampan-Key": key.json()["key"]},
        timeout=30,
    )
    assert predicted.headers["Cache-Control"] == "no-store"
    # the web app's page is revalidated, not forbidden from caches; its hashed assets are cacheable
    assert requests.get(f"{live_web}/login", timeout=10).headers["Cache-Control"] == "no-cache"


@pytest.mark.e2e
def test_web_app_swagger_ui_and_admin_work_under_the_policy_in_chromium(live_web, make_user):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("csp-user", password="csp-passphrase-123", is_staff=True)
    out_dir = ARTIFACTS / "e2e-csp"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="csp-user",
        SAMPAN_PASSWORD="csp-passphrase-123",
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(REPO / "frontend" / "e2e" / "csp.mjs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO / "frontend",
    )
    print(result.stdout[-4000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    summary = json.loads(result.stdout.split("[e2e] RESULT ", 1)[1].splitlines()[0])
    assert summary["violations"] == 0 and "script-src 'self'" in summary["policies"]["docs"]
