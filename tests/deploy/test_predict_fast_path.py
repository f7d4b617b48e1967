"""The WSGI fast path (config.wsgi.application) answers hosted predictions exactly as Django's own
handler (config.wsgi.django_application, the middleware chain and the view) does: the same status,
headers and body for every kind of answer, and it hands to Django what the middleware decides.
Every middleware decision it re-implements (security headers, CSP, no-store, throttled keys, the
500 error shape) or hands over (URL, header and body limits, hosts, redirects, cookies,
idempotency) is one request sent both ways; a middleware chain it does not mirror stops it loudly.

Both are called in this process with the same WSGI environ; the gunicorn-level tests in this folder
go through the fast path too."""

from __future__ import annotations

import io
import json

import pytest
from config.security import API_CACHE_CONTROL, CONTENT_SECURITY_POLICY
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import override_settings

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png

pytestmark = [pytest.mark.integration, pytest.mark.django_db]
VOLATILE_HEADERS = {"Retry-After", "Content-Length"}  # latency_ms and seconds vary


def call(
    app, *, path, method="POST", body=b"", content_type="application/json", key=None, query="", extra=None
):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SCRIPT_NAME": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_HOST": "127.0.0.1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
    }
    if key is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    environ.update(extra or {})
    started = {}

    def start_response(status, headers):
        started["status"], started["headers"] = status, headers

    # as Django's test client does: the test's transaction must outlive the request
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        result = app(environ, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    return started["status"], started["headers"], content


class Recording:
    """Django's handler, counting the requests the fast path hands to it."""

    def __init__(self) -> None:
        self.handler = WSGIHandler()
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.handler(environ, start_response)


def both(**request):
    """(fast path answer, Django's answer, whether the fast path handed the request to Django)."""
    from deploy.api.fastpath import PredictFastPath

    django_app = Recording()
    fast = PredictFastPath(django_app)
    fast_answer = call(fast, **request)
    delegated = django_app.calls == 1
    return fast_answer, call(django_app.handler, **request), delegated


def normalized(answer, json_body: bool = True):
    status, headers, content = answer
    body = json.loads(content) if json_body or content.startswith(b"{") else content
    if isinstance(body, dict):
        body.pop("latency_ms", None)
    if isinstance(body, dict) and body.get("error", {}).get("code") in ("quota_exceeded", "throttled"):
        body["error"]["message"] = body["error"]["details"]["retry_after_seconds"] = None  # seconds left
    return (
        status,
        sorted((name, None if name in VOLATILE_HEADERS else value) for name, value in headers),
        body,
    )


def assert_same(request, *, status: int, handled: bool = True, code: str | None = None):
    fast, django, delegated = both(**request)
    assert delegated is not handled, f"expected the fast path {'to answer' if handled else 'to hand over'}"
    assert normalized(fast) == normalized(django)
    assert fast[0].startswith(f"{status} "), fast
    if handled:
        assert dict(fast[1])["Content-Length"] == str(len(fast[2]))
    if code is not None:
        assert json.loads(fast[2])["error"]["code"] == code
    return fast


@pytest.fixture
def deployed(tenants, trained_digits):
    mv = model_version_from(tenants, trained_digits)
    deployment, key, secret = deployment_with_key(tenants, mv)
    return {
        "deployment": deployment,
        "key": key,
        "secret": secret,
        "mv": mv,
        "world": tenants,
        "path": f"/api/v1/deployments/{deployment.pk}/predict/",
    }


def test_predictions_are_the_same_through_both_paths(deployed):
    path, secret = deployed["path"], deployed["secret"]
    body = json.dumps({"instances": [{"image": b64(png(3))}, {"image": b64(png(5))}], "top_k": 3}).encode()
    status, headers, content = assert_same(dict(path=path, body=body, key=secret), status=200)
    names = dict(headers)
    assert names["X-Sampan-Model-Version"] == str(deployed["mv"].pk)
    assert names["X-Frame-Options"] == "DENY" and names["X-Content-Type-Options"] == "nosniff"
    assert names["Content-Length"] == str(len(content))
    assert len(json.loads(content)["predictions"]) == 2
    raw = assert_same(
        dict(path=path, body=png(4), content_type="image/png", key=secret, query="top_k=2"), status=200
    )
    assert len(json.loads(raw[2])["predictions"][0]["top_k"]) == 2
    # the key in X-Sampan-Key, a multipart body
    boundary = "b0undary"
    multipart = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n'
            f"Content-Type: image/png\r\n\r\n"
        ).encode()
        + png(1)
        + f"\r\n--{boundary}--\r\n".encode()
    )
    assert_same(
        dict(
            path=path,
            body=multipart,
            content_type=f"multipart/form-data; boundary={boundary}",
            extra={"HTTP_X_SAMPAN_KEY": secret},
        ),
        status=200,
    )


