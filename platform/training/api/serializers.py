from __future__ import annotations

from accounts.models import User
from config.contract_fields import ParamValuesField, PreprocessingField
from config.contracts import JSONScalarField, contract_field, contract_serializer
from datasets.models import DatasetVersion
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from jobs.api.serializers import MemberProjectField, ProgressField
from rest_framework import serializers
from workspaces.selectors import scoped_to_member

from training import selectors
from training.compression import PRESETS
from training.estimates import TrainingEstimates
from training.models import Backbone, Compression, ModelVersion
from workers.contracts import annotations as annotation_contracts
from workers.contracts import compression as compression_contracts
from workers.contracts import compression_report as compression_report_contracts
from workers.contracts import evaluation as evaluation_contracts
from workers.contracts import forecasting as forecasting_contracts
from workers.contracts.custom_code import CustomJobLineage
from workers.contracts.forecasting import ForecastContract
from workers.contracts.job_kinds import BackboneSummary
from workers.contracts.jobs import ModelVersionMetrics
from workers.contracts.templates import TemplateDescription


@extend_schema_field(OpenApiTypes.INT)
class MemberDatasetVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(
            DatasetVersion.objects.select_related("dataset"),
            user=self.context["request"].user,
            workspace_field="dataset__workspace",
        )


@extend_schema_field(OpenApiTypes.INT)
class MemberBackboneField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return selectors.backbones_for(user=self.context["request"].user)


