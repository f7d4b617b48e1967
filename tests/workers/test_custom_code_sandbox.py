"""The sandbox a user's code runs in (workers.custom_code.sandbox), with real processes: the memory
and wall-time limits stop the whole tree and say why, a cancel (poll raising) kills grandchildren
too, the network is cut (the host's PostgreSQL is unreachable) unless allowed, the code runs as the
sandbox user (no root files, no worker environment) and its events are answered. The tests run
as root, as the worker does (CI and the dev machine)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil  # type: ignore[import-untyped]
import pytest

from workers.contracts.custom_code import RunEvent, RunReply
from workers.custom_code.sandbox import SandboxOutcome, SandboxPolicy, allocate_run_uid, run_sandboxed
from workers.progress import JobCancelled

ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory the sandbox user can enter (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="sampan-h1-test-", dir="/tmp"))
    os.chmod(path, 0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def policy(
    *, wall_time_s: int = 60, memory_mb: int = 512, cpus: int = 1, network: bool = False
) -> SandboxPolicy:
    return SandboxPolicy(
        limits={"wall_time_s": wall_time_s, "memory_mb": memory_mb, "cpus": cpus}, network=network
    )


def run_code(
    code: str, cwd: Path, *, env: dict[str, str] | None = None, **kwargs: object
) -> tuple[SandboxOutcome, list[tuple[str, str]]]:
    lines: list[tuple[str, str]] = []
    pol = kwargs.pop("policy", None) or policy()
    outcome = run_sandboxed(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env or ENV,
        policy=pol,  # type: ignore[arg-type]
        on_output=lambda stream, line: lines.append((stream, line)),
        **kwargs,  # type: ignore[arg-type]
    )
    return outcome, lines


def stdout(lines: list[tuple[str, str]]) -> list[str]:
    return [line for stream, line in lines if stream == "stdout"]


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_memory_limit_stops_the_run_and_names_limit_and_use(open_dir: Path) -> None:
    outcome, lines = run_code(
        """
        import time
        blocks = []
        for _ in range(40):
            blocks.append(b"x" * (10 * 1024 * 1024))   # 10 MiB, touched
            time.sleep(0.02)
        print("allocated", flush=True)
        time.sleep(30)
        """,
        open_dir,
        policy=policy(memory_mb=150),
    )
    assert outcome.stopped == "memory_limit"
    assert outcome.exit_code is None
    assert "over its memory limit of 150 MiB" in outcome.reason
    used = int(outcome.reason.split("used ")[1].split(" MiB")[0])
    assert 150 < used < 400
    assert outcome.peak_memory_mb > 150
    assert outcome.duration_s < 20
    assert ("system", outcome.reason) in lines
    assert "allocated" not in stdout(lines)


def test_wall_time_limit_stops_the_run(open_dir: Path) -> None:
    outcome, lines = run_code(
        "import time\nprint('started', flush=True)\ntime.sleep(60)", open_dir, policy=policy(wall_time_s=1)
    )
    assert outcome.stopped == "time_limit"
    assert outcome.exit_code is None
    assert outcome.reason == "stopped: ran over its wall-time limit of 1 s"
    assert 1.0 <= outcome.duration_s < 8
    assert stdout(lines) == ["started"]


def test_cancel_kills_the_whole_tree_and_reraises(open_dir: Path) -> None:
    code = """
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c",
            "import subprocess, sys, time; g = subprocess.Popen(['sleep', '120']); "
            "print(g.pid, flush=True); time.sleep(120)"],
            stdout=subprocess.PIPE, text=True)
        grandchild = int(child.stdout.readline())
        # a daemon-like process that left the tree (its parent exits) but not the session
        orphan = subprocess.Popen([sys.executable, "-c",
            "import os, time\\nif os.fork(): os._exit(0)\\nprint(os.getpid(), flush=True); time.sleep(120)"],
            stdout=subprocess.PIPE, text=True)
        print(child.pid, grandchild, int(orphan.stdout.readline()), flush=True)
        time.sleep(120)
        """
    pids: list[int] = []
    lines: list[tuple[str, str]] = []

    def on_output(stream: str, line: str) -> None:
        lines.append((stream, line))
        if stream == "stdout" and len(line.split()) == 3:
            pids.extend(int(p) for p in line.split())

    def poll() -> None:
        if pids:
            raise JobCancelled("cancelled by the user")

    started = time.monotonic()
    with pytest.raises(JobCancelled):
        run_sandboxed(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=open_dir,
            env=ENV,
            policy=policy(),
            on_output=on_output,
            poll=poll,
        )
    assert len(pids) == 3, lines
    deadline = time.monotonic() + 5
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in pids if not gone(pid)] == []
    assert time.monotonic() - started < 30
    assert ("system", "stopped: cancelled") in lines


NETWORK_PROBE = """
    import socket
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=3).close()
        print("connected")
    except OSError as exc:
        print("refused", type(exc).__name__)
    """


def test_network_is_cut_unless_allowed(open_dir: Path) -> None:
    # the host's PostgreSQL listens on 127.0.0.1:5432 (the worker itself can connect)
    socket.create_connection(("127.0.0.1", 5432), timeout=3).close()
    cut, lines = run_code(NETWORK_PROBE, open_dir, policy=policy(network=False))
    assert cut.exit_code == 0
    assert stdout(lines)[0].startswith("refused")
    assert cut.isolation == {"user": True, "network": True}
    allowed, lines = run_code(NETWORK_PROBE, open_dir, policy=policy(network=True))
    assert stdout(lines) == ["connected"]
    assert allowed.isolation["network"] is False


def test_loopback_works_inside_the_cut_network(open_dir: Path) -> None:
    """A kernel or a data loader talking over 127.0.0.1 inside the sandbox still works."""
    outcome, lines = run_code(
        """
        import socket
        server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
        client = socket.create_connection(server.getsockname(), timeout=3)
        conn, _ = server.accept(); client.sendall(b"ping"); print(conn.recv(4).decode())
        """,
        open_dir,
    )
    assert outcome.exit_code == 0, lines
    assert stdout(lines) == ["ping"]


def test_the_code_runs_as_the_sandbox_user_and_cannot_read_root_files(open_dir: Path) -> None:
    secret_dir = Path(tempfile.mkdtemp(prefix="sampan-h1-secret-", dir="/tmp"))
    try:
        os.chmod(secret_dir, 0o700)
        (secret_dir / "inside.txt").write_text("hidden")
        secret_file = open_dir / "secret.txt"
        secret_file.write_text("top secret")
        os.chmod(secret_file, 0o600)
        outcome, lines = run_code(
            f"""
            import os, resource
            print("uid", os.getuid(), os.getgid(), os.getgroups())
            attempts = (lambda: open({str(secret_file)!r}).read(), lambda: os.listdir({str(secret_dir)!r}))
            for attempt in attempts:
                try:
                    print("read", attempt())
                except PermissionError:
                    print("denied")
            print("core", resource.getrlimit(resource.RLIMIT_CORE)[1])
            print("umask", oct(os.umask(0)))
            print("cpus", len(os.sched_getaffinity(0)))
            print([line for line in open("/proc/self/status") if line.startswith("NoNewPrivs")][0].strip())
            """,
            open_dir,
        )
    finally:
        shutil.rmtree(secret_dir)
    out = stdout(lines)
    nobody = pwd.getpwnam("nobody")
    assert out[0] == f"uid {nobody.pw_uid} {nobody.pw_gid} []"
    assert out[1:3] == ["denied", "denied"]
    assert out[3:] == ["core 0", "umask 0o77", "cpus 1", "NoNewPrivs:\t1"]
    assert outcome.isolation["user"] is True


def test_the_child_gets_exactly_its_env(open_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/secret")
    monkeypatch.setenv("SECRET_KEY", "worker-secret")
    outcome, lines = run_code(
        "import json, os; print(json.dumps(dict(os.environ)))", open_dir, env={**ENV, "MINE": "1"}
    )
    env = json.loads(stdout(lines)[0])
    assert "DATABASE_URL" not in env and "SECRET_KEY" not in env and "CELERY_BROKER_URL" not in env
    assert env["MINE"] == "1" and env["OMP_NUM_THREADS"] == "1"
    assert "SAMPAN_RUN_EVENTS_FD" not in env  # no on_event: no event pipe


def test_exit_code_and_stderr_are_an_outcome(open_dir: Path) -> None:
    outcome, lines = run_code("import sys\nprint('to err', file=sys.stderr)\nraise SystemExit(3)", open_dir)
    assert outcome.exit_code == 3 and outcome.stopped is None
    assert outcome.reason == "exited with code 3"
    assert ("stderr", "to err") in lines


def test_events_are_handed_over_and_metrics_answered(open_dir: Path) -> None:
    events: list[RunEvent] = []

    def on_event(event: RunEvent) -> RunReply | None:
        events.append(event)
        prune = event.get("kind") == "metrics" and event.get("step") == 2
        return RunReply(kind="run_reply", version=1, prune=prune) if prune else None

    outcome, lines = run_code(
        """
        import json, os
        out = os.fdopen(int(os.environ["SAMPAN_RUN_EVENTS_FD"]), "w", buffering=1)
        back = os.fdopen(int(os.environ["SAMPAN_RUN_REPLY_FD"]))
        out.write("not json\\n")
        out.write(json.dumps({"kind": "status", "version": 1, "message": "loading"}) + "\\n")
        for step in (1, 2):
            event = {"kind": "metrics", "version": 1, "step": step, "metrics": {"acc": step / 4}}
            out.write(json.dumps(event) + "\\n")
            print(json.loads(back.readline())["prune"])
        """,
        open_dir,
        on_event=on_event,
    )
    assert outcome.exit_code == 0, lines
    assert [e["kind"] for e in events] == ["status", "metrics", "metrics"]
    assert events[2].get("metrics") == {"acc": 0.5}
    assert stdout(lines) == ["False", "True"]
    assert any(stream == "system" and "not JSON" in line for stream, line in lines)


def test_forked_workers_sharing_memory_are_not_counted_twice(open_dir: Path) -> None:
    """A parent with 100 MiB and three forked workers sharing it (copy-on-write, as data-loader
    workers do) holds ~100 MiB, not 400: a 250 MiB limit lets it finish."""
    outcome, lines = run_code(
        """
        import os, time
        block = b"x" * (100 * 1024 * 1024)
        children = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                time.sleep(1.5)
                os._exit(0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        print("done", len(block) // (1024 * 1024))
        """,
        open_dir,
        policy=policy(memory_mb=250),
    )
    assert outcome.stopped is None, lines
    assert stdout(lines) == ["done 100"]
    assert 90 < outcome.peak_memory_mb < 250


def test_a_run_uid_leaves_no_process_behind_even_one_that_left_the_session(open_dir: Path) -> None:
    code = """
        import os, subprocess, sys
        sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
        escaped = subprocess.Popen(sleeper, start_new_session=True)
        print(escaped.pid, flush=True)
        import resource
        print("nproc", *resource.getrlimit(resource.RLIMIT_NPROC))
        """
    with allocate_run_uid() as uid:
        outcome, lines = run_code(
            code,
            open_dir,
            policy=SandboxPolicy(
                limits={"wall_time_s": 60, "memory_mb": 512, "cpus": 1}, network=False, uid=uid
            ),
        )
        assert outcome.exit_code == 0, lines
        escaped = int(stdout(lines)[0])
        assert stdout(lines)[1] == "nproc 2048 2048"  # the uid is the run's: a fork bomb stops there
        deadline = time.monotonic() + 5
        while not gone(escaped) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gone(escaped)


def test_output_lines_are_cut_progress_bars_redrawn_and_nothing_lost(open_dir: Path) -> None:
    outcome, lines = run_code(
        """
        import sys
        print("x" * 200_000)
        sys.stdout.write("epoch 1:  10%\\repoch 1:  50%\\repoch 1: 100%\\n")
        for i in range(30_000):
            print(i)
        sys.stdout.write("no newline at the end")
        """,
        open_dir,
    )
    assert outcome.exit_code == 0
    out = stdout(lines)
    assert out[0] == "x" * 16_384 + " [line cut]"
    assert out[1] == "epoch 1: 100%"
    assert out[2:-1] == [str(i) for i in range(30_000)]
    assert out[-1] == "no newline at the end"


def test_a_worker_that_is_not_root_runs_unisolated_and_says_so(open_dir: Path) -> None:
    """The sandbox run by an unprivileged worker (here: as nobody) cannot switch users or cut the
    network: it runs the code anyway, records isolation false and says why in system lines."""
    repo = Path(__file__).resolve().parents[2]
    driver = open_dir / "driver.py"
    driver.write_text(
        textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        sys.path.insert(0, {str(repo)!r})
        from workers.custom_code.sandbox import SandboxPolicy, run_sandboxed
        lines = []
        outcome = run_sandboxed(
            [sys.executable, "-c", "import os; print(os.getuid())"], cwd=Path({str(open_dir)!r}),
            env={{"PATH": "/usr/bin:/bin"}},
            policy=SandboxPolicy(limits={{"wall_time_s": 30, "memory_mb": 256, "cpus": 1}}, network=False),
            on_output=lambda stream, line: lines.append([stream, line]),
        )
        print(json.dumps({{"isolation": outcome.isolation, "exit_code": outcome.exit_code, "lines": lines}}))
        """)
    )
    os.chmod(driver, 0o644)
    ran = subprocess.run(
        ["su", "-s", "/bin/sh", "nobody", "-c", f"{sys.executable} {driver}"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["exit_code"] == 0
    assert result["isolation"] == {"user": False, "network": False}
    system = [line for stream, line in result["lines"] if stream == "system"]
    assert any(
        line.startswith("network isolation unavailable: unshare(CLONE_NEWNET) failed") for line in system
    )
    assert "not running as root: the code runs as the worker's own user" in system
    assert ["stdout", str(pwd.getpwnam("nobody").pw_uid)] in result["lines"]
