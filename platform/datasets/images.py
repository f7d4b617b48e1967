"""Image intake: recognise the format from the content, refuse pixel floods before decoding,
decode fully (which finds truncated and corrupt files), re-encode, and make a thumbnail.

Re-encoding means no uploaded byte is ever served back: JPEG stays JPEG (quality 95), every
other accepted format (PNG, BMP, WebP, GIF's first frame, TIFF's first page) becomes PNG. Images
with more than 8 bits per sample (16-bit grayscale PNG/TIFF, 32-bit integer and float TIFF) are
scaled to 8 bits keeping their range (``_eight_bit``), not clipped to black and white. The stored
bytes' sha256 is the content address of the blob and the dataset's duplicate key. Thumbnails are JPEGs at most
128 px on the longer side; an image that already fits is its own thumbnail.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps

from workers.image_classification.preprocessing import eight_bit, is_deep

ACCEPTED_FORMATS = ("JPEG", "PNG", "BMP", "WEBP", "GIF", "TIFF")
THUMBNAIL_SIZE = 128
CONTENT_TYPES = {"jpg": "image/jpeg", "png": "image/png"}


def content_type_of(key: str) -> str:
    """The content type of a stored blob, by the extension its key ends with."""
    return CONTENT_TYPES.get(key.rsplit(".", 1)[-1], "application/octet-stream")


class ImageRejected(Exception):
    """One file is not importable; ``code`` is machine-readable, the message names the problem."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class PreparedImage:
    sha256: str
    data: bytes
    extension: str  # "jpg" or "png": the stored format
    thumbnail: bytes | None  # JPEG; None when the image already fits and is its own thumbnail
    format: str  # detected source format
    width: int
    height: int


def configure_pillow(*, max_pixels: int) -> None:
    """Process-wide: Pillow's own decompression-bomb guard errors instead of warning, for every
    image any code in this process opens. ``prepare_image`` does not rely on it: it refuses an
    image over ``max_pixels`` from the header itself, whatever the warning filters are."""
    Image.MAX_IMAGE_PIXELS = max_pixels
    warnings.simplefilter("error", Image.DecompressionBombWarning)


def _eight_bit(image: Image.Image) -> Image.Image:
    """The shared 8-bit mapping of deep grayscale images (serving applies the same one)."""
    try:
        return eight_bit(image)
    except ValueError as exc:
        raise ImageRejected("corrupt_image", str(exc)) from None


def _normalised(image: Image.Image) -> Image.Image:
    if is_deep(image):
        return _eight_bit(image)
    if image.mode in ("RGB", "L", "RGBA"):
        return image
    has_alpha = image.mode in ("LA", "PA", "RGBa", "La") or "transparency" in image.info
    return image.convert("RGBA" if has_alpha else "RGB")


def _thumbnail(image: Image.Image) -> bytes | None:
    if image.width <= THUMBNAIL_SIZE and image.height <= THUMBNAIL_SIZE:
        return None  # a smaller JPEG copy would only lose quality
    thumb = image.copy()
    thumb.thumbnail((THUMBNAIL_SIZE, THUMBNAIL_SIZE), Image.Resampling.BILINEAR, reducing_gap=2.0)
    if thumb.mode == "RGBA":
        background = Image.new("RGB", thumb.size, (255, 255, 255))
        background.paste(thumb, mask=thumb.getchannel("A"))
        thumb = background
    elif thumb.mode != "RGB" and thumb.mode != "L":
        thumb = thumb.convert("RGB")
    out = io.BytesIO()
    thumb.save(out, "JPEG", quality=80)
    return out.getvalue()


def _over_limit(what: str, max_pixels: int) -> str:
    return f"{what}, over the {max_pixels:,}-pixel limit (SAMPAN_DATASET_MAX_IMAGE_PIXELS)"


def _pixel_flood(exc: Exception, max_pixels: int) -> ImageRejected:
    """Pillow's own guard fired (its message quotes its own threshold, twice ours for the hard
    error): say it with the one limit users configure."""
    found = re.search(r"\((\d+) pixels\)", str(exc))
    what = f"{int(found.group(1)):,} pixels" if found else "the image has too many pixels"
    return ImageRejected("too_many_pixels", _over_limit(what, max_pixels))


def prepare_image(data: bytes, *, max_pixels: int) -> PreparedImage:
    """Verify ``data`` as an image by content and return its re-encoded form and thumbnail.

    e.g. ``prepare_image(open("cat.jpg", "rb").read(), max_pixels=50_000_000).extension == "jpg"``
    Raises ImageRejected for anything that is not a whole, acceptable image.
    """
    try:
        image: Image.Image = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
    except Image.UnidentifiedImageError:
        raise ImageRejected(
            "not_an_image", "not a JPEG, PNG, BMP, WebP, GIF or TIFF image (checked by content)"
        ) from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _pixel_flood(exc, max_pixels) from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageRejected("corrupt_image", f"unreadable image header ({exc})") from None
    width, height = image.size
    source_format = image.format or "?"
    if width < 1 or height < 1:
        raise ImageRejected("corrupt_image", f"image has no pixels ({width}x{height})")
    if width * height > max_pixels:
        # Refused from the header alone: a pixel flood is never decoded.
        raise ImageRejected(
            "too_many_pixels", _over_limit(f"{width}x{height} is {width * height:,} pixels", max_pixels)
        )
    try:
        image.load()  # GIF and animated WebP: the first frame
        if source_format in ("JPEG", "WEBP"):
            image = ImageOps.exif_transpose(image)
        image = _normalised(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _pixel_flood(exc, max_pixels) from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        message = str(exc) or type(exc).__name__
        code = "truncated_image" if "truncated" in message.lower() else "corrupt_image"
        raise ImageRejected(code, f"cannot decode the {source_format} data: {message}") from None
    out = io.BytesIO()
    if source_format == "JPEG" and image.mode in ("RGB", "L"):
        image.save(out, "JPEG", quality=95)
        extension = "jpg"
    else:
        # zlib level 1 (OpenCV's PNG default): 3-4x faster than Pillow's 6 on photos-sized images,
        # files about a third larger; imports are CPU-bound, storage is cheap.
        image.save(out, "PNG", compress_level=1)
        extension = "png"
    stored = out.getvalue()
    return PreparedImage(
        sha256=hashlib.sha256(stored).hexdigest(),
        data=stored,
        extension=extension,
        thumbnail=_thumbnail(image),
        format=source_format,
        width=image.width,
        height=image.height,
    )
