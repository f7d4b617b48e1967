"""Run a user's command in a sandbox: its own session, another user, no network, bounded time,
memory and CPUs, an environment of its own (never the worker's), its output streamed line by line.

``run_sandboxed`` starts ``python -I -S _launch.py`` as the child: the launcher cuts the network
(a new network namespace, loopback up but reaching nothing outside), sets RLIMIT_CORE 0, umask 077
and the CPU affinity, switches to the sandbox user, then execs the command (no ``preexec_fn``: safe
in a threaded worker). The parent watches the whole process tree: its resident memory (psutil,
every 0.2 s), its wall time, and ``poll()`` (about every 0.5 s; raising, e.g. ``JobCancelled``,
kills the tree and re-raises). Output lines and ``sampan.run`` events are handed to the callbacks on
the calling thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import psutil  # type: ignore[import-untyped]

from workers.contracts.custom_code import RUN_EVENT_VERSION, ResourceLimits, RunEvent, RunReply, StopReason
from workers.progress import JobCancelled

__all__ = ["SandboxError", "SandboxOutcome", "SandboxPolicy", "allocate_run_uid", "run_sandboxed"]

LAUNCHER = Path(__file__).with_name("_launch.py")
MEMORY_POLL_S = 0.2
POLL_EVERY_S = 0.5
KILL_GRACE_S = 3.0
MAX_LINE_CHARS = 16_384
MAX_READ_BYTES = 65_536
MAX_EVENT_BYTES = 1_048_576
QUEUE_LINES = 10_000
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")
MIB = 1024 * 1024


class SandboxError(RuntimeError):
    """The sandbox could not start the command (unknown user, launcher failure)."""


@dataclass(frozen=True)
class SandboxPolicy:
    limits: ResourceLimits  # wall_time_s, memory_mb (RSS of the whole tree), cpus
    network: bool  # False: a new network namespace (loopback only) where permitted
    user: str | None = "nobody"  # switch to this user when running as root; None: stay as is
    # run as this uid (and gid) instead of ``user``'s: one uid per run, so that concurrent runs (and
    # files a run leaves) are not readable by each other; ``user`` must still be set (None: stay)
    uid: int | None = None


@dataclass(frozen=True)
class SandboxOutcome:
    exit_code: int | None  # None when killed
    stopped: StopReason | None  # time_limit | memory_limit | cancelled | preempted | None
    reason: str
    duration_s: float
    peak_memory_mb: float
    # what was actually enforced: "user" (ran as the sandbox user), "network" (network cut)
    isolation: dict[str, bool] = field(default_factory=dict)


# Run uids: systemd's range for dynamic users (61184-65519), well clear of real accounts
RUN_UID_FIRST = 61184
RUN_UID_COUNT = 4096


def _uid_in_use(uid: int) -> bool:
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info.get("uids")
        if uids is not None and uid in (uids.real, uids.effective):
            return True
    return False


@contextlib.contextmanager
def allocate_run_uid(lock_dir: Path | None = None) -> Iterator[int]:
    """A uid no other run on this host holds (a per-uid ``flock`` kept while the run lasts, and no
    process running as it), for :attr:`SandboxPolicy.uid`."""
    folder = Path(lock_dir or Path(tempfile.gettempdir()) / "sampan-sandbox-uids")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for uid in range(RUN_UID_FIRST, RUN_UID_FIRST + RUN_UID_COUNT):
        handle = open(folder / f"{uid}.lock", "a+")  # noqa: SIM115 - held for the run
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            if _uid_in_use(uid):
                continue
            yield uid
            return
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
    raise SandboxError(f"no free run uid among {RUN_UID_COUNT} from {RUN_UID_FIRST}")


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _memory_mb(processes: list[psutil.Process]) -> float:
    """Resident memory of the tree: RSS for one process; for several, their proportional set sizes
    (shared pages counted once: forked data-loader workers share the parent's libraries)."""
    total = 0
    several = len(processes) > 1
    for proc in processes:
        try:
            total += proc.memory_full_info().pss if several else proc.memory_info().rss
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        except (psutil.AccessDenied, AttributeError):
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
    return total / MIB


def _session_members(sid: int, uid: int | None = None) -> list[psutil.Process]:
    """Every process still in the run's session (a child that daemonised leaves the tree, not the
    session, unless it called setsid itself), and every process of the run's own uid (nothing
    escapes that)."""
    members = []
    me = os.getpid()
    for proc in psutil.process_iter(["uids"]):
        try:
            if proc.pid == me:
                continue
            uids = proc.info.get("uids")
            if (uid is not None and uids is not None and uids.real == uid) or os.getsid(proc.pid) == sid:
                members.append(proc)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return members


def _kill_tree(root: psutil.Process, sid: int, *, grace_s: float, uid: int | None = None) -> None:
    """SIGTERM the process group, the tree, the session and the run uid's processes, SIGKILL what
    is left after ``grace_s``."""
    known = {p.pid: p for p in [*_tree(root), *_session_members(sid, uid)]}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if sig == signal.SIGKILL:
            _, alive = psutil.wait_procs(list(known.values()), timeout=grace_s)
            if not alive:
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(sid, sig)
        for proc in [*_tree(root), *_session_members(sid, uid)]:
            known.setdefault(proc.pid, proc)
        for proc in list(known.values()):
            try:
                proc.send_signal(sig)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
    psutil.wait_procs(list(known.values()), timeout=grace_s)


def _read_lines(stream: IO[bytes], name: str, out: queue.Queue[tuple[str, Any]]) -> None:
    """Hand ``stream``'s lines to ``out`` (blocking when it is full: a fast printer waits for the
    worker). Output lines are cut at ``MAX_LINE_CHARS``; a carriage return (a progress bar) keeps
    what was written after it; the rest of an overlong line is dropped unless it redraws a bar."""
    events = name == "event"
    limit = MAX_EVENT_BYTES if events else MAX_READ_BYTES
    continued = False
    for raw in iter(lambda: stream.readline(limit), b""):
        ended = raw.endswith(b"\n")
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not events and "\r" in text:
            text = next((part for part in reversed(text.split("\r")) if part.strip()), "")
        elif continued:  # the rest of a cut line
            continued = not ended
            continue
        continued = not ended
        if not events and len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " [line cut]"
        elif not ended and len(raw) >= limit:
            text += " [line cut]"
        if text or ended:
            out.put((name, text))
    stream.close()
    out.put(("eof", name))


def _format_mb(value: float) -> str:
    return f"{value:.0f} MiB"


def run_sandboxed(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    policy: SandboxPolicy,
    on_output: Callable[[str, str], None],
    on_event: Callable[[RunEvent], RunReply | None] | None = None,
    poll: Callable[[], None] | None = None,
) -> SandboxOutcome:
    """Run ``argv`` sandboxed by ``policy`` and wait for it (see the module's docstring).

    ``on_output(stream, line)`` gets ``"stdout"``/``"stderr"`` lines, and ``"system"`` lines the
    sandbox writes itself (an isolation it could not enforce, why it stopped the run).
    ``on_event`` gets each ``sampan.run`` event (``SAMPAN_RUN_EVENTS_FD``); a ``metrics`` event is
    answered on ``SAMPAN_RUN_REPLY_FD`` with its return value (prune false when None).
    A non-zero exit is an outcome, not an exception; ``poll()`` raising kills the tree and re-raises.
    """
    limits = policy.limits
    user = policy.user if os.geteuid() == 0 else None
    if user:
        import pwd

        try:
            pwd.getpwnam(user)
        except KeyError:
            raise SandboxError(f"the sandbox user {user!r} does not exist on this worker") from None
    child_env = dict(env)
    for name in THREAD_VARS:
        child_env.setdefault(name, str(max(1, limits["cpus"])))
    status_r, status_w = os.pipe()
    pass_fds = [status_w]
    events_r = events_w = reply_r = reply_w = -1
    if on_event is not None:
        events_r, events_w = os.pipe()
        reply_r, reply_w = os.pipe()
        pass_fds += [events_w, reply_r]
        child_env["SAMPAN_RUN_EVENTS_FD"] = str(events_w)
        child_env["SAMPAN_RUN_REPLY_FD"] = str(reply_r)
    config = {
        "status_fd": status_w,
        "network": policy.network,
        "cpus": limits["cpus"],
        "user": user,
        "uid": policy.uid if user else None,
        "argv": argv,
    }
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(config)],
            cwd=cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=pass_fds,
            start_new_session=True,
        )
    finally:
        for fd in (status_w, events_w, reply_r):
            if fd >= 0:
                os.close(fd)
    try:
        status_raw = b""
        with os.fdopen(status_r, "rb") as status_file:
            status_raw = status_file.read()
        status = json.loads(status_raw) if status_raw else {"user": False, "network": False, "errors": []}
    except ValueError:
        status = {"user": False, "network": False, "errors": ["the launcher's status was unreadable"]}
    isolation = {"user": bool(status.get("user")), "network": bool(status.get("network"))}
    messages: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=QUEUE_LINES)
    readers = [
        threading.Thread(target=_read_lines, args=(proc.stdout, "stdout", messages), daemon=True),
        threading.Thread(target=_read_lines, args=(proc.stderr, "stderr", messages), daemon=True),
    ]
    reply_file = None
    if on_event is not None:
        readers.append(
            threading.Thread(
                target=_read_lines, args=(os.fdopen(events_r, "rb"), "event", messages), daemon=True
            )
        )
        reply_file = os.fdopen(reply_w, "wb", buffering=0)
    for reader in readers:
        reader.start()
    for error in status.get("errors", []):
        on_output("system", str(error))
    if policy.user and user is None:
        on_output("system", "not running as root: the code runs as the worker's own user")

    root = psutil.Process(proc.pid)
    sid = proc.pid
    run_uid = policy.uid if user else None
    stopped: StopReason | None = None
    reason = ""
    peak = 0.0
    next_memory = next_poll = time.monotonic()
    open_streams = len(readers)

    def handle(kind: str, payload: Any) -> None:
        nonlocal open_streams
        if kind == "eof":
            open_streams -= 1
        elif kind == "event":
            _handle_event(payload, on_event, reply_file, on_output)
        else:
            on_output(kind, payload)

    try:
        while proc.poll() is None:
            now = time.monotonic()
            if now >= next_memory:
                next_memory = now + MEMORY_POLL_S
                used = _memory_mb(_tree(root))
                peak = max(peak, used)
                if used > limits["memory_mb"]:
                    stopped = "memory_limit"
                    reason = (
                        f"stopped: used {_format_mb(used)}, over its memory limit of "
                        f"{limits['memory_mb']} MiB"
                    )
                    on_output("system", reason)
                    _kill_tree(root, sid, grace_s=0.0, uid=run_uid)
                    break
                if now - started > limits["wall_time_s"]:
                    stopped = "time_limit"
                    reason = f"stopped: ran over its wall-time limit of {limits['wall_time_s']} s"
                    on_output("system", reason)
                    _kill_tree(root, sid, grace_s=KILL_GRACE_S, uid=run_uid)
                    break
            try:
                if poll is not None and now >= next_poll:
                    next_poll = now + POLL_EVERY_S
                    poll()
                with contextlib.suppress(queue.Empty):
                    handle(*messages.get(timeout=0.05))
            except BaseException as exc:  # poll() or a callback raised (JobCancelled): stop the tree
                cancelled = isinstance(exc, JobCancelled | KeyboardInterrupt)
                on_output(
                    "system", "stopped: cancelled" if cancelled else f"stopped: the worker failed: {exc!r}"
                )
                _kill_tree(root, sid, grace_s=KILL_GRACE_S, uid=run_uid)
                raise
        # the command is done: whatever it left running in its session goes too
        _kill_tree(root, sid, grace_s=1.0, uid=run_uid)
        exit_code = proc.wait()
        # the rest of its output: until every stream ends, or nothing came for 5 s (a process that
        # escaped the kill still holds a pipe)
        quiet_until = time.monotonic() + 5.0
        while open_streams > 0 and time.monotonic() < quiet_until:
            try:
                handle(*messages.get(timeout=0.1))
                quiet_until = time.monotonic() + 5.0
            except queue.Empty:
                continue
        while True:
            try:
                handle(*messages.get_nowait())
            except queue.Empty:
                break
    finally:
        if proc.poll() is None:
            _kill_tree(root, sid, grace_s=0.0, uid=run_uid)
            proc.wait()
        if reply_file is not None:
            reply_file.close()
    killed = exit_code < 0 or stopped is not None
    return SandboxOutcome(
        exit_code=None if killed else exit_code,
        stopped=stopped,
        reason=reason if stopped else ("" if exit_code == 0 else _exit_reason(exit_code)),
        duration_s=round(time.monotonic() - started, 3),
        peak_memory_mb=round(peak, 1),
        isolation=isolation,
    )


def _exit_reason(exit_code: int) -> str:
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"killed by {name}"
    return f"exited with code {exit_code}"


def _handle_event(
    line: str,
    on_event: Callable[[RunEvent], RunReply | None] | None,
    reply_file: IO[bytes] | None,
    on_output: Callable[[str, str], None],
) -> None:
    try:
        event = json.loads(line)
    except ValueError:
        on_output("system", f"ignored a run event that is not JSON: {line[:200]}")
        event = None
    if not isinstance(event, dict) or event.get("kind") not in ("metrics", "artifact", "status"):
        if event is not None:
            on_output("system", f"ignored an unknown run event: {line[:200]}")
        return
    reply: RunReply | None = None
    try:
        reply = on_event(cast(RunEvent, event)) if on_event is not None else None
    finally:
        if event.get("kind") == "metrics" and reply_file is not None:
            answer = reply or RunReply(kind="run_reply", version=RUN_EVENT_VERSION, prune=False)
            with contextlib.suppress(OSError):  # the code closed its end (it exited)
                reply_file.write((json.dumps(answer) + "\n").encode())
