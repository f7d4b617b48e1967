"""The OpenAPI schema is the contract: it generates without warnings, the committed copy and the
generated TypeScript client are current. tests/hostile/test_schemathesis_whole_api.py fuzzes every
operation against it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from django.core.management import call_command

REPO = Path(__file__).resolve().parents[1]
FRONTEND = REPO / "frontend"


def generate(tmp_path: Path) -> Path:
    out = tmp_path / "openapi.json"
    call_command(
        "spectacular", "--format", "openapi-json", "--file", str(out), "--validate", "--fail-on-warn"
    )
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
    subprocess.run(
        [str(generator), str(fresh), "-o", str(out)], check=True, capture_output=True, cwd=FRONTEND
    )
    committed_client = FRONTEND / "src" / "api" / "schema.d.ts"
    assert committed_client.read_text() == out.read_text(), (
        "frontend/src/api/schema.d.ts is stale: run `make api-client`"
    )


# Fuzzing every operation (schemathesis, real token, real deployment key, real objects):
# tests/hostile/test_schemathesis_whole_api.py
