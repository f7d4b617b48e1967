"""Hardware- and data-aware defaults on the platform: what a preset adapts to (the dataset version's
profile and the workers online for the training queue) and the recommendation itself
(``workers.templates.recommend``). Reads only; a dataset version's profile costs no query (its
counts and schema are on the row), the workers one.

e.g. ``preset_recommendation(template=t, preset="fast", dataset_version=v, hardware=hardware_profile())``
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from datasets.models import DatasetVersion
from jobs.services import workers_alive

from training.kinds import TRAINING_RUN
from workers.contracts.templates import DataProfile, HardwareProfile, PresetRecommendation
from workers.templates.declaration import TaskTemplate
from workers.templates.recommend import recommend

FITTED_SPLITS = ("train", "val")  # what a run learns from and chooses on (the test split is never used)


def data_profile(dataset_version: DatasetVersion) -> DataProfile:
    """Training samples (train + val: images for detection, observations for forecasting, rows,
    texts or images otherwise), classes (0 for regression and forecasting) and, for tables, the
    feature columns.

    e.g. ``data_profile(v)`` -> ``{"train_samples": 120, "classes": 3, "features": 4}``
    """
    sizes = dataset_version.split_sizes or {}
    if sizes:  # detection (images; its counts are boxes) and forecasting (observations)
        samples = sum(int(sizes.get(split) or 0) for split in FITTED_SPLITS)
    else:
        counts = dataset_version.counts or {}
        samples = 0
        for split in FITTED_SPLITS:
            per_class = counts.get(split) or {}
            samples += int(sum(per_class.values())) if isinstance(per_class, dict) else int(per_class)
    profile: DataProfile = {"train_samples": samples, "classes": len(dataset_version.classes or [])}
    columns = (dataset_version.schema or {}).get("columns")
    if dataset_version.dataset.task_type.startswith("tabular_") and isinstance(columns, list):
        profile["features"] = len(columns)
    return profile


def hardware_of(nodes: Iterable[Mapping[str, Any]], *, queue: str) -> HardwareProfile:
    """The workers among ``nodes`` (WorkerNode rows as dicts: ``queues``, ``devices``) that consume
    ``queue``: their GPUs in all, the smallest CPU count, how many. None online: a CPU is assumed.

    >>> hardware_of([{"queues": ["gpu"], "devices": {"cpu_count": 8, "cuda": [{}, {}]}}], queue="gpu")
    {'gpus': 2, 'cpu_count': 8, 'workers': 1}
    >>> hardware_of([], queue="cpu")
    {'gpus': 0, 'cpu_count': 1, 'workers': 0}
    """
    consuming = [n for n in nodes if queue in (n.get("queues") or [])]
    if not consuming:
        return {"gpus": 0, "cpu_count": 1, "workers": 0}
    devices = [n.get("devices") or {} for n in consuming]
    return {
        "gpus": sum(len(d.get("cuda") or []) for d in devices),
        "cpu_count": min(int(d.get("cpu_count") or 1) for d in devices),
        "workers": len(consuming),
    }


def training_queue_of(nodes: Iterable[Mapping[str, Any]]) -> str:
    """The queue a training job goes to (jobs.services.choose_queue): gpu when a worker consumes it."""
    if TRAINING_RUN.prefers_gpu and any("gpu" in (n.get("queues") or []) for n in nodes):
        return "gpu"
    return "cpu"


def hardware_profile() -> HardwareProfile:
    """The workers online for the training queue, now (one query)."""
    nodes = list(workers_alive().values("queues", "devices"))
    return hardware_of(nodes, queue=training_queue_of(nodes))


def preset_recommendation(
    *,
    template: TaskTemplate,
    preset: str | None,
    dataset_version: DatasetVersion,
    hardware: HardwareProfile,
    overrides: Mapping[str, Any] | None = None,
) -> PresetRecommendation:
    """The preset's values fitted to the dataset version and the workers (the user's ``overrides``
    kept), with the choices made; raises TemplateParamError on a bad preset or override."""
    return recommend(template, preset, data_profile(dataset_version), hardware, overrides)
