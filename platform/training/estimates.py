"""What each preset of a dataset version's template will cost and give, from what was measured:
training time on the workers online (the throughput earlier runs recorded on the same worker class),
quality (earlier model versions of this dataset with that preset), model size (the ONNX files of
earlier versions of that model) and prediction latency (hosted deployments of those versions).

Never a made-up number: a figure without a measurement behind it is ``basis: "none"`` with the
reason. Reads only (a selector module); four queries whatever the history holds.

e.g. ``training_estimates(user=u, dataset_version=v)["presets"][0]["time"]["seconds"]``
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from datasets.models import DatasetVersion
from deploy.models import DeploymentEvent, UsageMinute
from django.core.files.storage import default_storage
from django.db.models import OuterRef, Subquery, Sum
from jobs.services import workers_alive
from workspaces.selectors import scoped_to_member

from training.kinds import TRAINING_RUN
from training.models import ModelVersion, ModelVersionSource
from training.recommendations import data_profile, hardware_of
from workers.contracts.templates import HardwareProfile, PresetRecommendation
from workers.templates import registry
from workers.templates.recommend import recommend

ESTIMATES_VERSION = 1
# The most recent model versions of the template read for the history (one query, bounded).
HISTORY_LIMIT = 200
# Image templates resize to image_size x image_size: compute grows with the pixel count.
REFERENCE_IMAGE_SIZE = 64

Basis = Literal["measured", "none"]


class WorkerClass(TypedDict):
    """Workers of one kind: ``worker_class`` is ``gpu:<name>`` or ``cpu:<cores>``."""

    worker_class: str
    device: Literal["gpu", "cpu"]
    name: str
    cpu_count: int
    count: int


class WorkersOnline(TypedDict):
    """The queue a training job would go to now and the workers online that consume it."""

    queue: str
    online: int
    classes: list[WorkerClass]
    message: str


class TimeEstimate(TypedDict):
    """Expected training time (queueing not included) on the workers online, from earlier runs of
    the same template and model on the same worker class, scaled to this dataset's training samples,
    epochs and image size. ``runs``: how many earlier runs it rests on."""

    basis: Basis
    seconds: float | None
    samples_per_second: float | None
    runs: int
    worker_class: str | None
    message: str


class QualityEstimate(TypedDict):
    """What the preset reached last time on this dataset (any of its versions): the latest model
    version's test ``metric`` (accuracy for classifiers, mAP@.5 (``map50``) for detectors, MAE for
    regression), and the best."""

    basis: Basis
    metric: str | None
    value: float | None
    best: float | None
    runs: int
    model_version: int | None
    model_version_name: str | None
    dataset_version_name: str | None
    message: str


class SizeEstimate(TypedDict):
    """The exported ONNX file of the latest earlier version with the preset's model."""

    basis: Basis
    bytes: int | None
    model_version: int | None
    model_version_name: str | None
    message: str


class SpeedEstimate(TypedDict):
    """Mean latency of hosted predictions (per request, as the deployment's usage recorded it) by
    versions with the preset's model, counted since each deployment switched to that version."""

    basis: Basis
    latency_ms: float | None
    calls: int
    message: str


class PresetEstimate(TypedDict):
    """A preset as a training job would run it now: ``recommendation`` is the preset fitted to this
    dataset version and the workers online (what the job records unless it is started with
    ``adapt: false``); ``model`` and the time are those of its values."""

    preset: str
    title: str
    description: str
    default: bool
    model: str | None
    time: TimeEstimate
    quality: QualityEstimate
    size: SizeEstimate
    speed: SpeedEstimate
    recommendation: PresetRecommendation


class TrainingEstimates(TypedDict):
    """``GET /api/v1/training-estimates/?dataset_version=<id>``: each preset's expected training
    time, quality, model size and speed, each with its basis."""

    kind: Literal["training_estimates"]
    version: int
    dataset_version: int
    template: str
    train_samples: int
    workers: WorkersOnline
    presets: list[PresetEstimate]
    note: NotRequired[str]


