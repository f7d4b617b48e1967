from __future__ import annotations

from pathlib import PurePosixPath

from django.core.files.storage import default_storage
from django.http import FileResponse
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView
from workspaces.permissions import WorkspaceRolePermission, require_role

from jobs import registry, selectors, services
from jobs.api.serializers import (
    JobCreateSerializer,
    JobEventSerializer,
    JobKindSerializer,
    JobLogPageSerializer,
    JobSerializer,
    WorkerNodeSerializer,
)
from jobs.models import Job, JobEventType


class JobFilter(filters.FilterSet):
    class Meta:
        model = Job
        fields = ["workspace", "project", "status", "kind"]


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Background jobs in the caller's workspaces, with live status and a progress series."""

    serializer_class = JobSerializer
    queryset = Job.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = JobFilter

    def get_queryset(self):
        return selectors.jobs_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(request=JobCreateSerializer, responses={201: JobSerializer})
    def create(self, request):
        serializer = JobCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        require_role(user=request.user, workspace_id=data["workspace"].pk, action="start jobs")
        job = services.job_create(
            workspace=data["workspace"],
            project=data.get("project"),
            kind=data["kind"],
            params=data["params"],
            user=request.user,
        )
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=JobSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        job = self.get_object()
        services.job_cancel(job=job)
        return Response(JobSerializer(self.get_object(), context={"request": request}).data)

    @extend_schema(
        request=None,
        responses=JobSerializer,
        summary="Retry a failed or cancelled job",
        description="Queues the job again with fresh attempts. A training resumes from the last complete "
        "checkpoint its earlier attempts left. 409 when the job is not failed/cancelled or its kind "
        "cannot be retried.",
    )
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        job = self.get_object()
        require_role(user=request.user, workspace_id=job.workspace_id, action="retry jobs")
        # the job as the retry left it (queued): a worker may claim it before a re-read
        job = services.job_retry(job=job)
        return Response(JobSerializer(job, context={"request": request}).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("type", OpenApiTypes.STR, enum=[t.value for t in JobEventType], required=False),
            OpenApiParameter(
                "after", OpenApiTypes.INT, required=False, description="Only events with seq > after."
            ),
        ],
        responses=JobEventSerializer(many=True),
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def events(self, request, pk=None):
        job = self.get_object()
        event_type = request.query_params.get("type")
        if event_type and event_type not in JobEventType.values:
            raise ValidationError(
                {"type": [f"Unknown event type {event_type!r}; use one of {', '.join(JobEventType.values)}."]}
            )
        after = request.query_params.get("after")
        if after is not None:
            try:
                after = int(after)
            except ValueError:
                raise ValidationError({"after": ["Must be an integer."]}) from None
        page = self.paginate_queryset(selectors.events_of(job=job, type=event_type, after=after))
        return self.get_paginated_response(JobEventSerializer(page, many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                OpenApiTypes.INT,
                required=False,
                description="Only lines with seq > after (default 0).",
            ),
            OpenApiParameter(
                "limit",
                OpenApiTypes.INT,
                required=False,
                description="At most this many lines (1-1000, default 1000).",
            ),
        ],
        responses=JobLogPageSerializer,
        summary="The job's output lines (stdout, stderr, system) in order, a page at a time",
        description="Follow a running job by asking again with after=next_after; finished is true "
        "once the job is in a final state and every line has been answered.",
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def logs(self, request, pk=None):
        job = self.get_object()
        numbers = {}
        for name, default, lowest, highest in (("after", 0, 0, 2**31 - 1), ("limit", 1000, 1, 1000)):
            raw = request.query_params.get(name)
            if raw is None or raw == "":
                numbers[name] = default
                continue
            try:
                value = int(raw)
            except ValueError:
                raise ValidationError({name: ["Must be an integer."]}) from None
            if not lowest <= value <= highest:
                raise ValidationError({name: [f"Must be between {lowest} and {highest}."]})
            numbers[name] = value
        return Response(selectors.log_lines_of(job=job, after=numbers["after"], limit=numbers["limit"]))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "path",
                OpenApiTypes.STR,
                required=True,
                description="result.artifacts[].path",
            )
        ],
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
        summary="Download a file a custom run kept with log_artifact (one of result.artifacts)",
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def artifacts(self, request, pk=None):
        job = self.get_object()
        path = request.query_params.get("path", "")
        if not path:
            raise ValidationError({"path": ["Give the artifact's path as ?path=<path>."]})
        key = selectors.artifact_key_of(job=job, path=path)
        if key is None or not default_storage.exists(key):
            raise NotFound(f"This job kept no artifact {path!r}.")
        return FileResponse(
            default_storage.open(key, "rb"),
            as_attachment=True,
            filename=PurePosixPath(path).name,
            content_type="application/octet-stream",
        )


class JobKindListView(APIView):
    @extend_schema(responses=JobKindSerializer(many=True), summary="Kinds of job this installation can run")
    def get(self, request):
        return Response(JobKindSerializer(registry.all_kinds(), many=True).data)


class WorkerNodeListView(APIView):
    @extend_schema(responses=WorkerNodeSerializer(many=True), summary="Worker hosts seen recently")
    def get(self, request):
        return Response(WorkerNodeSerializer(selectors.worker_nodes(), many=True).data)
