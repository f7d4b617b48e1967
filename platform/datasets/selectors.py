"""Reads of the data service, scoped by workspace membership. Counts come from the database
(index-only GROUP BYs), never from scanning blobs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from config.exceptions import field_error
from django.db.models import (
    Avg,
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest
from workspaces.selectors import scoped_to_member

from datasets.label_order import label_keys
from datasets.models import (
    ANNOTATION_TASKS,
    IMAGE_TASKS,
    REGRESSION_TASKS,
    TABULAR_TASKS,
    Annotation,
    AnnotationStatus,
    Dataset,
    DatasetVersion,
    ImportBatch,
    Label,
    Sample,
    SampleActivity,
    TaskType,
    VersionSample,
)
from datasets.tables import column_profile, target_profile


def _count_of(queryset: QuerySet) -> Coalesce:
    counted = queryset.order_by().values("dataset").annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def datasets_for(*, user) -> QuerySet[Dataset]:
    samples = Sample.objects.filter(dataset=OuterRef("pk"))
    return scoped_to_member(Dataset.objects.select_related("created_by"), user=user).annotate(
        sample_count=_count_of(samples),
        labeled_count=_count_of(
            samples.filter(
                Q(label__isnull=False)
                | Q(target__isnull=False)
                | ~Q(annotation_status=AnnotationStatus.UNLABELED)  # object detection: reviewed
            )
        ),
        label_count=_count_of(Label.objects.filter(dataset=OuterRef("pk"))),
    )


def dataset_for(*, user, dataset_id) -> Dataset | None:
    """The dataset if the user is a member of its workspace (no counts: the cheap lookup)."""
    return scoped_to_member(Dataset.objects.all(), user=user).filter(pk=dataset_id).first()


def labels_of(*, dataset: Dataset) -> QuerySet[Label]:
    counted = (
        Count("annotations__sample", distinct=True)  # images with a box of the label
        if dataset.task_type in ANNOTATION_TASKS
        else Count("samples")
    )
    return Label.objects.filter(dataset=dataset).annotate(sample_count=counted).order_by("position", "id")


def label_keys_of(*, dataset: Dataset) -> dict[int, str | None]:
    """Each label's key in the labeling grid (its shortcut, else the default of its place)."""
    return label_keys(
        list(Label.objects.filter(dataset=dataset).order_by("position", "id").values_list("pk", "shortcut"))
    )


def imports_of(*, dataset: Dataset) -> QuerySet[ImportBatch]:
    return ImportBatch.objects.filter(dataset=dataset).select_related("created_by", "job")


def versions_of(*, dataset: Dataset) -> QuerySet[DatasetVersion]:
    return DatasetVersion.objects.filter(dataset=dataset).select_related("created_by")


@dataclass(frozen=True)
class SampleCounts:
    total: int
    labeled: int
    unlabeled: int
    per_label: list[dict]  # [{"id", "name", "color", "count"}], every label, in label order
    annotated: int | None = None  # object detection; else labeled
    no_objects: int = 0

    def as_dict(self) -> dict:
        return {
            "total": self.total,
            "labeled": self.labeled,
            "unlabeled": self.unlabeled,
            "annotated": self.labeled if self.annotated is None else self.annotated,
            "no_objects": self.no_objects,
            "per_label": self.per_label,
        }


def _detection_counts(dataset: Dataset) -> SampleCounts:
    """Two queries: a GROUP BY status over the (dataset, status, id) index, and the labels with the
    images having a box of each."""
    by_status = dict(
        Sample.objects.filter(dataset=dataset)
        .order_by()
        .values_list("annotation_status")
        .annotate(n=Count("*"))
    )
    per_label = [
        {"id": pk, "name": name, "color": color, "count": images}
        for pk, name, color, images in Label.objects.filter(dataset=dataset)
        .annotate(images=Count("annotations__sample", distinct=True))
        .order_by("position", "id")
        .values_list("pk", "name", "color", "images")
    ]
    annotated = by_status.get(AnnotationStatus.ANNOTATED, 0)
    no_objects = by_status.get(AnnotationStatus.NO_OBJECTS, 0)
    unlabeled = by_status.get(AnnotationStatus.UNLABELED, 0)
    return SampleCounts(
        total=annotated + no_objects + unlabeled,
        labeled=annotated + no_objects,
        unlabeled=unlabeled,
        per_label=per_label,
        annotated=annotated,
        no_objects=no_objects,
    )


