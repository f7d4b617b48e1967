"""Writes of the data service: datasets, labels, label writes on samples, imports, dataset
versions, export, and the two helpers the training service calls
(``dataset_version_manifest`` and ``dataset_version_check_trainable``)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import math
import os
import random
import secrets
import tempfile
import time
import zipfile
import zlib
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any
from uuid import uuid4

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework.exceptions import NotFound, ValidationError

from datasets.archives import ArchiveLimits, ArchiveRejected, archive_files, archive_scan
from datasets.exceptions import ImportRejected, LabelConflict, LabelDeleted, UploadTooLarge
from datasets.images import CONTENT_TYPES, ImageRejected, prepare_image
from datasets.models import (
    IMAGE_TASKS,
    REGRESSION_TASKS,
    TABULAR_TASKS,
    Dataset,
    DatasetVersion,
    ImportBatch,
    ImportSource,
    ImportStatus,
    Label,
    Sample,
    Split,
    TaskType,
    VersionSample,
)
from datasets.tables import (
    MAX_COLUMNS,
    TableRejected,
    as_number,
    column_profile,
    decimal_option,
    delimiter_option,
    encoding_name,
    infer_type,
    read_table,
    table_format,
    target_profile,
)
from workers.progress import JobCancelled

logger = logging.getLogger("sampan.datasets")

Report = Callable[..., None]
PALETTE = [
    "#e6194b",
    "#3cb44b",
    "#4363d8",
    "#f58231",
    "#911eb4",
    "#42d4f4",
    "#f032e6",
    "#bfef45",
    "#fabed4",
    "#469990",
    "#dcbeff",
    "#9a6324",
    "#800000",
    "#aaffc3",
    "#808000",
    "#000075",
]
INSERT_BATCH = 2000
MAX_PROBLEMS_LISTED = 1000  # per import's answer and detail; the counts (failed, duplicates) are whole
ROWS_KEY = "rows"  # a regression version's counts: {"train": {"rows": n}, ...}
MIN_REGRESSION_ROWS = 10


# --- datasets ----------------------------------------------------------------------------------


def dataset_create(*, user, project, name: str, task_type: str, description: str = "") -> Dataset:
    """e.g. ``dataset_create(user=u, project=p, name="Digits", task_type="image_classification")``"""
    try:
        with transaction.atomic():
            return Dataset.objects.create(
                workspace_id=project.workspace_id,
                project=project,
                name=name.strip(),
                task_type=task_type,
                description=description,
                created_by=user,
            )
    except IntegrityError:
        raise ValidationError(
            {"name": [f"A dataset named {name.strip()!r} already exists in this project."]}
        ) from None


def dataset_update(*, dataset: Dataset, **fields: Any) -> Dataset:
    for key, value in fields.items():
        setattr(dataset, key, value.strip() if key == "name" else value)
    try:
        with transaction.atomic():
            dataset.save()
    except IntegrityError:
        raise ValidationError(
            {"name": [f"A dataset named {dataset.name!r} already exists in this project."]}
        ) from None
    return dataset


@transaction.atomic
def dataset_delete(*, dataset: Dataset) -> None:
    """Delete the dataset's rows in bulk (its blobs stay: content-addressed, possibly shared)."""
    VersionSample.objects.filter(version__dataset=dataset).delete()
    DatasetVersion.objects.filter(dataset=dataset).delete()
    # Nothing references these samples any more; skip the collector, which would load every row.
    Sample.objects.filter(dataset=dataset)._raw_delete(Sample.objects.db)
    dataset.delete()


# --- labels ------------------------------------------------------------------------------------


def _label_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["A label name must not be blank."]})
    if len(name) > 100:
        raise ValidationError({"name": ["A label name has at most 100 characters."]})
    if any(c in name for c in "/\\\x00") or name in {".", ".."}:
        raise ValidationError(
            {
                "name": [
                    f"{name!r} cannot be a label: label names are folder names on export, "
                    "so '/', '\\\\', '.' and '..' are not allowed."
                ]
            }
        )
    return name


def _upload_label(name: str) -> str:
    """The optional label of an import, checked like any label name (reported as the ``label`` field)."""
    if not name:
        return ""
    try:
        return _label_name(name)
    except ValidationError as exc:
        raise ValidationError({"label": exc.detail["name"]}) from None


def _color_for(name: str) -> str:
    return PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def label_create(*, dataset: Dataset, name: str, color: str = "") -> Label:
    name = _label_name(name)
    try:
        with transaction.atomic():
            return Label.objects.create(dataset=dataset, name=name, color=color or _color_for(name))
    except IntegrityError:
        raise ValidationError({"name": [f"This dataset already has a label named {name!r}."]}) from None


def label_update(*, label: Label, name: str | None = None, color: str | None = None) -> Label:
    """Rename or recolour; renaming onto an existing name is refused (merge the labels instead)."""
    if name is not None:
        label.name = _label_name(name)
    if color is not None:
        label.color = color
    try:
        with transaction.atomic():
            label.save()
    except IntegrityError:
        raise ValidationError(
            {
                "name": [
                    f"This dataset already has a label named {label.name!r}; merge the two labels instead."
                ]
            }
        ) from None
    return label


def _lock_labels(*pks: int) -> dict[int, Label]:
    """FOR UPDATE, in id order: waits for label writes in flight, and they wait for us."""
    return {lab.pk: lab for lab in Label.objects.select_for_update().filter(pk__in=pks).order_by("pk")}


@transaction.atomic
def label_delete(*, label: Label, dry_run: bool = False) -> int:
    """Delete a label; its samples become unlabeled. Returns how many samples change."""
    if not _lock_labels(label.pk):
        raise NotFound(f"Label {label.pk} no longer exists.")
    samples = Sample.objects.filter(dataset_id=label.dataset_id, label_id=label.pk)
    affected = samples.count()
    if not dry_run:
        samples.update(label=None, label_version=F("label_version") + 1)
        Label.objects.filter(pk=label.pk).delete()
    return affected


@transaction.atomic
def label_merge(*, label: Label, into: Label, dry_run: bool = False) -> int:
    """Move ``label``'s samples to ``into`` and delete ``label``. Returns how many samples change."""
    if into.pk == label.pk:
        raise ValidationError({"into": ["A label cannot be merged into itself."]})
    if into.dataset_id != label.dataset_id:
        raise ValidationError({"into": [f"Label {into.pk} is not a label of this dataset."]})
    locked = _lock_labels(label.pk, into.pk)
    if into.pk not in locked:
        raise LabelDeleted(f"Label {into.pk} no longer exists; reload the labels.", field="into")
    if label.pk not in locked:
        raise NotFound(f"Label {label.pk} no longer exists.")
    samples = Sample.objects.filter(dataset_id=label.dataset_id, label_id=label.pk)
    affected = samples.count()
    if not dry_run:
        samples.update(label=into, label_version=F("label_version") + 1)
        Label.objects.filter(pk=label.pk).delete()
    return affected


# --- label writes on samples (optimistic concurrency) ---------------------------------------------


def _label_for_write(*, dataset: Dataset, label_id: int | None) -> Label | None:
    """The target label, locked against deletion until our transaction ends."""
    if label_id is None:
        return None
    label = Label.objects.select_for_update(no_key=True).filter(pk=label_id, dataset=dataset).first()
    if label is None:
        raise LabelDeleted(
            f"Label {label_id} does not exist in this dataset (it may have just been deleted or merged); "
            "nothing was saved. Reload the labels and try again.",
            field="label",
        )
    return label


