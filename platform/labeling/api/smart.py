"""Smart labeling over REST: rounds (``datasets/{id}/smart-labeling/``) and their suggestions
(``datasets/{id}/suggestions/``), accepted or rejected one by one or in bulk."""

from __future__ import annotations

from config.contracts import contract_field, contract_serializer
from datasets.api.serializers import SampleSuggestionBoxSerializer
from datasets.api.views import DATASET_ID, DatasetChildMixin
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field, extend_schema_view
from jobs.api.serializers import ProgressField
from jobs.models import FINISHED
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission

from labeling import selectors
from labeling.models import RoundStatus, SmartLabelingRound, Suggestion, SuggestionSource, SuggestionStatus
from labeling.services.smart import MAX_BATCH_SIZE, smart_round_create, suggestions_accept, suggestions_reject
from workers.contracts.smart_labeling import STRATEGIES, SmartLabelingParams, SmartLabelingSummary

MAX_DECISION_IDS = 10_000

# --- rounds --------------------------------------------------------------------------------------


class SmartRoundCreateSerializer(serializers.Serializer):
    batch_size = serializers.IntegerField(
        min_value=1,
        max_value=MAX_BATCH_SIZE,
        default=50,
        help_text="How many samples the ranking puts first (rank 1..batch_size): the ones to label next.",
    )
    strategy = serializers.ChoiceField(
        choices=[(s, s) for s in STRATEGIES],
        default="uncertainty_diversity",
        help_text="How the ranking is made: uncertainty combined with diversity (default), uncertainty "
        "alone, or random (a baseline).",
    )
    seed = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, required=False, help_text="Makes a round repeatable."
    )


class SmartRoundSerializer(serializers.ModelSerializer):
    """A round of smart labeling: its job's status and progress, and once it succeeded the summary."""

    status = serializers.SerializerMethodField(help_text="The round's status (its job's, while it ends).")
    error = serializers.SerializerMethodField(help_text="Why the round failed; empty otherwise.")
    params = contract_field(contract_serializer(SmartLabelingParams), help_text="The round's parameters.")
    summary = contract_field(
        contract_serializer(SmartLabelingSummary),
        allow_null=True,
        help_text="The round at a glance once it succeeded; null before.",
    )
    progress = ProgressField(source="job.progress", read_only=True, help_text="The job's latest progress.")
    created_by: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = SmartLabelingRound
        fields = [
            "id",
            "dataset",
            "number",
            "status",
            "job",
            "params",
            "summary",
            "error",
            "progress",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @staticmethod
    def _job_ended_first(smart_round: SmartLabelingRound) -> bool:
        """The job ended without the round hearing of it (reaped, cancelled while queued)."""
        job = smart_round.job
        return (
            smart_round.status in (RoundStatus.QUEUED, RoundStatus.RUNNING)
            and job is not None
            and job.status in FINISHED
            and job.status != "succeeded"
        )

    @extend_schema_field(serializers.ChoiceField(choices=RoundStatus.choices))
    def get_status(self, smart_round: SmartLabelingRound) -> str:
        if self._job_ended_first(smart_round):
            return str(smart_round.job.status)  # type: ignore[union-attr]
        job = smart_round.job
        if smart_round.status == RoundStatus.QUEUED and job is not None and job.status == "running":
            return RoundStatus.RUNNING
        return smart_round.status

    def get_error(self, smart_round: SmartLabelingRound) -> str:
        if self._job_ended_first(smart_round):
            return smart_round.job.error  # type: ignore[union-attr]
        return smart_round.error


@extend_schema_view(
    list=extend_schema(parameters=[DATASET_ID], summary="A dataset's smart-labeling rounds, newest first"),
    retrieve=extend_schema(parameters=[DATASET_ID], summary="One round with its job's progress and summary"),
)
class SmartLabelingRoundViewSet(
    DatasetChildMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Smart-labeling rounds of a dataset: each trains a quick model on the labeled samples, suggests a
    label for every unlabeled one and ranks them by how much labeling them would help."""

    serializer_class = SmartRoundSerializer
    queryset = SmartLabelingRound.objects.none()
    permission_classes = [WorkspaceRolePermission]

    def get_queryset(self):
        return selectors.rounds_of(dataset=self.dataset)

    @extend_schema(
        parameters=[DATASET_ID],
        request=SmartRoundCreateSerializer,
        responses={
            202: SmartRoundSerializer,
            400: OpenApiResponse(
                description="not_enough_labels (fewer than 2 classes with 2 labels each) or "
                "nothing_to_suggest (every sample is labeled)"
            ),
            409: OpenApiResponse(description="round_running: a round of this dataset is queued or running"),
        },
        summary="Start a round (a job on a worker); its suggestions replace the pending ones of older rounds",
    )
    def create(self, request, *args, **kwargs):
        self.require_writer("start smart labeling")
        body = SmartRoundCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        smart_round = smart_round_create(dataset=self.dataset, user=request.user, **body.validated_data)
        found = self.get_queryset().get(pk=smart_round.pk)
        return Response(SmartRoundSerializer(found).data, status=status.HTTP_202_ACCEPTED)


# --- suggestions ---------------------------------------------------------------------------------


class SuggestionSampleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    original_name = serializers.CharField()
    thumbnail_url = serializers.SerializerMethodField()
    image_url = serializers.SerializerMethodField()
    format = serializers.CharField(help_text="JPEG, PNG, ...; TEXT for a text, ROW for a table row.")
    text = serializers.CharField(help_text="Text datasets: the text; empty otherwise.")
    width = serializers.IntegerField()
    height = serializers.IntegerField()

    def get_thumbnail_url(self, sample) -> str:
        return f"/api/v1/datasets/{sample.dataset_id}/samples/{sample.pk}/thumbnail/"

    def get_image_url(self, sample) -> str:
        return f"/api/v1/datasets/{sample.dataset_id}/samples/{sample.pk}/image/"


class SuggestionScoreSerializer(serializers.Serializer):
    label = serializers.IntegerField(allow_null=True, help_text="A label id (null: deleted since).")  # type: ignore[assignment]  # stub: Field.label
    score = serializers.FloatField()


class SuggestionSerializer(serializers.ModelSerializer):
    """A suggestion for one unlabeled sample: a label with its confidence (classification), boxes
    with scores (object detection) or a value (regression), and its place in the round's ranking."""

    sample = SuggestionSampleSerializer(read_only=True)
    label_name = serializers.CharField(source="label.name", read_only=True, allow_null=True, default=None)
    deployment = serializers.IntegerField(
        source="captured_request.deployment_id",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="From production: the deployment whose answer it is (null for a round's).",
    )
    deployment_name = serializers.CharField(
        source="captured_request.deployment.name", read_only=True, allow_null=True, default=None
    )
    scores = SuggestionScoreSerializer(many=True, read_only=True, help_text="Top classes, best first.")
    boxes = SampleSuggestionBoxSerializer(
        many=True, read_only=True, help_text="Object detection: suggested boxes."
    )

    class Meta:
        model = Suggestion
        fields = [
            "id",
            "round",
            "source",
            "captured_request",
            "deployment",
            "deployment_name",
            "sample",
            "label",
            "label_name",
            "confidence",
            "scores",
            "boxes",
            "value",
            "priority",
            "rank",
            "status",
        ]
        read_only_fields = fields


ORDERINGS = [
    ("rank", "The round's ranking: the batch to label next first"),
    ("-confidence", "Most confident first"),
    ("confidence", "Least confident first"),
    ("id", "Oldest first"),
]


class SuggestionQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=SuggestionStatus.choices,
        default=SuggestionStatus.PENDING,
        help_text="pending (default: waiting, on samples still unlabeled), accepted, rejected, superseded.",
    )
    round = serializers.IntegerField(min_value=1, required=False, help_text="Only this round's (its id).")
    source = serializers.ChoiceField(  # type: ignore[assignment]  # stub: Field.source
        choices=SuggestionSource.choices,
        required=False,
        help_text="Only suggestions of smart-labeling rounds (smart_round) or from production (capture).",
    )
    ranked = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true: only the ranked ones (rank not null)."
    )
    label = serializers.IntegerField(min_value=1, required=False, help_text="Only suggestions of this label.")  # type: ignore[assignment]  # stub: Field.label
    min_confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    max_confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    ordering = serializers.ChoiceField(choices=ORDERINGS, default="rank")


