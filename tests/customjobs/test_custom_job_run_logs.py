"""A custom job's log lines (customjobs.running.JobLog): numbered on from what the job already has
(a retry continues), NUL bytes and very long lines stored safely, a flood capped with a note."""

from __future__ import annotations

import os

import pytest
from jobs.models import JobLogLine

pytestmark = [pytest.mark.django_db]


def test_lines_are_numbered_on_cleaned_and_capped(tenants, monkeypatch):
    from customjobs import running

    job = tenants["job_a"]
    JobLogLine.objects.create(job=job, seq=1, stream="system", text="an earlier attempt")
    log = running.JobLog(job)
    log.add("stdout", "plain\n")
    log.add("stderr", "nul \x00 inside")
    log.add("stdout", "x" * (running.LOG_LINE_MAX_CHARS + 5))
    log.add("weird", "an unknown stream is a system line")
    log.flush()
    rows = list(JobLogLine.objects.filter(job=job).order_by("seq").values_list("seq", "stream", "text"))
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5]
    assert rows[1][1:] == ("stdout", "plain") and rows[2][1:] == ("stderr", "nul \ufffd inside")
    assert rows[3][2].endswith("... [5 more characters]") and rows[4][1] == "system"
    assert list(log.stderr_tail) == ["nul \ufffd inside"]

    monkeypatch.setattr(running, "LOG_MAX_LINES", 7)
    again = running.JobLog(job)
    for i in range(10):
        again.add("stdout", f"line {i}")
    again.close()
    texts = list(JobLogLine.objects.filter(job=job, seq__gt=5).order_by("seq").values_list("text", flat=True))
    assert texts == [
        "line 0",
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "line 5",
        "line 6",
        "3 more lines were not kept (a run keeps 7).",
    ]


def test_a_failure_names_the_exit_code_and_the_last_traceback():
    from customjobs.running import failure_message

    result = {"stopped": None, "exit_code": 3, "reason": ""}
    stderr = ["warming up", "Traceback (most recent call last):", '  File "a.py", line 1', "KeyError: 'x'"]
    assert failure_message(result, stderr) == (
        "exit code 3\nTraceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'"
    )
    assert failure_message(dict(result, exit_code=-9), []) == "exit code -9 (killed by SIGKILL)"
    limit = {"stopped": "memory_limit", "exit_code": None, "reason": "stopped: used 412 MiB, over 256 MiB"}
    assert failure_message(limit, stderr) == "stopped: used 412 MiB, over 256 MiB"
    assert failure_message(dict(result, exit_code=0), stderr) is None
    assert failure_message({"stopped": "pruned", "exit_code": 1, "reason": ""}, stderr) is None


def test_work_dirs_of_ended_jobs_are_swept(tenants, settings, tmp_path):
    from customjobs.running import _work_dir_prefix, job_work_dirs, prepare_work_dir, sweep_work_dirs
    from jobs.models import Job
    from jobs.runner import JobInputRejected

    from tests.jobs.factories import job as make_job

    settings.SAMPAN_SANDBOX_ROOT = tmp_path / "sandbox"
    jobs = {}
    for status in ("running", "failed", "succeeded"):
        row = make_job(tenants["project_a"], kind="system.check", params={"seconds": 1}, created_by=None)
        Job.objects.filter(pk=row.pk).update(status=status)
        jobs[status] = row
    if os.geteuid() == 0:  # pytest's tmp_path lies in a folder only root passes: said, not run into
        with pytest.raises(JobInputRejected, match=r"sandbox user 'nobody' cannot reach .* does not let"):
            prepare_work_dir(jobs["running"])
    settings.SAMPAN_SANDBOX_USER = ""  # the worker's own user
    first = prepare_work_dir(jobs["running"])
    again = prepare_work_dir(jobs["running"])  # a retry: a new random name, the earlier folder gone
    assert first != again and job_work_dirs(jobs["running"]) == [again] and not first.exists()
    assert (
        first.name.rsplit("-", 1)[0] == again.name.rsplit("-", 1)[0]
        and len(again.name.rsplit("-", 1)[1]) == 32
    )
    assert (again.stat().st_mode & 0o777) == 0o711 and (again.parent.stat().st_mode & 0o777) == 0o711
    for status in ("failed", "succeeded"):  # left by a worker killed mid-run
        row = jobs[status]
        (again.parent / f"{_work_dir_prefix(row.pk, row.created_at)}-{'b' * 32}" / "output").mkdir(
            parents=True
        )
    # the same id made by another database sharing SAMPAN_HOME (another creation time): not ours to remove
    other = settings.SAMPAN_SANDBOX_ROOT / "jobs" / f"{jobs['failed'].pk}-20000101000000000000-{'a' * 32}"
    other.mkdir()

    assert sweep_work_dirs() == sorted([jobs["failed"].pk, jobs["succeeded"].pk])
    left = sorted(p.name for p in (settings.SAMPAN_SANDBOX_ROOT / "jobs").iterdir())
    assert left == sorted([again.name, other.name])
