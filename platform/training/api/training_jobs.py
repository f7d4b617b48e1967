"""The training job as a resource of its own: a ``Job(kind="training.run")`` shown with what it
trains (template, preset, parameters, dataset version, backbone) and the model version it produced.

Built on ``JobSerializer`` so its status, progress and result are typed as every job's are."""

from __future__ import annotations

from config.contract_fields import ParamValuesField
from config.contracts import contract_field, contract_serializer
from jobs.api.serializers import JobSerializer
from rest_framework import serializers

from workers.contracts.jobs import TrainingJobResult
from workers.contracts.templates import PresetRecommendation


class ProducedModelVersionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TrainingJobSerializer(JobSerializer):
    template = serializers.CharField(source="params.template", read_only=True)
    preset = serializers.CharField(source="params.preset", read_only=True)
    params = ParamValuesField(
        source="params.params",
        read_only=True,
        default=dict,
        help_text="The template's parameters of the run: the preset's values with the overrides applied.",
    )
    dataset_version = serializers.IntegerField(source="params.dataset_version", read_only=True)
    backbone = serializers.IntegerField(
        source="params.backbone",
        read_only=True,
        allow_null=True,
        help_text="The backbone the run started from (transfer learning), or null.",
    )
    warm_start_from = serializers.IntegerField(
        source="params.warm_start_from",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="The model version whose weights the run starts from (retrain from a version), or null.",
    )
    processes = serializers.IntegerField(
        source="params.processes",
        read_only=True,
        default=1,
        help_text="Data-parallel processes (ranks) the job trains with on its worker's host.",
    )
    recommendation = contract_field(
        contract_serializer(PresetRecommendation),
        source="params.recommendation",
        allow_null=True,
        default=None,
        help_text="The preset fitted to the dataset version and the workers online when the job was "
        "created: the values it runs and each parameter chosen for the data and hardware, with why; "
        "null when it was started with adapt false (or before this was recorded).",
    )
    result = contract_field(
        contract_serializer(TrainingJobResult),
        allow_null=True,
        help_text="What the run recorded (its model version, metrics, where it resumed); null until "
        "it succeeds.",
    )
    model_version = ProducedModelVersionSerializer(
        read_only=True,
        allow_null=True,
        help_text="The model version the run produced; null until it succeeds.",
    )

    class Meta(JobSerializer.Meta):
        # every field of a job, its ``params`` being the template's (the job's own are split out above)
        fields = [
            *JobSerializer.Meta.fields[: JobSerializer.Meta.fields.index("params")],
            "template",
            "preset",
            "params",
            "dataset_version",
            "backbone",
            "warm_start_from",
            "processes",
            "recommendation",
            "model_version",
            *JobSerializer.Meta.fields[JobSerializer.Meta.fields.index("params") + 1 :],
        ]
        read_only_fields = fields
