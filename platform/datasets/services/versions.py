"""Dataset versions: immutable snapshots of the labeled samples with a seeded, stratified
train/val/test split, and what the training service reads of one: the manifest it trains on
(``workers.contracts.manifest``) and the check that a version can be trained on."""

from __future__ import annotations

import math
import os
import random
import secrets
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import cast
from uuid import uuid4

from config.exceptions import field_error
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q

from datasets.models import (
    ANNOTATION_TASKS,
    FORECASTING_TASKS,
    IMAGE_TASKS,
    REGRESSION_TASKS,
    Annotation,
    AnnotationStatus,
    Dataset,
    DatasetVersion,
    Label,
    ReviewStatus,
    Sample,
    Split,
    TaskType,
    VersionSample,
)
from datasets.services.imports import Report, chunks
from workers.contracts.annotations import DetectionBox, DetectionManifest, DetectionSample
from workers.contracts.forecasting import TimeSeriesManifest
from workers.contracts.manifest import (
    MANIFEST_VERSION,
    DatasetManifest,
    DatasetSchema,
    ImageManifest,
    SplitName,
    TabularManifest,
    TabularSample,
    TextManifest,
    TextSample,
)
from workers.progress import silent_report

ROWS_KEY = "rows"  # a regression version's counts: {"train": {"rows": n}, ...}
MIN_REGRESSION_ROWS = 10


def stratified_split(
    *, members: dict[str, list[int]], ratios: tuple[float, float, float], seed: int
) -> dict[int, str]:
    """Split every class by ``ratios`` (train, val, test); the same members and seed always give
    the same split.

    Each class gets floor(n * ratio) samples per split; the few left over go, class by class, to
    the split furthest below its share of the whole dataset so far. So a class of 10 at
    0.8/0.1/0.1 splits exactly 8/1/1, and classes of 6 still fill val and test between them
    (rounding each class alone would put all of them in train and val).

    e.g. ``stratified_split(members={"cat": [1, 2, 3, 4]}, ratios=(0.5, 0.25, 0.25), seed=7)``
    """
    names = [Split.TRAIN, Split.VAL, Split.TEST]
    assigned, seen = [0, 0, 0], 0
    splits: dict[int, str] = {}
    for name in sorted(members):
        ids = sorted(members[name])
        random.Random(f"{seed}:{name}").shuffle(ids)
        seen += len(ids)
        counts = [math.floor(len(ids) * r) for r in ratios]
        for _ in range(len(ids) - sum(counts)):
            deficit = [
                seen * r - (assigned[i] + counts[i]) if r > 0 else -math.inf for i, r in enumerate(ratios)
            ]
            counts[deficit.index(max(deficit))] += 1
        for i in range(3):
            assigned[i] += counts[i]
        bounds = [counts[0], counts[0] + counts[1]]
        for position, sample_id in enumerate(ids):
            splits[sample_id] = (
                names[0] if position < bounds[0] else names[1] if position < bounds[1] else names[2]
            )
    return splits


VERSION_BATCH = 5000  # samples read, copied and committed together; progress is reported per batch


def version_ratios(*, train_ratio: float, val_ratio: float, test_ratio: float) -> tuple[float, float, float]:
    """The split ratios, or a 400 naming what is wrong with them."""
    ratios = (float(train_ratio), float(val_ratio), float(test_ratio))
    if any(r < 0 or r > 1 for r in ratios) or abs(sum(ratios) - 1.0) > 1e-6:
        raise field_error(
            "train_ratio",
            f"The ratios must each be between 0 and 1 and add up to 1; they add up to {sum(ratios):g}.",
        )
    if ratios[0] <= 0:
        raise field_error("train_ratio", "The training split needs a ratio above 0.")
    return ratios


def version_candidate_count(*, dataset: Dataset, reviewed_only: bool = False) -> int:
    """How many samples a new version of ``dataset`` would hold (what decides whether it is made
    inside the request or by a ``datasets.version`` job)."""
    if dataset.task_type in FORECASTING_TASKS:
        return Sample.objects.filter(dataset=dataset).count()
    if dataset.task_type in ANNOTATION_TASKS:
        return (
            Sample.objects.filter(dataset=dataset, **_review_filter(reviewed_only))
            .exclude(annotation_status=AnnotationStatus.UNLABELED)
            .count()
        )
    return Sample.objects.filter(_labeled(dataset), dataset=dataset, **_review_filter(reviewed_only)).count()


