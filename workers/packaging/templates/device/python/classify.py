"""Classify images with this SDK's ONNX model: onnxruntime, NumPy and Pillow only.

    python classify.py photo.jpg another.png --top-k 3           # the int8 model by default
    python classify.py photo.jpg --model ../model.fp32.onnx
    python classify.py --test-vectors --model ../model.fp32.onnx  # compare with the platform's answers

The preprocessing follows ../preprocess.json exactly as the platform does it: decode, EXIF
orientation, alpha composited over the background, RGB, resize with Pillow (stretch, or shorter
side then centre crop), (pixel * scale - mean) / std, HWC -> CHW, float32.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime
from PIL import Image, ImageOps

SDK = Path(__file__).resolve().parent.parent
RESAMPLE = {
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "nearest": Image.Resampling.NEAREST,
}


def load_image(path: str | Path, spec: dict[str, Any]) -> Image.Image:
    """An image file, upright, in RGB (transparency composited over the spec's background)."""
    with Image.open(path) as opened:
        opened.load()
        image = ImageOps.exif_transpose(opened)
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        image.mode == "P" and "transparency" in image.info
    ):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, tuple(spec.get("alpha_background", (255, 255, 255))) + (255,))
        canvas.alpha_composite(rgba)
        return canvas.convert("RGB")
    return image.convert("RGB")


def resize(image: Image.Image, spec: dict[str, Any]) -> Image.Image:
    height, width = spec["image_size"]
    resample = RESAMPLE[spec["resample"]]
    if spec["resize_mode"] == "stretch":
        return image.resize((width, height), resample)
    fraction = float(spec["crop_fraction"])
    scale = max(width / fraction / image.width, height / fraction / image.height)
    resized_w, resized_h = max(width, round(image.width * scale)), max(height, round(image.height * scale))
    resized = image.resize((resized_w, resized_h), resample)
    left, top = (resized_w - width) // 2, (resized_h - height) // 2
    return resized.crop((left, top, left + width, top + height))


def preprocess(image: Image.Image, spec: dict[str, Any]) -> npt.NDArray[np.float32]:
    """One RGB image -> float32 (3, H, W)."""
    pixels = np.asarray(resize(image, spec), dtype=np.uint8)
    chw = pixels.transpose(2, 0, 1).astype(np.float32) * np.float32(spec["scale"])
    mean = np.asarray(spec["mean"], dtype=np.float32).reshape(3, 1, 1)
    std = np.asarray(spec["std"], dtype=np.float32).reshape(3, 1, 1)
    return (chw - mean) / std


class Classifier:
    def __init__(self, model_path: str | Path, spec: dict[str, Any], labels: list[str]) -> None:
        self.session = onnxruntime.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        batch = self.session.get_inputs()[0].shape[0]  # an int when the model's batch is fixed, else a name
        self.batch_size = batch if isinstance(batch, int) and batch > 0 else None
        self.spec, self.labels = spec, labels

    def logits(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Run the model; a fixed batch dimension takes chunks of its size, the last one padded with zeros."""
        fixed = self.batch_size
        if fixed is None or len(batch) == fixed:
            outputs: list[npt.NDArray[np.float32]] = self.session.run(None, {self.input_name: batch})
            return outputs[0]
        chunks = []
        for start in range(0, len(batch), fixed):
            chunk = batch[start : start + fixed]
            rows = len(chunk)
            if rows < fixed:
                chunk = np.concatenate([chunk, np.zeros((fixed - rows, *chunk.shape[1:]), np.float32)])
            chunks.append(self.session.run(None, {self.input_name: chunk})[0][:rows])
        return np.concatenate(chunks)

    def scores(self, paths: Sequence[str | Path]) -> npt.NDArray[np.float32]:
        """Class probabilities, shaped (len(paths), classes)."""
        batch = np.stack([preprocess(load_image(p, self.spec), self.spec) for p in paths])
        logits = self.logits(batch)
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp: npt.NDArray[np.float32] = np.exp(shifted)
        probabilities: npt.NDArray[np.float32] = exp / exp.sum(axis=1, keepdims=True)
        return probabilities

    def classify(self, paths: Sequence[str | Path], top_k: int = 5) -> list[list[dict[str, Any]]]:
        answers = []
        for row in self.scores(paths):
            best = np.argsort(-row, kind="stable")[:top_k]
            answers.append([{"index": int(i), "label": self.labels[i], "score": float(row[i])} for i in best])
        return answers


def check_test_vectors(classifier: Classifier, model_name: str, out: str | None) -> int:
    expected = json.loads((SDK / "test_vectors" / f"expected.{model_name}.json").read_text())
    files = [SDK / "test_vectors" / vector["file"] for vector in expected["vectors"]]
    scores = classifier.scores(files)
    wanted = np.array([vector["scores"] for vector in expected["vectors"]])
    result = {
        "model": model_name,
        "vectors": len(files),
        "allclose": bool(np.allclose(scores, wanted, rtol=1e-4, atol=1e-5)),
        "max_abs_diff": float(np.abs(scores - wanted).max()),
        "top1_agreement": float((scores.argmax(axis=1) == wanted.argmax(axis=1)).mean()),
    }
    if out:
        Path(out).write_text(json.dumps({"files": [str(f) for f in files], "scores": scores.tolist()}))
    print(json.dumps(result))
    return 0 if result["top1_agreement"] == 1.0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description="Classify images with the Sampan device SDK.")
    parser.add_argument("images", nargs="*")
    parser.add_argument("--model", default=str(SDK / "model.int8.onnx"))
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--test-vectors", action="store_true", help="run on test_vectors/ and compare")
    parser.add_argument("--out", help="with --test-vectors: write the scores to this JSON file")
    args = parser.parse_args()
    spec = json.loads((SDK / "preprocess.json").read_text())
    labels = json.loads((SDK / "labels.json").read_text())
    classifier = Classifier(args.model, spec, labels)
    if args.test_vectors:
        return check_test_vectors(classifier, "int8" if "int8" in Path(args.model).name else "fp32", args.out)
    if not args.images:
        parser.error("name at least one image (or --test-vectors)")
    for path, answer in zip(args.images, classifier.classify(args.images, args.top_k), strict=True):
        print(json.dumps({"image": path, "top_k": answer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
