"""Image imports: an archive (zip, tar) or image files uploaded together. Every file is verified
by content and re-encoded in parallel threads; a bad one is reported by name and the rest import.
Big archives import in a ``datasets.import`` job."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

from blobs.services import blob_reuse
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from datasets.archives import ArchiveLimits, ArchiveRejected, ArchiveScan, archive_files, archive_scan
from datasets.exceptions import ImportRejected, UploadTooLarge
from datasets.images import ImageRejected, prepare_image
from datasets.models import ANNOTATION_TASKS, IMAGE_TASKS, Dataset, ImportBatch, ImportSource, ImportStatus
from datasets.services import imports, labels
from datasets.services.imports import Report, Staged

IMPORT_THREADS = min(4, os.cpu_count() or 1)
SYNC_IMPORT_MAX_BYTES = (
    64 * 1024 * 1024
)  # bigger archives (unpacked) import in a job, whatever their file count
IMPORT_WINDOW = 64  # images in flight: bounds memory whatever the archive's size


def _store_blob(key: str, data: bytes) -> None:
    """Content-addressed: a key that exists already holds these bytes (touched, so the blob
    garbage collector's grace period keeps it until the sample is recorded)."""
    if blob_reuse(key):
        return
    saved = default_storage.save(key, ContentFile(data))
    if saved != key:  # a concurrent import stored the same content first
        default_storage.delete(saved)


def _prepare_and_store(data: bytes, max_pixels: int) -> Staged | ImageRejected:
    """Verify, re-encode and thumbnail one image and store both blobs (runs in a worker thread:
    Pillow's codecs and file writes release the GIL). The caller names and labels the sample."""
    try:
        image = prepare_image(data, max_pixels=max_pixels)
    except ImageRejected as exc:
        return exc
    key = f"samples/{image.sha256[:2]}/{image.sha256}.{image.extension}"
    _store_blob(key, image.data)
    thumb_key = key
    if image.thumbnail is not None:
        thumb_key = f"thumbnails/{image.sha256[:2]}/{image.sha256}.jpg"
        _store_blob(thumb_key, image.thumbnail)
    return Staged(
        name="",
        label=None,
        sha256=image.sha256,
        fields={
            "blob_key": key,
            "thumbnail_key": thumb_key,
            "format": image.format,
            "width": image.width,
            "height": image.height,
            "size_bytes": len(image.data),
        },
    )


@dataclass
class _ImportRun:
    """One import in progress: files verified and stored so far, and every file's problem."""

    label_name: str | None = None
    report: Report | None = None
    total: int = 0
    max_pixels: int = 0
    staged: list[Staged] = field(default_factory=list)
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

    def commit(self, *, dataset: Dataset, batch: ImportBatch, files: int, ignored: int) -> ImportBatch:
        return imports.commit_samples(
            dataset=dataset,
            batch=batch,
            staged=self.staged,
            problems=self.problems,
            files=files,
            ignored=ignored,
        )


def _require_images(dataset: Dataset) -> None:
    if dataset.task_type not in IMAGE_TASKS:
        raise ImportRejected(
            f"{dataset.name!r} is a {dataset.get_task_type_display().lower()} dataset: import a "
            "table file (CSV, TSV, JSONL, XLSX or Parquet) as `file`, not images.",
            code="wrong_import_kind",
            field="archive",
        )


def _upload_label(name: str, dataset: Dataset) -> str:
    """The optional label of an import, checked like any label name (reported as the ``label`` field).
    Object-detection images take no label: their boxes come from the archive's annotations."""
    if name and dataset.task_type in ANNOTATION_TASKS:
        raise ImportRejected(
            "An object-detection dataset's images take no label; their boxes come from the archive's "
            "annotations (COCO, VOC, YOLO, Label Studio), or draw them after a plain-image import.",
            field="label",
        )
    return labels.label_name(name, field="label") if name else ""


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


def _scan(fileobj: BinaryIO, *, size: int) -> ArchiveScan:
    try:
        return archive_scan(fileobj, size=size, limits=ArchiveLimits.from_settings())
    except ArchiveRejected as exc:
        details = {"entry": exc.entry} if exc.entry else {}
        raise ImportRejected(str(exc), code=exc.code, field="archive", **details) from None


def _import_archive_now(
    *,
    dataset: Dataset,
    fileobj: BinaryIO,
    scan: ArchiveScan,
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
            (entry.name, entry.label, data)
            for entry, data in archive_files(fileobj, scan, limits=ArchiveLimits.from_settings())
        )
    except ArchiveRejected as exc:
        raise ImportRejected(str(exc), code=exc.code, field="archive") from None
    for entry in scan.entries:
        if entry.problem is not None:
            run.problem(entry.name, *entry.problem)
            run.done += 1
    run.progress(force=True)
    return run.commit(dataset=dataset, batch=batch, files=len(scan.entries), ignored=scan.ignored)


def import_stored_archive(*, batch: ImportBatch, fileobj: BinaryIO, size: int, report: Report) -> ImportBatch:
    """The ``datasets.import`` job's work for an archive batch (its upload read back from storage)."""
    if batch.dataset.task_type in ANNOTATION_TASKS:
        from datasets.services.detection_imports import import_detection_archive

        return import_detection_archive(
            dataset=batch.dataset,
            fileobj=fileobj,
            scan=_scan(fileobj, size=size),
            batch=batch,
            annotation_format=(batch.mapping or {}).get("annotation_format", "auto"),
            report=report,
        )
    return _import_archive_now(
        dataset=batch.dataset,
        fileobj=fileobj,
        scan=_scan(fileobj, size=size),
        batch=batch,
        label_name=batch.label_name,
        report=report,
    )


def import_archive(
    *,
    dataset: Dataset,
    upload,
    user,
    label_name: str = "",
    background: bool = False,
    annotation_format: str = "auto",
) -> ImportBatch:
    """Import a zip or tar(.gz/.bz2/.xz) upload: checked whole first (nothing is written for a
    refused archive), then small archives import now and big ones (more files than
    SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES or over 64 MiB unpacked, or ``background=True``) in a
    ``datasets.import`` job. ``upload`` is a file object with ``name`` and ``size``. An
    object-detection dataset reads the archive as ``annotation_format`` (COCO, VOC, YOLO, Label
    Studio, plain images; ``auto`` detects it: ``datasets.services.detection_imports``).

    e.g. ``import_archive(dataset=d, upload=request.FILES["archive"], user=u).imported``
    """
    _require_images(dataset)
    label_name = _upload_label(label_name, dataset)
    if annotation_format not in ("", "auto") and dataset.task_type not in ANNOTATION_TASKS:
        raise ImportRejected(
            f"{annotation_format!r} is an annotation format of object-detection archives; an image "
            "classification archive is read as a folder per class (leave format out).",
            field="format",
        )
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
    if dataset.task_type in ANNOTATION_TASKS:
        batch.mapping = {"annotation_format": annotation_format or "auto"}
        if not background and small:
            from datasets.services.detection_imports import import_detection_archive

            batch.status = ImportStatus.RUNNING
            return import_detection_archive(
                dataset=dataset, fileobj=upload, scan=scan, batch=batch, annotation_format=annotation_format
            )
    if not background and small:
        batch.status = ImportStatus.RUNNING
        return _import_archive_now(
            dataset=dataset, fileobj=upload, scan=scan, batch=batch, label_name=label_name
        )
    batch.files = len(scan.entries)
    batch.ignored = scan.ignored
    return imports.import_later(dataset=dataset, batch=batch, upload=upload, user=user, name="archive")


def _read_upload(upload) -> bytes:
    upload.seek(0)
    return upload.read()


def import_files(*, dataset: Dataset, files: list, user, label_name: str = "") -> ImportBatch:
    """Import image files uploaded together (drag and drop): each is verified by content; bad
    ones are reported by name and the rest import. All get ``label_name`` if given."""
    _require_images(dataset)
    label_name = _upload_label(label_name, dataset)
    limits = ArchiveLimits.from_settings()
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
    return run.commit(dataset=dataset, batch=batch, files=len(files), ignored=0)
