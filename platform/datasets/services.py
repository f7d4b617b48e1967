"""Writes of the data service: datasets, labels, label writes on samples, imports, dataset
versions, export, and the two helpers the training service calls
(``dataset_version_manifest`` and ``dataset_version_check_trainable``)."""

from __future__ import annotations

import csv
import io
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
from django.db.models import F
from django.utils import timezone
from rest_framework.exceptions import NotFound, ValidationError

from datasets.archives import ArchiveLimits, ArchiveRejected, archive_files, archive_scan
from datasets.exceptions import ImportRejected, LabelConflict, LabelDeleted, UploadTooLarge
from datasets.images import CONTENT_TYPES, ImageRejected, prepare_image
from datasets.models import (
    Dataset,
    DatasetVersion,
    ImportBatch,
    ImportSource,
    ImportStatus,
    Label,
    Sample,
    Split,
    VersionSample,
)
from workers.progress import JobCancelled

logger = logging.getLogger("sampan.datasets")

Report = Callable[..., None]
PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45",
           "#fabed4", "#469990", "#dcbeff", "#9a6324", "#800000", "#aaffc3", "#808000", "#000075"]
INSERT_BATCH = 2000
MAX_PROBLEMS_LISTED = 10_000


# --- datasets ----------------------------------------------------------------------------------


def dataset_create(*, user, project, name: str, task_type: str, description: str = "") -> Dataset:
    """e.g. ``dataset_create(user=u, project=p, name="Digits", task_type="image_classification")``"""
    try:
        with transaction.atomic():
            return Dataset.objects.create(workspace_id=project.workspace_id, project=project, name=name.strip(),
                                          task_type=task_type, description=description, created_by=user)
    except IntegrityError:
        raise ValidationError({"name": [f"A dataset named {name.strip()!r} already exists in this project."]}) from None


def dataset_update(*, dataset: Dataset, **fields: Any) -> Dataset:
    for key, value in fields.items():
        setattr(dataset, key, value.strip() if key == "name" else value)
    try:
        with transaction.atomic():
            dataset.save()
    except IntegrityError:
        raise ValidationError({"name": [f"A dataset named {dataset.name!r} already exists in this project."]}) from None
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
        raise ValidationError({"name": [f"{name!r} cannot be a label: label names are folder names on export, "
                                        "so '/', '\\\\', '.' and '..' are not allowed."]})
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
        raise ValidationError({"name": [f"This dataset already has a label named {label.name!r}; "
                                        "merge the two labels instead."]}) from None
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
            "nothing was saved. Reload the labels and try again.", field="label")
    return label


def _current(sample: dict) -> dict:
    return {"id": sample["pk"], "label": sample["label_id"], "label_name": sample["label__name"],
            "label_version": sample["label_version"]}


def sample_set_label(*, dataset: Dataset, sample_id: int, label_id: int | None, label_version: int) -> Sample:
    """Label one sample if nobody changed it since ``label_version``; 409 with the current value if
    someone did. e.g. ``sample_set_label(dataset=d, sample_id=7, label_id=3, label_version=0)``"""
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        changed = Sample.objects.filter(pk=sample_id, dataset=dataset, label_version=label_version).update(
            label=label, label_version=F("label_version") + 1)
        if changed != 1:
            current = Sample.objects.filter(pk=sample_id, dataset=dataset).values(
                "pk", "label_id", "label__name", "label_version").first()
            if current is None:
                raise NotFound(f"Sample {sample_id} does not exist in this dataset.")
            raise LabelConflict(
                f"Sample {sample_id} was relabeled by someone else (its label_version is now "
                f"{current['label_version']}, you sent {label_version}); nothing was saved.",
                field="label_version", current=_current(current))
    return Sample.objects.select_related("label").get(pk=sample_id)


