"""Real images and archives for the data service's tests: sklearn's bundled handwritten digits
written as PNG (and other formats), packed into zip and tar archives."""

from __future__ import annotations

import hashlib
import io
import itertools
import struct
import tarfile
import zipfile
import zlib
from functools import cache

from django.core.files import File
from django.core.files.storage import FileSystemStorage
from PIL import Image


@cache
def _digits():
    from sklearn.datasets import load_digits

    digits = load_digits()
    return digits.images, digits.target


def digit_image(index: int, *, size: int = 32, mode: str = "L") -> Image.Image:
    images, _ = _digits()
    pixels = (images[index % len(images)] * (255 / 16)).astype("uint8")
    image = Image.fromarray(pixels, mode="L").resize((size, size), Image.Resampling.NEAREST)
    return image.convert(mode)


def digit_class(index: int) -> int:
    _, targets = _digits()
    return int(targets[index % len(targets)])


def digit_bytes(index: int, *, format: str = "PNG", size: int = 32, mode: str = "L") -> bytes:
    out = io.BytesIO()
    digit_image(index, size=size, mode=mode).save(out, format)
    return out.getvalue()


def digits_by_class(per_class: int, classes: range | list[int] = range(10)) -> dict[str, list[bytes]]:
    """{"3": [png, ...], ...}: the first ``per_class`` digits of each class, distinct images."""
    _, targets = _digits()
    found: dict[str, list[bytes]] = {str(c): [] for c in classes}
    for index, target in enumerate(targets):
        key = str(int(target))
        if key in found and len(found[key]) < per_class:
            found[key].append(digit_bytes(index))
    return found


def folder_layout(
    per_class: int, classes: range | list[int] = range(10), unlabeled: int = 0
) -> dict[str, bytes]:
    """A folder-per-class archive's entries, plus ``unlabeled`` files at the root."""
    entries = {
        f"{label}/{label}_{i:04d}.png": data
        for label, images in digits_by_class(per_class, classes).items()
        for i, data in enumerate(images)
    }
    for i in range(unlabeled):
        entries[f"loose_{i:04d}.png"] = digit_bytes(1000 + i)
    return entries


