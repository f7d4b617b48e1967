"""Brute-force protection: failed authentications counted per subject in fixed windows.

Three counters, each with its limit of failures per SAMPAN_AUTH_FAILURE_WINDOW_SECONDS:

- ``login_by_account`` and ``login_by_address``: wrong passwords (the API's login and Django
  admin's), counted through Django's ``user_login_failed`` signal, checked *before* a password is
  looked at, so once a limit is reached even the right password answers 429 until the window ends;
  a successful login clears its account's count;
- ``token_by_address``: personal API tokens that do not authenticate (unknown, revoked, expired);
- ``key_by_address``: deployment keys that do not authenticate (deploy.api.predict).

Counts live in Redis when the broker is Redis (shared by every web process), else in this process.
Requests with valid credentials are not slowed: tokens and keys are refused early only from an
address this process has itself seen go over its limit (a lookup in an in-memory dict, empty unless
someone is guessing); the network round trip to Redis happens on failures and on logins only.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver

logger = logging.getLogger("sampan.accounts")


def client_address(meta: Mapping) -> str:
    """The client's IP address: REMOTE_ADDR, or with SAMPAN_TRUSTED_PROXY_COUNT = n > 0 the n-th
    address from the right of X-Forwarded-For (the one the outermost trusted proxy saw)."""
    proxies = settings.SAMPAN_TRUSTED_PROXY_COUNT
    if proxies:
        forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return meta.get("REMOTE_ADDR") or "unknown"


class _Store:
    """INCR/GET/DELETE of window counters: Redis when the broker is Redis, else a dict here."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[int, float]] = {}  # name -> (count, expires at)
        self._redis: Any = None
        self._redis_url: str | None = None

    def _client(self):
        url = getattr(settings, "CELERY_BROKER_URL", "") or ""
        if url != self._redis_url:
            self._redis_url = url
            self._redis = None
            if url.startswith(("redis://", "rediss://")):
                import redis

                self._redis = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        return self._redis

    def incr(self, name: str, ttl: int) -> int:
        client = self._client()
        if client is not None:
            try:
                pipe = client.pipeline()
                pipe.incr(name)
                pipe.expire(name, ttl)
                return int(pipe.execute()[0])
            except Exception:  # Redis away: count here rather than stop counting
                logger.warning(
                    "counting failed authentications in Redis failed; counting in this process", exc_info=True
                )
        now = time.time()
        with self._lock:
            count, _ = self._counts.get(name, (0, 0.0))
            self._counts[name] = (count + 1, now + ttl)
            if len(self._counts) > 10_000:
                for stale in [k for k, (_, until) in self._counts.items() if until <= now]:
                    del self._counts[stale]
            return count + 1

    def get(self, name: str) -> int:
        client = self._client()
        if client is not None:
            try:
                return int(client.get(name) or 0)
            except Exception:
                logger.warning("reading failed authentications from Redis failed", exc_info=True)
        with self._lock:
            count, until = self._counts.get(name, (0, 0.0))
        return count if until > time.time() else 0

    def delete(self, name: str) -> None:
        client = self._client()
        if client is not None:
            try:
                client.delete(name)
            except Exception:
                logger.warning("clearing failed authentications in Redis failed", exc_info=True)
        with self._lock:
            self._counts.pop(name, None)


_store = _Store()


class FailureThrottle:
    """At most ``settings.<limit_setting>`` failures per subject per window; more answer 429."""

    def __init__(self, scope: str, limit_setting: str) -> None:
        self.scope = scope
        self.limit_setting = limit_setting
        self._lock = threading.Lock()
        self._blocked: dict[str, float] = {}  # subject -> end of its window, as this process has seen

    @property
    def limit(self) -> int:
        return int(getattr(settings, self.limit_setting))

    def _window(self, now: float) -> tuple[int, int, int]:
        """(window length, window number, seconds until it ends)"""
        length = int(settings.SAMPAN_AUTH_FAILURE_WINDOW_SECONDS)
        number = int(now // length)
        return length, number, max(1, int(length * (number + 1) - now + 0.999))

    def _name(self, subject: str, window: int) -> str:
        digest = hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"sampan:auth-failures:{self.scope}:{digest}:{window}"

    @property
    def blocking(self) -> bool:
        """Whether this process knows of any subject over the limit (false unless someone is guessing)."""
        return bool(self._blocked)

    def blocked_here(self, subject: str) -> int:
        """Seconds to wait if this process has seen ``subject`` go over the limit (no network)."""
        if not self._blocked:
            return 0
        until = self._blocked.get(subject)
        if until is None:
            return 0
        left = until - time.time()
        if left <= 0:
            with self._lock:
                self._blocked.pop(subject, None)
            return 0
        return max(1, int(left + 0.999))

    def wait(self, subject: str) -> int:
        """Seconds to wait if ``subject`` has reached the limit in this window (asks the shared store)."""
        now = time.time()
        _, window, left = self._window(now)
        if _store.get(self._name(subject, window)) >= self.limit:
            self._remember(subject, now + left)
            return left
        return 0

    def failed(self, subject: str) -> int:
        """Count a failure; the seconds to wait once the limit is reached, else 0."""
        now = time.time()
        length, window, left = self._window(now)
        if _store.incr(self._name(subject, window), length + 60) >= self.limit:
            self._remember(subject, now + left)
            return left
        return 0

    def clear(self, subject: str) -> None:
        _, window, _ = self._window(time.time())
        _store.delete(self._name(subject, window))
        with self._lock:
            self._blocked.pop(subject, None)

    def _remember(self, subject: str, until: float) -> None:
        with self._lock:
            self._blocked[subject] = until
            if len(self._blocked) > 10_000:
                now = time.time()
                for stale in [s for s, end in self._blocked.items() if end <= now]:
                    del self._blocked[stale]


login_by_account = FailureThrottle("login-account", "SAMPAN_LOGIN_FAILURES_PER_ACCOUNT")
login_by_address = FailureThrottle("login-address", "SAMPAN_LOGIN_FAILURES_PER_ADDRESS")
token_by_address = FailureThrottle("token-address", "SAMPAN_AUTH_FAILURES_PER_ADDRESS")
key_by_address = FailureThrottle("key-address", "SAMPAN_AUTH_FAILURES_PER_ADDRESS")


def login_wait(meta: Mapping, username: str) -> int:
    """Seconds before this address may try a password again, or for this account (0: go ahead)."""
    return max(login_by_account.wait(username), login_by_address.wait(client_address(meta)))


@receiver(user_login_failed, dispatch_uid="sampan-login-failed")
def _count_failed_login(sender, credentials: dict, request=None, **kwargs) -> None:
    if request is None:
        return
    login_by_account.failed(str(credentials.get("username", "")))
    login_by_address.failed(client_address(request.META))


@receiver(user_logged_in, dispatch_uid="sampan-logged-in")
def _clear_account_failures(sender, request=None, user=None, **kwargs) -> None:
    if request is not None and user is not None:
        login_by_account.clear(user.get_username())
