"""Request uploads spooled to disk under FILE_UPLOAD_TEMP_DIR (SAMPAN_HOME/tmp/uploads)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.files.uploadhandler import TemporaryFileUploadHandler


class RecreatingTemporaryFileUploadHandler(TemporaryFileUploadHandler):
    """Django's handler, making FILE_UPLOAD_TEMP_DIR again when it is gone: SAMPAN_HOME is a host-local
    cache that may be deleted under a running web process (DESIGN §13), and an upload must not fail
    with a 500 because the folder settings created at start-up vanished."""

    def new_file(self, *args, **kwargs) -> None:
        Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
        super().new_file(*args, **kwargs)
