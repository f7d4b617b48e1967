"""Test-split metrics of the tabular and text templates on the real data sets, for docs/templates.md.

Run: ``nice -n 10 .venv/bin/python -m tests.templates_tabular.measure_templates`` (minutes on a CPU).
Splits: seeded 70/15/15 per sample (seed 0); every preset at its defaults unless noted.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time

from tests.templates_tabular.tables import frame
from tests.templates_text.corpus import stdlib_docstrings


def tabular_manifest(name: str, task: str) -> dict:
    data = frame(name)
    columns = [c for c in data.columns if c != "target"]
    classes = sorted(data["target"].unique()) if task == "classification" else []
    rng = random.Random(0)
    samples = []
    for i, row in data.iterrows():
        sample = {
            "id": i,
            "split": rng.choices(["train", "val", "test"], [0.7, 0.15, 0.15])[0],
            "values": {c: float(row[c]) for c in columns},
        }
        if task == "classification":
            sample["label"] = classes.index(row["target"])
        else:
            sample["target"] = float(row["target"])
        samples.append(sample)
    return {
        "kind": "tabular",
        "task": task,
        "columns": [{"name": c, "type": "numeric"} for c in columns],
        "target": "target",
        "classes": classes,
        "samples": samples,
    }


def text_manifest() -> dict:
    pairs = stdlib_docstrings()
    classes = sorted({area for _, area in pairs})
    rng = random.Random(0)
    return {
        "kind": "text",
        "classes": classes,
        "samples": [
            {
                "id": i,
                "text": text,
                "label": classes.index(area),
                "split": rng.choices(["train", "val", "test"], [0.7, 0.15, 0.15])[0],
            }
            for i, (text, area) in enumerate(pairs)
        ],
    }


def main(which: list[str]) -> None:
    from workers.tabular.evaluation import evaluate as evaluate_tabular
    from workers.tabular.trainer import train as train_tabular
    from workers.text_classification.evaluation import evaluate as evaluate_text
    from workers.text_classification.trainer import train as train_text

    runs = []
    if "tabular" in which:
        for name, task in (
            ("breast_cancer", "classification"),
            ("wine", "classification"),
            ("diabetes", "regression"),
        ):
            runs += [(name, task, preset, {}) for preset in ("fast", "balanced", "neural")]
    if "text" in which:
        runs += [
            ("stdlib_docstrings", "text", preset, extra)
            for preset, extra in (("fast", {}), ("balanced", {}), ("accurate", {}))
        ]
    for name, task, preset, extra in runs:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as out:
            if task == "text":
                manifest = text_manifest()
                result = train_text({"preset": preset, **extra}, manifest, out)
                report = evaluate_text(result["onnx"], manifest, preprocessing=result["preprocessing"])
                headline = {"accuracy": report["accuracy"], "macro_f1": report["macro"]["f1"]}
            else:
                manifest = tabular_manifest(name, task)
                result = train_tabular({"preset": preset, **extra}, manifest, out)
                report = evaluate_tabular(result["onnx"], manifest, preprocessing=result["preprocessing"])
                headline = report["headline"]
                headline = {k: v for k, v in headline.items() if k != "top_k_accuracy"}
        figures = ", ".join(f"{k} {v:.3f}" for k, v in headline.items())
        print(
            f"| {name} | {preset} ({result['params']['model']}) | {report['samples']} | {figures} | "
            f"{time.monotonic() - started:.0f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["tabular", "text"])
