from __future__ import annotations

from config.responses import SecretResponse
from django.core.files.storage import default_storage
from django.http import FileResponse, QueryDict
from django.shortcuts import get_object_or_404
from django.utils.datastructures import MultiValueDict
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import BaseParser, DataAndFiles
from rest_framework.response import Response
from rest_framework.views import APIView
from training.selectors import model_versions_for
from workspaces.permissions import WorkspaceRolePermission, require_role

from deploy import selectors, services
from deploy.api import try_it
from deploy.api.authentication import DeploymentKeyAuthentication
from deploy.api.predict import http_response, predict
from deploy.api.serializers import (
    DeploymentCreateSerializer,
    DeploymentKeyCreatedSerializer,
    DeploymentKeyCreateSerializer,
    DeploymentKeySerializer,
    DeploymentPromoteSerializer,
    DeploymentSerializer,
    DeploymentShadowSerializer,
    DeploymentSwitchSerializer,
    DeploymentTrafficSerializer,
    DeploymentUpdateSerializer,
    DeploymentUsageSerializer,
    PackageCreateSerializer,
    PackageSerializer,
    PredictMultipartSerializer,
    PredictRequestSerializer,
    PredictResponseSerializer,
    ShadowAgreementSerializer,
    package_filename,
)
from deploy.models import Deployment, DeploymentKey, DeploymentStatus, Package


class DeploymentFilter(filters.FilterSet):
    class Meta:
        model = Deployment
        fields = ["workspace", "project", "model_version", "status"]


