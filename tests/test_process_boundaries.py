"""The stdlib `platform` module is the real one in every entry point (DESIGN §1), and torch never
enters the web process or a worker's main process (it is imported inside task bodies only)."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import psutil
import pytest
import requests

from tests.harness import REPO, live_env

STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
PROBE = (
    "import json, platform, sys; print(json.dumps({'platform': platform.__file__, "
    "'system': platform.system(), 'torch': 'torch' in sys.modules}))"
)


def has_libtorch(pid: int) -> bool:
    return "libtorch" in Path(f"/proc/{pid}/maps").read_text()


def test_platform_is_stdlib_in_the_test_process():
    import platform

    import django  # noqa: F401 - after Django is set up by pytest-django

    assert Path(platform.__file__).resolve().parent == STDLIB
    assert not (REPO / "platform" / "__init__.py").exists()


def test_manage_py_sees_stdlib_platform_and_no_torch(django_db_setup):
    out = subprocess.run(
        [sys.executable, str(REPO / "platform" / "manage.py"), "shell", "-c", PROBE],
        env=live_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    probe = json.loads(out.strip().splitlines()[-1])
    assert Path(probe["platform"]).resolve().parent == STDLIB and probe["system"] == "Linux"
    assert probe["torch"] is False


@pytest.mark.django_db(transaction=True)
def test_wsgi_app_serving_requests_never_imports_torch(tenants, token_for):
    key = token_for(tenants["alice"])
    script = f"""
import sys
sys.path.insert(0, {str(REPO / "platform")!r})
import config.wsgi
from django.test import Client
client = Client()
for path in ['/healthz', '/api/v1/workspaces/', '/api/v1/projects/', '/api/v1/jobs/', '/api/v1/workers/',
             '/api/v1/job-kinds/', '/api/schema/', '/api/docs/', '/']:
    response = client.get(path, HTTP_AUTHORIZATION='Bearer {key}')
    assert response.status_code < 500, (path, response.status_code)
{PROBE}
"""
    out = subprocess.run(
        [sys.executable, "-c", script], env=live_env(), capture_output=True, text=True, timeout=120, cwd="/"
    )
    assert out.returncode == 0, out.stderr
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(probe["platform"]).resolve().parent == STDLIB
    assert probe["torch"] is False


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_live_web_and_worker_main_process_do_not_load_torch(live_web, live_worker, tenants, token_for):
    from jobs.models import Job
    from jobs.services import job_create

    from tests.harness import wait_for

    key = token_for(tenants["alice"])
    for _ in range(20):
        assert requests.get(
            f"{live_web}/api/v1/jobs/", headers={"Authorization": f"Bearer {key}"}, timeout=10
        ).ok
    job = job_create(workspace=tenants["ws_a"], kind="system.check", params={"seconds": 0.3})
    wait_for(lambda: Job.objects.get(pk=job.pk).status == "succeeded", timeout=60, what="system check")
    result = Job.objects.get(pk=job.pk).result
    assert result["versions"]["torch"], "the task body (a worker child) does import torch"
    assert result["versions"]["platform"].startswith("Linux"), "stdlib platform works inside the worker"

    web = psutil.Process(live_web_pid := _pid_listening(live_web))
    assert not has_libtorch(live_web_pid), f"torch is loaded in the web process {web.cmdline()}"
    assert not has_libtorch(live_worker.proc.pid), (
        "torch was imported in the worker's main process before forking"
    )


def _pid_listening(url: str) -> int:
    port = int(url.rsplit(":", 1)[1])
    for conn in psutil.net_connections(kind="tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
            master = psutil.Process(conn.pid)
            children = master.children()
            return children[0].pid if children else master.pid
    raise AssertionError(f"nothing listens on {url}")
