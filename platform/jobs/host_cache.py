"""Each worker host tidies its own disk. SAMPAN_HOME is host-local (DESIGN §13: no shared disk between
hosts, every host-local directory a cache), so the housekeeping process's ``tidy`` (jobs.tasks.tidy) only
reaches the run directories and upload temp files of the host it runs on. Every worker therefore runs the
same sweeps over its own SAMPAN_HOME: once when it is ready (what a restarted host left behind) and then
every ``TIDY_SECONDS``, from a thread of the worker's main process (never in the job pool). It also evicts
the copies of stored blobs under SAMPAN_HOME/cache (``datasets.services.versions.blob_local_path``: a
worker's copies of the dataset images it trained on) that no one used for ``CACHE_IDLE_SECONDS``, so a
worker's disk does not fill with every dataset it ever saw; a copy is downloaded again when needed."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from pathlib import Path

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import connection

logger = logging.getLogger("sampan.jobs")

TIDY_SECONDS = 600.0  # as the housekeeping beat's "tidy" entry
CACHE_IDLE_SECONDS = 3 * 24 * 3600.0  # blob_local_path touches a copy on every use
_stop = threading.Event()


def host_tidy() -> dict[str, list[str]]:
    """This host's stale upload files, the run directories of jobs whose model version is stored, and
    the cached blob copies unused for days."""
    from jobs import housekeeping

    try:
        return {
            "uploads": housekeeping.uploads_clean_stale(),
            "runs": housekeeping.runs_prune(),
            "cache": cache_evict_unused(),
        }
    finally:
        connection.close()


def cache_evict_unused(*, idle_seconds: float = CACHE_IDLE_SECONDS, now: float | None = None) -> list[str]:
    """Delete the files under SAMPAN_HOME/cache not used (modified or touched) for ``idle_seconds``, and
    the folders that leaves empty; nothing while a job runs on this machine (a running job's manifest may
    name any of them). Returns the removed files' paths, relative to the cache."""
    from jobs.models import Job, JobStatus

    root = Path(settings.SAMPAN_HOME) / "cache"
    if not root.is_dir():
        return []
    # lease_owner is "<machine>/<pid>" (jobs.runner.worker_identity)
    if Job.objects.filter(
        status=JobStatus.RUNNING, lease_owner__startswith=f"{socket.gethostname()}/"
    ).exists():
        return []
    now = time.time() if now is None else now
    removed: list[str] = []
    for folder, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            path = Path(folder) / name
            try:
                if now - path.stat().st_mtime >= idle_seconds:
                    path.unlink()
                    removed.append(path.relative_to(root).as_posix())
            except FileNotFoundError:  # evicted or replaced meanwhile
                continue
        if Path(folder) != root:
            with contextlib.suppress(OSError):  # not empty
                Path(folder).rmdir()
    if removed:
        logger.info("evicted %d cached blob copies unused for %.0f h", len(removed), idle_seconds / 3600)
    return removed


def _loop() -> None:
    while True:
        try:
            host_tidy()
        except Exception:  # a database blip: the next round tries again
            logger.exception("tidying this host's SAMPAN_HOME failed")
        if _stop.wait(TIDY_SECONDS):
            return


@worker_ready.connect
def _on_ready(sender=None, **kwargs) -> None:
    _stop.clear()
    threading.Thread(target=_loop, name="sampan-host-tidy", daemon=True).start()


@worker_shutdown.connect
def _on_shutdown(sender=None, **kwargs) -> None:
    _stop.set()
