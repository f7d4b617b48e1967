"""Create the first administrator when there is none.

Embedded/development: a random password is generated, stored in SAMPAN_HOME/initial-admin.txt
(mode 600) and printed. Production: SAMPAN_ADMIN_PASSWORD must be set, or nothing is created."""

from __future__ import annotations

import os

from config.env import env_str
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.services import admin_ensure

PASSWORD_FILE = "initial-admin.txt"


class Command(BaseCommand):
    help = "Create the first administrator if none exists and print how to log in."

    def handle(self, *args, **options):
        username = env_str("SAMPAN_ADMIN_USERNAME", "admin")
        email = env_str("SAMPAN_ADMIN_EMAIL", "admin@localhost")
        password = env_str("SAMPAN_ADMIN_PASSWORD")
        production = getattr(settings, "SAMPAN_PRODUCTION", False)
        if production and password is None and not User.objects.filter(is_superuser=True).exists():
            raise CommandError(
                "No administrator exists and SAMPAN_ADMIN_PASSWORD is not set. Production never uses a "
                "default password: set SAMPAN_ADMIN_PASSWORD (and SAMPAN_ADMIN_USERNAME) or run "
                "`manage.py createsuperuser`."
            )
        existed = User.objects.filter(is_superuser=True).exists()
        user, generated = admin_ensure(username=username, email=email, password=password)
        secret_file = settings.SAMPAN_HOME / PASSWORD_FILE
        if generated:
            fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(f"username: {user.username}\npassword: {generated}\n")
            self.stdout.write(f"Created administrator {user.username!r} with password {generated}")
            self.stdout.write(f"(saved in {secret_file}; change it after logging in)")
        elif existed:
            self.stdout.write(f"Administrator {user.username!r} exists.")
        else:
            self.stdout.write(
                f"Created administrator {user.username!r} with the password from SAMPAN_ADMIN_PASSWORD."
            )
