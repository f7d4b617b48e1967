"""One error body for every 4xx/5xx: {"error": {"code", "message", "details"}}.

DRF exceptions go through ``api_exception_handler``; Django-level failures (unknown routes,
oversized bodies, crashes) through ``ApiErrorMiddleware`` and the handler views in config.urls.
No traceback ever reaches a client.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.exceptions import DomainError

logger = logging.getLogger("sampan.errors")

# Request line and headers Django refuses in the error shape. gunicorn (config/gunicorn.py) is set to
# allow more than these, so its own HTML 400/414/431 pages only meet requests far past them.
MAX_URL_BYTES = 8190  # path plus query string, as sent
MAX_HEADER_FIELDS = 100
MAX_HEADER_FIELD_BYTES = 8190  # one header's name and value


def error_body(code: str, message: str, details: Any = None) -> dict:
    return {"error": {"code": code, "message": message, "details": details if details is not None else {}}}


def error_response(status_code: int, code: str, message: str, details: Any = None) -> JsonResponse:
    return JsonResponse(error_body(code, message, details), status=status_code)


def _first_message(detail: Any, path: str = "") -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            where = key if key != "non_field_errors" else ""
            return _first_message(value, f"{path}.{where}".strip(".") if where else path)
        return "Invalid input."
    if isinstance(detail, list):
        return _first_message(detail[0], path) if detail else "Invalid input."
    return f"{path}: {detail}" if path else str(detail)


def too_many_parts(exc: SuspiciousOperation) -> tuple[str, str, dict] | None:
    """(code, message, details) for Django's per-request count limits on multipart and form bodies."""
    from django.conf import settings

    if isinstance(exc, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return (
            "too_many_files",
            f"A request may carry at most {limit} files; send more files in several requests.",
            {"max_files": limit},
        )
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return (
            "too_many_fields",
            f"A request may carry at most {limit} form fields or query parameters.",
            {"max_fields": limit},
        )
    return None


def request_limits_error(environ) -> JsonResponse | None:
    """The 414/431 for a request line or headers past Django's limits (None when within them).
    ``environ`` is the WSGI environ (request.META): the prediction fast path checks it too."""
    url = environ.get("RAW_URI")
    url_bytes = (
        len(url)
        if url is not None
        else len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", "")) + 1
    )
    if url_bytes > MAX_URL_BYTES:
        return error_response(
            414,
            "uri_too_long",
            f"The URL is {url_bytes} bytes; the limit is {MAX_URL_BYTES}.",
            {"limit_bytes": MAX_URL_BYTES, "size_bytes": url_bytes},
        )
    fields = 0
    for name, value in environ.items():
        if name.startswith("HTTP_") or name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            fields += 1
            size = len(name) + len(value) if isinstance(value, str) else 0
            if size > MAX_HEADER_FIELD_BYTES:
                header = name.removeprefix("HTTP_").replace("_", "-").title()
                return error_response(
                    431,
                    "header_too_large",
                    f"The {header} header is {size} bytes; the limit is {MAX_HEADER_FIELD_BYTES}.",
                    {"header": header, "limit_bytes": MAX_HEADER_FIELD_BYTES},
                )
    if fields > MAX_HEADER_FIELDS:
        return error_response(
            431,
            "too_many_headers",
            f"The request has {fields} headers; the limit is {MAX_HEADER_FIELDS}.",
            {"limit": MAX_HEADER_FIELDS, "count": fields},
        )
    return None


def still_referenced(exc: ProtectedError | RestrictedError) -> tuple[str, str, dict]:
    """(code, message, details) for a delete refused by an on_delete=PROTECT/RESTRICT reference:
    a 409 naming what still uses the object (the transaction is rolled back: nothing is deleted)."""
    blocking = sorted(
        exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects,
        key=lambda obj: (obj._meta.label, obj.pk),
    )
    kinds = Counter(str(obj._meta.verbose_name) for obj in blocking)
    used_by = ", ".join(f"{count} {kind}{'s' if count > 1 else ''}" for kind, count in sorted(kinds.items()))
    return (
        "in_use",
        f"Cannot delete: still used by {used_by}; delete or change those first.",
        {
            "used_by": [{"kind": obj._meta.label_lower, "id": obj.pk} for obj in blocking[:100]],
            "total": len(blocking),
        },
    )


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    details: Any
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status)
    if isinstance(exc, (ProtectedError, RestrictedError)):
        code, message, details = still_referenced(exc)
        return Response(error_body(code, message, details), status=409)
    if isinstance(exc, (TooManyFilesSent, TooManyFieldsSent)):
        code, message, details = too_many_parts(exc)  # type: ignore[misc]
        return Response(error_body(code, message, details), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        return Response(error_body("request_too_large", str(exc) or "Request body is too large."), status=413)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        code, message, details = "invalid", _first_message(exc.detail), exc.detail
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = str(getattr(detail, "code", None) or getattr(exc, "default_code", "error"))
        message = str(detail) if not isinstance(detail, (dict, list)) else _first_message(detail)
        details = detail if isinstance(detail, (dict, list)) else {}
        # Throttled sets .wait in __init__; djangorestframework-stubs leave it out
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            details = {"retry_after_seconds": int(wait)}
        details = getattr(exc, "error_details", None) or details  # e.g. config.parsers.JSONTooDeep
    response.data = error_body(str(code), message, details)
    return response


class ApiErrorMiddleware:
    """Rejects oversized URLs, headers and bodies before they are read and turns crashes into the
    error shape."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings

        refused = request_limits_error(request.META)
        if refused is not None:
            return refused
        length = request.META.get("CONTENT_LENGTH") or "0"
        try:
            size = int(length)
        except ValueError:
            return error_response(400, "bad_request", "Content-Length header is not a number.")
        limit = settings.SAMPAN_MAX_REQUEST_BYTES
        if request.META.get("CONTENT_TYPE", "").startswith("multipart/form-data"):
            # File uploads stream to disk; the endpoint enforces its own limit on each file.
            limit = max(limit, settings.SAMPAN_MAX_UPLOAD_REQUEST_BYTES)
        if size > limit:
            return error_response(
                413,
                "request_too_large",
                f"Request body is {size} bytes; the limit is {limit} bytes.",
                {"limit_bytes": limit, "size_bytes": size},
            )
        return self.get_response(request)

    def process_exception(self, request, exc):
        if isinstance(exc, RequestDataTooBig):
            return error_response(413, "request_too_large", "Request body is too large.")
        if isinstance(exc, SuspiciousOperation):
            counted = too_many_parts(exc)
            if counted is not None:
                return error_response(400, *counted)
            return error_response(400, "bad_request", "Request rejected: " + exc.__class__.__name__)
        if isinstance(exc, Http404):
            return None
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(
            500, "server_error", "Internal server error. The details are in the server log."
        )


def handler400(request, exception=None):
    return error_response(400, "bad_request", "Bad request.")


def handler403(request, exception=None):
    return error_response(403, "permission_denied", "You do not have permission to perform this action.")


def handler404(request, exception=None):
    return error_response(404, "not_found", f"No route matches {request.path}.")


def handler500(request):
    return error_response(500, "server_error", "Internal server error. The details are in the server log.")


def csrf_failure(request, reason=""):
    return error_response(403, "csrf_failed", f"CSRF check failed: {reason}")


ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "details": {},
            },
        }
    },
}


PAGINATION_PARAMETERS = {"page", "page_size"}  # a bad page is a 404, a bad page_size the default


def add_error_responses(result: dict, generator, request, public) -> dict:
    """drf-spectacular hook: document the shared error body on every operation: 401 and 403
    everywhere, 404 on paths with ids, 400 where a body or a GET's query filters can be invalid,
    and as the body of any other documented error that names no schema of its own (e.g. a 413)."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for code, response in responses.items():
                if code.isdigit() and int(code) >= 400 and not response.get("content"):
                    response.update(ref)
            codes = ["401", "403"]
            filters = {
                p["name"] for p in operation.get("parameters", []) if p["in"] == "query"
            } - PAGINATION_PARAMETERS
            if method in {"post", "put", "patch"} or (method == "get" and filters):
                codes.append("400")
            if "{" in path:
                codes.append("404")
            for code in codes:
                responses.setdefault(code, {"description": "Error", **ref})
    return result
