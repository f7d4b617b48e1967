"""A small-data model's report in headless Chromium (frontend/e2e/report_spread.mjs), opened by URL
against a live web process: wine (178 rows) trained by the tabular template's fast preset with
``validation="cross_validation"``, and the page shows the cross-validation panel with a dot per fold at the
folds' scores, the mean and ±1 std band, and the test accuracy's bootstrap interval, the figures
of the report the trainer and ``evaluate`` made (in English and in Chinese)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from django.conf import settings

from tests.harness import ARTIFACTS, REPO
from tests.templates_tabular.tables import frame
from tests.training import factories as training_rows

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

SCRIPT = REPO / "frontend" / "e2e" / "report_spread.mjs"
PASSWORD = "spread-passphrase-123"


@pytest.fixture(scope="module")
def wine_report(tmp_path_factory) -> dict:
    """What the training service stores for a fast wine run: the test report of the exported model
    with the trainer's cross-validation."""
    from workers.tabular.evaluation import evaluate
    from workers.tabular.trainer import train

    table = frame("wine")
    features = [column for column in table.columns if column != "target"]
    classes = sorted(str(value) for value in table["target"].unique())
    samples = [
        {
            "id": i,
            "split": "test" if i % 5 == 0 else "val" if i % 5 == 1 else "train",
            "values": {column: float(row[column]) for column in features},
            "label": classes.index(str(row["target"])),
        }
        for i, row in table.iterrows()
    ]
    manifest = {
        "kind": "tabular",
        "task": "classification",
        "target": "target",
        "columns": [{"name": column, "type": "numeric"} for column in features],
        "classes": classes,
        "samples": samples,
    }
    spec = {"preset": "fast", "validation": "cross_validation"}  # fast holds out the val split by default
    result = train(spec, manifest, tmp_path_factory.mktemp("wine") / "run")
    report = dict(evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"]))
    assert "cross_validation" in result, "validation cross_validation must cross-validate"
    report["cross_validation"] = result["cross_validation"]
    return report


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_report_shows_a_dot_per_fold_and_the_test_interval(live_web, tenants, wine_report, lang):
    assert (settings.FRONTEND_DIST / "index.html").exists(), "the frontend is not built: run `make frontend`"
    alice = tenants["alice"]
    alice.set_password(PASSWORD)
    alice.save()
    version = training_rows.model_version(
        tenants["project_a"],
        onnx_key="",
        template="tabular_classification",
        classes=wine_report["classes"],
        evaluation=wine_report,
    )
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=alice.username,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_MODEL_VERSION=str(version.pk),
        E2E_LANG=lang,
        E2E_ARTIFACTS=str(ARTIFACTS / "e2e-report-spread"),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300, cwd=REPO / "frontend"
    )
    print(result.stdout[-4000:])
    assert result.returncode == 0, f"browser check failed:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    shown = json.loads(re.search(r"\[e2e\] RESULT (.*)", result.stdout).group(1))

    cv = wine_report["cross_validation"]
    assert shown["folds"] == cv["folds"] == len(cv["scores"]) >= 2
    assert shown["dots"] == shown["drawn"] == cv["folds"]
    assert shown["scores"] == pytest.approx([fold["score"] for fold in cv["scores"]])
    assert shown["metric"] == "accuracy" and shown["band"]
    if lang == "en":  # the server's sentence, as its code and values say it in English
        assert shown["reason"] == cv["reason"]
    else:  # the same reason in Chinese, from its code (cv_asked) and values
        assert cv["reason_code"] == "cv_asked" and "cross-validation" not in shown["reason"]
        assert shown["reason"] == f"对 {cv['samples']:,} 个样本做 {cv['folds']} 折交叉验证（按要求）"
    assert ("over the folds" if lang == "en" else "各折") in shown["meanStd"]

    accuracy = next(entry for entry in wine_report["intervals"] if entry["metric"] == "accuracy")
    assert accuracy["low"] < accuracy["high"]
    on_page = [entry for entry in shown["intervals"] if entry["metric"] == "accuracy"]
    assert on_page and all(
        entry["low"] == pytest.approx(accuracy["low"]) and entry["high"] == pytest.approx(accuracy["high"])
        for entry in on_page
    )
    low, high = (f"{100 * value:.1f}%" for value in (accuracy["low"], accuracy["high"]))
    assert f"{low}–{high}" in shown["headline"]
    assert str(wine_report["samples"]) in shown["headline"]
    assert ("95% interval" if lang == "en" else "95% 置信区间") in shown["headline"]
