"""Each worker host tidies its own disk. SAMPAN_HOME is host-local (DESIGN §13: no shared disk between
hosts, every host-local directory a cache), so the housekeeping process's ``tidy`` (jobs.tasks.tidy) only
reaches the run directories and upload temp files of the host it runs on. Every worker therefore runs the
same two sweeps over its own SAMPAN_HOME: once when it is ready (what a restarted host left behind) and
then every ``TIDY_SECONDS``, from a thread of the worker's main process (never in the job pool)."""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.db import connection

logger = logging.getLogger("sampan.jobs")

TIDY_SECONDS = 600.0  # as the housekeeping beat's "tidy" entry
_stop = threading.Event()


def host_tidy() -> dict[str, list[str]]:
    """This host's stale upload files and the run directories of jobs whose model version is stored."""
    from jobs import housekeeping

    try:
        return {"uploads": housekeeping.uploads_clean_stale(), "runs": housekeeping.runs_prune()}
    finally:
        connection.close()


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
