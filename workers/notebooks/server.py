"""Run one JupyterLab server for one user, Django-free.

``serve_notebook`` starts ``jupyter lab`` in the sandbox (``workers.custom_code.sandbox``: a uid of
its own, the memory and wall-time limits of the tree; network on: the user's browser reaches it)
with a per-notebook token, waits for ``/api/status``, calls ``on_ready(url)``, then polls it:
``on_tick(status)`` every ``tick_s`` (the platform heartbeats, saves files, and may raise to stop:
``JobCancelled``), and the server is stopped once nothing happened for ``idle_timeout_s`` (no API
request, no kernel message, no kernel busy: it is asked to shut down). The whole process tree
(server + kernels) is stopped together. ``pack_files`` / ``unpack_files`` move the user's files to
and from one tar archive.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import sys
import tarfile
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
    ports: tuple[int, int] | None = None  # where to look for it (SAMPAN_NOTEBOOK_PORTS); None: anywhere
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
    restored: int = 0  # files restored from the archive before the start


def free_port(host: str, ports: tuple[int, int] | None = None) -> int:
    """A port nothing listens on at ``host``: any (``ports`` None) or the first free one in the
    inclusive range (docker-compose publishes a fixed range of the worker's ports)."""
    candidates = [0] if ports is None else list(range(ports[0], ports[1] + 1))
    where = "" if ports is None else f" in {ports[0]}-{ports[1]}"
    for candidate in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, candidate))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError(f"no free notebook port{where} on {host} (SAMPAN_NOTEBOOK_PORTS)")


def server_url(host: str, port: int) -> str:
    shown = socket.getfqdn() if host in ("0.0.0.0", "::", "") else host  # every interface: the host's name
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


Owner = tuple[int, int] | None  # (uid, gid) the files belong to; None: leave them as they are


def prepare_dirs(spec: NotebookServerSpec, owner: Owner) -> None:
    """Create the files and home dirs, owned by the run's uid, private to it."""
    for path in (spec.root_dir.parent, spec.root_dir, spec.home_dir):
        path.mkdir(parents=True, exist_ok=True)
    spec.root_dir.parent.chmod(0o711)
    for path in (spec.root_dir, spec.home_dir):
        path.chmod(0o700)
        _give(path, owner)


def _give(path: Path, owner: Owner) -> None:
    if owner is None or not path.exists():
        return
    os.lchown(path, *owner)
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), *owner)


def _child_env(spec: NotebookServerSpec) -> dict[str, str]:
    home = str(spec.home_dir)
    env = {
        "PATH": f"{Path(spec.python).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "JUPYTER_RUNTIME_DIR": f"{home}/.local/share/jupyter/runtime",
        "JUPYTER_CONFIG_DIR": f"{home}/.jupyter",
        "JUPYTER_DATA_DIR": f"{home}/.local/share/jupyter",
        "IPYTHONDIR": f"{home}/.ipython",
        "JUPYTER_TOKEN": spec.token,
        "PYTHONUNBUFFERED": "1",
    }
    env.update(spec.env)
    return env


def _request_shutdown(url: str, token: str) -> None:
    request = urllib.request.Request(
        f"{url}api/shutdown", method="POST", headers={"Authorization": f"token {token}"}
    )
    with contextlib.suppress(OSError, urllib.error.URLError):
        urllib.request.urlopen(request, timeout=10).close()  # noqa: S310 - our own server


