"""The values a sample's activity log entry holds before and after a change (datasets.SampleActivity).

One shape for every action, with the keys of that action only: a label change has ``label`` and
``label_name``; a regression target change ``target``; an annotation change ``status`` and
``boxes``; a review ``review_status``. Labels are kept by id and by the name they had then, so the
log still reads after a rename or delete.

This module is Django-free: the web process and the SDK's generated types share it.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.annotations import AnnotationStatus

ReviewStatus = Literal["unreviewed", "accepted", "rejected"]
ActivityAction = Literal["label", "target", "annotations", "review"]
ActivitySource = Literal["manual", "bulk", "suggestion", "task", "review", "revert", "import", "label_change"]


class ActivityBox(TypedDict):
    """One box as logged: its label (id and the name it had) and geometry in image pixels."""

    label: int
    label_name: str
    x: float
    y: float
    width: float
    height: float


class ActivityValue(TypedDict):
    """A sample's value before or after a change, e.g. ``{"label": 3, "label_name": "cat"}``,
    ``{"target": 3.2}``, ``{"status": "annotated", "boxes": [...]}`` or
    ``{"review_status": "accepted"}``."""

    label: NotRequired[int | None]
    label_name: NotRequired[str | None]
    target: NotRequired[float | None]
    status: NotRequired[AnnotationStatus]
    boxes: NotRequired[list[ActivityBox]]
    review_status: NotRequired[ReviewStatus]