def worker_class_of(devices: dict[str, Any]) -> str:
    """The kind of worker a host is, from what ``workers.devices`` detected on it.

    >>> worker_class_of({"cpu_count": 16, "cuda": [{"name": "NVIDIA H200"}]})
    'gpu:NVIDIA H200'
    >>> worker_class_of({"cpu_count": 2, "cuda": [{"name": "A"}, {"name": "A"}]})
    'gpu:A x2'
    >>> worker_class_of({"cpu_count": 2, "cuda": []})
    'cpu:2'
    """
    gpus = [str(g.get("name") or "GPU") for g in devices.get("cuda") or []]
    if gpus:
        return f"gpu:{gpus[0]}" + (f" x{len(gpus)}" if len(gpus) > 1 else "")
    return f"cpu:{int(devices.get('cpu_count') or 1)}"


def _train_samples(version: DatasetVersion | None) -> int:
    if version is None:
        return 0
    train = (version.counts or {}).get("train") or {}
    return int(sum(train.values())) if isinstance(train, dict) else int(train)


def _passes(params: dict[str, Any], metrics: dict[str, Any] | None = None) -> float:
    """Passes over the training data a run makes: its epochs (those it ran, when recorded), or its
    trees for gradient boosting."""
    if "epochs" in params:
        ran = (metrics or {}).get("epochs")
        return float(ran if isinstance(ran, int) and ran > 0 else params["epochs"])
    if "n_estimators" in params:
        return float(params["n_estimators"])
    return 1.0


def _pixels(params: dict[str, Any]) -> float:
    size = params.get("image_size")
    return (float(size) / REFERENCE_IMAGE_SIZE) ** 2 if isinstance(size, int | float) and size > 0 else 1.0


def _work(train_samples: int, params: dict[str, Any], metrics: dict[str, Any] | None = None) -> float:
    """A run's amount of compute in sample-passes at the reference image size."""
    return train_samples * _passes(params, metrics) * _pixels(params)


@dataclass(frozen=True)
class _Run:
    worker_class: str
    seconds_per_work: float
    overhead_s: float
    samples_per_second: float


def _measured_run(version: ModelVersion, live_nodes: dict[str, str]) -> _Run | None:
    """What one earlier run measured, or None when it recorded no usable timing or worker."""
    metrics = version.metrics or {}
    runtime = metrics.get("runtime") or {}
    job = version.job
    worker_class = runtime.get("worker_class") or (live_nodes.get(job.lease_node) if job else None)
    if not worker_class:
        return None
    training = metrics.get("training") or {}
    train_s = training.get("train_seconds") or runtime.get("seconds")
    total_s = None
    if job is not None and job.started_at and job.finished_at:
        total_s = (job.finished_at - job.started_at).total_seconds()
    if not train_s:
        train_s = total_s
    samples = _train_samples(version.dataset_version)
    work = _work(samples, version.params or {}, metrics)
    if not train_s or train_s <= 0 or work <= 0:
        return None
    passes = _passes(version.params or {}, metrics)
    return _Run(
        worker_class=worker_class,
        seconds_per_work=train_s / work,
        overhead_s=max(0.0, (total_s or train_s) - train_s),
        samples_per_second=float(training.get("samples_per_s") or samples * passes / train_s),
    )


def _processes(version: ModelVersion) -> int:
    """The data-parallel ranks the run trained with (``processes`` of its job; 1 without a job)."""
    job = version.job
    return int((job.params or {}).get("processes") or 1) if job is not None else 1


def _config(template: str, params: dict[str, Any]) -> tuple[str, str]:
    """What makes runs comparable: the template and its model (sizes and epochs are scaled)."""
    return (template, str(params.get("model", "")))


def _workers_online(*, queue_preferring_gpu: bool) -> tuple[WorkersOnline, dict[str, str], HardwareProfile]:
    nodes = list(workers_alive().values("hostname", "queues", "devices"))
    live = {n["hostname"]: worker_class_of(n["devices"] or {}) for n in nodes}
    queue = "gpu" if queue_preferring_gpu and any("gpu" in (n["queues"] or []) for n in nodes) else "cpu"
    classes: dict[str, WorkerClass] = {}
    for node in nodes:
        if queue not in (node["queues"] or []):
            continue
        devices = node["devices"] or {}
        name = live[node["hostname"]]
        entry = classes.setdefault(
            name,
            {
                "worker_class": name,
                "device": "gpu" if name.startswith("gpu:") else "cpu",
                "name": name.split(":", 1)[1],
                "cpu_count": int(devices.get("cpu_count") or 1),
                "count": 0,
            },
        )
        entry["count"] += 1
    online = sum(c["count"] for c in classes.values())
    message = (
        f"{online} worker{'s' if online != 1 else ''} online for the {queue} queue."
        if online
        else f"No worker is online for the {queue} queue: a training job waits until one starts."
    )
    workers: WorkersOnline = {
        "queue": queue,
        "online": online,
        "classes": list(classes.values()),
        "message": message,
    }
    return workers, live, hardware_of(nodes, queue=queue)


