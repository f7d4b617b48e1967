"""Serving tabular models with ONNX Runtime and NumPy (no torch, no pandas): rows with the original
column names in, classes with scores (classification) or a value (regression) out. Evaluation,
hosted endpoints and packages share it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.prediction import PredictionKind
from workers.shared.onnx_model import check_onnx_self_contained
from workers.tabular.encoding import RowContractError, check_row, encode


class TabularInputError(ValueError):
    """A request row is not usable; the message names the row."""


class TabularPredictor:
    """An exported tabular model: ``model.onnx`` plus its encoding spec and class names (both
    default to the model's metadata).

    >>> predictor = TabularPredictor("model.onnx")  # doctest: +SKIP
    >>> predictor.predict([{"alcohol": 13.2, "ash": 2.4}], top_k=1)  # doctest: +SKIP
    [[{'index': 0, 'label': 'class_0', 'score': 0.97}]]
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        preprocessing: Mapping[str, Any] | None = None,
        classes: Sequence[str] | None = None,
        threads: int | None = None,
    ) -> None:
        import onnxruntime

        check_onnx_self_contained(model_path)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if threads:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            os.fspath(model_path), options, providers=["CPUExecutionProvider"]
        )
        metadata = self.session.get_modelmeta().custom_metadata_map
        if preprocessing is None and "sampan.preprocessing" not in metadata:
            raise ValueError(f"{os.fspath(model_path)} carries no preprocessing spec; pass preprocessing=")
        self.preprocessing = dict(preprocessing or json.loads(metadata["sampan.preprocessing"]))
        if self.preprocessing.get("kind") != "tabular":
            raise ValueError("not a tabular preprocessing spec")
        self.regression = self.preprocessing["task"] == "regression"
        self.classes = (
            list(classes) if classes is not None else json.loads(metadata.get("sampan.classes", "[]"))
        )
        self.columns = [f["name"] for f in self.preprocessing["features"]]

    def check_rows(self, rows: Sequence[Any]) -> list[Mapping[str, Any]]:
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise TabularInputError(
                    f"instance {i} must be an object of column values, got {type(row).__name__}"
                )
            if not any(name in row for name in self.columns):
                raise TabularInputError(
                    f"instance {i} has none of the model's columns ({', '.join(self.columns[:20])})"
                )
        return list(rows)

    def run(self, matrix: np.ndarray) -> np.ndarray:
        (out,) = self.session.run([self.preprocessing["output"]], {self.preprocessing["input"]: matrix})
        return np.asarray(out, dtype=np.float64)

    def outputs(self, rows: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Probabilities (rows, classes) or values (rows,)."""
        out = self.run(encode(self.preprocessing, self.check_rows(rows)))
        return out.reshape(-1) if self.regression else out

    def predict(self, rows: Sequence[Mapping[str, Any]], top_k: int = 5) -> list[list[dict[str, Any]]]:
        """Per row: the ``top_k`` classes, most likely first, or ``[{"value": v}]`` for regression."""
        return self.answers(self.outputs(rows), top_k)

    def answers(self, out: np.ndarray, top_k: int) -> list[list[dict[str, Any]]]:
        """:meth:`predict`'s answers from :meth:`outputs` (or :meth:`run` on an encoded matrix)."""
        if self.regression:
            return [[{"value": v}] for v in out.reshape(-1).tolist()]
        k = min(top_k, out.shape[1])
        order = np.argsort(-out, axis=1, kind="stable")[:, :k]
        scores = np.take_along_axis(out, order, axis=1).tolist()
        labels = self.classes if self.classes else [str(i) for i in range(out.shape[1])]
        return [
            [
                {"index": i, "label": labels[i], "score": score}
                for i, score in zip(indices, row_scores, strict=True)
            ]
            for indices, row_scores in zip(order.tolist(), scores, strict=True)
        ]


class TabularServingPredictor:
    """The serving protocol's predictor (``workers.serving.predictors``) for a model directory:
    ``model.onnx`` + ``preprocess.json`` (the encoding) + ``labels.json``. Instances are rows with
    the original column names; regression answers ``[{"value": v}]`` per row.

    Rows are held to the model's contract (:func:`workers.tabular.encoding.check_row`): unknown
    columns and values of the wrong type are a 400 naming the column, a missing value only imputed in
    a column whose training data had gaps, and ``predict_detailed`` says which columns it imputed."""

    template = "tabular_classification"
    data_kind = "tabular"

    def __init__(self, model_dir: str | os.PathLike[str], *, threads: int | None = None) -> None:
        from pathlib import Path

        model_dir = Path(model_dir)
        preprocessing = _json_or_none(model_dir / "preprocess.json")
        classes = _json_or_none(model_dir / "labels.json")
        self.model = TabularPredictor(
            model_dir / "model.onnx", preprocessing=preprocessing, classes=classes, threads=threads
        )
        self.template = "tabular_regression" if self.model.regression else "tabular_classification"
        self.prediction_kind: PredictionKind = (
            "regression_prediction" if self.model.regression else "classification_prediction"
        )
        self.classes = list(self.model.classes)

    def predict(self, instances: Sequence[Any], top_k: int) -> list[list[dict[str, Any]]]:
        return self.predict_detailed(instances, top_k)[0]

    def predict_detailed(
        self, instances: Sequence[Any], top_k: int
    ) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
        """(answers, per row ``{"imputed": [columns filled by the missing-value rule]}``)."""
        from workers.serving.protocol import PredictionInputError

        try:
            rows = self.model.check_rows(instances)
            imputed = []
            for i, row in enumerate(rows):
                try:
                    imputed.append(check_row(self.model.preprocessing, row, where=f"instances[{i}]"))
                except RowContractError as exc:
                    field = f"instances[{i}].{exc.columns[0]}" if len(exc.columns) == 1 else f"instances[{i}]"
                    raise PredictionInputError(
                        400, exc.code, str(exc), {"field": field, "columns": exc.columns}
                    ) from None
            return self.model.predict(rows, top_k=top_k), [{"imputed": columns} for columns in imputed]
        except TabularInputError as exc:
            raise PredictionInputError(400, "invalid_instance", str(exc)) from None

    def predict_encoded(self, matrix: np.ndarray, top_k: int) -> list[list[dict[str, Any]]]:
        """The answers for rows already held to the contract and encoded at once
        (:func:`workers.tabular.encoding.encode_columns`' clean rows, nothing imputed): what
        :meth:`predict` answers for the same rows. Batch prediction's columnar path."""
        return self.model.answers(self.model.run(matrix), top_k)


def _json_or_none(path: Path) -> Any:
    if not path.is_file():
        return None
    return json.loads(path.read_text()) or None
