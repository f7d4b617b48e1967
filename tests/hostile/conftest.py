"""tests/hostile: gunicorn started as `manage.py up` and the Docker image start it (with
platform/config/gunicorn.py), on the PostgreSQL test database or on a fresh embedded SQLite home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import live_env
from tests.hostile.live_gunicorn import embedded_env, manage, start_gunicorn


@pytest.fixture(scope="session")
def configured_web(django_db_setup, django_db_blocker) -> Iterator[str]:
    """gunicorn with Sampan's gunicorn.py on the PostgreSQL test database (Redis broker)."""
    web, url = start_gunicorn("web-configured", live_env())
    yield url
    web.stop()


@pytest.fixture(scope="module")
def sqlite_web(tmp_path_factory) -> Iterator[dict]:
    """Embedded defaults (SQLite, filesystem broker) in a fresh SAMPAN_HOME, migrated, with a staff user
    and their personal token: {"url", "token"}."""
    env = embedded_env(tmp_path_factory.mktemp("sampan-embedded"))
    manage(env, "migrate", "--verbosity", "0")
    token = manage(
        env,
        "shell",
        "-c",
        (
            "from accounts.models import User; from accounts.services import api_token_create; "
            "u = User.objects.create_user('hostile', password='hostile-password-1', is_staff=True); "
            "print('TOKEN=' + api_token_create(user=u, name='hostile').key)"
        ),
    )
    key = next(line[6:] for line in token.splitlines() if line.startswith("TOKEN="))
    web, url = start_gunicorn("web-sqlite", env)
    yield {"url": url, "token": key}
    web.stop()
