"""Response classes the apps share."""

from __future__ import annotations

from rest_framework.response import Response


class SecretResponse(Response):
    """An answer holding a secret shown once (a new personal token or deployment key): jobs.idempotency
    never stores it for an Idempotency-Key replay (the secret is kept only hashed)."""

    holds_secret = True
