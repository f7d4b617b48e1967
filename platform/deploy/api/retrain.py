"""``POST /deployments/{id}/retrain/``: retrain from the version a deployment serves (its primary),
warm-started from its weights (``training.services.model_version_retrain``)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from jobs.api.serializers import JobSerializer
from rest_framework.views import APIView
from training.api.serializers import RetrainSerializer
from training.api.views import retrain_response

from deploy import selectors


class DeploymentRetrainView(APIView):
    @extend_schema(
        request=RetrainSerializer,
        responses={201: JobSerializer},
        summary="Retrain from the deployed version: a training job warm-started from the primary's weights",
        description="As POST /model-versions/{id}/retrain/ of the deployment's primary version: its template "
        "and parameters (or `preset`, keeping its network) on `dataset_version` of the project.",
    )
    def post(self, request, pk: int):
        deployment = get_object_or_404(
            selectors.deployments_for(user=request.user).select_related("model_version"), pk=pk
        )
        return retrain_response(request, deployment.model_version)
