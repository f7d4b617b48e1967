"""The job kinds the jobs app itself owns."""

from __future__ import annotations

from rest_framework import serializers

from jobs.registry import JobKind, register


class SystemCheckParams(serializers.Serializer):
    seconds = serializers.FloatField(
        min_value=0.1, max_value=600, default=2.0, help_text="How long the test computation runs."
    )


SYSTEM_CHECK = register(
    JobKind(
        name="system.check",
        title="System check",
        description=(
            "Reports the worker's versions and devices and runs a short matrix computation with progress."
        ),
        task_name="jobs.system_check",
        params_serializer=SystemCheckParams,
        prefers_gpu=False,
        retryable=True,
        preemptible=True,
    )
)
