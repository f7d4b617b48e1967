"""Detect objects with this SDK's ONNX model: onnxruntime, NumPy and Pillow only.

    python python/detect.py photo.jpg another.png                      # the int8 model by default
    python python/detect.py photo.jpg --model model.fp32.onnx --score-threshold 0.5
    python python/detect.py --test-vectors --model model.fp32.onnx     # compare with the platform

The preprocessing and the box decoding are the platform's own code, copied unchanged into
``python/workers/`` when the SDK was built (``workers/image_classification/preprocessing.py``:
decode, upright, RGB, stretch to the model's size, normalize; ``workers/object_detection/decode.py``:
heatmap peaks, per-class NMS, boxes in the original image's pixels), so the answers are the
platform's. Prints one JSON line per image: ``{"image", "width", "height", "boxes": [{"label",
"index", "score", "x", "y", "width", "height"}, ...]}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime

SAMPLE = Path(__file__).resolve().parent
SDK = SAMPLE.parent
sys.path.insert(0, str(SAMPLE))  # the vendored platform modules under python/workers/

from workers.image_classification.preprocessing import open_image, preprocess_batch  # noqa: E402
from workers.object_detection.decode import decode  # noqa: E402

BATCH = 16
# fp32 on the same ONNX Runtime gives the platform's boxes up to float rounding
BOX_ATOL_PX, SCORE_ATOL = 0.01, 1e-4


class DeviceDetector:
    def __init__(self, model_path: str | Path, spec: dict[str, Any], labels: list[str]) -> None:
        self.session = onnxruntime.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        self.spec, self.labels = spec, labels

    def detect(
        self, paths: Sequence[str | Path], *, score_threshold: float = 0.3, max_detections: int = 100
    ) -> list[dict[str, Any]]:
        """Each image's boxes in its own pixels, by descending score."""
        height, width = self.spec["image_size"]
        answers: list[dict[str, Any]] = []
        for start in range(0, len(paths), BATCH):
            images = [open_image(path, self.spec) for path in paths[start : start + BATCH]]
            scores, boxes = self.session.run(
                ["scores", "boxes"], {self.input_name: preprocess_batch(images, self.spec)}
            )
            found = decode(
                scores,
                boxes,
                scale_x=[image.width / width for image in images],
                scale_y=[image.height / height for image in images],
                score_threshold=score_threshold,
                max_detections=max_detections,
            )
            for image, detections in zip(images, found, strict=True):
                answers.append(
                    {
                        "width": image.width,
                        "height": image.height,
                        "boxes": [
                            {
                                "label": self.labels[c],
                                "index": c,
                                "score": s,
                                "x": x,
                                "y": y,
                                "width": w,
                                "height": h,
                            }
                            for c, s, x, y, w, h in detections
                        ],
                    }
                )
        return answers


def same_boxes(got: list[dict[str, Any]], wanted: list[dict[str, Any]]) -> bool:
    """The same boxes in the same order: class, score and corners within the tolerances."""
    if len(got) != len(wanted):
        return False
    for a, b in zip(got, wanted, strict=True):
        corners = [a[k] - b[k] for k in ("x", "y", "width", "height")]
        if a["index"] != b["index"] or abs(a["score"] - b["score"]) > SCORE_ATOL:
            return False
        if np.abs(corners).max() > BOX_ATOL_PX:
            return False
    return True


def check_test_vectors(detector: DeviceDetector, model_name: str, out: str | None) -> int:
    expected = json.loads((SDK / "test_vectors" / f"expected.{model_name}.json").read_text())
    vectors = expected["vectors"]
    files = [SDK / "test_vectors" / vector["file"] for vector in vectors]
    answers = detector.detect(
        files, score_threshold=expected["score_threshold"], max_detections=expected["max_detections"]
    )
    same = [same_boxes(a["boxes"], v["boxes"]) for a, v in zip(answers, vectors, strict=True)]
    result = {
        "model": model_name,
        "vectors": len(files),
        "boxes": sum(len(a["boxes"]) for a in answers),
        "expected_boxes": sum(len(v["boxes"]) for v in vectors),
        "same": all(same),
        "same_vectors": sum(same),
    }
    if out:
        Path(out).write_text(json.dumps({"files": [str(f) for f in files], "answers": answers}))
    print(json.dumps(result))
    return 0 if all(same) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description="Detect objects with the Sampan device SDK.")
    parser.add_argument("images", nargs="*")
    parser.add_argument("--model", default=str(SDK / "model.int8.onnx"))
    parser.add_argument("--score-threshold", type=float, default=0.3)
    parser.add_argument("--max-detections", type=int, default=100)
    parser.add_argument("--test-vectors", action="store_true", help="run on test_vectors/ and compare")
    parser.add_argument("--out", help="with --test-vectors: write the answers to this JSON file")
    args = parser.parse_args()
    spec = json.loads((SDK / "preprocess.json").read_text())
    labels = json.loads((SDK / "labels.json").read_text())
    detector = DeviceDetector(args.model, spec, labels)
    if args.test_vectors:
        return check_test_vectors(detector, "int8" if "int8" in Path(args.model).name else "fp32", args.out)
    if not args.images:
        parser.error("name at least one image (or --test-vectors)")
    answers = detector.detect(
        args.images, score_threshold=args.score_threshold, max_detections=args.max_detections
    )
    for path, answer in zip(args.images, answers, strict=True):
        print(json.dumps({"image": path, **answer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
