from __future__ import annotations

from config.exceptions import field_error
from config.parsers import JSONParser
from datasets.models import DatasetVersion
from django.core.files.storage import default_storage
from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from jobs.api.serializers import JobSerializer
from jobs.models import Job, JobStatus
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView
from workspaces.permissions import WorkspaceRolePermission, require_role
from workspaces.selectors import scoped_to_member

from training import compression, estimates, model_uploads, selectors, services
from training.api.serializers import (
    MODEL_VERSION_COMPARISON,
    BackboneCreateSerializer,
    BackboneSerializer,
    BackboneTargetSerializer,
    BrowserLatencySerializer,
    CompressionCreateSerializer,
    CompressionSerializer,
    ModelVersionEvaluationSerializer,
    ModelVersionSerializer,
    ModelVersionUploadSerializer,
    ModelVersionUploadTargetSerializer,
    RetrainSerializer,
    TemplateSerializer,
    TrainingEstimatesSerializer,
    TrainingJobCreateSerializer,
)
from training.api.training_jobs import TrainingJobSerializer
from training.models import Backbone, Compression, ModelVersion
from workers.templates import registry


class TemplateListView(APIView):
    @extend_schema(
        responses=TemplateSerializer(many=True), summary="Task templates with presets and parameters"
    )
    def get(self, request):
        return Response([t.as_dict() for t in registry.all()])


class TemplateDetailView(APIView):
    @extend_schema(responses=TemplateSerializer, summary="One task template")
    def get(self, request, name: str):
        try:
            return Response(registry.get(name).as_dict())
        except KeyError as exc:
            raise NotFound(str(exc)) from None


class TrainingJobFilter(filters.FilterSet):
    dataset_version = filters.NumberFilter(method="filter_dataset_version")
    status = filters.ChoiceFilter(choices=JobStatus.choices)

    class Meta:
        model = Job
        fields = ["workspace", "project", "dataset_version", "status"]

    def filter_dataset_version(self, queryset, name, value):
        # the id is in the job's params: compare it as the JSON number it is stored as
        return queryset.filter(params__dataset_version=int(value))


class TrainingJobViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Training jobs: what each trains (template, preset, parameters, dataset version), its status
    and progress, and the model version it produced. Cancel and retry them as jobs (/jobs/{id}/...)."""

    serializer_class = TrainingJobSerializer
    queryset = Job.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = TrainingJobFilter

    def get_queryset(self):
        return selectors.training_jobs_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=TrainingJobCreateSerializer,
        responses={201: JobSerializer},
        summary="Train a template on a dataset version (a job on the gpu queue when a GPU worker is up)",
    )
    def create(self, request):
        serializer = TrainingJobCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = data["dataset_version"]
        require_role(user=request.user, workspace_id=version.dataset.workspace_id, action="start training")
        job = services.training_job_create(
            user=request.user,
            dataset_version=version,
            template=data.get("template"),
            preset=data.get("preset"),
            params=data.get("params"),
            backbone=data.get("backbone"),
            warm_start_from=data.get("warm_start_from"),
            adapt=data.get("adapt", True),
            target_profile=data.get("target_profile"),
            processes=data.get("processes", 1),
        )
        return Response(JobSerializer(job).data, status=status.HTTP_201_CREATED)


class BackboneFilter(filters.FilterSet):
    class Meta:
        model = Backbone
        fields = ["workspace", "project", "status"]


class BackboneViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Uploaded backbone state_dicts for transfer learning, each checked on a worker (valid/invalid)."""

    serializer_class = BackboneSerializer
    queryset = Backbone.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = BackboneFilter
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def get_queryset(self):
        return selectors.backbones_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request={"multipart/form-data": BackboneCreateSerializer},
        responses={201: BackboneSerializer, 413: OpenApiResponse(description="file over the size limit")},
        summary="Upload a state_dict (status pending until a worker has read it with weights_only=True)",
    )
    def create(self, request, *args, **kwargs):
        # The project first: a viewer is refused (403) before the upload itself is judged.
        target = BackboneTargetSerializer(data=request.data, context={"request": request})
        target.is_valid(raise_exception=True)
        project = target.validated_data["project"]
        require_role(user=request.user, workspace_id=project.workspace_id, action="upload backbones")
        body = BackboneCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        backbone = services.backbone_create(
            user=request.user,
            project=project,
            upload=body.validated_data["file"],
            name=body.validated_data.get("name", ""),
        )
        return Response(BackboneSerializer(backbone).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        responses={204: None, 409: OpenApiResponse(description="a queued or running training job uses it")},
        summary="Delete a backbone (model versions keep its name and sha256 in their lineage)",
    )
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        services.backbone_delete(backbone=instance)


