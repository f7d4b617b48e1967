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


class AnnotationConflict(Conflict):
    """409 ``annotation_conflict``: a sample's annotations changed since its ``revision`` was read
    (someone else saved first). ``current`` is the sample's state now (a
    :class:`sampan.types.SampleAnnotations`: its revision, status and boxes) for a single write;
    ``conflicts`` lists every stale sample's state for a bulk write (which then wrote nothing).

    >>> try:
    ...     dataset.set_annotations(sample, boxes, revision=stale)
    ... except sampan.AnnotationConflict as exc:
    ...     dataset.set_annotations(sample, boxes, revision=exc.current["revision"])
    """

    @property
    def current(self) -> Any:
        """The sample's annotations now (a single write's conflict), else None."""
        return self.details.get("current") if isinstance(self.details, dict) else None

    @property
    def conflicts(self) -> list[Any]:
        """Every stale sample's annotations now: a bulk write's conflicts, or ``[current]``."""
        if isinstance(self.details, dict) and isinstance(self.details.get("conflicts"), list):
            return list(self.details["conflicts"])
        return [self.current] if self.current is not None else []


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

# errors that carry more than their status says: told by their code
_BY_CODE: dict[tuple[int, str], type[SampanError]] = {(409, "annotation_conflict"): AnnotationConflict}


def error_for(
    status: int, code: str, message: str, details: Any = None, retry_after: float | None = None
) -> SampanError:
    """The exception for an error answer of the platform."""
    cls = (
        _BY_CODE.get((status, code))
        or _BY_STATUS.get(status)
        or (ServerError if status >= 500 else SampanError)
    )
    return cls(message, status=status, code=code, details=details, retry_after=retry_after)
