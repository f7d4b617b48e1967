"""SAMPAN_HOME is a host-local cache that may be deleted under a running web process (DESIGN §13): an
upload spooled to disk makes its temp folder again instead of failing with a 500; and a web process
sweeps its own host's stale spooled uploads, since a web-only host runs no worker to tidy them."""

from __future__ import annotations

import os
import time

import pytest

from tests.datasets.factories import folder_layout, make_zip, upload

pytestmark = pytest.mark.django_db


def test_an_upload_recreates_a_vanished_temp_folder(settings, tmp_path, digits, tenants, api_client):
    gone = tmp_path / "home-deleted" / "tmp" / "uploads"
    settings.FILE_UPLOAD_TEMP_DIR = str(gone)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # spool the archive to a temp file
    archive = upload("digits.zip", make_zip(folder_layout(3, range(2))), "application/zip")
    assert archive.size > 1024 and not gone.exists()
    client = api_client(tenants["alice"])
    answer = client.post(f"/api/v1/datasets/{digits.pk}/imports/", {"archive": archive}, format="multipart")
    assert answer.status_code in (200, 201), answer.content
    assert gone.is_dir() and digits.samples.count() == 6


@pytest.mark.integration
def test_a_web_process_sweeps_its_hosts_stale_spooled_uploads(tmp_path):
    from tests.harness import live_env, start_web, wait_for

    home = tmp_path / "web-host"
    spool = home / "tmp" / "uploads"
    spool.mkdir(parents=True)
    stale, fresh = spool / "tmpkilled.upload.zip", spool / "tmpuploading.upload.zip"
    stale.write_bytes(b"left by a web process killed mid-upload")
    fresh.write_bytes(b"an upload arriving now")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    web, _ = start_web("web-upload-sweep", live_env(SAMPAN_HOME=str(home)), threads=2)
    try:
        wait_for(lambda: not stale.exists(), timeout=60, what="the web process to sweep its stale upload")
        assert fresh.exists(), "an upload younger than an hour was removed"
        assert "removed 1 stale upload file(s)" in web.log()
    finally:
        web.stop()
