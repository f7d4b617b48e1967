"""The contract between compute functions and whoever runs them (a platform job, a notebook).

A compute function takes ``report``: ``report(message="", *, fraction=None, milestone=False, **metrics)``.
Calling it records progress and is where cancellation arrives: it raises ``JobCancelled`` when the
run should stop, so a long loop stops at its next report.
"""

from __future__ import annotations

from typing import Any, Protocol


class JobCancelled(Exception):
    """The run was cancelled; stop promptly (after saving a checkpoint, if there is one)."""


class Report(Protocol):
    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None: ...


def silent_report(
    message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
) -> None:
    """A report that records nothing (for notebooks and tests that do not watch progress)."""
