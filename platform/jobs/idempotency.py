"""``Idempotency-Key`` on POSTs: a retry of a request whose answer was lost (a timeout, a broker
outage, a dropped connection) gets the first answer again instead of creating a second job.

The first request with a key stores a placeholder row (unique per caller and key), runs, and
stores its 2xx answer; a later request with the same key and path replays that answer with the
header ``Idempotent-Replayed: true``. A request that did not succeed frees its key for a retry.
An answer that holds a secret shown once (a new personal token or deployment key; its view answers
with ``config.responses.SecretResponse``, whose ``holds_secret`` is true) is never stored: secrets
are kept only hashed, so such a key is freed and a retry creates a new secret.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from config.errors import error_response
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone

from jobs.models import IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
# A placeholder this old belongs to a request that died (a killed web process): the key is free again.
ABANDONED_AFTER = timedelta(minutes=2)
# Kept this long; a client retries within minutes, not days.
KEEP_FOR = timedelta(days=1)


def _principal(request) -> str | None:
    authorization = request.headers.get("Authorization")
    if authorization:
        return "auth:" + hashlib.sha256(authorization.encode()).hexdigest()
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return None


class IdempotencyMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        key = request.headers.get(HEADER)
        if request.method != "POST" or key is None or not request.path.startswith("/api/"):
            return self.get_response(request)
        key = key.strip()
        if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
            return error_response(
                400,
                "invalid_idempotency_key",
                f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable characters.",
            )
        principal = _principal(request)
        if principal is None:  # the view answers 401; nothing to remember
            return self.get_response(request)
        record = self._reserve(principal, key, request.path)
        if not isinstance(record, IdempotencyRecord):
            return record  # a replay, or a refusal
        try:
            response = self.get_response(request)
        except BaseException:
            record.delete()
            raise
        if (
            200 <= response.status_code < 300
            and not response.streaming
            and not getattr(response, "holds_secret", False)
        ):
            record.status_code = response.status_code
            record.content_type = response.get("Content-Type", "")
            record.body = bytes(response.content)
            record.save(update_fields=["status_code", "content_type", "body"])
        else:
            record.delete()
        return response

    def _reserve(self, principal: str, key: str, path: str):
        IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()
        for _ in range(2):
            try:
                with transaction.atomic():
                    return IdempotencyRecord.objects.create(
                        principal=principal, key=key, method="POST", path=path
                    )
            except IntegrityError:
                pass
            earlier = IdempotencyRecord.objects.filter(principal=principal, key=key).first()
            if earlier is None:
                continue  # freed meanwhile
            if earlier.path != path:
                return error_response(
                    422,
                    "idempotency_key_reused",
                    f"{HEADER} {key!r} was already used for POST {earlier.path}; use a new key.",
                )
            if earlier.status_code is not None:
                replay = HttpResponse(
                    bytes(earlier.body),
                    status=earlier.status_code,
                    content_type=earlier.content_type or "application/json",
                )
                replay["Idempotent-Replayed"] = "true"
                return replay
            if earlier.created_at < timezone.now() - ABANDONED_AFTER:
                IdempotencyRecord.objects.filter(pk=earlier.pk, status_code__isnull=True).delete()
                continue
            response = error_response(
                409,
                "idempotency_in_progress",
                f"A request with {HEADER} {key!r} is still running; retry in a moment.",
            )
            response["Retry-After"] = "1"
            return response
        return error_response(
            409, "idempotency_in_progress", f"{HEADER} {key!r} is contended; retry in a moment."
        )
