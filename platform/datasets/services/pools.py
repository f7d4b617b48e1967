"""A dataset's (or a version's) samples as a ``LabelPool``: what smart labeling and the data quality
report hand the compute plane (``workers.contracts.smart_labeling``). Reads only; one query per table
whatever the number of samples."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import cast

from datasets.models import (
    ANNOTATION_TASKS,
    IMAGE_TASKS,
    REGRESSION_TASKS,
    TABULAR_TASKS,
    Annotation,
    AnnotationStatus,
    Dataset,
    DatasetVersion,
    Label,
    Sample,
    TaskType,
    VersionSample,
)
from datasets.services.versions import blob_local_path
from workers.contracts.smart_labeling import (
    SMART_LABELING_VERSION,
    LabelPool,
    PoolBox,
    PoolSample,
    PoolSplit,
    PoolTask,
)

_CHUNK = 2000


def label_pool(
    *,
    dataset: Dataset,
    version: DatasetVersion | None = None,
    cache_dir: Path,
    sample_ids: Collection[int] | None = None,
) -> LabelPool:
    """Every sample of ``dataset`` (``version`` None: the live dataset, labeled or not) or of one
    version, in id order, with its label as an index into the pool's ``classes`` (the user's order)
    and where its content is (an image file under ``cache_dir`` when storage has no local paths,
    the text, or the row). ``sample_ids`` narrows the pool to those samples.

    e.g. ``label_pool(dataset=d, cache_dir=Path("/tmp/c"))`` -> ``{"kind": "label_pool", "version": 1,
    "task_type": "image_classification", "classes": ["cat", "dog"], "samples": [{"id": 7, "sha256":
    "…", "label": 0, "split": "", "image_path": "/…/7.png", "width": 32, "height": 32}]}``
    """
    task = cast(PoolTask, dataset.task_type)
    if version is not None:
        classes = [str(name) for name in version.classes]
        samples = _version_samples(task=task, version=version, cache_dir=cache_dir, sample_ids=sample_ids)
        schema = version.schema or {}
    else:
        labels = list(
            Label.objects.filter(dataset=dataset).order_by("position", "id").values_list("pk", "name")
        )
        classes = [name for _, name in labels]
        index_of = {pk: index for index, (pk, _) in enumerate(labels)}
        samples = _live_samples(
            task=task, dataset=dataset, index_of=index_of, cache_dir=cache_dir, sample_ids=sample_ids
        )
        schema = dataset.schema or {}
    pool: LabelPool = {
        "kind": "label_pool",
        "version": SMART_LABELING_VERSION,
        "task_type": task,
        "classes": classes,
        "samples": samples,
    }
    if dataset.task_type in TABULAR_TASKS:
        pool["columns"] = [
            {"name": str(column["name"]), "type": str(column["type"])} for column in schema.get("columns", [])
        ]
        pool["target"] = str(schema.get("target", ""))
    return pool


def _content(
    task: str,
    sample: PoolSample,
    *,
    blob_key: str,
    width: int,
    height: int,
    text: str,
    values,
    cache_dir: Path,
) -> None:
    if task in IMAGE_TASKS:
        sample["image_path"] = blob_local_path(blob_key, cache_dir)
        sample["width"] = width
        sample["height"] = height
    elif task == TaskType.TEXT_CLASSIFICATION:
        sample["text"] = text
    else:
        sample["values"] = values or {}


def _live_samples(
    *,
    task: str,
    dataset: Dataset,
    index_of: dict[int, int],
    cache_dir: Path,
    sample_ids: Collection[int] | None,
) -> list[PoolSample]:
    rows = Sample.objects.filter(dataset=dataset)
    if sample_ids is not None:
        rows = rows.filter(pk__in=list(sample_ids))
    fields = ["pk", "sha256", "label_id", "annotation_status", "target", "blob_key", "width", "height"]
    if task == TaskType.TEXT_CLASSIFICATION:
        fields.append("text")
    elif task in TABULAR_TASKS:
        fields.append("values")
    boxes_of = (
        _live_boxes(dataset=dataset, index_of=index_of, sample_ids=sample_ids)
        if task in ANNOTATION_TASKS
        else {}
    )
    samples: list[PoolSample] = []
    for row in rows.order_by("pk").values(*fields).iterator(chunk_size=_CHUNK):
        label_id = row["label_id"]
        sample: PoolSample = {
            "id": row["pk"],
            "sha256": row["sha256"],
            "label": index_of.get(label_id) if label_id is not None else None,
            "split": "",
        }
        if task in ANNOTATION_TASKS:
            sample["label"] = None
            status = row["annotation_status"]
            sample["boxes"] = None if status == AnnotationStatus.UNLABELED else boxes_of.get(row["pk"], [])
        elif task in REGRESSION_TASKS:
            sample["label"] = None
            sample["target"] = row["target"]
        _content(
            task,
            sample,
            blob_key=row["blob_key"],
            width=row["width"],
            height=row["height"],
            text=row.get("text", ""),
            values=row.get("values"),
            cache_dir=cache_dir,
        )
        samples.append(sample)
    return samples


def _live_boxes(
    *, dataset: Dataset, index_of: dict[int, int], sample_ids: Collection[int] | None
) -> dict[int, list[PoolBox]]:
    rows = Annotation.objects.filter(sample__dataset=dataset, kind="box")
    if sample_ids is not None:
        rows = rows.filter(sample_id__in=list(sample_ids))
    boxes: dict[int, list[PoolBox]] = defaultdict(list)
    for sample_id, label_id, geometry in (
        rows.order_by("sample_id", "pk")
        .values_list("sample_id", "label_id", "geometry")
        .iterator(chunk_size=_CHUNK)
    ):
        boxes[sample_id].append(_box(index_of[label_id], geometry))
    return boxes


def _box(label: int, geometry: dict) -> PoolBox:
    return {
        "label": label,
        "x": float(geometry["x"]),
        "y": float(geometry["y"]),
        "width": float(geometry["width"]),
        "height": float(geometry["height"]),
    }


def _version_samples(
    *, task: str, version: DatasetVersion, cache_dir: Path, sample_ids: Collection[int] | None
) -> list[PoolSample]:
    """A version's entries; an entry whose sample was deleted since keeps ``-entry id`` as its id
    (never a live sample's)."""
    rows = VersionSample.objects.filter(version=version)
    if sample_ids is not None:
        rows = rows.filter(sample_id__in=list(sample_ids))
    entries: Iterable[tuple] = (
        rows.order_by("pk")
        .values_list(
            "pk",
            "sample_id",
            "sha256",
            "split",
            "label_index",
            "blob_key",
            "width",
            "height",
            "text",
            "values",
            "target",
            "annotations",
        )
        .iterator(chunk_size=_CHUNK)
    )
    samples: list[PoolSample] = []
    for entry, sample_id, sha256, split, index, key, width, height, text, values, target, stored in entries:
        sample: PoolSample = {
            "id": sample_id if sample_id is not None else -entry,
            "sha256": sha256,
            "label": index,
            "split": cast(PoolSplit, split),
        }
        if task in ANNOTATION_TASKS:
            sample["label"] = None
            sample["boxes"] = [_box(int(box["label"]), box) for box in stored or []]
        elif task in REGRESSION_TASKS:
            sample["label"] = None
            sample["target"] = target
        _content(
            task,
            sample,
            blob_key=key,
            width=width,
            height=height,
            text=text,
            values=values,
            cache_dir=cache_dir,
        )
        samples.append(sample)
    return samples
