"""Helpers for the SDK tests (their fixtures, a `sampan.Client` against a live platform of gunicorn + a
Celery worker on the test PostgreSQL and Redis, are in tests/sdk/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from tests.datasets.factories import digits_by_class
from tests.harness import wait_for

__all__ = ["wait_for", "web_process_has_torch", "write_digits_folder"]


def web_process_has_torch(url: str) -> bool:
    """Whether libtorch is mapped into the web server (gunicorn's master or workers) behind ``url``."""
    import psutil

    port = int(url.rsplit(":", 1)[1])
    for conn in psutil.net_connections(kind="tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
            master = psutil.Process(conn.pid)
            return any(
                "libtorch" in Path(f"/proc/{p.pid}/maps").read_text() for p in [master, *master.children()]
            )
    raise AssertionError(f"nothing listens on {url}")


def write_digits_folder(root: Path, *, per_class: int, classes=range(10)) -> Path:
    """A folder per class of real digits PNGs (sklearn's bundled digits)."""
    for label, images in digits_by_class(per_class, classes).items():
        folder = root / label
        folder.mkdir(parents=True, exist_ok=True)
        for i, data in enumerate(images):
            (folder / f"{label}_{i:03d}.png").write_bytes(data)
    return root


def deploy_api_available() -> bool:
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("deployment-list")
        reverse("package-list")
        return True
    except NoReverseMatch:
        return False


def studies_api_available() -> bool:
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("study-list")
        return True
    except NoReverseMatch:
        return False
