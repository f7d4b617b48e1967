"""The custom training job kind: a user's code run in a sandbox on a worker (``training.custom``)."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class CustomJobParams(serializers.Serializer):
    """The job row's params (the platform fills them from POST /api/v1/custom-jobs/)."""

    code_archive = serializers.IntegerField()
    spec = serializers.DictField(help_text="workers.contracts.custom_code.CustomJobSpec")
    dataset_version = serializers.IntegerField(required=False, allow_null=True)
    trial = serializers.IntegerField(
        required=False, help_text="The AutoML trial this run is (custom-code studies)."
    )


CUSTOM_TRAINING = register(
    JobKind(
        name="training.custom",
        title="Custom training",
        description="Runs a user's training code (a script, a zip or a notebook) in a sandbox on a worker, "
        "with its logs and metrics; a model it writes becomes a model version.",
        task_name="customjobs.run",
        params_serializer=CustomJobParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/custom-jobs/",
        retryable=True,  # a rerun starts the code again from the beginning
    )
)
