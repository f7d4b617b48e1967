"""Evaluation reports and comparisons: what a template's ``evaluate`` returns (stored as a model
version's ``evaluation``) and what ``compare``/``compare_regression`` make of two of them.

Classification (images, texts, table rows) and regression (table rows) each have a report and a
comparison, told apart by ``kind``. Version 1 is the shape the platform stored before ``kind``
existed, plus ``kind`` and ``version`` (training's data migration stamped the stored ones).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

# A sample as the manifest names it (its ``id``, else its position) and a table cell as read.
from workers.contracts.manifest import CellValue as CellValue
from workers.contracts.manifest import SampleRef as SampleRef
from workers.contracts.validation import CrossValidation, MetricInterval

REPORT_VERSION = 1
COMPARISON_VERSION = 1


class Averages(TypedDict):
    precision: float
    recall: float
    f1: float


# "class" is a Python keyword: the functional form keeps the JSON key.
ClassScores = TypedDict(
    "ClassScores",
    {"class": str, "index": int, "precision": float, "recall": float, "f1": float, "support": int},
)
ClassScores.__doc__ = "One class's scores on the split; ``support``: its samples there."


class ConfusionMatrix(TypedDict):
    """Rows: true classes, columns: predicted classes (the report's ``classes`` order)."""

    counts: list[list[int]]
    samples: list[list[list[SampleRef]]]


class Mistake(TypedDict):
    """A misclassified sample, most confident first. Images name their file (``path``), texts carry
    the text (first 1000 characters), table rows their cell values by column name."""

    sample: SampleRef
    index: int
    true: int
    true_class: str
    predicted: int
    predicted_class: str
    confidence: float
    path: NotRequired[str]
    text: NotRequired[str]
    values: NotRequired[dict[str, CellValue]]


class FeatureImportance(TypedDict):
    """Permutation importance of one table column: the mean drop of the score (accuracy, or minus
    the RMSE) when its values are shuffled across rows, and the drops' standard deviation."""

    feature: str
    importance: float
    std: float


class ModelFile(TypedDict):
    """The ONNX file the report was computed with."""

    path: str
    sha256: str


class ClassificationHeadline(TypedDict):
    accuracy: float
    macro_f1: float
    weighted_f1: float
    top_k_accuracy: dict[str, float]


class ClassificationReport(TypedDict):
    """A classifier's report on one split. ``top_k_accuracy`` is keyed by k ("1", "3", "5"; k up to
    the number of classes). Tables add ``headline`` and ``feature_importance``, texts
    ``misclassified`` (the count of wrong answers). ``cross_validation`` and ``intervals``: see
    workers.contracts.validation."""

    kind: Literal["classification_report"]
    version: int
    split: str
    samples: int
    classes: list[str]
    accuracy: float
    top_k_accuracy: dict[str, float]
    macro: Averages
    weighted: Averages
    per_class: list[ClassScores]
    confusion_matrix: ConfusionMatrix
    most_confident_mistakes: list[Mistake]
    headline: NotRequired[ClassificationHeadline]
    feature_importance: NotRequired[list[FeatureImportance]]
    misclassified: NotRequired[int]
    model: ModelFile
    cross_validation: NotRequired[CrossValidation]
    intervals: NotRequired[list[MetricInterval]]


class RegressionMetrics(TypedDict):
    mae: float
    rmse: float
    r2: float


class ResidualPoint(TypedDict):
    sample: SampleRef
    actual: float
    predicted: float


class Histogram(TypedDict):
    """``counts[i]`` values fell in ``[edges[i], edges[i + 1])`` (the last bin includes its end)."""

    edges: list[float]
    counts: list[int]


class Residuals(TypedDict):
    """Up to 1000 (actual, predicted) points, evenly picked, and the residuals' histogram."""

    points: list[ResidualPoint]
    histogram: Histogram


class LargestError(TypedDict):
    sample: SampleRef
    values: dict[str, CellValue]
    actual: float
    predicted: float


class RegressionReport(TypedDict):
    """A regression model's report on one split: MAE, RMSE and R2 (also as ``headline``), the
    residuals, the largest errors with their rows and the permutation feature importance."""

    kind: Literal["regression_report"]
    version: int
    split: str
    samples: int
    mae: float
    rmse: float
    r2: float
    headline: RegressionMetrics
    residuals: Residuals
    largest_errors: list[LargestError]
    feature_importance: list[FeatureImportance]
    model: ModelFile
    cross_validation: NotRequired[CrossValidation]
    intervals: NotRequired[list[MetricInterval]]


EvaluationReport = ClassificationReport | RegressionReport


class MetricPair(TypedDict):
    """A metric of report a and report b; ``delta`` is b minus a (None when either is missing)."""

    a: float | None
    b: float | None
    delta: float | None


class SupportPair(TypedDict):
    a: int | None
    b: int | None


ClassComparison = TypedDict(
    "ClassComparison",
    {
        "class": str,
        "precision": MetricPair,
        "recall": MetricPair,
        "f1": MetricPair,
        "support": SupportPair,
    },
)
ClassComparison.__doc__ = "One class in both reports (None on the side where it is missing)."


class ClassificationComparison(TypedDict):
    """Two classification reports side by side, matched by class name (a's order, then b's extra
    classes); ``top_k_accuracy`` holds the k both reports have. The platform adds the two model
    versions' ids (``a``, ``b``) and names (``a_name``, ``b_name``)."""

    kind: Literal["classification_comparison"]
    version: int
    accuracy: MetricPair
    macro_f1: MetricPair
    weighted_f1: MetricPair
    top_k_accuracy: dict[str, MetricPair]
    per_class: list[ClassComparison]


class RegressionMetricPair(TypedDict):
    a: float
    b: float
    delta: float


class RegressionComparison(TypedDict):
    """Two regression reports side by side: lower MAE and RMSE are better, higher R2 is better."""

    kind: Literal["regression_comparison"]
    version: int
    mae: RegressionMetricPair
    rmse: RegressionMetricPair
    r2: RegressionMetricPair
    samples: SupportPair


Comparison = ClassificationComparison | RegressionComparison
