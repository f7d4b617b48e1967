"""A custom training job on a worker: the user's code run in the sandbox, its logs, metrics and model.

``custom_job_run(job=..., report=...)`` is the body of the ``customjobs.run`` task (and of an AutoML
trial over custom code, which passes ``on_metrics``). It

1. hardens SAMPAN_HOME (``config.env.sampan_home_harden``: blobs, databases and the broker private to
   the platform's user) and makes the job's working folder
   ``SAMPAN_SANDBOX_ROOT/jobs/<id>-<created>-<random>/`` (``code/``, ``data/``, ``output/``, ``home/``),
   fresh on every attempt;
2. extracts the code archive (checked against its sha256; a zip entry that is absolute, climbs out with
   ``..`` or is a link is refused) and materialises the dataset version in the documented layout;
3. runs it with ``workers.custom_code.runner.run_custom_job`` (the compute plane, imported here only):
   each output line becomes a ``JobLogLine`` (written in batches, numbered on from the last attempt's),
   each ``log_metrics`` a progress event with ``custom_metrics`` (the live curves);
4. ends the job: a non-zero exit fails it with "exit code N" and the traceback's last lines, a limit
   with the sandbox's reason; a model the code wrote (``model.onnx``, ``labels.json``,
   ``preprocess.json``) is checked like an uploaded ONNX model, recorded as a model version
   (``source="custom"``, with :class:`CustomJobLineage`) and evaluated on the dataset version's test
   split, so it deploys, compares and packages like any other.

The working folder is removed when the run ends; the logs, the result and the model stay.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
import zipfile
from collections import deque
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from config.env import sampan_home_harden
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from jobs.models import Job, JobLogLine
from jobs.runner import JobInputRejected

from customjobs.models import CodeArchive, CodeKind
from workers.contracts.custom_code import (
    CUSTOM_JOB_LINEAGE_VERSION,
    CustomJobLineage,
    CustomJobResult,
    CustomJobSpec,
    RunArtifact,
)

# A log line longer than this is cut (with a marker); a run writing more lines than this keeps the
# first ones and says how many it dropped.
LOG_LINE_MAX_CHARS = 8000
LOG_MAX_LINES = 200_000
LOG_BATCH_LINES = 200
# How many curve points a run records whatever its pace; past that, at most two a second.
METRIC_EVENTS_RECORDED = 5000
# A file the code wrote that the platform reads back (model, labels, preprocessing) may be at most this big.
OUTPUT_FILE_MAX_BYTES = 2 * 1024**3
# What a run's log_artifact files may take in blob storage.
ARTIFACTS_MAX_COUNT = 100
ARTIFACTS_MAX_BYTES = 1024**3
MODEL_TEMPLATE = "image_classification"
STDERR_TAIL_LINES = 60
TRACEBACK_LINES = 25


class JobLog:
    """The job's output lines, numbered per job (a retry goes on from the last attempt's number) and
    written to ``JobLogLine`` in batches from the job's own thread (``flush``); ``add`` may be called
    from any thread."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str]] = []
        self._next = (JobLogLine.objects.filter(job=job).aggregate(n=Max("seq"))["n"] or 0) + 1
        self._written = 0
        self._dropped = 0
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)

    @staticmethod
    def clean(text: str) -> str:
        text = text.rstrip("\r\n").replace("\x00", "\ufffd")  # PostgreSQL text holds no NUL
        if len(text) > LOG_LINE_MAX_CHARS:
            text = f"{text[:LOG_LINE_MAX_CHARS]}... [{len(text) - LOG_LINE_MAX_CHARS} more characters]"
        return text

    def add(self, stream: str, line: str) -> None:
        stream = stream if stream in ("stdout", "stderr", "system") else "system"
        text = self.clean(line)
        with self._lock:
            if stream == "stderr":
                self.stderr_tail.append(text)
            if self._written + len(self._pending) >= LOG_MAX_LINES:
                self._dropped += 1
                return
            self._pending.append((stream, text))

    def system(self, text: str) -> None:
        self.add("system", text)

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for start in range(0, len(pending), LOG_BATCH_LINES):
            batch = pending[start : start + LOG_BATCH_LINES]
            JobLogLine.objects.bulk_create(
                [
                    JobLogLine(job_id=self.job.pk, seq=self._next + i, stream=stream, text=text)
                    for i, (stream, text) in enumerate(batch)
                ]
            )
            self._next += len(batch)
            self._written += len(batch)

    def close(self) -> None:
        if self._dropped:
            with self._lock:
                self._pending.append(
                    ("system", f"{self._dropped} more lines were not kept (a run keeps {LOG_MAX_LINES:,}).")
                )
                self._dropped = 0
        self.flush()


