"""Each job kind's parameters and result (``Job.params``, ``Job.result``), and the devices a worker
detected (``WorkerNode.devices``, a system check's ``devices``).

A job's ``params`` are stored as its kind's serializer validated them; the API answers them with
``kind`` (the job's kind name, e.g. ``"system.check"``) and ``version`` added, so a client switches
on ``kind`` (``job_params``). A finished job's ``result`` is stored with its own ``kind`` (the
runner stamps it: ``job_result``; the training kinds' is ``training_job_result``).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from workers.contracts.compression import CompressionSpec
from workers.contracts.custom_code import CustomJobSpec
from workers.contracts.preprocessing import ImagePreprocessing
from workers.contracts.target_fit import TargetFit
from workers.contracts.templates import ParamValues, PresetRecommendation

JOB_PARAMS_VERSION = 1
JOB_RESULT_VERSION = 1


# --- devices -----------------------------------------------------------------------------------


class CudaDevice(TypedDict):
    index: int
    name: str
    memory_bytes: int


class WorkerDevices(TypedDict):
    """What ``workers.devices.detect`` reports (``error`` when the detection failed)."""

    cpu_count: NotRequired[int]
    machine: NotRequired[str]
    cuda: NotRequired[list[CudaDevice]]
    torch: NotRequired[str | None]
    error: NotRequired[str]


# --- params ------------------------------------------------------------------------------------


class SystemCheckParams(TypedDict):
    kind: Literal["system.check"]
    version: int
    seconds: NotRequired[float]


class DatasetImportParams(TypedDict):
    kind: Literal["datasets.import"]
    version: int
    import_batch: int


class TrainingRunParams(TypedDict):
    kind: Literal["training.run"]
    version: int
    dataset_version: int
    template: str
    preset: str
    params: ParamValues
    backbone: NotRequired[int]
    recommendation: NotRequired[PresetRecommendation]
    target_profile: NotRequired[int | str]  # a workspace profile's id or a builtin's name
    target_fit: NotRequired[TargetFit]  # set by the worker before training (kept for a retry)
    processes: NotRequired[int]  # data-parallel ranks on the worker's host (absent: 1)


class BackboneCheckParams(TypedDict):
    kind: Literal["training.check_backbone"]
    version: int
    backbone: int


class ModelImportParams(TypedDict):
    kind: Literal["training.import_model"]
    version: int
    blob_key: str
    sha256: str
    filename: str
    architecture: str
    classes: list[str]
    preprocessing: NotRequired[ImagePreprocessing]
    dataset_version: NotRequired[int | None]
    bytes: NotRequired[int | None]


class ModelEvaluationParams(TypedDict):
    kind: Literal["training.evaluate_model"]
    version: int
    model_version: int


class TrialParams(TypedDict):
    """A study's trial; a custom-code study's trial also carries the code it runs (the spec with the
    sampled hyperparameters) and the dataset version."""

    kind: Literal["automl.trial"]
    version: int
    study: int
    trial: int
    code_archive: NotRequired[int]
    spec: NotRequired[CustomJobSpec]
    dataset_version: NotRequired[int | None]


class ReportRunParams(TypedDict):
    kind: Literal["automl.report_run"]
    version: int
    study: int
    report_run: int


class BuildPackageParams(TypedDict):
    kind: Literal["deploy.build_package"]
    version: int
    package: int


class QualityReportJobParams(TypedDict):
    kind: Literal["datasets.quality_report"]
    version: int
    quality_report: int


class DatasetVersionJobParams(TypedDict):
    """``datasets.version``: the dataset and the version's split (the seed drawn when it was queued),
    and how many samples it was expected to hold."""

    kind: Literal["datasets.version"]
    version: int
    dataset: int
    seed: int
    samples: int
    train_ratio: NotRequired[float]
    val_ratio: NotRequired[float]
    test_ratio: NotRequired[float]
    note: NotRequired[str]
    reviewed_only: NotRequired[bool]


class DatasetExportJobParams(TypedDict):
    """``datasets.export``: the dataset, the version exported (null: its current samples), the
    object-detection format ("" otherwise) and how many samples it was expected to hold."""

    kind: Literal["datasets.export"]
    version: int
    dataset: int
    dataset_version: int | None
    format: str
    samples: int


class SmartRoundJobParams(TypedDict):
    kind: Literal["labeling.smart_round"]
    version: int
    smart_round: int


class BatchPredictJobParams(TypedDict):
    kind: Literal["deploy.batch_predict"]
    version: int
    batch_prediction: int


class CustomJobParams(TypedDict):
    """A custom training job: the code archive, the spec the worker runs, the dataset version, its
    display name, and the AutoML trial it is (custom-code studies)."""

    kind: Literal["training.custom"]
    version: int
    code_archive: int
    spec: CustomJobSpec
    dataset_version: int | None
    name: NotRequired[str]
    trial: NotRequired[int]


class CompressionJobParams(TypedDict):
    """A compression run (``training.compress``): the model version compressed, what to make
    (``spec``), the teacher of distillation recipes (null: the parent) and the ``Compression`` row."""

    kind: Literal["training.compress"]
    version: int
    model_version: int
    spec: CompressionSpec
    teacher: int | None
    compression: int


class NotebookServeParams(TypedDict):
    kind: Literal["notebooks.serve"]
    version: int
    notebook: int
    platform_url: NotRequired[str]  # the SDK's SAMPAN_URL inside the notebook


JOB_PARAMS: dict[str, type] = {
    "system.check": SystemCheckParams,
    "datasets.import": DatasetImportParams,
    "training.run": TrainingRunParams,
    "training.check_backbone": BackboneCheckParams,
    "training.import_model": ModelImportParams,
    "training.evaluate_model": ModelEvaluationParams,
    "automl.trial": TrialParams,
    "automl.report_run": ReportRunParams,
    "deploy.build_package": BuildPackageParams,
    "datasets.quality_report": QualityReportJobParams,
    "datasets.version": DatasetVersionJobParams,
    "datasets.export": DatasetExportJobParams,
    "labeling.smart_round": SmartRoundJobParams,
    "deploy.batch_predict": BatchPredictJobParams,
    "training.custom": CustomJobParams,
    "notebooks.serve": NotebookServeParams,
    "training.compress": CompressionJobParams,
}


def job_params(job_kind: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """A job's stored params as the API answers them: with its kind and the version."""
    return {**(params or {}), "kind": job_kind, "version": JOB_PARAMS_VERSION}


