"""Serving text classifiers with ONNX Runtime and ``tokenizers`` (no torch): raw text in, classes
with scores out. Evaluation, hosted endpoints and packages share it, and the tokenizer.json it uses
is the one training used (inline in the preprocessing spec)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.prediction import PredictionKind
from workers.shared.onnx_model import check_onnx_self_contained
from workers.text_classification.tokenization import METADATA_KEY, TextTokenizer


class TextClassifier:
    """>>> TextClassifier("model.onnx").predict(["Return the square root of x."], top_k=1)  # doctest: +SKIP
    [[{'index': 2, 'label': 'numbers', 'score': 0.93}]]
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        preprocessing: Mapping[str, Any] | None = None,
        classes: Sequence[str] | None = None,
        threads: int | None = None,
        batch_size: int = 32,
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
        beside = Path(model_path).with_name("tokenizer.json")
        shipped = metadata.get(METADATA_KEY) or (beside.read_text() if beside.is_file() else None)
        self.tokenizer = TextTokenizer(self.preprocessing, shipped)
        self.classes = (
            list(classes) if classes is not None else json.loads(metadata.get("sampan.classes", "[]"))
        )
        self.batch_size = batch_size

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities (len(texts), classes); texts are tokenized in batches."""
        chunks = []
        for start in range(0, len(texts), self.batch_size):
            inputs = self.tokenizer(list(texts[start : start + self.batch_size]))
            (out,) = self.session.run([self.preprocessing["output"]], inputs)
            chunks.append(np.asarray(out, dtype=np.float64))
        return np.concatenate(chunks) if chunks else np.zeros((0, len(self.classes)))

    def predict(self, texts: Sequence[str], top_k: int = 5) -> list[list[dict[str, Any]]]:
        probabilities = self.probabilities(texts)
        k = min(top_k, probabilities.shape[1]) if len(probabilities) else top_k
        return [
            [
                {
                    "index": int(i),
                    "label": self.classes[i] if self.classes else str(i),
                    "score": float(row[i]),
                }
                for i in np.argsort(-row, kind="stable")[:k]
            ]
            for row in probabilities
        ]


class TextServingPredictor:
    """The serving protocol's predictor (``workers.serving.predictors``) for a model directory:
    ``model.onnx`` + ``preprocess.json`` (with the tokenizer) + ``labels.json``; instances are texts."""

    template = "text_classification"
    data_kind = "text"
    prediction_kind: PredictionKind = "classification_prediction"

    def __init__(self, model_dir: str | os.PathLike[str], *, threads: int | None = None) -> None:
        model_dir = Path(model_dir)
        found = {
            name: json.loads((model_dir / name).read_text()) if (model_dir / name).is_file() else None
            for name in ("preprocess.json", "labels.json")
        }
        self.model = TextClassifier(
            model_dir / "model.onnx",
            preprocessing=found["preprocess.json"] or None,
            classes=found["labels.json"] or None,
            threads=threads,
        )
        self.classes = list(self.model.classes)

    def predict(self, instances: Sequence[Any], top_k: int) -> list[list[dict[str, Any]]]:
        return self.model.predict([str(text) for text in instances], top_k=top_k)
