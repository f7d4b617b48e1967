"""Tests: real PostgreSQL and Redis. Defaults match the services CI machines start; override with
DATABASE_URL / CELERY_BROKER_URL. Short heartbeat and stale intervals so fault tests run quickly."""

import os
import tempfile

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("SAMPAN_HOME", os.path.join(tempfile.gettempdir(), f"sampan-test-{os.getuid()}"))
os.environ.setdefault("SAMPAN_JOB_HEARTBEAT_SECONDS", "1")
os.environ.setdefault("SAMPAN_JOB_STALE_SECONDS", "4")
# No preloading thread in the test process or the session's live web process (it would load the
# models of every other test's deployments); tests/deploy/test_preload.py turns it on for its own.
os.environ.setdefault("SAMPAN_DEPLOY_PRELOAD", "false")
# Every test client comes from 127.0.0.1: brute-force limits that a whole suite run cannot reach
# (tests/hostile/test_http_brute_force.py sets low ones for its own processes).
for _name in (
    "SAMPAN_LOGIN_FAILURES_PER_ACCOUNT",
    "SAMPAN_LOGIN_FAILURES_PER_ADDRESS",
    "SAMPAN_AUTH_FAILURES_PER_ADDRESS",
):
    os.environ.setdefault(_name, "1000000")

from .base import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Live web processes of the tests serve static files (Swagger UI, admin) without a collectstatic run.
WHITENOISE_USE_FINDERS = True
