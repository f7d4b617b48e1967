"""What a package is built from: one model version's files and facts (no Django, no torch)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workers.contracts.annotations import DetectionBox


@dataclass(frozen=True)
class ModelArtifacts:
    """A trained model version, as the package builders need it.

    ``model_path``: the self-contained ``model.onnx``; ``preprocessing``: its preprocessing spec
    (``preprocess.json``); ``classes``: class names in output order (``labels.json``);
    ``template``: the task template's name; ``model_version``: what the package reports as its
    version, e.g. ``{"id": 12, "name": "V3", "template": "image_classification"}`` (JSON-able;
    more keys such as ``project`` or ``dataset_version`` are kept in the manifest);
    ``test_images``: image files of the test split (test vectors and, for the device SDK, the
    int8 model's accuracy); ``test_labels``: their class indices, when known (classification).
    Text and tabular models take ``test_instances`` instead of images: raw texts, or rows (dicts with
    the original column names); ``test_labels`` then label those. Regression models have no classes.
    Detectors take ``test_boxes``: each test image's true boxes (``DetectionBox``: class index and
    x, y, width, height in the image's own pixels), so the device SDK reports mAP@.5 of fp32 and int8.

    >>> ModelArtifacts("run/model.onnx", spec, ["cat", "dog"], "image_classification",
    ...                {"id": 3, "name": "V1"}, ["cat1.png"], [0])  # doctest: +SKIP
    """

    model_path: str | os.PathLike[str]
    preprocessing: Mapping[str, Any]
    classes: Sequence[str]
    template: str
    model_version: Mapping[str, Any]
    test_images: Sequence[str | os.PathLike[str]] = field(default_factory=tuple)
    test_labels: Sequence[int] | None = None
    test_instances: Sequence[Any] = field(default_factory=tuple)
    test_boxes: Sequence[Sequence[DetectionBox]] | None = None

    @property
    def test_inputs(self) -> Sequence[Any]:
        """The test split's inputs: image paths, or texts / rows for text and tabular models."""
        return self.test_instances if len(self.test_instances) else self.test_images

    def __post_init__(self) -> None:
        if not Path(self.model_path).is_file():
            raise ValueError(f"model file {os.fspath(self.model_path)} does not exist")
        if not self.classes and self.template not in ("tabular_regression", "time_series_forecasting"):
            raise ValueError("classes must name at least one class")
        if len(self.test_images) and len(self.test_instances):
            raise ValueError("give test_images or test_instances, not both")
        if self.test_labels is not None and len(self.test_labels) != len(self.test_inputs):
            raise ValueError(f"{len(self.test_labels)} test labels for {len(self.test_inputs)} test inputs")
        if self.test_labels is not None and any(
            not 0 <= int(label) < len(self.classes) for label in self.test_labels
        ):
            raise ValueError(f"test labels must be class indices in [0, {len(self.classes)})")
        if self.test_boxes is not None:
            if len(self.test_boxes) != len(self.test_images):
                raise ValueError(
                    f"{len(self.test_boxes)} test box lists for {len(self.test_images)} test images"
                )
            if any(
                not 0 <= int(box["label"]) < len(self.classes) for boxes in self.test_boxes for box in boxes
            ):
                raise ValueError(f"test box labels must be class indices in [0, {len(self.classes)})")