@extend_schema_field(OpenApiTypes.INT)
class MemberModelVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return selectors.model_versions_for(user=self.context["request"].user)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class TargetProfileRefField(serializers.Field):
    """A target profile's id, or a builtin target's name (resolved by the service)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | str):
            raise serializers.ValidationError("Give a builtin target's name or a target profile's id.")
        return data

    def to_representation(self, value):
        return value


class TrainingJobCreateSerializer(serializers.Serializer):
    dataset_version = MemberDatasetVersionField()
    template = serializers.CharField(required=False, help_text="Defaults to the dataset's task type.")
    preset = serializers.CharField(
        required=False, help_text="fast, balanced or accurate; defaults to the template's."
    )
    params = ParamValuesField(
        required=False, default=dict, help_text="Advanced settings overriding the preset."
    )
    backbone = MemberBackboneField(
        required=False,
        allow_null=True,
        help_text="A valid backbone of the dataset's project: transfer learning "
        "initialises all but the classification head from it.",
    )
    warm_start_from = MemberModelVersionField(
        required=False,
        allow_null=True,
        help_text="A model version of the dataset's project (same template and model) to start from: "
        "its weights, the head's rows matched by class name (retrain from a version).",
    )
    adapt = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Fit the preset to the dataset version and the workers online (batch size, epochs, "
        "model size... by the template's rule; the job records the choices as its recommendation). "
        "Parameters in params are never changed. false: the preset's values as declared.",
    )
    target_profile = TargetProfileRefField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Where the model will run (a builtin target's name or a target profile's id; image "
        "classification): before training, the worker fits image_size, width and int8 to its latency and "
        "size budgets and records the choice and reasons (the job fails with target_unreachable, naming the "
        "smallest latency reached, when nothing fits).",
    )
    processes = serializers.IntegerField(
        required=False,
        default=1,
        min_value=1,
        help_text="Data-parallel processes on the worker's host (image classification): CPU processes, "
        "or one GPU each on a GPU worker; the batch_size stays the global batch, split between them. "
        "At most SAMPAN_MAX_PROCESSES.",
    )


class RetrainSerializer(serializers.Serializer):
    dataset_version = MemberDatasetVersionField(
        help_text="A version of a dataset of the model version's project to train on."
    )
    preset = serializers.CharField(
        required=False,
        help_text="Defaults to the version's own parameters; a preset's values keep the version's network.",
    )
    params = ParamValuesField(required=False, default=dict, help_text="Settings overriding them.")


BackboneSummarySerializer = contract_serializer(BackboneSummary)


class BackboneSerializer(serializers.ModelSerializer):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    summary = BackboneSummarySerializer(read_only=True, allow_null=True, source="summary_or_none")

    class Meta:
        model = Backbone
        fields = [
            "id",
            "workspace",
            "project",
            "name",
            "filename",
            "sha256",
            "size_bytes",
            "status",
            "error",
            "summary",
            "job",
            "created_by",
            "created_at",
            "checked_at",
        ]
        read_only_fields = fields


class BackboneTargetSerializer(serializers.Serializer):
    project = MemberProjectField(help_text="The project the backbone belongs to.")


class BackboneCreateSerializer(BackboneTargetSerializer):
    file = serializers.FileField(
        allow_empty_file=True,
        help_text="A PyTorch state_dict (torch.save(model."
        "state_dict())), or a checkpoint holding one under 'model' or 'state_dict'.",
    )
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Defaults to the file's name without its extension.",
    )


TemplateSerializer = contract_serializer(TemplateDescription)  # workers.contracts.templates


class ModelVersionBackboneSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The backbone's id (it may have been deleted since).")
    name = serializers.CharField()
    sha256 = serializers.CharField()
    tensors = serializers.IntegerField(allow_null=True, help_text="Entries copied into the model.")


MODEL_VERSION_LINEAGE = PolymorphicProxySerializer(
    component_name="ModelVersionLineage",
    serializers={
        "custom_job_lineage": contract_serializer(CustomJobLineage),
        "compression_lineage": contract_serializer(compression_report_contracts.CompressionLineage),
    },
    resource_type_field_name="kind",
)


class ModelVersionSerializer(serializers.ModelSerializer):
    name = serializers.CharField(read_only=True)
    backbone = ModelVersionBackboneSerializer(
        read_only=True, allow_null=True, help_text="The backbone the run started from; null: from scratch."
    )
    warm_start_from = serializers.IntegerField(
        source="warm_start_from_id",
        read_only=True,
        allow_null=True,
        help_text="The model version whose weights the run started from; null: not warm-started (or "
        "that version was deleted).",
    )
    warm_start_from_name = serializers.SerializerMethodField(help_text="That version's name (V3), or null.")
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    dataset = serializers.IntegerField(source="dataset_version.dataset_id", read_only=True, allow_null=True)
    preprocessing = PreprocessingField(read_only=True, allow_null=True)
    classes = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Class names in the model's output order."
    )
    params = serializers.DictField(
        child=JSONScalarField(allowed=(int, float, str, bool), allow_null=True),
        read_only=True,
        help_text="Trained: every parameter the trainer used, after preset and overrides. Uploaded: "
        "the file's description (format, filename, sha256, bytes; batch_size or architecture, null "
        "when unknown).",
    )
    metrics = contract_field(contract_serializer(ModelVersionMetrics))
    compressed_from = serializers.IntegerField(
        source="compressed_from_id",
        read_only=True,
        allow_null=True,
        help_text="The model version this one was compressed from (source compressed); null otherwise.",
    )
    lineage = contract_field(
        MODEL_VERSION_LINEAGE,
        allow_null=True,
        help_text="Made by custom code (source custom): the code (sha256), entry point, arguments, "
        "hyperparameters, requirements, dataset version and environment of the run; compressed (source "
        "compressed): the parent, teacher, recipe and compression run; null otherwise.",
    )
    forecast_contract = serializers.SerializerMethodField(
        help_text="Forecasters: what a prediction request must send (frequency, fewest history points, "
        "largest horizon, quantiles, covariates); null for other templates."
    )

    class Meta:
        model = ModelVersion
        fields = [
            "id",
            "name",
            "number",
            "source",
            "workspace",
            "project",
            "dataset",
            "dataset_version",
            "job",
            "template",
            "preset",
            "params",
            "backbone",
            "warm_start_from",
            "warm_start_from_name",
            "compressed_from",
            "code_version",
            "classes",
            "preprocessing",
            "onnx_sha256",
            "metrics",
            "lineage",
            "forecast_contract",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(contract_serializer(ForecastContract)(allow_null=True))
    def get_forecast_contract(self, obj: ModelVersion) -> ForecastContract | None:
        return selectors.model_version_forecast_contract(obj)

    def get_warm_start_from_name(self, obj: ModelVersion) -> str | None:
        # the parent is a version of the same project: its number names it without a query
        number = getattr(obj, "warm_start_from_number", None)
        if number is None and obj.warm_start_from_id is not None:
            number = (
                ModelVersion.objects.filter(pk=obj.warm_start_from_id)
                .values_list("number", flat=True)
                .first()
            )
        return f"V{number}" if number is not None else None


ClassificationReportSerializer = contract_serializer(evaluation_contracts.ClassificationReport)
RegressionReportSerializer = contract_serializer(evaluation_contracts.RegressionReport)
DetectionReportSerializer = contract_serializer(annotation_contracts.DetectionReport)
ForecastReportSerializer = contract_serializer(forecasting_contracts.ForecastReport)
EVALUATION_REPORT = PolymorphicProxySerializer(
    component_name="EvaluationReport",
    serializers={
        "classification_report": ClassificationReportSerializer,
        "regression_report": RegressionReportSerializer,
        "detection_report": DetectionReportSerializer,
        "forecast_report": ForecastReportSerializer,
    },
    resource_type_field_name="kind",
)


class ModelVersionEvaluationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    evaluation = contract_field(
        EVALUATION_REPORT,
        allow_null=True,
        help_text="The report on the test split, by its kind; null: the version has none "
        "(an uploaded model not evaluated).",
    )


class _ComparedVersions(serializers.Serializer):
    a = serializers.IntegerField(help_text="Model version a's id.")
    b = serializers.IntegerField(help_text="Model version b's id; every delta is b minus a.")
    a_name = serializers.CharField()
    b_name = serializers.CharField()


class ComparisonSerializer(
    _ComparedVersions,
    contract_serializer(evaluation_contracts.ClassificationComparison),  # type: ignore[misc]  # a class built from the contract
):
    """Two classifiers' reports side by side (``workers.contracts.evaluation.ClassificationComparison``)."""

    class Meta:
        ref_name = "ModelVersionClassificationComparison"


