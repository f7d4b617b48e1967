"""Production: secrets and hosts only from the environment; passes `manage.py check --deploy`."""

from config.env import env_bool, env_list, env_required

from .base import *  # noqa: F403

SECRET_KEY = env_required("DJANGO_SECRET_KEY")
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
    from config.env import EnvError

    raise EnvError("DJANGO_SECRET_KEY", "must be at least 50 characters with at least 5 distinct ones")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    from config.env import EnvError

    raise EnvError("DJANGO_ALLOWED_HOSTS", "is required in production (comma-separated host names)")

SAMPAN_SECURE_COOKIES = env_bool("SAMPAN_SECURE_COOKIES", True)
SESSION_COOKIE_SECURE = SAMPAN_SECURE_COOKIES
CSRF_COOKIE_SECURE = SAMPAN_SECURE_COOKIES
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = SAMPAN_SECURE_COOKIES
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = 31536000
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}  # noqa: F405
SAMPAN_PRODUCTION = True
