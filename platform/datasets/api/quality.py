"""Data quality reports of a dataset or a version: ``/datasets/{dataset_id}/quality-reports/``."""

from __future__ import annotations

from config.contracts import contract_field, contract_serializer
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from jobs.api.serializers import NO_PROGRESS_YET, ProgressEventSerializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission

from datasets.api.serializers import _created_by
from datasets.api.views import DatasetChildMixin, _nested
from datasets.models import DatasetVersion, QualityReport
from datasets.services.quality import quality_report_create
from workers.contracts.quality import QualityParams
from workers.contracts.quality import QualityReport as QualityReportContract

MAX_ID = 2**63 - 1


class QualityThresholdsSerializer(serializers.Serializer):
    """Thresholds a user may change; omitted ones are the checks' defaults."""

    near_duplicate_distance = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=32,
        help_text="Images: perceptual-hash bits (of 64) two near duplicates may differ in.",
    )
    near_duplicate_similarity = serializers.FloatField(
        required=False,
        min_value=0.5,
        max_value=1.0,
        help_text="Texts: the embedding cosine similarity two near duplicates reach at least.",
    )
    min_per_class = serializers.IntegerField(
        required=False, min_value=1, max_value=100_000, help_text="A class with fewer samples is tiny."
    )
    seed = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="Makes the mislabel check repeatable."
    )


class QualityReportCreateSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=MAX_ID,
        help_text="A version of this dataset (its splits are checked for leakage); null: the live dataset.",
    )
    params = QualityThresholdsSerializer(required=False, default=dict)


class DatasetQualityReportSerializer(serializers.ModelSerializer):
    """A quality report's run: its status, the job computing it, and once it succeeded the report."""

    version_name = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    params = contract_field(contract_serializer(QualityParams), help_text="The thresholds asked for.")
    report = contract_field(
        contract_serializer(QualityReportContract),
        allow_null=True,
        help_text="The findings, class balance and distributions; null until the job succeeded.",
    )
    created_by = _created_by()

    class Meta:
        model = QualityReport
        fields = [
            "id",
            "dataset",
            "version",
            "version_name",
            "status",
            "job",
            "progress",
            "params",
            "report",
            "error",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_version_name(self, row: QualityReport) -> str | None:
        """V1, V2, ... for a version's report; null for the live dataset's."""
        return f"V{row.version.number}" if row.version is not None else None

    @extend_schema_field(serializers.ChoiceField(choices=QualityReport.Status.choices))
    def get_status(self, row: QualityReport) -> str:
        # A job that ended without reaching the report's own code (the reaper failed it, a cancel
        # before it started) leaves the row queued or running: show how it ended.
        if row.status in (QualityReport.Status.QUEUED, QualityReport.Status.RUNNING) and (
            row.job is not None and row.job.status in ("failed", "cancelled")
        ):
            return QualityReport.Status.FAILED
        return row.status

    @extend_schema_field(ProgressEventSerializer)
    def get_progress(self, row: QualityReport) -> dict:
        """The job's latest progress event (message, fraction); the empty event before it reported."""
        return (row.job.progress if row.job is not None else None) or dict(NO_PROGRESS_YET)


class QualityReportSummarySerializer(DatasetQualityReportSerializer):
    """A report in lists: everything but the findings (see the report's detail)."""

    class Meta(DatasetQualityReportSerializer.Meta):
        fields = [f for f in DatasetQualityReportSerializer.Meta.fields if f != "report"]
        read_only_fields = fields


@_nested("list", "create", "retrieve")
class QualityReportViewSet(
    DatasetChildMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Data quality reports of a dataset or one of its versions, newest first; each is computed by a
    ``datasets.quality_report`` job. Any member reads them; owners and editors run them."""

    serializer_class = DatasetQualityReportSerializer
    queryset = QualityReport.objects.none()
    permission_classes = [WorkspaceRolePermission]

    def get_queryset(self):
        rows = QualityReport.objects.filter(dataset=self.dataset).select_related(
            "version", "job", "created_by"
        )
        return rows.defer("report") if self.action == "list" else rows

    def get_serializer_class(self):
        return QualityReportSummarySerializer if self.action == "list" else DatasetQualityReportSerializer

    @extend_schema(
        request=QualityReportCreateSerializer,
        responses={
            202: DatasetQualityReportSerializer,
            400: OpenApiResponse(description="dataset_has_no_samples, or a version not of this dataset"),
            409: OpenApiResponse(description="quality_report_running: a report of the same data is running"),
        },
        summary="Run a data quality report of the dataset or one of its versions (202: a job computes it)",
    )
    def create(self, request, *args, **kwargs):
        self.require_writer("run quality reports")
        body = QualityReportCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version = None
        if body.validated_data["version"] is not None:
            version = DatasetVersion.objects.filter(
                dataset=self.dataset, pk=body.validated_data["version"]
            ).first()
            if version is None:
                raise serializers.ValidationError({"version": ["No such version of this dataset."]})
        row = quality_report_create(
            dataset=self.dataset, version=version, params=body.validated_data["params"], user=request.user
        )
        return Response(
            DatasetQualityReportSerializer(self.get_queryset().get(pk=row.pk)).data,
            status=status.HTTP_202_ACCEPTED,
        )
