"""The tabular MLP (torch) and its ONNX export: softmax (classification) or the target's scale
(regression) are inside the exported graph, so serving only encodes rows and runs it."""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn

INPUT_NAME = "features"


class TabularMLP(nn.Module):
    def __init__(
        self,
        width: int,
        hidden_size: int,
        outputs: int,
        dropout: float,
        *,
        regression: bool,
        y_mean: float = 0.0,
        y_std: float = 1.0,
    ) -> None:
        super().__init__()
        self.config: dict[str, Any] = {
            "width": width,
            "hidden_size": hidden_size,
            "outputs": outputs,
            "dropout": dropout,
            "regression": regression,
            "y_mean": y_mean,
            "y_std": y_std,
        }
        self.net = nn.Sequential(
            nn.Linear(width, hidden_size),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_size, hidden_size),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_size, outputs),
        )
        self.regression = regression
        self.y_mean, self.y_std = y_mean, y_std

    def raw(self, features: torch.Tensor) -> torch.Tensor:
        """Logits, or the standardised target: what the loss sees."""
        out: torch.Tensor = self.net(features)
        return out

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        out = self.net(features)
        return out * self.y_std + self.y_mean if self.regression else torch.softmax(out, dim=1)


def export_mlp(model: TabularMLP, path: Path, *, output_name: str) -> None:
    model.eval()
    example = torch.zeros(2, model.config["width"])
    batch = torch.export.Dim("batch", min=1, max=1 << 20)
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (example,),
            str(path),
            dynamo=True,
            external_data=False,
            opset_version=18,
            input_names=[INPUT_NAME],
            output_names=[output_name],
            dynamic_shapes=({0: batch},),
            verbose=False,
        )
