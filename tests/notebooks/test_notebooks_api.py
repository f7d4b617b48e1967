"""The notebooks API without a worker: start (one live notebook per user and project), who sees a
notebook (only its owner), limits and idle timeout checked, stop, and the secret only for the owner."""

from __future__ import annotations

import pytest
from accounts.models import ApiToken
from jobs.models import Job
from notebooks.models import Notebook
from notebooks.services import notebook_token_issue, notebook_tokens_revoke

pytestmark = pytest.mark.django_db


def start(client, project, **body):
    return client.post("/api/v1/notebooks/", {"project": project.pk, **body}, format="json")


def test_start_queues_a_server_job_and_a_second_start_returns_the_same_notebook(tenants, api_client):
    alice = api_client(tenants["alice"])
    first = start(alice, tenants["project_a"], idle_timeout_s=120, limits={"memory_mb": 1024, "cpus": 1})
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["status"] == "starting" and body["project"] == tenants["project_a"].pk
    assert body["idle_timeout_s"] == 120 and body["open_url"] is None and body["url"] == ""
    assert body["limits"]["memory_mb"] == 1024 and body["limits"]["cpus"] == 1
    job = Job.objects.get(pk=body["job"])
    assert job.kind == "notebooks.serve" and job.queue == "cpu" and job.params["notebook"] == body["id"]
    assert job.params["platform_url"] == "http://testserver"  # where the request came to
    notebook = Notebook.objects.get(pk=body["id"])
    assert notebook.storage_prefix == (
        f"notebooks/{tenants['ws_a'].pk}/{tenants['alice'].pk}/{tenants['project_a'].pk}/"
    )
    assert len(notebook.secret) >= 40 and "secret" not in body

    again = start(alice, tenants["project_a"])
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    assert Notebook.objects.count() == 1 and Job.objects.filter(kind="notebooks.serve").count() == 1


def test_only_the_owner_sees_a_notebook(tenants, api_client):
    body = start(api_client(tenants["alice"]), tenants["project_a"]).json()
    erin = api_client(tenants["erin"])  # an editor in the same workspace
    assert erin.get(f"/api/v1/notebooks/{body['id']}/").status_code == 404
    assert erin.post(f"/api/v1/notebooks/{body['id']}/stop/").status_code == 404
    assert erin.get(f"/api/v1/notebooks/?project={tenants['project_a'].pk}").json()["results"] == []
    bob = api_client(tenants["bob"])
    assert bob.get(f"/api/v1/notebooks/{body['id']}/").status_code == 404
    assert api_client().get(f"/api/v1/notebooks/{body['id']}/").status_code in (401, 403)
    mine = api_client(tenants["alice"]).get(f"/api/v1/notebooks/?project={tenants['project_a'].pk}").json()
    assert [n["id"] for n in mine["results"]] == [body["id"]]

    # erin's own notebook in the same project is hers alone
    hers = start(erin, tenants["project_a"]).json()
    assert hers["id"] != body["id"]
    assert api_client(tenants["alice"]).get(f"/api/v1/notebooks/{hers['id']}/").status_code == 404


def test_refusals_name_the_problem(tenants, api_client):
    alice = api_client(tenants["alice"])
    other = start(alice, tenants["project_b"])  # a project of another workspace
    assert other.status_code == 400 and "project" in other.json()["error"]["details"]
    viewer = start(api_client(tenants["carol"]), tenants["project_a"])
    assert viewer.status_code == 403, viewer.content
    too_much = start(alice, tenants["project_a"], limits={"memory_mb": 10**9})
    assert too_much.status_code == 400
    assert too_much.json()["error"]["code"] == "custom_job_limit_too_high"
    assert "SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB" in too_much.json()["error"]["message"]
    short = start(alice, tenants["project_a"], idle_timeout_s=3)
    assert short.status_code == 400 and "idle_timeout_s" in short.json()["error"]["message"]
    assert Notebook.objects.count() == 0


def test_stop_before_a_worker_took_it_stops_at_once_and_twice_is_a_conflict(tenants, api_client):
    alice = api_client(tenants["alice"])
    body = start(alice, tenants["project_a"]).json()
    stopped = alice.post(f"/api/v1/notebooks/{body['id']}/stop/")
    assert stopped.status_code == 200, stopped.content
    assert stopped.json()["status"] == "stopped" and stopped.json()["stop_reason"] == "stopped by its owner"
    assert Job.objects.get(pk=body["job"]).status == "cancelled"
    again = alice.post(f"/api/v1/notebooks/{body['id']}/stop/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "notebook_unavailable"
    # a stopped notebook does not count: the next start is a new one
    fresh = start(alice, tenants["project_a"])
    assert fresh.status_code == 201 and fresh.json()["id"] != body["id"]


def test_open_url_carries_the_secret_only_for_the_owner_of_a_running_notebook(tenants, api_client):
    from notebooks.api.serializers import NotebookSerializer
    from rest_framework.test import APIRequestFactory

    body = start(api_client(tenants["alice"]), tenants["project_a"]).json()
    Notebook.objects.filter(pk=body["id"]).update(status="running", url="http://127.0.0.1:9999/")
    answer = api_client(tenants["alice"]).get(f"/api/v1/notebooks/{body['id']}/").json()
    notebook = Notebook.objects.get(pk=body["id"])
    assert answer["url"] == "http://127.0.0.1:9999/"
    assert answer["open_url"] == f"http://127.0.0.1:9999/lab?token={notebook.secret}"
    request = APIRequestFactory().get("/")
    request.user = tenants["erin"]
    assert NotebookSerializer(notebook, context={"request": request}).data["open_url"] is None


def test_the_sdk_token_of_a_notebook_expires_and_is_revoked(tenants, api_client, settings):
    settings.SAMPAN_NOTEBOOK_TOKEN_TTL_S = 600
    body = start(api_client(tenants["alice"]), tenants["project_a"]).json()
    notebook = Notebook.objects.get(pk=body["id"])
    issued = notebook_token_issue(notebook=notebook)
    token = ApiToken.objects.get(pk=issued.token.pk)
    assert token.user == tenants["alice"] and token.status == "active"
    assert 590 <= (token.expires_at - token.created_at).total_seconds() <= 610
    assert notebook_tokens_revoke(notebook=notebook) == 1
    token.refresh_from_db()
    assert token.status == "revoked"


def test_a_notebook_whose_job_died_is_failed_and_a_new_start_makes_another(tenants, api_client):
    alice = api_client(tenants["alice"])
    body = start(alice, tenants["project_a"]).json()
    Notebook.objects.filter(pk=body["id"]).update(status="running", url="http://127.0.0.1:9999/")
    Job.objects.filter(pk=body["job"]).update(status="failed", error="worker lost (heartbeat stale)")
    seen = alice.get(f"/api/v1/notebooks/{body['id']}/").json()
    assert seen["status"] == "failed" and "worker lost" in seen["stop_reason"] and seen["open_url"] is None
    fresh = start(alice, tenants["project_a"])
    assert fresh.status_code == 201 and fresh.json()["id"] != body["id"]
