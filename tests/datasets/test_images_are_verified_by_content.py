"""Images are recognised by content, never by extension; bad files are reported by name while
the rest imports; pixel floods are refused from the header; duplicates are reported, not stored
twice; stored blobs are re-encoded and content-addressed, with thumbnails."""

from __future__ import annotations

import hashlib
import io
import warnings

import pytest
from datasets.images import ImageRejected, configure_pillow, prepare_image
from datasets.models import ImportBatch, Label, Sample
from django.conf import settings
from PIL import Image

from tests.datasets.factories import (
    digit_bytes,
    digit_image,
    folder_layout,
    make_tar,
    make_zip,
    pixel_flood_png,
    snapshot,
    upload,
)

pytestmark = pytest.mark.django_db


def imports_url(dataset) -> str:
    return f"/api/v1/datasets/{dataset.pk}/imports/"


def post_files(client, dataset, files: dict[str, bytes], **fields):
    return client.post(
        imports_url(dataset),
        {"files": [upload(n, d) for n, d in files.items()], **fields},
        format="multipart",
    )


def problems_by_file(body: dict) -> dict[str, str]:
    return {p["file"]: p["code"] for p in body["problems"]}


def test_bad_files_are_reported_by_name_while_the_rest_imports(digits, tenants, api_client):
    png = digit_bytes(7)
    entries = {
        "cats/good-1.png": digit_bytes(1),
        "cats/good-2.png": digit_bytes(2),
        "cats/flood.png": pixel_flood_png(),
        "cats/truncated.png": png[: len(png) // 2],
        "cats/corrupt.jpg": b"\xff\xd8\xff\xe0" + b"\x13" * 400,
        "cats/notes.txt": b"not an image",
        "dogs/text-named.png": b"hello, I am text in a .png",
        "dogs/png-named.jpg": digit_bytes(3),
        "dogs/bmp.bmp": digit_bytes(4, format="BMP"),
    }
    response = api_client(tenants["alice"]).post(
        imports_url(digits), {"archive": upload("mixed.tar.gz", make_tar(entries))}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["files"], body["imported"], body["failed"], body["duplicates"]) == (9, 4, 5, 0)
    assert problems_by_file(body) == {
        "cats/flood.png": "too_many_pixels",
        "cats/truncated.png": "truncated_image",
        "cats/corrupt.jpg": "corrupt_image",
        "cats/notes.txt": "not_an_image",
        "dogs/text-named.png": "not_an_image",
    }
    messages = {p["file"]: p["message"] for p in body["problems"]}
    assert "10,000,000,000 pixels, over the 50,000,000-pixel limit" in messages["cats/flood.png"]
    assert "SAMPAN_DATASET_MAX_IMAGE_PIXELS" in messages["cats/flood.png"]
    assert "checked by content" in messages["dogs/text-named.png"]
    stored = dict(Sample.objects.filter(dataset=digits).values_list("original_name", "format"))
    assert stored == {
        "cats/good-1.png": "PNG",
        "cats/good-2.png": "PNG",
        "dogs/png-named.jpg": "PNG",
        "dogs/bmp.bmp": "BMP",
    }
    assert sorted(Label.objects.filter(dataset=digits).values_list("name", flat=True)) == ["cats", "dogs"]
    assert (
        api_client(tenants["alice"]).get(f"{imports_url(digits)}{body['id']}/").json()["problems"]
        == body["problems"]
    )
    listed = api_client(tenants["alice"]).get(imports_url(digits)).json()["results"]
    assert [(row["id"], row["failed"]) for row in listed] == [(body["id"], 5)] and "problems" not in listed[0]


def test_an_upload_where_nothing_imports_is_a_400_naming_each_file(digits, tenants, api_client):
    client = api_client(tenants["alice"])
    assert post_files(client, digits, {"a.png": digit_bytes(1)}).status_code == 201
    before = snapshot(digits)
    response = post_files(client, digits, {"flood.png": pixel_flood_png(), "fake.png": b"text"})
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == "nothing_imported"
    assert (
        "flood.png" in error["message"]
        and "fake.png" in error["message"]
        and "pixel limit" in error["message"]
    )
    assert {p["file"] for p in error["details"]["problems"]} == {"flood.png", "fake.png"}
    assert snapshot(digits) == before


@pytest.mark.parametrize(
    ("width", "height"), [(60_000, 60_000), (8_000, 7_000)], ids=["over-2x", "just-over"]
)
def test_pixel_flood_is_refused_from_the_header_without_decoding(width, height):
    # 8000 x 7000 is within Pillow's own hard error (2x its limit): only a warning there.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImageRejected) as refused:
            prepare_image(pixel_flood_png(width, height), max_pixels=50_000_000)
    assert refused.value.code == "too_many_pixels"
    assert "SAMPAN_DATASET_MAX_IMAGE_PIXELS" in str(refused.value)


def test_pillow_is_configured_to_error_past_the_pixel_limit():
    with warnings.catch_warnings():
        configure_pillow(
            max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS
        )  # what DatasetsConfig.ready does
        assert Image.MAX_IMAGE_PIXELS == 50_000_000
        with pytest.raises(Image.DecompressionBombWarning):
            Image.open(io.BytesIO(pixel_flood_png(8_000, 7_000)))


@pytest.mark.parametrize(
    ("fmt", "mode", "source", "extension"),
    [
        ("JPEG", "RGB", "JPEG", "jpg"),
        ("PNG", "RGBA", "PNG", "png"),
        ("PNG", "P", "PNG", "png"),
        ("BMP", "RGB", "BMP", "png"),
        ("WEBP", "RGB", "WEBP", "png"),
        ("GIF", "L", "GIF", "png"),
    ],
)
def test_accepted_formats_are_re_encoded(fmt, mode, source, extension):
    data = digit_bytes(5, format=fmt, size=40, mode=mode)
    image = prepare_image(data, max_pixels=10_000)
    assert (image.format, image.extension, image.width, image.height) == (source, extension, 40, 40)
    assert image.sha256 == hashlib.sha256(image.data).hexdigest()
    assert Image.open(io.BytesIO(image.data)).format == ("JPEG" if extension == "jpg" else "PNG")
    assert image.thumbnail is None, "a 40 px image is its own thumbnail"


def test_gif_imports_its_first_frame():
    first, second = Image.new("L", (16, 16), 0), Image.new("L", (16, 16), 255)
    out = io.BytesIO()
    first.save(out, "GIF", save_all=True, append_images=[second], duration=100, loop=0)
    stored = Image.open(io.BytesIO(prepare_image(out.getvalue(), max_pixels=10_000).data))
    assert stored.convert("L").getextrema() == (0, 0)


def test_thumbnails_are_jpegs_at_most_128px():
    big = io.BytesIO()
    digit_image(3, size=300, mode="RGBA").resize((300, 200)).save(big, "PNG")
    image = prepare_image(big.getvalue(), max_pixels=10_000_000)
    thumbnail = Image.open(io.BytesIO(image.thumbnail))
    assert (thumbnail.format, thumbnail.size, thumbnail.mode) == ("JPEG", (128, 85), "RGB")


def test_duplicates_are_reported_not_stored_twice(digits, tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    first = client.post(
        imports_url(digits),
        {"archive": upload("a.zip", make_zip(folder_layout(2, range(2))))},
        format="multipart",
    ).json()
    assert first["imported"] == 4
    blobs = sorted(p.name for p in isolated_storage.rglob("*.png"))
    # The same pixels again: the same file under another name, and as a BMP (re-encoded: same bytes).
    again = post_files(
        client,
        digits,
        {
            "copy.png": digit_bytes(0),
            "same-pixels.bmp": digit_bytes(0, format="BMP"),
            "new.png": digit_bytes(900),
        },
    )
    body = again.json()
    assert again.status_code == 201 and (body["imported"], body["duplicates"]) == (1, 2), body
    assert problems_by_file(body) == {"copy.png": "duplicate", "same-pixels.bmp": "duplicate"}
    duplicate_messages = {p["file"]: p["message"] for p in body["problems"]}
    assert "earlier in this import" in duplicate_messages["same-pixels.bmp"]
    assert "already in the dataset as '0/0_0000.png'" in duplicate_messages["copy.png"]
    assert Sample.objects.filter(dataset=digits).count() == 5
    assert len(sorted(p.name for p in isolated_storage.rglob("*.png"))) == len(blobs) + 1


def test_blobs_are_content_addressed_and_served_back_re_encoded(
    digits, tenants, api_client, isolated_storage
):
    response = post_files(
        api_client(tenants["alice"]),
        digits,
        {"one.jpg": digit_bytes(8, format="JPEG", mode="RGB")},
        label="eights",
    )
    assert response.status_code == 201
    sample = Sample.objects.get(dataset=digits)
    assert sample.label.name == "eights" and sample.format == "JPEG"
    assert sample.blob_key == f"samples/{sample.sha256[:2]}/{sample.sha256}.jpg"
    stored = (isolated_storage / sample.blob_key).read_bytes()
    assert hashlib.sha256(stored).hexdigest() == sample.sha256 and len(stored) == sample.size_bytes


def test_multi_file_upload_limits(digits, tenants, api_client, settings):
    client = api_client(tenants["alice"])
    settings.SAMPAN_DATASET_MAX_IMAGE_BYTES = 2_000
    big = digit_bytes(2, size=200, format="BMP")
    response = post_files(client, digits, {"big.bmp": big, "small.png": digit_bytes(2)})
    assert response.status_code == 201
    assert response.json()["problems"] == [
        {
            "file": "big.bmp",
            "code": "file_too_large",
            "message": f"{len(big):,} bytes, over the 2,000-byte limit for one image "
            "(SAMPAN_DATASET_MAX_IMAGE_BYTES)",
        }
    ]
    settings.SAMPAN_DATASET_MAX_FILES = 2
    response = post_files(client, digits, {f"{i}.png": digit_bytes(i) for i in range(3)})
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_many_files"


def test_import_needs_exactly_one_kind_of_upload(digits, tenants, api_client):
    client = api_client(tenants["alice"])
    response = client.post(imports_url(digits), {"label": "x"}, format="multipart")
    assert (
        response.status_code == 400
        and "either one archive or image files" in response.json()["error"]["message"]
    )
    assert ImportBatch.objects.filter(dataset=digits).count() == 0
