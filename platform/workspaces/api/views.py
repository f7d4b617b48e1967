from __future__ import annotations

from django.shortcuts import get_object_or_404
from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from workspaces import services
from workspaces.api.serializers import (
    MembershipCreateSerializer,
    MembershipSerializer,
    ProjectSerializer,
    WorkspaceSerializer,
)
from workspaces.models import Membership, Project, Role, Workspace
from workspaces.permissions import WorkspaceRolePermission, require_role
from workspaces.selectors import memberships_of, projects_for, workspaces_for

OWNER_ONLY = frozenset({Role.OWNER})


class WorkspaceViewSet(viewsets.ModelViewSet):
    serializer_class = WorkspaceSerializer
    queryset = Workspace.objects.none()
    permission_classes = [WorkspaceRolePermission]
    write_roles = OWNER_ONLY

    def get_queryset(self):
        return workspaces_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.pk

    def perform_create(self, serializer):
        workspace = services.workspace_create(user=self.request.user, **serializer.validated_data)
        serializer.instance = self.get_queryset().get(pk=workspace.pk)


@extend_schema_view(
    **{
        action: extend_schema(parameters=[OpenApiParameter("workspace_id", int, OpenApiParameter.PATH)])
        for action in ("list", "create", "retrieve", "update", "partial_update", "destroy")
    }
)
class MembershipViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = MembershipSerializer
    queryset = Membership.objects.none()
    permission_classes = [WorkspaceRolePermission]
    write_roles = OWNER_ONLY

    def workspace(self):
        return get_object_or_404(workspaces_for(user=self.request.user), pk=self.kwargs["workspace_id"])

    def get_queryset(self):
        return memberships_of(workspace_id=self.workspace().pk)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(request=MembershipCreateSerializer, responses={201: MembershipSerializer})
    def create(self, request, *args, **kwargs):
        workspace = self.workspace()
        require_role(user=request.user, workspace_id=workspace.pk, roles=OWNER_ONLY, action="manage members")
        serializer = MembershipCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.membership_add(workspace=workspace, **serializer.validated_data)
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer):
        role = serializer.validated_data.get("role", serializer.instance.role)
        serializer.instance = services.membership_set_role(membership=serializer.instance, role=role)

    def perform_destroy(self, instance):
        services.membership_remove(membership=instance)


class ProjectFilter(filters.FilterSet):
    class Meta:
        model = Project
        fields = ["workspace"]


class ProjectViewSet(viewsets.ModelViewSet):
    serializer_class = ProjectSerializer
    queryset = Project.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = ProjectFilter

    def get_queryset(self):
        return projects_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    def perform_create(self, serializer):
        workspace = serializer.validated_data["workspace"]
        require_role(user=self.request.user, workspace_id=workspace.pk, action="create projects")
        serializer.instance = services.project_create(user=self.request.user, **serializer.validated_data)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        workspace = data.pop("workspace", None)
        if workspace is not None and workspace.pk != serializer.instance.workspace_id:
            raise ValidationError({"workspace": ["A project cannot move to another workspace."]})
        serializer.instance = services.project_update(project=serializer.instance, **data)
