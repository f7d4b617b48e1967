"""Labeling tasks: an owner or editor hands a set of a dataset's samples to annotators, each sample
to ``overlap`` of them (``labeling_task_create``); each annotator works through their queue and
submits an answer per sample (``assignment_submit``). With overlap 1 a submission labels the sample
at once (``source="task"``, the annotator as actor); with more, the sample is labeled when a
reviewer accepts it (labeling.services.review).
"""

from __future__ import annotations

import math
from typing import Any

from config.exceptions import Conflict, field_error
from datasets.models import (
    ANNOTATION_TASKS,
    REGRESSION_TASKS,
    ActivitySource,
    AnnotationStatus,
    Dataset,
    Label,
    Sample,
)
from datasets.services.annotations import annotations_check, annotations_write
from datasets.services.labels import sample_set_label, samples_set_targets
from django.db import transaction
from django.utils import timezone
from workspaces.models import Membership, Role

from labeling.models import (
    AssignmentStatus,
    ItemReview,
    LabelingAssignment,
    LabelingItem,
    LabelingTask,
)
from labeling.selectors import ranked_sample_ids

MAX_OVERLAP = 5
MAX_TASK_ITEMS = 10_000
#: Roles that may be given samples to label (a viewer only reads).
ANNOTATING_ROLES = frozenset({Role.ANNOTATOR, Role.EDITOR, Role.OWNER})


def _unlabeled_filter(dataset: Dataset) -> dict[str, Any]:
    if dataset.task_type in ANNOTATION_TASKS:
        return {"annotation_status": AnnotationStatus.UNLABELED}
    if dataset.task_type in REGRESSION_TASKS:
        return {"target__isnull": True}
    return {"label__isnull": True}


def _selected_sample_ids(*, dataset: Dataset, selection: dict[str, Any]) -> list[int]:
    """The samples a selection names, in task order (given ids' order, id order, or the ranking)."""
    by = selection.get("by")
    count = selection.get("count")
    if by == "ids":
        ids = list(dict.fromkeys(selection.get("ids") or []))
        found = set(Sample.objects.filter(dataset=dataset, pk__in=ids).values_list("pk", flat=True))
        missing = [pk for pk in ids if pk not in found]
        if missing:
            raise field_error(
                "selection", f"No sample(s) {missing[:20]} in this dataset.", code="unknown_sample"
            )
        return ids
    if by == "filter":
        queryset = Sample.objects.filter(dataset=dataset)
        if selection.get("unlabeled"):
            queryset = queryset.filter(**_unlabeled_filter(dataset))
        label = selection.get("label")
        if label is not None:
            if not Label.objects.filter(dataset=dataset, pk=label).exists():
                raise field_error("selection", f"No label {label} in this dataset.", code="unknown_label")
            queryset = (
                queryset.filter(annotations__label_id=label).distinct()
                if dataset.task_type in ANNOTATION_TASKS
                else queryset.filter(label_id=label)
            )
        ids = list(queryset.order_by("pk").values_list("pk", flat=True)[: count or MAX_TASK_ITEMS + 1])
        return ids
    if by == "ranking":
        ids = ranked_sample_ids(dataset=dataset, round_id=selection.get("round"))
        if not ids:
            raise field_error(
                "selection",
                "No smart-labeling ranking of still unlabeled samples to take (run a smart-labeling round "
                "first, or pick another round).",
                code="no_ranking",
            )
        return ids[:count] if count else ids
    raise field_error("selection", "selection.by must be ids, filter or ranking.")


def _checked_annotators(*, dataset: Dataset, annotators: list[int]) -> list[int]:
    ids = list(dict.fromkeys(annotators))
    if not ids:
        raise field_error("annotators", "Name at least one annotator.")
    roles = dict(
        Membership.objects.filter(workspace_id=dataset.workspace_id, user_id__in=ids).values_list(
            "user_id", "role"
        )
    )
    strangers = [pk for pk in ids if roles.get(pk) not in ANNOTATING_ROLES]
    if strangers:
        raise field_error(
            "annotators",
            f"User(s) {strangers[:20]} are not annotators, editors or owners of this dataset's workspace; "
            "invite them (role annotator) first.",
            code="annotator_not_member",
        )
    return ids


