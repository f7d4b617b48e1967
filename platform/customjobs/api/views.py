"""Custom code API: upload code archives (``/api/v1/code-archives/``), read them and their files,
and start custom training jobs (``POST /api/v1/custom-jobs/``; the job is then a job like any other:
``/api/v1/jobs/{id}/`` with its logs at ``/api/v1/jobs/{id}/logs/``)."""

from __future__ import annotations

from config.exceptions import field_error
from config.parsers import JSONParser
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from jobs.api.serializers import JobSerializer
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission, require_role

from customjobs import selectors, services
from customjobs.api.serializers import (
    CodeArchiveCreateSerializer,
    CodeArchiveSerializer,
    CodeArchiveTargetSerializer,
    CodeFileTextSerializer,
    CustomJobCreateSerializer,
)
from customjobs.models import CodeArchive


class CodeArchiveFilter(filters.FilterSet):
    class Meta:
        model = CodeArchive
        fields = ["workspace", "project", "code_kind"]


class CodeArchiveViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Uploaded training code: a script, a zip of a folder or a notebook, checked when uploaded
    (never run by the web process) and immutable; a custom job runs one."""

    serializer_class = CodeArchiveSerializer
    queryset = CodeArchive.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = CodeArchiveFilter
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def get_queryset(self):
        return selectors.code_archives_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request={"multipart/form-data": CodeArchiveCreateSerializer},
        responses={
            201: CodeArchiveSerializer,
            413: OpenApiResponse(
                description="code over SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES (code_archive_too_large)"
            ),
        },
        summary="Upload training code (.py, .zip or .ipynb); 400 code_archive_invalid names what is wrong",
    )
    def create(self, request, *args, **kwargs):
        # The project first: a viewer is refused (403) before the upload itself is judged.
        target = CodeArchiveTargetSerializer(data=request.data, context={"request": request})
        target.is_valid(raise_exception=True)
        project = target.validated_data["project"]
        require_role(user=request.user, workspace_id=project.workspace_id, action="upload code")
        body = CodeArchiveCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        archive = services.code_archive_create(
            project=project,
            upload=body.validated_data["file"],
            name=body.validated_data.get("name", ""),
            entry_point=body.validated_data.get("entry_point", ""),
            user=request.user,
        )
        return Response(CodeArchiveSerializer(archive).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("path", OpenApiTypes.STR, required=True, description="A file of the code.")
        ],
        responses={200: CodeFileTextSerializer},
        summary="One file of the code as text (UTF-8, at most 1 MiB; 400 code_file_not_text otherwise)",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def files(self, request, pk=None):
        archive = self.get_object()
        path = request.query_params.get("path", "")
        if not path:
            raise field_error("path", "Give the file's path as ?path=<path>.")
        text = services.code_archive_file_text(code_archive=archive, path=path)
        return Response({"path": path, "text": text})


class CustomJobViewSet(viewsets.GenericViewSet):
    """Start a custom training job: uploaded code run in a sandbox on a worker, with its limits,
    hyperparameters, requirements and optionally a dataset version. Follow it as a job."""

    serializer_class = JobSerializer
    queryset = CodeArchive.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filter_backends: list = []

    @extend_schema(
        request=CustomJobCreateSerializer,
        responses={201: JobSerializer},
        summary="Run uploaded code as a training job (kind training.custom)",
        description="400 custom_job_invalid names a refused field (entry point not in the code, a "
        "hyperparameter name, a dataset version of another project); 400 custom_job_limit_too_high "
        "names the platform's cap a limit is over.",
    )
    def create(self, request):
        target = CodeArchiveTargetSerializer(data=request.data, context={"request": request})
        target.is_valid(raise_exception=True)
        project = target.validated_data["project"]
        require_role(user=request.user, workspace_id=project.workspace_id, action="start training")
        body = CustomJobCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        job = services.custom_job_create(
            project=project,
            code_archive=data["code_archive"],
            entry_point=data.get("entry_point") or None,
            args=data.get("args"),
            hyperparameters=data.get("hyperparameters"),
            requirements=data.get("requirements"),
            dataset_version=data.get("dataset_version"),
            queue=data.get("queue", "cpu"),
            limits=data.get("limits"),
            network=data.get("network"),
            name=data.get("name", ""),
            user=request.user,
        )
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_201_CREATED)
