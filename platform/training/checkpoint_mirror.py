"""Training checkpoints mirrored to blob storage, so a job whose worker host is lost resumes on another.

A run's checkpoints live in its run directory on the worker's disk (``run_dir_for(job)/checkpoints``,
``workers.image_classification.checkpoints``): a retry on the same host resumes from them. A host that
dies takes them along, and with remote blob storage (S3-compatible, DESIGN §5) the next attempt may run
on any host. So, while a run trains, a thread here copies its newest *complete* checkpoint (marker
present, size and sha256 as the marker says) to::

    runs/<run dir name>/checkpoints/epoch-0003-step-000000120.pt            the checkpoint's bytes
    runs/<run dir name>/checkpoints/epoch-0003-step-000000120.pt.complete   the marker, uploaded last

and then deletes the older mirrored ones. An attempt that finds no complete checkpoint in its run
directory downloads the newest mirrored one whose marker is present (sha256 checked, marker written
last, as a local save does) before the trainer starts, and the trainer resumes from it as from its own.

Only the compute plane writes the checkpoints; this module watches the folder from the platform side
(no hook in workers/), so every template that checkpoints into ``<run dir>/checkpoints`` (image
classification, object detection, a DDP run's rank 0) is covered. With local filesystem storage the
run directory and the blobs share a disk, so nothing is mirrored.

A cross-validated run (``workers.image_classification.cross_validation``) trains its folds under
``<run dir>/folds/fold-<i>/``: ``RunMirror`` also copies each fold in progress's newest checkpoint to
``runs/<run dir name>/folds/fold-<i>/checkpoints/`` and, once the fold finished, its ``fold.json`` (the
fold's held-out scores) to ``runs/<run dir name>/folds/fold-<i>/fold.json``, deleting that fold's
mirrored checkpoints; ``run_restore`` brings all of it back, so another host skips the finished folds.

A succeeded job's mirror is deleted by the job's body once its outcome is stored
(``checkpoint_mirror_forget``); a failed or cancelled job keeps it, as it keeps its run directory,
because a retry resumes from it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any, Self

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage
from jobs.models import Job

from training.services import run_dir_for
from workers.progress import Report

logger = logging.getLogger("sampan.training")

MARKER_SUFFIX = ".complete"


def mirror_enabled() -> bool:
    """Blobs on another machine (no local path): checkpoints must leave the worker's disk."""
    try:
        default_storage.path("runs")
    except NotImplementedError:
        return True
    return False


def run_prefix(job: Job) -> str:
    """The storage folder of everything mirrored of a job's run (named as its run directory, which is
    unique even when a reset database reuses the job's id)."""
    return f"runs/{run_dir_for(job).name}"


def mirror_prefix(job: Job) -> str:
    """The storage folder of a job's mirrored checkpoints."""
    return f"{run_prefix(job)}/checkpoints"


def fold_prefix(job: Job, fold: str) -> str:
    """The storage folder of a cross-validated run's fold (``fold-<i>``): its ``fold.json`` once the
    fold finished, its newest checkpoint under ``checkpoints/`` while it trains."""
    return f"{run_prefix(job)}/folds/{fold}"


def _mirrored(prefix: str) -> tuple[list[str], list[str]]:
    """(checkpoint names whose marker is stored, every file name) under ``prefix``, newest first."""
    from workers.image_classification.checkpoints import NAME_PATTERN

    try:
        _, files = default_storage.listdir(prefix)
    except FileNotFoundError:
        return [], []
    names = set(files)
    complete = [name for name in files if NAME_PATTERN.match(name) and f"{name}{MARKER_SUFFIX}" in names]
    return sorted(complete, key=_step_of, reverse=True), files


def _step_of(name: str) -> tuple[int, int]:
    from workers.image_classification.checkpoints import NAME_PATTERN

    match = NAME_PATTERN.match(name)
    return (int(match[2]), int(match[1])) if match else (-1, -1)


