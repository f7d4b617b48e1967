"""Schemathesis over the prediction endpoint with a valid key of a real deployment of a trained
model: whatever the generated body, content type or query, the answer is never a server error and
always matches the documented schema's status codes."""

from __future__ import annotations

import pytest
import schemathesis
from config.wsgi import application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.deploy.factories import deployment_with_key, model_version_from

schema = schemathesis.openapi.from_wsgi("/api/schema/", application).include(path_regex=r"/predict/$")


@pytest.fixture
def deployed(db, tenants, trained_digits):
    """A deployment with a key; the WSGI handler keeps the test transaction's connection open."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    yield deployment, secret
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_prediction_endpoint_never_answers_a_server_error(case, deployed):
    deployment, secret = deployed
    case.path_parameters = {"id": deployment.pk}
    response = case.call(headers={"X-Sampan-Key": secret})
    case.validate_response(response, checks=[not_a_server_error])
    assert response.status_code in (200, 400, 405, 413, 415), (response.status_code, response.text[:300])
