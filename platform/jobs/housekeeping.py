"""Housekeeping: the periodic work that keeps an installation tidy and its jobs moving.

It runs in its own process (`manage.py housekeeping`: the beat scheduler plus a consumer of the
`housekeeping` queue only), never in the job pool, so a worker busy training for hours cannot
delay the reaper.
"""

from __future__ import annotations

import logging
import re
import shutil
import time
from pathlib import Path

from django.conf import settings

logger = logging.getLogger("sampan.jobs")

HOUSEKEEPING_QUEUE = "housekeeping"
# A Django temporary upload file untouched this long belongs to a request that died (a killed web
# process); a live upload writes to its file continuously.
STALE_UPLOAD_SECONDS = 3600
RUN_DIR_PATTERN = re.compile(r"^job-(\d+)-")


def upload_temp_dir() -> Path:
    return Path(settings.FILE_UPLOAD_TEMP_DIR)


def uploads_clean_stale(*, older_than: float = STALE_UPLOAD_SECONDS, now: float | None = None) -> list[str]:
    """Delete temporary upload files left by web processes killed mid-request."""
    now = time.time() if now is None else now
    removed: list[str] = []
    folder = upload_temp_dir()
    if not folder.is_dir():
        return removed
    for path in folder.iterdir():
        try:
            if path.is_file() and now - path.stat().st_mtime >= older_than:
                path.unlink()
                removed.append(path.name)
        except FileNotFoundError:  # its request finished meanwhile
            continue
    if removed:
        logger.info("housekeeping: removed %d stale upload file(s) from %s", len(removed), folder)
    return removed


def runs_prune() -> list[str]:
    """Delete the run directories (checkpoints) of jobs whose model version is stored.

    Never a queued, running, failed or cancelled job's: those may still resume (a retry, the next
    attempt) from their checkpoints. A run whose job no longer exists is deleted too.

    Each host's SAMPAN_HOME/runs is a cache (DESIGN §13); with a shared volume one sweep covers all.
    """
    from jobs.models import Job, JobStatus

    runs = Path(settings.SAMPAN_HOME) / "runs"
    if not runs.is_dir():
        return []
    by_id: dict[int, list[Path]] = {}
    for path in runs.iterdir():
        match = RUN_DIR_PATTERN.match(path.name)
        if match and path.is_dir():
            by_id.setdefault(int(match[1]), []).append(path)
    if not by_id:
        return []
    from training.services import run_dir_for

    jobs = {job.pk: job for job in Job.objects.filter(pk__in=list(by_id)).only("pk", "created_at", "status")}
    stored = set(
        Job.objects.filter(
            pk__in=list(jobs), status=JobStatus.SUCCEEDED, model_version__isnull=False
        ).values_list("pk", flat=True)
    )
    removed = []
    for job_id, paths in by_id.items():
        job = jobs.get(job_id)
        own = run_dir_for(job).name if job is not None else None
        for path in paths:
            # a directory whose job is gone (or a same-numbered job of a reset database) is an orphan
            if job_id in stored or path.name != own:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path.name)
    if removed:
        logger.info("housekeeping: pruned %d run director(y/ies) whose model version is stored", len(removed))
    return removed
