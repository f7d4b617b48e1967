"""The data quality report: what is wrong with a dataset's (or a version's) samples, computed from a
:class:`~workers.contracts.smart_labeling.LabelPool` without Django.

:func:`run` answers a :class:`~workers.contracts.quality.QualityReport`: class balance, exact and
near duplicates (and those crossing a version's splits), likely mislabels (confident learning on
out-of-fold probabilities, :mod:`.mislabels`), and the checks of the pool's kind of content:
images (:mod:`.images`), texts (:mod:`.texts`), tables (:mod:`.tables`). ``checks`` lists every
check that ran, ``skipped`` the ones that apply to the task but could not run, and why.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workers.contracts.quality import (
    QUALITY_REPORT_VERSION,
    ClassBalance,
    Distribution,
    Finding,
    FindingCode,
    QualityParams,
    QualityReport,
    SkippedCheck,
)
from workers.contracts.smart_labeling import LabelPool, ModelFeatures, PoolSample
from workers.data_quality.findings import finding, histogram, stage
from workers.progress import JobCancelled, Report

NEAR_DUPLICATE_DISTANCE = 6  # of 64 pHash bits: re-encoded, resized or lightly edited copies
NEAR_DUPLICATE_SIMILARITY = 0.95
MIN_PER_CLASS = 10
IMBALANCE_RATIO = 10.0

IMAGE_TASKS = ("image_classification", "object_detection")
CLASSIFICATION_TASKS = ("image_classification", "text_classification", "tabular_classification")

__all__ = ["run", "resolved_params"]


def resolved_params(params: QualityParams | None) -> QualityParams:
    """The user's thresholds over the defaults."""
    given = params or {}
    return {
        "near_duplicate_distance": int(given.get("near_duplicate_distance", NEAR_DUPLICATE_DISTANCE)),
        "near_duplicate_similarity": float(given.get("near_duplicate_similarity", NEAR_DUPLICATE_SIMILARITY)),
        "min_per_class": int(given.get("min_per_class", MIN_PER_CLASS)),
        "seed": int(given.get("seed", 0)),
    }


