"""Reads of labeling: smart-labeling rounds and their suggestions."""

from __future__ import annotations

from typing import Any

from datasets.models import ANNOTATION_TASKS, REGRESSION_TASKS, AnnotationStatus, Dataset, Sample
from django.db.models import F, OuterRef, Q, QuerySet, Subquery

from labeling.models import SmartLabelingRound, Suggestion, SuggestionStatus

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
    if label is not None:
        queryset = queryset.filter(label_id=label)
    if min_confidence is not None:
        queryset = queryset.filter(confidence__gte=min_confidence)
    if max_confidence is not None:
        queryset = queryset.filter(confidence__lte=max_confidence)
    orders: dict[str, list[Any]] = {
        "rank": [F("rank").asc(nulls_last=True), "-priority", "id"],
        "-confidence": ["-confidence", "id"],
        "confidence": ["confidence", "id"],
        "id": ["id"],
    }
    return queryset.select_related("label", "sample").order_by(*orders[ordering])


PENDING_SUGGESTION_FIELDS = {
    "id": "pk",
    "round": "round_id",
    "label": "label_id",
    "label_name": "label__name",
    "confidence": "confidence",
    "boxes": "boxes",
}


def with_pending_suggestion(queryset: QuerySet[Sample], *, dataset: Dataset) -> QuerySet[Sample]:
    """Samples annotated with their latest pending suggestion while they are unlabeled
    (``pending_suggestion_id``, ``_round``, ``_label``, ``_label_name``, ``_confidence``, ``_boxes``;
    None without one): subqueries of the same query, so a page costs no extra query whatever its size."""
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
