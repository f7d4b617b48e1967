"""The quality report's mislabel finder on digits with 5 % flipped labels, with and without the
embedding of a model trained on those noisy labels (balanced preset, 8 epochs, 85/15 split). One
seed; prints the flagged count and how many true flips are among them.

    .venv/bin/python benchmarks/label_noise_model.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO)]


def main() -> int:
    from smart_labeling import digits_pool

    from workers.data_quality import run
    from workers.image_classification.trainer import train
    from workers.progress import silent_report

    root = Path(tempfile.mkdtemp(prefix="sampan-bench-noise-model-"))
    try:
        pool, y = digits_pool(root)
        rng = np.random.default_rng(0)
        flip = rng.choice(len(y), round(0.05 * len(y)), replace=False)
        noisy = y.copy()
        noisy[flip] = (y[flip] + rng.integers(1, 10, len(flip))) % 10
        for sample, label in zip(pool["samples"], noisy, strict=True):
            sample["label"] = int(label)
        val = set(rng.choice(len(y), 270, replace=False).tolist())
        manifest = {
            "classes": pool["classes"],
            "samples": [
                {"path": s["image_path"], "label": int(noisy[i]), "split": "val" if i in val else "train"}
                for i, s in enumerate(pool["samples"])
            ],
        }
        started = time.time()
        spec = {"preset": "balanced", "image_size": 32, "epochs": 8, "horizontal_flip": False}
        result = train(spec, manifest, root / "run", silent_report)
        accuracy = result["metrics"]["best_val_acc"]
        print(f"trained in {time.time() - started:.0f} s, val accuracy {accuracy:.3f}")
        model = {"name": "m", "checkpoint_path": result["model"], "preprocessing": result["preprocessing"]}
        for name, given in (("without the model", None), ("with the model", model)):
            found = run(pool, {}, work_dir=root, report=silent_report, model=given)  # type: ignore[arg-type]
            flagged = next(f for f in found["findings"] if f["code"] == "likely_mislabeled")["sample_ids"]
            hits = len(set(flagged) & set(flip.tolist()))
            print(f"{name}: {len(flagged)} flagged, {hits} of the {len(flip)} flipped labels among them")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
