"""Export a dataset, or one of its versions, as a zip that imports back to the same classes and
counts: images in a folder per class plus ``manifest.csv``, texts and table rows as ``data.csv``.
Every text cell is formula-injection safe."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Literal, cast

from config.exceptions import field_error
from django.core.files.storage import default_storage

from datasets import selectors
from datasets.models import (
    ANNOTATION_TASKS,
    IMAGE_TASKS,
    REGRESSION_TASKS,
    Annotation,
    AnnotationStatus,
    Dataset,
    DatasetVersion,
    Sample,
    TaskType,
    VersionSample,
)
from datasets.services.imports import Report, chunks
from datasets.services.versions import blob_local_path
from workers.contracts.annotations import EXPORT_FORMATS, AnnotationRecord, InterchangeImage, InterchangeSet
from workers.progress import silent_report

FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # the same content gives the same zip


def csv_cell(value: object) -> str:
    """Formula-injection safe: a cell a spreadsheet would evaluate gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _download_name(dataset: Dataset, version: DatasetVersion | None) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in dataset.name)[:60] or "dataset"
    return f"{safe}{'-' + version.name if version else ''}.zip"


EXPORT_BATCH = 2000  # samples between two progress reports


def dataset_export_check(*, dataset: Dataset, format: str | None) -> str | None:
    """The export format to use (object detection: ``coco`` when left out), or a 400 naming the
    problem; checked before anything is written or queued."""
    if dataset.task_type in ANNOTATION_TASKS:
        format = format or "coco"
        if format not in EXPORT_FORMATS:
            raise field_error(
                "format",
                f"{format!r} is not an export format; choose one of {', '.join(EXPORT_FORMATS)}.",
                code="unsupported_export_format",
            )
        return format
    if format:
        raise field_error(
            "format",
            f"Only object-detection datasets export in {', '.join(EXPORT_FORMATS)}; this dataset exports "
            "as its own layout (leave format out).",
            code="unsupported_export_format",
        )
    return None


def export_sample_count(*, dataset: Dataset, version: DatasetVersion | None) -> int:
    """How many samples an export of ``dataset`` (or ``version``) writes, about (what decides whether it
    is made inside the request or by a ``datasets.export`` job)."""
    if version is not None:
        return version.sample_count
    return Sample.objects.filter(dataset=dataset).count()


def dataset_export(
    *, dataset: Dataset, version: DatasetVersion | None = None, format: str | None = None
) -> tuple[IO[bytes], str]:
    """A zip in the folder-per-class layout (unlabeled samples at the root) plus ``manifest.csv``
    (path, label, split, original_name, sha256). Re-importing it gives the same classes and counts.
    Object-detection datasets: a COCO (default), VOC or YOLO layout with the images (``format``).

    Returns (file positioned at 0, download name).
    """
    out = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)  # noqa: SIM115 - handed to the response
    name = dataset_export_write(dataset=dataset, version=version, format=format, out=out)
    out.seek(0)
    return out, name


