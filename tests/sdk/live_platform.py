"""Fixtures for the SDK tests (imported by each module): a `sampan.Client` against a live platform,
gunicorn + a Celery worker on the test PostgreSQL and Redis."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.datasets.factories import digits_by_class

__all__ = ["digits_folder", "project", "sdk", "wait_for", "web_process_has_torch", "write_digits_folder"]


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


def wait_for(predicate, *, timeout: float = 30.0, interval: float = 0.2, what: str = "condition"):
    """Poll ``predicate`` until it returns something truthy (as tests/conftest.py's wait_for, which a
    module here cannot import by the name ``conftest`` reliably)."""
    import time

    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)
    return value


@pytest.fixture
def sdk(live_web, live_worker, tenants, token_for):
    """A ``sampan.Client`` for alice (owner of workspace A) with a personal API token."""
    import sampan

    return sampan.Client(live_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)


@pytest.fixture
def project(sdk, tenants):
    return sdk.projects.get(tenants["project_a"].pk)


def write_digits_folder(root: Path, *, per_class: int, classes=range(10)) -> Path:
    """A folder per class of real digits PNGs (sklearn's bundled digits)."""
    for label, images in digits_by_class(per_class, classes).items():
        folder = root / label
        folder.mkdir(parents=True, exist_ok=True)
        for i, data in enumerate(images):
            (folder / f"{label}_{i:03d}.png").write_bytes(data)
    return root


@pytest.fixture
def digits_folder(tmp_path) -> Path:
    return write_digits_folder(tmp_path / "digits", per_class=8)


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