# --- results -----------------------------------------------------------------------------------


class SystemComputation(TypedDict):
    backend: str
    matrix_size: int
    steps: int
    seconds: float
    gflops: float
    checksum: float


class SystemCheckResult(TypedDict):
    """``system.check``: the worker's versions (python, numpy, torch, django, platform), its devices
    and the test computation."""

    kind: Literal["system_check_result"]
    version: int
    versions: dict[str, str | None]
    devices: WorkerDevices
    computation: SystemComputation


class DatasetImportResult(TypedDict):
    """``datasets.import``: the batch and its counts (a batch imported by an earlier attempt has only
    ``imported``)."""

    kind: Literal["dataset_import_result"]
    version: int
    import_batch: int
    imported: int
    duplicates: NotRequired[int]
    failed: NotRequired[int]
    labels_created: NotRequired[int]


class BackboneSummary(TypedDict):
    """What the check read from a valid backbone file: the model it fits (``architecture``, or null)
    and every model it can initialise (``fits``), its tensors, learned values (``parameters``,
    batch-norm statistics aside), the outputs of its own head (``head_classes``, fc, which training
    replaces; null without one) and the dtypes it holds."""

    architecture: str | None
    fits: list[str]
    tensors: int
    parameters: int
    head_classes: int | None
    dtypes: list[str]


class BackboneCheckResult(TypedDict):
    """``training.check_backbone``: the backbone's status and summary or error (``deleted`` when the
    backbone was gone)."""

    kind: Literal["backbone_check_result"]
    version: int
    backbone: int
    deleted: NotRequired[bool]
    status: NotRequired[str]
    summary: NotRequired[BackboneSummary | None]
    error: NotRequired[str]


class ExportedOnnx(TypedDict):
    bytes: int
    sha256: str
    opset: int


class ModelImportResult(TypedDict):
    """``training.import_model``: the model version recorded and its ONNX file."""

    kind: Literal["model_import_result"]
    version: int
    model_version: int
    name: str
    onnx: ExportedOnnx


