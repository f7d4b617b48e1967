"""Reads for deployments: tenancy-scoped querysets and usage windows."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from workspaces.selectors import scoped_to_member

from deploy import usage
from deploy.models import (
    Deployment,
    DeploymentEvent,
    DeploymentKey,
    DeploymentTraffic,
    Package,
    ShadowMinute,
    TrafficRole,
    UsageMinute,
)
from workers.contracts.annotations import DetectionBox, DetectionSample
from workers.contracts.manifest import ImageSample, TabularSample, TextSample

# window -> (length, bucket size)
WINDOWS = {
    "1h": (timedelta(hours=1), timedelta(minutes=1)),
    "24h": (timedelta(hours=24), timedelta(hours=1)),
    "7d": (timedelta(days=7), timedelta(hours=6)),
}


def deployments_for(*, user) -> QuerySet[Deployment]:
    """The user's deployments with what their serializer reads: the history and the traffic split
    (one query each, their model versions joined)."""
    return scoped_to_member(
        Deployment.objects.select_related("model_version", "created_by").prefetch_related(
            Prefetch("events", queryset=DeploymentEvent.objects.select_related("model_version", "by")),
            Prefetch("traffic", queryset=DeploymentTraffic.objects.select_related("model_version")),
        ),
        user=user,
    )


def deployment_rows_for(*, user) -> QuerySet[Deployment]:
    """The user's deployments, their rows only (routes under one deployment: keys, usage)."""
    return scoped_to_member(Deployment.objects.all(), user=user)


def deployment_keys_of(*, deployment: Deployment) -> QuerySet[DeploymentKey]:
    return DeploymentKey.objects.filter(deployment=deployment).select_related("created_by")


def packages_for(*, user) -> QuerySet[Package]:
    return scoped_to_member(Package.objects.select_related("model_version", "job", "created_by"), user=user)


def deployment_usage(*, deployment: Deployment, window: str = "24h", now=None) -> dict[str, Any]:
    """Calls, errors and latency percentiles of the last ``window`` (1h, 24h or 7d), in total and per
    bucket (1 minute, 1 hour, 6 hours); buckets without calls are left out.

    e.g. ``deployment_usage(deployment=d, window="1h")["totals"]["p95_ms"]``
    """
    length, bucket = WINDOWS[window]
    now = now or timezone.now()
    start = now - length
    rows = list(
        UsageMinute.objects.filter(
            deployment=deployment, minute__gt=start - timedelta(minutes=1)
        ).values_list("minute", "calls", "errors", "histogram", "model_version_id", "scores")
    )
    step = int(bucket.total_seconds())
    buckets: dict[int, list] = {}
    total_calls = total_errors = 0
    total_histograms = []
    for minute, calls, errors, histogram, _, _ in rows:
        at = int(minute.timestamp()) // step * step
        entry = buckets.setdefault(at, [0, 0, []])
        entry[0] += calls
        entry[1] += errors
        entry[2].append(histogram)
        total_calls += calls
        total_errors += errors
        total_histograms.append(histogram)

    def figures(calls: int, errors: int, histograms: list) -> dict[str, Any]:
        p50, p95, p99 = usage.percentiles(usage.merge(histograms))
        return {"calls": calls, "errors": errors, "p50_ms": p50, "p95_ms": p95, "p99_ms": p99}

    series = [
        {"t": datetime.fromtimestamp(at, tz=UTC).isoformat().replace("+00:00", "Z"), **figures(*buckets[at])}
        for at in sorted(buckets)
    ]
    return {
        "window": window,
        "bucket_seconds": step,
        "totals": figures(total_calls, total_errors, total_histograms),
        "series": series,
        "by_version": _usage_by_version(deployment, rows, step),
    }


def _roles(deployment: Deployment) -> dict[int, str]:
    roles = {deployment.model_version_id: "primary"}
    for version_id, role in DeploymentTraffic.objects.filter(deployment=deployment).values_list(
        "model_version_id", "role"
    ):
        roles[version_id] = role
    return roles


def _is_regression(template: str) -> bool:
    return template.endswith("regression")


def _answer_buckets(histogram: dict[int, int], *, regression: bool) -> list[dict[str, Any]]:
    out = []
    for index in sorted(histogram):
        low, high = usage.answer_bucket_bounds(index, regression=regression)
        out.append({"low": round(low, 6), "high": round(high, 6), "count": histogram[index]})
    return out


