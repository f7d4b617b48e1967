"""workers.notebooks without Django: the user's files packed and restored (caches, links and unsafe
members left out), and the server stopped at its memory limit."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

from workers.notebooks.server import NotebookServerSpec, pack_files, serve_notebook, unpack_files


def test_files_round_trip_without_caches_or_links(tmp_path):
    root = tmp_path / "files"
    (root / "src" / ".ipynb_checkpoints").mkdir(parents=True)
    (root / "src" / "train.py").write_text("print('hi')\n")
    (root / "analysis.ipynb").write_text('{"cells": []}')
    (root / "src" / ".ipynb_checkpoints" / "train-checkpoint.py").write_text("old")
    (root / "link.txt").symlink_to("/etc/passwd")
    archive, count, notes = pack_files(root)
    assert count == 2 and notes == []

    back = tmp_path / "back"
    assert unpack_files(archive, back) == 2
    assert (back / "src" / "train.py").read_text() == "print('hi')\n"
    assert (back / "analysis.ipynb").exists()
    assert not (back / "link.txt").exists() and not (back / "src" / ".ipynb_checkpoints").exists()
    assert oct((back / "src" / "train.py").stat().st_mode & 0o777) == "0o600"


def test_files_over_the_cap_are_named_and_left_out(tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    (root / "a.bin").write_bytes(b"x" * 600)
    (root / "b.bin").write_bytes(b"y" * 600)
    archive, count, notes = pack_files(root, max_bytes=1000)
    assert count == 1 and len(notes) == 1 and "b.bin not saved" in notes[0]


def test_unsafe_members_are_not_restored(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in ("../escape.txt", "/abs.txt", "ok.txt"):
            data = b"data"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("evil")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc"
        tar.addfile(link)
    root = tmp_path / "deep" / "root"
    assert unpack_files(buffer.getvalue(), root) == 1
    assert sorted(os.listdir(root)) == ["ok.txt"]
    assert not (tmp_path / "deep" / "escape.txt").exists() and not Path("/abs.txt").exists()


def test_a_server_over_its_memory_limit_is_stopped(tmp_path):
    spec = NotebookServerSpec(
        root_dir=tmp_path / "nb" / "files",
        home_dir=tmp_path / "nb" / "home",
        token="t0ken",
        idle_timeout_s=60,
        limits={"wall_time_s": 120, "memory_mb": 20, "cpus": 1},  # the server alone needs more
        user=None,
    )
    ticks: list[object] = []
    outcome = serve_notebook(
        spec, on_ready=lambda url: None, on_tick=ticks.append, on_output=lambda s, t: None
    )
    assert outcome.stopped == "memory_limit" and "over its memory limit of 20 MiB" in outcome.reason
    assert outcome.peak_memory_mb > 20


def test_a_server_past_its_wall_time_is_stopped(tmp_path):
    spec = NotebookServerSpec(
        root_dir=tmp_path / "nb" / "files",
        home_dir=tmp_path / "nb" / "home",
        token="t0ken",
        idle_timeout_s=60,
        limits={"wall_time_s": 2, "memory_mb": 4096, "cpus": 1},
        user=None,
    )
    outcome = serve_notebook(
        spec, on_ready=lambda url: None, on_tick=lambda s: None, on_output=lambda s, t: None
    )
    assert outcome.stopped == "time_limit" and "wall-time limit of 2 s" in outcome.reason