def samples_bulk_set_label(*, dataset: Dataset, label_id: int | None, items: list[dict]) -> list[dict]:
    """All or nothing: every item is ``{"id", "label_version"}``; if any sample changed meanwhile,
    nothing is saved and the 409 lists the current values. Returns the new versions."""
    ids = [item["id"] for item in items]
    if len(set(ids)) != len(ids):
        raise ValidationError({"items": ["Each sample may appear once."]})
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        seen = dict(Sample.objects.select_for_update().filter(dataset=dataset, pk__in=ids).order_by("pk")
                    .values_list("pk", "label_version"))
        missing = sorted(set(ids) - set(seen))
        if missing:
            raise ValidationError({"items": [f"No sample(s) {missing[:20]} in this dataset; nothing was saved."]})
        stale = [item["id"] for item in items if seen[item["id"]] != item["label_version"]]
        if stale:
            current = Sample.objects.filter(pk__in=stale).values("pk", "label_id", "label__name", "label_version")
            raise LabelConflict(
                f"{len(stale)} of the {len(ids)} samples were relabeled by someone else since you loaded them; "
                "nothing was saved.", field="items", conflicts=[_current(row) for row in current])
        Sample.objects.filter(pk__in=ids).update(label=label, label_version=F("label_version") + 1)
        return [{"id": pk, "label": label_id, "label_version": version}
                for pk, version in Sample.objects.filter(pk__in=ids).order_by("pk").values_list("pk", "label_version")]


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
    return _Staged(name="", label=None, sha256=image.sha256, blob_key=key, thumbnail_key=thumb_key,
                   format=image.format, width=image.width, height=image.height, size=len(image.data))


IMPORT_THREADS = min(4, os.cpu_count() or 1)
SYNC_IMPORT_MAX_BYTES = 64 * 1024 * 1024  # bigger archives (unpacked) import in a job, whatever their file count
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
            self.problem(name, "duplicate", f"the same image as {self.seen[staged.sha256]!r} earlier in this import")
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
            self.report(f"{self.done} of {self.total} files", fraction=self.done / total * 0.95,
                        processed=self.done, total=self.total, imported=len(self.staged), problems=len(self.problems))


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _commit(*, dataset: Dataset, run: _ImportRun, batch: ImportBatch, files: int, ignored: int) -> ImportBatch:
    """Insert the import's samples in one transaction; the batch records the outcome."""
    with transaction.atomic():
        list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))  # one import at a time
        existing: dict[str, str] = {}
        for chunk in _chunks([s.sha256 for s in run.staged], 5000):
            existing.update(Sample.objects.filter(dataset=dataset, sha256__in=chunk).values_list("sha256", "original_name"))
        fresh = []
        for staged in run.staged:
            if staged.sha256 in existing:
                run.problem(staged.name, "duplicate", f"already in the dataset as {existing[staged.sha256]!r}")
            else:
                fresh.append(staged)
        failed = sum(1 for p in run.problems if p["code"] != "duplicate")
        if not fresh and failed:
            listed = "; ".join(f"{p['file']}: {p['message']}" for p in run.problems[:5])
            raise ImportRejected(f"No file could be imported ({failed} rejected): {listed}", code="nothing_imported",
                                 problems=run.problems[:MAX_PROBLEMS_LISTED])
        names = {s.label for s in fresh if s.label}
        labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
        created = sorted(names - set(labels))
        if created:
            Label.objects.bulk_create([Label(dataset=dataset, name=n, color=_color_for(n)) for n in created],
                                      ignore_conflicts=True)
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
            Sample.objects.bulk_create([
                Sample(dataset=dataset, label=labels.get(s.label) if s.label else None, sha256=s.sha256,
                       blob_key=s.blob_key, thumbnail_key=s.thumbnail_key, original_name=s.name, format=s.format,
                       width=s.width, height=s.height, size_bytes=s.size, import_batch=batch, created_at=now)
                for s in chunk
            ])
    return batch


def _limits() -> ArchiveLimits:
    return ArchiveLimits.from_settings()


def _check_upload_size(size: int, what: str) -> None:
    limit = settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadTooLarge(f"{what} is {size:,} bytes; one import takes at most {limit:,} bytes "
                             "(SAMPAN_DATASET_MAX_UPLOAD_BYTES). Split it into several imports.",
                             field="archive" if what.startswith("The archive") else "files",
                             size_bytes=size, limit_bytes=limit)


