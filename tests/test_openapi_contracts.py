"""Where a contract exists, the OpenAPI schema says it (DESIGN §10, issue 13): no answer of the API
carries a free-form object.

Every GET and POST response under /api/v1/ (what the frontend and the SDK read) is walked through
its references. A node is free-form when it is an object whose values are not typed
(``additionalProperties: {}`` or ``true``, or ``type: object`` with neither properties nor typed
values), or a schema that says nothing of its type (no ``type``, ``$ref``, ``oneOf``/``allOf``/
``anyOf`` or ``enum``: what a bare JSONField gives). Each is named ``Component.property`` (nested
inline objects add their property names, ``[]`` an array's items, ``{}`` a map's values).

A map keyed by the user's own names (a table row's cells by column, the counts per label) is fine
with typed values: it is not free-form here. What is left free-form on purpose is in ``ALLOWED``
with the reason; what another part of issue 13 still has to type is in ``PENDING``, which may only
shrink: the test fails when an entry of it is typed already (take it out).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.management import call_command

# Free-form on purpose, with the reason.
ALLOWED: dict[str, str] = {
    "Error.error.details": "an error's details are what its code names (a field's messages, a limit's "
    "figures, the conflicting label's id); the stable part of the answer is the code and the message",
}

# typed by another part of issue 13; must be empty when the issue closes
PENDING: set[str] = set()

COMPOSITIONS = ("oneOf", "allOf", "anyOf")


def free_form(node: dict[str, Any]) -> bool:
    if node.get("additionalProperties") in ({}, True):
        return True
    if not any(key in node for key in ("type", "$ref", "enum", *COMPOSITIONS)):
        return True
    return node.get("type") == "object" and "properties" not in node and "additionalProperties" not in node


class Walk:
    """The free-form nodes reachable from the responses, by name."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.components = schema["components"]["schemas"]
        self.seen: set[str] = set()
        self.found: dict[str, set[str]] = {}  # name -> the operations it was reached from

    def node(self, node: Any, where: str, operation: str) -> None:
        if isinstance(node, list):
            for item in node:
                self.node(item, where, operation)
            return
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if (name, operation) not in self.seen:
                self.seen.add((name, operation))
                self.node(self.components[name], name, operation)
            return
        if free_form(node):
            self.found.setdefault(where, set()).add(operation)
        for key in COMPOSITIONS:
            self.node(node.get(key), where, operation)
        if "items" in node:
            self.node(node["items"], f"{where}[]", operation)
        values = node.get("additionalProperties")
        if isinstance(values, dict) and values:
            self.node(values, f"{where}{{}}", operation)
        for name, value in (node.get("properties") or {}).items():
            self.node(value, f"{where}.{name}", operation)


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("openapi") / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(out))
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def free(schema) -> dict[str, set[str]]:
    walk = Walk(schema)
    operations = 0
    for path, methods in schema["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, operation in methods.items():
            if method not in ("get", "post"):
                continue
            operations += 1
            name = f"{method.upper()} {path}"
            for status, response in (operation.get("responses") or {}).items():
                for content in (response.get("content") or {}).values():
                    if "schema" in content:
                        walk.node(content["schema"], f"{name} {status}", name)
    assert operations > 50, "the walk found too few operations: is the schema generated?"
    return walk.found


def test_no_answer_carries_a_free_form_object_where_a_contract_exists(free):
    untyped = {
        name: sorted(ops)[:3] for name, ops in free.items() if name not in ALLOWED and name not in PENDING
    }
    assert not untyped, (
        "free-form objects in answers (type them with config.contracts.contract_serializer, or say why "
        f"in ALLOWED): {json.dumps(untyped, indent=1)}"
    )


def test_pending_only_lists_what_is_still_free_form(free):
    typed = sorted(PENDING - free.keys())
    assert not typed, f"typed now: take {typed} out of PENDING"
    assert not (PENDING & ALLOWED.keys())


def test_allowed_only_lists_what_is_still_free_form(free):
    assert not sorted(ALLOWED.keys() - free.keys()), "typed now: take it out of ALLOWED"


@pytest.mark.parametrize(
    ("component", "prop", "target"),
    [
        (
            "ModelVersionEvaluation",
            "evaluation",
            {"ClassificationReport", "RegressionReport", "DetectionReport", "ForecastReport"},
        ),
        ("JobEvent", "data", {"ProgressEvent", "JobStatusData", "JobLogData"}),
    ],
)
def test_unions_switch_on_kind(schema, component, prop, target):
    """A union of contracts is inlined with its discriminator (an ``allOf`` around a reference would
    make openapi-typescript drop ``kind`` from the union's members)."""
    node = schema["components"]["schemas"][component]["properties"][prop]
    assert node["discriminator"]["propertyName"] == "kind"
    assert {ref["$ref"].rsplit("/", 1)[-1] for ref in node["oneOf"]} == target


def test_the_walk_finds_a_free_form_object():
    walk = Walk(
        {
            "components": {
                "schemas": {
                    "A": {
                        "type": "object",
                        "properties": {
                            "loose": {"type": "object", "additionalProperties": {}},
                            "bare": {"readOnly": True},
                            "typed": {"type": "object", "additionalProperties": {"type": "number"}},
                            "rows": {"type": "array", "items": {"$ref": "#/components/schemas/B"}},
                        },
                    },
                    "B": {"type": "object", "properties": {"cells": {"type": "object"}}},
                }
            }
        }
    )
    walk.node({"$ref": "#/components/schemas/A"}, "GET /x/ 200", "GET /x/")
    assert set(walk.found) == {"A.loose", "A.bare", "B.cells"}
