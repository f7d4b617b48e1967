"""Export a dataset, or one of its versions, as a zip that imports back to the same classes and
counts: images in a folder per class plus ``manifest.csv``, texts and table rows as ``data.csv``.
Every text cell is formula-injection safe."""

from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from pathlib import PurePosixPath
from typing import IO

from django.core.files.storage import default_storage

from datasets import selectors
from datasets.models import IMAGE_TASKS, REGRESSION_TASKS, Dataset, DatasetVersion, TaskType

FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # the same content gives the same zip


def csv_cell(value: object) -> str:
    """Formula-injection safe: a cell a spreadsheet would evaluate gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _download_name(dataset: Dataset, version: DatasetVersion | None) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in dataset.name)[:60] or "dataset"
    return f"{safe}{'-' + version.name if version else ''}.zip"


def dataset_export(*, dataset: Dataset, version: DatasetVersion | None = None) -> tuple[IO[bytes], str]:
    """A zip in the folder-per-class layout (unlabeled samples at the root) plus ``manifest.csv``
    (path, label, split, original_name, sha256). Re-importing it gives the same classes and counts.

    Returns (file positioned at 0, download name).
    """
    if dataset.task_type not in IMAGE_TASKS:
        return _table_export(dataset=dataset, version=version)
    out = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)  # noqa: SIM115 - handed to the response
    manifest = io.StringIO()
    writer = csv.writer(manifest)
    writer.writerow(["path", "label", "split", "original_name", "sha256"])
    used: set[str] = set()
    rows = selectors.export_rows(
        dataset=dataset, version=version, fields=["blob_key", "label", "original_name", "sha256"]
    )
    with zipfile.ZipFile(out, "w") as archive:
        for key, label, original, sha, split in rows:
            stem = PurePosixPath(original.replace("\\", "/")).stem or sha[:12]
            stem = "".join(c if c.isprintable() and c not in '/\\:*?"<>|' else "_" for c in stem)[:100]
            extension = key.rsplit(".", 1)[-1]
            folder = f"{label}/" if label else ""
            path, n = f"{folder}{stem}.{extension}", 1
            while path.lower() in used:
                n += 1
                path = f"{folder}{stem}-{n}.{extension}"
            used.add(path.lower())
            with default_storage.open(key, "rb") as blob:
                archive.writestr(
                    zipfile.ZipInfo(path, date_time=FIXED_TIME), blob.read(), compress_type=zipfile.ZIP_STORED
                )
            writer.writerow([csv_cell(v) for v in (path, label or "", split, original, sha)])
        archive.writestr("manifest.csv", manifest.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    out.seek(0)
    return out, _download_name(dataset, version)


def _table_export(*, dataset: Dataset, version: DatasetVersion | None) -> tuple[IO[bytes], str]:
    """A zip holding ``data.csv``: the rows (text and label, or the feature columns and the target)
    plus the split, every cell formula-injection safe. Re-importing it gives the same rows."""
    schema = (version.schema if version is not None else dataset.schema) or {}
    text = dataset.task_type == TaskType.TEXT_CLASSIFICATION
    regression = dataset.task_type in REGRESSION_TASKS
    if text:
        label_header = schema.get("label_column") or "label"
        header = [schema.get("text_column") or "text", label_header]
    else:
        features = [c["name"] for c in schema.get("columns", [])]
        header = [*features, schema.get("target") or "target"]
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow([csv_cell(h) for h in [*header, "split"]])
    rows = selectors.export_rows(
        dataset=dataset, version=version, fields=["text", "values", "label", "target"]
    )
    for sample_text, values, label, target, split in rows:
        if text:
            cells = [sample_text, label or ""]
        else:
            found = values or {}
            goal = (
                ("" if target is None else repr(target) if not float(target).is_integer() else int(target))
                if regression
                else (label or "")
            )
            cells = [*("" if found.get(c) is None else found.get(c) for c in features), goal]
        # numbers as numbers (a negative one is no formula); every text cell escaped
        writer.writerow([c if isinstance(c, int | float) else csv_cell(c) for c in [*cells, split]])
    out = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)  # noqa: SIM115 - handed to the response
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            zipfile.ZipInfo("data.csv", date_time=FIXED_TIME),
            table.getvalue().encode(),
            compress_type=zipfile.ZIP_DEFLATED,
        )
    out.seek(0)
    return out, _download_name(dataset, version)
