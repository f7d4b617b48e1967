"""The detector's int8 device model against its fp32 model: size, mAP@.5 on the test split, and the
time of one image, side by side.

Trains the fast preset on seeded synthetic digit scenes (``workers.object_detection.synthetic``;
1,000 images of 128x128 pixels by default, split 0.7/0.15/0.15; the run is cached under
``--work`` and reused while its parameters are the same), then builds the device SDK exactly as
the platform does (``workers.packaging.build_device_sdk``: ONNX Runtime static QDQ quantization
calibrated on up to 300 training images) and reads its compression report: both models' bytes
and mAP@.5 (the evaluation's own ``coco_evaluate``), the drop, and the share of fp32's boxes int8
finds too. Latency: one test image at a time through each model's ONNX Runtime session (1 thread),
the two models alternating image by image; medians.

    .venv/bin/python benchmarks/detection_int8.py            # print the Markdown section
    .venv/bin/python benchmarks/detection_int8.py --write    # also update docs/benchmarks.md

Exits 1 when a target is missed: int8 at most 0.35x the fp32 bytes, mAP@.5 drop at most 0.02.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import statistics
import sys
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dataset_bench import write_section  # noqa: E402  (benchmarks/ is this script's folder)

from workers.image_classification.preprocessing import open_image, preprocess_batch  # noqa: E402
from workers.packaging import ModelArtifacts, build_device_sdk  # noqa: E402

SECTION = "detection_int8"
TITLE = "Detector int8 device model (`benchmarks/detection_int8.py`)"
SIZE_TARGET, DROP_TARGET = 0.35, 0.02


def trained_run(
    work: Path, images: int, size: int, preset: str, threads: int, from_checkpoint: bool
) -> tuple[dict[str, Any], Path, dict[str, Any]]:
    """(the manifest, the run folder, how it was trained: seconds (0 when a cached run was reused),
    epochs done and planned)."""
    from workers.object_detection.synthetic import digit_scenes, write_manifest

    params = {"images": images, "size": size, "preset": preset, "seed": 0}
    run = work / "run"
    manifest_path = work / "manifest.json"
    cached = (work / "params.json").is_file() and json.loads((work / "params.json").read_text()) == params
    if cached and (run / "model.onnx").is_file() and manifest_path.is_file():
        return json.loads(manifest_path.read_text()), run, json.loads((work / "training.json").read_text())
    if from_checkpoint and manifest_path.is_file() and cached_checkpoint(run) is not None:
        (work / "params.json").write_text(json.dumps(params))
        return json.loads(manifest_path.read_text()), run, export_checkpoint(work, run)
    from workers.object_detection.trainer import train

    manifest = write_manifest(digit_scenes(images, size=size, seed=0), work / "data")
    manifest_path.write_text(json.dumps(manifest))
    (work / "params.json").write_text(json.dumps(params))
    started = time.perf_counter()
    result = train({"preset": preset}, manifest, run, device="cpu", threads=threads)
    epochs = int(result.get("params", {}).get("epochs", 0)) or None
    training = {"seconds": time.perf_counter() - started, "epochs": epochs, "planned_epochs": epochs}
    (work / "training.json").write_text(json.dumps(training))
    return dict(manifest), run, training


def cached_checkpoint(run: Path) -> Path | None:
    """The run's latest complete training checkpoint (a checkpoint is complete with its marker)."""
    done = sorted(
        p for p in (run / "checkpoints").glob("*.pt") if p.with_name(p.name + ".complete").is_file()
    )
    return done[-1] if done else None


def export_checkpoint(work: Path, run: Path) -> dict[str, Any]:
    """A run that did not finish (on a busy machine): its latest checkpoint exported as the model."""
    from workers.object_detection.export import export_onnx, load_detector

    checkpoint = cached_checkpoint(run)
    assert checkpoint is not None
    _, state = load_detector(checkpoint)
    export_onnx(checkpoint, run / "model.onnx")
    (run / "preprocess.json").write_text(json.dumps(state["preprocessing"]))
    (run / "labels.json").write_text(json.dumps(state["classes"]))
    training = {"seconds": 0, "epochs": int(state["epoch"]), "planned_epochs": int(state["params"]["epochs"])}
    (work / "training.json").write_text(json.dumps(training))
    return training