def _current(sample: dict) -> dict:
    return {
        "id": sample["pk"],
        "label": sample["label_id"],
        "label_name": sample["label__name"],
        "label_version": sample["label_version"],
    }


def sample_set_label(*, dataset: Dataset, sample_id: int, label_id: int | None, label_version: int) -> Sample:
    """Label one sample if nobody changed it since ``label_version``; 409 with the current value if
    someone did. e.g. ``sample_set_label(dataset=d, sample_id=7, label_id=3, label_version=0)``"""
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        changed = Sample.objects.filter(pk=sample_id, dataset=dataset, label_version=label_version).update(
            label=label, label_version=F("label_version") + 1
        )
        if changed != 1:
            current = (
                Sample.objects.filter(pk=sample_id, dataset=dataset)
                .values("pk", "label_id", "label__name", "label_version")
                .first()
            )
            if current is None:
                raise NotFound(f"Sample {sample_id} does not exist in this dataset.")
            raise LabelConflict(
                f"Sample {sample_id} was relabeled by someone else (its label_version is now "
                f"{current['label_version']}, you sent {label_version}); nothing was saved.",
                field="label_version",
                current=_current(current),
            )
    return Sample.objects.select_related("label").get(pk=sample_id)


def samples_bulk_set_label(*, dataset: Dataset, label_id: int | None, items: list[dict]) -> list[dict]:
    """All or nothing: every item is ``{"id", "label_version"}``; if any sample changed meanwhile,
    nothing is saved and the 409 lists the current values. Returns the new versions."""
    ids = [item["id"] for item in items]
    if len(set(ids)) != len(ids):
        raise ValidationError({"items": ["Each sample may appear once."]})
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        seen = dict(
            Sample.objects.select_for_update()
            .filter(dataset=dataset, pk__in=ids)
            .order_by("pk")
            .values_list("pk", "label_version")
        )
        missing = sorted(set(ids) - set(seen))
        if missing:
            raise ValidationError(
                {"items": [f"No sample(s) {missing[:20]} in this dataset; nothing was saved."]}
            )
        stale = [item["id"] for item in items if seen[item["id"]] != item["label_version"]]
        if stale:
            current = Sample.objects.filter(pk__in=stale).values(
                "pk", "label_id", "label__name", "label_version"
            )
            raise LabelConflict(
                f"{len(stale)} of the {len(ids)} samples were relabeled by someone else since you loaded them; "
                "nothing was saved.",
                field="items",
                conflicts=[_current(row) for row in current],
            )
        Sample.objects.filter(pk__in=ids).update(label=label, label_version=F("label_version") + 1)
        return [
            {"id": pk, "label": label_id, "label_version": version}
            for pk, version in Sample.objects.filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", "label_version")
        ]


def sample_delete(*, sample: Sample) -> None:
    """Versions keep their copy of the sample; the blob stays for them."""
    sample.delete()


# --- imports -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Staged:
    name: str
    label: str | None
    sha256: str
    blob_key: str
    thumbnail_key: str
    format: str
    width: int
    height: int
    size: int


def blob_key_for(sha256: str, extension: str) -> str:
    return f"samples/{sha256[:2]}/{sha256}.{extension}"


def thumbnail_key_for(sha256: str) -> str:
    return f"thumbnails/{sha256[:2]}/{sha256}.jpg"


def content_type_of(key: str) -> str:
    return CONTENT_TYPES.get(key.rsplit(".", 1)[-1], "application/octet-stream")


def _store_blob(key: str, data: bytes) -> None:
    """Content-addressed: a key that exists already holds these bytes."""
    if default_storage.exists(key):
        return
    saved = default_storage.save(key, ContentFile(data))
    if saved != key:  # a concurrent import stored the same content first
        default_storage.delete(saved)


def _prepare_and_store(data: bytes, max_pixels: int) -> _Staged | ImageRejected:
    """Verify, re-encode and thumbnail one image and store both blobs (runs in a worker thread:
    Pillow's codecs and file writes release the GIL)."""
    try:
        image = prepare_image(data, max_pixels=max_pixels)
    except ImageRejected as exc:
        return exc
    key = blob_key_for(image.sha256, image.extension)
    _store_blob(key, image.data)
    thumb_key = key
    if image.thumbnail is not None:
        thumb_key = thumbnail_key_for(image.sha256)
        _store_blob(thumb_key, image.thumbnail)
    return _Staged(
        name="",
        label=None,
        sha256=image.sha256,
        blob_key=key,
        thumbnail_key=thumb_key,
        format=image.format,
        width=image.width,
        height=image.height,
        size=len(image.data),
    )


IMPORT_THREADS = min(4, os.cpu_count() or 1)
SYNC_IMPORT_MAX_BYTES = (
    64 * 1024 * 1024
)  # bigger archives (unpacked) import in a job, whatever their file count
IMPORT_WINDOW = 64  # images in flight: bounds memory whatever the archive's size


