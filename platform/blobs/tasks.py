"""The periodic blob sweep (beat schedule ``blobs-gc``, on the housekeeping queue)."""

from __future__ import annotations

from celery import shared_task

from blobs.services import blobs_collect_garbage


@shared_task(name="blobs.collect_garbage")
def collect_garbage() -> dict:
    return blobs_collect_garbage()
