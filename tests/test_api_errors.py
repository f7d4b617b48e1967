"""Bad input answers a clear 4xx in the one error shape; never a 500, never a traceback."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["message"]
    assert "Traceback" not in response.content.decode()
    if code:
        assert body["error"]["code"] == code, body
    return body["error"]


def bearer(key: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


def test_unknown_api_route_is_a_json_404(client):
    assert_error(client.get("/api/v1/no-such-thing/"), 404, "not_found")
    assert_error(client.get("/api/nope"), 404, "not_found")


def test_unauthenticated_is_401(client):
    error = assert_error(client.get("/api/v1/workspaces/"), 401, "not_authenticated")
    assert "credentials" in error["message"].lower()


def test_wrong_credentials_are_400_invalid_credentials(make_user):
    make_user("dora", password="right-password-123")
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/v1/auth/csrf/").json()["csrf_token"]
    response = client.post(
        "/api/v1/auth/login/",
        {"username": "dora", "password": "wrong"},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert_error(response, 400, "invalid_credentials")
    ok = client.post(
        "/api/v1/auth/login/",
        {"username": "dora", "password": "right-password-123"},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert ok.status_code == 200 and ok.json()["username"] == "dora"
    assert client.get("/api/v1/auth/me/").json()["username"] == "dora"


def test_login_without_csrf_token_is_refused(make_user):
    make_user("eve", password="right-password-123")
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/api/v1/auth/login/",
        {"username": "eve", "password": "right-password-123"},
        content_type="application/json",
    )
    error = assert_error(response, 403)
    assert "CSRF" in error["message"]


def test_session_write_without_csrf_is_refused(make_user):
    user = make_user("fay")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    error = assert_error(
        client.post("/api/v1/workspaces/", {"name": "x"}, content_type="application/json"), 403
    )
    assert "CSRF" in error["message"]


def test_revoked_and_expired_tokens_are_401(make_user, client):
    from accounts.models import ApiToken
    from accounts.services import api_token_create, api_token_revoke

    user = make_user("gus")
    issued = api_token_create(user=user, name="ci")
    assert client.get("/api/v1/auth/me/", **bearer(issued.key)).status_code == 200
    api_token_revoke(token=issued.token)
    assert "revoked" in assert_error(client.get("/api/v1/auth/me/", **bearer(issued.key)), 401)["message"]

    expiring = api_token_create(user=user, name="short", expires_at=timezone.now() + timedelta(hours=1))
    ApiToken.objects.filter(pk=expiring.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert "expired" in assert_error(client.get("/api/v1/auth/me/", **bearer(expiring.key)), 401)["message"]
    assert_error(client.get("/api/v1/auth/me/", **bearer("spk_made_up")), 401, "authentication_failed")
    assert_error(client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION="Bearer"), 401)


def test_invalid_json_is_400(make_user, client, token_for):
    key = token_for(make_user("hal"))
    response = client.post(
        "/api/v1/workspaces/", data="{not json", content_type="application/json", **bearer(key)
    )
    assert "JSON" in assert_error(response, 400, "parse_error")["message"]


def test_wrong_content_type_is_415(make_user, client, token_for):
    key = token_for(make_user("ida"))
    response = client.post("/api/v1/workspaces/", data="name=x", content_type="text/plain", **bearer(key))
    assert "text/plain" in assert_error(response, 415, "unsupported_media_type")["message"]


def test_oversized_body_is_413_and_stores_nothing(make_user, client, token_for, settings):
    from workspaces.models import Workspace

    key = token_for(make_user("jo"))
    big = '{"name": "x", "description": "' + "a" * (settings.SAMPAN_MAX_REQUEST_BYTES + 10) + '"}'
    error = assert_error(
        client.post("/api/v1/workspaces/", data=big, content_type="application/json", **bearer(key)),
        413,
        "request_too_large",
    )
    assert error["details"]["limit_bytes"] == settings.SAMPAN_MAX_REQUEST_BYTES
    assert not Workspace.objects.exists()


def test_validation_errors_name_the_field(make_user, client, token_for):
    key = token_for(make_user("kim"))
    error = assert_error(
        client.post("/api/v1/workspaces/", {}, content_type="application/json", **bearer(key)), 400, "invalid"
    )
    assert error["message"].startswith("name:") and "name" in error["details"]
    ws = client.post(
        "/api/v1/workspaces/", {"name": "K"}, content_type="application/json", **bearer(key)
    ).json()
    job = client.post(
        "/api/v1/jobs/",
        {"workspace": ws["id"], "kind": "teleport"},
        content_type="application/json",
        **bearer(key),
    )
    assert "system.check" in assert_error(job, 400, "invalid")["message"]
    params = client.post(
        "/api/v1/jobs/",
        {"workspace": ws["id"], "kind": "system.check", "params": {"seconds": -1}},
        content_type="application/json",
        **bearer(key),
    )
    assert "seconds" in str(assert_error(params, 400, "invalid")["details"])


def test_method_not_allowed_is_405(make_user, client, token_for):
    key = token_for(make_user("lea"))
    assert_error(client.delete("/api/v1/auth/me/", **bearer(key)), 405, "method_not_allowed")


def test_unhandled_crash_is_a_500_without_traceback(make_user, client, token_for, monkeypatch):
    from workspaces.api import views

    def explode(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views.services, "workspace_create", explode)
    client.raise_request_exception = False
    key = token_for(make_user("max"))
    response = client.post(
        "/api/v1/workspaces/", {"name": "boom"}, content_type="application/json", **bearer(key)
    )
    error = assert_error(response, 500, "server_error")
    assert "secret internals" not in response.content.decode() and "secret" not in error["message"]


def test_browser_routes_serve_the_app_not_an_api_error(client):
    response = client.get("/workspaces/1")
    assert response.status_code in (200, 503)
    assert response["Content-Type"].startswith("text/html")


def test_missing_built_asset_is_a_404_not_the_app_page(client):
    assert_error(client.get("/assets/index-deadbeef.js"), 404, "not_found")


def test_multipart_uploads_may_exceed_the_json_body_limit(make_user, client, token_for, settings):
    """A large file upload is not refused by the JSON body cap; the endpoint's own limit applies."""
    from workspaces.services import project_create, workspace_create

    settings.SAMPAN_MAX_REQUEST_BYTES = 2048
    user = make_user("ned")
    project = project_create(user=user, workspace=workspace_create(user=user, name="W"), name="P")
    key = token_for(user)
    dataset = client.post(
        "/api/v1/datasets/",
        {"workspace": project.workspace_id, "project": project.pk, "name": "D"},
        content_type="application/json",
        **bearer(key),
    ).json()
    from django.core.files.uploadedfile import SimpleUploadedFile

    junk = SimpleUploadedFile("big.zip", b"not a zip" * 1000, content_type="application/zip")
    response = client.post(f"/api/v1/datasets/{dataset['id']}/imports/", {"archive": junk}, **bearer(key))
    assert response.status_code == 400, response.content  # judged as an archive, not refused as too large
    assert response.json()["error"]["code"] != "request_too_large"
    big_json = client.post(
        "/api/v1/workspaces/",
        data='{"name": "' + "x" * 4096 + '"}',
        content_type="application/json",
        **bearer(key),
    )
    assert_error(big_json, 413, "request_too_large")


def test_deleting_what_is_still_used_is_a_409_naming_the_users(tenants, api_client):
    """A delete that an on_delete=PROTECT reference refuses (a study uses the dataset's version) is a
    409 naming what uses it, and nothing is deleted."""
    from datasets.models import Dataset, DatasetVersion

    from tests.test_tenancy import study

    version = study(tenants).dataset_version
    response = api_client(tenants["alice"]).delete(f"/api/v1/datasets/{version.dataset_id}/")
    error = assert_error(response, 409, "in_use")
    assert "study" in error["message"] and error["details"]["total"] == 1
    assert error["details"]["used_by"][0]["kind"] == "automl.study"
    assert (
        Dataset.objects.filter(pk=version.dataset_id).exists()
        and DatasetVersion.objects.filter(pk=version.pk).exists()
    )
