"""Annotations of localized tasks (object detection): a sample's boxes, read and written whole.

A write names the ``revision`` it read (the sample's ``label_version``, the counter classification
label writes use too) and is refused with 409 ``annotation_conflict`` and the current state when
someone wrote since. Bulk writes are all or nothing. Boxes are checked against the stored image:
inside it, not empty, of a label the dataset has (labels are named, never created here).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from config.exceptions import InvalidInput, NotFound
from django.db import transaction
from django.db.models import F

from datasets.exceptions import AnnotationConflict
from datasets.models import (
    ANNOTATION_TASKS,
    ActivityAction,
    ActivitySource,
    Annotation,
    AnnotationStatus,
    Dataset,
    Label,
    Sample,
)
from datasets.services.activity import activity_record, boxes_now, boxes_value, reset_review
from workers.contracts.annotations import AnnotationRecord, SampleAnnotations
from workers.contracts.annotations import AnnotationStatus as Status

MAX_ANNOTATIONS_PER_SAMPLE = 1000
MAX_BULK_ITEMS = 500
#: A box may overshoot the image by this much (float rounding of converted formats); it is clipped.
EDGE_TOLERANCE = 1e-3


def require_annotation_task(dataset: Dataset) -> None:
    if dataset.task_type not in ANNOTATION_TASKS:
        raise InvalidInput(
            f"{dataset.name!r} is a {dataset.get_task_type_display().lower()} dataset: its samples take one "
            "label each, not annotations. Annotations belong to object-detection datasets.",
            code="annotations_unsupported",
        )


def _records(rows: Iterable[Annotation]) -> list[AnnotationRecord]:
    records: list[AnnotationRecord] = []
    for row in rows:
        record: AnnotationRecord = {
            "id": row.pk,
            "kind": "box",
            "label": row.label.name,
            "geometry": row.geometry,
            "attributes": row.attributes or {},
        }
        records.append(record)
    return records


def sample_annotations_many(*, samples: Sequence[Sample]) -> list[SampleAnnotations]:
    """The annotations of these samples (two queries), in the order given."""
    by_sample: dict[int, list[Annotation]] = {s.pk: [] for s in samples}
    for row in (
        Annotation.objects.filter(sample__in=[s.pk for s in samples]).select_related("label").order_by("pk")
    ):
        by_sample[row.sample_id].append(row)
    return [
        {
            "sample": s.pk,
            "status": cast(Status, s.annotation_status),
            "revision": s.label_version,
            "width": s.width,
            "height": s.height,
            "annotations": _records(by_sample[s.pk]),
        }
        for s in samples
    ]


def sample_annotations(*, sample: Sample) -> SampleAnnotations:
    """e.g. ``sample_annotations(sample=s)`` -> ``{"sample": 7, "status": "annotated", "revision": 3,
    "width": 128, "height": 96, "annotations": [{"id": 1, "kind": "box", "label": "cat", "geometry":
    {"x": 4, "y": 5, "width": 20, "height": 30}, "attributes": {}}]}``"""
    return sample_annotations_many(samples=[sample])[0]


def _current_of(sample_ids: list[int], dataset: Dataset) -> list[SampleAnnotations]:
    return sample_annotations_many(
        samples=list(Sample.objects.filter(dataset=dataset, pk__in=sample_ids).order_by("pk"))
    )


def _checked_box(
    record: dict[str, Any], *, where: str, width: int, height: int, labels: dict[str, Label]
) -> Annotation:
    """The unsaved row of one written annotation, or a 400 naming it (``where``) and the problem."""
    name = record["label"]
    label = labels.get(name)
    if label is None:
        raise InvalidInput(
            f"{where}.label: the dataset has no label {name!r}; create it with the labels API first "
            "(annotations never create labels).",
            code="unknown_label",
            field=f"{where}.label",
        )
    geometry = record["geometry"]
    x, y, w, h = (float(geometry[k]) for k in ("x", "y", "width", "height"))
    if not all(v == v and abs(v) != float("inf") for v in (x, y, w, h)):
        raise InvalidInput(
            f"{where}.geometry: the box's numbers must be finite.",
            code="annotation_empty_box",
            field=f"{where}.geometry",
        )
    if w <= 0 or h <= 0:
        raise InvalidInput(
            f"{where}.geometry: the box is {w:g} x {h:g} pixels; width and height must be above 0.",
            code="annotation_empty_box",
            field=f"{where}.geometry",
        )
    tol = EDGE_TOLERANCE
    if x < -tol or y < -tol or x + w > width + tol or y + h > height + tol:
        raise InvalidInput(
            f"{where}.geometry: the box ({x:g}, {y:g}, {w:g} x {h:g}) reaches outside the {width} x {height} "
            "image; boxes must lie inside it.",
            code="annotation_out_of_bounds",
            field=f"{where}.geometry",
        )
    x0, y0 = max(0.0, x), max(0.0, y)
    x1, y1 = min(float(width), x + w), min(float(height), y + h)
    return Annotation(
        label=label,
        kind="box",
        geometry={"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0},
        attributes=dict(record.get("attributes") or {}),
    )


def _status_of(*, given: str | None, boxes: int, where: str) -> str:
    if given is None:
        return AnnotationStatus.ANNOTATED if boxes else AnnotationStatus.UNLABELED
    if (given == AnnotationStatus.ANNOTATED) != (boxes > 0):
        raise InvalidInput(
            f"{where}status: {given!r} with {boxes} box{'' if boxes == 1 else 'es'}: 'annotated' needs at "
            "least one box, 'no_objects' and 'unlabeled' none.",
            code="annotation_status_mismatch",
            field=f"{where}status",
        )
    return given


def annotations_check(
    *,
    dataset: Dataset,
    sample: Sample,
    annotations: list[dict[str, Any]],
    status: str | None = None,
    where: str = "",
) -> str:
    """Check an answer of boxes for ``sample`` as a write would (labels the dataset has, boxes
    inside the image, status consistent with the boxes) without writing anything: returns the status
    the answer gives the sample, or raises the write's 400. ``where`` prefixes the field names in
    errors (e.g. ``"answer."``). e.g. ``annotations_check(dataset=d, sample=s, annotations=[{"kind":
    "box", "label": "cat", "geometry": {"x": 4, "y": 5, "width": 20, "height": 30}}])`` ->
    ``"annotated"``"""
    require_annotation_task(dataset)
    names = {record["label"] for record in annotations}
    labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=names)}
    boxes = [
        _checked_box(
            record, where=f"{where}annotations[{j}]", width=sample.width, height=sample.height, labels=labels
        )
        for j, record in enumerate(annotations)
    ]
    return _status_of(given=status, boxes=len(boxes), where=where)


def _labels_for_write(dataset: Dataset, names: set[str]) -> dict[str, Label]:
    """The named labels, locked against deletion or merge until our transaction ends."""
    if not names:
        return {}
    return {
        lab.name: lab
        for lab in Label.objects.select_for_update(no_key=True)
        .filter(dataset=dataset, name__in=names)
        .order_by("pk")
    }


def _write_rows(
    *, samples: dict[int, Sample], items: list[dict[str, Any]], labels: dict[str, Label], actor, prefix: str
) -> dict[int, tuple[str, list[Annotation]]]:
    """Check every item against its sample; nothing is written until all pass."""
    checked: dict[int, tuple[str, list[Annotation]]] = {}
    for i, item in enumerate(items):
        sample = samples[item["sample"]]
        where = prefix.format(i=i)
        rows = [
            _checked_box(
                record,
                where=f"{where}annotations[{j}]",
                width=sample.width,
                height=sample.height,
                labels=labels,
            )
            for j, record in enumerate(item["annotations"])
        ]
        for row in rows:
            row.sample = sample
            row.created_by = actor if getattr(actor, "is_authenticated", False) else None
        status = _status_of(given=item.get("status"), boxes=len(rows), where=where)
        checked[sample.pk] = (status, rows)
    return checked


def _save(checked: dict[int, tuple[str, list[Annotation]]]) -> None:
    ids = list(checked)
    Annotation.objects.filter(sample_id__in=ids).delete()
    Annotation.objects.bulk_create([row for _, rows in checked.values() for row in rows], batch_size=2000)
    for status in {s for s, _ in checked.values()}:
        Sample.objects.filter(pk__in=[pk for pk, (s, _) in checked.items() if s == status]).update(
            annotation_status=status, label_version=F("label_version") + 1
        )


def annotations_write(
    *,
    dataset: Dataset,
    sample_id: int,
    revision: int,
    annotations: list[dict[str, Any]],
    status: str | None = None,
    actor=None,
    source: str = ActivitySource.MANUAL,
    comment: str = "",
) -> SampleAnnotations:
    """Replace a sample's annotations if nobody wrote since ``revision``; 409 ``annotation_conflict``
    with the current state if someone did. ``status`` defaults to annotated (boxes) or unlabeled.
    e.g. ``annotations_write(dataset=d, sample_id=7, revision=0, annotations=[{"kind": "box",
    "label": "cat", "geometry": {"x": 4, "y": 5, "width": 20, "height": 30}}], actor=user)``. The
    change is logged (``actor``, ``source``) and the sample is unreviewed again unless a reviewer
    wrote it."""
    return annotations_bulk_write(
        dataset=dataset,
        items=[{"sample": sample_id, "revision": revision, "status": status, "annotations": annotations}],
        actor=actor,
        source=source,
        comment=comment,
        single=True,
    )[0]


def annotations_bulk_write(
    *,
    dataset: Dataset,
    items: list[dict[str, Any]],
    actor=None,
    source: str = ActivitySource.BULK,
    comment: str = "",
    single: bool = False,
) -> list[SampleAnnotations]:
    """All or nothing: each item is ``{"sample", "revision", "status"?, "annotations"}``; if any sample
    changed since its revision nothing is saved and the 409 lists the current state of those."""
    require_annotation_task(dataset)
    ids = [item["sample"] for item in items]
    if len(set(ids)) != len(ids):
        raise InvalidInput("items: each sample may appear once.", field="items")
    items = [{**item, "status": item.get("status")} for item in items]
    with transaction.atomic():
        names = {record["label"] for item in items for record in item["annotations"]}
        labels = _labels_for_write(dataset, names)
        samples = {
            s.pk: s
            for s in Sample.objects.select_for_update().filter(dataset=dataset, pk__in=ids).order_by("pk")
        }
        missing = sorted(set(ids) - set(samples))
        if missing:
            if single:
                raise NotFound(f"Sample {missing[0]} does not exist in this dataset.")
            raise InvalidInput(
                f"items: no sample(s) {missing[:20]} in this dataset; nothing was saved.", field="items"
            )
        stale = [
            item["sample"] for item in items if samples[item["sample"]].label_version != item["revision"]
        ]
        if stale:
            current = _current_of(stale, dataset)
            if single:
                raise AnnotationConflict(
                    f"Sample {stale[0]}'s annotations were changed by someone else (its revision is now "
                    f"{current[0]['revision']}, you sent {items[0]['revision']}); nothing was saved.",
                    field="revision",
                    current=current[0],
                )
            raise AnnotationConflict(
                f"{len(stale)} of the {len(ids)} samples were changed by someone else since you loaded them; "
                "nothing was saved.",
                field="items",
                conflicts=current,
            )
        checked = _write_rows(
            samples=samples, items=items, labels=labels, actor=actor, prefix="" if single else "items[{i}]."
        )
        before = {pk: boxes_value(samples[pk].annotation_status, rows) for pk, rows in boxes_now(ids).items()}
        _save(checked)
        activity_record(
            dataset=dataset,
            entries=[(pk, before[pk], boxes_value(status, rows)) for pk, (status, rows) in checked.items()],
            action=ActivityAction.ANNOTATIONS,
            source=source,
            actor=actor,
            comment=comment,
        )
        reset_review(sample_ids=ids, source=source)
        written = {entry["sample"]: entry for entry in _current_of(ids, dataset)}
        return [written[pk] for pk in ids]
