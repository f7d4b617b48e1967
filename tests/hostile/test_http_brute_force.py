"""Brute force is throttled through the real HTTP stack (gunicorn with Sampan's config, counts in
Redis): wrong passwords per account and per client address (the API's login and Django admin's),
invalid personal tokens and invalid deployment keys per client address. Past a limit the answer is
429 with Retry-After, the right credentials included; other accounts and addresses are unaffected.

The server trusts one proxy (SAMPAN_TRUSTED_PROXY_COUNT=1), so each test plays its own client
addresses through X-Forwarded-For; one test checks the connection's own address without a proxy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png
from tests.harness import live_env
from tests.hostile.live_gunicorn import start_gunicorn

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

LIMITS = {
    "SAMPAN_LOGIN_FAILURES_PER_ACCOUNT": "5",
    "SAMPAN_LOGIN_FAILURES_PER_ADDRESS": "8",
    "SAMPAN_AUTH_FAILURES_PER_ADDRESS": "6",
    "SAMPAN_AUTH_FAILURE_WINDOW_SECONDS": "300",
}
PASSWORD = "right-password-123"


def redis_client():
    import redis
    from django.conf import settings

    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def forget_failures() -> None:
    client = redis_client()
    for name in client.scan_iter("sampan:auth-failures:*"):
        client.delete(name)


@pytest.fixture(scope="module")
def web(django_db_setup, django_db_blocker) -> Iterator[str]:
    forget_failures()
    process, url = start_gunicorn("web-throttled", live_env(**LIMITS, SAMPAN_TRUSTED_PROXY_COUNT="1"))
    yield url
    process.stop()
    forget_failures()


def assert_throttled(response: requests.Response) -> int:
    assert response.status_code == 429, (response.status_code, response.text[:300])
    wait = int(response.headers["Retry-After"])
    assert 0 < wait <= 300
    error = response.json()["error"]
    assert error["code"] == "throttled" and "Too many" in error["message"], error
    assert error["details"]["retry_after_seconds"] in (wait, wait - 1, wait + 1)
    return wait


class Browser:
    """A browser session at one client address (X-Forwarded-For, trusted as one proxy's)."""

    def __init__(self, base: str, address: str) -> None:
        self.base, self.session = base, requests.Session()
        self.session.headers["X-Forwarded-For"] = address
        self.csrf = self.session.get(f"{base}/api/v1/auth/csrf/", timeout=10).json()["csrf_token"]

    def login(self, username: str, password: str) -> requests.Response:
        response = self.session.post(
            f"{self.base}/api/v1/auth/login/",
            timeout=10,
            json={"username": username, "password": password},
            headers={"X-CSRFToken": self.csrf},
        )
        self.csrf = self.session.cookies.get("csrftoken") or self.csrf  # a login rotates it
        return response


def test_wrong_passwords_lock_the_account_even_for_the_right_password(web, make_user):
    make_user("pat", password=PASSWORD)
    make_user("quinn", password=PASSWORD)
    attacker = Browser(web, "203.0.113.1")
    for _ in range(5):
        assert attacker.login("pat", "guess").json()["error"]["code"] == "invalid_credentials"
    assert_throttled(attacker.login("pat", PASSWORD))
    assert_throttled(Browser(web, "203.0.113.2").login("pat", PASSWORD))  # per account, any address
    assert Browser(web, "203.0.113.2").login("quinn", PASSWORD).status_code == 200
    assert any(redis_client().scan_iter("sampan:auth-failures:login-account:*")), "not counted in Redis"


def test_wrong_passwords_from_one_address_are_limited_across_accounts(web, make_user):
    make_user("rita", password=PASSWORD)
    attacker = Browser(web, "203.0.113.3")
    for i in range(8):
        assert attacker.login(f"nobody{i}", "guess").status_code == 400
    assert_throttled(attacker.login("rita", PASSWORD))
    assert Browser(web, "203.0.113.4").login("rita", PASSWORD).status_code == 200


def test_a_successful_login_clears_the_accounts_count(web, make_user):
    make_user("sam", password=PASSWORD)
    user = Browser(web, "203.0.113.5")
    for _ in range(2):  # 3 + 3 failures: over the account's 5 unless the success in between cleared them
        for _ in range(3):
            assert user.login("sam", "typo").status_code == 400
        assert user.login("sam", PASSWORD).status_code == 200


def test_admin_login_has_the_same_limits(web, make_user):
    make_user("tess", password=PASSWORD, is_staff=True)
    session = requests.Session()
    session.headers["X-Forwarded-For"] = "203.0.113.6"
    page = session.get(f"{web}/admin/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)[1]

    def post(password: str) -> requests.Response:
        return session.post(
            f"{web}/admin/login/?next=/admin/",
            data={"username": "tess", "password": password, "csrfmiddlewaretoken": token},
            timeout=10,
            headers={"Referer": f"{web}/admin/login/"},
            allow_redirects=False,
        )

    for _ in range(5):
        assert post("guess").status_code == 200  # the form again, with its error
    assert_throttled(post(PASSWORD))
    fresh = Browser(web, "203.0.113.7")
    assert_throttled(fresh.login("tess", PASSWORD))  # one count for both logins


def test_invalid_personal_tokens_are_limited_per_address(web, make_user, token_for):
    key = token_for(make_user("uma"))
    me = f"{web}/api/v1/auth/me/"
    guesser = {"X-Forwarded-For": "203.0.113.8"}
    for i in range(5):
        response = requests.get(me, headers={**guesser, "Authorization": f"Bearer spk_guess{i}"}, timeout=10)
        assert response.status_code == 401, response.text
    assert_throttled(requests.get(me, headers={**guesser, "Authorization": "Bearer spk_guess6"}, timeout=10))
    assert_throttled(requests.get(me, headers={**guesser, "Authorization": f"Bearer {key}"}, timeout=10))
    other = requests.get(
        me, headers={"X-Forwarded-For": "203.0.113.9", "Authorization": f"Bearer {key}"}, timeout=10
    )
    assert other.status_code == 200 and other.json()["username"] == "uma"


def test_invalid_deployment_keys_are_limited_per_address(web, tenants, trained_digits):
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    url = f"{web}/api/v1/deployments/{deployment.pk}/predict/"
    body = {"instances": [{"image": b64(png(0))}]}
    guesser = {"X-Forwarded-For": "203.0.113.10"}
    for i in range(5):
        response = requests.post(
            url, json=body, headers={**guesser, "X-Sampan-Key": f"spd_guess{i}"}, timeout=30
        )
        assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_key"
    assert_throttled(
        requests.post(url, json=body, headers={**guesser, "X-Sampan-Key": "spd_guess6"}, timeout=30)
    )
    assert_throttled(requests.post(url, json=body, headers={**guesser, "X-Sampan-Key": secret}, timeout=30))
    other = requests.post(
        url, json=body, headers={"X-Forwarded-For": "203.0.113.11", "X-Sampan-Key": secret}, timeout=30
    )
    assert other.status_code == 200, other.text


def test_without_a_trusted_proxy_the_connection_address_counts(make_user, token_for, settings, client):
    """Embedded defaults (no Redis): counted in the process, by the connection's address;
    X-Forwarded-For is the client's own claim and is ignored."""
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.SAMPAN_AUTH_FAILURES_PER_ADDRESS = 3
    assert urlsplit(settings.CELERY_BROKER_URL).scheme == "filesystem"
    key = token_for(make_user("vic"))
    for i in range(3):
        spoofed = {"HTTP_X_FORWARDED_FOR": f"198.51.100.{i}", "REMOTE_ADDR": "192.0.2.50"}
        response = client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer spk_bad{i}", **spoofed)
    assert response.status_code == 429 and response["Retry-After"]
    assert (
        client.get(
            "/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}", REMOTE_ADDR="192.0.2.50"
        ).status_code
        == 429
    )
    assert (
        client.get(
            "/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}", REMOTE_ADDR="192.0.2.51"
        ).status_code
        == 200
    )
