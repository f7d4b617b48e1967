"""Start a Celery worker for Sampan's queues: `cpu`, plus `gpu` when this host has a GPU."""

from __future__ import annotations

import json
import os
import socket

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
        raise CommandError(f"SAMPAN_WORKER_QUEUES/--queues: unknown queue(s) {unknown or queues}; use auto, cpu, gpu or cpu,gpu")
    return queues


class Command(BaseCommand):
    help = "Run a worker. With --queues auto it consumes cpu, and gpu too when a CUDA device is found."

    def add_arguments(self, parser):
        parser.add_argument("--queues", default=settings.SAMPAN_WORKER_QUEUES)
        parser.add_argument("--concurrency", type=int, default=settings.SAMPAN_WORKER_CONCURRENCY)
        parser.add_argument("--hostname", default=f"sampan@{socket.gethostname()}")
        parser.add_argument("--beat", action="store_true", help="also run the periodic scheduler (the reaper); one per installation")
        parser.add_argument("--loglevel", default=settings.LOG_LEVEL)

    def handle(self, *args, queues, concurrency, hostname, beat, loglevel, **options):
        from config.celery import app

        devices = detect_devices()
        queue_list = resolve_queues(queues, devices)
        if "gpu" in queue_list and not devices.get("cuda"):
            self.stderr.write(self.style.WARNING(
                "warning: consuming the gpu queue but no CUDA device was found; GPU jobs will run on the CPU"))
        if "gpu" in queue_list:
            concurrency = 1  # one training process per GPU; run one worker per GPU on multi-GPU hosts
        os.environ["SAMPAN_DETECTED_DEVICES"] = json.dumps(devices)
        self.stdout.write(f"worker {hostname}: queues {','.join(queue_list)}, concurrency {concurrency}, "
                          f"{len(devices.get('cuda', []))} CUDA device(s)")
        argv = [
            "worker", "--loglevel", loglevel, "--queues", ",".join(queue_list), "--concurrency", str(concurrency),
            "--hostname", hostname, "--without-mingle", "--without-gossip",
        ]
        if beat:
            argv += ["--beat", "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME]
        app.worker_main(argv)
