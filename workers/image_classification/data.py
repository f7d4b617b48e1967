"""Datasets and loaders over a manifest's image files.

Training order and augmentation are functions of (seed, epoch, sample): the sampler draws each
epoch's permutation from its own seeded generator and yields ``(position, epoch)`` keys, and the
dataset seeds a ``random.Random`` per (seed, epoch, sample) for the transform. So a resumed run,
even one resumed in the middle of an epoch, sees the same batches as an uninterrupted one, with
any number of loader workers.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, Sampler

from workers.image_classification.manifest import Sample
from workers.image_classification.preprocessing import open_image

DECODED_CACHE_BYTES = 512 * 2**20  # decoded RGB pixels kept in memory per process, across epochs


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_loader_workers(device_type: str, cpus: int | None = None) -> int:
    """Loader processes: none on small CPU hosts (they would take cores from the model's threads),
    more when a GPU does the math and the CPU only decodes and augments."""
    cpus = usable_cpus() if cpus is None else cpus
    if device_type == "cuda":
        return max(0, min(8, cpus - 1))
    return 0 if cpus <= 4 else min(4, cpus // 4)


def sample_seed(seed: int, epoch: int, index: int) -> int:
    return (seed * 1_000_003 + epoch) * 10_000_019 + index


class ImageSamples(Dataset[tuple[torch.Tensor, int]]):
    """``dataset[(position, epoch)] -> (image tensor, label)``; positions index ``samples``."""

    def __init__(
        self,
        samples: Sequence[Sample],
        transform: Callable[[Image.Image, random.Random], torch.Tensor],
        *,
        seed: int,
        cache_bytes: int = DECODED_CACHE_BYTES,
    ) -> None:
        self.samples = list(samples)
        self.labels = [s.label for s in self.samples]
        self.transform = transform
        self.seed = seed
        self.cache_bytes = cache_bytes
        self._cache: dict[int, Image.Image] = {}
        self._cached_bytes = 0

    def __len__(self) -> int:
        return len(self.samples)

    def image(self, position: int) -> Image.Image:
        cached = self._cache.get(position)
        if cached is not None:
            return cached
        image = open_image(self.samples[position].path)
        size = image.width * image.height * 3
        if self._cached_bytes + size <= self.cache_bytes:
            self._cache[position] = image
            self._cached_bytes += size
        return image

    def __getitem__(self, key: int | tuple[int, int]) -> tuple[torch.Tensor, int]:
        position, epoch = key if isinstance(key, tuple) else (key, 0)
        sample = self.samples[position]
        rng = random.Random(sample_seed(self.seed, epoch, sample.index))
        return self.transform(self.image(position), rng), sample.label


class EpochSampler(Sampler[tuple[int, int]]):
    """A seeded permutation per epoch, optionally starting after the first ``skip`` samples."""

    def __init__(self, size: int, *, seed: int) -> None:
        self.size = size
        self.seed = seed
        self.epoch = 0
        self.skip = 0

    def set_epoch(self, epoch: int, *, skip: int = 0) -> None:
        self.epoch, self.skip = epoch, skip

    def order(self, epoch: int) -> list[int]:
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
        return torch.randperm(self.size, generator=generator).tolist()

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for position in self.order(self.epoch)[self.skip :]:
            yield position, self.epoch

    def __len__(self) -> int:
        return max(0, self.size - self.skip)


class RankSampler(EpochSampler):
    """One rank's part of each global batch of an ``EpochSampler``'s order: positions
    ``[first, last)`` of every ``batch_size`` run of the permutation (the last partial batch
    dropped). The ranks' parts of a batch together are the batch one process would train on, so a
    data-parallel run sees the single-process run's batches, with the same augmentations.
    ``set_epoch(epoch, skip=n)``: ``n`` counts samples of the global order (whole batches)."""

    def __init__(self, size: int, *, seed: int, batch_size: int, part: tuple[int, int]) -> None:
        super().__init__(size, seed=seed)
        self.batch_size = batch_size
        self.first, self.last = part

    def __iter__(self) -> Iterator[tuple[int, int]]:
        order = self.order(self.epoch)
        batches = len(order) // self.batch_size
        for batch in range(self.skip // self.batch_size, batches):
            start = batch * self.batch_size
            for position in order[start + self.first : start + self.last]:
                yield position, self.epoch

    def __len__(self) -> int:
        batches = self.size // self.batch_size - self.skip // self.batch_size
        return max(0, batches) * (self.last - self.first)


def make_loader(
    dataset: Dataset[tuple[torch.Tensor, int]],
    *,
    batch_size: int,
    sampler: Sampler[Any] | Sequence[int] | None,
    num_workers: int,
    device_type: str,
    drop_last: bool,
    seed: int,
) -> DataLoader[tuple[torch.Tensor, int]]:
    # The loader's own generator: starting an epoch's iterator then draws nothing from torch's
    # global generator, whose state (dropout) a checkpoint restores to the exact step.
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        shuffle=False,
        drop_last=drop_last,
        num_workers=num_workers,
        pin_memory=device_type == "cuda",
        persistent_workers=num_workers > 0,
        generator=torch.Generator().manual_seed(seed),
    )