def run(
    pool: LabelPool,
    params: QualityParams,
    *,
    work_dir: Path,
    report: Report,
    model: ModelFeatures | None = None,
) -> QualityReport:
    """The quality report of ``pool``. ``model`` (image classification): a model trained on the
    platform whose embedding joins the image features of the mislabel finder.

    e.g. ``run(pool, {}, work_dir=tmp, report=silent_report)["findings"]`` -> ``[{"code":
    "near_duplicates", "severity": "warning", "count": 2, "sample_ids": [3, 9], "groups": [[3, 9]],
    ...}]``. Raises ``workers.progress.JobCancelled`` (from ``report``).
    """
    started = time.monotonic()
    p = resolved_params(params)
    task = pool["task_type"]
    samples = pool["samples"]
    ids = [s["id"] for s in samples]
    splits = [s.get("split", "") or "" for s in samples]
    findings: list[Finding] = []
    distributions: list[Distribution] = []
    checks: list[FindingCode] = []
    skipped: list[SkippedCheck] = []
    report(f"checking {len(samples)} samples", fraction=0.0)

    labeled = [i for i, s in enumerate(samples) if _is_labeled(task, s)]
    balance, balance_findings = class_balance(pool, labeled, min_per_class=p["min_per_class"])
    findings += balance_findings
    checks += ["unlabeled_samples"]
    if task != "tabular_regression":
        checks += ["tiny_class", "class_imbalance"]
    labeled_set = set(labeled)
    unlabeled = [i for i in range(len(samples)) if i not in labeled_set]
    if unlabeled:
        findings.append(finding("unlabeled_samples", "info", (ids[i] for i in unlabeled)))

    exact: list[list[int]] = []
    near: list[list[int]] = []
    near_details: dict[str, str | int | float | bool | None] = {}
    embeddings: np.ndarray | None = None
    unreadable: set[int] = set()  # positions the mislabel finder leaves out (images it cannot decode)
    if task in IMAGE_TASKS:
        from workers.data_quality.images import (
            duplicate_groups,
            image_findings,
            measure_all,
            tiny_boxes_finding,
        )

        stats = measure_all(samples, report=stage(report, 0.0, 0.45))
        unreadable = {i for i, s in enumerate(stats) if s.error or s.truncated}
        image_found, image_distributions = image_findings(ids, stats)
        findings += image_found
        distributions += image_distributions
        checks += [
            "corrupt_image",
            "tiny_image",
            "extreme_aspect_ratio",
            "blurry_image",
            "dark_image",
            "overexposed_image",
        ]
        exact, near = duplicate_groups(stats, max_distance=p["near_duplicate_distance"])
        near_details = {"max_distance": p["near_duplicate_distance"]}
        checks += ["exact_duplicates", "near_duplicates"]
        if task == "object_detection":
            tiny_boxes = tiny_boxes_finding(samples)
            if tiny_boxes:
                findings.append(tiny_boxes)
            checks.append("tiny_boxes")
            distributions.append(_boxes_per_image(samples))
    elif task == "text_classification":
        from workers.data_quality.duplicates import cosine_pairs, near_groups
        from workers.data_quality.texts import text_findings
        from workers.smart_labeling.features import text_embeddings

        texts = [s.get("text", "") or "" for s in samples]
        text_found, text_distributions, exact = text_findings(ids, texts)
        findings += text_found
        distributions += text_distributions
        checks += ["empty_text", "long_text", "other_language", "exact_duplicates"]
        embeddings = text_embeddings(texts, report=stage(report, 0.0, 0.6))
        # one text per exact group, none of the empty ones: near groups join different texts, and many
        # copies of one text cost one comparison
        in_exact = {i for group in exact for i in group[1:]}
        candidates = [i for i, t in enumerate(texts) if t.strip() and i not in in_exact]
        pairs = cosine_pairs(embeddings[candidates], p["near_duplicate_similarity"])
        exact_of = {group[0]: group for group in exact}
        near = [
            sorted(i for c in group for i in exact_of.get(candidates[c], [candidates[c]]))
            for group in near_groups(len(candidates), [(a, b) for a, b, _ in pairs], [])
        ]
        near_details = {"min_similarity": p["near_duplicate_similarity"]}
        checks.append("near_duplicates")
    else:
        from workers.data_quality.tables import table_findings

        table_found, exact = table_findings(pool, seed=p["seed"])
        findings += table_found
        checks += [
            "constant_column",
            "near_constant_column",
            "high_missing_column",
            "target_leak_column",
            "exact_duplicates",
        ]
        skipped.append(
            {"code": "near_duplicates", "reason": "tables: only rows with equal values are compared"}
        )
        if task == "tabular_regression":
            distributions.append(
                histogram("target", [float(samples[i].get("target") or 0.0) for i in labeled])
            )
    report("grouping duplicates", fraction=0.65)
    from workers.data_quality.duplicates import duplicate_findings

    findings += duplicate_findings(ids, splits, exact, near, details=near_details)
    if any(splits):
        checks.append("split_leakage")
    else:
        skipped.append(
            {"code": "split_leakage", "reason": "the dataset has no splits: run the report on a version"}
        )

    if task in CLASSIFICATION_TASKS:
        mislabel_finding, reason = _mislabels(
            pool,
            [i for i in labeled if i not in unreadable],
            embeddings,
            work_dir,
            p,
            stage(report, 0.65, 0.98),
            model=model,
        )
        if reason:
            skipped.append({"code": "likely_mislabeled", "reason": reason})
        else:
            checks.append("likely_mislabeled")
            if mislabel_finding:
                findings.append(mislabel_finding)
    elif task == "object_detection":
        mislabel_finding, reason = _box_mislabels(
            pool, [i for i in labeled if i not in unreadable], work_dir, p, stage(report, 0.65, 0.98)
        )
        if reason:
            skipped.append({"code": "likely_mislabeled", "reason": reason})
        else:
            checks.append("likely_mislabeled")
            if mislabel_finding:
                findings.append(mislabel_finding)
    else:
        skipped.append(
            {"code": "likely_mislabeled", "reason": "regression: targets are numbers, not classes"}
        )

    seconds = round(time.monotonic() - started, 3)
    report(f"found {len(findings)} kinds of issue in {len(samples)} samples", fraction=1.0, milestone=True)
    return {
        "kind": "quality_report",
        "version": QUALITY_REPORT_VERSION,
        "task_type": task,
        "classes": list(pool["classes"]),
        "samples": len(samples),
        "labeled": len(labeled),
        "class_balance": balance,
        "findings": findings,
        "distributions": distributions,
        "checks": checks,
        "skipped": skipped,
        "seconds": seconds,
    }


def _is_labeled(task: str, sample: PoolSample) -> bool:
    if task == "object_detection":
        return sample.get("boxes") is not None
    if task == "tabular_regression":
        return sample.get("target") is not None
    return sample["label"] is not None


