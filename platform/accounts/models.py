from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone


class User(AbstractUser):
    """A person who logs in with a password (browser) or an API token (SDK, scripts)."""

    class Language(models.TextChoices):
        BROWSER = "", "The browser's language"
        EN = "en", "English"
        ZH_CN = "zh-CN", "简体中文"

    # The web UI's language; blank follows the browser's. API error messages stay English either way.
    language = models.CharField(max_length=8, choices=Language.choices, blank=True, default="")


class ApiToken(models.Model):
    """A personal API token. Only a SHA-256 digest is stored; the key is shown once at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, db_index=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return "expired"
        return "active"
