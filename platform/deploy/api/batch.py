"""/api/v1/batch-predictions/: a model version's predictions over a dataset version, a dataset or
an uploaded file, computed by a ``deploy.batch_predict`` job (deploy.batch)."""

from __future__ import annotations

from accounts.models import User
from config.contracts import contract_field, contract_serializer
from config.parsers import JSONParser
from datasets.models import Dataset, DatasetVersion
from django.core.files.storage import default_storage
from django.db.models import Q
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission, require_role
from workspaces.selectors import scoped_to_member

from deploy import batch as services
from deploy.api.serializers import MemberModelVersionField
from deploy.models import BatchPrediction, BatchSourceKind, BatchStatus, Deployment
from workers.contracts.batch import BATCH_FORMATS, BatchPredictionParams, BatchPredictionSummary

CONTENT_TYPES = {
    "jsonl": "application/x-ndjson",
    "csv": "text/csv; charset=utf-8",
    "parquet": "application/vnd.apache.parquet",
}


def batch_predictions_for(*, user):
    return scoped_to_member(
        BatchPrediction.objects.select_related(
            "model_version", "dataset_version__dataset", "dataset", "job", "created_by"
        ),
        user=user,
    )


@extend_schema_field(OpenApiTypes.INT)
class _MemberDatasetVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(
            DatasetVersion.objects.select_related("dataset"),
            user=self.context["request"].user,
            workspace_field="dataset__workspace",
        )


@extend_schema_field(OpenApiTypes.INT)
class _MemberDatasetField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(Dataset.objects.all(), user=self.context["request"].user)


@extend_schema_field(OpenApiTypes.INT)
class _MemberDeploymentField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(
            Deployment.objects.select_related("model_version"), user=self.context["request"].user
        )


class BatchPredictionCreateSerializer(serializers.Serializer):
    model_version = MemberModelVersionField(
        required=False, allow_null=True, help_text="The model version; default: the deployment's."
    )
    source = serializers.ChoiceField(choices=BatchSourceKind.choices)  # type: ignore[assignment]  # stub: Field.source
    dataset_version = _MemberDatasetVersionField(required=False, allow_null=True)
    split = serializers.ChoiceField(
        choices=[("", "all"), ("train", "train"), ("val", "val"), ("test", "test")],
        required=False,
        allow_blank=True,
        default="",
    )
    dataset = _MemberDatasetField(required=False, allow_null=True)
    deployment = _MemberDeploymentField(
        required=False, allow_null=True, help_text="Record the deployment it was started from."
    )
    file = serializers.FileField(
        required=False,
        help_text="source upload: a .zip/.tar(.gz) of images or .txt texts, or a CSV/JSONL/Parquet table.",
    )
    top_k = serializers.IntegerField(required=False, min_value=1, max_value=1000)
    score_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
    max_detections = serializers.IntegerField(required=False, min_value=1, max_value=1000)
    formats = serializers.ListField(
        child=serializers.ChoiceField(choices=[(f, f) for f in BATCH_FORMATS]),
        required=False,
        allow_empty=False,
        help_text="Result files; default jsonl and csv (and parquet for tables).",
    )

    def to_internal_value(self, data):
        # multipart sends formats as repeated fields or one comma-separated value
        if hasattr(data, "getlist") and "formats" in data:
            values = [v.strip() for raw in data.getlist("formats") for v in str(raw).split(",") if v.strip()]
            data = {key: data.get(key) for key in data} | {"formats": values}  # no copy of the upload
        return super().to_internal_value(data)


class BatchProgressSerializer(serializers.Serializer):
    fraction = serializers.FloatField(allow_null=True)
    done = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField(allow_null=True)
    eta_s = serializers.FloatField(allow_null=True)


class BatchSourceSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=BatchSourceKind.choices)
    dataset_version = serializers.IntegerField(allow_null=True)
    dataset_version_name = serializers.CharField(allow_null=True)
    split = serializers.CharField()
    dataset = serializers.IntegerField(allow_null=True)
    dataset_name = serializers.CharField(allow_null=True)
    upload_name = serializers.CharField()
    upload_size = serializers.IntegerField(allow_null=True)


class BatchPredictionFileSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=[(f, f) for f in BATCH_FORMATS])
    size_bytes = serializers.IntegerField()
    sha256 = serializers.CharField()
    download_url = serializers.CharField()


class BatchPredictionSerializer(serializers.ModelSerializer):
    model_version_name = serializers.CharField(source="model_version.name", read_only=True)
    template = serializers.CharField(source="model_version.template", read_only=True)
    status = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    source = serializers.SerializerMethodField()  # type: ignore[assignment]  # stub: Field.source
    params = contract_field(contract_serializer(BatchPredictionParams))
    summary = contract_field(contract_serializer(BatchPredictionSummary), allow_null=True)
    files = serializers.SerializerMethodField()
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = BatchPrediction
        fields = [
            "id",
            "workspace",
            "project",
            "model_version",
            "model_version_name",
            "template",
            "deployment",
            "job",
            "status",
            "progress",
            "source",
            "params",
            "summary",
            "files",
            "error",
            "created_at",
            "created_by",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=BatchStatus.choices))
    def get_status(self, batch) -> str:
        return services.batch_status(batch)

    @extend_schema_field(BatchProgressSerializer(allow_null=True))
    def get_progress(self, batch) -> dict | None:
        if batch.job is None or services.batch_status(batch) != BatchStatus.RUNNING:
            return None
        progress = batch.job.progress or {}
        return {
            "fraction": progress.get("fraction"),
            "done": progress.get("processed"),
            "total": progress.get("total"),
            "eta_s": progress.get("eta_s"),
        }

    @extend_schema_field(BatchSourceSerializer)
    def get_source(self, batch) -> dict:
        version = batch.dataset_version
        return {
            "kind": batch.source_kind,
            "dataset_version": batch.dataset_version_id,
            "dataset_version_name": f"{version.dataset.name} {version.name}" if version is not None else None,
            "split": batch.split,
            "dataset": batch.dataset_id if batch.dataset_id else (version.dataset_id if version else None),
            "dataset_name": batch.dataset.name
            if batch.dataset is not None
            else (version.dataset.name if version is not None else None),
            "upload_name": batch.upload_name,
            "upload_size": batch.upload_size,
        }

    @extend_schema_field(BatchPredictionFileSerializer(many=True))
    def get_files(self, batch) -> list[dict]:
        return [
            {
                "format": fmt,
                "size_bytes": entry["size_bytes"],
                "sha256": entry["sha256"],
                "download_url": f"/api/v1/batch-predictions/{batch.pk}/download/?format={fmt}",
            }
            for fmt, entry in (batch.files or {}).items()
        ]


class BatchPredictionFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=BatchStatus.choices, method="filter_status")

    class Meta:
        model = BatchPrediction
        fields = ["workspace", "project", "model_version", "deployment", "status"]

    def filter_status(self, queryset, name, value):
        unfinished = [BatchStatus.QUEUED, BatchStatus.RUNNING]
        if value in unfinished:
            return queryset.filter(status__in=unfinished).filter(
                Q(job__status=value) | Q(job__isnull=True, status=value)
            )
        return queryset.filter(Q(status=value) | Q(status__in=unfinished, job__status=value))


class BatchPredictionViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Batch predictions: a model version's predictions over many inputs, as a job, with result
    files (JSONL, CSV, Parquet) and, on labeled input, metrics."""

    serializer_class = BatchPredictionSerializer
    queryset = BatchPrediction.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = BatchPredictionFilter
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    def get_queryset(self):
        return batch_predictions_for(user=self.request.user)

    def perform_content_negotiation(self, request, force=False):
        # ?format= names the result file of a download, not a renderer (DRF's URL_FORMAT_OVERRIDE)
        return super().perform_content_negotiation(request, force=force or self.action == "download")

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request={
            "application/json": BatchPredictionCreateSerializer,
            "multipart/form-data": BatchPredictionCreateSerializer,
        },
        responses={
            201: BatchPredictionSerializer,
            413: OpenApiResponse(description="upload_too_large: the upload is over the imports' size limit"),
        },
        summary="Predict a dataset version, a dataset or an uploaded file (a deploy.batch_predict job)",
    )
    def create(self, request):
        serializer = BatchPredictionCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        model_version = data.get("model_version")
        deployment = data.get("deployment")
        workspace_id = (model_version or deployment).workspace_id if (model_version or deployment) else None
        if workspace_id is not None:
            require_role(user=request.user, workspace_id=workspace_id, action="run batch predictions")
        batch = services.batch_prediction_create(
            user=request.user,
            model_version=model_version,
            source=data["source"],
            dataset_version=data.get("dataset_version"),
            split=data.get("split") or "",
            dataset=data.get("dataset"),
            deployment=deployment,
            upload=data.get("file"),
            params={
                k: data[k] for k in ("top_k", "score_threshold", "max_detections", "formats") if k in data
            },
        )
        return Response(
            BatchPredictionSerializer(self.get_queryset().get(pk=batch.pk)).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        responses={204: None, 409: OpenApiResponse(description="batch_running: cancel it first")},
        summary="Delete a batch prediction and its files",
    )
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        services.batch_prediction_delete(batch=instance)

    @extend_schema(
        request=None,
        responses={200: BatchPredictionSerializer, 409: OpenApiResponse(description="already finished")},
        summary="Cancel a batch prediction",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def cancel(self, request, pk=None):
        batch = self.get_object()
        batch = services.batch_prediction_cancel(batch=batch)
        return Response(BatchPredictionSerializer(self.get_queryset().get(pk=batch.pk)).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format", str, enum=list(BATCH_FORMATS), description="jsonl (default), csv or parquet"
            )
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.BINARY,
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/vnd.apache.parquet"): OpenApiTypes.BINARY,
            400: OpenApiResponse(description="a format this batch has no file of"),
            409: OpenApiResponse(description="batch_not_ready: not finished"),
        },
        summary="Download a result file",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def download(self, request, pk=None):
        from config.exceptions import field_error
        from django.http import FileResponse

        batch = self.get_object()
        fmt = request.query_params.get("format") or "jsonl"
        if fmt not in BATCH_FORMATS:
            raise field_error(
                "format", f"{fmt!r} is not a result format; choose from {', '.join(BATCH_FORMATS)}."
            )
        if not batch.files:
            raise services.BatchConflict(
                f"Batch prediction {batch.pk} is {services.batch_status(batch)}; its results are "
                "downloadable once it has succeeded.",
                code="batch_not_ready",
            )
        entry = batch.files.get(fmt)
        if entry is None:
            raise field_error(
                "format", f"This batch prediction has no {fmt} file; it has {', '.join(batch.files)}."
            )
        if not default_storage.exists(entry["key"]):
            raise NotFound("The result file of this batch prediction is missing from storage.")
        return FileResponse(
            default_storage.open(entry["key"], "rb"),
            as_attachment=True,
            filename=services.download_name(batch, fmt),
            content_type=CONTENT_TYPES[fmt],
        )
