"""Configuration comes only from environment variables; a malformed one stops start-up with a
message naming it; production settings pass Django's deployment checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MANAGE = str(REPO / "platform" / "manage.py")
PROD_SECRET = "x7!qZ-k9" * 8


def manage(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "CELERY_BROKER_URL", "SAMPAN_", "DJANGO_"))
    }
    base.update(
        {"SAMPAN_HOME": str(tmp_path / "home"), "DJANGO_SETTINGS_MODULE": "config.settings.local", **env}
    )
    return subprocess.run(
        [sys.executable, MANAGE, *args], env=base, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("DATABASE_URL", "mysql://db/sampan", "unsupported scheme"),
        ("DATABASE_URL", "postgres://user@host:port/db", "port is not a number"),
        ("DATABASE_URL", "postgres://user@host:5432/", "no database name"),
        ("CELERY_BROKER_URL", "ftp://broker", "unsupported scheme"),
        ("CELERY_BROKER_URL", "redis://localhost:6379/zero", "must be a number"),
        ("SAMPAN_PORT", "eighty", "expected an integer"),
        ("SAMPAN_PORT", "70000", "at most 65535"),
        ("SAMPAN_SECURE_COOKIES", "maybe", "expected true/false"),
        ("SAMPAN_JOB_STALE_SECONDS", "2", "at least 3"),
        ("SAMPAN_LOG_LEVEL", "LOUD", "expected one of"),
        ("SAMPAN_DEPLOY_MAX_BATCH", "0", "at least 1"),
        ("SAMPAN_DEPLOY_MAX_BATCH", "many", "expected an integer"),
        ("SAMPAN_DEPLOY_MAX_BODY_BYTES", str(10 * 1024 * 1024 + 1), "at most 10485760"),
        ("SAMPAN_DEPLOY_MAX_LOADED_MODELS", "0", "at least 1"),
        ("SAMPAN_DEPLOY_SHADOW_QUEUE", "0", "at least 1"),
        ("SAMPAN_DEPLOY_PRELOAD", "sometimes", "expected true/false"),
        ("SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS", "0", "at least 1"),
        ("SAMPAN_TRY_PER_MINUTE", "-1", "at least 0"),
        ("SAMPAN_STORAGE_URL", "ftp://files/blobs", "unsupported scheme"),
        ("SAMPAN_STORAGE_URL", "s3:///prefix", "no bucket"),
        ("SAMPAN_STORAGE_URL", "s3://bucket?endpoint_url=minio:9000", "endpoint_url must be an http(s) URL"),
        ("SAMPAN_STORAGE_URL", "s3://bucket?colour=blue", "unknown option"),
        ("SAMPAN_UMASK", "rw-r--r--", "must be an octal number"),
        ("SAMPAN_NOTEBOOK_PORTS", "8800:8819", "expected a port range"),
        ("SAMPAN_NOTEBOOK_PORTS", "8819-8800", "the first no larger than the last"),
        ("SAMPAN_UMASK", "1777", "between 000 and 777"),
        ("SAMPAN_CUSTOM_JOB_MEMORY_MB", "12", "at least 64"),
        ("SAMPAN_CUSTOM_JOB_NETWORK", "perhaps", "expected true/false"),
        ("SAMPAN_CHECKPOINT_MIRROR_SECONDS", "often", "expected a number"),
        ("SAMPAN_CHECKPOINT_MIRROR_SECONDS", "0", "at least 0.05"),
        ("SAMPAN_CHECKPOINT_MIRROR_SECONDS", "nan", "at least 0.05"),
    ],
)
def test_malformed_variable_stops_startup_naming_it(variable, value, says, tmp_path):
    result = manage("check", tmp_path=tmp_path, **{variable: value})
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"environment variable {variable}:" in result.stderr and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_sampan_home_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("")
    result = manage("check", tmp_path=tmp_path, SAMPAN_HOME=str(tmp_path / "file"))
    assert result.returncode == 2 and "SAMPAN_HOME" in result.stderr


def test_production_requires_secret_and_hosts(tmp_path):
    no_secret = manage(
        "check",
        tmp_path=tmp_path,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_ALLOWED_HOSTS="sampan.example.com",
    )
    assert no_secret.returncode == 2 and "DJANGO_SECRET_KEY" in no_secret.stderr
    weak = manage(
        "check",
        tmp_path=tmp_path,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="short",
        DJANGO_ALLOWED_HOSTS="sampan.example.com",
    )
    assert weak.returncode == 2 and "at least 50 characters" in weak.stderr
    no_hosts = manage(
        "check",
        tmp_path=tmp_path,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=PROD_SECRET,
    )
    assert no_hosts.returncode == 2 and "DJANGO_ALLOWED_HOSTS" in no_hosts.stderr


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        tmp_path=tmp_path,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=PROD_SECRET,
        DJANGO_ALLOWED_HOSTS="sampan.example.com",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/15",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_never_creates_an_admin_with_a_default_password(tmp_path):
    env = dict(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=PROD_SECRET,
        DJANGO_ALLOWED_HOSTS="sampan.example.com",
        DATABASE_URL=f"sqlite:///{tmp_path}/prod.sqlite3",
    )
    assert manage("migrate", "--noinput", tmp_path=tmp_path, **env).returncode == 0
    refused = manage("ensure_admin", tmp_path=tmp_path, **env)
    assert refused.returncode != 0 and "SAMPAN_ADMIN_PASSWORD" in refused.stderr
    created = manage("ensure_admin", tmp_path=tmp_path, SAMPAN_ADMIN_PASSWORD="a-real-passphrase-42", **env)
    assert created.returncode == 0 and "a-real-passphrase-42" not in created.stdout
    assert not (tmp_path / "home" / "initial-admin.txt").exists()


def test_deploy_limits_come_from_the_environment(tmp_path):
    script = (
        "from deploy import serving, warm; "
        "print('LIMITS', serving.max_batch(), serving.max_body_bytes(), serving.try_max_batch(), "
        "serving.try_per_minute(), warm.preload_enabled())"
    )
    result = manage(
        "shell",
        "-c",
        script,
        tmp_path=tmp_path,
        SAMPAN_DEPLOY_MAX_BATCH="4",
        SAMPAN_DEPLOY_MAX_BODY_BYTES="65536",
        SAMPAN_TRY_MAX_BATCH="9",
        SAMPAN_TRY_PER_MINUTE="0",
        SAMPAN_DEPLOY_PRELOAD="false",
    )
    assert result.returncode == 0, result.stderr
    # the try routes never take more instances than the API
    line = next(line for line in result.stdout.splitlines() if line.startswith("LIMITS "))
    assert line.split()[1:] == ["4", "65536", "4", "0", "False"]
