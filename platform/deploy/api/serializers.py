from __future__ import annotations

import typing

from accounts.models import User
from config.contracts import ContractJSONField, contract_serializer
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from jobs.api.serializers import MemberProjectField
from rest_framework import serializers
from training.selectors import model_version_forecast_contract, model_versions_for

from deploy.models import Deployment, DeploymentEvent, DeploymentKey, Package, PackageKind
from workers.contracts import deployments as deployment_contracts
from workers.contracts import packages as package_contracts
from workers.contracts import prediction
from workers.contracts.forecasting import ForecastContract


@extend_schema_field(OpenApiTypes.INT)
class MemberModelVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return model_versions_for(user=self.context["request"].user)


class DeploymentEventDetailsField(ContractJSONField):
    """What the entry changed: the traffic split and stickiness after it, or the capture policy."""

    contract_schema = contract_serializer(deployment_contracts.DeploymentEventDetails)


class DeploymentEventSerializer(serializers.ModelSerializer):
    model_version_name = serializers.SerializerMethodField()
    by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    details = DeploymentEventDetailsField(read_only=True, help_text=DeploymentEventDetailsField.__doc__)

    class Meta:
        model = DeploymentEvent
        fields = ["action", "model_version", "model_version_name", "at", "by", "details"]
        read_only_fields = fields

    def get_model_version_name(self, event) -> str | None:
        return event.model_version.name if event.model_version is not None else None


class DeploymentSerializer(serializers.ModelSerializer):
    model_version_name = serializers.CharField(source="model_version.name", read_only=True)
    template = serializers.CharField(source="model_version.template", read_only=True)
    predict_url = serializers.SerializerMethodField()
    history = DeploymentEventSerializer(source="events", many=True, read_only=True)
    traffic = serializers.SerializerMethodField(
        help_text="The split: the primary (100 - the canaries' weights), the canaries, the shadow "
        "(weight 0: it answers no request, it gets a copy of each)."
    )
    forecast_contract = serializers.SerializerMethodField(
        help_text="Forecasters: what a request must send (frequency, fewest history points, largest "
        "horizon, quantiles, covariates); null for other templates."
    )
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = Deployment
        fields = [
            "id",
            "workspace",
            "project",
            "name",
            "model_version",
            "model_version_name",
            "template",
            "previous_model_version",
            "status",
            "traffic",
            "sticky_traffic",
            "predict_url",
            "forecast_contract",
            "history",
            "created_at",
            "created_by",
            "updated_at",
        ]
        read_only_fields = fields

    def get_predict_url(self, deployment) -> str:
        return f"/api/v1/deployments/{deployment.pk}/predict/"

    @extend_schema_field(contract_serializer(ForecastContract)(allow_null=True))
    def get_forecast_contract(self, deployment) -> ForecastContract | None:
        return model_version_forecast_contract(deployment.model_version)

    @extend_schema_field(contract_serializer(deployment_contracts.TrafficEntry)(many=True))
    def get_traffic(self, deployment) -> list:
        from deploy.services import traffic_entries

        return traffic_entries(deployment, list(deployment.traffic.all()))


class DeploymentCreateSerializer(serializers.Serializer):
    project = MemberProjectField(required=False, help_text="Defaults to the model version's project.")
    model_version = MemberModelVersionField()
    name = serializers.CharField(max_length=200)


class DeploymentUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class DeploymentSwitchSerializer(serializers.Serializer):
    model_version = MemberModelVersionField(help_text="A model version of the deployment's project.")


class CanarySerializer(serializers.Serializer):
    model_version = MemberModelVersionField(help_text="A servable model version of the deployment's project.")
    weight = serializers.IntegerField(min_value=1, max_value=99, help_text="Percent of the requests.")


class DeploymentTrafficSerializer(serializers.Serializer):
    canaries = CanarySerializer(
        many=True,
        allow_empty=True,
        help_text="The canaries and their weights (sum at most 99); [] rolls the canaries back.",
    )
    sticky = serializers.BooleanField(
        required=False,
        help_text="Every request of one API key goes to the same version (unchanged when left out).",
    )


class DeploymentPromoteSerializer(serializers.Serializer):
    model_version = MemberModelVersionField(help_text="A canary of the deployment: it becomes the primary.")


