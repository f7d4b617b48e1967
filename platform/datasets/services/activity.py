"""The activity log of samples: every label, regression target, annotation and review change, who
made it, from where (a person, an accepted suggestion, a labeling task, a review, a revert, a label
merge), and the value before and after, so a change can be reverted.

Label and annotation writes (datasets.services.labels / annotations) record their entries here in
the same transaction as the write; reviews go through :func:`samples_set_review`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from config.exceptions import InvalidInput
from django.db import transaction

from datasets.exceptions import LabelConflict, LabelDeleted
from datasets.models import (
    ActivityAction,
    ActivitySource,
    Annotation,
    Dataset,
    Label,
    ReviewStatus,
    Sample,
    SampleActivity,
)

#: (sample id, before, after) of one change.
Entry = tuple[int, dict[str, Any], dict[str, Any]]


def label_value(label_id: int | None, label_name: str | None) -> dict[str, Any]:
    """The shape of a classification label in the log: ``{"label": 3, "label_name": "cat"}``."""
    return {"label": label_id, "label_name": label_name if label_id is not None else None}


def target_value(target: float | None) -> dict[str, Any]:
    """The shape of a regression target in the log: ``{"target": 3.2}`` (``None``: no target)."""
    return {"target": None if target is None else float(target)}


def box_value(row: Annotation) -> dict[str, Any]:
    geometry = row.geometry
    return {
        "label": row.label_id,
        "label_name": row.label.name,
        **{k: float(geometry[k]) for k in ("x", "y", "width", "height")},
    }


def boxes_value(status: str, rows: Iterable[Annotation]) -> dict[str, Any]:
    """The shape of a sample's annotations in the log: ``{"status": "annotated", "boxes": [{"label":
    3, "label_name": "cat", "x": 4.0, "y": 5.0, "width": 20.0, "height": 30.0}]}``."""
    return {"status": status, "boxes": [box_value(row) for row in rows]}


def boxes_now(sample_ids: Collection[int]) -> dict[int, list[Annotation]]:
    """The current boxes of these samples (one query), each in id order."""
    by_sample: dict[int, list[Annotation]] = {pk: [] for pk in sample_ids}
    for row in (
        Annotation.objects.filter(sample_id__in=list(sample_ids)).select_related("label").order_by("pk")
    ):
        by_sample[row.sample_id].append(row)
    return by_sample


def _actor(actor: Any) -> Any:
    return actor if getattr(actor, "is_authenticated", False) else None


def activity_record(
    *,
    dataset: Dataset,
    entries: Sequence[Entry],
    action: str,
    source: str,
    actor: Any,
    comment: str = "",
    reverts: SampleActivity | None = None,
) -> list[SampleActivity]:
    """One log entry per sample whose value changed (entries with ``before == after`` are left out),
    in one insert. e.g. ``activity_record(dataset=d, entries=[(7, {"label": None, "label_name":
    None}, {"label": 3, "label_name": "cat"})], action="label", source="manual", actor=user)``"""
    rows = [
        SampleActivity(
            dataset=dataset,
            sample_id=sample_id,
            actor=_actor(actor),
            action=action,
            source=source,
            before=before,
            after=after,
            comment=comment[:1000],
            reverts=reverts,
        )
        for sample_id, before, after in entries
        if before != after
    ]
    return SampleActivity.objects.bulk_create(rows, batch_size=2000)


def reset_review(*, sample_ids: Collection[int], source: str) -> None:
    """A label written outside a review makes the sample unreviewed again."""
    if source != ActivitySource.REVIEW and sample_ids:
        Sample.objects.filter(pk__in=list(sample_ids)).exclude(review_status=ReviewStatus.UNREVIEWED).update(
            review_status=ReviewStatus.UNREVIEWED
        )


@transaction.atomic
def samples_set_review(
    *,
    dataset: Dataset,
    sample_ids: Collection[int],
    status: str,
    actor: Any,
    comment: str = "",
    source: str = ActivitySource.REVIEW,
) -> int:
    """Set the review status of these samples of ``dataset`` and log it (source ``review``, or
    ``revert`` when :func:`activity_revert` puts a verdict back). Returns how many samples changed.
    e.g. ``samples_set_review(dataset=d, sample_ids=[7, 8],
    status=ReviewStatus.ACCEPTED, actor=reviewer, comment="boxes tight")``"""
    if status not in ReviewStatus.values:
        raise InvalidInput(f"status: {status!r} is not one of {ReviewStatus.values}.", field="status")
    current = dict(
        Sample.objects.select_for_update()
        .filter(dataset=dataset, pk__in=list(sample_ids))
        .order_by("pk")
        .values_list("pk", "review_status")
    )
    changed = [pk for pk, old in current.items() if old != status]
    Sample.objects.filter(pk__in=changed).update(review_status=status)
    activity_record(
        dataset=dataset,
        entries=[(pk, {"review_status": current[pk]}, {"review_status": status}) for pk in changed],
        action=ActivityAction.REVIEW,
        source=source,
        actor=actor,
        comment=comment,
    )
    return len(changed)


def _now_of(entry: SampleActivity, sample: Sample) -> dict[str, Any]:
    """The sample's current value in the shape of ``entry``."""
    if entry.action == ActivityAction.LABEL:
        return {"label": sample.label_id}
    if entry.action == ActivityAction.REVIEW:
        return {"review_status": sample.review_status}
    if entry.action == ActivityAction.TARGET:
        return target_value(sample.target)
    return {
        "status": sample.annotation_status,
        "boxes": sorted(
            (b["label"], b["x"], b["y"], b["width"], b["height"])
            for b in boxes_value(sample.annotation_status, boxes_now([sample.pk])[sample.pk])["boxes"]
        ),
    }