def make_zip(entries: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


def make_tar(entries: dict[str, bytes], *, mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as archive:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def pixel_flood_png(width: int = 100_000, height: int = 100_000) -> bytes:
    """A valid-looking PNG header claiming width x height pixels, with almost no data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def upload(name: str, data: bytes, content_type: str = "application/octet-stream"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data, content_type=content_type)


def dataset_with_samples(
    *, user, project, name: str = "Digits", per_class: int = 3, classes=range(3), unlabeled: int = 0
):
    """A dataset imported through the real import service."""
    from datasets.services import dataset_create
    from datasets.services.image_imports import import_archive

    dataset = dataset_create(user=user, project=project, name=name, task_type="image_classification")
    if per_class or unlabeled:
        archive = make_zip(folder_layout(per_class, classes, unlabeled))
        import_archive(dataset=dataset, upload=upload("digits.zip", archive), user=user)
    return dataset


def tenancy_objects(world: dict) -> dict:
    """Objects in workspace A for tests/test_tenancy.py's route map: a dataset with two labels and
    samples, an import, and a version. Made once per world."""
    if "datasets" not in world:
        from datasets.models import ImportBatch, Label, Sample
        from datasets.services import dataset_version_create

        dataset = dataset_with_samples(
            user=world["alice"],
            project=world["project_a"],
            name="Tenancy digits",
            per_class=2,
            classes=range(2),
        )
        world["datasets"] = {
            "dataset": dataset,
            "label": Label.objects.filter(dataset=dataset).order_by("name").first(),
            "other_label": Label.objects.filter(dataset=dataset).order_by("name").last(),
            "sample": Sample.objects.filter(dataset=dataset).first(),
            "import": ImportBatch.objects.filter(dataset=dataset).first(),
            "version": dataset_version_create(dataset=dataset, user=world["alice"], seed=1),
        }
    return world["datasets"]


def blob_files(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def snapshot(dataset) -> dict:
    """Everything a failed import must leave as it was."""
    from datasets.models import ImportBatch, Label, Sample

    return {
        "samples": sorted(
            Sample.objects.filter(dataset=dataset).values_list("sha256", "label__name", "label_version")
        ),
        "labels": sorted(Label.objects.filter(dataset=dataset).values_list("name", flat=True)),
        "imports": ImportBatch.objects.filter(dataset=dataset).count(),
    }


class NoLocalPathStorage(FileSystemStorage):
    """Behaves like object storage (S3 and the like): files have no local path."""

    def path(self, name):
        raise NotImplementedError("this storage has no local paths")

    def _open(self, name, mode="rb"):
        return File(open(super().path(name), mode))  # noqa: SIM115 - a storage returns an open File


# --- rows --------------------------------------------------------------------------------------

_serial = itertools.count(1)


def dataset(project, *, name: str | None = None, task_type: str = "image_classification", by=None):
    """An empty dataset in ``project`` through the real service (created by ``by``, default the project's
    creator)."""
    from datasets.services import dataset_create

    return dataset_create(
        user=by or project.created_by,
        project=project,
        name=name or f"Dataset {next(_serial)}",
        task_type=task_type,
    )


def label(dataset, name: str | None = None, *, color: str = ""):
    from datasets.services.labels import label_create

    return label_create(dataset=dataset, name=name or f"label-{next(_serial)}", color=color)


def sample(dataset, *, label=None, name: str | None = None, **fields):
    """A sample row of a 32x32 PNG (its blob key names no stored file: for lists and counts only)."""
    from datasets.models import Sample

    serial = next(_serial)
    sha256 = hashlib.sha256(f"{dataset.pk}/{serial}".encode()).hexdigest()
    values = {
        "blob_key": f"samples/{sha256[:2]}/{sha256}.png",
        "format": "PNG",
        "width": 32,
        "height": 32,
        "size_bytes": 100,
        **fields,
    }
    return Sample.objects.create(
        dataset=dataset, label=label, sha256=sha256, original_name=name or f"sample-{serial}.png", **values
    )


def import_batch(dataset, *, by=None, status: str = "succeeded", **fields):
    """An import's row (finished unless ``status`` says otherwise; nothing was imported by it)."""
    from datasets.models import ImportBatch

    values = {"source": "archive", "filename": f"import-{next(_serial)}.zip", "size_bytes": 1, **fields}
    return ImportBatch.objects.create(
        dataset=dataset, status=status, created_by=by or dataset.created_by, **values
    )


def bulk_text_dataset(
    *, user, project, samples: int, classes: int = 4, name: str = "Many texts", batch=10_000
):
    """A text-classification dataset of ``samples`` labeled rows inserted in bulk (no import), fast
    enough for 100,000 rows: what the version and export jobs are measured and tested on."""
    from datasets.models import Label, Sample
    from datasets.services import dataset_create

    dataset = dataset_create(user=user, project=project, name=name, task_type="text_classification")
    dataset.schema = {"text_column": "text", "label_column": "label"}
    dataset.save(update_fields=["schema"])
    labels = [Label.objects.create(dataset=dataset, name=f"c{i}", position=i) for i in range(classes)]
    for start in range(0, samples, batch):
        Sample.objects.bulk_create(
            [
                Sample(
                    dataset=dataset,
                    label=labels[i % classes],
                    text=f"{'=' if i % 7 == 0 else ''}sample {i}: words {i % 97} and {i % 13}",
                    sha256=f"{i:064x}",
                    original_name=f"row-{i}",
                    size_bytes=0,
                )
                for i in range(start, min(start + batch, samples))
            ]
        )
    return dataset
