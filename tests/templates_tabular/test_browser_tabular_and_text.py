"""Browser end to end of the tabular and text templates in headless Chromium against a live web
process and worker (frontend/e2e/table_templates.mjs): import with the column mapping step, look at
the profile or the texts, version, train with the fast preset, open the evaluation; then deploy the
model version through the API and predict rows / raw text with a deployment key."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess

import pytest
import requests
from conftest import ARTIFACTS, REPO

from tests.templates_tabular.tables import csv_bytes
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "table_templates.mjs"


def run_browser(live_web: str, *, task: str, path, label_column: str = "") -> int:
    out_dir = ARTIFACTS / f"e2e-{task}"
    env = dict(os.environ, SAMPAN_URL=live_web, SAMPAN_USER="e2e-tables", SAMPAN_PASSWORD="e2e-passphrase-123",
               E2E_TASK=task, E2E_FILE=str(path), E2E_LABEL_COLUMN=label_column, E2E_ARTIFACTS=str(out_dir),
               CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    result = subprocess.run(["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900,
                            cwd=REPO / "frontend")
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    return int(re.search(r"model version #(\d+)", result.stdout).group(1))


def deploy_and_predict(live_web: str, model_version_id: int, instances: list[dict]) -> list[dict]:
    session = requests.Session()
    session.get(f"{live_web}/api/v1/auth/csrf/")
    headers = {"X-CSRFToken": session.cookies.get("csrftoken", "")}
    login = session.post(f"{live_web}/api/v1/auth/login/", json={"username": "e2e-tables", "password": "e2e-passphrase-123"},
                         headers=headers)
    assert login.status_code == 200, login.text
    headers = {"X-CSRFToken": session.cookies.get("csrftoken", "")}
    from training.models import ModelVersion

    project = ModelVersion.objects.get(pk=model_version_id).project_id
    deployment = session.post(f"{live_web}/api/v1/deployments/", json={"project": project, "model_version": model_version_id,
                                                                       "name": f"e2e {model_version_id}"}, headers=headers)
    assert deployment.status_code == 201, deployment.text
    key = session.post(f"{live_web}/api/v1/deployments/{deployment.json()['id']}/keys/", json={"name": "e2e"},
                       headers=headers).json()["key"]
    answer = requests.post(f"{live_web}/api/v1/deployments/{deployment.json()['id']}/predict/",
                           json={"instances": instances, "top_k": 1}, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200, answer.text
    return answer.json()["predictions"]


def test_tabular_wine_in_the_browser_then_predict(live_web, live_worker, make_user, tmp_path):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-tables", password="e2e-passphrase-123")
    path = tmp_path / "wine.csv"
    path.write_bytes(csv_bytes("wine"))
    model_version = run_browser(live_web, task="tabular_classification", path=path)
    rows = list(csv.DictReader(io.StringIO(csv_bytes("wine").decode())))
    predictions = deploy_and_predict(live_web, model_version, [{k: v for k, v in rows[0].items() if k != "target"}])
    assert predictions[0]["top_k"][0]["label"] == rows[0]["target"]


def test_tabular_regression_diabetes_evaluation_in_the_browser(live_web, live_worker, make_user, tmp_path):
    """The regression report in the browser (MAE/RMSE/R², residual plots, feature importance)."""
    assert (REPO / "frontend" / "dist" / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-tables", password="e2e-passphrase-123")
    path = tmp_path / "diabetes.csv"
    path.write_bytes(csv_bytes("diabetes"))
    from training.models import ModelVersion

    model_version = ModelVersion.objects.get(pk=run_browser(live_web, task="tabular_regression", path=path))
    assert model_version.template == "tabular_regression" and set(model_version.metrics["test"]) == {"mae", "rmse", "r2"}


def test_text_docstrings_in_the_browser_then_predict(live_web, live_worker, make_user, tmp_path):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-tables", password="e2e-passphrase-123")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["docstring", "area"])
    writer.writerows(balanced(30))
    path = tmp_path / "docstrings.csv"
    path.write_text(out.getvalue())
    model_version = run_browser(live_web, task="text_classification", path=path, label_column="area")
    predictions = deploy_and_predict(live_web, model_version, [{"text": "Return the square root of x."}])
    assert predictions[0]["top_k"][0]["label"] in {"files", "network", "numbers", "text"}
