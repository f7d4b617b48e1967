"""A job's output lines through GET /api/v1/jobs/{id}/logs/: in order, a page at a time from
``after``, ``finished`` once the job is final and every line was answered; members only."""

from __future__ import annotations

import pytest
from jobs.models import Job, JobLogLine, JobStatus

pytestmark = [pytest.mark.django_db, pytest.mark.openapi_conformance]


def write_lines(job: Job, count: int, *, start: int = 1) -> None:
    streams = ["stdout", "stderr", "system"]
    JobLogLine.objects.bulk_create(
        JobLogLine(job=job, seq=seq, stream=streams[seq % 3], text=f"line {seq}")
        for seq in range(start, start + count)
    )


def logs(client, job, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return client.get(f"/api/v1/jobs/{job.pk}/logs/" + (f"?{q}" if q else ""))


def test_lines_come_in_pages_and_finished_says_the_end(tenants, api_client):
    job = tenants["job_a"]
    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING)
    write_lines(job, 5)
    client = api_client(tenants["carol"])  # a viewer may read
    first = logs(client, job, limit=2)
    assert first.status_code == 200, first.content
    body = first.json()
    assert [line["seq"] for line in body["lines"]] == [1, 2]
    assert (
        body["lines"][0]["stream"] == "stderr"
        and body["lines"][0]["text"] == "line 1"
        and body["lines"][0]["at"]
    )
    assert body["next_after"] == 2 and body["finished"] is False
    rest = logs(client, job, after=2).json()
    assert [line["seq"] for line in rest["lines"]] == [3, 4, 5] and rest["next_after"] == 5
    assert rest["finished"] is False  # still running: more may come
    empty = logs(client, job, after=5).json()
    assert empty == {"lines": [], "next_after": 5, "finished": False}
    # more lines while it runs, then it ends
    write_lines(job, 2, start=6)
    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED)
    page = logs(client, job, after=5, limit=1).json()
    assert [line["seq"] for line in page["lines"]] == [6] and page["finished"] is False  # line 7 is left
    last = logs(client, job, after=6, limit=1).json()
    assert [line["seq"] for line in last["lines"]] == [7] and last["finished"] is True
    assert logs(client, job, after=7).json() == {"lines": [], "next_after": 7, "finished": True}
    # the default page is everything from the start
    assert [line["seq"] for line in logs(client, job).json()["lines"]] == list(range(1, 8))


def test_a_job_without_output_and_bad_queries(tenants, api_client):
    job = tenants["job_a"]
    client = api_client(tenants["alice"])
    assert logs(client, job).json() == {"lines": [], "next_after": 0, "finished": False}
    for query, field in [
        ({"after": "x"}, "after"),
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"after": -1}, "after"),
    ]:
        response = logs(client, job, **query)
        assert response.status_code == 400, (query, response.content)
        assert field in response.json()["error"]["details"]


def test_other_tenants_get_404(tenants, api_client):
    job = tenants["job_a"]
    write_lines(job, 3)
    response = logs(api_client(tenants["bob"]), job)
    assert response.status_code == 404
    assert "line" not in response.content.decode()


def test_a_thousand_lines_at_most_per_page(tenants, api_client):
    job = tenants["job_a"]
    Job.objects.filter(pk=job.pk).update(status=JobStatus.FAILED)
    write_lines(job, 1005)
    client = api_client(tenants["alice"])
    page = logs(client, job).json()
    assert len(page["lines"]) == 1000 and page["next_after"] == 1000 and page["finished"] is False
    tail = logs(client, job, after=page["next_after"]).json()
    assert [line["seq"] for line in tail["lines"]] == [1001, 1002, 1003, 1004, 1005] and tail[
        "finished"
    ] is True


def test_a_kept_artifact_is_downloaded_by_members_only(tenants, api_client, isolated_storage):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    job = tenants["job_a"]
    key = default_storage.save(
        f"custom-jobs/job-{job.pk}/artifacts/plots/loss.png", ContentFile(b"\x89PNG data")
    )
    foreign = default_storage.save("custom-jobs/job-999999/artifacts/x.txt", ContentFile(b"not yours"))
    artifacts = [
        {"path": "plots/loss.png", "name": "loss", "key": key, "sha256": "0" * 64, "size_bytes": 9},
        {"path": "x.txt", "name": "x", "key": foreign, "sha256": "0" * 64, "size_bytes": 9},
    ]
    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, result={"artifacts": artifacts})
    url = f"/api/v1/jobs/{job.pk}/artifacts/"
    carol = api_client(tenants["carol"])  # a viewer may download
    response = carol.get(url + "?path=plots/loss.png")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"\x89PNG data"
    assert 'filename="loss.png"' in response["Content-Disposition"]
    # only what the result lists, and only under the job's own folder
    assert carol.get(url + "?path=plots/other.png").status_code == 404
    assert carol.get(url + "?path=x.txt").status_code == 404
    assert carol.get(url).status_code == 400
    assert api_client(tenants["bob"]).get(url + "?path=plots/loss.png").status_code == 404
