"""The SDK waits for the jobs of a large dataset: ``create_version`` returns the version a
``datasets.version`` job made and ``export`` downloads the zip a ``datasets.export`` job stored, the
same objects and files as for a small dataset (a web process with low sync thresholds)."""

from __future__ import annotations

import zipfile

import pytest
import sampan
from jobs.models import Job

from tests.datasets.factories import bulk_text_dataset
from tests.harness import live_env, start_web

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def low_threshold_web(live_worker):
    env = live_env(SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES="50", SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES="50")
    web, url = start_web("web-low-sync-thresholds", env)
    yield url
    web.stop()


def test_create_version_and_export_wait_for_their_jobs(low_threshold_web, tenants, token_for, tmp_path):
    dataset = bulk_text_dataset(user=tenants["alice"], project=tenants["project_a"], samples=300, classes=3)
    client = sampan.Client(
        low_threshold_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2
    )
    remote = client.datasets.get(dataset.pk)

    version = remote.create_version(seed=4, progress=False, timeout=120)
    assert isinstance(version, sampan.DatasetVersion)
    assert (version.name, version.data["sample_count"]) == ("V1", 300)
    job = Job.objects.get(kind="datasets.version")
    assert job.result["dataset_version"] == version.id and job.params["seed"] == 4

    written = remote.export(tmp_path / "texts.zip", version=version, timeout=120)
    assert Job.objects.filter(kind="datasets.export", status="succeeded").count() == 1
    lines = zipfile.ZipFile(written or tmp_path / "texts.zip").read("data.csv").decode().splitlines()
    assert len(lines) == 301 and lines[0] == "text,label,split"
