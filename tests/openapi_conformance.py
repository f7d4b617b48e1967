"""Every answer checked against the OpenAPI schema the frontend's types are generated from.

In a test marked ``openapi_conformance`` (every test under tests/datasets carries it),
tests/conftest.py's ``api_client`` is a ``ConformingClients``: each request made through it is
matched to its documented operation, and the answer must be documented there — its status code,
its content type, and a JSON body that validates against that response's schema. Objects may not
carry undocumented properties (``additionalProperties: false`` is assumed wherever the schema lists
properties), so a field the server adds without documenting it fails too. A request the server
accepted (2xx) must itself be documented: its query parameters by name and a JSON body against the
operation's request schema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jsonschema import Draft4Validator
from rest_framework.test import APIClient

JSON = "application/json"


def _strict(node: Any) -> Any:
    """OpenAPI 3.0 schema objects as JSON Schema: ``nullable`` becomes a null alternative, and
    objects that list their properties allow no others."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _strict(value) for key, value in node.items()}
    if (
        "properties" in converted
        and "additionalProperties" not in converted
        and converted.get("type") == "object"
    ):
        converted["additionalProperties"] = False
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def openapi_schema() -> dict:
    """The schema as ``make api-client`` generates it from the code now."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated, renderer_context={}))


@cache
def _components() -> dict:
    return _strict(openapi_schema()["components"])


@cache
def _operations() -> list[tuple[re.Pattern, str, str]]:
    """(path regex, path template, method) for every documented operation, fixed paths first."""
    found = []
    for template, operations in openapi_schema()["paths"].items():
        regex = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")
        for method in operations:
            if method in {"get", "put", "post", "patch", "delete"}:
                found.append((regex, template, method))
    return sorted(found, key=lambda entry: entry[1].count("{"))


def operation_for(method: str, path: str) -> tuple[str, dict] | None:
    for regex, template, documented in _operations():
        if documented == method.lower() and regex.match(path):
            return template, openapi_schema()["paths"][template][documented]
    return None


def _validate(instance: Any, schema: dict, what: str) -> None:
    validator = Draft4Validator(
        {"components": _components(), "allOf": [_strict(schema)]},
        format_checker=Draft4Validator.FORMAT_CHECKER,
    )
    errors = sorted(validator.iter_errors(instance), key=lambda error: list(error.absolute_path))
    if errors:
        listed = "\n".join(
            f"  at {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:300]}"
            for error in errors[:10]
        )
        raise AssertionError(f"{what} does not match the OpenAPI schema:\n{listed}")


def _media_type_matches(documented: str, actual: str) -> bool:
    kind, _, subtype = documented.partition("/")
    actual_kind, _, actual_subtype = actual.partition("/")
    return kind in {"*", actual_kind} and subtype in {"*", actual_subtype}


@dataclass
class Call:
    method: str
    template: str
    status: int


@dataclass
class Conformance:
    """Checks answers and remembers which operations answered what."""

    calls: list[Call] = field(default_factory=list)

    def check(self, response, *, body: bytes | str, content_type: str | None) -> None:
        request = response.wsgi_request
        method, path = request.method, request.path_info
        found = operation_for(method, path)
        if found is None:
            assert response.status_code in {404, 405}, (
                f"{method} {path} answered {response.status_code} but is not documented in the OpenAPI schema"
            )
            return
        template, operation = found
        self.calls.append(Call(method, template, response.status_code))
        where = f"{method} {template} -> {response.status_code}"
        responses = operation["responses"]
        documented = responses.get(str(response.status_code)) or responses.get("default")
        assert documented is not None, (
            f"{where}: status {response.status_code} is not documented (documented: {sorted(responses)})"
        )
        content = documented.get("content")
        if not content:
            assert not getattr(response, "streaming", False) and not response.content, (
                f"{where}: documented without a body, but the answer has one: {response.content[:200]!r}"
            )
        else:
            actual = response.get("Content-Type", "").split(";")[0].strip()
            media = next((name for name in content if _media_type_matches(name, actual)), None)
            assert media is not None, (
                f"{where}: Content-Type {actual!r} is not documented ({sorted(content)})"
            )
            if media == JSON:
                _validate(json.loads(response.content), content[media]["schema"], f"{where}: the body")
        if 200 <= response.status_code < 300:
            self._check_accepted_request(operation, request, where, body=body, content_type=content_type)

    @staticmethod
    def _check_accepted_request(operation: dict, request, where: str, *, body, content_type) -> None:
        names = {param["name"] for param in operation.get("parameters", []) if param["in"] == "query"}
        undocumented = set(request.GET) - names
        assert not undocumented, f"{where}: accepted undocumented query parameters {sorted(undocumented)}"
        if body and (content_type or "").startswith(JSON):
            schemas = operation.get("requestBody", {}).get("content", {})
            assert JSON in schemas, f"{where}: accepted a JSON body, but no JSON request body is documented"
            _validate(json.loads(body), schemas[JSON]["schema"], f"{where}: the accepted request body")

    def answered(self, method: str, template: str) -> set[int]:
        return {call.status for call in self.calls if call.method == method and call.template == template}


class ConformingAPIClient(APIClient):
    def __init__(self, conformance: Conformance, **defaults) -> None:
        super().__init__(**defaults)
        self.conformance = conformance

    def generic(self, method, path, data="", content_type="application/octet-stream", secure=False, **extra):
        response = super().generic(method, path, data, content_type, secure=secure, **extra)
        self.conformance.check(response, body=data, content_type=content_type)
        return response


class ConformingClients:
    """``api_client(user)``: an API client logged in as ``user``; ``.conformance`` saw every answer."""

    def __init__(self) -> None:
        self.conformance = Conformance()

    def __call__(self, user=None) -> ConformingAPIClient:
        client = ConformingAPIClient(self.conformance)
        if user is not None:
            client.force_authenticate(user)
        return client
