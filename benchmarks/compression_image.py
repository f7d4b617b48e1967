"""Compressed image classifiers against their parent, side by side: size, parameters, FLOPs, latency
and top-1 accuracy on the test split.

Trains the ``balanced`` preset (the narrow ResNet) at 32x32 pixels on scikit-learn's digits (50 per
class by default: this shared 2-core machine trains the narrow ResNet at a few images per second;
32x32 PNGs, split 70/15/15, seeded; cached under ``--work`` and reused while its parameters are the
same), then runs ``workers.compression.compress`` with five recipes: static int8 of the parent,
``auto`` int8 (QAT when static loses more than 0.5 point), channel pruning to 50 % and to 70 % of the
FLOPs then int8 (auto), and a ``cnn_small`` student distilled from the parent then int8 (auto). Every
model, parent included, is evaluated by the template's ``evaluate`` on the same test split and timed
with the ``worker-cpu`` target profile (ONNX Runtime, 1 thread, batch 1: median of 30 calls after 5
warm-up calls).

    .venv/bin/python benchmarks/compression_image.py            # print the Markdown section
    .venv/bin/python benchmarks/compression_image.py --write    # also update docs/benchmarks.md

Exits 1 when the target is missed: some variant at most 0.25x the parent's bytes with a top-1 drop
of at most 0.5 point.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import shutil
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "workers"))

from dataset_bench import write_section  # type: ignore[import-not-found]  # noqa: E402  (benchmarks/ is this script's folder)
from digits_data import write_digits  # type: ignore[import-not-found]  # noqa: E402  (the tests' digits writer)

from workers.contracts.compression import CompressionRecipe  # noqa: E402

SECTION = "compression_image"
TITLE = "Image classifier compression (`benchmarks/compression_image.py`)"
SIZE_TARGET, DROP_TARGET = 0.25, 0.005


def recipes(args: argparse.Namespace) -> list[CompressionRecipe]:
    return [
        {"name": "int8", "quantize": "static"},
        {"name": "int8-auto", "quantize": "auto"},
        {
            "name": "pruned-50-int8",
            "prune": {"flops_ratio": 0.5},
            "fine_tune_epochs": args.fine_tune_epochs,
            "quantize": "auto",
        },
        {
            "name": "pruned-70-int8",
            "prune": {"flops_ratio": 0.7},
            "fine_tune_epochs": args.fine_tune_epochs + 1,
            "quantize": "auto",
        },
        {
            "name": "distilled-int8",
            "distill": {"student": "cnn_small"},
            "fine_tune_epochs": args.epochs,
            "quantize": "auto",
        },
    ]


def trained_parent(work: Path, args: argparse.Namespace) -> tuple[dict[str, Any], Path, float]:
    """(manifest, run folder, training seconds: 0 when a cached run was reused)."""
    from workers.image_classification.trainer import train

    params = {
        "preset": "balanced",
        "image_size": args.image_size,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "validation": "holdout",
        "seed": 0,
        "per_class": args.per_class,
    }
    run, manifest_path, params_path = work / "parent", work / "manifest.json", work / "params.json"
    if (
        params_path.is_file()
        and json.loads(params_path.read_text()) == params
        and (run / "model.onnx").is_file()
        and manifest_path.is_file()
    ):
        return json.loads(manifest_path.read_text()), run, 0.0
    shutil.rmtree(run, ignore_errors=True)  # another run's checkpoints would refuse to resume
    manifest = write_digits(work / "data", per_class=args.per_class)
    manifest_path.write_text(json.dumps(manifest))
    started = time.perf_counter()
    train({k: v for k, v in params.items() if k != "per_class"}, manifest, run, device="cpu", num_workers=0)
    params_path.write_text(json.dumps(params))
    return manifest, run, time.perf_counter() - started


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from workers.compression import compress
    from workers.progress import silent_report

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    manifest, run, train_seconds = trained_parent(work, args)
    started = time.perf_counter()
    result = compress(
        template="image_classification",
        parent_checkpoint=run / "model.pt",
        parent_onnx=run / "model.onnx",
        manifest=manifest,
        spec={"kind": "compression_spec", "version": 1, "recipes": recipes(args), "seed": 0},
        out_dir=work / "compressed",
        report=silent_report,
    )
    splits = {
        split: sum(s["split"] == split for s in manifest["samples"]) for split in ("train", "val", "test")
    }
    return {
        "result": result,
        "train_seconds": train_seconds,
        "compress_seconds": time.perf_counter() - started,
        "splits": splits,
    }


def render(measured: dict[str, Any], args: argparse.Namespace) -> tuple[str, bool]:
    result = measured["result"]
    parent = result["parent"]
    rows = [
        "| model | bytes | size ratio | parameters | FLOPs | latency ms (ratio) | top-1 (test) "
        "| drop (points) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(name: str, s: dict[str, Any]) -> str:
        latency = s["latency"]["median_ms"]
        return (
            f"| {name} | {s['size_bytes']:,} | {s['size_bytes'] / parent['size_bytes']:.3f} | "
            f"{s['parameters']:,} | {s['flops']:,} | {latency:.3f} "
            f"({latency / parent['latency']['median_ms']:.2f}) | {s['value']:.4f} | "
            + (f"{-s['delta'] * 100:+.2f} |" if s is not parent else "- |")
        )

    rows.append(row("parent fp32 (resnet_narrow)", parent))
    met = False
    notes = []
    for variant in result["variants"]:
        s = variant["summary"]
        rows.append(row(f"{variant['name']} ({s['precision']})", s))
        if s["size_bytes"] <= SIZE_TARGET * parent["size_bytes"] and -s["delta"] <= DROP_TARGET:
            met = True
        notes.append(f"- `{variant['name']}`: " + "; ".join(variant["notes"]))
    for skipped in result["skipped"]:
        notes.append(f"- `{skipped['name']}` skipped: {skipped['reason']}")
    load = os.getloadavg()[0]
    versions = ", ".join(f"{p} {metadata.version(p)}" for p in ("onnxruntime", "torch"))
    splits = measured["splits"]
    header = (
        f"Measured {datetime.date.today().isoformat()} on {stdlib_platform.machine()}, "
        f"{os.cpu_count()} cores, "
        f"Python {stdlib_platform.python_version()}, {versions}; 1-minute load average {load:.1f} at the end "
        f"of the run (other sessions share these cores: latencies move with them). Parent: the `balanced` "
        f"preset (resnet_narrow) at {args.image_size}x{args.image_size} pixels, {args.epochs} epochs, "
        f"batches of {args.batch_size}, on the "
        f"digits, {args.per_class} per class ({splits['train']} train / {splits['val']} val / "
        f"{splits['test']} test), CPU"
        + (
            f", trained in {measured['train_seconds']:.0f} s"
            if measured["train_seconds"]
            else " (a cached run)"
        )
        + f"; the variants took {measured['compress_seconds']:.0f} s. Latency: the `worker-cpu` target "
        "profile (ONNX Runtime, 1 thread, batch 1), median of 30 calls. Top-1: the template's evaluation on "
        "the test split; drop = parent - variant."
    )
    verdict = (
        f"Target: a variant at most {SIZE_TARGET}x the parent's bytes with a top-1 drop of at most "
        f"{DROP_TARGET * 100:.1f} point: {'met' if met else 'missed'}."
    )
    body = "\n".join([header, "", *rows, "", "What each variant did:", "", *notes, "", verdict])
    return body + "\n", met


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", default="/tmp/sampan-bench-compression-image")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--fine-tune-epochs", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16, help="small data: more optimizer steps")
    parser.add_argument("--per-class", type=int, default=50, help="digits per class (all: 180)")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    measured = measure(args)
    body, met = render(measured, args)
    print(f"## {TITLE}\n\n{body}")
    (Path(args.work) / "section.md").write_text(body)
    if args.write:
        write_section(SECTION, TITLE, body)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
