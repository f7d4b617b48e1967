"""Run one JupyterLab server for one user, Django-free.

``serve_notebook`` starts ``jupyter lab`` as the sandbox user (network on: the user's browser reaches
it) with a per-notebook token, waits for ``/api/status``, calls ``on_ready(url)``, then polls it:
``on_tick(status)`` every ``tick_s`` (the platform heartbeats, saves files, and may raise to stop:
``JobCancelled``), and the server is stopped once nothing happened for ``idle_timeout_s`` (no API
request, no kernel message, no kernel busy). The whole process tree (server + kernels) is stopped
together. ``pack_files`` / ``unpack_files`` move the user's files to and from one tar archive.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pwd
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workers.contracts.custom_code import ResourceLimits

# what is never saved: caches and checkpoints jupyter writes itself
SKIPPED_NAMES = frozenset({".ipynb_checkpoints", "__pycache__", ".cache", ".ipython", ".local", ".jupyter"})
# a saved archive holds at most this much (bigger files belong in datasets or artifacts)
MAX_SAVED_BYTES = 512 * 1024**2
READY_TIMEOUT_S = 180.0


class NotebookIdle(Exception):
    """Nothing happened on the server for its idle timeout: it is stopped."""


class NotebookFailedToStart(Exception):
    """The server exited or never answered ``/api/status``; the message names why."""


@dataclass(frozen=True)
class NotebookServerSpec:
    """What one server runs with."""

    root_dir: Path  # the user's files (saved and restored)
    home_dir: Path  # HOME, jupyter's runtime and config dirs (not saved)
    token: str  # the server's secret (?token= / Authorization: token ...)
    idle_timeout_s: int
    limits: ResourceLimits  # memory_mb / cpus of the tree; wall_time_s caps the server's lifetime
    env: Mapping[str, str] = field(default_factory=dict)  # SAMPAN_URL, SAMPAN_API_KEY, SAMPAN_PROJECT...
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port
    python: str = sys.executable
    user: str | None = "nobody"  # None: stay the worker's own user


@dataclass(frozen=True)
class ServerStatus:
    """``/api/status`` plus whether a kernel is busy."""

    last_activity: datetime
    kernels: int
    connections: int
    busy: bool


@dataclass(frozen=True)
class ServeOutcome:
    stopped: str  # "idle" | "exited" | "time_limit" | "memory_limit"
    reason: str
    exit_code: int | None
    last_activity: datetime | None
    peak_memory_mb: float


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def server_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://{shown}:{port}/"


def jupyter_argv(spec: NotebookServerSpec, port: int) -> list[str]:
    """The command line (jupyter_server 2.x option names; the token is also in the env, not argv,
    so other local users do not read it from the process list)."""
    idle = max(int(spec.idle_timeout_s), 1)
    return [
        spec.python,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--ip={spec.host}",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={spec.root_dir}",
        "--ServerApp.allow_root=True",
        "--ServerApp.password=",
        # a backstop: the platform stops the server itself after idle_timeout_s (see serve_notebook)
        f"--ServerApp.shutdown_no_activity_timeout={idle + 120}",
        f"--MappingKernelManager.cull_idle_timeout={idle}",
        f"--MappingKernelManager.cull_interval={min(max(idle // 2, 10), 300)}",
        "--MappingKernelManager.cull_connected=True",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--ServerApp.log_level=WARN",
    ]


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _get_json(url: str, token: str, timeout: float = 5.0) -> Any:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - our own server
        return json.loads(answer.read().decode("utf-8"))


def server_status(url: str, token: str) -> ServerStatus | None:
    """The server's activity, or None when it does not answer (yet)."""
    try:
        status = _get_json(f"{url}api/status", token)
        kernels = _get_json(f"{url}api/kernels?no_track_activity=1", token)
    except (OSError, ValueError, urllib.error.URLError):
        return None
    busy = any(k.get("execution_state") == "busy" for k in kernels if isinstance(k, dict))
    latest = _utc(status["last_activity"])
    for kernel in kernels:
        if isinstance(kernel, dict) and kernel.get("last_activity"):
            latest = max(latest, _utc(kernel["last_activity"]))
    return ServerStatus(
        last_activity=latest,
        kernels=int(status.get("kernels", 0)),
        connections=int(status.get("connections", 0)),
        busy=busy,
    )


