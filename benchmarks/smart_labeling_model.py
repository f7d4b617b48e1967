"""Smart labeling on digits with and without the platform's own trained model's embedding.

    .venv/bin/python benchmarks/smart_labeling_model.py [--seeds 2] [--epochs 15]

Per seed: the stratified 70/30 pool/test split of ``benchmarks/smart_labeling.py``; 10 % of the pool
(stratified) is labeled; an image classifier (template image_classification, ``--preset``,
32x32, ``--epochs``) is trained on those labels only (85/15 train/val); then the simulated labeler
of ``smart_labeling.py`` runs from those same labels, once on the hand-made image features and once
on them + the model's penultimate-layer embedding (``pool_features(model=...)``, what a smart round
does when the dataset has such a model). "Labels needed": the labeled share of the pool when the
quick model's test accuracy first comes within 1 point of the hand-made features' all-labels
accuracy (one target for both). Prints one Markdown paragraph.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from smart_labeling import TEST_SHARE, TOLERANCE, digits_pool, stratified_split  # noqa: E402

BATCH = 20
START_SHARE = 0.10


def train_model(
    pool: dict[str, Any], y: np.ndarray, chosen: np.ndarray, out: Path, epochs: int, seed: int, preset: str
) -> dict[str, Any]:
    from workers.image_classification.trainer import train
    from workers.progress import silent_report

    rng = np.random.default_rng(seed)
    val = set(rng.choice(chosen, max(10, round(0.15 * len(chosen))), replace=False).tolist())
    samples = [
        {
            "path": pool["samples"][i]["image_path"],
            "label": int(y[i]),
            "split": "val" if i in val else "train",
        }
        for i in chosen
    ]
    manifest = {"classes": pool["classes"], "samples": samples}
    spec = {"preset": preset, "image_size": 32, "epochs": epochs, "horizontal_flip": False, "seed": seed}
    return train(spec, manifest, out, silent_report)


def labels_needed(
    x_pool, y_pool, x_test, y_test, labeled, target: float, seed: int
) -> tuple[float | None, float]:
    from workers.smart_labeling import classification_round
    from workers.smart_labeling.quick_model import fit_predict_proba

    labeled = labeled.copy()
    first = None
    round_ = 0
    while True:
        p = fit_predict_proba(x_pool[labeled], y_pool[labeled], x_test, 10, seed=seed)
        accuracy = float((p.argmax(1) == y_test).mean())
        first = accuracy if first is None else first
        if accuracy >= target - TOLERANCE:
            return float(labeled.sum()) / len(y_pool), first
        if labeled.all():
            return None, first
        round_ += 1
        _, _, order = classification_round(
            x_pool, labeled, y_pool[labeled], 10, "uncertainty_diversity", BATCH, seed=seed + round_
        )
        labeled[np.flatnonzero(~labeled)[order]] = True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--preset", default="balanced")
    args = parser.parse_args()
    from workers.progress import silent_report
    from workers.smart_labeling.features import FeatureCache, _balanced, image_features, model_embeddings
    from workers.smart_labeling.quick_model import fit_predict_proba

    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="sampan-bench-smart-model-"))
    rows = []
    try:
        pool, y = digits_pool(root)
        hand_blocks = image_features(pool["samples"], report=silent_report, cache=FeatureCache(None, ""))
        hand = _balanced(hand_blocks)
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            pool_index, test_index = stratified_split(y, TEST_SHARE, rng)
            y_pool, y_test = y[pool_index], y[test_index]
            start = np.zeros(len(pool_index), dtype=bool)
            for label in range(10):
                members = np.flatnonzero(y_pool == label)
                start[rng.choice(members, round(START_SHARE * len(members)), replace=False)] = True
            t = time.monotonic()
            result = train_model(
                pool, y, pool_index[start], root / f"run-{seed}", args.epochs, seed, args.preset
            )
            train_s = time.monotonic() - t
            model = {
                "name": "model",
                "checkpoint_path": result["model"],
                "preprocessing": result["preprocessing"],
            }
            embedding = model_embeddings(pool["samples"], model, report=silent_report)  # type: ignore[arg-type]
            both = _balanced([*hand_blocks, embedding])
            target = float(
                (
                    fit_predict_proba(hand[pool_index], y_pool, hand[test_index], 10, seed=seed).argmax(1)
                    == y_test
                ).mean()
            )
            row = {
                "seed": seed,
                "target": target,
                "train_s": train_s,
                "model_val": result["metrics"]["best_val_acc"],
            }
            for name, x in (("hand", hand), ("model", both)):
                share, first = labels_needed(
                    x[pool_index], y_pool, x[test_index], y_test, start, target, seed
                )
                row[name] = share
                row[f"{name}_first"] = first
            print(row, file=sys.stderr)
            rows.append(row)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def mean(key: str) -> str:
        values = [r[key] for r in rows]
        if any(v is None for v in values):
            return "not reached"
        return f"{100 * float(np.mean(values)):.1f} %"

    print(
        f"With the platform's own model ({len(rows)} seeds, `benchmarks/smart_labeling_model.py "
        f"--preset {args.preset} --epochs {args.epochs}`, {time.monotonic() - started:.0f} s): a "
        f"{args.preset}-preset classifier trained {args.epochs} epochs on "
        f"{100 * START_SHARE:.0f} % of the digits pool's labels (its validation accuracy "
        f"{np.mean([r['model_val'] for r in rows]):.2f}, "
        f"{np.mean([r['train_s'] for r in rows]):.0f} s to train); "
        f"from those labels the quick model scores {100 * np.mean([r['hand_first'] for r in rows]):.1f} % on "
        f"the test set with the hand-made image features and "
        f"{100 * np.mean([r['model_first'] for r in rows]):.1f} % with the model's embedding added; "
        f"labels needed to come within 1 point of the all-labels accuracy "
        f"({100 * np.mean([r['target'] for r in rows]):.1f} %): {mean('hand')} of the pool without the "
        f"model, {mean('model')} with it."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
