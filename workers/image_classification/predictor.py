"""Inference with ONNX Runtime, Pillow and NumPy (no torch): the one predictor that evaluation,
hosted endpoints and exported packages share, so they give the same answers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from workers.image_classification.preprocessing import preprocess_batch, validate_spec
from workers.shared.onnx_model import check_onnx_self_contained


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp: np.ndarray = np.exp(shifted)
    probabilities: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
    return probabilities


class ImageClassifier:
    """An exported classifier: ``model.onnx`` plus its preprocessing spec and class names.

    Both default to the ones stored in the model's metadata by Sampan's export.

    >>> classifier = ImageClassifier("out/model.onnx")  # doctest: +SKIP
    >>> classifier.predict([Image.open("cat.jpg")], top_k=2)  # doctest: +SKIP
    [[{'index': 0, 'label': 'cat', 'score': 0.97}, {'index': 1, 'label': 'dog', 'score': 0.03}]]
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
        if threads:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            os.fspath(model_path), options, providers=["CPUExecutionProvider"]
        )
        metadata = self.session.get_modelmeta().custom_metadata_map
        if preprocessing is None and "sampan.preprocessing" not in metadata:
            raise ValueError(f"{os.fspath(model_path)} carries no preprocessing spec; pass preprocessing=")
        self.preprocessing = validate_spec(preprocessing or json.loads(metadata["sampan.preprocessing"]))
        self.classes = (
            list(classes) if classes is not None else json.loads(metadata.get("sampan.classes", "null"))
        )
        self.input_name = self.session.get_inputs()[0].name
        batch = self.session.get_inputs()[0].shape[
            0
        ]  # an int when fixed (a bring-your-own export), else a name
        self.batch_size: int | None = batch if isinstance(batch, int) and batch > 0 else None
        outputs = self.session.get_outputs()[0].shape
        if self.classes is not None and isinstance(outputs[-1], int) and outputs[-1] != len(self.classes):
            raise ValueError(
                f"the model outputs {outputs[-1]} scores but {len(self.classes)} class names were given"
            )

    def logits(self, batch: np.ndarray) -> np.ndarray:
        batch = np.ascontiguousarray(batch, dtype=np.float32)
        fixed = self.batch_size
        if fixed is None or len(batch) == fixed:
            (out,) = self.session.run(None, {self.input_name: batch})
            return np.asarray(out)
        # a fixed batch dimension: run chunks of that size, the last one padded with zero images
        chunks = []
        for start in range(0, len(batch), fixed):
            chunk = batch[start : start + fixed]
            if len(chunk) < fixed:
                chunk = np.concatenate([chunk, np.zeros((fixed - len(chunk), *chunk.shape[1:]), np.float32)])
            (out,) = self.session.run(None, {self.input_name: chunk})
            chunks.append(out[: min(fixed, len(batch) - start)])
        return np.concatenate(chunks) if chunks else np.zeros((0, len(self.classes or [])), np.float32)

    def probabilities(self, images: Sequence[Image.Image]) -> np.ndarray:
        """Class probabilities, shaped (len(images), classes)."""
        return softmax(self.logits(preprocess_batch(images, self.preprocessing)))

    def predict(self, images: Sequence[Image.Image], *, top_k: int = 5) -> list[list[dict[str, Any]]]:
        """The ``top_k`` classes of each image, most likely first."""
        probabilities = self.probabilities(images)
        k = min(top_k, probabilities.shape[1])
        answers = []
        for row in probabilities:
            best = np.argsort(-row, kind="stable")[:k]
            answers.append(
                [
                    {
                        "index": int(i),
                        "label": self.classes[i] if self.classes else str(i),
                        "score": float(row[i]),
                    }
                    for i in best
                ]
            )
        return answers
