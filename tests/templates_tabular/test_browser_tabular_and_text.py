"""Browser end to end of the tabular and text templates in headless Chromium against a live web
process and worker (frontend/e2e/table_templates.mjs): import with the column mapping step, look at
the profile or the texts, version, train with the fast preset, open the evaluation; for the wine and
text runs then Deploy -> Hosted API, a key, Try it with a row / a text and the usage panel in the
browser, and the same input sent to the API with that key here must get the label the page showed."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess

import pytest
import requests

from tests.harness import ARTIFACTS, REPO
from tests.templates_tabular.tables import csv_bytes
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "table_templates.mjs"


def run_browser(live_web: str, *, task: str, path, label_column: str = "", **extra: str) -> int:
    out_dir = ARTIFACTS / f"e2e-{task}"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-tables",
        SAMPAN_PASSWORD="e2e-passphrase-123",
        E2E_TASK=task,
        E2E_FILE=str(path),
        E2E_LABEL_COLUMN=label_column,
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        **extra,
    )
    (out_dir / "deploy.json").unlink(missing_ok=True)
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    return int(re.search(r"model version #(\d+)", result.stdout).group(1))


def predict_as_tried(live_web: str, task: str) -> dict:
    """Sends the input the browser's try-it panel sent to the deployment it made, with its key; the
    top label must be the one the page showed. Returns the browser's record and the API's top-1."""
    tried = json.loads((ARTIFACTS / f"e2e-{task}" / "deploy.json").read_text())
    answer = requests.post(
        f"{live_web}/api/v1/deployments/{tried['deployment']}/predict/",
        json={"instances": [tried["input"]], "top_k": 1},
        headers={"Authorization": f"Bearer {tried['key']}"},
    )
    assert answer.status_code == 200, answer.text
    top = answer.json()["predictions"][0]["top_k"][0]
    assert top["label"] == tried["label"], (
        f"the page showed {tried['label']!r}, the API answers {top['label']!r}"
    )
    return {**tried, "top": top}


def test_tabular_wine_in_the_browser_then_predict(live_web, live_worker, make_user, tmp_path):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("e2e-tables", password="e2e-passphrase-123")
    path = tmp_path / "wine.csv"
    path.write_bytes(csv_bytes("wine", sep=";", decimal=","))  # as a German or French Excel saves it
    rows = list(csv.DictReader(io.StringIO(csv_bytes("wine").decode())))
    row = {k: float(v) for k, v in rows[0].items() if k != "target"}
    model_version = run_browser(
        live_web,
        task="tabular_classification",
        path=path,
        E2E_DEPLOY="1",
        E2E_ROW=json.dumps(row),
        E2E_EXPECT_READ="delimiter semicolon ; · decimal comma",
        E2E_DELIMITER="semicolon ;",
    )
    tried = predict_as_tried(live_web, "tabular_classification")
    assert tried["input"] == row
    from deploy.models import Deployment

    assert Deployment.objects.get(pk=tried["deployment"]).model_version_id == model_version
    assert tried["label"] == rows[0]["target"]


def test_tabular_regression_diabetes_evaluation_in_the_browser(live_web, live_worker, make_user, tmp_path):
    """The regression report in the browser (MAE/RMSE/R², residual plots, feature importance)."""
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("e2e-tables", password="e2e-passphrase-123")
    path = tmp_path / "diabetes.csv"
    path.write_bytes(csv_bytes("diabetes"))
    from training.models import ModelVersion

    model_version = ModelVersion.objects.get(pk=run_browser(live_web, task="tabular_regression", path=path))
    assert model_version.template == "tabular_regression" and set(model_version.metrics["test"]) == {
        "mae",
        "rmse",
        "r2",
    }


def test_text_docstrings_in_the_browser_then_predict(live_web, live_worker, make_user, tmp_path):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("e2e-tables", password="e2e-passphrase-123")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["docstring", "area"])
    writer.writerows(balanced(30))
    path = tmp_path / "docstrings.csv"
    path.write_text(out.getvalue())
    text = "Return the square root of x, rounded to the given number of digits."
    model_version = run_browser(
        live_web, task="text_classification", path=path, label_column="area", E2E_DEPLOY="1", E2E_TEXT=text
    )
    tried = predict_as_tried(live_web, "text_classification")
    assert tried["input"] == {"text": text}
    from deploy.models import Deployment

    assert Deployment.objects.get(pk=tried["deployment"]).model_version_id == model_version
    assert tried["label"] in {"files", "network", "numbers", "text"}
