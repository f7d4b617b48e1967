from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from accounts.models import User
from config.contract_fields import ParamValuesField
from config.contracts import contract_serializer
from customjobs.models import CodeArchive
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from jobs.api.serializers import MemberProjectField
from rest_framework import serializers
from training.api.serializers import MemberDatasetVersionField
from workspaces.models import Role
from workspaces.selectors import scoped_to_member

from automl import engine, selectors
from automl.models import PrunerKind, ReportRole, SamplerKind, Study, Trial
from workers.contracts.targets import LatencyMeasurement, TargetProfile
from workers.contracts.templates import Objective, SearchDimension

# The contract's serializer: answers show it, and automl.search_space validates requests with it.
SearchDimensionSerializer = contract_serializer(SearchDimension)
ObjectiveSerializer = contract_serializer(Objective)


class StudyGoal(TypedDict):
    """One objective of a study: ``metric`` is the template's objective metric (val_acc, val_map50,
    val_mase ...), ``latency_ms`` (the trial's ONNX on the study's target) or ``size_bytes``."""

    metric: str
    direction: NotRequired[Literal["maximize", "minimize"]]


class StudyConstraint(TypedDict):
    metric: str
    op: Literal["<=", ">="]
    value: float


class TrialMeasurements(TypedDict):
    """What a deployment-aware study's trial measured of the model it serves."""

    latency_ms: NotRequired[float]
    size_bytes: NotRequired[int]
    flops: NotRequired[int]
    precision: NotRequired[Literal["fp32", "int8"]]
    quantization_delta: NotRequired[float]
    fp32_size_bytes: NotRequired[int]
    latency: NotRequired[LatencyMeasurement]


StudyGoalSerializer = contract_serializer(StudyGoal)
StudyConstraintSerializer = contract_serializer(StudyConstraint)
TrialMeasurementsSerializer = contract_serializer(TrialMeasurements)


# the contract's component is DeploymentTarget (a dataset's target-column profile owns TargetProfile)
DeploymentTargetSerializer = contract_serializer(TargetProfile)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class TargetProfileRefField(serializers.Field):
    """A target profile's id, or a builtin target's name (resolved by the service)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | str):
            raise serializers.ValidationError("Give a builtin target's name or a target profile's id.")
        return data

    def to_representation(self, value):
        return value


class TrialTestMetrics(TypedDict):
    """A completed trial's headline metrics on the test split (null: the evaluation has none):
    classifiers' accuracy and macro F1, detectors' mAP@[.5:.95] (``map``) and mAP@.5, forecasters'
    MASE, sMAPE and skill against seasonal naive (``1 - mase / seasonal naive's``)."""

    accuracy: NotRequired[float | None]
    macro_f1: NotRequired[float | None]
    map: NotRequired[float | None]
    map50: NotRequired[float | None]
    mase: NotRequired[float | None]
    smape: NotRequired[float | None]
    skill: NotRequired[float | None]


TrialTestMetricsSerializer = contract_serializer(TrialTestMetrics)


@extend_schema_field(SearchDimensionSerializer(many=True))
class SearchSpaceField(serializers.JSONField):
    """A list of dimensions, checked by automl.search_space (the 400 names the field:
    ``search_space[1].low``) once the template, preset and fixed parameters are known."""


class StudyCreateSerializer(serializers.Serializer):
    dataset_version = MemberDatasetVersionField()
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    template = serializers.CharField(required=False, help_text="Defaults to the dataset's task type.")
    preset = serializers.CharField(
        required=False,
        help_text="The preset every trial starts from; defaults to the "
        "template's (the honest-lift baseline).",
    )
    fixed_params = ParamValuesField(
        required=False, default=dict, help_text="Parameters every trial uses as given (e.g. a short epochs)."
    )
    search_space = SearchSpaceField(
        required=False,
        allow_null=True,
        help_text="A list of dimensions (see SearchDimension); defaults to the template's search space.",
    )
    sampler = serializers.ChoiceField(choices=SamplerKind.choices, default=SamplerKind.SDE)
    pruner = serializers.ChoiceField(choices=PrunerKind.choices, default=PrunerKind.MEDIAN)
    n_trials = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=10_000,
        help_text="Trial budget; defaults to what fits the workers online (GET /studies/defaults/).",
    )
    timeout_seconds = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="Wall-time budget: no trial starts after it."
    )
    parallelism = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=256,
        help_text="Trials in flight; defaults to the jobs the workers online for the trials' queue run at "
        "once (GET /studies/defaults/).",
    )
    seed = serializers.IntegerField(default=0, min_value=0, max_value=2**31 - 1)
    report_seeds = serializers.IntegerField(
        default=3, min_value=0, max_value=10, help_text="Seeds of the honest-lift report (0: no report)."
    )
    objectives = StudyGoalSerializer(
        many=True,
        required=False,
        allow_null=True,
        default=None,
        help_text="1 to 3 objectives: the template's metric, latency_ms (on the target), size_bytes. "
        "More than one: a multi-objective study (no pruning, no lift report; sampler sde, nsga2, tpe, "
        "gp or random). Defaults to the template's objective.",
    )
    constraints = StudyConstraintSerializer(
        many=True,
        required=False,
        allow_null=True,
        default=None,
        help_text="A trial outside any constraint is infeasible (never on the Pareto front).",
    )
    target_profile = TargetProfileRefField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Where latency is measured: a builtin target's name (worker-cpu, worker-cpu-4t, "
        "edge-arm-slow) or a target profile's id; its budgets become constraints. Default with a "
        "latency or size objective: worker-cpu.",
    )


