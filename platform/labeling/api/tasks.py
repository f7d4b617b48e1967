"""Team labeling over REST: labeling tasks (``labeling-tasks/``: create, progress, items to review,
review verdicts, agreement) and each annotator's own queue (``labeling-assignments/``: open,
submit, the sample's image).

Who sees what: owners, editors and viewers see every task of their workspace (owners and editors
write and review); an annotator sees only the tasks they are in and only their own assignments.
Another workspace's task, or another annotator's assignment, is a 404.
"""

from __future__ import annotations

from typing import Any

from config.contracts import JSONScalarField, contract_field, contract_serializer
from config.pagination import PageNumberPagination
from datasets import selectors as dataset_selectors
from datasets.api.serializers import ANNOTATION_STATUS_CHOICES
from datasets.api.views import sample_image_response, sample_thumbnail_response
from datasets.label_order import label_keys
from django.utils.functional import cached_property
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from workspaces.api.serializers import UserBriefSerializer
from workspaces.models import CONTENT_ROLES, REVIEW_ROLES, WRITE_ROLES
from workspaces.permissions import WorkspaceRolePermission, require_role

from labeling import selectors
from labeling.models import AssignmentStatus, ItemReview, LabelingAssignment, LabelingItem, LabelingTask
from labeling.services.review import items_review, task_agreement
from labeling.services.tasks import (
    MAX_OVERLAP,
    MAX_TASK_ITEMS,
    assignment_open,
    assignment_submit,
    labeling_task_close,
    labeling_task_create,
    labeling_task_update,
)
from workers.contracts.labeling import AgreementReport, TaskAnswer

MAX_ID = 2**63 - 1

# --- shared pieces -------------------------------------------------------------------------------


