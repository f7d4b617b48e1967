"""Shared set-up of the data service benchmarks: a throw-away PostgreSQL database and SAMPAN_HOME,
Django configured against them in this process, and writing a section of docs/benchmarks.md.

Not a benchmark itself; imported by dataset_import.py and sample_list.py.
"""

from __future__ import annotations

import datetime
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
PLATFORM_DIR = REPO / "platform"
DOCS = REPO / "docs" / "benchmarks.md"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/sampan_bench_datasets"


def setup_django(database_url: str) -> Path:
    """Recreate the benchmark database, point Sampan at it and a temporary SAMPAN_HOME, migrate."""
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    if not re.fullmatch(r"[A-Za-z0-9_]+", name) or "bench" not in name:
        raise SystemExit(f"refusing to recreate database {name!r}: its name must contain 'bench'")
    admin = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    home = Path(tempfile.mkdtemp(prefix="sampan-bench-datasets-"))
    for key in [k for k in os.environ if k.startswith(("SAMPAN_", "CELERY_", "DJANGO_", "DATABASE_URL"))]:
        del os.environ[key]
    os.environ.update(
        SAMPAN_HOME=str(home),
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="config.settings.local",
        SAMPAN_LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(PLATFORM_DIR))
    sys.path.insert(0, str(REPO))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return home


def drop_database(database_url: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    parts = urlsplit(database_url)
    admin = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}"')


def machine() -> str:
    import django
    import PIL
    import psycopg

    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0].split()[0]
    load = os.getloadavg()[0]
    return (
        f"{datetime.date.today().isoformat()} on {cpu}, {os.cpu_count()} cores, Linux "
        f"{stdlib_platform.release()}; Python {stdlib_platform.python_version()}, Django "
        f"{django.get_version()}, Pillow {PIL.__version__}, PostgreSQL {pg} (psycopg {psycopg.__version__}) "
        f"on the same machine; 1-minute load average {load:.1f} at the end of the run (other work shares "
        "these cores)"
    )


def write_section(section: str, title: str, body: str) -> None:
    start, end = f"<!-- {section}:start -->", f"<!-- {section}:end -->"
    block = f"{start}\n## {title}\n\n{body}\n{end}"
    text = DOCS.read_text() if DOCS.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = (
        pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + f"\n\n{block}\n"
    )
    DOCS.write_text(text)