def _labeled(dataset: Dataset) -> Q:
    return Q(target__isnull=False) if dataset.task_type in REGRESSION_TASKS else Q(label__isnull=False)


def dataset_version_create(
    *,
    dataset: Dataset,
    user,
    train_ratio: float = 0.8,
    val_ratio: float = 0.1,
    test_ratio: float = 0.1,
    seed: int | None = None,
    note: str = "",
    reviewed_only: bool = False,
    horizon: int | None = None,
    job=None,
    report: Report | None = None,
) -> DatasetVersion:
    """Snapshot the dataset's labeled samples with a stratified split; numbered V1, V2, ...
    ``reviewed_only``: only the samples a reviewer accepted (``review_status`` accepted).
    Forecasting datasets are split by time instead, by ``horizon`` (required; the ratios are
    ignored): ``datasets.services.time_series.forecasting_version_create``.

    The samples are copied in batches of ``VERSION_BATCH``, each committed and reported to ``report``
    (``processed`` of ``total``, ``eta_s``); the version stays hidden (``ready`` False) until the last
    batch is in, and is removed again when a batch fails or the job is cancelled. ``job``: the
    ``datasets.version`` job making it (recorded on the version, so a redelivery finds it).

    e.g. ``dataset_version_create(dataset=d, user=u, train_ratio=0.7, val_ratio=0.15, test_ratio=0.15,
    seed=42)``
    """
    if dataset.task_type in FORECASTING_TASKS:
        from datasets.services.time_series import forecasting_version_create

        with transaction.atomic():
            version = forecasting_version_create(
                dataset=dataset,
                user=user,
                horizon=horizon,
                note=note,
                seed=secrets.randbelow(2**31) if seed is None else int(seed),
            )
            if job is not None:
                DatasetVersion.objects.filter(pk=version.pk).update(job=job)
        return version
    ratios = version_ratios(train_ratio=train_ratio, val_ratio=val_ratio, test_ratio=test_ratio)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    if dataset.task_type in ANNOTATION_TASKS:
        with transaction.atomic():
            version = _detection_version_create(
                dataset=dataset, user=user, ratios=ratios, seed=seed, note=note, reviewed_only=reviewed_only
            )
            if job is not None:
                DatasetVersion.objects.filter(pk=version.pk).update(job=job)
        return version
    return _version_build(
        dataset=dataset,
        user=user,
        ratios=ratios,
        seed=seed,
        note=note,
        reviewed_only=reviewed_only,
        job=job,
        report=silent_report if report is None else report,
    )


