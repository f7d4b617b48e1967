"""Smart labeling rounds and their suggestions; labeling tasks, their items and assignments.

Suggestions are stored apart from human labels (DESIGN §11): a suggestion never changes a sample
until a person accepts it, and only then does it reach a dataset version."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class RoundStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class SmartLabelingRound(models.Model):
    """One round of smart labeling on a dataset: a ``labeling.smart_round`` job trains a quick
    model on the labeled samples, suggests a label (or boxes) for every unlabeled one and ranks
    them by how much labeling them would help. ``summary`` is the round's
    ``workers.contracts.smart_labeling.SmartLabelingSummary``."""

    dataset = models.ForeignKey("datasets.Dataset", on_delete=models.CASCADE, related_name="smart_rounds")
    number = models.PositiveIntegerField()
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="smart_round"
    )
    status = models.CharField(max_length=16, choices=RoundStatus.choices, default=RoundStatus.QUEUED)
    params = models.JSONField(default=dict, blank=True, help_text="SmartLabelingParams as asked.")
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="smart_round_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id}: round {self.number}"


class SuggestionStatus(models.TextChoices):
    PENDING = "pending", "Waiting for a person"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"
    # a person labeled the sample some other way, or a later round replaced the suggestion
    SUPERSEDED = "superseded", "Superseded"


class SuggestionSource(models.TextChoices):
    SMART_ROUND = "smart_round", "A smart-labeling round"
    CAPTURE = "capture", "A deployment's answer to a captured request"


class Suggestion(models.Model):
    """A round's suggestion for one unlabeled sample: a label with its confidence (classification),
    boxes with scores (detection) or a value (regression), and the sample's place in the round's
    ranking (``rank`` 1.. for the samples to label next, null for the rest; ``priority`` is the
    acquisition score the ranking sorted by)."""

    round = models.ForeignKey(
        SmartLabelingRound,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="suggestions",
        help_text="The round that made it; null for a suggestion from production (``source`` capture).",
    )
    source = models.CharField(
        max_length=16,
        choices=SuggestionSource.choices,
        default=SuggestionSource.SMART_ROUND,
    )
    captured_request = models.ForeignKey(
        "deploy.CapturedRequest",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Source capture: the captured request whose served answer this is.",
    )
    dataset = models.ForeignKey(
        "datasets.Dataset", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    sample = models.ForeignKey("datasets.Sample", on_delete=models.CASCADE, related_name="suggestions")
    label = models.ForeignKey(
        "datasets.Label", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confidence = models.FloatField(default=0.0)
    scores = models.JSONField(
        default=list, blank=True, help_text="Top classes: [{label (id), score}], best first."
    )
    boxes = models.JSONField(
        default=list,
        blank=True,
        help_text="Detection: [{label (id), x, y, width, height, score}] in the stored image's pixels.",
    )
    value = models.FloatField(null=True, blank=True, help_text="Regression: the suggested target.")
    priority = models.FloatField(default=0.0)
    rank = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=SuggestionStatus.choices, default=SuggestionStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "sample"], name="one_suggestion_per_sample_and_round")
        ]
        indexes = [
            models.Index(fields=["dataset", "status", "label", "confidence"], name="suggestion_filter"),
            models.Index(fields=["round", "rank"], name="suggestion_rank"),
        ]

    def __str__(self) -> str:
        return f"{self.sample_id}: {self.label_id} ({self.confidence:.2f})"


class LabelingTask(models.Model):
    """A set of a dataset's samples handed to annotators, each sample to ``overlap`` of them, and
    reviewed by the workspace's owners and editors. ``selection`` records how the samples were
    chosen: ``{"by": "filter"|"ids"|"ranking", ...}``."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    dataset = models.ForeignKey("datasets.Dataset", on_delete=models.CASCADE, related_name="labeling_tasks")
    name = models.CharField(max_length=100)
    instructions = models.TextField(blank=True, max_length=5000)
    overlap = models.PositiveSmallIntegerField(default=1)
    selection = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    annotators = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="labeling_tasks")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ItemReview(models.TextChoices):
    PENDING = "pending", "Waiting for review"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class LabelingItem(models.Model):
    """One sample of a task with its review: a reviewer accepts it (the chosen answer becomes the
    sample's label) or rejects it with a comment (its assignments go back to their annotators)."""

    task = models.ForeignKey(LabelingTask, on_delete=models.CASCADE, related_name="items")
    sample = models.ForeignKey("datasets.Sample", on_delete=models.CASCADE, related_name="labeling_items")
    position = models.PositiveIntegerField(default=0, help_text="Order in the task (the ranking's order).")
    review = models.CharField(max_length=16, choices=ItemReview.choices, default=ItemReview.PENDING)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_comment = models.CharField(max_length=1000, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "sample"], name="one_item_per_sample_and_task")
        ]

    def __str__(self) -> str:
        return f"{self.task_id}:{self.sample_id}"


class AssignmentStatus(models.TextChoices):
    PENDING = "pending", "To label"
    SUBMITTED = "submitted", "Submitted, waiting for review"
    REJECTED = "rejected", "Rejected: to label again"
    ACCEPTED = "accepted", "Accepted"


class LabelingAssignment(models.Model):
    """One annotator's work on one item. ``answer`` is what they submitted, in the shape of the
    dataset's task: ``{"label": id}`` (classification), ``{"status", "boxes": [{label, x, y, width,
    height}]}`` (detection), ``{"target": float}`` (regression). ``rejections`` counts the times a
    reviewer sent it back (the annotator's rejection rate)."""

    item = models.ForeignKey(LabelingItem, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labeling_assignments"
    )
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.PENDING
    )
    answer = models.JSONField(null=True, blank=True)
    rejections = models.PositiveIntegerField(default=0)
    comment = models.CharField(
        max_length=1000, blank=True, help_text="The reviewer's last rejection comment."
    )
    opened_at = models.DateTimeField(null=True, blank=True, help_text="When the annotator first opened it.")
    submitted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item__position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "annotator"], name="one_assignment_per_item_and_annotator"
            )
        ]
        indexes = [models.Index(fields=["annotator", "status", "id"], name="assignment_queue")]

    def __str__(self) -> str:
        return f"{self.item_id} -> {self.annotator_id} ({self.status})"
