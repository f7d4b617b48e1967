"""Reads for studies: scoped querysets, the optimization history, parameter importances and the
honest-lift report."""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Iterable
from typing import Any, TypedDict

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from workspaces.models import Membership
from workspaces.selectors import scoped_to_member

from automl.models import ReportRole, Study, Trial, TrialState

logger = logging.getLogger("sampan.automl")


def studies_for(*, user) -> QuerySet[Study]:
    completed = Trial.objects.filter(state=TrialState.COMPLETE, value__isnull=False).select_related(
        "model_version"
    )
    studies = Study.objects.select_related("created_by", "dataset_version__dataset").prefetch_related(
        Prefetch("trials", queryset=completed.order_by("number"), to_attr="completed_trials")
    )
    role = Membership.objects.filter(workspace=OuterRef("workspace"), user=user).values("role")[:1]
    return (
        scoped_to_member(studies, user=user)
        .order_by("-created_at", "-id")
        .annotate(
            my_role=Subquery(role),
            trial_count=Count("trials", distinct=True),
            complete_count=Count("trials", filter=Q(trials__state=TrialState.COMPLETE), distinct=True),
            pruned_count=Count("trials", filter=Q(trials__state=TrialState.PRUNED), distinct=True),
            failed_count=Count("trials", filter=Q(trials__state=TrialState.FAILED), distinct=True),
            running_count=Count("trials", filter=Q(trials__state=TrialState.RUNNING), distinct=True),
        )
    )


def trials_of(*, study: Study) -> QuerySet[Trial]:
    return study.trials.select_related("job", "model_version").order_by("number")


def best_trial(*, study: Study) -> Trial | None:
    """The completed trial with the best value (the first such on ties)."""
    completed = getattr(study, "completed_trials", None)
    if completed is not None:  # prefetched by studies_for
        maximize = study.objective.get("direction", "maximize") == "maximize"
        return max(completed, key=lambda t: (t.value if maximize else -t.value, -t.number), default=None)
    order = "-value" if study.objective.get("direction", "maximize") == "maximize" else "value"
    return (
        study.trials.filter(state=TrialState.COMPLETE, value__isnull=False)
        .select_related("model_version")
        .order_by(order, "number")
        .first()
    )


def optimization_history(*, study: Study) -> list[dict[str, Any]]:
    """Completed trials in order of their number, with the best value so far."""
    maximize = study.objective.get("direction", "maximize") == "maximize"
    best: float | None = None
    points = []
    for number, value in (
        study.trials.filter(state=TrialState.COMPLETE, value__isnull=False)
        .order_by("number")
        .values_list("number", "value")
    ):
        if value is None:  # excluded by the filter; the row type allows it
            continue
        best = value if best is None else (max(best, value) if maximize else min(best, value))
        points.append({"trial": number, "value": value, "best": best})
    return points


def param_importances(*, study: Study) -> dict[str, float]:
    """PED-ANOVA importances of the searched parameters (numpy only, cheap); empty until enough
    trials completed to tell."""
    from automl import engine

    if study.trials.filter(state=TrialState.COMPLETE).count() < 3:
        return {}
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator

    try:
        loaded = optuna.load_study(study_name=study.optuna_name, storage=engine.storage())
        found = optuna.importance.get_param_importances(loaded, evaluator=PedAnovaImportanceEvaluator())
    except Exception as exc:  # e.g. too few distinct values yet: no ranking rather than an error page
        logger.info("importances of study %s not available: %s", study.pk, exc)
        return {}
    return {name: float(value) for name, value in found.items()}


def _spread(values: list[float]) -> dict[str, Any]:
    return {
        "values": values,
        "mean": statistics.fmean(values) if values else None,
        "std": statistics.stdev(values) if len(values) > 1 else (0.0 if values else None),
        "min": min(values) if values else None,
        "max": max(values) if values else None,
    }


def lift_report(*, study: Study) -> dict[str, Any]:
    """The best trial's parameters against the study's preset, both trained with the same seeds
    on the same data, scored on the test split: mean, spread and the lift (best minus baseline)."""
    metric = {"object_detection": "test mAP@.5", "time_series_forecasting": "test MASE"}.get(
        study.template, "test accuracy"
    )
    runs = list(study.report_runs.all())
    if not runs:
        return {
            "status": "not_started" if study.report_seeds else "disabled",
            "metric": metric,
            "seeds": [],
            "baseline": _spread([]),
            "best": _spread([]),
            "lift": None,
            "errors": [],
        }
    by_role: dict[str, list[float]] = {ReportRole.BASELINE: [], ReportRole.BEST: []}
    errors = []
    for run in runs:
        if run.test_metric is not None:
            by_role[run.role].append(run.test_metric)
        if run.error:
            errors.append({"role": run.role, "seed": run.seed, "error": run.error})
    baseline, best = _spread(by_role[ReportRole.BASELINE]), _spread(by_role[ReportRole.BEST])
    done = all(run.finished for run in runs)
    return {
        "status": "finished" if done else "running",
        "metric": metric,
        "seeds": sorted({run.seed for run in runs}),
        "baseline": baseline,
        "best": best,
        "lift": (best["mean"] - baseline["mean"])
        if best["mean"] is not None and baseline["mean"] is not None
        else None,
        "errors": errors,
    }


# --- defaults that fit the workers online -------------------------------------------------------

