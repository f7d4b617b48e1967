"""Run the periodic scheduler and the housekeeping consumer: one small process, outside every job
pool, so the reaper and the study reconciler run on time while the workers train."""

from __future__ import annotations

import socket

from django.conf import settings
from django.core.management.base import BaseCommand

from jobs.housekeeping import HOUSEKEEPING_QUEUE


class Command(BaseCommand):
    help = (
        "Run the beat scheduler plus a consumer of the housekeeping queue (the reaper); one per installation."
    )

    def add_arguments(self, parser):
        parser.add_argument("--hostname", default=f"housekeeping@{socket.gethostname()}")
        parser.add_argument("--loglevel", default=settings.LOG_LEVEL)

    def handle(self, *args, hostname, loglevel, **options):
        from config.celery import app

        self.stdout.write(f"housekeeping {hostname}: beat schedule + queue {HOUSEKEEPING_QUEUE}")
        app.worker_main(
            [
                "worker",
                "--loglevel",
                loglevel,
                "--queues",
                HOUSEKEEPING_QUEUE,
                "--pool",
                "solo",
                "--concurrency",
                "1",
                "--hostname",
                hostname,
                "--without-mingle",
                "--without-gossip",
                "--beat",
                "--schedule",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ]
        )
