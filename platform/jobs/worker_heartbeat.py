"""Worker liveness for /healthz and queue routing: the worker's main process upserts a
WorkerNode row every few seconds from a thread, and deletes it on a clean shutdown."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading

from celery.signals import worker_ready, worker_shutdown, worker_shutting_down
from django.db import connection
from django.utils import timezone

logger = logging.getLogger("sampan.jobs")

BEAT_SECONDS = 3  # jobs.services.WORKER_ALIVE_SECONDS allows three missed beats
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
    from jobs.scheduling import jobs_dispatch
    from jobs.services import worker_node_beat

    while True:
        try:
            worker_node_beat(**_state)
            # jobs wait in the database until a slot is free (jobs.scheduling): a worker that just
            # reported in, or one whose jobs' own dispatch was lost, fills its slots here
            jobs_dispatch()
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
    devices = (
        json.loads(os.environ["SAMPAN_DETECTED_DEVICES"])
        if os.environ.get("SAMPAN_DETECTED_DEVICES")
        else detect_devices()
    )
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


@worker_shutting_down.connect
def _on_shutting_down(sender=None, sig=None, how=None, exitcode=None, **kwargs) -> None:
    """A warm shutdown (SIGTERM, `docker stop`): ask the jobs running in this worker's pool to
    checkpoint and hand themselves back, so another worker resumes them within seconds instead of
    this one finishing them inside the grace period (or being killed and reaped a minute later)."""
    node = _state.get("hostname") or sender
    if how != "Warm" or not node:
        return
    # We are inside the signal handler of the main thread: do the database work in a thread.
    thread = threading.Thread(target=_preempt, args=(str(node),), name="sampan-preempt", daemon=True)
    thread.start()
    thread.join(timeout=10)


def _preempt(node: str) -> None:
    from jobs.services import jobs_preempt_on

    try:
        preempted = jobs_preempt_on(node=node)
        if preempted:
            logger.warning("worker %s shutting down: handing back jobs %s", node, preempted)
    except Exception:
        logger.exception("could not ask the running jobs to hand back")
    finally:
        connection.close()


@worker_shutdown.connect
def _on_shutdown(sender=None, **kwargs) -> None:
    _stop.set()
    if _state.get("hostname"):
        from jobs.services import worker_node_gone

        try:
            worker_node_gone(hostname=_state["hostname"])
        finally:
            connection.close()
