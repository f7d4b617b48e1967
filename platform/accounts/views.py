"""Django admin's login behind the same failed-login limits as the API's (accounts.throttle)."""

from __future__ import annotations

from config.errors import error_response
from django.contrib import admin

from accounts import throttle


def admin_login(request, extra_context=None):
    """admin.site.login, refused with 429 while the account or the address is over its limit;
    failures are counted by Django's user_login_failed signal, as the API's login counts them."""
    if request.method == "POST":
        wait = throttle.login_wait(request.META, request.POST.get("username", ""))
        if wait:
            response = error_response(
                429,
                "throttled",
                "Too many failed logins for this account or from this "
                f"address. Expected available in {wait} seconds.",
                {"retry_after_seconds": wait},
            )
            response["Retry-After"] = str(wait)
            return response
    return admin.site.login(request, extra_context)