def retrain_response(request, parent: ModelVersion) -> Response:
    """``POST .../retrain/`` of a model version or a deployment (its primary): 201 with the job."""
    require_role(user=request.user, workspace_id=parent.workspace_id, action="start training")
    serializer = RetrainSerializer(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    job = services.model_version_retrain(
        user=request.user,
        parent=parent,
        dataset_version=data["dataset_version"],
        preset=data.get("preset"),
        params=data.get("params"),
    )
    return Response(JobSerializer(job).data, status=status.HTTP_201_CREATED)


class ModelVersionFilter(filters.FilterSet):
    class Meta:
        model = ModelVersion
        fields = ["workspace", "project", "dataset_version", "source"]


class ModelVersionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Trained model versions with lineage, metrics, the evaluation report and the ONNX file."""

    serializer_class = ModelVersionSerializer
    queryset = ModelVersion.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = ModelVersionFilter

    def get_queryset(self):
        return selectors.model_versions_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=RetrainSerializer,
        responses={201: JobSerializer},
        summary="Retrain from this version: a training job warm-started from its weights",
        description="The version's template and parameters (or `preset`, keeping its network), on "
        "`dataset_version` of its project; the head's rows are matched by class name, new classes "
        "start fresh. The new model version records `warm_start_from`. 400 names the field when the "
        "version cannot be a starting point (tabular models, an ONNX-only upload, another model).",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def retrain(self, request, pk=None):
        version = self.get_object()
        return retrain_response(request, version)

    @extend_schema(
        request=CompressionCreateSerializer,
        responses={202: CompressionSerializer},
        summary="Compress this version: pruned, distilled and/or int8 variants, each a new model version",
        description="A `training.compress` job makes each recipe's variant (or the preset's), evaluates it "
        "on the version's test split and measures its size, FLOPs and latency on the target profile; each "
        "variant becomes a model version with `compressed_from` this one. 400 `compression_not_supported` "
        "(template, a version without a model file or dataset version), `compression_bad_recipe`, "
        "`teacher_mismatch`.",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def compress(self, request, pk=None):
        version = self.get_object()
        require_role(user=request.user, workspace_id=version.workspace_id, action="compress models")
        serializer = CompressionCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        made = compression.compression_create(
            user=request.user,
            model_version=version,
            preset=data.get("preset"),
            recipes=data.get("recipes"),
            teacher=data.get("teacher"),
            target=data.get("target_profile") or None,
            max_metric_drop=data.get("max_metric_drop"),
            seed=data.get("seed"),
        )
        made = selectors.compressions_for(user=request.user).get(pk=made.pk)
        return Response(CompressionSerializer(made).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses=ModelVersionEvaluationSerializer)
    @action(detail=True, methods=["get"], filter_backends=[])
    def evaluation(self, request, pk=None):
        version = self.get_object()
        return Response({"id": version.pk, "name": version.name, "evaluation": version.evaluation or None})

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], filter_backends=[])
    def onnx(self, request, pk=None):
        version = self.get_object()
        if not version.onnx_key or not default_storage.exists(version.onnx_key):
            raise NotFound("This model version has no ONNX file.")
        return FileResponse(
            default_storage.open(version.onnx_key, "rb"),
            as_attachment=True,
            filename=f"model-{version.project_id}-{version.name}.onnx",
            content_type="application/octet-stream",
        )

    @extend_schema(
        request={"multipart/form-data": ModelVersionUploadSerializer},
        responses={
            201: ModelVersionSerializer,
            202: JobSerializer,
            413: OpenApiResponse(description="file over the size limit"),
        },
        summary="Bring your own model: an ONNX file (201, a model version) "
        "or a state_dict (202, the import job)",
    )
    @action(
        detail=False,
        methods=["post"],
        filter_backends=[],
        parser_classes=[MultiPartParser, FormParser, JSONParser],
    )
    def upload(self, request):
        # The project first: a viewer is refused (403) before the upload itself is judged.
        target = ModelVersionUploadTargetSerializer(data=request.data, context={"request": request})
        target.is_valid(raise_exception=True)
        project = target.validated_data["project"]
        require_role(user=request.user, workspace_id=project.workspace_id, action="upload models")
        body = ModelVersionUploadSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data["format"] == "onnx":
            version = model_uploads.model_version_upload_onnx(
                user=request.user,
                project=project,
                upload=data["file"],
                classes=data.get("classes"),
                preprocessing=data.get("preprocessing"),
                dataset_version=data.get("dataset_version"),
            )
            return Response(ModelVersionSerializer(version).data, status=status.HTTP_201_CREATED)
        job = model_uploads.model_version_upload_state_dict(
            user=request.user,
            project=project,
            upload=data["file"],
            architecture=data["architecture"],
            classes=data["classes"],
            preprocessing=data.get("preprocessing"),
            image_size=data.get("image_size"),
            dataset_version=data.get("dataset_version"),
        )
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[
            OpenApiParameter("a", OpenApiTypes.INT, required=True),
            OpenApiParameter("b", OpenApiTypes.INT, required=True),
        ],
        responses=MODEL_VERSION_COMPARISON,
        summary="Two model versions' evaluations side by side (classifiers, regression models, detectors "
        "or forecasters; "
        "deltas are b minus a)",
    )
    @action(detail=False, methods=["get"], filter_backends=[])
    def compare(self, request):
        ids = {}
        for key in ("a", "b"):
            try:
                ids[key] = int(request.query_params[key])
            except (KeyError, ValueError):
                raise ValidationError({key: ["Give two model version ids as ?a=<id>&b=<id>."]}) from None
        queryset = self.get_queryset()
        a, b = (get_object_or_404(queryset, pk=ids[k]) for k in ("a", "b"))
        return Response(selectors.model_versions_compared(a, b))


class CompressionFilter(filters.FilterSet):
    class Meta:
        model = Compression
        fields = ["workspace", "project", "parent"]


class CompressionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Compression runs of model versions (POST /model-versions/{id}/compress/ starts one): the recipes,
    the job and, once finished, the report comparing each variant with its parent."""

    serializer_class = CompressionSerializer
    queryset = Compression.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = CompressionFilter

    def get_queryset(self):
        return selectors.compressions_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=BrowserLatencySerializer,
        responses={200: CompressionSerializer},
        summary="Record a latency measured in the browser with onnxruntime-web for the parent or a variant",
    )
    @action(detail=True, methods=["post"], filter_backends=[], url_path="browser-latency")
    def browser_latency(self, request, pk=None):
        run = self.get_object()
        require_role(user=request.user, workspace_id=run.workspace_id, action="record measurements")
        body = BrowserLatencySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        compression.compression_browser_latency_add(compression=run, **body.validated_data)
        return Response(CompressionSerializer(self.get_queryset().get(pk=run.pk)).data)


class TrainingEstimateView(APIView):
    """What each preset of a dataset version's template will take and give, from measurements."""

    @extend_schema(
        parameters=[OpenApiParameter("dataset_version", OpenApiTypes.INT, required=True)],
        responses=TrainingEstimatesSerializer,
        summary="Each preset's expected training time on the workers online, quality, model size "
        "and speed, measured by earlier runs (basis none when nothing was measured)",
    )
    def get(self, request):
        raw = request.query_params.get("dataset_version", "")
        if not raw.isdigit():
            raise field_error("dataset_version", "Give the dataset version's id as ?dataset_version=<id>.")
        version = get_object_or_404(
            scoped_to_member(
                DatasetVersion.objects.select_related("dataset"),
                user=request.user,
                workspace_field="dataset__workspace",
            ),
            pk=int(raw),
        )
        return Response(estimates.training_estimates(user=request.user, dataset_version=version))