# A search needs a few points per particle of the SDE sampler's quasi-random start (8) before it is
# guided; more parallel slots get more trials in the same wall time, up to a cap.
TRIALS_PER_SLOT = 8
MIN_TRIALS = 12
MAX_DEFAULT_TRIALS = 40
# Measured trials longer than this budget shrink the default trial count to fit it.
TARGET_WALL_SECONDS = 2 * 3600
MEASURED_RUNS = 20


class StudyDefaults(TypedDict):
    template: str
    queue: str
    workers: int
    slots: int
    parallelism: int
    n_trials: int
    timeout_seconds: int | None
    trial_seconds: float | None
    measured_runs: int
    estimated_seconds: float | None
    explanation: str


def _measured_trial_seconds(template: str) -> tuple[float | None, int]:
    """The median time a run of ``template`` took on the workers (its latest finished trials, else
    its latest training runs), and how many runs it is the median of."""
    from jobs.models import Job, JobStatus

    spans = list(
        Trial.objects.filter(
            study__template=template,
            state=TrialState.COMPLETE,
            job__started_at__isnull=False,
            job__finished_at__isnull=False,
        )
        .order_by("-job__finished_at")
        .values_list("job__started_at", "job__finished_at")[:MEASURED_RUNS]
    )
    if not spans:
        spans = list(
            Job.objects.filter(
                kind="training.run",
                status=JobStatus.SUCCEEDED,
                params__template=template,
                started_at__isnull=False,
                finished_at__isnull=False,
            )
            .order_by("-finished_at")
            .values_list("started_at", "finished_at")[:MEASURED_RUNS]
        )
    seconds = [(end - start).total_seconds() for start, end in spans if start and end]
    if not seconds:
        return None, 0
    return statistics.median(seconds), len(seconds)


def study_defaults(*, template: str) -> StudyDefaults:
    """A study's budget for the workers online now: as many trials in parallel as the workers of the
    trials' queue run at once (at least 1), a trial count that grows with that, and a wall time from
    how long this template's runs took on these workers (none until a run was measured).

    e.g. with one worker of concurrency 1: ``study_defaults(template="image_classification")``
    -> ``{"parallelism": 1, "n_trials": 12, ...}``
    """
    from jobs import registry as job_registry
    from jobs.services import choose_queue, workers_alive

    kind = job_registry.get("automl.trial")
    queue = choose_queue(kind) if kind is not None else "cpu"
    serving = [node for node in workers_alive() if queue in (node.queues or [])]
    slots = sum(max(1, node.concurrency) for node in serving)
    parallelism = max(1, slots)
    n_trials = max(MIN_TRIALS, min(MAX_DEFAULT_TRIALS, TRIALS_PER_SLOT * parallelism))
    trial_seconds, measured = _measured_trial_seconds(template)
    estimated: float | None = None
    timeout: int | None = None
    if trial_seconds:
        rounds_in_budget = max(1, int(TARGET_WALL_SECONDS // trial_seconds))
        n_trials = max(parallelism, min(n_trials, rounds_in_budget * parallelism))
        estimated = math.ceil(n_trials / parallelism) * trial_seconds
        # the budget: half as long again as the estimate, in whole minutes
        timeout = int(math.ceil(estimated * 1.5 / 60) * 60)
    workers_text = (
        f"no worker online for the {queue} queue (trials wait until one starts)"
        if not serving
        else f"{len(serving)} worker{'s' if len(serving) != 1 else ''} online for the {queue} queue "
        f"running {slots} job{'s' if slots != 1 else ''} at a time"
    )
    explanation = f"{workers_text} -> {parallelism} trial{'s' if parallelism != 1 else ''} at a time"
    if trial_seconds and estimated is not None:
        explanation += (
            f"; a trial took {trial_seconds:.0f} s (median of {measured}), so {n_trials} trials take "
            f"about {estimated / 60:.0f} min"
        )
    return {
        "template": template,
        "queue": queue,
        "workers": len(serving),
        "slots": slots,
        "parallelism": parallelism,
        "n_trials": n_trials,
        "timeout_seconds": timeout,
        "trial_seconds": trial_seconds,
        "measured_runs": measured,
        "estimated_seconds": estimated,
        "explanation": explanation,
    }


def pareto_front(*, study: Study, trials: Iterable[Trial] | None = None) -> list[int]:
    """The numbers of the completed, feasible trials no other such trial dominates (at least as
    good in every objective, better in one), in trial order. A single-objective study's front is
    its best feasible trial(s). ``trials``: rows already read (a list page), else the study's
    prefetched completed trials (``studies_for``), else one query."""
    goals = study.goals
    signs = [1.0 if g.get("direction", "maximize") == "minimize" else -1.0 for g in goals]
    if trials is None:
        trials = getattr(study, "completed_trials", None)
    if trials is None:
        trials = study.trials.filter(state=TrialState.COMPLETE).only(
            "number", "values", "value", "feasible", "state"
        )
    points: list[tuple[int, list[float]]] = []
    for trial in sorted(trials, key=lambda t: t.number):
        if trial.state != TrialState.COMPLETE or trial.feasible is False:
            continue
        found = list(trial.values or ([] if trial.value is None else [trial.value]))
        if len(found) != len(goals) or not all(
            isinstance(v, int | float) and math.isfinite(v) for v in found
        ):
            continue
        points.append((trial.number, [s * float(v) for s, v in zip(signs, found, strict=True)]))

    def dominates(a: list[float], b: list[float]) -> bool:
        return all(x <= y for x, y in zip(a, b, strict=True)) and any(
            x < y for x, y in zip(a, b, strict=True)
        )

    return [n for n, p in points if not any(dominates(q, p) for m, q in points if m != n)]