def _time_estimate(
    *, runs: list[_Run], online: WorkersOnline, work: float, samples: int, passes: float
) -> TimeEstimate:
    none: TimeEstimate = {
        "basis": "none",
        "seconds": None,
        "samples_per_second": None,
        "runs": 0,
        "worker_class": None,
        "message": "",
    }
    if not online["online"]:
        return {**none, "message": "No worker is online for this job's queue, so there is no time to expect."}
    online_classes = {c["worker_class"] for c in online["classes"]}
    by_class: dict[str, list[_Run]] = defaultdict(list)
    for run in runs:
        if run.worker_class in online_classes:
            by_class[run.worker_class].append(run)
    if not by_class:
        return {
            **none,
            "message": "No earlier run of this model on the workers online: the first run measures it.",
        }
    worker_class, measured = max(by_class.items(), key=lambda item: len(item[1]))
    seconds_per_work = statistics.median(r.seconds_per_work for r in measured)
    seconds = statistics.median(r.overhead_s for r in measured) + work * seconds_per_work
    rate = statistics.median(r.samples_per_second for r in measured)
    return {
        "basis": "measured",
        "seconds": round(seconds, 1),
        "samples_per_second": round(rate, 2),
        "runs": len(measured),
        "worker_class": worker_class,
        "message": f"About {seconds:.0f} s for {samples} training samples x {passes:g} passes, from "
        f"{len(measured)} earlier run{'s' if len(measured) != 1 else ''} on {worker_class}.",
    }


def _quality_estimate(versions: list[ModelVersion]) -> QualityEstimate:
    scored = [v for v in versions if (v.metrics or {}).get("test")]
    latest = scored[0] if scored else None
    metric = "mae"
    values: list[float] = []
    if latest is not None:
        # the task's headline: accuracy (classifiers), mAP@.5 (detectors), MAE (regression: lower is better)
        metric = next((m for m in ("accuracy", "map50") if m in latest.metrics["test"]), "mae")
        values = [float(v.metrics["test"][metric]) for v in scored if metric in v.metrics["test"]]
    if latest is None or not values:
        return {
            "basis": "none",
            "metric": None,
            "value": None,
            "best": None,
            "runs": 0,
            "model_version": None,
            "model_version_name": None,
            "dataset_version_name": None,
            "message": "Not trained with this preset on this dataset yet.",
        }
    best = min(values) if metric == "mae" else max(values)
    value = float(latest.metrics["test"].get(metric, values[0]))
    return {
        "basis": "measured",
        "metric": metric,
        "value": value,
        "best": best,
        "runs": len(values),
        "model_version": latest.pk,
        "model_version_name": latest.name,
        "dataset_version_name": latest.dataset_version.name if latest.dataset_version else None,
        "message": f"{metric} {value:.4g} on the test split of {latest.name}.",
    }


def _size_estimate(versions: list[ModelVersion]) -> SizeEstimate:
    for version in versions:
        if not version.onnx_key:
            continue
        try:
            size = default_storage.size(version.onnx_key)
        except (OSError, NotImplementedError):
            continue
        return {
            "basis": "measured",
            "bytes": int(size),
            "model_version": version.pk,
            "model_version_name": version.name,
            "message": f"The ONNX file of {version.name} with this model is {size} bytes.",
        }
    return {
        "basis": "none",
        "bytes": None,
        "model_version": None,
        "model_version_name": None,
        "message": "No earlier model version with this model: its size is known after the first run.",
    }