def _version_build(
    *,
    dataset: Dataset,
    user,
    ratios: tuple[float, float, float],
    seed: int,
    note: str,
    reviewed_only: bool,
    job,
    report: Report,
) -> DatasetVersion:
    """Classification, regression, text and tabular versions, streamed: one pass reads only (id,
    label) to split, then the samples are copied ``VERSION_BATCH`` at a time. The memory it holds
    grows with the number of samples only by a few integers each (never their texts or rows)."""
    regression = dataset.task_type in REGRESSION_TASKS
    report("reading the labels", fraction=0.0, milestone=True)
    members: dict[str, list[int]] = defaultdict(list)
    for pk, name in (
        Sample.objects.filter(_labeled(dataset), dataset=dataset, **_review_filter(reviewed_only))
        .order_by("pk")
        .values_list("pk", "label__name")
        .iterator(chunk_size=VERSION_BATCH)
    ):
        members[ROWS_KEY if regression else name].append(pk)
    total = sum(len(ids) for ids in members.values())
    if not total and reviewed_only:
        raise field_error("reviewed_only", NO_ACCEPTED_SAMPLES)
    if not total:
        raise field_error(
            "dataset", "The dataset has no labeled samples; label some before making a version."
        )
    # Classes in the labels' order (the user's), so class indices, keys and every table of the
    # report agree; a version keeps the order it was made with.
    order = {} if regression else _label_order(dataset)
    classes = [] if regression else sorted(members, key=lambda n: (order.get(n, len(order)), n))
    splits = stratified_split(members=members, ratios=ratios, seed=seed)
    names = classes or [ROWS_KEY]
    label_of = {pk: i for i, name in enumerate(names) for pk in members[name]}
    del members
    unlabeled = Sample.objects.filter(~_labeled(dataset), dataset=dataset).count()
    with transaction.atomic():
        list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))
        version = DatasetVersion.all_objects.create(
            dataset=dataset,
            number=_next_version_number(dataset),
            note=note,
            seed=seed,
            train_ratio=ratios[0],
            val_ratio=ratios[1],
            test_ratio=ratios[2],
            classes=classes,
            sample_count=0,
            unlabeled_excluded=unlabeled,
            schema=dataset.schema or {},
            reviewed_only=reviewed_only,
            created_by=user if user is not None and user.is_authenticated else None,
            ready=False,
            job=job,
        )
    try:
        counts = _version_fill(version=version, splits=splits, label_of=label_of, names=names, report=report)
    except BaseException:
        DatasetVersion.all_objects.filter(pk=version.pk).delete()  # its entries go with it
        raise
    copied = sum(sum(c.values()) for c in counts.values())
    DatasetVersion.all_objects.filter(pk=version.pk).update(
        ready=True,
        sample_count=copied,
        counts={s: {n: c[n] for n in names if n in c} for s, c in counts.items()},
    )
    return DatasetVersion.objects.get(pk=version.pk)


def _version_fill(
    *,
    version: DatasetVersion,
    splits: dict[int, str],
    label_of: dict[int, int],
    names: list[str],
    report: Report,
) -> dict[str, Counter]:
    """Copy the split samples into ``version``, a batch per transaction; returns the counts per split
    and class of what was copied (a sample deleted since the split was read is left out)."""
    regression = version.dataset.task_type in REGRESSION_TASKS
    counts: dict[str, Counter] = {s.value: Counter() for s in Split}
    total, done = len(splits), 0
    started = time.monotonic()
    for chunk in chunks(sorted(splits), VERSION_BATCH):
        rows = (
            Sample.objects.filter(pk__in=chunk)
            .order_by("pk")
            .values_list("pk", "blob_key", "sha256", "original_name", "text", "values", "target")
        )
        entries = []
        for pk, key, sha, original, text, values, target in rows:
            name = names[label_of[pk]]
            counts[splits[pk]][name] += 1
            entries.append(
                VersionSample(
                    version=version,
                    sample_id=pk,
                    split=splits[pk],
                    label_index=label_of[pk],
                    label_name="" if regression else name,
                    blob_key=key,
                    sha256=sha,
                    original_name=original,
                    text=text,
                    values=values,
                    target=target,
                )
            )
        with transaction.atomic():
            VersionSample.objects.bulk_create(entries)
        done += len(chunk)
        elapsed = time.monotonic() - started
        report(
            f"copied {done} of {total} samples",
            fraction=done / total,
            milestone=True,  # every batch is a point of the series (5000 samples: 20 points at 100,000)
            processed=done,
            total=total,
            eta_s=round(elapsed / done * (total - done), 1),
        )
    return counts


NO_OBJECTS_GROUP = "\x00no objects"  # the split's group of reviewed images without boxes (no label name)


NO_ACCEPTED_SAMPLES = (
    "No labeled sample of this dataset has been accepted by a reviewer; review samples before making a "
    "reviewed-only version."
)


def _review_filter(reviewed_only: bool) -> dict[str, str]:
    return {"review_status": ReviewStatus.ACCEPTED} if reviewed_only else {}


