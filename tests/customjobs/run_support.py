"""Helpers of the custom-job run tests (h4): a code archive stored as the upload API stores one, a
``training.custom`` job with its spec, waiting for it, and its log text. Rows are made directly (the
REST API has its own tests in tests/customjobs/test_*_api.py)."""

from __future__ import annotations

import hashlib
import io
import textwrap
import zipfile
from pathlib import Path
from typing import Any

from tests.harness import wait_for

REPO = Path(__file__).resolve().parents[2]
DIGITS_EXAMPLE = REPO / "examples" / "custom-code" / "digits-cnn"


def zip_folder(folder: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                bundle.write(path, path.relative_to(folder).as_posix())
    return out.getvalue()


def code_archive(project, user, *, data: bytes, filename: str, entry_point: str, name: str = "code"):
    """A CodeArchive row with its blob in the platform's storage (the worker reads it from there)."""
    from customjobs.models import CodeArchive
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    suffix = Path(filename).suffix
    kind = {".py": "script", ".zip": "zip", ".ipynb": "notebook"}[suffix]
    sha = hashlib.sha256(data).hexdigest()
    key = f"code-archives/{sha[:2]}/{sha}{suffix}"
    if not default_storage.exists(key):
        default_storage.save(key, ContentFile(data, name=filename))
    files = [{"path": filename, "size_bytes": len(data)}]
    if kind == "zip":
        with zipfile.ZipFile(io.BytesIO(data)) as bundle:
            files = [
                {"path": i.filename, "size_bytes": i.file_size} for i in bundle.infolist() if not i.is_dir()
            ]
    return CodeArchive.objects.create(
        workspace=project.workspace,
        project=project,
        name=name,
        filename=filename,
        code_kind=kind,
        blob_key=key,
        sha256=sha,
        size_bytes=len(data),
        files=files,
        entry_point=entry_point,
        created_by=user,
    )


def script_archive(project, user, source: str, *, name: str = "script"):
    return code_archive(
        project,
        user,
        data=textwrap.dedent(source).encode(),
        filename="main.py",
        entry_point="main.py",
        name=name,
    )


def custom_job(
    archive,
    user,
    *,
    dataset_version=None,
    hyperparameters: dict[str, Any] | None = None,
    args: list[str] | None = None,
    wall_time_s: int = 300,
    memory_mb: int = 2048,
    cpus: int = 1,
    max_attempts: int = 1,
):
    """A queued ``training.custom`` job running ``archive`` (as POST /api/v1/custom-jobs/ makes one)."""
    from jobs.services import job_create

    from workers.custom_code.environment import requirements_hash

    spec = {
        "kind": "custom_job_spec",
        "version": 1,
        "code_sha256": archive.sha256,
        "code_kind": archive.code_kind,
        "entry_point": archive.entry_point,
        "args": list(args or []),
        "hyperparameters": dict(hyperparameters or {}),
        "requirements": "",
        "requirements_hash": requirements_hash(""),
        "limits": {"wall_time_s": wall_time_s, "memory_mb": memory_mb, "cpus": cpus},
        "network": False,
        "queue": "cpu",
    }
    return job_create(
        workspace=archive.workspace,
        project=archive.project,
        kind="training.custom",
        params={
            "code_archive": archive.pk,
            "spec": spec,
            "dataset_version": dataset_version.pk if dataset_version is not None else None,
        },
        user=user,
        max_attempts=max_attempts,
    )


def finished(job, *, timeout: float = 300):
    from jobs.models import Job

    def done():
        row = Job.objects.get(pk=job.pk)
        return row if row.status in ("succeeded", "failed", "cancelled") else None

    return wait_for(done, timeout=timeout, interval=0.5, what=f"custom job {job.pk}")


def log_text(job, stream: str | None = None) -> str:
    from jobs.models import JobLogLine

    lines = JobLogLine.objects.filter(job_id=job.pk).order_by("seq")
    if stream:
        lines = lines.filter(stream=stream)
    return "\n".join(lines.values_list("text", flat=True))
