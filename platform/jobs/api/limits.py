"""A workspace's job limits over REST (``workspaces/{id}/limits/``): its members read them, only
staff (an installation administrator) changes them; the Django admin edits the same rows.
``workspace-limits/`` lists every workspace's limits and use for staff (the Users page's resource
pools), members or not."""

from __future__ import annotations

from config.pagination import PageNumberPagination
from django.db import transaction
from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView
from workspaces.models import CONTENT_ROLES, Membership, Role, Workspace

from jobs.models import WorkspaceLimits
from jobs.scheduling import dispatch_on_commit, effective_limits, workspace_usage


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


class WorkspaceLimitsRowSerializer(WorkspaceLimitsSerializer):
    """One workspace of the administrators' list: which one, who owns it, its limits and use."""

    workspace = serializers.IntegerField(help_text="The workspace's id.")
    workspace_name = serializers.CharField(help_text="The workspace's name.")
    owners = serializers.ListField(child=serializers.CharField(), help_text="Its owners' usernames.")


def _workspace(request, pk: int) -> Workspace:
    workspace = Workspace.objects.filter(pk=pk).first()
    if workspace is None:
        raise NotFound("No such workspace.")
    members = Membership.objects.filter(workspace=workspace, user=request.user, role__in=CONTENT_ROLES)
    if not request.user.is_staff and not members.exists():
        raise NotFound("No such workspace.")
    return workspace


def _fields(own: WorkspaceLimits | None, usage: tuple[int, int], *, can_edit: bool) -> dict:
    """A workspace's limits as the API shows them: its own row (None: not set), the limits that apply
    (the installation's defaults filled in) and its jobs in flight."""
    max_jobs, max_gpu_jobs = (own.max_jobs, own.max_gpu_jobs) if own else (None, None)
    effective = effective_limits(max_jobs, max_gpu_jobs)
    return {
        "max_jobs": max_jobs,
        "max_gpu_jobs": max_gpu_jobs,
        "effective_max_jobs": effective.max_jobs,
        "effective_max_gpu_jobs": effective.max_gpu_jobs,
        "running": usage[0],
        "running_gpu": usage[1],
        "can_edit": can_edit,
        "updated_at": own.updated_at if own else None,
    }


def _rows(workspaces: list[Workspace]) -> list[dict]:
    """The limits and use of ``workspaces``, in two queries whatever their number."""
    ids = [w.pk for w in workspaces]
    own = {row.workspace_id: row for row in WorkspaceLimits.objects.filter(workspace_id__in=ids)}
    usage = workspace_usage(ids)
    return [
        {
            "workspace": workspace.pk,
            "workspace_name": workspace.name,
            "owners": sorted(m.user.username for m in workspace.owner_memberships),  # type: ignore[attr-defined]
            **_fields(own.get(workspace.pk), usage[workspace.pk], can_edit=True),
        }
        for workspace in workspaces
    ]


def _answer(request, workspace: Workspace) -> Response:
    own = WorkspaceLimits.objects.filter(workspace=workspace).first()
    usage = workspace_usage([workspace.pk])[workspace.pk]
    fields = _fields(own, usage, can_edit=bool(request.user.is_staff))
    return Response(WorkspaceLimitsSerializer(fields).data)


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


class WorkspaceLimitsListView(APIView):
    """Every workspace's job limits and what it runs now (administrators: staff), by name."""

    permission_classes = [IsAdminUser]
    pagination_class = PageNumberPagination

    @extend_schema(
        operation_id="workspace_limits_list",
        parameters=[
            OpenApiParameter("search", str, description="Only workspaces whose name contains this."),
            OpenApiParameter("page", int, description="The page (50 a page)."),
            OpenApiParameter("page_size", int, description="Workspaces a page (at most 500)."),
        ],
        responses=WorkspaceLimitsRowSerializer(many=True),
        summary="Every workspace's job limits and use (staff only)",
    )
    def get(self, request):
        owners = Membership.objects.filter(role=Role.OWNER).select_related("user")
        workspaces = Workspace.objects.order_by("name", "id").prefetch_related(
            Prefetch("memberships", queryset=owners, to_attr="owner_memberships")
        )
        search = (request.query_params.get("search") or "").strip()
        if search:
            workspaces = workspaces.filter(name__icontains=search)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(workspaces, request, view=self)
        rows = _rows(list(page or []))
        return paginator.get_paginated_response(WorkspaceLimitsRowSerializer(rows, many=True).data)