class TrialResult(TypedDict):
    """``automl.trial``: the trial's number and how it ended (``epoch`` when pruned; ``value`` and
    ``test_accuracy`` when complete; detectors add ``test_map50``)."""

    kind: Literal["automl_trial_result"]
    version: int
    trial: int
    state: str
    epoch: NotRequired[int | None]
    value: NotRequired[float | None]
    test_accuracy: NotRequired[float | None]
    test_map50: NotRequired[float | None]


class ReportRunResult(TypedDict):
    """``automl.report_run``: the run and its test metric."""

    kind: Literal["automl_report_run_result"]
    version: int
    report_run: int
    role: NotRequired[str]
    seed: NotRequired[int]
    test_metric: float | None


class BuildPackageResult(TypedDict):
    """``deploy.build_package``: the package built (its kind, server or device, is ``package_kind``);
    ``deleted`` when the package was gone."""

    kind: Literal["package_build_result"]
    version: int
    package: int
    deleted: NotRequired[bool]
    package_kind: NotRequired[str]
    sha256: NotRequired[str]
    size_bytes: NotRequired[int]


class QualityReportJobResult(TypedDict):
    """``datasets.quality_report``: the report computed and how many findings it has."""

    kind: Literal["quality_report_result"]
    version: int
    quality_report: int
    findings: int


class DatasetVersionJobResult(TypedDict):
    """``datasets.version``: the version made, its number and how many samples it holds."""

    kind: Literal["dataset_version_result"]
    version: int
    dataset_version: int
    number: int
    sample_count: int


class DatasetExportJobResult(TypedDict):
    """``datasets.export``: where the zip is stored, its download name and size; download it from
    ``GET /api/v1/datasets/{dataset}/exports/{job id}/``."""

    kind: Literal["dataset_export_result"]
    version: int
    dataset: int
    blob_key: str
    filename: str
    size_bytes: int


class SmartRoundJobResult(TypedDict):
    """``labeling.smart_round``: the round, its suggestions and how many of them are ranked."""

    kind: Literal["smart_round_result"]
    version: int
    smart_round: int
    suggestions: int
    ranked: int


class BatchPredictJobResult(TypedDict):
    """``deploy.batch_predict``: the batch prediction, how many inputs were predicted and how many
    were errors."""

    kind: Literal["batch_predict_result"]
    version: int
    batch_prediction: int
    predicted: int
    errors: int


class NotebookServeResult(TypedDict):
    """``notebooks.serve``: why the server stopped by itself (a stop by its owner cancels the job);
    ``before_start``: the notebook was stopped before a worker took it."""

    kind: Literal["notebook_serve_result"]
    version: int
    notebook: int
    stopped: Literal["idle", "exited", "time_limit", "memory_limit", "before_start"]
    reason: str
    files_restored: NotRequired[int]
    files_saved: NotRequired[int]
    peak_memory_mb: NotRequired[float]


class CompressionJobResult(TypedDict):
    """``training.compress``: the compression run and the model versions it recorded (one per
    variant), and how many recipes did not apply."""

    kind: Literal["compression_job_result"]
    version: int
    compression: int
    model_versions: list[int]
    skipped: int


# The result kind of each job kind (the training kinds' is workers.contracts.jobs.TrainingJobResult).
RESULT_KINDS: dict[str, str] = {
    "system.check": "system_check_result",
    "datasets.import": "dataset_import_result",
    "training.run": "training_job_result",
    "training.evaluate_model": "training_job_result",
    "training.check_backbone": "backbone_check_result",
    "training.import_model": "model_import_result",
    "automl.trial": "automl_trial_result",
    "automl.report_run": "automl_report_run_result",
    "deploy.build_package": "package_build_result",
    "datasets.quality_report": "quality_report_result",
    "datasets.version": "dataset_version_result",
    "datasets.export": "dataset_export_result",
    "labeling.smart_round": "smart_round_result",
    "deploy.batch_predict": "batch_predict_result",
    "training.custom": "custom_job_result",
    "notebooks.serve": "notebook_serve_result",
    "training.compress": "compression_job_result",
}


def job_result(job_kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """A job body's result with its kind's ``kind`` and ``version`` stamped (kept when the body
    stamped them itself)."""
    if not isinstance(result, dict) or job_kind not in RESULT_KINDS:
        return result
    return {"kind": RESULT_KINDS[job_kind], "version": JOB_RESULT_VERSION, **result}