def sample_counts(*, dataset: Dataset) -> SampleCounts:
    """Two queries at any size: a GROUP BY label over the (dataset, label, id) index, and the labels."""
    if dataset.task_type in ANNOTATION_TASKS:
        return _detection_counts(dataset)
    by_label = dict(
        Sample.objects.filter(dataset=dataset).order_by().values_list("label_id").annotate(n=Count("*"))
    )
    unlabeled = by_label.pop(None, 0)
    if dataset.task_type in REGRESSION_TASKS:  # labeled: the row has a numeric target
        unlabeled = Sample.objects.filter(dataset=dataset, target__isnull=True).count()
        by_label = {"rows": Sample.objects.filter(dataset=dataset, target__isnull=False).count()}
    per_label = [
        {"id": pk, "name": name, "color": color, "count": by_label.get(pk, 0)}
        for pk, name, color in Label.objects.filter(dataset=dataset)
        .order_by("position", "id")
        .values_list("pk", "name", "color")
    ]
    labeled = sum(by_label.values())
    return SampleCounts(total=labeled + unlabeled, labeled=labeled, unlabeled=unlabeled, per_label=per_label)


@dataclass(frozen=True)
class SampleList:
    queryset: QuerySet[Sample]
    count: int | None  # known without another query, or None
    counts: SampleCounts
    version: DatasetVersion | None


def sample_list(
    *,
    dataset: Dataset,
    label: int | None = None,
    unlabeled: bool | None = None,
    version: int | None = None,
    split: str | None = None,
    search: str | None = None,
    ids: list[int] | None = None,
    annotation_status: str | None = None,
    box_label: int | None = None,
    review_status: str | None = None,
) -> SampleList:
    """Samples of a dataset, filtered, in id order, with the dataset's counts. The filtered count
    is taken from the counts when the filter is by label alone (the common case), so a page costs
    four queries whatever its size. ``version`` is a dataset version's id; ``split`` needs it;
    ``ids`` picks samples by id (those not in the dataset are simply not found)."""
    queryset = Sample.objects.filter(dataset=dataset).select_related("label").order_by("id")
    counts = sample_counts(dataset=dataset)
    known: int | None = counts.total
    if label is not None and unlabeled:
        raise field_error("unlabeled", "Filter by a label or by unlabeled, not both.")
    detection = dataset.task_type in ANNOTATION_TASKS
    if detection:
        queryset, known = _detection_filters(
            queryset,
            dataset=dataset,
            counts=counts,
            unlabeled=unlabeled,
            annotation_status=annotation_status,
            box_label=box_label if box_label is not None else label,
        )
        label, unlabeled = None, None
    elif annotation_status is not None or box_label is not None:
        raise field_error(
            "annotation_status" if annotation_status is not None else "box_label",
            "Only object-detection datasets have annotations to filter by.",
        )
    if label is not None:
        queryset = queryset.filter(label_id=label)
        known = next((row["count"] for row in counts.per_label if row["id"] == label), 0)
    elif unlabeled is not None:
        queryset = queryset.filter(label__isnull=unlabeled)
        known = counts.unlabeled if unlabeled else counts.labeled
    found_version = None
    if split and version is None:
        raise field_error("split", "Give the version whose split to filter by (version=<id>).")
    if version is not None:
        found_version = DatasetVersion.objects.filter(dataset=dataset, pk=version).first()
        if found_version is None:
            raise field_error("version", f"No version with id {version} in this dataset.")
        entries: dict[str, object] = {"version_entries__version": found_version}
        if split:
            entries["version_entries__split"] = split
        queryset = queryset.filter(**entries).annotate(split=F("version_entries__split"))  # reuses the join
        known = None
    if search:
        queryset = (
            queryset.filter(original_name__icontains=search)
            if dataset.task_type in IMAGE_TASKS
            else queryset.filter(text__icontains=search)
            if dataset.task_type == TaskType.TEXT_CLASSIFICATION
            else queryset.filter(original_name__icontains=search)
        )
        known = None
    if ids is not None:
        # in the order given (a ranking, a report's findings), not by id
        place = Case(*(When(pk=pk, then=Value(n)) for n, pk in enumerate(ids)), output_field=IntegerField())
        queryset = queryset.filter(pk__in=ids).order_by(place, "id")
        known = None
    if review_status is not None:
        queryset = queryset.filter(review_status=review_status)
        known = None
    return SampleList(queryset=queryset, count=known, counts=counts, version=found_version)


