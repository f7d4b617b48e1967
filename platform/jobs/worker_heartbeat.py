"""Worker liveness for /healthz and queue routing: the worker's main process upserts a
WorkerNode row every few seconds from a thread, and deletes it on a clean shutdown."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading

from celery.signals import worker_ready, worker_shutdown
from django.db import connection
from django.utils import timezone

logger = logging.getLogger("sampan.jobs")

BEAT_SECONDS = 10
_stop = threading.Event()
_state: dict = {}


def detect_devices() -> dict:
    """Ask a child interpreter, so torch is never imported in the worker's main process."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "workers.devices"], capture_output=True, text=True, timeout=120, check=True
        ).stdout
        return json.loads(out)
    except Exception as exc:  # report, do not crash the worker
        logger.warning("device detection failed: %s", exc)
        return {"cpu_count": os.cpu_count() or 1, "cuda": [], "error": str(exc)}


def _loop() -> None:
    from jobs.services import worker_node_beat

    while True:
        try:
            worker_node_beat(**_state)
        except Exception:
            logger.exception("worker heartbeat failed")
        finally:
            connection.close()
        if _stop.wait(BEAT_SECONDS):
            return


@worker_ready.connect
def _on_ready(sender, **kwargs) -> None:
    consumer = sender
    queues = sorted(q.name for q in consumer.task_consumer.queues) if consumer.task_consumer else []
    devices = json.loads(os.environ["SAMPAN_DETECTED_DEVICES"]) if os.environ.get("SAMPAN_DETECTED_DEVICES") else detect_devices()
    _state.update(
        hostname=consumer.hostname,
        queues=queues,
        devices=devices,
        concurrency=consumer.controller.concurrency if consumer.controller else 1,
        pid=os.getpid(),
        started_at=timezone.now(),
    )
    threading.Thread(target=_loop, name="sampan-worker-heartbeat", daemon=True).start()
    logger.info("worker %s consuming %s, devices %s", consumer.hostname, queues, devices)


@worker_shutdown.connect
def _on_shutdown(sender=None, **kwargs) -> None:
    _stop.set()
    if _state.get("hostname"):
        from jobs.services import worker_node_gone

        try:
            worker_node_gone(hostname=_state["hostname"])
        finally:
            connection.close()