class TaskLabelSerializer(serializers.Serializer):
    """One of the dataset's labels, in the dataset's order (an annotator cannot read the dataset)."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    color = serializers.CharField(read_only=True)
    key = serializers.CharField(
        read_only=True, allow_null=True, help_text="The key that picks this label in the labeler."
    )


def _labels_of(dataset) -> list[dict[str, Any]]:
    labels = list(dataset.labels.all())  # prefetched in the dataset's order
    keys = label_keys([(label.pk, label.shortcut) for label in labels])
    return [{"id": lab.pk, "name": lab.name, "color": lab.color, "key": keys.get(lab.pk)} for lab in labels]


class TaskSampleSerializer(serializers.Serializer):
    """The sample to label: its content and, for images, URLs an annotator may fetch."""

    id = serializers.IntegerField(read_only=True)
    original_name = serializers.CharField(read_only=True)
    text = serializers.CharField(read_only=True)
    values = serializers.DictField(
        child=JSONScalarField(allowed=(float, str), allow_null=True),
        read_only=True,
        allow_null=True,
        help_text="Tabular datasets: the row's values by column name (null: missing).",
    )
    width = serializers.IntegerField(read_only=True, allow_null=True)
    height = serializers.IntegerField(read_only=True, allow_null=True)
    image = serializers.SerializerMethodField(
        help_text="The image's URL for this assignment; null: no image."
    )
    thumbnail = serializers.SerializerMethodField(help_text="Its thumbnail's URL; null: no image.")

    def _base(self) -> str | None:
        return self.context.get("image_base")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_image(self, sample) -> str | None:
        base = self._base()
        return f"{base}image/" if base and sample.blob_key else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_thumbnail(self, sample) -> str | None:
        base = self._base()
        return f"{base}thumbnail/" if base and sample.thumbnail_key else None


class AnnotatorProgressSerializer(serializers.Serializer):
    annotator = serializers.IntegerField()
    username = serializers.CharField()
    assigned = serializers.IntegerField()
    submitted = serializers.IntegerField(help_text="Answered (waiting for review or accepted).")
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField(help_text="Assignments a reviewer sent back at least once.")
    to_do = serializers.IntegerField(help_text="Still to label: new or sent back.")


class TaskProgressSerializer(serializers.Serializer):
    items = serializers.IntegerField()
    submitted = serializers.IntegerField(help_text="Items whose every answer is in.")
    accepted = serializers.IntegerField(help_text="Items a reviewer accepted.")
    rejected = serializers.IntegerField(help_text="Items a reviewer rejected (waiting for new answers).")
    per_annotator = AnnotatorProgressSerializer(many=True)


# --- tasks ---------------------------------------------------------------------------------------


class SelectionSerializer(serializers.Serializer):
    """Which samples: ``{"by": "ids", "ids": [...]}``, ``{"by": "filter", "unlabeled"?, "label"?,
    "count"?}`` or ``{"by": "ranking", "round"?, "count"?}`` (a smart-labeling round's ranking, the
    latest succeeded round by default)."""

    by = serializers.ChoiceField(choices=[("ids", "ids"), ("filter", "filter"), ("ranking", "ranking")])
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        max_length=MAX_TASK_ITEMS,
        help_text="by ids: the samples, in task order.",
    )
    unlabeled = serializers.BooleanField(required=False, help_text="by filter: only unlabeled samples.")
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        required=False, min_value=1, max_value=MAX_ID, help_text="by filter: only samples with this label id."
    )
    count = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_TASK_ITEMS, help_text="At most this many samples."
    )
    round = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="by ranking: the round (id)."
    )

    def validate(self, attrs):
        if attrs["by"] == "ids" and not attrs.get("ids"):
            raise serializers.ValidationError({"ids": ["by ids: list the samples' ids."]})
        return attrs


class LabelingTaskSerializer(serializers.ModelSerializer):
    """A labeling task with its progress; ``my_progress`` is the caller's own, when they annotate it."""

    dataset_name = serializers.CharField(source="dataset.name", read_only=True)
    task_type = serializers.CharField(source="dataset.task_type", read_only=True)
    annotators = UserBriefSerializer(many=True, read_only=True)
    created_by: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    selection = serializers.SerializerMethodField(help_text="How the samples were chosen.")
    labels = serializers.SerializerMethodField(help_text="The dataset's labels, in its order.")
    progress = serializers.SerializerMethodField()
    my_progress = serializers.SerializerMethodField(help_text="The caller's own counts; null if not in it.")

    class Meta:
        model = LabelingTask
        fields = [
            "id",
            "dataset",
            "dataset_name",
            "task_type",
            "name",
            "instructions",
            "overlap",
            "status",
            "selection",
            "annotators",
            "labels",
            "progress",
            "my_progress",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(SelectionSerializer)
    def get_selection(self, task) -> dict:
        return {k: v for k, v in (task.selection or {}).items() if k in SelectionSerializer().fields}

    @extend_schema_field(TaskLabelSerializer(many=True))
    def get_labels(self, task) -> list[dict]:
        return _labels_of(task.dataset)

    def _progress(self, task) -> dict:
        known = self.context.get("progress") or {}
        if task.pk not in known:
            request = self.context.get("request")
            known.update(selectors.task_progress(tasks=[task], user=getattr(request, "user", None)))
        return known[task.pk]

    @extend_schema_field(TaskProgressSerializer)
    def get_progress(self, task) -> dict:
        return {k: v for k, v in self._progress(task).items() if k != "mine"}

    @extend_schema_field(AnnotatorProgressSerializer(allow_null=True))
    def get_my_progress(self, task) -> dict | None:
        return self._progress(task)["mine"]


class LabelingTaskCreateSerializer(serializers.Serializer):
    dataset = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    name = serializers.CharField(max_length=100)
    instructions = serializers.CharField(max_length=5000, required=False, allow_blank=True, default="")
    overlap = serializers.IntegerField(
        min_value=1, max_value=MAX_OVERLAP, default=1, help_text="How many annotators label each sample."
    )
    annotators = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        min_length=1,
        max_length=100,
        help_text="User ids: annotators, editors or owners of the dataset's workspace.",
    )
    selection = SelectionSerializer()


class LabelingTaskUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False)
    instructions = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    status = serializers.ChoiceField(choices=LabelingTask.Status.choices, required=False)


class ItemAssignmentSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="annotator.username", read_only=True)
    answer = contract_field(contract_serializer(TaskAnswer), allow_null=True, help_text="Null: not answered.")

    class Meta:
        model = LabelingAssignment
        fields = ["id", "annotator", "username", "status", "answer", "rejections", "comment", "submitted_at"]
        read_only_fields = fields


class LabelingItemSerializer(serializers.ModelSerializer):
    """An item to review: the sample and every annotator's answer."""

    sample = serializers.SerializerMethodField()
    reviewer: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    assignments = ItemAssignmentSerializer(many=True, read_only=True)

    class Meta:
        model = LabelingItem
        fields = [
            "id",
            "position",
            "review",
            "review_comment",
            "reviewer",
            "reviewed_at",
            "sample",
            "assignments",
        ]
        read_only_fields = fields

    @extend_schema_field(TaskSampleSerializer)
    def get_sample(self, item) -> dict:
        base = f"/api/v1/datasets/{item.sample.dataset_id}/samples/{item.sample_id}/"
        return TaskSampleSerializer(item.sample, context={"image_base": base}).data


class ReviewSerializer(serializers.Serializer):
    items = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=1, max_length=500
    )
    verdict = serializers.ChoiceField(choices=[("accept", "accept"), ("reject", "reject")])
    comment = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="accept, classification: this label wins (default: the majority's answer; ties: the "
        "first submitted).",
    )


class ReviewSkipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=[("not_submitted", "not_submitted")])


class ReviewResultSerializer(serializers.Serializer):
    reviewed = serializers.IntegerField()
    skipped = ReviewSkipSerializer(many=True)


TASK_ID = OpenApiParameter("task", int, required=False, description="Only this task's.")
ITEM_FILTERS = [
    OpenApiParameter("review", str, enum=list(ItemReview.values), required=False),
    OpenApiParameter(
        "submitted", bool, required=False, description="true: only items whose answers are all in."
    ),
]


class LabelingTaskViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Labeling tasks: owners and editors create, change, close and review them; viewers read them;
    an annotator sees the tasks they are in."""

    serializer_class = LabelingTaskSerializer
    queryset = LabelingTask.objects.none()
    permission_classes = [WorkspaceRolePermission]

    def get_queryset(self):
        tasks = selectors.labeling_tasks_for(user=self.request.user)
        if self.action in {"items", "review", "agreement"}:
            tasks = tasks.prefetch_related(None)  # the task's own row is all these need
        dataset = self.request.query_params.get("dataset")
        if self.action == "list" and dataset:
            tasks = tasks.filter(dataset_id=int(dataset) if dataset.isdigit() else 0)
        return tasks

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.dataset.workspace_id

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["progress"] = {}
        return context

    def _content_member(self, task: LabelingTask, action: str) -> None:
        """Items and agreement are the workspace's content: an annotator of the task is refused."""
        require_role(
            user=self.request.user, workspace_id=task.dataset.workspace_id, roles=CONTENT_ROLES, action=action
        )

    def _reviewer_only(self, task: LabelingTask, action: str) -> None:
        require_role(
            user=self.request.user, workspace_id=task.dataset.workspace_id, roles=REVIEW_ROLES, action=action
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("dataset", int, required=False, description="Only this dataset's tasks.")
        ]
    )
    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        rows = list(page if page is not None else self.get_queryset())
        context = self.get_serializer_context()
        context["progress"] = selectors.task_progress(tasks=rows, user=request.user)
        data = LabelingTaskSerializer(rows, many=True, context=context).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    @extend_schema(
        request=LabelingTaskCreateSerializer,
        responses={
            201: LabelingTaskSerializer,
            400: OpenApiResponse(
                description="Refused: codes annotator_not_member, overlap_too_large, empty_selection, "
                "unknown_sample, unknown_label, no_ranking."
            ),
        },
        summary="Hand samples to annotators (owners, editors)",
    )
    def create(self, request, *args, **kwargs):
        body = LabelingTaskCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        dataset = dataset_selectors.dataset_for(user=request.user, dataset_id=data.pop("dataset"))
        if dataset is None:
            raise serializers.ValidationError({"dataset": ["No such dataset."]})
        require_role(
            user=request.user,
            workspace_id=dataset.workspace_id,
            roles=WRITE_ROLES,
            action="create labeling tasks",
        )
        task = labeling_task_create(dataset=dataset, user=request.user, **data)
        found = self.get_queryset().get(pk=task.pk)
        return Response(self.get_serializer(found).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LabelingTaskUpdateSerializer, responses={200: LabelingTaskSerializer})
    def partial_update(self, request, *args, **kwargs):
        task = self.get_object()
        body = LabelingTaskUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        labeling_task_update(task=task, **body.validated_data)
        return Response(self.get_serializer(self.get_queryset().get(pk=task.pk)).data)

    @extend_schema(request=None, responses={200: LabelingTaskSerializer}, summary="Close: no more answers")
    @action(detail=True, methods=["post"])
    def close(self, request, *args, **kwargs):
        task = self.get_object()
        labeling_task_close(task=task)
        return Response(self.get_serializer(self.get_queryset().get(pk=task.pk)).data)

    @extend_schema(
        responses={200: contract_serializer(AgreementReport)},
        summary="How far the annotators agree, and each one's throughput and rejection rate",
    )
    @action(detail=True, methods=["get"])
    def agreement(self, request, *args, **kwargs):
        task = self.get_object()
        self._content_member(task, "see the annotators' agreement")
        return Response(task_agreement(task=task))

    @extend_schema(parameters=ITEM_FILTERS, responses={200: LabelingItemSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=PageNumberPagination)
    def items(self, request, *args, **kwargs):
        task = self.get_object()
        self._content_member(task, "see the answers of a labeling task")
        review = request.query_params.get("review")
        if review and review not in ItemReview.values:
            raise serializers.ValidationError({"review": [f"One of {', '.join(ItemReview.values)}."]})
        submitted_param = request.query_params.get("submitted")
        submitted = None if submitted_param is None else submitted_param.lower() in {"1", "true", "yes"}
        found = selectors.task_items(task=task, review=review or None, submitted=submitted)
        page = self.paginate_queryset(found)
        return self.get_paginated_response(LabelingItemSerializer(page, many=True).data)

    @extend_schema(
        request=ReviewSerializer,
        responses={200: ReviewResultSerializer},
        summary="Accept items (their answer becomes the sample's label) or reject them with a comment "
        "(back to the annotators)",
    )
    @action(detail=True, methods=["post"])
    def review(self, request, *args, **kwargs):
        task = self.get_object()
        self._reviewer_only(task, "review labeling tasks")
        body = ReviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = items_review(
            task=task,
            item_ids=data["items"],
            verdict=data["verdict"],
            reviewer=request.user,
            comment=data["comment"],
            label=data.get("label"),
        )
        return Response(result)


# --- the annotator's queue -----------------------------------------------------------------------


class AssignmentTaskSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    instructions = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    dataset = serializers.IntegerField(source="dataset_id", read_only=True)
    task_type = serializers.CharField(source="dataset.task_type", read_only=True)


class LabelingAssignmentSerializer(serializers.ModelSerializer):
    """One sample to label, with everything the annotator needs: the sample, the dataset's labels,
    their answer so far and the reviewer's comment if it was sent back."""

    task = AssignmentTaskSerializer(source="item.task", read_only=True)
    task_name = serializers.CharField(source="item.task.name", read_only=True)
    task_type = serializers.CharField(source="item.task.dataset.task_type", read_only=True)
    sample = serializers.SerializerMethodField()
    labels = serializers.SerializerMethodField(help_text="The dataset's labels, in its order.")
    answer = contract_field(contract_serializer(TaskAnswer), allow_null=True, help_text="Null: not answered.")
    position = serializers.IntegerField(
        read_only=True, help_text="1-based among your assignments of the task."
    )
    total = serializers.IntegerField(read_only=True, help_text="Your assignments in the task.")

    class Meta:
        model = LabelingAssignment
        fields = [
            "id",
            "task",
            "task_name",
            "task_type",
            "item",
            "position",
            "total",
            "status",
            "answer",
            "comment",
            "rejections",
            "sample",
            "labels",
            "opened_at",
            "submitted_at",
        ]
        read_only_fields = fields

    @extend_schema_field(TaskSampleSerializer)
    def get_sample(self, assignment) -> dict:
        base = f"/api/v1/labeling-assignments/{assignment.pk}/"
        return TaskSampleSerializer(assignment.item.sample, context={"image_base": base}).data

    @extend_schema_field(TaskLabelSerializer(many=True))
    def get_labels(self, assignment) -> list[dict]:
        return _labels_of(assignment.item.task.dataset)


class AnswerBoxSerializer(serializers.Serializer):
    label = serializers.CharField(max_length=100, help_text="The label's name.")  # type: ignore[assignment]
    x = serializers.FloatField()
    y = serializers.FloatField()
    width = serializers.FloatField()
    height = serializers.FloatField()


class SubmitSerializer(serializers.Serializer):
    """The answer, in the shape of the dataset's task."""

    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        required=False, min_value=1, max_value=MAX_ID, help_text="Classification: the label's id."
    )
    target = serializers.FloatField(required=False, help_text="Regression: the value.")
    status = serializers.ChoiceField(
        choices=ANNOTATION_STATUS_CHOICES,
        required=False,
        help_text="Object detection: annotated (with boxes) or no_objects (none); unlabeled is refused.",
    )
    boxes = AnswerBoxSerializer(many=True, required=False, max_length=1000)  # type: ignore[call-arg]