def _detection_filters(
    queryset: QuerySet[Sample],
    *,
    dataset: Dataset,
    counts: SampleCounts,
    unlabeled: bool | None,
    annotation_status: str | None,
    box_label: int | None,
) -> tuple[QuerySet[Sample], int | None]:
    """An object-detection list's filters (``label`` means a box label there) and its count when
    one filter alone gives it from the counts."""
    known: list[int] = []
    if unlabeled is not None:
        unlabeled_status = Q(annotation_status=AnnotationStatus.UNLABELED)
        queryset = queryset.filter(unlabeled_status if unlabeled else ~unlabeled_status)
        known.append(counts.unlabeled if unlabeled else counts.labeled)
    if annotation_status is not None:
        queryset = queryset.filter(annotation_status=annotation_status)
        known.append(
            {
                str(AnnotationStatus.UNLABELED): counts.unlabeled,
                str(AnnotationStatus.NO_OBJECTS): counts.no_objects,
            }.get(annotation_status, counts.annotated or 0)
        )
    if box_label is not None:
        queryset = queryset.filter(
            pk__in=Annotation.objects.filter(label_id=box_label, sample__dataset=dataset).values("sample_id")
        )
        known.append(next((row["count"] for row in counts.per_label if row["id"] == box_label), 0))
    if not known:
        return queryset, counts.total
    return queryset, known[0] if len(known) == 1 else None


def box_context(*, dataset: Dataset, samples: list[Sample], counts: SampleCounts | None = None) -> dict:
    """What the sample list's box fields read: each listed sample's boxes (one query, only for
    object-detection datasets) and the labels' order (from the counts when given)."""
    if dataset.task_type not in ANNOTATION_TASKS or not samples:
        return {}
    boxes: dict[int, list[dict]] = {}
    for sample_id, label_id, geometry in (
        Annotation.objects.filter(sample__in=[s.pk for s in samples])
        .order_by("sample_id", "pk")
        .values_list("sample_id", "label_id", "geometry")
    ):
        boxes.setdefault(sample_id, []).append({"label": label_id, **geometry})
    if counts is not None:
        order = [row["id"] for row in counts.per_label]
    else:
        labels = Label.objects.filter(dataset=dataset).order_by("position", "id")
        order = list(labels.values_list("pk", flat=True))
    return {"boxes": boxes, "label_rank": {pk: i for i, pk in enumerate(order)}}


SIZE_BUCKETS = [32, 64, 128, 256, 512, 1024, 2048, 4096]
#: Relative-area histogram edges (box area / image area), log-spaced: 1e-4 ... 1.
AREA_EDGES = [round(10 ** (-4 + 0.4 * i), 6) for i in range(11)]
MAX_BOXES_BIN = 20


def detection_statistics(*, dataset: Dataset, counts: SampleCounts) -> dict:
    """Boxes per class, per image and by relative area, over the dataset's current annotations.
    Streams the boxes once (geometry is JSON, so sizes are summed here, not in SQL)."""
    per_label: dict[int, int] = {}
    per_image: dict[int, int] = {}
    areas = [0] * (len(AREA_EDGES) - 1)
    rows = (
        Annotation.objects.filter(sample__dataset=dataset)
        .order_by()
        .values_list("sample_id", "label_id", "geometry", "sample__width", "sample__height")
        .iterator(chunk_size=5000)
    )
    total = 0
    for sample_id, label_id, geometry, width, height in rows:
        total += 1
        per_label[label_id] = per_label.get(label_id, 0) + 1
        per_image[sample_id] = per_image.get(sample_id, 0) + 1
        image_area = max(1, width * height)
        relative = float(geometry.get("width", 0)) * float(geometry.get("height", 0)) / image_area
        areas[_bin_of(relative, AREA_EDGES)] += 1
    top = min(MAX_BOXES_BIN, max(per_image.values(), default=1))
    per_image_counts = [0] * top
    for n in per_image.values():
        per_image_counts[min(n, top) - 1] += 1
    return {
        "boxes": total,
        "boxes_per_class": [
            {"label": name, "count": per_label.get(pk, 0)}
            for pk, name in Label.objects.filter(dataset=dataset)
            .order_by("position", "id")
            .values_list("pk", "name")
        ],
        "boxes_per_image": {"bins": [float(n) for n in range(1, top + 2)], "counts": per_image_counts},
        "relative_area": {"bins": list(AREA_EDGES), "counts": areas},
        "images_without_boxes": counts.total - len(per_image),
        "unlabeled": counts.unlabeled,
        "no_objects": counts.no_objects,
        "annotated": counts.annotated or 0,
    }


