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

A table for a tabular model takes the columnar path (:func:`read_columns`, ``_table_results``): each
block of rows is held to the model's contract and encoded a column at a time
(:func:`workers.tabular.encoding.encode_columns`); a row that check flags goes through
``predict_instances`` on its own, as above (its error row or imputed answer is the hosted API's),
and the other rows are predicted from the encoded matrix by the hosted predictor's
``predict_encoded``. Results are written a batch at a time.

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
import itertools
import json
import math
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from json.encoder import encode_basestring
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


_FORMULA_START = frozenset(("=", "+", "-", "@", "\t", "\r"))


def csv_cell(value: object) -> str:
    """Formula-injection safe, as dataset exports write cells: a cell a spreadsheet would evaluate
    gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in _FORMULA_START else text


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


# An input, its prediction (the hosted API's entry) or error, and the prediction's top-k as JSON
# text when already written out (or None)
_Result = tuple["_Input", dict[str, Any] | None, str | None, str | None]


# --- the columnar table path (a tabular model over a table) -----------------------------------------


def read_columns(path: str | Path) -> tuple[int, dict[str, list[Any]], list[dict[str, Any]] | None]:
    """``(rows, columns, row dicts or None)``: the table of :func:`read_table` as columns (name ->
    one cell per row, None where a row has no cell). A CSV whose rows all have the header's width is
    read without row dicts; other tables keep theirs (JSONL rows may lack keys; the row contract
    tells an absent key from a null)."""
    path = Path(path)
    if path.suffix.lower() not in (".jsonl", ".ndjson", ".parquet", ".pq"):
        try:
            with path.open(encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh)
                header = next(reader, None) or []
                width = len(header)
                cells: list[list[str]] | None = [[] for _ in header]
                if not header or len(set(header)) < width:
                    cells = None
                while cells is not None:
                    # pieces of rows, transposed: no row list lives long
                    piece = list(itertools.islice(reader, 1024))
                    if not piece:
                        break
                    if any(len(record) != width for record in piece):
                        cells = None  # a ragged or blank row: read as read_table reads it
                        break
                    for column, values in zip(cells, zip(*piece, strict=True), strict=True):
                        column.extend(values)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise BatchInputError(f"{path.name} cannot be read as a table: {exc}") from None
        if cells is not None:
            return (
                len(cells[0]),
                {
                    name: [None if v == "" else v for v in column] if "" in column else column
                    for name, column in zip(header, cells, strict=True)
                },
                None,
            )
    rows = read_table(path)
    names = list(dict.fromkeys(k for row in rows for k in row))
    return len(rows), {name: [row.get(name) for row in rows] for name in names}, rows


def _table_results(
    batch_input: BatchInput, predictor: Any, top_k: int, batch_size: int
) -> tuple[int, Iterator[list[_Result]]]:
    """``(rows, chunks of results)`` for a tabular model over a table: each block of rows is held
    to the model's contract and encoded column by column
    (:func:`workers.tabular.encoding.encode_columns`); the rows that check flags (a missing cell, a
    wrong type) go through the hosted API's per-row path (:func:`_predict_batch`), so each gets the
    answer or the error it names; the rest are predicted from the encoded matrix
    (``predict_encoded``)."""
    from workers.tabular.encoding import encode_columns

    total, columns, rows = read_columns(batch_input["table"])
    target = batch_input.get("target")
    spec = predictor.model.preprocessing
    features = {f["name"] for f in spec["features"]}
    ignored = {spec.get("target"), target, "id"} - {None}
    # a column the model does not know: every row that has it is refused, by check_row
    per_row_only = any(name not in features and name not in ignored for name in columns)
    ids = columns.get("id") or [None] * total
    truths = columns.get(target) if target else None
    block = max(batch_size, 64) * 32

    def row_of(r: int) -> dict[str, Any]:
        row = rows[r] if rows is not None else {name: cells[r] for name, cells in columns.items()}
        return {k: v for k, v in row.items() if k != "id" and k != target}

    top_json = _TopJson(predictor.classes)

    def results_of(entries: list[_Input], start: int, clean: np.ndarray, matrix: Any) -> list[_Result]:
        """One batch: ``entries`` are rows ``start...``; ``clean`` and ``matrix`` theirs."""
        if clean.all():
            answers = predictor.predict_encoded(matrix, top_k)
            return [
                (entry, {"top_k": answer, "imputed": []}, None, text)
                for entry, answer, text in zip(entries, answers, top_json.many(answers), strict=True)
            ]
        out: list[_Result] = [(entry, None, None, None) for entry in entries]
        flagged = np.flatnonzero(~clean).tolist()
        for i in flagged:
            entry, values = entries[i], row_of(start + i)
            if not any(v is not None for v in values.values()):
                entry.error = f"row {entry.name} has no values."
            else:
                entry.instance = values
        checked = [entries[i] for i in flagged]
        for i, (prediction, error) in zip(
            flagged, _predict_batch(predictor, checked, top_k, {}), strict=True
        ):
            out[i] = (entries[i], prediction, error, None)
        good = np.flatnonzero(clean).tolist()
        if good:
            for i, answer in zip(good, predictor.predict_encoded(matrix[good], top_k), strict=True):
                out[i] = (entries[i], {"top_k": answer, "imputed": []}, None, top_json(answer))
        return out

    def chunks() -> Iterator[list[_Result]]:
        # a block's columns are checked and encoded at once; its batches are predicted, written and
        # dropped one by one (few objects live long: the garbage collector's full passes stay rare)
        for start in range(0, total, block):
            stop = min(start + block, total)
            if per_row_only:
                clean = np.zeros(stop - start, dtype=bool)
                matrix = np.zeros((stop - start, 0), dtype=np.float32)
            else:
                matrix, clean = encode_columns(
                    spec, {name: cells[start:stop] for name, cells in columns.items()}, stop - start
                )
            for at in range(start, stop, batch_size):
                end = min(at + batch_size, stop)
                entries = []
                for r in range(at, end):
                    raw_id = ids[r]
                    entry = _Input(_as_id(raw_id), str(raw_id) if raw_id is not None else str(r + 1))
                    if truths is not None:
                        entry.truth = truths[r]
                    entries.append(entry)
                yield results_of(
                    entries, at, clean[at - start : end - start], matrix[at - start : end - start]
                )

    return total, chunks()


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


_JSON = json.JSONEncoder().encode  # json.dumps(value), without building an encoder per call
_JSONL_LINE = json.JSONEncoder(ensure_ascii=False).encode


def _jsonl_value(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, the common scalars without the encoder's setup."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is list and not value:
        return "[]"
    return _JSONL_LINE(value)


def _jsonl_line(row: BatchResultRow, top_k: str) -> str:
    """``json.dumps(row, ensure_ascii=False)`` and a newline, given its prediction's top-k as JSON
    text."""
    prediction = row.get("prediction")
    if (
        prediction is not None
        and list(row)[:3] == ["id", "name", "prediction"]
        and len(prediction) == 2
        and prediction.get("imputed") == []
        and next(iter(prediction)) == "top_k"
        and type(row["name"]) is str
    ):
        # a table row predicted from the encoded matrix
        line = (
            f'{{"id": {_jsonl_value(row["id"])}, "name": {encode_basestring(row["name"])}, '
            f'"prediction": {{"top_k": {top_k}, "imputed": []}}'
        )
        if len(row) == 3:
            return line + "}\n"
        if len(row) == 4 and "truth" in row:
            return f'{line}, "truth": {_jsonl_value(row["truth"])}}}\n'
    parts = []
    for key, value in row.items():
        if key == "prediction" and isinstance(value, dict):
            inner = ", ".join(
                f'"{name}": {top_k if name == "top_k" else _jsonl_value(item)}'
                for name, item in value.items()
            )
            parts.append(f'"prediction": {{{inner}}}')
        else:
            parts.append(f'"{key}": {_jsonl_value(value)}')
    return "{" + ", ".join(parts) + "}\n"


def flat_row(
    prediction_kind: str, row: BatchResultRow, labeled: bool, top_json: str | None = None
) -> list[Any]:
    """One result row as the CSV/Parquet columns hold it (:func:`result_columns`' order; JSON text
    for lists; ``top_json``: the classifier's top-k as JSON when already written out)."""
    prediction = row.get("prediction") or {}
    out: list[Any] = [row.get("id"), row["name"]]
    if prediction_kind == "regression_prediction":
        top = prediction.get("top_k") or []
        out.append(top[0]["value"] if top else None)
    elif prediction_kind == "detection_prediction":
        out.append(_JSON(prediction["boxes"]) if prediction else None)
    else:
        top = prediction.get("top_k") or []
        out.append(top[0]["label"] if top else None)
        out.append(top[0]["score"] if top else None)
        out.append((top_json or _JSON(top)) if prediction else None)
    out.append(row.get("error"))
    if labeled:
        truth = row.get("truth")
        out.append(
            _JSON(truth) if isinstance(truth, list | dict) else (None if truth is None else str(truth))
        )
    return out


class _TopJson:
    """``json.dumps(answer)`` of the tabular predictor's answers (``index``, ``label``, ``score``
    entries of a classifier, ``[{"value": v}]`` of a regressor, Python ints and floats), written
    out directly; None where that text would differ without ASCII escapes (a label's non-ASCII
    character) or a score is not finite (JSON's ``NaN``): such rows are serialized as a whole."""

    def __init__(self, classes: Sequence[Any]) -> None:
        self.prefix: dict[int, str] | None = {}
        for index, label in enumerate(classes):
            text = _JSON(label)
            if text != _JSONL_LINE(label):
                self.prefix = None
                break
            self.prefix[index] = f'{{"index": {index}, "label": {text}, "score": '

    def many(self, answers: Sequence[Sequence[Mapping[str, Any]]]) -> list[str | None]:
        """:meth:`__call__` of each answer of a batch; a classifier's the quick way."""
        prefix, number = self.prefix, float.__repr__
        if not prefix:
            return [self(answer) for answer in answers]
        out: list[str | None] = []
        for answer in answers:
            try:
                text = "[" + ", ".join([prefix[e["index"]] + number(e["score"]) + "}" for e in answer]) + "]"
            except (KeyError, TypeError):
                out.append(self(answer))
                continue
            # a score of nan or inf (JSON: NaN, Infinity); a label holding that text only costs time
            out.append(None if ": nan}" in text or "inf}" in text else text)
        return out

    def __call__(self, answer: Sequence[Mapping[str, Any]]) -> str | None:
        parts = []
        for entry in answer:
            if "value" in entry:
                number = float.__repr__(entry["value"])
                part = f'{{"value": {number}}}'
            else:
                if self.prefix is None or entry["index"] not in self.prefix:
                    return None
                number = float.__repr__(entry["score"])
                part = self.prefix[entry["index"]] + number + "}"
            if "n" in number:  # nan, inf: JSON writes NaN, Infinity
                return None
            parts.append(part)
        return "[" + ", ".join(parts) + "]"


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
        # the Parquet file's columns, filled as the chunks come
        self.table: dict[str, list[Any]] | None = (
            {c: [] for c in self.columns} if "parquet" in formats else None
        )

    def write(self, rows: Sequence[BatchResultRow], tops: Sequence[str | None] | None = None) -> None:
        """A chunk of rows: one ``writelines`` for the JSONL file, one ``writerows`` for the CSV.
        ``tops``: each row's ``top_k`` already as JSON text (or None), the same text whether
        ASCII-escaped or not (:class:`_TopJson`); serialized once for both files."""
        tops = tops or [None] * len(rows)
        if self.jsonl is not None:
            self.jsonl.writelines(
                [
                    _JSONL_LINE(row) + "\n" if top is None else _jsonl_line(row, top)
                    for row, top in zip(rows, tops, strict=True)
                ]
            )
        if self.csv is not None or self.table is not None:
            flat = [flat_row(self.kind, row, self.labeled, top) for row, top in zip(rows, tops, strict=True)]
            if self.csv is not None:
                # csv_cell inlined (the writer writes None as an empty cell)
                self.csv.writerows(
                    [
                        ["'" + v if isinstance(v, str) and v[:1] in _FORMULA_START else v for v in cells]
                        for cells in flat
                    ]
                )
            if self.table is not None:
                for column, cells in zip(self.table.values(), zip(*flat, strict=True), strict=True):
                    column.extend(cells)

    def close(self) -> dict[str, BatchResultFile]:
        for handle in (self.jsonl, self.csv_file):
            if handle is not None:
                handle.close()
        if self.table is not None:
            import pyarrow as pa
            import pyarrow.parquet as pq

            types = {
                "id": pa.int64(),
                "score": pa.float64(),
                "value": pa.float64(),
            }
            schema = pa.schema([(c, types.get(c, pa.string())) for c in self.columns])
            pq.write_table(pa.table(self.table, schema=schema), self.out_dir / FILE_NAMES["parquet"])
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
    results: Iterator[list[_Result]] | None = None
    if "table" in batch_input and predictor.data_kind == "tabular" and hasattr(predictor, "predict_encoded"):
        total, results = _table_results(batch_input, predictor, top_k, batch_size)
    elif "table" in batch_input:
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
    if results is None:
        results = (
            [
                (entry, *answer, None)
                for entry, answer in zip(chunk, _predict_batch(predictor, chunk, top_k, options), strict=True)
            ]
            for chunk in chunks
        )
    if total == 0:
        pool.shutdown()
        raise BatchInputError("There is nothing to predict: the input holds no files or rows.")

    writers = _Writers(out, formats, kind, labeled)
    done = predicted = errors = 0
    examples: list[BatchErrorExample] = []
    kept: list[BatchResultRow] = []  # labeled rows, for the metrics
    last_report = 0.0
    try:
        for chunk in results:
            written: list[BatchResultRow] = []
            for entry, prediction, error, _ in chunk:
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
                written.append(row)
            writers.write(written, [result[3] for result in chunk])
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
