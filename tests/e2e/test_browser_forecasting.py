"""Browser end to end of the time-series forecasting template in headless Chromium against a live web
process and worker (frontend/e2e/forecasting.mjs): a long-format CSV of several store-sales series
(workers.time_series.synthetic) imported with the mapping step (known covariates price and holiday,
static region), the series profile and its chart, a version with a horizon, training with the fast
preset, the forecast report's plots, a hosted deployment, and Try it with a pasted history drawing
the forecast chart. The body the panel sent then goes to the hosted API with the key made in the
browser: the answer must be the forecast the page showed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pytest
import requests

from tests.harness import ARTIFACTS, REPO
from workers.time_series import synthetic

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "forecasting.mjs"
PASSWORD = "e2e-passphrase-123"
HORIZON = 14
CONTEXT = 56  # history points pasted into Try it (eight weeks)


def pasted_history(rows: list[dict], store: str) -> dict:
    """The last CONTEXT points of one store as a ForecastInstance, with its known covariates over the
    history and the next HORIZON steps (the synthetic table runs HORIZON steps past the imported one)."""
    mine = [r for r in rows if r["store"] == store]
    history, future = mine[-CONTEXT - HORIZON : -HORIZON], mine[-CONTEXT - HORIZON :]
    return {
        "id": store,
        "timestamps": [r["date"] for r in history],
        "values": [r["sales"] for r in history],
        "known": {c: [float(r[c]) for r in future] for c in ("price", "holiday")},
    }


def test_forecasting_import_profile_train_report_deploy_and_try_it(
    live_web, live_worker, make_user, tmp_path
):
    from django.conf import settings

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-forecaster", password=PASSWORD)
    # four daily stores (one intermittent), 126 days imported; 14 more days hold the covariates'
    # future values for the pasted history
    rows = synthetic.multi_series(n_series=4, length=126 + HORIZON, seed=5, intermittent=1)
    imported = [r for r in rows if r["date"] <= rows[125]["date"]]
    path = tmp_path / "store_sales.csv"
    path.write_text(synthetic.to_csv(imported))
    instance = pasted_history(rows, "s01")

    out_dir = ARTIFACTS / "e2e-forecasting"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-forecaster",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_FILE=str(path),
        E2E_HORIZON=str(HORIZON),
        E2E_HISTORY=json.dumps(instance),
        E2E_SERIES_COLUMN="store",
        E2E_KNOWN="price,holiday",
        E2E_STATIC="region",
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=1500, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"

    from datasets.models import Dataset, DatasetVersion
    from deploy.models import Deployment
    from training.models import ModelVersion

    tried = json.loads((out_dir / "forecast.json").read_text())
    dataset = Dataset.objects.get(pk=tried["dataset"])
    assert dataset.schema["series_column"] == "store" and dataset.schema["target_columns"] == ["sales"]
    assert dataset.schema["known_covariates"] == ["price", "holiday"]
    assert dataset.schema["static_covariates"] == ["region"] and dataset.schema["frequency"] == "D"
    assert dataset.profile["series_count"] == 4 and dataset.profile["observations"] == 4 * 126
    version = DatasetVersion.objects.get(dataset=dataset)
    assert version.horizon == HORIZON
    model_version = ModelVersion.objects.get(pk=tried["model_version"])
    assert model_version.template == "time_series_forecasting" and model_version.preset == "fast"
    assert Deployment.objects.get(pk=tried["deployment"]).model_version_id == model_version.pk

    # The panel sent the pasted history; the hosted API with the browser's key answers the same forecast.
    sent = tried["sent"]
    assert sent["instances"][0]["values"] == instance["values"]
    assert sent["instances"][0]["timestamps"] == instance["timestamps"]
    answer = requests.post(
        f"{live_web}/api/v1/deployments/{tried['deployment']}/predict/",
        json=sent,
        headers={"Authorization": f"Bearer {tried['key']}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    hosted = answer.json()["predictions"][0]
    shown = tried["answer"]["predictions"][0]
    expected_dates = [r["date"] for r in rows if r["store"] == "s01"][-HORIZON:]
    assert hosted["timestamps"] == shown["timestamps"] == expected_dates
    assert np.allclose(hosted["mean"], shown["mean"], rtol=1e-6)
    lower, upper = (np.array(v) for _, v in sorted(hosted["quantiles"].items(), key=lambda kv: float(kv[0])))
    assert (lower <= np.array(hosted["mean"]) + 1e-9).all() and (
        np.array(hosted["mean"]) <= upper + 1e-9
    ).all()
    # a sane forecast of this store: within the range its recent sales moved in
    recent = np.array(instance["values"])
    assert recent.min() * 0.3 <= np.mean(hosted["mean"]) <= recent.max() * 1.7
