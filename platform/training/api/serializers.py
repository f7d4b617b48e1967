from __future__ import annotations

from datasets.models import DatasetVersion
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from workspaces.selectors import scoped_to_member

from training.models import ModelVersion


@extend_schema_field(OpenApiTypes.INT)
class MemberDatasetVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(DatasetVersion.objects.select_related("dataset"), user=self.context["request"].user,
                                workspace_field="dataset__workspace")


class TrainingJobCreateSerializer(serializers.Serializer):
    dataset_version = MemberDatasetVersionField()
    template = serializers.CharField(required=False, help_text="Defaults to the dataset's task type.")
    preset = serializers.CharField(required=False, help_text="fast, balanced or accurate; defaults to the template's.")
    params = serializers.DictField(required=False, default=dict, help_text="Advanced settings overriding the preset.")


class TemplateSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    data_kind = serializers.CharField()
    default_preset = serializers.CharField()
    presets = serializers.ListField(child=serializers.DictField())
    params = serializers.ListField(child=serializers.DictField())
    search_space = serializers.ListField(child=serializers.DictField())
    metrics = serializers.ListField(child=serializers.CharField())


class ModelVersionSerializer(serializers.ModelSerializer):
    name = serializers.CharField(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    dataset = serializers.IntegerField(source="dataset_version.dataset_id", read_only=True, allow_null=True)

    class Meta:
        model = ModelVersion
        fields = ["id", "name", "number", "workspace", "project", "dataset", "dataset_version", "job", "template",
                  "preset", "params", "code_version", "classes", "preprocessing", "onnx_sha256", "metrics",
                  "created_by", "created_at"]
        read_only_fields = fields


class ModelVersionEvaluationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    evaluation = serializers.DictField()


class ComparisonSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    a_name = serializers.CharField()
    b_name = serializers.CharField()
    accuracy = serializers.DictField(help_text="{a, b, delta}; every delta is b minus a")
    macro_f1 = serializers.DictField()
    weighted_f1 = serializers.DictField()
    top_k_accuracy = serializers.DictField()
    per_class = serializers.ListField(child=serializers.DictField(),
                                      help_text="[{class, precision: {a, b, delta}, recall, f1, support: {a, b}}]")