# --- the working folder --------------------------------------------------------------------------


WORK_DIR_NAME = re.compile(r"^(\d+)-(\d{20})(-[0-9a-f]{32})?$")


def _work_dir_prefix(pk: int, created_at) -> str:
    return f"{pk}-{created_at:%Y%m%d%H%M%S%f}"


def job_work_dirs(job: Job) -> list[Path]:
    """The job's working folders now on disk: ``SAMPAN_SANDBOX_ROOT/jobs/<id>-<created>-<random>``.
    The creation time keeps the name unique if the database is reset (or another one shares
    SAMPAN_HOME), as training's run folders do; the random part (new on every attempt) keeps another
    run, which cannot list ``jobs/``, from guessing its way in."""
    jobs_dir = Path(settings.SAMPAN_SANDBOX_ROOT) / "jobs"
    prefix = _work_dir_prefix(job.pk, job.created_at)
    try:
        names = [entry.name for entry in os.scandir(jobs_dir)]
    except OSError:
        return []
    return sorted(jobs_dir / n for n in names if n == prefix or n.startswith(f"{prefix}-"))


def _sandbox_user() -> str | None:
    return settings.SAMPAN_SANDBOX_USER or None


def _unreachable_ancestor(path: Path) -> Path | None:
    """The first folder above ``path`` that another user cannot pass through (no o+x), if any."""
    for parent in reversed(path.parents):
        try:
            if not parent.stat().st_mode & stat.S_IXOTH:
                return parent
        except OSError:
            return parent
    return None


def _make_private_dir(path: Path, mode: int) -> None:
    path.mkdir(mode=mode, exist_ok=True)
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise RuntimeError(f"{path} is not a folder")
    os.chmod(path, mode)


