"""Writes for training: uploaded backbones and their checks, starting a training job, and recording
the model version it produces."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

from blobs.services import blob_reuse
from config.exceptions import Conflict, TooLarge, field_error
from datasets.models import DatasetVersion
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from jobs.models import Job, JobStatus, WorkerNode
from jobs.services import job_create
from workspaces.models import Project

from training.estimates import worker_class_of
from training.models import Backbone, BackboneStatus, ModelVersion
from training.recommendations import hardware_profile, preset_recommendation
from workers.progress import Report
from workers.templates import TemplateParamError, registry


def code_version() -> str:
    """The Sampan version and, in a git checkout, the commit: part of every model's lineage."""
    try:
        version = metadata.version("sampan-platform")
    except metadata.PackageNotFoundError:
        version = "unknown"
    head = settings.REPO_DIR / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            ref = (settings.REPO_DIR / ".git" / ref[5:]).read_text().strip()
        return f"{version}+{ref[:12]}"
    except OSError:
        return version


def run_dir_for(job: Job) -> Path:
    """A training job's working directory, kept across its attempts so a retry resumes from the
    checkpoints; the creation time keeps it unique if the database is reset under the same SAMPAN_HOME."""
    return Path(settings.SAMPAN_HOME) / "runs" / f"job-{job.pk}-{job.created_at:%Y%m%d%H%M%S%f}"


def template_named(name: str):
    try:
        return registry.get(name)
    except KeyError as exc:
        raise field_error("template", str(exc)) from None


class BackboneTooLarge(TooLarge):
    """An uploaded file (a backbone or a model) over its size limit: a 413 naming the file field."""

    default_code = "upload_too_large"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(f"file: {message}", **({"file": [message]} | details))


class BackboneConflict(Conflict):
    default_code = "backbone_in_use"


class BackboneUnavailable(Exception):
    """The stored file is missing or no longer matches its sha256."""


class WarmStartUnavailable(Exception):
    """The model version a run was to start from was deleted before the run began."""


def backbone_blob_key(sha256: str) -> str:
    return f"backbones/{sha256[:2]}/{sha256}.pt"


def _sha256_of(fileobj) -> str:
    digest = hashlib.sha256()
    fileobj.seek(0)
    for chunk in iter(lambda: fileobj.read(1 << 20), b""):
        digest.update(chunk)
    fileobj.seek(0)
    return digest.hexdigest()


