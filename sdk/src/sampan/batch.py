"""Batch predictions: a model version's predictions over a whole dataset version (or one split), a
dataset, or a file (an archive of images or texts, a CSV/JSONL/Parquet table), computed by a job;
results as a pandas DataFrame or as JSONL, CSV and Parquet files.

e.g. ``bp = model.batch_predict(version, split="test").wait()``; ``bp.metrics["accuracy"]``;
``bp.results().head()``; ``bp.download("test.csv", format="csv")``
"""

from __future__ import annotations

import builtins
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from sampan import _optional
from sampan._resource import Resource, id_of
from sampan._transport import wait_with_progress
from sampan.errors import SampanError

if TYPE_CHECKING:
    from typing import Self  # Python 3.11 (annotations are not evaluated on 3.10)

    from sampan import _schema as schema
    from sampan.client import Client

FORMATS = ("jsonl", "csv", "parquet")
JSON_COLUMNS = ("top_k", "boxes")  # cells holding JSON in the CSV and Parquet files


class BatchPredictionFailed(SampanError):
    """The batch's job failed or was cancelled; ``batch`` is the :class:`BatchPrediction`."""

    def __init__(self, message: str, *, batch: BatchPrediction) -> None:
        super().__init__(message, code="batch_prediction_failed")
        self.batch = batch


