"""A deployed detector: ONNX Runtime, Pillow and NumPy (no torch), shared by evaluation, the hosted
API and the packages, so they find the same boxes.

A model directory holds ``model.onnx`` (input ``input`` [batch, 3, S, S]; outputs ``scores`` and
``boxes``, see :mod:`workers.object_detection.decode`), ``preprocess.json`` (the image
classification spec: the image is stretched to S x S), ``labels.json`` (class names in output
order) and ``manifest.json`` (``{"template": "object_detection"}``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from workers.contracts.annotations import DetectedBox, DetectionPrediction
from workers.contracts.prediction import PredictionKind
from workers.image_classification.preprocessing import preprocess_batch, to_rgb, validate_spec
from workers.object_detection.decode import decode
from workers.shared.onnx_model import check_onnx_self_contained

SCORES_OUTPUT = "scores"
BOXES_OUTPUT = "boxes"
INPUT_NAME = "input"
DEFAULT_SCORE_THRESHOLD = 0.3
DEFAULT_MAX_DETECTIONS = 100
BATCH_LIMIT = 32  # images per ONNX Runtime call (bounds memory on large requests)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


class Detector:
    """An exported detector.

    >>> detector = Detector("out/")  # doctest: +SKIP
    >>> detector.detect([Image.open("street.jpg")], score_threshold=0.5)  # doctest: +SKIP
    [{'boxes': [{'label': 'car', 'index': 0, 'score': 0.91, 'x': 12.0, 'y': 40.5, 'width': 88.0,
      'height': 51.2}], 'width': 640, 'height': 480}]
    """

    template = "object_detection"
    data_kind = "image"
    prediction_kind: PredictionKind = "detection_prediction"

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        preprocessing: Mapping[str, Any] | None = None,
        classes: Sequence[str] | None = None,
        threads: int | None = None,
    ) -> None:
        """``model``: a model directory, or a bare ``model.onnx`` whose preprocessing and class names
        come from the arguments, else from the model's metadata (Sampan's export stores both)."""
        import onnxruntime

        model = Path(model)
        model_path = model / "model.onnx" if model.is_dir() else model
        check_onnx_self_contained(model_path)
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            os.fspath(model_path), options, providers=["CPUExecutionProvider"]
        )
        metadata = self.session.get_modelmeta().custom_metadata_map
        if preprocessing is None:
            preprocessing = _read_json(model / "preprocess.json") if model.is_dir() else None
        if preprocessing is None:
            preprocessing = (
                json.loads(metadata["sampan.preprocessing"]) if "sampan.preprocessing" in metadata else None
            )
        if preprocessing is None:
            raise ValueError(f"{model_path} carries no preprocessing spec; pass preprocessing=")
        self.preprocessing = validate_spec(preprocessing)
        if classes is None:
            classes = _read_json(model / "labels.json") if model.is_dir() else None
        if classes is None:
            classes = json.loads(metadata["sampan.classes"]) if "sampan.classes" in metadata else None
        if classes is None:
            raise ValueError(f"{model_path} carries no class names; pass classes=")
        self.classes: list[str] = list(classes)
        outputs = {output.name: output.shape for output in self.session.get_outputs()}
        if set(outputs) != {SCORES_OUTPUT, BOXES_OUTPUT}:
            raise ValueError(f"{model_path} is not a Sampan detector (outputs {sorted(outputs)})")
        channels = outputs[SCORES_OUTPUT][1]
        if isinstance(channels, int) and channels != len(self.classes):
            raise ValueError(
                f"the model scores {channels} classes but {len(self.classes)} class names were given"
            )
        self.input_name = self.session.get_inputs()[0].name

    def raw_outputs(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(scores, boxes) of a preprocessed batch, run in chunks of ``BATCH_LIMIT`` images."""
        scores, boxes = [], []
        for start in range(0, len(batch), BATCH_LIMIT):
            chunk = np.ascontiguousarray(batch[start : start + BATCH_LIMIT], dtype=np.float32)
            chunk_scores, chunk_boxes = self.session.run(
                [SCORES_OUTPUT, BOXES_OUTPUT], {self.input_name: chunk}
            )
            scores.append(chunk_scores)
            boxes.append(chunk_boxes)
        return np.concatenate(scores), np.concatenate(boxes)

    def detect(
        self,
        images: Sequence[Image.Image],
        *,
        score_threshold: float = DEFAULT_SCORE_THRESHOLD,
        max_detections: int = DEFAULT_MAX_DETECTIONS,
    ) -> list[DetectionPrediction]:
        """Each image's boxes in its own pixels, by descending score."""
        if not images:
            return []
        rgb = [to_rgb(image, self.preprocessing) for image in images]
        height, width = self.preprocessing["image_size"]
        scores, boxes = self.raw_outputs(preprocess_batch(rgb, self.preprocessing))
        found = decode(
            scores,
            boxes,
            scale_x=[image.width / width for image in rgb],
            scale_y=[image.height / height for image in rgb],
            score_threshold=score_threshold,
            max_detections=max_detections,
        )
        return [
            {
                "boxes": [self._box(detection) for detection in detections],
                "width": image.width,
                "height": image.height,
            }
            for image, detections in zip(rgb, found, strict=True)
        ]

    def _box(self, detection: tuple[int, float, float, float, float, float]) -> DetectedBox:
        index, score, x, y, w, h = detection
        return {
            "label": self.classes[index],
            "index": index,
            "score": score,
            "x": x,
            "y": y,
            "width": w,
            "height": h,
        }

    def predict(self, instances: Sequence[Any], top_k: int = 0) -> list[DetectionPrediction]:
        """Serving's generic call (``top_k`` is ignored for detectors): :meth:`detect` with defaults."""
        return self.detect(instances)
