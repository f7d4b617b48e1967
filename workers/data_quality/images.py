"""Image checks: each image is decoded once and measured (size, brightness, sharpness, a damaged
bottom band, a perceptual hash), then the dataset's images are judged together.

- Sharpness: variance of the 4-neighbour Laplacian of a 128x128 grayscale copy (pixel values
  0..255; a smaller image at its own shorter side, since upscaling is itself a blur). An image is
  blurry when it is both under an absolute floor (100) and under 0.3 x the dataset's median, so a
  dataset of soft images (scans, small digits) is not all "blurry".
- Brightness: mean luminance 0..1. Dark under 0.12, overexposed over 0.92, in both cases also far
  from the dataset's median (at most half its distance to black or white), or nearly every pixel
  clipped to black or white.
- Damaged but decodable: Pillow needs ``LOAD_TRUNCATED_IMAGES`` to read it, or its bottom rows are
  one constant mid grey (what a truncated JPEG decodes to, and keeps after being re-encoded).
- Perceptual hash (pHash): the 8x8 lowest frequencies of the DCT of a 32x32 grayscale copy, each bit
  "above the median" (the DC term left out of the median): 64 bits, compared by Hamming distance.
  Near duplicates are pairs within the distance whose 16x16 grayscale copies also correlate at
  >= 0.99: on small low-detail images (the 8x8-born digits) distinct pictures of one class sit a few
  bits apart (a fifth of the digits have another digit within 6 bits, their correlation at most
  0.989), while re-encoded, resized or re-lit copies correlate at >= 0.995 (measured on digits).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workers.contracts.quality import Distribution, Finding, FindingItem
from workers.contracts.smart_labeling import PoolSample
from workers.data_quality.findings import finding, groups_from_pairs, histogram
from workers.progress import Report

WORK_SIZE = 256  # longest side the measurements work at (JPEGs are drafted near it)
SHARPNESS_SIZE = 128
HASH_SIZE = 32
HASH_BITS = 8  # 8x8 frequencies: 64 bits
TINY_SIDE = 32
EXTREME_ASPECT = 4.0
DARK = 0.12
BRIGHT = 0.92
CLIPPED_SHARE = 0.95
BLUR_FLOOR = 100.0
BLUR_SHARE_OF_MEDIAN = 0.3
BAND_SHARE = 0.10
BAND_GREY = (112, 144)
TINY_BOX = 8.0
THUMBNAIL_SIZE = 16
NEAR_CORRELATION = 0.99
PAIR_BLOCK_CELLS = 4_000_000  # Hamming distances computed per block of rows, ~32 MB at a time
MAX_PAIRS = 2_000_000  # near pairs kept at most (a dataset of near-copies still ends)


@dataclass
class ImageStats:
    width: int
    height: int
    brightness: float
    dark_share: float
    bright_share: float
    sharpness: float
    truncated: bool
    grey_band: float  # share of rows at the bottom that are one constant grey
    pixel_key: str  # a digest of the decoded pixels: equal for pixel-identical images
    phash: int
    thumbnail: np.ndarray | None = None  # 16x16 grayscale, zero mean, unit norm (float32)
    error: str = ""


def _dct_matrix(n: int) -> np.ndarray:
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    matrix = np.cos(np.pi * (2 * i + 1) * k / (2 * n)) * math.sqrt(2 / n)
    matrix[0] /= math.sqrt(2)
    return matrix


_DCT = _dct_matrix(HASH_SIZE)


def phash(gray32: np.ndarray) -> int:
    """The 64-bit perceptual hash of one 32x32 grayscale array."""
    coefficients = _DCT @ gray32.astype(np.float64) @ _DCT.T
    low = coefficients[:HASH_BITS, :HASH_BITS].ravel()
    bits = low > np.median(low[1:])
    return int(np.packbits(bits).view(">u8")[0])


def _laplacian_variance(gray: np.ndarray) -> float:
    lap = gray[:-2, 1:-1] + gray[2:, 1:-1] + gray[1:-1, :-2] + gray[1:-1, 2:] - 4.0 * gray[1:-1, 1:-1]
    return float(lap.var())


def _grey_band(rgb: np.ndarray) -> float:
    """The share of rows at the bottom that are one constant mid grey (0 when there are none)."""
    height = rgb.shape[0]
    spread = rgb.max(axis=(1, 2)).astype(np.int16) - rgb.min(axis=(1, 2)).astype(np.int16)
    bottom = rgb[-1, 0].astype(np.int16)
    if spread[-1] > 2 or not (BAND_GREY[0] <= int(bottom.mean()) <= BAND_GREY[1]):
        return 0.0
    rows = 0
    for r in range(height - 1, -1, -1):
        if spread[r] > 2 or np.abs(rgb[r, 0].astype(np.int16) - bottom).max() > 2:
            break
        rows += 1
    if rows == height:  # a uniformly grey picture is not a damaged one
        return 0.0
    return float(rows / height)


def measure(path: str, *, width: int = 0, height: int = 0) -> ImageStats:
    """Decode ``path`` once and measure it; ``error`` says why an image could not be read at all."""
    from PIL import Image, ImageFile, ImageOps

    truncated = False
    try:
        try:
            with Image.open(path) as image:
                image.draft("RGB", (WORK_SIZE, WORK_SIZE))
                size = image.size
                ImageOps.exif_transpose(image, in_place=True)
                rgb = image.convert("RGB")
        except OSError as error:
            if "truncated" not in str(error):
                raise
            truncated = True
            ImageFile.LOAD_TRUNCATED_IMAGES = True
            try:
                with Image.open(path) as image:
                    image.draft("RGB", (WORK_SIZE, WORK_SIZE))
                    size = image.size
                    ImageOps.exif_transpose(image, in_place=True)
                    rgb = image.convert("RGB")
            finally:
                ImageFile.LOAD_TRUNCATED_IMAGES = False
    except (OSError, ValueError, Image.DecompressionBombError) as error:
        return ImageStats(width, height, 0.0, 0.0, 0.0, 0.0, True, 0.0, "", 0, error=str(error))
    if rgb.size != size and rgb.size == size[::-1]:
        size = rgb.size  # EXIF rotated it
    if not width or not height:
        width, height = size
    pixel_key = hashlib.blake2b(rgb.tobytes(), digest_size=16).hexdigest() + f":{rgb.size}"
    if max(rgb.size) > WORK_SIZE:
        scale = WORK_SIZE / max(rgb.size)
        rgb = rgb.resize(
            (max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale))), Image.Resampling.BOX
        )
    pixels = np.asarray(rgb)
    gray_image = rgb.convert("L")
    gray = np.asarray(gray_image, dtype=np.float64)
    side = max(8, min(SHARPNESS_SIZE, *gray_image.size))
    sharp = np.asarray(gray_image.resize((side, side), Image.Resampling.BILINEAR), dtype=np.float64)
    small = np.asarray(gray_image.resize((HASH_SIZE, HASH_SIZE), Image.Resampling.BOX), dtype=np.float64)
    thumbnail = np.asarray(
        gray_image.resize((THUMBNAIL_SIZE, THUMBNAIL_SIZE), Image.Resampling.BOX), dtype=np.float32
    ).ravel()
    thumbnail -= thumbnail.mean()
    thumbnail /= max(float(np.linalg.norm(thumbnail)), 1e-6)
    return ImageStats(
        width=int(width),
        height=int(height),
        brightness=float(gray.mean() / 255.0),
        dark_share=float((gray <= 8).mean()),
        bright_share=float((gray >= 247).mean()),
        sharpness=_laplacian_variance(sharp),
        truncated=truncated,
        grey_band=_grey_band(pixels),
        pixel_key=pixel_key,
        phash=phash(small),
        thumbnail=thumbnail,
    )


def measure_all(samples: Sequence[PoolSample], *, report: Report) -> list[ImageStats]:
    n = len(samples)
    step = max(1, n // 50)
    stats = []
    for i, sample in enumerate(samples):
        if i % step == 0:
            report(f"measuring images ({i}/{n})", fraction=i / max(n, 1))
        stats.append(
            measure(
                sample.get("image_path", ""), width=sample.get("width", 0), height=sample.get("height", 0)
            )
        )
    report(f"measured {n} images", fraction=1.0)
    return stats


def hamming_pairs(
    hashes: np.ndarray,
    max_distance: int,
    *,
    thumbnails: np.ndarray | None = None,
    min_correlation: float = -1.0,
) -> list[tuple[int, int]]:
    """Every pair (i < j) of 64-bit hashes at most ``max_distance`` bits apart (and, given
    ``thumbnails``, whose rows' dot product is at least ``min_correlation``), computed in blocks and
    capped at ``MAX_PAIRS``."""
    hashes = np.asarray(hashes, dtype=np.uint64)
    n = len(hashes)
    block = max(1, PAIR_BLOCK_CELLS // max(n, 1))
    pairs: list[tuple[int, int]] = []
    for start in range(0, n, block):
        rows = hashes[start : start + block]
        distances = np.bitwise_count(rows[:, None] ^ hashes[None, :])
        i, j = np.nonzero(distances <= max_distance)
        i = i + start
        keep = j > i
        i, j = i[keep], j[keep]
        if thumbnails is not None and len(i):
            close = np.einsum("ij,ij->i", thumbnails[i], thumbnails[j]) >= min_correlation
            i, j = i[close], j[close]
        pairs.extend(zip(i.tolist(), j.tolist(), strict=True))
        if len(pairs) >= MAX_PAIRS:
            return pairs[:MAX_PAIRS]
    return pairs


def duplicate_groups(
    stats: Sequence[ImageStats], *, max_distance: int
) -> tuple[list[list[int]], list[list[int]]]:
    """(exact groups, near groups) as positions: exact = pixel-identical after decoding; near = the
    perceptual hashes at most ``max_distance`` bits apart and the thumbnails correlated at >= 0.99.
    Near matching runs over one image per exact group, so a near group always joins different
    pictures (and a thousand identical blank images cost one comparison, not half a million)."""
    readable = [i for i, s in enumerate(stats) if not s.error]
    members_of: dict[str, list[int]] = {}
    for i in readable:
        members_of.setdefault(stats[i].pixel_key, []).append(i)
    exact = sorted((g for g in members_of.values() if len(g) > 1), key=lambda g: g[0])
    representatives = [g[0] for g in members_of.values()]
    hashes = np.array([stats[i].phash for i in representatives], dtype=np.uint64)
    thumbnails = np.array(
        [
            stats[i].thumbnail if stats[i].thumbnail is not None else np.zeros(THUMBNAIL_SIZE**2, np.float32)
            for i in representatives
        ],
        dtype=np.float32,
    ).reshape(len(representatives), THUMBNAIL_SIZE**2)
    pairs = hamming_pairs(hashes, max_distance, thumbnails=thumbnails, min_correlation=NEAR_CORRELATION)
    near = []
    for group in groups_from_pairs(len(representatives), pairs):
        key_members = [members_of[stats[representatives[p]].pixel_key] for p in group]
        near.append(sorted(i for members in key_members for i in members))
    return exact, sorted(near, key=lambda g: g[0])


def image_findings(
    ids: Sequence[int], stats: Sequence[ImageStats]
) -> tuple[list[Finding], list[Distribution]]:
    """The per-image findings (corrupt, tiny, extreme aspect, blurry, dark, overexposed) and the
    brightness, sharpness and aspect-ratio distributions."""
    readable = [i for i, s in enumerate(stats) if not s.error]
    findings: list[Finding] = []
    corrupt = [i for i, s in enumerate(stats) if s.error or s.truncated or s.grey_band >= BAND_SHARE]
    if corrupt:
        findings.append(
            finding(
                "corrupt_image",
                "error",
                (ids[i] for i in corrupt),
                items=[{"sample": ids[i], "value": round(stats[i].grey_band, 4)} for i in corrupt],
                details={
                    "unreadable": sum(1 for i in corrupt if stats[i].error),
                    "truncated": sum(1 for i in corrupt if stats[i].truncated and not stats[i].error),
                    "grey_band": sum(1 for i in corrupt if stats[i].grey_band >= BAND_SHARE),
                },
            )
        )
    tiny = [i for i in readable if min(stats[i].width, stats[i].height) < TINY_SIDE]
    if tiny:
        findings.append(
            finding(
                "tiny_image",
                "warning",
                (ids[i] for i in tiny),
                items=[
                    {"sample": ids[i], "value": float(min(stats[i].width, stats[i].height))} for i in tiny
                ],
                details={"min_side": TINY_SIDE},
            )
        )
    aspects = {
        i: max(stats[i].width, stats[i].height) / max(1, min(stats[i].width, stats[i].height))
        for i in readable
    }
    extreme = [i for i in readable if aspects[i] > EXTREME_ASPECT]
    if extreme:
        findings.append(
            finding(
                "extreme_aspect_ratio",
                "warning",
                (ids[i] for i in extreme),
                items=[{"sample": ids[i], "value": round(aspects[i], 3)} for i in extreme],
                details={"max_ratio": EXTREME_ASPECT},
            )
        )
    if readable:
        sharpness = np.array([stats[i].sharpness for i in readable])
        median_sharpness = float(np.median(sharpness))
        blur_threshold = min(BLUR_FLOOR, BLUR_SHARE_OF_MEDIAN * median_sharpness)
        blurry = [i for i in readable if stats[i].sharpness < blur_threshold]
        if blurry:
            findings.append(
                finding(
                    "blurry_image",
                    "warning",
                    (ids[i] for i in sorted(blurry, key=lambda i: stats[i].sharpness)),
                    items=[
                        {"sample": ids[i], "value": round(stats[i].sharpness, 3)}
                        for i in sorted(blurry, key=lambda i: stats[i].sharpness)
                    ],
                    details={
                        "threshold": round(blur_threshold, 3),
                        "median_sharpness": round(median_sharpness, 3),
                    },
                )
            )
        brightness = np.array([stats[i].brightness for i in readable])
        median_brightness = float(np.median(brightness))
        dark = [
            i
            for i in readable
            if (stats[i].brightness < DARK and stats[i].brightness <= median_brightness / 2)
            or stats[i].dark_share >= CLIPPED_SHARE
        ]
        bright = [
            i
            for i in readable
            if (stats[i].brightness > BRIGHT and 1 - stats[i].brightness <= (1 - median_brightness) / 2)
            or stats[i].bright_share >= CLIPPED_SHARE
        ]
        for code, chosen in (("dark_image", dark), ("overexposed_image", bright)):
            if chosen:
                findings.append(
                    finding(
                        code,  # type: ignore[arg-type]
                        "warning",
                        (ids[i] for i in chosen),
                        items=[{"sample": ids[i], "value": round(stats[i].brightness, 4)} for i in chosen],
                        details={"median_brightness": round(median_brightness, 4)},
                    )
                )
    distributions = [
        histogram("brightness", [stats[i].brightness for i in readable], bins=list(np.linspace(0, 1, 21))),
        _log_histogram("sharpness", [stats[i].sharpness for i in readable]),
        _log_histogram("aspect_ratio", [stats[i].width / max(1, stats[i].height) for i in readable]),
    ]
    return findings, distributions


def _log_histogram(name: str, values: Sequence[float]) -> Distribution:
    """Bins of equal width in log scale (sharpness and aspect ratios span orders of magnitude)."""
    data = np.asarray(values, dtype=np.float64)
    data = data[np.isfinite(data) & (data > 0)]
    if data.size == 0 or data.min() == data.max():
        return histogram(name, data)
    edges = np.geomspace(data.min(), data.max(), 21)
    return histogram(name, data, bins=list(edges))


def tiny_boxes_finding(samples: Sequence[PoolSample]) -> Finding | None:
    """Detection: samples with a box under 8 px on a side (``value``: the smallest side)."""
    items: list[FindingItem] = []
    for sample in samples:
        boxes = sample.get("boxes") or []
        small = [min(b["width"], b["height"]) for b in boxes if min(b["width"], b["height"]) < TINY_BOX]
        if small:
            items.append({"sample": sample["id"], "value": round(float(min(small)), 3)})
    if not items:
        return None
    return finding(
        "tiny_boxes",
        "warning",
        (item["sample"] for item in items),
        items=items,
        details={"min_side": TINY_BOX},
    )
