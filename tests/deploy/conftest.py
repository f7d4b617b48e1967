"""Fixtures of the deploy tests."""

from __future__ import annotations

import pytest


def _clear_usage() -> None:
    from deploy.usage import recorder

    with recorder._lock:
        recorder._minutes.clear()
        recorder._used_keys.clear()


@pytest.fixture(autouse=True)
def _forget_usage():
    """Usage recorded in this process belongs to rows of one test's transaction: each test starts
    with an empty recorder and drops what it recorded afterwards, so neither the flush thread nor a
    later test's flush writes minutes of deployments that were rolled back."""
    _clear_usage()
    yield
    _clear_usage()
