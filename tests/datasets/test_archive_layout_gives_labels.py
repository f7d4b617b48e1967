"""An archive's folders are its classes: a folder per class gives labels, files at the root are
unlabeled (or get the upload's label), one folder wrapping everything is looked through, and
zip, tar, tar.gz, tar.bz2 and tar.xz all work."""

from __future__ import annotations

import pytest
from datasets.models import Sample

from tests.datasets.factories import digit_bytes, make_tar, make_zip, upload

pytestmark = pytest.mark.django_db


def imported(client, dataset, name: str, data: bytes, **fields) -> dict[str, str | None]:
    response = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload(name, data), **fields},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    return dict(Sample.objects.filter(dataset=dataset).values_list("original_name", "label__name"))


@pytest.mark.parametrize(
    "pack",
    [
        make_zip,
        lambda e: make_tar(e, mode="w"),
        make_tar,
        lambda e: make_tar(e, mode="w:bz2"),
        lambda e: make_tar(e, mode="w:xz"),
    ],
    ids=["zip", "tar", "tar.gz", "tar.bz2", "tar.xz"],
)
def test_folder_per_class_and_root_files(digits, tenants, api_client, pack):
    entries = {
        "cat/a.png": digit_bytes(1),
        "cat/more/b.png": digit_bytes(2),
        "dog/c.png": digit_bytes(3),
        "d.png": digit_bytes(4),
        "cat/.hidden.png": digit_bytes(5),
        "__MACOSX/cat/._a.png": b"junk",
    }
    assert imported(api_client(tenants["alice"]), digits, "layout", pack(entries)) == {
        "cat/a.png": "cat",
        "cat/more/b.png": "cat",
        "dog/c.png": "dog",
        "d.png": None,
    }


def test_a_wrapping_folder_is_looked_through(digits, tenants, api_client):
    entries = {
        "digits/0/a.png": digit_bytes(1),
        "digits/1/b.png": digit_bytes(2),
        "digits/manifest.csv": b"path",
    }
    labels = imported(api_client(tenants["alice"]), digits, "wrapped.zip", make_zip(entries))
    assert labels == {"digits/0/a.png": "0", "digits/1/b.png": "1"}


def test_one_folder_is_one_class(digits, tenants, api_client):
    labels = imported(
        api_client(tenants["alice"]),
        digits,
        "one.zip",
        make_zip({"sevens/a.png": digit_bytes(7), "sevens/b.png": digit_bytes(17)}),
    )
    assert set(labels.values()) == {"sevens"}


def test_a_flat_archive_is_unlabeled_unless_a_label_is_given(digits, tenants, api_client):
    client = api_client(tenants["alice"])
    assert set(imported(client, digits, "flat.zip", make_zip({"a.png": digit_bytes(1)})).values()) == {None}
    labels = imported(
        client,
        digits,
        "flat.zip",
        make_zip({"b.png": digit_bytes(2), "x/c.png": digit_bytes(3)}),
        label="twos",
    )
    assert labels == {"a.png": None, "b.png": "twos", "x/c.png": "x"}


def test_the_upload_label_must_be_a_usable_label_name(digits, tenants, api_client):
    response = api_client(tenants["alice"]).post(
        f"/api/v1/datasets/{digits.pk}/imports/",
        {"files": [upload("a.png", digit_bytes(1))], "label": "a/b"},
        format="multipart",
    )
    assert response.status_code == 400 and response.json()["error"]["message"].startswith(
        "label: 'a/b' cannot be a label"
    )
    assert not Sample.objects.filter(dataset=digits).exists()


def test_big_archives_go_to_a_background_job(digits, tenants, api_client, settings, monkeypatch):
    from datasets.services import image_imports
    from jobs.models import Job

    client = api_client(tenants["alice"])
    archive = make_zip({f"cat/{i}.png": digit_bytes(i) for i in range(4)})
    settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = 3  # more files than this
    by_count = client.post(
        f"/api/v1/datasets/{digits.pk}/imports/", {"archive": upload("a.zip", archive)}, format="multipart"
    )
    settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = 300
    monkeypatch.setattr(image_imports, "SYNC_IMPORT_MAX_BYTES", 100)  # or more bytes than this, unpacked
    by_size = client.post(
        f"/api/v1/datasets/{digits.pk}/imports/", {"archive": upload("b.zip", archive)}, format="multipart"
    )
    for response in (by_count, by_size):
        assert response.status_code == 202, response.json()
        body = response.json()
        assert (body["status"], body["files"], body["imported"]) == ("queued", 4, 0)
        assert Job.objects.get(pk=body["job"]).kind == "datasets.import"
    assert not Sample.objects.filter(dataset=digits).exists()