def _scan(fileobj: IO[bytes], *, size: int):
    try:
        return archive_scan(fileobj, size=size, limits=_limits())
    except ArchiveRejected as exc:
        details = {"entry": exc.entry} if exc.entry else {}
        raise ImportRejected(str(exc), code=exc.code, field="archive", **details) from None


def _import_archive_now(*, dataset: Dataset, fileobj: IO[bytes], scan, batch: ImportBatch, label_name: str | None,
                        report: Report | None = None) -> ImportBatch:
    run = _ImportRun(label_name=label_name or None, report=report, total=len(scan.entries),
                     max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS)
    try:
        run.feed((entry.name, entry.label, data) for entry, data in archive_files(fileobj, scan, limits=_limits()))
    except ArchiveRejected as exc:
        raise ImportRejected(str(exc), code=exc.code, field="archive") from None
    for entry in scan.entries:
        if entry.problem is not None:
            run.problem(entry.name, *entry.problem)
            run.done += 1
    run.progress(force=True)
    return _commit(dataset=dataset, run=run, batch=batch, files=len(scan.entries), ignored=scan.ignored)


def import_archive(*, dataset: Dataset, upload, user, label_name: str = "", background: bool = False) -> ImportBatch:
    """Import a zip or tar(.gz/.bz2/.xz) upload: checked whole first (nothing is written for a
    refused archive), then small archives import now and big ones (more files than
    SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES or over 64 MiB unpacked, or ``background=True``) in a
    ``datasets.import`` job. ``upload`` is a file object with ``name`` and ``size``.

    e.g. ``import_archive(dataset=d, upload=request.FILES["archive"], user=u).imported``
    """
    from jobs.services import job_create

    label_name = _upload_label(label_name)
    _check_upload_size(upload.size, f"The archive {upload.name!r}")
    upload.seek(0)
    scan = _scan(upload, size=upload.size)
    batch = ImportBatch(dataset=dataset, source=ImportSource.ARCHIVE, filename=PurePosixPath(upload.name).name[-255:],
                        size_bytes=upload.size, label_name=label_name, created_by=user)
    small = len(scan.entries) <= settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES and \
        scan.uncompressed_bytes <= SYNC_IMPORT_MAX_BYTES
    if not background and small:
        batch.status = ImportStatus.RUNNING
        return _import_archive_now(dataset=dataset, fileobj=upload, scan=scan, batch=batch, label_name=label_name)
    upload.seek(0)
    batch.upload_key = default_storage.save(f"imports/{uuid4().hex}/archive", upload)
    batch.files = len(scan.entries)
    batch.ignored = scan.ignored
    try:
        with transaction.atomic():
            batch.save()
            batch.job = job_create(workspace=dataset.workspace, project=dataset.project, kind="datasets.import",
                                   params={"import_batch": batch.pk}, user=user)
            batch.save(update_fields=["job"])
    except Exception:
        default_storage.delete(batch.upload_key)
        raise
    return batch