@extend_schema_field(OpenApiTypes.INT)
class MemberCodeArchiveField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(
            CodeArchive.objects.select_related("project"), user=self.context["request"].user
        )


class CustomLimitsSerializer(serializers.Serializer):
    wall_time_s = serializers.IntegerField(required=False, min_value=1)
    memory_mb = serializers.IntegerField(required=False, min_value=1)
    cpus = serializers.IntegerField(required=False, min_value=1)


class CustomStudyCreateSerializer(serializers.Serializer):
    """A custom-code study (``template="custom"``): each trial runs the code with sampled
    hyperparameters; the code reports ``objective.metric`` with ``run.log_metrics``."""

    project = MemberProjectField(required=False, help_text="Defaults to the code archive's project.")
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    code_archive = MemberCodeArchiveField()
    entry_point = serializers.CharField(
        required=False, allow_blank=True, max_length=300, help_text="Defaults to the archive's entry point."
    )
    args = serializers.ListField(child=serializers.CharField(allow_blank=True), required=False, default=list)
    requirements = serializers.CharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        default=None,
        help_text="pip requirement lines; defaults to the archive's requirements.txt.",
    )
    dataset_version = MemberDatasetVersionField(required=False, allow_null=True, default=None)
    search_space = SearchSpaceField(
        help_text="A list of dimensions over the code's hyperparameters (required: no default)."
    )
    objective = ObjectiveSerializer(
        help_text="The metric the code reports with run.log_metrics and whether higher is better."
    )
    limits = CustomLimitsSerializer(required=False, default=dict)
    network = serializers.BooleanField(required=False, default=False)
    sampler = serializers.ChoiceField(choices=SamplerKind.choices, default=SamplerKind.TPE)
    pruner = serializers.ChoiceField(choices=PrunerKind.choices, default=PrunerKind.MEDIAN)
    n_trials = serializers.IntegerField(min_value=1, max_value=10_000)
    timeout_seconds = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    parallelism = serializers.IntegerField(required=False, default=1, min_value=1, max_value=256)
    seed = serializers.IntegerField(default=0, min_value=0, max_value=2**31 - 1)


class CustomCodeSerializer(serializers.Serializer):
    """What a custom-code study runs (``Study.custom_code``)."""

    code_archive = serializers.IntegerField()
    code_name = serializers.CharField()
    code_sha256 = serializers.CharField()
    code_kind = serializers.CharField()
    entry_point = serializers.CharField()
    args = serializers.ListField(child=serializers.CharField())
    requirements = serializers.CharField(allow_blank=True)
    requirements_hash = serializers.CharField()
    limits = CustomLimitsSerializer()
    network = serializers.BooleanField()


class StudyDefaultsSerializer(serializers.Serializer):
    """A study's budget that fits the workers online now, and why."""

    template = serializers.CharField()
    queue = serializers.CharField(help_text="The queue the trials go to (gpu when a GPU worker is online).")
    workers = serializers.IntegerField(help_text="Workers online consuming that queue.")
    slots = serializers.IntegerField(help_text="Jobs those workers run at once, together.")
    parallelism = serializers.IntegerField(help_text="Trials in flight: the slots, at least 1.")
    n_trials = serializers.IntegerField(help_text="Trial budget.")
    timeout_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="Wall-time budget (null: no limit until a run of the template was measured).",
    )
    trial_seconds = serializers.FloatField(
        allow_null=True, help_text="Median duration of the template's recent runs on the workers."
    )
    measured_runs = serializers.IntegerField(help_text="How many runs trial_seconds is the median of.")
    estimated_seconds = serializers.FloatField(
        allow_null=True, help_text="How long n_trials take at that parallelism."
    )
    explanation = serializers.CharField(help_text="The reasoning in a sentence (English).")


