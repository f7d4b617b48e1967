"""With no shared disk, each worker host tidies its own SAMPAN_HOME (jobs.host_cache): cached copies of
stored blobs unused for days are evicted, never while a job runs on the machine, and a copy in use is
touched each time it is handed out, then downloaded again once it was evicted."""

from __future__ import annotations

import os
import socket
import time

import pytest

from tests.jobs.factories import job
from tests.scale.hosts import ObjectStorage

pytestmark = pytest.mark.django_db


@pytest.fixture
def home(settings, tmp_path):
    settings.SAMPAN_HOME = tmp_path
    return tmp_path


def _cached(home, key: str, *, age_s: float) -> os.PathLike:
    path = home / "cache" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"blob")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_unused_copies_are_evicted_and_recent_ones_kept(home):
    from jobs.host_cache import CACHE_IDLE_SECONDS, cache_evict_unused

    old = _cached(home, "samples/ab/old.png", age_s=CACHE_IDLE_SECONDS + 60)
    fresh = _cached(home, "samples/cd/fresh.png", age_s=60)
    assert cache_evict_unused() == ["samples/ab/old.png"]
    assert not old.exists() and fresh.exists()
    assert not (home / "cache" / "samples" / "ab").exists(), "the emptied folder goes too"


def test_nothing_is_evicted_while_a_job_runs_on_this_machine(home, tenants):
    from jobs.host_cache import CACHE_IDLE_SECONDS, cache_evict_unused

    old = _cached(home, "samples/ab/old.png", age_s=CACHE_IDLE_SECONDS + 60)
    job(tenants["project_a"], status="running", lease_owner="elsewhere/12")
    running_here = job(tenants["project_a"], status="running", lease_owner=f"{socket.gethostname()}/34")
    assert cache_evict_unused() == [] and old.exists()
    running_here.status = "succeeded"
    running_here.save(update_fields=["status"])
    assert cache_evict_unused() == ["samples/ab/old.png"]


def test_a_copy_handed_out_is_touched_and_one_evicted_comes_back(settings, home):
    from datasets.services.versions import blob_local_path
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from jobs.host_cache import CACHE_IDLE_SECONDS, cache_evict_unused

    with ObjectStorage() as storage:  # moto's S3 server: blobs without local paths
        storage.use_in_this_process(settings, home)
        key = default_storage.save("samples/ef/image.png", ContentFile(b"pixels"))
        cache = home / "cache"
        path = blob_local_path(key, cache)
        then = time.time() - CACHE_IDLE_SECONDS - 60
        os.utime(path, (then, then))
        assert blob_local_path(key, cache) == path and time.time() - os.stat(path).st_mtime < 60
        assert cache_evict_unused() == []
        assert cache_evict_unused(now=time.time() + CACHE_IDLE_SECONDS + 60) == [key]
        with open(blob_local_path(key, cache), "rb") as again:
            assert again.read() == b"pixels"
