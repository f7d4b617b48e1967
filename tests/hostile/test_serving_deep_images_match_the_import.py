"""A 16-bit or float image sent for prediction is scaled to 8 bits exactly as the dataset import
stores it, so a model sees the same pixels in production as in training (before, serving clipped a
16-bit PNG of 0..64000 to nearly all white). A float image holding NaN is a 400 naming the input."""

from __future__ import annotations

import io

import numpy as np
import pytest
from datasets.images import prepare_image
from PIL import Image

from workers.image_classification.preprocessing import make_spec, preprocess_numpy
from workers.serving.protocol import PredictionInputError, decode_image


def encoded(array: np.ndarray, format: str) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format)
    return out.getvalue()


@pytest.mark.parametrize(
    "array, format",
    [
        (np.linspace(0, 64000, 32 * 32).reshape(32, 32).astype(np.uint16), "PNG"),
        (np.linspace(-3.0, 7.5, 32 * 32).reshape(32, 32).astype(np.float32), "TIFF"),
        (np.linspace(0, 2_000_000, 32 * 32).reshape(32, 32).astype(np.int32), "TIFF"),
    ],
)
def test_serving_sees_the_pixels_the_import_stored(array, format):
    data = encoded(array, format)
    stored = Image.open(io.BytesIO(prepare_image(data, max_pixels=10_000_000).data))
    spec = make_spec(32)
    served = preprocess_numpy(decode_image(data), spec)
    trained = preprocess_numpy(stored, spec)
    np.testing.assert_array_equal(served, trained)
    assert len(np.unique(served)) > 200  # the gradations survive, not a clipped white image


def test_a_float_image_with_nan_is_refused_naming_the_input():
    array = np.zeros((8, 8), dtype=np.float32)
    array[3, 3] = np.nan
    with pytest.raises(PredictionInputError) as refused:
        decode_image(encoded(array, "TIFF"), where="instances[0].image")
    assert refused.value.status == 400 and "instances[0].image" in str(refused.value)


def test_the_import_refuses_a_float_image_with_nan_too():
    from datasets.images import ImageRejected

    array = np.ones((8, 8), dtype=np.float32)
    array[0, 0] = np.nan
    with pytest.raises(ImageRejected, match="not finite"):
        prepare_image(encoded(array, "TIFF"), max_pixels=10_000_000)