class DeploymentShadowSerializer(serializers.Serializer):
    model_version = MemberModelVersionField(
        allow_null=True, help_text="The version to shadow the served ones; null removes the shadow."
    )


class AnswerBucketSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()
    count = serializers.IntegerField()


class LatencySerializer(serializers.Serializer):
    p50 = serializers.FloatField(allow_null=True)
    p95 = serializers.FloatField(allow_null=True)
    p99 = serializers.FloatField(allow_null=True)


class VersionSeriesPointSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    calls = serializers.IntegerField()
    errors = serializers.IntegerField()  # type: ignore[assignment]  # stub: Serializer.errors


class VersionUsageSerializer(serializers.Serializer):
    model_version = serializers.IntegerField()
    model_version_name = serializers.CharField()
    role = serializers.ChoiceField(
        choices=["primary", "canary", "shadow", "previous"],
        help_text="Its role now (previous: it answered in the window but serves no more).",
    )
    calls = serializers.IntegerField()
    errors = serializers.IntegerField()  # type: ignore[assignment]  # stub: Serializer.errors
    latency_ms = LatencySerializer()
    scores = AnswerBucketSerializer(
        many=True, help_text="The answers' top-1 scores (regression: values) in buckets."
    )
    series = VersionSeriesPointSerializer(many=True)


class ShadowAgreementSerializer(serializers.Serializer):
    window = serializers.ChoiceField(choices=["1h", "24h", "7d"])
    bucket_seconds = serializers.IntegerField()
    shadow_version = serializers.IntegerField(allow_null=True)
    shadow_version_name = serializers.CharField(allow_null=True)
    prediction_kind = serializers.CharField()
    compared = serializers.IntegerField()
    agreement = serializers.FloatField(
        allow_null=True, help_text="Share of instances with the same top-1 class (null: regression)."
    )
    mean_delta = serializers.FloatField(allow_null=True)
    errors = serializers.IntegerField()  # type: ignore[assignment]  # stub: Serializer.errors
    mean_latency_ms = serializers.FloatField(allow_null=True)
    points = contract_serializer(deployment_contracts.ShadowAgreementPoint)(many=True)
    deltas = AnswerBucketSerializer(many=True)


class DeploymentKeySerializer(serializers.ModelSerializer):
    status = serializers.SerializerMethodField()
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = DeploymentKey
        fields = [
            "id",
            "name",
            "prefix",
            "expires_at",
            "quota_per_minute",
            "status",
            "revoked_at",
            "last_used_at",
            "created_at",
            "created_by",
        ]
        read_only_fields = fields

    def get_status(self, key) -> str:
        if key.revoked_at is not None:
            return "revoked"
        if key.expires_at is not None and key.expires_at <= timezone.now():
            return "expired"
        return "active"


class DeploymentKeyCreatedSerializer(DeploymentKeySerializer):
    key = serializers.CharField(
        read_only=True, help_text="The key itself (spd_...): shown this once, never again."
    )

    class Meta(DeploymentKeySerializer.Meta):
        fields = [*DeploymentKeySerializer.Meta.fields, "key"]
        read_only_fields = fields


class DeploymentKeyCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    quota_per_minute = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=10_000_000,
        help_text="Calls per minute this key may make; 429 beyond.",
    )


class UsageFiguresSerializer(serializers.Serializer):
    calls = serializers.IntegerField()
    errors = serializers.IntegerField()  # type: ignore[assignment]  # stub: Serializer.errors
    p50_ms = serializers.FloatField(allow_null=True)
    p95_ms = serializers.FloatField(allow_null=True)
    p99_ms = serializers.FloatField(allow_null=True)


class UsagePointSerializer(UsageFiguresSerializer):
    t = serializers.DateTimeField(help_text="Start of the bucket.")


class DeploymentUsageSerializer(serializers.Serializer):
    window = serializers.ChoiceField(choices=["1h", "24h", "7d"])
    bucket_seconds = serializers.IntegerField()
    totals = UsageFiguresSerializer()
    series = UsagePointSerializer(many=True)
    by_version = VersionUsageSerializer(many=True, help_text="Per model version that answered.")


