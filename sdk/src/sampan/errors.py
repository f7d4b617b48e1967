"""Typed exceptions for the platform's error answers: ``{"error": {"code", "message", "details"}}``.

>>> try:
...     client.projects.get(999999)
... except sampan.NotFound as exc:
...     print(exc.status, exc.code, exc.message)
404 not_found Not found.
"""

from __future__ import annotations

from typing import Any


class SampanError(Exception):
    """Base class: every error the SDK raises. ``status`` is None for errors without an HTTP answer."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        details: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" if status is not None else message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}
        self.retry_after = retry_after


class BadRequest(SampanError):
    """400: the request was invalid; ``details`` names the fields."""


class AuthenticationError(SampanError):
    """401: no, a wrong, a revoked or an expired API key."""


class PermissionDenied(SampanError):
    """403: authenticated, but the role (or the key) does not allow this."""


class NotFound(SampanError):
    """404: no such object, or it belongs to someone else."""


class Conflict(SampanError):
    """409: the object changed meanwhile, is in use, or is in the wrong state."""


class PayloadTooLarge(SampanError):
    """413: an upload over the server's limit."""


class UnsupportedMediaType(SampanError):
    """415: the server cannot read this kind of content."""


class RateLimited(SampanError):
    """429: over a quota; ``retry_after`` says (in seconds) when to try again."""


class ServerError(SampanError):
    """5xx: the server failed (503: unavailable, e.g. a stopped deployment)."""


class ServiceUnavailable(ServerError):
    """503: temporarily unavailable."""


class TransportError(SampanError):
    """The request did not get an answer: connection refused, timeout, DNS."""


class JobFailed(SampanError):
    """A job the SDK waited for ended ``failed`` or ``cancelled``; ``job`` is the final job."""

    def __init__(self, message: str, *, job: Any) -> None:
        super().__init__(message, code=f"job_{job.status}")
        self.job = job


class WaitTimeout(SampanError):
    """``wait()`` gave up before the job finished (the job goes on)."""


_BY_STATUS: dict[int, type[SampanError]] = {
    400: BadRequest,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_for(
    status: int, code: str, message: str, details: Any = None, retry_after: float | None = None
) -> SampanError:
    """The exception for an error answer of the platform."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else SampanError)
    return cls(message, status=status, code=code, details=details, retry_after=retry_after)