class RegressionComparisonSerializer(
    _ComparedVersions,
    contract_serializer(evaluation_contracts.RegressionComparison),  # type: ignore[misc]  # a class built from the contract
):
    """Two regression models' reports side by side (``workers.contracts.evaluation.RegressionComparison``)."""

    class Meta:
        ref_name = "ModelVersionRegressionComparison"


class DetectionComparisonSerializer(
    _ComparedVersions,
    contract_serializer(annotation_contracts.DetectionComparison),  # type: ignore[misc]  # a class built from the contract
):
    """Two detectors' reports side by side (``workers.contracts.annotations.DetectionComparison``)."""

    class Meta:
        ref_name = "ModelVersionDetectionComparison"


class ForecastComparisonSerializer(
    _ComparedVersions,
    contract_serializer(forecasting_contracts.ForecastComparison),  # type: ignore[misc]  # a class built from the contract
):
    """Two forecasters' reports side by side (``workers.contracts.forecasting.ForecastComparison``)."""

    class Meta:
        ref_name = "ModelVersionForecastComparison"


MODEL_VERSION_COMPARISON = PolymorphicProxySerializer(
    component_name="ModelVersionComparison",
    serializers={
        "classification_comparison": ComparisonSerializer,
        "regression_comparison": RegressionComparisonSerializer,
        "detection_comparison": DetectionComparisonSerializer,
        "forecast_comparison": ForecastComparisonSerializer,
    },
    resource_type_field_name="kind",
)


class ModelVersionUploadTargetSerializer(serializers.Serializer):
    project = MemberProjectField(help_text="The project the model version belongs to.")


