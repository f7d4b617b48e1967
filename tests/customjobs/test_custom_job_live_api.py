"""The whole custom-code path through the REST API with a live worker: upload a script, start it
with hyperparameters, follow its output with GET /jobs/{id}/logs/ until ``finished``, and read its
result (exit code, metrics) from GET /jobs/{id}/."""

from __future__ import annotations

import pytest

from tests.customjobs.code_factories import post_code
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = b"""import sys

import sampan.run as run

print("params", sorted(run.params.items()))
print("argv", sys.argv[1:])
for step in (1, 2):
    run.log_metrics(step=step, score=run.params["lr"] * step)
print("oops", file=sys.stderr)
"""


def test_upload_run_and_follow_a_script_through_the_api(live_worker, tenants, api_client):
    alice = api_client(tenants["alice"])
    archive = post_code(alice, tenants["project_a"], SCRIPT, filename="fit.py")
    assert archive.status_code == 201, archive.content
    body = {
        "project": tenants["project_a"].pk,
        "code_archive": archive.json()["id"],
        "args": ["--quiet"],
        "hyperparameters": {"lr": 0.25, "tag": "a"},
        "limits": {"wall_time_s": 120, "memory_mb": 1024, "cpus": 1},
    }
    created = alice.post("/api/v1/custom-jobs/", body, format="json")
    assert created.status_code == 201, created.content
    job_id = created.json()["id"]

    lines: list[dict] = []
    after = 0

    def follow():
        nonlocal after
        page = alice.get(f"/api/v1/jobs/{job_id}/logs/?after={after}&limit=3").json()
        lines.extend(page["lines"])
        after = page["next_after"]
        return page["finished"] or None

    wait_for(follow, timeout=300, interval=0.5, what=f"custom job {job_id}'s logs to finish")
    job = alice.get(f"/api/v1/jobs/{job_id}/").json()
    text = "\n".join(f"{line['stream']}: {line['text']}" for line in lines)
    assert job["status"] == "succeeded", f"{job['error']}\n{text}"
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))  # every line once, in order
    assert "stdout: params [('lr', 0.25), ('tag', 'a')]" in text
    assert "stdout: argv ['--quiet', '--lr=0.25', '--tag=a']" in text
    assert "stderr: oops" in text
    result = job["result"]
    assert result["kind"] == "custom_job_result" and result["exit_code"] == 0
    assert result["metrics"] == {"score": 0.5}
    # nothing more comes once finished
    assert alice.get(f"/api/v1/jobs/{job_id}/logs/?after={after}").json() == {
        "lines": [],
        "next_after": after,
        "finished": True,
    }
