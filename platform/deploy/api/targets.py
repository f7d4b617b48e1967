"""REST for target profiles: ``/api/v1/target-profiles/`` (a workspace's profiles: list, create, read,
update, delete), ``/api/v1/target-profiles/builtins/`` (the builtin profiles, read-only) and
``POST /api/v1/target-profiles/{id}/measure/`` is left to model versions' own pages (not here)."""

from __future__ import annotations

from accounts.models import User
from config.contracts import contract_serializer
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from workspaces.api.serializers import MemberWorkspaceField
from workspaces.permissions import WorkspaceRolePermission, require_role

from deploy import targets
from deploy.models import TargetProfile
from workers.contracts.targets import TargetProfile as TargetProfileContract

# the contract's component is DeploymentTarget (a dataset's target-column profile owns TargetProfile)
BuiltinTargetSerializer = contract_serializer(TargetProfileContract)


class WorkspaceTargetProfileSerializer(serializers.ModelSerializer):
    """A workspace's target profile. Fields are validated as the worker validates a profile
    (threads 1-64, slowdown 0.01-1000, provider ``*ExecutionProvider``); the name may not be a
    builtin's (worker-cpu, worker-cpu-4t, edge-arm-slow)."""

    workspace = MemberWorkspaceField()
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    runtime = serializers.ChoiceField(choices=["onnxruntime"], default="onnxruntime")
    builtin = serializers.SerializerMethodField(help_text="Always false here (builtins: /builtins/).")

    class Meta:
        model = TargetProfile
        fields = [
            "id",
            "workspace",
            "name",
            "description",
            "runtime",
            "execution_provider",
            "intra_op_threads",
            "inter_op_threads",
            "batch_size",
            "slowdown",
            "latency_budget_ms",
            "size_budget_bytes",
            "builtin",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "builtin", "created_by", "created_at", "updated_at"]
        extra_kwargs = {"description": {"required": False, "allow_blank": True}}

    def get_builtin(self, profile: TargetProfile) -> bool:
        return False


class WorkspaceTargetProfileUpdateSerializer(WorkspaceTargetProfileSerializer):
    workspace = serializers.IntegerField(read_only=True, source="workspace_id")  # type: ignore[assignment]


class TargetProfileFilter(filters.FilterSet):
    class Meta:
        model = TargetProfile
        fields = ["workspace"]


class TargetProfileViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Where models will run: the runtime settings, the slowdown against this worker and budgets.
    Studies and training jobs take one (``target_profile``: its id, or a builtin's name)."""

    serializer_class = WorkspaceTargetProfileSerializer
    queryset = TargetProfile.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = TargetProfileFilter
    http_method_names = ["get", "post", "patch", "delete"]

    def get_queryset(self):
        return targets.target_profiles_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=WorkspaceTargetProfileSerializer,
        responses={201: WorkspaceTargetProfileSerializer},
        summary="Register a target profile in a workspace",
    )
    def create(self, request):
        serializer = WorkspaceTargetProfileSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        workspace = data.pop("workspace")
        require_role(user=request.user, workspace_id=workspace.pk, action="register target profiles")
        profile = targets.target_profile_create(user=request.user, workspace=workspace, **data)
        return Response(WorkspaceTargetProfileSerializer(profile).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=WorkspaceTargetProfileUpdateSerializer,
        responses=WorkspaceTargetProfileSerializer,
        summary="Change a target profile (studies keep the snapshot they started with)",
    )
    def partial_update(self, request, pk=None):
        profile = self.get_object()
        serializer = WorkspaceTargetProfileUpdateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        profile = targets.target_profile_update(profile=profile, **serializer.validated_data)
        return Response(WorkspaceTargetProfileSerializer(profile).data)

    def perform_destroy(self, instance):
        targets.target_profile_delete(profile=instance)

    @extend_schema(
        responses=BuiltinTargetSerializer(many=True),
        summary="The builtin target profiles (this worker's CPU with the device SDK's settings, ...)",
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def builtins(self, request):
        return Response(BuiltinTargetSerializer(targets.builtin_targets(), many=True).data)
