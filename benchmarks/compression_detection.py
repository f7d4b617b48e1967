"""The detector's compressed variants against their parent, side by side: size, parameters, FLOPs,
latency on the target, mAP@.5 on the test split.

Trains the ``fast`` preset (``det_small``; ``--epochs`` overrides its 40) on seeded synthetic digit
scenes (``workers.object_detection.synthetic``, 128x128 pixels, split 0.7/0.15/0.15; cached under
``--work`` and reused while the parameters are the same), then runs the platform's compression
(``workers.compression.compress``, the job's code) with the recipes below: static int8 of the
parent, and structured channel pruning to half the convolution FLOPs + fine-tuning (the parent as
teacher), with and without static int8. Each model is evaluated with the template's ``evaluate`` on
the same test images and measured with the builtin ``worker-cpu`` target profile (ONNX Runtime,
1 thread, batch 1: the device SDK's settings; the median of 30 runs after 5 warm-up runs).

    .venv/bin/python benchmarks/compression_detection.py            # print the Markdown section
    .venv/bin/python benchmarks/compression_detection.py --write    # also update docs/benchmarks.md

Exits 1 when no variant meets the target: at most 0.35x the parent's bytes with a mAP@.5 drop of at
most 0.02.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dataset_bench import write_section  # noqa: E402  (benchmarks/ is this script's folder)

SECTION = "compression_detection"
TITLE = "Detector compression: pruning with fine-tuning, int8 (`benchmarks/compression_detection.py`)"
SIZE_TARGET, DROP_TARGET = 0.35, 0.02
FLOPS_RATIO = 0.5


def recipes(fine_tune_epochs: int) -> list[dict[str, Any]]:
    pruned = {"prune": {"flops_ratio": FLOPS_RATIO}, "fine_tune_epochs": fine_tune_epochs}
    return [
        {"name": "int8", "quantize": "static"},
        {"name": "pruned-50", **pruned},
        {"name": "pruned-50-int8", **pruned, "quantize": "static"},
    ]


def latest_checkpoint(run: Path) -> Path | None:
    """The run's latest complete training checkpoint (a checkpoint is complete with its marker)."""
    done = sorted(
        p for p in (run / "checkpoints").glob("*.pt") if p.with_name(p.name + ".complete").is_file()
    )
    return done[-1] if done else None


def trained_run(
    work: Path, images: int, size: int, epochs: int, threads: int
) -> tuple[dict[str, Any], Path, dict]:
    """(the manifest, the run folder with model.pt and model.onnx, how it was trained); cached."""
    from workers.object_detection.synthetic import digit_scenes, write_manifest
    from workers.object_detection.trainer import train

    params = {"images": images, "size": size, "preset": "fast", "epochs": epochs, "seed": 0}
    run, manifest_path = work / "run", work / "manifest.json"
    same = (work / "params.json").is_file() and json.loads((work / "params.json").read_text()) == params
    if same and (run / "model.pt").is_file() and (work / "training.json").is_file():
        return json.loads(manifest_path.read_text()), run, json.loads((work / "training.json").read_text())
    if not (same and manifest_path.is_file()):
        manifest = write_manifest(digit_scenes(images, size=size, seed=0), work / "data")
        manifest_path.write_text(json.dumps(manifest))
        (work / "params.json").write_text(json.dumps(params))
    manifest = json.loads(manifest_path.read_text())
    started = time.perf_counter()
    train({"preset": "fast", "epochs": epochs}, manifest, run, device="cpu", threads=threads)  # resumes
    training = {"seconds": time.perf_counter() - started, "epochs": epochs}
    (work / "training.json").write_text(json.dumps(training))
    return manifest, run, training


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from workers.compression.core import compress, evaluate_onnx
    from workers.progress import silent_report

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    manifest, run, training = trained_run(work, args.images, args.size, args.epochs, args.threads)
    if args.train_only:
        return {}
    spec = {"kind": "compression_spec", "version": 1, "seed": 0, "recipes": recipes(args.fine_tune_epochs)}
    out = work / "compressed"
    started = time.perf_counter()
    result = compress(
        template="object_detection",
        parent_checkpoint=run / "model.pt",
        parent_onnx=run / "model.onnx",
        manifest=manifest,
        spec=spec,  # type: ignore[arg-type]
        out_dir=out,
        report=silent_report,
    )
    parent_evaluation = evaluate_onnx(template="object_detection", onnx=run / "model.onnx", manifest=manifest)
    return {
        "result": result,
        "parent_map50": float(parent_evaluation["map50"]),
        "compress_s": time.perf_counter() - started,
        "training": training,
        "images": args.images,
        "size": args.size,
        "epochs": args.epochs,
        "fine_tune_epochs": args.fine_tune_epochs,
        "train_images": sum(1 for s in manifest["samples"] if s["split"] == "train"),
        "test_images": sum(1 for s in manifest["samples"] if s["split"] == "test"),
    }