def serve_notebook(
    spec: NotebookServerSpec,
    *,
    archive: bytes | None = None,
    on_ready: Callable[[str], None],
    on_tick: Callable[[ServerStatus | None], None],
    on_output: Callable[[str, str], None],
    tick_s: float = 2.0,
) -> ServeOutcome:
    """Restore ``archive`` (a ``pack_files`` archive) into the files dir, then run the server in the
    sandbox (``workers.custom_code.sandbox``: a uid of its own when the worker is root, the memory
    and wall-time limits of the whole tree, network on) until it is idle, exits, passes a limit, or
    ``on_tick`` raises (the tree is stopped first, then the exception propagates). The files stay
    in ``spec.root_dir`` (owned by root again) for the caller's final save."""
    from workers.custom_code.sandbox import SandboxPolicy, allocate_run_uid

    user = spec.user if os.geteuid() == 0 else None
    allocation = allocate_run_uid() if user else contextlib.nullcontext(None)
    with allocation as uid:
        owner: Owner = (uid, uid) if uid is not None else None
        prepare_dirs(spec, None)
        restored = unpack_files(archive, spec.root_dir, owner=None) if archive else 0
        prepare_dirs(spec, owner)
        try:
            policy = SandboxPolicy(limits=spec.limits, network=True, user=user, uid=uid)
            outcome = _serve(
                spec, policy, on_ready=on_ready, on_tick=on_tick, on_output=on_output, tick_s=tick_s
            )
        finally:
            root_again: Owner = (0, 0) if owner is not None else None
            _give(spec.root_dir, root_again)  # the uid's next run cannot read them
            _give(spec.home_dir, root_again)
    return ServeOutcome(
        stopped=outcome.stopped,
        reason=outcome.reason,
        exit_code=outcome.exit_code,
        last_activity=outcome.last_activity,
        peak_memory_mb=outcome.peak_memory_mb,
        restored=restored,
    )


def _serve(
    spec: NotebookServerSpec,
    policy: Any,
    *,
    on_ready: Callable[[str], None],
    on_tick: Callable[[ServerStatus | None], None],
    on_output: Callable[[str, str], None],
    tick_s: float,
) -> ServeOutcome:
    from workers.custom_code.sandbox import run_sandboxed

    port = spec.port or free_port(spec.host, spec.ports)
    url = server_url(spec.host, port)
    started = time.monotonic()
    state: dict[str, Any] = {"ready": False, "status": None, "next": 0.0, "idle_since": None}
    tail: list[str] = []

    def output(stream: str, line: str) -> None:
        if stream == "stderr":
            tail.append(line)
            del tail[:-20]
        on_output(stream, line)

    def poll() -> None:
        now = time.monotonic()
        if now < state["next"]:
            return
        state["next"] = now + tick_s
        status = server_status(url, spec.token)
        if status is not None:
            state["status"] = status
            if not state["ready"]:
                state["ready"] = True
                on_ready(url)
            idle_for = (datetime.now(UTC) - status.last_activity).total_seconds()
            if state["idle_since"] is None and not status.busy and idle_for > spec.idle_timeout_s:
                state["idle_since"] = now
                on_output("system", f"idle for {spec.idle_timeout_s} s: shutting the server down")
                _request_shutdown(url, spec.token)
        elif not state["ready"] and now - started > READY_TIMEOUT_S:
            raise NotebookFailedToStart(f"the notebook server did not answer within {READY_TIMEOUT_S:.0f} s")
        if state["idle_since"] is not None and now - state["idle_since"] > 30:
            raise NotebookIdle(f"idle for {spec.idle_timeout_s} s")  # it did not shut down: killed
        on_tick(status if state["ready"] else None)

    def outcome_of(stopped: str, reason: str, exit_code: int | None, peak: float) -> ServeOutcome:
        status = state["status"]
        return ServeOutcome(stopped, reason, exit_code, status.last_activity if status else None, peak)

    try:
        ran = run_sandboxed(
            jupyter_argv(spec, port),
            cwd=spec.root_dir,
            env=_child_env(spec),
            policy=policy,
            on_output=output,
            poll=poll,
        )
    except NotebookIdle as idle:
        return outcome_of("idle", str(idle), None, 0.0)
    if state["idle_since"] is not None:
        return outcome_of("idle", f"idle for {spec.idle_timeout_s} s", ran.exit_code, ran.peak_memory_mb)
    if ran.stopped is not None:
        return outcome_of(str(ran.stopped), ran.reason, ran.exit_code, ran.peak_memory_mb)
    if not state["ready"]:
        raise NotebookFailedToStart(
            f"the notebook server exited ({ran.reason or f'exit code {ran.exit_code}'}) before it answered"
            + (f": {tail[-1]}" if tail else "")
        )
    return outcome_of(
        "exited",
        f"the notebook server exited ({ran.reason or 'exit code 0'})",
        ran.exit_code,
        ran.peak_memory_mb,
    )


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


def unpack_files(archive: bytes, root: Path, *, owner: Owner = None) -> int:
    """Restore a ``pack_files`` archive under ``root`` (owned by ``owner``); unsafe members (absolute,
    ``..``, links, devices) are skipped. Returns the number of files restored."""
    root.mkdir(parents=True, exist_ok=True)
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
    _give(root, owner)
    return count
