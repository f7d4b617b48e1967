"""Review of labeling tasks: a reviewer (owner or editor) accepts items, whose winning answer becomes
the sample's label (``source="review"``, review status accepted), or rejects them with a comment,
which sends their assignments back to the annotators; and the task's agreement report.
"""

from __future__ import annotations

from collections import Counter
from statistics import mean
from typing import Any, Literal

from config.exceptions import field_error
from datasets.models import ANNOTATION_TASKS, REGRESSION_TASKS, ActivitySource, Label, ReviewStatus
from datasets.services.activity import samples_set_review
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from labeling.models import AssignmentStatus, ItemReview, LabelingAssignment, LabelingItem, LabelingTask
from labeling.selectors import ANSWERED, task_items, task_progress
from labeling.services.tasks import sample_write_answer, submitted_answers
from workers.contracts.labeling import AgreementReport, AnnotatorStats
from workers.labeling_agreement import (
    AgreementAnswer,
    Box,
    agreement_report,
    detection_answers,
    submissions_per_active_hour,
)

MAX_REVIEW_ITEMS = 500


def _answer_key(answer: dict[str, Any]) -> Any:
    """What makes two answers the same answer (for the majority)."""
    if "label" in answer:
        return answer["label"]
    if "boxes" in answer:
        return (answer["status"], tuple(sorted(box["label"] for box in answer["boxes"])))
    return answer.get("target")


def winning_answer(
    answers: list[LabelingAssignment], *, task: LabelingTask, label: int | None = None
) -> dict[str, Any]:
    """The answer a reviewer's accept writes: the reviewer's ``label`` if given (classification),
    else the majority's (ties: the first submitted); regression: the mean of the targets."""
    if label is not None:
        return {"label": label}
    given: list[dict[str, Any]] = [a.answer or {} for a in answers]
    if task.dataset.task_type in REGRESSION_TASKS:
        return {"target": mean(answer["target"] for answer in given)}
    votes = Counter(_answer_key(answer) for answer in given)
    best = max(votes.values())
    return next(answer for answer in given if votes[_answer_key(answer)] == best)


def items_review(
    *,
    task: LabelingTask,
    item_ids: list[int],
    verdict: Literal["accept", "reject"],
    reviewer,
    comment: str = "",
    label: int | None = None,
) -> dict[str, Any]:
    """Accept or reject items of a task. Accept: the winning answer is written onto each sample
    (source ``review``) and the samples are marked accepted; an item nobody answered yet is skipped.
    Reject: the samples are marked rejected and every answered assignment goes back to its annotator
    with the comment (``rejections`` + 1).

    e.g. ``items_review(task=t, item_ids=[4, 5], verdict="reject", reviewer=u, comment="tail is a 7")``
    -> ``{"reviewed": 2, "skipped": []}``"""
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        raise field_error("items", "Name at least one item.")
    if len(ids) > MAX_REVIEW_ITEMS:
        raise field_error("items", f"Review at most {MAX_REVIEW_ITEMS} items at once.")
    dataset = task.dataset
    if label is not None:
        if dataset.task_type in ANNOTATION_TASKS or dataset.task_type in REGRESSION_TASKS:
            raise field_error("label", "Only classification answers can be overruled with a label.")
        if not Label.objects.filter(dataset=dataset, pk=label).exists():
            raise field_error("label", f"No label {label} in this dataset.", code="unknown_label")
    with transaction.atomic():
        items = {
            item.pk: item for item in task_items(task=task).filter(pk__in=ids).select_for_update(of=("self",))
        }
        missing = [pk for pk in ids if pk not in items]
        if missing:
            raise field_error("items", f"No item(s) {missing[:20]} in this task.", code="unknown_item")
        skipped: list[dict[str, Any]] = []
        done: list[LabelingItem] = []
        now = timezone.now()
        for pk in ids:
            item = items[pk]
            answers = submitted_answers(item)
            if not answers:
                skipped.append({"id": pk, "reason": "not_submitted"})
                continue
            if verdict == "accept":
                sample_write_answer(
                    dataset=dataset,
                    sample_id=item.sample_id,
                    answer=winning_answer(answers, task=task, label=label),
                    actor=reviewer,
                    source=ActivitySource.REVIEW,
                    comment=comment,
                )
            done.append(item)
        accepted = verdict == "accept"
        LabelingItem.objects.filter(pk__in=[item.pk for item in done]).update(
            review=ItemReview.ACCEPTED if accepted else ItemReview.REJECTED,
            reviewer=reviewer,
            review_comment=comment,
            reviewed_at=now,
        )
        answered = LabelingAssignment.objects.filter(item__in=done, status__in=ANSWERED)
        if accepted:
            answered.update(status=AssignmentStatus.ACCEPTED)
        else:
            answered.update(status=AssignmentStatus.REJECTED, comment=comment, rejections=F("rejections") + 1)
        samples_set_review(
            dataset=dataset,
            sample_ids=[item.sample_id for item in done],
            status=ReviewStatus.ACCEPTED if accepted else ReviewStatus.REJECTED,
            actor=reviewer,
            comment=comment,
        )
    return {"reviewed": len(done), "skipped": skipped}