def dataset_export_write(
    *,
    dataset: Dataset,
    version: DatasetVersion | None,
    format: str | None,
    out: IO[bytes],
    report: Report = silent_report,
) -> str:
    """Write the export zip into ``out`` (seekable), streamed: rows are read ``EXPORT_BATCH`` at a time
    and written straight into the archive, each batch reported (``processed`` of ``total``). Returns
    the download name.

    e.g. ``with open("x.zip", "wb") as f: dataset_export_write(dataset=d, version=None, format=None, out=f)``
    """
    format = dataset_export_check(dataset=dataset, format=format)
    total = export_sample_count(dataset=dataset, version=version)
    progress = _Progress(report, total)
    if format is not None:
        return _detection_export(dataset=dataset, version=version, format=format, out=out, progress=progress)
    if dataset.task_type not in IMAGE_TASKS:
        return _table_export(dataset=dataset, version=version, out=out, progress=progress)
    used: set[str] = set()
    rows = selectors.export_rows(
        dataset=dataset, version=version, fields=["blob_key", "label", "original_name", "sha256"]
    )
    with tempfile.TemporaryFile("w+", newline="", encoding="utf-8") as manifest:
        writer = csv.writer(manifest)
        writer.writerow(["path", "label", "split", "original_name", "sha256"])
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
                entry = zipfile.ZipInfo(path, date_time=FIXED_TIME)
                entry.compress_type = zipfile.ZIP_STORED
                with (
                    default_storage.open(key, "rb") as blob,
                    archive.open(entry, "w", force_zip64=True) as dest,
                ):
                    shutil.copyfileobj(blob, dest, 1024 * 1024)
                writer.writerow([csv_cell(v) for v in (path, label or "", split, original, sha)])
                progress.step()
            manifest.seek(0)
            entry = zipfile.ZipInfo("manifest.csv", date_time=FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(entry, "w", force_zip64=True) as dest:
                while chunk := manifest.read(1024 * 1024):
                    dest.write(chunk.encode())
    progress.done()
    return _download_name(dataset, version)


class _Progress:
    """Reports ``processed`` of ``total`` samples every ``EXPORT_BATCH`` of them, with an ETA."""

    def __init__(self, report: Report, total: int) -> None:
        self.report, self.total, self.count = report, total, 0
        self.started = time.monotonic()
        report("writing the archive", fraction=0.0, milestone=True, processed=0, total=total)

    def step(self, n: int = 1) -> None:
        self.count += n
        if self.count % EXPORT_BATCH < n:
            total = max(self.total, self.count)
            elapsed = time.monotonic() - self.started
            self.report(
                f"wrote {self.count} of {total} samples",
                fraction=self.count / total,
                processed=self.count,
                total=total,
                eta_s=round(elapsed / self.count * (total - self.count), 1),
            )

    def done(self) -> None:
        self.report("archive written", fraction=1.0, milestone=True, processed=self.count, total=self.count)


def _unique_file(original: str, key: str, sha: str, used: set[str]) -> str:
    stem = PurePosixPath(original.replace("\\", "/")).stem or sha[:12]
    stem = "".join(c if c.isprintable() and c not in '/\\:*?"<>|' else "_" for c in stem)[:100]
    extension = key.rsplit(".", 1)[-1]
    name, n = f"{stem}.{extension}", 1
    while name.lower() in used:
        n += 1
        name = f"{stem}-{n}.{extension}"
    used.add(name.lower())
    return name


def detection_interchange(*, dataset: Dataset, version: DatasetVersion | None) -> tuple[InterchangeSet, dict]:
    """The dataset's reviewed images (annotated and no_objects; a format cannot tell "not labeled
    yet" from "no objects", so unlabeled images are left out) or a version's entries as an
    interchange set, and each image file's blob key."""
    used: set[str] = set()
    keys: dict[str, str] = {}
    images: list[InterchangeImage] = []
    if version is not None:
        classes = list(version.classes)
        entries = VersionSample.objects.filter(version=version).order_by("pk")
        for key, sha, original, width, height, stored in entries.values_list(
            "blob_key", "sha256", "original_name", "width", "height", "annotations"
        ).iterator(chunk_size=2000):
            records: list[AnnotationRecord] = [
                {
                    "kind": "box",
                    "label": classes[box["label"]],
                    "geometry": {
                        "x": float(box["x"]),
                        "y": float(box["y"]),
                        "width": float(box["width"]),
                        "height": float(box["height"]),
                    },
                    "attributes": box.get("attributes") or {},
                }
                for box in stored or []
            ]
            file = _unique_file(original, key, sha, used)
            keys[file] = key
            images.append(
                {
                    "file": file,
                    "width": width,
                    "height": height,
                    "status": "annotated" if records else "no_objects",
                    "annotations": records,
                }
            )
        return {"format": "coco", "classes": classes, "images": images, "problems": []}, keys
    classes = list(dataset.labels.order_by("position", "id").values_list("name", flat=True))
    samples = (
        Sample.objects.filter(dataset=dataset)
        .exclude(annotation_status=AnnotationStatus.UNLABELED)
        .order_by("pk")
        .values_list("pk", "blob_key", "sha256", "original_name", "width", "height", "annotation_status")
    )
    for chunk in chunks(list(samples), 2000):
        boxes: dict[int, list[AnnotationRecord]] = {}
        for sample_id, name, geometry, attributes in (
            Annotation.objects.filter(sample_id__in=[row[0] for row in chunk])
            .order_by("sample_id", "pk")
            .values_list("sample_id", "label__name", "geometry", "attributes")
        ):
            boxes.setdefault(sample_id, []).append(
                {"kind": "box", "label": name, "geometry": geometry, "attributes": attributes or {}}
            )
        for pk, key, sha, original, width, height, status in chunk:
            file = _unique_file(original, key, sha, used)
            keys[file] = key
            images.append(
                {
                    "file": file,
                    "width": width,
                    "height": height,
                    "status": status,
                    "annotations": boxes.get(pk, []),
                }
            )
    return {"format": "coco", "classes": classes, "images": images, "problems": []}, keys


def _detection_export(
    *, dataset: Dataset, version: DatasetVersion | None, format: str, out: IO[bytes], progress: _Progress
) -> str:
    from workers.annotation_formats import write_directory

    interchange, keys = detection_interchange(dataset=dataset, version=version)
    with tempfile.TemporaryDirectory(prefix="sampan-export-") as folder:
        root = Path(folder)
        cache = root / ".blobs"
        write_directory(
            interchange,
            root / "out",
            cast(Literal["coco", "voc", "yolo"], format),
            lambda file: Path(blob_local_path(keys[file], cache)),
        )
        with zipfile.ZipFile(out, "w") as archive:
            for path in sorted((root / "out").rglob("*")):
                if path.is_file():
                    name = path.relative_to(root / "out").as_posix()
                    compress = (
                        zipfile.ZIP_STORED
                        if path.suffix.lower() in (".png", ".jpg")
                        else zipfile.ZIP_DEFLATED
                    )
                    archive.writestr(
                        zipfile.ZipInfo(name, date_time=FIXED_TIME), path.read_bytes(), compress_type=compress
                    )
    progress.done()
    name = _download_name(dataset, version)
    return f"{name[:-4]}-{format}.zip"


def _table_export(
    *, dataset: Dataset, version: DatasetVersion | None, out: IO[bytes], progress: _Progress
) -> str:
    """A zip holding ``data.csv``: the rows (text and label, or the feature columns and the target)
    plus the split, every cell formula-injection safe. Re-importing it gives the same rows."""
    schema = (version.schema if version is not None else dataset.schema) or {}
    text = dataset.task_type == TaskType.TEXT_CLASSIFICATION
    regression = dataset.task_type in REGRESSION_TASKS
    series = schema.get("kind") == "time_series"  # forecasting: the mapped columns, as imported
    if series:
        features = [
            schema["timestamp_column"],
            *([schema["series_column"]] if schema.get("series_column") else []),
            *schema["target_columns"],
            *schema.get("known_covariates", []),
            *schema.get("static_covariates", []),
        ]
        header = list(features)
    elif text:
        label_header = schema.get("label_column") or "label"
        header = [schema.get("text_column") or "text", label_header]
    else:
        features = [c["name"] for c in schema.get("columns", [])]
        header = [*features, schema.get("target") or "target"]
    entry = zipfile.ZipInfo("data.csv", date_time=FIXED_TIME)
    entry.compress_type = zipfile.ZIP_DEFLATED
    with (
        zipfile.ZipFile(out, "w") as archive,
        archive.open(entry, "w", force_zip64=True) as raw,
        io.TextIOWrapper(raw, encoding="utf-8", newline="") as table,
    ):
        writer = csv.writer(table)
        writer.writerow([csv_cell(h) for h in [*header, "split"]])
        rows = selectors.export_rows(
            dataset=dataset, version=version, fields=["text", "values", "label", "target"]
        )
        for sample_text, values, label, target, split in rows:
            if series:
                found = values or {}
                cells = ["" if found.get(c) is None else found.get(c) for c in features]
            elif text:
                cells = [sample_text, label or ""]
            else:
                found = values or {}
                goal = (
                    (
                        ""
                        if target is None
                        else repr(target)
                        if not float(target).is_integer()
                        else int(target)
                    )
                    if regression
                    else (label or "")
                )
                cells = [*("" if found.get(c) is None else found.get(c) for c in features), goal]
            # numbers as numbers (a negative one is no formula); every text cell escaped
            writer.writerow([c if isinstance(c, int | float) else csv_cell(c) for c in [*cells, split]])
            progress.step()
    progress.done()
    return _download_name(dataset, version)