def _owner_ids(user: str | None) -> tuple[int, int] | None:
    if user is None or os.geteuid() != 0:
        return None
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def prepare_dirs(spec: NotebookServerSpec) -> None:
    """Create the files and home dirs, owned by the sandbox user, private to it."""
    ids = _owner_ids(spec.user)
    for path in (spec.root_dir.parent, spec.root_dir, spec.home_dir):
        path.mkdir(parents=True, exist_ok=True)
    spec.root_dir.parent.chmod(0o711)
    for path in (spec.root_dir, spec.home_dir):
        path.chmod(0o700)
        if ids is not None:
            for dirpath, dirnames, filenames in os.walk(path):
                for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                    os.lchown(name, *ids)


def _child_env(spec: NotebookServerSpec) -> dict[str, str]:
    home = str(spec.home_dir)
    threads = str(max(int(spec.limits["cpus"]), 1))
    env = {
        "PATH": f"{Path(spec.python).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "JUPYTER_RUNTIME_DIR": f"{home}/.local/share/jupyter/runtime",
        "JUPYTER_CONFIG_DIR": f"{home}/.jupyter",
        "JUPYTER_DATA_DIR": f"{home}/.local/share/jupyter",
        "IPYTHONDIR": f"{home}/.ipython",
        "JUPYTER_TOKEN": spec.token,
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "OPENBLAS_NUM_THREADS": threads,
    }
    env.update(spec.env)
    return env


def _tree_rss_mb(proc: Any) -> float:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil ships with the platform
        return 0.0
    try:
        parent = psutil.Process(proc.pid)
        members = [parent, *parent.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for member in members:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total / 1024**2


def _kill_tree(proc: subprocess.Popen, grace: float = 5.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # kernels left behind by the server, too
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)


def _pump(stream: Any, name: str, on_output: Callable[[str, str], None]) -> None:
    for raw in iter(stream.readline, b""):
        with contextlib.suppress(Exception):
            on_output(name, raw.decode("utf-8", "replace").rstrip("\n"))
    stream.close()


def serve_notebook(
    spec: NotebookServerSpec,
    *,
    on_ready: Callable[[str], None],
    on_tick: Callable[[ServerStatus | None], None],
    on_output: Callable[[str, str], None],
    tick_s: float = 2.0,
) -> ServeOutcome:
    """Run the server until it is idle, exits, passes a limit, or ``on_tick`` raises (the tree is
    stopped first, then the exception propagates)."""
    prepare_dirs(spec)
    port = spec.port or free_port(spec.host)
    url = server_url(spec.host, port)
    ids = _owner_ids(spec.user)
    cpus = max(int(spec.limits["cpus"]), 1)

    def limit_cpus() -> None:
        os.umask(0o077)
        with contextlib.suppress(OSError, AttributeError):
            available = sorted(os.sched_getaffinity(0))
            os.sched_setaffinity(0, available[:cpus])
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    proc = subprocess.Popen(
        jupyter_argv(spec, port),
        cwd=spec.root_dir,
        env=_child_env(spec),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        user=ids[0] if ids else None,
        group=ids[1] if ids else None,
        extra_groups=[] if ids else None,
        preexec_fn=limit_cpus,  # noqa: PLW1509 - no threads touch the interpreter state it needs
    )
    pumps = [
        threading.Thread(target=_pump, args=(proc.stdout, "stdout", on_output), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, "stderr", on_output), daemon=True),
    ]
    for pump in pumps:
        pump.start()
    started = time.monotonic()
    ready = False
    last: ServerStatus | None = None
    peak = 0.0
    memory_mb = float(spec.limits["memory_mb"])
    wall = float(spec.limits["wall_time_s"])
    try:
        while True:
            code = proc.poll()
            if code is not None:
                if not ready:
                    raise NotebookFailedToStart(
                        f"the notebook server exited with code {code} before it answered"
                    )
                return ServeOutcome(
                    "exited",
                    f"the notebook server exited with code {code}",
                    code,
                    last.last_activity if last else None,
                    peak,
                )
            rss = _tree_rss_mb(proc)
            peak = max(peak, rss)
            if rss > memory_mb:
                _kill_tree(proc)
                return ServeOutcome(
                    "memory_limit",
                    f"stopped: used {rss:.0f} MiB, over its memory limit of {memory_mb:.0f} MiB",
                    None,
                    last.last_activity if last else None,
                    peak,
                )
            elapsed = time.monotonic() - started
            if elapsed > wall:
                _kill_tree(proc)
                return ServeOutcome(
                    "time_limit",
                    f"stopped: ran {elapsed:.0f} s, its wall-time limit is {wall:.0f} s",
                    None,
                    last.last_activity if last else None,
                    peak,
                )
            status = server_status(url, spec.token)
            if status is not None:
                last = status
                if not ready:
                    ready = True
                    on_ready(url)
                idle_for = (datetime.now(UTC) - status.last_activity).total_seconds()
                if not status.busy and idle_for > spec.idle_timeout_s:
                    _kill_tree(proc)
                    return ServeOutcome(
                        "idle", f"idle for {spec.idle_timeout_s} s", None, status.last_activity, peak
                    )
            elif not ready and elapsed > READY_TIMEOUT_S:
                raise NotebookFailedToStart(
                    f"the notebook server did not answer within {READY_TIMEOUT_S:.0f} s"
                )
            on_tick(status if ready else None)
            time.sleep(tick_s)
    finally:
        if proc.poll() is None:
            _kill_tree(proc)
        for pump in pumps:
            pump.join(timeout=5)


