"""Batch prediction in the compute plane: a model directory and many inputs -> result files.

``run(batch_input, params, out_dir, report)`` loads the predictor the hosted API loads
(:func:`workers.serving.predictors.load_predictor`), decodes every input with the serving
protocol's own code (:func:`workers.serving.protocol.decode_image`, the same checks and EXIF
handling), predicts in batches of :data:`BATCH_SIZE` through
:func:`workers.serving.predictors.predict_instances`, so each row's ``prediction`` is exactly the
entry the hosted API answers for that input. It writes ``results.jsonl`` (one
:class:`~workers.contracts.batch.BatchResultRow` per line), ``results.csv`` (every text cell
formula-injection safe) and, when asked, ``results.parquet``, and returns the
:class:`~workers.contracts.batch.BatchPredictionSummary` (``files`` keyed by format hold the local
file names; the platform replaces them with its storage keys).

An input that cannot be read or predicted (a corrupt image, a row the model's contract refuses)
is a row with ``error``; the rest are predicted. On labeled input the summary holds the task's
metrics: accuracy and macro F1 (classification, the evaluation's own code), MAE, RMSE and R²
(regression), mAP@.5 (detection, COCO as the evaluation report computes it, over the boxes at the
requested score threshold). ``report`` is called at most about twice a second; a cancelled job
stops at its next call (``JobCancelled``).

No Django: the platform (``deploy.batch``) builds the :class:`BatchInput`.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.contracts.annotations import DetectionBox
from workers.contracts.batch import (
    BATCH_FORMATS,
    BATCH_VERSION,
    BatchErrorExample,
    BatchInput,
    BatchItem,
    BatchPredictionParams,
    BatchPredictionSummary,
    BatchResultFile,
    BatchResultRow,
)
from workers.progress import Report
from workers.serving.predictors import load_predictor, predict_instances
from workers.serving.protocol import (
    DEFAULT_MAX_IMAGE_PIXELS,
    DEFAULT_MAX_TEXT_CHARS,
    DEFAULT_TOP_K,
    PredictionInputError,
    decode_image,
    detection_options,
)

if TYPE_CHECKING:
    from workers.object_detection.metrics import Detection

BATCH_SIZE = 64
REPORT_INTERVAL = 0.5  # seconds between progress reports
MAX_ERROR_EXAMPLES = 20
FILE_NAMES = {"jsonl": "results.jsonl", "csv": "results.csv", "parquet": "results.parquet"}
MISSING_TRUTH = frozenset({"", "na", "n/a", "nan", "null", "none"})


class BatchInputError(ValueError):
    """The batch's input as a whole cannot be read (an unreadable table, no inputs); the message
    says why. Per-input problems are error rows, never this."""


def csv_cell(value: object) -> str:
    """Formula-injection safe, as dataset exports write cells: a cell a spreadsheet would evaluate
    gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


# --- reading the inputs ---------------------------------------------------------------------------


