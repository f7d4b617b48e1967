"""Tests: real PostgreSQL and Redis (DATABASE_URL / CELERY_BROKER_URL from the Makefile)."""

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
