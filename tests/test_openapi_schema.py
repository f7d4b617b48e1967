"""The OpenAPI schema is the contract: it generates without warnings, the committed copy and the
generated TypeScript client are current, and fuzzing every operation finds no server error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import schemathesis
from config.wsgi import application
from django.core.management import call_command
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

REPO = Path(__file__).resolve().parents[1]
FRONTEND = REPO / "frontend"


def generate(tmp_path: Path) -> Path:
    out = tmp_path / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(out), "--validate", "--fail-on-warn")
    return out


def test_schema_generates_without_warnings(tmp_path):
    schema = json.loads(generate(tmp_path).read_text())
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/jobs/{id}/cancel/" in schema["paths"]
    assert "Error" in schema["components"]["schemas"]


def test_committed_schema_and_typescript_client_are_current(tmp_path):
    fresh = generate(tmp_path)
    committed = FRONTEND / "openapi.json"
    assert committed.read_text() == fresh.read_text(), "frontend/openapi.json is stale: run `make api-client`"
    generator = FRONTEND / "node_modules" / ".bin" / "openapi-typescript"
    assert generator.exists(), "frontend dependencies are missing: run `make frontend` (npm ci)"
    out = tmp_path / "schema.d.ts"
    subprocess.run([str(generator), str(fresh), "-o", str(out)], check=True,
                   capture_output=True, cwd=FRONTEND)
    committed_client = FRONTEND / "src" / "api" / "schema.d.ts"
    assert committed_client.read_text() == out.read_text(), "frontend/src/api/schema.d.ts is stale: run `make api-client`"


schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@pytest.fixture
def fuzz_auth(db, make_user, token_for):
    """A staff user's token, plus data for the generated ids to hit. Like Django's test client,
    keep the WSGI handler from closing the test transaction's connection between requests."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections
    from workspaces.services import project_create, workspace_create

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)

    user = make_user("fuzzer", is_staff=True)
    workspace = workspace_create(user=user, name="Fuzz")
    project_create(user=user, workspace=workspace, name="Fuzz project")
    yield {"Authorization": f"Bearer {token_for(user)}"}
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors_anywhere(case, fuzz_auth):
    response = case.call(headers=fuzz_auth)
    case.validate_response(response, checks=[not_a_server_error])
