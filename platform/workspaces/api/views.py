from __future__ import annotations

from django.shortcuts import get_object_or_404
from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from workspaces import services
from workspaces.api.serializers import (
    InvitationAcceptedSerializer,
    InvitationCreateSerializer,
    InvitationSerializer,
    MembershipCreateSerializer,
    MembershipSerializer,
    ProjectSerializer,
    WorkspaceSerializer,
)
from workspaces.models import Invitation, Membership, Project, Role, Workspace
from workspaces.permissions import WorkspaceRolePermission, require_role
from workspaces.selectors import (
    content_workspaces_for,
    invitations_for,
    invitations_of,
    memberships_of,
    projects_for,
    workspaces_for,
)

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
        # an annotator sees their workspace in the list, not its members or invitations
        return get_object_or_404(
            content_workspaces_for(user=self.request.user), pk=self.kwargs["workspace_id"]
        )

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


WORKSPACE_ID = OpenApiParameter("workspace_id", int, OpenApiParameter.PATH)
NOT_PENDING = OpenApiResponse(description="Refused: code invitation_not_pending (answered or revoked).")


@extend_schema_view(
    list=extend_schema(parameters=[WORKSPACE_ID], summary="A workspace's pending invitations"),
)
class WorkspaceInvitationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Invitations to one workspace: members list the pending ones; owners invite and revoke."""

    serializer_class = InvitationSerializer
    queryset = Invitation.objects.none()
    permission_classes = [WorkspaceRolePermission]
    write_roles = OWNER_ONLY

    def workspace(self):
        # an annotator sees their workspace in the list, not its members or invitations
        return get_object_or_404(
            content_workspaces_for(user=self.request.user), pk=self.kwargs["workspace_id"]
        )

    def get_queryset(self):
        return invitations_of(workspace_id=self.workspace().pk)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        parameters=[WORKSPACE_ID],
        request=InvitationCreateSerializer,
        responses={
            201: InvitationSerializer,
            400: OpenApiResponse(description="Refused: code user_not_found or user_inactive."),
            409: OpenApiResponse(description="Refused: code already_member or already_invited."),
        },
        summary="Invite an existing user by username (owners)",
    )
    def create(self, request, *args, **kwargs):
        workspace = self.workspace()
        require_role(user=request.user, workspace_id=workspace.pk, roles=OWNER_ONLY, action="invite members")
        serializer = InvitationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation = services.invitation_create(
            workspace=workspace, by=request.user, **serializer.validated_data
        )
        return Response(InvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[WORKSPACE_ID],
        request=None,
        responses={200: InvitationSerializer, 409: NOT_PENDING},
        summary="Revoke a pending invitation (owners)",
    )
    @action(detail=True, methods=["post"])
    def revoke(self, request, *args, **kwargs):
        invitation = services.invitation_revoke(invitation=self.get_object())
        return Response(InvitationSerializer(invitation).data)


class InvitationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """The invitations addressed to you that wait for your answer."""

    serializer_class = InvitationSerializer
    queryset = Invitation.objects.none()

    def get_queryset(self):
        return invitations_for(user=self.request.user)

    @extend_schema(
        request=None,
        responses={200: InvitationAcceptedSerializer, 409: NOT_PENDING},
        summary="Accept: join the workspace with the invitation's role",
    )
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        invitation = self.get_object()
        membership = services.invitation_accept(invitation=invitation)
        return Response(
            {
                "invitation": InvitationSerializer(invitation).data,
                "membership": MembershipSerializer(membership).data,
            }
        )

    @extend_schema(request=None, responses={200: InvitationSerializer, 409: NOT_PENDING}, summary="Decline")
    @action(detail=True, methods=["post"])
    def decline(self, request, pk=None):
        return Response(InvitationSerializer(services.invitation_decline(invitation=self.get_object())).data)


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