def test_key_errors_are_the_same_through_both_paths(deployed):
    from deploy import services

    path, world = deployed["path"], deployed["world"]
    request = dict(path=path, body=json.dumps({"instances": [{"image": b64(png(3))}]}).encode())
    missing = assert_same(request, status=401, code="missing_key")
    assert dict(missing[1])["WWW-Authenticate"] == 'Bearer realm="deployment"'
    assert_same({**request, "key": "spd_not-a-key"}, status=401, code="invalid_key")
    other, _, other_secret = deployment_with_key(world, deployed["mv"], name="other")
    assert_same({**request, "key": other_secret}, status=403, code="key_wrong_deployment")
    services.deployment_key_revoke(key=deployed["key"])
    assert_same({**request, "key": deployed["secret"]}, status=401, code="key_revoked")


def test_method_input_size_and_state_errors_are_the_same_through_both_paths(deployed):
    from deploy import services

    path, secret, world = deployed["path"], deployed["secret"], deployed["world"]
    allow = assert_same(dict(path=path, method="GET", key=secret), status=405, code="method_not_allowed")
    assert dict(allow[1])["Allow"] == "POST"
    assert_same(dict(path=path, body=b'{"instances": []}', key=secret), status=400, code="empty_input")
    assert_same(dict(path=path, body=b"{", key=secret), status=400, code="invalid_json")
    assert_same(
        dict(path=path, body=b"hello", content_type="text/plain", key=secret),
        status=415,
        code="unsupported_media_type",
    )
    assert_same(
        dict(path=path, body=png(2), content_type="image/png", key=secret, query="top_k=x"),
        status=400,
        code="invalid_top_k",
    )
    with override_settings(SAMPAN_DEPLOY_MAX_BODY_BYTES=100):
        assert_same(
            dict(path=path, body=png(2), content_type="image/png", key=secret),
            status=413,
            code="body_too_large",
        )
    services.deployment_set_status(user=world["alice"], deployment=deployed["deployment"], status="stopped")
    assert_same(
        dict(path=path, body=png(2), content_type="image/png", key=secret),
        status=409,
        code="deployment_stopped",
    )


def test_quota_and_missing_model_are_the_same_through_both_paths(deployed, tenants, trained_digits):
    from deploy import services

    _, limited = services.deployment_key_create(
        user=tenants["alice"], deployment=deployed["deployment"], name="limited", quota_per_minute=1
    )
    request = dict(path=deployed["path"], body=png(2), content_type="image/png", key=limited)
    first, _, _ = both(**request)
    if first[0].startswith("200"):  # both paths then count against the used-up minute
        refused = assert_same(request, status=429, code="quota_exceeded")
        assert 1 <= int(dict(refused[1])["Retry-After"]) <= 60

    broken = model_version_from(tenants, trained_digits, number=2)
    broken.onnx_sha256 = "0" * 64  # the stored file no longer matches: it cannot be served
    broken.save(update_fields=["onnx_sha256"])
    deployment, _, secret = deployment_with_key(tenants, broken, name="broken")
    unavailable = assert_same(
        dict(
            path=f"/api/v1/deployments/{deployment.pk}/predict/",
            body=png(2),
            content_type="image/png",
            key=secret,
        ),
        status=503,
        code="model_unavailable",
    )
    assert dict(unavailable[1])["Retry-After"] == "30"


