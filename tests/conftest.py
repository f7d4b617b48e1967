"""The fixtures every test directory shares, and the markers pytest selects by.

Layering (pytest finds fixtures here by name; no test module imports a fixture):

- this file: live processes (``live_worker``, ``live_web``), users in two tenants (``make_user``,
  ``tenants``), API clients (``api_client``, ``token_for``), blobs in the test's own directory
  (``isolated_storage``), alice's empty image dataset (``digits``) and a digits classifier trained once
  per session (``trained_digits``);
- ``tests/<area>/conftest.py``: what one area shares (``tests/sdk``: the SDK client on a live platform;
  ``tests/hostile``: gunicorn started as ``make up`` starts it);
- ``tests/<app>/factories.py``: row builders (plain functions), imported by name like any helper;
- ``tests/harness.py``: paths, polling, free ports and the live-process launchers.

Markers (registered in pyproject.toml) are applied here by directory and by fixture, so a new test
in the right place is selected right: see ``pytest_collection_modifyitems``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import LiveProcess, live_env, purge_broker, start_web, start_worker, wait_for

TESTS = Path(__file__).resolve().parent


def pytest_configure(config) -> None:
    """Transactional tests end with Django's flush (one TRUNCATE of every table). A live web or worker
    process of this session may be writing at that moment (usage minutes, heartbeats), and PostgreSQL
    can then pick the TRUNCATE as a deadlock's victim: the flush fails and the next test finds the
    last one's rows. The TRUNCATE runs in its own transaction, so trying it again is safe."""
    from django.core.management.base import CommandError
    from django.core.management.commands import flush

    handle = flush.Command.handle
    if getattr(handle, "retries_deadlocks", False):
        return

    def handle_retrying_deadlocks(self, **options):
        for attempt in range(5):
            try:
                return handle(self, **options)
            except CommandError as exc:
                if attempt == 4 or "deadlock detected" not in str(exc.__cause__ or ""):
                    raise
                time.sleep(0.2 * (attempt + 1))

    handle_retrying_deadlocks.retries_deadlocks = True  # type: ignore[attr-defined]
    flush.Command.handle = handle_retrying_deadlocks


# --- markers -----------------------------------------------------------------------------------

# Every test under these directories carries these markers.
DIRECTORY_MARKERS = {
    "datasets": ("openapi_conformance",),
    "e2e": ("browser",),
    "packages": ("packages",),
    "faults": ("faults", "integration", "own_workers"),
    "scale": ("integration", "slow", "own_workers"),
}
# A test that uses one of these fixtures (directly or through another fixture) carries the marker.
FIXTURE_MARKERS = {
    "live_worker": "integration",
}
# Tests measured over ~20 s on this 2-core machine (`--durations`, setup included), by file path or node
# id under tests/. The workers' shared training run (tests/workers/digits_data.py: trained_digits(),
# ~9 minutes on a loaded machine) is paid by whichever test calls it first, so every file calling it is
# here. The deploy tests' session fixture trained_digits (a 3-epoch model, ~35 s loaded, once per
# session) is not: it stays in the fast subset with the deploy tests.
SLOW = (
    "automl/test_sde_sampler.py::test_state_survives_between_processes_in_postgresql_storage",
    "hostile/test_schemathesis_whole_api.py",
    "hostile/test_serving_fixed_batch_onnx.py::test_device_sdk_javascript_and_cpp_samples_fill_the_fixed_batch",
    "workers/test_evaluation_metrics.py",
    "workers/test_onnx_export.py",
    "workers/test_resume_after_cancel.py",
    "workers/test_resume_after_sigkill.py",
    "workers/test_smart_labeling_detection.py",
    "workers/test_training_digits.py",
)


def _markers_for(item) -> set[str]:
    found: set[str] = set()
    try:
        relative = item.path.relative_to(TESTS).as_posix()
    except ValueError:  # tests under platform/
        return found
    top = relative.split("/", 1)[0]
    found.update(DIRECTORY_MARKERS.get(top, ()))
    found.update(marker for fixture, marker in FIXTURE_MARKERS.items() if fixture in item.fixturenames)
    nodeid = relative + item.nodeid.partition(".py")[2]
    if any(nodeid == slow or nodeid.startswith(slow + "::") for slow in SLOW):
        found.add("slow")
    # `e2e` is the old name of `browser`: either selects every browser test
    if "browser" in found or item.get_closest_marker("browser") or item.get_closest_marker("e2e"):
        found.update({"browser", "e2e"})
    return found


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        for name in sorted(_markers_for(item)):
            if not item.get_closest_marker(name):
                item.add_marker(name)
        # The fault suite and the many-hosts tests run in a pytest process of their own and start
        # their own workers (tests/faults/job_stack.py, tests/scale/hosts.py); the session's live
        # worker would stay alive there, take their jobs and count as a slot in the scheduler.
        if item.get_closest_marker("own_workers") and "live_worker" in item.fixturenames:
            raise pytest.UsageError(
                f"{item.nodeid}: a test that starts its own workers (tests/faults, tests/scale) "
                "must not use the session's live_worker"
            )