def checkpoint_restore(
    *, job: Job, checkpoint_dir: Path, report: Report, prefix: str | None = None, what: str = "checkpoint"
) -> dict[str, Any] | None:
    """Before an attempt trains: with no complete checkpoint in ``checkpoint_dir`` (a new host, a wiped
    disk), download the newest mirrored one under ``prefix`` (default: the run's, ``mirror_prefix``)
    that verifies. Returns what was restored, or None."""
    from workers.image_classification.checkpoints import complete_checkpoints
    from workers.shared.atomic_files import atomic_write, atomic_write_json, sha256_of

    if not mirror_enabled() or complete_checkpoints(checkpoint_dir):
        return None
    prefix = prefix or mirror_prefix(job)
    complete, _ = _mirrored(prefix)
    for name in complete:
        started = time.monotonic()
        try:
            with default_storage.open(f"{prefix}/{name}{MARKER_SUFFIX}", "rb") as handle:
                marker = json.loads(handle.read())
            checkpoint_dir.mkdir(parents=True, exist_ok=True)
            path = checkpoint_dir / name

            def download(out, key=f"{prefix}/{name}") -> None:
                with default_storage.open(key, "rb") as source:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)

            atomic_write(path, download)
            if path.stat().st_size != int(marker["bytes"]) or sha256_of(path) != marker["sha256"]:
                path.unlink(missing_ok=True)
                logger.warning("job %s: mirrored checkpoint %s does not match its marker", job.pk, name)
                continue
            atomic_write_json(path.with_name(name + MARKER_SUFFIX), marker)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # gone meanwhile, or damaged
            logger.warning("job %s: mirrored checkpoint %s unusable: %s", job.pk, name, exc)
            continue
        restored = {
            "checkpoint": name,
            "epoch": int(marker["epoch"]),
            "step": int(marker["step"]),
            "bytes": int(marker["bytes"]),
            "seconds": round(time.monotonic() - started, 3),
        }
        logger.info(
            "job %s: restored %s (%d bytes) in %.2fs", job.pk, name, restored["bytes"], restored["seconds"]
        )
        report(
            f"restored {what} {name} (epoch {restored['epoch']}, step {restored['step']}) from "
            f"blob storage in {restored['seconds']:.1f}s",
            milestone=True,
        )
        return restored
    return None


