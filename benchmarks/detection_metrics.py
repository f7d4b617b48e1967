"""Detection metrics: Sampan's NumPy COCO evaluation against pycocotools' COCOeval, side by side.

Both evaluate the same seeded detector-like answers on 1,000 images of 128x128 pixels with 10
classes (1 to 4 objects per image; per object one or two boxes jittered around it, sometimes of
another class; plus low-score clutter down to 0.001, as a detector evaluated COCO-style returns):

- Sampan: ``workers.object_detection.metrics.coco_evaluate`` (mAP@[.5:.95], mAP@.5, mAP@.75, per
  class AP and PR curves, and also the confusion with background and each image's errors);
- pycocotools: building the ground-truth index, ``loadRes``, ``evaluate``, ``accumulate``,
  ``summarize`` (its printing sent to a buffer).

A round runs each once, alternating which goes first, after one warm-up of each; the figures are
medians. The agreement row is the largest absolute difference between the two over mAP, mAP@.5,
mAP@.75 and every class's AP.

    .venv/bin/python benchmarks/detection_metrics.py            # print the Markdown section
    .venv/bin/python benchmarks/detection_metrics.py --write    # also update docs/benchmarks.md

Exits 1 when the two disagree by more than 1e-4 or Sampan takes a second or more.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import re
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from pycocotools.cocoeval import COCOeval  # noqa: E402

from tests.workers.coco_reference import class_ap, cocoeval  # noqa: E402
from workers.contracts.annotations import DetectionBox  # noqa: E402
from workers.object_detection.metrics import Detection, coco_evaluate  # noqa: E402

DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "detection_metrics"
SIZE = 128
CLASSES = [f"class_{k}" for k in range(10)]


def answers(images: int, clutter: int, seed: int) -> tuple[list[list[DetectionBox]], list[list[Detection]]]:
    rng = np.random.default_rng(seed)
    truth: list[list[DetectionBox]] = []
    predicted: list[list[Detection]] = []
    for _ in range(images):
        boxes: list[DetectionBox] = []
        found: list[Detection] = []
        for _ in range(int(rng.integers(1, 5))):
            w, h = rng.uniform(16, 48, size=2)
            x, y = rng.uniform(0, SIZE - w), rng.uniform(0, SIZE - h)
            label = int(rng.integers(0, len(CLASSES)))
            boxes.append(
                {"label": label, "x": float(x), "y": float(y), "width": float(w), "height": float(h)}
            )
            for _ in range(1 + int(rng.random() < 0.3)):
                guess = label if rng.random() > 0.05 else int(rng.integers(0, len(CLASSES)))
                dx, dy = rng.normal(0, 0.06, size=2) * (w, h)
                dw, dh = np.exp(rng.normal(0, 0.08, size=2)) * (w, h)
                found.append(
                    (guess, float(rng.uniform(0.3, 1.0)), float(x + dx), float(y + dy), float(dw), float(dh))
                )
        for _ in range(clutter):
            w, h = rng.uniform(8, 40, size=2)
            found.append(
                (
                    int(rng.integers(0, len(CLASSES))),
                    float(rng.uniform(0.001, 0.3)),
                    float(rng.uniform(0, SIZE - w)),
                    float(rng.uniform(0, SIZE - h)),
                    float(w),
                    float(h),
                )
            )
        found.sort(key=lambda d: -d[1])
        truth.append(boxes)
        predicted.append(found[:100])
    return truth, predicted


def pycocotools_evaluate(truth: list[list[DetectionBox]], predicted: list[list[Detection]]) -> COCOeval:
    return cocoeval(truth, predicted, CLASSES, [(SIZE, SIZE)] * len(truth))


def disagreement(ours: dict[str, Any], reference: COCOeval) -> float:
    per_class = class_ap(reference.eval["precision"][:, :, :, 0, -1])
    pairs = list(zip([ours["map"], ours["map50"], ours["map75"]], reference.stats[:3], strict=True))
    pairs += list(zip([row["ap"] for row in ours["per_class"]], per_class, strict=True))
    return max(abs(float(a) - float(b)) for a, b in pairs)


def measure(images: int, clutter: int, rounds: int) -> dict[str, Any]:
    truth, predicted = answers(images, clutter, seed=0)
    runs: dict[str, list[float]] = {"sampan": [], "pycocotools": []}

    def run(name: str) -> Any:
        start = time.perf_counter()
        result = (
            coco_evaluate(truth, predicted, CLASSES)
            if name == "sampan"
            else pycocotools_evaluate(truth, predicted)
        )
        runs[name].append(time.perf_counter() - start)
        return result

    ours, reference = run("sampan"), run("pycocotools")  # warm-up, and the figures compared
    runs = {"sampan": [], "pycocotools": []}
    for r in range(rounds):
        for name in ("sampan", "pycocotools") if r % 2 == 0 else ("pycocotools", "sampan"):
            run(name)
    return {
        "images": images,
        "detections": sum(len(found) for found in predicted),
        "objects": sum(len(boxes) for boxes in truth),
        "sampan_s": statistics.median(runs["sampan"]),
        "pycocotools_s": statistics.median(runs["pycocotools"]),
        "difference": disagreement(dict(ours), reference),
        "map": ours["map"],
        "map50": ours["map50"],
        "rounds": rounds,
    }


def section(figures: dict[str, Any]) -> str:
    ratio = figures["pycocotools_s"] / figures["sampan_s"]
    met = figures["sampan_s"] < 1 and figures["difference"] <= 1e-4
    machine = stdlib_platform.processor() or stdlib_platform.machine()
    context = (
        f"Measured {datetime.date.today().isoformat()} on {machine}, {os.cpu_count()} cores, "
        f"Python {stdlib_platform.python_version()}, NumPy {np.__version__}, "
        f"pycocotools {metadata.version('pycocotools')}; 1-minute load average {os.getloadavg()[0]:.1f} "
        f"at the end of the run. Medians of {figures['rounds']} rounds, alternating. The answers: "
        f"{figures['images']:,} images of {SIZE}x{SIZE} pixels, {len(CLASSES)} classes, "
        f"{figures['objects']:,} objects, {figures['detections']:,} detections (jittered boxes, some of "
        "the wrong class, and low-score clutter down to 0.001)."
    )
    rows = [
        "| evaluation of the same answers | time | pycocotools / this |",
        "| --- | ---: | ---: |",
        "| **Sampan: `coco_evaluate`** (mAP@[.5:.95], mAP@.5, mAP@.75, per-class AP and PR curves, "
        "confusion with background, per-image errors) | "
        f"{figures['sampan_s'] * 1000:,.0f} ms | {ratio:.1f} |",
        "| pycocotools: index, `loadRes`, `evaluate`, `accumulate`, `summarize` | "
        f"{figures['pycocotools_s'] * 1000:,.0f} ms | 1.0 |",
        "| largest difference over mAP, mAP@.5, mAP@.75 and each class's AP | "
        f"{figures['difference']:.1e} | |",
    ]
    verdict = (
        f"mAP of these answers: {figures['map']:.3f} (mAP@.5 {figures['map50']:.3f}). Target: well under a "
        "second for 1,000 images beyond inference, agreeing with pycocotools to 1e-4: "
        f"{'met' if met else 'NOT met'}."
    )
    return "\n".join(
        [
            f"<!-- {SECTION}:start -->",
            "## Detection metrics (`benchmarks/detection_metrics.py`)",
            "",
            context,
            "",
            *rows,
            "",
            verdict,
            f"<!-- {SECTION}:end -->",
            "",
        ]
    )


def write(text: str) -> None:
    docs = DOCS.read_text()
    pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->\n", re.S)
    docs = pattern.sub(lambda _: text, docs) if pattern.search(docs) else docs.rstrip("\n") + "\n\n" + text
    DOCS.write_text(docs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--clutter", type=int, default=30, help="low-score boxes per image")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    figures = measure(args.images, args.clutter, args.rounds)
    text = section(figures)
    print(text)
    if args.write:
        write(text)
    return 0 if figures["sampan_s"] < 1 and figures["difference"] <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