def map50(summary_or_variant: dict[str, Any]) -> float:
    return float(summary_or_variant["evaluation"]["map50"])


def section(figures: dict[str, Any]) -> str:
    result = figures["result"]
    parent = result["parent"]
    parent_map50 = figures["parent_map50"]
    machine = stdlib_platform.processor() or stdlib_platform.machine()
    training = figures["training"]
    trained = (
        f"trained here in {training['seconds'] / 60:.1f} min" if training["seconds"] > 1 else "a cached run"
    )
    context = (
        f"Measured {datetime.date.today().isoformat()} on {machine}, {os.cpu_count()} cores, "
        f"Python {stdlib_platform.python_version()}, onnxruntime {metadata.version('onnxruntime')}, "
        f"torch {metadata.version('torch')}; 1-minute load average {os.getloadavg()[0]:.1f} at the end "
        "of the run (other sessions shared these cores). The parent: the `fast` preset (det_small, 64x64 "
        f"input) for {figures['epochs']} epochs on {figures['images']:,} synthetic digit scenes of "
        f"{figures['size']}x{figures['size']} pixels ({figures['train_images']} training, "
        f"{figures['test_images']} test images), {trained}. Variants made by `workers.compression.compress` "
        f"in {figures['compress_s'] / 60:.1f} min: pruning keeps the same fraction of every block's inner "
        "channels, the neck's and the heads' hidden channels, found by bisection for "
        f"{FLOPS_RATIO:.0%} of the convolution FLOPs, then {figures['fine_tune_epochs']} epochs of "
        "fine-tuning with the unpruned parent's heatmaps and boxes as "
        "soft targets; int8 is the device SDK's static QDQ quantization calibrated on up to 300 training "
        "images. Latency: the `worker-cpu` target profile (ONNX Runtime, 1 thread, batch 1), median of 30 "
        "runs (p90 in brackets). mAP@.5: the template's evaluation on the same test images. FLOPs: 2 x the "
        "multiply-accumulates of the ONNX graph's Conv/Gemm/MatMul."
    )
    rows = [
        "| model | bytes | x parent | parameters | MFLOPs | ms (p90) | x parent | mAP@.5 | drop |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(name: str, summary: dict[str, Any], value: float) -> str:
        latency = summary["latency"]
        return (
            f"| {name} | {summary['size_bytes']:,} | {summary['size_bytes'] / parent['size_bytes']:.3f} | "
            f"{summary['parameters']:,} | {summary['flops'] / 1e6:.1f} | {latency['median_ms']:.2f} "
            f"({latency['p90_ms']:.2f}) | {latency['median_ms'] / parent['latency']['median_ms']:.2f} | "
            f"{value:.4f} | {parent_map50 - value:+.4f} |"
        )

    rows.append(row("parent (fp32)", parent, parent_map50))
    met = []
    for variant in result["variants"]:
        value = map50(variant)
        rows.append(row(f"{variant['name']} ({variant['summary']['precision']})", variant["summary"], value))
        if (
            variant["summary"]["size_bytes"] <= SIZE_TARGET * parent["size_bytes"]
            and parent_map50 - value <= DROP_TARGET
        ):
            met.append(variant["name"])
    notes = [f"- {v['name']}: {'; '.join(v['notes'])}" for v in result["variants"] if v["notes"]]
    skipped = [f"- skipped {s['name']}: {s['reason']}" for s in result["skipped"]]
    verdict = (
        f"Target: a variant at most {SIZE_TARGET}x the parent's bytes with a mAP@.5 drop of at most "
        f"{DROP_TARGET}: {'met by ' + ', '.join(met) if met else 'NOT met'}."
    )
    return "\n".join([context, "", *rows, "", *notes, *skipped, "", verdict])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=20, help="the parent's epochs (the fast preset has 40)")
    parser.add_argument("--fine-tune-epochs", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument(
        "--work", default=str(Path(tempfile.gettempdir()) / "sampan-bench-compression-detection")
    )
    parser.add_argument("--train-only", action="store_true", help="train (or resume) the parent, then stop")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    figures = measure(args)
    if args.train_only:
        return 0
    result = figures["result"]
    body = section(figures)
    print(f"## {TITLE}\n\n{body}")
    (Path(args.work) / "figures.json").write_text(json.dumps(figures, default=str))
    if args.write:
        write_section(SECTION, TITLE, body)
    parent = result["parent"]
    return (
        0
        if any(
            v["summary"]["size_bytes"] <= SIZE_TARGET * parent["size_bytes"]
            and figures["parent_map50"] - map50(v) <= DROP_TARGET
            for v in result["variants"]
        )
        else 1
    )


if __name__ == "__main__":
    sys.exit(main())