def _usage_by_version(deployment: Deployment, rows: list, step: int) -> list[dict[str, Any]]:
    """Per model version that answered in the window (rows without one, written before traffic
    splits or refused before a version was chosen, are left out): calls, errors, latency
    percentiles, the answers' score (or value) distribution and a per-bucket series."""
    from training.models import ModelVersion

    per: dict[int, dict[str, Any]] = {}
    for minute, calls, errors, histogram, version_id, scores in rows:
        if version_id is None:
            continue
        entry = per.setdefault(version_id, {"calls": 0, "errors": 0, "h": [], "s": [], "series": {}})
        entry["calls"] += calls
        entry["errors"] += errors
        entry["h"].append(histogram)
        entry["s"].append(scores or {})
        at = int(minute.timestamp()) // step * step
        point = entry["series"].setdefault(at, [0, 0])
        point[0] += calls
        point[1] += errors
    if not per:
        return []
    roles = _roles(deployment)
    versions = {mv.pk: mv for mv in ModelVersion.objects.filter(pk__in=per)}
    order = {"primary": 0, "canary": 1, "shadow": 2, "previous": 3}
    answers = []
    for version_id, entry in per.items():
        mv = versions.get(version_id)
        if mv is None:
            continue
        p50, p95, p99 = usage.percentiles(usage.merge(entry["h"]))
        answers.append(
            {
                "model_version": version_id,
                "model_version_name": mv.name,
                "role": roles.get(version_id, "previous"),
                "calls": entry["calls"],
                "errors": entry["errors"],
                "latency_ms": {"p50": p50, "p95": p95, "p99": p99},
                "scores": _answer_buckets(usage.merge(entry["s"]), regression=_is_regression(mv.template)),
                "series": [
                    {
                        "start": _iso(at),
                        "calls": entry["series"][at][0],
                        "errors": entry["series"][at][1],
                    }
                    for at in sorted(entry["series"])
                ],
            }
        )
    answers.sort(key=lambda a: (order[a["role"]], a["model_version"]))
    return answers


def _iso(at: int) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat().replace("+00:00", "Z")


def shadow_agreement(*, deployment: Deployment, window: str = "1h", now=None) -> dict[str, Any]:
    """How the current shadow's answers compared with the served ones over the last ``window``:
    instances compared, the top-1 agreement (null for regression), the mean |delta| of the top-1
    score (regression: the value), the shadow's errors, per bucket (``points``) and the deltas'
    distribution. Without a shadow: the figures of the last shadow version that has rows in the
    window, else zeros.

    e.g. ``shadow_agreement(deployment=d, window="1h")["agreement"]``
    """
    length, bucket = WINDOWS[window]
    now = now or timezone.now()
    step = int(bucket.total_seconds())
    current = (
        DeploymentTraffic.objects.filter(deployment=deployment, role=TrafficRole.SHADOW)
        .select_related("model_version")
        .first()
    )
    rows = ShadowMinute.objects.filter(deployment=deployment, minute__gt=now - length - timedelta(minutes=1))
    shadow = current.model_version if current is not None else None
    if shadow is None:
        last = rows.exclude(shadow_version=None).order_by("-minute").select_related("shadow_version").first()
        shadow = last.shadow_version if last is not None else None
    template = shadow.template if shadow is not None else deployment.model_version.template
    regression = _is_regression(template)
    kind = (
        "regression_prediction"
        if regression
        else ("detection_prediction" if template == "object_detection" else "classification_prediction")
    )
    figures = list(
        rows.filter(shadow_version=shadow).values_list(
            "minute", "compared", "agreed", "delta_sum", "delta_histogram", "errors", "latency_ms_sum"
        )
        if shadow is not None
        else []
    )
    points: dict[int, list] = {}
    compared_total = agreed_total = errors_total = 0
    delta_total = latency_total = 0.0
    histograms = []
    for minute, compared, agreed, delta_sum, histogram, errors, latency in figures:
        at = int(minute.timestamp()) // step * step
        point = points.setdefault(at, [0, 0, 0.0, 0])
        point[0] += compared
        point[1] += agreed
        point[2] += delta_sum
        point[3] += errors
        compared_total += compared
        agreed_total += agreed
        delta_total += delta_sum
        errors_total += errors
        latency_total += latency
        histograms.append(histogram)

    def agreement(compared: int, agreed: int) -> float | None:
        return None if regression or not compared else round(agreed / compared, 6)

    def mean(compared: int, delta_sum: float) -> float | None:
        return round(delta_sum / compared, 6) if compared else None

    tries = compared_total + errors_total
    return {
        "window": window,
        "bucket_seconds": step,
        "shadow_version": shadow.pk if shadow is not None else None,
        "shadow_version_name": shadow.name if shadow is not None else None,
        "prediction_kind": kind,
        "compared": compared_total,
        "agreement": agreement(compared_total, agreed_total),
        "mean_delta": mean(compared_total, delta_total),
        "errors": errors_total,
        "mean_latency_ms": round(latency_total / tries, 3) if tries else None,
        "points": [
            {
                "start": _iso(at),
                "compared": points[at][0],
                "agreement": agreement(points[at][0], points[at][1]),
                "mean_delta": mean(points[at][0], points[at][2]),
                "errors": points[at][3],
            }
            for at in sorted(points)
        ],
        "deltas": _answer_buckets(usage.merge(histograms), regression=regression),
    }


