"""tests/scale: several "hosts" (web and worker processes, each with its own SAMPAN_HOME) that share only
PostgreSQL, Redis and an S3 bucket (tests/scale/hosts.py). Every test here is marked integration and slow
by tests/conftest.py (DIRECTORY_MARKERS)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import purge_broker
from tests.scale.hosts import HostStack, ObjectStorage


@pytest.fixture
def object_storage() -> Iterator[ObjectStorage]:
    """moto's S3 server with a fresh bucket, for this test only."""
    with ObjectStorage() as storage:
        yield storage


@pytest.fixture
def hosts(request, tmp_path, settings, object_storage, transactional_db) -> Iterator[HostStack]:
    """A HostStack for this test (nothing started yet): ``hosts.web()``, ``hosts.worker("a")``. The pytest
    process reads and writes blobs in the same bucket (its own SAMPAN_HOME under tmp_path/pytest), and
    every process the stack started is SIGKILLed at the end."""
    purge_broker()
    object_storage.use_in_this_process(settings, tmp_path / "pytest")
    label = request.node.name.removeprefix("test_")[:40]
    with HostStack(tmp_path / "hosts", object_storage, label=label) as stack:
        yield stack
