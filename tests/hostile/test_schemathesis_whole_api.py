"""schemathesis over every operation of the OpenAPI schema, through the WSGI application gunicorn
serves (the prediction fast path in front of Django), with real credentials and real objects: a
staff user's personal token, a deployment of a trained digits model and its key. Two in three
generated cases address existing objects (the workspace, dataset, sample, model version, deployment,
... of the caller), so the fuzzed bodies and queries reach the views' own code rather than a 404.
No case may answer 5xx. The run's size goes to $SAMPAN_TEST_ARTIFACTS/schemathesis-whole-api.json."""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest
import schemathesis
from config.wsgi import application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.datasets.factories import tenancy_objects
from tests.deploy.factories import deployment_with_key, model_version_from
from tests.harness import ARTIFACTS
from tests.test_tenancy import (
    backbone,
    labeling_task,
    model_version,
    own_assignment,
    package,
    study,
    training_job,
)

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
RUN = {"operations": set(), "cases": 0, "statuses": Counter(), "started": time.monotonic()}


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    summary = {
        "operations": len(RUN["operations"]),
        "cases": RUN["cases"],
        "seconds": round(time.monotonic() - RUN["started"], 1),
        "statuses": dict(sorted(RUN["statuses"].items())),
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "schemathesis-whole-api.json").write_text(json.dumps(summary, indent=2))
    print(f"\nschemathesis over the whole API: {summary}")


@pytest.fixture
def fuzz_world(db, tenants, trained_digits):
    """Objects of every kind in alice's workspace, alice (staff) with a token, a deployment of a
    real model with a key; requests keep the test's transaction (as Django's test client does)."""
    from accounts.services import api_token_create
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    world = tenants
    world["alice"].is_staff = True
    world["alice"].save(update_fields=["is_staff"])
    token = api_token_create(user=world["alice"], name="fuzz")
    objects = tenancy_objects(world)
    deployment, key, secret = deployment_with_key(world, model_version_from(world, trained_digits, number=2))
    ids = {
        "workspaces": world["ws_a"].pk,
        "members": world["carol_membership"].pk,
        "projects": world["project_a"].pk,
        "jobs": world["job_a"].pk,
        "training-jobs": training_job(world).pk,
        "tokens": token.token.pk,
        "users": world["bob"].pk,
        "datasets": objects["dataset"].pk,
        "labels": objects["label"].pk,
        "samples": objects["sample"].pk,
        "imports": objects["import"].pk,
        "versions": objects["version"].pk,
        "model-versions": model_version(world).pk,
        "backbones": backbone(world).pk,
        "studies": study(world).pk,
        "packages": package(world).pk,
        "deployments": deployment.pk,
        "keys": key.pk,
        "templates": "image_classification",
        "labeling-tasks": labeling_task(world).pk,
        "labeling-assignments": own_assignment(world).pk,
    }
    yield {"token": token.key, "deployment_key": secret, "ids": ids, "count": Counter()}
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
    from deploy.usage import recorder

    with recorder._lock:  # usage of this transaction's deployment must not be flushed after it
        recorder._minutes.clear()
        recorder._used_keys.clear()


def existing_ids(path: str, ids: dict) -> dict:
    """{parameter: id of an existing object} for a path such as /api/v1/datasets/{dataset_id}/labels/{id}/."""
    parts = path.strip("/").split("/")
    return {
        part[1:-1]: ids[parts[i - 1]]
        for i, part in enumerate(parts)
        if part.startswith("{") and parts[i - 1] in ids
    }


@schema.parametrize()
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors_with_real_credentials_and_objects(case, fuzz_world):
    operation = f"{case.operation.method.upper()} {case.operation.path}"  # case.method may be another (405s)
    fuzz_world["count"][operation] += 1
    if fuzz_world["count"][operation] % 3 and case.path_parameters:
        case.path_parameters = {
            **case.path_parameters,
            **existing_ids(case.operation.path, fuzz_world["ids"]),
        }
    secret = (
        fuzz_world["deployment_key"] if case.operation.path.endswith("/predict/") else fuzz_world["token"]
    )
    response = case.call(headers={"Authorization": f"Bearer {secret}"})
    RUN["operations"].add(operation)
    RUN["cases"] += 1
    RUN["statuses"][str(response.status_code)] += 1
    case.validate_response(response, checks=[not_a_server_error])
