"""The model-quality framework: datasets, baselines, one split per (dataset, seed), the runner, the
summary over seeds, the targets of issue 19 and the docs writer.

A section (``benchmarks/quality/{tabular,text,images}.py``) exports ``DATASETS`` (:class:`Dataset`)
and ``BASELINES`` (:class:`Baseline`). For each dataset and seed the runner draws one split
(:func:`split`), then trains and evaluates each preset exactly as the platform does
(``recommend()`` for the values, the template's ``train`` then ``evaluate`` entry points on the
exported ONNX model, in a temporary directory) and runs each baseline's ``fit_predict`` on the same
split; every run becomes a record (score, seconds, the preset's applied values, its
cross-validation mean and std when the trainer cross-validated).

e.g.::

    from benchmarks.quality import core, tabular
    results = core.run("tabular", tabular.DATASETS[:1], tabular.BASELINES, presets=("fast",), seeds=(0,))
    core.summary(results)  # mean ± std over seeds per dataset x preset/baseline
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import platform as stdlib_platform
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.templates import DataProfile

RESULTS_VERSION = 1
REGRESSION_TEMPLATES = ("tabular_regression",)
TEMPLATES_BEGIN, TEMPLATES_END = "<!-- model-quality:begin -->", "<!-- model-quality:end -->"
BENCHMARKS_BEGIN, BENCHMARKS_END = "<!-- model_quality:start -->", "<!-- model_quality:end -->"
COMMAND = "nice -n 5 .venv/bin/python -m benchmarks.model_quality --section {section} --seeds 3"


@dataclass(frozen=True)
class Dataset:
    """One benchmark dataset. ``build(dir)`` writes what it needs under ``dir`` (image files, ...)
    and returns a dataset-version manifest (``workers.contracts.manifest``); the runner overwrites
    every sample's ``split``."""

    name: str  # "wine"
    template: str  # the template it trains, e.g. "tabular_classification"
    source: str  # one line for the docs: where the data comes from (offline)
    build: Callable[[Path], dict[str, Any]]


@dataclass(frozen=True)
class Baseline:
    """A strong classical method. ``fit_predict(split_manifest, seed)`` fits on the train and val
    samples only (it may tune by internal cross-validation on them) and returns its predictions for
    the manifest's test samples in manifest order: class indices (classification) or values
    (regression). It never looks at the test labels or targets."""

    name: str  # "hist_gbdt"
    title: str  # "scikit-learn HistGradientBoosting"
    templates: tuple[str, ...]
    fit_predict: Callable[[dict[str, Any], int], np.ndarray]


def is_regression(template: str) -> bool:
    return template in REGRESSION_TEMPLATES


def metric_of(template: str) -> str:
    """The score the targets compare: r2 for regression (higher is better), else accuracy."""
    return "r2" if is_regression(template) else "accuracy"


# ---------------------------------------------------------------------------------------------- split


def _round(x: float) -> int:
    return int(math.floor(x + 0.5))


def split(manifest: Mapping[str, Any], seed: int, *, test: float = 0.2, val: float = 0.2) -> dict[str, Any]:
    """A copy of ``manifest`` with every sample's ``split`` drawn afresh: ``test`` and ``val`` shares,
    the rest train. Stratified by class when the manifest has classes (each class split in the same
    shares, at least one train sample per class); deterministic for a ``seed``, so every preset and
    baseline of one (dataset, seed) sees the same split. Samples that share a ``group`` (e.g. the
    paragraphs of one document) go to the same split (:func:`_grouped`).

    >>> m = {"classes": ["a", "b"], "samples": [{"label": i % 2, "split": "train"} for i in range(10)]}
    >>> [s["split"] for s in split(m, 0)["samples"]].count("test")
    2
    """
    if not (0 < test < 1 and 0 <= val < 1 and test + val < 1):
        raise ValueError(f"split shares must satisfy 0 < test, 0 <= val, test + val < 1; got {test}, {val}")
    samples = list(manifest["samples"])
    if not samples:
        raise ValueError("the manifest has no samples to split")
    rng = np.random.default_rng(seed)
    stratified = bool(manifest.get("classes"))
    if any("group" in s for s in samples):
        names = _grouped(samples, rng, stratified, test, val)
    else:
        strata: dict[int, list[int]] = {}
        for index, sample in enumerate(samples):
            strata.setdefault(int(sample["label"]) if stratified else 0, []).append(index)
        names = [""] * len(samples)
        for key in sorted(strata):
            members = rng.permutation(np.asarray(strata[key]))
            n = len(members)
            n_test, n_val = _round(test * n), _round(val * n)
            while n_test + n_val > n - 1 and n_val > 0:  # keep a train sample per class
                n_val -= 1
            while n_test + n_val > n - 1 and n_test > 0:
                n_test -= 1
            for position, index in enumerate(members):
                names[int(index)] = (
                    "test" if position < n_test else "val" if position < n_test + n_val else "train"
                )
    return {**manifest, "samples": [{**s, "split": name} for s, name in zip(samples, names, strict=True)]}


