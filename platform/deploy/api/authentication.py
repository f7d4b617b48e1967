"""The deployment key scheme, as the OpenAPI schema describes it. The prediction view checks keys
itself (deploy.api.predict); this DRF class only names the scheme and never authenticates anyone."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication


class DeploymentKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        return None

    def authenticate_header(self, request):
        return 'Bearer realm="deployment"'


class DeploymentKeyScheme(OpenApiAuthenticationExtension):
    target_class = "deploy.api.authentication.DeploymentKeyAuthentication"
    name = "deploymentKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A key of this deployment (spd_...), also accepted in the X-Sampan-Key header.",
        }