@dataclass
class _ImportRun:
    """One import in progress: files verified and stored so far, and every file's problem."""

    label_name: str | None = None
    report: Report | None = None
    total: int = 0
    max_pixels: int = 0
    staged: list[_Staged] = field(default_factory=list)
    problems: list[dict] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)
    done: int = 0
    _last_report: float = 0.0

    def problem(self, name: str, code: str, message: str) -> None:
        self.problems.append({"file": name, "code": code, "message": message})

    def feed(self, files: Iterable[tuple[str, str | None, bytes]]) -> None:
        """Process (name, label, bytes) in parallel threads, taking the outcomes in file order."""
        window: deque = deque()
        with ThreadPoolExecutor(max_workers=IMPORT_THREADS, thread_name_prefix="sampan-import") as pool:
            for name, label, data in files:
                window.append((name, label, pool.submit(_prepare_and_store, data, self.max_pixels)))
                if len(window) >= IMPORT_WINDOW:
                    self._take(*window.popleft())
            while window:
                self._take(*window.popleft())

    def _take(self, name: str, label: str | None, outcome: Future) -> None:
        self.done += 1
        staged = outcome.result()
        if isinstance(staged, ImageRejected):
            self.problem(name, staged.code, str(staged))
        elif staged.sha256 in self.seen:
            self.problem(
                name, "duplicate", f"the same image as {self.seen[staged.sha256]!r} earlier in this import"
            )
        else:
            self.seen[staged.sha256] = name
            staged.name, staged.label = name[-255:], label or self.label_name
            self.staged.append(staged)
        self.progress()

    def progress(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if self.report is not None and (force or now - self._last_report >= 0.5):
            self._last_report = now
            total = max(self.total, 1)
            self.report(
                f"{self.done} of {self.total} files",
                fraction=self.done / total * 0.95,
                processed=self.done,
                total=self.total,
                imported=len(self.staged),
                problems=len(self.problems),
            )


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _problem_details(problems: list[dict], *, files: int, failed: int) -> dict:
    """A refused import's details: the first MAX_PROBLEMS_LISTED problems and the whole counts."""
    return {
        "problems": problems[:MAX_PROBLEMS_LISTED],
        "problems_total": len(problems),
        "files": files,
        "failed": failed,
        "duplicates": len(problems) - failed,
    }


def _commit(
    *, dataset: Dataset, run: _ImportRun, batch: ImportBatch, files: int, ignored: int
) -> ImportBatch:
    """Insert the import's samples in one transaction; the batch records the outcome."""
    with transaction.atomic():
        list(
            Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk")
        )  # one import at a time
        existing: dict[str, str] = {}
        for chunk in _chunks([s.sha256 for s in run.staged], 5000):
            existing.update(
                Sample.objects.filter(dataset=dataset, sha256__in=chunk).values_list(
                    "sha256", "original_name"
                )
            )
        fresh = []
        for staged in run.staged:
            if staged.sha256 in existing:
                run.problem(
                    staged.name, "duplicate", f"already in the dataset as {existing[staged.sha256]!r}"
                )
            else:
                fresh.append(staged)
        failed = sum(1 for p in run.problems if p["code"] != "duplicate")
        if not fresh and failed:
            listed = "; ".join(f"{p['file']}: {p['message']}" for p in run.problems[:5])
            raise ImportRejected(
                f"No file could be imported ({failed:,} rejected): {listed}",
                code="nothing_imported",
                **_problem_details(run.problems, files=files, failed=failed),
            )
        names = {s.label for s in fresh if s.label}
        labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        created = sorted(names - set(labels))
        if created:
            Label.objects.bulk_create(
                [Label(dataset=dataset, name=n, color=_color_for(n)) for n in created], ignore_conflicts=True
            )
            labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        batch.files = files
        batch.ignored = ignored
        batch.imported = len(fresh)
        batch.duplicates = len(run.problems) - failed
        batch.failed = failed
        batch.labels_created = created
        batch.problems = run.problems[:MAX_PROBLEMS_LISTED]
        batch.status = ImportStatus.SUCCEEDED
        batch.finished_at = timezone.now()
        batch.save()
        now = timezone.now()
        for chunk in _chunks(fresh, INSERT_BATCH):
            Sample.objects.bulk_create(
                [
                    Sample(
                        dataset=dataset,
                        label=labels.get(s.label) if s.label else None,
                        sha256=s.sha256,
                        blob_key=s.blob_key,
                        thumbnail_key=s.thumbnail_key,
                        original_name=s.name,
                        format=s.format,
                        width=s.width,
                        height=s.height,
                        size_bytes=s.size,
                        import_batch=batch,
                        created_at=now,
                    )
                    for s in chunk
                ]
            )
    return batch


def _limits() -> ArchiveLimits:
    return ArchiveLimits.from_settings()


def _check_upload_size(size: int, what: str) -> None:
    limit = settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadTooLarge(
            f"{what} is {size:,} bytes; one import takes at most {limit:,} bytes "
            "(SAMPAN_DATASET_MAX_UPLOAD_BYTES). Split it into several imports.",
            field="archive" if what.startswith("The archive") else "files",
            size_bytes=size,
            limit_bytes=limit,
        )


def _scan(fileobj: IO[bytes], *, size: int):
    try:
        return archive_scan(fileobj, size=size, limits=_limits())
    except ArchiveRejected as exc:
        details = {"entry": exc.entry} if exc.entry else {}
        raise ImportRejected(str(exc), code=exc.code, field="archive", **details) from None


def _import_archive_now(
    *,
    dataset: Dataset,
    fileobj: IO[bytes],
    scan,
    batch: ImportBatch,
    label_name: str | None,
    report: Report | None = None,
) -> ImportBatch:
    run = _ImportRun(
        label_name=label_name or None,
        report=report,
        total=len(scan.entries),
        max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS,
    )
    try:
        run.feed(
            (entry.name, entry.label, data) for entry, data in archive_files(fileobj, scan, limits=_limits())
        )
    except ArchiveRejected as exc:
        raise ImportRejected(str(exc), code=exc.code, field="archive") from None
    for entry in scan.entries:
        if entry.problem is not None:
            run.problem(entry.name, *entry.problem)
            run.done += 1
    run.progress(force=True)
    return _commit(dataset=dataset, run=run, batch=batch, files=len(scan.entries), ignored=scan.ignored)


def import_archive(
    *, dataset: Dataset, upload, user, label_name: str = "", background: bool = False
) -> ImportBatch:
    """Import a zip or tar(.gz/.bz2/.xz) upload: checked whole first (nothing is written for a
    refused archive), then small archives import now and big ones (more files than
    SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES or over 64 MiB unpacked, or ``background=True``) in a
    ``datasets.import`` job. ``upload`` is a file object with ``name`` and ``size``.

    e.g. ``import_archive(dataset=d, upload=request.FILES["archive"], user=u).imported``
    """
    from jobs.services import job_create

    _require_images(dataset)
    label_name = _upload_label(label_name)
    _check_upload_size(upload.size, f"The archive {upload.name!r}")
    upload.seek(0)
    scan = _scan(upload, size=upload.size)
    batch = ImportBatch(
        dataset=dataset,
        source=ImportSource.ARCHIVE,
        filename=PurePosixPath(upload.name).name[-255:],
        size_bytes=upload.size,
        label_name=label_name,
        created_by=user,
    )
    small = (
        len(scan.entries) <= settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES
        and scan.uncompressed_bytes <= SYNC_IMPORT_MAX_BYTES
    )
    if not background and small:
        batch.status = ImportStatus.RUNNING
        return _import_archive_now(
            dataset=dataset, fileobj=upload, scan=scan, batch=batch, label_name=label_name
        )
    upload.seek(0)
    batch.upload_key = default_storage.save(f"imports/{uuid4().hex}/archive", upload)
    batch.files = len(scan.entries)
    batch.ignored = scan.ignored
    try:
        with transaction.atomic():
            batch.save()
            batch.job = job_create(
                workspace=dataset.workspace,
                project=dataset.project,
                kind="datasets.import",
                params={"import_batch": batch.pk},
                user=user,
            )
            batch.save(update_fields=["job"])
    except Exception:
        default_storage.delete(batch.upload_key)
        raise
    return batch


def import_files(*, dataset: Dataset, files: list, user, label_name: str = "") -> ImportBatch:
    """Import image files uploaded together (drag and drop): each is verified by content; bad
    ones are reported by name and the rest import. All get ``label_name`` if given."""
    _require_images(dataset)
    label_name = _upload_label(label_name)
    limits = _limits()
    if not files:
        raise ImportRejected("No files were uploaded.", code="empty_upload", field="files")
    if len(files) > limits.max_files:
        raise ImportRejected(
            f"{len(files):,} files in one import; the limit is {limits.max_files:,} "
            "(SAMPAN_DATASET_MAX_FILES).",
            code="too_many_files",
            field="files",
        )
    _check_upload_size(sum(f.size for f in files), f"The upload of {len(files)} files")
    run = _ImportRun(
        label_name=label_name or None, total=len(files), max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS
    )
    readable = []
    for upload in files:
        name = PurePosixPath(upload.name or "unnamed").name
        if upload.size > limits.max_file_bytes:
            run.problem(
                name,
                "file_too_large",
                f"{upload.size:,} bytes, over the {limits.max_file_bytes:,}-byte "
                "limit for one image (SAMPAN_DATASET_MAX_IMAGE_BYTES)",
            )
        else:
            readable.append((name, upload))
    run.feed((name, None, _read_upload(upload)) for name, upload in readable)
    batch = ImportBatch(
        dataset=dataset,
        source=ImportSource.FILES,
        size_bytes=sum(f.size for f in files),
        label_name=label_name,
        created_by=user,
    )
    return _commit(dataset=dataset, run=run, batch=batch, files=len(files), ignored=0)


def _read_upload(upload) -> bytes:
    upload.seek(0)
    return upload.read()


def _open_stored(key: str) -> tuple[IO[bytes], int]:
    """A seekable local file for a stored upload (downloaded first from non-local storage)."""
    size = default_storage.size(key)
    try:
        return open(default_storage.path(key), "rb"), size  # noqa: SIM115 - closed by the caller
    except NotImplementedError:
        local = tempfile.TemporaryFile()  # noqa: SIM115
        with default_storage.open(key, "rb") as remote:
            while chunk := remote.read(1024 * 1024):
                local.write(chunk)
        local.seek(0)
        return local, size


def _first_message(detail: dict) -> str:
    for value in detail.values():
        return str(value[0] if isinstance(value, list) else value)
    return "import rejected"


def import_batch_run(*, batch_id: int, job, report: Report) -> dict:
    """The ``datasets.import`` job's body: import the stored archive of a queued batch.

    Safe to run again after a lost worker: blobs are content-addressed and the rows are inserted
    in one transaction together with the batch's outcome, so a finished batch is never redone.
    """
    from jobs.runner import JobInputRejected, LeaseLost

    batch = ImportBatch.objects.select_related("dataset").filter(pk=batch_id, job_id=job.pk).first()
    if batch is None or batch.dataset.workspace_id != job.workspace_id:
        raise ValueError(f"import batch {batch_id} does not belong to job {job.pk}")
    if batch.status == ImportStatus.SUCCEEDED:
        return {"import_batch": batch.pk, "imported": batch.imported}
    upload_key = batch.upload_key
    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportStatus.RUNNING)
    report("checking the archive", fraction=0.0, milestone=True)
    try:
        fileobj, size = _open_stored(upload_key)
        with fileobj:
            if batch.source == ImportSource.TABLE:
                batch = _import_table_now(
                    dataset=batch.dataset, data=fileobj.read(), batch=batch, report=report
                )
            else:
                scan = _scan(fileobj, size=size)
                batch = _import_archive_now(
                    dataset=batch.dataset,
                    fileobj=fileobj,
                    scan=scan,
                    batch=batch,
                    label_name=batch.label_name,
                    report=report,
                )
    except LeaseLost:
        raise  # another attempt owns the batch now
    except Exception as exc:
        rejected = isinstance(exc, ImportRejected)
        message = _first_message(exc.detail) if rejected else f"{type(exc).__name__}: {exc}"
        counts = {
            key: exc.detail[key]
            for key in ("files", "failed", "duplicates")
            if rejected and isinstance(exc.detail.get(key), int)
        }
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportStatus.FAILED,
            finished_at=timezone.now(),
            error=message[:4000],
            error_code=(
                exc.default_code if rejected else "cancelled" if isinstance(exc, JobCancelled) else "error"
            )[:64],
            problems=exc.detail.get("problems", [])[:MAX_PROBLEMS_LISTED] if rejected else [],
            **counts,
        )
        default_storage.delete(upload_key)
        if rejected:
            raise JobInputRejected(message) from None  # the user's file, not a fault: no traceback
        raise
    default_storage.delete(upload_key)
    report("imported", fraction=1.0, milestone=True, imported=batch.imported, problems=len(batch.problems))
    return {
        "import_batch": batch.pk,
        "imported": batch.imported,
        "duplicates": batch.duplicates,
        "failed": batch.failed,
        "labels_created": batch.labels_created,
    }


