"""tests/sdk: a `sampan.Client` against a live platform (gunicorn + a Celery worker on the test
PostgreSQL and Redis), alice's project through it, and a folder of real digits to upload."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sdk.live_platform import write_digits_folder


@pytest.fixture
def sdk(live_web, live_worker, tenants, token_for):
    """A ``sampan.Client`` for alice (owner of workspace A) with a personal API token."""
    import sampan

    return sampan.Client(live_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)


@pytest.fixture
def project(sdk, tenants):
    return sdk.projects.get(tenants["project_a"].pk)


@pytest.fixture
def digits_folder(tmp_path) -> Path:
    return write_digits_folder(tmp_path / "digits", per_class=8)
