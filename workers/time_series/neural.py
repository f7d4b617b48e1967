"""The neural forecaster: a small MLP over the rows of ``workers.time_series.features`` (the scaled
context, lags, rolling means, step, calendar and covariates of one series and step), trained across
every series with the pinball loss of each quantile; exported with ``torch.onnx.export`` (dynamo,
``external_data=False``, a dynamic batch) as input ``features`` float32 [rows, width] -> output
``neural`` [rows, quantiles] (scaled, like the LightGBM member's).

torch is imported inside the functions (the web process may import this module's name)."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.progress import Report, silent_report

if TYPE_CHECKING:
    import onnx

INPUT_NAME = "features"
MAX_STEPS = 3000  # optimizer steps at most (epochs are cut to fit)
BATCH = 512


def _network(width: int, hidden: int, outputs: int, mu: np.ndarray, sd: np.ndarray) -> Any:
    import torch
    from torch import nn

    class QuantileMLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mu", torch.from_numpy(mu.astype(np.float32)))
            self.register_buffer("sd", torch.from_numpy(sd.astype(np.float32)))
            self.net = nn.Sequential(
                nn.Linear(width, hidden),
                nn.GELU(),
                nn.Linear(hidden, hidden),
                nn.GELU(),
                nn.Linear(hidden, outputs),
            )

        def forward(self, features: torch.Tensor) -> torch.Tensor:
            mu, sd = self.get_buffer("mu"), self.get_buffer("sd")
            out: torch.Tensor = self.net((features - mu) / sd)
            return out

    return QuantileMLP()


def fit_neural(
    x: np.ndarray,
    y: np.ndarray,
    quantiles: Sequence[float],
    params: Mapping[str, Any],
    *,
    report: Report = silent_report,
    fraction: tuple[float, float] = (0.0, 1.0),
) -> Any:
    """The network fitted on rows ``x`` and scaled targets ``y`` (10% of the rows held out pick the
    best epoch)."""
    import torch

    if (os.cpu_count() or 1) <= 2:
        torch.set_num_threads(1)
    seed = int(params["seed"])
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    order = rng.permutation(x.shape[0])
    held = max(1, x.shape[0] // 10)
    val_idx, train_idx = order[:held], order[held:]
    mu = x[train_idx].mean(axis=0)
    sd = x[train_idx].std(axis=0)
    sd = np.where(sd > 1e-6, sd, 1.0)
    net = _network(x.shape[1], int(params["hidden_size"]), len(quantiles), mu, sd)
    xt = torch.from_numpy(x.astype(np.float32))
    # targets clipped: a scaled target far outside the context's range is an outlier for the loss
    yt = torch.from_numpy(np.clip(y, -50, 50).astype(np.float32))
    q = torch.tensor(list(quantiles), dtype=torch.float32)
    per_epoch = max(1, -(-len(train_idx) // BATCH))
    epochs = max(1, min(int(params["epochs"]), MAX_STEPS // per_epoch))
    optimizer = torch.optim.AdamW(
        net.parameters(), lr=min(float(params["learning_rate"]) * 0.1, 3e-3), weight_decay=1e-4
    )
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=min(float(params["learning_rate"]) * 0.1, 3e-3), total_steps=epochs * per_epoch
    )
    generator = torch.Generator().manual_seed(seed)
    train_t = torch.from_numpy(train_idx)
    val_t = torch.from_numpy(val_idx)

    def pinball(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        diff = target[:, None] - pred
        return torch.maximum(q * diff, (q - 1) * diff).mean()

    best, best_state = float("inf"), None
    for epoch in range(epochs):
        net.train()
        perm = train_t[torch.randperm(len(train_t), generator=generator)]
        for start in range(0, len(perm), BATCH):
            index = perm[start : start + BATCH]
            loss = pinball(net(xt[index]), yt[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
        net.eval()
        with torch.inference_mode():
            val = float(pinball(net(xt[val_t]), yt[val_t]))
        if val < best:
            best, best_state = val, {k: v.clone() for k, v in net.state_dict().items()}
        low, high = fraction
        report(f"neural epoch {epoch + 1}/{epochs}", fraction=low + (high - low) * (epoch + 1) / epochs)
    if best_state is not None:
        net.load_state_dict(best_state)
    net.eval()
    return net


def predict_neural(net: Any, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.inference_mode():
        out = net(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))).numpy()
    return np.sort(np.asarray(out, dtype=np.float64), axis=1)


def neural_onnx(net: Any, width: int, output: str = "neural") -> onnx.ModelProto:
    """The network as an ONNX graph on input ``features`` with output ``output``; node, value and
    initializer names carry the prefix ``nn_`` so the graph merges with the LightGBM one."""
    import onnx
    import torch
    from onnx import helper

    net.eval()
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "neural.onnx")
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                net,
                (torch.zeros(2, width),),
                path,
                dynamo=True,
                external_data=False,
                opset_version=18,
                input_names=[INPUT_NAME],
                output_names=[output],
                dynamic_shapes=({0: batch},),
                verbose=False,
            )
        proto = onnx.load(path)
    prefixed = onnx.compose.add_prefix(proto, prefix="nn_")
    graph = prefixed.graph
    nodes = [helper.make_node("Identity", [INPUT_NAME], [f"nn_{INPUT_NAME}"], name="nn_in")]
    nodes += list(graph.node)
    nodes.append(helper.make_node("Identity", [f"nn_{output}"], [output], name="nn_out"))
    new_graph = helper.make_graph(
        nodes,
        "neural",
        [helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(output, onnx.TensorProto.FLOAT, ["batch", None])],
        initializer=list(graph.initializer),
    )
    model = helper.make_model(new_graph, opset_imports=list(proto.opset_import), producer_name="sampan")
    model.ir_version = proto.ir_version
    if prefixed.functions:
        model.functions.extend(prefixed.functions)
    onnx.checker.check_model(model)
    return model