# --- table imports (text and tabular datasets) --------------------------------------------------

SYNC_TABLE_MAX_BYTES = 8 * 1024 * 1024  # bigger table files are parsed by a `datasets.import` job
TEXT_COLUMN_GUESSES = (
    "text",
    "content",
    "sentence",
    "review",
    "body",
    "message",
    "comment",
    "document",
    "title",
)
LABEL_COLUMN_GUESSES = (
    "label",
    "labels",
    "category",
    "class",
    "target",
    "intent",
    "sentiment",
    "tag",
    "topic",
)
MAX_CLASSES = 1000


def _require_images(dataset: Dataset) -> None:
    if dataset.task_type not in IMAGE_TASKS:
        raise ImportRejected(
            f"{dataset.name!r} is a {dataset.get_task_type_display().lower()} dataset: import a "
            "table file (CSV, TSV, JSONL, XLSX or Parquet) as `file`, not images.",
            code="wrong_import_kind",
            field="archive",
        )


def _table_rejected(exc: TableRejected) -> ImportRejected:
    return ImportRejected(str(exc), code=exc.code, field=exc.field, **exc.details)


def _table_options(*, encoding: str = "", delimiter: str = "", decimal: str = "", sheet: str = "") -> dict:
    """The user's reading options, checked (a bad one is refused before anything is read); None: detect."""
    return {
        "encoding": encoding_name(encoding) if encoding and encoding.strip() else None,
        "delimiter": delimiter_option(delimiter or None),
        "decimal": decimal_option(decimal or None),
        "sheet": sheet.strip() if sheet and sheet.strip() else None,
    }


def _read_options(mapping: dict) -> dict:
    return {key: mapping.get(key) or None for key in ("encoding", "delimiter", "decimal", "sheet")}


