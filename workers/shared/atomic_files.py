"""Crash-safe file writes and file digests (no torch): temp file, flush + fsync, ``os.replace``,
then an fsync of the folder, so a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

TEMP_PREFIX = ".tmp-"


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write ``path`` through ``write(handle)`` so that it keeps its old content or has all of the new."""
    temp = path.with_name(f"{TEMP_PREFIX}{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        with open(temp, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    fsync_directory(path.parent)


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write(path, lambda handle: handle.write(json.dumps(data, indent=2).encode() + b"\n"))


def sha256_of(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