@transaction.atomic
def labeling_task_create(
    *,
    dataset: Dataset,
    user,
    name: str,
    annotators: list[int],
    selection: dict[str, Any],
    instructions: str = "",
    overlap: int = 1,
) -> LabelingTask:
    """A task of the selected samples, each assigned to ``overlap`` distinct annotators, round-robin
    so every annotator gets about as many as the others.

    e.g. ``labeling_task_create(dataset=d, user=u, name="Batch 1", annotators=[5, 6], overlap=2,
    selection={"by": "filter", "unlabeled": True, "count": 100})``"""
    from datasets.services.time_series import refuse_forecasting

    refuse_forecasting(dataset, "a labeling task")
    people = _checked_annotators(dataset=dataset, annotators=annotators)
    if not 1 <= overlap <= MAX_OVERLAP:
        raise field_error("overlap", f"overlap must be between 1 and {MAX_OVERLAP}.")
    if overlap > len(people):
        raise field_error(
            "overlap",
            f"Each sample is to go to {overlap} annotators, but the task has {len(people)}.",
            code="overlap_too_large",
        )
    sample_ids = _selected_sample_ids(dataset=dataset, selection=selection)
    if not sample_ids:
        raise field_error("selection", "The selection has no samples.", code="empty_selection")
    if len(sample_ids) > MAX_TASK_ITEMS:
        raise field_error(
            "selection", f"A task takes at most {MAX_TASK_ITEMS:,} samples; the selection has more."
        )
    task = LabelingTask.objects.create(
        dataset=dataset,
        name=name,
        instructions=instructions,
        overlap=overlap,
        selection={**selection, "samples": len(sample_ids)},
        created_by=user,
    )
    task.annotators.set(people)
    items = LabelingItem.objects.bulk_create(
        [LabelingItem(task=task, sample_id=pk, position=i) for i, pk in enumerate(sample_ids)],
        batch_size=2000,
    )
    n = len(people)
    LabelingAssignment.objects.bulk_create(
        [
            LabelingAssignment(item=item, annotator_id=people[(i * overlap + j) % n])
            for i, item in enumerate(items)
            for j in range(overlap)
        ],
        batch_size=2000,
    )
    return task


def labeling_task_update(
    *, task: LabelingTask, name: str | None = None, instructions: str | None = None, status: str | None = None
) -> LabelingTask:
    """Rename a task, change its instructions, close or reopen it."""
    fields = {"name": name, "instructions": instructions, "status": status}
    for field, value in fields.items():
        if value is not None:
            setattr(task, field, value)
    task.save(update_fields=[f for f, v in fields.items() if v is not None] or None)
    return task


def labeling_task_close(*, task: LabelingTask) -> LabelingTask:
    """Close a task: its annotators can no longer submit; its reviews stay."""
    return labeling_task_update(task=task, status=LabelingTask.Status.CLOSED)


def assignment_open(*, assignment: LabelingAssignment) -> LabelingAssignment:
    """Mark the first time the annotator opened the assignment (the start of their work on it)."""
    if assignment.opened_at is None:
        assignment.opened_at = timezone.now()
        LabelingAssignment.objects.filter(pk=assignment.pk, opened_at__isnull=True).update(
            opened_at=assignment.opened_at
        )
    return assignment