def import_table(
    *,
    dataset: Dataset,
    upload,
    user,
    text_column: str = "",
    label_column: str = "",
    target_column: str = "",
    encoding: str = "",
    delimiter: str = "",
    decimal: str = "",
    sheet: str = "",
    background: bool = False,
) -> ImportBatch:
    """Import a table file into a text or tabular dataset. Files up to 8 MiB are read now (201);
    bigger ones (or ``background=True``) by a ``datasets.import`` job (202). The column mapping
    names the text and label columns (text datasets) or the target column (tabular datasets); the
    first import fixes the dataset's schema. ``encoding``, ``delimiter``, ``decimal`` and ``sheet``
    override what :func:`datasets.tables.read_table` detects; the batch's ``mapping`` records what was used.

    e.g. ``import_table(dataset=d, upload=request.FILES["file"], user=u, target_column="species")``
    """
    from jobs.services import job_create

    name = PurePosixPath(upload.name or "table.csv").name[-255:]
    if dataset.task_type in IMAGE_TASKS:
        raise ImportRejected(
            f"{dataset.name!r} is an image dataset: upload an archive or image files.",
            code="wrong_import_kind",
            field="file",
        )
    limit = settings.SAMPAN_DATASET_MAX_TABLE_BYTES
    if upload.size > limit:
        raise UploadTooLarge(
            f"The file {name!r} is {upload.size:,} bytes; one table file may be at most {limit:,} "
            "bytes (SAMPAN_DATASET_MAX_TABLE_BYTES). Split it into several files.",
            field="file",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    if upload.size == 0:
        raise ImportRejected(f"The file {name!r} is empty.", code="empty_table", field="file")
    upload.seek(0)
    try:
        table_format(name, upload.read(8))
        options = _table_options(encoding=encoding, delimiter=delimiter, decimal=decimal, sheet=sheet)
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    mapping = {
        key: value.strip()
        for key, value in (
            ("text_column", text_column),
            ("label_column", label_column),
            ("target_column", target_column),
        )
        if value and value.strip()
    }
    mapping.update({key: value for key, value in options.items() if value is not None})
    batch = ImportBatch(
        dataset=dataset,
        source=ImportSource.TABLE,
        filename=name,
        size_bytes=upload.size,
        mapping=mapping,
        created_by=user,
    )
    if not background and upload.size <= SYNC_TABLE_MAX_BYTES:
        upload.seek(0)
        batch.status = ImportStatus.RUNNING
        return _import_table_now(dataset=dataset, data=upload.read(), batch=batch)
    upload.seek(0)
    batch.upload_key = default_storage.save(f"imports/{uuid4().hex}/table", upload)
    try:
        with transaction.atomic():
            batch.save()
            batch.job = job_create(
                workspace=dataset.workspace,
                project=dataset.project,
                kind="datasets.import",
                params={"import_batch": batch.pk},
                user=user,
            )
            batch.save(update_fields=["job"])
    except Exception:
        default_storage.delete(batch.upload_key)
        raise
    return batch


@dataclass(slots=True)
class _Row:
    name: str
    label: str | None
    sha256: str
    size: int
    text: str = ""
    values: dict | None = None
    target: float | None = None


def _label_of(value: Any) -> str | None:
    """A target/label cell as a label name: 1.0 -> "1", text stripped; None when missing."""
    if value is None:
        return None
    number = as_number(value) if isinstance(value, int | float) else None
    if number is not None and number.is_integer():
        return str(int(number))
    text = str(value).strip()
    return text or None


def _pick_column(columns: list[str], guesses: tuple[str, ...], exclude: set[str]) -> str | None:
    by_lower = {c.lower(): c for c in columns if c not in exclude}
    return next((by_lower[g] for g in guesses if g in by_lower), None)


def _named_column(table, column: str, field: str, what: str) -> str:
    if column not in table.columns:
        raise ImportRejected(
            f"The file has no column named {column!r} for the {what}; its columns are "
            f"{', '.join(repr(c) for c in table.columns[:30])}.",
            code=f"no_{field}",
            field=field,
            columns=table.columns[:200],
        )
    return column


def _text_plan(dataset: Dataset, table, mapping: dict, problems: list[dict]) -> tuple[dict, list[_Row]]:
    schema = dataset.schema or {}
    text_column = mapping.get("text_column") or schema.get("text_column")
    if text_column:
        _named_column(table, text_column, "text_column", "text")
    else:
        text_column = _pick_column(table.columns, TEXT_COLUMN_GUESSES, set())
        if text_column is None:
            kinds = {c: infer_type([r[c] for r in table.rows[:2000]]) for c in table.columns}
            texts = [c for c in table.columns if kinds[c] == "text"]
            text_column = texts[0] if len(texts) == 1 else None
        if text_column is None:
            raise ImportRejected(
                f"No text column found: none of the columns ({', '.join(repr(c) for c in table.columns[:30])}) is "
                "named like text, content or sentence, or is the one column of free text. Choose it with "
                "text_column.",
                code="no_text_column",
                field="text_column",
                columns=table.columns[:200],
            )
    if all(r[text_column] is None or as_number(r[text_column]) is not None for r in table.rows):
        raise ImportRejected(
            f"The column {text_column!r} holds no text (only numbers or empty cells); choose "
            "the column with the texts as text_column.",
            code="no_text_column",
            field="text_column",
            columns=table.columns[:200],
        )
    label_column = mapping.get("label_column") or schema.get("label_column")
    if label_column:
        _named_column(table, label_column, "label_column", "labels")
        if label_column == text_column:
            raise ImportRejected(
                "The text and label columns must differ.", code="bad_mapping", field="label_column"
            )
    else:
        label_column = _pick_column(table.columns, LABEL_COLUMN_GUESSES, {text_column})
    rows: list[_Row] = []
    seen: dict[str, int] = {}
    for number, cells in enumerate(table.rows, start=1):
        text = cells[text_column]
        if text is None or not str(text).strip():
            problems.append(
                {
                    "file": f"row {number}",
                    "code": "empty_text",
                    "message": f"the {text_column!r} cell is empty",
                }
            )
            continue
        text = str(text)
        sha = hashlib.sha256(text.encode()).hexdigest()
        if sha in seen:
            problems.append(
                {
                    "file": f"row {number}",
                    "code": "duplicate",
                    "message": f"the same text as row {seen[sha]} earlier in this file",
                }
            )
            continue
        seen[sha] = number
        label = _label_of(cells[label_column]) if label_column else None
        if label is not None:
            try:
                label = _label_name(label)
            except ValidationError as exc:
                problems.append(
                    {"file": f"row {number}", "code": "bad_label", "message": str(exc.detail["name"][0])}
                )
                label = None
        rows.append(
            _Row(
                name=f"row {number}: {text[:80]}"[:255],
                label=label,
                sha256=sha,
                size=len(text.encode()),
                text=text,
            )
        )
    return {"text_column": text_column, "label_column": label_column or ""}, rows


def _tabular_plan(dataset: Dataset, table, mapping: dict, problems: list[dict]) -> tuple[dict, list[_Row]]:
    schema = dataset.schema or {}
    regression = dataset.task_type in REGRESSION_TASKS
    target = mapping.get("target_column") or schema.get("target")
    if not target:
        raise ImportRejected(
            "Choose the target column (target_column): the column the model will predict. The "
            f"file's columns are {', '.join(repr(c) for c in table.columns[:30])}.",
            code="no_target_column",
            field="target_column",
            columns=table.columns[:200],
        )
    _named_column(table, target, "target_column", "target")
    if schema.get("target") and target != schema["target"]:
        raise ImportRejected(
            f"This dataset's target column is {schema['target']!r}; a later import cannot change it.",
            code="bad_mapping",
            field="target_column",
        )
    features = [c for c in table.columns if c != target]
    if len(features) > MAX_COLUMNS:
        raise ImportRejected(
            f"The file has {len(features):,} feature columns besides the target; at most "
            f"{MAX_COLUMNS} are supported.",
            code="too_many_columns",
            field="file",
            columns=len(features),
        )
    if not features:
        raise ImportRejected(
            "The file has only the target column; a model needs at least one feature column.",
            code="no_feature_columns",
            field="file",
        )
    if schema.get("columns"):
        expected = [c["name"] for c in schema["columns"]]
        missing, extra = (
            [c for c in expected if c not in features],
            [c for c in features if c not in expected],
        )
        if missing or extra:
            raise ImportRejected(
                "The file's columns differ from the dataset's: "
                + "; ".join(
                    part
                    for part in (
                        f"missing {', '.join(map(repr, missing[:20]))}" if missing else "",
                        f"not in the dataset {', '.join(map(repr, extra[:20]))}" if extra else "",
                    )
                    if part
                )
                + ".",
                code="schema_mismatch",
                field="file",
                missing=missing,
                extra=extra,
            )
        types = {c["name"]: c["type"] for c in schema["columns"]}
    else:
        types = {c: infer_type([r[c] for r in table.rows]) for c in features}
    cells = [r[target] for r in table.rows]
    if all(v is None for v in cells):
        raise ImportRejected(
            f"The target column {target!r} is empty in every row; there is nothing to learn.",
            code="empty_target",
            field="target_column",
        )
    existing = Sample.objects.filter(dataset=dataset).exists()
    if regression:
        bad = [i for i, v in enumerate(cells) if v is not None and as_number(v) is None]
        if bad:
            raise ImportRejected(
                f"The target column {target!r} must hold numbers for regression, but row {bad[0] + 1} has "
                f"{cells[bad[0]]!r}" + (f" (and {len(bad) - 1} more rows)" if len(bad) > 1 else "") + ".",
                code="non_numeric_target",
                field="target_column",
                rows=[i + 1 for i in bad[:100]],
            )
        distinct = {as_number(v) for v in cells if v is not None}
        if len(distinct) < 2 and not existing:
            raise ImportRejected(
                f"The target column {target!r} has the same value ({distinct.pop():g}) in every "
                "row; regression needs a target that varies.",
                code="constant_target",
                field="target_column",
            )
    else:
        classes = {_label_of(v) for v in cells if v is not None}
        if len(classes) < 2 and not existing:
            raise ImportRejected(
                f"The target column {target!r} has only one class ({next(iter(classes))!r}); "
                "classification needs at least two.",
                code="single_class",
                field="target_column",
            )
        if len(classes) > MAX_CLASSES:
            raise ImportRejected(
                f"The target column {target!r} has {len(classes):,} distinct values, more than the "
                f"{MAX_CLASSES} classes a classification dataset takes; is it a regression target?",
                code="too_many_classes",
                field="target_column",
            )
    rows: list[_Row] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(table.rows, start=1):
        values = {}
        for column in features:
            value = row[column]
            if types[column] == "numeric" and value is not None:
                parsed = as_number(value)
                value = parsed if parsed is not None else str(value)
            elif value is not None and not isinstance(value, str):
                value = str(value)
            values[column] = value
        label = None if regression else _label_of(row[target])
        if label is not None:
            try:
                label = _label_name(label)
            except ValidationError as exc:
                problems.append(
                    {"file": f"row {number}", "code": "bad_label", "message": str(exc.detail["name"][0])}
                )
                label = None
        value = as_number(row[target]) if regression else None
        canonical = json.dumps([values, label, value], sort_keys=True, separators=(",", ":"))
        sha = hashlib.sha256(canonical.encode()).hexdigest()
        if sha in seen:
            problems.append(
                {
                    "file": f"row {number}",
                    "code": "duplicate",
                    "message": f"the same row as row {seen[sha]} earlier in this file",
                }
            )
            continue
        seen[sha] = number
        rows.append(
            _Row(
                name=f"row {number}",
                label=label,
                sha256=sha,
                size=len(canonical),
                values=values,
                target=value,
            )
        )
    return {
        "columns": [{"name": c, "type": types[c]} for c in features],
        "target": target,
        "task": "regression" if regression else "classification",
    }, rows


def dataset_profile(*, dataset: Dataset) -> dict:
    """Per-column statistics and the target's balance over the dataset's current rows."""
    schema = dataset.schema or {}
    if dataset.task_type not in TABULAR_TASKS or not schema.get("columns"):
        return {}
    rows = list(
        Sample.objects.filter(dataset=dataset).order_by("pk").values_list("values", "label__name", "target")
    )
    columns = [
        column_profile(c["name"], c["type"], [(v or {}).get(c["name"]) for v, _, _ in rows])
        for c in schema["columns"]
    ]
    regression = dataset.task_type in REGRESSION_TASKS
    return {
        "rows": len(rows),
        "columns": columns,
        "target": {
            "name": schema.get("target"),
            **target_profile(
                regression=regression,
                labels=[label for _, label, _ in rows],
                targets=[target for _, _, target in rows],
            ),
        },
    }


def _import_table_now(
    *, dataset: Dataset, data: bytes, batch: ImportBatch, report: Report | None = None
) -> ImportBatch:
    mapping = dict(batch.mapping or {})
    try:
        table = read_table(
            data, batch.filename, **_read_options(mapping), max_rows=settings.SAMPAN_DATASET_MAX_FILES
        )
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    if report is not None:
        report(f"read {len(table.rows)} rows", fraction=0.3, milestone=True, total=len(table.rows))
    problems: list[dict] = []
    plan = _text_plan if dataset.task_type == TaskType.TEXT_CLASSIFICATION else _tabular_plan
    schema, rows = plan(dataset, table, mapping, problems)
    mapping.update({k: v for k, v in schema.items() if k in ("text_column", "label_column")})
    if "target" in schema:
        mapping["target_column"] = schema["target"]
    mapping.update(encoding=table.encoding, format=table.format, decimal=table.decimal)
    mapping.update(
        {key: value for key, value in (("delimiter", table.delimiter), ("sheet", table.sheet)) if value}
    )
    with transaction.atomic():
        locked = Dataset.objects.select_for_update().get(pk=dataset.pk)  # one import at a time
        if locked.schema and locked.schema != schema and dataset.task_type == TaskType.TEXT_CLASSIFICATION:
            schema = locked.schema  # the first import's mapping stays the dataset's
        existing: dict[str, str] = {}
        for chunk in _chunks([r.sha256 for r in rows], 5000):
            existing.update(
                Sample.objects.filter(dataset=dataset, sha256__in=chunk).values_list(
                    "sha256", "original_name"
                )
            )
        fresh = []
        for row in rows:
            if row.sha256 in existing:
                problems.append(
                    {
                        "file": row.name[:60],
                        "code": "duplicate",
                        "message": f"already in the dataset as {existing[row.sha256][:60]!r}",
                    }
                )
            else:
                fresh.append(row)
        failed = sum(1 for p in problems if p["code"] != "duplicate")
        if not fresh and failed:
            listed = "; ".join(f"{p['file']}: {p['message']}" for p in problems[:5])
            raise ImportRejected(
                f"No row could be imported ({failed:,} rejected): {listed}",
                code="nothing_imported",
                field="file",
                **_problem_details(problems, files=len(table.rows), failed=failed),
            )
        names = {r.label for r in fresh if r.label}
        labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        created = sorted(names - set(labels))
        if created:
            Label.objects.bulk_create(
                [Label(dataset=dataset, name=n, color=_color_for(n)) for n in created], ignore_conflicts=True
            )
            labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        batch.files = len(table.rows)
        batch.imported = len(fresh)
        batch.duplicates = len(problems) - failed
        batch.failed = failed
        batch.labels_created = created
        batch.problems = problems[:MAX_PROBLEMS_LISTED]
        batch.mapping = mapping
        batch.status = ImportStatus.SUCCEEDED
        batch.finished_at = timezone.now()
        batch.save()
        now = timezone.now()
        kind = "TEXT" if dataset.task_type == TaskType.TEXT_CLASSIFICATION else "ROW"
        for chunk in _chunks(fresh, INSERT_BATCH):
            Sample.objects.bulk_create(
                [
                    Sample(
                        dataset=dataset,
                        label=labels.get(r.label) if r.label else None,
                        sha256=r.sha256,
                        original_name=r.name,
                        format=kind,
                        size_bytes=r.size,
                        text=r.text,
                        values=r.values,
                        target=r.target,
                        import_batch=batch,
                        created_at=now,
                    )
                    for r in chunk
                ]
            )
        locked.schema = schema
        locked.profile = dataset_profile(dataset=locked)
        locked.save(update_fields=["schema", "profile"])
        dataset.schema, dataset.profile = locked.schema, locked.profile
    if report is not None:
        report("imported", fraction=0.95, imported=batch.imported, problems=len(batch.problems))
    return batch


# --- dataset versions --------------------------------------------------------------------------


def stratified_split(
    *, members: dict[str, list[int]], ratios: tuple[float, float, float], seed: int
) -> dict[int, str]:
    """Split every class by ``ratios`` (train, val, test); the same members and seed always give
    the same split.

    Each class gets floor(n * ratio) samples per split; the few left over go, class by class, to
    the split furthest below its share of the whole dataset so far. So a class of 10 at
    0.8/0.1/0.1 splits exactly 8/1/1, and classes of 6 still fill val and test between them
    (rounding each class alone would put all of them in train and val).

    e.g. ``stratified_split(members={"cat": [1, 2, 3, 4]}, ratios=(0.5, 0.25, 0.25), seed=7)``
    """
    names = [Split.TRAIN, Split.VAL, Split.TEST]
    assigned, seen = [0, 0, 0], 0
    splits: dict[int, str] = {}
    for name in sorted(members):
        ids = sorted(members[name])
        random.Random(f"{seed}:{name}").shuffle(ids)
        seen += len(ids)
        counts = [math.floor(len(ids) * r) for r in ratios]
        for _ in range(len(ids) - sum(counts)):
            deficit = [
                seen * r - (assigned[i] + counts[i]) if r > 0 else -math.inf for i, r in enumerate(ratios)
            ]
            counts[deficit.index(max(deficit))] += 1
        for i in range(3):
            assigned[i] += counts[i]
        bounds = [counts[0], counts[0] + counts[1]]
        for position, sample_id in enumerate(ids):
            splits[sample_id] = (
                names[0] if position < bounds[0] else names[1] if position < bounds[1] else names[2]
            )
    return splits


def dataset_version_create(
    *,
    dataset: Dataset,
    user,
    train_ratio: float = 0.8,
    val_ratio: float = 0.1,
    test_ratio: float = 0.1,
    seed: int | None = None,
    note: str = "",
) -> DatasetVersion:
    """Snapshot the dataset's labeled samples with a stratified split; numbered V1, V2, ...

    e.g. ``dataset_version_create(dataset=d, user=u, train_ratio=0.7, val_ratio=0.15, test_ratio=0.15, seed=42)``
    """
    ratios = (float(train_ratio), float(val_ratio), float(test_ratio))
    if any(r < 0 or r > 1 for r in ratios) or abs(sum(ratios) - 1.0) > 1e-6:
        raise ValidationError(
            {
                "train_ratio": [
                    f"The ratios must each be between 0 and 1 and add up to 1; "
                    f"they add up to {sum(ratios):g}."
                ]
            }
        )
    if ratios[0] <= 0:
        raise ValidationError({"train_ratio": ["The training split needs a ratio above 0."]})
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    with transaction.atomic():
        list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))
        regression = dataset.task_type in REGRESSION_TASKS
        labeled = Q(target__isnull=False) if regression else Q(label__isnull=False)
        rows = list(
            Sample.objects.filter(labeled, dataset=dataset)
            .order_by("pk")
            .values_list("pk", "label__name", "blob_key", "sha256", "original_name")
        )
        if not rows:
            raise ValidationError(
                {"dataset": ["The dataset has no labeled samples; label some before making a version."]}
            )
        unlabeled = Sample.objects.filter(~labeled, dataset=dataset).count()
        members: dict[str, list[int]] = defaultdict(list)
        for pk, name, *_ in rows:
            members[ROWS_KEY if regression else name].append(pk)
        classes = [] if regression else sorted(members)
        if regression:
            rows = [(pk, ROWS_KEY, *rest) for pk, _, *rest in rows]
        index = {name: i for i, name in enumerate(classes)} if classes else {ROWS_KEY: 0}
        splits = stratified_split(members=members, ratios=ratios, seed=seed)
        counts: dict[str, Counter] = {s.value: Counter() for s in Split}
        for pk, name, *_ in rows:
            counts[splits[pk]][name] += 1
        number = (
            DatasetVersion.objects.filter(dataset=dataset)
            .order_by("-number")
            .values_list("number", flat=True)
            .first()
            or 0
        ) + 1
        version = DatasetVersion.objects.create(
            dataset=dataset,
            number=number,
            note=note,
            seed=seed,
            train_ratio=ratios[0],
            val_ratio=ratios[1],
            test_ratio=ratios[2],
            classes=classes,
            counts={s: dict(sorted(c.items())) for s, c in counts.items()},
            sample_count=len(rows),
            unlabeled_excluded=unlabeled,
            schema=dataset.schema or {},
            created_by=user,
        )
        content: dict[int, tuple] = {}
        if dataset.task_type not in IMAGE_TASKS:
            for chunk in _chunks([row[0] for row in rows], 5000):
                content.update(
                    (pk, rest)
                    for pk, *rest in Sample.objects.filter(pk__in=chunk).values_list(
                        "pk", "text", "values", "target"
                    )
                )
        for chunk in _chunks(rows, 5000):
            VersionSample.objects.bulk_create(
                [
                    VersionSample(
                        version=version,
                        sample_id=pk,
                        split=splits[pk],
                        label_index=index[name],
                        label_name="" if regression else name,
                        blob_key=key,
                        sha256=sha,
                        original_name=original,
                        **dict(
                            zip(("text", "values", "target"), content.get(pk, ("", None, None)), strict=True)
                        ),
                    )
                    for pk, name, key, sha, original in chunk
                ]
            )
    return version


