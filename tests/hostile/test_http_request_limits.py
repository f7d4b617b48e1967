"""Request limits answer in the one error shape and name the limit, through gunicorn started as
`manage.py up` starts it (with platform/config/gunicorn.py): more than 100 files in one request, a
long URL, too many or too large headers. gunicorn's own HTML pages only meet requests far past
Django's limits (docs/deploy.md, "Limits")."""

from __future__ import annotations

import pytest
import requests

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def error_of(response: requests.Response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["Content-Type"].startswith("application/json"), response.text[:300]
    error = response.json()["error"]
    assert error["code"] == code, error
    return error


@pytest.fixture
def dataset_url(configured_web, make_user, token_for):
    from workspaces.services import project_create, workspace_create

    user = make_user("lim")
    project = project_create(user=user, workspace=workspace_create(user=user, name="W"), name="P")
    headers = {"Authorization": f"Bearer {token_for(user)}"}
    dataset = requests.post(
        f"{configured_web}/api/v1/datasets/",
        json={"workspace": project.workspace_id, "project": project.pk, "name": "D"},
        headers=headers,
        timeout=10,
    ).json()
    return f"{configured_web}/api/v1/datasets/{dataset['id']}", headers


def test_more_files_than_allowed_names_the_limit(dataset_url):
    from datasets.models import Sample

    url, headers = dataset_url
    files = [("files", (f"{i}.png", b"not really a png", "image/png")) for i in range(101)]
    error = error_of(
        requests.post(url + "/imports/", files=files, headers=headers, timeout=30), 400, "too_many_files"
    )
    assert "at most 100 files" in error["message"] and error["details"] == {"max_files": 100}
    assert not Sample.objects.exists()


def test_long_urls_and_big_headers_are_json_errors(configured_web, dataset_url):
    url, headers = dataset_url
    error = error_of(
        requests.get(url + "/samples/?q=" + "a" * 9000, headers=headers, timeout=10), 414, "uri_too_long"
    )
    assert "8190" in error["message"] and error["details"]["limit_bytes"] == 8190
    many = {**headers, **{f"X-Extra-{i}": "1" for i in range(150)}}
    error = error_of(requests.get(url + "/", headers=many, timeout=10), 431, "too_many_headers")
    assert "limit is 100" in error["message"]
    big = {**headers, "X-Big": "b" * 10_000}
    error = error_of(requests.get(url + "/", headers=big, timeout=10), 431, "header_too_large")
    assert error["details"]["header"] == "X-Big" and "8190" in error["message"]
    # the prediction fast path hands these to Django, which answers the same
    predict = f"{configured_web}/api/v1/deployments/1/predict/"
    error_of(requests.post(predict + "?top_k=" + "1" * 9000, data=b"{}", timeout=10), 414, "uri_too_long")
    error_of(requests.post(predict, data=b"{}", headers=many, timeout=10), 431, "too_many_headers")
    # within the limits nothing changes
    assert requests.get(url + "/", headers={**headers, "X-Ok": "o" * 4000}, timeout=10).status_code == 200


def test_only_requests_far_past_the_limits_meet_gunicorn(configured_web):
    """A request line over gunicorn's 1 MiB cap is refused by gunicorn itself (documented), quickly."""
    response = requests.get(configured_web + "/api/v1/?" + "a" * (1024 * 1024 + 10), timeout=30)
    assert response.status_code in (400, 414)
    assert requests.get(configured_web + "/healthz", timeout=10).status_code in (200, 503)
