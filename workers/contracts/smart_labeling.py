"""Smart labeling and the data quality report share one input: a dataset's samples as a pool.

- :class:`LabelPool`: what the platform hands the compute plane (``workers.smart_labeling.run`` and
  ``workers.data_quality.run``): the task, the classes in the user's order and every sample with
  its human label (or none) and where its content is.
- :class:`SmartLabelingParams` / :class:`SmartLabelingResult`: a smart-labeling round's question
  and answer: a suggestion for every unlabeled sample and the ranking of what to label next.
- :class:`SmartLabelingSummary`: what the platform keeps of a round (the result without the
  per-sample suggestions, which become ``labeling.Suggestion`` rows).

Indices, not ids: ``label`` fields index ``LabelPool.classes``; ``id`` is the platform's sample id,
handed back untouched.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

SMART_LABELING_VERSION = 1

PoolTask = Literal[
    "image_classification",
    "text_classification",
    "tabular_classification",
    "tabular_regression",
    "object_detection",
]
Strategy = Literal["uncertainty_diversity", "uncertainty", "random"]
STRATEGIES: tuple[Strategy, ...] = ("uncertainty_diversity", "uncertainty", "random")
PoolSplit = Literal["", "train", "val", "test"]


class PoolBox(TypedDict):
    """A human box: ``label`` indexes the pool's classes; pixels of the stored image."""

    label: int
    x: float
    y: float
    width: float
    height: float


class PoolSample(TypedDict):
    """One sample. Labeled or not by task: classification ``label`` (None: unlabeled); regression
    ``target`` (None: unlabeled); detection ``boxes`` (None: unlabeled, ``[]``: reviewed, no
    objects). Content by task: ``image_path`` (a local file), ``text``, or ``values`` (a table row by
    column name). ``split`` is the sample's split when the pool is a dataset version's, else ``""``.
    ``sha256`` is the stored content's hash (exact duplicates share it)."""

    id: int
    sha256: str
    label: int | None
    target: NotRequired[float | None]
    boxes: NotRequired[list[PoolBox] | None]
    image_path: NotRequired[str]
    width: NotRequired[int]
    height: NotRequired[int]
    text: NotRequired[str]
    values: NotRequired[dict[str, str | int | float | bool | None]]
    split: NotRequired[PoolSplit]


class PoolColumn(TypedDict):
    name: str
    type: str  # numeric | categorical | datetime | text | empty (the dataset schema's column types)


class LabelPool(TypedDict):
    """``{"kind": "label_pool", "version": 1, "task_type": "image_classification", "classes":
    ["0", "1"], "samples": [{"id": 7, "sha256": "…", "label": 0, "image_path": "/…/7.png"}]}``.
    Tabular pools carry the feature ``columns`` and the ``target`` column's name."""

    kind: Literal["label_pool"]
    version: int
    task_type: PoolTask
    classes: list[str]
    samples: list[PoolSample]
    columns: NotRequired[list[PoolColumn]]
    target: NotRequired[str]


class SmartLabelingParams(TypedDict):
    """``batch_size``: how many samples the ranking puts first (rank 1..batch_size);
    ``strategy``: uncertainty combined with diversity (the default), uncertainty alone, or random
    (a baseline); ``seed`` makes a round repeatable."""

    batch_size: int
    strategy: Strategy
    seed: int


class SuggestedBox(TypedDict):
    label: int
    x: float
    y: float
    width: float
    height: float
    score: float


class ClassScore(TypedDict):
    label: int
    score: float


class SampleSuggestion(TypedDict):
    """A suggestion for one unlabeled sample: classification ``label`` with ``confidence`` (its
    probability) and the top ``scores``; detection ``boxes`` (``label`` None, ``confidence`` the
    image's mean box score, 1.0 when no boxes are found with confidence); regression ``value``.
    ``priority`` is the acquisition score (higher: label it sooner); ``rank`` is 1..batch_size for
    the batch to label next, None for the rest."""

    id: int
    label: int | None
    confidence: float
    scores: list[ClassScore]
    boxes: list[SuggestedBox]
    value: float | None
    priority: float
    rank: int | None


class SmartLabelingSummary(TypedDict):
    """A round at a glance. ``estimated_accuracy``: the quick model's cross-validated accuracy on
    the labeled samples (mAP@.5 for detection, R² for regression; None with too few labels to
    tell). ``per_class_suggested``: suggestions per class (index) for the charts. ``unreadable``:
    images that could not be decoded (no suggestion, not trained on; absent: none)."""

    kind: Literal["smart_labeling_summary"]
    version: int
    model: str
    strategy: Strategy
    labeled: int
    unlabeled: int
    ranked: int
    estimated_accuracy: float | None
    per_class_suggested: list[int]
    confidence_histogram: list[int]  # ten bins over [0, 1]
    seconds: float
    unreadable: NotRequired[int]


class ModelFeatures(TypedDict):
    """A model the platform trained on this dataset, copied into the job's work dir, whose embedding
    joins the image features (``workers.smart_labeling.features.pool_features(model=...)``).
    ``checkpoint_path``: a Sampan ``model.pt`` (arch, weights; read with ``weights_only=True``);
    else ``onnx_path`` (its logits). ``name`` e.g. "model version V3"."""

    name: str
    checkpoint_path: NotRequired[str]
    onnx_path: NotRequired[str]
    preprocessing: dict[str, object]


class SmartLabelingResult(TypedDict):
    kind: Literal["smart_labeling_result"]
    version: int
    summary: SmartLabelingSummary
    suggestions: list[SampleSuggestion]
