from __future__ import annotations

from typing import Any

from accounts.models import User
from config.contracts import ContractJSONField, contract_field, contract_serializer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers
from workspaces.api.serializers import MemberWorkspaceField
from workspaces.models import Role
from workspaces.selectors import projects_for

from jobs import registry, selectors
from jobs.models import Job, JobEvent, WorkerNode
from workers.contracts import custom_code as custom_code_contracts
from workers.contracts import job_kinds
from workers.contracts import jobs as job_contracts


@extend_schema_field(OpenApiTypes.INT)
class MemberProjectField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return projects_for(user=self.context["request"].user)


ProgressEventSerializer = contract_serializer(job_contracts.ProgressEvent)
JOB_EVENT_DATA = PolymorphicProxySerializer(
    component_name="JobEventData",
    serializers={
        "progress": ProgressEventSerializer,
        "job_status": contract_serializer(job_contracts.JobStatusData),
        "job_log": contract_serializer(job_contracts.JobLogData),
    },
    resource_type_field_name="kind",
)
NO_PROGRESS_YET: job_contracts.ProgressEvent = {"kind": "progress", "version": job_contracts.PROGRESS_VERSION}


class ProgressField(ContractJSONField):
    """The latest progress event; a job that has not reported yet answers the empty event."""

    contract_schema = ProgressEventSerializer

    def to_representation(self, value):
        return super().to_representation(value or dict(NO_PROGRESS_YET))


JOB_PARAMS = PolymorphicProxySerializer(
    component_name="JobParams",
    serializers={name: contract_serializer(contract) for name, contract in job_kinds.JOB_PARAMS.items()},
    resource_type_field_name="kind",
)
JOB_RESULT = PolymorphicProxySerializer(
    component_name="JobResult",
    serializers={
        "system_check_result": contract_serializer(job_kinds.SystemCheckResult),
        "dataset_import_result": contract_serializer(job_kinds.DatasetImportResult),
        "training_job_result": contract_serializer(job_contracts.TrainingJobResult),
        "backbone_check_result": contract_serializer(job_kinds.BackboneCheckResult),
        "model_import_result": contract_serializer(job_kinds.ModelImportResult),
        "automl_trial_result": contract_serializer(job_kinds.TrialResult),
        "automl_report_run_result": contract_serializer(job_kinds.ReportRunResult),
        "package_build_result": contract_serializer(job_kinds.BuildPackageResult),
        "quality_report_result": contract_serializer(job_kinds.QualityReportJobResult),
        "dataset_version_result": contract_serializer(job_kinds.DatasetVersionJobResult),
        "dataset_export_result": contract_serializer(job_kinds.DatasetExportJobResult),
        "smart_round_result": contract_serializer(job_kinds.SmartRoundJobResult),
        "batch_predict_result": contract_serializer(job_kinds.BatchPredictJobResult),
        "custom_job_result": contract_serializer(custom_code_contracts.CustomJobResult),
        "notebook_serve_result": contract_serializer(job_kinds.NotebookServeResult),
        "compression_job_result": contract_serializer(job_kinds.CompressionJobResult),
    },
    resource_type_field_name="kind",
)


LogLineSerializer = contract_serializer(custom_code_contracts.LogLine)


class JobLogPageSerializer(serializers.Serializer):
    """A page of a job's output (``GET /api/v1/jobs/{id}/logs/``)."""

    lines = LogLineSerializer(many=True, help_text="Lines with seq > after, in order.")
    next_after = serializers.IntegerField(help_text="Ask again with after=next_after for what follows.")
    finished = serializers.BooleanField(
        help_text="The job is in a final state and this page ends with its last line: nothing more comes."
    )


class JobParamsField(ContractJSONField):
    """The job's parameters as its kind's serializer validated them, with ``kind`` (the job's kind)
    and ``version``."""

    contract_schema = JOB_PARAMS

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value):
        return job_kinds.job_params(value.kind, value.params)


class BusyWithSerializer(serializers.Serializer):
    worker = serializers.CharField(help_text="The worker (Celery node name).")
    job_id = serializers.IntegerField(
        allow_null=True, help_text="The job it runs; null when the job is in a workspace you are not in."
    )
    kind = serializers.CharField(help_text="That job's kind.")


class WorkspaceLimitStateSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=[("jobs", "Jobs running at once"), ("gpu_jobs", "GPU jobs running at once")],
        help_text="Which of the workspace's limits.",
    )
    running = serializers.IntegerField(help_text="The workspace's jobs running (or handed to a worker) now.")
    limit = serializers.IntegerField(help_text="The most it may run at once.")


class QueueStateSerializer(serializers.Serializer):
    """Why a queued job waits."""

    queue = serializers.CharField(help_text="The queue it waits in (cpu, gpu).")
    position = serializers.IntegerField(help_text="Its place in that queue: 1 is the next one taken.")
    ahead = serializers.IntegerField(help_text="Queued jobs a worker takes before it.")
    reason = serializers.ChoiceField(
        choices=[
            ("no_worker", "No worker online consumes this queue"),
            ("workspace_limit", "Its workspace runs as many jobs as its limit allows"),
            ("workers_busy", "Every slot of the queue's workers is busy or taken by jobs ahead"),
            ("next", "A worker has a free slot: it starts shortly"),
        ]
    )
    workers = serializers.IntegerField(help_text="Workers online consuming the queue.")
    slots = serializers.IntegerField(help_text="Jobs those workers run at once, together.")
    busy_with = BusyWithSerializer(many=True, help_text="What the queue's workers run now.")
    workspace_limit = WorkspaceLimitStateSerializer(
        allow_null=True,
        help_text="The workspace's limit the job waits for (null: it is under its limits).",
    )


