"""Reads of labeling: smart-labeling rounds and their suggestions; labeling tasks, their items and
the annotators' assignments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accounts.models import User
from datasets.models import ANNOTATION_TASKS, REGRESSION_TASKS, AnnotationStatus, Dataset, Label, Sample
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from workspaces.models import CONTENT_ROLES, Membership

from labeling.models import (
    AssignmentStatus,
    ItemReview,
    LabelingAssignment,
    LabelingItem,
    LabelingTask,
    SmartLabelingRound,
    Suggestion,
    SuggestionStatus,
)

SUGGESTION_ORDERINGS = ("rank", "-confidence", "confidence", "id")


def _unlabeled_q(dataset: Dataset, prefix: str = "") -> Q:
    if dataset.task_type in ANNOTATION_TASKS:
        return Q(**{f"{prefix}annotation_status": AnnotationStatus.UNLABELED})
    if dataset.task_type in REGRESSION_TASKS:
        return Q(**{f"{prefix}target__isnull": True})
    return Q(**{f"{prefix}label__isnull": True})


def unlabeled_samples(*, dataset: Dataset) -> QuerySet[Sample]:
    """The samples a person has not labeled (detection: not annotated, not marked "no objects")."""
    return Sample.objects.filter(_unlabeled_q(dataset), dataset=dataset)


def rounds_of(*, dataset: Dataset) -> QuerySet[SmartLabelingRound]:
    return SmartLabelingRound.objects.filter(dataset=dataset).select_related("job", "created_by")


def pending_suggestions(*, dataset: Dataset) -> QuerySet[Suggestion]:
    """Suggestions waiting for a person whose sample is still unlabeled (a sample labeled since is
    not offered again)."""
    return Suggestion.objects.filter(
        _unlabeled_q(dataset, "sample__"), dataset=dataset, status=SuggestionStatus.PENDING
    )


def suggestion_list(
    *,
    dataset: Dataset,
    status: str | None = SuggestionStatus.PENDING,
    round: int | None = None,
    label: int | None = None,
    min_confidence: float | None = None,
    max_confidence: float | None = None,
    ordering: str = "rank",
    ranked: bool | None = None,
    source: str | None = None,
) -> QuerySet[Suggestion]:
    """A dataset's suggestions, filtered; ``rank`` orders the round's batch first (1, 2, ...), then
    the rest by priority. e.g. ``suggestion_list(dataset=d, label=3, min_confidence=0.9)``"""
    if status == SuggestionStatus.PENDING:
        queryset = pending_suggestions(dataset=dataset)
    else:
        queryset = Suggestion.objects.filter(dataset=dataset)
        if status:
            queryset = queryset.filter(status=status)
    if round is not None:
        queryset = queryset.filter(round_id=round)
    if source:
        queryset = queryset.filter(source=source)
    if label is not None:
        queryset = queryset.filter(label_id=label)
    if min_confidence is not None:
        queryset = queryset.filter(confidence__gte=min_confidence)
    if max_confidence is not None:
        queryset = queryset.filter(confidence__lte=max_confidence)
    if ranked is not None:
        queryset = queryset.filter(rank__isnull=not ranked)
    orders: dict[str, list[Any]] = {
        "rank": [F("rank").asc(nulls_last=True), "-priority", "id"],
        "-confidence": ["-confidence", "id"],
        "confidence": ["confidence", "id"],
        "id": ["id"],
    }
    return queryset.select_related("label", "sample", "captured_request__deployment").order_by(
        *orders[ordering]
    )


PENDING_SUGGESTION_FIELDS = {
    "id": "pk",
    "round": "round_id",
    "source": "source",
    "captured_request": "captured_request_id",
    "deployment": "captured_request__deployment_id",
    "deployment_name": "captured_request__deployment__name",
    "label": "label_id",
    "label_name": "label__name",
    "confidence": "confidence",
    "boxes": "boxes",
    "value": "value",
}


def with_pending_suggestion(queryset: QuerySet[Sample], *, dataset: Dataset) -> QuerySet[Sample]:
    """Samples annotated with their latest pending suggestion while they are unlabeled
    (``pending_suggestion_id``, ``_round``, ``_label``, ``_label_name``, ``_confidence``, ``_boxes``,
    ``_value``; None without one): subqueries of the same query, so a page costs no extra query
    whatever its size."""
    latest = Suggestion.objects.filter(
        _unlabeled_q(dataset, "sample__"), sample_id=OuterRef("pk"), status=SuggestionStatus.PENDING
    ).order_by("-round_id")
    return queryset.annotate(
        **{
            f"pending_suggestion_{name}": Subquery(latest.values(path)[:1])
            for name, path in PENDING_SUGGESTION_FIELDS.items()
        }
    )


def pending_suggestion_of(sample: Sample) -> dict[str, Any] | None:
    """The suggestion ``with_pending_suggestion`` annotated on ``sample``, as the sample list shows it."""
    if getattr(sample, "pending_suggestion_id", None) is None:
        return None
    return {name: getattr(sample, f"pending_suggestion_{name}") for name in PENDING_SUGGESTION_FIELDS}


# --- team labeling: tasks, items, assignments (h5) -----------------------------------------------

#: An assignment still waiting for its annotator (first time, or sent back by a reviewer).
TO_DO = (AssignmentStatus.PENDING, AssignmentStatus.REJECTED)
#: An assignment whose answer is in (waiting for review, or accepted).
ANSWERED = (AssignmentStatus.SUBMITTED, AssignmentStatus.ACCEPTED)


def labeling_tasks_for(*, user) -> QuerySet[LabelingTask]:
    """The tasks a user sees: every task of a workspace whose content they see (owners, editors,
    viewers), and the tasks they are an annotator of in a workspace they still belong to (an
    annotator sees nothing else). e.g. ``labeling_tasks_for(user=u).filter(dataset=7)``"""
    workspace = OuterRef("dataset__workspace")
    content = Membership.objects.filter(workspace=workspace, user=user, role__in=CONTENT_ROLES)
    member = Membership.objects.filter(workspace=workspace, user=user)
    annotating = LabelingTask.annotators.through.objects.filter(labelingtask_id=OuterRef("pk"), user=user)
    return (
        LabelingTask.objects.filter(Q(Exists(content)) | (Q(Exists(member)) & Q(Exists(annotating))))
        .select_related("dataset", "created_by")
        .prefetch_related(
            Prefetch("annotators", queryset=User.objects.order_by("username", "id")),
            Prefetch("dataset__labels", queryset=Label.objects.order_by("position", "id")),
        )
    )


def task_progress(*, tasks: Sequence[LabelingTask], user=None) -> dict[int, dict[str, Any]]:
    """Each task's progress: ``{items, submitted (items whose every answer is in), accepted,
    rejected (items, by review), per_annotator: [{annotator, username, assigned, submitted,
    accepted, rejected (assignments rejected at least once), to_do}], mine (the same for ``user``,
    or None)}``. Three queries for any number of tasks."""
    ids = [task.pk for task in tasks]
    progress: dict[int, dict[str, Any]] = {
        pk: {"items": 0, "submitted": 0, "accepted": 0, "rejected": 0, "per_annotator": [], "mine": None}
        for pk in ids
    }
    if not ids:
        return progress
    for task_id, review, n in (
        LabelingItem.objects.filter(task_id__in=ids)
        .order_by()
        .values_list("task_id", "review")
        .annotate(n=Count("pk"))
    ):
        progress[task_id]["items"] += n
        if review in (ItemReview.ACCEPTED, ItemReview.REJECTED):
            progress[task_id][review] += n
    waiting = LabelingAssignment.objects.filter(item=OuterRef("pk"), status__in=TO_DO)
    for task_id, n in (
        LabelingItem.objects.filter(task_id__in=ids)
        .filter(~Exists(waiting))
        .order_by()
        .values_list("task_id")
        .annotate(n=Count("pk"))
    ):
        progress[task_id]["submitted"] = n
    people: dict[tuple[int, int], dict[str, Any]] = {}
    for task_id, annotator, username, status, n, rejected in (
        LabelingAssignment.objects.filter(item__task_id__in=ids)
        .order_by()
        .values_list("item__task_id", "annotator_id", "annotator__username", "status")
        .annotate(n=Count("pk"), rejected=Count("pk", filter=Q(rejections__gt=0)))
    ):
        entry = people.setdefault(
            (task_id, annotator),
            {
                "annotator": annotator,
                "username": username,
                "assigned": 0,
                "submitted": 0,
                "accepted": 0,
                "rejected": 0,
                "to_do": 0,
            },
        )
        entry["assigned"] += n
        entry["rejected"] += rejected
        if status in ANSWERED:
            entry["submitted"] += n
        if status == AssignmentStatus.ACCEPTED:
            entry["accepted"] += n
        if status in TO_DO:
            entry["to_do"] += n
    for (task_id, annotator), entry in sorted(people.items(), key=lambda kv: (kv[0][0], kv[1]["username"])):
        progress[task_id]["per_annotator"].append(entry)
        if user is not None and annotator == user.pk:
            progress[task_id]["mine"] = entry
    return progress


def task_items(
    *, task: LabelingTask, review: str | None = None, submitted: bool | None = None
) -> QuerySet[LabelingItem]:
    """A task's items in task order with every assignment (and its annotator); ``submitted``:
    only items whose every answer is in (true) or not (false)."""
    queryset = (
        LabelingItem.objects.filter(task=task)
        .select_related("sample", "reviewer")
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=LabelingAssignment.objects.select_related("annotator").order_by(
                    "submitted_at", "id"
                ),
            )
        )
        .order_by("position", "id")
    )
    if review:
        queryset = queryset.filter(review=review)
    if submitted is not None:
        waiting = Exists(LabelingAssignment.objects.filter(item=OuterRef("pk"), status__in=TO_DO))
        queryset = queryset.filter(~waiting if submitted else waiting)
    return queryset


def assignments_for(*, user) -> QuerySet[LabelingAssignment]:
    """The user's own queue, in the order to work on it: sent back by a reviewer first, then still to
    label (in task order), then answered. Each carries ``position`` (1-based among the user's
    assignments of that task) and ``total`` (how many they have in it). A user who left the
    workspace sees none of its assignments."""
    mine = LabelingAssignment.objects.filter(annotator=user, item__task=OuterRef("item__task"))
    return (
        LabelingAssignment.objects.filter(annotator=user)
        .filter(
            Exists(Membership.objects.filter(workspace=OuterRef("item__task__dataset__workspace"), user=user))
        )
        .select_related("item__sample", "item__task__dataset")
        .prefetch_related(
            Prefetch("item__task__dataset__labels", queryset=Label.objects.order_by("position", "id"))
        )
        .annotate(
            position=Subquery(
                mine.filter(item__position__lte=OuterRef("item__position"))
                .order_by()
                .values("item__task")
                .annotate(n=Count("pk"))
                .values("n")[:1],
                output_field=IntegerField(),
            ),
            total=Subquery(
                mine.order_by().values("item__task").annotate(n=Count("pk")).values("n")[:1],
                output_field=IntegerField(),
            ),
            queue_order=Case(
                When(status=AssignmentStatus.REJECTED, then=Value(0)),
                When(status=AssignmentStatus.PENDING, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            ),
        )
        .order_by("queue_order", "item__task_id", "item__position", "id")
    )


def ranked_sample_ids(*, dataset: Dataset, round_id: int | None = None) -> list[int]:
    """Sample ids of a smart-labeling round's ranking, best first, still unlabeled (default: the
    dataset's latest succeeded round)."""
    rounds = SmartLabelingRound.objects.filter(dataset=dataset, status="succeeded")
    found = rounds.filter(pk=round_id).first() if round_id is not None else rounds.order_by("-number").first()
    if found is None:
        return []
    return list(
        Suggestion.objects.filter(_unlabeled_q(dataset, "sample__"), round=found, rank__isnull=False)
        .order_by("rank", "id")
        .values_list("sample_id", flat=True)
    )
