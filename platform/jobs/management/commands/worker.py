"""Start a Celery worker for Sampan's queues: `cpu`, plus `gpu` when this host has a GPU."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from jobs.worker_heartbeat import detect_devices

KNOWN_QUEUES = {"cpu", "gpu"}


def resolve_queues(spec: str, devices: dict) -> list[str]:
    if spec.strip().lower() == "auto":
        return ["cpu", "gpu"] if devices.get("cuda") else ["cpu"]
    queues = [q.strip() for q in spec.split(",") if q.strip()]
    unknown = sorted(set(queues) - KNOWN_QUEUES)
    if not queues or unknown:
        raise CommandError(
            f"SAMPAN_WORKER_QUEUES/--queues: unknown queue(s) {unknown or queues}; use auto, cpu, gpu or "
            "cpu,gpu"
        )
    return queues


class Command(BaseCommand):
    help = "Run a worker. With --queues auto it consumes cpu, and gpu too when a CUDA device is found."

    def add_arguments(self, parser):
        parser.add_argument("--queues", default=settings.SAMPAN_WORKER_QUEUES)
        parser.add_argument("--concurrency", type=int, default=settings.SAMPAN_WORKER_CONCURRENCY)
        parser.add_argument("--hostname", default=f"sampan@{socket.gethostname()}")
        parser.add_argument(
            "--beat",
            action="store_true",
            help="also start `manage.py housekeeping` (the scheduler and the reaper, in their own "
            "process); one per installation",
        )
        parser.add_argument("--loglevel", default=settings.LOG_LEVEL)

    def handle(self, *args, queues, concurrency, hostname, beat, loglevel, **options):
        from config.celery import app

        devices = detect_devices()
        queue_list = resolve_queues(queues, devices)
        if "gpu" in queue_list and not devices.get("cuda"):
            self.stderr.write(
                self.style.WARNING(
                    "warning: consuming the gpu queue but no CUDA device was found; GPU jobs will run on the "
                    "CPU"
                )
            )
        if "gpu" in queue_list:
            concurrency = 1  # one training process per GPU; run one worker per GPU on multi-GPU hosts
        os.environ["SAMPAN_DETECTED_DEVICES"] = json.dumps(devices)
        self.stdout.write(
            f"worker {hostname}: queues {','.join(queue_list)}, concurrency {concurrency}, "
            f"{len(devices.get('cuda', []))} CUDA device(s)"
        )
        argv = [
            "worker",
            "--loglevel",
            loglevel,
            "--queues",
            ",".join(queue_list),
            "--concurrency",
            str(concurrency),
            "--hostname",
            hostname,
            "--without-mingle",
            "--without-gossip",
        ]
        housekeeping = _start_housekeeping(loglevel) if beat else None
        try:
            app.worker_main(argv)
        finally:
            if housekeeping is not None and housekeeping.poll() is None:
                housekeeping.terminate()
                try:
                    housekeeping.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    housekeeping.kill()


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the worker dies, even by SIGKILL (Linux), so no orphan
    scheduler keeps running."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _start_housekeeping(loglevel: str) -> subprocess.Popen:
    manage = str(settings.PLATFORM_DIR / "manage.py")
    return subprocess.Popen(
        [sys.executable, manage, "housekeeping", "--loglevel", loglevel],
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
