"""/healthz: database, broker and worker liveness. 503 when the database or broker is down;
"degraded" (still 200) when no worker is alive, so the web container stays up while workers start."""

from __future__ import annotations

import time

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        detail = check()
        return {"ok": True, "latency_ms": round((time.perf_counter() - started) * 1000, 1), **(detail or {})}
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


def _broker() -> dict:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
        # the kind of broker (redis, amqp, filesystem), also for the embedded broker's own class
        return {"transport": conn.transport.driver_type}


def _workers() -> dict:
    """Job workers seen within jobs.services.WORKER_ALIVE_SECONDS (three missed 3 s beats), so a
    kill -9'd worker stops counting within about 10 s; the housekeeping process is reported apart."""
    from jobs.housekeeping import HOUSEKEEPING_QUEUE
    from jobs.selectors import worker_nodes

    alive = [w for w in worker_nodes() if w.alive]
    jobs = [w for w in alive if set(w.queues) - {HOUSEKEEPING_QUEUE}]
    return {
        "alive": len(jobs),
        "hosts": [{"hostname": w.hostname, "queues": w.queues} for w in jobs],
        "housekeeping": any(HOUSEKEEPING_QUEUE in w.queues for w in alive),
    }


@require_GET
def healthz(request):
    database = _timed(_database)
    broker = _timed(_broker)
    workers = _timed(_workers) if database["ok"] else {"ok": False, "error": "database unavailable"}
    workers["ok"] = workers.get("ok", False) and workers.get("alive", 0) > 0
    healthy = database["ok"] and broker["ok"]
    body = {
        "status": ("ok" if workers["ok"] else "degraded") if healthy else "unavailable",
        "database": database,
        "broker": broker,
        "workers": workers,
    }
    return JsonResponse(body, status=200 if healthy else 503)
