"""Smart labeling with a simulated labeler: how many labels does Sampan's selection need to get
within 1 point of the all-labels test accuracy, next to random selection, on digits and on texts.

    .venv/bin/python benchmarks/smart_labeling.py            # prints the Markdown section
    .venv/bin/python benchmarks/smart_labeling.py --write    # also updates docs/benchmarks.md and
                                                             # docs/benchmarks/smart_labeling.png

Data (offline): scikit-learn's 1,797 digits written as 32x32 PNGs (as tests/workers/digits_data.py
does), and the stdlib-docstring corpus of tests/templates_text/corpus.py (744 texts in 4 areas of
Python's standard library; the text set every Sampan text test uses). Each is split stratified and
seeded: 30 % held out as the test set, the rest is the pool. Features are read once per data set
with ``workers.smart_labeling.features.pool_features`` (images: thumbnails + gradient histograms;
texts: MiniLM embeddings), as a round does.

The simulated labeler starts from 2 labels per class. Each round, the strategy picks a batch from
the unlabeled pool (``workers.smart_labeling.classification_round``, the function a smart-labeling
round runs; ``random`` is its seeded shuffle), the labeler reveals the true labels, and the quick
model (``quick_model.fit_predict_proba``) trained on every label so far is scored on the test set.
The all-labels accuracy is the same model trained on the whole pool. "Labels needed" is the first
round at which test accuracy is within 1 point of it; means over ``--seeds`` splits, the strategies
interleaved inside each seed on the same split.

A second table says how far a suggestion's confidence can be trusted: with 5, 10 or 30 random
labels per class, how many suggestions are right, how many reach confidence 0.95 and how many of
those are right (what "accept all above 0.95" would write), and the expected calibration error.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DOCS = REPO / "docs" / "benchmarks.md"
FIGURE = REPO / "docs" / "benchmarks" / "smart_labeling.png"
SECTION = "smart_labeling"
STRATEGIES = ("uncertainty_diversity", "random", "uncertainty")
NAMES = {
    "uncertainty_diversity": "Sampan (uncertainty + diversity)",
    "random": "random selection",
    "uncertainty": "uncertainty alone",
}
START_PER_CLASS = 2
TEST_SHARE = 0.3
TOLERANCE = 0.01


def digits_pool(root: Path) -> tuple[dict[str, Any], np.ndarray]:
    from PIL import Image
    from sklearn.datasets import load_digits  # type: ignore[import-untyped]

    digits = load_digits()
    samples = []
    for i, image in enumerate(digits.images):
        path = root / f"{i:04d}.png"
        pixels = (image * (255 / 16)).round().astype(np.uint8)
        Image.fromarray(pixels, mode="L").resize((32, 32), Image.Resampling.BILINEAR).save(path)
        samples.append({"id": i, "sha256": "", "label": None, "image_path": str(path)})
    classes = [str(d) for d in range(10)]
    pool = {"kind": "label_pool", "version": 1, "task_type": "image_classification", "classes": classes}
    return {**pool, "samples": samples}, np.asarray(digits.target, dtype=np.int64)


def texts_pool() -> tuple[dict[str, Any], np.ndarray]:
    sys.path.insert(0, str(REPO / "tests" / "templates_text"))
    from corpus import stdlib_docstrings  # type: ignore[import-not-found]

    pairs = stdlib_docstrings(0)
    classes = sorted({area for _, area in pairs})
    samples = [{"id": i, "sha256": "", "label": None, "text": t} for i, (t, _) in enumerate(pairs)]
    pool = {"kind": "label_pool", "version": 1, "task_type": "text_classification", "classes": classes}
    return {**pool, "samples": samples}, np.asarray([classes.index(a) for _, a in pairs], dtype=np.int64)


def stratified_split(y: np.ndarray, share: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    test = []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        test.extend(members[: round(len(members) * share)].tolist())
    mask = np.zeros(len(y), dtype=bool)
    mask[test] = True
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def simulate(
    features: np.ndarray, y: np.ndarray, n_classes: int, strategy: str, batch: int, budget: int, seed: int
) -> dict[str, Any]:
    from workers.smart_labeling import classification_round
    from workers.smart_labeling.quick_model import fit_predict_proba

    rng = np.random.default_rng(seed)
    pool_index, test_index = stratified_split(y, TEST_SHARE, rng)
    x_pool, y_pool = features[pool_index], y[pool_index]
    x_test, y_test = features[test_index], y[test_index]
    full = float((fit_predict_proba(x_pool, y_pool, x_test, n_classes, seed=seed).argmax(1) == y_test).mean())
    labeled = np.zeros(len(y_pool), dtype=bool)
    for label in range(n_classes):
        labeled[rng.choice(np.flatnonzero(y_pool == label), START_PER_CLASS, replace=False)] = True
    curve: list[tuple[int, float]] = []
    while True:
        p = fit_predict_proba(x_pool[labeled], y_pool[labeled], x_test, n_classes, seed=seed)
        curve.append((int(labeled.sum()), float((p.argmax(1) == y_test).mean())))
        got_there = curve[-1][1] >= full - TOLERANCE
        # run past the curve's budget until the strategy gets there (random may need most of the pool)
        if (labeled.sum() >= budget and got_there) or labeled.all():
            break
        _, _, order = classification_round(
            x_pool, labeled, y_pool[labeled], n_classes, strategy, batch, seed=seed + len(curve)
        )
        labeled[np.flatnonzero(~labeled)[order]] = True  # the labeler reveals the true labels
    reached = next((n for n, acc in curve if acc >= full - TOLERANCE), None)
    return {"full": full, "pool": len(y_pool), "curve": curve, "reached": reached}


def calibration(
    features: np.ndarray, y: np.ndarray, n_classes: int, per_class: int, seeds: int
) -> dict[str, float]:
    """How far a suggestion's confidence can be trusted: ``per_class`` random labels per class, the
    quick model suggests the rest; accuracy, the share at confidence >= 0.95 and its precision, and
    the expected calibration error (10 bins)."""
    from workers.smart_labeling.quick_model import fit_predict_proba

    rows = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        labeled = np.concatenate(
            [rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in range(n_classes)]
        )
        rest = np.setdiff1d(np.arange(len(y)), labeled)
        p = fit_predict_proba(features[labeled], y[labeled], features[rest], n_classes, seed=seed)
        confidence, right = p.max(1), p.argmax(1) == y[rest]
        high = confidence >= 0.95
        bins = np.minimum((confidence * 10).astype(int), 9)
        ece = sum(
            abs(right[bins == b].mean() - confidence[bins == b].mean()) * (bins == b).mean()
            for b in range(10)
            if (bins == b).any()
        )
        rows.append((right.mean(), high.mean(), right[high].mean() if high.any() else np.nan, ece))
    accuracy, share, precision, ece = np.nanmean(np.asarray(rows, dtype=np.float64), axis=0)
    return {"accuracy": accuracy, "share": share, "precision": precision, "ece": ece}


def calibration_table(rows: list[tuple[str, int, dict[str, float]]]) -> str:
    lines = [
        "| data set | labels per class | suggestions right | share with confidence >= 0.95 "
        "| right among those | calibration error (ECE) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, per_class, r in rows:
        lines.append(
            f"| {name} | {per_class} | {r['accuracy']:.3f} | {100 * r['share']:.0f} % | {r['precision']:.3f} "
            f"| {r['ece']:.3f} |"
        )
    return "\n".join(lines)


def machine() -> str:
    import sklearn  # type: ignore[import-untyped]
    import torch

    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{datetime.date.today().isoformat()} on {cpu}, {os.cpu_count()} cores, Linux "
        f"{stdlib_platform.release()}; Python {stdlib_platform.python_version()}, scikit-learn "
        f"{sklearn.__version__}, torch {torch.__version__} (MiniLM embeddings only)"
    )


def summarise(name: str, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    for strategy, results in runs.items():
        reached = [r["reached"] for r in results]
        pool = results[0]["pool"]
        # never reached (cannot happen with the whole pool labeled, kept for safety): a lower bound
        bounded = [r["curve"][-1][0] if n is None else n for r, n in zip(results, reached, strict=True)]
        out[strategy] = {
            "full": float(np.mean([r["full"] for r in results])),
            "pool": pool,
            "reached": reached,
            "mean": float(np.mean(bounded)),
            "share": float(np.mean(bounded)) / pool,
            "lower_bound": None in reached,
            "curve": mean_curve(results),
        }
    return out


def mean_curve(results: list[dict[str, Any]]) -> list[tuple[float, float]]:
    length = min(len(r["curve"]) for r in results)
    return [
        (
            float(np.mean([r["curve"][i][0] for r in results])),
            float(np.mean([r["curve"][i][1] for r in results])),
        )
        for i in range(length)
    ]


def table(summaries: list[dict[str, Any]], seeds: int) -> str:
    rows = [
        "| data set | pool | all-labels test accuracy | strategy | labels to within 1 point (mean) "
        "| share of the pool | per seed | vs random |",
        "| --- | ---: | ---: | --- | ---: | ---: | --- | ---: |",
    ]
    for s in summaries:
        random_mean = s["random"]["mean"]
        for strategy in STRATEGIES:
            r = s[strategy]
            at_least = ">= " if r["lower_bound"] else ""
            mean = f"{at_least}{r['mean']:.0f}"
            share = f"{at_least}{100 * r['share']:.1f} %"
            ratio = (
                ""
                if strategy == "random"
                else f"{'<= ' if s['random']['lower_bound'] and not r['lower_bound'] else ''}"
                f"{r['mean'] / random_mean:.2f}"
            )
            per_seed = ", ".join("-" if n is None else str(n) for n in r["reached"])
            label = f"**{NAMES[strategy]}**" if strategy == "uncertainty_diversity" else NAMES[strategy]
            rows.append(
                f"| {s['name']} | {r['pool']} | {r['full']:.3f} | {label} | {mean} | {share} "
                f"| {per_seed} | {ratio} |"
            )
    return "\n".join(rows)


def ascii_curves(summary: dict[str, Any], width: int = 12) -> str:
    """Test accuracy after each round, a few rounds, every strategy side by side."""
    curves = {k: summary[k]["curve"] for k in STRATEGIES}
    length = min(len(c) for c in curves.values())
    step = max(1, length // width)
    lines = [f"{summary['name']}: labels -> test accuracy ({', '.join(NAMES[k] for k in STRATEGIES)})"]
    for i in range(0, length, step):
        n = curves["random"][i][0]
        values = "  ".join(f"{curves[k][i][1]:.3f}" for k in STRATEGIES)
        lines.append(f"  {n:5.0f}  {values}")
    return "\n".join(lines)


def plot(summaries: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(summaries), figsize=(5.5 * len(summaries), 3.8))
    for ax, s in zip(np.atleast_1d(axes), summaries, strict=True):
        for strategy, style in zip(STRATEGIES, ("-", "--", ":"), strict=True):
            n, acc = zip(*s[strategy]["curve"], strict=True)
            ax.plot(np.asarray(n) / s[strategy]["pool"] * 100, acc, style, label=NAMES[strategy])
        full = s["uncertainty_diversity"]["full"]
        ax.axhline(full - TOLERANCE, color="grey", linewidth=0.8, label="all labels - 1 point")
        ax.set_title(s["name"])
        ax.set_xlabel("labeled share of the pool (%)")
        ax.set_ylabel("test accuracy")
        ax.set_ylim(max(0.0, full - 0.25), 1.0)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=110)


def write_section(text: str) -> None:
    block = f"<!-- {SECTION}:start -->\n{text}\n<!-- {SECTION}:end -->"
    content = DOCS.read_text()
    pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->", re.S)
    content = (
        pattern.sub(lambda _: block, content)
        if pattern.search(content)
        else f"{content.rstrip()}\n\n{block}\n"
    )
    DOCS.write_text(content)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    from workers.progress import silent_report
    from workers.smart_labeling.features import pool_features

    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="sampan-bench-smart-"))
    try:
        sets = []
        pool, y = digits_pool(root)
        t = time.monotonic()
        x = pool_features(pool, work_dir=root, report=silent_report)  # type: ignore[arg-type]
        sets.append(("digits (images)", x, y, 10, 20, 0.4, time.monotonic() - t))
        pool, y = texts_pool()
        t = time.monotonic()
        x = pool_features(pool, work_dir=root, report=silent_report)  # type: ignore[arg-type]
        sets.append(("stdlib docstrings (texts)", x, y, len(pool["classes"]), 10, 0.6, time.monotonic() - t))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summaries, notes = [], []
    calibrations = [
        (name, per_class, calibration(x, y, n_classes, per_class, args.seeds))
        for name, x, y, n_classes, *_ in sets
        for per_class in (5, 10, 30)
    ]
    for name, x, y, n_classes, batch, budget_share, feature_seconds in sets:
        budget = round(budget_share * len(y) * (1 - TEST_SHARE))
        runs: dict[str, list[dict[str, Any]]] = {k: [] for k in STRATEGIES}
        for seed in range(args.seeds):
            for strategy in STRATEGIES:
                runs[strategy].append(simulate(x, y, n_classes, strategy, batch, budget, seed))
        summaries.append(summarise(name, runs))
        notes.append(
            f"{name}: {len(y)} samples, {x.shape[1]} features read in {feature_seconds:.1f} s; "
            f"batches of {batch}, curves up to {100 * budget_share:.0f} % of the pool"
        )
        print(f"{name}: done at {time.monotonic() - started:.0f} s", file=sys.stderr)
    digits = summaries[0]
    ours = digits["uncertainty_diversity"]
    target_digits = None if ours["lower_bound"] else ours["share"]
    met_digits = target_digits is not None and target_digits <= 0.30
    fewer = all(
        not s["uncertainty_diversity"]["lower_bound"]
        and s["uncertainty_diversity"]["mean"] < s["random"]["mean"]
        for s in summaries
    )
    curves = "\n\n".join(ascii_curves(s) for s in summaries)
    text = "\n".join(
        [
            "## Smart labeling: labels needed, Sampan vs random (`benchmarks/smart_labeling.py`)",
            "",
            f"Measured {machine()}. {args.seeds} seeds (a stratified 70/30 pool/test split each), "
            f"starting from {START_PER_CLASS} labels per class; a simulated labeler reveals the true label "
            "of each sample the strategy picks; after each batch the quick model (logistic regression on "
            "the pool's features) is trained on every label so far and scored on the test set. "
            + "; ".join(notes)
            + f". Whole run: {time.monotonic() - started:.0f} s.",
            "",
            table(summaries, args.seeds),
            "",
            "![test accuracy against the labeled share of the pool](benchmarks/smart_labeling.png)",
            "",
            "```",
            curves,
            "```",
            "",
            "Target: within 1 point of the all-labels accuracy after labeling at most 30 % of the pool on "
            f"digits: {'met' if met_digits else 'not met'}"
            + ("" if target_digits is None else f" ({100 * target_digits:.1f} %)")
            + f"; fewer labels than random on both sets: {'met' if fewer else 'not met'}.",
            "",
            'How far a suggestion\'s confidence can be trusted (what "accept all above 0.95" writes): '
            "random labels per class, the quick model suggests every other sample of the set, means over "
            "the seeds.",
            "",
            calibration_table(calibrations),
        ]
    )
    print(text)
    if args.write:
        plot(summaries)
        write_section(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
