"""Predict with this SDK's ONNX model, in process, with the platform's own predictor code (vendored
under ./workers, byte for byte): the same tokenization / row encoding as training.

    python predict.py "some text" "another text" --top-k 3                # text models
    python predict.py '{"alcohol": 13.2, "ash": 2.4}' --top-k 1           # tabular: JSON rows
    python predict.py --test-vectors --model ../model.fp32.onnx           # compare with the platform

The int8 model is used by default when the SDK has one, else the fp32 one. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

HERE = Path(__file__).resolve().parent
SDK = HERE.parent
sys.path.insert(0, str(HERE))
RTOL, ATOL = 1e-4, 1e-5

if TYPE_CHECKING:
    from workers.tabular.predictor import TabularPredictor
    from workers.text_classification.predictor import TextClassifier


def load(model_path: str) -> tuple[TextClassifier | TabularPredictor, str]:
    spec = json.loads((SDK / "preprocess.json").read_text())
    classes = json.loads((SDK / "labels.json").read_text())
    if spec.get("kind") == "text":
        from workers.text_classification.predictor import TextClassifier

        return TextClassifier(model_path, preprocessing=spec, classes=classes), "text"
    from workers.tabular.predictor import TabularPredictor

    return TabularPredictor(model_path, preprocessing=spec, classes=classes), "tabular"


def check_vectors(model: TextClassifier | TabularPredictor, kind: str, model_path: str) -> int:
    name = Path(model_path).name.split(".")[1]  # model.fp32.onnx -> fp32
    expected = json.loads((SDK / "test_vectors" / f"expected.{name}.json").read_text())
    vectors, classes = expected["vectors"], expected["classes"]
    inputs = [v["instance"]["text"] if kind == "text" else v["instance"] for v in vectors]
    ranked = model.predict(inputs, top_k=max(len(classes), 1))
    if expected["task"] == "regression":
        got = np.array([answer[0]["value"] for answer in ranked])
        wanted = np.array([v["value"] for v in vectors])
    else:
        got = np.zeros((len(vectors), len(classes)))
        for row, answer in enumerate(ranked):
            for entry in answer:
                got[row, entry["index"]] = entry["score"]
        wanted = np.array([v["scores"] for v in vectors])
    close = bool(np.allclose(got, wanted, rtol=RTOL, atol=ATOL))
    print(
        json.dumps(
            {
                "model": Path(model_path).name,
                "vectors": len(vectors),
                "allclose": close,
                "max_abs_diff": float(np.max(np.abs(got - wanted))) if len(vectors) else 0.0,
                "answers": got.tolist(),
            }
        )
    )
    return 0 if close else 1


def main() -> int:
    default = SDK / "model.int8.onnx" if (SDK / "model.int8.onnx").is_file() else SDK / "model.fp32.onnx"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="*", help="texts, or rows as JSON objects")
    parser.add_argument("--model", default=str(default))
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--test-vectors", action="store_true", help="check the model against test_vectors/")
    args = parser.parse_args()
    model, kind = load(args.model)
    if args.test_vectors:
        return check_vectors(model, kind, args.model)
    inputs = list(args.inputs) if kind == "text" else [json.loads(row) for row in args.inputs]
    print(json.dumps(model.predict(inputs, top_k=args.top_k)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
