"""Training tabular models: gradient-boosted trees (LightGBM), an MLP (torch), a linear model
(ridge / logistic regression) or a weighted ensemble of them, exported to one self-contained ONNX
file whose input is the encoded feature matrix (``workers.tabular.encoding``).

ONNX contract: input ``features`` float32 [batch, width]; output ``probabilities`` float32
[batch, classes] for classification, ``value`` float32 [batch, 1] for regression. The encoding
spec rides along as the model's preprocessing (and in the ONNX metadata). An ensemble is one graph
with the same contract (``workers.tabular.ensemble.combine_onnx``), so serving does not change.

Validation (``workers.shared.validation``): below ``CROSS_VALIDATION_ROWS`` rows (train + val) the
``auto`` mode runs k-fold cross-validation over train + val: each candidate model is fitted on k-1
folds and predicts the held-out fold; the mean curve over the folds picks LightGBM's rounds and the
MLP's epoch, the out-of-fold predictions score the candidates and weight an ensemble, and the final
models train on every row with those choices (``bagging``: LightGBM's fold models themselves serve).
Above it (or ``holdout``), the val split plays the held-out fold and the final models are the ones
fitted on the train split. The test split is never seen here.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.contracts.manifest import TabularManifest, TabularSample
from workers.contracts.templates import ParamValue
from workers.progress import Report, silent_report
from workers.shared.validation import candidate, kfold_indices, plan, summarize
from workers.tabular.encoding import encode, feature_names, fit_encoder
from workers.tabular.template import CLASSIFICATION, CROSS_VALIDATION_ROWS, REGRESSION

if TYPE_CHECKING:
    import onnx

INPUT_NAME = "features"
TREE_OPSET = 15  # onnxmltools' LightGBM converter supports up to 15
# the ensemble's MLP member trains at the neural preset's rate (``learning_rate`` is the trees')
ENSEMBLE_MLP_LEARNING_RATE = 3e-3
# below this many rows LightGBM and the MLP train on one thread
SMALL_ROWS = 20_000
# held-out rounds without improvement before a fold stops adding trees (at least this many)
MIN_PATIENCE = 50

Folds = list[tuple[np.ndarray, np.ndarray]]


class TabularDataError(ValueError):
    """The manifest cannot be trained on; the message says why."""


def check_manifest(manifest: TabularManifest) -> dict[str, Any]:
    """Validate a tabular manifest; returns a summary. Raises :class:`TabularDataError`."""
    if manifest.get("kind") != "tabular":
        raise TabularDataError("not a tabular manifest (kind must be 'tabular')")
    task = manifest.get("task")
    if task not in ("classification", "regression"):
        raise TabularDataError("task must be 'classification' or 'regression'")
    columns = manifest.get("columns") or []
    usable = [c for c in columns if c.get("type") in ("numeric", "categorical", "datetime")]
    if not usable:
        raise TabularDataError("no usable feature column (numeric, categorical or datetime)")
    samples = manifest.get("samples") or []
    train = [s for s in samples if s.get("split") == "train"]
    if not train:
        raise TabularDataError("the train split is empty")
    if task == "classification":
        classes = manifest.get("classes") or []
        if len(classes) < 2:
            raise TabularDataError(f"classification needs at least 2 classes, got {len(classes)}")
        present = {s["label"] for s in train}
        if len(present) < 2:
            raise TabularDataError("the train split holds a single class")
    elif len({s["target"] for s in train}) < 2:
        raise TabularDataError("the target has the same value in every training row")
    return {"task": task, "features": len(usable), "samples": len(samples), "train": len(train)}


def _split(manifest: TabularManifest, name: str) -> list[TabularSample]:
    return [s for s in manifest["samples"] if s["split"] == name]


def _targets(samples: Sequence[Mapping[str, Any]], regression: bool) -> np.ndarray:
    if regression:
        return np.asarray([s["target"] for s in samples], dtype=np.float64)
    return np.asarray([s["label"] for s in samples], dtype=np.int64)


def _val_metrics(prediction: np.ndarray, y: np.ndarray, regression: bool) -> dict[str, float]:
    if regression:
        residual = prediction.ravel() - y
        variance = float(np.var(y)) or 1.0
        return {
            "val_rmse": float(np.sqrt(np.mean(residual**2))),
            "val_mae": float(np.mean(np.abs(residual))),
            "val_r2": 1.0 - float(np.mean(residual**2)) / variance,
        }
    clipped = np.clip(prediction[np.arange(len(y)), y], 1e-12, 1.0)
    return {
        "val_acc": float(np.mean(prediction.argmax(axis=1) == y)),
        "val_loss": float(-np.mean(np.log(clipped))),
    }


def _score(prediction: np.ndarray, y: np.ndarray, regression: bool) -> float:
    """The cross-validation metric: accuracy (maximize) or RMSE (minimize)."""
    if regression:
        return float(np.sqrt(np.mean((prediction.ravel() - y) ** 2)))
    return float(np.mean(prediction.argmax(axis=1) == y))


@dataclass
class Data:
    """The encoded rows a run fits on, and how they are held out: ``folds`` (fit, held-out) index
    pairs into ``x``; ``refit`` says whether the final models train on every row (k-fold) or are the
    ones fitted on the first pair (holdout: train split -> val split)."""

    x: np.ndarray
    y: np.ndarray
    folds: Folds
    refit: bool
    regression: bool
    classes: int
    seed: int

    @property
    def width(self) -> int:
        return int(self.x.shape[1])

    def held_out(self) -> np.ndarray:
        """Indices of every held-out row, in the order :meth:`gather` returns predictions."""
        return np.concatenate([held for _, held in self.folds])

    def fold_scores(self, prediction: np.ndarray) -> list[dict[str, float | int]]:
        """Per-fold scores of held-out predictions (rows in :meth:`held_out` order)."""
        scores: list[dict[str, float | int]] = []
        start = 0
        for fold, (fit, held) in enumerate(self.folds):
            part = prediction[start : start + len(held)]
            start += len(held)
            scores.append(
                {
                    "fold": fold,
                    "train_samples": len(fit),
                    "samples": len(held),
                    "score": _score(part, self.y[held], self.regression),
                }
            )
        return scores


@dataclass
class Fitted:
    """A candidate model after validation: its held-out predictions (rows in
    ``Data.held_out()`` order), what the validation chose, and its final ONNX members (files of
    equal weight: one model, or a bag of fold models)."""

    name: str
    held_out: np.ndarray
    chosen: dict[str, ParamValue]
    members: list[Path]
    model_file: Path
    history: list[dict[str, Any]] = field(default_factory=list)


def train(
    spec: Mapping[str, Any],
    manifest: TabularManifest,
    out_dir: str | Path,
    report: Report = silent_report,
    **_: Any,
) -> dict[str, Any]:
    """Train on ``manifest`` with ``spec`` (a preset plus overrides); returns the trainer result the
    training service records: {"model", "onnx", "preprocessing", "classes", "params", "metrics",
    "cross_validation" (k-fold runs), ...}."""
    check_manifest(manifest)
    regression = manifest["task"] == "regression"
    template = REGRESSION if regression else CLASSIFICATION
    params = template.validate_params(spec.get("preset"), spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    columns = [c for c in manifest["columns"] if c["type"] in ("numeric", "categorical", "datetime")]
    train_rows, val_rows = _split(manifest, "train"), _split(manifest, "val")
    classes = [] if regression else list(manifest["classes"])
    decision = plan(
        params["validation"],
        samples=len(train_rows) + len(val_rows),
        threshold=CROSS_VALIDATION_ROWS,
        folds=params["folds"],
    )
    if decision.cross_validate:
        rows = train_rows + val_rows
        encoder = fit_encoder(columns, [s["values"] for s in rows])
        y = _targets(rows, regression)
        folds = kfold_indices(None if regression else y, decision.folds, seed=params["seed"], samples=len(y))
        data = Data(
            encode(encoder, [s["values"] for s in rows]),
            y,
            folds,
            True,
            regression,
            len(classes),
            params["seed"],
        )
    else:
        # no val split: the train split is also the held-out one (as before cross-validation existed)
        held_rows = val_rows or train_rows
        encoder = fit_encoder(columns, [s["values"] for s in train_rows])
        rows = train_rows + held_rows
        fit = np.arange(len(train_rows))
        data = Data(
            encode(encoder, [s["values"] for s in rows]),
            _targets(rows, regression),
            [(fit, np.arange(len(train_rows), len(rows)))],
            False,
            regression,
            len(classes),
            params["seed"],
        )
    started = time.monotonic()
    how = f"{len(data.folds)}-fold cross-validation" if data.refit else "the val split"
    report(
        f"training {params['model']} on {len(rows)} rows x {encoder['width']} features, validated by {how}",
        fraction=0.0,
        milestone=True,
    )
    onnx_path = out / "model.onnx"
    model_path, history, summary = _fit_models(params, data, out, onnx_path, report)
    preprocessing = {
        **encoder,
        "task": manifest["task"],
        "input": INPUT_NAME,
        "output": "value" if regression else "probabilities",
        "target": manifest.get("target"),
    }
    _add_metadata(onnx_path, template.name, classes, preprocessing)
    final = history[-1] if history else {}
    result: dict[str, Any] = {
        "model": str(model_path),
        "onnx": str(onnx_path),
        "preprocessing": preprocessing,
        "classes": classes,
        "params": params,
        "metrics": final,
        "epochs": len(history),
        "best_epoch": len(history),
        "history": history,
        "feature_names": feature_names(encoder),
        "runtime": {"seconds": time.monotonic() - started, "device": "cpu"},
    }
    if data.refit:
        result["cross_validation"] = summarize(
            summary["scores"],
            metric="rmse" if regression else "accuracy",
            direction="minimize" if regression else "maximize",
            chosen=summary["chosen"],
            reason=decision.reason,
            candidates=summary.get("candidates"),
            plan=decision,
        )
    return result


def _fit_models(
    params: Mapping[str, Any], data: Data, out: Path, onnx_path: Path, report: Report
) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    """Validate and fit the run's model (or the ensemble's members), write ``onnx_path``; returns the
    model file, the history and what the cross-validation summary needs."""
    model = params["model"]
    names = params["ensemble_members"].split("+") if model == "ensemble" else [model]
    fitters: dict[str, Callable[..., Fitted]] = {"gbdt": _fit_gbdt, "linear": _fit_linear, "mlp": _fit_mlp}
    fitted: list[Fitted] = []
    for i, name in enumerate(names):
        span = (i / len(names) * 0.9, (i + 1) / len(names) * 0.9)
        bag = model == "ensemble" and params["bagging"]
        member = fitters[name](params, data, out, report, span=span, bag=bag)
        if data.regression:  # values [n] from every member (the MLP's are [n, 1])
            member.held_out = member.held_out.reshape(-1)
        fitted.append(member)
    y_held = data.y[data.held_out()]
    output = "value" if data.regression else "probabilities"
    if len(fitted) == 1:
        (only,) = fitted
        _copy_member(only.members, onnx_path, output=output, width=data.width)
        history = only.history or [{"epoch": 1, **_val_metrics(only.held_out, y_held, data.regression)}]
        report("validated", fraction=0.95, milestone=True, **history[-1])
        return only.model_file, history, {"scores": data.fold_scores(only.held_out), "chosen": only.chosen}

    from workers.tabular.ensemble import combine_onnx, fit_weights

    weights = np.asarray(
        fit_weights([f.held_out for f in fitted], y_held, regression=data.regression), dtype=np.float64
    )
    blended = sum(w * f.held_out for w, f in zip(weights, fitted, strict=True))
    assert isinstance(blended, np.ndarray)
    chosen: dict[str, ParamValue] = {}
    for w, f in zip(weights, fitted, strict=True):
        chosen[f"weight_{f.name}"] = round(float(w), 4)
        if w > 0:
            chosen.update(f.chosen)
    kept = [(f, float(w)) for f, w in zip(fitted, weights, strict=True) if w > 0]
    members = [(path, w / len(f.members)) for f, w in kept for path in f.members]
    if len(members) == 1:
        _copy_member([members[0][0]], onnx_path, output=output, width=data.width)
    else:
        combine_onnx(members, onnx_path, output=output, width=data.width)
    model_file = out / "model.ensemble.json"
    model_file.write_text(
        json.dumps(
            {
                "kind": "tabular_ensemble",
                "members": [
                    {
                        "model": f.name,
                        "weight": w,
                        "files": [f.model_file.name]
                        + [f"model.lgb-{i}.txt" for i in range(1, len(f.members)) if f.name == "gbdt"],
                        "chosen": f.chosen,
                    }
                    for f, w in kept
                ],
            }
        )
    )
    per_candidate = [[s["score"] for s in data.fold_scores(f.held_out)] for f in fitted]
    candidates = [
        candidate(f.name, scores, chosen=False, weight=float(w))
        for f, scores, w in zip(fitted, per_candidate, weights, strict=True)
    ]
    candidates.append(candidate("ensemble", [s["score"] for s in data.fold_scores(blended)], chosen=True))
    history = [{"epoch": 1, **_val_metrics(blended, y_held, data.regression)}]
    report(
        "ensemble weights: " + ", ".join(f"{f.name} {w:.2f}" for f, w in zip(fitted, weights, strict=True)),
        fraction=0.95,
        milestone=True,
        **history[-1],
    )
    return (
        model_file,
        history,
        {"scores": data.fold_scores(blended), "chosen": chosen, "candidates": candidates},
    )


def _copy_member(paths: Sequence[Path], onnx_path: Path, *, output: str, width: int) -> None:
    """The final ONNX file of a single model: the member itself, or the average of a bag."""
    if len(paths) == 1:
        Path(onnx_path).write_bytes(Path(paths[0]).read_bytes())
        return
    from workers.tabular.ensemble import combine_onnx

    combine_onnx([(p, 1.0 / len(paths)) for p in paths], onnx_path, output=output, width=width)


def _add_metadata(path: Path, template: str, classes: list[str], preprocessing: Mapping[str, Any]) -> None:
    import onnx

    from workers.shared.onnx_model import check_onnx_self_contained

    proto = onnx.load(str(path))
    ours = ("sampan.template", "sampan.classes", "sampan.preprocessing")
    kept = [(e.key, e.value) for e in proto.metadata_props if e.key not in ours]
    del proto.metadata_props[:]
    for key, value in kept:
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    for key, value in (
        ("sampan.template", template),
        ("sampan.classes", json.dumps(classes)),
        ("sampan.preprocessing", json.dumps(preprocessing)),
    ):
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(proto)
    temp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    onnx.save(proto, str(temp))
    os.replace(temp, path)
    check_onnx_self_contained(path)


def _stage(report: Report, span: tuple[float, float], done: float, message: str, **metrics: Any) -> None:
    report(message, fraction=span[0] + (span[1] - span[0]) * done, **metrics)


def _threads(rows: int) -> int:
    """Threads for LightGBM and torch: ``OMP_NUM_THREADS`` when the environment sets it; else one
    below ``SMALL_ROWS`` rows (small trees and batches gain nothing from more, and on a busy machine
    OpenMP threads spinning on each other cost 10-60x), else up to 4."""
    configured = os.environ.get("OMP_NUM_THREADS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return 1 if rows < SMALL_ROWS else min(4, os.cpu_count() or 1)


# --- LightGBM -------------------------------------------------------------------------------------


def _gbdt_params(params: Mapping[str, Any], data: Data) -> dict[str, Any]:
    booster: dict[str, Any] = {
        "learning_rate": params["learning_rate"],
        "num_leaves": params["num_leaves"],
        "min_data_in_leaf": params["min_child_samples"],
        "seed": params["seed"],
        "num_threads": _threads(len(data.x)),
        "verbose": -1,
        "deterministic": True,
        "force_row_wise": True,
    }
    if data.regression:
        booster.update(objective="regression", metric="l2")
    elif data.classes == 2:
        booster.update(objective="binary", metric="binary_logloss")
    else:
        booster.update(objective="multiclass", num_class=data.classes, metric="multi_logloss")
    return booster


def _gbdt_predict(booster: Any, x: np.ndarray, data: Data, rounds: int) -> np.ndarray:
    prediction = np.asarray(booster.predict(x, num_iteration=rounds), dtype=np.float64)
    if not data.regression and data.classes == 2:
        prediction = np.stack([1.0 - prediction, prediction], axis=1)
    return prediction


def _fit_gbdt(
    params: Mapping[str, Any],
    data: Data,
    out: Path,
    report: Report,
    *,
    span: tuple[float, float],
    bag: bool,
) -> Fitted:
    """LightGBM: each fold grows up to ``n_estimators`` trees, scored on its held-out rows every
    round; the round with the best mean held-out loss is kept (early stopping on the folds)."""
    import lightgbm

    booster_params = _gbdt_params(params, data)
    cap = params["n_estimators"]
    patience = max(MIN_PATIENCE, cap // 10)
    curves: list[np.ndarray] = []
    boosters = []
    for fold, (fit, held) in enumerate(data.folds):
        train_set = lightgbm.Dataset(data.x[fit], data.y[fit], free_raw_data=False)
        held_set = lightgbm.Dataset(data.x[held], data.y[held], reference=train_set)
        record: dict[str, Any] = {}
        booster = lightgbm.train(
            booster_params,
            train_set,
            num_boost_round=cap,
            valid_sets=[held_set],
            valid_names=["held_out"],
            callbacks=[
                lightgbm.record_evaluation(record),
                lightgbm.early_stopping(patience, first_metric_only=True, verbose=False),
            ],
        )
        (curve,) = record["held_out"].values()
        values = np.asarray(curve, dtype=np.float64)
        # a fold that stopped early has passed its best: its loss stays where it was for the mean
        curves.append(np.concatenate([values, np.full(cap - len(values), values[-1])]))
        boosters.append(booster)
        if data.refit:
            _stage(
                report,
                span,
                (fold + 1) / (len(data.folds) + 1),
                f"trees: fold {fold + 1}/{len(data.folds)}",
                fold=fold + 1,
                folds=len(data.folds),
            )
    rounds = int(np.argmin(np.mean(curves, axis=0))) + 1
    held_out = np.concatenate(
        [
            _gbdt_predict(b, data.x[held], data, rounds)
            for b, (_, held) in zip(boosters, data.folds, strict=True)
        ]
    )
    onnx_members: list[Path] = []
    if data.refit and not bag:
        final = lightgbm.train(booster_params, lightgbm.Dataset(data.x, data.y), num_boost_round=rounds)
        finals = [final]
    else:
        finals = boosters  # holdout: the model fitted on the train split; bag: the fold models
    for i, booster in enumerate(finals):
        path = out / f"gbdt-{i}.onnx"
        _gbdt_to_onnx(booster, rounds, data, path)
        onnx_members.append(path)
        # model.lgb.txt: the model (or the bag's first); model.lgb-<i>.txt: the rest of the bag
        booster.save_model(
            str(out / ("model.lgb.txt" if i == 0 else f"model.lgb-{i}.txt")), num_iteration=rounds
        )
    model_file = out / "model.lgb.txt"
    _stage(report, span, 1.0, f"trees: {rounds} rounds chosen", milestone=True)
    chosen: dict[str, ParamValue] = {"n_estimators": rounds}
    if bag and data.refit:
        chosen["gbdt_bag"] = len(finals)
    return Fitted("gbdt", held_out, chosen, onnx_members, model_file)


def _gbdt_to_onnx(booster: Any, rounds: int, data: Data, path: Path) -> None:
    import lightgbm
    import onnx
    import onnxmltools
    from onnxmltools.convert.common.data_types import FloatTensorType

    truncated = lightgbm.Booster(model_str=booster.model_to_string(num_iteration=rounds))
    options = {} if data.regression else {"zipmap": False}
    proto = onnxmltools.convert_lightgbm(
        truncated,
        initial_types=[(INPUT_NAME, FloatTensorType([None, data.width]))],
        target_opset=TREE_OPSET,
        **options,
    )
    if data.regression:
        _rename_output(proto, proto.graph.output[0].name, "value")
    onnx.save(proto, str(path))


def _rename_output(proto: onnx.ModelProto, old: str, new: str) -> None:
    for node in proto.graph.node:
        node.output[:] = [new if name == old else name for name in node.output]
    for output in proto.graph.output:
        if output.name == old:
            output.name = new


# --- linear ---------------------------------------------------------------------------------------


def _fit_linear(
    params: Mapping[str, Any],
    data: Data,
    out: Path,
    report: Report,
    *,
    span: tuple[float, float],
    bag: bool,
) -> Fitted:
    """Ridge or logistic regression (regularisation chosen inside each fit by its own CV)."""
    from workers.tabular.linear import fit_linear, linear_to_onnx

    classes = None if data.regression else data.classes
    parts = []
    models = []
    for fold, (fit, held) in enumerate(data.folds):
        model = fit_linear(
            data.x[fit], data.y[fit], regression=data.regression, seed=data.seed, classes=classes
        )
        parts.append(model.predict(data.x[held]))
        models.append(model)
        if data.refit:
            _stage(
                report,
                span,
                (fold + 1) / (len(data.folds) + 1),
                f"linear: fold {fold + 1}/{len(data.folds)}",
                fold=fold + 1,
                folds=len(data.folds),
                fold_score=_score(parts[-1], data.y[held], data.regression),
            )
    final = (
        fit_linear(data.x, data.y, regression=data.regression, seed=data.seed, classes=classes)
        if data.refit
        else models[0]
    )
    model_file = out / "model.linear.json"
    final.save(model_file)
    path = out / "linear.onnx"
    linear_to_onnx(final, path, width=data.width, output="value" if data.regression else "probabilities")
    _stage(report, span, 1.0, "linear model fitted", milestone=True)
    return Fitted(
        "linear", np.concatenate(parts), {"linear_strength": round(final.strength, 6)}, [path], model_file
    )


# --- MLP ------------------------------------------------------------------------------------------


def _fit_mlp(
    params: Mapping[str, Any],
    data: Data,
    out: Path,
    report: Report,
    *,
    span: tuple[float, float],
    bag: bool,
) -> Fitted:
    """The MLP: each fold trains ``epochs`` epochs, predicting its held-out rows after each; the
    epoch with the best held-out score over all folds is kept, and the final model (trained on every
    row with the same schedule) stops there. Holdout: the val split picks the epoch."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(_threads(len(data.x)))
    try:
        return _fit_mlp_on(params, data, out, report, span=span)
    finally:
        torch.set_num_threads(threads)


