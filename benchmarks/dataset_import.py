"""Dataset import throughput: 2,000 PNGs (32x32) imported through the REST API, side by side with
just reading the same archive.

The archive is a zip in the folder-per-class layout (10 classes; sklearn's digits, RGB, every
image distinct). Each round, alternating the order:

- baseline: open the zip and read every member's bytes (zipfile), nothing else;
- Sampan: POST /api/v1/datasets/{id}/imports/ with the archive, in-process through Django's test
  client with a Bearer token (middleware, authentication, multipart parsing, the whole view): the
  archive is checked (names, links, sizes, ratio), every image is verified by content and fully
  decoded and re-encoded; a 32x32 image is its own thumbnail (anything over 128 px gets a JPEG
  thumbnail blob); blobs go to the storage (a fresh local directory each round, so every blob is
  really written), and the samples and labels are inserted into PostgreSQL. The request imports
  synchronously (the sync limit is raised for the run); a background `datasets.import` job runs the
  same function.
- for orientation, the image work alone (Pillow: verify, re-encode, thumbnail) without storage,
  database or HTTP, and the same import of 500 PNGs at 256x256, which get thumbnails of their own.

    .venv/bin/python benchmarks/dataset_import.py            # print the Markdown table
    .venv/bin/python benchmarks/dataset_import.py --write    # also update docs/benchmarks.md

Needs PostgreSQL: --database-url (default postgres://postgres@127.0.0.1:5432/sampan_bench_datasets;
a database of that name is dropped and recreated). Exits 1 below the target of 1,000 images/s.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from dataset_bench import DEFAULT_DATABASE_URL, drop_database, machine, setup_django, write_section

SECTION = "dataset_import"
TARGET_IMAGES_PER_S = 1000
LARGE = 256  # the extra row: images big enough to get a thumbnail of their own


def build_archive(n_images: int, size: int = 32) -> tuple[bytes, int]:
    """A folder-per-class zip of n distinct size x size RGB PNGs made from sklearn's digits."""
    import numpy as np
    from PIL import Image
    from sklearn.datasets import load_digits

    digits = load_digits()
    out = io.BytesIO()
    raw = 0
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(n_images):
            k = i % len(digits.images)
            pixels = (digits.images[k] * (255 / 16)).astype("uint8")
            if i // len(digits.images) % 2:
                pixels = pixels.T  # the second pass over the digits: transposed, so still distinct
            grey = Image.fromarray(pixels, "L").resize((size, size), Image.Resampling.BILINEAR)
            tint = np.array([1.0, 0.6 + 0.04 * digits.target[k], 0.9])
            rgb = Image.fromarray((np.asarray(grey)[..., None] * tint).astype("uint8"), "RGB")
            png = io.BytesIO()
            rgb.save(png, "PNG")
            raw += png.tell()
            archive.writestr(f"{digits.target[k]}/{i:05d}.png", png.getvalue())
    return out.getvalue(), raw


def read_archive(data: bytes) -> int:
    total = 0
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            total += len(archive.read(info))
    return total


def image_work_only(data: bytes, max_pixels: int) -> None:
    from datasets.images import prepare_image

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            prepare_image(archive.read(info), max_pixels=max_pixels)


