"""The platform's payloads as types, generated from its OpenAPI schema (frontend/openapi.json)
by sdk/tools/generate_types.py: do not edit by hand, run ``make api-client``.

Each schema component is a ``TypedDict`` (or an alias: ``Literal`` enums, unions); the SDK's
resources hold them in ``data`` and its methods answer them. They describe plain JSON: nothing
here checks or converts a payload at run time. Import them from ``sampan.types``.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TypeAlias, TypedDict

# the SDK supports Python 3.10, whose typing lacks NotRequired; the annotations below are never
# evaluated there (from __future__ import annotations), so the name is only for type checkers
if sys.version_info >= (3, 11):  # noqa: UP036
    from typing import NotRequired
else:
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from typing_extensions import NotRequired  # noqa: UP035


# One box as logged: its label (id and the name it had) and geometry in image pixels.
class ActivityBox(TypedDict):
    label: int
    label_name: str
    x: float
    y: float
    width: float
    height: float


# A sample's value before or after a change, e.g. ``{"label": 3, "label_name": "cat"}``, ``{"target": 3.2}``,
# ``{"status": "annotated", "boxes": [...]}`` or ``{"review_status": "accepted"}``.
class ActivityValue(TypedDict):
    label: NotRequired[int | None]
    label_name: NotRequired[str | None]
    target: NotRequired[float | None]
    status: NotRequired[AnnotationStatusEnum]
    boxes: NotRequired[list[ActivityBox]]
    review_status: NotRequired[ActivityValueReviewStatusEnum]


ActivityValueReviewStatusEnum: TypeAlias = Literal["unreviewed", "accepted", "rejected"]


# An account as administrators see it on the users page.
class AdminUser(TypedDict):
    id: int
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    username: str
    email: str
    # A platform administrator (manages users; Django admin).
    is_staff: bool
    # False: deactivated; cannot sign in, sessions and API tokens refused.
    is_active: bool
    date_joined: str
    last_login: str | None


class AgreementReport(TypedDict):
    kind: AgreementReportKindEnum
    version: int
    classes: list[str]
    overlapping_samples: int
    percent_agreement: float | None
    fleiss_kappa: float | None
    pairs: list[PairAgreement]
    per_class: list[ClassAgreement]
    annotators: list[AnnotatorStats]


AgreementReportKindEnum: TypeAlias = Literal["agreement_report"]


class AnnotationConflict(TypedDict):
    error: AnnotationConflictBody


class AnnotationConflictBody(TypedDict):
    code: AnnotationConflictCodeEnum
    # The sentence to show a person.
    message: str
    details: AnnotationConflictDetails


AnnotationConflictCodeEnum: TypeAlias = Literal["annotation_conflict"]


class AnnotationConflictDetails(TypedDict):
    # The message again, as a field error.
    revision: list[str]
    # The sample's annotations now.
    current: SampleAnnotations


AnnotationFormatEnum: TypeAlias = Literal["auto", "coco", "voc", "yolo", "label_studio", "images"]


# One annotation: ``label`` is the label's name (the dataset's label list), ``geometry`` the shape for
# ``kind``. ``attributes`` holds free key/values kept through import and export (COCO ``iscrowd``, VOC
# ``difficult``/``truncated``). ``id`` is absent on writes.
class AnnotationRecord(TypedDict):
    id: NotRequired[int]
    kind: AnnotationRecordKindEnum
    label: str
    geometry: BoxGeometry
    attributes: NotRequired[dict[str, float | str | bool]]


AnnotationRecordKindEnum: TypeAlias = Literal["box"]


# One annotation: ``label`` is the label's name (the dataset's label list), ``geometry`` the shape for
# ``kind``. ``attributes`` holds free key/values kept through import and export (COCO ``iscrowd``, VOC
# ``difficult``/``truncated``). ``id`` is absent on writes.
class AnnotationRecordRequest(TypedDict):
    id: NotRequired[int]
    kind: AnnotationRecordKindEnum
    label: str
    geometry: BoxGeometryRequest
    attributes: NotRequired[dict[str, float | str | bool]]


AnnotationStatusEnum: TypeAlias = Literal["unlabeled", "annotated", "no_objects"]


class AnnotatorProgress(TypedDict):
    annotator: int
    username: str
    assigned: int
    # Answered (waiting for review or accepted).
    submitted: int
    accepted: int
    # Assignments a reviewer sent back at least once.
    rejected: int
    # Still to label: new or sent back.
    to_do: int


class AnnotatorStats(TypedDict):
    annotator: int
    username: str
    assigned: int
    submitted: int
    accepted: int
    rejected: int
    rejection_rate: float | None
    per_hour: float | None
    agreement_with_others: float | None


class AnswerBox(TypedDict):
    label: str
    x: float
    y: float
    width: float
    height: float


class AnswerBoxRequest(TypedDict):
    # The label's name.
    label: str
    x: float
    y: float
    width: float
    height: float


class AnswerBucket(TypedDict):
    low: float
    high: float
    count: int


AnyDatasetProfile: TypeAlias = "DatasetProfile | TimeSeriesProfile"


class ApiToken(TypedDict):
    id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    expires_at: NotRequired[str | None]
    revoked_at: str | None
    status: TokenStatusEnum


class ApiTokenCreated(TypedDict):
    id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    expires_at: NotRequired[str | None]
    revoked_at: str | None
    status: TokenStatusEnum
    # The secret; shown only in this response.
    key: str


class ApiTokenRequest(TypedDict):
    name: str
    expires_at: NotRequired[str | None]


ArchitectureEnum: TypeAlias = Literal["cnn_small", "resnet_narrow", "resnet18"]


AssignmentStatusEnum: TypeAlias = Literal["pending", "submitted", "rejected", "accepted"]


class AssignmentTask(TypedDict):
    id: int
    name: str
    instructions: str
    status: str
    dataset: int
    task_type: str


# A parameter the preset set for this data and hardware: ``value`` instead of the preset's declared
# ``preset_value``, and why, in words (e.g. "1,797 training images on CPU workers: ...").
class AutoChoice(TypedDict):
    param: str
    value: float | str | bool
    preset_value: float | str | bool
    reason: str
    reason_code: NotRequired[str]
    reason_params: NotRequired[dict[str, float | str]]


class AutomlConstraint(TypedDict):
    metric: str
    op: OpEnum
    value: float


# Where a model version promoted from a study's trial comes from (``automl.services.trial_promote``).
class AutomlLineage(TypedDict):
    study: int
    study_name: str
    trial: int
    searched_params: dict[str, float | str | bool]
    objective: Objective
    value: float | None
    sampler: str
    objectives: NotRequired[list[Objective]]
    values: NotRequired[list[float]]
    constraints: NotRequired[list[AutomlConstraint]]
    feasible: NotRequired[bool | None]
    measurements: NotRequired[dict[str, float | str]]
    target_profile: NotRequired[str | None]
    precision: NotRequired[PrecisionEnum]


class Averages(TypedDict):
    precision: float
    recall: float
    f1: float


class Backbone(TypedDict):
    id: int
    workspace: int
    project: int
    name: str
    # The uploaded file's name.
    filename: str
    sha256: str
    size_bytes: int
    status: BackboneStatusEnum
    # Why the file was refused (status invalid).
    error: str
    summary: BackboneSummary | None
    # The job that checks the file.
    job: int | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str
    checked_at: str | None


class BackboneCheckParams(TypedDict):
    kind: BackboneCheckParamsKindEnum
    version: int
    backbone: int


BackboneCheckParamsKindEnum: TypeAlias = Literal["training.check_backbone"]


# ``training.check_backbone``: the backbone's status and summary or error (``deleted`` when the backbone was
# gone).
class BackboneCheckResult(TypedDict):
    kind: BackboneCheckResultKindEnum
    version: int
    backbone: int
    deleted: NotRequired[bool]
    status: NotRequired[str]
    summary: NotRequired[BackboneSummary | None]
    error: NotRequired[str]


BackboneCheckResultKindEnum: TypeAlias = Literal["backbone_check_result"]


class BackboneCreateRequest(TypedDict):
    # The project the backbone belongs to.
    project: int
    # A PyTorch state_dict (torch.save(model.state_dict())), or a checkpoint holding one under 'model' or
    # 'state_dict'.
    file: bytes
    # Defaults to the file's name without its extension.
    name: NotRequired[str]


BackboneStatusEnum: TypeAlias = Literal["pending", "valid", "invalid"]


# What the check read from a valid backbone file: the model it fits (``architecture``, or null) and every
# model it can initialise (``fits``), its tensors, learned values (``parameters``, batch-norm statistics
# aside), the outputs of its own head (``head_classes``, fc, which training replaces; null without one) and
# the dtypes it holds.
class BackboneSummary(TypedDict):
    architecture: str | None
    fits: list[str]
    tensors: int
    parameters: int
    head_classes: int | None
    dtypes: list[str]


BackendEnum: TypeAlias = Literal["wasm"]


# One rolling-origin window: forecasts from history up to ``cutoff`` (the last timestamp seen) for the next
# ``horizon`` steps. ``role``: ``validation`` windows chose the model (it was fitted on data before them), the
# ``test`` window is the held-out one.
class BacktestWindow(TypedDict):
    index: int
    role: BacktestWindowRoleEnum
    cutoff: str
    metrics: ForecastMetrics
    seasonal_naive: ForecastMetrics


BacktestWindowRoleEnum: TypeAlias = Literal["validation", "test"]


# An image where the model went wrong: ``false_positives`` (predictions that match no object of their class)
# and ``missed`` (objects no prediction found), with every predicted and true box for drawing. ``sample`` is
# the dataset's sample id (opens the box labeler).
class BadCase(TypedDict):
    sample: int | str
    path: str
    width: int
    height: int
    false_positives: int
    missed: int
    predicted: list[BadCaseBox]
    truth: list[BadCaseBox]


class BadCaseBox(TypedDict):
    label: str
    x: float
    y: float
    width: float
    height: float
    score: NotRequired[float]


# A baseline's (or a candidate model's) scores on the test window and on the validation windows.
class BaselineScores(TypedDict):
    model: ModelEnum
    test: ForecastMetrics
    validation: ForecastMetrics | None
    chosen_weight: float


BasisEnum: TypeAlias = Literal["measured", "none"]


# An input that was not predicted: its ``id`` and ``name`` as in its result row, and why.
class BatchErrorExample(TypedDict):
    id: int | None
    name: str
    error: str


BatchFormatEnum: TypeAlias = Literal["jsonl", "csv", "parquet"]


class BatchPredictJobParams(TypedDict):
    kind: BatchPredictJobParamsKindEnum
    version: int
    batch_prediction: int


BatchPredictJobParamsKindEnum: TypeAlias = Literal["deploy.batch_predict"]


# ``deploy.batch_predict``: the batch prediction, how many inputs were predicted and how many were errors.
class BatchPredictJobResult(TypedDict):
    kind: BatchPredictJobResultKindEnum
    version: int
    batch_prediction: int
    predicted: int
    errors: int


BatchPredictJobResultKindEnum: TypeAlias = Literal["batch_predict_result"]


class BatchPrediction(TypedDict):
    id: int
    workspace: int
    project: int
    model_version: int
    model_version_name: str
    template: str
    # The deployment it was started from, if any.
    deployment: int | None
    job: int | None
    status: JobStatusEnum
    progress: BatchProgress | None
    source: BatchSource
    params: BatchPredictionParams
    summary: BatchPredictionSummary | None
    files: list[BatchPredictionFile]
    error: str
    created_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    finished_at: str | None


class BatchPredictionCreateRequest(TypedDict):
    # The model version; default: the deployment's.
    model_version: NotRequired[int | None]
    source: BatchSourceKindEnum
    dataset_version: NotRequired[int | None]
    split: NotRequired[BatchPredictionCreateSplitEnum | BlankEnum]
    dataset: NotRequired[int | None]
    # Record the deployment it was started from.
    deployment: NotRequired[int | None]
    # source upload: a .zip/.tar(.gz) of images or .txt texts, or a CSV/JSONL/Parquet table.
    file: NotRequired[bytes]
    top_k: NotRequired[int]
    score_threshold: NotRequired[float]
    max_detections: NotRequired[int]
    # Result files; default jsonl and csv (and parquet for tables).
    formats: NotRequired[list[BatchFormatEnum]]


BatchPredictionCreateSplitEnum: TypeAlias = Literal["train", "val", "test"]


class BatchPredictionFile(TypedDict):
    format: BatchFormatEnum
    size_bytes: int
    sha256: str
    download_url: str


# The question: ``top_k`` classes per instance (classification), a detector's ``score_threshold`` and
# ``max_detections``, and the result formats (``parquet`` only for tables).
class BatchPredictionParams(TypedDict):
    top_k: NotRequired[int]
    score_threshold: NotRequired[float]
    max_detections: NotRequired[int]
    formats: NotRequired[list[BatchFormatEnum]]


# ``rows``: inputs read; ``predicted`` and ``errors`` (with up to 20 ``error_examples``); ``seconds`` and
# ``rows_per_s``; ``files``: the result files by format; ``metrics``: on labeled input, the task's headline
# metrics (accuracy, macro_f1; mae, rmse, r2; map50), null otherwise.
class BatchPredictionSummary(TypedDict):
    kind: BatchPredictionSummaryKindEnum
    version: int
    rows: int
    predicted: int
    errors: int
    error_examples: list[BatchErrorExample]
    seconds: float
    rows_per_s: float
    files: dict[str, BatchResultFile]
    metrics: dict[str, float] | None


BatchPredictionSummaryKindEnum: TypeAlias = Literal["batch_prediction_summary"]


class BatchProgress(TypedDict):
    fraction: float | None
    done: int | None
    total: int | None
    eta_s: float | None


class BatchResultFile(TypedDict):
    key: str
    size_bytes: int
    sha256: str


class BatchSource(TypedDict):
    kind: BatchSourceKindEnum
    dataset_version: int | None
    dataset_version_name: str | None
    split: str
    dataset: int | None
    dataset_name: str | None
    upload_name: str
    upload_size: int | None


BatchSourceKindEnum: TypeAlias = Literal["dataset_version", "dataset", "upload"]


class BestTrial(TypedDict):
    number: int
    value: float
    model_version: int | None
    model_version_name: NotRequired[str | None]
    params: dict[str, float | str | bool]
    test_metrics: TrialTestMetrics


BlankEnum: TypeAlias = Literal[""]


# An axis-aligned box in the image's pixels: top-left corner, width and height (all floats, width and height >
# 0, inside the image).
class BoxGeometry(TypedDict):
    x: float
    y: float
    width: float
    height: float


# An axis-aligned box in the image's pixels: top-left corner, width and height (all floats, width and height >
# 0, inside the image).
class BoxGeometryRequest(TypedDict):
    x: float
    y: float
    width: float
    height: float


class BoxHistogram(TypedDict):
    # Bin edges: counts[i] is of values in [bins[i], bins[i+1]) (the last bin closed).
    bins: list[float]
    counts: list[int]


# A latency measured in a browser with onnxruntime-web (the device SDK's JavaScript runtime) for the parent or
# a variant, posted by the UI (``POST /compressions/{id}/browser-latency/``).
class BrowserLatency(TypedDict):
    model_version: int
    median_ms: float
    p90_ms: float
    runs: int
    user_agent: str
    backend: BackendEnum
    measured_at: str


class BrowserLatencyRequest(TypedDict):
    # The parent or a variant of this compression run.
    model_version: int
    median_ms: float
    p90_ms: float
    runs: int
    user_agent: str
    backend: NotRequired[BackendEnum]


class BuildPackageParams(TypedDict):
    kind: BuildPackageParamsKindEnum
    version: int
    package: int


BuildPackageParamsKindEnum: TypeAlias = Literal["deploy.build_package"]


# ``deploy.build_package``: the package built (its kind, server or device, is ``package_kind``); ``deleted``
# when the package was gone.
class BuildPackageResult(TypedDict):
    kind: BuildPackageResultKindEnum
    version: int
    package: int
    deleted: NotRequired[bool]
    package_kind: NotRequired[str]
    sha256: NotRequired[str]
    size_bytes: NotRequired[int]


BuildPackageResultKindEnum: TypeAlias = Literal["package_build_result"]


class BulkAnnotationConflict(TypedDict):
    error: BulkAnnotationConflictBody


class BulkAnnotationConflictBody(TypedDict):
    code: AnnotationConflictCodeEnum
    # The sentence to show a person.
    message: str
    details: BulkAnnotationConflictDetails


class BulkAnnotationConflictDetails(TypedDict):
    # The message again, as a field error.
    items: list[str]
    # The samples that changed since the revisions sent, as they are now.
    conflicts: list[SampleAnnotations]


class BulkAnnotationsItemRequest(TypedDict):
    sample: int
    # The sample's revision you last read; a stale one answers 409 annotation_conflict with the current state.
    revision: int
    # Default: annotated when there are boxes, else unlabeled. no_objects: reviewed, nothing to annotate (no
    # boxes).
    status: NotRequired[AnnotationStatusEnum]
    # Every annotation of the sample (a write replaces them), labels by name; ids are ignored.
    annotations: list[AnnotationRecordRequest]


class BulkAnnotationsResult(TypedDict):
    items: list[SampleAnnotations]


class BulkAnnotationsWriteRequest(TypedDict):
    items: list[BulkAnnotationsItemRequest]


class BulkLabelConflict(TypedDict):
    error: BulkLabelConflictBody


class BulkLabelConflictBody(TypedDict):
    code: LabelConflictCodeEnum
    # The sentence to show a person.
    message: str
    details: BulkLabelConflictDetails


class BulkLabelConflictDetails(TypedDict):
    # The message again, as a field error.
    items: list[str]
    # The samples that changed since the versions sent, as they are now.
    conflicts: list[CurrentLabel]


BulkLabelConflictOrDeleted: TypeAlias = "BulkLabelConflict | LabelDeleted"


class BulkLabelItemRequest(TypedDict):
    id: int
    label_version: int


class BulkLabelRequest(TypedDict):
    # A label id of this dataset, or null to unlabel.
    label: int | None
    items: list[BulkLabelItemRequest]


class BulkLabelResult(TypedDict):
    updated: int
    samples: list[LabeledSample]


class BusyWith(TypedDict):
    # The worker (Celery node name).
    worker: str
    # The job it runs; null when the job is in a workspace you are not in.
    job_id: int | None
    # That job's kind.
    kind: str


ByEnum: TypeAlias = Literal["ids", "filter", "ranking"]


class CanaryRequest(TypedDict):
    # A servable model version of the deployment's project.
    model_version: int
    # Percent of the requests.
    weight: int


# A model the folds compared (e.g. ``gbdt``, ``linear``, ``mlp``, ``ensemble``): its mean and standard
# deviation over the folds, its ensemble ``weight`` where it is a member, and whether it is the one the run
# kept.
class CandidateScore(TypedDict):
    name: str
    mean: float
    std: float
    weight: NotRequired[float]
    chosen: bool


class CaptureDeleteRequest(TypedDict):
    # These captures.
    ids: NotRequired[list[int]]
    # Every capture of the deployment.
    all: NotRequired[bool]


class CaptureDeleteResult(TypedDict):
    deleted: int


# What a deployment keeps of the requests it answers. Off by default. An answered instance is eligible when no
# filter is set or any set filter matches (``low_confidence_below``, ``shadow_disagreement``, ``labels``); an
# eligible one is kept with probability ``sample_rate`` while the kept inputs stay under ``max_bytes``;
# captures older than ``retention_days`` are deleted.
class CapturePolicy(TypedDict):
    enabled: bool
    # Share of the eligible instances kept, 0-1.
    sample_rate: float
    # Captures older are deleted.
    retention_days: int
    # The size cap of the kept inputs; none kept beyond it.
    max_bytes: int
    # Filter: the top-1 score is below this.
    low_confidence_below: float | None
    # Filter: the shadow's top-1 class differs from the served one.
    shadow_disagreement: bool
    # Filter: the served top-1 class names.
    labels: list[str]
    # Bytes of the kept inputs.
    stored_bytes: int
    # Captured requests kept.
    stored_count: int
    updated_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    updated_by: str | None


# A deployment's request capture policy (deploy.models.CapturePolicy) as a history entry keeps it.
class CapturePolicySettings(TypedDict):
    enabled: bool
    sample_rate: float
    retention_days: int
    max_bytes: int
    low_confidence_below: float | None
    shadow_disagreement: bool
    labels: list[str]


# A change of the capture policy: any of its fields (the others keep their values).
class CapturePolicyUpdateRequest(TypedDict):
    # Capture on or off.
    enabled: NotRequired[bool]
    # Share of the eligible instances kept, 0-1.
    sample_rate: NotRequired[float]
    # Captures older are deleted (1-3650 days).
    retention_days: NotRequired[int]
    # The size cap of the kept inputs, in bytes.
    max_bytes: NotRequired[int]
    # Filter: the top-1 score is below this (0-1; null: no such filter).
    low_confidence_below: NotRequired[float | None]
    # Filter: the shadow's top-1 class differs from the served one.
    shadow_disagreement: NotRequired[bool]
    # Filter: the served top-1 class is one of these names.
    labels: NotRequired[list[str]]


CaptureReasonEnum: TypeAlias = Literal["sampled", "low_confidence", "disagreement", "label"]


class CaptureSendRequest(TypedDict):
    # A dataset of the deployment's project and task.
    dataset: int
    # These captures; without ids, the unsent ones matching reason and label.
    ids: NotRequired[list[int]]
    reason: NotRequired[CaptureReasonEnum]
    label: NotRequired[str]


class CaptureSendResult(TypedDict):
    dataset: int
    samples_created: int
    suggestions_created: int
    skipped: list[CaptureSkipped]


class CaptureSkipped(TypedDict):
    id: int
    reason: CaptureSkippedReasonEnum
    detail: str


CaptureSkippedReasonEnum: TypeAlias = Literal[
    "already_sent",
    "input_missing",
    "unreadable_input",
    "wrong_kind",
    "duplicate",
    "no_schema",
    "no_suggestion",
]


# A served (or shadow) answer as kept with a capture: ``label`` and ``score`` of the top class (a detector: of
# its best box; null when it found none), or the regression ``value``; a classifier's ``top_k`` as answered; a
# detector's ``boxes`` (original image pixels) with the image's ``width`` and ``height``.
class CapturedAnswer(TypedDict):
    label: str | None
    score: float | None
    value: float | None
    top_k: NotRequired[list[ClassScore]]
    boxes: NotRequired[list[DetectedBox]]
    width: NotRequired[int]
    height: NotRequired[int]


class CapturedRequest(TypedDict):
    id: int
    at: str
    model_version: int | None
    model_version_name: str | None
    reason: CaptureReasonEnum
    # image, text or row.
    data_kind: str
    content_type: str
    size_bytes: int
    # The served (or shadow) answer kept with a capture: top label and score, or the value.
    answer: CapturedAnswer
    shadow_version: int | None
    # The shadow's answer to the same input (with a shadow).
    shadow_answer: CapturedAnswer | None
    sent_to_sample: int | None
    # The dataset it was sent to (null: not sent).
    sent_to_dataset: int | None
    content_url: str
    # Text inputs: the text (its first 2,000 characters).
    text: str | None
    # Tabular inputs: the row by column name.
    row: dict[str, float | str | bool | None] | None


# A class's average precision: ``ap`` is AP@[.5:.95] (COCO), ``ap50`` and ``ap75`` at one IoU;
# ``ground_truth`` boxes of the class in the split; -1.0 where the class has no ground truth.
class ClassAP(TypedDict):
    label: str
    ap: float
    ap50: float
    ap75: float
    ground_truth: int
    pr_curve: PrecisionRecallCurve


class ClassAPDelta(TypedDict):
    label: str
    a: float
    b: float
    delta: float


class ClassAgreement(TypedDict):
    label: int
    name: str
    percent_agreement: float | None
    kappa: float | None


# Samples per class (boxes per class for detection); ``imbalance_ratio`` the largest class over the smallest
# non-empty one; ``tiny_classes`` the classes under ``min_per_class``.
class ClassBalance(TypedDict):
    classes: list[ClassCount]
    imbalance_ratio: float | None
    min_per_class: int
    tiny_classes: list[int]


# One class in both reports (None on the side where it is missing).
ClassComparison = TypedDict(
    "ClassComparison",
    {
        "class": "str",
        "precision": "MetricPair",
        "recall": "MetricPair",
        "f1": "MetricPair",
        "support": "SupportPair",
    },
)


class ClassCount(TypedDict):
    label: int
    name: str
    count: int


# A class and the model's probability for it; ``index`` is its output position.
class ClassScore(TypedDict):
    label: str
    index: int
    score: float


# One class's scores on the split; ``support``: its samples there.
ClassScores = TypedDict(
    "ClassScores",
    {
        "class": "str",
        "index": "int",
        "precision": "float",
        "recall": "float",
        "f1": "float",
        "support": "int",
    },
)


class ClassificationHeadline(TypedDict):
    accuracy: float
    macro_f1: float
    weighted_f1: float
    top_k_accuracy: dict[str, float]


# One instance's answer from a classifier (images, texts, table rows). ``imputed`` (tabular models only): the
# columns of the row that were missing (absent, null, NaN, empty) and filled by the model's missing-value
# rule, in the model's column order; empty when none. Only columns whose training data had gaps may be
# missing; any other is a 400.
class ClassificationPrediction(TypedDict):
    top_k: list[ClassScore]
    imputed: NotRequired[list[str]]


# A classifier's report on one split. ``top_k_accuracy`` is keyed by k ("1", "3", "5"; k up to the number of
# classes). Tables add ``headline`` and ``feature_importance``, texts ``misclassified`` (the count of wrong
# answers). ``cross_validation`` and ``intervals``: see workers.contracts.validation.
class ClassificationReport(TypedDict):
    kind: ClassificationReportKindEnum
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


ClassificationReportKindEnum: TypeAlias = Literal["classification_report"]


class CodeArchive(TypedDict):
    id: int
    workspace: int
    project: int
    name: str
    # The uploaded file's name.
    filename: str
    code_kind: CodeArchiveCodeKindEnum
    sha256: str
    size_bytes: int
    # What the code holds.
    files: list[CodeFile]
    # The file or module a job runs unless it names another.
    entry_point: str
    # requirements.txt found in the code (a job may add or replace it).
    requirements: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str


CodeArchiveCodeKindEnum: TypeAlias = Literal["script", "zip", "notebook"]


class CodeArchiveCreateRequest(TypedDict):
    # The project the code belongs to.
    project: int
    # A Python script (.py, must compile), a zip of a folder (.zip; its requirements.txt at the top is read)
    # or a Jupyter notebook (.ipynb, nbformat 4).
    file: bytes
    # Defaults to the file's name.
    name: NotRequired[str]
    # The file or module a job runs by default: a .py or .ipynb path in the code or a module (pkg.train).
    # Defaults to the file itself, or a zip's train.py, main.py, __main__.py or its only top-level .py.
    entry_point: NotRequired[str]


class CodeFile(TypedDict):
    # The file's path inside the code (POSIX, relative).
    path: str
    size_bytes: int


class CodeFileText(TypedDict):
    path: str
    # The file's text (UTF-8, at most 1 MiB).
    text: str


ColorEnum: TypeAlias = Literal["RGB"]


# One column's statistics. numeric: min, max, mean, std, histogram; categorical and datetime: top values
# (datetime also min and max, as text); text: mean_length, max_length.
class ColumnProfile(TypedDict):
    name: str
    type: ColumnTypeEnum
    count: int
    missing: int
    missing_share: float
    unique: int
    min: NotRequired[float | str]
    max: NotRequired[float | str]
    mean: NotRequired[float]
    std: NotRequired[float]
    histogram: NotRequired[ProfileHistogram]
    top: NotRequired[list[ValueCount]]
    mean_length: NotRequired[float]
    max_length: NotRequired[int]


ColumnTypeEnum: TypeAlias = Literal["numeric", "categorical", "datetime", "text", "empty"]


class Compression(TypedDict):
    id: int
    workspace: int
    project: int
    parent: int
    parent_name: str
    # The model version distillation learns from; null: the parent.
    teacher: int | None
    # smaller, balanced, faster, distilled or blank.
    preset: str
    spec: CompressionSpec
    job: int | None
    status: str | None
    progress: ProgressEvent | None
    error: str | None
    # Null until the job finished: the parent's and each variant's size, parameters, FLOPs, latency and metric
    # on the same test split, each variant's model version.
    report: CompressionRunReport | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str


class CompressionCreateRequest(TypedDict):
    # Variants to make (workers.contracts.compression.CompressionRecipe), e.g. [{"name": "pruned-50-int8",
    # "prune": {"flops_ratio": 0.5}, "quantize": "auto"}]; or a preset.
    recipes: NotRequired[list[dict[str, Any]]]
    # smaller (int8), balanced (half the FLOPs pruned + int8), faster (pruned to the target's latency budget +
    # int8), distilled (half-width student + int8). Default smaller.
    preset: NotRequired[PresetEnum]
    # Distillation's teacher: a model version of the same project, template and classes (default the version
    # compressed).
    teacher: NotRequired[int | None]
    # Latency is measured with this target profile: a builtin name (worker-cpu, worker-cpu-4t, edge-arm-slow)
    # or the id or name of the workspace's profile. Default worker-cpu.
    target_profile: NotRequired[str]
    # quantize auto: static int8 unless it loses more than this (default 0.005 top-1, 0.02 mAP), then
    # quantization-aware training.
    max_metric_drop: NotRequired[float]
    seed: NotRequired[int]


# A compression run (``training.compress``): the model version compressed, what to make (``spec``), the
# teacher of distillation recipes (null: the parent) and the ``Compression`` row.
class CompressionJobParams(TypedDict):
    kind: CompressionJobParamsKindEnum
    version: int
    model_version: int
    spec: CompressionSpec
    teacher: int | None
    compression: int


CompressionJobParamsKindEnum: TypeAlias = Literal["training.compress"]


# ``training.compress``: the compression run and the model versions it recorded (one per variant), and how
# many recipes did not apply.
class CompressionJobResult(TypedDict):
    kind: CompressionJobResultKindEnum
    version: int
    compression: int
    model_versions: list[int]
    skipped: int


CompressionJobResultKindEnum: TypeAlias = Literal["compression_job_result"]


# What made a compressed model version (``ModelVersion.lineage`` with source ``compressed``): the version it
# was compressed from, the teacher of a distillation (null: the parent or none), the recipe, and the
# compression run (``/api/v1/compressions/{id}/``).
class CompressionLineage(TypedDict):
    kind: CompressionLineageKindEnum
    version: int
    parent: int
    teacher: int | None
    recipe: CompressionRecipe
    compression: int


CompressionLineageKindEnum: TypeAlias = Literal["compression_lineage"]


# One variant to produce, e.g. ``{"name": "pruned-50-int8", "prune": {"flops_ratio": 0.5}, "quantize":
# "static"}``; ``fine_tune_epochs``: epochs after pruning (or of distillation).
class CompressionRecipe(TypedDict):
    name: str
    prune: NotRequired[PruneSpec]
    distill: NotRequired[DistillSpec]
    quantize: NotRequired[QuantizeEnum]
    fine_tune_epochs: NotRequired[int]


# fp32 against int8 on the test split (``test_images`` or ``test_instances``): sizes, accuracies, top-1
# agreement and the largest score difference (regression: value differences). ``int8`` is null, with
# ``int8_note`` saying why, when the model could not be quantized. Detectors (``task`` ``"detection"``): each
# model's mAP@.5, ``map50_drop`` (fp32 minus int8) and ``box_agreement``: the share of fp32's boxes (at
# ``score_threshold``) that int8 finds too (same class, IoU >= 0.5).
class CompressionReport(TypedDict):
    format: str
    test_images: NotRequired[int]
    test_instances: NotRequired[int]
    fp32: PackagedModelQuality
    int8: PackagedModelQuality | None
    int8_note: NotRequired[str | None]
    size_ratio: NotRequired[float]
    top1_agreement: NotRequired[float | None]
    max_abs_score_diff: NotRequired[float | None]
    max_abs_value_diff: NotRequired[float]
    mean_abs_value_diff: NotRequired[float]
    quantization: NotRequired[Quantization]
    task: NotRequired[CompressionReportTaskEnum]
    map50_drop: NotRequired[float | None]
    box_agreement: NotRequired[float | None]
    score_threshold: NotRequired[float]


CompressionReportTaskEnum: TypeAlias = Literal["classification", "detection"]


# A finished compression run: the parent's and each variant's size, parameters, FLOPs, latency (worker, and
# browsers that measured it) and metric on the parent's test split.
class CompressionRunReport(TypedDict):
    kind: CompressionRunReportKindEnum
    version: int
    template: str
    target: str
    parent: ReportedParent
    variants: list[ReportedVariant]
    skipped: list[SkippedRecipe]
    browser_latency: list[BrowserLatency]
    notes: NotRequired[list[str]]


CompressionRunReportKindEnum: TypeAlias = Literal["compression_report"]


# What a compression job makes. ``target``: the profile latency is measured with (default the builtin
# ``worker-cpu``); ``max_metric_drop``: the tolerance of ``quantize="auto"`` (default 0.005 top-1 accuracy,
# 0.02 mAP).
class CompressionSpec(TypedDict):
    kind: CompressionSpecKindEnum
    version: int
    recipes: list[CompressionRecipe]
    target: NotRequired[DeploymentTarget]
    max_metric_drop: NotRequired[float]
    seed: NotRequired[int]


CompressionSpecKindEnum: TypeAlias = Literal["compression_spec"]


# Rows: true classes, columns: predicted classes (the report's ``classes`` order).
class ConfusionMatrix(TypedDict):
    counts: list[list[int]]
    samples: list[list[list[int | str]]]


# k-fold cross-validation (or repeated random splits) over the train and val splits together.
class CrossValidation(TypedDict):
    kind: CrossValidationKindEnum
    version: int
    method: MethodEnum
    folds: int
    metric: str
    direction: DirectionEnum
    samples: int
    scores: list[FoldScore]
    mean: float
    std: float
    chosen: dict[str, float | str | bool]
    candidates: NotRequired[list[CandidateScore]]
    reason: str
    reason_code: NotRequired[str]
    reason_params: NotRequired[dict[str, int]]


CrossValidationKindEnum: TypeAlias = Literal["cross_validation"]


class Csrf(TypedDict):
    csrf_token: str


class CudaDevice(TypedDict):
    index: int
    name: str
    memory_bytes: int


# A sample's label as the server holds it now (what a 409 reports).
class CurrentLabel(TypedDict):
    id: int
    label: int | None
    label_name: str | None
    label_version: int


# What a custom-code study runs (``Study.custom_code``).
class CustomCode(TypedDict):
    code_archive: int
    code_name: str
    code_sha256: str
    code_kind: str
    entry_point: str
    args: list[str]
    requirements: str
    requirements_hash: str
    limits: CustomLimits
    network: bool


class CustomJobCreateRequest(TypedDict):
    # The project the job belongs to (the code's).
    project: int
    # The uploaded code to run.
    code_archive: int
    # A .py or .ipynb path in the code, or a module (pkg.train); defaults to the code's.
    entry_point: NotRequired[str]
    # Command-line arguments, passed as given before the hyperparameters.
    args: NotRequired[list[str]]
    # name -> value, passed as --name=value and readable as sampan.run.params.
    hyperparameters: NotRequired[dict[str, float | str | bool]]
    # pip requirement lines; defaults to the code's requirements.txt ('' for none).
    requirements: NotRequired[str | None]
    # A dataset version of the project, materialised for the code in $SAMPAN_DATA_DIR.
    dataset_version: NotRequired[int | None]
    queue: NotRequired[DeviceEnum]
    # Defaults from the platform's settings, up to its caps.
    limits: NotRequired[CustomJobLimitsRequest]
    # May the code open network connections (default: the platform's setting).
    network: NotRequired[bool | None]
    # Defaults to the code's name.
    name: NotRequired[str]


class CustomJobLimitsRequest(TypedDict):
    # Seconds before the run is stopped.
    wall_time_s: NotRequired[int]
    # Resident memory of the run's whole process tree, MiB.
    memory_mb: NotRequired[int]
    # CPU cores (and threads) the run may use.
    cpus: NotRequired[int]


# What made a model version trained by custom code (kept on the model version).
class CustomJobLineage(TypedDict):
    kind: CustomJobLineageKindEnum
    version: int
    code_archive: int
    code_sha256: str
    code_name: str
    entry_point: str
    args: list[str]
    hyperparameters: dict[str, float | str | bool]
    requirements: str
    requirements_hash: str
    dataset_version: int | None
    environment: RunEnvironment
    job: int


CustomJobLineageKindEnum: TypeAlias = Literal["custom_job_lineage"]


# A custom training job: the code archive, the spec the worker runs, the dataset version, its display name,
# and the AutoML trial it is (custom-code studies).
class CustomJobParams(TypedDict):
    kind: CustomJobParamsKindEnum
    version: int
    code_archive: int
    spec: CustomJobSpec
    dataset_version: int | None
    name: NotRequired[str]
    trial: NotRequired[int]


CustomJobParamsKindEnum: TypeAlias = Literal["training.custom"]


# What a run produced (worker -> platform). ``exit_code`` is the process's (None when it was killed);
# ``stopped`` says why it was stopped early, ``reason`` says it in words (the limit and what was used);
# ``metrics`` holds each metric's last value; ``history`` every ``metrics`` event's step and values in order.
class CustomJobResult(TypedDict):
    kind: CustomJobResultKindEnum
    version: int
    exit_code: int | None
    stopped: CustomJobResultStoppedEnum | NullEnum | None
    reason: str
    duration_s: float
    peak_memory_mb: float
    metrics: dict[str, float]
    history: list[dict[str, float]]
    artifacts: list[RunArtifact]
    model: CustomModelOutput | None
    environment: RunEnvironment
    requirements_hash: str
    isolation: dict[str, bool]
    model_version: NotRequired[int | None]
    model_version_name: NotRequired[str | None]


CustomJobResultKindEnum: TypeAlias = Literal["custom_job_result"]


CustomJobResultStoppedEnum: TypeAlias = Literal[
    "time_limit",
    "memory_limit",
    "cancelled",
    "pruned",
    "preempted",
]


# Everything the worker needs to run a user's code (platform -> worker).
class CustomJobSpec(TypedDict):
    kind: CustomJobSpecKindEnum
    version: int
    code_sha256: str
    code_kind: CustomJobSpecCodeKindEnum
    entry_point: str
    args: list[str]
    hyperparameters: dict[str, float | str | bool]
    requirements: str
    requirements_hash: str
    limits: ResourceLimits
    network: bool
    queue: DeviceEnum
    objective: NotRequired[dict[str, str]]


CustomJobSpecCodeKindEnum: TypeAlias = Literal["script", "zip", "notebook"]


CustomJobSpecKindEnum: TypeAlias = Literal["custom_job_spec"]


class CustomLimits(TypedDict):
    wall_time_s: NotRequired[int]
    memory_mb: NotRequired[int]
    cpus: NotRequired[int]


class CustomLimitsRequest(TypedDict):
    wall_time_s: NotRequired[int]
    memory_mb: NotRequired[int]
    cpus: NotRequired[int]


# A model the code wrote to ``$SAMPAN_OUTPUT_DIR``: ``model.onnx``, ``labels.json`` and ``preprocess.json``
# (the same files, and the same checks, as an uploaded model).
class CustomModelOutput(TypedDict):
    onnx: str
    labels: str
    preprocessing: str


# A custom-code study (``template="custom"``): each trial runs the code with sampled hyperparameters; the code
# reports ``objective.metric`` with ``run.log_metrics``.
class CustomStudyCreateRequest(TypedDict):
    # Defaults to the code archive's project.
    project: NotRequired[int]
    name: NotRequired[str]
    code_archive: int
    # Defaults to the archive's entry point.
    entry_point: NotRequired[str]
    args: NotRequired[list[str]]
    # pip requirement lines; defaults to the archive's requirements.txt.
    requirements: NotRequired[str | None]
    dataset_version: NotRequired[int | None]
    # A list of dimensions over the code's hyperparameters (required: no default).
    search_space: list[SearchDimensionRequest]
    # The metric the code reports with run.log_metrics and whether higher is better.
    objective: ObjectiveRequest
    limits: NotRequired[CustomLimitsRequest]
    network: NotRequired[bool]
    sampler: NotRequired[SamplerEnum]
    pruner: NotRequired[PrunerEnum]
    n_trials: int
    timeout_seconds: NotRequired[int | None]
    parallelism: NotRequired[int]
    seed: NotRequired[int]


DataKindEnum: TypeAlias = Literal["image", "text", "tabular", "time_series"]


# What a preset adapts to about the data: training samples (train + val splits), classes (0 for regression and
# forecasting) and, for tables, the feature columns.
class DataProfile(TypedDict):
    train_samples: int
    classes: int
    features: NotRequired[int]


# What a dataset version needs before training may start.
class DataRequirementsDescription(TypedDict):
    min_classes: int
    min_samples_per_class: int
    required_splits: list[str]


class Dataset(TypedDict):
    id: int
    # Defaults to the project's workspace.
    workspace: int
    project: int
    name: str
    description: str
    task_type: TaskTypeEnum
    sample_count: int
    labeled_count: int
    label_count: int
    # Text datasets: {text_column, label_column}; tabular: {columns: [{name, type}], target, task};
    # time-series forecasting: a TimeSeriesSchema (kind time_series: timestamp, series and target columns,
    # covariates, frequency, fill rule). Set by the first import; {} for image datasets.
    schema: DatasetSchema | TimeSeriesSchema
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str


DatasetExportJobCreateFormatEnum: TypeAlias = Literal["coco", "voc", "yolo"]


class DatasetExportJobCreateRequest(TypedDict):
    # Export this version (id) instead of the samples.
    version: NotRequired[int | None]
    # Object-detection datasets: coco (default), voc or yolo. Other datasets: leave it out.
    format: NotRequired[DatasetExportJobCreateFormatEnum | BlankEnum]


# ``datasets.export``: the dataset, the version exported (null: its current samples), the object-detection
# format ("" otherwise) and how many samples it was expected to hold.
class DatasetExportJobParams(TypedDict):
    kind: DatasetExportJobParamsKindEnum
    version: int
    dataset: int
    dataset_version: int | None
    format: str
    samples: int


DatasetExportJobParamsKindEnum: TypeAlias = Literal["datasets.export"]


# ``datasets.export``: where the zip is stored, its download name and size; download it from ``GET
# /api/v1/datasets/{dataset}/exports/{job id}/``.
class DatasetExportJobResult(TypedDict):
    kind: DatasetExportJobResultKindEnum
    version: int
    dataset: int
    blob_key: str
    filename: str
    size_bytes: int


DatasetExportJobResultKindEnum: TypeAlias = Literal["dataset_export_result"]


class DatasetImportParams(TypedDict):
    kind: DatasetImportParamsKindEnum
    version: int
    import_batch: int


DatasetImportParamsKindEnum: TypeAlias = Literal["datasets.import"]


# ``datasets.import``: the batch and its counts (a batch imported by an earlier attempt has only
# ``imported``).
class DatasetImportResult(TypedDict):
    kind: DatasetImportResultKindEnum
    version: int
    import_batch: int
    imported: int
    duplicates: NotRequired[int]
    failed: NotRequired[int]
    labels_created: NotRequired[int]


DatasetImportResultKindEnum: TypeAlias = Literal["dataset_import_result"]


class DatasetProfile(TypedDict):
    rows: NotRequired[int]
    columns: NotRequired[list[ColumnProfile]]
    target: NotRequired[TargetProfile]


# A quality report's run: its status, the job computing it, and once it succeeded the report.
class DatasetQualityReport(TypedDict):
    id: int
    dataset: int
    version: int | None
    # V1, V2, ... for a version's report; null for the live dataset's.
    version_name: str | None
    status: ImportStatusEnum
    job: int | None
    progress: ProgressEvent
    # The thresholds asked for.
    params: QualityParams
    # The findings, class balance and distributions; null until the job succeeded.
    report: QualityReport | None
    error: str
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str
    finished_at: str | None


class DatasetRequest(TypedDict):
    # Defaults to the project's workspace.
    workspace: NotRequired[int]
    project: int
    name: str
    description: NotRequired[str]
    task_type: NotRequired[TaskTypeEnum]
    # Forecasting datasets (PATCH): the frequency in force (schema.frequency); the profile is recomputed. 400
    # frequency_mismatch when observations are off its grid.
    frequency: NotRequired[FrequencyEnum]
    # Forecasting datasets (PATCH): how gaps are filled (schema.fill_rule); the profile is recomputed.
    fill_rule: NotRequired[FillRuleEnum]


# What a text or tabular dataset's first import fixes (the dataset's and each version's ``schema``): text
# datasets the text and label columns, tabular ones the feature columns, the target and the task. Empty for
# image datasets.
class DatasetSchema(TypedDict):
    text_column: NotRequired[str]
    label_column: NotRequired[str]
    columns: NotRequired[list[TableColumn]]
    target: NotRequired[str]
    task: NotRequired[TableTaskEnum]


# What a text or tabular dataset's first import fixes (the dataset's and each version's ``schema``): text
# datasets the text and label columns, tabular ones the feature columns, the target and the task. Empty for
# image datasets.
class DatasetSchemaRequest(TypedDict):
    text_column: NotRequired[str]
    label_column: NotRequired[str]
    columns: NotRequired[list[TableColumnRequest]]
    target: NotRequired[str]
    task: NotRequired[TableTaskEnum]


class DatasetStatistics(TypedDict):
    total: int
    # Object detection: annotated plus no_objects.
    labeled: int
    unlabeled: int
    # Object detection: images with boxes; else = labeled.
    annotated: int
    # Object detection: reviewed, nothing to annotate; else 0.
    no_objects: int
    # Object detection: count is the images having a box of the label.
    per_label: list[PerLabelCount]
    formats: list[FormatCount]
    size_buckets: list[SizeBucket]
    # The 50 most common width x height.
    common_sizes: list[SizeCount]
    width: Range
    height: Range
    # Object-detection datasets: boxes and box sizes; null for others.
    detection: DetectionStatistics | None


class DatasetVersion(TypedDict):
    id: int
    dataset: int
    number: int
    # V1, V2, ...
    name: str
    note: str
    seed: int
    train_ratio: float
    val_ratio: float
    test_ratio: float
    # Label names; label index i is classes[i].
    classes: list[str]
    # Per split, per class: {"train": {"cat": 40}, "val": {...}, "test": {...}}; object detection: boxes per
    # class.
    counts: dict[str, dict[str, int]]
    # Samples (images; forecasting: observations) per split.
    totals: dict[str, int]
    sample_count: int
    unlabeled_excluded: int
    # Made of the samples a reviewer accepted, and no others.
    reviewed_only: bool
    # Forecasting: steps forecast; each series' last horizon steps are its test window, the horizon before its
    # validation window.
    horizon: int | None
    # Forecasting versions: the split by time (horizon, observations and series per split); null for others.
    time_split: TimeSplit | None
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str


class DatasetVersionCreateRequest(TypedDict):
    train_ratio: NotRequired[float]
    val_ratio: NotRequired[float]
    test_ratio: NotRequired[float]
    # Same samples + same seed = same split. Random if omitted.
    seed: NotRequired[int]
    note: NotRequired[str]
    # Only the samples a reviewer accepted (review_status accepted); 400 if there are none.
    reviewed_only: NotRequired[bool]
    # Forecasting datasets (required): steps to forecast. Each series' last horizon steps are its test window,
    # the horizon before its validation window (the ratios are ignored).
    horizon: NotRequired[int | None]


# ``datasets.version``: the dataset and the version's split (the seed drawn when it was queued), and how many
# samples it was expected to hold.
class DatasetVersionJobParams(TypedDict):
    kind: DatasetVersionJobParamsKindEnum
    version: int
    dataset: int
    seed: int
    samples: int
    train_ratio: NotRequired[float]
    val_ratio: NotRequired[float]
    test_ratio: NotRequired[float]
    note: NotRequired[str]
    reviewed_only: NotRequired[bool]


DatasetVersionJobParamsKindEnum: TypeAlias = Literal["datasets.version"]


# ``datasets.version``: the version made, its number and how many samples it holds.
class DatasetVersionJobResult(TypedDict):
    kind: DatasetVersionJobResultKindEnum
    version: int
    dataset_version: int
    number: int
    sample_count: int


DatasetVersionJobResultKindEnum: TypeAlias = Literal["dataset_version_result"]


DecimalEnum: TypeAlias = Literal[".", ","]


class Deployment(TypedDict):
    id: int
    workspace: int
    project: int
    name: str
    model_version: int
    model_version_name: str
    template: str
    previous_model_version: int | None
    status: DeploymentStatusEnum
    # The split: the primary (100 - the canaries' weights), the canaries, the shadow (weight 0: it answers no
    # request, it gets a copy of each).
    traffic: list[TrafficEntry]
    # With canaries: every request of one API key goes to the same model version (chosen from the key, so it
    # holds in every web process).
    sticky_traffic: bool
    predict_url: str
    # Forecasters: what a request must send (frequency, fewest history points, largest horizon, quantiles,
    # covariates); null for other templates.
    forecast_contract: ForecastContract | None
    history: list[DeploymentEvent]
    created_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    updated_at: str


class DeploymentCreateRequest(TypedDict):
    # Defaults to the model version's project.
    project: NotRequired[int]
    model_version: int
    name: str


class DeploymentEvent(TypedDict):
    action: DeploymentEventActionEnum
    model_version: int | None
    model_version_name: str | None
    at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    by: str
    # What the entry changed: the traffic split and stickiness after it, or the capture policy.
    details: DeploymentEventDetails


DeploymentEventActionEnum: TypeAlias = Literal[
    "create",
    "switch",
    "rollback",
    "stop",
    "start",
    "traffic",
    "promote",
    "shadow",
    "capture",
]


# ``traffic``: the split after the change (traffic, promote, switch, rollback, shadow); ``sticky``: the
# stickiness after it; ``capture``: the capture policy after a capture change.
class DeploymentEventDetails(TypedDict):
    traffic: NotRequired[list[TrafficEntry]]
    sticky: NotRequired[bool]
    capture: NotRequired[CapturePolicySettings]


class DeploymentKey(TypedDict):
    id: int
    name: str
    # The key's first characters, to recognise it.
    prefix: str
    expires_at: str | None
    quota_per_minute: int | None
    status: str
    revoked_at: str | None
    last_used_at: str | None
    created_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str


class DeploymentKeyCreateRequest(TypedDict):
    name: str
    expires_at: NotRequired[str | None]
    # Calls per minute this key may make; 429 beyond.
    quota_per_minute: NotRequired[int | None]


class DeploymentKeyCreated(TypedDict):
    id: int
    name: str
    # The key's first characters, to recognise it.
    prefix: str
    expires_at: str | None
    quota_per_minute: int | None
    status: str
    revoked_at: str | None
    last_used_at: str | None
    created_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    # The key itself (spd_...): shown this once, never again.
    key: str


class DeploymentPromoteRequest(TypedDict):
    # A canary of the deployment: it becomes the primary.
    model_version: int


class DeploymentShadowRequest(TypedDict):
    # The version to shadow the served ones; null removes the shadow.
    model_version: int | None


DeploymentStatusEnum: TypeAlias = Literal["active", "stopped"]


class DeploymentSwitchRequest(TypedDict):
    # A model version of the deployment's project.
    model_version: int


# A deployment target's profile (named apart from a dataset's target-column profile in the API).
class DeploymentTarget(TypedDict):
    kind: DeploymentTargetKindEnum
    version: int
    name: str
    description: str
    runtime: RuntimeEnum
    execution_provider: str
    intra_op_threads: int
    inter_op_threads: int
    batch_size: int
    slowdown: float
    latency_budget_ms: float | None
    size_budget_bytes: int | None


DeploymentTargetKindEnum: TypeAlias = Literal["target_profile"]


class DeploymentTrafficRequest(TypedDict):
    # The canaries and their weights (sum at most 99); [] rolls the canaries back.
    canaries: list[CanaryRequest]
    # Every request of one API key goes to the same version (unchanged when left out).
    sticky: NotRequired[bool]


class DeploymentUsage(TypedDict):
    window: WindowEnum
    bucket_seconds: int
    totals: UsageFigures
    series: list[UsagePoint]
    # Per model version that answered.
    by_version: list[VersionUsage]


# A detected object in the original image's pixels.
class DetectedBox(TypedDict):
    label: str
    index: int
    score: float
    x: float
    y: float
    width: float
    height: float


# Class confusion at IoU 0.5 and the report's score threshold: ``labels`` are the classes then
# ``"background"``; ``matrix[true][predicted]``. A missed object counts in its class's row under background; a
# false positive with no overlapping object in background's row.
class DetectionConfusion(TypedDict):
    labels: list[str]
    matrix: list[list[int]]


class DetectionHeadline(TypedDict):
    map: float
    map50: float
    map75: float


# A request to a detector: images as for image models, plus ``score_threshold`` (0-1, default 0.3: boxes
# scoring less are left out) and ``max_detections`` (1-1000, default 100, per image). Both may also be sent as
# query parameters (``?score_threshold=0.5``) or multipart fields; a value in the body wins. ``top_k`` is
# accepted and ignored.
class DetectionInstancesRequest(TypedDict):
    instances: list[ImageInstanceRequest]
    score_threshold: NotRequired[float]
    max_detections: NotRequired[int]
    top_k: NotRequired[int]


# One image's answer from a detector: boxes by descending score, at most ``max_detections`` (default 100,
# 1–1000), each scoring at least ``score_threshold`` (default 0.3, 0–1).
class DetectionPrediction(TypedDict):
    boxes: list[DetectedBox]
    width: int
    height: int


# A detector's report on one split: COCO-style mAP@[.5:.95] (``map``), mAP@.5, mAP@.75, per-class AP with PR
# curves, the confusion with background, bad cases.
class DetectionReport(TypedDict):
    kind: DetectionReportKindEnum
    version: int
    split: str
    samples: int
    classes: list[str]
    map: float
    map50: float
    map75: float
    headline: DetectionHeadline
    per_class: list[ClassAP]
    confusion_matrix: DetectionConfusion
    score_threshold: float
    bad_cases: list[BadCase]
    model: ModelFile


DetectionReportKindEnum: TypeAlias = Literal["detection_report"]


class DetectionStatistics(TypedDict):
    # All boxes of the dataset.
    boxes: int
    # Every label, in label order.
    boxes_per_class: list[LabelBoxCount]
    # Annotated images by box count: bins are counts 1, 2, 3, ... (integer edges).
    boxes_per_image: BoxHistogram
    # Boxes by area / image area, 10 log-spaced bins from 1e-4 to 1.
    relative_area: BoxHistogram
    # Unlabeled plus no_objects images.
    images_without_boxes: int
    unlabeled: int
    no_objects: int
    annotated: int


DeviceEnum: TypeAlias = Literal["cpu", "gpu"]


# The device SDK: the archive, its fp32 and int8 models, the compression report, test vectors, files.
class DeviceSdkReport(TypedDict):
    kind: DeviceSdkReportKindEnum
    version: int
    path: str
    size_bytes: int
    sha256: str
    manifest: PackageManifestSummary
    models: dict[str, OnnxDescription]
    compression: CompressionReport
    test_vectors: int
    files: list[PackageFile]


DeviceSdkReportKindEnum: TypeAlias = Literal["device"]


DirectionEnum: TypeAlias = Literal["maximize", "minimize"]


# Knowledge distillation: train ``student`` (an architecture of the template, or ``"<parent arch>@<width>"``
# for the parent's architecture at a width multiplier) on the teacher's soft targets at ``temperature`` mixed
# with the labels: loss = alpha * KL * T^2 + (1 - alpha) * CE.
class DistillSpec(TypedDict):
    student: str
    temperature: NotRequired[float]
    alpha: NotRequired[float]


# A histogram for the report's charts: ``name`` e.g. ``brightness``, ``sharpness``, ``text_length``,
# ``aspect_ratio``; ``edges`` has one more entry than ``counts``.
class Distribution(TypedDict):
    name: str
    edges: list[float]
    counts: list[int]


DtypeEnum: TypeAlias = Literal["float32"]


class ExportedOnnx(TypedDict):
    bytes: int
    sha256: str
    opset: int


# Permutation importance of one table column: the mean drop of the score (accuracy, or minus the RMSE) when
# its values are shuffled across rows, and the drops' standard deviation.
class FeatureImportance(TypedDict):
    feature: str
    importance: float
    std: float


FillRuleEnum: TypeAlias = Literal["interpolate", "forward_fill", "zero"]


class Finding(TypedDict):
    code: FindingCodeEnum
    severity: SeverityEnum
    count: int
    sample_ids: list[int]
    items: list[FindingItem]
    groups: list[list[int]]
    column: str
    details: dict[str, float | str | bool | None]


FindingCodeEnum: TypeAlias = Literal[
    "exact_duplicates",
    "near_duplicates",
    "split_leakage",
    "likely_mislabeled",
    "tiny_class",
    "class_imbalance",
    "unlabeled_samples",
    "corrupt_image",
    "tiny_image",
    "blurry_image",
    "dark_image",
    "overexposed_image",
    "extreme_aspect_ratio",
    "tiny_boxes",
    "empty_text",
    "long_text",
    "other_language",
    "constant_column",
    "near_constant_column",
    "target_leak_column",
    "high_missing_column",
]


# One sample's detail: ``suggested_label`` (class index) and ``confidence`` for a likely mislabel (``label``
# is its current label); ``value`` for a measured property (sharpness, brightness, length, aspect ratio,
# similarity); ``language`` for a text in another language than most (a code such as ``en``, ``zh``, ``ja``,
# or a script such as ``cyrillic``).
class FindingItem(TypedDict):
    sample: int
    label: NotRequired[int | None]
    suggested_label: NotRequired[int | None]
    confidence: NotRequired[float]
    value: NotRequired[float]
    language: NotRequired[str]


class FitCandidate(TypedDict):
    image_size: int
    width: float
    precision: PrecisionEnum
    latency_ms: float
    size_bytes: int
    fits: bool


# One fold: trained on ``train_samples``, scored on the ``samples`` it held out.
class FoldScore(TypedDict):
    fold: int
    train_samples: int
    samples: int
    score: float


# What a deployed forecaster takes (the deployment's and model version's ``forecast_contract``, and
# ``details`` of a 400): the frequency, the fewest history points, the largest horizon, the quantiles it
# answers, and the covariates a request must carry.
class ForecastContract(TypedDict):
    frequency: str
    min_history: int
    horizon: int
    quantiles: list[float]
    interval_level: float
    known_covariates: list[str]
    static_covariates: list[str]
    series_ids: list[str]


# One series' recent history: ``timestamps`` (ISO 8601, regular at the model's frequency, oldest first, at
# least the model's ``min_history``) and ``values`` (numbers, no gaps or NaN). ``known``: each known
# covariate's values over the history and the ``horizon`` future steps (``len(timestamps) + horizon``
# numbers); ``static``: the series' static covariates; ``id``: the series' name in the answer (a training
# series' id also finds its static covariates).
class ForecastInstanceRequest(TypedDict):
    id: NotRequired[str]
    timestamps: list[str]
    values: list[float]
    known: NotRequired[dict[str, list[float]]]
    static: NotRequired[dict[str, float | str]]


# A request to a forecaster: up to SAMPAN_DEPLOY_MAX_BATCH series; ``horizon`` from 1 to the model's (default
# the model's); ``quantiles`` among the model's (default its interval's two).
class ForecastInstancesRequest(TypedDict):
    instances: list[ForecastInstanceRequest]
    horizon: NotRequired[int]
    quantiles: NotRequired[list[float]]


# A metric of report a and report b; ``delta`` is b minus a (None when either is missing).
class ForecastMetricPair(TypedDict):
    a: float | None
    b: float | None
    delta: float | None


# Point and interval scores over some forecasts. ``mase``: mean absolute error over the in-sample mean
# absolute seasonal-naive error of each series' training part; ``smape`` in percent (0-200); ``coverage``: the
# share of actual values inside the ``interval_level`` interval; ``width``: the interval's mean width over the
# series' mean absolute value (None without intervals).
class ForecastMetrics(TypedDict):
    mase: float
    smape: float
    rmse: float
    coverage: float | None
    width: float | None


# A series' forecast against the actual values: ``timestamps`` span the last history points and the horizon;
# ``actual`` (None where missing) covers all of them, ``mean``/``lower``/``upper`` and ``seasonal_naive`` the
# horizon only (they start at ``forecast_start``).
class ForecastPlot(TypedDict):
    series: str
    timestamps: list[str]
    actual: list[float | None]
    forecast_start: int
    mean: list[float]
    lower: list[float]
    upper: list[float]
    seasonal_naive: list[float]


# One series' forecast: the future ``timestamps``, the point forecast ``mean`` and each requested quantile's
# values, keyed by the level as written (``"0.1"``).
class ForecastPrediction(TypedDict):
    id: str
    timestamps: list[str]
    mean: list[float]
    quantiles: dict[str, list[float]]


# A forecaster's report on the test window (the last ``horizon`` steps of each series). ``headline`` is over
# every series, next to ``seasonal_naive``'s; ``skill`` is ``1 - headline.mase / seasonal_naive.mase``.
# ``per_series`` is worst first (highest MASE), up to 1000; ``plots`` hold up to 100 series (the worst, the
# best and the longest first).
class ForecastReport(TypedDict):
    kind: ForecastReportKindEnum
    version: int
    split: str
    horizon: int
    frequency: str
    season_length: int
    interval_level: float
    model_name: str
    series_count: int
    observations: int
    headline: ForecastMetrics
    seasonal_naive: ForecastMetrics
    skill: float | None
    baselines: list[BaselineScores]
    per_series: list[SeriesScores]
    by_horizon: list[HorizonScores]
    backtest: list[BacktestWindow]
    plots: list[ForecastPlot]
    model: ModelFile


ForecastReportKindEnum: TypeAlias = Literal["forecast_report"]


class FormatCount(TypedDict):
    format: str
    count: int


FrequencyEnum: TypeAlias = Literal[
    "min",
    "5min",
    "15min",
    "30min",
    "h",
    "D",
    "W",
    "MS",
    "ME",
    "QS",
    "QE",
    "YS",
    "YE",
]


# The workers online for the queue a training run would go to: ``gpus`` GPUs in all, the smallest
# ``cpu_count`` among them, ``workers`` hosts (0: none online; the defaults assume a CPU).
class HardwareProfile(TypedDict):
    gpus: int
    cpu_count: int
    workers: int


# A model version's headline metrics on the test split (its evaluation report's headline): classifiers have
# the accuracies and f1s, regression models MAE, RMSE and R2, detectors COCO-style mAP@[.5:.95] (``map``),
# mAP@.5 and mAP@.75.
class HeadlineMetrics(TypedDict):
    accuracy: NotRequired[float]
    macro_f1: NotRequired[float]
    weighted_f1: NotRequired[float]
    top_k_accuracy: NotRequired[dict[str, float]]
    mae: NotRequired[float]
    rmse: NotRequired[float]
    r2: NotRequired[float]
    map: NotRequired[float]
    map50: NotRequired[float]
    map75: NotRequired[float]


# ``counts[i]`` values fell in ``[edges[i], edges[i + 1])`` (the last bin includes its end).
class Histogram(TypedDict):
    edges: list[float]
    counts: list[int]


class HistoryPoint(TypedDict):
    trial: int
    value: float
    best: float


class HorizonComparison(TypedDict):
    step: int
    mase: ForecastMetricPair


# The error at one horizon step (1-based) over every series.
class HorizonScores(TypedDict):
    step: int
    mase: float
    smape: float
    rmse: float
    seasonal_naive_mase: float


# An image file, base64-encoded (a ``data:`` URL works too).
class ImageInstanceRequest(TypedDict):
    image: str


# A request to an image model (JSON; multipart uploads and raw image bodies work too): up to
# SAMPAN_DEPLOY_MAX_BATCH (32) instances, ``top_k`` from 1 to 1000 (default 5).
class ImageInstancesRequest(TypedDict):
    instances: list[ImageInstanceRequest]
    top_k: NotRequired[int]


# Decode, apply the EXIF orientation, composite alpha over ``alpha_background``, convert to RGB, resize
# (``stretch``, or ``center_crop`` after scaling the shorter side to ``side / crop_fraction``) to
# ``image_size`` ``[height, width]``, then ``(pixel * scale - mean) / std`` per channel, NCHW float32.
class ImagePreprocessing(TypedDict):
    kind: ImagePreprocessingKindEnum
    version: int
    format: ImagePreprocessingFormatEnum
    image_size: list[int]
    resize_mode: ResizeModeEnum
    crop_fraction: float
    resample: ResampleEnum
    color: ColorEnum
    alpha_background: list[int]
    scale: float
    mean: list[float]
    std: list[float]
    layout: LayoutEnum
    dtype: DtypeEnum


ImagePreprocessingFormatEnum: TypeAlias = Literal["sampan.preprocess/1"]


ImagePreprocessingKindEnum: TypeAlias = Literal["image"]


class ImportBatch(TypedDict):
    id: int
    dataset: int
    source: ImportSourceEnum
    # The archive's name, for archive imports.
    filename: str
    size_bytes: int
    # Label given to every imported file, if any.
    label_name: str
    # Table imports: the column mapping ({text_column, label_column} or {target_column}) and the reading
    # options used; {} for image imports.
    mapping: ImportMapping
    status: ImportStatusEnum
    job: int | None
    progress: ProgressEvent
    # Files considered (directories and OS junk excluded).
    files: int
    imported: int
    duplicates: int
    failed: int
    # Directories, dot files, __MACOSX, our own manifest.csv.
    ignored: int
    labels_created: list[str]
    # Each refused or duplicate file (or row), at most the first 1000; problems_total counts them all.
    # Object-detection archives: then the annotation problems (with line, annotation, action).
    problems: list[ImportProblem]
    # Every problem of the import (failed plus duplicates); ``problems`` lists the first 1000.
    problems_total: int
    error_code: str
    error: str
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str
    finished_at: str | None


# An import in lists: the counts without the per-file problems (see the import's detail).
class ImportBatchSummary(TypedDict):
    id: int
    dataset: int
    source: ImportSourceEnum
    # The archive's name, for archive imports.
    filename: str
    size_bytes: int
    # Label given to every imported file, if any.
    label_name: str
    # Table imports: the column mapping ({text_column, label_column} or {target_column}) and the reading
    # options used; {} for image imports.
    mapping: ImportMapping
    status: ImportStatusEnum
    job: int | None
    progress: ProgressEvent
    # Files considered (directories and OS junk excluded).
    files: int
    imported: int
    duplicates: int
    failed: int
    # Directories, dot files, __MACOSX, our own manifest.csv.
    ignored: int
    labels_created: list[str]
    # Every problem of the import (failed plus duplicates); ``problems`` lists the first 1000.
    problems_total: int
    error_code: str
    error: str
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str
    finished_at: str | None


class ImportCreateRequest(TypedDict):
    # A zip, tar, tar.gz, tar.bz2 or tar.xz: a folder per class gives labels, files at the root are unlabeled.
    archive: NotRequired[bytes]
    # Image files (JPEG, PNG, BMP, WebP, GIF), recognised by content.
    files: NotRequired[list[bytes]]
    # Label for every uploaded file, or for an archive's root files.
    label: NotRequired[str]
    # Text and tabular datasets: a table file (CSV, TSV, JSONL, XLSX or Parquet) with a header row.
    file: NotRequired[bytes]
    # Text datasets: the column holding the texts (guessed if omitted).
    text_column: NotRequired[str]
    # Text datasets: the column holding labels, if any (guessed).
    label_column: NotRequired[str]
    # Tabular datasets: the column to predict (required at first).
    target_column: NotRequired[str]
    # Forecasting datasets: the column of timestamps (ISO dates/times or 4-digit years; guessed).
    timestamp_column: NotRequired[str]
    # Forecasting datasets, long tables: the column of series ids; omitted: a wide table.
    series_column: NotRequired[str]
    # Forecasting datasets: the numeric column(s) to forecast (repeat the form field per column); guessed when
    # there is one numeric column.
    target_columns: NotRequired[list[str]]
    # Forecasting datasets: numeric columns known in advance (prices, holidays).
    known_covariates: NotRequired[list[str]]
    # Forecasting datasets, long tables: columns constant per series id (a store's region).
    static_covariates: NotRequired[list[str]]
    # Forecasting datasets: the frequency; omitted: inferred from the timestamps.
    frequency: NotRequired[FrequencyEnum | BlankEnum]
    # Forecasting datasets: how gaps are filled (default interpolate).
    fill_rule: NotRequired[FillRuleEnum | BlankEnum]
    # Text files: the encoding (e.g. gb18030, cp1252, utf-16). Omitted: detected (UTF-8/UTF-16 by BOM, UTF-8,
    # GB18030 for Chinese, cp1252 for Western text); an uncertain guess is a 400 bad_encoding whose
    # details.candidates name the encodings to choose from.
    encoding: NotRequired[str]
    # CSV/TSV: the one-character delimiter (',', ';', '\t' or 'tab', '|', ...). Omitted: detected from the
    # first lines. Ignored for other formats.
    delimiter: NotRequired[str]
    # The decimal mark of numbers written as text: '.' or ','. Omitted: detected ('1,5' and '1.234,5' mean
    # ','). With ',' those cells import as numbers.
    decimal: NotRequired[DecimalEnum | BlankEnum]
    # XLSX: the sheet's name, or its 0-based index when no sheet has that name. Omitted: the first sheet with
    # a header row and a data row.
    sheet: NotRequired[str]
    # Import an archive in a background job (answers 202; big archives always do).
    background: NotRequired[bool]
    # Object-detection archives: the annotation format (coco, voc, yolo, label_studio, or images for plain
    # unlabeled images); auto detects it and refuses an archive mixing two.
    format: NotRequired[AnnotationFormatEnum]


# A table import's column mapping and how the file was read (given, or detected once read).
class ImportMapping(TypedDict):
    annotation_format: NotRequired[AnnotationFormatEnum]
    text_column: NotRequired[str]
    label_column: NotRequired[str]
    target_column: NotRequired[str]
    encoding: NotRequired[str]
    format: NotRequired[TableFormatEnum]
    delimiter: NotRequired[str]
    decimal: NotRequired[DecimalEnum]
    sheet: NotRequired[str]
    timestamp_column: NotRequired[str]
    series_column: NotRequired[str]
    target_columns: NotRequired[list[str]]
    known_covariates: NotRequired[list[str]]
    static_covariates: NotRequired[list[str]]
    frequency: NotRequired[str]
    fill_rule: NotRequired[FillRuleEnum]


class ImportProblem(TypedDict):
    file: str
    # duplicate, not_an_image, corrupt_image, truncated_image, too_many_pixels, file_too_large, encrypted,
    # corrupt_entry, bad_label; object-detection archives also: box_clipped, box_outside_image, box_empty,
    # unknown_category, image_missing, image_listed_twice, malformed_file, ...
    code: str
    message: str
    # Object-detection archives: the line of the annotation file, where known.
    line: NotRequired[int]
    # Object-detection archives: the annotation's id or index in its file, where known.
    annotation: NotRequired[int | str]
    # Object-detection archives' annotation problems: skipped (left out), clipped (a box cut to the image) or
    # refused (the whole archive); forecasting imports' warnings (code gap or unsorted, the rows were
    # imported): warning. Absent for files not imported.
    action: NotRequired[ImportProblemActionEnum]


ImportProblemActionEnum: TypeAlias = Literal["skipped", "clipped", "refused", "warning"]


ImportSourceEnum: TypeAlias = Literal["archive", "files", "table"]


ImportStatusEnum: TypeAlias = Literal["queued", "running", "succeeded", "failed"]


class IntermediateValue(TypedDict):
    epoch: int
    value: float


class Invitation(TypedDict):
    id: int
    workspace: WorkspaceBrief
    # The invitee.
    user: UserBrief
    role: RoleEnum
    status: InvitationStatusEnum
    invited_by: UserBrief | None
    created_at: str
    responded_at: str | None


class InvitationAccepted(TypedDict):
    invitation: Invitation
    membership: Membership


class InvitationCreateRequest(TypedDict):
    # An existing user's username.
    username: str
    # Their role once they accept.
    role: RoleEnum


InvitationStatusEnum: TypeAlias = Literal["pending", "accepted", "declined", "revoked"]


class ItemAssignment(TypedDict):
    id: int
    annotator: int
    username: str
    status: AssignmentStatusEnum
    # Null: not answered.
    answer: TaskAnswer | None
    rejections: int
    # The reviewer's last rejection comment.
    comment: str
    submitted_at: str | None


class Job(TypedDict):
    id: int
    workspace: int
    project: int | None
    kind: str
    # The job's parameters, by its kind.
    params: (
        SystemCheckParams
        | DatasetImportParams
        | TrainingRunParams
        | BackboneCheckParams
        | ModelImportParams
        | ModelEvaluationParams
        | TrialParams
        | ReportRunParams
        | BuildPackageParams
        | QualityReportJobParams
        | DatasetVersionJobParams
        | DatasetExportJobParams
        | SmartRoundJobParams
        | BatchPredictJobParams
        | CustomJobParams
        | NotebookServeParams
        | CompressionJobParams
    )
    status: JobStatusEnum
    queue: str
    # Starts so far; the running attempt's number.
    attempt: int
    max_attempts: int
    # Worker process holding the job (host/pid).
    lease_owner: str
    heartbeat_at: str | None
    cancel_requested: bool
    # Its worker is shutting down: checkpoint, hand the job back, requeue at once.
    preempt_requested: bool
    # The latest progress report.
    progress: ProgressEvent
    # A finished job's result, by its kind; null until then.
    result: (
        SystemCheckResult
        | DatasetImportResult
        | TrainingJobResult
        | BackboneCheckResult
        | ModelImportResult
        | TrialResult
        | ReportRunResult
        | BuildPackageResult
        | QualityReportJobResult
        | DatasetVersionJobResult
        | DatasetExportJobResult
        | SmartRoundJobResult
        | BatchPredictJobResult
        | CustomJobResult
        | NotebookServeResult
        | CompressionJobResult
        | None
    )
    error: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str
    enqueued_at: str | None
    started_at: str | None
    finished_at: str | None
    # POST /jobs/{id}/retry/ would queue it again (failed or cancelled, of a kind that resumes).
    retryable: bool
    # Why a queued job waits (its place in the queue, the workers online for it and what they run); null
    # unless the job is queued.
    queue_state: QueueState | None
    # Your role in the job's workspace (a viewer cannot cancel or retry it).
    my_role: RoleEnum | NullEnum | None


class JobCreateRequest(TypedDict):
    # Defaults to the project's workspace.
    workspace: NotRequired[int]
    project: NotRequired[int | None]
    kind: str
    params: NotRequired[dict[str, Any]]


class JobEvent(TypedDict):
    seq: int
    at: str
    type: JobEventTypeEnum
    message: str
    # By the event's type: a progress event, the status entered (job_status) or a log line's worker (job_log).
    data: ProgressEvent | JobStatusData | JobLogData


JobEventTypeEnum: TypeAlias = Literal["status", "progress", "log"]


class JobKind(TypedDict):
    name: str
    title: str
    description: str
    prefers_gpu: bool
    # A failed or cancelled job of this kind can be retried.
    retryable: bool


# A log event's data: the worker process concerned, and the one it took over from.
class JobLogData(TypedDict):
    kind: JobLogDataKindEnum
    version: int
    worker: NotRequired[str]
    previous: NotRequired[str]


JobLogDataKindEnum: TypeAlias = Literal["job_log"]


# A page of a job's output (``GET /api/v1/jobs/{id}/logs/``).
class JobLogPage(TypedDict):
    # Lines with seq > after, in order.
    lines: list[LogLine]
    # Ask again with after=next_after for what follows.
    next_after: int
    # The job is in a final state and this page ends with its last line: nothing more comes.
    finished: bool


# A status event's data: the status the job entered, on which attempt, and (when it started running) on which
# worker process.
class JobStatusData(TypedDict):
    kind: JobStatusDataKindEnum
    version: int
    status: JobStatusDataStatusEnum
    attempt: NotRequired[int]
    worker: NotRequired[str]


JobStatusDataKindEnum: TypeAlias = Literal["job_status"]


JobStatusDataStatusEnum: TypeAlias = Literal["queued", "running", "succeeded", "failed", "cancelled"]


JobStatusEnum: TypeAlias = Literal["queued", "running", "succeeded", "failed", "cancelled"]


KindEnum: TypeAlias = Literal["server", "device"]


class Label(TypedDict):
    id: int
    name: str
    # #rrggbb; picked if empty.
    color: str
    # The label's place in the dataset's order, from 0; change it by reorder.
    position: int
    # The key the user chose for this label in the labeling grid: one printable character (letters are
    # lower-cased), not '/', unique in the dataset. Blank: the default key of its place.
    shortcut: str
    # The key that labels a sample with this label: its shortcut, else the default of its place in the order
    # (1-9, 0, then letters not chosen by another label); null past the last key.
    key: str | None
    # Samples with this label: what a rename, merge or delete changes.
    sample_count: int
    created_at: str


class LabelBoxCount(TypedDict):
    # The label's name.
    label: str
    count: int


class LabelChange(TypedDict):
    # The label deleted, or merged away.
    label: int
    # For a merge: the label that got the samples.
    into: NotRequired[int]
    # Samples whose label changes (or would, on a dry run).
    affected_samples: int
    dry_run: bool


LabelConflictCodeEnum: TypeAlias = Literal["label_conflict"]


class LabelDeleted(TypedDict):
    error: LabelDeletedBody


class LabelDeletedBody(TypedDict):
    code: LabelDeletedCodeEnum
    # The sentence to show a person.
    message: str
    details: LabelDeletedDetails


LabelDeletedCodeEnum: TypeAlias = Literal["label_deleted"]


class LabelDeletedDetails(TypedDict):
    # The message again, as a field error.
    label: list[str]


class LabelMergeRequest(TypedDict):
    # The label that receives this label's samples.
    into: int
    # Only say how many samples would change.
    dry_run: NotRequired[bool]


class LabelReorderRequest(TypedDict):
    # Every label id of the dataset, once each, in the new order.
    label_ids: list[int]


class LabelRequest(TypedDict):
    name: str
    # #rrggbb; picked if empty.
    color: NotRequired[str]
    # The key the user chose for this label in the labeling grid: one printable character (letters are
    # lower-cased), not '/', unique in the dataset. Blank: the default key of its place.
    shortcut: NotRequired[str]


class LabeledSample(TypedDict):
    id: int
    label: int | None
    # The sample's new label_version.
    label_version: int


# One sample to label, with everything the annotator needs: the sample, the dataset's labels, their answer so
# far and the reviewer's comment if it was sent back.
class LabelingAssignment(TypedDict):
    id: int
    task: AssignmentTask
    task_name: str
    task_type: str
    item: int
    # 1-based among your assignments of the task.
    position: int
    # Your assignments in the task.
    total: int
    status: AssignmentStatusEnum
    # Null: not answered.
    answer: TaskAnswer | None
    # The reviewer's last rejection comment.
    comment: str
    rejections: int
    sample: TaskSample
    # The dataset's labels, in its order.
    labels: list[TaskLabel]
    # When the annotator first opened it.
    opened_at: str | None
    submitted_at: str | None


# An item to review: the sample and every annotator's answer.
class LabelingItem(TypedDict):
    id: int
    # Order in the task (the ranking's order).
    position: int
    review: ReviewEnum
    review_comment: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    reviewer: str | None
    reviewed_at: str | None
    sample: TaskSample
    assignments: list[ItemAssignment]


# A labeling task with its progress; ``my_progress`` is the caller's own, when they annotate it.
class LabelingTask(TypedDict):
    id: int
    dataset: int
    dataset_name: str
    task_type: str
    name: str
    instructions: str
    overlap: int
    status: LabelingTaskStatusEnum
    # How the samples were chosen.
    selection: Selection
    annotators: list[UserBrief]
    # The dataset's labels, in its order.
    labels: list[TaskLabel]
    progress: TaskProgress
    # The caller's own counts; null if not in it.
    my_progress: AnnotatorProgress | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str


class LabelingTaskCreateRequest(TypedDict):
    dataset: int
    name: str
    instructions: NotRequired[str]
    # How many annotators label each sample.
    overlap: NotRequired[int]
    # User ids: annotators, editors or owners of the dataset's workspace.
    annotators: list[int]
    selection: SelectionRequest


LabelingTaskStatusEnum: TypeAlias = Literal["open", "closed"]


LanguageEnum: TypeAlias = Literal["en", "zh-CN"]


class LargestError(TypedDict):
    sample: int | str
    values: dict[str, float | str | None]
    actual: float
    predicted: float


class Latency(TypedDict):
    p50: float | None
    p95: float | None
    p99: float | None


# One model's latency per call, measured on the worker with a profile's settings.
class LatencyMeasurement(TypedDict):
    kind: LatencyMeasurementKindEnum
    version: int
    median_ms: float
    p90_ms: float
    runs: int
    target_ms: float
    profile: str
    threads: int
    provider: str
    machine: str


LatencyMeasurementKindEnum: TypeAlias = Literal["latency_measurement"]


LayoutEnum: TypeAlias = Literal["NCHW"]


class Lift(TypedDict):
    status: LiftStatusEnum
    metric: str
    seeds: list[int]
    # The study's preset with its fixed parameters.
    baseline: Spread
    # The best trial's parameters.
    best: Spread
    # best mean minus baseline mean (test MASE: lower is better, a negative lift is a gain)
    lift: float | None
    # Report runs that failed.
    errors: list[LiftError]


class LiftError(TypedDict):
    # Which side of the report the run was.
    role: LiftErrorRoleEnum
    seed: int
    error: str


LiftErrorRoleEnum: TypeAlias = Literal["baseline", "best"]


LiftStatusEnum: TypeAlias = Literal["disabled", "not_started", "running", "finished"]


# One line of a job's output, as stored and served (``GET /api/v1/jobs/{id}/logs/``).
class LogLine(TypedDict):
    seq: int
    stream: StreamEnum
    text: str
    at: str


class LoginRequest(TypedDict):
    username: str
    password: str


# The signed-in user, with their own preferences.
class Me(TypedDict):
    id: int
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    username: str
    email: str
    # Designates whether the user can log into this admin site.
    is_staff: bool
    language: NotRequired[LanguageEnum | BlankEnum]


class Membership(TypedDict):
    id: int
    user: UserBrief
    role: RoleEnum
    created_at: str


class MembershipCreateRequest(TypedDict):
    username: str
    role: RoleEnum


class MembershipRequest(TypedDict):
    role: RoleEnum


class MergeTargetDeleted(TypedDict):
    error: MergeTargetDeletedBody


class MergeTargetDeletedBody(TypedDict):
    code: LabelDeletedCodeEnum
    # The sentence to show a person.
    message: str
    details: MergeTargetDeletedDetails


class MergeTargetDeletedDetails(TypedDict):
    # The message again, as a field error.
    into: list[str]


MethodEnum: TypeAlias = Literal["kfold", "repeated_split"]


# A percentile-bootstrap confidence interval of one test-split metric (e.g. ``accuracy``, ``macro_f1``,
# ``rmse``, ``r2``): ``value`` on the whole split, ``low``..``high`` at ``confidence`` over ``resamples``
# resamples of the split's samples.
class MetricInterval(TypedDict):
    metric: str
    value: float
    low: float
    high: float
    confidence: float
    resamples: int


# A metric of report a and report b; ``delta`` is b minus a (None when either is missing).
class MetricPair(TypedDict):
    a: float | None
    b: float | None
    delta: float | None


# A misclassified sample, most confident first. Images name their file (``path``), texts carry the text (first
# 1000 characters), table rows their cell values by column name.
class Mistake(TypedDict):
    sample: int | str
    index: int
    true: int
    true_class: str
    predicted: int
    predicted_class: str
    confidence: float
    path: NotRequired[str]
    text: NotRequired[str]
    values: NotRequired[dict[str, float | str | None]]


ModelEnum: TypeAlias = Literal[
    "naive",
    "seasonal_naive",
    "ets",
    "arima",
    "theta",
    "lightgbm",
    "neural",
    "ensemble",
]


class ModelEvaluationParams(TypedDict):
    kind: ModelEvaluationParamsKindEnum
    version: int
    model_version: int


ModelEvaluationParamsKindEnum: TypeAlias = Literal["training.evaluate_model"]


# The ONNX file the report was computed with.
class ModelFile(TypedDict):
    path: str
    sha256: str


class ModelImportParams(TypedDict):
    kind: ModelImportParamsKindEnum
    version: int
    blob_key: str
    sha256: str
    filename: str
    architecture: str
    classes: list[str]
    preprocessing: NotRequired[ImagePreprocessing]
    dataset_version: NotRequired[int | None]
    bytes: NotRequired[int | None]


ModelImportParamsKindEnum: TypeAlias = Literal["training.import_model"]


# ``training.import_model``: the model version recorded and its ONNX file.
class ModelImportResult(TypedDict):
    kind: ModelImportResultKindEnum
    version: int
    model_version: int
    name: str
    onnx: ExportedOnnx


ModelImportResultKindEnum: TypeAlias = Literal["model_import_result"]


class ModelVersion(TypedDict):
    id: int
    name: str
    number: int
    # trained: by a training job here; uploaded: an ONNX file or a state_dict a developer brought (its file,
    # format and sha256 in params); custom: by a custom training job (its code, requirements, arguments and
    # environment in lineage); compressed: by a compression job from the version in compressed_from (recipe
    # and teacher in lineage).
    source: ModelVersionSourceEnum
    workspace: int
    project: int
    dataset: int | None
    dataset_version: int | None
    job: int | None
    template: str
    preset: str
    # Trained: every parameter the trainer used, after preset and overrides. Uploaded: the file's description
    # (format, filename, sha256, bytes; batch_size or architecture, null when unknown).
    params: dict[str, float | str | bool | None]
    # The backbone the run started from; null: from scratch.
    backbone: ModelVersionBackbone | None
    # The model version whose weights the run started from; null: not warm-started (or that version was
    # deleted).
    warm_start_from: int | None
    # That version's name (V3), or null.
    warm_start_from_name: str | None
    # The model version this one was compressed from (source compressed); null otherwise.
    compressed_from: int | None
    # Sampan version (and git commit when known).
    code_version: str
    # Class names in the model's output order.
    classes: list[str]
    preprocessing: ImagePreprocessing | TextPreprocessing | TablePreprocessing | None
    onnx_sha256: str
    metrics: ModelVersionMetrics
    # Made by custom code (source custom): the code (sha256), entry point, arguments, hyperparameters,
    # requirements, dataset version and environment of the run; compressed (source compressed): the parent,
    # teacher, recipe and compression run; null otherwise.
    lineage: CustomJobLineage | CompressionLineage | None
    # Forecasters: what a prediction request must send (frequency, fewest history points, largest horizon,
    # quantiles, covariates); null for other templates.
    forecast_contract: ForecastContract | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str


class ModelVersionBackbone(TypedDict):
    # The backbone's id (it may have been deleted since).
    id: int
    name: str
    sha256: str
    # Entries copied into the model.
    tensors: int | None


# Two classifiers' reports side by side (``workers.contracts.evaluation.ClassificationComparison``).
class ModelVersionClassificationComparison(TypedDict):
    # Model version a's id.
    a: int
    # Model version b's id; every delta is b minus a.
    b: int
    a_name: str
    b_name: str
    kind: ModelVersionClassificationComparisonKindEnum
    version: int
    accuracy: MetricPair
    macro_f1: MetricPair
    weighted_f1: MetricPair
    top_k_accuracy: dict[str, MetricPair]
    per_class: list[ClassComparison]


ModelVersionClassificationComparisonKindEnum: TypeAlias = Literal["classification_comparison"]


ModelVersionComparison: TypeAlias = (
    "ModelVersionClassificationComparison"
    " | ModelVersionRegressionComparison"
    " | ModelVersionDetectionComparison"
    " | ModelVersionForecastComparison"
)


# Two detectors' reports side by side (``workers.contracts.annotations.DetectionComparison``).
class ModelVersionDetectionComparison(TypedDict):
    # Model version a's id.
    a: int
    # Model version b's id; every delta is b minus a.
    b: int
    a_name: str
    b_name: str
    kind: ModelVersionDetectionComparisonKindEnum
    version: int
    split: str
    map: ClassAPDelta
    map50: ClassAPDelta
    per_class: list[ClassAPDelta]


ModelVersionDetectionComparisonKindEnum: TypeAlias = Literal["detection_comparison"]


class ModelVersionEvaluation(TypedDict):
    id: int
    name: str
    # The report on the test split, by its kind; null: the version has none (an uploaded model not evaluated).
    evaluation: ClassificationReport | RegressionReport | DetectionReport | ForecastReport | None


# Two forecasters' reports side by side (``workers.contracts.forecasting.ForecastComparison``).
class ModelVersionForecastComparison(TypedDict):
    # Model version a's id.
    a: int
    # Model version b's id; every delta is b minus a.
    b: int
    a_name: str
    b_name: str
    kind: ModelVersionForecastComparisonKindEnum
    version: int
    mase: ForecastMetricPair
    smape: ForecastMetricPair
    rmse: ForecastMetricPair
    coverage: ForecastMetricPair
    skill: ForecastMetricPair
    per_series: list[SeriesComparison]
    by_horizon: list[HorizonComparison]


ModelVersionForecastComparisonKindEnum: TypeAlias = Literal["forecast_comparison"]


# A model version's ``metrics``: the test headline and, for a trained one, the training summary, its epochs,
# the epoch whose weights were kept and the runtime. An uploaded model has only ``test`` (once evaluated), or
# nothing; one promoted from a study's trial adds ``automl``.
class ModelVersionMetrics(TypedDict):
    test: NotRequired[HeadlineMetrics]
    training: NotRequired[TrainingMetrics]
    epochs: NotRequired[int | None]
    best_epoch: NotRequired[int | None]
    runtime: NotRequired[TrainingRuntime]
    automl: NotRequired[AutomlLineage]
    target: NotRequired[TargetFit]


# Two regression models' reports side by side (``workers.contracts.evaluation.RegressionComparison``).
class ModelVersionRegressionComparison(TypedDict):
    # Model version a's id.
    a: int
    # Model version b's id; every delta is b minus a.
    b: int
    a_name: str
    b_name: str
    kind: ModelVersionRegressionComparisonKindEnum
    version: int
    mae: RegressionMetricPair
    rmse: RegressionMetricPair
    r2: RegressionMetricPair
    samples: SupportPair


ModelVersionRegressionComparisonKindEnum: TypeAlias = Literal["regression_comparison"]


ModelVersionSourceEnum: TypeAlias = Literal["trained", "uploaded", "custom", "compressed"]


ModelVersionUploadFormatEnum: TypeAlias = Literal["onnx", "state_dict"]


class ModelVersionUploadRequest(TypedDict):
    # The project the model version belongs to.
    project: int
    # onnx: a self-contained ONNX classifier, registered at once (201); state_dict: weights for one of the
    # template's architectures, turned into ONNX by a training.import_model job (202).
    format: ModelVersionUploadFormatEnum
    file: bytes
    # Class names in the order of the model's outputs (a JSON array). Optional for an ONNX file exported by
    # Sampan.
    classes: NotRequired[Any]
    # Preprocessing spec keys (a JSON object: image_size [h, w], mean, std, resize_mode, ...) over the
    # template's defaults. Optional when the ONNX input has a fixed size.
    preprocessing: NotRequired[Any]
    # state_dict only: the template architecture it was trained as.
    architecture: NotRequired[ArchitectureEnum]
    # state_dict only: square input size (default 64).
    image_size: NotRequired[int]
    # Evaluate the model on this dataset version's test split (same project; its classes in the model's output
    # order).
    dataset_version: NotRequired[int | None]


class Notebook(TypedDict):
    id: int
    project: int
    status: NotebookStatusEnum
    # Where the server answers (without its secret).
    url: str
    # The server's address with its secret: only in its owner's answers, only while it runs.
    open_url: str | None
    idle_timeout_s: int
    limits: ResourceLimits
    started_at: str | None
    last_activity_at: str | None
    stopped_at: str | None
    stop_reason: str
    job: int | None
    created_at: str


class NotebookCreateRequest(TypedDict):
    project: int
    # Stop the server after this long without activity (default SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S).
    idle_timeout_s: NotRequired[int]
    limits: NotRequired[NotebookLimitsRequestRequest]


# Any of the limits; the rest take the platform's defaults (``SAMPAN_CUSTOM_JOB_*``).
class NotebookLimitsRequestRequest(TypedDict):
    # The server's lifetime cap (seconds).
    wall_time_s: NotRequired[int]
    # Resident memory of server + kernels (MiB).
    memory_mb: NotRequired[int]
    # CPU threads.
    cpus: NotRequired[int]


class NotebookServeParams(TypedDict):
    kind: NotebookServeParamsKindEnum
    version: int
    notebook: int
    platform_url: NotRequired[str]


NotebookServeParamsKindEnum: TypeAlias = Literal["notebooks.serve"]


# ``notebooks.serve``: why the server stopped by itself (a stop by its owner cancels the job);
# ``before_start``: the notebook was stopped before a worker took it.
class NotebookServeResult(TypedDict):
    kind: NotebookServeResultKindEnum
    version: int
    notebook: int
    stopped: NotebookServeResultStoppedEnum
    reason: str
    files_restored: NotRequired[int]
    files_saved: NotRequired[int]
    peak_memory_mb: NotRequired[float]


NotebookServeResultKindEnum: TypeAlias = Literal["notebook_serve_result"]


NotebookServeResultStoppedEnum: TypeAlias = Literal[
    "idle",
    "exited",
    "time_limit",
    "memory_limit",
    "before_start",
]


NotebookStatusEnum: TypeAlias = Literal["starting", "running", "stopping", "stopped", "failed"]


NullEnum: TypeAlias = "None"


# What trials are scored by: a progress metric and whether higher is better.
class Objective(TypedDict):
    metric: str
    direction: DirectionEnum


# What trials are scored by: a progress metric and whether higher is better.
class ObjectiveRequest(TypedDict):
    metric: str
    direction: DirectionEnum


# A packaged ONNX file: opsets by domain, IR version, producer, inputs and outputs.
class OnnxDescription(TypedDict):
    file: str
    ir_version: int
    opset: dict[str, int]
    producer: str
    inputs: list[TensorDescription]
    outputs: list[TensorDescription]


OpEnum: TypeAlias = Literal["<=", ">="]


class Package(TypedDict):
    id: int
    workspace: int
    project: int
    model_version: int
    model_version_name: str
    kind: KindEnum
    status: str
    job: int | None
    size_bytes: int | None
    sha256: str
    # The build's report by the package's kind; null until the package is built.
    report: ServerPackageReport | DeviceSdkReport | None
    error: str
    download_url: str | None
    filename: str
    created_at: str
    built_at: str | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str


class PackageCreateRequest(TypedDict):
    model_version: int
    kind: KindEnum


class PackageFile(TypedDict):
    path: str
    bytes: int
    sha256: str


# The head of the package's manifest.json.
class PackageManifestSummary(TypedDict):
    format: str
    sampan_version: str
    template: str
    model_version: PackagedModelVersion


# One model of the device SDK: its file, size and test accuracy (null without labels; absent for regression);
# a detector's mAP@.5 on the test split instead (null without true boxes).
class PackagedModelQuality(TypedDict):
    file: str
    bytes: int
    accuracy: NotRequired[float | None]
    map50: NotRequired[float | None]


# The model version a package holds (its test headline metrics included).
class PackagedModelVersion(TypedDict):
    id: NotRequired[int]
    name: NotRequired[str]
    project: NotRequired[int]
    template: str
    code_version: NotRequired[str]
    onnx_sha256: NotRequired[str]
    dataset_version: NotRequired[int | None]
    metrics: NotRequired[HeadlineMetrics]


class PaginatedAdminUserList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[AdminUser]


class PaginatedApiTokenList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ApiToken]


class PaginatedBackboneList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Backbone]


class PaginatedBatchPredictionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[BatchPrediction]


class PaginatedCapturedRequestList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[CapturedRequest]


class PaginatedCodeArchiveList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[CodeArchive]


class PaginatedCompressionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Compression]


class PaginatedDatasetList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Dataset]


class PaginatedDatasetVersionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[DatasetVersion]


class PaginatedDeploymentList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Deployment]


class PaginatedImportBatchSummaryList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ImportBatchSummary]


class PaginatedInvitationList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Invitation]


class PaginatedJobEventList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[JobEvent]


class PaginatedJobList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Job]


class PaginatedLabelList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Label]


class PaginatedLabelingAssignmentList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[LabelingAssignment]


class PaginatedLabelingItemList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[LabelingItem]


class PaginatedLabelingTaskList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[LabelingTask]


class PaginatedMembershipList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Membership]


class PaginatedModelVersionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ModelVersion]


class PaginatedNotebookList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Notebook]


class PaginatedPackageList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Package]


class PaginatedProjectList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Project]


class PaginatedQualityReportSummaryList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[QualityReportSummary]


class PaginatedSampleActivityList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[SampleActivity]


class PaginatedSmartRoundList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[SmartRound]


class PaginatedStudyList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Study]


class PaginatedSuggestionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Suggestion]


class PaginatedTrainingJobList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[TrainingJob]


class PaginatedWorkspaceLimitsRowList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[WorkspaceLimitsRow]


class PaginatedWorkspaceList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Workspace]


class PaginatedWorkspaceTargetProfileList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[WorkspaceTargetProfile]


class PairAgreement(TypedDict):
    annotator_a: int
    annotator_b: int
    shared: int
    percent_agreement: float | None
    cohen_kappa: float | None


# One tunable parameter as the UI shows it. Numeric ones have ``minimum``/``maximum``/``log`` (``log``: the
# range spans orders of magnitude), choice ones ``choices``.
class ParamDescription(TypedDict):
    name: str
    type: ParamTypeEnum
    title: str
    help: str
    default: float | str | bool
    minimum: NotRequired[float]
    maximum: NotRequired[float]
    log: NotRequired[bool]
    choices: NotRequired[list[float | str | bool]]


ParamTypeEnum: TypeAlias = Literal["int", "float", "bool", "choice"]


class PasswordResetRequest(TypedDict):
    # The new password (Django's password rules apply); leave out to generate one.
    password: NotRequired[str]


class PasswordResetResult(TypedDict):
    user: AdminUser
    # The generated password, shown only in this answer; null when you gave one.
    password: str | None


class PatchedDatasetRequest(TypedDict):
    # Defaults to the project's workspace.
    workspace: NotRequired[int]
    project: NotRequired[int]
    name: NotRequired[str]
    description: NotRequired[str]
    task_type: NotRequired[TaskTypeEnum]
    # Forecasting datasets (PATCH): the frequency in force (schema.frequency); the profile is recomputed. 400
    # frequency_mismatch when observations are off its grid.
    frequency: NotRequired[FrequencyEnum]
    # Forecasting datasets (PATCH): how gaps are filled (schema.fill_rule); the profile is recomputed.
    fill_rule: NotRequired[FillRuleEnum]


class PatchedDeploymentUpdateRequest(TypedDict):
    name: NotRequired[str]


class PatchedLabelRequest(TypedDict):
    name: NotRequired[str]
    # #rrggbb; picked if empty.
    color: NotRequired[str]
    # The key the user chose for this label in the labeling grid: one printable character (letters are
    # lower-cased), not '/', unique in the dataset. Blank: the default key of its place.
    shortcut: NotRequired[str]


class PatchedLabelingTaskUpdateRequest(TypedDict):
    name: NotRequired[str]
    instructions: NotRequired[str]
    status: NotRequired[LabelingTaskStatusEnum]


# What a user may change about themselves.
class PatchedMeUpdateRequest(TypedDict):
    # The web UI's language: 'en', 'zh-CN', or '' to follow the browser's. API error messages stay English
    # (with a machine-readable code) in every language.
    language: NotRequired[LanguageEnum | BlankEnum]


class PatchedMembershipRequest(TypedDict):
    role: NotRequired[RoleEnum]


class PatchedProjectRequest(TypedDict):
    workspace: NotRequired[int]
    name: NotRequired[str]
    description: NotRequired[str]


class PatchedSampleLabelWriteRequest(TypedDict):
    # A label id of this dataset, or null to unlabel.
    label: int | None
    # The sample's label_version you last saw; a stale one answers 409 with the current value.
    label_version: int


class PatchedWorkspaceRequest(TypedDict):
    name: NotRequired[str]
    description: NotRequired[str]


# A workspace's target profile. Fields are validated as the worker validates a profile (threads 1-64, slowdown
# 0.01-1000, provider ``*ExecutionProvider``); the name may not be a builtin's (worker-cpu, worker-cpu-4t,
# edge-arm-slow).
class PatchedWorkspaceTargetProfileUpdateRequest(TypedDict):
    name: NotRequired[str]
    description: NotRequired[str]
    runtime: NotRequired[RuntimeEnum]
    execution_provider: NotRequired[str]
    intra_op_threads: NotRequired[int]
    inter_op_threads: NotRequired[int]
    batch_size: NotRequired[int]
    # Target latency = latency measured on the worker x slowdown (1.0: the worker).
    slowdown: NotRequired[float]
    latency_budget_ms: NotRequired[float | None]
    size_budget_bytes: NotRequired[int | None]


class PerLabelCount(TypedDict):
    id: int
    name: str
    color: str
    count: int


PrecisionEnum: TypeAlias = Literal["fp32", "int8"]


# A class's precision-recall curve at IoU 0.5 (COCO's 101 recall points, precision interpolated), for drawing.
class PrecisionRecallCurve(TypedDict):
    recall: list[float]
    precision: list[float]


class PredictMultipartRequest(TypedDict):
    # An image; repeat the part for a batch.
    file: bytes
    top_k: NotRequired[int]
    # Detectors: the lowest score answered (0.3).
    score_threshold: NotRequired[float]
    # Detectors: boxes per image at most (100).
    max_detections: NotRequired[int]


PredictRequestRequest: TypeAlias = (
    "ImageInstancesRequest"
    " | DetectionInstancesRequest"
    " | TextInstancesRequest"
    " | TableInstancesRequest"
    " | ForecastInstancesRequest"
)


# The answer (``workers.contracts.prediction.PredictionAnswer``): one prediction per instance, in order. A
# classifier's ``top_k`` lists classes with scores, most likely first; a regression model's holds one
# ``{value}``; a detector's prediction holds the image's ``boxes`` (original pixels) and its
# ``width``/``height``; a forecaster's holds a series' future ``timestamps``, its ``mean`` and the requested
# ``quantiles``; ``kind`` says which.
class PredictResponse(TypedDict):
    # classification_prediction: top_k ranks classes; regression_prediction: top_k holds one value;
    # detection_prediction: boxes with labels and scores; forecast_prediction: each series' future timestamps,
    # mean and quantiles.
    kind: PredictResponseKindEnum
    version: int
    model_version: PredictionModelVersion
    predictions: list[Prediction]
    # Time spent in the server, decoding to answer.
    latency_ms: float


PredictResponseKindEnum: TypeAlias = Literal[
    "classification_prediction",
    "regression_prediction",
    "detection_prediction",
    "forecast_prediction",
]


# A regression model's prediction for the row.
class PredictedValue(TypedDict):
    value: float


Prediction: TypeAlias = (
    "ClassificationPrediction | RegressionPrediction | DetectionPrediction | ForecastPrediction"
)


# The model version that answered (a deployment may switch versions between calls).
class PredictionModelVersion(TypedDict):
    id: int
    name: str
    template: str


# A named set of parameter values (fast / balanced / accurate); unset ones take the defaults.
class PresetDescription(TypedDict):
    name: str
    title: str
    description: str
    values: dict[str, float | str | bool]


PresetEnum: TypeAlias = Literal["smaller", "balanced", "faster", "distilled"]


# A preset as a training job would run it now: ``recommendation`` is the preset fitted to this dataset version
# and the workers online (what the job records unless it is started with ``adapt: false``); ``model`` and the
# time are those of its values.
class PresetEstimate(TypedDict):
    preset: str
    title: str
    description: str
    default: bool
    model: str | None
    time: TimeEstimate
    quality: QualityEstimate
    size: SizeEstimate
    speed: SpeedEstimate
    recommendation: PresetRecommendation


# A preset fitted to a dataset and the workers online (hardware- and data-aware defaults).
class PresetRecommendation(TypedDict):
    kind: PresetRecommendationKindEnum
    version: int
    template: str
    preset: str
    data: DataProfile
    hardware: HardwareProfile
    values: dict[str, float | str | bool]
    choices: list[AutoChoice]


PresetRecommendationKindEnum: TypeAlias = Literal["preset_recommendation"]


class ProducedModelVersion(TypedDict):
    id: int
    name: str


# ``counts[i]`` values lie in ``[edges[i], edges[i + 1])`` (the last bin includes its right edge).
class ProfileHistogram(TypedDict):
    edges: list[float]
    counts: list[int]


# One progress report. Only ``kind`` and ``version`` are always there (a job that has not reported yet shows
# just those); the rest is what the reporter had to say:
class ProgressEvent(TypedDict):
    kind: ProgressEventKindEnum
    version: int
    message: NotRequired[str]
    fraction: NotRequired[float]
    epoch: NotRequired[int]
    epochs: NotRequired[int]
    fold: NotRequired[int]
    folds: NotRequired[int]
    fold_score: NotRequired[float]
    step: NotRequired[int]
    steps: NotRequired[int]
    total: NotRequired[int]
    loss: NotRequired[float]
    train_acc: NotRequired[float]
    val_loss: NotRequired[float | None]
    val_acc: NotRequired[float | None]
    val_rmse: NotRequired[float | None]
    val_mae: NotRequired[float | None]
    val_r2: NotRequired[float | None]
    val_map50: NotRequired[float | None]
    val_mase: NotRequired[float | None]
    val_smape: NotRequired[float | None]
    val_coverage: NotRequired[float | None]
    lr: NotRequired[float]
    samples_per_s: NotRequired[float]
    eta_s: NotRequired[float]
    best_epoch: NotRequired[int | None]
    validated: NotRequired[int]
    validation_size: NotRequired[int]
    evaluated: NotRequired[int]
    pruned: NotRequired[bool]
    processed: NotRequired[int]
    imported: NotRequired[int]
    problems: NotRequired[int]
    size_bytes: NotRequired[int]
    top1_agreement: NotRequired[float | None]
    gflops: NotRequired[float]
    custom_metrics: NotRequired[dict[str, float]]


ProgressEventKindEnum: TypeAlias = Literal["progress"]


class Project(TypedDict):
    id: int
    workspace: int
    name: str
    description: NotRequired[str]
    created_at: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str


class ProjectRequest(TypedDict):
    workspace: int
    name: str
    description: NotRequired[str]


class PromoteRequest(TypedDict):
    # The trial's number; defaults to the best trial.
    trial: NotRequired[int]


# Structured (channel) pruning: keep ``flops_ratio`` of the parent's FLOPs (0 < r < 1), or prune until the
# target latency is at most ``latency_ms`` (bisection on the ratio). One of the two.
class PruneSpec(TypedDict):
    flops_ratio: NotRequired[float]
    latency_ms: NotRequired[float]


PrunerEnum: TypeAlias = Literal["none", "median", "successive_halving"]


# What the preset reached last time on this dataset (any of its versions): the latest model version's test
# ``metric`` (accuracy for classifiers, mAP@.5 (``map50``) for detectors, MAE for regression), and the best.
class QualityEstimate(TypedDict):
    basis: BasisEnum
    metric: str | None
    value: float | None
    best: float | None
    runs: int
    model_version: int | None
    model_version_name: str | None
    dataset_version_name: str | None
    message: str


# Thresholds a user may change; the defaults are the module's.
class QualityParams(TypedDict):
    near_duplicate_distance: NotRequired[int]
    near_duplicate_similarity: NotRequired[float]
    min_per_class: NotRequired[int]
    seed: NotRequired[int]


class QualityReport(TypedDict):
    kind: QualityReportKindEnum
    version: int
    task_type: str
    classes: list[str]
    samples: int
    labeled: int
    class_balance: ClassBalance
    findings: list[Finding]
    distributions: list[Distribution]
    checks: list[FindingCodeEnum]
    skipped: list[SkippedCheck]
    seconds: float


class QualityReportCreateRequest(TypedDict):
    # A version of this dataset (its splits are checked for leakage); null: the live dataset.
    version: NotRequired[int | None]
    params: NotRequired[QualityThresholdsRequest]


class QualityReportJobParams(TypedDict):
    kind: QualityReportJobParamsKindEnum
    version: int
    quality_report: int


QualityReportJobParamsKindEnum: TypeAlias = Literal["datasets.quality_report"]


# ``datasets.quality_report``: the report computed and how many findings it has.
class QualityReportJobResult(TypedDict):
    kind: QualityReportJobResultKindEnum
    version: int
    quality_report: int
    findings: int


QualityReportJobResultKindEnum: TypeAlias = Literal["quality_report_result"]


QualityReportKindEnum: TypeAlias = Literal["quality_report"]


# A report in lists: everything but the findings (see the report's detail).
class QualityReportSummary(TypedDict):
    id: int
    dataset: int
    version: int | None
    # V1, V2, ... for a version's report; null for the live dataset's.
    version_name: str | None
    status: ImportStatusEnum
    job: int | None
    progress: ProgressEvent
    # The thresholds asked for.
    params: QualityParams
    error: str
    # The creator's username; null once that user is deleted.
    created_by: str | None
    created_at: str
    finished_at: str | None


# Thresholds a user may change; omitted ones are the checks' defaults.
class QualityThresholdsRequest(TypedDict):
    # Images: perceptual-hash bits (of 64) two near duplicates may differ in.
    near_duplicate_distance: NotRequired[int]
    # Texts: the embedding cosine similarity two near duplicates reach at least.
    near_duplicate_similarity: NotRequired[float]
    # A class with fewer samples is tiny.
    min_per_class: NotRequired[int]
    # Makes the mislabel check repeatable.
    seed: NotRequired[int]


# How the int8 model was made: static QDQ calibrated on training images (images), or dynamic (texts and rows).
class Quantization(TypedDict):
    format: NotRequired[str]
    method: NotRequired[str]
    activations: NotRequired[str]
    weights: NotRequired[str]
    calibration: NotRequired[str]
    calibration_images: NotRequired[int]
    tool: NotRequired[str]


QuantizeEnum: TypeAlias = Literal["static", "qat", "auto", "dynamic"]


# Why a queued job waits.
class QueueState(TypedDict):
    # The queue it waits in (cpu, gpu).
    queue: str
    # Its place in that queue: 1 is the next one taken.
    position: int
    # Queued jobs a worker takes before it.
    ahead: int
    reason: QueueStateReasonEnum
    # Workers online consuming the queue.
    workers: int
    # Jobs those workers run at once, together.
    slots: int
    # What the queue's workers run now.
    busy_with: list[BusyWith]
    # The workspace's limit the job waits for (null: it is under its limits).
    workspace_limit: WorkspaceLimitState | None


QueueStateReasonEnum: TypeAlias = Literal["no_worker", "workspace_limit", "workers_busy", "next"]


class Range(TypedDict):
    min: int | None
    max: int | None
    mean: float | None


class RegressionMetricPair(TypedDict):
    a: float
    b: float
    delta: float


class RegressionMetrics(TypedDict):
    mae: float
    rmse: float
    r2: float


# One row's answer from a regression model: ``top_k`` holds exactly one predicted value.
class RegressionPrediction(TypedDict):
    top_k: list[PredictedValue]
    imputed: NotRequired[list[str]]


# A regression model's report on one split: MAE, RMSE and R2 (also as ``headline``), the residuals, the
# largest errors with their rows and the permutation feature importance.
class RegressionReport(TypedDict):
    kind: RegressionReportKindEnum
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


RegressionReportKindEnum: TypeAlias = Literal["regression_report"]


class ReportRunParams(TypedDict):
    kind: ReportRunParamsKindEnum
    version: int
    study: int
    report_run: int


ReportRunParamsKindEnum: TypeAlias = Literal["automl.report_run"]


# ``automl.report_run``: the run and its test metric.
class ReportRunResult(TypedDict):
    kind: ReportRunResultKindEnum
    version: int
    report_run: int
    role: NotRequired[str]
    seed: NotRequired[int]
    test_metric: float | None


ReportRunResultKindEnum: TypeAlias = Literal["automl_report_run_result"]


# The parent's measurements, on the same test split and target as the variants'.
class ReportedParent(TypedDict):
    size_bytes: int
    parameters: int
    flops: int
    precision: PrecisionEnum
    latency: LatencyMeasurement
    metric: str
    value: float
    delta: float
    model_version: int
    model_version_name: str


# One variant: its recipe, the model version recorded for it, its measurements against the parent
# (``summary.delta`` = its metric - the parent's) and notes on choices the job made.
class ReportedVariant(TypedDict):
    name: str
    recipe: CompressionRecipe
    model_version: int
    model_version_name: str
    summary: VariantSummary
    notes: list[str]


ResampleEnum: TypeAlias = Literal["bilinear", "bicubic", "nearest"]


class ResidualPoint(TypedDict):
    sample: int | str
    actual: float
    predicted: float


# Up to 1000 (actual, predicted) points, evenly picked, and the residuals' histogram.
class Residuals(TypedDict):
    points: list[ResidualPoint]
    histogram: Histogram


ResizeModeEnum: TypeAlias = Literal["stretch", "center_crop"]


# What one run may use: wall time (seconds), resident memory of the whole process tree (MiB) and CPU threads.
# The platform's caps (settings ``SAMPAN_CUSTOM_JOB_MAX_*``) bound each.
class ResourceLimits(TypedDict):
    wall_time_s: int
    memory_mb: int
    cpus: int


# The checkpoint a resumed run continued from.
class ResumedFrom(TypedDict):
    epoch: int
    step: int
    batch_in_epoch: int
    checkpoint: str


class RetrainRequest(TypedDict):
    # A version of a dataset of the model version's project to train on.
    dataset_version: int
    # Defaults to the version's own parameters; a preset's values keep the version's network.
    preset: NotRequired[str]
    # Settings overriding them.
    params: NotRequired[dict[str, float | str | bool]]


ReviewEnum: TypeAlias = Literal["pending", "accepted", "rejected"]


class ReviewRequest(TypedDict):
    items: list[int]
    verdict: VerdictEnum
    comment: NotRequired[str]
    # accept, classification: this label wins (default: the majority's answer; ties: the first submitted).
    label: NotRequired[int]


class ReviewResult(TypedDict):
    reviewed: int
    skipped: list[ReviewSkip]


class ReviewSkip(TypedDict):
    id: int
    reason: ReviewSkipReasonEnum


ReviewSkipReasonEnum: TypeAlias = Literal["not_submitted"]


RoleEnum: TypeAlias = Literal["owner", "editor", "viewer", "annotator"]


# A file the code kept with ``sampan.run.log_artifact``: ``path`` in its output folder and its ``name``; once
# the platform stored it, its blob ``key``, ``sha256`` and ``size_bytes`` (``GET
# /api/v1/jobs/{id}/artifacts/?path=`` downloads it).
class RunArtifact(TypedDict):
    path: str
    name: str
    key: NotRequired[str]
    sha256: NotRequired[str]
    size_bytes: NotRequired[int]


# Where the code ran: Python, the platform's version, and every installed distribution.
class RunEnvironment(TypedDict):
    python: str
    platform: str
    packages: dict[str, str]


RuntimeEnum: TypeAlias = Literal["onnxruntime"]


class Sample(TypedDict):
    id: int
    original_name: str
    label: int | None
    label_name: str | None
    # Bumped on every label or annotation change; writes must send the version they saw (annotations call it
    # revision).
    label_version: int
    # Object detection: unlabeled (not yet), annotated, or no_objects (reviewed, nothing to annotate);
    # unlabeled for other datasets.
    annotation_status: AnnotationStatusEnum
    # A reviewer's verdict on the sample's label or annotations; any later label change outside a review makes
    # it unreviewed again.
    review_status: SampleReviewStatusEnum
    # Object detection: the sample's boxes; 0 otherwise.
    box_count: int
    # Object detection: the label ids of the sample's boxes, each once, in label order.
    box_labels: list[int]
    # Object detection: the sample's boxes (label id and pixels), for drawing; [] otherwise.
    boxes: list[SampleBox]
    # Smart labeling: the latest suggestion waiting for a person while the sample is unlabeled; null
    # otherwise.
    suggestion: SampleSuggestion | None
    width: int
    height: int
    # Format detected from the content: JPEG, PNG, BMP, WEBP, GIF; TEXT for a text, ROW for a table row.
    format: str
    # Size of the stored (re-encoded) image, or of the text/row.
    size_bytes: int
    sha256: str
    # The sample's split in the version filtered by, else null.
    split: SampleSplitEnum | NullEnum | None
    image_url: str
    thumbnail_url: str
    # Text datasets: the sample's text, verbatim.
    text: str
    # Tabular datasets: the row's feature values by column name, as read (numbers, strings, null for missing);
    # null for other datasets.
    values: dict[str, float | str | None] | None
    # Regression datasets: the numeric target.
    target: float | None
    import_batch: int | None
    created_at: str


class SampleActivity(TypedDict):
    id: int
    sample: int
    actor: int | None
    actor_username: str | None
    action: SampleActivityActionEnum
    source: SampleActivitySourceEnum
    # The value before the change.
    before: ActivityValue
    # The value after the change.
    after: ActivityValue
    comment: str
    # The change this one reverted.
    reverts: int | None
    # The sample still has this entry's `after` value, so reverting puts `before` back (writers only; the
    # server checks again).
    can_revert: bool
    created_at: str


SampleActivityActionEnum: TypeAlias = Literal["label", "annotations", "review", "target"]


SampleActivitySourceEnum: TypeAlias = Literal[
    "manual",
    "bulk",
    "suggestion",
    "task",
    "review",
    "revert",
    "import",
    "label_change",
]


# A sample's annotations as read and written (``GET/PUT .../samples/{id}/annotations/``). ``revision`` is the
# sample's concurrency counter: a write names the revision it read and is refused with 409
# ``annotation_conflict`` (and the current state) when it changed since.
class SampleAnnotations(TypedDict):
    sample: int
    status: AnnotationStatusEnum
    revision: int
    width: int
    height: int
    annotations: list[AnnotationRecord]


class SampleAnnotationsWriteRequest(TypedDict):
    # The sample's revision you last read; a stale one answers 409 annotation_conflict with the current state.
    revision: int
    # Default: annotated when there are boxes, else unlabeled. no_objects: reviewed, nothing to annotate (no
    # boxes).
    status: NotRequired[AnnotationStatusEnum]
    # Every annotation of the sample (a write replaces them), labels by name; ids are ignored.
    annotations: list[AnnotationRecordRequest]


# A box of a listed sample, for drawing on its thumbnail: the label's id and the box in the stored image's
# pixels.
class SampleBox(TypedDict):
    # The label's id.
    label: int
    x: float
    y: float
    width: float
    height: float


class SampleCounts(TypedDict):
    total: int
    # Object detection: annotated plus no_objects.
    labeled: int
    unlabeled: int
    # Object detection: images with boxes; else = labeled.
    annotated: int
    # Object detection: reviewed, nothing to annotate; else 0.
    no_objects: int
    # Object detection: count is the images having a box of the label.
    per_label: list[PerLabelCount]


class SampleLabelConflict(TypedDict):
    error: SampleLabelConflictBody


class SampleLabelConflictBody(TypedDict):
    code: LabelConflictCodeEnum
    # The sentence to show a person.
    message: str
    details: SampleLabelConflictDetails


class SampleLabelConflictDetails(TypedDict):
    # The message again, as a field error.
    label_version: list[str]
    # The sample's label now.
    current: CurrentLabel


SampleLabelWriteConflict: TypeAlias = "SampleLabelConflict | LabelDeleted"


class SamplePage(TypedDict):
    # Samples matching the filters.
    count: int
    next: str | None
    previous: str | None
    # The whole dataset's counts (labeling progress).
    counts: SampleCounts
    results: list[Sample]


SampleReviewStatusEnum: TypeAlias = Literal["unreviewed", "accepted", "rejected"]


SampleSplitEnum: TypeAlias = Literal["train", "val", "test"]


# A smart-labeling suggestion waiting for a person (labeling.Suggestion), as the sample list shows it.
class SampleSuggestion(TypedDict):
    id: int
    # The smart-labeling round that made it; null for one from production.
    round: int | None
    # smart_round, or capture: a deployment's answer to a request sent to the dataset.
    source: SuggestionSourceEnum
    # From production: the captured request (deploy) it came from.
    captured_request: int | None
    # From production: the deployment whose answer it is; null for a round's.
    deployment: int | None
    deployment_name: str | None
    label: int | None
    label_name: str | None
    confidence: float
    boxes: list[SampleSuggestionBox]
    # Regression: the suggested target (else null).
    value: float | None


class SampleSuggestionBox(TypedDict):
    # A label id (null: deleted since).
    label: int | None
    x: float
    y: float
    width: float
    height: float
    score: float


SamplerEnum: TypeAlias = Literal["sde", "tpe", "cmaes", "random", "nsga2", "gp"]


ScopeEnum: TypeAlias = Literal["jobs", "gpu_jobs"]


# One axis of an AutoML search space, over one parameter (Optuna-shaped): ``float`` and ``int`` dimensions
# have ``low``, ``high``, ``log`` and an optional ``step``; ``categorical`` ones ``choices``.
class SearchDimension(TypedDict):
    name: str
    type: SearchDimensionTypeEnum
    low: NotRequired[float]
    high: NotRequired[float]
    log: NotRequired[bool]
    step: NotRequired[float | None]
    choices: NotRequired[list[float | str | bool]]


# One axis of an AutoML search space, over one parameter (Optuna-shaped): ``float`` and ``int`` dimensions
# have ``low``, ``high``, ``log`` and an optional ``step``; ``categorical`` ones ``choices``.
class SearchDimensionRequest(TypedDict):
    name: str
    type: SearchDimensionTypeEnum
    low: NotRequired[float]
    high: NotRequired[float]
    log: NotRequired[bool]
    step: NotRequired[float | None]
    choices: NotRequired[list[float | str | bool]]


SearchDimensionTypeEnum: TypeAlias = Literal["float", "int", "categorical"]


# Which samples: ``{"by": "ids", "ids": [...]}``, ``{"by": "filter", "unlabeled"?, "label"?, "count"?}`` or
# ``{"by": "ranking", "round"?, "count"?}`` (a smart-labeling round's ranking, the latest succeeded round by
# default).
class Selection(TypedDict):
    by: ByEnum
    # by ids: the samples, in task order.
    ids: NotRequired[list[int]]
    # by filter: only unlabeled samples.
    unlabeled: NotRequired[bool]
    # by filter: only samples with this label id.
    label: NotRequired[int]
    # At most this many samples.
    count: NotRequired[int]
    # by ranking: the round (id).
    round: NotRequired[int]


# Which samples: ``{"by": "ids", "ids": [...]}``, ``{"by": "filter", "unlabeled"?, "label"?, "count"?}`` or
# ``{"by": "ranking", "round"?, "count"?}`` (a smart-labeling round's ranking, the latest succeeded round by
# default).
class SelectionRequest(TypedDict):
    by: ByEnum
    # by ids: the samples, in task order.
    ids: NotRequired[list[int]]
    # by filter: only unlabeled samples.
    unlabeled: NotRequired[bool]
    # by filter: only samples with this label id.
    label: NotRequired[int]
    # At most this many samples.
    count: NotRequired[int]
    # by ranking: the round (id).
    round: NotRequired[int]


class SeriesComparison(TypedDict):
    series: str
    mase: ForecastMetricPair


# A series' points for a chart (``GET /api/v1/datasets/{id}/series/?id=...``): timestamps and values (None
# where missing), downsampled to at most ``max_points`` by taking every n-th point between ``start`` and
# ``end`` when asked for a zoomed window.
class SeriesPoints(TypedDict):
    id: str
    timestamps: list[str]
    values: list[float | None]
    total_points: int
    step: int


# One series' summary. ``season_length`` is the frequency's (12 for monthly data); ``seasonal_strength`` and
# ``trend_strength`` are in [0, 1] (STL-style: 1 - var(remainder) / var(remainder + component));
# ``missing_share`` counts grid points without a value.
class SeriesProfile(TypedDict):
    id: str
    item: str
    target: str
    start: str
    end: str
    length: int
    missing: int
    missing_share: float
    mean: float | None
    std: float | None
    minimum: float | None
    maximum: float | None
    season_length: int
    seasonal_strength: float | None
    trend_strength: float | None
    zero_share: float


# One series on the test window: the model's scores, seasonal naive's MASE and the skill ``1 - mase /
# seasonal_naive_mase`` (positive: better than seasonal naive).
class SeriesScores(TypedDict):
    series: str
    mase: float
    smape: float
    rmse: float
    coverage: float | None
    width: float | None
    seasonal_naive_mase: float
    skill: float | None


# The on-prem server package: the archive, its model, pinned requirements, test vectors, files.
class ServerPackageReport(TypedDict):
    kind: ServerPackageReportKindEnum
    version: int
    path: str
    size_bytes: int
    sha256: str
    manifest: PackageManifestSummary
    model: OnnxDescription
    requirements: list[str]
    test_vectors: int
    files: list[PackageFile]


ServerPackageReportKindEnum: TypeAlias = Literal["server"]


SeverityEnum: TypeAlias = Literal["error", "warning", "info"]


class ShadowAgreement(TypedDict):
    window: WindowEnum
    bucket_seconds: int
    shadow_version: int | None
    shadow_version_name: str | None
    prediction_kind: str
    compared: int
    # Share of instances with the same top-1 class (null: regression).
    agreement: float | None
    mean_delta: float | None
    errors: int
    mean_latency_ms: float | None
    points: list[ShadowAgreementPoint]
    deltas: list[AnswerBucket]


# One bucket of time: ``compared`` instances answered by both versions, ``agreement`` the share with the same
# top-1 class (null for regression), ``mean_delta`` the mean |served - shadow| top-1 score (regression:
# value), ``errors`` of the shadow.
class ShadowAgreementPoint(TypedDict):
    start: str
    compared: int
    agreement: float | None
    mean_delta: float | None
    errors: int


class SizeBucket(TypedDict):
    # Longer side at most this; null: larger.
    max_side: int | None
    count: int


class SizeCount(TypedDict):
    width: int
    height: int
    count: int


# The exported ONNX file of the latest earlier version with the preset's model.
class SizeEstimate(TypedDict):
    basis: BasisEnum
    bytes: int | None
    model_version: int | None
    model_version_name: str | None
    message: str


class SkippedCheck(TypedDict):
    code: FindingCodeEnum
    reason: str


# A recipe that does not apply to this model (e.g. pruning a tree ensemble), and why.
class SkippedRecipe(TypedDict):
    name: str
    reason: str


class SkippedSuggestion(TypedDict):
    id: int
    reason: SkippedSuggestionReasonEnum


SkippedSuggestionReasonEnum: TypeAlias = Literal["human_labeled", "not_pending"]


# ``batch_size``: how many samples the ranking puts first (rank 1..batch_size); ``strategy``: uncertainty
# combined with diversity (the default), uncertainty alone, or random (a baseline); ``seed`` makes a round
# repeatable.
class SmartLabelingParams(TypedDict):
    batch_size: int
    strategy: StrategyEnum
    seed: int


# A round at a glance. ``estimated_accuracy``: the quick model's cross-validated accuracy on the labeled
# samples (mAP@.5 for detection, R² for regression; None with too few labels to tell).
# ``per_class_suggested``: suggestions per class (index) for the charts. ``unreadable``: images that could not
# be decoded (no suggestion, not trained on; absent: none).
class SmartLabelingSummary(TypedDict):
    kind: SmartLabelingSummaryKindEnum
    version: int
    model: str
    strategy: StrategyEnum
    labeled: int
    unlabeled: int
    ranked: int
    estimated_accuracy: float | None
    per_class_suggested: list[int]
    confidence_histogram: list[int]
    seconds: float
    unreadable: NotRequired[int]


SmartLabelingSummaryKindEnum: TypeAlias = Literal["smart_labeling_summary"]


# A round of smart labeling: its job's status and progress, and once it succeeded the summary.
class SmartRound(TypedDict):
    id: int
    dataset: int
    number: int
    # The round's status (its job's, while it ends).
    status: JobStatusEnum
    job: int | None
    # The round's parameters.
    params: SmartLabelingParams
    # The round at a glance once it succeeded; null before.
    summary: SmartLabelingSummary | None
    # Why the round failed; empty otherwise.
    error: str
    # The job's latest progress.
    progress: ProgressEvent
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str
    finished_at: str | None


class SmartRoundCreateRequest(TypedDict):
    # How many samples the ranking puts first (rank 1..batch_size): the ones to label next.
    batch_size: NotRequired[int]
    # How the ranking is made: uncertainty combined with diversity (default), uncertainty alone, or random (a
    # baseline).
    strategy: NotRequired[StrategyEnum]
    # Makes a round repeatable.
    seed: NotRequired[int]


class SmartRoundJobParams(TypedDict):
    kind: SmartRoundJobParamsKindEnum
    version: int
    smart_round: int


SmartRoundJobParamsKindEnum: TypeAlias = Literal["labeling.smart_round"]


# ``labeling.smart_round``: the round, its suggestions and how many of them are ranked.
class SmartRoundJobResult(TypedDict):
    kind: SmartRoundJobResultKindEnum
    version: int
    smart_round: int
    suggestions: int
    ranked: int


SmartRoundJobResultKindEnum: TypeAlias = Literal["smart_round_result"]


# Mean latency of hosted predictions (per request, as the deployment's usage recorded it) by versions with the
# preset's model, counted since each deployment switched to that version.
class SpeedEstimate(TypedDict):
    basis: BasisEnum
    latency_ms: float | None
    calls: int
    message: str


class Spread(TypedDict):
    values: list[float]
    mean: float | None
    std: float | None
    min: float | None
    max: float | None


StateEnum: TypeAlias = Literal["running", "complete", "pruned", "failed"]


StrategyEnum: TypeAlias = Literal["uncertainty_diversity", "uncertainty", "random"]


StreamEnum: TypeAlias = Literal["stdout", "stderr", "system"]


class StudyTrials(TypedDict):
    total: int
    complete: int
    pruned: int
    failed: int
    running: int


class Study(TypedDict):
    id: int
    workspace: int
    project: int
    name: str
    dataset: int | None
    dataset_name: str | None
    # The data every trial trains on (a custom-code study may have none).
    dataset_version: int | None
    dataset_version_name: str | None
    # A task template, or "custom" (the user's code).
    template: str
    # What a custom-code study (template "custom") runs.
    custom_code: CustomCode | None
    # The preset every trial starts from.
    preset: str
    # Parameters every trial uses as given.
    fixed_params: dict[str, float | str | bool]
    search_space: list[SearchDimension]
    # What the trials are scored by.
    objective: Objective
    # Every objective in order (a single-objective study: its objective); a trial's values follow it.
    objectives: list[StudyGoal]
    constraints: list[StudyConstraint]
    # The profile latency is measured with (a snapshot).
    target_profile: DeploymentTarget | None
    # The workspace profile it was taken from (null: a builtin, or deleted since).
    target_profile_id: int | None
    multi_objective: bool
    # How the default search space was adapted to the target (English sentences).
    space_notes: list[str]
    # Numbers of the completed feasible trials no other dominates.
    pareto_front: list[int]
    sampler: SamplerEnum
    # The sampler the trials are asked from (sde falls back to tpe while it is not installed).
    sampler_in_use: str
    pruner: PrunerEnum
    n_trials: int
    # Wall-time budget: no trial starts after it.
    timeout_seconds: int | None
    # Trials in flight at once.
    parallelism: int
    seed: int
    # Seeds of the honest-lift report (0: none).
    report_seeds: int
    status: StudyStatusEnum
    trials: StudyTrials
    best_trial: BestTrial | None
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    # Your role in the study's workspace (a viewer cannot start, control or promote).
    my_role: RoleEnum | NullEnum | None


class StudyConstraint(TypedDict):
    metric: str
    op: OpEnum
    value: float


class StudyConstraintRequest(TypedDict):
    metric: str
    op: OpEnum
    value: float


class StudyCreateRequest(TypedDict):
    dataset_version: int
    name: NotRequired[str]
    # Defaults to the dataset's task type.
    template: NotRequired[str]
    # The preset every trial starts from; defaults to the template's (the honest-lift baseline).
    preset: NotRequired[str]
    # Parameters every trial uses as given (e.g. a short epochs).
    fixed_params: NotRequired[dict[str, float | str | bool]]
    # A list of dimensions (see SearchDimension); defaults to the template's search space.
    search_space: NotRequired[list[SearchDimensionRequest] | None]
    sampler: NotRequired[SamplerEnum]
    pruner: NotRequired[PrunerEnum]
    # Trial budget; defaults to what fits the workers online (GET /studies/defaults/).
    n_trials: NotRequired[int]
    # Wall-time budget: no trial starts after it.
    timeout_seconds: NotRequired[int | None]
    # Trials in flight; defaults to the jobs the workers online for the trials' queue run at once (GET
    # /studies/defaults/).
    parallelism: NotRequired[int]
    seed: NotRequired[int]
    # Seeds of the honest-lift report (0: no report).
    report_seeds: NotRequired[int]
    # 1 to 3 objectives: the template's metric, latency_ms (on the target), size_bytes. More than one: a
    # multi-objective study (no pruning, no lift report; sampler sde, nsga2, tpe, gp or random). Defaults to
    # the template's objective.
    objectives: NotRequired[list[StudyGoalRequest] | None]
    # A trial outside any constraint is infeasible (never on the Pareto front).
    constraints: NotRequired[list[StudyConstraintRequest] | None]
    # Where latency is measured: a builtin target's name (worker-cpu, worker-cpu-4t, edge-arm-slow) or a
    # target profile's id; its budgets become constraints. Default with a latency or size objective:
    # worker-cpu.
    target_profile: NotRequired[int | str | None]


# A study's budget that fits the workers online now, and why.
class StudyDefaults(TypedDict):
    template: str
    # The queue the trials go to (gpu when a GPU worker is online).
    queue: str
    # Workers online consuming that queue.
    workers: int
    # Jobs those workers run at once, together.
    slots: int
    # Trials in flight: the slots, at least 1.
    parallelism: int
    # Trial budget.
    n_trials: int
    # Wall-time budget (null: no limit until a run of the template was measured).
    timeout_seconds: int | None
    # Median duration of the template's recent runs on the workers.
    trial_seconds: float | None
    # How many runs trial_seconds is the median of.
    measured_runs: int
    # How long n_trials take at that parallelism.
    estimated_seconds: float | None
    # The reasoning in a sentence (English).
    explanation: str


# One objective of a study: ``metric`` is the template's objective metric (val_acc, val_map50, val_mase ...),
# ``latency_ms`` (the trial's ONNX on the study's target) or ``size_bytes``.
class StudyGoal(TypedDict):
    metric: str
    direction: NotRequired[DirectionEnum]


# One objective of a study: ``metric`` is the template's objective metric (val_acc, val_map50, val_mase ...),
# ``latency_ms`` (the trial's ONNX on the study's target) or ``size_bytes``.
class StudyGoalRequest(TypedDict):
    metric: str
    direction: NotRequired[DirectionEnum]


class StudyResults(TypedDict):
    best_trial: BestTrial | None
    history: list[HistoryPoint]
    # PED-ANOVA importance per searched parameter (sums to 1).
    importances: dict[str, float]
    lift: Lift


StudyStartRequest: TypeAlias = "StudyCreateRequest | CustomStudyCreateRequest"


StudyStatusEnum: TypeAlias = Literal["running", "paused", "stopped", "completed"]


# The answer, in the shape of the dataset's task.
class SubmitRequest(TypedDict):
    # Classification: the label's id.
    label: NotRequired[int]
    # Regression: the value.
    target: NotRequired[float]
    # Object detection: annotated (with boxes) or no_objects (none); unlabeled is refused.
    status: NotRequired[AnnotationStatusEnum]
    boxes: NotRequired[list[AnswerBoxRequest]]


# A suggestion for one unlabeled sample: a label with its confidence (classification), boxes with scores
# (object detection) or a value (regression), and its place in the round's ranking.
class Suggestion(TypedDict):
    id: int
    # The round that made it; null for a suggestion from production (``source`` capture).
    round: int | None
    source: SuggestionSourceEnum
    # Source capture: the captured request whose served answer this is.
    captured_request: int | None
    # From production: the deployment whose answer it is (null for a round's).
    deployment: int | None
    deployment_name: str | None
    sample: SuggestionSample
    label: int | None
    label_name: str | None
    confidence: float
    # Top classes, best first.
    scores: list[SuggestionScore]
    # Object detection: suggested boxes.
    boxes: list[SampleSuggestionBox]
    # Regression: the suggested target.
    value: float | None
    priority: float
    rank: int | None
    status: SuggestionStatusEnum


# Which pending suggestions: ``ids``, or everything pending matching the filter.
class SuggestionAcceptRequest(TypedDict):
    # These suggestions (by id).
    ids: NotRequired[list[int]]
    # Filter: suggestions of this label.
    label: NotRequired[int]
    min_confidence: NotRequired[float]
    max_confidence: NotRequired[float]
    # Filter: this round's.
    round: NotRequired[int]
    # Object detection: drop suggested boxes scored under it.
    min_score: NotRequired[float]


class SuggestionAcceptResult(TypedDict):
    # Samples labeled from their suggestion.
    accepted: int
    skipped: list[SkippedSuggestion]


# Which pending suggestions: ``ids``, or everything pending matching the filter.
class SuggestionDecisionRequest(TypedDict):
    # These suggestions (by id).
    ids: NotRequired[list[int]]
    # Filter: suggestions of this label.
    label: NotRequired[int]
    min_confidence: NotRequired[float]
    max_confidence: NotRequired[float]
    # Filter: this round's.
    round: NotRequired[int]


class SuggestionRejectResult(TypedDict):
    rejected: int


class SuggestionSample(TypedDict):
    id: int
    original_name: str
    thumbnail_url: str
    image_url: str
    # JPEG, PNG, ...; TEXT for a text, ROW for a table row.
    format: str
    # Text datasets: the text; empty otherwise.
    text: str
    width: int
    height: int


class SuggestionScore(TypedDict):
    # A label id (null: deleted since).
    label: int | None
    score: float


SuggestionSourceEnum: TypeAlias = Literal["smart_round", "capture"]


SuggestionStatusEnum: TypeAlias = Literal["pending", "accepted", "rejected", "superseded"]


class SupportPair(TypedDict):
    a: int | None
    b: int | None


class SystemCheckParams(TypedDict):
    kind: SystemCheckParamsKindEnum
    version: int
    seconds: NotRequired[float]


SystemCheckParamsKindEnum: TypeAlias = Literal["system.check"]


# ``system.check``: the worker's versions (python, numpy, torch, django, platform), its devices and the test
# computation.
class SystemCheckResult(TypedDict):
    kind: SystemCheckResultKindEnum
    version: int
    versions: dict[str, str | None]
    devices: WorkerDevices
    computation: SystemComputation


SystemCheckResultKindEnum: TypeAlias = Literal["system_check_result"]


class SystemComputation(TypedDict):
    backend: str
    matrix_size: int
    steps: int
    seconds: float
    gflops: float
    checksum: float


# A feature column of a table and the type inferred from its cells at the first import.
class TableColumn(TypedDict):
    name: str
    type: ColumnTypeEnum


# A feature column of a table and the type inferred from its cells at the first import.
class TableColumnRequest(TypedDict):
    name: str
    type: ColumnTypeEnum


# One table column the model reads. ``numeric`` and ``datetime`` (days since 1970) columns are standardised
# (``mean``, ``std``) after filling gaps with ``fill``, with a 0/1 ``indicator`` column when the training
# split had gaps; ``categorical`` ones are one-hot over ``categories`` plus "other", ``missing`` saying
# whether the training split had empty cells.
class TableFeature(TypedDict):
    name: str
    type: TableFeatureTypeEnum
    fill: NotRequired[float]
    mean: NotRequired[float]
    std: NotRequired[float]
    indicator: NotRequired[bool]
    categories: NotRequired[list[str]]
    missing: NotRequired[bool]


TableFeatureTypeEnum: TypeAlias = Literal["numeric", "datetime", "categorical"]


TableFormatEnum: TypeAlias = Literal["csv", "tsv", "jsonl", "xlsx", "parquet"]


# A request to a tabular model: rows by column name. A column may be missing (absent, null, NaN, empty) only
# where the training data had gaps; the target column, if sent, is ignored.
class TableInstancesRequest(TypedDict):
    instances: list[dict[str, float | str | bool | None]]
    top_k: NotRequired[int]


# A tabular model's spec: the encoding plus the task, the ONNX input/output names and the target column (not a
# feature; a row may carry it and it is ignored).
class TablePreprocessing(TypedDict):
    kind: TablePreprocessingKindEnum
    version: int
    features: list[TableFeature]
    width: int
    task: TableTaskEnum
    input: str
    output: str
    target: str | None


TablePreprocessingKindEnum: TypeAlias = Literal["tabular"]


class TablePreview(TypedDict):
    filename: str
    format: TableFormatEnum
    # The encoding used (given, or detected: utf-8, utf-16, gb18030, cp1252, ...), or 'binary' for
    # XLSX/Parquet.
    encoding: str
    # CSV/TSV: the delimiter used (given or detected); null otherwise.
    delimiter: str | None
    # The decimal mark of text cells (given or detected): with ',' a cell '1.234,5' is the number 1234.5.
    decimal: DecimalEnum
    # XLSX: the sheet read; null for other formats.
    sheet: str | None
    # XLSX: every sheet's name in workbook order (pick one as `sheet`); [] for other formats.
    sheets: list[str]
    # Only the first 2 MiB of the file were read.
    partial: bool
    rows_read: int
    columns: list[TableColumn]
    # The first rows, cells by column name.
    rows: list[dict[str, float | str | bool | None]]
    suggested: TableSuggestion


class TablePreviewRequestRequest(TypedDict):
    # A CSV, TSV, JSONL, XLSX or Parquet file.
    file: bytes
    # Text files: the encoding (e.g. gb18030, cp1252, utf-16). Omitted: detected (UTF-8/UTF-16 by BOM, UTF-8,
    # GB18030 for Chinese, cp1252 for Western text); an uncertain guess is a 400 bad_encoding whose
    # details.candidates name the encodings to choose from.
    encoding: NotRequired[str]
    # CSV/TSV: the one-character delimiter (',', ';', '\t' or 'tab', '|', ...). Omitted: detected from the
    # first lines. Ignored for other formats.
    delimiter: NotRequired[str]
    # The decimal mark of numbers written as text: '.' or ','. Omitted: detected ('1,5' and '1.234,5' mean
    # ','). With ',' those cells import as numbers.
    decimal: NotRequired[DecimalEnum | BlankEnum]
    # XLSX: the sheet's name, or its 0-based index when no sheet has that name. Omitted: the first sheet with
    # a header row and a data row.
    sheet: NotRequired[str]


# The suggested column mapping: {text_column, label_column} (text datasets), {target_column} (tabular ones) or
# the forecasting mapping with the candidates for each role and the frequency inferred from the rows read;
# null: none found.
class TableSuggestion(TypedDict):
    text_column: NotRequired[str | None]
    label_column: NotRequired[str | None]
    target_column: NotRequired[str | None]
    timestamp_column: NotRequired[str | None]
    series_column: NotRequired[str | None]
    target_columns: NotRequired[list[str]]
    known_covariates: NotRequired[list[str]]
    static_covariates: NotRequired[list[str]]
    frequency_inferred: NotRequired[str | None]
    timestamp_candidates: NotRequired[list[str]]
    series_candidates: NotRequired[list[str]]
    target_candidates: NotRequired[list[str]]


TableTaskEnum: TypeAlias = Literal["classification", "regression"]


class TargetFit(TypedDict):
    kind: TargetFitKindEnum
    version: int
    profile: str
    latency_budget_ms: float | None
    size_budget_bytes: int | None
    chosen: FitCandidate
    candidates: list[FitCandidate]
    reasons: list[str]
    trained_latency_ms: NotRequired[float]


TargetFitKindEnum: TypeAlias = Literal["target_fit"]


# The target's balance: class counts (``classes``), or a numeric target's distribution.
class TargetProfile(TypedDict):
    name: str | None
    type: TargetTypeEnum
    count: int
    missing: int
    classes: NotRequired[list[ValueCount]]
    min: NotRequired[float]
    max: NotRequired[float]
    mean: NotRequired[float]
    std: NotRequired[float]
    histogram: NotRequired[ProfileHistogram]


TargetTypeEnum: TypeAlias = Literal["classes", "numeric"]


# An annotator's answer to one sample of a labeling task, in the shape of the dataset's task: ``{"label":
# id}`` (classification), ``{"status", "boxes"}`` (object detection; status annotated or no_objects) or
# ``{"target": x}`` (regression).
class TaskAnswer(TypedDict):
    label: NotRequired[int]
    status: NotRequired[AnnotationStatusEnum]
    boxes: NotRequired[list[AnswerBox]]
    target: NotRequired[float]


# One of the dataset's labels, in the dataset's order (an annotator cannot read the dataset).
class TaskLabel(TypedDict):
    id: int
    name: str
    color: str
    # The key that picks this label in the labeler.
    key: str | None


class TaskProgress(TypedDict):
    items: int
    # Items whose every answer is in.
    submitted: int
    # Items a reviewer accepted.
    accepted: int
    # Items a reviewer rejected (waiting for new answers).
    rejected: int
    per_annotator: list[AnnotatorProgress]


# The sample to label: its content and, for images, URLs an annotator may fetch.
class TaskSample(TypedDict):
    id: int
    original_name: str
    text: str
    # Tabular datasets: the row's values by column name (null: missing).
    values: dict[str, float | str | None] | None
    width: int | None
    height: int | None
    # The image's URL for this assignment; null: no image.
    image: str | None
    # Its thumbnail's URL; null: no image.
    thumbnail: str | None


TaskTypeEnum: TypeAlias = Literal[
    "image_classification",
    "text_classification",
    "tabular_classification",
    "tabular_regression",
    "object_detection",
    "time_series_forecasting",
]


# A task template: what it trains on, its parameters, presets and default search space.
class TemplateDescription(TypedDict):
    kind: TemplateDescriptionKindEnum
    version: int
    name: str
    title: str
    description: str
    data_kind: DataKindEnum
    label_kind: str
    default_preset: str
    presets: list[PresetDescription]
    params: list[ParamDescription]
    search_space: list[SearchDimension]
    objective: Objective
    metrics: list[str]
    data: DataRequirementsDescription


TemplateDescriptionKindEnum: TypeAlias = Literal["template"]


# An ONNX graph input or output: its shape has symbolic dims (names) and unknown ones (null).
class TensorDescription(TypedDict):
    name: str
    shape: list[int | str | None]
    dtype: str


class TextInstanceRequest(TypedDict):
    text: str


# A request to a text model.
class TextInstancesRequest(TypedDict):
    instances: list[TextInstanceRequest]
    top_k: NotRequired[int]


# WordPiece tokenization (lowercased, cut to ``max_length`` tokens, padded to the longest text of a batch) by
# the tokenizer.json whose sha256 is ``tokenizer_sha256``. The tokenizer travels with the model
# (``tokenizer_in`` says where); ``tokenizer`` holds it inline where a spec carries it.
class TextPreprocessing(TypedDict):
    kind: TextPreprocessingKindEnum
    version: int
    max_length: int
    inputs: list[str]
    output: str
    tokenizer_sha256: str
    tokenizer_in: NotRequired[str]
    tokenizer: NotRequired[str]


TextPreprocessingKindEnum: TypeAlias = Literal["text"]


# Expected training time (queueing not included) on the workers online, from earlier runs of the same template
# and model on the same worker class, scaled to this dataset's training samples, epochs and image size.
# ``runs``: how many earlier runs it rests on.
class TimeEstimate(TypedDict):
    basis: BasisEnum
    seconds: float | None
    samples_per_second: float | None
    runs: int
    worker_class: str | None
    message: str


# A forecasting dataset's profile (``Dataset.profile`` as of the last import): the frequency, how many series
# and observations, and per-series summaries (up to ``PROFILE_MAX_SERIES``, the longest first;
# ``series_count`` says how many there are).
class TimeSeriesProfile(TypedDict):
    kind: TimeSeriesProfileKindEnum
    version: int
    frequency: str
    frequency_inferred: str | None
    season_length: int
    series_count: int
    observations: int
    missing_share: float
    shortest: int
    longest: int
    series: list[SeriesProfile]


TimeSeriesProfileKindEnum: TypeAlias = Literal["time_series_profile"]


# What a forecasting dataset's first import fixes (``Dataset.schema``, copied to each version).
class TimeSeriesSchema(TypedDict):
    kind: TimeSeriesSchemaKindEnum
    timestamp_column: str
    series_column: str | None
    target_columns: list[str]
    known_covariates: list[str]
    static_covariates: list[str]
    frequency: str
    frequency_inferred: str | None
    fill_rule: FillRuleEnum


TimeSeriesSchemaKindEnum: TypeAlias = Literal["time_series"]


# What a forecasting dataset's first import fixes (``Dataset.schema``, copied to each version).
class TimeSeriesSchemaRequest(TypedDict):
    kind: TimeSeriesSchemaKindEnum
    timestamp_column: str
    series_column: str | None
    target_columns: list[str]
    known_covariates: list[str]
    static_covariates: list[str]
    frequency: str
    frequency_inferred: str | None
    fill_rule: FillRuleEnum


# A forecasting version's split by time: per split, the observations (rows) and the series with points in it;
# ``train_only_series`` were too short (under 2 x horizon + 2 steps) for validation and test windows.
class TimeSplit(TypedDict):
    horizon: int
    observations: dict[str, int]
    series: dict[str, int]
    train_only_series: int


TokenStatusEnum: TypeAlias = Literal["active", "revoked", "expired"]


class TrafficEntry(TypedDict):
    model_version: int
    model_version_name: str
    role: TrafficEntryRoleEnum
    weight: int


TrafficEntryRoleEnum: TypeAlias = Literal["primary", "canary", "shadow"]


# ``GET /api/v1/training-estimates/?dataset_version=<id>``: each preset's expected training time, quality,
# model size and speed, each with its basis.
class TrainingEstimates(TypedDict):
    kind: TrainingEstimatesKindEnum
    version: int
    dataset_version: int
    template: str
    train_samples: int
    workers: WorkersOnline
    presets: list[PresetEstimate]
    note: NotRequired[str]


TrainingEstimatesKindEnum: TypeAlias = Literal["training_estimates"]


class TrainingJob(TypedDict):
    id: int
    workspace: int
    project: int | None
    kind: str
    template: str
    preset: str
    # The template's parameters of the run: the preset's values with the overrides applied.
    params: dict[str, float | str | bool]
    dataset_version: int
    # The backbone the run started from (transfer learning), or null.
    backbone: int | None
    # The model version whose weights the run starts from (retrain from a version), or null.
    warm_start_from: int | None
    # Data-parallel processes (ranks) the job trains with on its worker's host.
    processes: int
    # The preset fitted to the dataset version and the workers online when the job was created: the values it
    # runs and each parameter chosen for the data and hardware, with why; null when it was started with adapt
    # false (or before this was recorded).
    recommendation: PresetRecommendation | None
    # The model version the run produced; null until it succeeds.
    model_version: ProducedModelVersion | None
    status: JobStatusEnum
    queue: str
    # Starts so far; the running attempt's number.
    attempt: int
    max_attempts: int
    # Worker process holding the job (host/pid).
    lease_owner: str
    heartbeat_at: str | None
    cancel_requested: bool
    # Its worker is shutting down: checkpoint, hand the job back, requeue at once.
    preempt_requested: bool
    # The latest progress report.
    progress: ProgressEvent
    # What the run recorded (its model version, metrics, where it resumed); null until it succeeds.
    result: TrainingJobResult | None
    error: str
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str
    created_at: str
    enqueued_at: str | None
    started_at: str | None
    finished_at: str | None
    # POST /jobs/{id}/retry/ would queue it again (failed or cancelled, of a kind that resumes).
    retryable: bool
    # Why a queued job waits (its place in the queue, the workers online for it and what they run); null
    # unless the job is queued.
    queue_state: QueueState | None
    # Your role in the job's workspace (a viewer cannot cancel or retry it).
    my_role: RoleEnum | NullEnum | None


class TrainingJobCreateRequest(TypedDict):
    dataset_version: int
    # Defaults to the dataset's task type.
    template: NotRequired[str]
    # fast, balanced or accurate; defaults to the template's.
    preset: NotRequired[str]
    # Advanced settings overriding the preset.
    params: NotRequired[dict[str, float | str | bool]]
    # A valid backbone of the dataset's project: transfer learning initialises all but the classification head
    # from it.
    backbone: NotRequired[int | None]
    # A model version of the dataset's project (same template and model) to start from: its weights, the
    # head's rows matched by class name (retrain from a version).
    warm_start_from: NotRequired[int | None]
    # Fit the preset to the dataset version and the workers online (batch size, epochs, model size... by the
    # template's rule; the job records the choices as its recommendation). Parameters in params are never
    # changed. false: the preset's values as declared.
    adapt: NotRequired[bool]
    # Where the model will run (a builtin target's name or a target profile's id; image classification):
    # before training, the worker fits image_size, width and int8 to its latency and size budgets and records
    # the choice and reasons (the job fails with target_unreachable, naming the smallest latency reached, when
    # nothing fits).
    target_profile: NotRequired[int | str | None]
    # Data-parallel processes on the worker's host (image classification): CPU processes, or one GPU each on a
    # GPU worker; the batch_size stays the global batch, split between them. At most SAMPAN_MAX_PROCESSES.
    processes: NotRequired[int]


# A finished training job's ``result`` (``training.run``; ``training.evaluate_model`` records the same without
# ``resumed_from`` and ``run_dir``): the model version it recorded.
class TrainingJobResult(TypedDict):
    kind: TrainingJobResultKindEnum
    version: int
    model_version: int
    name: str
    metrics: ModelVersionMetrics
    resumed_from: NotRequired[ResumedFrom | None]
    run_dir: NotRequired[str]
    target_fit: NotRequired[TargetFit]


TrainingJobResultKindEnum: TypeAlias = Literal["training_job_result"]


# A training run's summary (an epoch's entry in its history has the same keys): the last (image templates) or
# the best (text, tables) epoch's training and validation figures.
class TrainingMetrics(TypedDict):
    epoch: NotRequired[int]
    loss: NotRequired[float]
    train_loss: NotRequired[float]
    train_acc: NotRequired[float]
    val_loss: NotRequired[float | None]
    val_acc: NotRequired[float | None]
    best_val_acc: NotRequired[float | None]
    val_rmse: NotRequired[float]
    val_mae: NotRequired[float]
    val_r2: NotRequired[float]
    val_mase: NotRequired[float | None]
    val_smape: NotRequired[float | None]
    val_coverage: NotRequired[float | None]
    val_map50: NotRequired[float | None]
    best_val_map50: NotRequired[float | None]
    samples_per_s: NotRequired[float]
    train_seconds: NotRequired[float]
    elapsed_s: NotRequired[float]


class TrainingRunParams(TypedDict):
    kind: TrainingRunParamsKindEnum
    version: int
    dataset_version: int
    template: str
    preset: str
    params: dict[str, float | str | bool]
    backbone: NotRequired[int]
    recommendation: NotRequired[PresetRecommendation]
    target_profile: NotRequired[int | str]
    target_fit: NotRequired[TargetFit]
    processes: NotRequired[int]


TrainingRunParamsKindEnum: TypeAlias = Literal["training.run"]


# Where and how the run computed.
class TrainingRuntime(TypedDict):
    device: str
    seconds: NotRequired[float]
    threads: NotRequired[int]
    loader_workers: NotRequired[int]
    amp: NotRequired[str | None]
    torch: NotRequired[str]
    worker_class: NotRequired[str]
    processes: NotRequired[int]
    backend: NotRequired[str]
    restarts: NotRequired[int]


class Trial(TypedDict):
    id: int
    # Optuna's trial number within the study.
    number: int
    state: StateEnum
    # The sampled values of the search space.
    params: dict[str, float | str | bool]
    # The objective (best validation metric).
    value: float | None
    # One value per objective (study.objectives).
    values: list[float]
    measurements: TrialMeasurements
    # Within every constraint (null: none).
    feasible: bool | None
    # The trial measures and serves the int8 ONNX.
    quantized: bool
    # On the study's Pareto front.
    on_front: bool
    intermediate: list[IntermediateValue]
    pruned_at_epoch: int | None
    # Headline metrics on the test split (completed trials).
    test_metrics: TrialTestMetrics
    error: str
    job: int | None
    job_status: str | None
    duration_seconds: float | None
    started_at: str
    finished_at: str | None
    model_version: int | None
    model_version_name: str | None


# What a deployment-aware study's trial measured of the model it serves.
class TrialMeasurements(TypedDict):
    latency_ms: NotRequired[float]
    size_bytes: NotRequired[int]
    flops: NotRequired[int]
    precision: NotRequired[PrecisionEnum]
    quantization_delta: NotRequired[float]
    fp32_size_bytes: NotRequired[int]
    latency: NotRequired[LatencyMeasurement]


# A study's trial; a custom-code study's trial also carries the code it runs (the spec with the sampled
# hyperparameters) and the dataset version.
class TrialParams(TypedDict):
    kind: TrialParamsKindEnum
    version: int
    study: int
    trial: int
    code_archive: NotRequired[int]
    spec: NotRequired[CustomJobSpec]
    dataset_version: NotRequired[int | None]


TrialParamsKindEnum: TypeAlias = Literal["automl.trial"]


# ``automl.trial``: the trial's number and how it ended (``epoch`` when pruned; ``value`` and
# ``test_accuracy`` when complete; detectors add ``test_map50``).
class TrialResult(TypedDict):
    kind: TrialResultKindEnum
    version: int
    trial: int
    state: str
    epoch: NotRequired[int | None]
    value: NotRequired[float | None]
    test_accuracy: NotRequired[float | None]
    test_map50: NotRequired[float | None]


TrialResultKindEnum: TypeAlias = Literal["automl_trial_result"]


# A completed trial's headline metrics on the test split (null: the evaluation has none): classifiers'
# accuracy and macro F1, detectors' mAP@[.5:.95] (``map``) and mAP@.5, forecasters' MASE, sMAPE and skill
# against seasonal naive (``1 - mase / seasonal naive's``).
class TrialTestMetrics(TypedDict):
    accuracy: NotRequired[float | None]
    macro_f1: NotRequired[float | None]
    map: NotRequired[float | None]
    map50: NotRequired[float | None]
    mase: NotRequired[float | None]
    smape: NotRequired[float | None]
    skill: NotRequired[float | None]


class UsageFigures(TypedDict):
    calls: int
    errors: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None


class UsagePoint(TypedDict):
    calls: int
    errors: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    # Start of the bucket.
    t: str


class User(TypedDict):
    id: int
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    username: str
    email: str
    # Designates whether the user can log into this admin site.
    is_staff: bool


class UserBrief(TypedDict):
    id: int
    username: str
    email: str


class UserCreateRequest(TypedDict):
    # Letters, digits and @ . + - _ (at most 150).
    username: str
    email: NotRequired[str]
    password: NotRequired[str]
    # Create a platform administrator.
    is_staff: NotRequired[bool]


class ValueCount(TypedDict):
    value: str
    count: int


# A model's measurements: file size, parameters, FLOPs (2 x multiply-accumulates of Conv/Gemm/MatMul),
# precision, latency on the target, and its headline metric on the test split; ``delta`` = value - the
# parent's value (0 for the parent).
class VariantSummary(TypedDict):
    size_bytes: int
    parameters: int
    flops: int
    precision: PrecisionEnum
    latency: LatencyMeasurement
    metric: str
    value: float
    delta: float


VerdictEnum: TypeAlias = Literal["accept", "reject"]


class VersionSeriesPoint(TypedDict):
    start: str
    calls: int
    errors: int


class VersionUsage(TypedDict):
    model_version: int
    model_version_name: str
    # Its role now (previous: it answered in the window but serves no more).
    role: VersionUsageRoleEnum
    calls: int
    errors: int
    latency_ms: Latency
    # The answers' top-1 scores (regression: values) in buckets.
    scores: list[AnswerBucket]
    series: list[VersionSeriesPoint]


VersionUsageRoleEnum: TypeAlias = Literal["primary", "canary", "shadow", "previous"]


WindowEnum: TypeAlias = Literal["1h", "24h", "7d"]


# Workers of one kind: ``worker_class`` is ``gpu:<name>`` or ``cpu:<cores>``.
class WorkerClass(TypedDict):
    worker_class: str
    device: DeviceEnum
    name: str
    cpu_count: int
    count: int


# What ``workers.devices.detect`` reports (``error`` when the detection failed).
class WorkerDevices(TypedDict):
    cpu_count: NotRequired[int]
    machine: NotRequired[str]
    cuda: NotRequired[list[CudaDevice]]
    torch: NotRequired[str | None]
    error: NotRequired[str]


class WorkerNode(TypedDict):
    hostname: str
    queues: list[str]
    # What the worker detected at its start.
    devices: WorkerDevices
    concurrency: int
    started_at: str
    last_seen: str
    alive: bool


# The queue a training job would go to now and the workers online that consume it.
class WorkersOnline(TypedDict):
    queue: str
    online: int
    classes: list[WorkerClass]
    message: str


class Workspace(TypedDict):
    id: int
    name: str
    description: NotRequired[str]
    # The caller's role here.
    role: RoleEnum
    member_count: int
    created_at: str


class WorkspaceBrief(TypedDict):
    id: int
    name: str


class WorkspaceLimitState(TypedDict):
    # Which of the workspace's limits.
    scope: ScopeEnum
    # The workspace's jobs running (or handed to a worker) now.
    running: int
    # The most it may run at once.
    limit: int


# What the workspace may run at once, and what it runs now.
class WorkspaceLimits(TypedDict):
    # The workspace's own limit of jobs at once (null: the default).
    max_jobs: int | None
    # Its own limit of GPU-queue jobs at once (null: the default).
    max_gpu_jobs: int | None
    # The limit that applies (0: unlimited).
    effective_max_jobs: int
    # The GPU limit that applies (0: unlimited).
    effective_max_gpu_jobs: int
    # Its jobs running (or handed to a worker) now.
    running: int
    # Of them on the gpu queue.
    running_gpu: int
    # Whether you may change them (staff only).
    can_edit: bool
    # Last change (null: never set).
    updated_at: str | None


# One workspace of the administrators' list: which one, who owns it, its limits and use.
class WorkspaceLimitsRow(TypedDict):
    # The workspace's own limit of jobs at once (null: the default).
    max_jobs: int | None
    # Its own limit of GPU-queue jobs at once (null: the default).
    max_gpu_jobs: int | None
    # The limit that applies (0: unlimited).
    effective_max_jobs: int
    # The GPU limit that applies (0: unlimited).
    effective_max_gpu_jobs: int
    # Its jobs running (or handed to a worker) now.
    running: int
    # Of them on the gpu queue.
    running_gpu: int
    # Whether you may change them (staff only).
    can_edit: bool
    # Last change (null: never set).
    updated_at: str | None
    # The workspace's id.
    workspace: int
    # The workspace's name.
    workspace_name: str
    # Its owners' usernames.
    owners: list[str]


# New limits: any of the fields (the others keep their values). null: the installation's default; 0:
# unlimited.
class WorkspaceLimitsUpdateRequest(TypedDict):
    # Jobs running at once.
    max_jobs: NotRequired[int | None]
    # GPU jobs running at once.
    max_gpu_jobs: NotRequired[int | None]


class WorkspaceRequest(TypedDict):
    name: str
    description: NotRequired[str]


# A workspace's target profile. Fields are validated as the worker validates a profile (threads 1-64, slowdown
# 0.01-1000, provider ``*ExecutionProvider``); the name may not be a builtin's (worker-cpu, worker-cpu-4t,
# edge-arm-slow).
class WorkspaceTargetProfile(TypedDict):
    id: int
    workspace: int
    name: str
    description: NotRequired[str]
    runtime: NotRequired[RuntimeEnum]
    execution_provider: NotRequired[str]
    intra_op_threads: NotRequired[int]
    inter_op_threads: NotRequired[int]
    batch_size: NotRequired[int]
    # Target latency = latency measured on the worker x slowdown (1.0: the worker).
    slowdown: NotRequired[float]
    latency_budget_ms: NotRequired[float | None]
    size_budget_bytes: NotRequired[int | None]
    # Always false here (builtins: /builtins/).
    builtin: bool
    # Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.
    created_by: str | None
    created_at: str
    updated_at: str


# A workspace's target profile. Fields are validated as the worker validates a profile (threads 1-64, slowdown
# 0.01-1000, provider ``*ExecutionProvider``); the name may not be a builtin's (worker-cpu, worker-cpu-4t,
# edge-arm-slow).
class WorkspaceTargetProfileRequest(TypedDict):
    workspace: int
    name: str
    description: NotRequired[str]
    runtime: NotRequired[RuntimeEnum]
    execution_provider: NotRequired[str]
    intra_op_threads: NotRequired[int]
    inter_op_threads: NotRequired[int]
    batch_size: NotRequired[int]
    # Target latency = latency measured on the worker x slowdown (1.0: the worker).
    slowdown: NotRequired[float]
    latency_budget_ms: NotRequired[float | None]
    size_budget_bytes: NotRequired[int | None]


class ErrorError(TypedDict):
    code: str
    message: str
    details: Any


class Error(TypedDict):
    error: ErrorError


__all__ = [
    "ActivityBox",
    "ActivityValue",
    "ActivityValueReviewStatusEnum",
    "AdminUser",
    "AgreementReport",
    "AgreementReportKindEnum",
    "AnnotationConflict",
    "AnnotationConflictBody",
    "AnnotationConflictCodeEnum",
    "AnnotationConflictDetails",
    "AnnotationFormatEnum",
    "AnnotationRecord",
    "AnnotationRecordKindEnum",
    "AnnotationRecordRequest",
    "AnnotationStatusEnum",
    "AnnotatorProgress",
    "AnnotatorStats",
    "AnswerBox",
    "AnswerBoxRequest",
    "AnswerBucket",
    "AnyDatasetProfile",
    "ApiToken",
    "ApiTokenCreated",
    "ApiTokenRequest",
    "ArchitectureEnum",
    "AssignmentStatusEnum",
    "AssignmentTask",
    "AutoChoice",
    "AutomlConstraint",
    "AutomlLineage",
    "Averages",
    "Backbone",
    "BackboneCheckParams",
    "BackboneCheckParamsKindEnum",
    "BackboneCheckResult",
    "BackboneCheckResultKindEnum",
    "BackboneCreateRequest",
    "BackboneStatusEnum",
    "BackboneSummary",
    "BackendEnum",
    "BacktestWindow",
    "BacktestWindowRoleEnum",
    "BadCase",
    "BadCaseBox",
    "BaselineScores",
    "BasisEnum",
    "BatchErrorExample",
    "BatchFormatEnum",
    "BatchPredictJobParams",
    "BatchPredictJobParamsKindEnum",
    "BatchPredictJobResult",
    "BatchPredictJobResultKindEnum",
    "BatchPrediction",
    "BatchPredictionCreateRequest",
    "BatchPredictionCreateSplitEnum",
    "BatchPredictionFile",
    "BatchPredictionParams",
    "BatchPredictionSummary",
    "BatchPredictionSummaryKindEnum",
    "BatchProgress",
    "BatchResultFile",
    "BatchSource",
    "BatchSourceKindEnum",
    "BestTrial",
    "BlankEnum",
    "BoxGeometry",
    "BoxGeometryRequest",
    "BoxHistogram",
    "BrowserLatency",
    "BrowserLatencyRequest",
    "BuildPackageParams",
    "BuildPackageParamsKindEnum",
    "BuildPackageResult",
    "BuildPackageResultKindEnum",
    "BulkAnnotationConflict",
    "BulkAnnotationConflictBody",
    "BulkAnnotationConflictDetails",
    "BulkAnnotationsItemRequest",
    "BulkAnnotationsResult",
    "BulkAnnotationsWriteRequest",
    "BulkLabelConflict",
    "BulkLabelConflictBody",
    "BulkLabelConflictDetails",
    "BulkLabelConflictOrDeleted",
    "BulkLabelItemRequest",
    "BulkLabelRequest",
    "BulkLabelResult",
    "BusyWith",
    "ByEnum",
    "CanaryRequest",
    "CandidateScore",
    "CaptureDeleteRequest",
    "CaptureDeleteResult",
    "CapturePolicy",
    "CapturePolicySettings",
    "CapturePolicyUpdateRequest",
    "CaptureReasonEnum",
    "CaptureSendRequest",
    "CaptureSendResult",
    "CaptureSkipped",
    "CaptureSkippedReasonEnum",
    "CapturedAnswer",
    "CapturedRequest",
    "ClassAP",
    "ClassAPDelta",
    "ClassAgreement",
    "ClassBalance",
    "ClassComparison",
    "ClassCount",
    "ClassScore",
    "ClassScores",
    "ClassificationHeadline",
    "ClassificationPrediction",
    "ClassificationReport",
    "ClassificationReportKindEnum",
    "CodeArchive",
    "CodeArchiveCodeKindEnum",
    "CodeArchiveCreateRequest",
    "CodeFile",
    "CodeFileText",
    "ColorEnum",
    "ColumnProfile",
    "ColumnTypeEnum",
    "Compression",
    "CompressionCreateRequest",
    "CompressionJobParams",
    "CompressionJobParamsKindEnum",
    "CompressionJobResult",
    "CompressionJobResultKindEnum",
    "CompressionLineage",
    "CompressionLineageKindEnum",
    "CompressionRecipe",
    "CompressionReport",
    "CompressionReportTaskEnum",
    "CompressionRunReport",
    "CompressionRunReportKindEnum",
    "CompressionSpec",
    "CompressionSpecKindEnum",
    "ConfusionMatrix",
    "CrossValidation",
    "CrossValidationKindEnum",
    "Csrf",
    "CudaDevice",
    "CurrentLabel",
    "CustomCode",
    "CustomJobCreateRequest",
    "CustomJobLimitsRequest",
    "CustomJobLineage",
    "CustomJobLineageKindEnum",
    "CustomJobParams",
    "CustomJobParamsKindEnum",
    "CustomJobResult",
    "CustomJobResultKindEnum",
    "CustomJobResultStoppedEnum",
    "CustomJobSpec",
    "CustomJobSpecCodeKindEnum",
    "CustomJobSpecKindEnum",
    "CustomLimits",
    "CustomLimitsRequest",
    "CustomModelOutput",
    "CustomStudyCreateRequest",
    "DataKindEnum",
    "DataProfile",
    "DataRequirementsDescription",
    "Dataset",
    "DatasetExportJobCreateFormatEnum",
    "DatasetExportJobCreateRequest",
    "DatasetExportJobParams",
    "DatasetExportJobParamsKindEnum",
    "DatasetExportJobResult",
    "DatasetExportJobResultKindEnum",
    "DatasetImportParams",
    "DatasetImportParamsKindEnum",
    "DatasetImportResult",
    "DatasetImportResultKindEnum",
    "DatasetProfile",
    "DatasetQualityReport",
    "DatasetRequest",
    "DatasetSchema",
    "DatasetSchemaRequest",
    "DatasetStatistics",
    "DatasetVersion",
    "DatasetVersionCreateRequest",
    "DatasetVersionJobParams",
    "DatasetVersionJobParamsKindEnum",
    "DatasetVersionJobResult",
    "DatasetVersionJobResultKindEnum",
    "DecimalEnum",
    "Deployment",
    "DeploymentCreateRequest",
    "DeploymentEvent",
    "DeploymentEventActionEnum",
    "DeploymentEventDetails",
    "DeploymentKey",
    "DeploymentKeyCreateRequest",
    "DeploymentKeyCreated",
    "DeploymentPromoteRequest",
    "DeploymentShadowRequest",
    "DeploymentStatusEnum",
    "DeploymentSwitchRequest",
    "DeploymentTarget",
    "DeploymentTargetKindEnum",
    "DeploymentTrafficRequest",
    "DeploymentUsage",
    "DetectedBox",
    "DetectionConfusion",
    "DetectionHeadline",
    "DetectionInstancesRequest",
    "DetectionPrediction",
    "DetectionReport",
    "DetectionReportKindEnum",
    "DetectionStatistics",
    "DeviceEnum",
    "DeviceSdkReport",
    "DeviceSdkReportKindEnum",
    "DirectionEnum",
    "DistillSpec",
    "Distribution",
    "DtypeEnum",
    "Error",
    "ErrorError",
    "ExportedOnnx",
    "FeatureImportance",
    "FillRuleEnum",
    "Finding",
    "FindingCodeEnum",
    "FindingItem",
    "FitCandidate",
    "FoldScore",
    "ForecastContract",
    "ForecastInstanceRequest",
    "ForecastInstancesRequest",
    "ForecastMetricPair",
    "ForecastMetrics",
    "ForecastPlot",
    "ForecastPrediction",
    "ForecastReport",
    "ForecastReportKindEnum",
    "FormatCount",
    "FrequencyEnum",
    "HardwareProfile",
    "HeadlineMetrics",
    "Histogram",
    "HistoryPoint",
    "HorizonComparison",
    "HorizonScores",
    "ImageInstanceRequest",
    "ImageInstancesRequest",
    "ImagePreprocessing",
    "ImagePreprocessingFormatEnum",
    "ImagePreprocessingKindEnum",
    "ImportBatch",
    "ImportBatchSummary",
    "ImportCreateRequest",
    "ImportMapping",
    "ImportProblem",
    "ImportProblemActionEnum",
    "ImportSourceEnum",
    "ImportStatusEnum",
    "IntermediateValue",
    "Invitation",
    "InvitationAccepted",
    "InvitationCreateRequest",
    "InvitationStatusEnum",
    "ItemAssignment",
    "Job",
    "JobCreateRequest",
    "JobEvent",
    "JobEventTypeEnum",
    "JobKind",
    "JobLogData",
    "JobLogDataKindEnum",
    "JobLogPage",
    "JobStatusData",
    "JobStatusDataKindEnum",
    "JobStatusDataStatusEnum",
    "JobStatusEnum",
    "KindEnum",
    "Label",
    "LabelBoxCount",
    "LabelChange",
    "LabelConflictCodeEnum",
    "LabelDeleted",
    "LabelDeletedBody",
    "LabelDeletedCodeEnum",
    "LabelDeletedDetails",
    "LabelMergeRequest",
    "LabelReorderRequest",
    "LabelRequest",
    "LabeledSample",
    "LabelingAssignment",
    "LabelingItem",
    "LabelingTask",
    "LabelingTaskCreateRequest",
    "LabelingTaskStatusEnum",
    "LanguageEnum",
    "LargestError",
    "Latency",
    "LatencyMeasurement",
    "LatencyMeasurementKindEnum",
    "LayoutEnum",
    "Lift",
    "LiftError",
    "LiftErrorRoleEnum",
    "LiftStatusEnum",
    "LogLine",
    "LoginRequest",
    "Me",
    "Membership",
    "MembershipCreateRequest",
    "MembershipRequest",
    "MergeTargetDeleted",
    "MergeTargetDeletedBody",
    "MergeTargetDeletedDetails",
    "MethodEnum",
    "MetricInterval",
    "MetricPair",
    "Mistake",
    "ModelEnum",
    "ModelEvaluationParams",
    "ModelEvaluationParamsKindEnum",
    "ModelFile",
    "ModelImportParams",
    "ModelImportParamsKindEnum",
    "ModelImportResult",
    "ModelImportResultKindEnum",
    "ModelVersion",
    "ModelVersionBackbone",
    "ModelVersionClassificationComparison",
    "ModelVersionClassificationComparisonKindEnum",
    "ModelVersionComparison",
    "ModelVersionDetectionComparison",
    "ModelVersionDetectionComparisonKindEnum",
    "ModelVersionEvaluation",
    "ModelVersionForecastComparison",
    "ModelVersionForecastComparisonKindEnum",
    "ModelVersionMetrics",
    "ModelVersionRegressionComparison",
    "ModelVersionRegressionComparisonKindEnum",
    "ModelVersionSourceEnum",
    "ModelVersionUploadFormatEnum",
    "ModelVersionUploadRequest",
    "Notebook",
    "NotebookCreateRequest",
    "NotebookLimitsRequestRequest",
    "NotebookServeParams",
    "NotebookServeParamsKindEnum",
    "NotebookServeResult",
    "NotebookServeResultKindEnum",
    "NotebookServeResultStoppedEnum",
    "NotebookStatusEnum",
    "NullEnum",
    "Objective",
    "ObjectiveRequest",
    "OnnxDescription",
    "OpEnum",
    "Package",
    "PackageCreateRequest",
    "PackageFile",
    "PackageManifestSummary",
    "PackagedModelQuality",
    "PackagedModelVersion",
    "PaginatedAdminUserList",
    "PaginatedApiTokenList",
    "PaginatedBackboneList",
    "PaginatedBatchPredictionList",
    "PaginatedCapturedRequestList",
    "PaginatedCodeArchiveList",
    "PaginatedCompressionList",
    "PaginatedDatasetList",
    "PaginatedDatasetVersionList",
    "PaginatedDeploymentList",
    "PaginatedImportBatchSummaryList",
    "PaginatedInvitationList",
    "PaginatedJobEventList",
    "PaginatedJobList",
    "PaginatedLabelList",
    "PaginatedLabelingAssignmentList",
    "PaginatedLabelingItemList",
    "PaginatedLabelingTaskList",
    "PaginatedMembershipList",
    "PaginatedModelVersionList",
    "PaginatedNotebookList",
    "PaginatedPackageList",
    "PaginatedProjectList",
    "PaginatedQualityReportSummaryList",
    "PaginatedSampleActivityList",
    "PaginatedSmartRoundList",
    "PaginatedStudyList",
    "PaginatedSuggestionList",
    "PaginatedTrainingJobList",
    "PaginatedWorkspaceLimitsRowList",
    "PaginatedWorkspaceList",
    "PaginatedWorkspaceTargetProfileList",
    "PairAgreement",
    "ParamDescription",
    "ParamTypeEnum",
    "PasswordResetRequest",
    "PasswordResetResult",
    "PatchedDatasetRequest",
    "PatchedDeploymentUpdateRequest",
    "PatchedLabelRequest",
    "PatchedLabelingTaskUpdateRequest",
    "PatchedMeUpdateRequest",
    "PatchedMembershipRequest",
    "PatchedProjectRequest",
    "PatchedSampleLabelWriteRequest",
    "PatchedWorkspaceRequest",
    "PatchedWorkspaceTargetProfileUpdateRequest",
    "PerLabelCount",
    "PrecisionEnum",
    "PrecisionRecallCurve",
    "PredictMultipartRequest",
    "PredictRequestRequest",
    "PredictResponse",
    "PredictResponseKindEnum",
    "PredictedValue",
    "Prediction",
    "PredictionModelVersion",
    "PresetDescription",
    "PresetEnum",
    "PresetEstimate",
    "PresetRecommendation",
    "PresetRecommendationKindEnum",
    "ProducedModelVersion",
    "ProfileHistogram",
    "ProgressEvent",
    "ProgressEventKindEnum",
    "Project",
    "ProjectRequest",
    "PromoteRequest",
    "PruneSpec",
    "PrunerEnum",
    "QualityEstimate",
    "QualityParams",
    "QualityReport",
    "QualityReportCreateRequest",
    "QualityReportJobParams",
    "QualityReportJobParamsKindEnum",
    "QualityReportJobResult",
    "QualityReportJobResultKindEnum",
    "QualityReportKindEnum",
    "QualityReportSummary",
    "QualityThresholdsRequest",
    "Quantization",
    "QuantizeEnum",
    "QueueState",
    "QueueStateReasonEnum",
    "Range",
    "RegressionMetricPair",
    "RegressionMetrics",
    "RegressionPrediction",
    "RegressionReport",
    "RegressionReportKindEnum",
    "ReportRunParams",
    "ReportRunParamsKindEnum",
    "ReportRunResult",
    "ReportRunResultKindEnum",
    "ReportedParent",
    "ReportedVariant",
    "ResampleEnum",
    "ResidualPoint",
    "Residuals",
    "ResizeModeEnum",
    "ResourceLimits",
    "ResumedFrom",
    "RetrainRequest",
    "ReviewEnum",
    "ReviewRequest",
    "ReviewResult",
    "ReviewSkip",
    "ReviewSkipReasonEnum",
    "RoleEnum",
    "RunArtifact",
    "RunEnvironment",
    "RuntimeEnum",
    "Sample",
    "SampleActivity",
    "SampleActivityActionEnum",
    "SampleActivitySourceEnum",
    "SampleAnnotations",
    "SampleAnnotationsWriteRequest",
    "SampleBox",
    "SampleCounts",
    "SampleLabelConflict",
    "SampleLabelConflictBody",
    "SampleLabelConflictDetails",
    "SampleLabelWriteConflict",
    "SamplePage",
    "SampleReviewStatusEnum",
    "SampleSplitEnum",
    "SampleSuggestion",
    "SampleSuggestionBox",
    "SamplerEnum",
    "ScopeEnum",
    "SearchDimension",
    "SearchDimensionRequest",
    "SearchDimensionTypeEnum",
    "Selection",
    "SelectionRequest",
    "SeriesComparison",
    "SeriesPoints",
    "SeriesProfile",
    "SeriesScores",
    "ServerPackageReport",
    "ServerPackageReportKindEnum",
    "SeverityEnum",
    "ShadowAgreement",
    "ShadowAgreementPoint",
    "SizeBucket",
    "SizeCount",
    "SizeEstimate",
    "SkippedCheck",
    "SkippedRecipe",
    "SkippedSuggestion",
    "SkippedSuggestionReasonEnum",
    "SmartLabelingParams",
    "SmartLabelingSummary",
    "SmartLabelingSummaryKindEnum",
    "SmartRound",
    "SmartRoundCreateRequest",
    "SmartRoundJobParams",
    "SmartRoundJobParamsKindEnum",
    "SmartRoundJobResult",
    "SmartRoundJobResultKindEnum",
    "SpeedEstimate",
    "Spread",
    "StateEnum",
    "StrategyEnum",
    "StreamEnum",
    "Study",
    "StudyConstraint",
    "StudyConstraintRequest",
    "StudyCreateRequest",
    "StudyDefaults",
    "StudyGoal",
    "StudyGoalRequest",
    "StudyResults",
    "StudyStartRequest",
    "StudyStatusEnum",
    "StudyTrials",
    "SubmitRequest",
    "Suggestion",
    "SuggestionAcceptRequest",
    "SuggestionAcceptResult",
    "SuggestionDecisionRequest",
    "SuggestionRejectResult",
    "SuggestionSample",
    "SuggestionScore",
    "SuggestionSourceEnum",
    "SuggestionStatusEnum",
    "SupportPair",
    "SystemCheckParams",
    "SystemCheckParamsKindEnum",
    "SystemCheckResult",
    "SystemCheckResultKindEnum",
    "SystemComputation",
    "TableColumn",
    "TableColumnRequest",
    "TableFeature",
    "TableFeatureTypeEnum",
    "TableFormatEnum",
    "TableInstancesRequest",
    "TablePreprocessing",
    "TablePreprocessingKindEnum",
    "TablePreview",
    "TablePreviewRequestRequest",
    "TableSuggestion",
    "TableTaskEnum",
    "TargetFit",
    "TargetFitKindEnum",
    "TargetProfile",
    "TargetTypeEnum",
    "TaskAnswer",
    "TaskLabel",
    "TaskProgress",
    "TaskSample",
    "TaskTypeEnum",
    "TemplateDescription",
    "TemplateDescriptionKindEnum",
    "TensorDescription",
    "TextInstanceRequest",
    "TextInstancesRequest",
    "TextPreprocessing",
    "TextPreprocessingKindEnum",
    "TimeEstimate",
    "TimeSeriesProfile",
    "TimeSeriesProfileKindEnum",
    "TimeSeriesSchema",
    "TimeSeriesSchemaKindEnum",
    "TimeSeriesSchemaRequest",
    "TimeSplit",
    "TokenStatusEnum",
    "TrafficEntry",
    "TrafficEntryRoleEnum",
    "TrainingEstimates",
    "TrainingEstimatesKindEnum",
    "TrainingJob",
    "TrainingJobCreateRequest",
    "TrainingJobResult",
    "TrainingJobResultKindEnum",
    "TrainingMetrics",
    "TrainingRunParams",
    "TrainingRunParamsKindEnum",
    "TrainingRuntime",
    "Trial",
    "TrialMeasurements",
    "TrialParams",
    "TrialParamsKindEnum",
    "TrialResult",
    "TrialResultKindEnum",
    "TrialTestMetrics",
    "UsageFigures",
    "UsagePoint",
    "User",
    "UserBrief",
    "UserCreateRequest",
    "ValueCount",
    "VariantSummary",
    "VerdictEnum",
    "VersionSeriesPoint",
    "VersionUsage",
    "VersionUsageRoleEnum",
    "WindowEnum",
    "WorkerClass",
    "WorkerDevices",
    "WorkerNode",
    "WorkersOnline",
    "Workspace",
    "WorkspaceBrief",
    "WorkspaceLimitState",
    "WorkspaceLimits",
    "WorkspaceLimitsRow",
    "WorkspaceLimitsUpdateRequest",
    "WorkspaceRequest",
    "WorkspaceTargetProfile",
    "WorkspaceTargetProfileRequest",
]
