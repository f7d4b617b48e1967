"""A notebook server takes a free port in SAMPAN_NOTEBOOK_PORTS (docker-compose publishes that range),
skipping ports already taken, and says so when the range is full."""

from __future__ import annotations

import socket

import pytest

from workers.notebooks.server import free_port


def _listening(host: str) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((host, 0))
    s.listen()
    return s


def test_a_port_in_the_range_is_taken_and_a_busy_one_skipped():
    taken = _listening("127.0.0.1")
    busy = taken.getsockname()[1]
    try:
        if busy >= 65535:
            pytest.fail("the kernel gave the highest port: no range above it to try")
        assert free_port("127.0.0.1", (busy, busy + 1)) == busy + 1
        with pytest.raises(RuntimeError, match=rf"no free notebook port in {busy}-{busy}"):
            free_port("127.0.0.1", (busy, busy))
    finally:
        taken.close()
    assert 1 <= free_port("127.0.0.1") <= 65535  # no range: any free port
