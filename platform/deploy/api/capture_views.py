"""Request capture over REST: a deployment's capture policy (``deployments/{id}/capture/``) and its
captured requests (``deployments/{id}/captures/``): list, read the input, delete, send to a dataset."""

from __future__ import annotations

from accounts.models import User
from config.contracts import ContractJSONField, contract_serializer
from datasets.selectors import dataset_for
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView
from workspaces.permissions import require_role
from workspaces.selectors import scoped_to_member

from deploy import capture_services
from deploy.models import CapturedRequest, CapturePolicy, CaptureReason, Deployment
from workers.contracts import deployments as deployment_contracts

MAX_POLICY_LABELS = 200
# a table row as captured (workers.contracts.prediction.TableRow): cells by column name
ROW_SCHEMA = {
    "type": "object",
    "additionalProperties": {
        "oneOf": [{"type": "number"}, {"type": "string"}, {"type": "boolean"}],
        "nullable": True,
    },
}
# why a capture was not sent to the dataset (or sent without a suggestion)
SKIPPED_REASONS = [
    ("already_sent", "Sent before"),
    ("input_missing", "Its stored input is gone"),
    ("unreadable_input", "Its input cannot be read as the dataset's kind"),
    ("wrong_kind", "Not an input of the dataset's kind"),
    ("duplicate", "The same input is in the dataset already, or earlier in this send"),
    ("no_schema", "The tabular dataset has no columns yet"),
    ("no_suggestion", "Sample created; the served answer maps to none of the dataset's classes"),
]


class CapturePolicyUpdateSerializer(serializers.Serializer):
    """A change of the capture policy: any of its fields (the others keep their values)."""

    enabled = serializers.BooleanField(required=False, help_text="Capture on or off.")
    sample_rate = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text="Share of the eligible instances kept, 0-1."
    )
    retention_days = serializers.IntegerField(
        min_value=1, max_value=3650, required=False, help_text="Captures older are deleted (1-3650 days)."
    )
    max_bytes = serializers.IntegerField(
        min_value=1, max_value=1 << 50, required=False, help_text="The size cap of the kept inputs, in bytes."
    )
    low_confidence_below = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        allow_null=True,
        required=False,
        help_text="Filter: the top-1 score is below this (0-1; null: no such filter).",
    )
    shadow_disagreement = serializers.BooleanField(
        required=False, help_text="Filter: the shadow's top-1 class differs from the served one."
    )
    labels = serializers.ListField(
        child=serializers.CharField(max_length=200),
        max_length=MAX_POLICY_LABELS,
        required=False,
        help_text="Filter: the served top-1 class is one of these names.",
    )


class CapturePolicySerializer(serializers.ModelSerializer):
    """What a deployment keeps of the requests it answers. Off by default. An answered instance is
    eligible when no filter is set or any set filter matches (``low_confidence_below``,
    ``shadow_disagreement``, ``labels``); an eligible one is kept with probability ``sample_rate``
    while the kept inputs stay under ``max_bytes``; captures older than ``retention_days`` are deleted."""

    labels = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Filter: the served top-1 class names."
    )
    stored_bytes = serializers.SerializerMethodField(help_text="Bytes of the kept inputs.")
    stored_count = serializers.SerializerMethodField(help_text="Captured requests kept.")
    updated_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = CapturePolicy
        fields = [
            "enabled",
            "sample_rate",
            "retention_days",
            "max_bytes",
            "low_confidence_below",
            "shadow_disagreement",
            "labels",
            "stored_bytes",
            "stored_count",
            "updated_at",
            "updated_by",
        ]
        read_only_fields = fields

    def get_stored_bytes(self, policy) -> int:
        return self.context["stored"]["stored_bytes"]

    def get_stored_count(self, policy) -> int:
        return self.context["stored"]["stored_count"]


class CapturedAnswerField(ContractJSONField):
    """The served (or shadow) answer kept with a capture: top label and score, or the value."""

    contract_schema = contract_serializer(deployment_contracts.CapturedAnswer)


