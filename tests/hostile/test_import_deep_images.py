"""Images with more than 8 bits per sample, built here: a 16-bit grayscale PNG holding 0..64000 and
float / 32-bit integer TIFFs import as 8-bit images that keep their gradations (not 2 values), and
a pixel flood's message quotes the one configured limit. Stored data is unchanged by refusals."""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pytest
from datasets.images import ImageRejected, prepare_image
from datasets.models import Sample
from django.core.files.storage import default_storage
from PIL import Image

from tests.datasets.factories import pixel_flood_png, snapshot, upload

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]


def encoded(array: np.ndarray, format: str) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format)
    return out.getvalue()


def gradient(dtype, low: float, high: float, shape=(64, 64)) -> np.ndarray:
    return np.linspace(low, high, shape[0] * shape[1]).reshape(shape).astype(dtype)


def stored_pixels(sample: Sample) -> np.ndarray:
    with default_storage.open(sample.blob_key, "rb") as blob:
        image = Image.open(io.BytesIO(blob.read()))
        image.load()
    assert image.mode == "L" and image.format == "PNG"
    return np.asarray(image)


def test_a_16_bit_png_keeps_its_range_through_the_api(digits, tenants, api_client):
    sixteen = encoded(gradient(np.uint16, 0, 64000), "PNG")
    assert Image.open(io.BytesIO(sixteen)).mode == "I;16"
    client = api_client(tenants["alice"])
    before = snapshot(digits)
    response = client.post(
        f"/api/v1/datasets/{digits.pk}/imports/",
        {"files": [upload("depth.png", sixteen)]},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 1
    pixels = stored_pixels(Sample.objects.get(dataset=digits, original_name="depth.png"))
    assert len(np.unique(pixels)) >= 200, f"only {len(np.unique(pixels))} distinct values"
    assert (pixels.min(), pixels.max()) == (0, 255)  # 0..64000 mapped onto 0..255
    assert np.all(np.diff(pixels.ravel().astype(int)) >= 0), "the gradient's order changed"
    after = snapshot(digits)
    assert set(before["samples"]) < set(after["samples"]) and after["labels"] == before["labels"]


@pytest.mark.parametrize(
    ("dtype", "low", "high"),
    [
        (np.float32, -1.5, 3.0),
        (np.float32, 0.0, 1.0),
        (np.int32, 0, 5_000_000),
        (np.uint16, 100, 4095),
    ],
    ids=["float", "float-unit", "int32", "12-bit"],
)
def test_deep_tiffs_scale_to_eight_bits_keeping_their_gradations(dtype, low, high):
    prepared = prepare_image(encoded(gradient(dtype, low, high), "TIFF"), max_pixels=1_000_000)
    pixels = np.asarray(Image.open(io.BytesIO(prepared.data)))
    assert prepared.format == "TIFF" and prepared.extension == "png" and pixels.dtype == np.uint8
    assert len(np.unique(pixels)) >= 200, f"only {len(np.unique(pixels))} distinct values"
    assert pixels.max() == 255 and np.all(np.diff(pixels.ravel().astype(int)) >= 0)


def test_an_8_bit_range_in_a_32_bit_image_keeps_its_values():
    values = gradient(np.int32, 0, 200)
    pixels = np.asarray(Image.open(io.BytesIO(prepare_image(encoded(values, "TIFF"), max_pixels=10**6).data)))
    assert np.array_equal(pixels, values.astype(np.uint8))


@pytest.mark.parametrize(
    ("width", "height"), [(100_000, 100_000), (8_000, 7_000)], ids=["over-2x", "just-over"]
)
def test_the_pixel_flood_message_quotes_one_limit(width, height):
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)  # as configure_pillow sets it
        with pytest.raises(ImageRejected) as refused:
            prepare_image(pixel_flood_png(width, height), max_pixels=50_000_000)
    message = str(refused.value)
    numbers = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]{3,}", message)}
    assert numbers == {width * height, 50_000_000}, message
    assert message.count("limit") == 1 and "SAMPAN_DATASET_MAX_IMAGE_PIXELS" in message
