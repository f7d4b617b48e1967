"""Detector model directories for tests: a trained tiny one and a constant one (no training).

- :func:`constant_detector` writes an ONNX model (built with ``onnx.helper``, no torch) whose
  ``scores``/``boxes`` maps are fixed, whatever the image: evaluation, serving and packaging tests
  that need known answers.
- :func:`tiny_detector` trains ``det_small`` on synthetic digit scenes once per process and
  returns its model directory (model.onnx, preprocess.json, labels.json, manifest.json);
  :func:`tiny_run` gives that run's manifest, result and reports too.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.annotations import DetectionManifest
from workers.image_classification.preprocessing import make_spec
from workers.object_detection.decode import OUTPUT_STRIDE

ConstantBox = tuple[int, float, float, float, float, float]  # (class, score, x, y, width, height)


def write_model_dir_files(model_dir: Path, classes: Sequence[str], image_size: int) -> None:
    (model_dir / "preprocess.json").write_text(json.dumps(make_spec(image_size)))
    (model_dir / "labels.json").write_text(json.dumps(list(classes)))
    (model_dir / "manifest.json").write_text(json.dumps({"template": "object_detection"}))


def constant_detector(
    path: str | Path, classes: Sequence[str], boxes: Sequence[ConstantBox], *, image_size: int = 64
) -> Path:
    """A model directory at ``path`` whose detector finds ``boxes`` in every image.

    ``boxes``: ``(class index, score, x, y, width, height)`` in the model's input pixels
    (``image_size`` x ``image_size``); an image of W x H pixels gets them scaled by W/image_size and
    H/image_size. Each box sits in the cell of its centre; two boxes must not share a cell.

    >>> constant_detector(tmp / "m", ["cat", "dog"], [(1, 0.9, 8, 8, 20, 16)])  # doctest: +SKIP
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model_dir = Path(path)
    model_dir.mkdir(parents=True, exist_ok=True)
    cells = image_size // OUTPUT_STRIDE
    scores = np.zeros((1, len(classes), cells, cells), np.float32)
    maps = np.zeros((1, 4, cells, cells), np.float32)
    for label, score, x, y, w, h in boxes:
        row = min(cells - 1, int((y + h / 2) // OUTPUT_STRIDE))
        col = min(cells - 1, int((x + w / 2) // OUTPUT_STRIDE))
        if scores[0, :, row, col].any():
            raise ValueError(f"two boxes are centred in cell ({row}, {col})")
        scores[0, label, row, col] = score
        maps[0, :, row, col] = (x, y, w, h)
    graph = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["input", "axes"], ["mean"], keepdims=1),
            helper.make_node("Mul", ["mean", "zero"], ["nothing"]),  # [batch, 1, 1, 1] of zeros
            helper.make_node("Add", ["nothing", "constant_scores"], ["scores"]),
            helper.make_node("Add", ["nothing", "constant_boxes"], ["boxes"]),
        ],
        "constant_detector",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, image_size, image_size])],
        [
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", len(classes), cells, cells]),
            helper.make_tensor_value_info("boxes", TensorProto.FLOAT, ["batch", 4, cells, cells]),
        ],
        initializer=[
            numpy_helper.from_array(np.asarray([1, 2, 3], np.int64), "axes"),
            numpy_helper.from_array(np.zeros((), np.float32), "zero"),
            numpy_helper.from_array(scores, "constant_scores"),
            numpy_helper.from_array(maps, "constant_boxes"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    for key, value in (
        ("sampan.template", "object_detection"),
        ("sampan.classes", json.dumps(list(classes))),
        ("sampan.preprocessing", json.dumps(make_spec(image_size))),
    ):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    onnx.save(model, str(model_dir / "model.onnx"))
    write_model_dir_files(model_dir, classes, image_size)
    return model_dir


TINY_SPEC: dict[str, Any] = {"preset": "fast", "epochs": 2, "image_size": 64, "batch_size": 16}


@dataclass(frozen=True)
class TinyRun:
    """The shared tiny training run: its manifest, result, model directory and every report."""

    manifest: DetectionManifest
    result: dict[str, Any]
    model_dir: Path
    reports: list[dict[str, Any]]


@functools.cache
def tiny_run() -> TinyRun:
    """Train ``det_small`` on 60 synthetic 64x64 scenes (42 train: 2 steps per epoch) for 2 epochs,
    once per process, recording each report with the progress event it makes."""
    from workers.object_detection.synthetic import digit_scenes, write_manifest
    from workers.object_detection.trainer import train
    from workers.progress import progress_event

    root = Path(tempfile.mkdtemp(prefix="sampan-tiny-detector-"))
    atexit.register(shutil.rmtree, root, True)
    manifest = write_manifest(digit_scenes(60, size=64, seed=0, digits_per_image=(1, 3)), root / "data")
    reports: list[dict[str, Any]] = []

    def report(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        progress_event(message, fraction=fraction, **metrics)  # a job's report refuses anything else
        reports.append({"message": message, "fraction": fraction, "milestone": milestone, **metrics})

    result = train(TINY_SPEC, manifest, root / "run", report, device="cpu", threads=2)
    return TinyRun(manifest=manifest, result=result, model_dir=root / "run", reports=reports)


def tiny_detector(tmp: Any = None) -> Path:
    """A trained ``det_small`` model directory (:func:`tiny_run`), shared by every caller in the
    process: do not modify it. ``tmp`` (a path or pytest's tmp_path_factory) is accepted and unused."""
    return tiny_run().model_dir
