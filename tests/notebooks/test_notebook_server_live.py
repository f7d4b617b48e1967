"""A notebook server on a live worker, through the web process: start it, run a cell that uses the
SDK against the platform, save a file, stop, start again (the file is back); its secret guards it;
an idle server stops by itself."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime

import pytest
import requests
import websocket
from accounts.models import ApiToken
from jobs.models import Job, JobLogLine
from notebooks.models import Notebook

from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def api(live_web: str, key: str, method: str, path: str, **kwargs) -> requests.Response:
    return requests.request(
        method, f"{live_web}/api/v1{path}", headers={"Authorization": f"Bearer {key}"}, timeout=60, **kwargs
    )


def until(notebook_id: int, statuses: tuple[str, ...], timeout: float = 240) -> Notebook:
    def reached():
        notebook = Notebook.objects.get(pk=notebook_id)
        if notebook.status in statuses:
            return notebook
        if notebook.status == "failed" and "failed" not in statuses:
            job = Job.objects.get(pk=notebook.job_id)
            raise AssertionError(f"notebook failed: {notebook.stop_reason} / {job.error}")
        return None

    return wait_for(reached, timeout=timeout, interval=1, what=f"notebook {notebook_id} {statuses}")


def run_cell(url: str, token: str, code: str, timeout: float = 120) -> tuple[str, list[str]]:
    """Start a kernel over the server's REST API, execute ``code`` over the kernel websocket; the
    cell's stdout and its error lines (if any)."""
    headers = {"Authorization": f"token {token}"}
    kernel = requests.post(f"{url}api/kernels", json={"name": "python3"}, headers=headers, timeout=60)
    assert kernel.status_code == 201, kernel.text
    kernel_id = kernel.json()["id"]
    session = uuid.uuid4().hex
    ws = websocket.create_connection(
        f"{url.replace('http', 'ws', 1)}api/kernels/{kernel_id}/channels?session_id={session}",
        header=[f"Authorization: token {token}"],
        timeout=timeout,
    )
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "username": "test",
                    "session": session,
                    "msg_type": "execute_request",
                    "version": "5.3",
                    "date": datetime.now(UTC).isoformat(),
                },
                "parent_header": {},
                "metadata": {},
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": False,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
                "channel": "shell",
                "buffers": [],
            }
        )
    )
    out: list[str] = []
    errors: list[str] = []
    try:
        while True:
            message = json.loads(ws.recv())
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = message["msg_type"]
            if kind == "stream":
                out.append(message["content"]["text"])
            elif kind == "error":
                errors.extend(message["content"]["traceback"])
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                break
    finally:
        ws.close()
    return "".join(out), errors