def latencies(
    models: dict[str, Path], paths: list[str], spec: dict[str, Any], rounds: int = 3
) -> dict[str, Any]:
    """Milliseconds of one preprocessed image through each model, alternating image by image: per
    model the median over ``rounds`` rounds of each round's median, and the lowest and highest."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    sessions = {
        name: onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        for name, path in models.items()
    }
    inputs = [preprocess_batch([open_image(p, spec)], spec) for p in paths]
    for warm in inputs[:5]:
        for session in sessions.values():
            session.run(None, {"input": warm})
    medians: dict[str, list[float]] = {name: [] for name in sessions}
    for _ in range(rounds):
        times: dict[str, list[float]] = {name: [] for name in sessions}
        for position, batch in enumerate(inputs):
            order = list(sessions) if position % 2 == 0 else list(reversed(sessions))
            for name in order:
                started = time.perf_counter()
                sessions[name].run(None, {"input": batch})
                times[name].append((time.perf_counter() - started) * 1000)
        for name, values in times.items():
            medians[name].append(statistics.median(values))
    return {name: {"ms": statistics.median(v), "low": min(v), "high": max(v)} for name, v in medians.items()}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    manifest, run, training = trained_run(
        work, args.images, args.size, args.preset, args.threads, args.from_checkpoint
    )
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    train_paths = [s["path"] for s in manifest["samples"] if s["split"] == "train"]
    spec = json.loads((run / "preprocess.json").read_text())
    artifacts = ModelArtifacts(
        run / "model.onnx",
        spec,
        json.loads((run / "labels.json").read_text()),
        "object_detection",
        {"id": 0, "name": "benchmark", "template": "object_detection"},
        [s["path"] for s in test],
        test_boxes=[s["boxes"] for s in test],
    )
    with tempfile.TemporaryDirectory(prefix="sampan-bench-int8-") as temp:
        started = time.perf_counter()
        report = build_device_sdk(
            artifacts=artifacts, out_path=Path(temp) / "device.zip", calibration_images=train_paths
        )
        build_s = time.perf_counter() - started
        with zipfile.ZipFile(Path(temp) / "device.zip") as archive:
            archive.extractall(temp)
        root = next(p for p in Path(temp).iterdir() if p.is_dir())
        timing = latencies(
            {"fp32": root / "model.fp32.onnx", "int8": root / "model.int8.onnx"}, artifacts.test_images, spec
        )
    return {
        "compression": report["compression"],
        "latency_ms": timing,
        "build_s": build_s,
        "training": training,
        "images": args.images,
        "size": args.size,
        "preset": args.preset,
        "train_images": len(train_paths),
        "test_images": len(test),
        "input": spec["image_size"],
    }


def ms(timing: dict[str, float]) -> str:
    return f"{timing['ms']:.2f} ({timing['low']:.2f}-{timing['high']:.2f})"


def section(figures: dict[str, Any]) -> str:
    c, t = figures["compression"], figures["latency_ms"]
    fp32, int8 = c["fp32"], c["int8"]
    met = c["size_ratio"] <= SIZE_TARGET and c["map50_drop"] <= DROP_TARGET
    machine = stdlib_platform.processor() or stdlib_platform.machine()
    training = figures["training"]
    trained = f"trained here in {training['seconds'] / 60:.1f} min" if training["seconds"] else "a cached run"
    if training["epochs"] != training["planned_epochs"]:
        trained += (
            f", stopped after epoch {training['epochs']} of its {training['planned_epochs']} (this busy "
            "machine could not finish it in time; the latest checkpoint was exported, so the mAP is that of "
            "a partly trained model)"
        )
    context = (
        f"Measured {datetime.date.today().isoformat()} on {machine}, {os.cpu_count()} cores, "
        f"Python {stdlib_platform.python_version()}, onnxruntime {metadata.version('onnxruntime')}, "
        f"torch {metadata.version('torch')}; 1-minute load average {os.getloadavg()[0]:.1f} at the end "
        f"of the run. The model: the `{figures['preset']}` preset on {figures['images']:,} synthetic digit "
        f"scenes of {figures['size']}x{figures['size']} pixels ({figures['train_images']} training, "
        f"{figures['test_images']} test images; input {figures['input'][0]}x{figures['input'][1]}), "
        f"{trained}. int8: {c['quantization']['tool']}, {c['quantization']['format']}, "
        f"weights {c['quantization']['weights']}, activations {c['quantization']['activations']}, "
        f"calibrated on {c['quantization']['calibration_images']} training images; the device SDK "
        f"build took {figures['build_s']:.0f} s. Latency: one image per call, 1 thread, the two models "
        "alternating image by image; the median of 3 rounds' medians (lowest to highest round in brackets: "
        "other sessions' work on these cores moves them)."
    )
    rows = [
        "| model | bytes | mAP@.5 (test) | ms per image |",
        "| --- | ---: | ---: | ---: |",
        f"| fp32 (`model.fp32.onnx`) | {fp32['bytes']:,} | {fp32['map50']:.4f} | {ms(t['fp32'])} |",
        f"| int8 (`model.int8.onnx`) | {int8['bytes']:,} | {int8['map50']:.4f} | {ms(t['int8'])} |",
        f"| int8 / fp32 | {c['size_ratio']:.3f} | drop {c['map50_drop']:+.4f} "
        f"| {t['int8']['ms'] / t['fp32']['ms']:.2f} |",
    ]
    agreement = c["box_agreement"]
    verdict = (
        f"Of fp32's boxes at score {c['score_threshold']}, int8 finds "
        f"{'n/a' if agreement is None else f'{agreement:.1%}'} (same class, IoU >= 0.5). "
        f"Targets: int8 at most {SIZE_TARGET}x the fp32 bytes and a mAP@.5 drop of at most {DROP_TARGET}: "
        f"{'met' if met else 'NOT met'}."
    )
    return "\n".join([context, "", *rows, "", verdict])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "sampan-bench-detection-int8"))
    parser.add_argument(
        "--from-checkpoint",
        action="store_true",
        help="when an earlier run of these parameters stopped, export its latest checkpoint (no training)",
    )
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    figures = measure(args)
    body = section(figures)
    print(f"## {TITLE}\n\n{body}")
    if args.write:
        write_section(SECTION, TITLE, body)
    c = figures["compression"]
    return 0 if c["size_ratio"] <= SIZE_TARGET and c["map50_drop"] <= DROP_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
