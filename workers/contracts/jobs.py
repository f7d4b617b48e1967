"""Jobs: the progress event a compute function reports, the other events of a job's history, and
the training result (what a template's ``train`` returns, and what a training job records).

A progress event is what ``report(message, fraction=..., **metrics)`` (``workers.progress``)
records: the job row keeps the latest as ``progress`` and the series as ``progress`` events, which
the UI draws as live curves. Every metric a compute function may report is named here; reporting
another is a programming error (``workers.progress.progress_event`` refuses it).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from workers.contracts.target_fit import TargetFit
from workers.contracts.templates import Objective, ParamValues

PROGRESS_VERSION = 1
JOB_EVENT_VERSION = 1
TRAINING_RESULT_VERSION = 1


class ProgressEvent(TypedDict):
    """One progress report. Only ``kind`` and ``version`` are always there (a job that has not
    reported yet shows just those); the rest is what the reporter had to say:

    - ``fraction``: 0..1 of the whole job; ``message``: a sentence for people.
    - training: ``epoch``/``epochs``, ``step``/``steps`` (optimizer steps), ``loss``, ``train_acc``,
      ``lr``, ``samples_per_s``, ``eta_s`` (seconds left); an epoch's end adds validation
      (``val_loss``, ``val_acc``; regression ``val_rmse``, ``val_mae``, ``val_r2``; detection
      ``val_map50``; forecasting ``val_mase``, ``val_smape``, ``val_coverage`` over the
      backtest windows; ``None`` without a
      validation split) and ``best_epoch``; a long validation reports ``validated``/``validation_size``;
      an HPO trial stopped by the pruner reports ``pruned``; a cross-validating run reports which
      ``fold`` of ``folds`` it is training (the final fit on all the data has none) and ``fold_score``,
      a finished fold's held-out score.
    - evaluation: ``evaluated`` of ``total`` samples.
    - imports: ``processed`` of ``total`` files, ``imported`` samples, ``problems`` refused.
    - packages: ``size_bytes`` of the archive, ``top1_agreement`` of int8 with fp32.
    - system check: ``step`` of ``total``, ``gflops``.
    - custom code (``sampan.run.log_metrics(step=..., **metrics)``): ``step`` and ``custom_metrics``,
      the user's own metric names and values (finite floats), drawn as curves like a template's.
    """

    kind: Literal["progress"]
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


PROGRESS_METRICS = frozenset(ProgressEvent.__annotations__) - {"kind", "version", "message", "fraction"}

JobStatusName = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class JobStatusData(TypedDict):
    """A status event's data: the status the job entered, on which attempt, and (when it started
    running) on which worker process."""

    kind: Literal["job_status"]
    version: int
    status: JobStatusName
    attempt: NotRequired[int]
    worker: NotRequired[str]


class JobLogData(TypedDict):
    """A log event's data: the worker process concerned, and the one it took over from."""

    kind: Literal["job_log"]
    version: int
    worker: NotRequired[str]
    previous: NotRequired[str]


JobEventData = ProgressEvent | JobStatusData | JobLogData
EVENT_KINDS: dict[str, str] = {"progress": "progress", "status": "job_status", "log": "job_log"}


def job_event_data(event_type: str, data: dict[str, Any] | None) -> dict[str, Any]:
    """An event's data with the ``kind`` of its type (``status`` -> ``job_status``, ``log`` ->
    ``job_log``, ``progress`` -> ``progress``) and the version stamped."""
    version = PROGRESS_VERSION if event_type == "progress" else JOB_EVENT_VERSION
    return {**(data or {}), "kind": EVENT_KINDS[event_type], "version": version}


class TrainingMetrics(TypedDict):
    """A training run's summary (an epoch's entry in its history has the same keys): the last
    (image templates) or the best (text, tables) epoch's training and validation figures."""

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