# --- live processes ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def live_worker(django_db_setup, django_db_blocker) -> Iterator[LiveProcess]:
    """A real Celery worker process consuming the `cpu` queue of the test broker."""
    with django_db_blocker.unblock():
        purge_broker()
        worker = start_worker()
    yield worker
    worker.stop()


@pytest.fixture(autouse=True)
def _live_worker_reported_in(request, django_db_blocker) -> None:
    """A test using the live worker starts once the worker's WorkerNode row is there: the flush after a
    transactional test empties jobs_workernode, and the worker writes its row again only at its next
    heartbeat (3 s). Until then the scheduler sees no worker for `cpu` and sends no job's message (a
    job created in that window waited, and a test asserting its publish at commit failed)."""
    if "live_worker" not in request.fixturenames:
        return
    worker = request.getfixturevalue("live_worker")
    from jobs.models import WorkerNode

    with django_db_blocker.unblock():
        wait_for(
            lambda: WorkerNode.objects.filter(hostname=worker.hostname).exists() or not worker.alive(),
            timeout=60,
            what=f"the live worker {worker.hostname} to report in again",
        )
    assert worker.alive(), worker.log()


@pytest.fixture(scope="session")
def live_web(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A real gunicorn web process (as `make up` runs it) serving the test database."""
    web, url = start_web("web", live_env())
    web.pid = web.proc.pid  # type: ignore[attr-defined]
    yield url
    web.stop()


# --- tenants ---------------------------------------------------------------------------------


@pytest.fixture
def make_user(db):
    from tests.accounts.factories import user

    def make(username: str, *, password: str = "correct-horse-battery", is_staff: bool = False):
        return user(username=username, password=password, is_staff=is_staff)

    return make


@pytest.fixture
def tenants(make_user):
    """alice owns workspace A (with a project and a job); bob owns workspace B;
    carol is a viewer and erin an editor in A."""
    from workspaces.models import Role

    from tests.jobs.factories import job
    from tests.workspaces.factories import membership, project, workspace

    alice, bob, carol, erin = (make_user(n) for n in ("alice", "bob", "carol", "erin"))
    ws_a = workspace(owner=alice, name="Workspace A")
    ws_b = workspace(owner=bob, name="Workspace B")
    carol_membership = membership(ws_a, carol, Role.VIEWER)
    membership(ws_a, erin, Role.EDITOR)
    project_a = project(ws_a, name="Project A")
    project_b = project(ws_b, name="Project B")
    job_a = job(project_a, kind="system.check", params={"seconds": 1}, created_by=None)
    return {
        "alice": alice,
        "bob": bob,
        "carol": carol,
        "erin": erin,
        "ws_a": ws_a,
        "ws_b": ws_b,
        "project_a": project_a,
        "project_b": project_b,
        "job_a": job_a,
        "carol_membership": carol_membership,
    }


@pytest.fixture
def api_client(request):
    """``api_client(user)``: a DRF test client, logged in as ``user`` when given. In a test marked
    ``openapi_conformance`` (and everywhere under tests/datasets) every answer must also match the
    OpenAPI schema (tests/openapi_conformance.py); ``api_client.conformance`` then saw every answer."""
    if request.node.get_closest_marker("openapi_conformance"):
        from tests.openapi_conformance import ConformingClients

        return ConformingClients()

    from rest_framework.test import APIClient

    def client_for(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return client_for


@pytest.fixture
def token_for(db):
    from accounts.services import api_token_create

    def issue(user, name: str = "test") -> str:
        return api_token_create(user=user, name=name).key

    return issue


# --- data --------------------------------------------------------------------------------------


@pytest.fixture
def isolated_storage(settings, tmp_path):
    """Blobs in this test's own directory, so 'nothing was written' can be checked."""
    root = tmp_path / "blobs"
    root.mkdir()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    return root


@pytest.fixture
def digits(tenants, isolated_storage):
    """alice's empty image classification dataset in project A."""
    from datasets.services import dataset_create

    return dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", task_type="image_classification"
    )


@pytest.fixture(scope="session")
def trained_digits(tmp_path_factory) -> Path:
    """A tiny digits classifier trained once per session with the real trainer (fast preset, 3 epochs,
    30 digits per class): a run directory with model.onnx, preprocess.json, labels.json ("0".."9")."""
    from tests.deploy.factories import train_digits

    return train_digits(tmp_path_factory.mktemp("deploy-digits"))
