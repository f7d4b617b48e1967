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
from typing import Any

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


def mirror_prefix(job: Job) -> str:
    """The storage folder of a job's mirrored checkpoints (named as its run directory, which is
    unique even when a reset database reuses the job's id)."""
    return f"runs/{run_dir_for(job).name}/checkpoints"


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


def checkpoint_restore(*, job: Job, checkpoint_dir: Path, report: Report) -> dict[str, Any] | None:
    """Before an attempt trains: with no complete checkpoint in ``checkpoint_dir`` (a new host, a wiped
    disk), download the newest mirrored one that verifies. Returns what was restored, or None."""
    from workers.image_classification.checkpoints import complete_checkpoints
    from workers.shared.atomic_files import atomic_write, atomic_write_json, sha256_of

    if not mirror_enabled() or complete_checkpoints(checkpoint_dir):
        return None
    prefix = mirror_prefix(job)
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
            f"restored checkpoint {name} (epoch {restored['epoch']}, step {restored['step']}) from "
            f"blob storage in {restored['seconds']:.1f}s",
            milestone=True,
        )
        return restored
    return None


class CheckpointMirror:
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
    ) -> None:
        self.job = job
        self.checkpoint_dir = checkpoint_dir
        self.prefix = mirror_prefix(job)
        # how often the watcher looks for a new complete checkpoint (a listing of one folder: cheap)
        self.poll_seconds = (
            settings.SAMPAN_CHECKPOINT_MIRROR_SECONDS if poll_seconds is None else poll_seconds
        )
        self.uploaded = mirrored  # the checkpoint already in storage (the one just restored from it)
        self.uploads: list[dict[str, Any]] = []  # name, bytes, seconds of each upload
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> CheckpointMirror:
        if mirror_enabled():
            self._thread = threading.Thread(
                target=self._watch, name=f"job-{self.job.pk}-checkpoint-mirror", daemon=True
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
                logger.warning("job %s: mirroring a checkpoint failed", self.job.pk, exc_info=True)

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


def checkpoint_mirror_forget(*, job: Job) -> int:
    """Delete a job's mirrored checkpoints (its outcome is stored: nothing will resume it).
    Returns how many files were deleted."""
    if not mirror_enabled():
        return 0
    prefix = mirror_prefix(job)
    _, files = _mirrored(prefix)
    for file in sorted(files, key=lambda f: not f.endswith(MARKER_SUFFIX)):
        with contextlib.suppress(Exception):
            default_storage.delete(f"{prefix}/{file}")
    return len(files)
