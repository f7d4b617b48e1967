"""Batch prediction: a model version's predictions over many inputs, as a job.

- :class:`BatchInput`: what the platform hands the compute plane (``workers.serving.batch``): the
  model's directory (as hosted serving materializes it), where the inputs are (files of a dataset
  or an upload, or one table file) and, for a labeled dataset version, each input's ground truth.
- :class:`BatchPredictionParams`: what the user asked (top-k, detection options, output formats).
- :class:`BatchResultRow`: one line of the JSONL results (and one row of the CSV/Parquet ones):
  the input's id or file name, its prediction (the hosted API's entry for that task) or its error.
- :class:`BatchPredictionSummary`: what the platform keeps: counts, errors, throughput, the result
  files and, on labeled input, the metrics.

A bad input (a corrupt image, an unreadable row) is a row with ``error`` set; the rest are predicted.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

BATCH_VERSION = 1

BatchFormat = Literal["jsonl", "csv", "parquet"]
BATCH_FORMATS: tuple[BatchFormat, ...] = ("jsonl", "csv", "parquet")


class BatchPredictionParams(TypedDict):
    """The question: ``top_k`` classes per instance (classification), a detector's
    ``score_threshold`` and ``max_detections``, and the result formats (``parquet`` only for
    tables)."""

    top_k: NotRequired[int]
    score_threshold: NotRequired[float]
    max_detections: NotRequired[int]
    formats: NotRequired[list[BatchFormat]]


class BatchItem(TypedDict):
    """One input file: ``id`` (the sample id, or null for an upload), ``name`` (the sample's file
    name or the path inside the archive), ``path`` (where the worker reads it; a text sample may
    carry its ``text`` instead), and, for a labeled dataset version, ``label`` (class name),
    ``value`` (regression) or ``boxes`` (detection: ``label`` a class name, x, y, width, height in
    the image's pixels). ``problem``: why the platform could not hand the file over (an archive
    entry it could not unpack); the item is an error row saying so."""

    id: int | None
    name: str
    path: str
    text: NotRequired[str]
    problem: NotRequired[str]
    label: NotRequired[str | None]
    value: NotRequired[float | None]
    boxes: NotRequired[list[dict[str, Any]]]


class BatchInput(TypedDict):
    """``model_dir``: a directory with model.onnx, preprocess.json, labels.json and manifest.json
    (deploy.serving.materialize); ``items``: the input files, or ``table``: one CSV, JSONL or
    Parquet file of rows (an ``id`` column, when present, names each row; ``target`` names the
    ground-truth column of a labeled table)."""

    kind: Literal["batch_input"]
    version: int
    template: str
    model_dir: str
    items: NotRequired[list[BatchItem]]
    table: NotRequired[str]
    target: NotRequired[str | None]
    labeled: bool


class BatchResultRow(TypedDict):
    """One result: ``id`` and ``name`` as in the input (a table row: its ``id`` cell or its
    1-based row number as ``name``); ``prediction``: the hosted API's prediction entry for the
    task (``workers.contracts.prediction``); or ``error`` naming why the input was not predicted;
    on labeled input ``truth``: the class name, the value or the true boxes."""

    id: int | None
    name: str
    prediction: NotRequired[dict[str, Any] | None]
    error: NotRequired[str | None]
    truth: NotRequired[Any]


class BatchErrorExample(TypedDict):
    """An input that was not predicted: its ``id`` and ``name`` as in its result row, and why."""

    id: int | None
    name: str
    error: str


class BatchResultFile(TypedDict):
    key: str
    size_bytes: int
    sha256: str


class BatchPredictionSummary(TypedDict):
    """``rows``: inputs read; ``predicted`` and ``errors`` (with up to 20 ``error_examples``);
    ``seconds`` and ``rows_per_s``; ``files``: the result files by format; ``metrics``: on labeled
    input, the task's headline metrics (accuracy, macro_f1; mae, rmse, r2; map50), null otherwise."""

    kind: Literal["batch_prediction_summary"]
    version: int
    rows: int
    predicted: int
    errors: int
    error_examples: list[BatchErrorExample]
    seconds: float
    rows_per_s: float
    files: dict[str, BatchResultFile]
    metrics: dict[str, float] | None