class ModelVersionUploadSerializer(ModelVersionUploadTargetSerializer):
    format = serializers.ChoiceField(
        choices=["onnx", "state_dict"],
        help_text="onnx: a self-contained ONNX classifier, registered at once (201); "
        "state_dict: weights for one of the template's architectures, "
        "turned into ONNX by a training.import_model job (202).",
    )
    file = serializers.FileField(allow_empty_file=True)
    classes = serializers.JSONField(
        required=False,
        help_text="Class names in the order of the model's outputs "
        "(a JSON array). Optional for an ONNX file exported by Sampan.",
    )
    preprocessing = serializers.JSONField(
        required=False,
        help_text="Preprocessing spec keys (a JSON object: "
        "image_size [h, w], mean, std, resize_mode, ...) over the template's "
        "defaults. Optional when the ONNX input has a fixed size.",
    )
    architecture = serializers.ChoiceField(
        choices=["cnn_small", "resnet_narrow", "resnet18"],
        required=False,
        help_text="state_dict only: the template architecture it was trained as.",
    )
    image_size = serializers.IntegerField(
        required=False,
        min_value=8,
        max_value=1024,
        help_text="state_dict only: square input size (default 64).",
    )
    dataset_version = MemberDatasetVersionField(
        required=False,
        allow_null=True,
        help_text="Evaluate the model on this dataset version's test split "
        "(same project; its classes in the model's output order).",
    )

    def validate(self, attrs):
        if attrs["format"] == "state_dict":
            if not attrs.get("architecture"):
                raise serializers.ValidationError({"architecture": ["A state_dict needs its architecture."]})
            if attrs.get("classes") is None:
                raise serializers.ValidationError({"classes": ["A state_dict needs its class names."]})
        return attrs


TrainingEstimatesSerializer = contract_serializer(TrainingEstimates)  # training.estimates


# --- compression ----------------------------------------------------------------------------------


class CompressionCreateSerializer(serializers.Serializer):
    recipes = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Variants to make (workers.contracts.compression.CompressionRecipe), e.g. "
        '[{"name": "pruned-50-int8", "prune": {"flops_ratio": 0.5}, "quantize": "auto"}]; or a preset.',
    )
    preset = serializers.ChoiceField(
        choices=list(PRESETS),
        required=False,
        help_text="smaller (int8), balanced (half the FLOPs pruned + int8), faster (pruned to the target's "
        "latency budget + int8), distilled (half-width student + int8). Default smaller.",
    )
    teacher = MemberModelVersionField(
        required=False,
        allow_null=True,
        help_text="Distillation's teacher: a model version of the same project, template and classes "
        "(default the version compressed).",
    )
    target_profile = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Latency is measured with this target profile: a builtin name (worker-cpu, worker-cpu-4t, "
        "edge-arm-slow) or the id or name of the workspace's profile. Default worker-cpu.",
    )
    max_metric_drop = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text="quantize auto: static int8 unless it loses more than this (default 0.005 top-1, "
        "0.02 mAP), then quantization-aware training.",
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)


class CompressionSerializer(serializers.ModelSerializer):
    parent_name = serializers.CharField(source="parent.name", read_only=True)
    spec = contract_field(contract_serializer(compression_contracts.CompressionSpec))
    report = contract_field(
        contract_serializer(compression_report_contracts.CompressionRunReport),
        allow_null=True,
        help_text="Null until the job finished: the parent's and each variant's size, parameters, FLOPs, "
        "latency and metric on the same test split, each variant's model version.",
    )
    status = serializers.CharField(source="job.status", read_only=True, allow_null=True, default=None)
    progress = ProgressField(source="job.progress", read_only=True, allow_null=True, default=None)
    error = serializers.CharField(source="job.error", read_only=True, allow_null=True, default=None)
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = Compression
        fields = [
            "id",
            "workspace",
            "project",
            "parent",
            "parent_name",
            "teacher",
            "preset",
            "spec",
            "job",
            "status",
            "progress",
            "error",
            "report",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class BrowserLatencySerializer(serializers.Serializer):
    model_version = serializers.IntegerField(help_text="The parent or a variant of this compression run.")
    median_ms = serializers.FloatField(min_value=0.0, max_value=1e7)
    p90_ms = serializers.FloatField(min_value=0.0, max_value=1e7)
    runs = serializers.IntegerField(min_value=1, max_value=100000)
    user_agent = serializers.CharField(max_length=400, allow_blank=True)
    backend = serializers.ChoiceField(choices=["wasm"], default="wasm")