class CapturedRequestSerializer(serializers.ModelSerializer):
    model_version_name = serializers.SerializerMethodField()
    answer = CapturedAnswerField(read_only=True, help_text=CapturedAnswerField.__doc__)
    shadow_answer = CapturedAnswerField(
        read_only=True, allow_null=True, help_text="The shadow's answer to the same input (with a shadow)."
    )
    sent_to_dataset = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="The dataset it was sent to (null: not sent)."
    )
    content_url = serializers.SerializerMethodField()
    text = serializers.SerializerMethodField(help_text="Text inputs: the text (its first 2,000 characters).")
    row = serializers.SerializerMethodField(help_text="Tabular inputs: the row by column name.")

    class Meta:
        model = CapturedRequest
        fields = [
            "id",
            "at",
            "model_version",
            "model_version_name",
            "reason",
            "data_kind",
            "content_type",
            "size_bytes",
            "answer",
            "shadow_version",
            "shadow_answer",
            "sent_to_sample",
            "sent_to_dataset",
            "content_url",
            "text",
            "row",
        ]
        read_only_fields = fields

    def get_model_version_name(self, capture) -> str | None:
        return capture.model_version.name if capture.model_version is not None else None

    def get_content_url(self, capture) -> str:
        return f"/api/v1/deployments/{capture.deployment_id}/captures/{capture.pk}/content/"

    def _preview(self, capture) -> dict:
        cache = self.context.setdefault("previews", {})
        if capture.pk not in cache:
            cache[capture.pk] = capture_services.capture_preview(capture)
        return cache[capture.pk]

    def get_text(self, capture) -> str | None:
        return self._preview(capture).get("text")

    @extend_schema_field({**ROW_SCHEMA, "nullable": True})
    def get_row(self, capture) -> dict | None:
        return self._preview(capture).get("row")


class CaptureQuerySerializer(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=CaptureReason.choices, required=False, help_text="Why it was kept."
    )
    label = serializers.CharField(required=False, max_length=200, help_text="The served top-1 class.")  # type: ignore[assignment]  # stub: Field.label
    sent = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Sent to a dataset or not."
    )
    model_version = serializers.IntegerField(
        required=False, min_value=1, help_text="The version that answered."
    )


class CaptureDeleteSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=10_000,
        help_text="These captures.",
    )
    all = serializers.BooleanField(default=False, help_text="Every capture of the deployment.")

    def validate(self, attrs):
        if not attrs.get("all") and not attrs.get("ids"):
            raise serializers.ValidationError({"ids": ["Give the captures' ids, or all: true."]})
        return attrs


class CaptureDeleteResultSerializer(serializers.Serializer):
    deleted = serializers.IntegerField()


class CaptureSendSerializer(serializers.Serializer):
    dataset = serializers.IntegerField(
        min_value=1, help_text="A dataset of the deployment's project and task."
    )
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=capture_services.MAX_SEND,
        help_text="These captures; without ids, the unsent ones matching reason and label.",
    )
    reason = serializers.ChoiceField(choices=CaptureReason.choices, required=False)
    label = serializers.CharField(required=False, max_length=200)  # type: ignore[assignment]  # stub: Field.label


class CaptureSkippedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=SKIPPED_REASONS)
    detail = serializers.CharField(allow_blank=True)


class CaptureSendResultSerializer(serializers.Serializer):
    dataset = serializers.IntegerField()
    samples_created = serializers.IntegerField()
    suggestions_created = serializers.IntegerField()
    skipped = CaptureSkippedSerializer(many=True)


def _deployment(request, deployment_id: int, *, write: str | None = None) -> Deployment:
    """The deployment (404 when not a member's); ``write``: the action a writer role is needed for."""
    deployment = get_object_or_404(
        scoped_to_member(Deployment.objects.select_related("model_version"), user=request.user),
        pk=deployment_id,
    )
    if write is not None:
        require_role(user=request.user, workspace_id=deployment.workspace_id, action=write)
    return deployment


def _policy_answer(deployment: Deployment, code: int = status.HTTP_200_OK) -> Response:
    policy = capture_services.capture_policy_of(deployment=deployment)
    stored = capture_services.capture_stored(deployment=deployment)
    return Response(CapturePolicySerializer(policy, context={"stored": stored}).data, status=code)