class _MirrorThread:
    """What both mirrors share: ``sync()`` on a background thread every ``poll_seconds`` while the run
    trains (a context manager), and once more on an exit by an exception other than ``LeaseLost``."""

    job: Job
    poll_seconds: float
    _thread: threading.Thread | None = None
    _stop: threading.Event

    def sync(self) -> object:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._stop = threading.Event()
        if mirror_enabled():
            self._thread = threading.Thread(
                target=self._watch, name=f"job-{self.job.pk}-{type(self).__name__}", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        from jobs.runner import LeaseLost

        # a finished run needs no mirror (it is deleted once the outcome is stored); an attempt
        # that lost its lease leaves the mirror to the attempt that holds the job now
        self.close(upload=exc_type is not None and not issubclass(exc_type, LeaseLost))

    def close(self, *, upload: bool) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        if upload:
            with contextlib.suppress(Exception):
                self.sync()

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.sync()
            except Exception:  # storage unreachable for a while: the next poll tries again
                logger.warning("job %s: mirroring its checkpoints failed", self.job.pk, exc_info=True)


class CheckpointMirror(_MirrorThread):
    """Copies the newest complete checkpoint of ``checkpoint_dir`` to blob storage on a background
    thread while the run trains (``with CheckpointMirror(job=j, checkpoint_dir=d) as mirror:``).

    ``mirrored`` names a checkpoint that is in storage already (restored from it), so it is not sent
    again. ``close(upload=True)`` stops the thread and uploads once more (an attempt that stops on a cancel
    or a worker shutdown saves a last checkpoint: the next attempt may run elsewhere). Uploads never
    delete a mirrored checkpoint newer than the one uploaded, so an attempt that lost its lease
    cannot undo its successor's progress.
    """

    def __init__(
        self,
        *,
        job: Job,
        checkpoint_dir: Path,
        mirrored: str | None = None,
        poll_seconds: float | None = None,
        prefix: str | None = None,
    ) -> None:
        self.job = job
        self.checkpoint_dir = checkpoint_dir
        self.prefix = prefix or mirror_prefix(job)
        # how often the watcher looks for a new complete checkpoint (a listing of one folder: cheap)
        self.poll_seconds = (
            settings.SAMPAN_CHECKPOINT_MIRROR_SECONDS if poll_seconds is None else poll_seconds
        )
        self.uploaded = mirrored  # the checkpoint already in storage (the one just restored from it)
        self.uploads: list[dict[str, Any]] = []  # name, bytes, seconds of each upload
        self._lock = threading.Lock()

    def sync(self) -> str | None:
        """Upload the newest complete local checkpoint if it is not mirrored yet; returns its name."""
        from workers.image_classification.checkpoints import complete_checkpoints
        from workers.shared.atomic_files import sha256_of

        with self._lock:
            newest = complete_checkpoints(self.checkpoint_dir)[:1]
            if not newest or newest[0].path.name == self.uploaded:
                return None
            info = newest[0]
            name = info.path.name
            started = time.monotonic()
            try:
                if sha256_of(info.path) != info.sha256:
                    return None  # damaged on disk: resume would skip it too
                with info.path.open("rb") as handle:
                    self._save(f"{self.prefix}/{name}", File(handle, name=name))
            except FileNotFoundError:  # rotated away meanwhile; a newer one is there
                return None
            marker = {
                "checkpoint": name,
                "epoch": info.epoch,
                "step": info.step,
                "bytes": info.bytes,
                "sha256": info.sha256,
            }
            self._save(f"{self.prefix}/{name}{MARKER_SUFFIX}", ContentFile(json.dumps(marker).encode()))
            self.uploaded = name
            self._delete_older_than(name)
            seconds = round(time.monotonic() - started, 3)
            self.uploads.append({"checkpoint": name, "bytes": info.bytes, "seconds": seconds})
            logger.info("job %s: mirrored %s (%d bytes) in %.2fs", self.job.pk, name, info.bytes, seconds)
            return name

    def _save(self, key: str, content: File) -> None:
        if default_storage.exists(key):
            default_storage.delete(key)
        stored = default_storage.save(key, content)
        if stored != key:  # another attempt stored the same name meanwhile: keep one copy
            default_storage.delete(stored)

    def _delete_older_than(self, name: str) -> None:
        _, files = _mirrored(self.prefix)
        keep = _step_of(name)
        older = [f for f in files if f.removesuffix(MARKER_SUFFIX) != name and _older(f, keep)]
        # markers first: a crash in between leaves a checkpoint without a marker, which restore ignores
        for file in sorted(older, key=lambda f: not f.endswith(MARKER_SUFFIX)):
            with contextlib.suppress(Exception):
                default_storage.delete(f"{self.prefix}/{file}")


def _older(file: str, than: tuple[int, int]) -> bool:
    step = _step_of(file.removesuffix(MARKER_SUFFIX))
    return step != (-1, -1) and step < than


def _files_under(prefix: str) -> list[str]:
    """Every file's key under ``prefix``, its sub-folders' included (markers first in each folder)."""
    try:
        folders, files = default_storage.listdir(prefix)
    except FileNotFoundError:
        return []
    keys = [f"{prefix}/{f}" for f in sorted(files, key=lambda f: not f.endswith(MARKER_SUFFIX))]
    for folder in folders:
        keys.extend(_files_under(f"{prefix}/{folder}"))
    return keys


def checkpoint_mirror_forget(*, job: Job) -> int:
    """Delete everything mirrored of a job's run: its checkpoints and a cross-validated run's folds
    (its outcome is stored: nothing will resume it). Returns how many files were deleted."""
    if not mirror_enabled():
        return 0
    keys = _files_under(run_prefix(job))
    for key in keys:
        with contextlib.suppress(Exception):
            default_storage.delete(key)
    return len(keys)


class RunMirror(_MirrorThread):
    """Every checkpoint folder of a run, mirrored from one background thread while it trains: the run's
    ``checkpoints/`` (``CheckpointMirror``) and, for a cross-validated run, each fold in progress
    (``folds/fold-<i>/checkpoints/``, its newest complete checkpoint) and each finished fold's
    ``fold.json`` (small: the fold's per-epoch held-out scores), so an attempt on another host skips
    the finished folds and resumes the fold in progress (``run_restore``). Used as
    ``with RunMirror(job=j, run_dir=d, restored=r):``, with ``CheckpointMirror``'s exit rules."""

    def __init__(
        self,
        *,
        job: Job,
        run_dir: Path,
        restored: dict[str, Any] | None = None,
        poll_seconds: float | None = None,
    ) -> None:
        restored = restored or {}
        self.job = job
        self.run_dir = run_dir
        self.poll_seconds = (
            settings.SAMPAN_CHECKPOINT_MIRROR_SECONDS if poll_seconds is None else poll_seconds
        )
        main = restored.get("checkpoint")
        self.main = CheckpointMirror(job=job, checkpoint_dir=run_dir / "checkpoints", mirrored=main)
        # the checkpoints each fold was restored from (not sent back), and the finished folds in storage
        self._fold_restored: dict[str, str] = dict(restored.get("fold_checkpoints") or {})
        self.folds_sent: set[str] = set(restored.get("folds") or [])
        self.folds: dict[str, CheckpointMirror] = {}

    @property
    def uploads(self) -> list[dict[str, Any]]:
        return [*self.main.uploads, *(u for fold in self.folds.values() for u in fold.uploads)]

    def sync(self) -> None:
        """Upload what is new: the run's newest checkpoint, each fold's newest checkpoint, each newly
        finished fold's record (whose mirrored checkpoints are then deleted)."""
        self.main.sync()
        root = self.run_dir / "folds"
        if not root.is_dir():
            return
        for fold_dir in sorted(p for p in root.iterdir() if p.name.startswith("fold-")):
            fold = fold_dir.name
            prefix = fold_prefix(self.job, fold)
            record = fold_dir / "fold.json"
            if fold in self.folds_sent:
                continue
            if record.is_file():  # written atomically before the fold's checkpoints are removed
                self._save(f"{prefix}/fold.json", record)
                self.folds_sent.add(fold)
                for key in _files_under(f"{prefix}/checkpoints"):
                    with contextlib.suppress(Exception):
                        default_storage.delete(key)
                logger.info("job %s: mirrored the record of finished %s", self.job.pk, fold)
                continue
            mirror = self.folds.get(fold)
            if mirror is None:
                mirror = self.folds[fold] = CheckpointMirror(
                    job=self.job,
                    checkpoint_dir=fold_dir / "checkpoints",
                    mirrored=self._fold_restored.get(fold),
                    prefix=f"{prefix}/checkpoints",
                )
            mirror.sync()

    @staticmethod
    def _save(key: str, path: Path) -> None:
        with path.open("rb") as handle:
            if default_storage.exists(key):
                default_storage.delete(key)
            stored = default_storage.save(key, File(handle, name=path.name))
        if stored != key:
            default_storage.delete(stored)


def run_restore(*, job: Job, run_dir: Path, report: Report) -> dict[str, Any]:
    """Before an attempt trains on a host whose run directory lacks them: the run's newest mirrored
    checkpoint (``checkpoint_restore``), every finished fold's ``fold.json`` and the newest checkpoint
    of each fold in progress. Returns ``{"checkpoint": ..., "epoch": ..., ...}`` as
    ``checkpoint_restore`` for the run's own checkpoint (absent when none), with ``folds`` (the finished
    folds restored or already here) and ``fold_checkpoints`` (fold -> the checkpoint restored)."""
    from workers.shared.atomic_files import atomic_write

    if not mirror_enabled():
        return {}
    restored: dict[str, Any] = dict(
        checkpoint_restore(job=job, checkpoint_dir=run_dir / "checkpoints", report=report) or {}
    )
    try:
        folds, _ = default_storage.listdir(f"{run_prefix(job)}/folds")
    except FileNotFoundError:
        folds = []
    finished: list[str] = []
    fold_checkpoints: dict[str, str] = {}
    for fold in sorted(f for f in folds if f.startswith("fold-")):
        prefix, local = fold_prefix(job, fold), run_dir / "folds" / fold
        record = local / "fold.json"
        if not record.is_file() and default_storage.exists(f"{prefix}/fold.json"):

            def download(out, key=f"{prefix}/fold.json") -> None:
                with default_storage.open(key, "rb") as source:
                    out.write(source.read())

            local.mkdir(parents=True, exist_ok=True)
            try:
                atomic_write(record, download)
            except OSError as exc:  # gone meanwhile: the fold is trained again
                logger.warning("job %s: the record of %s could not be restored: %s", job.pk, fold, exc)
                continue
        if record.is_file():
            finished.append(fold)
            continue
        got = checkpoint_restore(
            job=job,
            checkpoint_dir=local / "checkpoints",
            report=report,
            prefix=f"{prefix}/checkpoints",
            what=f"{fold} checkpoint",
        )
        if got is not None:
            fold_checkpoints[fold] = got["checkpoint"]
    if finished:
        report(
            f"restored {len(finished)} finished fold(s) from blob storage: {', '.join(finished)}",
            milestone=True,
        )
    return {**restored, "folds": finished, "fold_checkpoints": fold_checkpoints}