def test_what_the_middleware_decides_goes_to_django(deployed):
    path, secret = deployed["path"], deployed["secret"]
    body = png(2)
    request = dict(path=path, body=body, content_type="image/png", key=secret)
    # over the request-size limit: ApiErrorMiddleware's 413, before the body is read
    with override_settings(SAMPAN_MAX_REQUEST_BYTES=len(body) - 1, DATA_UPLOAD_MAX_MEMORY_SIZE=len(body) - 1):
        assert_same(request, status=413, handled=False, code="request_too_large")
    assert_same(
        {**request, "extra": {"CONTENT_LENGTH": "many"}}, status=400, handled=False, code="bad_request"
    )
    assert_same({**request, "extra": {"HTTP_HOST": "evil.example"}}, status=400, handled=False)
    assert_same({**request, "extra": {"HTTP_COOKIE": "sessionid="}}, status=200, handled=False)
    with override_settings(SECURE_SSL_REDIRECT=True):
        fast, _, delegated = both(**request)
        assert delegated and fast[0].startswith("301 ")
    # a secure request gets HSTS from both
    with override_settings(SECURE_HSTS_SECONDS=3600, SECURE_HSTS_INCLUDE_SUBDOMAINS=True):
        secure = assert_same({**request, "extra": {"wsgi.url_scheme": "https"}}, status=200)
        assert dict(secure[1])["Strict-Transport-Security"] == "max-age=3600; includeSubDomains"


# Every middleware decision the fast path re-implements or hands over, one request each, sent both
# ways: (name, request, settings for it, status, answered by the fast path itself, error code).
BIG = "x" * 9000
MIDDLEWARE_DECISIONS = [
    ("security headers, CSP and no-store on a prediction", {}, {}, 200, True, None),
    ("security headers on a refusal", {"key": None}, {}, 401, True, "missing_key"),
    (
        "HSTS on a secure request",
        {"extra": {"wsgi.url_scheme": "https"}},
        {"SECURE_HSTS_SECONDS": 60},
        200,
        True,
        None,
    ),
    ("the URL over its limit", {"query": "top_k=3&pad=" + BIG}, {}, 414, False, "uri_too_long"),
    ("a header over its limit", {"extra": {"HTTP_X_PAD": BIG}}, {}, 431, False, "header_too_large"),
    (
        "too many headers",
        {"extra": {f"HTTP_X_PAD_{i}": "1" for i in range(101)}},
        {},
        431,
        False,
        "too_many_headers",
    ),
    (
        "a Content-Length that is not a number",
        {"extra": {"CONTENT_LENGTH": "many"}},
        {},
        400,
        False,
        "bad_request",
    ),
    ("a body over the request limit", {}, {"SAMPAN_MAX_REQUEST_BYTES": 10}, 413, False, "request_too_large"),
    ("a body over Django's in-memory limit", {}, {"DATA_UPLOAD_MAX_MEMORY_SIZE": 10}, 413, False, None),
    ("a Host outside ALLOWED_HOSTS", {"extra": {"HTTP_HOST": "evil.example"}}, {}, 400, False, "bad_request"),
    ("plain HTTP with SECURE_SSL_REDIRECT", {}, {"SECURE_SSL_REDIRECT": True}, 301, False, None),
    ("a session cookie", {"extra": {"HTTP_COOKIE": "sessionid=abc"}}, {}, 200, False, None),
    ("an Idempotency-Key", {"extra": {"HTTP_IDEMPOTENCY_KEY": "k-1"}}, {}, 200, False, None),
    (
        "an id beyond 64 bits",
        {"path": "/api/v1/deployments/99999999999999999999/predict/"},
        {},
        404,
        False,
        "not_found",
    ),
]


