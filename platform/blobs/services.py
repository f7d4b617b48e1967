"""Blob garbage collection: delete stored blobs that nothing references any more.

Blobs are written before the rows that name them (an import stores an image, then creates its
sample) and content-addressed ones are shared (two datasets, a dataset and a version), so a blob is
never deleted when its row goes; a periodic sweep deletes what no row names instead.

Where references come from: each app declares them once, in its ``blob_references.py``, with
:func:`blobs.registry.blob_references_register`: the model fields that hold blob keys or key prefixes, and
functions for keys inside JSON fields (a trial's artifacts, a job's result). A test fails when a
model has a ``FileField`` or a ``*key`` / ``*prefix`` field that its app has not declared, so a new
field cannot silently be forgotten.

A blob is kept when any of these holds:
- it is younger than the grace period (an upload or a running job may be about to record it); a
  content-addressed blob that an import finds already stored is touched (:func:`blob_reuse`), and
  each candidate's time is read again just before it is deleted;
- a declared field or function names its key, or a declared prefix contains it;
- its key names an active thing by a marker such as ``job-12`` (a path segment, or a part of
  one between dashes: ``models/project-3/v7-job-12/model.onnx``); the jobs app marks every queued
  or running job, so a running job's blobs are kept regardless of their age.

The storage is listed before the references are read, so a reference committed before the listing
is always seen. Works on the local filesystem and on S3-compatible storage (one listing request per
1,000 objects, with their times and sizes).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.files.storage import Storage, default_storage
from django.utils import timezone

from blobs.registry import blob_references

logger = logging.getLogger("sampan.blobs")

MARKER = re.compile(r"(?:^|[/-])([a-z]+-\d+)(?=[/.-]|$)")


@dataclass
class LiveReferences:
    keys: set[str] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    markers: set[str] = field(default_factory=set)

    def holds(self, key: str) -> bool:
        if key in self.keys:
            return True
        cut = key.find("/")
        while cut != -1:
            if key[: cut + 1] in self.prefixes:
                return True
            cut = key.find("/", cut + 1)
        return any(marker in self.markers for marker in MARKER.findall(key))


def _values(label: str, app_label: str) -> Iterator[str]:
    model_name, field_name = label.split(".")
    model = apps.get_model(app_label, model_name)
    rows = model._default_manager.exclude(**{field_name: ""}).values_list(field_name, flat=True)
    for value in rows.iterator(chunk_size=10_000):
        if value:
            yield value


def live_references() -> LiveReferences:
    """Every key, prefix and marker that some row references now."""
    live = LiveReferences()
    for app_label, declared in blob_references().items():
        for label in declared.key_fields:
            live.keys.update(_values(label, app_label))
        for label in declared.prefix_fields:
            live.prefixes.update(_as_prefix(p) for p in _values(label, app_label))
        if declared.keys is not None:
            live.keys.update(declared.keys())
        if declared.prefixes is not None:
            live.prefixes.update(_as_prefix(p) for p in declared.prefixes())
        if declared.markers is not None:
            live.markers.update(declared.markers())
    return live


def _as_prefix(prefix: str) -> str:
    return prefix if prefix.endswith("/") else f"{prefix}/"


def blob_reuse(key: str, storage: Storage | None = None) -> bool:
    """Whether a content-addressed blob is stored already; if so, its modification time is set to
    now, so a sweep's grace period keeps it until the caller has recorded the row that names it
    (the blob may have been unreferenced for days, a deleted dataset's image imported again).

    e.g. ``if not blob_reuse(key): default_storage.save(key, ContentFile(data))``
    """
    storage = storage or default_storage
    bucket = getattr(storage, "bucket", None)
    if bucket is not None:  # S3-compatible: copy the object onto itself (a new LastModified)
        location = str(getattr(storage, "location", "") or "").strip("/")
        name = f"{location}/{key}" if location else key
        item = bucket.Object(name)
        try:
            item.load()
        except Exception as exc:
            if _not_found(exc):
                return False
            raise
        item.copy_from(
            CopySource={"Bucket": bucket.name, "Key": name},
            MetadataDirective="REPLACE",
            ContentType=item.content_type or "application/octet-stream",
            Metadata=item.metadata or {},
        )
        return True
    try:
        path = storage.path(key)
    except NotImplementedError:
        return storage.exists(key)
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    return True


@dataclass(frozen=True)
class StoredBlob:
    key: str
    modified: datetime
    size: int


def stored_blobs(storage: Storage | None = None) -> Iterator[StoredBlob]:
    """Every blob in the storage with its modification time and size."""
    storage = storage or default_storage
    bucket = getattr(storage, "bucket", None)
    if bucket is not None:  # S3-compatible: one listing request returns 1,000 keys with time and size
        location = str(getattr(storage, "location", "") or "").strip("/")
        start = f"{location}/" if location else ""
        for item in bucket.objects.filter(Prefix=start):
            yield StoredBlob(item.key[len(start) :], item.last_modified, item.size)
        return
    try:
        root = storage.path("")
    except NotImplementedError:
        yield from _listed(storage, "")
        return
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except FileNotFoundError:  # deleted meanwhile
                continue
            key = os.path.relpath(path, root).replace(os.sep, "/")
            yield StoredBlob(key, datetime.fromtimestamp(info.st_mtime, tz=UTC), info.st_size)


def _listed(storage: Storage, folder: str) -> Iterator[StoredBlob]:
    """Any other storage, through the storage API (one request per file for the time and size)."""
    dirs, files = storage.listdir(folder)
    for name in files:
        key = f"{folder}{name}"
        yield StoredBlob(key, storage.get_modified_time(key), storage.size(key))
    for name in dirs:
        yield from _listed(storage, f"{folder}{name}/")


@dataclass
class SweepResult:
    scanned: int = 0
    scanned_bytes: int = 0
    young: int = 0
    referenced: int = 0
    deleted: int = 0
    freed_bytes: int = 0
    failed: int = 0
    deleted_keys: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        return {
            "scanned": self.scanned,
            "scanned_bytes": self.scanned_bytes,
            "young": self.young,
            "referenced": self.referenced,
            "deleted": self.deleted,
            "freed_bytes": self.freed_bytes,
            "failed": self.failed,
        }


def grace_period() -> timedelta:
    return timedelta(hours=settings.SAMPAN_BLOB_GC_GRACE_HOURS)


def blobs_sweep(
    *,
    grace: timedelta | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    storage: Storage | None = None,
) -> SweepResult:
    """Delete the blobs no row references that are older than ``grace`` (default
    SAMPAN_BLOB_GC_GRACE_HOURS); with ``dry_run`` only count what would go.

    e.g. ``blobs_sweep(grace=timedelta(hours=24), dry_run=True).summary()``
    """
    storage = storage or default_storage
    grace = grace_period() if grace is None else grace
    cutoff = (now or timezone.now()) - grace
    result = SweepResult()
    old: list[StoredBlob] = []
    for blob in stored_blobs(storage):  # listed first: a reference committed before this is read below
        result.scanned += 1
        result.scanned_bytes += blob.size
        if blob.modified >= cutoff:
            result.young += 1
        else:
            old.append(blob)
    live = live_references()
    for blob in old:
        if live.holds(blob.key):
            result.referenced += 1
            continue
        if _touched_since(storage, blob.key, cutoff):  # reused (blob_reuse) since it was listed
            result.young += 1
            continue
        if not dry_run:
            try:
                storage.delete(blob.key)
            except Exception:  # a refused delete (permissions, an S3 error) must not stop the sweep
                logger.exception("blob gc: could not delete %s", blob.key)
                result.failed += 1
                continue
        result.deleted += 1
        result.freed_bytes += blob.size
        result.deleted_keys.append(blob.key)
    return result


def _touched_since(storage: Storage, key: str, cutoff: datetime) -> bool:
    try:
        return storage.get_modified_time(key) >= cutoff
    except (FileNotFoundError, OSError):
        return True  # gone meanwhile: nothing to delete
    except Exception as exc:
        if _not_found(exc):
            return True
        raise


def _not_found(exc: Exception) -> bool:
    """botocore's ClientError for a missing object (S3 answers 404), without importing botocore."""
    code = getattr(exc, "response", {}).get("Error", {}).get("Code")
    return code in {"404", "NoSuchKey", "NotFound"}


def blobs_collect_garbage(*, grace: timedelta | None = None, dry_run: bool = False) -> dict[str, Any]:
    """One recorded sweep (the periodic task and ``manage.py blobs_gc``): a BlobSweep row an admin
    can read, and a log line."""
    from blobs.models import BlobSweep

    grace = grace_period() if grace is None else grace
    started = timezone.now()
    result = blobs_sweep(grace=grace, dry_run=dry_run, now=started)
    sweep = BlobSweep.objects.create(
        started_at=started,
        finished_at=timezone.now(),
        dry_run=dry_run,
        grace_hours=grace.total_seconds() / 3600,
        **result.summary(),
    )
    logger.info(
        "blob gc%s: %d blob(s) %s (%d bytes), %d referenced, %d within the %.1f h grace period, "
        "%d failed, of %d scanned",
        " (dry run)" if dry_run else "",
        result.deleted,
        "would be deleted" if dry_run else "deleted",
        result.freed_bytes,
        result.referenced,
        result.young,
        sweep.grace_hours,
        result.failed,
        result.scanned,
    )
    return {"sweep": sweep.pk, "dry_run": dry_run, **result.summary()}
