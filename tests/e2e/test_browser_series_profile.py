"""Browser check of a forecasting dataset's data side in headless Chromium against a live web process
(frontend/e2e/series_profile.mjs): statsmodels' weekly CO2 series (with its missing weeks) imported as
a wide table through the mapping step, the series profile's chart over the whole span (downsampled)
and zoomed with the range slider (the window read again at full resolution), the fill rule changed
and saved, and a monthly grid refused for weekly observations."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.harness import ARTIFACTS, REPO
from workers.time_series import bundled

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "series_profile.mjs"
PASSWORD = "e2e-passphrase-123"


def test_series_profile_zoom_and_settings(live_web, make_user, tmp_path):
    from django.conf import settings

    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    make_user("e2e-series", password=PASSWORD)
    path = tmp_path / "co2.csv"
    path.write_text(bundled.to_csv("co2"))
    out_dir = ARTIFACTS / "e2e-series-profile"
    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-series",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_FILE=str(path),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"

    from datasets.models import Dataset

    shown = json.loads((out_dir / "series.json").read_text())
    dataset = Dataset.objects.get(pk=shown["dataset"])
    # the saved fill rule was kept; the refused frequency was not
    assert dataset.schema["fill_rule"] == "forward_fill" and dataset.schema["frequency"] == "W"
    assert dataset.schema["series_column"] is None and dataset.schema["target_columns"] == ["value"]
    # the zoomed window holds every weekly point between its ends
    _, points = bundled.real_series("co2")
    inside = [t for t, _ in points if shown["zoom"]["start"] <= t <= shown["zoom"]["end"]]
    assert shown["zoom"]["points"] >= len(inside) > 100
