"""gunicorn as `manage.py up` and the Docker image start it (with platform/config/gunicorn.py), for the
hostile HTTP tests: on the PostgreSQL test database, or on a fresh embedded SQLite home."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import MANAGE, REPO, LiveProcess, live_env, start_web


def start_gunicorn(name: str, env: dict[str, str]) -> tuple[LiveProcess, str]:
    return start_web(name, env)


@pytest.fixture(scope="session", name="configured_web")
def configured_web_fixture(django_db_setup, django_db_blocker) -> Iterator[str]:
    """gunicorn with Sampan's gunicorn.py on the PostgreSQL test database (Redis broker)."""
    web, url = start_gunicorn("web-configured", live_env())
    yield url
    web.stop()


def embedded_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env.update(SAMPAN_HOME=str(home), DJANGO_SETTINGS_MODULE="config.settings.local", PYTHONUNBUFFERED="1")
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(MANAGE), *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module", name="sqlite_web")
def sqlite_web_fixture(tmp_path_factory) -> Iterator[dict]:
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