class SuggestionDecisionSerializer(serializers.Serializer):
    """Which pending suggestions: ``ids``, or everything pending matching the filter."""

    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=MAX_DECISION_IDS,
        help_text="These suggestions (by id).",
    )
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        min_value=1, required=False, help_text="Filter: suggestions of this label."
    )
    min_confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    max_confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    round = serializers.IntegerField(min_value=1, required=False, help_text="Filter: this round's.")

    def validate(self, attrs):
        filters = ("label", "min_confidence", "max_confidence", "round")
        if "ids" in attrs and any(name in attrs for name in filters):
            raise serializers.ValidationError({"ids": ["Give ids or a filter, not both."]})
        if "ids" not in attrs and not any(name in attrs for name in filters):
            raise serializers.ValidationError(
                {"ids": ["Give the suggestions' ids or a filter (label, min_confidence, round)."]}
            )
        return attrs


class SuggestionAcceptSerializer(SuggestionDecisionSerializer):
    min_score = serializers.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text="Object detection: drop suggested boxes scored under it.",
    )


class SkippedSuggestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=[
            ("human_labeled", "A person labeled the sample meanwhile: their label stays"),
            ("not_pending", "Already accepted, rejected or superseded"),
        ]
    )


class SuggestionAcceptResultSerializer(serializers.Serializer):
    accepted = serializers.IntegerField(help_text="Samples labeled from their suggestion.")
    skipped = SkippedSuggestionSerializer(many=True)


class SuggestionRejectResultSerializer(serializers.Serializer):
    rejected = serializers.IntegerField()


@extend_schema_view(list=extend_schema(parameters=[DATASET_ID, SuggestionQuerySerializer]))
class SuggestionViewSet(DatasetChildMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Smart-labeling suggestions of a dataset: filter, accept (the sample gets the suggested label,
    never over a person's) or reject."""

    serializer_class = SuggestionSerializer
    queryset = Suggestion.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filter_backends: list = []

    def get_queryset(self):
        query = SuggestionQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.suggestion_list(dataset=self.dataset, **query.validated_data)

    @extend_schema(
        parameters=[DATASET_ID],
        request=SuggestionAcceptSerializer,
        responses={200: SuggestionAcceptResultSerializer},
        summary="Accept suggestions: their samples get the suggested label (boxes), never over a person's",
    )
    @action(detail=False, methods=["post"])
    def accept(self, request, *args, **kwargs):
        self.require_writer("accept suggestions")
        body = SuggestionAcceptSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(suggestions_accept(dataset=self.dataset, user=request.user, **body.validated_data))

    @extend_schema(
        parameters=[DATASET_ID],
        request=SuggestionDecisionSerializer,
        responses={200: SuggestionRejectResultSerializer},
        summary="Reject suggestions: their samples stay unlabeled",
    )
    @action(detail=False, methods=["post"])
    def reject(self, request, *args, **kwargs):
        self.require_writer("reject suggestions")
        body = SuggestionDecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(suggestions_reject(dataset=self.dataset, user=request.user, **body.validated_data))
