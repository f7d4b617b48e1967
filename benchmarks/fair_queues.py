"""Fair queues: three workspaces share two real worker processes; fair scheduling against FIFO.

Workspace A submits 120 jobs at once (a study's trials), then B 60 (a batch), then C 20 (a few
trainings): 200 `system.check` jobs of --seconds each, all of one priority class, so only the
workspace share decides. Two real Celery worker processes (`manage.py worker`, concurrency 1)
consume the `cpu` queue; the jobs are queued with jobs.services.job_create as the API does.

Each round runs both modes one after the other, on fresh workers: SAMPAN_JOB_SCHEDULING=fair
(the default) and fifo (the oldest job first: what a plain FIFO broker queue gives). Reported per
workspace and mode (medians over the rounds): its share of the worker time while all three had jobs
waiting to start (from the first job of the last workspace to submit until the first workspace's
last job started), and its longest wait (enqueued to started).

Needs PostgreSQL and Redis: DATABASE_URL and CELERY_BROKER_URL as for the platform (the script
migrates that database and deletes only the workspaces it made, named "fairbench-*").

    .venv/bin/python benchmarks/fair_queues.py                 # prints a Markdown section
    .venv/bin/python benchmarks/fair_queues.py --write         # also updates docs/benchmarks.md
    .venv/bin/python benchmarks/fair_queues.py --rounds 3 --seconds 0.2
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PLATFORM = REPO / "platform"
MANAGE = PLATFORM / "manage.py"
DOC = REPO / "docs" / "benchmarks.md"
SECTION = "fair_queues"
SUBMITS = (("A", 120), ("B", 60), ("C", 20))
WORKERS = 2


def _django():
    sys.path.insert(0, str(PLATFORM))
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()


def _start_worker(name: str, mode: str, log_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, SAMPAN_JOB_SCHEDULING=mode, PYTHONUNBUFFERED="1")
    log = (log_dir / f"{name}.log").open("ab")
    return subprocess.Popen(
        [
            sys.executable,
            str(MANAGE),
            "worker",
            "--queues",
            "cpu",
            "--concurrency",
            "1",
            "--hostname",
            f"{name}@fairbench",
            "--loglevel",
            "WARNING",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.5)


def _overlap(start: datetime, end: datetime, lo: datetime, hi: datetime) -> float:
    return max(0.0, (min(end, hi) - max(start, lo)).total_seconds())


def run_mode(mode: str, seconds: float, log_dir: Path) -> dict[str, dict[str, float]]:
    from django.conf import settings
    from jobs.models import Job, JobStatus, WorkerNode
    from jobs.services import job_create
    from workspaces.models import Workspace

    settings.SAMPAN_JOB_SCHEDULING = mode  # this process dispatches too (on each create)
    Workspace.objects.filter(name__startswith="fairbench-").delete()
    WorkerNode.objects.filter(hostname__endswith="@fairbench").delete()
    workers = [_start_worker(f"fair{i}-{mode}", mode, log_dir) for i in range(WORKERS)]
    try:

        def reported() -> bool:
            if any(worker.poll() is not None for worker in workers):
                raise SystemExit(f"a worker died at start-up; see {log_dir}")
            return WorkerNode.objects.filter(hostname__endswith="@fairbench").count() == WORKERS

        _wait(reported, 180, "the workers to report in")
        spaces = {name: Workspace.objects.create(name=f"fairbench-{name}") for name, _ in SUBMITS}
        submitted = datetime.now().astimezone()
        for name, count in SUBMITS:
            for _ in range(count):
                job_create(workspace=spaces[name], kind="system.check", params={"seconds": seconds})
        ids = {name: ws.pk for name, ws in spaces.items()}
        total = sum(count for _, count in SUBMITS)
        _wait(
            lambda: (
                Job.objects.filter(workspace_id__in=ids.values(), status__in=["succeeded", "failed"]).count()
                == total
            ),
            total * (seconds + 5) + 120,
            "the jobs to finish",
        )
        jobs = list(Job.objects.filter(workspace_id__in=ids.values()))
        assert all(job.status == JobStatus.SUCCEEDED for job in jobs), "a job failed"
        rows: list[dict[str, Any]] = [
            {
                "workspace_id": job.workspace_id,
                "enqueued_at": job.enqueued_at,
                "started_at": job.started_at,
                "finished_at": job.finished_at,
            }
            for job in jobs
        ]
    finally:
        for worker in workers:
            _stop(worker)
    # while all three were backlogged: from the first job of the last workspace to submit until the
    # first workspace's last job started
    t0 = max(min(r["enqueued_at"] for r in rows if r["workspace_id"] == ws_id) for ws_id in ids.values())
    last_start = {
        name: max(r["started_at"] for r in rows if r["workspace_id"] == ws_id) for name, ws_id in ids.items()
    }
    window_end = min(last_start.values())
    busy = {
        name: sum(
            _overlap(r["started_at"], r["finished_at"], t0, window_end)
            for r in rows
            if r["workspace_id"] == ws_id
        )
        for name, ws_id in ids.items()
    }
    all_busy = sum(busy.values()) or 1.0
    out: dict[str, dict[str, float]] = {}
    for name, ws_id in ids.items():
        mine = [r for r in rows if r["workspace_id"] == ws_id]
        out[name] = {
            "share": busy[name] / all_busy,
            "longest_wait": max((r["started_at"] - r["enqueued_at"]).total_seconds() for r in mine),
            "window": (window_end - t0).total_seconds(),
            "makespan": (max(r["finished_at"] for r in rows) - submitted).total_seconds(),
        }
    return out


def render(results: dict[str, list[dict[str, dict[str, float]]]], args) -> str:
    def med(mode: str, name: str, key: str) -> float:
        return statistics.median(run[name][key] for run in results[mode])

    lines = [
        f"<!-- {SECTION}:start -->",
        "## Fair queues: three workspaces on two workers (`benchmarks/fair_queues.py`)",
        "",
        f"200 `system.check` jobs of {args.seconds} s (A: 120 submitted first, then B: 60, then C: 20), "
        f"{WORKERS} real worker processes (concurrency 1) on PostgreSQL and Redis; median of "
        f"{args.rounds} round(s), both modes each round. Share: the workspace's part of the worker time "
        "while all three had jobs waiting (from the last one's first submission until the first one's "
        "last job started). Wait: enqueued to started, its longest job.",
        "",
        "| workspace (jobs) | share, fair | share, FIFO | longest wait, fair | longest wait, FIFO | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for name, count in SUBMITS:
        fair_wait, fifo_wait = med("fair", name, "longest_wait"), med("fifo", name, "longest_wait")
        lines.append(
            f"| {name} ({count}) | {med('fair', name, 'share'):.0%} | {med('fifo', name, 'share'):.0%} | "
            f"{fair_wait:.1f} s | {fifo_wait:.1f} s | {fair_wait / fifo_wait:.2f}× |"
        )
    lines += [
        "",
        f"All backlogged for {med('fair', 'A', 'window'):.1f} s (fair) and "
        f"{med('fifo', 'A', 'window'):.1f} s (FIFO). All 200 done after {med('fair', 'A', 'makespan'):.1f} s "
        f"(fair) and {med('fifo', 'A', 'makespan'):.1f} s (FIFO), ratio "
        f"{med('fair', 'A', 'makespan') / med('fifo', 'A', 'makespan'):.2f}×: the scheduler changes the "
        "order; what it costs in throughput is this ratio (the machine's noise included).",
        f"<!-- {SECTION}:end -->",
    ]
    return "\n".join(lines)


def write_section(text: str) -> None:
    doc = DOC.read_text()
    start, end = f"<!-- {SECTION}:start -->", f"<!-- {SECTION}:end -->"
    if start in doc:
        before, rest = doc.split(start, 1)
        after = rest.split(end, 1)[1]
        doc = before + text + after
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    DOC.write_text(doc)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=0.2, help="each job's computation (>= 0.1)")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL") or not os.environ.get("CELERY_BROKER_URL"):
        raise SystemExit("set DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis)")
    _django()
    subprocess.run([sys.executable, str(MANAGE), "migrate", "--noinput", "-v", "0"], check=True, cwd=REPO)
    log_dir = Path(os.environ.get("SAMPAN_HOME", "/tmp")) / "fairbench-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, list] = {"fair": [], "fifo": []}
    for round_no in range(args.rounds):
        for mode in ("fair", "fifo") if round_no % 2 == 0 else ("fifo", "fair"):
            results[mode].append(run_mode(mode, args.seconds, log_dir))
            print(f"round {round_no + 1} {mode}: {results[mode][-1]}", file=sys.stderr)
    text = render(results, args)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
