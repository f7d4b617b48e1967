"""docs/sdk.md runs as written: every ```python block, in order, in one namespace, against the live
platform (gunicorn + a Celery worker on PostgreSQL and Redis), in a working directory holding the
files the page names (digits/, extra/, wine.csv, reviews.csv, diabetes.csv, sales.csv, nile.csv).
Blocks that cannot run here are marked ```python no-run in the page, and must stay few."""

from __future__ import annotations

import csv
import io
import re
import traceback

import pytest

from tests.datasets.factories import digits_by_class
from tests.harness import REPO
from tests.templates_tabular.tables import frame
from tests.templates_text.corpus import balanced
from workers.object_detection.synthetic import digit_scenes, write_scenes
from workers.time_series import bundled, synthetic

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DOC = REPO / "docs" / "sdk.md"
FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)
MAX_NO_RUN = 2


def python_blocks() -> list[tuple[int, str, bool]]:
    """(line of the fence, code, runs) for each ```python block of the page."""
    text = DOC.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        words = match["info"].split()
        if words[:1] != ["python"]:
            continue
        blocks.append((text.count("\n", 0, match.start()) + 1, match["code"], "no-run" not in words[1:]))
    return blocks


def test_the_page_has_python_blocks_and_few_are_marked_no_run():
    blocks = python_blocks()
    assert len(blocks) >= 10
    assert sum(not runs for _, _, runs in blocks) <= MAX_NO_RUN
    text = DOC.read_text()
    for info in re.findall(r"^```(\S[^\n]*)$", text, re.MULTILINE):  # every fence says its language
        assert info.split()[0] in {"python", "sh"}, info


def write_fixture_files(root) -> None:
    for label, images in digits_by_class(9, range(10)).items():
        folder = root / "digits" / label
        folder.mkdir(parents=True)
        for i, data in enumerate(images[:8]):
            (folder / f"{i:04d}.png").write_bytes(data)
        if label == "4":
            (root / "extra").mkdir()
            (root / "extra" / "0042.png").write_bytes(images[8])
    (root / "wine.csv").write_text(frame("wine").to_csv(index=False, sep=";", decimal=","))
    (root / "diabetes.csv").write_text(frame("diabetes").to_csv(index=False))
    out = io.StringIO()
    csv.writer(out).writerows([("text", "area"), *balanced(20)])
    (root / "reviews.csv").write_text(out.getvalue())
    # forecasting: 6 stores' daily sales over 14 weeks (long, with covariates) and the Nile (wide)
    (root / "sales.csv").write_text(synthetic.to_csv(synthetic.multi_series(n_series=6, length=98, seed=5)))
    (root / "nile.csv").write_text(bundled.to_csv("nile"))
    # object detection: 60 small digit scenes of one class, as COCO (annotations.json + images/)
    write_scenes(
        digit_scenes(60, size=64, seed=0, classes="one"), root / "scenes-coco", "coco", classes="one"
    )


def test_every_python_block_of_docs_sdk_md_runs(
    live_web, live_worker, tenants, token_for, monkeypatch, tmp_path
):
    monkeypatch.setenv("SAMPAN_URL", live_web)
    monkeypatch.setenv("SAMPAN_API_KEY", token_for(tenants["alice"]))
    monkeypatch.setenv("SAMPAN_CONFIG", str(tmp_path / "no-login.json"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("SAMPAN_DEPLOYMENT_KEY", raising=False)
    write_fixture_files(tmp_path)
    monkeypatch.chdir(tmp_path)

    namespace: dict[str, object] = {"__name__": "docs_sdk_md"}
    ran = 0
    for line, code, runs in python_blocks():
        if not runs:
            continue
        try:
            exec(compile(code, f"docs/sdk.md:{line}", "exec"), namespace)  # noqa: S102 - the documented examples
        except Exception as exc:
            pytest.fail(f"docs/sdk.md block at line {line} failed: {exc!r}\n{traceback.format_exc()}\n{code}")
        ran += 1
    assert ran >= 10

    # what the examples claim, checked on the objects they made
    client = namespace["client"]
    assert namespace["result"].imported >= 1  # the DataFrame upload's unlabeled extra image
    assert namespace["stopped"].status in {"queued", "running", "cancelled"}  # retried, then asked to stop
    assert namespace["fit"].__class__.__name__ == "RegressionReport"
    comparison = client.model_versions.compare(namespace["small"], namespace["large"])
    assert comparison["kind"] == "regression_comparison"
    assert namespace["uploaded"].source == "uploaded"
    assert namespace["study"].status == "completed"
    assert len(namespace["answers"]) == len(frame("wine"))
    detection = namespace["detection"]
    assert detection.__class__.__name__ == "DetectionReport" and detection.classes == ["digit"]
    assert 0.0 <= detection.map <= detection.map50 <= 1.0
    assert namespace["imported"].imported == 60 and namespace["found"].detection
    assert namespace["boxes"]["revision"] >= 1
    forecast_report = namespace["forecast_report"]
    assert forecast_report.__class__.__name__ == "ForecastReport" and forecast_report.series_count == 6
    forecast = namespace["forecast"]
    assert list(forecast.columns) == ["id", "timestamp", "mean", "q0.1", "q0.9"]
    assert len(forecast) == 6 * 7 and sorted(set(forecast["id"])) == [f"s{i:02d}" for i in range(1, 7)]
    assert (forecast["q0.1"] <= forecast["mean"]).all() and (forecast["mean"] <= forecast["q0.9"]).all()
    assert namespace["sales_import"].imported == 6 * 98
    assert namespace["too_short"].code == "history_too_short"
    assert namespace["too_short"].details["series"] == 0