def prepare_work_dir(job: Job) -> Path:
    """A fresh working folder (:func:`job_work_dirs`; ``jobs/`` is 0711: the sandbox user reaches only
    what the runner hands it, and nobody lists the jobs); ended jobs' folders are swept first."""
    root = Path(settings.SAMPAN_SANDBOX_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    _make_private_dir(root, 0o711)
    _make_private_dir(root / "jobs", 0o711)
    user = _sandbox_user()
    if user is not None and os.geteuid() == 0:
        blocked = _unreachable_ancestor(root / "jobs")
        if blocked is not None:
            raise JobInputRejected(
                f"The sandbox user {user!r} cannot reach SAMPAN_SANDBOX_ROOT ({root}): {blocked} does not "
                "let other users pass through. Set SAMPAN_SANDBOX_ROOT to a folder outside private homes "
                "(e.g. /var/lib/sampan/sandbox)."
            )
    sweep_work_dirs()
    for earlier in job_work_dirs(job):  # an earlier attempt's
        remove_work_dir(earlier)
    work = root / "jobs" / f"{_work_dir_prefix(job.pk, job.created_at)}-{secrets.token_hex(16)}"
    work.mkdir(mode=0o711)
    os.chmod(work, 0o711)
    for name in ("code", "data"):
        (work / name).mkdir(mode=0o755)
    return work


def sweep_work_dirs() -> list[int]:
    """Remove the working folders of jobs that have ended (a worker killed mid-run leaves its folder;
    the job was failed or retried elsewhere since). A folder of a job still queued or running (maybe
    on another host sharing the folder), or one this database does not know, is left alone. Returns
    the ids swept."""
    jobs_dir = Path(settings.SAMPAN_SANDBOX_ROOT) / "jobs"
    try:
        names = {entry.name for entry in os.scandir(jobs_dir)}
    except OSError:
        return []
    found: dict[int, list[str]] = {}
    for name in names:
        match = WORK_DIR_NAME.match(name)
        if match:
            found.setdefault(int(match.group(1)), []).append(name)
    ended = Job.objects.filter(pk__in=list(found), status__in=["succeeded", "failed", "cancelled"])
    swept = set()
    for pk, created_at in ended.values_list("pk", "created_at"):
        prefix = _work_dir_prefix(pk, created_at)
        for name in found[pk]:
            if name == prefix or name.startswith(f"{prefix}-"):
                remove_work_dir(jobs_dir / name)
                swept.add(pk)
    return sorted(swept)


def remove_work_dir(work: Path) -> None:
    if work.is_symlink():
        work.unlink()
    elif work.exists():
        shutil.rmtree(work, ignore_errors=True)
        if work.exists():  # not root: a folder the code made read-only; let its owner (us) in again
            for folder, dirs, _files in os.walk(work):
                for name in dirs:
                    path = os.path.join(folder, name)
                    if not os.path.islink(path):  # chmod follows links: never touch what one points at
                        with contextlib.suppress(OSError):
                            os.chmod(path, 0o700)
            shutil.rmtree(work, ignore_errors=True)


# --- the code ------------------------------------------------------------------------------------

_SAFE_NAME = re.compile(r"^[^/\\\x00]+$")


def _safe_member(name: str) -> PurePosixPath | None:
    """A zip entry's path if it stays inside the folder (relative, no ``..``, no backslashes)."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return None
    path = PurePosixPath(name)
    if any(part in ("..", "") for part in path.parts):
        return None
    return path


def _write_new(path: Path, source, *, limit: int) -> int:
    """Write a new file (never following a link), at most ``limit`` bytes; returns its size."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    written = 0
    with os.fdopen(fd, "wb") as out:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            written += len(chunk)
            if written > limit:
                raise JobInputRejected(f"The code unpacks to more than {limit:,} bytes.")
            out.write(chunk)
    return written


def extract_code(archive: CodeArchive, spec: CustomJobSpec, dest: Path) -> None:
    """The archive's files into ``dest``: a script or notebook as its file, a zip unpacked safely.
    The stored blob must still match the archive's sha256."""
    limit = int(settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES)
    with tempfile.TemporaryDirectory(prefix="sampan-code-") as tmp:
        blob = Path(tmp) / "blob"
        digest = hashlib.sha256()
        try:
            with default_storage.open(archive.blob_key, "rb") as source, blob.open("wb") as out:
                for chunk in iter(lambda: source.read(1 << 20), b""):
                    digest.update(chunk)
                    out.write(chunk)
        except FileNotFoundError:
            raise JobInputRejected(f"The code {archive.name!r} is missing from storage.") from None
        if digest.hexdigest() != archive.sha256:
            raise JobInputRejected(f"The stored code {archive.name!r} no longer matches its sha256.")
        if archive.code_kind != CodeKind.ZIP:
            suffix = ".ipynb" if archive.code_kind == CodeKind.NOTEBOOK else ".py"
            name = spec["entry_point"] if spec["entry_point"].endswith(suffix) else archive.filename
            name = PurePosixPath(name).name
            if not _SAFE_NAME.match(name) or name in (".", ".."):
                name = f"main{suffix}"
            with blob.open("rb") as source:
                _write_new(dest / name, source, limit=limit)
            return
        total = 0
        with zipfile.ZipFile(blob) as bundle:
            for info in bundle.infolist():
                path = _safe_member(info.filename.rstrip("/") if info.is_dir() else info.filename)
                if path is None:
                    raise JobInputRejected(f"The code's zip holds an unsafe path: {info.filename!r}.")
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise JobInputRejected(f"The code's zip holds a link: {info.filename!r}.")
                target = dest.joinpath(*path.parts)
                try:
                    if info.is_dir():
                        target.mkdir(mode=0o755, parents=True, exist_ok=True)
                        continue
                    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                    with bundle.open(info) as source:
                        total += _write_new(target, source, limit=limit * 20 - total)
                except (OSError, zipfile.BadZipFile) as exc:  # a name twice, a file where a folder is
                    raise JobInputRejected(
                        f"The code's zip cannot be unpacked at {info.filename!r}: {exc}."
                    ) from None
                if mode & stat.S_IXUSR:
                    os.chmod(target, 0o755)


# --- the data ------------------------------------------------------------------------------------


def materialize_data(dataset_version, dest: Path, log: JobLog) -> None:
    from datasets.services import dataset_version_manifest

    from workers.custom_code.layout import materialize

    manifest = dataset_version_manifest(version=dataset_version)
    materialize(
        dict(manifest),
        dest,
        dataset_version=dataset_version.pk,
        task=dataset_version.dataset.task_type,
    )
    log.system(f"data: {dataset_version.dataset.name} {dataset_version.name} in $SAMPAN_DATA_DIR")


# --- the outcome ---------------------------------------------------------------------------------


def traceback_tail(lines: list[str]) -> str:
    """The last traceback in the stderr lines (from its 'Traceback' line), else their last lines."""
    start = None
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("Traceback (most recent call last)"):
            start = i
            break
    chosen = lines[start:] if start is not None else lines
    return "\n".join(chosen[-TRACEBACK_LINES:]).strip()


def failure_message(result: CustomJobResult, stderr: list[str]) -> str | None:
    """Why the run failed, in words, or None when it did not (exit 0, or pruned)."""
    if result["stopped"] in ("time_limit", "memory_limit", "preempted"):
        return result["reason"] or f"stopped: {result['stopped']}"
    if result["stopped"] == "pruned" or result["exit_code"] == 0:
        return None
    code = result["exit_code"]
    if code is None:
        head = result["reason"] or "the run was killed"
    elif code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        head = f"exit code {code} (killed by {name})"
    else:
        head = f"exit code {code}"
    tail = traceback_tail(stderr)
    return f"{head}\n{tail}" if tail else head


def _open_output(output: Path, relative: str) -> int:
    """A file descriptor for a regular file the sandboxed code wrote under its output folder, opened
    one path component at a time without following links (the code could leave a link, or a link to a
    folder, pointing at files only the platform may read) and refused when it has other hard links."""
    parts = PurePosixPath(relative).parts
    if not parts or any(part in ("", ".", "..") or "/" in part for part in parts):
        raise OSError(errno.EINVAL, "not a path inside the output folder")
    folder = os.open(output, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    finally:
        os.close(folder)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise OSError(errno.EPERM, "not a regular file of its own (a link or a special file)")
    return fd


def _read_output(output: Path, name: str, dest: Path) -> Path:
    """Copy a model file the sandboxed code wrote into a private place (see :func:`_open_output`)."""
    try:
        fd = _open_output(output, name)
    except OSError as exc:
        raise JobInputRejected(
            f"The run's {name} cannot be read ({exc.strerror}); "
            "write it as a regular file in $SAMPAN_OUTPUT_DIR."
        ) from None
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > OUTPUT_FILE_MAX_BYTES:
            raise JobInputRejected(
                f"The run's {name} is {size:,} bytes; a model file may be at most {OUTPUT_FILE_MAX_BYTES:,}."
            )
        target = dest / name
        with target.open("wb") as out:
            shutil.copyfileobj(fh, out, 1 << 20)
    return target


def store_artifacts(job: Job, output: Path, artifacts: list[RunArtifact], log: JobLog) -> list[RunArtifact]:
    """Keep the files the run named with ``log_artifact`` in blob storage (``key`` added to each), up
    to ARTIFACTS_MAX_COUNT files and ARTIFACTS_MAX_BYTES in all; what cannot be kept is said in the log."""
    kept: list[RunArtifact] = []
    total = 0
    seen: set[str] = set()
    for artifact in artifacts:
        relative = artifact.get("path", "")
        if relative in seen:
            continue
        seen.add(relative)
        if len(kept) >= ARTIFACTS_MAX_COUNT:
            log.system(f"artifact {relative} not kept: a run keeps at most {ARTIFACTS_MAX_COUNT} artifacts")
            continue
        try:
            fd = _open_output(output, relative)
        except OSError as exc:
            log.system(f"artifact {relative} not kept: {exc.strerror}")
            continue
        with os.fdopen(fd, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if total + size > ARTIFACTS_MAX_BYTES:
                log.system(
                    f"artifact {relative} not kept: a run keeps {ARTIFACTS_MAX_BYTES:,} bytes of artifacts"
                )
                continue
            total += size
            digest = hashlib.sha256()
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
            fh.seek(0)
            key = f"custom-jobs/job-{job.pk}/artifacts/{relative}"
            if default_storage.exists(key):
                default_storage.delete(key)
            stored = default_storage.save(key, File(fh, name=PurePosixPath(relative).name))
        kept.append({**artifact, "key": stored, "sha256": digest.hexdigest(), "size_bytes": size})
    return kept


def _model_files_written(output: Path) -> list[str]:
    """Which of the model's files the run left in its output folder (as files or links)."""
    found = []
    for name in ("model.onnx", "labels.json", "preprocess.json"):
        with contextlib.suppress(OSError):
            info = (output / name).lstat()
            found.append(name if stat.S_ISREG(info.st_mode) else f"{name} (not a regular file)")
    return found


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise JobInputRejected(f"The run's {what} is not valid JSON ({exc}).") from None


def lineage_of(
    *, job: Job, archive: CodeArchive, spec: CustomJobSpec, result: CustomJobResult
) -> CustomJobLineage:
    return {
        "kind": "custom_job_lineage",
        "version": CUSTOM_JOB_LINEAGE_VERSION,
        "code_archive": archive.pk,
        "code_sha256": archive.sha256,
        "code_name": archive.name,
        "entry_point": spec["entry_point"],
        "args": list(spec["args"]),
        "hyperparameters": dict(spec["hyperparameters"]),
        "requirements": spec["requirements"],
        "requirements_hash": result.get("requirements_hash") or spec["requirements_hash"],
        "dataset_version": job.params.get("dataset_version"),
        "environment": result["environment"],
        "job": job.pk,
    }


@transaction.atomic
def model_version_record_custom(
    *,
    job: Job,
    classes: list[str],
    preprocessing: dict[str, Any],
    onnx: Path,
    params: dict[str, Any],
    lineage: CustomJobLineage,
    dataset_version=None,
):
    """Record a model a custom job wrote as the project's next model version (``source="custom"``);
    a retried job that had already recorded its model gets that one back."""
    from training.models import ModelVersion, ModelVersionSource
    from training.services import _store, code_version
    from workspaces.models import Project

    existing = ModelVersion.objects.filter(job=job).first()
    if existing is not None:
        return existing
    if job.project_id is None:
        raise JobInputRejected("The run wrote a model, but its job belongs to no project to record it in.")
    project = Project.objects.select_for_update().get(pk=job.project_id)
    number = (ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0) + 1
    onnx_key, onnx_sha = _store(onnx, f"models/project-{project.pk}/v{number}-custom/model.onnx")
    return ModelVersion.objects.create(
        workspace_id=project.workspace_id,
        project=project,
        number=number,
        source=ModelVersionSource.CUSTOM,
        dataset_version=dataset_version,
        job=job,
        template=MODEL_TEMPLATE,
        preset="",
        params=params,
        code_version=code_version(),
        classes=classes,
        preprocessing=preprocessing,
        checkpoint_key="",
        onnx_key=onnx_key,
        onnx_sha256=onnx_sha,
        metrics={},
        evaluation={},
        lineage=dict(lineage),
        created_by=job.created_by,
    )


def record_model(
    *,
    job: Job,
    archive: CodeArchive,
    spec: CustomJobSpec,
    result: CustomJobResult,
    output: Path,
    dataset_version,
    log: JobLog,
    report,
):
    """Check the model the run wrote as an uploaded ONNX model is checked, record it, evaluate it."""
    import onnx
    from training.model_uploads import batch_size_of, check_uploaded_onnx

    if dataset_version is not None and dataset_version.dataset.task_type != MODEL_TEMPLATE:
        raise JobInputRejected(
            f"The run wrote a model, but only {MODEL_TEMPLATE} models can be recorded yet; this run trained "
            f"on a {dataset_version.dataset.task_type} dataset."
        )
    with tempfile.TemporaryDirectory(prefix="sampan-custom-model-") as tmp:
        private = Path(tmp)
        model_file = _read_output(output, "model.onnx", private)
        labels = _read_json(_read_output(output, "labels.json", private), "labels.json")
        preprocessing = _read_json(_read_output(output, "preprocess.json", private), "preprocess.json")
        if isinstance(labels, dict) and "classes" in labels:
            labels = labels["classes"]
        if not isinstance(preprocessing, dict):
            raise JobInputRejected("The run's preprocess.json must be a JSON object.")
        try:
            proto, classes, spec_pre = check_uploaded_onnx(
                model_file, filename="model.onnx", classes=labels, preprocessing=preprocessing
            )
        except Exception as exc:  # a DomainError naming the problem: the job fails with it
            detail = getattr(exc, "detail", None) or str(exc)
            raise JobInputRejected(f"The run's model was refused: {detail}") from None
        evaluate_on = dataset_version
        if dataset_version is not None and list(dataset_version.classes) != list(classes):
            log.system(
                f"The model's classes {classes} differ from {dataset_version.name}'s "
                f"{list(dataset_version.classes)}; it is recorded without an evaluation."
            )
            evaluate_on = None
        kept = [p for p in proto.metadata_props if not p.key.startswith("sampan.")]
        del proto.metadata_props[:]
        proto.metadata_props.extend(kept)
        for key, value in (
            ("sampan.template", MODEL_TEMPLATE),
            ("sampan.classes", json.dumps(classes)),
            ("sampan.preprocessing", json.dumps(spec_pre)),
        ):
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        final = private / "final.onnx"
        onnx.save(proto, str(final))
        version = model_version_record_custom(
            job=job,
            classes=classes,
            preprocessing=dict(spec_pre),
            onnx=final,
            dataset_version=evaluate_on,
            lineage=lineage_of(job=job, archive=archive, spec=spec, result=result),
            params={
                "format": "onnx",
                "code_archive": archive.pk,
                "entry_point": spec["entry_point"],
                "hyperparameters": dict(spec["hyperparameters"]),
                "batch_size": batch_size_of(proto),
                "custom_metrics": dict(result["metrics"]),
            },
        )
    log.system(f"model recorded as {version.name}")
    if evaluate_on is not None and not version.evaluation:
        from training.model_uploads import evaluate_uploaded

        report("evaluating the model on the test split", fraction=0.95, milestone=True)
        evaluate_uploaded(model_version_id=version.pk, report=report)
        version.refresh_from_db()
        log.system(f"{version.name} evaluated: test accuracy {version.metrics['test']['accuracy']:.4f}")
    return version


# --- the run -------------------------------------------------------------------------------------


def custom_job_run(
    *, job: Job, report, on_metrics: Callable[[int, dict[str, float]], bool] | None = None
) -> dict[str, Any]:
    """The body of a custom training job (see the module docstring); returns its CustomJobResult."""
    from workers.custom_code.runner import RunnerError, run_custom_job

    params = job.params
    spec: CustomJobSpec = params["spec"]
    archive = CodeArchive.objects.filter(pk=params["code_archive"], workspace_id=job.workspace_id).first()
    if archive is None:
        raise JobInputRejected(f"The code archive {params['code_archive']} no longer exists.")
    dataset_version = None
    if params.get("dataset_version") is not None:
        from datasets.models import DatasetVersion

        dataset_version = (
            DatasetVersion.objects.select_related("dataset")
            .filter(pk=params["dataset_version"], dataset__project__workspace_id=job.workspace_id)
            .first()
        )
        if dataset_version is None:
            raise JobInputRejected(f"The dataset version {params['dataset_version']} no longer exists.")

    sampan_home_harden(Path(settings.SAMPAN_HOME))
    log = JobLog(job)
    log.system(
        f"attempt {job.attempt}: {archive.name} ({archive.sha256[:12]}), entry point {spec['entry_point']}"
    )
    work = prepare_work_dir(job)
    recorded = 0

    def job_report(message: str = "", *, fraction=None, milestone: bool = False, **metrics: Any) -> None:
        nonlocal recorded
        log.flush()
        if "custom_metrics" in metrics and recorded < METRIC_EVENTS_RECORDED:
            recorded += 1
            milestone = True  # every curve point is kept (up to METRIC_EVENTS_RECORDED)
        report(message, fraction=fraction, milestone=milestone, **metrics)

    try:
        extract_code(archive, spec, work / "code")
        data_dir = None
        if dataset_version is not None:
            report("preparing the data", fraction=0.0, milestone=True)
            materialize_data(dataset_version, work / "data", log)
            data_dir = work / "data"
        log.flush()
        report("running the code", fraction=0.0, milestone=True)
        try:
            result = run_custom_job(
                spec,
                code_dir=work / "code",
                data_dir=data_dir,
                work_dir=work,
                report=job_report,
                on_output=log.add,
                on_metrics=on_metrics,
                sandbox_user=_sandbox_user(),
                env_cache=Path(settings.SAMPAN_CUSTOM_ENV_CACHE),
            )
        except RunnerError as exc:  # the job cannot run as asked (an entry point not in the code)
            raise JobInputRejected(str(exc)[:1].upper() + str(exc)[1:]) from None
        stderr = list(log.stderr_tail)
        not_enforced = sorted(k for k, v in (result.get("isolation") or {}).items() if not v)
        if not_enforced:
            log.system(f"not enforced on this worker: {', '.join(not_enforced)}")
        log.system(
            f"finished in {result['duration_s']:.1f}s, exit code {result['exit_code']}, "
            f"peak memory {result['peak_memory_mb']:.0f} MiB"
            + (f", stopped: {result['stopped']}" if result["stopped"] else "")
        )
        log.flush()
        failure = failure_message(result, stderr)
        if failure is not None:
            raise JobInputRejected(failure)
        if result["model"] is None:
            written = _model_files_written(work / "output")
            if written:
                log.system(
                    f"{', '.join(written)} in $SAMPAN_OUTPUT_DIR, but no model recorded: a model is "
                    "model.onnx, labels.json and preprocess.json, all three regular files (not links)."
                )
        out: dict[str, Any] = dict(result)
        if result["artifacts"]:
            out["artifacts"] = store_artifacts(job, work / "output", list(result["artifacts"]), log)
        out["model_version"] = None
        out["model_version_name"] = None
        if result["model"] is not None and result["stopped"] != "pruned":
            version = record_model(
                job=job,
                archive=archive,
                spec=spec,
                result=result,
                output=work / "output",
                dataset_version=dataset_version,
                log=log,
                report=job_report,
            )
            out["model_version"] = version.pk
            out["model_version_name"] = version.name
        report("finished", fraction=1.0, milestone=True)
        return out
    finally:
        with contextlib.suppress(Exception):
            log.close()
        remove_work_dir(work)
