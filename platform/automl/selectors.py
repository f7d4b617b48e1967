"""Reads for studies: scoped querysets, the optimization history, parameter importances and the
honest-lift report."""

from __future__ import annotations

import logging
import statistics
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
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
    return (
        scoped_to_member(studies, user=user)
        .order_by("-created_at", "-id")
        .annotate(
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
    runs = list(study.report_runs.all())
    if not runs:
        return {
            "status": "not_started" if study.report_seeds else "disabled",
            "metric": "test accuracy",
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
        "metric": "test accuracy",
        "seeds": sorted({run.seed for run in runs}),
        "baseline": baseline,
        "best": best,
        "lift": (best["mean"] - baseline["mean"])
        if best["mean"] is not None and baseline["mean"] is not None
        else None,
        "errors": errors,
    }