ASSIGNMENT_FILTERS = [
    TASK_ID,
    OpenApiParameter("status", str, enum=list(AssignmentStatus.values), required=False),
]


class LabelingAssignmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your own labeling queue: sent back first, then still to label, then answered."""

    serializer_class = LabelingAssignmentSerializer
    queryset = LabelingAssignment.objects.none()

    def get_queryset(self):
        found = selectors.assignments_for(user=self.request.user)
        if self.action == "list":
            params = self.request.query_params
            task = params.get("task")
            if task:
                found = found.filter(item__task_id=int(task) if task.isdigit() else 0)
            wanted = params.get("status")
            if wanted:
                if wanted not in AssignmentStatus.values:
                    raise serializers.ValidationError(
                        {"status": [f"One of {', '.join(AssignmentStatus.values)}."]}
                    )
                found = found.filter(status=wanted)
        return found

    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)  # images for <img>, errors JSON

    @extend_schema(parameters=ASSIGNMENT_FILTERS)
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def retrieve(self, request, *args, **kwargs):
        assignment = assignment_open(assignment=self.get_object())
        return Response(self.get_serializer(assignment).data)

    @extend_schema(
        request=SubmitSerializer,
        responses={
            200: LabelingAssignmentSerializer,
            400: OpenApiResponse(
                description="The answer does not fit the dataset (unknown_label, box codes)."
            ),
            409: OpenApiResponse(description="Refused: codes task_closed, assignment_accepted."),
        },
        summary="Submit your answer (overlap 1: it labels the sample at once)",
    )
    @action(detail=True, methods=["post"])
    def submit(self, request, *args, **kwargs):
        assignment = self.get_object()
        body = SubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        assignment_submit(assignment=assignment, **body.validated_data)
        return Response(self.get_serializer(self.get_queryset().get(pk=assignment.pk)).data)

    @cached_property
    def _sample(self):
        sample = self.get_object().item.sample
        if not sample.blob_key:
            raise NotFound("This sample has no image.")
        return sample

    @extend_schema(
        responses={(200, "image/*"): OpenApiResponse(OpenApiTypes.BINARY), 304: None},
        summary="The assignment's image",
    )
    @action(detail=True, methods=["get"])
    def image(self, request, *args, **kwargs):
        return sample_image_response(request, self._sample)

    @extend_schema(
        responses={(200, "image/*"): OpenApiResponse(OpenApiTypes.BINARY), 304: None},
        summary="The assignment's thumbnail",
    )
    @action(detail=True, methods=["get"])
    def thumbnail(self, request, *args, **kwargs):
        return sample_thumbnail_response(request, self._sample)
