"""Writes for studies: create, schedule trials as jobs, record what trials report, pause, resume,
stop, promote the best trial, and the honest-lift report.

The scheduler is ``study_schedule``: under a row lock on the study it settles trials whose job
ended without telling (a worker lost for good), keeps ``parallelism`` trials in flight while the
budget lasts, and finishes the study. It runs when a study starts or resumes, when a trial ends
(called from the trial's task), and periodically (``automl.reconcile``), never by a task waiting
on another.
"""

from __future__ import annotations

import logging
import math
import tempfile
import uuid
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from config.exceptions import Conflict, field_error
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from jobs.models import FINISHED, Job
from jobs.runner import JobPreempted, LeaseLost
from jobs.services import job_cancel, job_create

from automl import custom, engine
from automl.models import (
    CUSTOM_TEMPLATE,
    PrunerKind,
    ReportRole,
    ReportRun,
    SamplerKind,
    Study,
    StudyStatus,
    Trial,
    TrialState,
)
from automl.search_space import QUANTIZATION, QUANTIZATION_CHOICES, search_space_validate
from workers.contracts.templates import SearchDimension
from workers.progress import JobCancelled, Report
from workers.templates import TemplateParamError, registry

logger = logging.getLogger("sampan.automl")

MAX_TRIALS = 10_000
MAX_PARALLELISM = 256
MAX_REPORT_SEEDS = 10


def test_metric_name(template: str) -> str:
    """The evaluation's headline metric of a template's models, reported by the lift report and
    each trial: test accuracy for classifiers, test mAP@.5 for detectors, test MASE for forecasters."""
    if template == "object_detection":
        return "map50"
    if template == "time_series_forecasting":
        return "mase"
    return "accuracy"


def test_headline(evaluation: dict[str, Any]) -> dict[str, float | None]:
    """A completed trial's headline test metrics, by the report's kind."""
    if evaluation.get("kind") == "detection_report":
        return {"map": evaluation.get("map"), "map50": evaluation.get("map50")}
    if evaluation.get("kind") == "forecast_report":
        headline = evaluation.get("headline") or {}
        return {
            "mase": headline.get("mase"),
            "smape": headline.get("smape"),
            "skill": evaluation.get("skill"),
        }
    return {"accuracy": evaluation.get("accuracy"), "macro_f1": (evaluation.get("macro") or {}).get("f1")}


def test_metric_value(template: str, evaluation: dict[str, Any]) -> float | None:
    """The value of :func:`test_metric_name` in an evaluation report (a forecast report holds it in
    its ``headline``)."""
    name = test_metric_name(template)
    value = test_headline(evaluation).get(name) if evaluation.get("kind") == "forecast_report" else None
    return value if value is not None else evaluation.get(name)


class StudyConflict(Conflict):
    default_code = "study_conflict"


def template_data(study: Study):
    """A template study's dataset version (always set; only a custom-code study may have none)."""
    if study.dataset_version is None:
        raise StudyConflict(f"Study {study.pk} runs custom code; it has no template run to train.")
    return study.dataset_version


# --- search spaces ----------------------------------------------------------------------------


def default_search_space(template_name: str) -> list[SearchDimension]:
    return [dim.as_dict() for dim in registry.get(template_name).search_space]


# --- objectives, constraints, targets -------------------------------------------------------

DEPLOYMENT_METRICS = ("latency_ms", "size_bytes")
DEFAULT_TARGET = "worker-cpu"
MAX_OBJECTIVES = 3


def _metric_names(template) -> list[str]:
    return [template.objective["metric"], *DEPLOYMENT_METRICS]


def objectives_validate(*, template, objectives: Any) -> list[dict[str, str]] | None:
    """``[{metric, direction?}]``, 1 to 3, each metric once: the template's objective metric (its
    direction by default), ``latency_ms`` or ``size_bytes`` (minimize by default). None: the
    template's single objective."""
    if objectives is None:
        return None
    if not isinstance(objectives, list) or not 1 <= len(objectives) <= MAX_OBJECTIVES:
        raise field_error("objectives", f"Give 1 to {MAX_OBJECTIVES} objectives.")
    names = _metric_names(template)
    clean: list[dict[str, str]] = []
    for i, goal in enumerate(objectives):
        where = f"objectives[{i}]"
        if not isinstance(goal, dict) or not isinstance(goal.get("metric"), str):
            raise field_error(f"{where}.metric", f"Give an object with a metric: one of {', '.join(names)}.")
        metric = goal["metric"]
        if metric not in names:
            raise field_error(f"{where}.metric", f"Unknown metric {metric!r}; one of {', '.join(names)}.")
        if any(c["metric"] == metric for c in clean):
            raise field_error(f"{where}.metric", f"{metric!r} appears twice.")
        default = template.objective["direction"] if metric == names[0] else "minimize"
        direction = goal.get("direction", default)
        if direction not in ("maximize", "minimize"):
            raise field_error(f"{where}.direction", "Must be maximize or minimize.")
        clean.append({"metric": metric, "direction": direction})
    return clean


