"""The test harness, importable by any test module: the repository's paths, polling, free ports, and
live processes (a Celery worker, a gunicorn web server) on the test PostgreSQL database and Redis.

(Fixtures live in the conftest.py files; this is plain code that test modules import by name.)"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "platform" / "manage.py"
ARTIFACTS = Path(os.environ.get("SAMPAN_TEST_ARTIFACTS", REPO / "artifacts"))


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
        self.hostname = ""  # a worker's Celery node name (start_worker)
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


def purge_broker() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("cpu", "gpu"):
            with contextlib.suppress(Exception):  # a queue not declared yet
                conn.default_channel.queue_purge(queue)


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
    worker.hostname = hostname
    from jobs.models import WorkerNode

    wait_for(
        lambda: WorkerNode.objects.filter(hostname=hostname).exists() or not worker.alive(),
        timeout=60,
        what=f"worker {hostname} to report in",
    )
    assert worker.alive(), f"worker died during start-up:\n{worker.log()}"
    return worker


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
            "config.gunicorn_worker.KeepAliveThreadWorker",
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
