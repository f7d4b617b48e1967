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
    IMAGE_TASKS,
    REGRESSION_TASKS,
    TABULAR_TASKS,
    Dataset,
    DatasetVersion,
    ImportBatch,
    Label,
    Sample,
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
        labeled_count=_count_of(samples.filter(Q(label__isnull=False) | Q(target__isnull=False))),
        label_count=_count_of(Label.objects.filter(dataset=OuterRef("pk"))),
    )


def dataset_for(*, user, dataset_id) -> Dataset | None:
    """The dataset if the user is a member of its workspace (no counts: the cheap lookup)."""
    return scoped_to_member(Dataset.objects.all(), user=user).filter(pk=dataset_id).first()


def labels_of(*, dataset: Dataset) -> QuerySet[Label]:
    return (
        Label.objects.filter(dataset=dataset)
        .annotate(sample_count=Count("samples"))
        .order_by("position", "id")
    )


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

    def as_dict(self) -> dict:
        return {
            "total": self.total,
            "labeled": self.labeled,
            "unlabeled": self.unlabeled,
            "per_label": self.per_label,
        }


def sample_counts(*, dataset: Dataset) -> SampleCounts:
    """Two queries at any size: a GROUP BY label over the (dataset, label, id) index, and the labels."""
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
        queryset = queryset.filter(pk__in=ids)
        known = None
    return SampleList(queryset=queryset, count=known, counts=counts, version=found_version)


SIZE_BUCKETS = [32, 64, 128, 256, 512, 1024, 2048, 4096]


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
