"""Deeply nested JSON (50,000 nested arrays) sent to a prediction endpoint is a 400 ``parse_error``
naming the depth limit, never a RecursionError 500: through the live gunicorn (WSGI fast path), through
Django's own handler (the view), and in the protocol's ``loads_json`` the other JSON parsers reuse."""

from __future__ import annotations

import json

import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png
from tests.deploy.test_predict_fast_path import both
from workers.serving.protocol import DEFAULT_MAX_JSON_DEPTH, JSONNestingError, loads_json

NESTED = b"[" * 50_000 + b"]" * 50_000
NESTED_IN_INSTANCES = b'{"instances": [{"image": ' + b"[" * 50_000 + b"]" * 50_000 + b"}]}"
OBJECTS = b'{"a": ' * 50_000 + b"1" + b"}" * 50_000
UNCLOSED = b'{"instances": ' + b"[1, " * 50_000


def assert_depth_error(status: int, body: bytes) -> None:
    assert status == 400, (status, body[:300])
    error = json.loads(body)["error"]
    assert error["code"] == "parse_error"
    assert str(DEFAULT_MAX_JSON_DEPTH) in error["message"] and "nested deeper" in error["message"]
    assert error["details"] == {"max_depth": DEFAULT_MAX_JSON_DEPTH}


def test_loads_json_refuses_depth_past_the_limit_and_parses_the_rest():
    for document in (NESTED, OBJECTS, UNCLOSED, NESTED.decode()):
        with pytest.raises(JSONNestingError) as caught:
            loads_json(document)
        assert isinstance(caught.value, ValueError) and "64" in caught.value.message
    at_limit = "[" * 64 + "]" * 64
    assert loads_json(at_limit) == json.loads(at_limit)
    with pytest.raises(JSONNestingError):
        loads_json("[" * 65 + "]" * 65)
    assert loads_json("[" * 65 + "]" * 65, max_depth=65)
    # brackets inside strings (escaped quotes too) are text, not nesting
    text = json.dumps({"text": "[" * 500 + '\\"' + "{" * 500})
    assert loads_json(text) == json.loads(text)
    # wide is not deep: many siblings at depth 3
    wide = json.dumps({"instances": [{"x": [i]} for i in range(10_000)]})
    assert loads_json(wide.encode()) == json.loads(wide)
    with pytest.raises(json.JSONDecodeError):
        loads_json(b"{not json")


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_live_gunicorn_answers_400_parse_error(live_web, tenants, trained_digits):
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"
    headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}
    for body in (NESTED, NESTED_IN_INSTANCES, OBJECTS, UNCLOSED):
        response = requests.post(url, data=body, headers=headers, timeout=30)
        assert_depth_error(response.status_code, response.content)
    ok = requests.post(url, json={"instances": [{"image": b64(png(3))}]}, headers=headers, timeout=30)
    assert ok.status_code == 200 and len(ok.json()["predictions"]) == 1


@pytest.mark.integration
@pytest.mark.django_db
def test_fast_path_and_django_view_answer_the_same_400(tenants, trained_digits):
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    path = f"/api/v1/deployments/{deployment.pk}/predict/"
    for body in (NESTED, NESTED_IN_INSTANCES):
        fast, django, delegated = both(path=path, body=body, key=secret)
        assert not delegated
        for status, _headers, content in (fast, django):
            assert_depth_error(int(status.split()[0]), content)