def _answer_of(
    *,
    dataset: Dataset,
    sample: Sample,
    label: int | None,
    target: float | None,
    status: str | None,
    boxes: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """The answer in the shape of the dataset's task, checked like a direct label write would be."""
    if dataset.task_type in ANNOTATION_TASKS:
        if status == AnnotationStatus.UNLABELED:
            raise field_error("status", "An answer is annotated (boxes) or no_objects, not unlabeled.")
        if boxes is None:
            raise field_error("boxes", "Object detection: send boxes (an empty list with status no_objects).")
        checked_status = annotations_check(
            dataset=dataset,
            sample=sample,
            annotations=[
                {"kind": "box", "label": box["label"], "geometry": box_geometry(box)} for box in boxes
            ],
            status=status,
            where="boxes.",
        )
        return {
            "status": checked_status,
            "boxes": [{"label": box["label"], **box_geometry(box)} for box in boxes],
        }
    if dataset.task_type in REGRESSION_TASKS:
        if target is None or not math.isfinite(target):
            raise field_error("target", "Send the sample's target: a finite number.")
        return {"target": float(target)}
    if label is None:
        raise field_error("label", "Send the label's id.")
    if not Label.objects.filter(dataset=dataset, pk=label).exists():
        raise field_error("label", f"No label {label} in this dataset.", code="unknown_label")
    return {"label": label}


def box_geometry(box: dict[str, Any]) -> dict[str, float]:
    return {k: float(box[k]) for k in ("x", "y", "width", "height")}


def sample_write_answer(
    *, dataset: Dataset, sample_id: int, answer: dict[str, Any], actor, source: str, comment: str = ""
) -> None:
    """Write an answer onto its sample through the datasets services (so the activity log records it),
    over whatever the sample holds now: the task (overlap 1) or the reviewer decides."""
    sample = Sample.objects.get(pk=sample_id)
    if dataset.task_type in ANNOTATION_TASKS:
        annotations_write(
            dataset=dataset,
            sample_id=sample_id,
            revision=sample.label_version,
            status=answer["status"],
            annotations=[
                {"kind": "box", "label": box["label"], "geometry": box_geometry(box)}
                for box in answer["boxes"]
            ],
            actor=actor,
            source=source,
            comment=comment,
        )
    elif dataset.task_type in REGRESSION_TASKS:
        samples_set_targets(
            dataset=dataset,
            changes=[{"id": sample_id, "target": answer["target"], "label_version": sample.label_version}],
            actor=actor,
            source=source,
            comment=comment,
        )
    elif sample.label_id != answer["label"]:  # an unchanged label is not logged as a change
        sample_set_label(
            dataset=dataset,
            sample_id=sample_id,
            label_id=answer["label"],
            label_version=sample.label_version,
            actor=actor,
            source=source,
            comment=comment,
        )


def assignment_submit(
    *,
    assignment: LabelingAssignment,
    label: int | None = None,
    target: float | None = None,
    status: str | None = None,
    boxes: list[dict[str, Any]] | None = None,
) -> LabelingAssignment:
    """Record the annotator's answer (again, after a rejection or to correct it before review). With
    overlap 1 the sample is labeled at once. Refused (409) once the task is closed or the item
    accepted. e.g. ``assignment_submit(assignment=a, label=3)``"""
    with transaction.atomic():
        locked = (
            LabelingAssignment.objects.select_for_update(of=("self",))
            .select_related("item__task__dataset", "item__sample", "annotator")
            .get(pk=assignment.pk)
        )
        item, task = locked.item, locked.item.task
        dataset = task.dataset
        if task.status == LabelingTask.Status.CLOSED:
            raise Conflict(
                f"The task {task.name!r} is closed; answers are no longer taken.", code="task_closed"
            )
        if locked.status == AssignmentStatus.ACCEPTED or item.review == ItemReview.ACCEPTED:
            raise Conflict(
                "A reviewer already accepted this sample; its answer cannot change.",
                code="assignment_accepted",
            )
        answer = _answer_of(
            dataset=dataset, sample=item.sample, label=label, target=target, status=status, boxes=boxes
        )
        locked.answer = answer
        locked.status = AssignmentStatus.SUBMITTED
        locked.submitted_at = timezone.now()
        locked.save(update_fields=["answer", "status", "submitted_at"])
        if item.review == ItemReview.REJECTED:
            LabelingItem.objects.filter(pk=item.pk).update(review=ItemReview.PENDING)
        if task.overlap == 1:
            sample_write_answer(
                dataset=dataset,
                sample_id=item.sample_id,
                answer=answer,
                actor=locked.annotator,
                source=ActivitySource.TASK,
            )
    return locked


def submitted_answers(item: LabelingItem) -> list[LabelingAssignment]:
    """An item's answered assignments, first submitted first (prefetched ``assignments`` used)."""
    return sorted(
        (
            a
            for a in item.assignments.all()
            if a.status in (AssignmentStatus.SUBMITTED, AssignmentStatus.ACCEPTED)
        ),
        key=lambda a: (a.submitted_at or timezone.now(), a.pk),
    )
