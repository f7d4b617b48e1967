from __future__ import annotations

from accounts.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from workspaces.models import Invitation, Membership, Project, Role, Workspace
from workspaces.selectors import workspaces_for


class UserBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True)


class WorkspaceSerializer(serializers.ModelSerializer):
    role = serializers.ChoiceField(choices=Role.choices, read_only=True, help_text="The caller's role here.")
    member_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Workspace
        fields = ["id", "name", "description", "role", "member_count", "created_at"]
        read_only_fields = ["id", "created_at"]


class MembershipSerializer(serializers.ModelSerializer):
    user = UserBriefSerializer(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "user", "role", "created_at"]
        read_only_fields = ["id", "user", "created_at"]


class MembershipCreateSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


class WorkspaceBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)


class InvitationSerializer(serializers.ModelSerializer):
    workspace = WorkspaceBriefSerializer(read_only=True)
    user = UserBriefSerializer(read_only=True, help_text="The invitee.")
    invited_by = UserBriefSerializer(read_only=True, allow_null=True)

    class Meta:
        model = Invitation
        fields = ["id", "workspace", "user", "role", "status", "invited_by", "created_at", "responded_at"]
        read_only_fields = fields


class InvitationCreateSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, help_text="An existing user's username.")
    role = serializers.ChoiceField(choices=Role.choices, help_text="Their role once they accept.")


class InvitationAcceptedSerializer(serializers.Serializer):
    invitation = InvitationSerializer()
    membership = MembershipSerializer()


@extend_schema_field(OpenApiTypes.INT)
class MemberWorkspaceField(serializers.PrimaryKeyRelatedField):
    """A workspace id, valid only if the caller is a member (others 'do not exist')."""

    def get_queryset(self):
        return workspaces_for(user=self.context["request"].user)


class ProjectSerializer(serializers.ModelSerializer):
    workspace = MemberWorkspaceField()
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = Project
        fields = ["id", "workspace", "name", "description", "created_at", "created_by"]
        read_only_fields = ["id", "created_at", "created_by"]
        validators: list = []  # uniqueness is checked by the service, with a message that names the project

    def validate_name(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Name must not be blank.")
        return value