def _grouped(
    samples: Sequence[Mapping[str, Any]], rng: np.random.Generator, stratified: bool, test: float, val: float
) -> list[str]:
    """Whole groups (a sample's ``group``; a sample without one is its own) to one split each,
    stratified by the group's most common label: per stratum the groups in a seeded order fill test,
    then val, up to their shares of the stratum's samples; the rest train (at least one group)."""
    groups: dict[str, list[int]] = {}
    for index, sample in enumerate(samples):
        groups.setdefault(str(sample["group"]) if "group" in sample else f"\0{index}", []).append(index)
    strata: dict[int, list[str]] = {}
    for key, members in groups.items():
        label = Counter(int(samples[i]["label"]) for i in members).most_common(1)[0][0] if stratified else 0
        strata.setdefault(label, []).append(key)
    names = [""] * len(samples)
    for label in sorted(strata):
        keys = [strata[label][int(i)] for i in rng.permutation(len(strata[label]))]
        n = sum(len(groups[k]) for k in keys)
        want = {"test": _round(test * n), "val": _round(val * n)}
        taken = {"test": 0, "val": 0}
        for position, key in enumerate(keys):
            left = len(keys) - position  # this group and those after it
            name = "train"
            for candidate in ("test", "val"):
                if taken[candidate] < want[candidate] and left > 1:
                    name = candidate
                    break
            if name != "train":
                taken[name] += len(groups[key])
            for index in groups[key]:
                names[index] = name
    return names


