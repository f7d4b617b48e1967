"""Data-parallel training throughput: N DDP ranks against one process, side by side.

The image classification trainer trains the same model on the same data (scikit-learn's digits as
32x32 PNG files, the train split of a seeded 70/15/15 split) with the same global batch, seed and
epochs, once in one process and once with ``processes=N`` (``workers.distributed``: torch's elastic
launcher, DistributedDataParallel, gloo on CPU / nccl on CUDA). On a CPU every rank gets
cores / N torch threads and the single process is measured twice: with one rank's share of the
cores (the per-core scaling the issue asks for: 2 ranks x 1 core against 1 process x 1 core) and
with all of them (what a user gets without ``processes``). On CUDA the single process uses one GPU
and the ranks one GPU each.

samples/s = training samples / training seconds of the epochs (``metrics.samples_per_s`` of the
result: validation, start-up and the ONNX export not included; for the ranks, rank 0's epoch time,
which includes waiting for the gradient all-reduce). ``wall s`` is the whole call, launcher start-up
included. A round is one run of each configuration, in rotating order; figures are medians.

    .venv/bin/python benchmarks/ddp_throughput.py                    # 2 CPU ranks, print the table
    .venv/bin/python benchmarks/ddp_throughput.py --write            # also update docs/benchmarks.md
    .venv/bin/python benchmarks/ddp_throughput.py --device cuda --processes 4   # a 4-GPU host (nccl)
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
sys.path.insert(0, str(REPO / "tests" / "workers"))

import torch  # noqa: E402
from digits_data import write_digits  # noqa: E402

from workers.distributed import usable_cores  # noqa: E402
from workers.image_classification.trainer import train  # noqa: E402

DOCS = REPO / "docs" / "benchmarks.md"
START, END = "<!-- ddp_throughput:start -->", "<!-- ddp_throughput:end -->"
MODELS = {
    "cnn_small": {"preset": "fast", "model": "cnn_small", "image_size": 32},
    "resnet_narrow": {"preset": "balanced", "model": "resnet_narrow", "image_size": 32},
    # the balanced preset's own image size
    "resnet_narrow_64": {"preset": "balanced", "model": "resnet_narrow", "image_size": 64},
}


def run(spec: dict[str, Any], manifest: dict[str, Any], *, processes: int, threads: int, device: str) -> dict:
    out = Path(tempfile.mkdtemp(prefix="sampan-ddp-bench-"))
    try:
        started = time.monotonic()
        if processes == 1:
            result = train(spec, manifest, out, device=device, threads=threads, num_workers=0)
        else:
            result = train(spec, manifest, out, device=device, processes=processes)
        wall = time.monotonic() - started
        return {
            "samples_per_s": result["metrics"]["samples_per_s"],
            "wall_s": wall,
            "runtime": result["runtime"],
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="cpu (gloo) or cuda (nccl, one GPU per rank)")
    parser.add_argument("--models", default="cnn_small,resnet_narrow,resnet_narrow_64")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    n = args.processes
    cores = usable_cores()
    data_dir = Path(tempfile.mkdtemp(prefix="sampan-ddp-digits-"))
    manifest = write_digits(data_dir)
    configs: list[tuple[str, int, int]] = []  # (label, processes, threads per process)
    if args.device == "cpu":
        share = max(1, cores // n)
        configs.append((f"1 process x {share} thread{'s' * (share > 1)}", 1, share))
        if cores > share:
            configs.append((f"1 process x {cores} threads", 1, cores))
        configs.append((f"{n} ranks x {share} thread{'s' * (share > 1)} (gloo)", n, share))
    else:
        configs = [("1 process, 1 GPU", 1, 0), (f"{n} ranks, {n} GPUs (nccl)", n, 0)]
    rows = []
    load_before = os.getloadavg()[0]
    try:
        for model in args.models.split(","):
            spec = {
                **MODELS[model],
                "epochs": args.epochs,
                "batch_size": args.batch_size,
                "horizontal_flip": False,
                "validation": "holdout",
            }
            figures: dict[str, list[dict]] = {label: [] for label, _, _ in configs}
            for round_ in range(args.rounds):
                order = configs[round_ % len(configs) :] + configs[: round_ % len(configs)]
                for label, processes, threads in order:
                    figure = run(spec, manifest, processes=processes, threads=threads, device=args.device)
                    figures[label].append(figure)
                    print(
                        f"{model} round {round_ + 1}: {label}: {figure['samples_per_s']:.0f} samples/s",
                        flush=True,
                    )
            baseline = statistics.median(f["samples_per_s"] for f in figures[configs[0][0]])
            for label, _, _ in configs:
                speeds = [f["samples_per_s"] for f in figures[label]]
                rows.append(
                    {
                        "model": model,
                        "config": label,
                        "samples_per_s": statistics.median(speeds),
                        "ratio": statistics.median(speeds) / baseline,
                        "range": (min(speeds) / baseline, max(speeds) / baseline),
                        "wall_s": statistics.median(f["wall_s"] for f in figures[label]),
                    }
                )
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    load = (load_before, os.getloadavg()[0])
    table = render(rows, args, cores, len(manifest["samples"]), load)
    print(table)
    if args.write:
        text = DOCS.read_text()
        block = f"{START}\n{table}\n{END}"
        pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
        DOCS.write_text(
            pattern.sub(lambda _: block, text) if pattern.search(text) else text + "\n" + block + "\n"
        )
    return 0


def render(
    rows: list[dict], args: argparse.Namespace, cores: int, samples: int, load: tuple[float, float]
) -> str:
    device = torch.cuda.get_device_name(0) if args.device == "cuda" else stdlib_platform.processor() or "CPU"
    lines = [
        f"Measured {datetime.date.today().isoformat()} on {device}, {cores} cores, "
        f"{stdlib_platform.system()} {stdlib_platform.release()}; Python {stdlib_platform.python_version()}, "
        f"torch {torch.__version__}. Data: scikit-learn's digits as 32x32 PNG files ({samples} images, "
        f"70 % train); global batch {args.batch_size}, {args.epochs} epochs per run, "
        f"{args.rounds} rounds in rotating order, medians; ratio against the first row of each model. "
        f"Load average (1 min) of the machine {load[0]:.1f} before and {load[1]:.1f} after: other "
        "processes shared these cores.",
        "",
        "| model | configuration | samples/s | ratio: median (range) | wall s per run |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        low, high = row["range"]
        lines.append(
            f"| {row['model']} | {row['config']} | {row['samples_per_s']:.0f} | "
            f"{row['ratio']:.2f} ({low:.2f}-{high:.2f}) | {row['wall_s']:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