def test_a_notebook_runs_sdk_code_keeps_files_and_only_its_token_opens_it(
    live_worker, live_web, tenants, token_for, settings
):
    key = token_for(tenants["alice"])
    project = tenants["project_a"]
    (settings.SAMPAN_HOME / "blobs").mkdir(parents=True, exist_ok=True)  # the platform's blobs
    started = api(live_web, key, "POST", "/notebooks/", json={"project": project.pk, "idle_timeout_s": 600})
    assert started.status_code == 201, started.text
    first = until(started.json()["id"], ("running",))
    answer = api(live_web, key, "GET", f"/notebooks/{first.pk}/").json()
    assert answer["status"] == "running" and answer["url"] == first.url
    assert answer["open_url"] == f"{first.url}lab?token={first.secret}"
    url, secret = first.url, first.secret

    # without the secret the server refuses (API 403, the app redirects to its login page)
    assert requests.get(f"{url}api/status", timeout=30).status_code == 403
    assert (
        requests.get(f"{url}api/status", headers={"Authorization": "token nope"}, timeout=30).status_code
        == 403
    )
    lab = requests.get(f"{url}lab", timeout=30, allow_redirects=False)
    assert lab.status_code == 302 and "login" in lab.headers["Location"]
    assert requests.get(answer["open_url"], timeout=30).status_code == 200

    # a cell uses the SDK, configured for alice and this project, against the platform
    code = (
        "import os, sampan\n"
        "client = sampan.Client()\n"
        "print('projects:', sorted(p.name for p in client.projects.list()))\n"
        "print('project:', os.environ['SAMPAN_PROJECT'])\n"
        "print('user:', os.getuid() != 0)\n"
        f"try:\n    os.listdir({str(settings.SAMPAN_HOME / 'blobs')!r})\n    print('blobs: readable')\n"
        "except PermissionError:\n    print('blobs: denied')\n"
        "print('platform env:', [k for k in ('DATABASE_URL', 'CELERY_BROKER_URL', 'DJANGO_SECRET_KEY')"
        " if k in os.environ])\n"
    )
    out, errors = run_cell(url, secret, code)
    assert errors == [], "\n".join(errors)
    assert "projects: ['Project A']" in out, out  # alice's project, not bob's
    assert f"project: {project.pk}" in out and "user: True" in out  # the kernel is not root
    assert "blobs: denied" in out and "platform env: []" in out  # nor can it read the platform's secrets

    # a cell submits the notebook's own code as a custom training job (it runs once a worker is free:
    # the test's single worker is busy serving this notebook until it stops)
    script = (
        'import sampan.run as run\nrun.log_metrics(step=1, score=0.5)\nprint("hello from the notebook")\n'
    )
    submit = (
        "import pathlib, sampan.jobs\n"
        f"pathlib.Path('from_notebook.py').write_text({script!r})\n"
        "job = sampan.jobs.submit('from_notebook.py', hyperparameters={'epochs': 1})\n"
        "print('submitted:', job.id, job.data['kind'])\n"
    )
    out, errors = run_cell(url, secret, submit)
    assert errors == [], "\n".join(errors)
    submitted = re.search(r"submitted: (\d+) training.custom", out)
    assert submitted, out
    submitted_job = int(submitted.group(1))

    # a file written in the notebook is saved when it stops
    folder = requests.put(
        f"{url}api/contents/notes",
        json={"type": "directory"},
        headers={"Authorization": f"token {secret}"},
        timeout=30,
    )
    assert folder.status_code in (200, 201), folder.text
    saved = requests.put(
        f"{url}api/contents/notes/hello.txt",
        json={"type": "file", "format": "text", "content": "kept across servers\n"},
        headers={"Authorization": f"token {secret}"},
        timeout=30,
    )
    assert saved.status_code in (200, 201), saved.text
    stopping = api(live_web, key, "POST", f"/notebooks/{first.pk}/stop/")
    assert stopping.status_code == 200 and stopping.json()["status"] in ("stopping", "stopped")
    first = until(first.pk, ("stopped",), timeout=120)
    assert first.stop_reason == "stopped by its owner"
    wait_for(
        lambda: Job.objects.filter(pk=first.job_id, status="cancelled").exists(),
        timeout=60,
        what="the server's job to be cancelled",
    )
    sdk_tokens = ApiToken.objects.filter(user=tenants["alice"], name=f"notebook {first.pk}")
    assert sdk_tokens.count() == 1 and sdk_tokens.get().status == "revoked"
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{url}api/status", timeout=10)
    assert JobLogLine.objects.filter(job_id=first.job_id, text__startswith="notebook stopped").exists()
    assert api(live_web, key, "POST", f"/notebooks/{first.pk}/stop/").status_code == 409

    # the job the notebook submitted ran its code for alice, in this project
    wait_for(
        lambda: Job.objects.filter(pk=submitted_job, status__in=("succeeded", "failed")).exists(),
        timeout=180,
        what="the job a notebook cell submitted to finish",
    )
    ran = Job.objects.get(pk=submitted_job)
    assert ran.status == "succeeded", ran.error
    assert ran.project_id == project.pk and ran.created_by_id == tenants["alice"].pk
    assert ran.result["metrics"] == {"score": 0.5} and ran.params["spec"]["hyperparameters"] == {"epochs": 1}
    assert JobLogLine.objects.filter(job_id=submitted_job, text="hello from the notebook").exists()

    # another user (even an editor in the same workspace) never sees it
    erin = token_for(tenants["erin"])
    assert api(live_web, erin, "GET", f"/notebooks/{first.pk}/").status_code == 404

    # a new server for the same user and project gets the file back
    again = api(live_web, key, "POST", "/notebooks/", json={"project": project.pk, "idle_timeout_s": 600})
    assert again.status_code == 201 and again.json()["id"] != first.pk
    second = until(again.json()["id"], ("running",))
    assert second.secret != secret
    content = requests.get(
        f"{second.url}api/contents/notes/hello.txt",
        headers={"Authorization": f"token {second.secret}"},
        timeout=30,
    )
    assert content.status_code == 200 and content.json()["content"] == "kept across servers\n"
    api(live_web, key, "POST", f"/notebooks/{second.pk}/stop/")
    until(second.pk, ("stopped",), timeout=120)


def test_an_idle_notebook_stops_by_itself(live_worker, live_web, tenants, token_for):
    key = token_for(tenants["alice"])
    started = api(
        live_web, key, "POST", "/notebooks/", json={"project": tenants["project_a"].pk, "idle_timeout_s": 10}
    )
    assert started.status_code == 201, started.text
    running = until(started.json()["id"], ("running",))
    stopped = until(running.pk, ("stopped",), timeout=120)
    assert stopped.stop_reason == "idle for 10 s"
    assert stopped.last_activity_at is not None and stopped.stopped_at is not None
    job = wait_for(
        lambda: Job.objects.filter(pk=stopped.job_id, status__in=("succeeded", "failed")).first(),
        timeout=60,
        what="the server's job to end",
    )
    assert job.status == "succeeded" and job.result["stopped"] == "idle", job.error
    assert (stopped.stopped_at - stopped.last_activity_at).total_seconds() >= 10
    assert ApiToken.objects.get(user=tenants["alice"], name=f"notebook {stopped.pk}").status == "revoked"
