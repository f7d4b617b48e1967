"""The ``datasets.quality_report`` job's body in this process (the worker's code path without Celery):
it keeps the compute plane's report on the row and reports progress from 0 to 1; a redelivered job of
a finished report does nothing again; a cancel and a failure are recorded on the row with their
message (and raised for the job runner); a worker shutting down hands the report back to the queue."""

from __future__ import annotations

import pytest
from datasets.models import QualityReport, Sample
from datasets.services.quality import quality_report_create, quality_report_run
from jobs.runner import JobPreempted

from tests.datasets import factories
from workers.progress import JobCancelled

pytestmark = pytest.mark.django_db


class Progress:
    """A job's ``report`` callable: records the fractions, or raises ``stop`` on its ``at``-th call."""

    def __init__(self, stop: type[BaseException] | None = None, at: int = 1) -> None:
        self.fractions: list[float | None] = []
        self.stop, self.at = stop, at

    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics
    ):
        self.fractions.append(fraction)
        if self.stop is not None and len(self.fractions) >= self.at:
            raise self.stop()


@pytest.fixture
def digits(tenants, isolated_storage):
    return factories.dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=4, classes=range(3), unlabeled=1
    )


def test_the_report_is_kept_on_the_row_and_a_redelivery_does_nothing(tenants, digits):
    row = quality_report_create(dataset=digits, user=tenants["alice"])
    progress = Progress()
    result = quality_report_run(report_id=row.pk, job=row.job, report=progress)
    row.refresh_from_db()
    assert row.status == "succeeded" and row.error == "" and row.finished_at is not None
    assert row.report["kind"] == "quality_report" and (row.report["samples"], row.report["labeled"]) == (
        13,
        12,
    )
    unlabeled = Sample.objects.get(dataset=digits, label__isnull=True).pk
    assert {"code": "unlabeled_samples", "sample_ids": [unlabeled]}.items() <= next(
        f for f in row.report["findings"] if f["code"] == "unlabeled_samples"
    ).items()
    assert result == {"quality_report": row.pk, "findings": len(row.report["findings"])}
    assert progress.fractions[0] == 0.0 and progress.fractions[-1] == 1.0

    again = Progress()
    assert quality_report_run(report_id=row.pk, job=row.job, report=again) == result
    assert again.fractions == []  # nothing recomputed


def test_cancel_failure_and_shutdown_are_recorded(tenants, digits):
    row = quality_report_create(dataset=digits, user=tenants["alice"])
    with pytest.raises(JobCancelled):
        quality_report_run(report_id=row.pk, job=row.job, report=Progress(JobCancelled, at=2))
    row.refresh_from_db()
    assert (row.status, row.error, row.report) == ("failed", "Cancelled.", None)

    handed_back = quality_report_create(dataset=digits, user=tenants["alice"])
    with pytest.raises(JobPreempted):
        quality_report_run(report_id=handed_back.pk, job=handed_back.job, report=Progress(JobPreempted))
    handed_back.refresh_from_db()
    assert handed_back.status == "queued" and handed_back.error == ""
    QualityReport.objects.filter(pk=handed_back.pk).update(status="failed")  # free the dataset for the next

    broken = quality_report_create(dataset=digits, params={"min_per_class": "ten"}, user=tenants["alice"])  # type: ignore[typeddict-item]
    with pytest.raises(ValueError):
        quality_report_run(report_id=broken.pk, job=broken.job, report=Progress())
    broken.refresh_from_db()
    assert broken.status == "failed" and broken.error.startswith("ValueError: ") and "ten" in broken.error

    other = factories.dataset(tenants["project_b"], name="Not this job's")
    stranger = QualityReport.objects.create(dataset=other)
    with pytest.raises(ValueError, match="does not belong"):
        quality_report_run(report_id=stranger.pk, job=row.job, report=Progress())
