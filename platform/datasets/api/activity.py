"""The activity log of a dataset's samples (who changed which label or boxes, when, from where) and
reverting one change from it."""

from __future__ import annotations

from config.contracts import contract_field, contract_serializer
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission

from datasets import selectors
from datasets.api.views import DATASET_ID, DatasetChildMixin
from datasets.models import ActivityAction, SampleActivity
from datasets.services.activity import activity_revert
from workers.contracts.activity import ActivityValue

ActivityValueSerializer = contract_serializer(ActivityValue)


class SampleActivitySerializer(serializers.ModelSerializer):
    actor_username = serializers.CharField(
        source="actor.username", read_only=True, allow_null=True, default=None
    )
    before = contract_field(ActivityValueSerializer, help_text="The value before the change.")
    after = contract_field(ActivityValueSerializer, help_text="The value after the change.")
    can_revert = serializers.SerializerMethodField(
        help_text="The sample still has this entry's `after` value, so reverting puts `before` back "
        "(writers only; the server checks again)."
    )

    class Meta:
        model = SampleActivity
        fields = [
            "id",
            "sample",
            "actor",
            "actor_username",
            "action",
            "source",
            "before",
            "after",
            "comment",
            "reverts",
            "can_revert",
            "created_at",
        ]
        read_only_fields = fields

    def get_can_revert(self, entry: SampleActivity) -> bool:
        if entry.action == ActivityAction.LABEL:
            return entry.after.get("label") == getattr(entry, "sample_label_id", None)
        if entry.action == ActivityAction.TARGET:
            return entry.after.get("target") == getattr(entry, "sample_target", None)
        if entry.action == ActivityAction.REVIEW:
            return entry.after.get("review_status") == getattr(entry, "sample_review_status", None)
        return bool(getattr(entry, "is_latest", False))


class ActivityFilterSerializer(serializers.Serializer):
    sample = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


@extend_schema_view(
    list=extend_schema(
        parameters=[
            DATASET_ID,
            OpenApiParameter("sample", int, description="Only this sample's entries."),
        ],
        summary="The activity log of the dataset's samples, newest first",
    ),
    retrieve=extend_schema(parameters=[DATASET_ID]),
)
class SampleActivityViewSet(
    DatasetChildMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Who set which label or boxes when (accepted suggestions, task submissions, reviews, reverts and
    label merges included); any member reads it, owners and editors revert."""

    serializer_class = SampleActivitySerializer
    queryset = SampleActivity.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filter_backends: list = []

    def get_queryset(self):
        query = ActivityFilterSerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.activity_of(dataset=self.dataset, sample_id=query.validated_data.get("sample"))

    @extend_schema(
        parameters=[DATASET_ID],
        request=None,
        responses={
            200: SampleActivitySerializer,
            409: OpenApiResponse(
                description="label_conflict: the sample changed after this entry; label_deleted: the "
                "label to restore is gone. Nothing was reverted."
            ),
        },
        summary="Put the sample back to its value before this entry (logged as a new entry)",
    )
    @action(detail=True, methods=["post"])
    def revert(self, request, *args, **kwargs):
        entry = self.get_object()
        new = activity_revert(dataset=self.dataset, activity=entry, actor=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=new.pk)).data)