def _fit_mlp_on(
    params: Mapping[str, Any], data: Data, out: Path, report: Report, *, span: tuple[float, float]
) -> Fitted:
    import torch

    from workers.tabular.mlp import export_mlp

    ensemble = params["model"] == "ensemble"
    learning_rate = ENSEMBLE_MLP_LEARNING_RATE if ensemble else params["learning_rate"]
    epochs = params["epochs"]
    steps = len(data.folds) + (1 if data.refit else 0)
    runs = []
    for fold, (fit, held) in enumerate(data.folds):

        def progress(epoch: int, metrics: Mapping[str, float], fold: int = fold) -> None:
            if data.refit:
                message = f"mlp: fold {fold + 1}/{len(data.folds)}, epoch {epoch}/{epochs}"
                _stage(
                    report,
                    span,
                    (fold + epoch / epochs) / steps,
                    message,
                    fold=fold + 1,
                    folds=len(data.folds),
                )
            else:  # one training: its epochs are the run's progress series
                _stage(
                    report,
                    span,
                    epoch / epochs,
                    f"epoch {epoch}/{epochs}",
                    epoch=epoch,
                    epochs=epochs,
                    **metrics,
                )

        runs.append(
            _train_mlp(
                params,
                learning_rate,
                data,
                data.x[fit],
                data.y[fit],
                data.x[held],
                data.y[held],
                epochs,
                progress,
            )
        )
    y_held = data.y[data.held_out()]
    if data.refit:
        # the held-out score of each epoch over every fold's rows (each row counts once)
        history = [
            {
                "epoch": e + 1,
                **_val_metrics(np.concatenate([r.predictions[e] for r in runs]), y_held, data.regression),
            }
            for e in range(epochs)
        ]
        best = _best_epoch(history, data.regression)
        held_out = np.concatenate([r.predictions[best] for r in runs])

        def final_progress(epoch: int, metrics: Mapping[str, float]) -> None:
            _stage(report, span, (len(data.folds) + epoch / (best + 1)) / steps, f"mlp: final, epoch {epoch}")

        final = _train_mlp(
            params,
            learning_rate,
            data,
            data.x,
            data.y,
            None,
            None,
            epochs,
            final_progress,
            stop_after=best + 1,
        ).model
    else:
        (run,) = runs
        history, best, held_out, final = run.history, run.best, run.predictions[0], run.model
    model_file = out / "model.pt"
    torch.save({"state_dict": final.state_dict(), "config": final.config}, model_file)
    path = out / "mlp.onnx"
    export_mlp(final, path, output_name="value" if data.regression else "probabilities")
    _stage(report, span, 1.0, f"mlp: epoch {best + 1} chosen", milestone=True)
    # a study scores the history: up to the chosen epoch, as the final model stopped there
    return Fitted("mlp", held_out, {"epochs": best + 1}, [path], model_file, history=history[: best + 1])


