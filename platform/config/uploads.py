"""Request uploads spooled to disk under FILE_UPLOAD_TEMP_DIR (SAMPAN_HOME/tmp/uploads)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from django.conf import settings
from django.core.files.uploadhandler import TemporaryFileUploadHandler

logger = logging.getLogger("sampan.web")

SWEEP_SECONDS = 600.0  # as the workers' host tidy (jobs.host_cache)
_sweep_started = threading.Lock()
_sweeping = False


class RecreatingTemporaryFileUploadHandler(TemporaryFileUploadHandler):
    """Django's handler, making FILE_UPLOAD_TEMP_DIR again when it is gone: SAMPAN_HOME is a host-local
    cache that may be deleted under a running web process (DESIGN §13), and an upload must not fail
    with a 500 because the folder settings created at start-up vanished."""

    def new_file(self, *args, **kwargs) -> None:
        Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
        super().new_file(*args, **kwargs)


def upload_spool_sweep_start(*, interval: float = SWEEP_SECONDS) -> bool:
    """Sweep this host's upload spool from a daemon thread of the web process: at once (what a web
    process killed mid-upload left behind) and every ``interval`` seconds, the spooled files untouched
    for an hour (``jobs.housekeeping.uploads_clean_stale``). A web-only host runs no worker, whose host
    tidy would otherwise be the only sweep of this folder. Once per process; returns whether it started."""
    global _sweeping
    with _sweep_started:
        if _sweeping:
            return False
        _sweeping = True

    def sweep() -> None:
        from jobs.housekeeping import uploads_clean_stale

        stop = threading.Event()
        while True:
            try:
                uploads_clean_stale()
            except Exception:  # e.g. a permission problem: logged, and tried again next round
                logger.exception("sweeping the upload spool %s failed", settings.FILE_UPLOAD_TEMP_DIR)
            if stop.wait(interval):
                return

    threading.Thread(target=sweep, name="sampan-upload-sweep", daemon=True).start()
    return True
