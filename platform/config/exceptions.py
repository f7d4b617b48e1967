"""Domain errors: what a service raises when it refuses, independent of HTTP.

Services and background jobs raise these; they never build DRF exceptions or unpack ``exc.detail``.
One place maps them to an HTTP answer (``config.errors.api_exception_handler``, the shared body
``{"error": {"code", "message", "details"}}``); a background job records ``message`` and
``details`` on its row.

>>> err = InvalidInput("Name is taken.", code="name_taken", field="name", suggestion="cats-2")
>>> (err.status, err.code, err.message, err.details)
(400, 'name_taken', 'Name is taken.', {'name': ['Name is taken.'], 'suggestion': 'cats-2'})
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    """A refusal with a stable ``code``, one sentence a person reads (``message``) and JSON
    ``details``. With ``field`` the details lead with ``{field: [message]}`` as a form error does."""

    status: ClassVar[int] = 400
    default_code: ClassVar[str] = "invalid"

    def __init__(
        self, message: str, *, code: str | None = None, field: str | None = None, **details: Any
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field
        self.details: dict[str, Any] = ({field: [message]} if field else {}) | details


class InvalidInput(DomainError):
    status = 400
    default_code = "invalid"


class Forbidden(DomainError):
    status = 403
    default_code = "permission_denied"


class NotFound(DomainError):
    status = 404
    default_code = "not_found"


class Conflict(DomainError):
    status = 409
    default_code = "conflict"


class TooLarge(DomainError):
    status = 413
    default_code = "too_large"


class Unprocessable(DomainError):
    status = 422
    default_code = "unprocessable"


class Unavailable(DomainError):
    status = 503
    default_code = "unavailable"


def field_error(
    field: str,
    message: str,
    *,
    error: type[DomainError] = InvalidInput,
    code: str | None = None,
    **details: Any,
) -> DomainError:
    """The refusal of one field, answered as DRF answers a form error: the message names the field
    and the details list the text under it.

    >>> err = field_error("params.epochs", "Must be at least 1.")
    >>> (err.status, err.code, err.message, err.details)
    (400, 'invalid', 'params.epochs: Must be at least 1.', {'params.epochs': ['Must be at least 1.']})
    """
    return error(f"{field}: {message}", code=code, **({field: [message]} | details))
