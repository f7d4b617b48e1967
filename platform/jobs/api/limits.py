"""A workspace's job limits over REST (``workspaces/{id}/limits/``): its members read them, only
staff (an installation administrator) changes them; the Django admin edits the same rows."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView
from workspaces.models import CONTENT_ROLES, Membership, Workspace

from jobs.models import WorkspaceLimits
from jobs.scheduling import dispatch_on_commit, limits_of, workspace_usage


class WorkspaceLimitsUpdateSerializer(serializers.Serializer):
    """New limits: any of the fields (the others keep their values). null: the installation's
    default; 0: unlimited."""

    max_jobs = serializers.IntegerField(
        min_value=0, max_value=100000, allow_null=True, required=False, help_text="Jobs running at once."
    )
    max_gpu_jobs = serializers.IntegerField(
        min_value=0, max_value=100000, allow_null=True, required=False, help_text="GPU jobs running at once."
    )


class WorkspaceLimitsSerializer(serializers.Serializer):
    """What the workspace may run at once, and what it runs now."""

    max_jobs = serializers.IntegerField(
        allow_null=True, help_text="The workspace's own limit of jobs at once (null: the default)."
    )
    max_gpu_jobs = serializers.IntegerField(
        allow_null=True, help_text="Its own limit of GPU-queue jobs at once (null: the default)."
    )
    effective_max_jobs = serializers.IntegerField(help_text="The limit that applies (0: unlimited).")
    effective_max_gpu_jobs = serializers.IntegerField(help_text="The GPU limit that applies (0: unlimited).")
    running = serializers.IntegerField(help_text="Its jobs running (or handed to a worker) now.")
    running_gpu = serializers.IntegerField(help_text="Of them on the gpu queue.")
    can_edit = serializers.BooleanField(help_text="Whether you may change them (staff only).")
    updated_at = serializers.DateTimeField(allow_null=True, help_text="Last change (null: never set).")


def _workspace(request, pk: int) -> Workspace:
    workspace = Workspace.objects.filter(pk=pk).first()
    if workspace is None:
        raise NotFound("No such workspace.")
    members = Membership.objects.filter(workspace=workspace, user=request.user, role__in=CONTENT_ROLES)
    if not request.user.is_staff and not members.exists():
        raise NotFound("No such workspace.")
    return workspace


def _answer(request, workspace: Workspace) -> Response:
    own = WorkspaceLimits.objects.filter(workspace=workspace).first()
    effective = limits_of([workspace.pk])[workspace.pk]
    running, gpu = workspace_usage([workspace.pk])[workspace.pk]
    return Response(
        WorkspaceLimitsSerializer(
            {
                "max_jobs": own.max_jobs if own else None,
                "max_gpu_jobs": own.max_gpu_jobs if own else None,
                "effective_max_jobs": effective.max_jobs,
                "effective_max_gpu_jobs": effective.max_gpu_jobs,
                "running": running,
                "running_gpu": gpu,
                "can_edit": bool(request.user.is_staff),
                "updated_at": own.updated_at if own else None,
            }
        ).data
    )


class WorkspaceLimitsView(APIView):
    """A workspace's job limits (unlimited by default)."""

    @extend_schema(
        operation_id="workspaces_limits_retrieve",
        responses=WorkspaceLimitsSerializer,
        summary="The workspace's job limits and what it runs now",
    )
    def get(self, request, pk: int):
        return _answer(request, _workspace(request, pk))

    @extend_schema(
        operation_id="workspaces_limits_update",
        request=WorkspaceLimitsUpdateSerializer,
        responses=WorkspaceLimitsSerializer,
        summary="Change the workspace's job limits (staff only)",
    )
    def put(self, request, pk: int):
        workspace = _workspace(request, pk)
        if not request.user.is_staff:
            raise PermissionDenied("Only an administrator (staff) can change a workspace's job limits.")
        body = WorkspaceLimitsUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with transaction.atomic():
            limits, _ = WorkspaceLimits.objects.select_for_update().get_or_create(workspace=workspace)
            for field, value in body.validated_data.items():
                setattr(limits, field, value)
            limits.save()
            dispatch_on_commit()  # a raised limit lets waiting jobs start
        return _answer(request, workspace)
