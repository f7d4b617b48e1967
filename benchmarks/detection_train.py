"""Object detection training: the fast preset's quality and time, and the trainer's throughput
against a plain PyTorch loop, side by side.

1. Quality: the fast preset trained on 1,000 synthetic digit scenes of 128x128 pixels
   (``workers.object_detection.synthetic``, seed 0, 70/15/15 split), then the test split's COCO
   mAP@.5 and mAP@[.5:.95] (``metrics.coco_evaluate`` on the Detector's boxes, score threshold
   0.05) and the training minutes (the call, ONNX export included). Targets: mAP@.5 >= 0.90,
   <= 5 minutes on 2 CPU cores.
2. Throughput: the trainer and a plain loop (the same model, data set class, targets, loss,
   optimizer, schedule, batch size and threads; no checkpoints, reports or validation) train the
   same train split for ``--epochs`` epochs, alternating which goes first; samples/s are medians
   over the rounds. The trainer's time runs from the call to its last epoch's end (the export is
   not training). Target: trainer / plain >= 0.95.

    .venv/bin/python benchmarks/detection_train.py            # print the Markdown section
    .venv/bin/python benchmarks/detection_train.py --write    # also update docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import torch  # noqa: E402
from PIL import Image  # noqa: E402
from trainer_throughput import LoadMonitor, cpu_name  # noqa: E402

from workers.image_classification.data import usable_cpus  # noqa: E402
from workers.image_classification.preprocessing import make_spec  # noqa: E402
from workers.image_classification.trainer import lr_schedule, parameter_groups  # noqa: E402
from workers.object_detection import trainer as detection_trainer  # noqa: E402
from workers.object_detection.augment import TrainBoxTransform  # noqa: E402
from workers.object_detection.data import DetectionSamples  # noqa: E402
from workers.object_detection.manifest import parse_manifest  # noqa: E402
from workers.object_detection.metrics import coco_evaluate  # noqa: E402
from workers.object_detection.models import build_model  # noqa: E402
from workers.object_detection.predictor import Detector  # noqa: E402
from workers.object_detection.synthetic import digit_scenes, write_manifest  # noqa: E402
from workers.object_detection.template import TEMPLATE  # noqa: E402

DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "detection_train"
MAP50_TARGET, MINUTES_TARGET, RATIO_TARGET = 0.90, 5.0, 0.95


def quality(manifest: dict[str, Any], work: Path, threads: int, preset: str) -> dict[str, Any]:
    out_dir = work / f"quality-{preset}"
    started = time.perf_counter()
    result = detection_trainer.train({"preset": preset}, manifest, out_dir, device="cpu", threads=threads)
    minutes = (time.perf_counter() - started) / 60
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    answers = Detector(out_dir, threads=threads).detect(
        [Image.open(s["path"]) for s in test], score_threshold=0.05
    )
    found = [
        [(b["index"], b["score"], b["x"], b["y"], b["width"], b["height"]) for b in a["boxes"]]
        for a in answers
    ]
    metrics = coco_evaluate([s["boxes"] for s in test], found, manifest["classes"])
    return {
        "preset": preset,
        "params": result["params"],
        "minutes": minutes,
        "map50": metrics["map50"],
        "map": metrics["map"],
        "best_val_map50": result["metrics"]["best_val_map50"],
        "test_images": len(test),
    }


def run_trainer(params: dict[str, Any], manifest: dict[str, Any], work: Path, threads: int) -> float:
    out_dir = work / "throughput-trainer"
    shutil.rmtree(out_dir, ignore_errors=True)
    last_epoch_end = [0.0]

    def report(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        if milestone and "val_map50" in metrics:
            last_epoch_end[0] = time.perf_counter()

    started = time.perf_counter()
    result = detection_trainer.train(
        params, manifest, out_dir, report, device="cpu", num_workers=0, threads=threads
    )
    steps = result["history"][-1]["step"]
    return steps * params["batch_size"] / (last_epoch_end[0] - started)


def run_plain_loop(params: dict[str, Any], manifest: dict[str, Any], threads: int) -> float:
    """What a competent user writes: the same model, data, loss and optimizer; nothing else."""
    started = time.perf_counter()
    torch.set_num_threads(threads)
    torch.manual_seed(params["seed"])
    data = parse_manifest(manifest, check_files=False)
    spec = make_spec(params["image_size"])
    train_set = DetectionSamples(
        data.split("train"),
        TrainBoxTransform(
            spec, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
        ),
        num_classes=len(data.classes),
        seed=params["seed"],
    )
    loader = torch.utils.data.DataLoader(
        train_set, batch_size=params["batch_size"], shuffle=True, drop_last=True
    )
    model = build_model(params["model"], len(data.classes)).to(memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(parameter_groups(model, params["weight_decay"]), lr=params["learning_rate"])
    scheduler = lr_schedule(optimizer, params, len(loader))
    steps = 0
    for _ in range(params["epochs"]):
        model.train()
        for inputs, heatmap, box_target, weight in loader:
            heat, regression = model(inputs.contiguous(memory_format=torch.channels_last))
            loss = detection_trainer.centernet_loss(heat, regression, heatmap, box_target, weight)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            steps += 1
    return steps * params["batch_size"] / (time.perf_counter() - started)


def throughput(
    manifest: dict[str, Any], work: Path, threads: int, epochs: int, rounds: int
) -> dict[str, Any]:
    # train split only: the trainer then validates nothing, as the plain loop
    train_only = {**manifest, "samples": [s for s in manifest["samples"] if s["split"] == "train"]}
    params = TEMPLATE.validate_params("fast", {"epochs": epochs})
    figures: list[tuple[float, float, float]] = []
    for attempt in range(rounds):
        monitor = LoadMonitor()
        if attempt % 2 == 0:
            trainer, plain = (
                run_trainer(params, train_only, work, threads),
                run_plain_loop(params, train_only, threads),
            )
        else:
            plain, trainer = (
                run_plain_loop(params, train_only, threads),
                run_trainer(params, train_only, work, threads),
            )
        other = monitor.stop()
        figures.append((trainer, plain, other))
        print(
            f"  round {attempt + 1}: trainer {trainer:.1f}, plain {plain:.1f} samples/s; other processes "
            f"used {other:.2f} cores",
            file=sys.stderr,
        )
    ratios = [t / p for t, p, _ in figures]
    return {
        "params": params,
        "trainer": statistics.median(t for t, _, _ in figures),
        "plain": statistics.median(p for _, p, _ in figures),
        "ratio": statistics.median(ratios),
        "range": (min(ratios), max(ratios)),
        "rounds": rounds,
        "other_cores": statistics.median(o for _, _, o in figures),
    }


def markdown(q: dict[str, Any], t: dict[str, Any] | None, *, threads: int, scenes: int) -> str:
    p = q["params"]
    lines = [
        "## Detection training (`benchmarks/detection_train.py`)",
        "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_name()}, {usable_cpus()} cores, Linux "
        f"{stdlib_platform.release()}; Python {stdlib_platform.python_version()}, torch {torch.__version__}, "
        f"{threads} torch threads; 1-minute load average {os.getloadavg()[0]:.1f} at the end (other work "
        f"shares these cores). Data: {scenes} synthetic digit scenes of 128x128 pixels (scikit-learn's "
        "digits on textured backgrounds, 10 classes, seed 0), split 70/15/15.",
        "",
        "| preset | model | image size | epochs | batch | test mAP@.5 | test mAP@[.5:.95] "
        "| training minutes |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {q['preset']} | {p['model']} | {p['image_size']} | {p['epochs']} | {p['batch_size']} "
        f"| {q['map50']:.3f} | {q['map']:.3f} | {q['minutes']:.1f} |",
        "",
        f"Targets: mAP@.5 >= {MAP50_TARGET} ({'met' if q['map50'] >= MAP50_TARGET else 'NOT met'}), at most "
        f"{MINUTES_TARGET:.0f} minutes ({'met' if q['minutes'] <= MINUTES_TARGET else 'NOT met'}).",
    ]
    if t is not None:
        low, high = t["range"]
        lines += [
            "",
            f"Throughput, fast preset, {t['params']['epochs']} epochs on the train split, "
            f"{t['rounds']} rounds "
            f"(other processes kept a median {t['other_cores']:.2f} cores busy meanwhile):",
            "",
            "| trainer samples/s | plain PyTorch loop samples/s | trainer / plain: median (range) |",
            "| ---: | ---: | ---: |",
            f"| {t['trainer']:.0f} | {t['plain']:.0f} | {t['ratio']:.3f} ({low:.3f}-{high:.3f}) |",
            "",
            f"Target: trainer / plain >= {RATIO_TARGET}: "
            f"{'met' if t['ratio'] >= RATIO_TARGET else 'NOT met'}.",
        ]
    return "\n".join(lines)


def write_section(text: str) -> None:
    block = f"<!-- {SECTION}:start -->\n{text}\n<!-- {SECTION}:end -->"
    current = DOCS.read_text() if DOCS.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->", re.S)
    updated = (
        pattern.sub(lambda _: block, current)
        if pattern.search(current)
        else current.rstrip() + "\n\n" + block + "\n"
    )
    DOCS.write_text(updated)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--write", action="store_true", help="update the detection_train section of docs/benchmarks.md"
    )
    parser.add_argument("--scenes", type=int, default=1000)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per throughput run")
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds (0: skip)")
    args = parser.parse_args()
    threads = usable_cpus()
    work = Path(tempfile.mkdtemp(prefix="sampan-detection-bench-"))
    try:
        manifest = write_manifest(digit_scenes(args.scenes, size=128, seed=0), work / "data")
        q = quality(dict(manifest), work, threads, args.preset)
        print(f"  {args.preset}: test mAP@.5 {q['map50']:.3f}, {q['minutes']:.1f} min", file=sys.stderr)
        t = throughput(dict(manifest), work, threads, args.epochs, args.rounds) if args.rounds else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = markdown(q, t, threads=threads, scenes=args.scenes)
    print(text)
    if args.write:
        write_section(text)
    met = (
        q["map50"] >= MAP50_TARGET
        and q["minutes"] <= MINUTES_TARGET
        and (t is None or t["ratio"] >= RATIO_TARGET)
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
