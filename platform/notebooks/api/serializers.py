from __future__ import annotations

from config.contracts import contract_serializer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from workspaces.selectors import projects_for

from notebooks.models import Notebook, NotebookStatus
from workers.contracts.custom_code import ResourceLimits

ResourceLimitsSerializer = contract_serializer(ResourceLimits)


class NotebookLimitsRequestSerializer(serializers.Serializer):
    """Any of the limits; the rest take the platform's defaults (``SAMPAN_CUSTOM_JOB_*``)."""

    wall_time_s = serializers.IntegerField(required=False, help_text="The server's lifetime cap (seconds).")
    memory_mb = serializers.IntegerField(
        required=False, help_text="Resident memory of server + kernels (MiB)."
    )
    cpus = serializers.IntegerField(required=False, help_text="CPU threads.")


@extend_schema_field(OpenApiTypes.INT)
class MemberProjectField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return projects_for(user=self.context["request"].user)


class NotebookCreateSerializer(serializers.Serializer):
    project = MemberProjectField()
    idle_timeout_s = serializers.IntegerField(
        required=False,
        help_text="Stop the server after this long without activity "
        "(default SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S).",
    )
    limits = NotebookLimitsRequestSerializer(required=False)


class NotebookSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=NotebookStatus.choices, read_only=True)
    open_url = serializers.SerializerMethodField(
        help_text="The server's address with its secret: only in its owner's answers, only while it runs."
    )
    limits = ResourceLimitsSerializer(read_only=True)

    class Meta:
        model = Notebook
        fields = [
            "id",
            "project",
            "status",
            "url",
            "open_url",
            "idle_timeout_s",
            "limits",
            "started_at",
            "last_activity_at",
            "stopped_at",
            "stop_reason",
            "job",
            "created_at",
        ]
        read_only_fields = fields

    def get_open_url(self, obj: Notebook) -> str | None:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is None or user.pk != obj.owner_id or obj.status != NotebookStatus.RUNNING or not obj.url:
            return None
        return f"{obj.url.rstrip('/')}/lab?token={obj.secret}"
