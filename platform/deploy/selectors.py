"""Reads for deployments: tenancy-scoped querysets and usage windows."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from django.db.models import QuerySet
from django.utils import timezone
from workspaces.selectors import scoped_to_member

from deploy import usage
from deploy.models import Deployment, DeploymentKey, Package, UsageMinute
from workers.contracts.annotations import DetectionBox, DetectionSample
from workers.contracts.manifest import ImageSample, TabularSample, TextSample

# window -> (length, bucket size)
WINDOWS = {
    "1h": (timedelta(hours=1), timedelta(minutes=1)),
    "24h": (timedelta(hours=24), timedelta(hours=1)),
    "7d": (timedelta(days=7), timedelta(hours=6)),
}


def deployments_for(*, user) -> QuerySet[Deployment]:
    return scoped_to_member(
        Deployment.objects.select_related("model_version", "created_by").prefetch_related(
            "events__model_version", "events__by"
        ),
        user=user,
    )


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
    rows = UsageMinute.objects.filter(
        deployment=deployment, minute__gt=start - timedelta(minutes=1)
    ).values_list("minute", "calls", "errors", "histogram")
    step = int(bucket.total_seconds())
    buckets: dict[int, list] = {}
    total_calls = total_errors = 0
    total_histograms = []
    for minute, calls, errors, histogram in rows:
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
    }


def _split_samples(*, model_version, split: str, limit: int) -> tuple[Any, list[Any]]:
    """The model's dataset-version manifest and up to ``limit`` samples of its ``split`` (seeded
    sample, stable order)."""
    from datasets.services import dataset_version_manifest

    manifest = dataset_version_manifest(version=model_version.dataset_version)
    samples = [s for s in manifest["samples"] if s["split"] == split]
    if len(samples) > limit:
        samples = sorted(random.Random(0).sample(samples, limit), key=lambda s: str(s["id"]))
    return manifest, samples


def model_version_split_inputs(
    *, model_version, split: str, limit: int
) -> tuple[str, list[Any], list[int] | None]:
    """Up to ``limit`` inputs of a split of the model's dataset version (seeded sample, stable order):
    ``("images", paths, labels)`` for image datasets, ``("instances", texts or rows, labels)`` for text
    and tabular ones. Labels index the model's own class list; ``None`` for regression or when a
    label is not one of the model's classes, and for detectors (:func:`model_version_split_boxes`)."""
    if model_version.dataset_version is None:
        return "images", [], None
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
