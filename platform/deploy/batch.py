"""Batch predictions: a model version's predictions over a dataset version (a split or all), a
whole dataset or an uploaded file, computed by a ``deploy.batch_predict`` job.

- :func:`batch_prediction_create` checks the request (the model version servable, the source in
  its project and of its data kind, the split, the upload's type and size with the imports' own
  limits and safe archive checks), stores the upload and queues the job;
- :func:`batch_prediction_run` is the job's body: it copies the model as hosted serving does
  (``deploy.serving.materialize``), builds the :class:`~workers.contracts.batch.BatchInput` (the
  version's or dataset's samples with their labels as truth, or the upload's files or table),
  runs ``workers.serving.batch.run`` and stores the result files under
  ``batch-predictions/<id>/``;
- :func:`batch_prediction_cancel` and :func:`batch_prediction_delete` (files too).

The row's ``status`` mirrors its job's (queued, running, succeeded, failed, cancelled).
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from config.exceptions import Conflict, TooLarge, field_error
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from jobs.models import FINISHED, Job, JobStatus
from jobs.services import job_cancel, job_create
from training.models import ModelVersion

from deploy.models import BatchPrediction, BatchSourceKind, BatchStatus, Deployment
from workers.contracts.batch import BATCH_FORMATS, BATCH_VERSION, BatchInput, BatchItem, BatchPredictionParams
from workers.progress import JobCancelled, Report

SPLITS = ("", "train", "val", "test")
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".parquet", ".pq", ".xlsx")
FINISHED_BATCH = frozenset({BatchStatus.SUCCEEDED, BatchStatus.FAILED, BatchStatus.CANCELLED})


class BatchConflict(Conflict):
    default_code = "conflict"


def storage_prefix(batch: BatchPrediction) -> str:
    return f"batch-predictions/{batch.pk}"


def download_name(batch: BatchPrediction, fmt: str) -> str:
    """``batch-<id>-<model version>.<ext>``."""
    return f"batch-{batch.pk}-{batch.model_version.name}.{fmt}"


def batch_status(batch: BatchPrediction) -> str:
    """The row's status, or its job's while the row has not recorded an end yet."""
    if batch.status in FINISHED_BATCH or batch.job is None:
        return batch.status
    return batch.job.status


def _data_kind(model_version: ModelVersion) -> str:
    from workers.serving.predictors import predictor_class

    return predictor_class(model_version.template).data_kind


def check_operation_supported(model_version: ModelVersion, operation: str) -> None:
    from deploy.services import check_operation_supported as check

    check(model_version, operation)


def _check_servable(model_version: ModelVersion) -> None:
    from deploy.services import _check_servable as check

    check(model_version)


def _check_dataset(dataset, model_version: ModelVersion, field: str) -> None:
    from workers.contracts.data_kind import task_data_kind

    if dataset.project_id != model_version.project_id:
        raise field_error(
            field, f"Dataset {dataset.name!r} belongs to another project than {model_version.name}."
        )
    kind = _data_kind(model_version)
    if task_data_kind(dataset.task_type) != kind:
        raise field_error(
            field,
            f"Dataset {dataset.name!r} holds {task_data_kind(dataset.task_type)} data; "
            f"{model_version.name} ({model_version.template}) predicts {kind} inputs.",
        )


def _suffix(name: str) -> str:
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES + TABLE_SUFFIXES:
        if lower.endswith(suffix):
            return suffix
    return PurePosixPath(lower).suffix


def _check_upload(upload, model_version: ModelVersion) -> dict[str, Any]:
    """The upload's kind (``archive`` or ``table``), checked as imports check theirs."""
    from datasets.archives import ArchiveLimits, ArchiveRejected, archive_kind, archive_scan
    from datasets.tables import TableRejected, read_table

    name = PurePosixPath((upload.name or "upload").replace("\\", "/")).name[-255:] or "upload"
    if not upload.size:
        raise field_error("file", f"The file {name!r} is empty.", code="empty_upload")
    kind = _data_kind(model_version)
    head = upload.read(512)
    upload.seek(0)
    try:
        is_archive = bool(head) and archive_kind(upload) in ("zip", "tar")
    except ArchiveRejected:
        is_archive = False
    upload.seek(0)
    if is_archive:
        if kind == "tabular":
            raise field_error(
                "file",
                f"{model_version.name} predicts table rows: upload a CSV, JSONL or Parquet file, "
                "not an archive.",
                code="unsupported_format",
            )
        limit = settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES
        if upload.size > limit:
            raise TooLarge(
                f"file: The archive {name!r} is {upload.size:,} bytes; at most {limit:,} bytes are "
                "accepted (SAMPAN_DATASET_MAX_UPLOAD_BYTES).",
                code="upload_too_large",
                field="file",
                size_bytes=upload.size,
                limit_bytes=limit,
            )
        try:
            scan = archive_scan(upload, size=upload.size, limits=ArchiveLimits.from_settings())
        except ArchiveRejected as exc:
            raise field_error("file", str(exc), code=exc.code, entry=exc.entry) from None
        finally:
            upload.seek(0)
        return {"kind": "archive", "name": name, "files": len(scan.entries)}
    if _suffix(name) not in TABLE_SUFFIXES:
        raise field_error(
            "file",
            f"{name!r} is neither an archive (.zip, .tar, .tar.gz) nor a table (.csv, .jsonl, .parquet); "
            "upload one of those.",
            code="unsupported_format",
        )
    if kind == "image":
        raise field_error(
            "file",
            f"{model_version.name} predicts images: upload a .zip or .tar(.gz) of image files, not a table.",
            code="unsupported_format",
        )
    limit = settings.SAMPAN_DATASET_MAX_TABLE_BYTES
    if upload.size > limit:
        raise TooLarge(
            f"file: The table {name!r} is {upload.size:,} bytes; at most {limit:,} bytes are accepted "
            "(SAMPAN_DATASET_MAX_TABLE_BYTES).",
            code="upload_too_large",
            field="file",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    try:
        table = read_table(upload.read(), name, max_rows=settings.SAMPAN_DATASET_MAX_FILES)
    except TableRejected as exc:
        raise field_error("file", str(exc), code=exc.code) from None
    finally:
        upload.seek(0)
    if not table.rows:
        raise field_error("file", f"The table {name!r} has no rows.", code="empty_table")
    if kind == "text" and "text" not in table.columns:
        raise field_error(
            "file",
            f"The table {name!r} has no 'text' column; its columns are {', '.join(table.columns[:20])}.",
            code="invalid",
        )
    if kind == "tabular":
        known = {f["name"] for f in (model_version.preprocessing or {}).get("features", [])}
        target = (model_version.preprocessing or {}).get("target")
        unknown = [c for c in table.columns if c not in known and c not in (target, "id")]
        if known and unknown:
            raise field_error(
                "file",
                f"The table {name!r} has columns {model_version.name} does not know: "
                f"{', '.join(unknown[:10])}; its columns are {', '.join(sorted(known)[:30])} "
                "(plus an optional 'id' and the target).",
                code="unknown_column",
            )
    return {"kind": "table", "name": name, "rows": len(table.rows)}


def _params(raw: dict[str, Any], model_version: ModelVersion, *, table: bool) -> BatchPredictionParams:
    params: BatchPredictionParams = {}
    if raw.get("top_k") is not None:
        params["top_k"] = int(raw["top_k"])
    if model_version.template == "object_detection":
        if raw.get("score_threshold") is not None:
            params["score_threshold"] = float(raw["score_threshold"])
        if raw.get("max_detections") is not None:
            params["max_detections"] = int(raw["max_detections"])
    formats = list(
        dict.fromkeys(raw.get("formats") or ([*("jsonl", "csv"), "parquet"] if table else ["jsonl", "csv"]))
    )
    for fmt in formats:
        if fmt not in BATCH_FORMATS:
            raise field_error(
                "formats", f"{fmt!r} is not a result format; choose from {', '.join(BATCH_FORMATS)}."
            )
    params["formats"] = formats
    return params


@transaction.atomic
def batch_prediction_create(
    *,
    user,
    model_version: ModelVersion | None,
    source: str,
    dataset_version=None,
    split: str = "",
    dataset=None,
    deployment: Deployment | None = None,
    upload=None,
    params: dict[str, Any] | None = None,
) -> BatchPrediction:
    """Queue a batch prediction (a ``deploy.batch_predict`` job).

    e.g. ``batch_prediction_create(user=u, model_version=mv, source="dataset_version",
    dataset_version=v, split="test", params={"top_k": 3})``
    """
    if model_version is None:
        if deployment is None:
            raise field_error("model_version", "Name the model version to predict with (or a deployment).")
        model_version = deployment.model_version
    if deployment is not None and deployment.project_id != model_version.project_id:
        raise field_error("deployment", f"Deployment {deployment.name!r} belongs to another project.")
    _check_servable(model_version)
    check_operation_supported(model_version, "batch prediction")
    if split not in SPLITS:
        raise field_error("split", f"{split!r} is not a split; choose train, val, test or leave it empty.")
    fields: dict[str, Any] = {"source_kind": source}
    upload_info: dict[str, Any] | None = None
    if source == BatchSourceKind.DATASET_VERSION:
        if dataset_version is None:
            raise field_error("dataset_version", "Name the dataset version to predict.")
        _check_dataset(dataset_version.dataset, model_version, "dataset_version")
        entries = dataset_version.entries.all()
        if split:
            entries = entries.filter(split=split)
        if not entries.exists():
            where = f"no {split} samples" if split else "no samples"
            raise field_error(
                "split" if split else "dataset_version",
                f"Dataset version {dataset_version.name} has {where}.",
            )
        fields |= {"dataset_version": dataset_version, "split": split}
    elif source == BatchSourceKind.DATASET:
        if dataset is None:
            raise field_error("dataset", "Name the dataset to predict.")
        _check_dataset(dataset, model_version, "dataset")
        if split:
            raise field_error(
                "split", "A whole dataset has no splits; predict a dataset version's split instead."
            )
        if not dataset.samples.exists():
            raise field_error("dataset", f"Dataset {dataset.name!r} has no samples.")
        fields |= {"dataset": dataset}
    elif source == BatchSourceKind.UPLOAD:
        if upload is None:
            raise field_error("file", "Upload the file to predict (multipart field 'file').")
        if split:
            raise field_error("split", "An upload has no splits.")
        upload_info = _check_upload(upload, model_version)
        fields |= {"upload_name": upload_info["name"], "upload_size": upload.size}
    else:
        raise field_error("source", f"{source!r} is not a source; choose dataset_version, dataset or upload.")
    batch = BatchPrediction.objects.create(
        workspace_id=model_version.workspace_id,
        project_id=model_version.project_id,
        model_version=model_version,
        deployment=deployment,
        params=_params(
            params or {},
            model_version,
            table=bool(upload_info and upload_info["kind"] == "table")
            or _data_kind(model_version) == "tabular",
        ),
        created_by=user if user is not None and user.is_authenticated else None,
        **fields,
    )
    if upload is not None and upload_info is not None:
        import hashlib

        digest = hashlib.sha256()
        for chunk in upload.chunks():
            digest.update(chunk)
        upload.seek(0)
        key = default_storage.save(f"{storage_prefix(batch)}/upload/{upload_info['name']}", File(upload))
        batch.upload_key = key
        batch.upload_sha256 = digest.hexdigest()
        batch.save(update_fields=["upload_key", "upload_sha256"])
    batch.job = job_create(
        workspace=model_version.workspace,
        project=model_version.project,
        kind="deploy.batch_predict",
        params={"batch_prediction": batch.pk},
        user=user,
    )
    batch.save(update_fields=["job"])
    return batch


def batch_prediction_cancel(*, batch: BatchPrediction) -> BatchPrediction:
    """Cancel the job: a queued one stops at once, a running one at its next progress report."""
    if batch.job is None or batch_status(batch) in FINISHED_BATCH:
        raise BatchConflict(
            f"Batch prediction {batch.pk} already {batch_status(batch)}; there is nothing to cancel.",
            code="batch_finished",
        )
    job = job_cancel(job=batch.job)
    if job.status == JobStatus.CANCELLED:
        BatchPrediction.objects.filter(pk=batch.pk).exclude(status__in=FINISHED_BATCH).update(
            status=BatchStatus.CANCELLED, finished_at=timezone.now()
        )
    batch.refresh_from_db()
    return batch


@transaction.atomic
def batch_prediction_delete(*, batch: BatchPrediction) -> None:
    """Delete the record, its upload and its result files (409 while its job runs: cancel first)."""
    if (
        batch.job is not None
        and batch_status(batch) not in FINISHED_BATCH
        and batch.job.status not in FINISHED
    ):
        raise BatchConflict(
            f"Batch prediction {batch.pk} is {batch_status(batch)}; cancel it before deleting it.",
            code="batch_running",
        )
    keys = [entry["key"] for entry in (batch.files or {}).values() if entry.get("key")]
    if batch.upload_key:
        keys.append(batch.upload_key)
    batch.delete()

    def remove() -> None:
        for key in keys:
            with contextlib.suppress(OSError):
                default_storage.delete(key)

    transaction.on_commit(remove)


# --- the job -------------------------------------------------------------------------------------


def _version_input(batch: BatchPrediction, work: Path) -> tuple[dict[str, Any], bool]:
    """Items (images, texts) or a table (tabular rows) of the dataset version, labeled."""
    from datasets.models import VersionSample
    from datasets.services.versions import blob_local_path

    version = batch.dataset_version
    assert version is not None  # checked by the caller
    dataset = version.dataset
    entries = VersionSample.objects.filter(version=version).order_by("pk")
    if batch.split:
        entries = entries.filter(split=batch.split)
    classes = list(version.classes)
    cache = Path(settings.SAMPAN_HOME) / "cache"
    rows = entries.values_list(
        "pk",
        "sample_id",
        "blob_key",
        "original_name",
        "label_name",
        "text",
        "values",
        "target",
        "annotations",
    )
    task = dataset.task_type
    if task.startswith("tabular"):
        schema = version.schema or dataset.schema or {}
        target = schema.get("target") or "target"
        table = work / "rows.jsonl"
        with table.open("w", encoding="utf-8") as out:
            for _pk, sample_id, _key, _name, label_name, _text, values, target_value, _ann in rows.iterator():
                row = {**(values or {})}
                row.pop(target, None)
                row["id"] = sample_id
                row[target] = target_value if task == "tabular_regression" else label_name
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return {"table": str(table), "target": target}, True
    items: list[BatchItem] = []
    for pk, sample_id, key, name, label_name, text, _values, _target, boxes in rows.iterator():
        item: BatchItem = {"id": sample_id, "name": name or f"sample-{pk}", "path": ""}
        if task == "text_classification":
            item["text"] = text
            item["label"] = label_name or None
        else:
            item["path"] = blob_local_path(key, cache)
            if task == "object_detection":
                item["boxes"] = [
                    {
                        "label": classes[box["label"]] if 0 <= box["label"] < len(classes) else None,
                        "x": box["x"],
                        "y": box["y"],
                        "width": box["width"],
                        "height": box["height"],
                    }
                    for box in (boxes or [])
                ]
            else:
                item["label"] = label_name or None
        items.append(item)
    return {"items": items}, True


def _dataset_input(batch: BatchPrediction, work: Path) -> tuple[dict[str, Any], bool]:
    """The dataset's samples as they are now; labels (not detection boxes) as truth."""
    from datasets.models import Sample
    from datasets.services.versions import blob_local_path

    dataset = batch.dataset
    assert dataset is not None  # checked by the caller
    task = dataset.task_type
    cache = Path(settings.SAMPAN_HOME) / "cache"
    samples = Sample.objects.filter(dataset=dataset).order_by("pk")
    rows = samples.values_list("pk", "blob_key", "original_name", "label__name", "text", "values", "target")
    if task.startswith("tabular"):
        target = (dataset.schema or {}).get("target") or "target"
        table = work / "rows.jsonl"
        with table.open("w", encoding="utf-8") as out:
            for pk, _key, _name, label_name, _text, values, target_value in rows.iterator():
                row = {**(values or {})}
                row.pop(target, None)
                row["id"] = pk
                row[target] = target_value if task == "tabular_regression" else label_name
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return {"table": str(table), "target": target}, True
    items: list[BatchItem] = []
    for pk, key, name, label_name, text, _values, _target in rows.iterator():
        item: BatchItem = {"id": pk, "name": name or f"sample-{pk}", "path": ""}
        if task == "text_classification":
            item["text"] = text
        else:
            item["path"] = blob_local_path(key, cache)
        if task != "object_detection":
            item["label"] = label_name
        items.append(item)
    return {"items": items}, task != "object_detection"


def _upload_input(
    batch: BatchPrediction, work: Path, model_version: ModelVersion
) -> tuple[dict[str, Any], bool]:
    """The upload's files (extracted with the imports' safe archive rules) or its table, rewritten
    as JSONL rows (read as table imports read them: encoding, delimiter, decimal mark detected)."""
    from datasets.archives import ArchiveRejected, archive_kind
    from datasets.tables import TableRejected, read_table
    from jobs.runner import JobInputRejected

    upload = work / "upload"
    with default_storage.open(batch.upload_key, "rb") as source, upload.open("wb") as out:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            out.write(chunk)
    with upload.open("rb") as stream:
        try:
            is_archive = archive_kind(stream) in ("zip", "tar")
        except ArchiveRejected:
            is_archive = False
        if is_archive:
            return _archive_input(stream, upload.stat().st_size, work, model_version)
    data = upload.read_bytes()
    try:
        table = read_table(data, batch.upload_name, max_rows=settings.SAMPAN_DATASET_MAX_FILES)
    except TableRejected as exc:
        raise JobInputRejected(str(exc)) from None
    preprocessing = model_version.preprocessing or {}
    target = preprocessing.get("target") if model_version.template.startswith("tabular") else "label"
    labeled = bool(target) and target in table.columns
    path = work / "rows.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for row in table.rows:
            out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    return {"table": str(path), "target": target if labeled else None}, labeled


def _archive_input(stream, size: int, work: Path, model_version: ModelVersion) -> tuple[dict[str, Any], bool]:
    """An archive's files, unpacked with the imports' rules; an entry that cannot be unpacked is an
    error row naming why. Folder names are the truth when some are classes of the model (the
    folder-per-class layout imports read)."""
    from datasets.archives import ArchiveLimits, ArchiveRejected, archive_files, archive_scan
    from jobs.runner import JobInputRejected

    limits = ArchiveLimits.from_settings()
    try:
        scan = archive_scan(stream, size=size, limits=limits)
    except ArchiveRejected as exc:
        raise JobInputRejected(str(exc)) from None
    for entry in scan.entries:
        if entry.problem is not None and entry.problem[0] == "bad_label":  # labels are not required here
            entry.problem = None
    files_dir = work / "files"
    files_dir.mkdir()
    found: dict[int, BatchItem] = {}
    for entry, content in archive_files(stream, scan, limits=limits):
        path = files_dir / f"{entry.index:07d}"
        path.write_bytes(content)
        found[entry.index] = {"id": None, "name": entry.name, "path": str(path)}
    classes = set(model_version.classes)
    labeled = any(entry.label in classes for entry in scan.entries if entry.label)
    items: list[BatchItem] = []
    for entry in sorted(scan.entries, key=lambda e: e.index):
        item = found.get(entry.index)
        if item is None:
            why = entry.problem[1] if entry.problem is not None else "it could not be unpacked"
            item = {"id": None, "name": entry.name, "path": "", "problem": why}
        if labeled:
            item["label"] = entry.label
        items.append(item)
    return {"items": items}, labeled


def _store_results(batch: BatchPrediction, out_dir: Path, files: dict[str, Any]) -> dict[str, Any]:
    stored: dict[str, Any] = {}
    for fmt, entry in files.items():
        key = f"{storage_prefix(batch)}/{download_name(batch, fmt)}"
        if default_storage.exists(key):
            default_storage.delete(key)
        with (out_dir / entry["key"]).open("rb") as fh:
            key = default_storage.save(key, File(fh, name=Path(key).name))
        stored[fmt] = {**entry, "key": key}
    return stored


def _finish(batch: BatchPrediction, status: str, **fields: Any) -> None:
    BatchPrediction.objects.filter(pk=batch.pk).update(status=status, finished_at=timezone.now(), **fields)


def batch_prediction_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of a ``deploy.batch_predict`` job (module docstring)."""
    from jobs.runner import JobInputRejected

    from deploy import serving
    from workers.serving import batch as compute

    batch = (
        BatchPrediction.objects.select_related("model_version", "dataset_version__dataset", "dataset")
        .filter(pk=job.params["batch_prediction"])
        .first()
    )
    if batch is None:
        return {"batch_prediction": job.params["batch_prediction"], "predicted": 0, "errors": 0}
    BatchPrediction.objects.filter(pk=batch.pk).update(status=BatchStatus.RUNNING, error="")
    mv = batch.model_version
    try:
        with tempfile.TemporaryDirectory(prefix="sampan-batch-") as tmp:
            work = Path(tmp)
            report(f"fetching {mv.name}'s model", fraction=0.0, milestone=True)
            model_dir = serving.materialize(serving.model_version_state(mv), work / "model")
            if batch.source_kind == BatchSourceKind.DATASET_VERSION:
                if batch.dataset_version is None:
                    raise JobInputRejected("The dataset version of this batch prediction was deleted.")
                source, labeled = _version_input(batch, work)
            elif batch.source_kind == BatchSourceKind.DATASET:
                if batch.dataset is None:
                    raise JobInputRejected("The dataset of this batch prediction was deleted.")
                source, labeled = _dataset_input(batch, work)
            else:
                source, labeled = _upload_input(batch, work, mv)
            batch_input: BatchInput = {
                "kind": "batch_input",
                "version": BATCH_VERSION,
                "template": mv.template,
                "model_dir": str(model_dir),
                "labeled": labeled,
                **source,  # type: ignore[typeddict-item]
            }
            try:
                summary = compute.run(
                    batch_input,
                    batch.params,
                    work / "out",
                    report,
                    max_image_pixels=serving.max_image_pixels(),
                )
            except compute.BatchInputError as exc:
                raise JobInputRejected(str(exc)) from None
            report("storing the results", fraction=0.97, milestone=True)
            files = _store_results(batch, work / "out", summary["files"])
            summary["files"] = files
    except JobCancelled:
        _finish(batch, BatchStatus.CANCELLED)
        raise
    except Exception as exc:
        from jobs.runner import describe_failure

        _finish(
            batch,
            BatchStatus.FAILED,
            error=describe_failure(exc) if not isinstance(exc, JobInputRejected) else str(exc),
        )
        raise
    _finish(batch, BatchStatus.SUCCEEDED, summary=summary, files=files, error="")
    return {
        "batch_prediction": batch.pk,
        "predicted": summary["predicted"],
        "errors": summary["errors"],
    }