def _local_path(key: str, cache_dir: Path) -> str:
    try:
        return default_storage.path(key)
    except NotImplementedError:
        target = cache_dir / key
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{uuid4().hex}.part")
            with default_storage.open(key, "rb") as remote, open(partial, "wb") as out:
                while chunk := remote.read(1024 * 1024):
                    out.write(chunk)
            os.replace(partial, target)
        return str(target)


def dataset_version_manifest(*, version: DatasetVersion, cache_dir: Path | None = None) -> dict:
    """What the compute plane trains on: local file paths, label indexes into ``classes``, splits.

    e.g. ``dataset_version_manifest(version=v)`` ->
    ``{"classes": ["cat", "dog"], "samples": [{"path": "/.../ab12....png", "label": 0, "split": "train", "id": 17}]}``
    With local filesystem storage the paths are the blobs themselves; other storages are
    downloaded once into ``cache_dir`` (default SAMPAN_HOME/cache).
    """
    if version.dataset.task_type not in IMAGE_TASKS:
        return _table_manifest(version=version)
    cache = Path(cache_dir) if cache_dir is not None else Path(settings.SAMPAN_HOME) / "cache"
    rows = (
        VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("pk", "sample_id", "blob_key", "label_index", "split")
    )
    return {
        "classes": list(version.classes),
        # ``id`` is the dataset's sample id, so evaluation reports point at samples the UI can open;
        # a sample deleted since the snapshot keeps a reference that cannot be mistaken for one.
        "samples": [
            {
                "path": _local_path(key, cache),
                "label": index,
                "split": split,
                "id": sample_id if sample_id is not None else f"deleted-{entry}",
            }
            for entry, sample_id, key, index, split in rows
        ],
    }


