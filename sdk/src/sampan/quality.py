"""Data quality reports: what a ``datasets.quality_report`` job found in a dataset or a version
(duplicates, split leakage, likely mislabeled samples, class balance, problem images, texts or
columns). Start one with :meth:`sampan.datasets.Dataset.quality_report`."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from sampan import _optional
from sampan import _schema as schema
from sampan._resource import Resource
from sampan._transport import wait_with_progress
from sampan.errors import SampanError

if TYPE_CHECKING:
    from typing import Self  # Python 3.11 (annotations are not evaluated on 3.10)

SEVERITIES = ("error", "warning", "info")


class QualityReportFailed(SampanError):
    """The report's job failed or was cancelled; ``report`` is the :class:`QualityReport`."""

    def __init__(self, message: str, *, report: QualityReport) -> None:
        super().__init__(message, code="quality_report_failed")
        self.report = report


class QualityReport(Resource[schema.DatasetQualityReport]):
    """One quality report: ``status`` (queued, running, succeeded, failed), the ``job`` computing it,
    and once it succeeded ``report`` (a :class:`sampan.types.QualityReport`: ``findings``,
    ``class_balance``, ``distributions``, ``checks`` and ``skipped``).

    e.g. ``report = dataset.quality_report()``; ``report.findings("likely_mislabeled")[0]["items"][:3]``
    """

    def url(self) -> str:
        return f"datasets/{self.data['dataset']}/quality-reports/{self.id}/"

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def finished(self) -> bool:
        return self.status in ("succeeded", "failed")

    @property
    def report(self) -> schema.QualityReport | None:
        """The findings and charts' data; None until the report succeeded."""
        return self.data.get("report")

    def findings(
        self, code: str | None = None, *, severity: str | None = None
    ) -> builtins.list[schema.Finding]:
        """The findings, errors first; only those of ``code`` (e.g. ``"near_duplicates"``) or
        ``severity`` (``"error"``, ``"warning"``, ``"info"``) when given. Empty until it succeeded."""
        found = list(self.report["findings"]) if self.report is not None else []
        if code is not None:
            found = [f for f in found if f["code"] == code]
        if severity is not None:
            found = [f for f in found if f["severity"] == severity]
        return sorted(
            found, key=lambda f: SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES else 3
        )

    def sample_ids(self, code: str) -> builtins.list[int]:
        """Every sample a finding of ``code`` concerns, e.g. to relabel them:
        ``dataset.samples(ids=report.sample_ids("likely_mislabeled"))``."""
        return [sample for f in self.findings(code) for sample in f["sample_ids"]]

    def to_dataframe(self) -> Any:
        """The findings as a pandas DataFrame, errors first: severity, code, column (tabular
        findings), count and the first sample ids. Empty until the report succeeded."""
        pd = _optional.pandas()
        columns = ["severity", "code", "column", "count", "sample_ids"]
        rows = [
            [f["severity"], f["code"], f["column"], f["count"], f["sample_ids"][:10]] for f in self.findings()
        ]
        return pd.DataFrame(rows, columns=columns)

    def summary(self) -> str:
        """One line per finding: severity, code, how many samples (and the column of a tabular one)."""
        if self.report is None:
            error = f": {self.data['error']}" if self.data["error"] else ""
            return f"Quality report {self.id}: {self.status}{error}"
        lines = [
            f"Quality report {self.id} of {self.data['version_name'] or 'the dataset'}: "
            f"{self.report['samples']} samples, {self.report['labeled']} labeled, "
            f"{len(self.report['findings'])} findings"
        ]
        for f in self.findings():
            column = f" [{f['column']}]" if f["column"] else ""
            lines.append(f"  {f['severity']:<7} {f['code']}{column}: {f['count']}")
        return "\n".join(lines)

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
        raise_on_failure: bool = True,
        max_outage: float = 300.0,
    ) -> Self:
        """Block until the report is ready, with a progress bar; returns self. Raises
        :class:`QualityReportFailed` when it failed (unless ``raise_on_failure=False``) and
        :class:`sampan.WaitTimeout` after ``timeout`` seconds (the job goes on)."""
        wait_with_progress(
            self,
            title=f"quality report {self.id}",
            timeout=timeout,
            poll=poll,
            progress=progress,
            max_outage=max_outage,
        )
        if raise_on_failure and self.status != "succeeded":
            raise QualityReportFailed(
                f"Quality report {self.id} {self.status}: {self.data['error'] or 'see its job'}", report=self
            )
        return self

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(self.summary())}</pre>"


def quality_report_body(version: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The POST body: the version's id (or None) and the thresholds given."""
    from sampan._resource import id_of

    return {"version": None if version is None else id_of(version), "params": params}
