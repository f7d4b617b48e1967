"""Compressing a model version: the checks and presets of a compression run, the ``training.compress``
job's body (the compute plane's ``workers.compression.compress``), each variant recorded as a
compressed model version with its lineage, and browser latencies posted by the UI.

e.g. ``compression_create(user=u, model_version=v3, preset="smaller")`` -> a ``Compression`` whose
job makes an int8 variant of V3 and records it as V4 (``compressed_from`` V3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from config.exceptions import Conflict, DomainError, InvalidInput, field_error
from django.apps import apps
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from jobs.models import Job
from jobs.services import job_create
from workspaces.models import Project

from training.models import Compression, ModelVersion, ModelVersionSource
from training.services import _store, code_version, evaluation_headline, run_dir_for
from workers.contracts.compression import COMPRESSION_SPEC_VERSION, CompressionRecipe, CompressionSpec
from workers.contracts.compression_report import (
    COMPRESSION_LINEAGE_VERSION,
    COMPRESSION_REPORT_VERSION,
    BrowserLatency,
    CompressionLineage,
    CompressionRunReport,
)
from workers.progress import Report

PRESETS = ("smaller", "balanced", "faster", "distilled")
MAX_RECIPES = 8
# "faster" without a latency budget on the target: keep this fraction of the parent's FLOPs
FASTER_FLOPS_RATIO = 0.25
# "distilled": the parent's architecture at this width multiplier
DISTILLED_WIDTH = 0.5


class CompressionNotSupported(InvalidInput):
    default_code = "compression_not_supported"


class CompressionBadRecipe(InvalidInput):
    default_code = "compression_bad_recipe"


class TeacherMismatch(InvalidInput):
    default_code = "teacher_mismatch"


class CompressionNotFinished(Conflict):
    default_code = "compression_not_finished"


def _refused(error: type[DomainError], field: str, message: str) -> DomainError:
    return field_error(field, message, error=error)


# --- recipes and presets --------------------------------------------------------------------------


def preset_recipes(*, preset: str, parent: ModelVersion, target: dict[str, Any]) -> list[CompressionRecipe]:
    """The recipes a preset stands for: smaller = int8 (static, QAT when static loses more than the
    tolerance); balanced = half the FLOPs pruned, then int8; faster = pruned until the target's
    latency budget is met (a quarter of the FLOPs kept when the target has none), then int8;
    distilled = the parent's architecture at half width learning from the parent, then int8."""
    if preset == "smaller":
        return [{"name": "int8", "quantize": "auto"}]
    if preset == "balanced":
        return [{"name": "pruned-50-int8", "prune": {"flops_ratio": 0.5}, "quantize": "auto"}]
    if preset == "faster":
        budget = target.get("latency_budget_ms")
        if budget:
            return [
                {
                    "name": f"pruned-{budget:g}ms-int8",
                    "prune": {"latency_ms": float(budget)},
                    "quantize": "auto",
                }
            ]
        kept = round(100 * (1 - FASTER_FLOPS_RATIO))
        return [
            {"name": f"pruned-{kept}-int8", "prune": {"flops_ratio": FASTER_FLOPS_RATIO}, "quantize": "auto"}
        ]
    if preset == "distilled":
        model = (parent.params or {}).get("model")
        if not model:
            raise _refused(
                CompressionNotSupported,
                "preset",
                f"Model version {parent.name} names no architecture to shrink into a student; give "
                "recipes with distill.student instead.",
            )
        return [
            {
                "name": "distilled-int8",
                "distill": {"student": f"{model}@{DISTILLED_WIDTH:g}"},
                "quantize": "auto",
            }
        ]
    raise _refused(
        CompressionBadRecipe, "preset", f"Unknown preset {preset!r}; choose one of {', '.join(PRESETS)}."
    )


