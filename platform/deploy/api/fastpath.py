"""A WSGI fast path for hosted predictions, in front of Django (config/wsgi.py installs it).

POST /api/v1/deployments/<id>/predict/ is answered by ``deploy.api.predict.serve`` straight from
the WSGI environ: no middleware chain, no URL resolution, no HttpRequest/HttpResponse. Everything
else, and every prediction request whose answer the middleware chain would decide or change, goes
to Django unchanged, so the answers are the ones Django gives:

- handed to Django: an id beyond 64 bits (config.routing: a 404), a query string or headers past
  ApiErrorMiddleware's limits (414/431), a Content-Length that is not a number or over the request-size limits
  (ApiErrorMiddleware's 400/413 and request.body's 413), a Host outside ALLOWED_HOSTS (400), a
  plain-HTTP request when SECURE_SSL_REDIRECT is on (301), any Cookie header (the session, CSRF and
  messages middleware may set or delete cookies), an Idempotency-Key header (jobs.idempotency replays
  or reserves it), a path that is not exactly the route (Django's
  404/redirects);
- added to its answers, as the middleware would: X-Frame-Options, Content-Length,
  Strict-Transport-Security (secure requests), X-Content-Type-Options, Referrer-Policy,
  Cross-Origin-Opener-Policy, Content-Security-Policy and Cache-Control (config.security), and the
  500 error body with the log line of ApiErrorMiddleware;
- kept: request_started/request_finished signals (database connection ageing, query log reset).

It never stands aside silently: with a MIDDLEWARE chain other than the one it mirrors, or a setting
it does not mirror (DISALLOWED_USER_AGENTS, PREPEND_WWW), it refuses to start (ImproperlyConfigured
when config/wsgi.py builds it, so gunicorn does not boot) and refuses every request if a setting
changes under it. Whoever changes the chain updates MIDDLEWARE here and the comparison in
tests/deploy/test_predict_fast_path.py, which sends each kind of request both ways and compares
status, headers and body.
"""

from __future__ import annotations

import codecs
import logging
import re
import time
from http.client import responses

from config.errors import request_limits_error
from config.routing import object_id
from config.security import API_CACHE_CONTROL, CONTENT_SECURITY_POLICY
from django.conf import settings
from django.core import signals
from django.core.exceptions import DisallowedHost, ImproperlyConfigured
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.http import QueryDict
from django.test.signals import setting_changed
from django.utils.http import parse_header_parameters

from deploy.api.predict import serve

logger = logging.getLogger("sampan.errors")

