"""Start the whole platform on this machine: migrate, create the first admin, run a worker, the
housekeeping process (scheduler + reaper, outside the worker's pool) and the web server, print
where to log in, stop them all on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from typing import cast

from accounts.management.commands.ensure_admin import PASSWORD_FILE
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run Sampan (web + worker) with the configured or embedded services."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=settings.SAMPAN_HOST)
        parser.add_argument("--port", type=int, default=settings.SAMPAN_PORT)
        parser.add_argument("--no-worker", action="store_true", help="web only (workers run elsewhere)")

    def handle(self, *args, host, port, no_worker, **options):
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("ensure_admin", stdout=self.stdout)
        manage = str(settings.PLATFORM_DIR / "manage.py")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        children: list[subprocess.Popen] = []
        if not no_worker:
            children.append(subprocess.Popen([sys.executable, manage, "worker"], env=env))
            children.append(subprocess.Popen([sys.executable, manage, "housekeeping"], env=env))
        children.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "config.wsgi:application",
                    "--chdir",
                    str(settings.PLATFORM_DIR),
                    "--bind",
                    f"{host}:{port}",
                    "--worker-class",
                    "config.gunicorn_worker.KeepAliveThreadWorker",
                    "--config",
                    str(settings.PLATFORM_DIR / "config" / "gunicorn.py"),
                    "--threads",
                    str(settings.SAMPAN_WEB_THREADS),
                    "--timeout",
                    "120",
                    "--graceful-timeout",
                    "10",
                    "--access-logfile",
                    "-",
                    "--error-logfile",
                    "-",
                    "--no-control-socket",
                ],
                env=env,
            )
        )

        stopping = False

        def stop(signum=None, frame=None):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
            self._wait_ready(url, children)
            self._banner(url)
            while not stopping:
                for child in children:
                    if child.poll() is not None:
                        raise CommandError(
                            f"{cast(list[str], child.args)[1:3]} exited with code {child.returncode}; "
                            "stopping Sampan"
                        )
                time.sleep(0.5)
        finally:
            for child in children:
                if child.poll() is None:
                    child.terminate()
            for child in children:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
            self.stdout.write("Sampan stopped.")

    def _wait_ready(self, url: str, children) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(child.poll() is not None for child in children):
                raise CommandError("a Sampan process exited during start-up; see the log above")
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2):
                    return
            except urllib.error.HTTPError:
                return  # it answers; /healthz says what is missing
            except OSError:
                time.sleep(0.3)
        raise CommandError(f"the web server did not answer at {url} within 60 s")

    def _banner(self, url: str) -> None:
        secret = settings.SAMPAN_HOME / PASSWORD_FILE
        login = f"the credentials in {secret}" if secret.exists() else "your administrator account"
        if secret.exists():
            lines = dict(line.split(": ", 1) for line in secret.read_text().splitlines() if ": " in line)
            login = f"user {lines.get('username')!r}, password {lines.get('password')!r} (from {secret})"
        db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        broker = (
            "embedded filesystem transport"
            if settings.SAMPAN_EMBEDDED_BROKER
            else settings.CELERY_BROKER_URL.split("://")[0]
        )
        self.stdout.write(self.style.SUCCESS(f"\nSampan is running at {url}/"))
        self.stdout.write(f"  log in with {login}")
        self.stdout.write(f"  API docs: {url}/api/docs/   health: {url}/healthz")
        self.stdout.write(f"  database: {db}; broker: {broker}; data: {settings.SAMPAN_HOME}")
        self.stdout.write("  press Ctrl-C to stop\n")
