"""The data quality report (``datasets.QualityReport.report``): what a ``datasets.quality_report``
job found in a dataset or a dataset version, computed by ``workers.data_quality.run`` from a
``LabelPool``.

Every finding names its ``code`` (stable, translated by the UI), a ``severity``, how many samples it
concerns and their ids (so the UI links into the labeler filtered to them); ``items`` add per-sample
details where there are some (a likely mislabel's suggested label, a blurry image's sharpness),
``groups`` the members of each duplicate group, ``column`` the column of a tabular finding.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

QUALITY_REPORT_VERSION = 1

FindingCode = Literal[
    # every task
    "exact_duplicates",
    "near_duplicates",
    "split_leakage",  # duplicates (exact or near) whose members sit in different splits of a version
    "likely_mislabeled",
    "tiny_class",
    "class_imbalance",
    "unlabeled_samples",
    # images
    "corrupt_image",  # decodable but damaged (truncated, a grey or constant band)
    "tiny_image",
    "blurry_image",
    "dark_image",
    "overexposed_image",
    "extreme_aspect_ratio",
    # detection
    "tiny_boxes",
    # texts
    "empty_text",
    "long_text",
    "other_language",
    # tables
    "constant_column",
    "near_constant_column",
    "target_leak_column",
    "high_missing_column",
]
FINDING_CODES: tuple[FindingCode, ...] = FindingCode.__args__  # type: ignore[attr-defined]
Severity = Literal["error", "warning", "info"]


class FindingItem(TypedDict):
    """One sample's detail: ``suggested_label`` (class index) and ``confidence`` for a likely
    mislabel (``label`` is its current label); ``value`` for a measured property (sharpness,
    brightness, length, aspect ratio, similarity); ``language`` for a text in another language
    than most (a code such as ``en``, ``zh``, ``ja``, or a script such as ``cyrillic``)."""

    sample: int
    label: NotRequired[int | None]
    suggested_label: NotRequired[int | None]
    confidence: NotRequired[float]
    value: NotRequired[float]
    language: NotRequired[str]


class Finding(TypedDict):
    code: FindingCode
    severity: Severity
    count: int
    sample_ids: list[int]
    items: list[FindingItem]
    groups: list[list[int]]
    column: str
    details: dict[str, str | int | float | bool | None]


class ClassCount(TypedDict):
    label: int
    name: str
    count: int


class ClassBalance(TypedDict):
    """Samples per class (boxes per class for detection); ``imbalance_ratio`` the largest class over
    the smallest non-empty one; ``tiny_classes`` the classes under ``min_per_class``."""

    classes: list[ClassCount]
    imbalance_ratio: float | None
    min_per_class: int
    tiny_classes: list[int]


class Distribution(TypedDict):
    """A histogram for the report's charts: ``name`` e.g. ``brightness``, ``sharpness``,
    ``text_length``, ``aspect_ratio``; ``edges`` has one more entry than ``counts``."""

    name: str
    edges: list[float]
    counts: list[int]


class SkippedCheck(TypedDict):
    code: FindingCode
    reason: str


class QualityReport(TypedDict):
    kind: Literal["quality_report"]
    version: int
    task_type: str
    classes: list[str]
    samples: int
    labeled: int
    class_balance: ClassBalance
    findings: list[Finding]
    distributions: list[Distribution]
    checks: list[FindingCode]
    skipped: list[SkippedCheck]
    seconds: float


class QualityParams(TypedDict):
    """Thresholds a user may change; the defaults are the module's."""

    near_duplicate_distance: NotRequired[int]  # perceptual hash bits (of 64) that may differ
    near_duplicate_similarity: NotRequired[float]  # texts: embedding cosine similarity at least
    min_per_class: NotRequired[int]
    seed: NotRequired[int]