def _of_split(manifest: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    return [s for s in manifest["samples"] if s["split"] == name]


def data_profile(manifest: Mapping[str, Any]) -> DataProfile:
    """What ``recommend()`` adapts to (``DataProfile``): train + val samples, classes, table features."""
    profile: DataProfile = {
        "train_samples": sum(1 for s in manifest["samples"] if s["split"] in ("train", "val")),
        "classes": len(manifest.get("classes") or []),
    }
    if manifest.get("kind") == "tabular":
        profile["features"] = len(manifest["columns"])
    return profile


# ---------------------------------------------------------------------------------------------- scores


def test_truth(manifest: Mapping[str, Any], template: str) -> np.ndarray:
    """The test split's labels (classification) or targets (regression), in manifest order."""
    key = "target" if is_regression(template) else "label"
    dtype = np.float64 if is_regression(template) else np.int64
    return np.asarray([s[key] for s in _of_split(manifest, "test")], dtype=dtype)


def score_predictions(
    template: str, classes: Sequence[str], truth: np.ndarray, predicted: np.ndarray
) -> dict[str, float]:
    """A baseline's metrics, computed as the templates' reports compute them."""
    predicted = np.asarray(predicted)
    if predicted.shape[0] != truth.shape[0]:
        raise ValueError(f"{predicted.shape[0]} predictions for {truth.shape[0]} test samples")
    if is_regression(template):
        y_pred = predicted.astype(np.float64).reshape(-1)
        residual = y_pred - truth
        total = float(np.sum((truth - truth.mean()) ** 2))
        return {
            "mae": float(np.mean(np.abs(residual))),
            "rmse": float(np.sqrt(np.mean(residual**2))),
            "r2": 1.0 - float(np.sum(residual**2)) / total if total > 0 else 0.0,
        }
    from workers.shared.classification_metrics import classification_metrics

    labels = predicted.astype(np.int64).reshape(-1)
    one_hot = np.zeros((len(labels), len(classes)), dtype=np.float32)
    one_hot[np.arange(len(labels)), labels] = 1.0
    scores = classification_metrics(truth, one_hot, list(classes))
    return {"accuracy": float(scores["accuracy"]), "macro_f1": float(scores["macro"]["f1"])}


def report_metrics(template: str, report: Mapping[str, Any]) -> dict[str, float]:
    if is_regression(template):
        return {k: float(report[k]) for k in ("mae", "rmse", "r2")}
    return {"accuracy": float(report["accuracy"]), "macro_f1": float(report["macro"]["f1"])}


# ---------------------------------------------------------------------------------------------- runner


def _recommended(template: Any, preset: str, data: DataProfile, seed: int) -> tuple[dict, list, str]:
    """(values, auto choices, how) for a preset: the platform's ``recommend()`` when it exists here,
    else the preset as declared (``validate_params``), said in ``how``."""
    overrides = {"seed": seed} if any(p.name == "seed" for p in template.params) else {}
    try:
        from workers.templates import recommend as recommending
    except ImportError:
        values = template.validate_params(preset, overrides)
        return values, [], "validate_params (workers.templates.recommend is not available)"
    recommendation = recommending.recommend(
        template, preset, data, recommending.cpu_hardware(), overrides=overrides
    )
    return dict(recommendation["values"]), list(recommendation["choices"]), "recommend"


def _quiet_report(*_: Any, **__: Any) -> None:
    return None


def run_preset(template_name: str, preset: str, manifest: dict[str, Any], seed: int, workdir: Path) -> dict:
    """Train and evaluate one preset on a split manifest, as ``template_train_and_evaluate`` does."""
    from workers.templates import registry

    template = registry.get(template_name)
    values, choices, how = _recommended(template, preset, data_profile(manifest), seed)
    started = time.monotonic()
    result = template.load("train")(values, manifest, workdir, _quiet_report)
    evaluation = template.load("evaluate")(
        result["onnx"], manifest, preprocessing=result["preprocessing"], report=_quiet_report
    )
    if result.get("cross_validation"):  # as the training service does
        evaluation = {**evaluation, "cross_validation": result["cross_validation"]}
    seconds = time.monotonic() - started
    record: dict[str, Any] = {
        "metrics": report_metrics(template_name, evaluation),
        "seconds": seconds,
        "values": {k: v for k, v in values.items()},
        "choices": choices,
        "recommend": how,
        "cross_validation": None,
    }
    cv = evaluation.get("cross_validation")
    if cv:
        record["cross_validation"] = {
            "method": cv.get("method"),
            "folds": cv.get("folds"),
            "metric": cv.get("metric"),
            "mean": cv.get("mean"),
            "std": cv.get("std"),
            "chosen": cv.get("chosen"),
            "candidates": [
                {"name": c["name"], "mean": c["mean"], "std": c["std"], "weight": c.get("weight")}
                for c in cv.get("candidates", [])
            ],
        }
    return record


def run_baseline(baseline: Baseline, template_name: str, manifest: dict[str, Any], seed: int) -> dict:
    # the baseline sees the test samples' features only: labels and targets are blanked
    blind = {
        **manifest,
        "samples": [
            s if s["split"] != "test" else {k: v for k, v in s.items() if k not in ("label", "target")}
            for s in manifest["samples"]
        ],
    }
    started = time.monotonic()
    predicted = baseline.fit_predict(blind, seed)
    seconds = time.monotonic() - started
    truth = test_truth(manifest, template_name)
    return {
        "metrics": score_predictions(template_name, manifest.get("classes") or [], truth, predicted),
        "seconds": seconds,
    }


def environment() -> dict[str, Any]:
    versions = {}
    for package in ("numpy", "scikit-learn", "lightgbm", "torch", "onnxruntime", "statsmodels"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    cpu = stdlib_platform.processor() or stdlib_platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "measured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": stdlib_platform.python_version(),
        "versions": versions,
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def run(
    section: str,
    datasets: Sequence[Dataset],
    baselines: Sequence[Baseline],
    *,
    presets: Sequence[str],
    seeds: Sequence[int],
    test: float = 0.2,
    val: float = 0.2,
    progress: Callable[[str], None] | None = None,
    threads: int | None = 1,
    on_dataset: Callable[[dict[str, Any]], object] | None = None,
) -> dict[str, Any]:
    """Run every preset and baseline on every dataset and seed; returns the section's results
    (``records``: one per run, failures recorded with their ``error``, not raised).

    ``threads``: the OpenMP/BLAS threads every run may use (threadpoolctl; None: the libraries'
    defaults). One by default: on a shared, loaded machine OpenMP's spinning threads slow
    HistGradientBoosting and LightGBM down by orders of magnitude, and each side gets the same.
    ``on_dataset`` is called with the results so far after each dataset (the CLI saves them)."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    with threadpool_limits(limits=threads):
        return _run(
            section,
            datasets,
            baselines,
            presets=presets,
            seeds=seeds,
            test=test,
            val=val,
            progress=progress,
            threads=threads,
            on_dataset=on_dataset,
        )


def _run(
    section: str,
    datasets: Sequence[Dataset],
    baselines: Sequence[Baseline],
    *,
    presets: Sequence[str],
    seeds: Sequence[int],
    test: float,
    val: float,
    progress: Callable[[str], None] | None,
    threads: int | None,
    on_dataset: Callable[[dict[str, Any]], object] | None,
) -> dict[str, Any]:
    from workers.templates import registry

    say = progress or (lambda line: print(line, flush=True))
    started = time.monotonic()
    plan: list[tuple[Dataset, list[str], list[Baseline]]] = []
    for dataset in datasets:
        template = registry.get(dataset.template)
        declared = {p.name for p in template.presets}
        missing = [p for p in presets if p not in declared]
        if missing:
            say(f"{dataset.name}: {dataset.template} has no preset {', '.join(missing)}; skipped")
        plan.append(
            (
                dataset,
                [p for p in presets if p in declared],
                [b for b in baselines if dataset.template in b.templates],
            )
        )
    total = sum(len(seeds) * (len(p) + len(b)) for _, p, b in plan)
    records: list[dict[str, Any]] = []
    described: list[dict[str, Any]] = []
    done = 0
    with tempfile.TemporaryDirectory(prefix="model-quality-") as tmp:
        root = Path(tmp)
        for dataset, dataset_presets, dataset_baselines in plan:
            data_dir = root / "data" / dataset.name
            data_dir.mkdir(parents=True)
            manifest = dataset.build(data_dir)
            described.append(_describe_dataset(dataset, manifest))
            metric = metric_of(dataset.template)
            for seed in seeds:
                split_manifest = split(manifest, seed, test=test, val=val)
                runs = [("preset", p) for p in dataset_presets] + [
                    ("baseline", b.name) for b in dataset_baselines
                ]
                by_name = {b.name: b for b in dataset_baselines}
                for kind, entry in runs:
                    done += 1
                    record: dict[str, Any] = {
                        "dataset": dataset.name,
                        "template": dataset.template,
                        "seed": seed,
                        "kind": kind,
                        "entry": entry,
                        "metric": metric,
                        "error": None,
                    }
                    clock = time.monotonic()
                    try:
                        if kind == "preset":
                            workdir = root / "runs" / f"{dataset.name}-{seed}-{entry}"
                            record.update(run_preset(dataset.template, entry, split_manifest, seed, workdir))
                        else:
                            record.update(
                                run_baseline(by_name[entry], dataset.template, split_manifest, seed)
                            )
                        record["score"] = record["metrics"][metric]
                        line = f"{metric} {record['score']:.3f} ({record['seconds']:.1f} s)"
                        cv = record.get("cross_validation")
                        if cv:
                            line += f", cv {cv['metric']} {cv['mean']:.3f} ± {cv['std']:.3f}"
                    except Exception as exc:  # one failed run must not lose the others
                        record.update(score=None, seconds=time.monotonic() - clock)
                        record["error"] = f"{type(exc).__name__}: {exc}"
                        line = f"FAILED {record['error']}"
                        traceback.print_exc(file=sys.stderr)
                    finally:
                        shutil.rmtree(root / "runs", ignore_errors=True)
                    records.append(record)
                    elapsed = time.monotonic() - started
                    where = f"{dataset.name} seed {seed} {entry}"
                    say(f"[{done}/{total}] {where}: {line} [{elapsed / 60:.1f} min]")
            if on_dataset is not None:  # partial results survive an interrupted run
                on_dataset(
                    _results(
                        section, presets, seeds, test, val, threads, started, described, baselines, records
                    )
                )
    return _results(section, presets, seeds, test, val, threads, started, described, baselines, records)


def _results(
    section: str,
    presets: Sequence[str],
    seeds: Sequence[int],
    test: float,
    val: float,
    threads: int | None,
    started: float,
    described: list[dict[str, Any]],
    baselines: Sequence[Baseline],
    records: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "kind": "model_quality",
        "version": RESULTS_VERSION,
        "section": section,
        "environment": {**environment(), "threads": threads},
        "wall_seconds": time.monotonic() - started,
        "presets": list(presets),
        "seeds": list(seeds),
        "split": {"test": test, "val": val},
        "datasets": list(described),
        "baselines": [{"name": b.name, "title": b.title, "templates": list(b.templates)} for b in baselines],
        "records": list(records),
    }


def _describe_dataset(dataset: Dataset, manifest: Mapping[str, Any]) -> dict[str, Any]:
    described: dict[str, Any] = {
        "name": dataset.name,
        "template": dataset.template,
        "source": dataset.source,
        "samples": len(manifest["samples"]),
        "classes": len(manifest.get("classes") or []),
    }
    if manifest.get("kind") == "tabular":
        described["features"] = len(manifest["columns"])
        described["column_types"] = {
            kind: sum(1 for c in manifest["columns"] if c["type"] == kind)
            for kind in ("numeric", "categorical", "datetime")
            if any(c["type"] == kind for c in manifest["columns"])
        }
    return described


def merge(previous: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``new``'s results plus ``previous``'s records that ``new`` did not redo: a record is replaced
    by one of the same (dataset, kind, entry, seed), so a partial rerun (``--datasets``,
    ``--presets``, baselines only with ``--presets ""``) adds to a section's file."""

    def key(record: Mapping[str, Any]) -> tuple[str, str, str, int]:
        return record["dataset"], record["kind"], record["entry"], record["seed"]

    redone = {key(r) for r in new["records"]}
    kept = [r for r in previous.get("records", []) if key(r) not in redone]
    datasets = {d["name"]: d for d in previous.get("datasets", [])}
    datasets.update({d["name"]: d for d in new["datasets"]})
    baselines = {b["name"]: b for b in [*previous.get("baselines", []), *new["baselines"]]}
    presets = list(dict.fromkeys([*previous.get("presets", []), *new["presets"]]))
    seeds = sorted({*previous.get("seeds", []), *new["seeds"]})
    return {
        **new,
        "presets": presets,
        "seeds": seeds,
        "datasets": list(datasets.values()),
        "baselines": list(baselines.values()),
        "records": kept + list(new["records"]),
        "merged": bool(kept) or bool(previous.get("merged")),
    }


# ---------------------------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class Cell:
    """One (dataset, entry) over its seeds."""

    template: str
    dataset: str
    kind: str
    entry: str
    metric: str
    runs: int
    failed: int
    mean: float | None
    std: float | None
    seconds: float
    extra: dict[str, float]  # mean of the other metrics (rmse for regression, macro_f1)
    cv_mean: float | None
    cv_std: float | None
    errors: tuple[str, ...]
    cv_metric: str = ""


def _mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    array = np.asarray(values, dtype=np.float64)
    return float(array.mean()), float(array.std(ddof=1)) if len(array) > 1 else 0.0


def summary(results: Mapping[str, Any]) -> list[Cell]:
    """Mean ± sample std over seeds per dataset x preset/baseline (failed runs counted apart)."""
    cells: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for record in results["records"]:
        cells.setdefault((record["dataset"], record["kind"], record["entry"]), []).append(record)
    out = []
    for (dataset, kind, entry), records in cells.items():
        good = [r for r in records if r.get("error") is None and r.get("score") is not None]
        mean, std = _mean_std([r["score"] for r in good])
        metric = records[0]["metric"]
        extra = {}
        for name in sorted({k for r in good for k in r["metrics"]} - {metric}):
            extra[name] = float(np.mean([r["metrics"][name] for r in good]))
        cvs = [r["cross_validation"]["mean"] for r in good if r.get("cross_validation")]
        cv_stds = [r["cross_validation"]["std"] for r in good if r.get("cross_validation")]
        out.append(
            Cell(
                template=records[0]["template"],
                dataset=dataset,
                kind=kind,
                entry=entry,
                metric=metric,
                runs=len(records),
                failed=len(records) - len(good),
                mean=mean,
                std=std,
                seconds=float(np.mean([r["seconds"] for r in records])),
                extra=extra,
                cv_mean=float(np.mean(cvs)) if cvs else None,
                cv_std=float(np.mean(cv_stds)) if cv_stds else None,
                errors=tuple(sorted({str(r["error"]) for r in records if r.get("error")})),
                cv_metric=next(
                    (r["cross_validation"]["metric"] for r in good if r.get("cross_validation")), ""
                ),
            )
        )
    return out


# ---------------------------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    """One target check: ``met`` None when it cannot be judged (a run missing or failed)."""

    template: str
    dataset: str | None  # None: over all the template's datasets
    name: str  # "balanced vs best baseline", "mean over datasets", "accurate vs balanced", "fast trade"
    met: bool | None
    text: str


def _by(cells: Iterable[Cell]) -> dict[str, dict[str, dict[str, Cell]]]:
    """{template: {dataset: {entry: cell}}} (presets by name, baselines by ``baseline:<name>``)."""
    out: dict[str, dict[str, dict[str, Cell]]] = {}
    for cell in cells:
        key = cell.entry if cell.kind == "preset" else f"baseline:{cell.entry}"
        out.setdefault(cell.template, {}).setdefault(cell.dataset, {})[key] = cell
    return out


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def targets(results: Mapping[str, Any]) -> list[Target]:
    """Issue 19's targets per template: on each dataset ``balanced`` >= the best baseline's mean
    minus that baseline's std over seeds; over the datasets the mean of ``balanced`` > the mean of
    each dataset's best baseline; ``accurate`` >= ``balanced`` minus noise (noise: the larger of the
    two presets' std over seeds); ``fast``: its score and time against balanced (a statement, not a
    pass/fail)."""
    found: list[Target] = []
    for template, by_dataset in _by(summary(results)).items():
        balanced_means: list[float] = []
        best_means: list[float] = []
        for dataset, entries in by_dataset.items():
            baselines = [c for k, c in entries.items() if k.startswith("baseline:") and c.mean is not None]
            balanced = entries.get("balanced")
            best = max(baselines, key=lambda c: c.mean or 0.0) if baselines else None
            if balanced is not None and best is not None:
                if balanced.mean is None:
                    found.append(
                        Target(template, dataset, "balanced vs best baseline", None, "balanced failed")
                    )
                else:
                    assert best.mean is not None and best.std is not None
                    floor = best.mean - best.std
                    met = balanced.mean >= floor
                    found.append(
                        Target(
                            template,
                            dataset,
                            "balanced vs best baseline",
                            met,
                            f"balanced {_fmt(balanced.mean)} {'>=' if met else '<'} {best.entry} "
                            f"{_fmt(best.mean)} - 1 std {_fmt(best.std)} = {_fmt(floor)}",
                        )
                    )
                    balanced_means.append(balanced.mean)
                    best_means.append(best.mean)
            accurate = entries.get("accurate")
            if accurate is not None and balanced is not None:
                if accurate.mean is None or balanced.mean is None:
                    found.append(Target(template, dataset, "accurate vs balanced", None, "a run failed"))
                else:
                    noise = max(accurate.std or 0.0, balanced.std or 0.0)
                    met = accurate.mean >= balanced.mean - noise
                    found.append(
                        Target(
                            template,
                            dataset,
                            "accurate vs balanced",
                            met,
                            f"accurate {_fmt(accurate.mean)} {'>=' if met else '<'} balanced "
                            f"{_fmt(balanced.mean)} - noise {_fmt(noise)}",
                        )
                    )
            fast = entries.get("fast")
            if (
                fast is not None
                and balanced is not None
                and fast.mean is not None
                and balanced.mean is not None
            ):
                ratio = fast.seconds / balanced.seconds if balanced.seconds > 0 else float("nan")
                found.append(
                    Target(
                        template,
                        dataset,
                        "fast trade",
                        None,
                        f"fast {_fmt(fast.mean)} vs balanced {_fmt(balanced.mean)} "
                        f"({fast.mean - balanced.mean:+.3f}) in {ratio:.2f}x balanced's time",
                    )
                )
        if balanced_means:
            mean_balanced, mean_best = float(np.mean(balanced_means)), float(np.mean(best_means))
            met = mean_balanced > mean_best
            found.append(
                Target(
                    template,
                    None,
                    "mean over datasets",
                    met,
                    f"balanced {_fmt(mean_balanced)} {'>' if met else '<='} best baseline per dataset "
                    f"{_fmt(mean_best)} (mean over {len(balanced_means)} datasets)",
                )
            )
    return found


# ---------------------------------------------------------------------------------------------- docs


TEMPLATE_TITLES = {
    "tabular_classification": "Tabular classification (test accuracy)",
    "tabular_regression": "Tabular regression (test R²; RMSE below it)",
    "text_classification": "Text classification (test accuracy)",
    "image_classification": "Image classification (test accuracy)",
}


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def _cell_text(cell: Cell | None, best: bool) -> str:
    if cell is None:
        return ""
    if cell.mean is None:
        return f"failed ({cell.failed}/{cell.runs})"
    text = f"{cell.mean:.3f} ± {cell.std or 0.0:.3f}"
    if best:
        text = f"**{text}**"
    parts = [text]
    if "rmse" in cell.extra and cell.metric == "r2":
        parts.append(f"rmse {cell.extra['rmse']:.3g}")
    if cell.cv_mean is not None:
        parts.append(f"cv {cell.cv_metric} {cell.cv_mean:.3g}".replace("  ", " "))
    parts.append(_seconds(cell.seconds))
    if cell.failed:
        parts.append(f"{cell.failed} of {cell.runs} failed")
    return "<br>".join(parts[:1] + [", ".join(parts[1:])])


def render_tables(all_results: Sequence[Mapping[str, Any]]) -> str:
    """The docs/templates.md table region: per template, rows datasets, columns presets then
    baselines, cells mean ± std over seeds and mean seconds; then the targets, met or not."""
    lines: list[str] = []
    for results in all_results:
        env = results["environment"]
        cells = summary(results)
        by_template = _by(cells)
        titles = {b["name"]: b["title"] for b in results["baselines"]}
        sources = {d["name"]: d for d in results["datasets"]}
        lines.append(f"### {results['section'].capitalize()} section")
        lines.append("")
        seeds, shares = results["seeds"], results["split"]
        minutes = sum(r["seconds"] or 0.0 for r in results["records"]) / 60
        lines.append(
            f"Measured {env['measured']} on {env['cpu']}, {env['cores']} cores (shared; 1-minute load "
            f"{env['load']:.1f} at the end), {len(seeds)} seeds ({', '.join(map(str, seeds))}); "
            f"per seed one stratified split, {1 - shares['test'] - shares['val']:.0%} train / "
            f"{shares['val']:.0%} val / {shares['test']:.0%} test, the same for every "
            f"preset and baseline. The runs took {minutes:.0f} min in all. Command: "
            f"`{COMMAND.format(section=results['section'])}`."
        )
        lines.append("")
        for template, by_dataset in by_template.items():
            presets = [p for p in results["presets"] if any(p in e for e in by_dataset.values())]
            baseline_keys = sorted(
                {k for e in by_dataset.values() for k in e if k.startswith("baseline:")},
                key=lambda k: [b["name"] for b in results["baselines"]].index(k.split(":", 1)[1]),
            )
            lines.append(f"#### {TEMPLATE_TITLES.get(template, template)}")
            lines.append("")
            header = ["dataset (samples)", *presets, *[k.split(":", 1)[1] for k in baseline_keys]]
            lines.append("| " + " | ".join(header) + " |")
            lines.append("| --- |" + " ---: |" * (len(header) - 1))
            for dataset, entries in by_dataset.items():
                columns = [*presets, *baseline_keys]
                means = [m for c in columns if c in entries and (m := entries[c].mean) is not None]
                top = max(means) if means else None
                row = [f"{dataset} ({sources.get(dataset, {}).get('samples', '?')})"]
                for column in columns:
                    cell = entries.get(column)
                    row.append(
                        _cell_text(cell, cell is not None and cell.mean is not None and cell.mean == top)
                    )
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
            lines.append(
                "Baselines: "
                + "; ".join(
                    f"`{k.split(':', 1)[1]}`: {titles.get(k.split(':', 1)[1], '')}" for k in baseline_keys
                )
                + ". Cells: mean ± sample std over seeds (best in bold), then the mean of the "
                "trainer's cross-validation score where it cross-validated (`cv`, in the metric it "
                "chose by) and the mean seconds per run (train + evaluate for presets, fit + predict "
                "for baselines)."
            )
            lines.append("")
            checks = [t for t in targets(results) if t.template == template]
            for target in checks:
                where = target.dataset or "all datasets"
                verdict = "met" if target.met else "NOT met" if target.met is False else "—"
                lines.append(
                    f"- {where}, {target.name}: {verdict if target.met is not None else ''}"
                    f"{' — ' if target.met is not None else ''}{target.text}"
                )
            if checks:
                lines.append("")
        lines.append("Datasets:")
        lines.append("")
        for dataset in results["datasets"]:
            shape = f"{dataset['samples']} samples"
            if "features" in dataset:
                shape += f", {dataset['features']} features"
                types = dataset.get("column_types") or {}
                if len(types) > 1:
                    shape += " (" + ", ".join(f"{n} {k}" for k, n in types.items()) + ")"
            if dataset["classes"]:
                shape += f", {dataset['classes']} classes"
            lines.append(f"- `{dataset['name']}` ({shape}): {dataset['source']}")
        lines.append("")
        failures = sorted(
            {f"{r['dataset']} {r['entry']}: {r['error']}" for r in results["records"] if r.get("error")}
        )
        if failures:
            lines.append("Failed runs: " + "; ".join(failures[:10]) + ("; ..." if len(failures) > 10 else ""))
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render_benchmarks_section(all_results: Sequence[Mapping[str, Any]]) -> str:
    """The short "Model quality" section of docs/benchmarks.md: headline figures and the command."""
    lines = [
        "## Model quality (`benchmarks/model_quality.py`)",
        "",
        "Every template's presets against strong classical baselines on the same splits, several "
        "datasets and seeds per section; the full tables, datasets and the machine are in "
        "[docs/templates.md](templates.md#model-quality-presets-against-classical-baselines). Scores: "
        "test accuracy, R² for regression; means over seeds, then over the datasets where both ran.",
        "",
        "| section | template | datasets (balanced run / all) | balanced | best baseline per dataset | "
        "balanced >= best baseline - 1 std | accurate >= balanced - noise | fast vs balanced |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    commands = []
    for results in all_results:
        commands.append(COMMAND.format(section=results["section"]))
        found = targets(results)
        for template, by_dataset in _by(summary(results)).items():
            mine = [t for t in found if t.template == template]
            per = [t for t in mine if t.name == "balanced vs best baseline" and t.dataset]
            accurate = [t for t in mine if t.name == "accurate vs balanced"]
            pairs, trades = [], []
            for entries in by_dataset.values():
                balanced = entries.get("balanced")
                baselines = [
                    c.mean for k, c in entries.items() if k.startswith("baseline:") and c.mean is not None
                ]
                if balanced is not None and balanced.mean is not None and baselines:
                    pairs.append((balanced.mean, max(baselines)))
                fast = entries.get("fast")
                if (
                    fast
                    and balanced
                    and fast.mean is not None
                    and balanced.mean is not None
                    and balanced.seconds
                ):
                    trades.append((fast.mean - balanced.mean, fast.seconds / balanced.seconds))
            ran = sum(1 for e in by_dataset.values() if e.get("balanced") is not None)
            if pairs:
                balanced_text = f"{np.mean([p[0] for p in pairs]):.3f}"
                best_text = f"{np.mean([p[1] for p in pairs]):.3f}"
            else:
                balanced_text, best_text = "not run", "n/a"
            trade = "n/a"
            if trades:
                score, ratio = np.mean([t[0] for t in trades]), np.median([t[1] for t in trades])
                trade = f"{score:+.3f}, {ratio:.2f}x the time (median)"
            met_per = f"{sum(1 for t in per if t.met)} of {len(per)}" if per else "n/a"
            met_accurate = f"{sum(1 for t in accurate if t.met)} of {len(accurate)}" if accurate else "n/a"
            lines.append(
                f"| {results['section']} | {template} | {ran} / {len(by_dataset)} | {balanced_text} | "
                f"{best_text} | {met_per} | {met_accurate} | {trade} |"
            )
    lines += ["", "```", *commands, ".venv/bin/python -m benchmarks.model_quality --write-docs", "```"]
    return "\n".join(lines) + "\n"


def replace_between(text: str, begin: str, end: str, body: str, *, heading: str) -> str:
    """``text`` with the part between the markers replaced by ``body``; the markers (under
    ``heading``) are appended when absent."""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        return f"{head}{begin}\n{body}{end}{tail}"
    return f"{text.rstrip()}\n\n{heading}\n\n{begin}\n{body}{end}\n"


def write_docs(all_results: Sequence[Mapping[str, Any]], templates_md: Path, benchmarks_md: Path) -> None:
    """Rewrite docs/templates.md's table region and docs/benchmarks.md's Model quality section."""
    tables = render_tables(all_results)
    templates_md.write_text(
        replace_between(
            templates_md.read_text(),
            TEMPLATES_BEGIN,
            TEMPLATES_END,
            tables,
            heading="## Model quality: presets against classical baselines",
        )
    )
    section = render_benchmarks_section(all_results)
    benchmarks_md.write_text(
        replace_between(benchmarks_md.read_text(), BENCHMARKS_BEGIN, BENCHMARKS_END, section, heading="")
    )