class TrainingRuntime(TypedDict):
    """Where and how the run computed."""

    device: str
    seconds: NotRequired[float]
    threads: NotRequired[int]
    loader_workers: NotRequired[int]
    amp: NotRequired[str | None]
    torch: NotRequired[str]
    # the kind of worker that ran it, recorded by the platform: "gpu:<name>" or "cpu:<cores>"
    worker_class: NotRequired[str]
    # data-parallel ranks (workers.distributed): 1 for a single process; with more, the process
    # group's backend (gloo, nccl) and how often a lost rank made the launcher restart the group
    processes: NotRequired[int]
    backend: NotRequired[str]
    restarts: NotRequired[int]


class BackboneUse(TypedDict):
    """The tensors a backbone initialised (image templates' transfer learning)."""

    tensors: int


class ResumedFrom(TypedDict):
    """The checkpoint a resumed run continued from."""

    epoch: int
    step: int
    batch_in_epoch: int
    checkpoint: str


class TrainingResult(TypedDict):
    """What a template's ``train(spec, manifest, out_dir, report)`` returns; the training service
    records the model version from it. Templates add keys for notebooks (``history``, ``export``,
    file paths); the platform reads these. ``preprocessing`` is the model's preprocessing spec and
    ``params`` the validated training parameters (their contracts live with the templates')."""

    model: str
    onnx: str
    preprocessing: dict[str, Any]
    classes: list[str]
    params: dict[str, Any]
    metrics: TrainingMetrics
    epochs: int
    best_epoch: int | None
    runtime: TrainingRuntime
    backbone: NotRequired[BackboneUse | None]
    resumed_from: NotRequired[ResumedFrom | None]


class HeadlineMetrics(TypedDict):
    """A model version's headline metrics on the test split (its evaluation report's headline):
    classifiers have the accuracies and f1s, regression models MAE, RMSE and R2, detectors
    COCO-style mAP@[.5:.95] (``map``), mAP@.5 and mAP@.75."""

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


class AutomlLineage(TypedDict):
    """Where a model version promoted from a study's trial comes from (``automl.services.trial_promote``)."""

    study: int
    study_name: str
    trial: int
    searched_params: ParamValues
    objective: Objective
    value: float | None
    sampler: str
    # a deployment-aware or multi-objective study's trial
    objectives: NotRequired[list[Objective]]
    values: NotRequired[list[float]]
    constraints: NotRequired[list[AutomlConstraint]]
    feasible: NotRequired[bool | None]
    measurements: NotRequired[dict[str, float | int | str]]
    target_profile: NotRequired[str | None]
    precision: NotRequired[Literal["fp32", "int8"]]


class AutomlConstraint(TypedDict):
    metric: str
    op: Literal["<=", ">="]
    value: float


class ModelVersionMetrics(TypedDict):
    """A model version's ``metrics``: the test headline and, for a trained one, the training
    summary, its epochs, the epoch whose weights were kept and the runtime. An uploaded model has
    only ``test`` (once evaluated), or nothing; one promoted from a study's trial adds ``automl``."""

    test: NotRequired[HeadlineMetrics]
    training: NotRequired[TrainingMetrics]
    epochs: NotRequired[int | None]
    best_epoch: NotRequired[int | None]
    runtime: NotRequired[TrainingRuntime]
    automl: NotRequired[AutomlLineage]
    target: NotRequired[TargetFit]  # a run given a target profile: what was fitted to it, and why


class TrainingJobResult(TypedDict):
    """A finished training job's ``result`` (``training.run``; ``training.evaluate_model`` records
    the same without ``resumed_from`` and ``run_dir``): the model version it recorded."""

    kind: Literal["training_job_result"]
    version: int
    model_version: int
    name: str
    metrics: ModelVersionMetrics
    resumed_from: NotRequired[ResumedFrom | None]
    run_dir: NotRequired[str]
    target_fit: NotRequired[TargetFit]  # a run given a target profile: what was fitted, and why
