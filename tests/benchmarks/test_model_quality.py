"""The model-quality benchmark's framework and tabular section (benchmarks/quality): the datasets
build offline in the tabular contract, the split is stratified and deterministic, the runner trains
a preset through the template's entry points and a baseline on the same split, and the docs writer
rewrites only the region between its markers."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchmarks import model_quality
from benchmarks.quality import core, tabular

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    root = tmp_path_factory.mktemp("tabular")
    return {d.name: (d, d.build(root / d.name)) for d in tabular.DATASETS}


def test_every_tabular_dataset_builds_offline_in_the_tabular_contract(manifests):
    names = set(manifests)
    # the real tables the issue names, statsmodels' among them, and the synthetic ones
    assert {"iris", "wine", "breast_cancer", "digits_table", "diabetes", "linnerud"} <= names
    assert {"anes96", "fair", "spector", "star98", "randhie", "longley", "stackloss"} <= names
    assert {"synthetic_classification", "synthetic_regression"} <= names
    for name, (dataset, manifest) in manifests.items():
        assert manifest["kind"] == "tabular" and manifest["version"] == 1, name
        regression = dataset.template == "tabular_regression"
        assert manifest["task"] == ("regression" if regression else "classification"), name
        assert dataset.source and "\n" not in dataset.source
        columns = {c["name"]: c["type"] for c in manifest["columns"]}
        assert manifest["target"] not in columns, name
        assert set(columns.values()) <= {"numeric", "categorical", "datetime"}, name
        for sample in manifest["samples"]:
            assert set(sample["values"]) == set(columns), name
            for column, value in sample["values"].items():
                kind = columns[column]
                assert value is None or isinstance(value, float if kind == "numeric" else str), (name, column)
            if regression:
                assert math.isfinite(sample["target"]) and "label" not in sample
            else:
                assert 0 <= sample["label"] < len(manifest["classes"])
        if not regression:  # every class present
            assert len({s["label"] for s in manifest["samples"]}) == len(manifest["classes"]), name

    _, iris = manifests["iris"]
    assert (len(iris["samples"]), len(iris["columns"]), iris["classes"]) == (
        150,
        4,
        ["setosa", "versicolor", "virginica"],
    )
    _, digits = manifests["digits_table"]
    assert (len(digits["samples"]), len(digits["columns"]), len(digits["classes"])) == (1797, 64, 10)
    _, linnerud = manifests["linnerud"]
    assert linnerud["target"] == "Waist" and len(linnerud["samples"]) == 20
    _, anes = manifests["anes96"]
    assert anes["classes"] == ["Clinton", "Dole"]
    assert {c["name"]: c["type"] for c in anes["columns"]}["PID"] == "categorical"
    for name in ("synthetic_classification", "synthetic_regression"):
        _, synthetic = manifests[name]
        kinds = Counter(c["type"] for c in synthetic["columns"])
        assert kinds["categorical"] == 2 and kinds["datetime"] == 1
        cells = [v for s in synthetic["samples"] for v in s["values"].values()]
        missing = sum(v is None for v in cells) / len(synthetic["samples"])
        assert 0.5 < missing < 1.0  # 10-20 % of five columns' cells
        dates = [s["values"]["signup"] for s in synthetic["samples"] if s["values"]["signup"]]
        assert all(len(d) == 10 and d[4] == "-" for d in dates)


def test_split_is_stratified_deterministic_and_keeps_a_train_sample_per_class():
    labels = [0] * 50 + [1] * 30 + [2] * 3
    manifest = {
        "classes": ["a", "b", "c"],
        "samples": [{"id": i, "label": y, "split": "train"} for i, y in enumerate(labels)],
    }
    first, again, other = core.split(manifest, 0), core.split(manifest, 0), core.split(manifest, 1)
    assert [s["split"] for s in first["samples"]] == [s["split"] for s in again["samples"]]
    assert [s["split"] for s in first["samples"]] != [s["split"] for s in other["samples"]]
    counts = Counter((s["label"], s["split"]) for s in first["samples"])
    assert (counts[0, "test"], counts[0, "val"], counts[0, "train"]) == (10, 10, 30)
    assert (counts[1, "test"], counts[1, "val"], counts[1, "train"]) == (6, 6, 18)
    assert counts[2, "train"] >= 1 and counts[2, "test"] == 1
    assert manifest["samples"][0]["split"] == "train"  # the input is not changed
    regression = {"classes": [], "samples": [{"target": float(i), "split": "train"} for i in range(20)]}
    assert Counter(s["split"] for s in core.split(regression, 3)["samples"]) == {
        "train": 12,
        "val": 4,
        "test": 4,
    }
    with pytest.raises(ValueError, match="test \\+ val < 1"):
        core.split(manifest, 0, test=0.5, val=0.5)


def test_split_keeps_each_group_in_one_split_and_stratifies_by_group():
    # 40 documents of 1-4 paragraphs each, two topics: a document's paragraphs never straddle splits
    samples = []
    for document in range(40):
        for _ in range(1 + document % 4):
            samples.append({"label": document % 2, "group": f"doc{document}", "split": "train"})
    samples.append({"label": 1, "split": "train"})  # no group: a group of its own
    manifest = {"classes": ["a", "b"], "samples": samples}
    first = core.split(manifest, 0)
    assert first == core.split(manifest, 0)
    where: dict[str, set[str]] = {}
    for sample in first["samples"]:
        where.setdefault(sample.get("group", "none"), set()).add(sample["split"])
    assert all(len(splits) == 1 for splits in where.values())
    counts = Counter((s["label"], s["split"]) for s in first["samples"])
    for label in (0, 1):
        total = sum(n for (y, _), n in counts.items() if y == label)
        assert counts[label, "train"] >= total // 2 and counts[label, "test"] >= total // 6


def _blind_baseline(seen: list[dict]) -> core.Baseline:
    def fit_predict(manifest: dict, seed: int) -> np.ndarray:
        seen.append(manifest)
        test = [s for s in manifest["samples"] if s["split"] == "test"]
        assert all("label" not in s for s in test)
        train = [s["label"] for s in manifest["samples"] if s["split"] in ("train", "val")]
        return np.full(len(test), Counter(train).most_common(1)[0][0])

    return core.Baseline("majority", "the most frequent class", ("tabular_classification",), fit_predict)


def test_runner_trains_the_fast_preset_and_baselines_on_the_same_split(tmp_path):
    iris = next(d for d in tabular.DATASETS if d.name == "iris")
    linear = next(b for b in tabular.BASELINES if b.name == "linear_cv")
    seen: list[dict] = []
    lines: list[str] = []
    results = core.run(
        "tabular",
        [iris],
        [linear, _blind_baseline(seen)],
        presets=("fast", "no_such_preset"),
        seeds=(0,),
        progress=lines.append,
    )
    records = {r["entry"]: r for r in results["records"]}
    assert set(records) == {"fast", "linear_cv", "majority"}
    assert all(r["error"] is None for r in records.values()), [r["error"] for r in records.values()]
    fast = records["fast"]
    assert fast["kind"] == "preset" and fast["metric"] == "accuracy"
    assert fast["values"]["preset"] == "fast" and fast["values"]["seed"] == 0
    assert fast["recommend"].startswith(("recommend", "validate_params"))
    assert 0.8 <= fast["score"] <= 1.0 and fast["seconds"] > 0
    assert records["linear_cv"]["score"] >= 0.8
    # the majority class of a stratified iris split: one third of the 30 test rows
    assert records["majority"]["score"] == pytest.approx(1 / 3)
    assert len(seen) == 1 and Counter(s["split"] for s in seen[0]["samples"]) == {
        "train": 90,
        "val": 30,
        "test": 30,
    }
    assert any("no preset no_such_preset" in line for line in lines)
    assert sum(line.startswith("[") for line in lines) == 3 and lines[-1].startswith("[3/3] iris seed 0")
    json.dumps(results)  # the results file is JSON

    cells = {c.entry: c for c in core.summary(results)}
    assert cells["fast"].mean == fast["score"] and cells["fast"].std == 0.0
    assert core.targets(results) == []  # no balanced preset ran: nothing to judge


def _results(section: str, scores: dict[str, list[float]], template: str = "tabular_classification") -> dict:
    records = []
    for entry, values in scores.items():
        kind = "baseline" if entry in ("hist_gbdt", "linear_cv") else "preset"
        for seed, score in enumerate(values):
            records.append(
                {
                    "dataset": "wine",
                    "template": template,
                    "seed": seed,
                    "kind": kind,
                    "entry": entry,
                    "metric": "accuracy",
                    "score": score,
                    "metrics": {"accuracy": score, "macro_f1": score},
                    "seconds": 2.0 if entry == "fast" else 10.0,
                    "error": None,
                }
            )
    return {
        "kind": "model_quality",
        "version": 1,
        "section": section,
        "environment": {"measured": "2026-12-05 11:00 UTC", "cpu": "test CPU", "cores": 2, "load": 1.0},
        "wall_seconds": 60.0,
        "presets": ["fast", "balanced", "accurate"],
        "seeds": [0, 1, 2],
        "split": {"test": 0.2, "val": 0.2},
        "datasets": [
            {"name": "wine", "template": template, "source": "sklearn wine", "samples": 178, "classes": 3}
        ],
        "baselines": [{"name": "hist_gbdt", "title": "HGB", "templates": [template]}],
        "records": records,
    }


def test_targets_compare_balanced_with_the_best_baseline_within_one_std():
    met = _results(
        "tabular",
        {
            "balanced": [0.95, 0.96, 0.94],
            "accurate": [0.96, 0.95, 0.95],
            "fast": [0.9] * 3,
            "hist_gbdt": [0.96, 0.94, 0.98],
        },
    )
    verdicts = {t.name: t for t in core.targets(met)}
    assert verdicts["balanced vs best baseline"].met is True  # 0.95 >= 0.96 - 0.02
    assert verdicts["accurate vs balanced"].met is True
    assert verdicts["mean over datasets"].met is False  # 0.95 is not above 0.96
    assert verdicts["fast trade"].met is None and "0.20x" in verdicts["fast trade"].text
    missed = _results(
        "tabular",
        {"balanced": [0.90, 0.91, 0.89], "accurate": [0.80, 0.81, 0.79], "hist_gbdt": [0.96, 0.95, 0.97]},
    )
    verdicts = {t.name: t for t in core.targets(missed)}
    assert verdicts["balanced vs best baseline"].met is False
    assert verdicts["accurate vs balanced"].met is False


def test_docs_writer_rewrites_only_the_region_between_the_markers(tmp_path):
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    scores = {"fast": [0.9, 0.92, 0.91], "balanced": [0.95, 0.96, 0.94], "hist_gbdt": [0.93, 0.94, 0.95]}
    (results_dir / "tabular.json").write_text(json.dumps(_results("tabular", scores)))
    templates_md, benchmarks_md = tmp_path / "templates.md", tmp_path / "benchmarks.md"
    templates_md.write_text((REPO / "docs" / "templates.md").read_text())
    benchmarks_md.write_text((REPO / "docs" / "benchmarks.md").read_text())
    before = templates_md.read_text()
    argv = [
        "--write-docs",
        "--results",
        str(results_dir),
        "--templates-md",
        str(templates_md),
        "--benchmarks-md",
        str(benchmarks_md),
    ]
    assert model_quality.main(argv) == 0
    text = templates_md.read_text()
    begin, end = text.index(core.TEMPLATES_BEGIN), text.index(core.TEMPLATES_END)
    region = text[begin:end]
    assert "| dataset (samples) | fast | balanced | hist_gbdt |" in region
    assert (
        "| wine (178) | 0.910 ± 0.010<br>2.0 s | **0.950 ± 0.010**<br>10 s | 0.940 ± 0.010<br>10 s |"
        in region
    )
    assert "wine, balanced vs best baseline: met" in region
    assert "all datasets, mean over datasets: met" in region
    # everything outside the markers is as it was
    outside = text[:begin] + text[end:]
    kept = before.split(core.TEMPLATES_BEGIN)[0] if core.TEMPLATES_BEGIN in before else before.rstrip()
    assert outside.startswith(kept)
    section = benchmarks_md.read_text()
    assert section.count(core.BENCHMARKS_BEGIN) == 1 and "## Model quality" in section
    assert (
        "| tabular | tabular_classification | 1 / 1 | 0.950 | 0.940 | 1 of 1 | n/a | "
        "-0.040, 0.20x the time (median) |" in section
    )
    # a second run replaces the region instead of adding another
    assert model_quality.main(argv) == 0
    assert templates_md.read_text() == text and benchmarks_md.read_text() == section


def test_cli_names_an_unknown_dataset(capsys):
    with pytest.raises(SystemExit):
        model_quality.main(["--section", "tabular", "--datasets", "iris,no_such_table"])
    assert "unknown dataset(s) no_such_table" in capsys.readouterr().err


def test_merge_replaces_redone_runs_and_keeps_the_others():
    earlier = _results("text", {"balanced": [0.9, 0.91, 0.92], "hist_gbdt": [0.8, 0.81, 0.82]})
    again = _results("text", {"balanced": [0.95]})
    merged = core.merge(earlier, again)
    scores = {(r["entry"], r["seed"]): r["score"] for r in merged["records"]}
    assert scores == {
        ("balanced", 0): 0.95,
        ("balanced", 1): 0.91,
        ("balanced", 2): 0.92,
        ("hist_gbdt", 0): 0.8,
        ("hist_gbdt", 1): 0.81,
        ("hist_gbdt", 2): 0.82,
    }
    assert merged["merged"] is True and merged["seeds"] == [0, 1, 2]
