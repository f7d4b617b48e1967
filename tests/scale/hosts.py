"""Hosts that share no disk, as real processes on this machine (issue 22, "Many hosts, no shared disk").

Each "host" is a process (a gunicorn web or a Celery worker) with its own ``SAMPAN_HOME`` under the test's
temporary directory and its own worker hostname. What the hosts share is what a cluster shares:
the test PostgreSQL database, the test Redis broker, and one bucket of S3-compatible object storage
(moto's server, which speaks the real S3 protocol, on loopback). Nothing else: no host can read
another's ``SAMPAN_HOME``, and every ``SAMPAN_HOME`` is a cache that may be deleted at any time.

Use it from a test marked ``django_db(transaction=True)`` (the processes must see committed rows)::

    from tests.scale.hosts import HostStack, ObjectStorage

    def test_something(tmp_path, settings):
        with ObjectStorage() as storage, HostStack(tmp_path, storage, label="mine") as stack:
            storage.use_in_this_process(settings, tmp_path / "pytest-home")  # optional: ORM-side reads
            web = stack.web()                       # Host; web.url is its base URL
            a = stack.worker("a")                   # Host; waits until it reports in (WorkerNode row)
            b = stack.worker("b", env={"SAMPAN_WORKER_QUEUES": "cpu"}, start=False)
            ...
            a.kill()                                # SIGKILL of its whole process group
            a.wipe_home()                           # its SAMPAN_HOME is gone
            b.start()
            assert not any(host.blob_files() for host in stack.hosts)

or with the ``hosts`` fixture of tests/scale/conftest.py, which does the above and stops everything at the
end. Logs are under ARTIFACTS (``<label>-<name>.log``), as for every live process of the test suite.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.harness import ARTIFACTS, MANAGE, LiveProcess, free_port, live_env, start_web, wait_for

# Settings that would point every host at one directory (a shared disk) when the test process has them
# set: each host derives them from its own SAMPAN_HOME instead.
HOST_LOCAL_VARIABLES = (
    "SAMPAN_CUSTOM_ENV_CACHE",
    "SAMPAN_SANDBOX_ROOT",
    "SAMPAN_STORAGE_URL",
    "SAMPAN_STORAGE_ACCESS_KEY",
    "SAMPAN_STORAGE_SECRET_KEY",
)


class ObjectStorage:
    """moto's S3 server on a free loopback port with one fresh bucket; ``env`` configures Sampan for it."""

    access_key = "test-key"
    secret_key = "test-secret"

    def __init__(self, *, bucket: str | None = None, prefix: str = "sampan") -> None:
        self.bucket = bucket or f"sampan-{uuid.uuid4().hex[:8]}"
        self.prefix = prefix
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server = None

    def start(self) -> ObjectStorage:
        import logging

        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        self.client().create_bucket(Bucket=self.bucket)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> ObjectStorage:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return (
            f"s3://{self.bucket}/{self.prefix}?endpoint_url={self.endpoint}"
            "&region=us-east-1&addressing_style=path"
        )

    @property
    def env(self) -> dict[str, str]:
        return {
            "SAMPAN_STORAGE_URL": self.url,
            "SAMPAN_STORAGE_ACCESS_KEY": self.access_key,
            "SAMPAN_STORAGE_SECRET_KEY": self.secret_key,
        }

    def client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
        )

    def keys(self, prefix: str | None = None) -> list[str]:
        """Every object key under ``prefix`` (default: Sampan's prefix), all pages."""
        prefix = f"{self.prefix}/" if prefix is None else prefix
        paginator = self.client().get_paginator("list_objects_v2")
        return [
            item["Key"]
            for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix)
            for item in page.get("Contents", [])
        ]

    def use_in_this_process(self, settings, home: Path) -> None:
        """Point the pytest process's Django (``settings`` is pytest-django's fixture) at this bucket, so
        the test can read blobs through ``default_storage`` as any host would; ``home`` is its own
        SAMPAN_HOME, whose blobs folder must stay empty as well."""
        from config.env import storage_from_url

        home.mkdir(parents=True, exist_ok=True)
        saved = {name: os.environ.get(name) for name in self.env}
        os.environ.update(self.env)
        try:
            settings.STORAGES = {**settings.STORAGES, "default": storage_from_url("SAMPAN_STORAGE_URL", home)}
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        settings.SAMPAN_HOME = home  # (Django's setting_changed handler rebuilds default_storage)
        assert settings.STORAGES["default"]["BACKEND"] == "storages.backends.s3.S3Storage"