class StudyDefaultsQuerySerializer(serializers.Serializer):
    template = serializers.CharField(
        help_text="The task template the study trains (its dataset's task type)."
    )


class BestTrialSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    value = serializers.FloatField()
    model_version = serializers.IntegerField(allow_null=True, source="model_version_id")
    model_version_name = serializers.CharField(allow_null=True, source="model_version.name", default=None)
    params = ParamValuesField()
    test_metrics = TrialTestMetricsSerializer()


class StudySerializer(serializers.ModelSerializer):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    dataset = serializers.IntegerField(
        source="dataset_version.dataset_id", read_only=True, allow_null=True, default=None
    )
    dataset_name = serializers.CharField(
        source="dataset_version.dataset.name", read_only=True, allow_null=True, default=None
    )
    dataset_version_name = serializers.CharField(
        source="dataset_version.name", read_only=True, allow_null=True, default=None
    )
    custom_code = CustomCodeSerializer(
        read_only=True, allow_null=True, help_text='What a custom-code study (template "custom") runs.'
    )
    sampler_in_use = serializers.SerializerMethodField(
        help_text="The sampler the trials are asked from (sde falls back to tpe while it is not installed)."
    )
    search_space = SearchDimensionSerializer(many=True, read_only=True)
    fixed_params = ParamValuesField(read_only=True, help_text="Parameters every trial uses as given.")
    objective = ObjectiveSerializer(read_only=True, help_text="What the trials are scored by.")
    objectives = serializers.SerializerMethodField(
        help_text="Every objective in order (a single-objective study: its objective); "
        "a trial's values follow it."
    )
    constraints = StudyConstraintSerializer(many=True, read_only=True)
    target_profile = DeploymentTargetSerializer(
        read_only=True, allow_null=True, help_text="The profile latency is measured with (a snapshot)."
    )
    target_profile_id = serializers.IntegerField(
        source="target_profile_ref_id",
        read_only=True,
        allow_null=True,
        help_text="The workspace profile it was taken from (null: a builtin, or deleted since).",
    )
    multi_objective = serializers.BooleanField(source="is_multi_objective", read_only=True)
    space_notes = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="How the default search space was adapted to the target (English sentences).",
    )
    pareto_front = serializers.SerializerMethodField(
        help_text="Numbers of the completed feasible trials no other dominates."
    )
    trials = serializers.SerializerMethodField()
    best_trial = serializers.SerializerMethodField()
    my_role = serializers.ChoiceField(
        choices=Role.choices,
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Your role in the study's workspace (a viewer cannot start, control or promote).",
    )

    class Meta:
        model = Study
        fields = [
            "id",
            "workspace",
            "project",
            "name",
            "dataset",
            "dataset_name",
            "dataset_version",
            "dataset_version_name",
            "template",
            "custom_code",
            "preset",
            "fixed_params",
            "search_space",
            "objective",
            "objectives",
            "constraints",
            "target_profile",
            "target_profile_id",
            "multi_objective",
            "space_notes",
            "pareto_front",
            "sampler",
            "sampler_in_use",
            "pruner",
            "n_trials",
            "timeout_seconds",
            "parallelism",
            "seed",
            "report_seeds",
            "status",
            "trials",
            "best_trial",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "my_role",
        ]
        read_only_fields = fields

    def get_sampler_in_use(self, study: Study) -> str:
        return engine.sampler_in_use(
            study.sampler, multi_objective=study.is_multi_objective, constrained=bool(study.constraints)
        )

    @extend_schema_field(StudyGoalSerializer(many=True))
    def get_objectives(self, study: Study) -> list[dict]:
        return study.goals

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_pareto_front(self, study: Study) -> list[int]:
        return selectors.pareto_front(study=study)

    @extend_schema_field(
        {
            "type": "object",
            "properties": {
                k: {"type": "integer"} for k in ("total", "complete", "pruned", "failed", "running")
            },
            "required": ["total", "complete", "pruned", "failed", "running"],
        }
    )
    def get_trials(self, study: Study) -> dict:
        counted: Any = study  # the list's queryset annotates the counts (automl.selectors)
        if hasattr(counted, "trial_count"):
            return {
                "total": counted.trial_count,
                "complete": counted.complete_count,
                "pruned": counted.pruned_count,
                "failed": counted.failed_count,
                "running": counted.running_count,
            }
        states = list(study.trials.values_list("state", flat=True))
        return {
            "total": len(states),
            **{s: states.count(s) for s in ("complete", "pruned", "failed", "running")},
        }

    @extend_schema_field(BestTrialSerializer(allow_null=True))
    def get_best_trial(self, study: Study):
        best = selectors.best_trial(study=study)
        return None if best is None else BestTrialSerializer(best).data