def _labels_of(answer: dict[str, Any], *, index: dict[Any, int]) -> list[int]:
    if answer.get("label") in index:
        return [index[answer["label"]]]
    return []


def _object_answers(
    given: list[tuple[int, int, dict[str, Any]]], *, index: dict[Any, int]
) -> tuple[list[AgreementAnswer], int]:
    """Detection: each image's boxes matched into objects (workers.labeling_agreement), so the
    answers compared are "drew this object" or not; and how many images had two answers or more."""
    by_sample: dict[int, dict[int, list[Box]]] = {}
    for sample, annotator, answer in given:
        by_sample.setdefault(sample, {})[annotator] = [
            (index[box["label"]], box["x"], box["y"], box["width"], box["height"])
            for box in answer.get("boxes", [])
            if box["label"] in index
        ]
    answers: list[AgreementAnswer] = []
    images = 0
    for sample in sorted(by_sample):
        if len(by_sample[sample]) < 2:
            continue
        images += 1
        answers += detection_answers(sample=sample, boxes=by_sample[sample], first_subject=len(answers) + 1)
    return answers, images


def task_agreement(*, task: LabelingTask) -> AgreementReport:
    """The task's agreement report (workers.labeling_agreement) with each annotator's counts,
    throughput and rejection rate. Classification answers are compared by label; detection answers
    object by object (boxes of the same class at IoU >= 0.5 are the same object; an annotator who
    did not draw it disagrees); regression tasks have no classes to agree on."""
    dataset = task.dataset
    labels = list(Label.objects.filter(dataset=dataset).order_by("position", "id").values_list("pk", "name"))
    detection = dataset.task_type in ANNOTATION_TASKS
    index: dict[Any, int] = {(name if detection else pk): i for i, (pk, name) in enumerate(labels)}
    classes = [] if dataset.task_type in REGRESSION_TASKS else [name for _, name in labels]
    rows = list(
        LabelingAssignment.objects.filter(item__task=task)
        .order_by("submitted_at", "id")
        .values_list("item__sample_id", "annotator_id", "status", "answer", "submitted_at")
    )
    given = [
        (sample, annotator, answer)
        for sample, annotator, status, answer, _ in rows
        if status in ANSWERED and answer and classes
    ]
    images = None
    if detection:
        answers, images = _object_answers(given, index=index)
    else:
        answers = [
            {"sample": sample, "annotator": annotator, "labels": _labels_of(answer, index=index)}
            for sample, annotator, answer in given
        ]
    progress = task_progress(tasks=[task])[task.pk]["per_annotator"]
    times: dict[int, list[float]] = {}
    for _, annotator, _, _, submitted_at in rows:
        if submitted_at is not None:
            times.setdefault(annotator, []).append(submitted_at.timestamp())
    stats: list[AnnotatorStats] = []
    for entry in progress:
        ever_submitted = len(times.get(entry["annotator"], []))
        stats.append(
            {
                "annotator": entry["annotator"],
                "username": entry["username"],
                "assigned": entry["assigned"],
                "submitted": entry["submitted"],
                "accepted": entry["accepted"],
                "rejected": entry["rejected"],
                "rejection_rate": round(entry["rejected"] / ever_submitted, 4) if ever_submitted else None,
                "per_hour": _rounded(submissions_per_active_hour(times.get(entry["annotator"], []))),
                "agreement_with_others": None,
            }
        )
    report = agreement_report(
        classes=classes,
        answers=answers,
        annotators={s["annotator"]: s["username"] for s in stats},
        stats=stats,
        objects=detection,
    )
    if images is not None:  # the report's subjects were objects; it counts images
        report["overlapping_samples"] = images
    return report


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