@pytest.mark.parametrize(
    ("request_change", "settings", "status", "handled", "code"),
    [case[1:] for case in MIDDLEWARE_DECISIONS],
    ids=[case[0] for case in MIDDLEWARE_DECISIONS],
)
def test_each_middleware_decision_is_the_same_both_ways(
    deployed, request_change, settings, status, handled, code
):
    request = {
        "path": deployed["path"],
        "body": png(2),
        "content_type": "image/png",
        "key": deployed["secret"],
        **request_change,
    }
    with override_settings(**settings):
        if "HTTP_IDEMPOTENCY_KEY" in request.get("extra", {}):  # one key each: the same key is a replay
            fast, _, delegated = both(**request)
            extra = {**request["extra"], "HTTP_IDEMPOTENCY_KEY": "k-2"}
            django = call(WSGIHandler(), **{**request, "extra": extra})
        else:
            fast, django, delegated = both(**request)
    assert delegated is not handled, f"expected the fast path {'to answer' if handled else 'to hand over'}"
    assert fast[0] == django[0] and fast[0].startswith(f"{status} "), (fast[0], django[0])
    assert normalized(fast, json_body=False) == normalized(django, json_body=False)
    headers = dict(fast[1])
    if handled:  # the fast path's own answers carry what the middleware chain adds
        assert headers["Content-Type"] == "application/json" and headers["Content-Length"] == str(
            len(fast[2])
        )
        assert headers["Cache-Control"] == API_CACHE_CONTROL and "no-store" in headers["Cache-Control"]
        assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
        assert "Referrer-Policy" in headers and "Cross-Origin-Opener-Policy" in headers
    if code is not None:
        assert json.loads(fast[2])["error"]["code"] == code


def test_bad_keys_are_throttled_the_same_both_ways(deployed):
    """Invalid deployment keys count against the client's address (accounts.throttle); past the
    limit both paths answer the same 429, even to the right key."""
    from accounts.throttle import key_by_address

    address = {"REMOTE_ADDR": "203.0.113.9"}
    request = dict(path=deployed["path"], body=png(2), content_type="image/png", extra=address)
    try:
        with override_settings(SAMPAN_AUTH_FAILURES_PER_ADDRESS=5):
            for _ in range(2):  # four failures, each pair one through each path; the fifth is refused
                assert_same({**request, "key": "spd_guess"}, status=401, code="invalid_key")
            refused = assert_same({**request, "key": "spd_guess"}, status=429, code="throttled")
            assert 1 <= int(dict(refused[1])["Retry-After"]) <= 300
            assert_same({**request, "key": deployed["secret"]}, status=429, code="throttled")
    finally:
        key_by_address.clear("203.0.113.9")


def test_a_crash_answers_the_same_error_both_ways(deployed, monkeypatch, caplog):
    from deploy.api import predict

    def crash(meta):
        raise RuntimeError("injected")

    monkeypatch.setattr(predict, "presented_key", crash)
    request = dict(path=deployed["path"], body=png(2), content_type="image/png", key=deployed["secret"])
    failed = assert_same(request, status=500, code="server_error")
    assert b"injected" not in failed[2] and "Traceback" not in failed[2].decode()
    logged = [r for r in caplog.records if r.name == "sampan.errors" and "unhandled error" in r.getMessage()]
    assert len(logged) == 2, "each path logs the crash once, with its traceback"


def test_the_fast_path_refuses_a_middleware_chain_it_does_not_mirror(deployed):
    """A changed MIDDLEWARE fails loudly (gunicorn would not boot), never a silent switch to Django."""
    from deploy.api.fastpath import MIDDLEWARE, PredictFastPath
    from django.core.exceptions import ImproperlyConfigured

    request = dict(path=deployed["path"], body=png(2), content_type="image/png", key=deployed["secret"])
    fast = PredictFastPath(Recording())
    for change in (
        {"MIDDLEWARE": [*MIDDLEWARE, "django.middleware.gzip.GZipMiddleware"]},
        {"MIDDLEWARE": MIDDLEWARE[1:]},
        {"MIDDLEWARE": [MIDDLEWARE[1], MIDDLEWARE[0], *MIDDLEWARE[2:]]},
        {"DISALLOWED_USER_AGENTS": ["bot"]},
        {"PREPEND_WWW": True},
    ):
        with override_settings(**change):
            with pytest.raises(ImproperlyConfigured, match="fast path"):
                PredictFastPath(Recording())
            with pytest.raises(ImproperlyConfigured, match="fast path"):
                call(fast, **request)
    assert call(fast, **request)[0].startswith("200 ")  # the settings it mirrors again
