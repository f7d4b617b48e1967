"""Code archives for the custom-code API tests: zips built in memory, uploads, archive rows."""

from __future__ import annotations

import io
import json
import stat
import zipfile

from tests.datasets.factories import upload

TRAIN_PY = b"import sampan.run as run\n\nrun.log_metrics(step=1, loss=0.5)\nprint('done')\n"


def make_code_zip(files: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return out.getvalue()


def notebook_bytes(cells: list[dict] | None = None, *, nbformat: int = 4) -> bytes:
    cells = cells or [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": "print(1)\n"},
    ]
    return json.dumps({"nbformat": nbformat, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


def post_code(client, project, data: bytes, *, filename: str = "train.py", **fields):
    return client.post(
        "/api/v1/code-archives/",
        {"project": project.pk, "file": upload(filename, data), **fields},
        format="multipart",
    )


def code_archive(*, user, project, data: bytes = TRAIN_PY, filename: str = "train.py", **fields):
    """An archive stored through the real service."""
    from customjobs.services import code_archive_create

    return code_archive_create(project=project, upload=upload(filename, data), user=user, **fields)
