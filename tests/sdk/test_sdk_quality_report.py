"""The SDK's data quality report on a live platform: ``dataset.quality_report()`` waits for the job and
answers the findings; a second report of the same data while one runs is a typed ``sampan.Conflict``;
a version's report says which version it checked; the report list leaves the findings out."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_quality_report_through_the_sdk(sdk, project, digits_folder):
    import sampan

    dataset = sdk.datasets.create("Quality digits", project=project)
    dataset.upload(digits_folder, progress=False)
    first = dataset.quality_report(wait=False)
    assert first.status in ("queued", "running") and first.report is None
    with pytest.raises(sampan.Conflict) as refused:
        dataset.quality_report(wait=False)
    assert refused.value.code == "quality_report_running"

    report = first.wait(progress=False, timeout=120)
    assert report.status == "succeeded"
    assert report.report is not None and report.report["samples"] == 80
    assert [row["count"] for row in report.report["class_balance"]["classes"]] == [8] * 10
    codes = {finding["code"] for finding in report.findings()}
    assert "tiny_class" in codes  # 8 per class, under the default minimum of 10
    assert report.findings("tiny_class")[0]["severity"] in ("warning", "error")
    assert report.findings(severity="info") == [f for f in report.findings() if f["severity"] == "info"]
    assert "tiny_class" in report.summary() and "80 samples" in report.summary()

    version = dataset.create_version(seed=3)
    of_version = dataset.quality_report(version, min_per_class=2, progress=False)
    assert of_version.version_name == "V1" and of_version.data["params"] == {"min_per_class": 2}
    assert "tiny_class" not in {finding["code"] for finding in of_version.findings()}
    listed = dataset.quality_reports()
    assert [r.id for r in listed] == [of_version.id, report.id] and all(
        "report" not in r.data for r in listed
    )
    assert listed[1].refresh().report == report.report


def test_findings_as_a_dataframe_errors_first():
    from sampan.quality import QualityReport

    def finding(code: str, severity: str, count: int, column: str = "") -> dict:
        ids = list(range(1, count + 1))
        return {
            "code": code,
            "severity": severity,
            "count": count,
            "sample_ids": ids,
            "items": [],
            "groups": [],
            "column": column,
            "details": {},
        }

    report = {
        "findings": [
            finding("unlabeled_samples", "info", 3),
            finding("constant_column", "warning", 0, "id"),
            finding("likely_mislabeled", "error", 12),
        ],
        "samples": 20,
        "labeled": 17,
    }
    data = {"id": 4, "dataset": 1, "status": "succeeded", "report": report, "version_name": None, "error": ""}
    frame = QualityReport(None, data).to_dataframe()  # type: ignore[arg-type]
    assert list(frame["code"]) == ["likely_mislabeled", "constant_column", "unlabeled_samples"]
    assert list(frame["column"]) == ["", "id", ""] and list(frame["count"]) == [12, 0, 3]
    assert frame["sample_ids"][0] == list(range(1, 11))
    assert QualityReport(None, {**data, "report": None}).to_dataframe().empty  # type: ignore[arg-type]