PACKAGE_REPORT = PolymorphicProxySerializer(
    component_name="PackageReport",
    serializers={
        "server": contract_serializer(package_contracts.ServerPackageReport),
        "device": contract_serializer(package_contracts.DeviceSdkReport),
    },
    resource_type_field_name="kind",
)


class PackageReportField(ContractJSONField):
    """The build's report by the package's kind; null until the package is built."""

    contract_schema = PACKAGE_REPORT

    def to_representation(self, value):
        return value or None


class PackageSerializer(serializers.ModelSerializer):
    model_version_name = serializers.CharField(source="model_version.name", read_only=True)
    report = PackageReportField(read_only=True, allow_null=True, help_text=PackageReportField.__doc__)
    status = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField()
    filename = serializers.SerializerMethodField()
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = Package
        fields = [
            "id",
            "workspace",
            "project",
            "model_version",
            "model_version_name",
            "kind",
            "status",
            "job",
            "size_bytes",
            "sha256",
            "report",
            "error",
            "download_url",
            "filename",
            "created_at",
            "built_at",
            "created_by",
        ]
        read_only_fields = fields

    def get_status(self, package) -> str:
        if package.blob_key:
            return "succeeded"
        if package.job is None:
            return "failed"
        return package.job.status

    def get_download_url(self, package) -> str | None:
        return f"/api/v1/packages/{package.pk}/download/" if package.blob_key else None

    def get_filename(self, package) -> str:
        return package_filename(package)


def package_filename(package: Package) -> str:
    kind = "server" if package.kind == PackageKind.SERVER else "device-sdk"
    return f"sampan-{kind}-project{package.project_id}-{package.model_version.name}.zip"


class PackageCreateSerializer(serializers.Serializer):
    model_version = MemberModelVersionField()
    kind = serializers.ChoiceField(choices=PackageKind.choices)


# The prediction protocol's contracts (workers.contracts.prediction): the answer bytes come from
# workers.serving.protocol on the hot path; these serializers only describe them in the schema.
PredictRequestSerializer = PolymorphicProxySerializer(
    component_name="PredictRequest",
    serializers=[
        contract_serializer(prediction.ImageInstances),
        contract_serializer(prediction.DetectionInstances),
        contract_serializer(prediction.TextInstances),
        contract_serializer(prediction.TableInstances),
        contract_serializer(prediction.ForecastInstances),
    ],
    resource_type_field_name=None,
)


class PredictMultipartSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="An image; repeat the part for a batch.")
    top_k = serializers.IntegerField(required=False, min_value=1, max_value=1000)
    score_threshold = serializers.FloatField(
        required=False, min_value=0, max_value=1, help_text="Detectors: the lowest score answered (0.3)."
    )
    max_detections = serializers.IntegerField(
        required=False, min_value=1, max_value=1000, help_text="Detectors: boxes per image at most (100)."
    )


class PredictResponseSerializer(serializers.Serializer):
    """The answer (``workers.contracts.prediction.PredictionAnswer``): one prediction per instance, in
    order. A classifier's ``top_k`` lists classes with scores, most likely first; a regression
    model's holds one ``{value}``; a detector's prediction holds the image's ``boxes`` (original
    pixels) and its ``width``/``height``; a forecaster's holds a series' future ``timestamps``, its
    ``mean`` and the requested ``quantiles``; ``kind`` says which."""

    kind = serializers.ChoiceField(
        choices=[(k, k) for k in typing.get_args(prediction.PredictionKind)],
        help_text=(
            "classification_prediction: top_k ranks classes; regression_prediction: top_k holds one value; "
            "detection_prediction: boxes with labels and scores; forecast_prediction: each series' future "
            "timestamps, mean and quantiles."
        ),
    )
    version = serializers.IntegerField()
    model_version = contract_serializer(prediction.PredictionModelVersion)()
    predictions = PolymorphicProxySerializer(
        component_name="Prediction",
        serializers=[
            contract_serializer(prediction.ClassificationPrediction),
            contract_serializer(prediction.RegressionPrediction),
            contract_serializer(prediction.DetectionPrediction),
            contract_serializer(prediction.ForecastPrediction),
        ],
        resource_type_field_name=None,
        many=True,
    )
    latency_ms = serializers.FloatField(help_text="Time spent in the server, decoding to answer.")