class Host:
    """One host: a web or worker process with its own SAMPAN_HOME (``home``)."""

    def __init__(
        self, stack: HostStack, name: str, role: str, *, env: dict[str, str], queues: str = "cpu"
    ) -> None:
        self.stack = stack
        self.name = name
        self.role = role
        self.home = stack.root / name
        self.hostname = f"{stack.label}-{name}@{name}.host"
        self.queues = queues
        self.extra_env = env
        self.process: LiveProcess | None = None
        self.url: str | None = None  # a web host's base URL
        self.started_at = 0.0

    # --- the environment and the process --------------------------------------------------------

    def environment(self) -> dict[str, str]:
        env = live_env()
        for name in HOST_LOCAL_VARIABLES:
            env.pop(name, None)
        env.update(self.stack.storage.env if self.stack.storage else {})
        env["SAMPAN_HOME"] = str(self.home)
        env.update(self.extra_env)
        return env

    def start(self, *, wait: bool = True) -> Host:
        """Start (or start again, e.g. after ``kill``/``wipe_home``) this host's process."""
        assert not self.alive(), f"{self.name} is already running"
        self.home.mkdir(parents=True, exist_ok=True)
        self.started_at = time.time()
        log_name = f"{self.stack.label}-{self.name}"
        if self.role == "web":
            self.process, self.url = start_web(log_name, self.environment(), threads=4, start=self._launch)
            return self
        self.process = self._launch(
            log_name,
            [
                sys.executable,
                str(MANAGE),
                "worker",
                "--queues",
                self.queues,
                "--concurrency",
                "1",
                "--hostname",
                self.hostname,
            ],
            self.environment(),
        )
        if wait:
            self.wait_until_reported_in()
        return self

    def _launch(self, name: str, args: list[str], env: dict[str, str]) -> LiveProcess:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            (ARTIFACTS / f"{name}.log").rename(ARTIFACTS / f"{name}.previous.log")
        return LiveProcess(name, args, env)

    def wait_until_reported_in(self, timeout: float = 90) -> None:
        from datetime import UTC, datetime

        from jobs.models import WorkerNode

        started = self.process
        assert started is not None
        since = datetime.fromtimestamp(self.started_at, tz=UTC)
        wait_for(
            lambda: (
                WorkerNode.objects.filter(hostname=self.hostname, started_at__gte=since).exists()
                or not started.alive()
            ),
            timeout=timeout,
            what=f"worker {self.hostname} to report in",
        )
        assert started.alive(), f"worker {self.name} died during start-up:\n{started.log()}"

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()

    def log(self) -> str:
        return self.process.log() if self.process is not None else ""

    def stop(self) -> None:
        """SIGTERM to the process group (a warm shutdown), SIGKILL after 15 s."""
        if self.process is not None:
            self.process.stop()

    def kill(self) -> None:
        """SIGKILL the host's whole process group (the worker and its pool children), as a lost host."""
        process = self.process
        if process is None:
            return
        if process.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.proc.wait(timeout=15)
        process.stop()  # closes the log

    # --- the host's disk ------------------------------------------------------------------------

    def wipe_home(self) -> None:
        """Delete this host's SAMPAN_HOME and everything in it (the process may still be running)."""
        shutil.rmtree(self.home, ignore_errors=True)

    def blob_files(self) -> list[Path]:
        """Files under SAMPAN_HOME/blobs, where blobs would land without object storage: must stay empty."""
        root = self.home / "blobs"
        return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


class HostStack:
    """The hosts of one test under ``root`` (one SAMPAN_HOME each), sharing ``storage``, the test database
    and the test broker. ``web()``/``worker()`` start a host (``start=False`` only creates it);
    ``stop()`` SIGKILLs what is still running (a context manager does it on exit)."""

    def __init__(self, root: Path, storage: ObjectStorage | None, *, label: str = "hosts") -> None:
        self.root = Path(root)
        self.storage = storage
        self.label = label
        self.hosts: list[Host] = []

    def web(self, name: str = "web", *, env: dict[str, str] | None = None, start: bool = True) -> Host:
        host = Host(self, name, "web", env=env or {})
        self.hosts.append(host)
        return host.start() if start else host

    def worker(
        self,
        name: str,
        *,
        env: dict[str, str] | None = None,
        queues: str = "cpu",
        start: bool = True,
        wait: bool = True,
    ) -> Host:
        host = Host(self, name, "worker", env=env or {}, queues=queues)
        self.hosts.append(host)
        return host.start(wait=wait) if start else host

    def blob_files(self) -> dict[str, list[Path]]:
        """Every host's local blob files (by host name), only the hosts that have any."""
        found = {host.name: host.blob_files() for host in self.hosts}
        return {name: files for name, files in found.items() if files}

    def stop(self) -> None:
        for host in reversed(self.hosts):
            with contextlib.suppress(Exception):
                host.kill()

    def __enter__(self) -> HostStack:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