def _best_epoch(history: Sequence[Mapping[str, float]], regression: bool) -> int:
    if regression:
        return int(np.argmin([h["val_rmse"] for h in history]))
    return int(np.argmax([h["val_acc"] - 1e-6 * h["val_loss"] for h in history]))


@dataclass
class MLPRun:
    """One MLP training: the model, and its held-out predictions: after every epoch (k-fold), or
    only at the best epoch (holdout, whose weights the model then holds)."""

    model: Any
    predictions: list[np.ndarray]
    history: list[dict[str, Any]]
    best: int


def _train_mlp(
    params: Mapping[str, Any],
    learning_rate: float,
    data: Data,
    x_fit: np.ndarray,
    y_fit: np.ndarray,
    x_held: np.ndarray | None,
    y_held: np.ndarray | None,
    epochs: int,
    progress: Callable[[int, Mapping[str, float]], None],
    *,
    stop_after: int | None = None,
) -> MLPRun:
    """Train one MLP with a one-cycle schedule over ``epochs`` (stopping after ``stop_after``)."""
    import torch

    from workers.tabular.mlp import TabularMLP

    torch.manual_seed(params["seed"])
    generator = torch.Generator().manual_seed(params["seed"])
    regression = data.regression
    y_mean = float(y_fit.mean()) if regression else 0.0
    y_std = (float(y_fit.std()) or 1.0) if regression else 1.0
    model = TabularMLP(
        x_fit.shape[1],
        params["hidden_size"],
        1 if regression else data.classes,
        params["dropout"],
        regression=regression,
        y_mean=y_mean,
        y_std=y_std,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=params["weight_decay"])
    batch = params["batch_size"]
    steps = epochs * max(1, -(-len(x_fit) // batch))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=learning_rate, total_steps=steps)
    xt = torch.from_numpy(np.ascontiguousarray(x_fit, dtype=np.float32))
    yt = (
        torch.from_numpy(((y_fit - y_mean) / y_std).astype(np.float32))
        if regression
        else torch.from_numpy(y_fit)
    )
    held = None if x_held is None else torch.from_numpy(np.ascontiguousarray(x_held, dtype=np.float32))
    loss_fn = torch.nn.MSELoss() if regression else torch.nn.CrossEntropyLoss()
    keep_all = data.refit  # k-fold: the epoch is chosen over every fold afterwards
    predictions: list[np.ndarray] = []
    history: list[dict[str, Any]] = []
    best, best_score = 0, -np.inf
    best_state: dict[str, torch.Tensor] | None = None
    for epoch in range(1, (stop_after or epochs) + 1):
        model.train()
        order = torch.randperm(len(xt), generator=generator)
        for start in range(0, len(xt), batch):
            index = order[start : start + batch]
            output = model.raw(xt[index])
            loss = loss_fn(output.squeeze(1) if regression else output, yt[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        metrics: dict[str, float] = {"loss": loss.item()}
        if held is not None and y_held is not None:
            model.eval()
            with torch.inference_mode():
                prediction = model(held).numpy().astype(np.float64)
            metrics.update(_val_metrics(prediction, y_held, regression))
            history.append({"epoch": epoch, **metrics})
            if keep_all:
                predictions.append(prediction.astype(np.float32))
            else:
                score = (
                    -metrics["val_rmse"] if regression else metrics["val_acc"] - 1e-6 * metrics["val_loss"]
                )
                if score > best_score:
                    best, best_score = epoch - 1, score
                    best_state = {k: v.clone() for k, v in model.state_dict().items()}
                    predictions = [prediction]
        progress(epoch, metrics)
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return MLPRun(model, predictions, history, best)


def export_onnx(checkpoint: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Re-export an MLP checkpoint (``model.pt``) to ONNX; tree, linear and ensemble models are
    exported by training."""
    import torch

    from workers.tabular.mlp import TabularMLP, export_mlp

    if Path(checkpoint).suffix != ".pt":
        raise ValueError(
            f"{Path(checkpoint).name} is not an MLP checkpoint: tree, linear and ensemble models are "
            "exported by training (their run's model.onnx)"
        )
    state = torch.load(os.fspath(checkpoint), weights_only=True)
    model = TabularMLP(**state["config"])
    model.load_state_dict(state["state_dict"])
    model.eval()
    export_mlp(
        model, Path(out_path), output_name="value" if state["config"]["regression"] else "probabilities"
    )
    return {"path": os.fspath(out_path)}
