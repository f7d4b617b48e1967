"""API token (Bearer) and browser session authentication. Invalid tokens are counted per client
address (accounts.throttle): past SAMPAN_AUTH_FAILURES_PER_ADDRESS in a window they answer 429."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.exceptions import Throttled

from accounts.models import ApiToken
from accounts.services import TOKEN_PREFIX, api_token_touch, token_digest
from accounts.throttle import client_address, token_by_address

TOO_MANY = "Too many invalid API tokens from this address."


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode(errors="replace") not in self.keywords:
            return None
        address = client_address(request.META)
        wait = token_by_address.blocked_here(address)
        if wait:
            raise Throttled(detail=TOO_MANY, wait=wait)
        try:
            return self._authenticate(header)
        except exceptions.AuthenticationFailed:
            wait = token_by_address.failed(address)
            if wait:
                raise Throttled(detail=TOO_MANY, wait=wait) from None
            raise

    def _authenticate(self, header: list[bytes]):
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'.")
        try:
            key = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Token contains invalid characters.") from None
        if not key.startswith(TOKEN_PREFIX):
            raise exceptions.AuthenticationFailed("Not a Sampan API token (they start with 'spk_').")
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid API token.")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This API token has been revoked.")
        if token.expires_at is not None and token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("This API token has expired.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User is inactive.")
        api_token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class SessionAuthentication(authentication.SessionAuthentication):
    """Browser session with CSRF enforced (DRF's default behaviour), kept explicit for clarity."""
