"""The training job kind: runs a template's trainer, exports ONNX, evaluates, records a model version."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class TrainingRunParams(serializers.Serializer):
    dataset_version = serializers.IntegerField()
    template = serializers.CharField()
    preset = serializers.CharField()
    params = serializers.DictField()


TRAINING_RUN = register(
    JobKind(
        name="training.run",
        title="Training",
        description="Trains a task template on a dataset version, exports it to ONNX and evaluates it.",
        task_name="training.run",
        params_serializer=TrainingRunParams,
        prefers_gpu=True,
        start_endpoint="/api/v1/training-jobs/",
    )
)
