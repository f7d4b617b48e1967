"""50,000 nested arrays sent to any JSON endpoint (anonymous login, an ordinary API write, a hosted
prediction) through the live gunicorn are a 400 ``parse_error`` naming the nesting limit, never a
RecursionError 500, and nothing is stored. The same parser also serves views that list their own."""

from __future__ import annotations

import json

import pytest
import requests

from tests.deploy.factories import deployment_with_key, model_version_from

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

NESTED = b"[" * 50_000 + b"]" * 50_000
NESTED_OBJECTS = b'{"name": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}"


def assert_too_deep(response: requests.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.text[:300])
    assert response.headers["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "parse_error", error
    assert "nested deeper than 64" in error["message"], error
    assert error["details"] == {"max_depth": 64}


def test_anonymous_login_refuses_deep_nesting(live_web, make_user):
    make_user("nadia", password="right-password-123")
    session = requests.Session()
    csrf = session.get(f"{live_web}/api/v1/auth/csrf/", timeout=10).json()["csrf_token"]
    for body in (NESTED, NESTED_OBJECTS):
        response = session.post(
            f"{live_web}/api/v1/auth/login/",
            data=body,
            timeout=30,
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf, "Referer": live_web + "/"},
        )
        assert_too_deep(response)
    ok = session.post(
        f"{live_web}/api/v1/auth/login/",
        json={"username": "nadia", "password": "right-password-123"},
        headers={"X-CSRFToken": csrf, "Referer": live_web + "/"},
        timeout=10,
    )
    assert ok.status_code == 200, ok.text


def test_api_writes_refuse_deep_nesting_and_store_nothing(live_web, make_user, token_for):
    from jobs.models import Job
    from workspaces.models import Workspace

    headers = {"Authorization": f"Bearer {token_for(make_user('olga'))}", "Content-Type": "application/json"}
    for path in ("/api/v1/workspaces/", "/api/v1/jobs/"):
        for body in (NESTED, NESTED_OBJECTS):
            assert_too_deep(requests.post(live_web + path, data=body, headers=headers, timeout=30))
    assert not Workspace.objects.exists() and not Job.objects.exists()
    # a document at the limit is parsed (and judged by the serializer)
    at_limit = json.dumps({"name": "x", "description": "d", "extra": json.loads("[" * 62 + "]" * 62)})
    assert (
        requests.post(
            f"{live_web}/api/v1/workspaces/", data=at_limit, headers=headers, timeout=10
        ).status_code
        == 201
    )


def test_views_with_their_own_parsers_use_the_depth_limit():
    from config.parsers import JSONParser
    from datasets.api.views import ImportBatchViewSet
    from django.urls import get_resolver
    from rest_framework import parsers

    seen = set()

    def walk(patterns):
        for entry in patterns:
            if hasattr(entry, "url_patterns"):
                walk(entry.url_patterns)
                continue
            view = getattr(entry.callback, "cls", None)
            if view is not None and hasattr(view, "parser_classes"):
                for parser in view.parser_classes:
                    seen.add(view)
                    assert not (
                        issubclass(parser, parsers.JSONParser) and not issubclass(parser, JSONParser)
                    ), (
                        f"{view.__name__} parses JSON without the depth limit "
                        f"({parser.__module__}.{parser.__name__})"
                    )

    walk(get_resolver().url_patterns)
    assert ImportBatchViewSet in seen


def test_hosted_prediction_refuses_deep_nesting(live_web, tenants, trained_digits):
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"
    for body in (NESTED, b'{"instances": [{"image": ' + NESTED + b"}]}"):
        response = requests.post(
            url,
            data=body,
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
            timeout=30,
        )
        assert_too_deep(response)