def _split_samples(*, model_version, split: str, limit: int) -> tuple[Any, list[Any]]:
    """The model's dataset-version manifest and up to ``limit`` samples of its ``split`` (seeded
    sample, stable order)."""
    from datasets.services import dataset_version_manifest

    manifest: Any = dataset_version_manifest(version=model_version.dataset_version)  # not a forecaster's
    samples = [s for s in manifest["samples"] if s["split"] == split]
    if len(samples) > limit:
        samples = sorted(random.Random(0).sample(samples, limit), key=lambda s: str(s["id"]))
    return manifest, samples


def _forecast_histories(*, model_version, split: str, limit: int) -> list[Any]:
    """A forecaster's test inputs: each series' history before its test window, as a request sends
    it (``workers.packaging.forecast_package.histories_from_manifest``); none for another split."""
    from datasets.services import dataset_version_manifest

    from workers.packaging.forecast_package import histories_from_manifest

    if split != "test":
        return []
    manifest = dataset_version_manifest(version=model_version.dataset_version)
    horizon = (model_version.preprocessing or {}).get("horizon")
    return histories_from_manifest(manifest, limit=limit, horizon=horizon)


def model_version_split_inputs(
    *, model_version, split: str, limit: int
) -> tuple[str, list[Any], list[int] | None]:
    """Up to ``limit`` inputs of a split of the model's dataset version (seeded sample, stable order):
    ``("images", paths, labels)`` for image datasets, ``("instances", texts or rows, labels)`` for text
    and tabular ones, ``("instances", series' histories, None)`` for forecasters. Labels index the
    model's own class list; ``None`` for regression or when a
    label is not one of the model's classes, and for detectors (:func:`model_version_split_boxes`)."""
    if model_version.dataset_version is None:
        return "images", [], None
    if model_version.template == "time_series_forecasting":
        return "instances", _forecast_histories(model_version=model_version, split=split, limit=limit), None
    manifest, samples = _split_samples(model_version=model_version, split=split, limit=limit)
    # the model's output order is its own class list; map the dataset version's label indexes onto it
    positions = {name: i for i, name in enumerate(model_version.classes)}
    labels = [
        positions.get(manifest["classes"][s["label"]], -1) if s.get("label") is not None else -1
        for s in samples
    ]
    known = labels if labels and min(labels) >= 0 else None
    if manifest.get("kind") == "text":
        return "instances", [s["text"] for s in cast(list[TextSample], samples)], known
    if manifest.get("kind") == "tabular":
        target = manifest.get("target")
        rows = [
            {k: v for k, v in s["values"].items() if k != target} for s in cast(list[TabularSample], samples)
        ]
        return "instances", rows, None if manifest.get("task") == "regression" else known
    return "images", [Path(s["path"]) for s in cast(list[ImageSample], samples)], known


def model_version_split_boxes(*, model_version, split: str, limit: int) -> list[list[DetectionBox]] | None:
    """A detector's true boxes of the images :func:`model_version_split_inputs` picks (same samples,
    same order), their labels indexing the model's own class list; ``None`` when the model has no
    detection dataset version or a box's class is not one of the model's."""
    if model_version.dataset_version is None:
        return None
    manifest, samples = _split_samples(model_version=model_version, split=split, limit=limit)
    if manifest.get("kind") != "detection":
        return None
    positions = {name: i for i, name in enumerate(model_version.classes)}
    index = [positions.get(name, -1) for name in manifest["classes"]]
    boxes: list[list[DetectionBox]] = []
    for sample in cast(list[DetectionSample], samples):
        mapped: list[DetectionBox] = [{**box, "label": index[box["label"]]} for box in sample["boxes"]]
        if any(box["label"] < 0 for box in mapped):
            return None
        boxes.append(mapped)
    return boxes