def backbone_create(*, user, project, upload, name: str = "") -> Backbone:
    """Store an uploaded state_dict file (content-addressed) and queue the job that checks it.

    The web process never reads the file's contents beyond hashing them: the
    ``training.check_backbone`` job on a worker decides valid or invalid.

    e.g. ``backbone_create(user=u, project=p, upload=request.FILES["file"], name="ResNet-18 ImageNet")``
    """
    limit = settings.SAMPAN_BACKBONE_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise BackboneTooLarge(
            f"The file {upload.name!r} is {upload.size:,} bytes; a backbone may be at most "
            f"{limit:,} bytes (SAMPAN_BACKBONE_MAX_UPLOAD_BYTES).",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    if upload.size == 0:
        raise field_error("file", f"The file {upload.name!r} is empty.")
    filename = PurePosixPath(upload.name or "backbone.pt").name[-255:]
    name = (name or "").strip() or PurePosixPath(filename).stem or "backbone"
    if Backbone.objects.filter(project=project, name=name).exists():
        raise field_error("name", f"This project already has a backbone named {name!r}.")
    sha256 = _sha256_of(upload)
    same = Backbone.objects.filter(project=project, sha256=sha256).first()
    if same is not None:
        raise field_error("file", f"This file is already uploaded to the project as {same.name!r}.")
    key = backbone_blob_key(sha256)
    if not blob_reuse(key):
        saved = default_storage.save(key, File(upload, name=filename))
        if saved != key:  # a concurrent upload stored the same content first
            default_storage.delete(saved)
    try:
        with transaction.atomic():
            backbone = Backbone.objects.create(
                workspace_id=project.workspace_id,
                project=project,
                name=name,
                filename=filename,
                blob_key=key,
                sha256=sha256,
                size_bytes=upload.size,
                created_by=user if user.is_authenticated else None,
            )
            backbone.job = job_create(
                workspace=project.workspace,
                project=project,
                kind="training.check_backbone",
                params={"backbone": backbone.pk},
                user=user,
            )
            backbone.save(update_fields=["job"])
    except IntegrityError:  # a concurrent upload took the name
        raise field_error("name", f"This project already has a backbone named {name!r}.") from None
    return backbone


def backbone_fetch(*, backbone: Backbone, dest: Path) -> Path:
    """Copy the stored file to ``dest`` on this host (storage may be remote), checking its sha256.

    A ``dest`` already holding the right bytes (a retried job) is kept as it is.
    """
    if dest.is_file():
        with dest.open("rb") as existing:
            if _sha256_of(existing) == backbone.sha256:
                return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    try:
        with default_storage.open(backbone.blob_key, "rb") as source, partial.open("wb") as out:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    except FileNotFoundError:
        partial.unlink(missing_ok=True)
        raise BackboneUnavailable(
            f"The file of backbone {backbone.name!r} is missing from storage."
        ) from None
    if digest.hexdigest() != backbone.sha256:
        partial.unlink(missing_ok=True)
        raise BackboneUnavailable(
            f"The stored file of backbone {backbone.name!r} no longer matches its sha256."
        )
    os.replace(partial, dest)
    return dest


def backbone_record_check(
    *, backbone: Backbone, summary: dict[str, Any] | None = None, error: str = ""
) -> Backbone:
    """Record the outcome of a backbone's check: valid with ``summary``, or invalid with ``error``."""
    backbone.status = BackboneStatus.INVALID if error else BackboneStatus.VALID
    backbone.error = error[:4000]
    backbone.summary = {} if error else (summary or {})
    backbone.checked_at = timezone.now()
    Backbone.objects.filter(pk=backbone.pk).update(
        status=backbone.status, error=backbone.error, summary=backbone.summary, checked_at=backbone.checked_at
    )
    return backbone


@transaction.atomic
def backbone_delete(*, backbone: Backbone) -> None:
    """Delete a backbone; its file too unless another backbone holds the same content. Refused
    while a queued or running training job will read it. Model versions keep its name and sha256."""
    running = list(
        Job.objects.filter(
            kind="training.run",
            params__backbone=backbone.pk,
            status__in=[JobStatus.QUEUED, JobStatus.RUNNING],
        ).values_list("pk", flat=True)
    )
    if running:
        jobs = ", ".join(f"#{pk}" for pk in running)
        raise BackboneConflict(
            f"Backbone {backbone.name!r} is in use by training job {jobs}; cancel it or wait "
            "until it finishes."
        )
    key = backbone.blob_key
    backbone.delete()
    if not Backbone.objects.filter(blob_key=key).exists():
        transaction.on_commit(lambda: default_storage.delete(key))


def _check_backbone_for_run(
    *, backbone: Backbone, dataset_version: DatasetVersion, model: str | None
) -> None:
    if backbone.project_id != dataset_version.dataset.project_id:
        raise field_error(
            "backbone",
            f"Backbone {backbone.name!r} belongs to another project; upload it to "
            "the project of this dataset to train with it.",
        )
    if backbone.status == BackboneStatus.PENDING:
        raise field_error(
            "backbone",
            f"Backbone {backbone.name!r} is still being checked; start the run when its status is valid.",
        )
    if backbone.status == BackboneStatus.INVALID:
        raise field_error("backbone", f"Backbone {backbone.name!r} is invalid: {backbone.error}")
    fits = backbone.summary.get("fits", [])
    if model is not None and model not in fits:
        fitting = (
            f"it fits {', '.join(fits)}"
            if fits
            else "its keys and shapes match none of this template's models"
        )
        raise field_error(
            "backbone", f"Backbone {backbone.name!r} does not fit the {model} model of this run: {fitting}."
        )


# parameters that fix a network's shape or its input: a warm start keeps the parent's
WARM_START_FIXED_PARAMS = ("model", "image_size", "width", "embedding_dim")


def _check_warm_start_for_run(
    *, parent: ModelVersion, template, dataset_version: DatasetVersion, values: dict[str, Any]
) -> None:
    """A warm start's parent: a version of the dataset's project, of the same template (one that can
    start from weights), with its model file kept, and the same network (model, image size)."""
    if parent.project_id != dataset_version.dataset.project_id:
        raise field_error(
            "warm_start_from",
            f"Model version {parent.name} belongs to another project; a run starts from a version of "
            "its own project.",
        )
    if not template.warm_start:
        raise field_error(
            "warm_start_from",
            f"{template.title} models cannot start from a version's weights (their encoding and trees "
            "are fitted to the data); train from scratch with the version's parameters instead.",
        )
    if parent.template != template.name:
        raise field_error(
            "warm_start_from",
            f"Model version {parent.name} is a {parent.template} model; this run trains "
            f"{template.name}: a warm start needs the same template.",
        )
    if not parent.checkpoint_key:
        raise field_error(
            "warm_start_from",
            f"Model version {parent.name} has no model file to start from (an ONNX-only upload).",
        )
    if parent.source == "compressed":
        raise field_error(
            "warm_start_from",
            f"Model version {parent.name} is compressed (a pruned, distilled or int8 network the "
            "template's trainer does not build); retrain the version it was compressed from and "
            "compress the result.",
        )
    for name in WARM_START_FIXED_PARAMS:
        before, now = parent.params.get(name), values.get(name)
        if before is not None and now is not None and before != now:
            raise field_error(
                f"params.{name}",
                f"Model version {parent.name} was trained with {name} {before!r}; a warm start "
                f"keeps it (this run asks for {now!r}). Train from scratch to change it.",
            )


# templates whose trainer runs data-parallel (``train(..., processes=N)``, see workers.distributed)
DISTRIBUTED_TEMPLATES = ("image_classification",)


def _check_processes(*, processes: int, template) -> None:
    if processes == 1:
        return
    limit = settings.SAMPAN_MAX_PROCESSES
    if not 1 <= processes <= limit:
        raise field_error(
            "processes", f"processes must be between 1 and {limit} (SAMPAN_MAX_PROCESSES); got {processes}."
        )
    if template.name not in DISTRIBUTED_TEMPLATES:
        raise field_error(
            "processes",
            f"{template.title} trains in one process; processes > 1 (data-parallel training) works for "
            "image classification.",
        )


@transaction.atomic
def training_job_create(
    *,
    user,
    dataset_version: DatasetVersion,
    template: str | None = None,
    preset: str | None = None,
    params: dict[str, Any] | None = None,
    backbone: Backbone | None = None,
    warm_start_from: ModelVersion | None = None,
    adapt: bool = True,
    target_profile: int | str | None = None,
    processes: int = 1,
) -> Job:
    """Validate the run's parameters, data and backbone, then queue it (on `gpu` when a GPU worker
    is alive). ``backbone``: a valid backbone of the same project to initialise all but the head from.
    ``warm_start_from``: a model version of the project (same template and network) whose weights the
    run starts from; the head's rows are matched by class name (retrain from a version).
    ``adapt``: fit the preset to the dataset version and the workers online (the template's rule,
    workers.templates.recommend; the parameters in ``params`` are kept) and record the choices as the
    job's ``recommendation``; false runs the preset's values as declared.

    e.g. ``training_job_create(user=u, dataset_version=v, preset="fast", params={"epochs": 3})``

    ``target_profile`` (a builtin target's name or a workspace profile's id; image classification):
    before training, the worker fits image_size, width and int8 to the profile's budgets
    (``workers.target_fitting``) and records the choice in the model version's ``metrics.target``.

    ``processes`` (image classification): data-parallel ranks on the worker's host, 1 to
    ``SAMPAN_MAX_PROCESSES`` (``workers.distributed``; the same global batch, split between them).
    """
    from datasets.services import dataset_version_check_trainable

    chosen = template_named(template or dataset_version.dataset.task_type)
    if chosen.name != dataset_version.dataset.task_type:
        raise field_error(
            "template",
            f"Template {chosen.name!r} cannot train a {dataset_version.dataset.task_type!r} dataset.",
        )
    _check_processes(processes=processes, template=chosen)
    try:
        values = chosen.validate_params(preset, params or {})
    except TemplateParamError as exc:
        field = exc.field if exc.field == "preset" else f"params.{exc.field}"
        raise field_error(field, exc.message) from None
    recommendation = None
    if adapt:
        kept = dict(params or {})
        if backbone is not None or warm_start_from is not None:
            # the network stays the one the backbone or the parent version's weights fit
            network = {k: values[k] for k in WARM_START_FIXED_PARAMS if k in values}
            kept.update({k: v for k, v in network.items() if kept.get(k) is None})
        recommendation = preset_recommendation(
            template=chosen,
            preset=preset,
            dataset_version=dataset_version,
            hardware=hardware_profile(),
            overrides=kept,
        )
        values = dict(recommendation["values"])
    if backbone is not None:
        _check_backbone_for_run(backbone=backbone, dataset_version=dataset_version, model=values.get("model"))
    if warm_start_from is not None:
        if backbone is not None:
            raise field_error(
                "warm_start_from", "A run starts from a backbone or from a model version, not both."
            )
        _check_warm_start_for_run(
            parent=warm_start_from, template=chosen, dataset_version=dataset_version, values=values
        )
    dataset_version_check_trainable(version=dataset_version, min_per_class=chosen.data.min_samples_per_class)
    if processes > int(values.get("batch_size") or processes):
        raise field_error(
            "processes",
            f"processes {processes} is more than batch_size {values['batch_size']}: every process "
            "trains on a part of each batch.",
        )
    if target_profile is not None:
        from deploy.targets import target_profile_resolve

        if chosen.name != "image_classification":
            raise field_error(
                "target_profile",
                f"Fitting a model to a target works for image classification; {chosen.title} runs "
                "cannot take one (measure the model version on the target instead).",
            )
        profile, _ = target_profile_resolve(
            value=target_profile, workspace_id=dataset_version.dataset.workspace_id
        )
        if profile["latency_budget_ms"] is None and profile["size_budget_bytes"] is None:
            raise field_error(
                "target_profile",
                f"Target {profile['name']!r} has no latency or size budget to fit the model to; give it one.",
            )
    job_params: dict[str, Any] = {
        "dataset_version": dataset_version.pk,
        "template": chosen.name,
        "preset": values["preset"],
        "params": values,
    }
    if backbone is not None:
        job_params["backbone"] = backbone.pk
    if warm_start_from is not None:
        job_params["warm_start_from"] = warm_start_from.pk
    if recommendation is not None:
        job_params["recommendation"] = recommendation
    if target_profile is not None:
        job_params["target_profile"] = target_profile
    if processes > 1:
        job_params["processes"] = processes
    return job_create(
        workspace=dataset_version.dataset.workspace,
        project=dataset_version.dataset.project,
        kind="training.run",
        params=job_params,
        user=user,
    )


def model_version_retrain(
    *,
    user,
    parent: ModelVersion,
    dataset_version: DatasetVersion,
    preset: str | None = None,
    params: dict[str, Any] | None = None,
) -> Job:
    """Retrain from a version: a training job on ``dataset_version`` (of the parent's project) with
    the parent's template, warm-started from its weights. Without ``preset``, the run repeats the
    parent's parameters (``params`` override some); with one, the preset's values apply, but the
    network (model, image size, embedding size) stays the parent's.

    e.g. ``model_version_retrain(user=u, parent=v3, dataset_version=dv7, params={"epochs": 5})``
    """
    if dataset_version.dataset.project_id != parent.project_id:
        raise field_error(
            "dataset_version",
            f"Dataset version {dataset_version.pk} belongs to another project than model version "
            f"{parent.name}; retrain on a dataset of its project.",
        )
    template = template_named(parent.template)
    if not template.warm_start:
        raise field_error(
            "warm_start_from",
            f"{template.title} models cannot start from a version's weights (their encoding and trees "
            "are fitted to the data); train from scratch with the version's parameters instead.",
        )
    known = {p.name for p in template.params}
    inherited = {k: v for k, v in parent.params.items() if k in known}
    if parent.source != "trained":  # an upload's params describe its file: keep its network only
        size = (parent.preprocessing or {}).get("image_size")
        network = {
            "model": parent.params.get("architecture"),
            "image_size": size[0] if isinstance(size, list) and size else None,
        }
        inherited = {k: v for k, v in network.items() if k in known and v is not None}
    if preset is None:
        chosen_preset = parent.preset if parent.preset in {p.name for p in template.presets} else None
        values = {**inherited, **(params or {})}
    else:
        chosen_preset = preset
        fixed = {k: inherited[k] for k in WARM_START_FIXED_PARAMS if k in inherited}
        values = {**fixed, **(params or {})}
    return training_job_create(
        user=user,
        dataset_version=dataset_version,
        template=template.name,
        preset=chosen_preset,
        params=values,
        warm_start_from=parent,
    )


def _store(path: Path, key: str) -> tuple[str, str]:
    """Copy an artifact into the blob storage (shared between hosts); returns (key, sha256)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
        fh.seek(0)
        if default_storage.exists(key):
            default_storage.delete(key)
        stored = default_storage.save(key, File(fh, name=path.name))
    return stored, digest.hexdigest()


def _with_worker_class(runtime: dict[str, Any], *, job: Job) -> dict[str, Any]:
    """The run's runtime plus the kind of worker that ran it (``gpu:<name>``, ``cpu:<cores>``), so
    later estimates of training time use throughput measured on the same kind of worker."""
    devices = WorkerNode.objects.filter(hostname=job.lease_node).values_list("devices", flat=True).first()
    if not job.lease_node or devices is None:
        return runtime
    return {**runtime, "worker_class": worker_class_of(devices)}


def evaluation_headline(evaluation: dict[str, Any]) -> dict[str, Any]:
    """A model version's ``metrics.test``: a template's evaluation may name its own headline
    (regression: MAE, RMSE, R2); a classification report's is accuracy, F1 and top-k."""
    return evaluation.get("headline") or {
        "accuracy": evaluation["accuracy"],
        "macro_f1": evaluation["macro"]["f1"],
        "weighted_f1": evaluation["weighted"]["f1"],
        "top_k_accuracy": evaluation["top_k_accuracy"],
    }


@transaction.atomic
def model_version_record(
    *,
    job: Job,
    dataset_version: DatasetVersion,
    template: str,
    params: dict[str, Any],
    result: dict[str, Any],
    evaluation: dict[str, Any],
    checkpoint: Path,
    onnx: Path,
    backbone: Backbone | None = None,
    warm_start_from: ModelVersion | None = None,
) -> ModelVersion:
    """Record a finished training run as the project's next model version (V1, V2, ...); its
    lineage names the ``backbone`` or the model version (``warm_start_from``) the run started from,
    if any."""
    existing = ModelVersion.objects.filter(job=job).first()
    if existing is not None:  # a retried job that had already recorded its model
        return existing
    if job.project_id is None:
        raise ValueError(f"job {job.pk} belongs to no project")
    project = Project.objects.select_for_update().get(pk=job.project_id)
    number = (ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0) + 1
    prefix = f"models/project-{project.pk}/v{number}-job-{job.pk}"
    checkpoint_key, _ = _store(checkpoint, f"{prefix}/checkpoint.pt")
    onnx_key, onnx_sha = _store(onnx, f"{prefix}/model.onnx")
    headline = evaluation_headline(evaluation)
    return ModelVersion.objects.create(
        workspace_id=job.workspace_id,
        project=project,
        number=number,
        dataset_version=dataset_version,
        job=job,
        template=template,
        preset=params.get("preset", ""),
        params=params,
        code_version=code_version(),
        classes=result.get("classes", []),
        preprocessing=result.get("preprocessing", {}),
        backbone=None
        if backbone is None
        else {
            "id": backbone.pk,
            "name": backbone.name,
            "sha256": backbone.sha256,
            "tensors": (result.get("backbone") or {}).get("tensors"),
        },
        warm_start_from=warm_start_from,
        checkpoint_key=checkpoint_key,
        onnx_key=onnx_key,
        onnx_sha256=onnx_sha,
        metrics={
            "test": headline,
            "training": result.get("metrics", {}),
            "epochs": result.get("epochs"),
            "best_epoch": result.get("best_epoch"),
            "runtime": _with_worker_class(result.get("runtime", {}), job=job),
        },
        evaluation=evaluation,
        created_by=job.created_by,
    )


# --- running: the one train-evaluate path of training jobs, AutoML trials and report runs --------


@dataclass(frozen=True)
class TrainedRun:
    """What a template's trainer and evaluation produced in a job's run directory."""

    result: dict[str, Any]
    evaluation: dict[str, Any]
    run_dir: Path


def template_train_and_evaluate(
    *,
    job: Job,
    template,
    dataset_version: DatasetVersion,
    params: dict[str, Any],
    report: Report,
    backbone: Backbone | None = None,
    warm_start_from: ModelVersion | None = None,
) -> TrainedRun:
    """Train ``template`` with ``params`` on ``dataset_version`` in the job's run directory (kept
    across attempts, so a retry resumes) and evaluate the exported ONNX model on the test split.
    Storing the outcome is the caller's: a model version (``training_job_run``), a trial's artifacts
    (``automl.services.trial_run``) or a report run's metric.

    e.g. ``template_train_and_evaluate(job=j, template=registry.get("image_classification"),
    dataset_version=v, params={"epochs": 3, ...}, report=silent_report).evaluation["accuracy"]``
    """
    from datasets.services import dataset_version_manifest

    manifest = dataset_version_manifest(version=dataset_version)
    run_dir = run_dir_for(job)
    extra: dict[str, Any] = {}
    if job.params.get("processes", 1) > 1:  # data-parallel ranks on this host (workers.distributed)
        extra["processes"] = job.params["processes"]
    if backbone is not None:
        extra["backbone"] = backbone_fetch(backbone=backbone, dest=run_dir / "inputs" / "backbone.pt")
    if warm_start_from is not None:
        from datasets.services.versions import blob_local_path

        extra["warm_start"] = blob_local_path(
            warm_start_from.checkpoint_key, run_dir / "inputs" / "warm-start"
        )
    from training.checkpoint_mirror import RunMirror, run_restore

    # another host's attempt may have left checkpoints (and finished folds): resume from their mirror
    restored = run_restore(job=job, run_dir=run_dir, report=report)
    try:
        with RunMirror(job=job, run_dir=run_dir, restored=restored):
            result = template.load("train")(params, manifest, run_dir, report, **extra)
    except ValueError as exc:
        path = str(extra.get("backbone", ""))
        if backbone is None or path not in str(exc):
            raise
        # e.g. keys that do not fit the model: name the backbone, not the worker's file path
        raise type(exc)(str(exc).replace(path, f"backbone {backbone.name!r}")) from None
    evaluation = template.load("evaluate")(
        result["onnx"], manifest, preprocessing=result["preprocessing"], report=report
    )
    if result.get("cross_validation"):  # small data: the folds' spread rides in the report
        evaluation = {**evaluation, "cross_validation": result["cross_validation"]}
    return TrainedRun(result=result, evaluation=evaluation, run_dir=run_dir)


def training_job_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of a ``training.run`` job: train, evaluate, record the model version (once, even
    when an attempt is retried after recording). Returns the job's result."""
    backbone = None
    backbone_id = job.params.get("backbone")
    if backbone_id is not None:
        backbone = Backbone.objects.filter(pk=backbone_id).first()
        if backbone is None:
            raise BackboneUnavailable(f"Backbone #{backbone_id} was deleted before the run could read it.")
    warm_start_from = None
    parent_id = job.params.get("warm_start_from")
    if parent_id is not None:
        warm_start_from = ModelVersion.objects.filter(pk=parent_id).first()
        if warm_start_from is None:
            raise WarmStartUnavailable(
                f"Model version #{parent_id} was deleted before the run could start from it."
            )
    from training.checkpoint_mirror import checkpoint_mirror_forget

    template = registry.get(job.params["template"])
    version = DatasetVersion.objects.select_related("dataset").get(pk=job.params["dataset_version"])
    params, fit = job.params["params"], None
    if job.params.get("target_profile") is not None:  # fit the network to the target first
        from deploy.targets import target_fit_run

        params, fit = target_fit_run(job=job, dataset_version=version, params=params, report=report)
    run = template_train_and_evaluate(
        job=job,
        template=template,
        dataset_version=version,
        params=params,
        report=report,
        backbone=backbone,
        warm_start_from=warm_start_from,
    )
    evaluation, onnx = run.evaluation, Path(run.result["onnx"])
    if fit is not None:
        from deploy.targets import target_fit_finish

        fit, onnx, evaluation = target_fit_finish(
            job=job,
            fit=fit,
            result=run.result,
            evaluation=evaluation,
            dataset_version=version,
            template=template,
            report=report,
        )
    model_version = model_version_record(
        job=job,
        dataset_version=version,
        template=template.name,
        params=run.result["params"],
        result=run.result,
        evaluation=evaluation,
        checkpoint=Path(run.result["model"]),
        onnx=onnx,
        backbone=backbone,
        warm_start_from=warm_start_from,
    )
    if fit is not None:  # what was fitted to the target, and why, next to the metrics
        model_version.metrics = {**model_version.metrics, "target": fit}
        ModelVersion.objects.filter(pk=model_version.pk).update(metrics=model_version.metrics)
    checkpoint_mirror_forget(job=job)  # the model version is stored: nothing resumes this run
    return {
        "kind": "training_job_result",
        "version": 1,
        "model_version": model_version.pk,
        "name": model_version.name,
        "metrics": model_version.metrics,
        "resumed_from": run.result.get("resumed_from"),
        "run_dir": str(run.run_dir),
        **({"target_fit": fit} if fit is not None else {}),
    }


def backbone_check(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of a ``training.check_backbone`` job: read the stored file with weights_only=True
    on a worker and record valid (with its summary) or invalid (with the reason)."""
    from workers.image_classification.backbones import inspect_backbone
    from workers.image_classification.models import BackboneError

    backbone = Backbone.objects.filter(pk=job.params["backbone"]).first()
    if backbone is None:
        return {"backbone": job.params["backbone"], "deleted": True}
    report(f"reading {backbone.filename or backbone.name} with weights_only=True", fraction=0.0)
    with tempfile.TemporaryDirectory(prefix="sampan-backbone-") as tmp:
        path = Path(tmp) / "backbone.pt"
        try:
            summary = inspect_backbone(backbone_fetch(backbone=backbone, dest=path))
        except BackboneUnavailable as exc:
            backbone = backbone_record_check(backbone=backbone, error=str(exc))
        except BackboneError as exc:  # refused or unreadable: the message names the file, not our temp path
            error = str(exc).replace(str(path), backbone.filename or backbone.name)
            backbone = backbone_record_check(backbone=backbone, error=error)
        except Exception as exc:  # never leave a backbone pending: record the failure, then fail the job
            backbone_record_check(backbone=backbone, error=f"The check failed: {type(exc).__name__}: {exc}")
            raise
        else:
            backbone = backbone_record_check(backbone=backbone, summary=summary)
    return {
        "backbone": backbone.pk,
        "status": backbone.status,
        "summary": backbone.summary,
        "error": backbone.error,
    }
