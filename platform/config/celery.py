"""The Celery app: transport only. Job state lives in the jobs.Job row, never in Celery.

Queues: `cpu` and `gpu` carry jobs; `housekeeping` carries the periodic tasks (the reaper, the
study reconciler, tidying) and is consumed only by `manage.py housekeeping`, outside every job pool.
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("sampan")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (
    Queue("cpu", routing_key="cpu"),
    Queue("gpu", routing_key="gpu"),
    Queue("housekeeping", routing_key="housekeeping"),
)
app.autodiscover_tasks()