class SampanImport:
    def __init__(self, archive: bytes, n_images: int, size: int, user=None, project=None) -> None:
        from accounts.models import User
        from accounts.services import api_token_create
        from workspaces.services import project_create, workspace_create

        self.archive, self.n_images, self.size = archive, n_images, size
        self.user = user or User.objects.create_user("bench", password="x" * 20)
        self.project = project or project_create(
            user=self.user, workspace=workspace_create(user=self.user, name="Bench"), name="Import"
        )
        self.token = api_token_create(user=self.user, name="bench").key
        self.round = 0

    def __call__(self) -> float:
        from datasets.models import Sample
        from datasets.services import dataset_create
        from django.conf import settings
        from django.core.files.uploadedfile import SimpleUploadedFile
        from django.test import Client, override_settings

        self.round += 1
        dataset = dataset_create(
            user=self.user,
            project=self.project,
            name=f"{self.size}px round {self.round}",
            task_type="image_classification",
        )
        blobs = tempfile.mkdtemp(prefix="blobs-", dir=settings.SAMPAN_HOME)
        storages = {
            **settings.STORAGES,
            "default": {
                "BACKEND": "django.core.files.storage.FileSystemStorage",
                "OPTIONS": {"location": blobs},
            },
        }
        client = Client(HTTP_AUTHORIZATION=f"Bearer {self.token}")
        with override_settings(
            STORAGES=storages,
            SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES=10 * self.n_images,
            SAMPAN_MAX_REQUEST_BYTES=1024**3,
        ):
            upload = SimpleUploadedFile("digits.zip", self.archive, content_type="application/zip")
            started = time.perf_counter()
            response = client.post(f"/api/v1/datasets/{dataset.pk}/imports/", {"archive": upload})
            elapsed = time.perf_counter() - started
        body = response.json()
        if response.status_code != 201 or body["imported"] != self.n_images:
            raise SystemExit(f"import failed: {response.status_code} {str(body)[:500]}")
        stored = sum(1 for p in Path(blobs).rglob("*") if p.is_file())
        blobs_per_image = 1 if self.size <= 128 else 2  # small images are their own thumbnails
        if (
            stored != blobs_per_image * self.n_images
            or Sample.objects.filter(dataset=dataset).count() != self.n_images
        ):
            raise SystemExit(
                f"expected {blobs_per_image * self.n_images} blobs and {self.n_images} samples, "
                f"found {stored} blobs"
            )
        return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--large-images", type=int, default=500, help=f"how many {LARGE}x{LARGE} PNGs in the extra row"
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--write", action="store_true", help=f"replace the {SECTION} section of docs/benchmarks.md"
    )
    args = parser.parse_args()

    setup_django(args.database_url)
    try:
        from django.conf import settings

        archive, raw = build_archive(args.images)
        sampan = SampanImport(archive, args.images, 32)
        large_archive, _ = build_archive(args.large_images, size=LARGE)
        large = SampanImport(
            large_archive, args.large_images, LARGE, user=sampan.user, project=sampan.project
        )
        read_archive(archive)  # warm the code paths once; not counted
        image_work_only(archive, settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS)
        times: dict[str, list[float]] = {"read": [], "sampan": [], "images": [], "large": []}
        for index in range(args.rounds):
            steps = [
                ("read", lambda: _timed(read_archive, archive)),
                ("sampan", sampan),
                (
                    "images",
                    lambda: _timed(image_work_only, archive, settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS),
                ),
                ("large", large),
            ]
            for name, step in steps if index % 2 == 0 else steps[::-1]:
                times[name].append(step())
            print(
                f"round {index + 1}: " + ", ".join(f"{k} {v[-1] * 1000:.0f} ms" for k, v in times.items()),
                file=sys.stderr,
            )
        body, ok = report(times, args.images, args.large_images, len(archive), raw)
    finally:
        drop_database(args.database_url)
    print(body)
    if args.write:
        write_section(SECTION, "Dataset import (`benchmarks/dataset_import.py`)", body)
        print("\nwrote docs/benchmarks.md", file=sys.stderr)
    return 0 if ok else 1


def _timed(fn, *args) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def report(
    times: dict[str, list[float]], n: int, n_large: int, archive_bytes: int, raw_bytes: int
) -> tuple[str, bool]:
    med = {k: statistics.median(v) for k, v in times.items()}
    rate = {k: (n_large if k == "large" else n) / v for k, v in med.items()}
    ok = rate["sampan"] >= TARGET_IMAGES_PER_S

    def row(label: str, key: str) -> str:
        return f"| {label} | {med[key] * 1000:,.0f} ms | {rate[key]:,.0f} | {rate[key] / rate['read']:.3f} |"

    lines = [
        f"Measured {machine()}. Medians of {len(times['sampan'])} rounds, steps alternating. The archive: "
        f"{n:,} distinct 32x32 RGB PNGs from sklearn's digits in 10 class folders, a "
        f"{archive_bytes / 1024:,.0f} KiB zip ({raw_bytes / n:,.0f} bytes per PNG).",
        "",
        "| step | time | images/s | throughput / reading the archive |",
        "| --- | ---: | ---: | ---: |",
        row("baseline: read every member of the zip (zipfile)", "read"),
        row(
            "**Sampan: `POST /api/v1/datasets/{id}/imports/`** (check the archive, verify and decode each "
            "image, re-encode, thumbnail, store the blobs, insert samples and labels)",
            "sampan",
        ),
        row(
            "for orientation: the Pillow work alone (verify, re-encode, thumbnail; no storage, database, "
            "HTTP)",
            "images",
        ),
        row(
            f"for orientation: the same import of {n_large:,} PNGs at {LARGE}x{LARGE}, each with its own 128 "
            "px JPEG thumbnail blob",
            "large",
        ),
        "",
        f"Target: at least {TARGET_IMAGES_PER_S:,} images/s for the import of 32x32 PNGs, verified and "
        "thumbnailed: "
        + ("met." if ok else "**not met**.")
        + " A 32x32 image already fits a 128 px thumbnail, so it is its own "
        "thumbnail (one blob per image; a smaller JPEG copy would only lose quality); the last row shows the "
        "cost when thumbnails are made. Reading the archive is the floor any importer pays; the rest is the "
        "image work, writing the blobs through Django's storage API (about 150 us per file on the local "
        "filesystem, several system calls each) and one multi-row INSERT per 2,000 samples. The images are "
        "processed by a small thread pool (Pillow's codecs and file writes release the GIL).",
    ]
    return "\n".join(lines), ok


if __name__ == "__main__":
    sys.exit(main())
