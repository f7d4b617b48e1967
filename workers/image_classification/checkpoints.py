"""Checkpoints written atomically, with a completion marker last; resume ignores anything else.

Layout under a run's ``checkpoints/`` folder::

    epoch-0003-step-000000120.pt            torch.save of the training state
    epoch-0003-step-000000120.pt.complete   JSON: checkpoint name, epoch, step, bytes, sha256

Writing: temp file in the same folder, flush + fsync, ``os.replace`` onto the final name, fsync
of the folder, then the marker the same way. A process killed at any point leaves either a
complete checkpoint (marker present, size and digest match) or files that resume ignores and the
next run deletes. Checkpoints are read with ``weights_only=True``; their contents are tensors and
plain containers only.
"""

from __future__ import annotations

import errno
import json
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from workers.shared.atomic_files import TEMP_PREFIX, atomic_write, atomic_write_json, sha256_of

__all__ = [
    "CheckpointInfo",
    "CheckpointWriter",
    "atomic_write",
    "atomic_write_json",
    "complete_checkpoints",
    "load_latest",
    "remove_incomplete",
    "save_checkpoint",
    "sha256_of",
]

MARKER_SUFFIX = ".complete"
NAME_PATTERN = re.compile(r"^epoch-(\d{4,})-step-(\d{9,})\.pt$")


@dataclass(frozen=True)
class CheckpointInfo:
    path: Path
    epoch: int
    step: int
    bytes: int
    sha256: str

    @property
    def marker(self) -> Path:
        return self.path.with_name(self.path.name + MARKER_SUFFIX)


def checkpoint_name(epoch: int, step: int) -> str:
    return f"epoch-{epoch:04d}-step-{step:09d}.pt"


def save_checkpoint(
    directory: Path, state: dict[str, Any], *, epoch: int, step: int, keep: int = 2
) -> CheckpointInfo:
    """Write ``state`` as the checkpoint of (epoch, step), then its marker; keep the newest ``keep``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / checkpoint_name(epoch, step)
    try:
        atomic_write(path, lambda handle: torch.save(state, handle))
        info = CheckpointInfo(
            path=path, epoch=epoch, step=step, bytes=path.stat().st_size, sha256=sha256_of(path)
        )
        atomic_write_json(
            info.marker,
            {
                "checkpoint": path.name,
                "epoch": epoch,
                "step": step,
                "bytes": info.bytes,
                "sha256": info.sha256,
            },
        )
    except (OSError, RuntimeError) as exc:
        if not _out_of_space(exc):
            raise
        # torch reports a full disk as "[enforce fail at inline_container.cc] unexpected pos"; name the cause
        free = shutil.disk_usage(directory).free
        raise OSError(
            errno.ENOSPC,
            f"No space left on device while writing checkpoint {path.name} "
            f"({free} bytes free in {directory})",
            str(path),
        ) from exc
    for old in complete_checkpoints(directory)[keep:]:
        old.marker.unlink(missing_ok=True)  # marker first: a crash in between leaves an ignored file
        old.path.unlink(missing_ok=True)
    return info


def _out_of_space(exc: BaseException | None) -> bool:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def complete_checkpoints(directory: Path) -> list[CheckpointInfo]:
    """Checkpoints whose marker is present and agrees with the file's size, newest first."""
    found: list[CheckpointInfo] = []
    if not directory.is_dir():
        return found
    for marker in directory.glob("*.pt" + MARKER_SUFFIX):
        path = marker.with_name(marker.name.removesuffix(MARKER_SUFFIX))
        if not NAME_PATTERN.match(path.name):
            continue
        try:
            meta = json.loads(marker.read_text())
            info = CheckpointInfo(
                path=path,
                epoch=int(meta["epoch"]),
                step=int(meta["step"]),
                bytes=int(meta["bytes"]),
                sha256=str(meta["sha256"]),
            )
            if meta["checkpoint"] != path.name or path.stat().st_size != info.bytes:
                continue
        except (OSError, ValueError, KeyError, TypeError):
            continue
        found.append(info)
    return sorted(found, key=lambda info: (info.step, info.epoch), reverse=True)


def remove_incomplete(directory: Path) -> list[str]:
    """Delete temp files and checkpoints without a valid marker (left by a killed writer)."""
    if not directory.is_dir():
        return []
    complete = {info.path.name for info in complete_checkpoints(directory)}
    removed = []
    for path in directory.iterdir():
        stale_checkpoint = NAME_PATTERN.match(path.name) and path.name not in complete
        stale_marker = (
            path.name.endswith(MARKER_SUFFIX) and path.name.removesuffix(MARKER_SUFFIX) not in complete
        )
        if path.is_file() and (path.name.startswith(TEMP_PREFIX) or stale_checkpoint or stale_marker):
            path.unlink(missing_ok=True)
            removed.append(path.name)
    return sorted(removed)


def load_latest(
    directory: Path, *, map_location: str | torch.device = "cpu"
) -> tuple[dict[str, Any] | None, CheckpointInfo | None, list[str]]:
    """The newest complete checkpoint that verifies and loads: (state, info, skipped reasons)."""
    skipped = []
    for info in complete_checkpoints(directory):
        if sha256_of(info.path) != info.sha256:
            skipped.append(f"{info.path.name}: content does not match its marker's sha256")
            continue
        try:
            state = torch.load(info.path, map_location=map_location, weights_only=True)
        except Exception as exc:  # a damaged file: fall back to the previous checkpoint
            skipped.append(f"{info.path.name}: {type(exc).__name__}: {exc}"[:500])
            continue
        return state, info, skipped
    return None, None, skipped


def cpu_copy(value: Any) -> Any:
    """A snapshot of a state: every tensor copied to the CPU, containers rebuilt, the rest shared."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return {k: cpu_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(cpu_copy(v) for v in value)
    return value


class CheckpointWriter:
    """Writes checkpoints on a background thread, one at a time, so training goes on during
    torch.save, fsync and hashing.

    ``submit`` first waits for the previous write, then snapshots the state (CPU copies of its
    tensors) before returning, so the caller may keep changing the model. ``wait`` returns the
    newest written checkpoint and re-raises a failed write. A process killed while a write is in
    flight leaves that checkpoint without its marker: resume then uses the one before.
    """

    def __init__(self, directory: Path, *, keep: int) -> None:
        self.directory = directory
        self.keep = keep
        self.last: CheckpointInfo | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def submit(
        self, state: dict[str, Any], *, epoch: int, step: int, immutable: tuple[str, ...] = ()
    ) -> None:
        """Snapshot ``state`` and start writing it; top-level keys in ``immutable`` hold values the
        caller never changes in place (only replaces), so they are shared instead of copied."""
        self.wait()
        snapshot = {k: v if k in immutable else cpu_copy(v) for k, v in state.items()}
        self._thread = threading.Thread(
            target=self._write, args=(snapshot, epoch, step), name="checkpoint-writer", daemon=True
        )
        self._thread.start()

    def _write(self, state: dict[str, Any], epoch: int, step: int) -> None:
        try:
            self.last = save_checkpoint(self.directory, state, epoch=epoch, step=step, keep=self.keep)
        except BaseException as exc:  # handed to the training thread by wait()
            self._error = exc

    @property
    def busy(self) -> bool:
        """A write is in flight."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self) -> CheckpointInfo | None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self.last