def import_files(*, dataset: Dataset, files: list, user, label_name: str = "") -> ImportBatch:
    """Import image files uploaded together (drag and drop): each is verified by content; bad
    ones are reported by name and the rest import. All get ``label_name`` if given."""
    label_name = _upload_label(label_name)
    limits = _limits()
    if not files:
        raise ImportRejected("No files were uploaded.", code="empty_upload", field="files")
    if len(files) > limits.max_files:
        raise ImportRejected(f"{len(files):,} files in one import; the limit is {limits.max_files:,} "
                             "(SAMPAN_DATASET_MAX_FILES).", code="too_many_files", field="files")
    _check_upload_size(sum(f.size for f in files), f"The upload of {len(files)} files")
    run = _ImportRun(label_name=label_name or None, total=len(files),
                     max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS)
    readable = []
    for upload in files:
        name = PurePosixPath(upload.name or "unnamed").name
        if upload.size > limits.max_file_bytes:
            run.problem(name, "file_too_large", f"{upload.size:,} bytes, over the {limits.max_file_bytes:,}-byte "
                        "limit for one image (SAMPAN_DATASET_MAX_IMAGE_BYTES)")
        else:
            readable.append((name, upload))
    run.feed((name, None, _read_upload(upload)) for name, upload in readable)
    batch = ImportBatch(dataset=dataset, source=ImportSource.FILES, size_bytes=sum(f.size for f in files),
                        label_name=label_name, created_by=user)
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
    from jobs.runner import LeaseLost

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
            scan = _scan(fileobj, size=size)
            batch = _import_archive_now(dataset=batch.dataset, fileobj=fileobj, scan=scan, batch=batch,
                                        label_name=batch.label_name, report=report)
    except LeaseLost:
        raise  # another attempt owns the batch now
    except Exception as exc:
        rejected = isinstance(exc, ImportRejected)
        message = _first_message(exc.detail) if rejected else f"{type(exc).__name__}: {exc}"
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportStatus.FAILED, finished_at=timezone.now(), error=message[:4000],
            error_code=(exc.default_code if rejected else "cancelled" if isinstance(exc, JobCancelled) else "error")[:64],
            problems=exc.detail.get("problems", []) if rejected else [])
        default_storage.delete(upload_key)
        if rejected:
            raise ValueError(message) from None
        raise
    default_storage.delete(upload_key)
    report("imported", fraction=1.0, milestone=True, imported=batch.imported, problems=len(batch.problems))
    return {"import_batch": batch.pk, "imported": batch.imported, "duplicates": batch.duplicates,
            "failed": batch.failed, "labels_created": batch.labels_created}


# --- dataset versions --------------------------------------------------------------------------


def stratified_split(*, members: dict[str, list[int]], ratios: tuple[float, float, float], seed: int) -> dict[int, str]:
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
            deficit = [seen * r - (assigned[i] + counts[i]) if r > 0 else -math.inf for i, r in enumerate(ratios)]
            counts[deficit.index(max(deficit))] += 1
        for i in range(3):
            assigned[i] += counts[i]
        bounds = [counts[0], counts[0] + counts[1]]
        for position, sample_id in enumerate(ids):
            splits[sample_id] = names[0] if position < bounds[0] else names[1] if position < bounds[1] else names[2]
    return splits


def dataset_version_create(*, dataset: Dataset, user, train_ratio: float = 0.8, val_ratio: float = 0.1,
                           test_ratio: float = 0.1, seed: int | None = None, note: str = "") -> DatasetVersion:
    """Snapshot the dataset's labeled samples with a stratified split; numbered V1, V2, ...

    e.g. ``dataset_version_create(dataset=d, user=u, train_ratio=0.7, val_ratio=0.15, test_ratio=0.15, seed=42)``
    """
    ratios = (float(train_ratio), float(val_ratio), float(test_ratio))
    if any(r < 0 or r > 1 for r in ratios) or abs(sum(ratios) - 1.0) > 1e-6:
        raise ValidationError({"train_ratio": [f"The ratios must each be between 0 and 1 and add up to 1; "
                                               f"they add up to {sum(ratios):g}."]})
    if ratios[0] <= 0:
        raise ValidationError({"train_ratio": ["The training split needs a ratio above 0."]})
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    with transaction.atomic():
        list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))
        rows = list(Sample.objects.filter(dataset=dataset, label__isnull=False).order_by("pk")
                    .values_list("pk", "label__name", "blob_key", "sha256", "original_name"))
        if not rows:
            raise ValidationError({"dataset": ["The dataset has no labeled samples; label some before making a version."]})
        unlabeled = Sample.objects.filter(dataset=dataset, label__isnull=True).count()
        members: dict[str, list[int]] = defaultdict(list)
        for pk, name, *_ in rows:
            members[name].append(pk)
        classes = sorted(members)
        index = {name: i for i, name in enumerate(classes)}
        splits = stratified_split(members=members, ratios=ratios, seed=seed)
        counts: dict[str, Counter] = {s.value: Counter() for s in Split}
        for pk, name, *_ in rows:
            counts[splits[pk]][name] += 1
        number = (DatasetVersion.objects.filter(dataset=dataset).order_by("-number")
                  .values_list("number", flat=True).first() or 0) + 1
        version = DatasetVersion.objects.create(
            dataset=dataset, number=number, note=note, seed=seed, train_ratio=ratios[0], val_ratio=ratios[1],
            test_ratio=ratios[2], classes=classes, counts={s: dict(sorted(c.items())) for s, c in counts.items()},
            sample_count=len(rows), unlabeled_excluded=unlabeled, created_by=user)
        for chunk in _chunks(rows, 5000):
            VersionSample.objects.bulk_create([
                VersionSample(version=version, sample_id=pk, split=splits[pk], label_index=index[name],
                              label_name=name, blob_key=key, sha256=sha, original_name=original)
                for pk, name, key, sha, original in chunk
            ])
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
    cache = Path(cache_dir) if cache_dir is not None else Path(settings.SAMPAN_HOME) / "cache"
    rows = VersionSample.objects.filter(version=version).order_by("pk").values_list(
        "pk", "sample_id", "blob_key", "label_index", "split")
    return {
        "classes": list(version.classes),
        # ``id`` is the dataset's sample id, so evaluation reports point at samples the UI can open;
        # a sample deleted since the snapshot keeps a reference that cannot be mistaken for one.
        "samples": [{"path": _local_path(key, cache), "label": index, "split": split,
                     "id": sample_id if sample_id is not None else f"deleted-{entry}"}
                    for entry, sample_id, key, index, split in rows],
    }


