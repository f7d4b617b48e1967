#!/usr/bin/env python
"""Sampan's command line for the control plane (the only script to run inside platform/)."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except Exception as exc:
        from config.env import EnvError

        if not isinstance(exc, EnvError):
            raise
        sys.stderr.write(f"Sampan cannot start: {exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
