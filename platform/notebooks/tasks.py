"""The ``notebooks.serve`` task: run one user's JupyterLab server on this worker until it is stopped
(the job is cancelled), idle, or past a limit. Thin: the server itself is ``workers.notebooks``."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from celery import shared_task
from config.env import sampan_home_harden
from django.conf import settings
from jobs.runner import JobPreempted, run_job

from notebooks import services
from notebooks.models import Notebook, NotebookStatus
from workers.progress import JobCancelled

logger = logging.getLogger("sampan.notebooks")
REPORT_INTERVAL_S = 60.0


class _Log:
    """The server's output lines, written to the job's log in batches (from the tick, one thread)."""

    def __init__(self, job) -> None:
        self.job = job
        self.seq = 0
        self.pending: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def add(self, stream: str, text: str) -> None:
        with self.lock:
            if len(self.pending) < 10_000:
                self.pending.append((stream, text))

    def system(self, text: str) -> None:
        self.add("system", text)

    def flush(self) -> None:
        with self.lock:
            lines, self.pending = self.pending, []
        if lines:
            self.seq = services.job_log_lines_add(job=self.job, lines=lines, first_seq=self.seq)


def _serve(job, report) -> dict[str, Any]:
    from workers.notebooks.server import (
        NotebookServerSpec,
        ServerStatus,
        pack_files,
        serve_notebook,
    )

    notebook = Notebook.objects.select_related("owner", "project").get(pk=job.params["notebook"])
    if notebook.status in (NotebookStatus.STOPPED, NotebookStatus.FAILED):
        return {"notebook": notebook.pk, "stopped": "before_start", "reason": notebook.stop_reason}
    sandbox_user = settings.SAMPAN_SANDBOX_USER or None
    sampan_home_harden(Path(settings.SAMPAN_HOME))  # blobs, databases: unreadable to the sandbox
    base = settings.SAMPAN_SANDBOX_ROOT / "notebooks"
    base.mkdir(parents=True, exist_ok=True)
    for path in (settings.SAMPAN_SANDBOX_ROOT, base):
        path.chmod(0o711)  # the sandbox user passes through, lists nothing
    where = base / str(notebook.pk)
    shutil.rmtree(where, ignore_errors=True)  # a fresh copy: what the user has is in storage
    files_dir = where / "files"
    log = _Log(job)

    archive = services.notebook_files_restore(notebook=notebook)
    if archive:
        log.system(f"restoring the saved files ({len(archive)} bytes)")
    issued = services.notebook_token_issue(notebook=notebook)
    platform_url = job.params.get("platform_url") or settings.SAMPAN_NOTEBOOK_PLATFORM_URL or ""
    env = {
        "SAMPAN_API_KEY": issued.key,
        "SAMPAN_PROJECT": str(notebook.project_id),
        "SAMPAN_WORKSPACE": str(notebook.workspace_id),
    }
    if platform_url:
        env["SAMPAN_URL"] = platform_url.rstrip("/")
    spec = NotebookServerSpec(
        root_dir=files_dir,
        home_dir=where / "home",
        token=notebook.secret,
        idle_timeout_s=notebook.idle_timeout_s,
        limits=notebook.limits,
        env=env,
        host=settings.SAMPAN_NOTEBOOK_HOST,
        ports=settings.SAMPAN_NOTEBOOK_PORTS,
        user=sandbox_user,
    )
    state = {"saved_at": time.monotonic(), "activity_at": 0.0, "reported_at": 0.0, "saved": 0}

    def save() -> None:
        if not files_dir.exists():
            return
        packed, count, notes = pack_files(files_dir)
        services.notebook_files_save(notebook=notebook, archive=packed)
        state["saved"] = count
        for note in notes:
            log.system(note)

    def ready(url: str) -> None:
        services.notebook_mark_running(notebook=notebook, url=url)
        log.system(f"notebook server answering at {url}")
        report(f"notebook running at {url}", milestone=True)

    def tick(status: ServerStatus | None) -> None:
        now = time.monotonic()
        log.flush()
        if status is not None and now - state["activity_at"] >= services.ACTIVITY_WRITE_INTERVAL_S:
            state["activity_at"] = now
            services.notebook_record_activity(notebook=notebook, at=status.last_activity)
        if status is not None and now - state["saved_at"] >= services.SAVE_INTERVAL_S:
            state["saved_at"] = now
            try:
                save()
            except Exception:  # a storage blip skips one save; the next one catches up
                logger.exception("notebook %s: saving its files failed", notebook.pk)
        # a progress point a minute (a notebook may run for hours); between them only the cheap
        # stop check, which raises JobCancelled once the owner stopped it
        if now - state["reported_at"] >= REPORT_INTERVAL_S:
            state["reported_at"] = now
            report("notebook running" if status is not None else "notebook starting")
        else:
            check = getattr(report, "check", None)
            if check is not None:
                check()
            else:
                report("notebook running" if status is not None else "notebook starting")

    try:
        outcome = serve_notebook(spec, archive=archive, on_ready=ready, on_tick=tick, on_output=log.add)
    except JobPreempted:
        _end(notebook, where, save, log, failed=False, reason="its worker shut down; start it again")
        raise
    except JobCancelled:
        _end(notebook, where, save, log, failed=False, reason="stopped by its owner")
        raise
    except Exception as exc:
        _end(notebook, where, save, log, failed=True, reason=f"{type(exc).__name__}: {exc}")
        raise
    _end(notebook, where, save, log, failed=False, reason=outcome.reason)
    return {
        "notebook": notebook.pk,
        "stopped": outcome.stopped,
        "reason": outcome.reason,
        "files_restored": outcome.restored,
        "files_saved": state["saved"],
        "peak_memory_mb": round(outcome.peak_memory_mb, 1),
    }


def _end(notebook: Notebook, where: Path, save, log: _Log, *, failed: bool, reason: str) -> None:
    """Final save, token revoked, the row's final state; each step on its own (one failing leaves
    the others done). The worker's copy of the files is removed once they are saved; a copy that
    could not be saved stays on the worker (its path named in the log) for an administrator."""
    saved = True
    try:
        save()
    except Exception:
        logger.exception("notebook %s: the final save failed", notebook.pk)
        reason = f"{reason}; its files could not be saved"
        log.system(f"the files could not be saved; the worker keeps them in {where}")
        saved = False
    services.notebook_tokens_revoke(notebook=notebook)
    log.system(f"notebook stopped: {reason}")
    try:
        log.flush()
    except Exception:
        logger.exception("notebook %s: writing its log failed", notebook.pk)
    services.notebook_mark_finished(notebook=notebook, failed=failed, reason=reason)
    if saved:
        shutil.rmtree(where, ignore_errors=True)  # the user's files stay only in storage


@shared_task(name="notebooks.serve")
def serve(job_id: int) -> None:
    run_job(job_id, _serve)