class DeploymentCapturePolicyView(APIView):
    """A deployment's request capture policy (off by default)."""

    @extend_schema(
        operation_id="deployments_capture_retrieve",
        responses=CapturePolicySerializer,
        summary="The request capture policy and what is stored",
    )
    def get(self, request, pk: int):
        return _policy_answer(_deployment(request, pk))

    @extend_schema(
        operation_id="deployments_capture_update",
        request=CapturePolicyUpdateSerializer,
        responses=CapturePolicySerializer,
        summary="Change the request capture policy (any of its fields; history entry capture)",
    )
    def put(self, request, pk: int):
        deployment = _deployment(request, pk, write="change request capture")
        body = CapturePolicyUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        capture_services.capture_policy_update(
            user=request.user, deployment=deployment, **body.validated_data
        )
        return _policy_answer(deployment)


@extend_schema_view(list=extend_schema(parameters=[CaptureQuerySerializer]))
class CapturedRequestViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Captured requests of one deployment, newest first: read the input, delete, send to a dataset."""

    serializer_class = CapturedRequestSerializer
    queryset = CapturedRequest.objects.none()
    filter_backends: list = []

    def deployment(self) -> Deployment:
        if not hasattr(self, "_deployment"):
            write = None if self.request.method in ("GET", "HEAD", "OPTIONS") else "manage captured requests"
            self._deployment = _deployment(self.request, self.kwargs["deployment_id"], write=write)
        return self._deployment

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no request user
            return CapturedRequest.objects.none()
        filters = {}
        if self.action == "list":
            query = CaptureQuerySerializer(data=self.request.query_params)
            query.is_valid(raise_exception=True)
            filters = query.validated_data
        return capture_services.captures_of(deployment=self.deployment(), **filters)

    @extend_schema(responses={204: None}, summary="Delete a captured request and its stored input")
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        capture_services.capture_delete(capture=instance)

    @extend_schema(
        responses={
            (200, "image/png"): OpenApiTypes.BINARY,
            (200, "text/plain"): OpenApiTypes.STR,
            (200, "application/json"): ROW_SCHEMA,
            404: OpenApiResponse(description="no such capture, or its input is gone"),
        },
        summary="The captured input as stored: a PNG image, the text, or the row as JSON",
    )
    @action(detail=True, methods=["get"])
    def content(self, request, deployment_id=None, pk=None):
        capture = self.get_object()
        data = capture_services.capture_content(capture)
        if data is None:
            raise NotFound("The stored input of this capture is gone.")
        response = HttpResponse(data, content_type=capture.content_type or "application/octet-stream")
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        response["Cache-Control"] = "private, max-age=3600"
        return response

    @extend_schema(
        request=CaptureDeleteSerializer,
        responses=CaptureDeleteResultSerializer,
        summary="Delete captured requests by id, or all of them (their inputs too)",
    )
    @action(detail=False, methods=["post"], url_path="delete", url_name="delete")
    def bulk_delete(self, request, deployment_id=None):
        deployment = self.deployment()
        body = CaptureDeleteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        deleted = capture_services.captures_delete(
            deployment=deployment, ids=body.validated_data.get("ids"), all=body.validated_data["all"]
        )
        return Response({"deleted": deleted})

    @extend_schema(
        request=CaptureSendSerializer,
        responses=CaptureSendResultSerializer,
        summary="Send captured inputs to a dataset: unlabeled samples with the served answer as a suggestion",
    )
    @action(detail=False, methods=["post"])
    def send(self, request, deployment_id=None):
        deployment = self.deployment()
        body = CaptureSendSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        dataset = dataset_for(user=request.user, dataset_id=data["dataset"])
        if dataset is None:
            raise serializers.ValidationError({"dataset": [f"No dataset {data['dataset']} of yours."]})
        require_role(user=request.user, workspace_id=dataset.workspace_id, action="add samples")
        return Response(
            capture_services.captures_send(
                user=request.user,
                deployment=deployment,
                dataset=dataset,
                ids=data.get("ids"),
                reason=data.get("reason"),
                label=data.get("label"),
            )
        )
