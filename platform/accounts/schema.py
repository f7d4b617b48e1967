"""OpenAPI descriptions of Sampan's authentication schemes (drf-spectacular extensions)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (spk_...) from the API tokens page.",
        }


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.SessionAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": (
                "Browser session from /api/v1/auth/login/; unsafe methods need the X-CSRFToken header."
            ),
        }
