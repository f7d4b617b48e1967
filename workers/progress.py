"""The contract between compute functions and whoever runs them (a platform job, a notebook).

A compute function takes ``report``: ``report(message="", *, fraction=None, milestone=False, **metrics)``.
Calling it records progress and is where cancellation arrives: it raises ``JobCancelled`` when the
run should stop, so a long loop stops at its next report. What is recorded is a
``workers.contracts.jobs.ProgressEvent``, built by :func:`progress_event`; ``metrics`` are the
event's named fields (``epoch``, ``loss``, ``val_acc``, ...), nothing else.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from workers.contracts.jobs import PROGRESS_METRICS, PROGRESS_VERSION, ProgressEvent


class JobCancelled(Exception):
    """The run was cancelled; stop promptly (after saving a checkpoint, if there is one)."""


class Report(Protocol):
    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None: ...


def progress_event(message: str = "", *, fraction: float | None = None, **metrics: Any) -> ProgressEvent:
    """The progress event of one report: ``fraction`` clamped to 0..1, the message when there is one.

    >>> progress_event("epoch 1/3", fraction=1.5, epoch=1, loss=0.5)
    {'kind': 'progress', 'version': 1, 'epoch': 1, 'loss': 0.5, 'fraction': 1.0, 'message': 'epoch 1/3'}
    >>> progress_event(accuracy=1.0)
    Traceback (most recent call last):
    ...
    TypeError: not a progress metric: accuracy (see workers.contracts.jobs.ProgressEvent)
    """
    unknown = sorted(set(metrics) - PROGRESS_METRICS)
    if unknown:
        raise TypeError(
            f"not a progress metric: {', '.join(unknown)} (see workers.contracts.jobs.ProgressEvent)"
        )
    data: dict[str, Any] = {"kind": "progress", "version": PROGRESS_VERSION, **metrics}
    if fraction is not None:
        data["fraction"] = max(0.0, min(1.0, float(fraction)))
    if message:
        data["message"] = message
    return cast(ProgressEvent, data)


def silent_report(
    message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
) -> None:
    """A report that records nothing (for notebooks and tests that do not watch progress); it
    refuses what is not a progress event as a job's report would."""
    progress_event(message, fraction=fraction, **metrics)
