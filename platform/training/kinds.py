"""The training job kinds: a training run (a template's trainer, the ONNX export, the evaluation, a
model version) and the check of an uploaded backbone."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class TrainingRunParams(serializers.Serializer):
    dataset_version = serializers.IntegerField()
    template = serializers.CharField()
    preset = serializers.CharField()
    params = serializers.DictField()
    backbone = serializers.IntegerField(
        required=False, help_text="The backbone to initialise the model from."
    )
    warm_start_from = serializers.IntegerField(
        required=False, help_text="The model version whose weights the run starts from."
    )
    recommendation = serializers.DictField(
        required=False,
        help_text="The preset fitted to the data and the workers online "
        "(workers.contracts.templates.PresetRecommendation); absent with adapt false.",
    )


class BackboneCheckParams(serializers.Serializer):
    backbone = serializers.IntegerField(help_text="The backbone whose file to check.")


TRAINING_RUN = register(
    JobKind(
        name="training.run",
        title="Training",
        description="Trains a task template on a dataset version, exports it to ONNX and evaluates it.",
        task_name="training.run",
        params_serializer=TrainingRunParams,
        prefers_gpu=True,
        start_endpoint="/api/v1/training-jobs/",
        retryable=True,  # resumes from the run's last complete checkpoint
        preemptible=True,
    )
)

BACKBONE_CHECK = register(
    JobKind(
        name="training.check_backbone",
        title="Backbone check",
        description=(
            "Reads an uploaded backbone with weights_only=True and records it as valid (with the model it "
            "fits) or invalid (with the reason)."
        ),
        task_name="training.check_backbone",
        params_serializer=BackboneCheckParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/backbones/",
    )
)


class ModelImportParams(serializers.Serializer):
    blob_key = serializers.CharField()
    sha256 = serializers.CharField()
    filename = serializers.CharField()
    architecture = serializers.CharField()
    classes = serializers.ListField(child=serializers.CharField())
    preprocessing = serializers.DictField()
    dataset_version = serializers.IntegerField(
        required=False, allow_null=True, help_text="Evaluate the model on this version's test split."
    )


class ModelEvaluationParams(serializers.Serializer):
    model_version = serializers.IntegerField(help_text="The uploaded model version to evaluate.")


MODEL_IMPORT = register(
    JobKind(
        name="training.import_model",
        title="Model import",
        description="Reads an uploaded state_dict with weights_only=True, builds the template's architecture "
        "from it, exports ONNX and records it as an uploaded model version.",
        task_name="training.import_model",
        params_serializer=ModelImportParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/model-versions/upload/",
    )
)

MODEL_EVALUATION = register(
    JobKind(
        name="training.evaluate_model",
        title="Model evaluation",
        description="Evaluates an uploaded model version on its dataset version's test split and records the "
        "evaluation report.",
        task_name="training.evaluate_model",
        params_serializer=ModelEvaluationParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/model-versions/upload/",
    )
)


class CompressionParams(serializers.Serializer):
    model_version = serializers.IntegerField(help_text="The model version compressed.")
    spec = serializers.DictField(help_text="What to make (workers.contracts.compression.CompressionSpec).")
    teacher = serializers.IntegerField(
        allow_null=True, help_text="The model version distillation learns from; null: the parent."
    )
    compression = serializers.IntegerField(help_text="The compression run it records into.")


MODEL_COMPRESSION = register(
    JobKind(
        name="training.compress",
        title="Compression",
        description="Prunes, distills and/or quantizes a model version into smaller, faster variants, "
        "measures and evaluates each against it on the same test split, and records each as a compressed "
        "model version.",
        task_name="training.compress",
        params_serializer=CompressionParams,
        prefers_gpu=True,
        start_endpoint="/api/v1/model-versions/{id}/compress/",
        retryable=True,  # the variants and the report are recorded in one transaction, once
    )
)
