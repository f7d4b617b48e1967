"""A pool's samples as one float32 matrix, the input of the quick model (smart labeling, the quality
report's mislabel finder) and of the diversity half of the ranking.

- Images: decoded with Pillow (EXIF orientation applied, JPEGs drafted small), then three blocks: a
  16x16 grayscale thumbnail, a histogram of oriented gradients (4x4 cells x 9 orientations on a 32x32
  grayscale copy) and a 4x4 colour thumbnail. Measured on the 1,797 digits: with 10 labels per
  class the quick model labels 0.93 of the rest right, and 0.99 out-of-fold with every label (the
  16x16 thumbnail alone: 0.90 / 0.97); reading them takes about 0.3 s on two cores. No network is
  trained here: a round must take seconds.
- Texts: the MiniLM sentence encoder's mean-pooled, normalised embeddings (384 wide), batched.
- Tables: the tabular template's own encoding (numeric standardised, categories one-hot, missing as
  an indicator), fitted on the whole pool; the target column is never a feature.

Every column is standardised over the pool and each block is scaled by 1/sqrt(its width), so each
block weighs the same in a Euclidean distance whatever its width.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workers.contracts.smart_labeling import LabelPool, PoolSample
from workers.progress import Report

THUMBNAIL = 16
GRADIENT_SIZE = 32
GRADIENT_CELLS = 4
ORIENTATIONS = 9
COLOUR = 4
TEXT_BATCH = 64
TEXT_MAX_LENGTH = 128


def pool_features(pool: LabelPool, *, work_dir: Path, report: Report) -> np.ndarray:
    """(len(pool samples), d) float32, in pool order.

    e.g. ``pool_features({"kind": "label_pool", "version": 1, "task_type": "image_classification",
    "classes": ["cat", "dog"], "samples": [...]}, work_dir=tmp, report=silent_report).shape ->
    (n, 448)``. Raises ``ValueError`` naming a sample whose image cannot be read.
    """
    samples = pool["samples"]
    task = pool["task_type"]
    if task in ("image_classification", "object_detection"):
        blocks = image_features(samples, report=report)
    elif task == "text_classification":
        blocks = [text_embeddings([s.get("text", "") for s in samples], report=report)]
    else:
        blocks = [table_features(pool)]
    return _balanced(blocks)


def _balanced(blocks: Sequence[np.ndarray]) -> np.ndarray:
    scaled = []
    for block in blocks:
        block = block.astype(np.float64)
        std = block.std(axis=0)
        block = (block - block.mean(axis=0)) / np.where(std > 1e-8, std, 1.0)
        scaled.append(block / np.sqrt(max(block.shape[1], 1)))
    return np.hstack(scaled).astype(np.float32)


def _gradient_histogram(gray: np.ndarray) -> np.ndarray:
    """Oriented-gradient histogram (unsigned, magnitude-weighted) per cell, L2-normalised."""
    gy, gx = np.gradient(gray)
    magnitude = np.hypot(gx, gy)
    bins = np.minimum(
        ((np.arctan2(gy, gx) % np.pi) / np.pi * ORIENTATIONS).astype(np.int64), ORIENTATIONS - 1
    )
    cell = GRADIENT_SIZE // GRADIENT_CELLS
    # cell index of every pixel, then one bincount over (cell, orientation)
    rows = np.arange(GRADIENT_SIZE) // cell
    cell_index = rows[:, None] * GRADIENT_CELLS + rows[None, :]
    flat = (cell_index * ORIENTATIONS + bins).ravel()
    hist = np.bincount(flat, magnitude.ravel(), GRADIENT_CELLS * GRADIENT_CELLS * ORIENTATIONS)
    return (hist / (np.linalg.norm(hist) + 1e-6)).astype(np.float32)


def image_features(samples: Sequence[PoolSample], *, report: Report) -> list[np.ndarray]:
    """[thumbnails, gradient histograms, colour thumbnails] for every sample's ``image_path``."""
    from PIL import Image, ImageOps

    n = len(samples)
    thumbs = np.zeros((n, THUMBNAIL * THUMBNAIL), np.float32)
    gradients = np.zeros((n, GRADIENT_CELLS * GRADIENT_CELLS * ORIENTATIONS), np.float32)
    colours = np.zeros((n, COLOUR * COLOUR * 3), np.float32)
    step = max(1, n // 20)
    for i, sample in enumerate(samples):
        if i % step == 0:
            report(f"reading images ({i}/{n})", fraction=i / max(n, 1))
        path = sample.get("image_path", "")
        try:
            with Image.open(path) as image:
                image.draft("RGB", (GRADIENT_SIZE * 2, GRADIENT_SIZE * 2))
                rgb = ImageOps.exif_transpose(image).convert("RGB")
        except (OSError, ValueError, Image.DecompressionBombError) as error:
            raise ValueError(f"sample {sample['id']}: its image cannot be read ({error})") from error
        gray = rgb.convert("L")
        thumbs[i] = np.asarray(gray.resize((THUMBNAIL, THUMBNAIL), Image.Resampling.BOX), np.float32).ravel()
        gradients[i] = _gradient_histogram(
            np.asarray(gray.resize((GRADIENT_SIZE, GRADIENT_SIZE), Image.Resampling.BILINEAR), np.float32)
            / 255.0
        )
        colours[i] = np.asarray(rgb.resize((COLOUR, COLOUR), Image.Resampling.BOX), np.float32).ravel()
    report(f"read {n} images", fraction=1.0)
    return [thumbs / 255.0, gradients, colours / 255.0]


def text_embeddings(texts: Sequence[str], *, report: Report) -> np.ndarray:
    """MiniLM sentence embeddings (n, 384), L2-normalised, computed in batches with progress."""
    import torch
    from tokenizers import Tokenizer

    from workers.text_classification.minilm import load_minilm, package_dir
    from workers.text_classification.tokenization import tokenizer_json

    tokenizer = Tokenizer.from_str(
        tokenizer_json(package_dir() / "tokenizer.json", max_length=TEXT_MAX_LENGTH)
    )
    encoder = load_minilm()
    # short texts first: padding to each batch's longest text wastes less
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), encoder.width), np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), TEXT_BATCH):
            report(f"embedding texts ({start}/{len(texts)})", fraction=start / max(len(texts), 1))
            index = order[start : start + TEXT_BATCH]
            encoded = tokenizer.encode_batch([texts[i] or " " for i in index])
            ids = torch.tensor([e.ids for e in encoded], dtype=torch.int64)
            mask = torch.tensor([e.attention_mask for e in encoded], dtype=torch.int64)
            out[index] = encoder(ids, mask).numpy()
    report(f"embedded {len(texts)} texts", fraction=1.0)
    return out


def table_features(pool: LabelPool) -> np.ndarray:
    """The tabular template's encoding of every row (the target column excluded)."""
    from workers.tabular.encoding import encode, fit_encoder

    target = pool.get("target")
    columns = [{"name": c["name"], "type": c["type"]} for c in pool.get("columns", []) if c["name"] != target]
    rows = [s.get("values", {}) for s in pool["samples"]]
    spec = fit_encoder(columns, rows)  # type: ignore[arg-type]
    matrix = encode(spec, rows)
    if matrix.shape[1] == 0:
        raise ValueError("the table has no column to learn from (numeric, categorical or date)")
    return matrix