def _comparable(entry: SampleActivity, value: dict[str, Any]) -> dict[str, Any]:
    if entry.action == ActivityAction.LABEL:
        return {"label": value.get("label")}
    if entry.action == ActivityAction.REVIEW:
        return {"review_status": value.get("review_status")}
    if entry.action == ActivityAction.TARGET:
        return target_value(value.get("target"))
    return {
        "status": value.get("status"),
        "boxes": sorted(
            (b["label"], float(b["x"]), float(b["y"]), float(b["width"]), float(b["height"]))
            for b in value.get("boxes", [])
        ),
    }


def activity_revert(*, dataset: Dataset, activity: SampleActivity, actor: Any) -> SampleActivity:
    """Put the sample back to the value it had before ``activity``, as a new entry (source
    ``revert``). 409 ``label_conflict`` when the sample changed since that entry (its current value
    is not the entry's ``after``); ``label_deleted`` when the label to restore is gone.
    e.g. ``activity_revert(dataset=d, activity=entry, actor=user)``"""
    # the label/annotation writes record activity through this module, so they import it, not it them
    from datasets.services.annotations import annotations_write
    from datasets.services.labels import sample_set_label, samples_set_targets

    with transaction.atomic():
        sample = Sample.objects.select_for_update().filter(pk=activity.sample_id, dataset=dataset).first()
        if sample is None:
            raise LabelConflict("The sample of this entry no longer exists; there is nothing to revert.")
        if _now_of(activity, sample) != _comparable(activity, activity.after):
            raise LabelConflict(
                f"Sample {sample.pk} changed after this entry; nothing was reverted. Revert the newer "
                "entries first, or set the value by hand.",
                current={"label_version": sample.label_version},
            )
        before = activity.before
        last = SampleActivity.objects.filter(sample_id=sample.pk).order_by("-id").values_list("pk", flat=True)
        last_id = last.first() or 0
        if activity.action == ActivityAction.REVIEW:
            samples_set_review(
                dataset=dataset,
                sample_ids=[sample.pk],
                status=before.get("review_status", ReviewStatus.UNREVIEWED),
                actor=actor,
                source=ActivitySource.REVERT,
            )
        elif activity.action == ActivityAction.TARGET:
            samples_set_targets(
                dataset=dataset,
                changes=[
                    {"id": sample.pk, "target": before.get("target"), "label_version": sample.label_version}
                ],
                actor=actor,
                source=ActivitySource.REVERT,
            )
        elif activity.action == ActivityAction.LABEL:
            sample_set_label(
                dataset=dataset,
                sample_id=sample.pk,
                label_id=before.get("label"),
                label_version=sample.label_version,
                actor=actor,
                source=ActivitySource.REVERT,
            )
        else:
            boxes = before.get("boxes", [])
            names = dict(
                Label.objects.filter(dataset=dataset, pk__in={b["label"] for b in boxes}).values_list(
                    "pk", "name"
                )
            )
            gone = sorted({b["label_name"] for b in boxes if b["label"] not in names})
            if gone:
                raise LabelDeleted(
                    f"The label(s) {gone} of the boxes to restore were deleted; nothing was reverted."
                )
            annotations_write(
                dataset=dataset,
                sample_id=sample.pk,
                revision=sample.label_version,
                status=before.get("status"),
                annotations=[
                    {
                        "kind": "box",
                        "label": names[b["label"]],
                        "geometry": {k: b[k] for k in ("x", "y", "width", "height")},
                    }
                    for b in boxes
                ],
                actor=actor,
                source=ActivitySource.REVERT,
            )
        entry = SampleActivity.objects.filter(sample_id=sample.pk, pk__gt=last_id).order_by("-id").first()
        if entry is None:  # the write changed nothing: the entry's before and after were the same
            raise LabelConflict(f"Sample {sample.pk} already has the value this entry started from.")
        entry.reverts = activity
        entry.save(update_fields=["reverts"])
        return entry