def _table_manifest(*, version: DatasetVersion) -> dict:
    """A text or tabular version for the compute plane, rows inline::

    text:    {"kind": "text", "classes": [...], "samples": [{"id", "text", "label", "split"}]}
    tabular: {"kind": "tabular", "task": "classification" | "regression", "columns": [{"name", "type"}],
              "target": name, "classes": [...], "samples": [{"id", "values", "label" | "target", "split"}]}
    """
    task_type = version.dataset.task_type
    rows = (
        VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("pk", "sample_id", "label_index", "split", "text", "values", "target")
    )
    regression = task_type in REGRESSION_TASKS
    samples = []
    for entry, sample_id, index, split, text, values, target in rows.iterator(chunk_size=5000):
        sample: dict[str, Any] = {
            "id": sample_id if sample_id is not None else f"deleted-{entry}",
            "split": split,
        }
        if task_type == TaskType.TEXT_CLASSIFICATION:
            sample["text"] = text
        else:
            sample["values"] = values or {}
        if regression:
            sample["target"] = target
        else:
            sample["label"] = index
        samples.append(sample)
    if task_type == TaskType.TEXT_CLASSIFICATION:
        return {"kind": "text", "classes": list(version.classes), "samples": samples}
    schema = version.schema or {}
    return {
        "kind": "tabular",
        "task": "regression" if regression else "classification",
        "columns": schema.get("columns", []),
        "target": schema.get("target"),
        "classes": list(version.classes),
        "samples": samples,
    }