def dataset_version_check_trainable(*, version: DatasetVersion, min_per_class: int) -> None:
    """Raise a 400 naming the problem unless the version has >= 2 classes, each with at least
    ``min_per_class`` samples. e.g. ``dataset_version_check_trainable(version=v, min_per_class=5)``"""
    per_class: Counter = Counter()
    for split_counts in (version.counts or {}).values():
        per_class.update(split_counts)
    present = sorted(name for name, n in per_class.items() if n > 0)
    if len(present) < 2:
        found = f" ({', '.join(present)})" if present else ""
        raise ValidationError({"dataset_version": [
            f"{version.name} has {len(present)} labeled class{'' if len(present) == 1 else 'es'}{found}; "
            "training needs at least 2. Label samples of another class and make a new version."]})
    small = [(name, per_class[name]) for name in present if per_class[name] < min_per_class]
    if small:
        listed = ", ".join(f"{name!r} has {n}" for name, n in small[:10])
        raise ValidationError({"dataset_version": [
            f"{version.name}: every class needs at least {min_per_class} samples, but {listed}. "
            "Label more samples of these classes and make a new version."]})


# --- export ------------------------------------------------------------------------------------


def csv_cell(value: object) -> str:
    """Formula-injection safe: a cell a spreadsheet would evaluate gets a leading quote."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _export_rows(dataset: Dataset, version: DatasetVersion | None) -> Iterable[tuple]:
    """(blob_key, label or None, split, original_name, sha256) in a stable order."""
    if version is not None:
        return VersionSample.objects.filter(version=version).order_by("pk").values_list(
            "blob_key", "label_name", "split", "original_name", "sha256").iterator(chunk_size=2000)
    return ((key, label, "", name, sha) for key, label, name, sha in Sample.objects.filter(dataset=dataset)
            .order_by("pk").values_list("blob_key", "label__name", "original_name", "sha256").iterator(chunk_size=2000))


def dataset_export(*, dataset: Dataset, version: DatasetVersion | None = None) -> tuple[IO[bytes], str]:
    """A zip in the folder-per-class layout (unlabeled samples at the root) plus ``manifest.csv``
    (path, label, split, original_name, sha256). Re-importing it gives the same classes and counts.

    Returns (file positioned at 0, download name).
    """
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
                archive.writestr(zipfile.ZipInfo(path, date_time=(2000, 1, 1, 0, 0, 0)), blob.read(),
                                 compress_type=zipfile.ZIP_STORED)
            writer.writerow([csv_cell(v) for v in (path, label or "", split, original, sha)])
        archive.writestr("manifest.csv", manifest.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    out.seek(0)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in dataset.name)[:60] or "dataset"
    return out, f"{safe}{'-' + version.name if version else ''}.zip"