def _bin_of(value: float, edges: list[float]) -> int:
    """The bin of ``value``: below the first edge goes to the first bin, above the last to the last."""
    for i in range(1, len(edges) - 1):
        if value < edges[i]:
            return i - 1
    return len(edges) - 2


def dataset_statistics(*, dataset: Dataset) -> dict:
    """Per-class counts, formats and the image size distribution, for the dataset's charts."""
    samples = Sample.objects.filter(dataset=dataset).order_by()
    counts = sample_counts(dataset=dataset)
    side = Greatest("width", "height")
    bucket = Case(
        *[When(**{"side__lte": limit}, then=Value(limit)) for limit in SIZE_BUCKETS],
        default=Value(0),
        output_field=IntegerField(),
    )
    buckets = dict(
        samples.annotate(side=side).annotate(bucket=bucket).values_list("bucket").annotate(n=Count("*"))
    )
    summary = samples.aggregate(
        min_width=Min("width"),
        max_width=Max("width"),
        mean_width=Avg("width"),
        min_height=Min("height"),
        max_height=Max("height"),
        mean_height=Avg("height"),
    )
    return {
        **counts.as_dict(),
        "detection": detection_statistics(dataset=dataset, counts=counts)
        if dataset.task_type in ANNOTATION_TASKS
        else None,
        "formats": [
            {"format": f, "count": n}
            for f, n in samples.values_list("format").annotate(n=Count("*")).order_by("-n", "format")
        ],
        "size_buckets": [
            {"max_side": limit or None, "count": buckets.get(limit, 0)} for limit in [*SIZE_BUCKETS, 0]
        ],
        "common_sizes": [
            {"width": w, "height": h, "count": n}
            for w, h, n in samples.values_list("width", "height")
            .annotate(n=Count("*"))
            .order_by("-n", "width", "height")[:50]
        ],
        "width": {"min": summary["min_width"], "max": summary["max_width"], "mean": summary["mean_width"]},
        "height": {
            "min": summary["min_height"],
            "max": summary["max_height"],
            "mean": summary["mean_height"],
        },
    }


def dataset_profile(*, dataset: Dataset) -> dict:
    """Per-column statistics and the target's balance over the dataset's current rows."""
    schema = dataset.schema or {}
    if dataset.task_type not in TABULAR_TASKS or not schema.get("columns"):
        return {}
    rows = list(
        Sample.objects.filter(dataset=dataset).order_by("pk").values_list("values", "label__name", "target")
    )
    columns = [
        column_profile(c["name"], c["type"], [(v or {}).get(c["name"]) for v, _, _ in rows])
        for c in schema["columns"]
    ]
    regression = dataset.task_type in REGRESSION_TASKS
    return {
        "rows": len(rows),
        "columns": columns,
        "target": {
            "name": schema.get("target"),
            **target_profile(
                regression=regression,
                labels=[label for _, label, _ in rows],
                targets=[target for _, _, target in rows],
            ),
        },
    }


def export_rows(*, dataset: Dataset, version: DatasetVersion | None, fields: list[str]) -> Iterator[tuple]:
    """The samples an export writes, in id order, as ``(*fields, split)``: a version's entries, or
    the dataset's current samples (split ""). ``label`` is the label's name (None: unlabeled)."""
    if version is not None:
        entries = VersionSample.objects.filter(version=version).order_by("pk")
        names = ["label_name" if f == "label" else f for f in fields]
        return entries.values_list(*names, "split").iterator(chunk_size=2000)
    samples = Sample.objects.filter(dataset=dataset).order_by("pk")
    names = ["label__name" if f == "label" else f for f in fields]
    return ((*row, "") for row in samples.values_list(*names).iterator(chunk_size=2000))


def activity_of(*, dataset: Dataset, sample_id: int | None = None) -> QuerySet[SampleActivity]:
    """The dataset's activity log (one sample's with ``sample_id``), newest first, with the actor,
    the sample's current label, target and review, and ``is_latest``: no later entry of the same
    action on the sample (what a revert checks for boxes)."""
    entries = SampleActivity.objects.filter(dataset=dataset)
    if sample_id is not None:
        entries = entries.filter(sample_id=sample_id)
    newer = SampleActivity.objects.filter(
        sample_id=OuterRef("sample_id"), action=OuterRef("action"), pk__gt=OuterRef("pk")
    )
    return (
        entries.select_related("actor")
        .annotate(
            is_latest=~Exists(newer),
            sample_label_id=F("sample__label_id"),
            sample_target=F("sample__target"),
            sample_review_status=F("sample__review_status"),
        )
        .order_by("-id")
    )