def _latency_by_version(version_ids: list[int]) -> dict[int, tuple[int, float]]:
    """(calls, latency ms sum) of hosted predictions by each version, counted from the minute after
    its deployment switched to it (a deployment's usage rows do not name the version)."""
    if not version_ids:
        return {}
    switched = (
        DeploymentEvent.objects.filter(
            deployment=OuterRef("deployment"), model_version=OuterRef("deployment__model_version")
        )
        .order_by("-at")
        .values("at")[:1]
    )
    rows = (
        UsageMinute.objects.filter(deployment__model_version__in=version_ids, minute__gte=Subquery(switched))
        .values("deployment__model_version")
        .annotate(calls=Sum("calls"), errors=Sum("errors"), ms=Sum("latency_ms_sum"))
    )
    return {
        r["deployment__model_version"]: (int(r["calls"] or 0), float(r["ms"] or 0.0))
        for r in rows
        if r["calls"]
    }


def _speed_estimate(versions: list[ModelVersion], latency: dict[int, tuple[int, float]]) -> SpeedEstimate:
    calls = sum(latency[v.pk][0] for v in versions if v.pk in latency)
    if not calls:
        return {
            "basis": "none",
            "latency_ms": None,
            "calls": 0,
            "message": "No hosted predictions by a version with this model yet: deploy one to measure it.",
        }
    ms = sum(latency[v.pk][1] for v in versions if v.pk in latency) / calls
    return {
        "basis": "measured",
        "latency_ms": round(ms, 2),
        "calls": calls,
        "message": f"{ms:.1f} ms per request on average over {calls} hosted predictions.",
    }


def training_estimates(*, user, dataset_version: DatasetVersion) -> TrainingEstimates:
    """Each preset of the dataset version's template with its expected time, quality, size and speed.

    e.g. ``training_estimates(user=u, dataset_version=v)["presets"][0]["time"]["basis"]`` is
    ``"none"`` before any run on the workers online, ``"measured"`` after.
    """
    template = registry.get(dataset_version.dataset.task_type)
    online, live_nodes, hardware = _workers_online(queue_preferring_gpu=TRAINING_RUN.prefers_gpu)
    history = list(
        scoped_to_member(ModelVersion.objects.all(), user=user)
        .filter(template=template.name, source=ModelVersionSource.TRAINED)
        .select_related("job", "dataset_version")
        .order_by("-created_at", "-id")[:HISTORY_LIMIT]
    )
    by_config: dict[tuple[str, str], list[ModelVersion]] = defaultdict(list)
    for version in history:
        by_config[_config(template.name, version.params or {})].append(version)
    description = template.as_dict()
    # what a job with the preset would run: the preset fitted to the data and the workers online
    data = data_profile(dataset_version)
    recommendations = {
        p["name"]: recommend(template, p["name"], data, hardware) for p in description["presets"]
    }
    presets_values = {name: dict(r["values"]) for name, r in recommendations.items()}
    wanted = {v.pk for p in presets_values.values() for v in by_config.get(_config(template.name, p), [])}
    latency = _latency_by_version(sorted(wanted))
    samples = _train_samples(dataset_version)
    presets: list[PresetEstimate] = []
    for preset in description["presets"]:
        params = presets_values[preset["name"]]
        same_model = by_config.get(_config(template.name, params), [])
        # a preset runs in one process: data-parallel runs measured another speed, so they are left out
        single = [v for v in same_model if _processes(v) == 1]
        runs = [r for r in (_measured_run(v, live_nodes) for v in single) if r is not None]
        on_this_dataset = [
            v
            for v in history
            if v.preset == preset["name"]
            and v.dataset_version is not None
            and v.dataset_version.dataset_id == dataset_version.dataset_id
        ]
        presets.append(
            {
                "preset": preset["name"],
                "title": preset["title"],
                "description": preset["description"],
                "default": preset["name"] == description["default_preset"],
                "model": str(params["model"]) if "model" in params else None,
                "time": _time_estimate(
                    runs=runs,
                    online=online,
                    work=_work(samples, params),
                    samples=samples,
                    passes=_passes(params),
                ),
                "quality": _quality_estimate(on_this_dataset),
                "size": _size_estimate(same_model),
                "speed": _speed_estimate(same_model, latency),
                "recommendation": recommendations[preset["name"]],
            }
        )
    return {
        "kind": "training_estimates",
        "version": ESTIMATES_VERSION,
        "dataset_version": dataset_version.pk,
        "template": template.name,
        "train_samples": samples,
        "workers": online,
        "presets": presets,
    }
