"""The embedded broker writes each message whole before a consumer can take it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kombu import Connection

PLATFORM = Path(__file__).resolve().parents[1] / "platform"


@pytest.fixture
def channel(tmp_path):
    folders = {name: tmp_path / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir()
    options = {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "control_folder": str(folders["control"]),
        "store_processed": False,
    }
    with Connection("filesystem://", transport="config.broker:Transport", transport_options=options) as conn:
        yield conn.default_channel, folders["queue"]


def test_a_message_being_written_is_invisible_to_consumers(channel, monkeypatch):
    from kombu.transport.virtual import Empty

    chan, folder = channel
    seen_while_writing = []
    real_replace = os.replace

    def replace_after_a_consumer_looked(src, dst):
        # the moment kombu's own transport exposed: the file exists, a consumer polls
        assert os.path.getsize(src) > 0
        try:
            seen_while_writing.append(chan._get("cpu"))
        except Empty:
            seen_while_writing.append(None)
        real_replace(src, dst)

    monkeypatch.setattr("config.broker.os.replace", replace_after_a_consumer_looked)
    chan._put("cpu", {"body": "x" * 10_000, "n": 1})
    assert seen_while_writing == [None], "a consumer took a message before it was complete"
    assert [name for name in os.listdir(folder) if name.endswith(".partial")] == []
    assert chan._get("cpu") == {"body": "x" * 10_000, "n": 1}


def test_the_embedded_settings_use_it(tmp_path):
    """With no broker URL configured, Celery's connections go through this transport."""
    env = {k: v for k, v in os.environ.items() if k not in {"CELERY_BROKER_URL", "DATABASE_URL"}}
    env |= {"SAMPAN_HOME": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    script = (
        "from config.celery import app\n"
        "with app.connection_for_write() as conn:\n"
        "    print(type(conn.transport).__module__, type(conn.transport).__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=PLATFORM, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["config.broker", "Transport"]
