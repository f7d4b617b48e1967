"""Training tabular models: gradient-boosted trees (LightGBM) or an MLP (torch), both exported to a
self-contained ONNX file whose input is the encoded feature matrix (``workers.tabular.encoding``).

ONNX contract: input ``features`` float32 [batch, width]; output ``probabilities`` float32
[batch, classes] for classification, ``value`` float32 [batch, 1] for regression. The encoding
spec rides along as the model's preprocessing (and in the ONNX metadata).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.contracts.manifest import TabularManifest, TabularSample
from workers.progress import Report, silent_report
from workers.tabular.encoding import encode, feature_names, fit_encoder
from workers.tabular.template import CLASSIFICATION, REGRESSION

if TYPE_CHECKING:
    import lightgbm
    import onnx

INPUT_NAME = "features"
TREE_OPSET = 15  # onnxmltools' LightGBM converter supports up to 15


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


def train(
    spec: Mapping[str, Any],
    manifest: TabularManifest,
    out_dir: str | Path,
    report: Report = silent_report,
    **_: Any,
) -> dict[str, Any]:
    """Train on ``manifest`` with ``spec`` (a preset plus overrides); returns the trainer result the
    training service records: {"model", "onnx", "preprocessing", "classes", "params", "metrics", ...}."""
    check_manifest(manifest)
    regression = manifest["task"] == "regression"
    template = REGRESSION if regression else CLASSIFICATION
    params = template.validate_params(spec.get("preset"), spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    columns = [c for c in manifest["columns"] if c["type"] in ("numeric", "categorical", "datetime")]
    train_rows, val_rows = _split(manifest, "train"), _split(manifest, "val") or _split(manifest, "train")
    encoder = fit_encoder(columns, [s["values"] for s in train_rows])
    x_train, x_val = (
        encode(encoder, [s["values"] for s in train_rows]),
        encode(encoder, [s["values"] for s in val_rows]),
    )
    y_train, y_val = _targets(train_rows, regression), _targets(val_rows, regression)
    classes = [] if regression else list(manifest["classes"])
    started = time.monotonic()
    report(
        f"training {params['model']} on {len(train_rows)} rows x {encoder['width']} features",
        fraction=0.0,
        milestone=True,
    )
    onnx_path = out / "model.onnx"
    if params["model"] == "gbdt":
        model_path, history = _train_gbdt(
            params, x_train, y_train, x_val, y_val, regression, len(classes), out, onnx_path, report
        )
    else:
        model_path, history = _train_mlp(
            params, x_train, y_train, x_val, y_val, regression, len(classes), out, onnx_path, report
        )
    preprocessing = {
        **encoder,
        "task": manifest["task"],
        "input": INPUT_NAME,
        "output": "value" if regression else "probabilities",
        "target": manifest.get("target"),
    }
    _add_metadata(onnx_path, template.name, classes, preprocessing)
    final = history[-1] if history else {}
    return {
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


def _add_metadata(path: Path, template: str, classes: list[str], preprocessing: Mapping[str, Any]) -> None:
    import onnx

    from workers.shared.onnx_model import check_onnx_self_contained

    proto = onnx.load(str(path))
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


def _train_gbdt(
    params: Mapping[str, Any],
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    regression: bool,
    n_classes: int,
    out: Path,
    onnx_path: Path,
    report: Report,
) -> tuple[Path, list[dict[str, Any]]]:
    import lightgbm
    import onnx
    import onnxmltools
    from onnxmltools.convert.common.data_types import FloatTensorType

    common = {
        "n_estimators": params["n_estimators"],
        "learning_rate": params["learning_rate"],
        "num_leaves": params["num_leaves"],
        "min_child_samples": params["min_child_samples"],
        "random_state": params["seed"],
        "n_jobs": min(4, os.cpu_count() or 1),
        "verbose": -1,
        "deterministic": True,
        "force_row_wise": True,
    }
    model = lightgbm.LGBMRegressor(**common) if regression else lightgbm.LGBMClassifier(**common)
    history: list[dict[str, Any]] = []
    every = max(1, params["n_estimators"] // 20)

    def progress(env: lightgbm.callback.CallbackEnv) -> None:
        if report is not silent_report and (
            (env.iteration + 1) % every == 0 or env.iteration + 1 == env.end_iteration
        ):
            report(
                f"tree {env.iteration + 1}/{env.end_iteration}",
                fraction=(env.iteration + 1) / env.end_iteration * 0.9,
                epoch=env.iteration + 1,
                epochs=env.end_iteration,
            )

    model.fit(x_train, y_train, callbacks=[progress])
    prediction = model.predict(x_val) if regression else model.predict_proba(x_val)
    history.append(
        {"epoch": params["n_estimators"], **_val_metrics(np.asarray(prediction), y_val, regression)}
    )
    report("validated", fraction=0.9, milestone=True, **history[-1])
    model_path = out / "model.lgb.txt"
    model.booster_.save_model(str(model_path))
    options = {} if regression else {"zipmap": False}
    proto = onnxmltools.convert_lightgbm(
        model,
        initial_types=[(INPUT_NAME, FloatTensorType([None, x_train.shape[1]]))],
        target_opset=TREE_OPSET,
        **options,
    )
    if regression:
        _rename_output(proto, proto.graph.output[0].name, "value")
    onnx.save(proto, str(onnx_path))
    return model_path, history


def _rename_output(proto: onnx.ModelProto, old: str, new: str) -> None:
    for node in proto.graph.node:
        node.output[:] = [new if name == old else name for name in node.output]
    for output in proto.graph.output:
        if output.name == old:
            output.name = new


def _train_mlp(
    params: Mapping[str, Any],
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    regression: bool,
    n_classes: int,
    out: Path,
    onnx_path: Path,
    report: Report,
) -> tuple[Path, list[dict[str, Any]]]:
    import torch

    from workers.tabular.mlp import TabularMLP, export_mlp

    torch.manual_seed(params["seed"])
    generator = torch.Generator().manual_seed(params["seed"])
    y_mean = float(y_train.mean()) if regression else 0.0
    y_std = (float(y_train.std()) or 1.0) if regression else 1.0
    model = TabularMLP(
        x_train.shape[1],
        params["hidden_size"],
        1 if regression else n_classes,
        params["dropout"],
        regression=regression,
        y_mean=y_mean,
        y_std=y_std,
    )
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=params["learning_rate"], weight_decay=params["weight_decay"]
    )
    steps = params["epochs"] * max(1, -(-len(x_train) // params["batch_size"]))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=params["learning_rate"], total_steps=steps
    )
    xt = torch.from_numpy(x_train)
    yt = (
        torch.from_numpy(((y_train - y_mean) / y_std).astype(np.float32))
        if regression
        else torch.from_numpy(y_train)
    )
    loss_fn = torch.nn.MSELoss() if regression else torch.nn.CrossEntropyLoss()
    history: list[dict[str, Any]] = []
    best: float | None = None
    best_state: dict[str, torch.Tensor] | None = None
    for epoch in range(1, params["epochs"] + 1):
        model.train()
        order = torch.randperm(len(xt), generator=generator)
        for start in range(0, len(xt), params["batch_size"]):
            index = order[start : start + params["batch_size"]]
            output = model.raw(xt[index])
            loss = loss_fn(output.squeeze(1) if regression else output, yt[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        model.eval()
        with torch.inference_mode():
            prediction = model(torch.from_numpy(x_val)).numpy()
        metrics = {"epoch": epoch, "loss": loss.item(), **_val_metrics(prediction, y_val, regression)}
        history.append(metrics)
        score = -metrics["val_rmse"] if regression else metrics["val_acc"] - 1e-6 * metrics["val_loss"]
        if best is None or score > best:
            best, best_state = score, {k: v.clone() for k, v in model.state_dict().items()}
        report(
            f"epoch {epoch}/{params['epochs']}",
            fraction=epoch / params["epochs"] * 0.9,
            epoch=epoch,
            epochs=params["epochs"],
            milestone=epoch == params["epochs"],
            **{k: v for k, v in metrics.items() if k != "epoch"},
        )
    assert best_state is not None  # epochs >= 1: the first epoch sets it
    model.load_state_dict(best_state)
    model_path = out / "model.pt"
    torch.save({"state_dict": model.state_dict(), "config": model.config}, model_path)
    export_mlp(model, onnx_path, output_name="value" if regression else "probabilities")
    return model_path, history


def export_onnx(checkpoint: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Re-export an MLP checkpoint (``model.pt``) to ONNX; tree models are exported by training."""
    import torch

    from workers.tabular.mlp import TabularMLP, export_mlp

    state = torch.load(os.fspath(checkpoint), weights_only=True)
    model = TabularMLP(**state["config"])
    model.load_state_dict(state["state_dict"])
    model.eval()
    export_mlp(
        model, Path(out_path), output_name="value" if state["config"]["regression"] else "probabilities"
    )
    return {"path": os.fspath(out_path)}
