"""Serving's NumPy preprocessing reproduces training's torch evaluation transform (to 1e-6), for
every image kind an upload may bring; augmentation is seeded, in range, and shape-preserving."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from digits_data import shared_digits
from PIL import Image

from workers.image_classification.preprocessing import (
    make_spec,
    open_image,
    preprocess_batch,
    preprocess_numpy,
)
from workers.image_classification.transforms import EvalTransform, TrainTransform, random_crop_box


def _encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _noise(mode: str, size: tuple[int, int], seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    channels = {"RGB": 3, "RGBA": 4, "L": 1, "LA": 2}[mode]
    pixels = rng.integers(0, 256, size=(size[1], size[0], channels), dtype=np.uint8)
    return Image.fromarray(pixels.squeeze(-1) if channels == 1 else pixels, mode=mode)


def _images() -> dict[str, bytes]:
    gif_frames = [_noise("RGB", (30, 22), 5).convert("P"), _noise("RGB", (30, 22), 6).convert("P")]
    gif = io.BytesIO()
    gif_frames[0].save(gif, format="GIF", save_all=True, append_images=gif_frames[1:], transparency=0)
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 degrees clockwise to display
    return {
        "digit_png_grayscale": Path(shared_digits()["samples"][0]["path"]).read_bytes(),
        "rgb_jpeg_with_exif_rotation": _encoded(_noise("RGB", (40, 24), 1), "JPEG", exif=exif.tobytes()),
        "rgba_png": _encoded(_noise("RGBA", (37, 53), 2), "PNG"),
        "grey_alpha_png": _encoded(_noise("LA", (64, 16), 3), "PNG"),
        "animated_gif_with_transparency": gif.getvalue(),
        "bmp": _encoded(_noise("RGB", (33, 33), 7), "BMP"),
        "webp": _encoded(_noise("RGB", (70, 50), 8), "WEBP", lossless=True),
    }


IMAGES = _images()
SPECS = {
    "stretch_32": make_spec(32),
    "stretch_57x45": make_spec([57, 45]),
    "center_crop_48": make_spec(48, resize_mode="center_crop", crop_fraction=0.875),
    "center_crop_64_bicubic": make_spec(64, resize_mode="center_crop", resample="bicubic"),
}


@pytest.mark.parametrize("spec_name", SPECS)
@pytest.mark.parametrize("image_name", IMAGES)
def test_numpy_preprocessing_matches_the_torch_eval_transform(image_name, spec_name):
    spec = json.loads(json.dumps(SPECS[spec_name]))  # as read back from preprocess.json
    image = open_image(IMAGES[image_name])
    expected = EvalTransform(spec)(image)
    actual = preprocess_numpy(image, spec)
    assert actual.dtype == np.float32 and actual.shape == (3, *spec["image_size"])
    assert expected.dtype == torch.float32 and tuple(expected.shape) == actual.shape
    np.testing.assert_allclose(actual, expected.numpy(), rtol=0, atol=1e-6)


def test_decoding_is_upright_rgb_with_alpha_over_white_and_the_first_gif_frame():
    rotated = open_image(IMAGES["rgb_jpeg_with_exif_rotation"])
    assert rotated.mode == "RGB" and rotated.size == (24, 40)
    transparent = Image.new("RGBA", (4, 4), (10, 200, 30, 0))
    assert open_image(_encoded(transparent, "PNG")).getpixel((0, 0)) == (255, 255, 255)
    half = Image.new("RGBA", (4, 4), (0, 0, 0, 128))
    assert open_image(_encoded(half, "PNG")).getpixel((0, 0)) == (127, 127, 127)
    first = Image.open(io.BytesIO(IMAGES["animated_gif_with_transparency"]))
    assert getattr(first, "n_frames", 1) == 2
    decoded = open_image(IMAGES["animated_gif_with_transparency"])
    assert decoded.size == (30, 22) and decoded.mode == "RGB"
    with pytest.raises(OSError):
        open_image(b"definitely not an image")


def test_batches_stack_single_images():
    spec = SPECS["stretch_32"]
    images = [open_image(data) for data in IMAGES.values()]
    batch = preprocess_batch(images, spec)
    assert batch.shape == (len(images), 3, 32, 32)
    np.testing.assert_array_equal(batch[2], preprocess_numpy(images[2], spec))
    assert preprocess_batch([], spec).shape == (0, 3, 32, 32)


def test_augmentation_is_seeded_shaped_and_without_it_equals_evaluation():
    spec = make_spec([40, 48])
    image = open_image(IMAGES["webp"])
    augment = TrainTransform(spec, augmentation="strong", horizontal_flip=True)
    first, again = augment(image, random.Random(7)), augment(image, random.Random(7))
    assert first.shape == (3, 40, 48) and first.dtype == torch.float32
    assert torch.equal(first, again)
    assert not torch.equal(first, augment(image, random.Random(8)))
    plain = TrainTransform(spec, augmentation="none", horizontal_flip=False)
    assert torch.equal(plain(image, random.Random(1)), EvalTransform(spec)(image))
    flip_only = TrainTransform(spec, augmentation="none", horizontal_flip=True)
    flips = [flip_only(image, random.Random(seed)) for seed in range(20)]
    unflipped = EvalTransform(spec)(image)
    mirrored = EvalTransform(spec)(image.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    assert all(torch.equal(f, unflipped) or torch.equal(f, mirrored) for f in flips)
    assert 5 <= sum(torch.equal(f, mirrored) for f in flips) <= 15


def test_random_crop_boxes_stay_inside_the_image_and_respect_the_area_range():
    rng = random.Random(0)
    for _ in range(2000):
        width, height = rng.randint(1, 300), rng.randint(1, 300)
        left, top, right, bottom = random_crop_box(width, height, (0.25, 1.0), (3 / 4, 4 / 3), rng)
        assert 0 <= left < right <= width and 0 <= top < bottom <= height
        if width >= 8 and height >= 8 and 0.75 <= width / height <= 4 / 3:
            assert (right - left) * (bottom - top) >= 0.2 * width * height
