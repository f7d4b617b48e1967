"""The UI language is a per-user, server-side preference; API errors stay English whatever it is."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_language_is_remembered_per_user(make_user, api_client):
    mei, tom = make_user("mei"), make_user("tom")
    api = api_client(mei)
    assert api.get("/api/v1/auth/me/").json()["language"] == "", "unset: the UI follows the browser"

    changed = api.patch("/api/v1/auth/me/", {"language": "zh-CN"}, format="json")
    assert changed.status_code == 200 and changed.json()["language"] == "zh-CN"
    assert api_client(mei).get("/api/v1/auth/me/").json()["language"] == "zh-CN"
    other = api_client(tom).get("/api/v1/auth/me/").json()
    assert other["language"] == "", "another user's choice is their own"

    assert api.patch("/api/v1/auth/me/", {"language": ""}, format="json").json()["language"] == ""


def test_unknown_language_is_refused_in_english_with_a_code(make_user, api_client):
    api = api_client(make_user("ana"))
    api.patch("/api/v1/auth/me/", {"language": "zh-CN"}, format="json")
    refused = api.patch("/api/v1/auth/me/", {"language": "klingon"}, format="json")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "invalid" and "language" in error["details"]
    assert "not a valid choice" in error["message"], "messages stay English in every UI language"
    assert api.get("/api/v1/auth/me/").json()["language"] == "zh-CN", "a refused write changes nothing"


def test_only_the_language_can_be_changed_this_way(make_user, api_client):
    api = api_client(make_user("raj"))
    response = api.patch("/api/v1/auth/me/", {"is_staff": True, "username": "root2"}, format="json")
    assert response.status_code == 200
    me = api.get("/api/v1/auth/me/").json()
    assert me["is_staff"] is False and me["username"] == "raj"