def dataset_version_check_trainable(*, version: DatasetVersion, min_per_class: int) -> None:
    """Raise a 400 naming the problem unless the version has >= 2 classes, each with at least
    ``min_per_class`` samples (a regression version: enough rows and a target that varies).
    e.g. ``dataset_version_check_trainable(version=v, min_per_class=5)``"""
    if version.dataset.task_type in REGRESSION_TASKS:
        targets = VersionSample.objects.filter(version=version).values_list("target", flat=True)
        if version.sample_count < MIN_REGRESSION_ROWS:
            raise ValidationError(
                {
                    "dataset_version": [
                        f"{version.name} has {version.sample_count} rows with a target; regression needs at least "
                        f"{MIN_REGRESSION_ROWS}."
                    ]
                }
            )
        if targets.distinct().count() < 2:
            raise ValidationError(
                {
                    "dataset_version": [
                        f"{version.name}: the target has the same value in every row; there is nothing to learn."
                    ]
                }
            )
        return
    per_class: Counter = Counter()
    for split_counts in (version.counts or {}).values():
        per_class.update(split_counts)
    present = sorted(name for name, n in per_class.items() if n > 0)
    if len(present) < 2:
        found = f" ({', '.join(present)})" if present else ""
        raise ValidationError(
            {
                "dataset_version": [
                    f"{version.name} has {len(present)} labeled class{'' if len(present) == 1 else 'es'}{found}; "
                    "training needs at least 2. Label samples of another class and make a new version."
                ]
            }
        )
    small = [(name, per_class[name]) for name in present if per_class[name] < min_per_class]
    if small:
        listed = ", ".join(f"{name!r} has {n}" for name, n in small[:10])
        raise ValidationError(
            {
                "dataset_version": [
                    f"{version.name}: every class needs at least {min_per_class} samples, but {listed}. "
                    "Label more samples of these classes and make a new version."
                ]
            }
        )


# --- export ------------------------------------------------------------------------------------


def csv_cell(value: object) -> str:
    """Formula-injection safe: a cell a spreadsheet would evaluate gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _export_rows(dataset: Dataset, version: DatasetVersion | None) -> Iterable[tuple]:
    """(blob_key, label or None, split, original_name, sha256) in a stable order."""
    if version is not None:
        return (
            VersionSample.objects.filter(version=version)
            .order_by("pk")
            .values_list("blob_key", "label_name", "split", "original_name", "sha256")
            .iterator(chunk_size=2000)
        )
    return (
        (key, label, "", name, sha)
        for key, label, name, sha in Sample.objects.filter(dataset=dataset)
        .order_by("pk")
        .values_list("blob_key", "label__name", "original_name", "sha256")
        .iterator(chunk_size=2000)
    )


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
    with zipfile.ZipFile(out, "w") as archive:
        for key, label, split, original, sha in _export_rows(dataset, version):
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
                    zipfile.ZipInfo(path, date_time=(2000, 1, 1, 0, 0, 0)),
                    blob.read(),
                    compress_type=zipfile.ZIP_STORED,
                )
            writer.writerow([csv_cell(v) for v in (path, label or "", split, original, sha)])
        archive.writestr("manifest.csv", manifest.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    out.seek(0)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in dataset.name)[:60] or "dataset"
    return out, f"{safe}{'-' + version.name if version else ''}.zip"


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
    if version is not None:
        rows = (
            VersionSample.objects.filter(version=version)
            .order_by("pk")
            .values_list("text", "values", "label_name", "target", "split")
        )
    else:
        rows = (
            (t, v, label, target, "")
            for t, v, label, target in Sample.objects.filter(dataset=dataset)
            .order_by("pk")
            .values_list("text", "values", "label__name", "target")
        )
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow([csv_cell(h) for h in [*header, "split"]])
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
            zipfile.ZipInfo("data.csv", date_time=(2000, 1, 1, 0, 0, 0)),
            table.getvalue().encode(),
            compress_type=zipfile.ZIP_DEFLATED,
        )
    out.seek(0)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in dataset.name)[:60] or "dataset"
    return out, f"{safe}{'-' + version.name if version else ''}.zip"


PREVIEW_BYTES = 2 * 1024 * 1024
PREVIEW_ROWS = 20


def table_preview(
    *, dataset: Dataset, upload, encoding: str = "", delimiter: str = "", decimal: str = "", sheet: str = ""
) -> dict:
    """The column mapping step: a table file's columns with inferred types, its first rows and the
    suggested mapping, read from at most the first 2 MiB of a text file. Stores nothing. The answer
    says what was used (given or detected): encoding, delimiter, decimal mark, sheet and the
    workbook's sheets; an unconfident encoding guess is a 400 whose ``candidates`` the user picks from.

    e.g. ``table_preview(dataset=d, upload=request.FILES["file"])["suggested"]`` -> ``{"text_column": "review", ...}``
    """
    name = PurePosixPath(upload.name or "table.csv").name[-255:]
    if dataset.task_type in IMAGE_TASKS:
        raise ImportRejected(
            f"{dataset.name!r} is an image dataset; table files go to text and tabular datasets.",
            code="wrong_import_kind",
            field="file",
        )
    limit = settings.SAMPAN_DATASET_MAX_TABLE_BYTES
    if upload.size > limit:
        raise UploadTooLarge(
            f"The file {name!r} is {upload.size:,} bytes; one table file may be at most {limit:,} "
            "bytes (SAMPAN_DATASET_MAX_TABLE_BYTES).",
            field="file",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    upload.seek(0)
    head = upload.read(PREVIEW_BYTES + 1)
    try:
        fmt = table_format(name, head[:8])
        if fmt in ("csv", "tsv", "jsonl"):
            partial = len(head) > PREVIEW_BYTES
            if partial:
                head = head[: head.rfind(b"\n", 0, PREVIEW_BYTES) + 1] or head[:PREVIEW_BYTES]
        elif len(head) > PREVIEW_BYTES:
            upload.seek(0)
            head, partial = upload.read(), False
        else:
            partial = False
        options = _table_options(encoding=encoding, delimiter=delimiter, decimal=decimal, sheet=sheet)
        table = read_table(head, name, **options, max_rows=settings.SAMPAN_DATASET_MAX_FILES)
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    kinds = {c: infer_type([r[c] for r in table.rows]) for c in table.columns}
    schema = dataset.schema or {}
    suggested: dict[str, str | None]
    if dataset.task_type == TaskType.TEXT_CLASSIFICATION:
        text_column = (
            schema.get("text_column")
            or _pick_column(table.columns, TEXT_COLUMN_GUESSES, set())
            or next((c for c in table.columns if kinds[c] == "text"), None)
        )
        label_column = schema.get("label_column") or _pick_column(
            table.columns, LABEL_COLUMN_GUESSES, {text_column or ""}
        )
        suggested = {"text_column": text_column, "label_column": label_column}
    else:
        suggested = {
            "target_column": schema.get("target") or _pick_column(table.columns, LABEL_COLUMN_GUESSES, set())
        }
    return {
        "filename": name,
        "format": table.format,
        "encoding": table.encoding,
        "delimiter": table.delimiter,
        "decimal": table.decimal,
        "sheet": table.sheet,
        "sheets": table.sheets,
        "partial": partial,
        "rows_read": len(table.rows),
        "columns": [{"name": c, "type": kinds[c]} for c in table.columns],
        "rows": table.rows[:PREVIEW_ROWS],
        "suggested": suggested,
    }