class IntermediateValueSerializer(serializers.Serializer):
    epoch = serializers.IntegerField()
    value = serializers.FloatField()


class TrialSerializer(serializers.ModelSerializer):
    params = ParamValuesField(read_only=True, help_text="The sampled values of the search space.")
    test_metrics = TrialTestMetricsSerializer(
        read_only=True, help_text="Headline metrics on the test split (completed trials)."
    )
    intermediate = serializers.SerializerMethodField()
    job_status = serializers.CharField(source="job.status", read_only=True, default=None, allow_null=True)
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
    model_version_name = serializers.CharField(
        source="model_version.name", read_only=True, default=None, allow_null=True
    )
    values = serializers.ListField(
        child=serializers.FloatField(),
        read_only=True,
        help_text="One value per objective (study.objectives).",
    )
    measurements = TrialMeasurementsSerializer(read_only=True)
    on_front = serializers.SerializerMethodField(help_text="On the study's Pareto front.")

    class Meta:
        model = Trial
        fields = [
            "id",
            "number",
            "state",
            "params",
            "value",
            "values",
            "measurements",
            "feasible",
            "quantized",
            "on_front",
            "intermediate",
            "pruned_at_epoch",
            "test_metrics",
            "error",
            "job",
            "job_status",
            "duration_seconds",
            "started_at",
            "finished_at",
            "model_version",
            "model_version_name",
        ]
        read_only_fields = fields

    def get_on_front(self, trial: Trial) -> bool:
        return trial.number in self.context.get("front", ())

    @extend_schema_field(IntermediateValueSerializer(many=True))
    def get_intermediate(self, trial: Trial) -> list[dict]:
        return [
            {"epoch": int(k), "value": v}
            for k, v in sorted(trial.intermediate.items(), key=lambda kv: int(kv[0]))
        ]


class HistoryPointSerializer(serializers.Serializer):
    trial = serializers.IntegerField()
    value = serializers.FloatField()
    best = serializers.FloatField()


class SpreadSerializer(serializers.Serializer):
    values = serializers.ListField(child=serializers.FloatField())
    mean = serializers.FloatField(allow_null=True)
    std = serializers.FloatField(allow_null=True)
    min = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)


class LiftErrorSerializer(serializers.Serializer):
    role = serializers.ChoiceField(
        choices=ReportRole.choices, help_text="Which side of the report the run was."
    )
    seed = serializers.IntegerField()
    error = serializers.CharField()


class LiftSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["disabled", "not_started", "running", "finished"])
    metric = serializers.CharField()
    seeds = serializers.ListField(child=serializers.IntegerField())
    baseline = SpreadSerializer(help_text="The study's preset with its fixed parameters.")
    best = SpreadSerializer(help_text="The best trial's parameters.")
    lift = serializers.FloatField(
        allow_null=True,
        help_text="best mean minus baseline mean (test MASE: lower is better, a negative lift is a gain)",
    )
    errors = LiftErrorSerializer(  # type: ignore[assignment]  # stub: Serializer.errors
        many=True, help_text="Report runs that failed."
    )


class StudyResultsSerializer(serializers.Serializer):
    best_trial = BestTrialSerializer(allow_null=True)
    history = HistoryPointSerializer(many=True)
    importances = serializers.DictField(
        child=serializers.FloatField(), help_text="PED-ANOVA importance per searched parameter (sums to 1)."
    )
    lift = LiftSerializer()


class PromoteSerializer(serializers.Serializer):
    trial = serializers.IntegerField(
        required=False, help_text="The trial's number; defaults to the best trial."
    )
