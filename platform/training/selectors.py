from __future__ import annotations

from typing import Any

from config.exceptions import field_error
from django.db.models import F, Q, QuerySet
from jobs.models import Job, JobStatus
from workspaces.selectors import scoped_to_member

from training.models import Backbone, Compression, ModelVersion
from workers.contracts.forecasting import ForecastContract


def model_versions_for(*, user) -> QuerySet[ModelVersion]:
    """Model versions in the user's workspaces, each with its warm-start parent's number (its name)."""
    return scoped_to_member(
        ModelVersion.objects.select_related("dataset_version", "created_by").annotate(
            warm_start_from_number=F("warm_start_from__number")
        ),
        user=user,
    )


def model_version_forecast_contract(model_version: ModelVersion) -> ForecastContract | None:
    """What a forecaster takes (``workers.contracts.forecasting.ForecastContract``, read from its
    preprocessing spec); None for other templates or a spec without a frequency and horizon."""
    spec = model_version.preprocessing
    if model_version.template != "time_series_forecasting" or not isinstance(spec, dict):
        return None
    if "frequency" not in spec or "horizon" not in spec:
        return None
    from workers.time_series.history import forecast_contract

    return forecast_contract(spec)


def training_jobs_for(*, user) -> QuerySet[Job]:
    """Training jobs (``Job(kind="training.run")``) in the user's workspaces, each with the model
    version it produced (one query for the whole page)."""
    return scoped_to_member(
        Job.objects.filter(kind="training.run").select_related("created_by", "model_version"), user=user
    )


def latest_model_for_dataset(dataset) -> ModelVersion | None:
    """The newest image classifier trained here on a version of ``dataset`` whose training job
    succeeded and that kept a file (checkpoint or ONNX), or None. Smart labeling and the quality
    report add its embedding to the image features.

    e.g. ``latest_model_for_dataset(digits)`` -> ``<ModelVersion 4:V3>``"""
    return (
        ModelVersion.objects.filter(
            dataset_version__dataset=dataset,
            template="image_classification",
            source="trained",
            job__status=JobStatus.SUCCEEDED,
        )
        .exclude(Q(checkpoint_key="") & Q(onnx_key=""))
        .order_by("-created_at", "-id")
        .first()
    )


def backbones_for(*, user) -> QuerySet[Backbone]:
    return scoped_to_member(Backbone.objects.select_related("created_by"), user=user)


REPORT_TASKS = {
    "classification_report": "classification",
    "regression_report": "regression",
    "detection_report": "detection",
    "forecast_report": "forecasting",
}


def model_versions_compared(a: ModelVersion, b: ModelVersion) -> dict[str, Any]:
    """Two versions' evaluation reports side by side; every delta is b minus a. Classifiers compare
    accuracy, f1s, top-k and per class; regression models MAE, RMSE and R2; detectors mAP, mAP@.5
    and per-class AP; forecasters MASE, sMAPE, RMSE, coverage, skill, per series and per horizon
    step (``workers.contracts.forecasting.ForecastComparison``). Models of different tasks cannot
    be compared (400). The report's ``kind`` says which it is. Returns the
    ``workers.contracts.evaluation.Comparison`` (a detector's:
    ``workers.contracts.annotations.DetectionComparison``) with the versions' ids (``a``, ``b``)
    and names."""
    if not a.evaluation or not b.evaluation:
        raise field_error("a" if not a.evaluation else "b", "This model version has no evaluation report.")
    tasks = {}
    for key, version in (("a", a), ("b", b)):
        tasks[key] = REPORT_TASKS.get(version.evaluation.get("kind"))
        if tasks[key] is None:
            raise field_error(
                key,
                f"{version.name} ({version.template}) has an evaluation report without "
                "classification (accuracy, f1), regression (MAE, RMSE, R2), detection (mAP) or "
                "forecasting (MASE) metrics.",
            )
    if tasks["a"] != tasks["b"]:
        raise field_error(
            "b",
            f"{a.name} is a {tasks['a']} model and {b.name} a {tasks['b']} model: a "
            "model of one task and a model of another cannot be compared.",
        )
    names = {"a": a.pk, "b": b.pk, "a_name": a.name, "b_name": b.name}
    if tasks["a"] == "detection":
        from workers.object_detection.evaluation import compare_reports

        return {**names, **compare_reports(a.evaluation, b.evaluation)}
    if tasks["a"] == "forecasting":
        from workers.time_series.evaluation import compare as compare_forecasts

        return {**names, **compare_forecasts(a.evaluation, b.evaluation)}
    if tasks["a"] == "regression":
        from workers.tabular.evaluation import compare_regression

        return {**names, **compare_regression(a.evaluation, b.evaluation)}
    from workers.image_classification.evaluation import compare

    return {**names, **compare(a.evaluation, b.evaluation)}


def compressions_for(*, user) -> QuerySet[Compression]:
    """Compression runs in the user's workspaces, with their parent and job (one query per page)."""
    return scoped_to_member(
        Compression.objects.select_related("parent", "job", "created_by"),
        user=user,
    )