class BatchPrediction(Resource["schema.BatchPrediction"]):
    """One batch prediction: ``status`` (queued, running, succeeded, failed, cancelled), its
    ``progress`` (``fraction``, ``done``, ``total``, ``eta_s``), its lineage (``model_version``,
    ``source``, ``params``, ``deployment``) and, once it finished, ``summary`` (rows, predicted,
    errors with examples, rows per second, metrics on labeled input) and the result ``files``."""

    _path = "batch-predictions/"

    @property
    def status(self) -> str:
        return str(self._fields["status"])

    @property
    def finished(self) -> bool:
        return self.status in ("succeeded", "failed", "cancelled")

    @property
    def summary(self) -> schema.BatchPredictionSummary | None:
        """Counts, error examples, throughput and metrics; None until it finished."""
        summary: schema.BatchPredictionSummary | None = self._fields.get("summary")
        return summary

    @property
    def metrics(self) -> dict[str, float] | None:
        """On labeled input (a dataset version, a labeled dataset or a table with the target
        column), the task's headline metrics: ``accuracy``, ``macro_f1`` (classification); ``mae``,
        ``rmse``, ``r2`` (regression); ``map50`` (detection). None otherwise or until it finished."""
        summary = self.summary
        return None if summary is None else summary.get("metrics")

    @property
    def formats(self) -> builtins.list[str]:
        """The result formats that can be downloaded."""
        return [f["format"] for f in self._fields.get("files") or []]

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
        raise_on_failure: bool = True,
        max_outage: float = 300.0,
    ) -> Self:
        """Block until the batch finished, with a progress bar; returns self. Raises
        :class:`BatchPredictionFailed` when it failed or was cancelled (unless
        ``raise_on_failure=False``) and :class:`sampan.WaitTimeout` after ``timeout`` seconds (the
        job goes on)."""
        wait_with_progress(
            self,
            title=f"batch prediction {self.id}",
            timeout=timeout,
            poll=poll,
            progress=progress,
            max_outage=max_outage,
        )
        if raise_on_failure and self.status != "succeeded":
            raise BatchPredictionFailed(
                f"Batch prediction {self.id} {self.status}: {self._fields.get('error') or 'see its job'}",
                batch=self,
            )
        return self

    def cancel(self) -> Self:
        """Ask the job to stop (the rows predicted so far are not kept); returns self."""
        self.data = self._client.http.post(f"batch-predictions/{self.id}/cancel/", None)
        return self

    def delete(self) -> None:
        """Delete the record and its result files (cancel a running one first)."""
        self._client.http.delete(f"batch-predictions/{self.id}/")

    def download(
        self,
        dest: str | os.PathLike[str] | IO[bytes],
        *,
        format: str = "jsonl",  # noqa: A002 - the API's parameter name
        progress: bool = False,
    ) -> Path | None:
        """Write the results in ``format`` (jsonl, csv or parquet: one it was asked for) to
        ``dest`` (a path or a binary file object); returns the path."""
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        return self._client.http.download(
            f"batch-predictions/{self.id}/download/",
            dest,
            params={"format": format},
            progress=progress,
            description=f"batch {self.id}.{format}",
        )

    def results(self) -> Any:
        """The results as a pandas DataFrame, one row per input: ``id``, ``name`` and, by task,
        ``label``, ``score``, ``top_k`` (classification), ``value`` (regression) or ``boxes``
        (detection), ``truth`` on labeled input (a class name, a number, or a detector's boxes),
        and ``error`` (NaN when it was predicted). ``top_k`` and ``boxes`` hold lists (parsed from
        the file's JSON)."""
        pd = _optional.pandas()
        available = self.formats
        if "csv" in available:
            buffer = io.BytesIO()
            self.download(buffer, format="csv")
            header = buffer.getvalue().split(b"\n", 1)[0].decode("utf-8-sig").strip().split(",")
            text_columns = {"name", "label", "error"} | ({"truth"} if "value" not in header else set())
            buffer.seek(0)
            frame = pd.read_csv(buffer, dtype={c: str for c in text_columns if c in header})
        elif "parquet" in available:
            buffer = io.BytesIO()
            self.download(buffer, format="parquet")
            buffer.seek(0)
            frame = pd.read_parquet(buffer)
        elif "jsonl" in available:
            buffer = io.BytesIO()
            self.download(buffer, format="jsonl")
            frame = pd.DataFrame([_flat(json.loads(line)) for line in buffer.getvalue().splitlines() if line])
        else:
            raise SampanError(
                f"Batch prediction {self.id} has no results ({self.status})", code="batch_not_ready"
            )
        if "id" in frame.columns:
            frame["id"] = frame["id"].astype("Int64")
        for column in (*JSON_COLUMNS, *(["truth"] if "boxes" in frame.columns else [])):
            if column in frame.columns:
                frame[column] = [_json_cell(cell) for cell in frame[column]]
        return frame

    def describe(self) -> str:
        """One paragraph: status, input, counts, metrics and the first errors."""
        data = self._fields
        source = data.get("source") or {}
        name = (
            source.get("dataset_version_name")
            or source.get("dataset_name")
            or source.get("upload_name")
            or source.get("kind")
        )
        split = f" ({source['split']})" if source.get("split") else ""
        lines = [
            f"Batch prediction {self.id}: {data.get('model_version_name')} on {name}{split}: {self.status}"
        ]
        summary = self.summary
        if summary is not None:
            lines.append(
                f"  {summary['rows']} rows, {summary['predicted']} predicted, {summary['errors']} errors, "
                f"{summary['rows_per_s']:.1f} rows/s"
            )
            metrics = {k: v for k, v in (summary["metrics"] or {}).items() if k != "samples"}
            if metrics:
                lines.append("  " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
            for example in summary["error_examples"][:3]:
                lines.append(f"  error: {example['name']}: {example.get('error')}")
        elif data.get("error"):
            lines.append(f"  {data['error']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        return f"<pre>{escape(self.describe())}</pre>"


def _json_cell(cell: Any) -> Any:
    if isinstance(cell, str):
        try:
            return json.loads(cell)
        except ValueError:
            return cell
    return None if cell is None or cell != cell else cell  # NaN -> None


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    """A JSONL result row as the CSV's columns."""
    prediction = row.get("prediction") or {}
    flat: dict[str, Any] = {"id": row.get("id"), "name": row.get("name")}
    if "boxes" in prediction:
        flat["boxes"] = prediction["boxes"]
    elif "value" in prediction:
        flat["value"] = prediction["value"]
    elif prediction:
        flat["label"] = prediction.get("label")
        flat["score"] = prediction.get("score")
        flat["top_k"] = prediction.get("top_k")
    if "truth" in row:
        flat["truth"] = row["truth"]
    flat["error"] = row.get("error")
    return flat


def batch_source(source: Any, split: str | None) -> dict[str, Any]:
    """The POST body's source fields for a DatasetVersion / Dataset resource, an id dict
    (``{"dataset_version": 5}`` or ``{"dataset": 3}``), or a file path (an upload: see
    :func:`create_batch`)."""
    from sampan.datasets import Dataset, DatasetVersion

    if isinstance(source, DatasetVersion):
        return {"source": "dataset_version", "dataset_version": source.id, "split": split or ""}
    if isinstance(source, Dataset):
        if split:
            raise ValueError("split= needs a dataset version: a dataset has no splits")
        return {"source": "dataset", "dataset": source.id}
    if isinstance(source, Mapping):
        if "dataset_version" in source:
            return {
                "source": "dataset_version",
                "dataset_version": id_of(source["dataset_version"]),
                "split": split or "",
            }
        if "dataset" in source:
            if split:
                raise ValueError("split= needs a dataset version: a dataset has no splits")
            return {"source": "dataset", "dataset": id_of(source["dataset"])}
    raise TypeError(
        "source: a DatasetVersion or Dataset, {'dataset_version': id}, {'dataset': id} or a file path, "
        f"not {type(source).__name__}"
    )


def create_batch(
    client: Client,
    model_version: int | Resource[Any],
    source: Any,
    *,
    split: str | None = None,
    deployment: int | Resource[Any] | None = None,
    top_k: int | None = None,
    score_threshold: float | None = None,
    max_detections: int | None = None,
    formats: builtins.list[str] | None = None,
) -> BatchPrediction:
    """``POST /batch-predictions/``: JSON for a dataset (version), multipart for a file."""
    options: dict[str, Any] = {"model_version": id_of(model_version)}
    if deployment is not None:
        options["deployment"] = id_of(deployment)
    for name, value in (
        ("top_k", top_k),
        ("score_threshold", score_threshold),
        ("max_detections", max_detections),
    ):
        if value is not None:
            options[name] = value
    if isinstance(source, (str, os.PathLike)):
        if split:
            raise ValueError("split= needs a dataset version, not a file")
        path = Path(source)
        data = {key: str(value) for key, value in options.items()}
        data["source"] = "upload"
        multipart: builtins.list[tuple[str, Any]] = [(key, (None, value)) for key, value in data.items()]
        multipart += [("formats", (None, f)) for f in formats or []]
        with path.open("rb") as fh:
            multipart.append(("file", (path.name, fh, "application/octet-stream")))
            body = client.http.post("batch-predictions/", None, idempotent=True, files=multipart)
    else:
        payload = {**options, **batch_source(source, split)}
        if formats is not None:
            payload["formats"] = list(formats)
        body = client.http.post("batch-predictions/", payload, idempotent=True)
    return BatchPrediction(client, body)


class BatchPredictions:
    """``client.batch_predictions``: list, get, create (also ``model_version.batch_predict`` and
    ``deployment.batch_predict``), cancel, delete."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        model_version: int | Resource[Any] | None = None,
        deployment: int | Resource[Any] | None = None,
        status: str | None = None,
    ) -> builtins.list[BatchPrediction]:
        return [
            BatchPrediction(self._client, b)
            for b in self._client.http.paginate(
                "batch-predictions/",
                project=None if project is None else id_of(project),
                model_version=None if model_version is None else id_of(model_version),
                deployment=None if deployment is None else id_of(deployment),
                status=status,
            )
        ]

    def get(self, batch_id: int) -> BatchPrediction:
        return BatchPrediction(self._client, self._client.http.get(f"batch-predictions/{int(batch_id)}/"))

    def create(self, model_version: int | Resource[Any], source: Any, **options: Any) -> BatchPrediction:
        """See :meth:`sampan.ModelVersion.batch_predict`."""
        return create_batch(self._client, model_version, source, **options)

    def delete(self, batch: int | BatchPrediction) -> None:
        self._client.http.delete(f"batch-predictions/{id_of(batch)}/")
