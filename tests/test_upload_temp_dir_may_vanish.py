"""SAMPAN_HOME is a host-local cache that may be deleted under a running web process (DESIGN §13): an
upload spooled to disk makes its temp folder again instead of failing with a 500."""

from __future__ import annotations

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