def _number(value: Any, field: str, *, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _refused(
            CompressionBadRecipe, field, f"Must be a number from {low:g} to {high:g} (got {value!r})."
        )
    return float(value)


def recipes_checked(recipes: Any) -> list[CompressionRecipe]:
    """``recipes`` as well-formed ``CompressionRecipe``s (the compute plane's own check,
    ``workers.compression.validate_spec``), or a 400 ``compression_bad_recipe`` naming the recipe
    and the problem.

    e.g. ``recipes_checked([{"name": "pruned-50", "prune": {"flops_ratio": 0.5}}])``"""
    from workers.compression import CompressionError, validate_spec

    if isinstance(recipes, list) and len(recipes) > MAX_RECIPES:
        raise _refused(
            CompressionBadRecipe, "recipes", f"At most {MAX_RECIPES} recipes per run (got {len(recipes)})."
        )
    try:
        spec = validate_spec(
            {"kind": "compression_spec", "version": COMPRESSION_SPEC_VERSION, "recipes": recipes}
        )
    except CompressionError as exc:
        raise _refused(CompressionBadRecipe, "recipes", f"{exc}.") from None
    return [dict(recipe) for recipe in spec["recipes"]]  # type: ignore[misc]


def _with_default_students(recipes: Any, *, parent: ModelVersion) -> Any:
    """An image classifier's distill recipe without a student gets the distilled preset's: the
    parent's architecture at half width (the web app's "default" student)."""
    model = (parent.params or {}).get("model")
    if parent.template != "image_classification" or not model or not isinstance(recipes, list):
        return recipes
    return [
        {**recipe, "distill": {**recipe["distill"], "student": f"{model}@{DISTILLED_WIDTH:g}"}}
        if isinstance(recipe, dict)
        and isinstance(recipe.get("distill"), dict)
        and not recipe["distill"].get("student")
        else recipe
        for recipe in recipes
    ]


def target_for(*, target: Any, workspace_id: int) -> dict[str, Any]:
    """The target profile latency is measured with: a builtin's name (``worker-cpu``), or the id or
    name of a profile of the workspace (``deploy.TargetProfile``); None: the builtin ``worker-cpu``."""
    from workers.deployment_targets import BUILTIN_TARGETS, TargetProfileError, target_profile

    if target is None or target == "":
        return dict(BUILTIN_TARGETS["worker-cpu"])
    if isinstance(target, str) and target in BUILTIN_TARGETS:
        return dict(BUILTIN_TARGETS[target])
    profiles = apps.get_model("deploy", "TargetProfile").objects.filter(workspace_id=workspace_id)
    if isinstance(target, int) or (isinstance(target, str) and target.isdigit()):
        row = profiles.filter(pk=int(target)).first()
    else:
        row = profiles.filter(name=str(target)).first()
    if row is None:
        raise field_error(
            "target_profile",
            f"No target profile {target!r} in this workspace; built-in targets: "
            f"{', '.join(BUILTIN_TARGETS)}.",
        )
    try:
        return dict(target_profile(row.as_profile()))
    except TargetProfileError as exc:
        raise field_error("target_profile", exc.message) from None


def _check_parent(parent: ModelVersion) -> None:
    from workers.compression import COMPRESSORS  # names only: no torch

    if parent.template not in COMPRESSORS:
        raise _refused(
            CompressionNotSupported,
            "model_version",
            f"{parent.template} models cannot be compressed; compression applies to "
            f"{', '.join(COMPRESSORS)}.",
        )
    if not parent.checkpoint_key:
        raise _refused(
            CompressionNotSupported,
            "model_version",
            f"Model version {parent.name} has no model file to compress (an ONNX-only upload or an "
            "int8 variant); compress the version it came from.",
        )
    if parent.dataset_version_id is None:
        raise _refused(
            CompressionNotSupported,
            "model_version",
            f"Model version {parent.name} has no dataset version: variants are compared with it on its "
            "test split.",
        )


def _check_teacher(*, teacher: ModelVersion, parent: ModelVersion) -> None:
    if teacher.project_id != parent.project_id:
        raise _refused(
            TeacherMismatch,
            "teacher",
            f"Model version {teacher.name} belongs to another project than {parent.name}.",
        )
    if teacher.template != parent.template:
        raise _refused(
            TeacherMismatch,
            "teacher",
            f"Model version {teacher.name} is a {teacher.template} model; {parent.name} is "
            f"{parent.template}: a teacher has the same template.",
        )
    if list(teacher.classes or []) != list(parent.classes or []):
        raise _refused(
            TeacherMismatch,
            "teacher",
            f"Model version {teacher.name} predicts other classes (or another order) than {parent.name}.",
        )
    if not teacher.checkpoint_key:
        raise _refused(
            TeacherMismatch, "teacher", f"Model version {teacher.name} has no model file to teach with."
        )


@transaction.atomic
def compression_create(
    *,
    user,
    model_version: ModelVersion,
    preset: str | None = None,
    recipes: list[dict[str, Any]] | None = None,
    teacher: ModelVersion | None = None,
    target: str | int | None = None,
    max_metric_drop: float | None = None,
    seed: int | None = None,
) -> Compression:
    """Check and queue a compression run of ``model_version`` (a ``training.compress`` job on the gpu
    queue when a GPU worker is up): ``recipes``, or a ``preset`` (smaller, balanced, faster,
    distilled; smaller by default), latency measured with ``target`` (a builtin name or a workspace
    profile's id or name). 400 ``compression_not_supported`` / ``compression_bad_recipe`` /
    ``teacher_mismatch`` name what is wrong.

    e.g. ``compression_create(user=u, model_version=v3, preset="balanced", target="worker-cpu")``
    """
    _check_parent(model_version)
    if preset is not None and recipes is not None:
        raise _refused(CompressionBadRecipe, "preset", "Give recipes or a preset, not both.")
    profile = target_for(target=target, workspace_id=model_version.workspace_id)
    if recipes is not None:
        checked = recipes_checked(_with_default_students(recipes, parent=model_version))
    else:
        checked = preset_recipes(preset=preset or "smaller", parent=model_version, target=profile)
    if teacher is not None:
        if not any("distill" in recipe for recipe in checked):
            raise _refused(
                CompressionBadRecipe, "teacher", "A teacher is for distillation; no recipe distills."
            )
        _check_teacher(teacher=teacher, parent=model_version)
    spec: CompressionSpec = {
        "kind": "compression_spec",
        "version": COMPRESSION_SPEC_VERSION,
        "recipes": checked,
        "target": profile,  # type: ignore[typeddict-item]
    }
    if max_metric_drop is not None:
        spec["max_metric_drop"] = _number(max_metric_drop, "max_metric_drop", low=0.0, high=1.0)
    if seed is not None:
        spec["seed"] = seed
    compression = Compression.objects.create(
        workspace_id=model_version.workspace_id,
        project_id=model_version.project_id,
        parent=model_version,
        teacher=teacher,
        preset=preset or ("" if recipes is not None else "smaller"),
        spec=dict(spec),
        created_by=user if user is not None and user.is_authenticated else None,
    )
    compression.job = job_create(
        workspace=model_version.workspace,
        project=model_version.project,
        kind="training.compress",
        params={
            "model_version": model_version.pk,
            "spec": dict(spec),
            "teacher": teacher.pk if teacher is not None else None,
            "compression": compression.pk,
        },
        user=user,
    )
    compression.save(update_fields=["job"])
    return compression


# --- the job --------------------------------------------------------------------------------------


class CompressionParentDeleted(Exception):
    """The model version to compress (or its teacher) was deleted before the job ran."""


def compression_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of a ``training.compress`` job: fetch the parent's (and teacher's) files, run
    ``workers.compression.compress`` in the job's run directory, record each variant as a compressed
    model version and the report, all at once (a retried job that had recorded them returns them)."""
    from datasets.services import dataset_version_manifest
    from datasets.services.versions import blob_local_path

    from workers.compression import compress

    compression = (
        Compression.objects.select_related("parent", "teacher").filter(pk=job.params["compression"]).first()
    )
    if compression is None or compression.parent is None:
        raise CompressionParentDeleted(
            f"Compression #{job.params['compression']} or its model version was deleted."
        )
    if compression.report is not None:
        return _job_result(compression)
    parent = compression.parent
    if job.params.get("teacher") is not None and compression.teacher is None:
        raise CompressionParentDeleted(f"Teacher model version #{job.params['teacher']} was deleted.")
    run_dir = run_dir_for(job)
    inputs = run_dir / "inputs"
    if parent.dataset_version is None:
        raise CompressionParentDeleted(f"The dataset version of model version {parent.name} was deleted.")
    manifest = dataset_version_manifest(version=parent.dataset_version)
    teacher_checkpoint = None
    if compression.teacher is not None:
        teacher_checkpoint = Path(blob_local_path(compression.teacher.checkpoint_key, inputs / "teacher"))
    result = compress(
        template=parent.template,
        parent_checkpoint=Path(blob_local_path(parent.checkpoint_key, inputs / "parent")),
        parent_onnx=Path(blob_local_path(parent.onnx_key, inputs / "parent")),
        manifest=dict(manifest),
        spec=compression.spec,
        out_dir=run_dir / "variants",
        report=report,
        teacher_checkpoint=teacher_checkpoint,
    )
    return _job_result(compression_record(compression=compression, result=dict(result)))


def _job_result(compression: Compression) -> dict[str, Any]:
    report = compression.report or {}
    return {
        "compression": compression.pk,
        "model_versions": [variant["model_version"] for variant in report.get("variants", [])],
        "skipped": len(report.get("skipped", [])),
    }


@transaction.atomic
def compression_record(*, compression: Compression, result: dict[str, Any]) -> Compression:
    """Record a compression result (``workers.contracts.compression.CompressionResult``): each
    variant as the project's next model version (source compressed, ``compressed_from`` the parent,
    its lineage), and the report with the model versions in place of the files."""
    compression = Compression.objects.select_for_update().get(pk=compression.pk)
    if compression.report is not None:
        return compression
    parent = compression.parent
    project = Project.objects.select_for_update().get(pk=compression.project_id)
    number = ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0
    reported = []
    for variant in result["variants"]:
        number += 1
        prefix = f"models/project-{project.pk}/v{number}-compression-{compression.pk}"
        checkpoint_key = ""
        if variant.get("checkpoint"):
            checkpoint_key, _ = _store(Path(variant["checkpoint"]), f"{prefix}/checkpoint.pt")
        onnx_key, onnx_sha = _store(Path(variant["onnx"]), f"{prefix}/model.onnx")
        lineage: CompressionLineage = {
            "kind": "compression_lineage",
            "version": COMPRESSION_LINEAGE_VERSION,
            "parent": parent.pk,
            "teacher": compression.teacher_id,
            "recipe": variant["recipe"],
            "compression": compression.pk,
        }
        version = ModelVersion.objects.create(
            workspace_id=compression.workspace_id,
            project=project,
            number=number,
            source=ModelVersionSource.COMPRESSED,
            dataset_version_id=parent.dataset_version_id,
            template=parent.template,
            preset=parent.preset,
            params={**parent.params, **(variant.get("params") or {})},
            code_version=code_version(),
            classes=variant.get("classes") or parent.classes,
            preprocessing=variant.get("preprocessing") or parent.preprocessing,
            checkpoint_key=checkpoint_key,
            onnx_key=onnx_key,
            onnx_sha256=onnx_sha,
            compressed_from=parent,
            lineage=dict(lineage),
            metrics={"test": evaluation_headline(variant["evaluation"])},
            evaluation=variant["evaluation"],
            created_by=compression.created_by,
        )
        reported.append(
            {
                "name": variant["name"],
                "recipe": variant["recipe"],
                "model_version": version.pk,
                "model_version_name": version.name,
                "summary": variant["summary"],
                "notes": list(variant.get("notes") or []),
            }
        )
    target = (compression.spec.get("target") or {}).get("name", "worker-cpu")
    report: CompressionRunReport = {
        "kind": "compression_report",
        "version": COMPRESSION_REPORT_VERSION,
        "template": result.get("template", parent.template),
        "target": target,
        "parent": {  # type: ignore[typeddict-item]  # the worker's VariantSummary, named
            **result["parent"],
            "model_version": parent.pk,
            "model_version_name": parent.name,
        },
        "variants": reported,  # type: ignore[typeddict-item]
        "skipped": list(result.get("skipped") or []),
        "browser_latency": [],
    }
    compression.report = dict(report)
    compression.save(update_fields=["report"])
    return compression


# --- browser latency ------------------------------------------------------------------------------


@transaction.atomic
def compression_browser_latency_add(
    *,
    compression: Compression,
    model_version: int,
    median_ms: float,
    p90_ms: float,
    runs: int,
    user_agent: str,
    backend: str = "wasm",
) -> Compression:
    """Store a latency measured in a browser with onnxruntime-web for the parent or a variant of a
    finished compression run (``report.browser_latency``; one entry per model version and browser,
    the newest kept)."""
    compression = Compression.objects.select_for_update().get(pk=compression.pk)
    if compression.report is None:
        raise CompressionNotFinished(
            "The compression run has not finished: measure its variants once they are recorded.",
            code="compression_not_finished",
        )
    report = dict(compression.report)
    known = {report["parent"]["model_version"]} | {v["model_version"] for v in report["variants"]}
    if model_version not in known:
        raise field_error(
            "model_version",
            f"Model version #{model_version} is neither the parent nor a variant of this compression run.",
        )
    entry: BrowserLatency = {
        "model_version": model_version,
        "median_ms": float(median_ms),
        "p90_ms": float(p90_ms),
        "runs": int(runs),
        "user_agent": user_agent[:400],
        "backend": "wasm",
        "measured_at": timezone.now().isoformat(),
    }
    kept = [
        b
        for b in report.get("browser_latency", [])
        if not (b["model_version"] == model_version and b["user_agent"] == entry["user_agent"])
    ]
    report["browser_latency"] = [*kept, dict(entry)]
    compression.report = report
    compression.save(update_fields=["report"])
    return compression
