"""Bad archives (DESIGN §6, issue 3 "Bad input"): each is refused with a 4xx that names the
problem, before anything is written, and the dataset's existing content stays as it was."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest

from tests.datasets.factories import (
    blob_files,
    digit_bytes,
    folder_layout,
    make_tar,
    make_zip,
    snapshot,
    upload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def stocked(digits, tenants, api_client, isolated_storage):
    """The dataset already holds 2 classes x 2 images: a refused import must not touch them."""
    client = api_client(tenants["alice"])
    response = post_archive(client, digits, "first.zip", make_zip(folder_layout(2, range(2))))
    assert response.status_code == 201, response.json()
    return {
        "client": client,
        "dataset": digits,
        "before": snapshot(digits),
        "blobs": blob_files(isolated_storage),
        "root": isolated_storage,
    }


def post_archive(client, dataset, name: str, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"archive": upload(name, data), **fields},
        format="multipart",
    )


def assert_refused(stocked, response, *, status: int, code: str, says: str) -> dict:
    error = response.json()["error"]
    assert response.status_code == status, response.json()
    assert error["code"] == code, error
    assert says in error["message"], error["message"]
    assert snapshot(stocked["dataset"]) == stocked["before"], "existing content changed"
    assert blob_files(stocked["root"]) == stocked["blobs"], "blobs were written for a refused archive"
    return error


def tar_with(members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def good_entries() -> dict[str, bytes]:
    return {f"cats/{i}.png": digit_bytes(300 + i) for i in range(3)}


@pytest.mark.parametrize("evil", ["../evil.png", "cats/../../evil.png", "cats\\..\\..\\evil.png"])
def test_zip_slip_is_refused(stocked, evil):
    response = post_archive(
        stocked["client"], stocked["dataset"], "slip.zip", make_zip({**good_entries(), evil: digit_bytes(1)})
    )
    error = assert_refused(stocked, response, status=400, code="unsafe_path", says="'..'")
    assert "evil.png" in error["message"] and error["details"]["entry"] == evil


def test_zip_slip_in_a_tar_is_refused(stocked):
    response = post_archive(
        stocked["client"],
        stocked["dataset"],
        "slip.tar.gz",
        make_tar({**good_entries(), "../../evil.png": digit_bytes(1)}),
    )
    assert_refused(stocked, response, status=400, code="unsafe_path", says="'../../evil.png'")


@pytest.mark.parametrize("absolute", ["/etc/evil.png", "C:/Windows/evil.png", "\\\\server\\evil.png"])
def test_absolute_paths_are_refused(stocked, absolute):
    response = post_archive(
        stocked["client"],
        stocked["dataset"],
        "abs.zip",
        make_zip({**good_entries(), absolute: digit_bytes(1)}),
    )
    assert_refused(stocked, response, status=400, code="unsafe_path", says="absolute path")


def test_absolute_paths_in_a_tar_are_refused(stocked):
    response = post_archive(
        stocked["client"],
        stocked["dataset"],
        "abs.tgz",
        make_tar({**good_entries(), "/tmp/evil.png": digit_bytes(1)}),
    )
    assert_refused(
        stocked, response, status=400, code="unsafe_path", says="'/tmp/evil.png' is an absolute path"
    )


def test_symlink_in_a_zip_is_refused(stocked):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in good_entries().items():
            archive.writestr(name, data)
        link = zipfile.ZipInfo("cats/passwd.png")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "../../../../etc/passwd")
    response = post_archive(stocked["client"], stocked["dataset"], "link.zip", out.getvalue())
    assert_refused(
        stocked, response, status=400, code="link_in_archive", says="'cats/passwd.png' is a symbolic link"
    )


@pytest.mark.parametrize(
    ("kind", "says"), [(tarfile.SYMTYPE, "a symbolic link"), (tarfile.LNKTYPE, "a hard link")]
)
def test_links_in_a_tar_are_refused(stocked, kind, says):
    link = tarfile.TarInfo("cats/link.png")
    link.type = kind
    link.linkname = "/etc/passwd" if kind == tarfile.SYMTYPE else "cats/0.png"
    members = [(tarfile.TarInfo(name), data) for name, data in good_entries().items()] + [(link, None)]
    response = post_archive(stocked["client"], stocked["dataset"], "link.tar.gz", tar_with(members))
    assert_refused(stocked, response, status=400, code="link_in_archive", says=f"'cats/link.png' is {says}")


def test_device_file_in_a_tar_is_refused(stocked):
    device = tarfile.TarInfo("cats/null.png")
    device.type = tarfile.CHRTYPE
    response = post_archive(
        stocked["client"], stocked["dataset"], "dev.tar", tar_with([(device, None)], mode="w")
    )
    assert_refused(
        stocked, response, status=400, code="special_file", says="'cats/null.png' is not a regular file"
    )


ZEROS = b"\x00" * (20 * 1024 * 1024)  # 20 MiB that deflate to about 20 KiB: ratio ~1000


def test_zip_bomb_ratio_is_refused_before_anything_is_written(stocked):
    # Good images first: a streaming importer that wrote as it went would have stored them.
    archive = make_zip({**good_entries(), "cats/bomb.png": ZEROS})
    response = post_archive(stocked["client"], stocked["dataset"], "bomb.zip", archive)
    error = assert_refused(
        stocked, response, status=400, code="compression_ratio", says="SAMPAN_DATASET_MAX_COMPRESSION_RATIO"
    )
    assert "'cats/bomb.png'" in error["message"]


def test_gzip_bomb_in_a_tar_is_refused_while_streaming(stocked):
    archive = make_tar({**good_entries(), "cats/bomb.png": ZEROS})
    assert len(archive) < 100_000
    response = post_archive(stocked["client"], stocked["dataset"], "bomb.tar.gz", archive)
    assert_refused(stocked, response, status=400, code="compression_ratio", says="expands")


@pytest.mark.parametrize("pack", [make_zip, make_tar], ids=["zip", "tar.gz"])
def test_total_uncompressed_size_is_limited(stocked, settings, pack):
    settings.SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES = 3_000
    entries = {f"cats/{i}.png": digit_bytes(400 + i) for i in range(40)}
    assert sum(map(len, entries.values())) > 3_000
    response = post_archive(stocked["client"], stocked["dataset"], "big.archive", pack(entries))
    assert_refused(
        stocked,
        response,
        status=400,
        code="archive_too_large_uncompressed",
        says="SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES",
    )


@pytest.mark.parametrize("pack", [make_zip, make_tar], ids=["zip", "tar.gz"])
def test_file_count_is_limited(stocked, settings, pack):
    settings.SAMPAN_DATASET_MAX_FILES = 10
    entries = {f"cats/{i}.png": digit_bytes(500 + i) for i in range(11)}
    response = post_archive(stocked["client"], stocked["dataset"], "many.archive", pack(entries))
    assert_refused(stocked, response, status=400, code="too_many_files", says="more than 10 files")


def _dir(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (make_zip({}), "no files to import"),
        (make_zip({"__MACOSX/._a.png": b"x", ".DS_Store": b"x"}), "2 hidden or system entries were skipped"),
        (tar_with([(_dir("empty-folder"), None)]), "no files to import"),
        (b"", "empty file"),
    ],
    ids=["zip", "only-junk", "tar-with-a-folder", "zero-bytes"],
)
def test_empty_archive_is_refused(stocked, data, says):
    response = post_archive(stocked["client"], stocked["dataset"], "empty.zip", data)
    assert_refused(stocked, response, status=400, code="empty_archive", says=says)


def test_upload_over_the_import_size_limit_answers_413(stocked, settings):
    settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES = 2_048
    archive = make_zip(
        {f"cats/{i}.png": digit_bytes(600 + i) for i in range(20)}, compression=zipfile.ZIP_STORED
    )
    response = post_archive(stocked["client"], stocked["dataset"], "large.zip", archive)
    error = assert_refused(
        stocked, response, status=413, code="upload_too_large", says="SAMPAN_DATASET_MAX_UPLOAD_BYTES"
    )
    assert f"{len(archive):,} bytes" in error["message"] and error["details"]["limit_bytes"] == 2_048


def test_request_over_the_body_limit_answers_413_before_it_is_read(stocked, settings):
    settings.SAMPAN_MAX_REQUEST_BYTES = settings.SAMPAN_MAX_UPLOAD_REQUEST_BYTES = 4_096
    archive = make_zip(
        {f"cats/{i}.png": digit_bytes(600 + i) for i in range(30)}, compression=zipfile.ZIP_STORED
    )
    response = post_archive(stocked["client"], stocked["dataset"], "large.zip", archive)
    assert_refused(stocked, response, status=413, code="request_too_large", says="the limit is 4096 bytes")


def test_not_an_archive_is_refused(stocked):
    response = post_archive(stocked["client"], stocked["dataset"], "notes.zip", b"just some text, not a zip")
    assert_refused(stocked, response, status=400, code="not_an_archive", says="not a zip, tar")


def test_damaged_zip_is_refused(stocked):
    archive = make_zip(good_entries())
    response = post_archive(stocked["client"], stocked["dataset"], "cut.zip", archive[: len(archive) // 2])
    assert_refused(stocked, response, status=400, code="corrupt_archive", says="damaged")