def _detection_version_create(
    *,
    dataset: Dataset,
    user,
    ratios: tuple[float, float, float],
    seed: int,
    note: str,
    reviewed_only: bool = False,
) -> DatasetVersion:
    """Object detection: the reviewed images (annotated, and no_objects with no boxes), their boxes
    as they are now; unlabeled images are left out. Classes are the labels that have boxes, in the
    user's order. The split is stratified by each image's rarest class (no_objects a group of its
    own), so a rare class reaches val and test. ``counts`` are boxes per class per split."""
    with transaction.atomic():
        list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))
        reviewed = Sample.objects.filter(dataset=dataset, **_review_filter(reviewed_only)).exclude(
            annotation_status=AnnotationStatus.UNLABELED
        )
        rows = list(
            reviewed.order_by("pk").values_list(
                "pk", "blob_key", "sha256", "original_name", "width", "height"
            )
        )
        if not rows and reviewed_only:
            raise field_error("reviewed_only", NO_ACCEPTED_SAMPLES)
        if not rows:
            raise field_error(
                "dataset",
                "The dataset has no reviewed images: draw boxes (or mark images as having no objects) "
                "before making a version.",
            )
        boxes: dict[int, list[tuple[str, dict, dict]]] = defaultdict(list)
        for sample_id, name, geometry, attributes in (
            Annotation.objects.filter(sample__in=reviewed)
            .order_by("sample_id", "pk")
            .values_list("sample_id", "label__name", "geometry", "attributes")
        ):
            boxes[sample_id].append((name, geometry, attributes))
        box_counts = Counter(name for found in boxes.values() for name, _, _ in found)
        order = _label_order(dataset)
        classes = sorted(box_counts, key=lambda n: (order.get(n, len(order)), n))
        index = {name: i for i, name in enumerate(classes)}
        members: dict[str, list[int]] = defaultdict(list)
        for pk, *_ in rows:
            names = {name for name, _, _ in boxes.get(pk, [])}
            group = min(names, key=lambda n: (box_counts[n], index[n])) if names else NO_OBJECTS_GROUP
            members[group].append(pk)
        splits = stratified_split(members=members, ratios=ratios, seed=seed)
        counts: dict[str, Counter] = {s.value: Counter() for s in Split}
        for pk, *_ in rows:
            counts[splits[pk]].update(name for name, _, _ in boxes.get(pk, []))
        number = _next_version_number(dataset)
        version = DatasetVersion.objects.create(
            dataset=dataset,
            number=number,
            note=note,
            seed=seed,
            train_ratio=ratios[0],
            val_ratio=ratios[1],
            test_ratio=ratios[2],
            classes=classes,
            counts={split: {n: c[n] for n in classes if n in c} for split, c in counts.items()},
            split_sizes={s.value: sum(1 for pk, *_ in rows if splits[pk] == s.value) for s in Split},
            sample_count=len(rows),
            unlabeled_excluded=Sample.objects.filter(
                dataset=dataset, annotation_status=AnnotationStatus.UNLABELED
            ).count(),
            reviewed_only=reviewed_only,
            created_by=user,
        )
        for chunk in chunks(rows, 5000):
            VersionSample.objects.bulk_create(
                [
                    VersionSample(
                        version=version,
                        sample_id=pk,
                        split=splits[pk],
                        label_index=0,
                        label_name="",
                        blob_key=key,
                        sha256=sha,
                        original_name=original,
                        width=width,
                        height=height,
                        annotations=[
                            {"label": index[name], **geometry, "attributes": attributes or {}}
                            for name, geometry, attributes in boxes.get(pk, [])
                        ],
                    )
                    for pk, key, sha, original, width, height in chunk
                ]
            )
    return version