def constraints_validate(
    *, template, constraints: Any, profile: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """``[{metric, op: "<=" | ">=", value}]`` over the same metrics as objectives; the target
    profile's budgets (latency, size) are added as ``<=`` constraints unless one is given."""
    names = _metric_names(template)
    clean: list[dict[str, Any]] = []
    if constraints is not None and not isinstance(constraints, list):
        raise field_error("constraints", "Give a list of {metric, op, value}.")
    for i, limit in enumerate(constraints or []):
        where = f"constraints[{i}]"
        if not isinstance(limit, dict):
            raise field_error(where, "Give an object {metric, op, value}.")
        metric, op, value = limit.get("metric"), limit.get("op", "<="), limit.get("value")
        if metric not in names:
            raise field_error(f"{where}.metric", f"Unknown metric {metric!r}; one of {', '.join(names)}.")
        if op not in ("<=", ">="):
            raise field_error(f"{where}.op", 'Must be "<=" or ">=".')
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise field_error(f"{where}.value", f"Must be a number, got {value!r}.")
        clean.append({"metric": metric, "op": op, "value": float(value)})
    if len(clean) > 8:
        raise field_error("constraints", "At most 8 constraints.")
    if profile is not None:
        given = {c["metric"] for c in clean}
        if profile.get("latency_budget_ms") is not None and "latency_ms" not in given:
            clean.append({"metric": "latency_ms", "op": "<=", "value": float(profile["latency_budget_ms"])})
        if profile.get("size_budget_bytes") is not None and "size_bytes" not in given:
            clean.append({"metric": "size_bytes", "op": "<=", "value": float(profile["size_budget_bytes"])})
    return clean


def _space_for_target(
    *, template, space: list[SearchDimension], fixed: dict[str, Any]
) -> tuple[list[SearchDimension], list[str]]:
    """The default search space of a study that measures latency or size, adapted to it: the
    network's width (where the template has one) and int8 (where the workers can quantize) are
    searched too, so the study can reach networks that meet the target. Returns the space and what
    was changed, in sentences (``Study.space_notes``)."""
    notes = []
    names = {p.name for p in template.params}
    if "width" in names and "width" not in fixed and all(d["name"] != "width" for d in space):
        space = [*space, {"name": "width", "type": "float", "low": 0.25, "high": 1.0, "log": False}]
        notes.append("width (0.25-1.0) is searched: narrower networks are faster and smaller on the target.")
    if quantizer_installed():
        space = [*space, {"name": QUANTIZATION, "type": "categorical", "choices": list(QUANTIZATION_CHOICES)}]
        notes.append("quantization (none, int8) is searched: int8 models are smaller and often faster.")
    return space, notes


def quantizer_installed() -> bool:
    """Whether the compute plane has ``workers.compression.quantize_onnx`` (looked up without
    importing it: the web process never imports onnxruntime)."""
    import importlib.util

    spec = importlib.util.find_spec("workers.compression")
    if spec is None or not spec.submodule_search_locations:
        return False
    from pathlib import Path as _Path

    return any(
        "def quantize_onnx" in path.read_text(errors="replace")
        for folder in spec.submodule_search_locations
        for path in _Path(folder).glob("*.py")
    )


def constraint_values(constraints: list[dict[str, Any]], measured: dict[str, float | None]) -> list[float]:
    """Optuna's convention: ``<= 0`` is feasible (``x <= v`` -> ``x - v``; ``x >= v`` -> ``v - x``);
    a metric not measured violates its constraint."""
    found = []
    for limit in constraints:
        value = measured.get(limit["metric"])
        if value is None:
            found.append(1.0)
        elif limit["op"] == "<=":
            found.append(float(value) - limit["value"])
        else:
            found.append(limit["value"] - float(value))
    return found


# --- creating and scheduling ------------------------------------------------------------------


@transaction.atomic
def study_create(
    *,
    user,
    dataset_version,
    name: str = "",
    template: str | None = None,
    preset: str | None = None,
    fixed_params: dict[str, Any] | None = None,
    search_space: Any = None,
    sampler: str = SamplerKind.SDE,
    pruner: str = PrunerKind.MEDIAN,
    n_trials: int | None = None,
    timeout_seconds: int | None = None,
    parallelism: int | None = None,
    seed: int = 0,
    report_seeds: int = 3,
    objectives: Any = None,
    constraints: Any = None,
    target_profile: Any = None,
) -> Study:
    """Validate a study, record it in Optuna's storage and start its first ``parallelism`` trials.
    A budget left out (``n_trials``, ``parallelism``) is the one that fits the workers online
    (``automl.selectors.study_defaults``).

    e.g. ``study_create(user=u, dataset_version=v, n_trials=20, parallelism=4,
    fixed_params={"epochs": 5}, sampler="sde", pruner="median")``

    Deployment-aware: ``objectives=[{"metric": "val_acc"}, {"metric": "latency_ms"}]`` (1-3 of the
    template's metric, ``latency_ms`` on the target, ``size_bytes``), ``constraints=[{"metric":
    "latency_ms", "op": "<=", "value": 5}]`` and ``target_profile`` (a builtin's name or a workspace
    profile's id; its budgets become constraints). Such a study's trials measure their ONNX after
    training (and quantize it when the space searches ``quantization``); a multi-objective study does
    not prune (Optuna prunes single-objective studies only).
    """
    from datasets.services import dataset_version_check_trainable
    from training.services import template_named

    chosen = template_named(template or dataset_version.dataset.task_type)
    if chosen.name != dataset_version.dataset.task_type:
        raise field_error(
            "template",
            f"Template {chosen.name!r} cannot train a {dataset_version.dataset.task_type!r} dataset.",
        )
    preset = preset or chosen.default_preset
    fixed = dict(fixed_params or {})
    fixed.setdefault("seed", seed)
    try:
        chosen.validate_params(preset, fixed)
    except TemplateParamError as exc:
        field = exc.field if exc.field == "preset" else f"fixed_params.{exc.field}"
        raise field_error(field, exc.message) from None
    defaulted = search_space is None
    if search_space is None:  # the template's default space, less what the user fixed
        search_space = [dim for dim in default_search_space(chosen.name) if dim["name"] not in fixed]
        if not search_space:
            raise field_error(
                "fixed_params",
                "Every parameter of the default search space is fixed: leave one out or give a search_space.",
            )
    space = search_space_validate(
        template=chosen, preset=preset, fixed_params=fixed, search_space=search_space
    )
    if n_trials is None or parallelism is None:
        from automl.selectors import study_defaults

        fitted = study_defaults(template=chosen.name)
        n_trials = fitted["n_trials"] if n_trials is None else n_trials
        parallelism = fitted["parallelism"] if parallelism is None else parallelism
    if sampler not in SamplerKind.values:
        raise field_error("sampler", f"Must be one of {', '.join(SamplerKind.values)}.")
    if pruner not in PrunerKind.values:
        raise field_error("pruner", f"Must be one of {', '.join(PrunerKind.values)}.")
    for field, value, high in (
        ("n_trials", n_trials, MAX_TRIALS),
        ("parallelism", parallelism, MAX_PARALLELISM),
        ("report_seeds", report_seeds, MAX_REPORT_SEEDS),
    ):
        low = 0 if field == "report_seeds" else 1
        if not isinstance(value, int) or not low <= value <= high:
            raise field_error(field, f"Must be an integer between {low} and {high}.")
    if timeout_seconds is not None and (not isinstance(timeout_seconds, int) or timeout_seconds < 1):
        raise field_error("timeout_seconds", "Must be a positive number of seconds, or null for no limit.")
    dataset_version_check_trainable(version=dataset_version, min_per_class=chosen.data.min_samples_per_class)
    goals = objectives_validate(template=chosen, objectives=objectives)
    profile, profile_row = None, None
    if target_profile is not None:
        from deploy.targets import target_profile_resolve

        profile, profile_row = target_profile_resolve(
            value=target_profile, workspace_id=dataset_version.dataset.workspace_id
        )
    limits = constraints_validate(template=chosen, constraints=constraints, profile=profile)
    deployment_metrics = {g["metric"] for g in goals or []} | {c["metric"] for c in limits}
    if profile is None and (deployment_metrics & {"latency_ms", "size_bytes"}):
        from deploy.targets import target_profile_resolve

        profile, profile_row = target_profile_resolve(value=DEFAULT_TARGET, workspace_id=0)
    notes: list[str] = []
    if defaulted and (deployment_metrics & {"latency_ms", "size_bytes"}):
        space, notes = _space_for_target(template=chosen, space=space, fixed=fixed)
    if goals and goals[0]["metric"] in DEPLOYMENT_METRICS:
        pruner = PrunerKind.NONE  # the pruner reads validation curves, not a latency
    if goals is not None and len(goals) > 1:
        if sampler == SamplerKind.CMAES:
            raise field_error("sampler", "CMA-ES optimizes one objective; use sde, nsga2, tpe, gp or random.")
        pruner = PrunerKind.NONE  # Optuna's pruners judge one objective
        report_seeds = 0  # the honest-lift report compares one best trial; a front has no single best
    study = Study.objects.create(
        workspace=dataset_version.dataset.workspace,
        project=dataset_version.dataset.project,
        name=(name or "").strip()[:200]
        or f"{chosen.title} on {dataset_version.dataset.name} {dataset_version.name}",
        dataset_version=dataset_version,
        template=chosen.name,
        preset=preset,
        fixed_params=fixed,
        search_space=space,
        objective=dict(goals[0]) if goals else dict(chosen.objective),
        objectives=goals if goals is not None and len(goals) > 1 else [],
        constraints=limits,
        target_profile=profile,
        target_profile_ref=profile_row,
        space_notes=notes,
        sampler=sampler,
        pruner=pruner,
        n_trials=n_trials,
        timeout_seconds=timeout_seconds,
        parallelism=parallelism,
        seed=seed,
        report_seeds=report_seeds,
        optuna_name=f"sampan-{uuid.uuid4().hex}",
        created_by=user if user.is_authenticated else None,
        started_at=timezone.now(),
    )
    engine.optuna_study_create(study)
    _schedule_locked(study)
    return study


@transaction.atomic
def study_create_custom(
    *,
    user,
    project,
    code_archive,
    search_space: Any,
    objective: Any,
    n_trials: int,
    name: str = "",
    entry_point: str | None = None,
    args: Any = None,
    requirements: str | None = None,
    dataset_version=None,
    limits: Any = None,
    network: bool = False,
    sampler: str = SamplerKind.TPE,
    pruner: str = PrunerKind.MEDIAN,
    timeout_seconds: int | None = None,
    parallelism: int = 1,
    seed: int = 0,
) -> Study:
    """A custom-code study (``template="custom"``): each trial runs the code archive's entry point
    with sampled hyperparameters (``--name=value``, ``sampan.run.params``); the code reports the
    objective's metric with ``run.log_metrics(step, **{metric: value})``.

    e.g. ``study_create_custom(user=u, project=p, code_archive=a, n_trials=8,
    search_space=[{"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True}],
    objective={"metric": "val_acc", "direction": "maximize"})``
    """
    if code_archive.project_id != project.pk:
        raise custom.CustomStudyInvalid(
            f"code_archive: code archive {code_archive.pk} belongs to another project.",
            field="code_archive",
        )
    if dataset_version is not None and dataset_version.dataset.project_id != project.pk:
        raise custom.CustomStudyInvalid(
            f"dataset_version: dataset version {dataset_version.pk} belongs to another project.",
            field="dataset_version",
        )
    space = custom.search_space_validate(search_space)
    goal = custom.objective_validate(objective)
    code = custom.custom_code_record(
        archive=code_archive,
        entry_point=entry_point,
        args=args,
        requirements=requirements,
        limits=limits,
        network=network,
    )
    if sampler not in SamplerKind.values:
        raise field_error("sampler", f"Must be one of {', '.join(SamplerKind.values)}.")
    if pruner not in PrunerKind.values:
        raise field_error("pruner", f"Must be one of {', '.join(PrunerKind.values)}.")
    for field, value, high in (
        ("n_trials", n_trials, MAX_TRIALS),
        ("parallelism", parallelism, MAX_PARALLELISM),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            raise field_error(field, f"Must be an integer between 1 and {high}.")
    if timeout_seconds is not None and (not isinstance(timeout_seconds, int) or timeout_seconds < 1):
        raise field_error("timeout_seconds", "Must be a positive number of seconds, or null for no limit.")
    study = Study.objects.create(
        workspace=project.workspace,
        project=project,
        name=(name or "").strip()[:200] or f"{code_archive.name}: {code['entry_point']}",
        dataset_version=dataset_version,
        template=CUSTOM_TEMPLATE,
        preset="",
        fixed_params={},
        custom_code=code,
        search_space=space,
        objective=goal,
        sampler=sampler,
        pruner=pruner,
        n_trials=n_trials,
        timeout_seconds=timeout_seconds,
        parallelism=parallelism,
        seed=seed,
        report_seeds=0,  # no honest-lift report: there is no default preset to compare with
        optuna_name=f"sampan-{uuid.uuid4().hex}",
        created_by=user if user is not None and user.is_authenticated else None,
        started_at=timezone.now(),
    )
    engine.optuna_study_create(study)
    _schedule_locked(study)
    return study


def _out_of_time(study: Study) -> bool:
    return (
        study.timeout_seconds is not None
        and study.started_at is not None
        and timezone.now() >= study.started_at + timedelta(seconds=study.timeout_seconds)
    )


def _ask(study: Study, trials_so_far: int) -> Trial | None:
    """Ask Optuna for the next point and queue its training run as an ``automl.trial`` job."""
    optuna_study = engine.optuna_study(study, seed=study.seed * 100_003 + trials_so_far)
    asked = optuna_study.ask(engine.distributions(study.search_space))
    params = dict(asked.params)
    trial = Trial(study=study, number=asked.number, optuna_trial_id=asked._trial_id, params=params)
    if study.template == CUSTOM_TEMPLATE:
        return _ask_custom(study, trial)
    template = registry.get(study.template)
    try:
        searched = {k: v for k, v in params.items() if k != QUANTIZATION}  # not a trainer's parameter
        trial.train_params = template.validate_params(study.preset, {**study.fixed_params, **searched})
        trial.quantized = params.get(QUANTIZATION) == "int8"
    except (
        TemplateParamError
    ) as exc:  # a combination the template refuses: the trial fails, the study goes on
        from optuna.trial import TrialState as OptunaState

        optuna_study.tell(asked.number, state=OptunaState.FAIL)
        trial.state, trial.error, trial.finished_at = (
            TrialState.FAILED,
            f"{exc.field}: {exc.message}",
            timezone.now(),
        )
        trial.save()
        return trial
    trial.save()
    trial.job = job_create(
        workspace=study.workspace,
        project=study.project,
        kind="automl.trial",
        params={"study": study.pk, "trial": trial.number},
        user=study.created_by,
    )
    trial.save(update_fields=["job"])
    return trial


def _ask_custom(study: Study, trial: Trial) -> Trial:
    """Queue a custom-code trial: an ``automl.trial`` job whose params also carry a custom job's
    (``code_archive``, ``spec`` with the sampled hyperparameters and the objective, ``dataset_version``)."""
    code = study.custom_code or {}
    trial.train_params = dict(trial.params)
    trial.save()
    job = job_create(
        workspace=study.workspace,
        project=study.project,
        kind="automl.trial",
        params={"study": study.pk, "trial": trial.number},
        user=study.created_by,
    )
    job.params = {
        "study": study.pk,
        "trial": trial.number,
        "code_archive": code["code_archive"],
        "spec": custom.trial_spec(
            custom_code=code, hyperparameters=trial.params, objective=study.objective, queue=job.queue
        ),
        "dataset_version": study.dataset_version_id,
    }
    job.save(update_fields=["params"])  # in the same transaction: the worker sees it only once committed
    trial.job = job
    trial.save(update_fields=["job"])
    return trial


def _settle_lost_trials(study: Study) -> None:
    """Trials whose job ended (failed, cancelled, or succeeded without recording) but which are
    still running in our books: the worker died for good or the job was cancelled."""
    lost = study.trials.filter(state=TrialState.RUNNING, job__status__in=list(FINISHED)).select_related("job")
    for trial in lost:
        job = trial.job
        if job is None:  # excluded by the job__status filter
            continue
        error = job.error or f"job {job.pk} {job.status}"
        _trial_fail(trial, error=error)


def _schedule_locked(study: Study) -> Study:
    study = Study.objects.select_for_update().get(pk=study.pk)
    _settle_lost_trials(study)
    trials = study.trials.all()
    total = trials.count()
    in_flight = trials.filter(state=TrialState.RUNNING).count()
    if study.status == StudyStatus.RUNNING:
        budget_left = study.n_trials - total
        if _out_of_time(study):
            budget_left = 0
        free = min(budget_left, study.parallelism - in_flight)
        if not engine.may_ask_here(study.sampler, total - in_flight):
            free = 0  # a gp study past its random start: a worker or the reconciler asks (engine)
        for _ in range(max(0, free)):
            trial = _ask(study, total)
            total += 1
            if trial is not None and trial.state == TrialState.RUNNING:
                in_flight += 1
        if in_flight == 0 and (total >= study.n_trials or _out_of_time(study)):
            study.status = StudyStatus.COMPLETED
            study.finished_at = timezone.now()
            study.save(update_fields=["status", "finished_at"])
            logger.info("study %s completed after %s trials", study.pk, total)
            _report_start(study)
    return study


def study_schedule(*, study: Study) -> Study:
    """Settle, fill the free slots and finish the study when its budget is spent (idempotent)."""
    with transaction.atomic():
        return _schedule_locked(study)


def studies_reconcile() -> dict[str, int]:
    """The periodic path: every running study is scheduled again; report runs whose job ended
    without recording are settled. Runs from the beat schedule (``automl.reconcile``)."""
    scheduled = 0
    unsettled = Q(status=StudyStatus.RUNNING) | Q(trials__state=TrialState.RUNNING)
    for study in Study.objects.filter(unsettled).distinct():
        study_schedule(study=study)
        scheduled += 1
    settled = 0
    for run in ReportRun.objects.filter(finished=False, job__status__in=list(FINISHED)).select_related("job"):
        if run.job is None:  # excluded by the job__status filter
            continue
        report_run_record(run=run, error=run.job.error or f"job {run.job.pk} {run.job.status}")
        settled += 1
    return {"studies": scheduled, "report_runs_settled": settled}


# --- what trials report -----------------------------------------------------------------------


def trial_report_epoch(*, trial: Trial, epoch: int, value: float, may_prune: bool = True) -> bool:
    """Record a trial's validation value after ``epoch``; True when the pruner stops it there
    (asked only when ``may_prune``)."""
    import copy

    storage = engine.storage()
    storage.set_trial_intermediate_value(trial.optuna_trial_id, int(epoch), float(value))
    trial.intermediate[str(int(epoch))] = float(value)
    Trial.objects.filter(pk=trial.pk).update(intermediate=trial.intermediate)
    study = trial.study
    if study.pruner == PrunerKind.NONE or not may_prune or study.is_multi_objective:
        return False
    optuna_study = engine.optuna_study(study)
    frozen = storage.get_trial(trial.optuna_trial_id)
    return bool(optuna_study.pruner.prune(optuna_study, copy.deepcopy(frozen)))


def _tell(trial: Trial, *, state, value: float | None = None, values: list[float] | None = None) -> None:
    from optuna.trial import TrialState as OptunaState

    optuna_study = engine.optuna_study(trial.study)
    current = engine.storage().get_trial(trial.optuna_trial_id)
    if current.state.is_finished():
        return
    if state == OptunaState.COMPLETE:
        optuna_study.tell(trial.number, values if values is not None else value)
    else:
        optuna_study.tell(trial.number, state=state)


def _trial_fail(trial: Trial, *, error: str) -> None:
    from optuna.trial import TrialState as OptunaState

    _tell(trial, state=OptunaState.FAIL)
    Trial.objects.filter(pk=trial.pk, state=TrialState.RUNNING).update(
        state=TrialState.FAILED, error=error[:4000], finished_at=timezone.now()
    )


def trial_record_failed(*, trial: Trial, error: str) -> None:
    _trial_fail(trial, error=error)
    study_schedule(study=trial.study)


def trial_record_pruned(*, trial: Trial, epoch: int) -> None:
    from optuna.trial import TrialState as OptunaState

    _tell(trial, state=OptunaState.PRUNED)
    values = [v for k, v in sorted(trial.intermediate.items(), key=lambda kv: int(kv[0]))]
    Trial.objects.filter(pk=trial.pk, state=TrialState.RUNNING).update(
        state=TrialState.PRUNED,
        pruned_at_epoch=epoch,
        value=values[-1] if values else None,
        finished_at=timezone.now(),
    )
    study_schedule(study=trial.study)


def _store_file(path: Path, key: str) -> str:
    with path.open("rb") as fh:
        if default_storage.exists(key):
            default_storage.delete(key)
        return default_storage.save(key, File(fh, name=path.name))


def trial_record_complete(
    *,
    trial: Trial,
    value: float,
    result: dict[str, Any],
    evaluation: dict[str, Any],
    values: list[float] | None = None,
    measurements: dict[str, Any] | None = None,
    constraints: list[float] | None = None,
    onnx: Path | None = None,
) -> None:
    """Store the trial's model and ONNX file (shared storage, so any host can promote it later; an
    int8 trial's ``onnx`` is its int8 model, the fp32 one kept next to it), tell Optuna the
    objective value(s) (constraint values first, as the trial's ``constraints`` user attr) and
    schedule the next trial."""
    from optuna.trial import TrialState as OptunaState

    prefix = f"automl/study-{trial.study_id}/trial-{trial.number}-job-{trial.job_id}"
    served = Path(onnx) if onnx is not None else Path(result["onnx"])
    artifacts = {
        "model_key": _store_file(Path(result["model"]), f"{prefix}/model.pt"),
        "onnx_key": _store_file(served, f"{prefix}/model.onnx"),
        "result": {k: v for k, v in result.items() if k not in ("history",)},
        "evaluation": evaluation,
    }
    if served != Path(result["onnx"]):
        artifacts["onnx_fp32_key"] = _store_file(Path(result["onnx"]), f"{prefix}/model.fp32.onnx")
    if constraints:
        engine.storage().set_trial_user_attr(
            trial.optuna_trial_id, "constraints", [float(c) for c in constraints]
        )
    study = trial.study
    _tell(trial, state=OptunaState.COMPLETE, value=value, values=values if study.is_multi_objective else None)
    headline = test_headline(evaluation)
    Trial.objects.filter(pk=trial.pk, state=TrialState.RUNNING).update(
        state=TrialState.COMPLETE,
        value=value,
        values=list(values or [value]),
        measurements=measurements or {},
        feasible=all(c <= 0 for c in constraints) if constraints else None,
        test_metrics=headline,
        artifacts=artifacts,
        finished_at=timezone.now(),
    )
    study_schedule(study=trial.study)


# --- pause, resume, stop ----------------------------------------------------------------------


@transaction.atomic
def study_pause(*, study: Study) -> Study:
    """No new trial starts; the ones in flight finish and count."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status != StudyStatus.RUNNING:
        raise StudyConflict(f"Study {study.pk} is {study.status}; only a running study can be paused.")
    study.status = StudyStatus.PAUSED
    study.save(update_fields=["status"])
    return study


@transaction.atomic
def study_resume(*, study: Study) -> Study:
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status != StudyStatus.PAUSED:
        raise StudyConflict(f"Study {study.pk} is {study.status}; only a paused study can be resumed.")
    study.status = StudyStatus.RUNNING
    study.save(update_fields=["status"])
    return _schedule_locked(study)


@transaction.atomic
def study_stop(*, study: Study) -> Study:
    """End the study now: trials in flight are cancelled (their jobs stop within a heartbeat)."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status in (StudyStatus.STOPPED, StudyStatus.COMPLETED):
        raise StudyConflict(f"Study {study.pk} is already {study.status}.")
    study.status = StudyStatus.STOPPED
    study.finished_at = timezone.now()
    study.save(update_fields=["status", "finished_at"])
    for trial in study.trials.filter(state=TrialState.RUNNING).select_related("job"):
        if trial.job is not None and trial.job.status not in FINISHED:
            trial.job = job_cancel(job=trial.job)
        if trial.job is None or trial.job.status in FINISHED:  # a queued trial ends here; a running one
            _trial_fail(trial, error="the study was stopped")  # ends when its worker sees the cancel
    return study


# --- promotion --------------------------------------------------------------------------------


def trial_promote(*, user, trial: Trial):
    """Make a model version of a completed trial: its stored model and ONNX file, its evaluation,
    and a lineage naming the study, the trial number, its parameters and the dataset version.

    e.g. ``trial_promote(user=u, trial=study.trials.get(number=3)).name`` -> ``"V4"``
    """
    from training.models import ModelVersion
    from training.services import model_version_record

    if trial.study.template == CUSTOM_TEMPLATE:  # its run made the model version, if its code saved one
        if trial.model_version is not None:
            raise StudyConflict(f"Trial {trial.number} is already model version {trial.model_version.name}.")
        raise StudyConflict(
            f"Trial {trial.number} wrote no model: a custom-code trial is a model version when its code "
            "saves one (run.save_model)."
        )
    if trial.state != TrialState.COMPLETE or not trial.artifacts.get("onnx_key"):
        raise StudyConflict(f"Trial {trial.number} is {trial.state}; only a completed trial can be promoted.")
    if trial.model_version is not None:
        raise StudyConflict(f"Trial {trial.number} is already model version {trial.model_version.name}.")
    if trial.job is None:
        raise StudyConflict(f"Trial {trial.number} lost its job record; it cannot be promoted.")
    if ModelVersion.objects.filter(job=trial.job).exists():
        raise StudyConflict(f"Trial {trial.number}'s run is already a model version.")
    study = trial.study
    artifacts = trial.artifacts
    with tempfile.TemporaryDirectory(prefix="sampan-promote-") as tmp:
        local = {}
        for name, key in (("model.pt", artifacts["model_key"]), ("model.onnx", artifacts["onnx_key"])):
            local[name] = Path(tmp) / name
            with default_storage.open(key, "rb") as source, local[name].open("wb") as out:
                while chunk := source.read(1 << 20):
                    out.write(chunk)
        params = dict(trial.train_params)
        result = dict(artifacts["result"])
        lineage = {
            "study": study.pk,
            "study_name": study.name,
            "trial": trial.number,
            "searched_params": trial.params,
            "objective": study.objective,
            "value": trial.value,
            "sampler": study.sampler,
            **(
                {
                    "objectives": study.goals,
                    "values": trial.values,
                    "constraints": study.constraints,
                    "feasible": trial.feasible,
                    "measurements": {k: v for k, v in trial.measurements.items() if k != "latency"},
                    "target_profile": (study.target_profile or {}).get("name"),
                    "precision": "int8" if trial.quantized else "fp32",
                }
                if study.measures_deployment or study.is_multi_objective
                else {}
            ),
        }
        with transaction.atomic():
            locked = Trial.objects.select_for_update().get(pk=trial.pk)
            if locked.model_version_id is not None:
                raise StudyConflict(f"Trial {trial.number} was promoted meanwhile.")
            version = model_version_record(
                job=trial.job,
                dataset_version=template_data(study),
                template=study.template,
                params=params,
                result=result,
                evaluation=artifacts["evaluation"],
                checkpoint=local["model.pt"],
                onnx=local["model.onnx"],
            )
            # the lineage names the study and trial next to the dataset version, template and params
            version.metrics = {**version.metrics, "automl": lineage}
            if user is not None and user.is_authenticated:
                version.created_by = user
            ModelVersion.objects.filter(pk=version.pk).update(
                metrics=version.metrics, created_by=version.created_by
            )
            locked.model_version = version
            locked.save(update_fields=["model_version"])
    return version


# --- honest lift ------------------------------------------------------------------------------


def _best_trial(study: Study) -> Trial | None:
    order = "-value" if study.objective.get("direction", "maximize") == "maximize" else "value"
    return (
        study.trials.filter(state=TrialState.COMPLETE, value__isnull=False).order_by(order, "number").first()
    )


def _report_start(study: Study) -> None:
    """Queue the honest-lift runs: the study's preset (with its fixed parameters) and the best
    trial's parameters, each trained with the same ``report_seeds`` seeds on the same data."""
    best = _best_trial(study)
    if best is None or study.report_seeds == 0 or study.report_runs.exists():
        return
    template = registry.get(study.template)
    for i in range(study.report_seeds):
        seed = study.seed + i
        for role, params in (
            (
                ReportRole.BASELINE,
                template.validate_params(study.preset, {**study.fixed_params, "seed": seed}),
            ),
            (ReportRole.BEST, {**best.train_params, "seed": seed}),
        ):
            run = ReportRun.objects.create(study=study, role=role, seed=seed, params=params)
            run.job = job_create(
                workspace=study.workspace,
                project=study.project,
                kind="automl.report_run",
                params={"study": study.pk, "report_run": run.pk},
                user=study.created_by,
            )
            run.save(update_fields=["job"])


def report_run_record(*, run: ReportRun, test_metric: float | None = None, error: str = "") -> None:
    ReportRun.objects.filter(pk=run.pk, finished=False).update(
        test_metric=test_metric, error=error[:4000], finished=True
    )


# --- running trials and report runs (the bodies of their jobs) ----------------------------------


class TrialPrunedHere(Exception):
    """The pruner stopped the trial after an epoch (raised through the trainer's ``report``)."""

    def __init__(self, epoch: int) -> None:
        super().__init__(f"pruned after epoch {epoch}")
        self.epoch = epoch


class PruningReport:
    """The job's ``report``, plus: each finished epoch's validation value goes to the study, and
    the pruner's "stop" ends the run there."""

    def __init__(self, report: Report, *, trial: Trial, metric: str) -> None:
        self.report = report
        self.trial = trial
        self.metric = metric

    def __call__(self, message: str = "", *, fraction=None, milestone: bool = False, **metrics) -> None:
        self.report(message, fraction=fraction, milestone=milestone, **metrics)
        value = metrics.get(self.metric)
        if milestone and value is not None and metrics.get("epoch"):
            epoch = int(metrics["epoch"])
            last = metrics.get("epochs") is not None and epoch >= int(metrics["epochs"])
            # after the last epoch there is nothing left to save: the run completes and counts
            if trial_report_epoch(trial=self.trial, epoch=epoch, value=float(value), may_prune=not last):
                self.report(f"pruned after epoch {epoch}", milestone=True, epoch=epoch, pruned=True)
                raise TrialPrunedHere(epoch)


def _objective(result: dict[str, Any], metric: str, direction: str) -> float:
    values = [h[metric] for h in result.get("history", []) if h.get(metric) is not None]
    if not values:
        raise ValueError(f"the run reported no {metric}; a study needs a validation split to score trials")
    return max(values) if direction == "maximize" else min(values)


def trial_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of an ``automl.trial`` job: train and evaluate the trial's parameters on the
    study's data (``training.services.template_train_and_evaluate``, as a training job does),
    record complete, pruned or failed, and schedule the next trial. A deployment-aware study's
    trial then quantizes its ONNX when the trial searched int8, measures its latency on the study's
    target and its size (:func:`trial_measure`), and scores every objective and constraint."""
    from training.checkpoint_mirror import checkpoint_mirror_forget
    from training.services import template_train_and_evaluate

    trial = Trial.objects.select_related("study", "study__dataset_version").get(
        study_id=job.params["study"], number=job.params["trial"]
    )
    if trial.state != TrialState.RUNNING:  # recorded by an earlier attempt
        return {"trial": trial.number, "state": trial.state}
    study = trial.study
    if study.template == CUSTOM_TEMPLATE:
        return custom_trial_run(job=job, report=report, trial=trial)
    template = registry.get(study.template)
    metric, direction = template.objective["metric"], template.objective.get("direction", "maximize")
    if study.objective.get("metric") not in DEPLOYMENT_METRICS:  # a single-objective study, as before
        metric, direction = study.objective.get("metric", metric), study.objective.get("direction", direction)
    measurements: dict[str, Any] = {}
    try:
        run = template_train_and_evaluate(
            job=job,
            template=template,
            dataset_version=template_data(study),
            params=trial.train_params,
            report=PruningReport(report, trial=trial, metric=metric),
        )
        value = _objective(run.result, metric, direction)
        evaluation, onnx = run.evaluation, Path(run.result["onnx"])
        if study.measures_deployment:
            measurements, evaluation, onnx = trial_measure(
                study=study, trial=trial, result=run.result, evaluation=run.evaluation, report=report
            )
            # an int8 model is scored by its fp32 run's validation value less what int8 lost on the test split
            delta = float(measurements.get("quantization_delta", 0.0))
            value += min(0.0, delta) if direction == "maximize" else max(0.0, delta)
    except TrialPrunedHere as pruned:
        trial_record_pruned(trial=trial, epoch=pruned.epoch)
        checkpoint_mirror_forget(job=job)
        return {"trial": trial.number, "state": "pruned", "epoch": pruned.epoch}
    except (LeaseLost, JobPreempted):
        raise  # another attempt owns the trial now, or will resume it after this worker's shutdown
    except JobCancelled:
        trial_record_failed(trial=trial, error="cancelled")
        raise
    except Exception as exc:
        trial_record_failed(trial=trial, error=f"{type(exc).__name__}: {exc}")
        checkpoint_mirror_forget(job=job)  # a failed trial is final: nothing resumes it
        raise
    scored: dict[str, Any] = {metric: value, **{k: measurements.get(k) for k in DEPLOYMENT_METRICS}}
    values = [float(scored[g["metric"]]) for g in study.goals]
    constraints = constraint_values(study.constraints, scored)
    trial_record_complete(
        trial=trial,
        value=values[0],
        result=run.result,
        evaluation=evaluation,
        values=values,
        measurements=measurements,
        constraints=constraints,
        onnx=onnx,
    )
    checkpoint_mirror_forget(job=job)
    return {
        "trial": trial.number,
        "state": "complete",
        "value": values[0],
        **({"values": values} if study.is_multi_objective else {}),
        **({"feasible": all(c <= 0 for c in constraints)} if constraints else {}),
        **({k: measurements[k] for k in DEPLOYMENT_METRICS if k in measurements}),
        "test_accuracy": evaluation.get("accuracy"),
        **({"test_map50": evaluation["map50"]} if "map50" in evaluation else {}),
        **(
            {"test_mase": test_metric_value(study.template, evaluation)}
            if evaluation.get("kind") == "forecast_report"
            else {}
        ),
    }


def trial_measure(
    *, study: Study, trial: Trial, result: dict[str, Any], evaluation: dict[str, Any], report: Report
) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """Measure a trained trial for its target (runs on the worker; onnxruntime is imported here):
    the int8 ONNX (``workers.compression.quantize_onnx``, evaluated on the test split) when the trial
    searched ``quantization=int8``, its latency with the study's target profile
    (``workers.deployment_targets.measure_latency``: ``latency_ms`` is the target's estimate), its
    size on disk and FLOPs. Returns the measurements, the evaluation of the model the trial serves and
    its ONNX path."""
    from workers.deployment_targets import measure_latency, model_size, target_profile

    profile = target_profile(study.target_profile or DEFAULT_TARGET)
    onnx = Path(result["onnx"])
    measured: dict[str, Any] = {"precision": "fp32"}
    if trial.quantized:
        try:
            from workers.compression import quantize_onnx
        except ImportError:
            raise RuntimeError(
                "int8 quantization is not installed on this worker (workers.compression.quantize_onnx)"
            ) from None
        from datasets.services import dataset_version_manifest

        manifest = dataset_version_manifest(version=template_data(study))
        report("quantizing to int8")
        int8 = Path(
            quantize_onnx(
                template=study.template, onnx=onnx, manifest=manifest, out=onnx.with_name("model.int8.onnx")
            )
        )
        int8_evaluation = registry.get(study.template).load("evaluate")(
            str(int8), manifest, preprocessing=result["preprocessing"], report=report
        )
        before = test_metric_value(study.template, evaluation)
        after = test_metric_value(study.template, int8_evaluation)
        if before is not None and after is not None:  # the int8 model's test metric minus the fp32 one's
            measured["quantization_delta"] = float(after) - float(before)
        measured.update(precision="int8", fp32_size_bytes=model_size(onnx))
        onnx, evaluation = int8, int8_evaluation
    report(f"measuring latency on {profile['name']}")
    latency = measure_latency(onnx, profile)
    measured.update(latency_ms=float(latency["target_ms"]), size_bytes=int(model_size(onnx)), latency=latency)
    try:
        from workers.compression.measure import count_flops

        measured["flops"] = int(count_flops(onnx))
    except ImportError:
        pass
    return measured, evaluation, onnx


def custom_trial_run(*, job: Job, report: Report, trial: Trial) -> dict[str, Any]:
    """The body of a custom-code study's trial: the custom job's run
    (``customjobs.running.custom_job_run``) with the trial's hyperparameters; each reported value of
    the objective's metric is an intermediate value at its step (the pruner may stop the code
    there); the trial's value is the last one reported. A run that ends without reporting the
    metric, or exits non-zero, fails the trial with that reason."""
    from customjobs.running import custom_job_run

    study = trial.study
    metric = study.objective["metric"]
    pruned: dict[str, int] = {}

    def on_metrics(step: int, metrics: dict[str, float]) -> bool:
        value = metrics.get(metric)
        if value is None or pruned:
            return bool(pruned)
        if trial_report_epoch(trial=trial, epoch=int(step), value=float(value)):
            pruned["step"] = int(step)
            report(f"pruned at step {step}", milestone=True, step=int(step), pruned=True)
            return True
        return False

    try:
        result = custom_job_run(job=job, report=report, on_metrics=on_metrics)
    except (LeaseLost, JobPreempted):
        raise  # another attempt owns the trial now, or will run it again after this worker's shutdown
    except JobCancelled:
        if pruned:  # the code ignored "prune" and the runner stopped it: pruned all the same
            trial_record_pruned(trial=trial, epoch=pruned["step"])
            return {"trial": trial.number, "state": "pruned", "step": pruned["step"]}
        trial_record_failed(trial=trial, error="cancelled")
        raise
    except Exception as exc:
        if pruned:
            trial_record_pruned(trial=trial, epoch=pruned["step"])
            return {"trial": trial.number, "state": "pruned", "step": pruned["step"]}
        trial_record_failed(trial=trial, error=f"{type(exc).__name__}: {exc}")
        raise
    if pruned or result.get("stopped") == "pruned":
        step = pruned.get("step") or max((int(k) for k in trial.intermediate), default=0)
        trial_record_pruned(trial=trial, epoch=step)
        return {**result, "trial": trial.number, "state": "pruned", "step": step}
    values = [v for _, v in sorted(trial.intermediate.items(), key=lambda kv: int(kv[0]))]
    failure = ""
    if result.get("exit_code") != 0 or result.get("stopped"):
        failure = result.get("reason") or f"the code exited with {result.get('exit_code')}"
    elif not values:
        failure = (
            f"the code never reported {metric!r}: call run.log_metrics(step=..., {metric}=value) "
            f"(it reported {', '.join(sorted(result.get('metrics') or {})) or 'no metrics'})"
        )
    if failure:
        trial_record_failed(trial=trial, error=failure)
        raise custom.CustomTrialFailed(f"Trial {trial.number}: {failure}")
    value = values[-1]
    trial_record_custom_complete(trial=trial, value=value, result=result)
    return {**result, "trial": trial.number, "state": "complete", "value": value}


def trial_record_custom_complete(*, trial: Trial, value: float, result: dict[str, Any]) -> None:
    """A custom-code trial finished: tell Optuna its value (the objective's last reported value),
    keep its final metrics and the model version its code made (if it wrote one)."""
    from optuna.trial import TrialState as OptunaState

    _tell(trial, state=OptunaState.COMPLETE, value=value)
    kept = {k: v for k, v in result.items() if k not in ("history", "environment")}
    Trial.objects.filter(pk=trial.pk, state=TrialState.RUNNING).update(
        state=TrialState.COMPLETE,
        value=value,
        test_metrics={},
        artifacts={"result": kept, "metrics": result.get("metrics") or {}},
        model_version_id=result.get("model_version"),
        finished_at=timezone.now(),
    )
    study_schedule(study=trial.study)


def report_run_run(*, job: Job, report: Report) -> dict[str, Any]:
    """The body of an ``automl.report_run`` job: one seed of the baseline or of the best trial's
    parameters, trained and evaluated as a training job is; its test metric is recorded."""
    from training.checkpoint_mirror import checkpoint_mirror_forget
    from training.services import template_train_and_evaluate

    run = ReportRun.objects.select_related("study", "study__dataset_version").get(pk=job.params["report_run"])
    if run.finished:
        return {"report_run": run.pk, "test_metric": run.test_metric}
    try:
        trained = template_train_and_evaluate(
            job=job,
            template=registry.get(run.study.template),
            dataset_version=template_data(run.study),
            params=run.params,
            report=report,
        )
    except LeaseLost:
        raise
    except Exception as exc:
        report_run_record(run=run, error=f"{type(exc).__name__}: {exc}")
        raise
    metric = test_metric_value(run.study.template, trained.evaluation)
    report_run_record(run=run, test_metric=metric)
    checkpoint_mirror_forget(job=job)
    return {"report_run": run.pk, "role": run.role, "seed": run.seed, "test_metric": metric}
