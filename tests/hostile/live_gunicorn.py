"""gunicorn as `manage.py up` and the Docker image start it (with platform/config/gunicorn.py), for the
hostile HTTP tests: on the PostgreSQL test database, or on a fresh embedded SQLite home (the fixtures
``configured_web`` and ``sqlite_web`` are in tests/hostile/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.harness import MANAGE, REPO, LiveProcess, start_web


def start_gunicorn(name: str, env: dict[str, str]) -> tuple[LiveProcess, str]:
    return start_web(name, env)


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