def _next_version_number(dataset: Dataset) -> int:
    """The number the dataset's next version takes (called under the dataset's row lock; a version
    a job is still filling holds its number)."""
    last = (
        DatasetVersion.all_objects.filter(dataset=dataset)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return (last or 0) + 1


def _label_order(dataset: Dataset) -> dict[str, int]:
    names = Label.objects.filter(dataset=dataset).order_by("position", "id").values_list("name", flat=True)
    return {name: i for i, name in enumerate(names)}


def blob_local_path(key: str, cache_dir: Path) -> str:
    """A local path for a stored blob: the blob itself on filesystem storage, else a copy under
    ``cache_dir``, downloaded when missing (a host's cache may vanish at any time: DESIGN §13) and
    touched on every use, so the host's tidy (``jobs.host_cache``) evicts only copies unused for days."""
    try:
        return default_storage.path(key)
    except NotImplementedError:
        target = cache_dir / key
        try:
            os.utime(target)
        except FileNotFoundError:
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{uuid4().hex}.part")
            with default_storage.open(key, "rb") as remote, open(partial, "wb") as out:
                while chunk := remote.read(1024 * 1024):
                    out.write(chunk)
            os.replace(partial, target)
        return str(target)


def _sample_ref(entry: int, sample_id: int | None) -> int | str:
    """The dataset's sample id, so evaluation reports point at samples the UI can open; a sample
    deleted since the snapshot keeps a reference that cannot be mistaken for one."""
    return sample_id if sample_id is not None else f"deleted-{entry}"


def _split(name: str) -> SplitName:
    return cast(SplitName, name)  # VersionSample.split's choices are the contract's three names


def dataset_version_manifest(
    *, version: DatasetVersion, cache_dir: Path | None = None
) -> DatasetManifest | DetectionManifest | TimeSeriesManifest:
    """What the compute plane trains on (``workers.contracts.manifest``): image versions as local
    file paths, text and tabular ones with their rows inline; label indexes into ``classes``, splits.

    e.g. ``dataset_version_manifest(version=v)`` -> ``{"kind": "image", "version": 1, "classes": ["cat",
    "dog"], "samples": [{"path": "/.../ab12....png", "label": 0, "split": "train", "id": 17}]}``
    With local filesystem storage the paths are the blobs themselves; other storages are
    downloaded once into ``cache_dir`` (default SAMPAN_HOME/cache).
    """
    if version.dataset.task_type in FORECASTING_TASKS:
        from datasets.services.time_series import forecasting_manifest

        return forecasting_manifest(version=version)
    if version.dataset.task_type not in IMAGE_TASKS:
        return _table_manifest(version=version)
    cache = Path(cache_dir) if cache_dir is not None else Path(settings.SAMPAN_HOME) / "cache"
    if version.dataset.task_type in ANNOTATION_TASKS:
        return _detection_manifest(version=version, cache=cache)
    rows = (
        VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("pk", "sample_id", "blob_key", "label_index", "split")
    )
    manifest: ImageManifest = {
        "kind": "image",
        "version": MANIFEST_VERSION,
        "classes": list(version.classes),
        "samples": [
            {
                "path": blob_local_path(key, cache),
                "label": index,
                "split": _split(split),
                "id": _sample_ref(entry, sample_id),
            }
            for entry, sample_id, key, index, split in rows
        ],
    }
    return manifest


def _check_detection_trainable(*, version: DatasetVersion, per_class: Counter, min_boxes: int) -> None:
    """A detector learns even one class; each class needs ``min_boxes`` boxes, and the training
    split some boxes at all."""
    if not version.classes:
        raise field_error(
            "dataset_version",
            f"{version.name} has no boxes; training a detector needs images with boxes. Draw boxes and make "
            "a new version.",
        )
    small = [(name, per_class[name]) for name in version.classes if per_class[name] < min_boxes]
    if small:
        listed = ", ".join(f"{name!r} has {n}" for name, n in small[:10])
        raise field_error(
            "dataset_version",
            f"{version.name}: every class needs at least {min_boxes} boxes, but {listed}. Draw more boxes of "
            "these classes and make a new version.",
        )
    if not sum((version.counts or {}).get(Split.TRAIN, {}).values()):
        raise field_error("dataset_version", f"{version.name}'s training split has no boxes.")


def _detection_manifest(*, version: DatasetVersion, cache: Path) -> DetectionManifest:
    """e.g. ``{"kind": "detection", "version": 1, "classes": ["cat"], "samples": [{"id": 3, "path":
    "/.../ab.png", "width": 128, "height": 96, "boxes": [{"label": 0, "x": 4, "y": 5, "width": 20,
    "height": 30}], "split": "train"}]}``"""
    rows = (
        VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("pk", "sample_id", "blob_key", "split", "width", "height", "annotations")
    )
    samples: list[DetectionSample] = []
    for entry, sample_id, key, split, width, height, stored in rows:
        boxes: list[DetectionBox] = [
            {
                "label": int(box["label"]),
                "x": float(box["x"]),
                "y": float(box["y"]),
                "width": float(box["width"]),
                "height": float(box["height"]),
            }
            for box in stored or []
        ]
        samples.append(
            {
                "id": _sample_ref(entry, sample_id),
                "path": blob_local_path(key, cache),
                "width": width,
                "height": height,
                "boxes": boxes,
                "split": _split(split),
            }
        )
    manifest: DetectionManifest = {
        "kind": "detection",
        "version": MANIFEST_VERSION,
        "classes": list(version.classes),
        "samples": samples,
    }
    return manifest


def _table_manifest(*, version: DatasetVersion) -> TextManifest | TabularManifest:
    """A text or tabular version for the compute plane, rows inline."""
    rows = (
        VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("pk", "sample_id", "label_index", "split", "text", "values", "target")
        .iterator(chunk_size=5000)
    )
    if version.dataset.task_type == TaskType.TEXT_CLASSIFICATION:
        texts: list[TextSample] = [
            {"id": _sample_ref(entry, sample_id), "split": _split(split), "text": text, "label": index}
            for entry, sample_id, index, split, text, _, _ in rows
        ]
        text_manifest: TextManifest = {
            "kind": "text",
            "version": MANIFEST_VERSION,
            "classes": list(version.classes),
            "samples": texts,
        }
        return text_manifest
    regression = version.dataset.task_type in REGRESSION_TASKS
    samples: list[TabularSample] = []
    for entry, sample_id, index, split, _, values, target in rows:
        sample: TabularSample = {
            "id": _sample_ref(entry, sample_id),
            "split": _split(split),
            "values": values or {},
        }
        if regression:
            sample["target"] = cast(float, target)  # a regression version holds only rows with a target
        else:
            sample["label"] = index
        samples.append(sample)
    schema: DatasetSchema = version.schema
    manifest: TabularManifest = {
        "kind": "tabular",
        "version": MANIFEST_VERSION,
        "task": "regression" if regression else "classification",
        "columns": schema.get("columns", []),
        "target": schema["target"],
        "classes": list(version.classes),
        "samples": samples,
    }
    return manifest


def dataset_version_check_trainable(*, version: DatasetVersion, min_per_class: int) -> None:
    """Raise a 400 naming the problem unless the version has >= 2 classes, each with at least
    ``min_per_class`` samples (a regression version: enough rows and a target that varies).
    e.g. ``dataset_version_check_trainable(version=v, min_per_class=5)``"""
    if version.dataset.task_type in FORECASTING_TASKS:
        if not version.horizon or not (version.counts or {}).get(Split.TEST, {}).get("series"):
            raise field_error(
                "dataset_version",
                f"{version.name} has no series long enough for a validation and a test window; make a "
                "version with a shorter horizon.",
            )
        return
    if version.dataset.task_type in REGRESSION_TASKS:
        targets = VersionSample.objects.filter(version=version).values_list("target", flat=True)
        if version.sample_count < MIN_REGRESSION_ROWS:
            raise field_error(
                "dataset_version",
                f"{version.name} has {version.sample_count} rows with a target; regression needs at least "
                f"{MIN_REGRESSION_ROWS}.",
            )
        if targets.distinct().count() < 2:
            raise field_error(
                "dataset_version",
                f"{version.name}: the target has the same value in every row; there is nothing to learn.",
            )
        return
    per_class: Counter = Counter()
    for split_counts in (version.counts or {}).values():
        per_class.update(split_counts)
    present = sorted(name for name, n in per_class.items() if n > 0)
    if version.dataset.task_type in ANNOTATION_TASKS:
        _check_detection_trainable(version=version, per_class=per_class, min_boxes=min_per_class)
        return
    if len(present) < 2:
        found = f" ({', '.join(present)})" if present else ""
        raise field_error(
            "dataset_version",
            f"{version.name} has {len(present)} labeled class{'' if len(present) == 1 else 'es'}{found}; "
            "training needs at least 2. Label samples of another class and make a new version.",
        )
    small = [(name, per_class[name]) for name in present if per_class[name] < min_per_class]
    if small:
        listed = ", ".join(f"{name!r} has {n}" for name, n in small[:10])
        raise field_error(
            "dataset_version",
            f"{version.name}: every class needs at least {min_per_class} samples, but {listed}. "
            "Label more samples of these classes and make a new version.",
        )