def read_table(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a CSV, JSONL or Parquet file (by its extension; CSV cells stay text, an empty
    cell is missing)."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".jsonl", ".ndjson"):
            rows = []
            with path.open(encoding="utf-8") as fh:
                for number, line in enumerate(fh, start=1):
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    if not isinstance(row, dict):
                        raise BatchInputError(f"{path.name} line {number} is not a JSON object.")
                    rows.append(row)
            return rows
        if suffix in (".parquet", ".pq"):
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            return [
                {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                for row in pq.read_table(path).to_pylist()
            ]
        with path.open(encoding="utf-8-sig", newline="") as fh:
            return [{k: (v if v != "" else None) for k, v in row.items()} for row in csv.DictReader(fh)]
    except BatchInputError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise BatchInputError(f"{path.name} cannot be read as a table: {exc}") from None


class _Input:
    """One input ready for the predictor (``instance``) or its error; ``truth`` when labeled."""

    __slots__ = ("error", "id", "instance", "name", "truth")

    def __init__(self, id: Any, name: str, *, instance: Any = None, error: str | None = None) -> None:
        self.id = id
        self.name = name
        self.instance = instance
        self.error = error
        self.truth: Any = None


def _item_truth(item: BatchItem) -> Any:
    if "boxes" in item:
        return item.get("boxes")
    if "value" in item:
        return item.get("value")
    return item.get("label")


def _read_item(item: BatchItem, data_kind: str, max_pixels: int) -> _Input:
    where = item["name"]
    entry = _Input(item.get("id"), item["name"])
    if item.get("problem"):
        entry.error = f"{where}: {item['problem']}"
        return entry
    try:
        if data_kind == "image":
            entry.instance = decode_image(Path(item["path"]).read_bytes(), where=where, max_pixels=max_pixels)
        elif data_kind == "text":
            text = item["text"] if "text" in item else Path(item["path"]).read_bytes().decode("utf-8")
            if not text.strip():
                raise PredictionInputError(400, "empty_input", f"{where} is empty.")
            if len(text) > DEFAULT_MAX_TEXT_CHARS:
                raise PredictionInputError(
                    413,
                    "text_too_long",
                    f"{where} has {len(text):,} characters; at most {DEFAULT_MAX_TEXT_CHARS:,}.",
                )
            entry.instance = text
        else:
            raise PredictionInputError(
                400, "invalid_instance", f"{where}: a tabular model predicts rows of a table."
            )
    except PredictionInputError as exc:
        entry.error = exc.message
    except UnicodeDecodeError:
        entry.error = f"{where} is not UTF-8 text."
    except OSError as exc:
        entry.error = f"{where} cannot be read ({exc.strerror or exc})."
    return entry


def _row_inputs(batch_input: BatchInput, data_kind: str) -> Iterator[_Input]:
    rows = read_table(batch_input["table"])
    target = batch_input.get("target")
    for number, row in enumerate(rows, start=1):
        raw_id = row.get("id")
        name = str(raw_id) if raw_id is not None else str(number)
        ident = _as_id(raw_id)
        values = {k: v for k, v in row.items() if k != "id" and k != target}
        entry = _Input(ident, name)
        if data_kind == "text":
            text = values.get("text")
            if not isinstance(text, str) or not text.strip():
                entry.error = f"row {name} has no text (a 'text' column)."
            else:
                entry.instance = text
        elif data_kind == "tabular":
            if not any(v is not None for v in values.values()):
                entry.error = f"row {name} has no values."
            else:
                entry.instance = values
        else:
            entry.error = f"row {name}: an image model predicts image files, not table rows."
        if target:
            entry.truth = row.get(target)
        yield entry


def _as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


# --- predicting -------------------------------------------------------------------------------------


def _predict_batch(
    predictor: Any, entries: Sequence[_Input], top_k: int, options: Mapping[str, Any]
) -> list[tuple[dict[str, Any] | None, str | None]]:
    """Each entry's (prediction entry as the hosted API answers it, error)."""
    ready = [i for i, e in enumerate(entries) if e.error is None]
    out: list[tuple[dict[str, Any] | None, str | None]] = [(None, e.error) for e in entries]
    if not ready:
        return out

    def entries_of(answers: list[Any], details: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        if predictor.prediction_kind == "detection_prediction":
            return [dict(a) for a in answers]
        if details is None:
            return [{"top_k": a} for a in answers]
        return [{"top_k": a, **extra} for a, extra in zip(answers, details, strict=True)]

    try:
        answers, details = predict_instances(
            predictor, [entries[i].instance for i in ready], top_k, options=options
        )
        for i, prediction in zip(ready, entries_of(answers, details), strict=True):
            out[i] = (prediction, None)
        return out
    except PredictionInputError:
        pass  # one input spoils the batch: predict one by one, so only that one is an error row
    for i in ready:
        try:
            answers, details = predict_instances(predictor, [entries[i].instance], top_k, options=options)
            out[i] = (entries_of(answers, details)[0], None)
        except PredictionInputError as exc:
            message = exc.message.replace("instances[0]", entries[i].name)
            out[i] = (None, message)
    return out


# --- metrics ----------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _metrics(
    prediction_kind: str, classes: Sequence[str], rows: Sequence[BatchResultRow]
) -> dict[str, float] | None:
    labeled = [
        (r["truth"], prediction)
        for r in rows
        if (prediction := r.get("prediction")) is not None and r.get("truth") is not None
    ]
    if prediction_kind == "regression_prediction":
        pairs = [(_number(t), float(p["top_k"][0]["value"])) for t, p in labeled if p.get("top_k")]
        known = [(t, p) for t, p in pairs if t is not None]
        if not known:
            return None
        from workers.tabular.evaluation import regression_metrics

        found = regression_metrics(np.array([t for t, _ in known]), np.array([p for _, p in known]))
        return {"mae": found["mae"], "rmse": found["rmse"], "r2": found["r2"], "samples": float(len(known))}
    position = {name: i for i, name in enumerate(classes)}
    if prediction_kind == "detection_prediction":
        true_boxes: list[list[DetectionBox]] = []
        ranked: list[list[Detection]] = []
        for truth, prediction in labeled:
            true_boxes.append(
                [
                    {
                        "label": position[box["label"]],
                        "x": box["x"],
                        "y": box["y"],
                        "width": box["width"],
                        "height": box["height"],
                    }
                    for box in truth
                    if box.get("label") in position
                ]
            )
            ranked.append(
                [
                    (b["index"], b["score"], b["x"], b["y"], b["width"], b["height"])
                    for b in prediction["boxes"]
                ]
            )
        if not true_boxes:
            return None
        from workers.object_detection.metrics import coco_evaluate

        return {
            "map50": float(coco_evaluate(true_boxes, ranked, list(classes))["map50"]),
            "samples": float(len(true_boxes)),
        }
    y_true: list[int] = []
    y_pred: list[int] = []
    for truth, prediction in labeled:
        name = str(truth).strip()
        truth_index = position.get(name)
        top = prediction.get("top_k") or []
        if truth_index is None or name.lower() in MISSING_TRUTH or not top:
            continue
        y_true.append(truth_index)
        y_pred.append(int(top[0]["index"]))
    if not y_true:
        return None
    from workers.shared.classification_metrics import classification_metrics

    scores = np.zeros((len(y_pred), len(classes)), dtype=np.float32)
    scores[np.arange(len(y_pred)), y_pred] = 1.0
    found_classes = classification_metrics(np.array(y_true), scores, list(classes))
    return {
        "accuracy": float(found_classes["accuracy"]),
        "macro_f1": float(found_classes["macro"]["f1"]),
        "samples": float(len(y_true)),
    }


# --- writing ----------------------------------------------------------------------------------------


def result_columns(prediction_kind: str, labeled: bool) -> list[str]:
    """The CSV/Parquet columns of a task (API docs: batch prediction)."""
    if prediction_kind == "regression_prediction":
        columns = ["id", "name", "value", "error"]
    elif prediction_kind == "detection_prediction":
        columns = ["id", "name", "boxes", "error"]
    else:
        columns = ["id", "name", "label", "score", "top_k", "error"]
    return [*columns, "truth"] if labeled else columns


def flat_row(prediction_kind: str, row: BatchResultRow, labeled: bool) -> dict[str, Any]:
    """One result row as the CSV/Parquet columns hold it (JSON text for lists)."""
    prediction = row.get("prediction") or {}
    out: dict[str, Any] = {"id": row.get("id"), "name": row["name"]}
    if prediction_kind == "regression_prediction":
        top = prediction.get("top_k") or []
        out["value"] = top[0]["value"] if top else None
    elif prediction_kind == "detection_prediction":
        out["boxes"] = json.dumps(prediction["boxes"]) if prediction else None
    else:
        top = prediction.get("top_k") or []
        out["label"] = top[0]["label"] if top else None
        out["score"] = top[0]["score"] if top else None
        out["top_k"] = json.dumps(top) if prediction else None
    out["error"] = row.get("error")
    if labeled:
        truth = row.get("truth")
        out["truth"] = (
            json.dumps(truth) if isinstance(truth, list | dict) else (None if truth is None else str(truth))
        )
    return out


class _Writers:
    def __init__(self, out_dir: Path, formats: Sequence[str], prediction_kind: str, labeled: bool) -> None:
        self.out_dir = out_dir
        self.formats = list(formats)
        self.kind = prediction_kind
        self.labeled = labeled
        self.columns = result_columns(prediction_kind, labeled)
        self.jsonl = (
            (out_dir / FILE_NAMES["jsonl"]).open("w", encoding="utf-8") if "jsonl" in formats else None
        )
        self.csv_file = (
            (out_dir / FILE_NAMES["csv"]).open("w", encoding="utf-8", newline="")
            if "csv" in formats
            else None
        )
        self.csv = csv.writer(self.csv_file) if self.csv_file is not None else None
        if self.csv is not None:
            self.csv.writerow(self.columns)
        self.table: list[dict[str, Any]] = []

    def write(self, row: BatchResultRow) -> None:
        if self.jsonl is not None:
            self.jsonl.write(json.dumps(row, ensure_ascii=False) + "\n")
        if self.csv is not None or "parquet" in self.formats:
            flat = flat_row(self.kind, row, self.labeled)
            if self.csv is not None:
                self.csv.writerow(
                    [
                        csv_cell(flat[c])
                        if isinstance(flat[c], str)
                        else ("" if flat[c] is None else flat[c])
                        for c in self.columns
                    ]
                )
            if "parquet" in self.formats:
                self.table.append(flat)

    def close(self) -> dict[str, BatchResultFile]:
        for handle in (self.jsonl, self.csv_file):
            if handle is not None:
                handle.close()
        if "parquet" in self.formats:
            import pyarrow as pa
            import pyarrow.parquet as pq

            types = {
                "id": pa.int64(),
                "score": pa.float64(),
                "value": pa.float64(),
            }
            schema = pa.schema([(c, types.get(c, pa.string())) for c in self.columns])
            data = {c: [r[c] for r in self.table] for c in self.columns}
            pq.write_table(pa.table(data, schema=schema), self.out_dir / FILE_NAMES["parquet"])
        files: dict[str, BatchResultFile] = {}
        for fmt in self.formats:
            path = self.out_dir / FILE_NAMES[fmt]
            digest = hashlib.sha256()
            with path.open("rb") as stream:
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(chunk)
            files[fmt] = {"key": path.name, "size_bytes": path.stat().st_size, "sha256": digest.hexdigest()}
        return files


# --- the run ----------------------------------------------------------------------------------------


def run(
    batch_input: BatchInput,
    params: BatchPredictionParams,
    out_dir: str | Path,
    report: Report,
    *,
    threads: int | None = None,
    batch_size: int = BATCH_SIZE,
    max_image_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    decode_threads: int | None = None,
) -> BatchPredictionSummary:
    """Predict every input of ``batch_input`` and write the result files into ``out_dir`` (module
    docstring). Raises :class:`BatchInputError` when the input as a whole cannot be read,
    ``JobCancelled`` from ``report`` when the job is cancelled. ``threads``: ONNX Runtime's (its
    default: the cores); ``decode_threads`` read and decode the next batch's files while one is
    predicted (default: up to 4).

    >>> run({"kind": "batch_input", "version": 1, "template": "image_classification",  # doctest: +SKIP
    ...      "model_dir": "model/", "items": [{"id": None, "name": "3.png", "path": "3.png"}],
    ...      "labeled": False}, {"top_k": 3}, "out/", silent_report)["predicted"]
    1
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    report("loading the model", fraction=0.0, milestone=True)
    predictor = load_predictor(
        batch_input["model_dir"], template=batch_input.get("template"), threads=threads
    )
    kind = predictor.prediction_kind
    top_k = int(params.get("top_k") or DEFAULT_TOP_K)
    options: dict[str, Any] = {}
    if kind == "detection_prediction":
        options = detection_options(
            {k: params[k] for k in ("score_threshold", "max_detections") if params.get(k) is not None}  # type: ignore[literal-required]
        )
    formats = [f for f in (params.get("formats") or ["jsonl", "csv"]) if f in BATCH_FORMATS] or ["jsonl"]
    labeled = bool(batch_input.get("labeled"))

    pool = ThreadPoolExecutor(max_workers=decode_threads or min(4, os.cpu_count() or 1))
    if "table" in batch_input:
        entries: list[_Input] = list(_row_inputs(batch_input, predictor.data_kind))
        total = len(entries)
        chunks: Iterator[list[_Input]] = (
            entries[start : start + batch_size] for start in range(0, total, batch_size)
        )
    else:
        items = batch_input.get("items") or []
        total = len(items)

        def read(item: BatchItem) -> _Input:
            entry = _read_item(item, predictor.data_kind, max_image_pixels)
            if labeled:
                entry.truth = _item_truth(item)
            return entry

        def from_items() -> Iterator[list[_Input]]:
            """Chunks of decoded inputs; the next chunk decodes (Pillow releases the GIL) while the
            current one is predicted."""
            pending = None
            for start in range(0, total, batch_size):
                upcoming = [pool.submit(read, item) for item in items[start : start + batch_size]]
                if pending is not None:
                    yield [future.result() for future in pending]
                pending = upcoming
            if pending is not None:
                yield [future.result() for future in pending]

        chunks = from_items()
    if total == 0:
        pool.shutdown()
        raise BatchInputError("There is nothing to predict: the input holds no files or rows.")

    writers = _Writers(out, formats, kind, labeled)
    done = predicted = errors = 0
    examples: list[BatchErrorExample] = []
    kept: list[BatchResultRow] = []  # labeled rows, for the metrics
    last_report = 0.0
    try:
        for chunk in chunks:
            for entry, (prediction, error) in zip(
                chunk, _predict_batch(predictor, chunk, top_k, options), strict=True
            ):
                row: BatchResultRow = {"id": entry.id, "name": entry.name}
                if error is None:
                    row["prediction"] = prediction
                    predicted += 1
                else:
                    row["error"] = error
                    errors += 1
                    if len(examples) < MAX_ERROR_EXAMPLES:
                        examples.append({"id": entry.id, "name": entry.name, "error": error})
                if labeled:
                    row["truth"] = entry.truth
                    kept.append(row)
                writers.write(row)
            done += len(chunk)
            now = time.monotonic()
            if now - last_report >= REPORT_INTERVAL or done == total:
                last_report = now
                elapsed = now - started
                rate = done / elapsed if elapsed > 0 else 0.0
                report(
                    f"predicted {done:,} of {total:,}",
                    fraction=0.05 + 0.9 * done / total,
                    processed=done,
                    total=total,
                    samples_per_s=round(rate, 2),
                    eta_s=round((total - done) / rate, 1) if rate > 0 else 0.0,
                )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        files = writers.close()
    seconds = time.monotonic() - started
    metrics = _metrics(kind, predictor.classes, kept) if labeled else None
    return {
        "kind": "batch_prediction_summary",
        "version": BATCH_VERSION,
        "rows": done,
        "predicted": predicted,
        "errors": errors,
        "error_examples": examples,
        "seconds": round(seconds, 3),
        "rows_per_s": round(done / seconds, 2) if seconds > 0 else 0.0,
        "files": files,
        "metrics": metrics,
    }