def class_balance(
    pool: LabelPool, labeled: Sequence[int], *, min_per_class: int
) -> tuple[ClassBalance, list[Finding]]:
    """Samples per class (boxes per class for detection), the largest class over the smallest
    non-empty one, the classes under ``min_per_class``, and their findings."""
    task = pool["task_type"]
    classes = pool["classes"]
    samples = pool["samples"]
    if task == "tabular_regression" or not classes:
        return {
            "classes": [],
            "imbalance_ratio": None,
            "min_per_class": min_per_class,
            "tiny_classes": [],
        }, []
    counts = [0] * len(classes)
    members: list[list[int]] = [[] for _ in classes]
    for i in labeled:
        sample = samples[i]
        if task == "object_detection":
            for box in sample.get("boxes") or []:
                if 0 <= box["label"] < len(classes):
                    counts[box["label"]] += 1
                    members[box["label"]].append(sample["id"])
        elif sample["label"] is not None and 0 <= sample["label"] < len(classes):
            counts[sample["label"]] += 1
            members[sample["label"]].append(sample["id"])
    non_empty = [c for c in counts if c]
    ratio = round(max(non_empty) / min(non_empty), 3) if non_empty else None
    tiny = [k for k, c in enumerate(counts) if c < min_per_class]
    balance: ClassBalance = {
        "classes": [{"label": k, "name": name, "count": counts[k]} for k, name in enumerate(classes)],
        "imbalance_ratio": ratio,
        "min_per_class": min_per_class,
        "tiny_classes": tiny,
    }
    findings: list[Finding] = []
    if tiny and labeled:
        findings.append(
            finding(
                "tiny_class",
                "warning",
                (sample_id for k in tiny for sample_id in members[k]),
                details={
                    "classes": ", ".join(classes[k] for k in tiny),
                    "min_per_class": min_per_class,
                    "smallest": min(counts[k] for k in tiny),
                },
            )
        )
    if ratio is not None and ratio >= IMBALANCE_RATIO:
        largest = max(range(len(counts)), key=lambda k: counts[k])
        smallest = min((k for k in range(len(counts)) if counts[k]), key=lambda k: counts[k])
        findings.append(
            finding(
                "class_imbalance",
                "warning",
                members[smallest],
                details={
                    "ratio": ratio,
                    "largest": classes[largest],
                    "largest_count": counts[largest],
                    "smallest": classes[smallest],
                    "smallest_count": counts[smallest],
                },
            )
        )
    return balance, findings


def _boxes_per_image(samples: Sequence[PoolSample]) -> Distribution:
    counts = [len(s.get("boxes") or []) for s in samples if s.get("boxes") is not None]
    top = max(counts, default=0)
    return histogram("boxes_per_image", counts, bins=[x - 0.5 for x in range(0, min(top, 30) + 2)])


def _mislabels(
    pool: LabelPool,
    labeled: Sequence[int],
    embeddings: np.ndarray | None,
    work_dir: Path,
    p: QualityParams,
    report: Report,
    *,
    model: ModelFeatures | None = None,
) -> tuple[Finding | None, str]:
    """(the likely_mislabeled finding or None, '' or why the check could not run)."""
    from workers.data_quality.mislabels import TooFewLabels, find_mislabels
    from workers.smart_labeling.features import pool_features

    samples = pool["samples"]
    labels = np.array([samples[i]["label"] for i in labeled], dtype=np.int64)
    if len(np.unique(labels)) < 2:
        return None, "fewer than 2 classes have 2 labeled samples each"
    report(f"features of {len(labeled)} labeled samples", fraction=0.0)
    if embeddings is not None:
        features = embeddings[list(labeled)]
    elif pool["task_type"] in IMAGE_TASKS:
        sub_pool: LabelPool = {**pool, "samples": [samples[i] for i in labeled]}
        try:
            features = pool_features(sub_pool, work_dir=work_dir, report=stage(report, 0.0, 0.7), model=model)
        except JobCancelled:
            raise
        except Exception as error:  # a model file that cannot be used never costs the report
            if model is None:
                raise
            report(f"{model['name']} could not be used ({error}); image features alone", fraction=0.0)
            features = pool_features(sub_pool, work_dir=work_dir, report=stage(report, 0.0, 0.7))
    else:
        features = pool_features(pool, work_dir=work_dir, report=report)[list(labeled)]
    report("out-of-fold predictions and confident learning", fraction=0.75)
    try:
        items = find_mislabels(features, labels, seed=int(p.get("seed", 0)))
    except TooFewLabels as error:
        return None, str(error)
    report(f"{len(items)} likely mislabeled", fraction=1.0)
    for item in items:
        item["sample"] = samples[labeled[item["sample"]]]["id"]
    if not items:
        return None, ""
    return (
        finding(
            "likely_mislabeled",
            "warning",
            (item["sample"] for item in items),
            items=items,
            details={"labeled": len(labeled), "share": round(len(items) / max(len(labeled), 1), 4)},
        ),
        "",
    )


def _box_mislabels(
    pool: LabelPool, labeled: Sequence[int], work_dir: Path, p: QualityParams, report: Report
) -> tuple[Finding | None, str]:
    """Detection: (the likely_mislabeled finding over boxes' classes or None, '' or why not)."""
    from workers.data_quality.boxes import box_mislabels
    from workers.data_quality.mislabels import TooFewLabels

    try:
        items = box_mislabels(pool, labeled, work_dir=work_dir, report=report, seed=int(p.get("seed", 0)))
    except TooFewLabels as error:
        return None, f"detection: {error}"
    report(f"{len(items)} images with a box whose class looks wrong", fraction=1.0)
    if not items:
        return None, ""
    return (
        finding(
            "likely_mislabeled",
            "warning",
            (item["sample"] for item in items),
            items=items,
            details={"labeled": len(labeled), "boxes": True},
        ),
        "",
    )
