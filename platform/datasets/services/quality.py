"""Data quality reports (helper h4 builds this module; see /work/notes/API.md)."""

from __future__ import annotations


def quality_report_run(*, report_id: int, job, report) -> dict:
    """The ``datasets.quality_report`` job's body."""
    raise NotImplementedError("quality_report_run is being built (issue 16)")