# --- the user's files ---------------------------------------------------------------------------


def _skipped(relative: Path) -> bool:
    return any(part in SKIPPED_NAMES for part in relative.parts)


def pack_files(root: Path, *, max_bytes: int = MAX_SAVED_BYTES) -> tuple[bytes, int, list[str]]:
    """The files under ``root`` as one gzipped tar (regular files and dirs only; links and
    jupyter's caches skipped). Returns (archive, file count, skipped notes); files past
    ``max_bytes`` in total are left out and named."""
    buffer = io.BytesIO()
    count = 0
    total = 0
    notes: list[str] = []
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for dirpath, dirnames, filenames in os.walk(root):
            base = Path(dirpath)
            dirnames[:] = sorted(
                d for d in dirnames if d not in SKIPPED_NAMES and not (base / d).is_symlink()
            )
            for name in sorted(filenames):
                path = base / name
                relative = path.relative_to(root)
                if _skipped(relative) or path.is_symlink() or not path.is_file():
                    continue
                size = path.stat().st_size
                if total + size > max_bytes:
                    notes.append(
                        f"{relative} not saved: over the {max_bytes // 1024**2} MiB a notebook keeps"
                    )
                    continue
                total += size
                info = tar.gettarinfo(str(path), arcname=str(relative))
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = 0o600
                with path.open("rb") as fh:
                    tar.addfile(info, fh)
                count += 1
    return buffer.getvalue(), count, notes


def unpack_files(archive: bytes, root: Path, *, user: str | None = "nobody") -> int:
    """Restore a ``pack_files`` archive under ``root`` (owned by ``user``); unsafe members (absolute,
    ``..``, links, devices) are skipped. Returns the number of files restored."""
    root.mkdir(parents=True, exist_ok=True)
    ids = _owner_ids(user)
    count = 0
    resolved_root = root.resolve()
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            relative = Path(member.name)
            if relative.is_absolute() or ".." in relative.parts:
                continue
            dest = (root / relative).resolve()
            if resolved_root not in dest.parents:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is None:
                continue
            with dest.open("wb") as out:
                while chunk := source.read(1024 * 1024):
                    out.write(chunk)
            dest.chmod(0o600)
            count += 1
    if ids is not None:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.lchown(name, *ids)
    return count
