"""Shared fixtures: users in two tenants, API clients, and live processes (a Celery worker and a
web server) that talk to the same PostgreSQL test database and Redis as the test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "platform" / "manage.py"
ARTIFACTS = Path(os.environ.get("SAMPAN_TEST_ARTIFACTS", REPO / "artifacts"))


def pytest_configure(config) -> None:
    """Transactional tests end with Django's flush (one TRUNCATE of every table). A live web or worker
    process of this session may be writing at that moment (usage minutes, heartbeats), and PostgreSQL
    can then pick the TRUNCATE as a deadlock's victim: the flush fails and the next test finds the
    last one's rows. The TRUNCATE runs in its own transaction, so trying it again is safe."""
    from django.core.management.base import CommandError
    from django.core.management.commands import flush

    handle = flush.Command.handle
    if getattr(handle, "retries_deadlocks", False):
        return

    def handle_retrying_deadlocks(self, **options):
        for attempt in range(5):
            try:
                return handle(self, **options)
            except CommandError as exc:
                if attempt == 4 or "deadlock detected" not in str(exc.__cause__ or ""):
                    raise
                time.sleep(0.2 * (attempt + 1))

    handle_retrying_deadlocks.retries_deadlocks = True  # type: ignore[attr-defined]
    flush.Command.handle = handle_retrying_deadlocks


def wait_for(
    predicate: Callable[[], object], *, timeout: float = 30.0, interval: float = 0.2, what: str = "condition"
):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url_for(settings_dict: dict) -> str:
    """The URL of the database Django is connected to now (the test database during tests)."""
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgres://{auth}{settings_dict.get('HOST') or '127.0.0.1'}{port}/{settings_dict['NAME']}"


def live_env(**extra: str) -> dict[str, str]:
    from django.conf import settings
    from django.db import connection

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=database_url_for(connection.settings_dict),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class LiveProcess:
    def __init__(self, name: str, args: list[str], env: dict[str, str]) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log_path = ARTIFACTS / f"{name}.log"
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            args, env=env, stdout=self._log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()


def _purge_broker() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("cpu", "gpu"):
            try:
                conn.default_channel.queue_purge(queue)
            except Exception:
                pass


def start_worker(name: str = "worker", hostname: str | None = None) -> LiveProcess:
    hostname = hostname or f"{name}-{os.getpid()}@test"
    worker = LiveProcess(
        name,
        [
            sys.executable,
            str(MANAGE),
            "worker",
            "--queues",
            "cpu",
            "--concurrency",
            "1",
            "--hostname",
            hostname,
        ],
        live_env(),
    )
    from jobs.models import WorkerNode

    wait_for(
        lambda: WorkerNode.objects.filter(hostname=hostname).exists() or not worker.alive(),
        timeout=60,
        what=f"worker {hostname} to report in",
    )
    assert worker.alive(), f"worker died during start-up:\n{worker.log()}"
    return worker


@pytest.fixture(scope="session")
def live_worker(django_db_setup, django_db_blocker) -> Iterator[LiveProcess]:
    """A real Celery worker process consuming the `cpu` queue of the test broker."""
    with django_db_blocker.unblock():
        _purge_broker()
        worker = start_worker()
    yield worker
    worker.stop()


GUNICORN_CONFIG = REPO / "platform" / "config" / "gunicorn.py"


def start_web(
    name: str,
    env: dict[str, str],
    *,
    threads: int = 8,
    start: Callable[[str, list[str], dict[str, str]], LiveProcess] = LiveProcess,
) -> tuple[LiveProcess, str]:
    """A real gunicorn web process with Sampan's gunicorn.py, as `make up` and the Docker image run it
    (one process here, so per-process state stays countable), once it answers /healthz: (process, url).
    ``start`` makes the LiveProcess (a fault test's stack passes its own to track what it started)."""
    import requests

    port = free_port()
    web = start(
        name,
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--chdir",
            str(REPO / "platform"),
            "--config",
            str(GUNICORN_CONFIG),
            "--bind",
            f"127.0.0.1:{port}",
            "--worker-class",
            "gthread",
            "--workers",
            "1",
            "--threads",
            str(threads),
            "--no-control-socket",
            "--access-logfile",
            "-",
            "--error-logfile",
            "-",
        ],
        env,
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            requests.get(url + "/healthz", timeout=2)
            return True
        except requests.RequestException:
            return not web.alive()

    wait_for(answers, timeout=90, what=f"the web server {name}")
    assert web.alive(), web.log()
    return web, url


@pytest.fixture(scope="session")
def live_web(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A real gunicorn web process (as `make up` runs it) serving the test database."""
    web, url = start_web("web", live_env())
    web.pid = web.proc.pid  # type: ignore[attr-defined]
    yield url
    web.stop()


# --- tenants ---------------------------------------------------------------------------------


@pytest.fixture
def make_user(db):
    from accounts.models import User

    def make(username: str, *, password: str = "correct-horse-battery", is_staff: bool = False):
        return User.objects.create_user(
            username=username, password=password, email=f"{username}@example.com", is_staff=is_staff
        )

    return make


@pytest.fixture
def tenants(make_user):
    """alice owns workspace A (with a project and a job); bob owns workspace B;
    carol is a viewer and erin an editor in A."""
    from jobs.models import Job
    from workspaces.models import Membership, Role
    from workspaces.services import project_create, workspace_create

    alice, bob, carol, erin = (make_user(n) for n in ("alice", "bob", "carol", "erin"))
    ws_a = workspace_create(user=alice, name="Workspace A")
    ws_b = workspace_create(user=bob, name="Workspace B")
    carol_membership = Membership.objects.create(workspace=ws_a, user=carol, role=Role.VIEWER)
    Membership.objects.create(workspace=ws_a, user=erin, role=Role.EDITOR)
    project_a = project_create(user=alice, workspace=ws_a, name="Project A")
    project_b = project_create(user=bob, workspace=ws_b, name="Project B")
    job_a = Job.objects.create(workspace=ws_a, project=project_a, kind="system.check", params={"seconds": 1})
    return {
        "alice": alice,
        "bob": bob,
        "carol": carol,
        "erin": erin,
        "ws_a": ws_a,
        "ws_b": ws_b,
        "project_a": project_a,
        "project_b": project_b,
        "job_a": job_a,
        "carol_membership": carol_membership,
    }


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    def client_for(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return client_for


@pytest.fixture
def token_for(db):
    from accounts.services import api_token_create

    def issue(user, name: str = "test") -> str:
        return api_token_create(user=user, name=name).key

    return issue