class JobListSerializer(serializers.ListSerializer):
    """Reads what every row's queue state and role need once for the whole page."""

    def to_representation(self, data):
        items = list(data.all() if hasattr(data, "all") else data)
        user = getattr(self.context.get("request"), "user", None)
        self.queue_states = selectors.queue_states(items, user=user)
        unannotated = [job.workspace_id for job in items if not hasattr(job, "my_role")]
        self.roles = selectors.roles_in(user=user, workspace_ids=unannotated) if unannotated else {}
        return super().to_representation(items)


class JobSerializer(serializers.ModelSerializer):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    progress = ProgressField(read_only=True, help_text="The latest progress report.")
    # a Field: serializers built on this one answer their own params field (training_jobs)
    params: serializers.Field[Any, Any, Any, Any] = JobParamsField(
        help_text="The job's parameters, by its kind."
    )
    result = contract_field(
        JOB_RESULT, allow_null=True, help_text="A finished job's result, by its kind; null until then."
    )
    retryable = serializers.SerializerMethodField(
        help_text="POST /jobs/{id}/retry/ would queue it again (failed or cancelled, of a kind that resumes)."
    )
    queue_state = serializers.SerializerMethodField(
        help_text="Why a queued job waits (its place in the queue, the workers online for it and what "
        "they run); null unless the job is queued."
    )
    my_role = serializers.SerializerMethodField(
        help_text="Your role in the job's workspace (a viewer cannot cancel or retry it)."
    )

    class Meta:
        model = Job
        fields = [
            "id",
            "workspace",
            "project",
            "kind",
            "params",
            "status",
            "queue",
            "attempt",
            "max_attempts",
            "lease_owner",
            "heartbeat_at",
            "cancel_requested",
            "preempt_requested",
            "progress",
            "result",
            "error",
            "created_by",
            "created_at",
            "enqueued_at",
            "started_at",
            "finished_at",
            "retryable",
            "queue_state",
            "my_role",
        ]
        read_only_fields = fields
        list_serializer_class = JobListSerializer

    def _user(self):
        return getattr(self.context.get("request"), "user", None)

    @extend_schema_field(QueueStateSerializer(allow_null=True))
    def get_queue_state(self, job: Job):
        batch = getattr(self.parent, "queue_states", None)
        if batch is None:
            batch = selectors.queue_states([job], user=self._user())
        state = batch.get(job.pk)
        return None if state is None else QueueStateSerializer(state).data

    @extend_schema_field(serializers.ChoiceField(choices=Role.choices, allow_null=True))
    def get_my_role(self, job: Job) -> str | None:
        annotated: Any = job
        if hasattr(annotated, "my_role"):
            return annotated.my_role
        roles = getattr(self.parent, "roles", None)
        if roles is None:
            roles = selectors.roles_in(user=self._user(), workspace_ids=[job.workspace_id])
        return roles.get(job.workspace_id)

    def get_retryable(self, job: Job) -> bool:
        from jobs.services import RETRY_STATUSES

        kind = registry.get(job.kind)
        return bool(kind and kind.retryable and job.status in RETRY_STATUSES)


class JobCreateSerializer(serializers.Serializer):
    workspace = MemberWorkspaceField(required=False, help_text="Defaults to the project's workspace.")
    project = MemberProjectField(required=False, allow_null=True)
    kind = serializers.CharField(max_length=64)
    params = serializers.DictField(required=False, default=dict)

    def validate(self, attrs):
        project, workspace = attrs.get("project"), attrs.get("workspace")
        if workspace is None and project is None:
            raise serializers.ValidationError({"workspace": ["Give a workspace or a project."]})
        if project is not None and workspace is not None and project.workspace_id != workspace.pk:
            raise serializers.ValidationError({"project": ["The project is not in that workspace."]})
        attrs["workspace"] = workspace or project.workspace
        kind = registry.get(attrs["kind"])
        if kind is None:
            names = ", ".join(k.name for k in registry.all_kinds() if not k.start_endpoint)
            raise serializers.ValidationError(
                {"kind": [f"Unknown job kind {attrs['kind']!r}; known kinds: {names}."]}
            )
        if kind.start_endpoint:
            raise serializers.ValidationError(
                {"kind": [f"Start {kind.name!r} jobs through {kind.start_endpoint}."]}
            )
        params = kind.params_serializer(data=attrs.get("params") or {})
        if not params.is_valid():
            raise serializers.ValidationError({"params": params.errors})
        attrs["params"] = params.validated_data
        return attrs


class JobEventSerializer(serializers.ModelSerializer):
    seq = serializers.IntegerField(source="id", read_only=True)
    data = contract_field(  # type: ignore[assignment]  # stub: Serializer.data
        JOB_EVENT_DATA,
        help_text="By the event's type: a progress event, the status entered (job_status) or a "
        "log line's worker (job_log).",
    )

    class Meta:
        model = JobEvent
        fields = ["seq", "at", "type", "message", "data"]
        read_only_fields = fields


class JobKindSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    prefers_gpu = serializers.BooleanField()
    retryable = serializers.BooleanField(help_text="A failed or cancelled job of this kind can be retried.")


class WorkerNodeSerializer(serializers.ModelSerializer):
    alive = serializers.BooleanField(read_only=True)
    queues = serializers.ListField(child=serializers.CharField(), read_only=True)
    devices = contract_field(
        contract_serializer(job_kinds.WorkerDevices), help_text="What the worker detected at its start."
    )

    class Meta:
        model = WorkerNode
        fields = ["hostname", "queues", "devices", "concurrency", "started_at", "last_seen", "alive"]
        read_only_fields = fields