# ids as config.routing bounds them: a longer or larger number goes to Django, whose routes 404 it
ROUTE = re.compile(r"/api/v1/deployments/([0-9]{1,19})/predict/\Z")
# The chain whose effects on this route are mirrored here; with any other chain the fast path refuses
# to run (check_settings).
MIDDLEWARE = [
    "config.errors.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.security.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "jobs.idempotency.IdempotencyMiddleware",  # acts on requests with an Idempotency-Key: those go to Django
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
SERVER_ERROR = (
    b'{"error": {"code": "server_error", "message": "Internal server error. The details are in the '
    b'server log.", "details": {}}}'
)


def check_settings() -> None:
    """Raise ImproperlyConfigured when the settings give this route answers the fast path does not
    mirror: another MIDDLEWARE chain, DISALLOWED_USER_AGENTS or PREPEND_WWW."""
    problems = []
    if list(settings.MIDDLEWARE) != MIDDLEWARE:
        added = [m for m in settings.MIDDLEWARE if m not in MIDDLEWARE]
        removed = [m for m in MIDDLEWARE if m not in settings.MIDDLEWARE]
        problems.append(
            "MIDDLEWARE differs from the chain it mirrors"
            + (f" (added {added})" if added else "")
            + (f" (removed {removed})" if removed else "")
            + (" (reordered)" if not added and not removed else "")
        )
    if settings.DISALLOWED_USER_AGENTS:
        problems.append("DISALLOWED_USER_AGENTS is set")
    if settings.PREPEND_WWW:
        problems.append("PREPEND_WWW is on")
    if problems:
        raise ImproperlyConfigured(
            "The prediction fast path (deploy.api.fastpath) would answer differently from Django: "
            + "; ".join(problems)
            + ". Mirror the change in deploy/api/fastpath.py (MIDDLEWARE and the headers it adds) and in "
            "tests/deploy/test_predict_fast_path.py, or serve config.wsgi.django_application."
        )


class _Config:
    """What the fast path needs from settings, read once (and again when a test overrides settings)."""

    def __init__(self) -> None:
        check_settings()
        self.max_request = int(settings.SAMPAN_MAX_REQUEST_BYTES)
        self.max_upload_request = max(self.max_request, int(settings.SAMPAN_MAX_UPLOAD_REQUEST_BYTES))
        self.max_memory = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        self.ssl_redirect = bool(settings.SECURE_SSL_REDIRECT)
        before = [("X-Frame-Options", settings.X_FRAME_OPTIONS.upper())]
        after = []
        if settings.SECURE_CONTENT_TYPE_NOSNIFF:
            after.append(("X-Content-Type-Options", "nosniff"))
        policy = settings.SECURE_REFERRER_POLICY
        if policy:
            after.append(
                (
                    "Referrer-Policy",
                    ",".join([v.strip() for v in policy.split(",")] if isinstance(policy, str) else policy),
                )
            )
        if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
            after.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
        after.append(("Content-Security-Policy", CONTENT_SECURITY_POLICY))
        after.append(("Cache-Control", API_CACHE_CONTROL))
        self.before_length = tuple(before)
        self.after_length = tuple(after)
        self.hsts = None
        if settings.SECURE_HSTS_SECONDS:
            self.hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
            if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
                self.hsts += "; includeSubDomains"
            if settings.SECURE_HSTS_PRELOAD:
                self.hsts += "; preload"


class _Body(list):
    """The response iterable; closing it ends the request as Django's response does."""

    __slots__ = ()

    def close(self) -> None:
        signals.request_finished.send(sender=WSGIHandler)


class PredictFastPath:
    """WSGI middleware: predictions here, the rest to ``django_app`` (Django's WSGIHandler)."""

    def __init__(self, django_app) -> None:
        self.django_app = django_app
        self._config: _Config | None = _Config()  # refuses to start with settings it does not mirror
        setting_changed.connect(self._forget_config)

    def _forget_config(self, **kwargs) -> None:
        self._config = None

    @property
    def config(self) -> _Config:
        config = self._config
        if config is None:
            config = self._config = _Config()
        return config

    def __call__(self, environ, start_response):
        match = ROUTE.match(environ.get("PATH_INFO", ""))
        if match is None or "HTTP_COOKIE" in environ or "HTTP_IDEMPOTENCY_KEY" in environ:
            return self.django_app(environ, start_response)
        deployment_id = object_id(match[1])
        if deployment_id is None or request_limits_error(environ) is not None:
            return self.django_app(environ, start_response)
        config = self.config
        try:
            length = int(environ.get("CONTENT_LENGTH") or "0")
        except ValueError:
            return self.django_app(environ, start_response)
        limit = (
            config.max_upload_request
            if environ.get("CONTENT_TYPE", "").startswith("multipart/form-data")
            else config.max_request
        )
        if length > limit or (config.max_memory is not None and length > config.max_memory):
            return self.django_app(environ, start_response)
        request = WSGIRequest.__new__(WSGIRequest)  # only for Django's own host and scheme rules
        request.environ = request.META = environ  # type: ignore[attr-defined]  # stub lacks WSGIRequest.environ
        try:
            request.get_host()
        except DisallowedHost:
            return self.django_app(environ, start_response)
        secure = request.is_secure()
        if config.ssl_redirect and not secure:
            return self.django_app(environ, start_response)
        return self._serve(environ, start_response, deployment_id, length, secure, config)

    def _serve(self, environ, start_response, deployment_id: int, length: int, secure: bool, config: _Config):
        started = time.perf_counter()
        signals.request_started.send(sender=WSGIHandler, environ=environ)

        def read_body() -> bytes:
            return environ["wsgi.input"].read(length) if length > 0 else b""

        def query_top_k() -> str | None:  # as request.GET decodes it (a charset in Content-Type wins)
            charset = parse_header_parameters(environ.get("CONTENT_TYPE", ""))[1].get("charset")
            encoding = None
            if charset:
                try:
                    codecs.lookup(charset)
                    encoding = charset
                except LookupError:
                    pass
            return QueryDict(environ.get("QUERY_STRING", "").encode("iso-8859-1"), encoding=encoding).get(
                "top_k"
            )

        method = environ["REQUEST_METHOD"].upper()
        try:
            answer = serve(
                deployment_id,
                method=method,
                meta=environ,
                read_body=read_body,
                query_top_k=query_top_k,
                started=started,
            )
            status, body, own_headers = answer.status, answer.body, answer.headers
        except Exception:
            logger.exception("unhandled error on %s %s", method, environ.get("PATH_INFO"))
            status, body, own_headers = 500, SERVER_ERROR, ()
        headers = [
            ("Content-Type", "application/json"),
            *own_headers,
            *config.before_length,
            ("Content-Length", str(len(body))),
        ]
        if secure and config.hsts:
            headers.append(("Strict-Transport-Security", config.hsts))
        headers.extend(config.after_length)
        start_response(f"{status} {responses.get(status, 'Unknown Status Code')}", headers)
        return _Body((body,))