@extend_schema_view(
    partial_update=extend_schema(request=DeploymentUpdateSerializer, summary="Rename a deployment")
)
class DeploymentViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Hosted prediction endpoints: each serves one model version, switchable and stoppable."""

    serializer_class = DeploymentSerializer
    queryset = Deployment.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = DeploymentFilter
    http_method_names = ["get", "post", "patch", "delete"]

    def get_queryset(self):
        return selectors.deployments_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    def _answer(self, deployment: Deployment, code: int = status.HTTP_200_OK) -> Response:
        fresh = self.get_queryset().get(pk=deployment.pk)
        return Response(DeploymentSerializer(fresh).data, status=code)

    def _change(self, request, serializer_class, change) -> Response:
        """An action that changes what the deployment serves: the body validated by
        ``serializer_class``, then ``change(deployment, validated data)``, then the deployment."""
        deployment = self.get_object()
        serializer = serializer_class(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        return self._answer(change(deployment, serializer.validated_data))

    @extend_schema(
        request=DeploymentCreateSerializer,
        responses={201: DeploymentSerializer},
        summary="Deploy a model version as a hosted prediction endpoint",
    )
    def create(self, request):
        serializer = DeploymentCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        model_version = data["model_version"]
        require_role(user=request.user, workspace_id=model_version.workspace_id, action="deploy models")
        deployment = services.deployment_create(
            user=request.user, model_version=model_version, name=data["name"], project=data.get("project")
        )
        return self._answer(deployment, status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        deployment = self.get_object()
        serializer = DeploymentUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return self._answer(
            services.deployment_rename(deployment=deployment, name=serializer.validated_data["name"])
        )

    def perform_destroy(self, instance):
        services.deployment_delete(deployment=instance)

    @extend_schema(
        request=DeploymentSwitchSerializer,
        responses=DeploymentSerializer,
        summary="Serve another model version (requests in flight finish on the old one)",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def switch(self, request, pk=None):
        return self._change(
            request,
            DeploymentSwitchSerializer,
            lambda deployment, data: services.deployment_switch(
                user=request.user, deployment=deployment, model_version=data["model_version"]
            ),
        )

    @extend_schema(
        request=DeploymentTrafficSerializer,
        responses=DeploymentSerializer,
        summary="Split the traffic: canaries answer their weight (percent), the primary the rest",
        description="Each canary: a servable model version of the project with the primary's template, "
        "not the primary, not the shadow, listed once, weight 1-99; the weights add up to at most 99. "
        "`canaries: []` rolls the canaries back. `sticky`: each API key stays on one version. "
        "400 `canary_invalid` / `canary_weights_too_high` name the field.",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def traffic(self, request, pk=None):
        return self._change(
            request,
            DeploymentTrafficSerializer,
            lambda deployment, data: services.deployment_set_traffic(
                user=request.user,
                deployment=deployment,
                canaries=[(c["model_version"], c["weight"]) for c in data["canaries"]],
                sticky=data.get("sticky"),
            ),
        )

    @extend_schema(
        request=DeploymentPromoteSerializer,
        responses=DeploymentSerializer,
        summary="Promote a canary: it becomes the primary, every canary is removed",
        description="400 `not_a_canary` when the version is not a canary of this deployment. The old "
        "primary becomes the previous version (rollback serves it again).",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def promote(self, request, pk=None):
        return self._change(
            request,
            DeploymentPromoteSerializer,
            lambda deployment, data: services.deployment_promote(
                user=request.user, deployment=deployment, model_version=data["model_version"]
            ),
        )

    @extend_schema(
        request=DeploymentShadowSerializer,
        responses=DeploymentSerializer,
        summary="Set (or remove, null) the shadow: a copy of every request, compared, never returned",
        description="The shadow: a servable model version of the project with the primary's template, "
        "neither the primary nor a canary (400 `shadow_invalid`).",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def shadow(self, request, pk=None):
        return self._change(
            request,
            DeploymentShadowSerializer,
            lambda deployment, data: services.deployment_set_shadow(
                user=request.user, deployment=deployment, model_version=data["model_version"]
            ),
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "window",
                OpenApiTypes.STR,
                enum=list(selectors.WINDOWS),
                description="1h (per minute, default), 24h (per hour) or 7d (per 6 hours)",
            )
        ],
        responses=ShadowAgreementSerializer,
        summary="How the shadow's answers compare with the served ones",
    )
    @action(detail=True, methods=["get"], filter_backends=[], url_path="shadow-agreement")
    def shadow_agreement(self, request, pk=None):
        deployment = self.get_object()
        window = request.query_params.get("window", "1h")
        if window not in selectors.WINDOWS:
            raise ValidationError({"window": [f"Choose one of {', '.join(selectors.WINDOWS)}."]})
        return Response(selectors.shadow_agreement(deployment=deployment, window=window))

    @extend_schema(
        request=None, responses=DeploymentSerializer, summary="Serve the previous model version again"
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def rollback(self, request, pk=None):
        return self._answer(services.deployment_rollback(user=request.user, deployment=self.get_object()))

    @extend_schema(
        request=None, responses=DeploymentSerializer, summary="Stop serving (predictions answer 409)"
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def stop(self, request, pk=None):
        return self._answer(
            services.deployment_set_status(
                user=request.user, deployment=self.get_object(), status=DeploymentStatus.STOPPED
            )
        )

    @extend_schema(request=None, responses=DeploymentSerializer, summary="Serve again after a stop")
    @action(detail=True, methods=["post"], filter_backends=[])
    def start(self, request, pk=None):
        return self._answer(
            services.deployment_set_status(
                user=request.user, deployment=self.get_object(), status=DeploymentStatus.ACTIVE
            )
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "window",
                OpenApiTypes.STR,
                enum=list(selectors.WINDOWS),
                description="1h (per minute), 24h (per hour, default) or 7d (per 6 hours)",
            )
        ],
        responses=DeploymentUsageSerializer,
        summary="Calls, errors and latency percentiles",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def usage(self, request, pk=None):
        deployment = self.get_object()
        window = request.query_params.get("window", "24h")
        if window not in selectors.WINDOWS:
            raise ValidationError({"window": [f"Choose one of {', '.join(selectors.WINDOWS)}."]})
        return Response(selectors.deployment_usage(deployment=deployment, window=window))


class DeploymentKeyViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """API keys of one deployment: the key is answered once at creation; DELETE revokes it."""

    serializer_class = DeploymentKeySerializer
    pagination_class = None

    def deployment(self) -> Deployment:
        if not hasattr(self, "_deployment"):
            self._deployment = get_object_or_404(
                selectors.deployment_rows_for(user=self.request.user), pk=self.kwargs["deployment_id"]
            )
            if self.request.method not in ("GET", "HEAD", "OPTIONS"):
                require_role(
                    user=self.request.user,
                    workspace_id=self._deployment.workspace_id,
                    action="manage deployment keys",
                )
        return self._deployment

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no request user
            return DeploymentKey.objects.none()
        return selectors.deployment_keys_of(deployment=self.deployment())

    @extend_schema(
        request=DeploymentKeyCreateSerializer,
        responses={201: DeploymentKeyCreatedSerializer},
        summary="Create an API key (the answer holds the key: shown once)",
    )
    def create(self, request, deployment_id=None):
        deployment = self.deployment()
        serializer = DeploymentKeyCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        key, secret = services.deployment_key_create(
            user=request.user, deployment=deployment, **serializer.validated_data
        )
        data = DeploymentKeyCreatedSerializer(key).data
        data["key"] = secret
        return SecretResponse(data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None}, summary="Revoke a key (refused from the next request on)")
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        services.deployment_key_revoke(key=instance)


class PackageFilter(filters.FilterSet):
    class Meta:
        model = Package
        fields = ["workspace", "project", "model_version", "kind"]


class PackageViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """On-prem server packages and device SDKs of model versions, built by jobs, downloadable."""

    serializer_class = PackageSerializer
    queryset = Package.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = PackageFilter

    def get_queryset(self):
        return selectors.packages_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=PackageCreateSerializer,
        responses={201: PackageSerializer},
        summary="Build an on-prem server package or a device SDK (a deploy.build_package job)",
    )
    def create(self, request):
        serializer = PackageCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        model_version = serializer.validated_data["model_version"]
        require_role(user=request.user, workspace_id=model_version.workspace_id, action="build packages")
        package = services.package_create(
            user=request.user, model_version=model_version, kind=serializer.validated_data["kind"]
        )
        return Response(
            PackageSerializer(self.get_queryset().get(pk=package.pk)).data, status=status.HTTP_201_CREATED
        )

    def perform_destroy(self, instance):
        services.package_delete(package=instance)

    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            409: OpenApiResponse(description="not built (yet)"),
        },
        summary="Download the archive (zip)",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def download(self, request, pk=None):
        package = self.get_object()
        if not package.blob_key:
            raise services.DeployConflict(
                "This package is not built yet; download it when its status is succeeded.",
                code="package_not_ready",
            )
        if not default_storage.exists(package.blob_key):
            raise NotFound("The archive of this package is missing from storage.")
        return FileResponse(
            default_storage.open(package.blob_key, "rb"),
            as_attachment=True,
            filename=package_filename(package),
            content_type="application/zip",
        )


PREDICT_DESCRIPTION = """Authenticated only by a key of this deployment: `Authorization: Bearer spd_...` or
`X-Sampan-Key: spd_...`. Send JSON `{"instances": [{"image": "<base64>"}], "top_k": 5}` (or
`{"image": "<base64>"}`), multipart/form-data with `file` parts, or a raw image body (`image/*`,
top_k from `?top_k=`). Text models take `{"instances": [{"text": "..."}]}`.

