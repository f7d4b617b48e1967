"""k-fold cross-validation of an image classifier on small data (``validation`` = auto below
``CROSS_VALIDATION_THRESHOLD`` images when affordable, or ``cross_validation``).

The train and val splits are pooled and dealt into stratified folds (``workers.shared.validation``).
Each fold is a full training run with the run's parameters, trained on the other folds and scored on
its held-out fold after every epoch. The folds' mean accuracy per epoch chooses the stopping point
(``chosen = {"epochs": e}``); the final model then trains on the whole pool with the same
learning-rate schedule (it spans ``epochs``) and stops after epoch ``e``, so its weights are those the
folds measured. Its history's ``val_acc``/``val_loss`` per epoch are the folds' means (the estimate
of held-out accuracy at that point; the pruner of a study sees them as it sees a val split's).

Files in ``out_dir``::

    folds/fold-<i>/checkpoints/...   a fold in progress (resumed like any run)
    folds/fold-<i>/fold.json         a finished fold: its per-epoch held-out scores (checkpoints removed)
    ...                              the final model's files, as in a holdout run (see trainer.py)

A retried job does not redo finished folds; the fold in progress resumes from its last checkpoint.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.validation import CrossValidation
from workers.image_classification import checkpoints
from workers.image_classification.manifest import Manifest, Sample
from workers.image_classification.template import (
    CPU_CROSS_VALIDATION_BUDGET,
    CROSS_VALIDATION_THRESHOLD,
    cross_validation_cost,
)
from workers.progress import Report
from workers.shared.validation import ValidationPlan, kfold_indices, plan, summarize

FOLD_FORMAT = "sampan.image_classification.fold/1"


def validation_plan(params: Mapping[str, Any], data: Manifest, *, device_type: str) -> ValidationPlan:
    """Whether this run cross-validates. ``auto`` does below ``CROSS_VALIDATION_THRESHOLD`` images
    (train + val) and, on a CPU, only when the folds fit ``CPU_CROSS_VALIDATION_BUDGET``."""
    images = len(data.split("train")) + len(data.split("val"))
    decision = plan(
        params["validation"], samples=images, threshold=CROSS_VALIDATION_THRESHOLD, folds=params["folds"]
    )
    if not decision.cross_validate or params["validation"] != "auto" or device_type == "cuda":
        return decision
    cost = cross_validation_cost(params, images, decision.folds)
    if cost <= CPU_CROSS_VALIDATION_BUDGET:
        return decision
    return ValidationPlan(
        False,
        0,
        f"{images:,} images, but {decision.folds} folds of {params['model']} at {params['image_size']} px "
        f"for {params['epochs']} epochs would take about {cost / CPU_CROSS_VALIDATION_BUDGET:.1f}x the "
        "cross-validation budget of a CPU: the val split chooses the model (validation=cross_validation "
        "forces the folds)",
    )


def fold_manifests(data: Manifest, folds: int, *, seed: int) -> list[tuple[Manifest, int, int]]:
    """(manifest, fit images, held-out images) per fold: the pool's fit part as ``train``, the held-out
    part as ``val``; test samples are left out."""
    pool = [s for s in data.samples if s.split in ("train", "val")]
    labels = np.asarray([s.label for s in pool], dtype=np.int64)
    out = []
    for fit, held_out in kfold_indices(labels, folds, seed=seed):
        role = {int(i): "train" for i in fit} | {int(i): "val" for i in held_out}
        samples = tuple(
            Sample(index=s.index, path=s.path, label=s.label, split=role[position], id=s.id)
            for position, s in enumerate(pool)
        )
        out.append((Manifest(classes=data.classes, samples=samples), len(fit), len(held_out)))
    return out


def pooled_manifest(data: Manifest) -> Manifest:
    """The final fit's data: train and val samples together as ``train`` (test kept as it is)."""
    samples = tuple(
        s if s.split == "test" else Sample(index=s.index, path=s.path, label=s.label, split="train", id=s.id)
        for s in data.samples
    )
    return Manifest(classes=data.classes, samples=samples)


class StageReport:
    """Forwards a fold's (or the final fit's) progress as a share of the whole run: ``fraction`` is
    rescaled to [start, start + width]. A fold reports its message (``fold i/k: ...``), the fraction
    and ``fold``/``folds`` (1-based), not its epochs, losses or held-out scores: those are not the
    run's (a study's pruner and the live curves see the final fit's epochs only)."""

    def __init__(
        self, report: Report, *, start: float, width: float, fold: int | None = None, folds: int = 0
    ) -> None:
        self.report, self.start, self.width, self.fold, self.folds = report, start, width, fold, folds

    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        scaled = None if fraction is None else self.start + self.width * fraction
        if self.fold is None:
            self.report(message, fraction=scaled, milestone=milestone, **metrics)
        else:
            self.report(
                f"fold {self.fold + 1}/{self.folds}: {message}",
                fraction=scaled,
                fold=self.fold + 1,
                folds=self.folds,
            )

    def finished(self, record: Mapping[str, Any], metric: str) -> None:
        """A finished fold's milestone: ``fold_score``, its best held-out accuracy over the epochs."""
        best = max(record["history"], key=lambda h: h[metric])
        self.report(
            f"fold {self.fold + 1 if self.fold is not None else 0}/{self.folds} done: held-out accuracy "
            f"{best[metric]:.4f} (epoch {best['epoch']})",
            fraction=self.start + self.width,
            milestone=True,
            fold=(self.fold or 0) + 1,
            folds=self.folds,
            fold_score=float(best[metric]),
        )


def read_fold(path: Path, fingerprint: str) -> dict[str, Any] | None:
    """A finished fold's record, or None when there is none; a record of another run is an error."""
    if not path.is_file():
        return None
    record: dict[str, Any] = json.loads(path.read_text())
    if record.get("format") != FOLD_FORMAT or record.get("fingerprint") != fingerprint:
        raise ValueError(
            f"{path} belongs to a different run (other parameters, data or backbone); train in an empty "
            "directory or delete its folds/"
        )
    return record


def write_fold(path: Path, record: Mapping[str, Any]) -> None:
    checkpoints.atomic_write_json(path, dict(record))
    shutil.rmtree(path.parent / "checkpoints", ignore_errors=True)  # the fold's weights are not kept


def choose_epochs(records: list[dict[str, Any]], metric: str) -> tuple[int, list[float], list[float | None]]:
    """(chosen epoch, mean held-out ``metric`` per epoch, mean val_loss per epoch) over the folds;
    the earliest epoch with the best mean wins."""
    epochs = min(len(r["history"]) for r in records)
    means = [float(np.mean([r["history"][e][metric] for r in records])) for e in range(epochs)]
    losses: list[float | None] = []
    for e in range(epochs):
        values = [r["history"][e]["val_loss"] for r in records]
        losses.append(None if any(v is None for v in values) else float(np.mean(values)))
    best = int(np.argmax(np.round(np.asarray(means), 12))) + 1
    return best, means, losses


def describe(
    records: list[dict[str, Any]], chosen: int, decision: ValidationPlan, metric: str
) -> CrossValidation:
    """The run's ``CrossValidation``: each fold's held-out accuracy at the chosen epoch."""
    scores = [
        {
            "fold": i,
            "train_samples": r["train_samples"],
            "samples": r["samples"],
            "score": r["history"][chosen - 1][metric],
        }
        for i, r in enumerate(records)
    ]
    return summarize(
        scores,
        metric="accuracy",
        direction="maximize",
        chosen={"epochs": chosen},
        reason=decision.reason,
        plan=decision,
    )