Tabular models take rows with the original column names, `{"instances": [{"<column>": value, ...}]}`,
held to the model's contract: a column the model does not know (400 `unknown_column`, with a
did-you-mean) and a value of the wrong type, such as `"abc"` or a list in a numeric column (400
`invalid_value`), are refused naming the column; the target column, if sent, is ignored. A missing
value (the column absent, `null`, `NaN`, `""` or a marker such as `"NA"`) is imputed only in a column
whose training data had missing values (numeric and date columns: the training median plus the
model's missing flag; categorical: no category); in any other column it is a 400 `missing_column`.
Each tabular prediction lists the columns it imputed in `imputed` (the model version's
`preprocessing.features` say which may be: `indicator` for numeric/date, `missing` for categorical).

Detectors (template `object_detection`) take images as above plus `score_threshold` (0 to 1, default
0.3) and `max_detections` (1 to 1000, default 100) as JSON fields, multipart fields or query
parameters (400 `invalid_score_threshold` / `invalid_max_detections` naming the field); `top_k` is
ignored. They answer `kind` `detection_prediction`: per image its `width`, `height` and `boxes`
(`label`, `index`, `score`, `x`, `y`, `width`, `height` in the original image's pixels), by
descending score.

Forecasters (template `time_series_forecasting`) take JSON only: `{"instances": [{"id": "store-7",
"timestamps": ["2024-01-01", ...], "values": [12.0, ...], "known": {"<covariate>": [...]},
"static": {"<covariate>": "..."}}], "horizon": 7, "quantiles": [0.1, 0.9]}`: each series' recent
history, regular at the model's frequency, oldest first, at least the model's `min_history` points;
known covariates over the history and the horizon; `horizon` from 1 to the model's (default the
model's), `quantiles` among the model's (default its interval's two). The deployment's
`forecast_contract` says what the model takes. A history it cannot take is a 400 naming the series
(`details.series`: its index, `details.id`) and the position (`details.position` in
`details.field`): `history_not_numeric`, `history_gap`, `wrong_frequency`, `history_too_short`,
`invalid_history`, `missing_covariate`, `unknown_covariate`, `covariate_length`,
`horizon_out_of_range`, `unknown_quantile`. They answer `kind` `forecast_prediction`: per series its
`id`, the future `timestamps`, the point forecast `mean` and each requested quantile's values
(`quantiles`, keyed by the level as written: `"0.1"`). Batch prediction, shadow releases and request
capture are not available for forecasters (400 `template_not_supported`).

Errors: 400 bad input (JSON nested deeper than 64 levels: `parse_error`), 401
missing/invalid/revoked/expired key, 403 a key of another deployment, 409 deployment stopped, 413
body/batch/image too large, 415 content type, 422 the model cannot run on the input (ONNX Runtime
refused its shape or type; the message says why), 429 over the key's quota (Retry-After), 503 model
unavailable (Retry-After)."""


TOO_MANY_TRIES = "too many tries by this user this minute; see Retry-After"


def _prediction_schema(operation_id: str, summary: str, description: str, extra: dict, too_many: str):
    """The OpenAPI description of a prediction route: the hosted endpoint and the try routes share it."""
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        parameters=[
            OpenApiParameter(
                "top_k",
                OpenApiTypes.INT,
                required=False,
                description="For raw image bodies: how many classes to answer.",
            ),
            OpenApiParameter(
                "score_threshold",
                OpenApiTypes.FLOAT,
                required=False,
                description="Detectors: the lowest score of a box answered, 0 to 1 (default 0.3; "
                "a value in the body wins).",
            ),
            OpenApiParameter(
                "max_detections",
                OpenApiTypes.INT,
                required=False,
                description="Detectors: boxes per image at most, 1 to 1000 (default 100; a value in "
                "the body wins).",
            ),
        ],
        request={
            "application/json": PredictRequestSerializer,
            "multipart/form-data": PredictMultipartSerializer,
            "image/*": OpenApiTypes.BINARY,
        },
        responses={
            200: PredictResponseSerializer,
            **extra,
            413: OpenApiResponse(description="body, batch or image too large"),
            415: OpenApiResponse(description="unsupported content type"),
            422: OpenApiResponse(description="the model cannot run on the input (ONNX Runtime refused it)"),
            429: OpenApiResponse(description=too_many),
            503: OpenApiResponse(description="the model cannot be loaded"),
        },
    )


class DeploymentPredictView(APIView):
    """The hosted prediction endpoint. Requests skip DRF entirely (``dispatch`` hands them to the
    plain Django view ``deploy.api.predict.predict``); this class exists so the endpoint is in the
    OpenAPI schema."""

    authentication_classes = [DeploymentKeyAuthentication]
    permission_classes: list = []

    def dispatch(self, request, *args, **kwargs):
        return predict(request, int(kwargs["pk"]))

    @_prediction_schema(
        "deployments_predict",
        "Predict with the deployment's model version",
        PREDICT_DESCRIPTION,
        {409: OpenApiResponse(description="the deployment is stopped")},
        too_many="over the key's quota; see Retry-After",
    )
    def post(self, request, pk: int):
        return predict(request._request, int(pk))


TRY_DESCRIPTION = """Signed in (session or API token), no deployment key: any member of the workspace,
viewers included, may try. The request and the answer are the hosted prediction endpoint's
(`deployments_predict`): JSON instances (`{"instances": [{"image": "<base64>"}], "top_k": 5}`, texts
as `{"text": ...}`, table rows by column name), multipart/form-data with `file` parts, or a raw
image body; the same parser, limits, error codes and ONNX Runtime predictor, so the answer is the one
a deployment of this model version gives. A batch holds at most SAMPAN_TRY_MAX_BATCH (10) instances.

Errors: 400 bad input, 404 not found or not yours, 413 body/batch/image too large, 415 content type,
422 the model cannot run on the input, 429 over SAMPAN_TRY_PER_MINUTE (60) tries per user per minute
(Retry-After), 503 model unavailable (Retry-After)."""


class _UnparsedBody(BaseParser):
    """Any content type, parsed as nothing: the body is the prediction parser's (deploy.api.try_it).
    DRF's CSRF check reads ``request.POST``, which would otherwise refuse a body no parser takes."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        return DataAndFiles(QueryDict(""), MultiValueDict())


class _TryView(APIView):
    """Answers with ``deploy.api.try_it``; DRF authenticates and checks CSRF, never parses the body."""

    parser_classes = [_UnparsedBody]

    def initialize_request(self, request, *args, **kwargs):
        try_it.read_body_first(request)
        return super().initialize_request(request, *args, **kwargs)


class ModelVersionTryView(_TryView):
    """Try a model version without deploying it (EasyDL's 校验模型)."""

    @_prediction_schema(
        "model_versions_try",
        "Try a model version: predict without a deployment or a key",
        TRY_DESCRIPTION + "\n\nNothing is recorded in any deployment's usage.",
        {409: OpenApiResponse(description="the model version has no ONNX file")},
        too_many=TOO_MANY_TRIES,
    )
    def post(self, request, pk: int):
        version = get_object_or_404(model_versions_for(user=request.user), pk=pk)
        answer = try_it.try_model_version(
            version,
            user_id=request.user.pk,
            meta=request.META,
            read_body=lambda: request._request.body,
            top_k=request.query_params.get("top_k"),
        )
        return http_response(answer)


class DeploymentTryView(_TryView):
    """The deployment's Try it in the browser: its current model version, no key."""

    @_prediction_schema(
        "deployments_try",
        "Try a deployment signed in: its current model version answers, no key needed",
        TRY_DESCRIPTION
        + "\n\nAnswered by the model version the deployment serves now, as its traffic split picks it "
        "(a canary answers its share; the shadow gets a copy) (409 `deployment_stopped` when it is "
        "stopped); the call counts in the deployment's usage as a call without a key.",
        {409: OpenApiResponse(description="the deployment is stopped")},
        too_many=TOO_MANY_TRIES,
    )
    def post(self, request, pk: int):
        deployment = get_object_or_404(selectors.deployments_for(user=request.user), pk=pk)
        answer = try_it.try_deployment(
            deployment.pk,
            user_id=request.user.pk,
            meta=request.META,
            read_body=lambda: request._request.body,
            top_k=request.query_params.get("top_k"),
        )
        return http_response(answer)
