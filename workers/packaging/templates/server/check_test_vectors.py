"""Check this package against its test vectors (the platform's answers when it was built).

    python check_test_vectors.py                         # the predictor in this process
    SAMPAN_SERVER_API_KEY=... python check_test_vectors.py --url http://127.0.0.1:8080
                                                         # a running server, over HTTP

Classification: every class's score must match within rtol=1e-4, atol=1e-5 and the top class must
be the same; regression: the values must match within the same tolerances; detection: the same boxes
in the same order (class, and score and coordinates within the same tolerances); forecasts: the same
series ids and timestamps, the mean and every quantile within the same tolerances. The vectors are image
files (image models) or the JSON instances a request sends (texts, table rows). Prints one JSON line
with the result; exits 1 when a vector differs.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
RTOL, ATOL = 1e-4, 1e-5
BATCH = 16


def predictor_inputs(vectors: list[dict[str, Any]], data_kind: str, base: Path) -> list[Any]:
    """What the predictor takes, as the server's request parser hands it over."""
    if data_kind == "image":
        from workers.image_classification.preprocessing import open_image

        return [open_image(base / vector["file"]) for vector in vectors]
    if data_kind == "text":
        return [vector["instance"]["text"] for vector in vectors]
    return [vector["instance"] for vector in vectors]


def request_instance(vector: dict[str, Any], data_kind: str, base: Path) -> Any:
    if data_kind == "image":
        return {"image": base64.b64encode((base / vector["file"]).read_bytes()).decode()}
    return vector["instance"]


def answers_in_process(
    vectors: list[dict[str, Any]], data_kind: str, base: Path, top_k: int
) -> list[list[dict[str, Any]]]:
    from workers.serving.predictors import load_predictor

    predictor = load_predictor(ROOT)
    return predictor.predict(predictor_inputs(vectors, data_kind, base), top_k)


def answers_over_http(
    vectors: list[dict[str, Any]], data_kind: str, base: Path, top_k: int, url: str, key: str
) -> list[list[dict[str, Any]]]:
    answers: list[list[dict[str, Any]]] = []
    for start in range(0, len(vectors), BATCH):
        body = json.dumps(
            {
                "instances": [request_instance(v, data_kind, base) for v in vectors[start : start + BATCH]],
                "top_k": top_k,
            }
        ).encode()
        request = urllib.request.Request(
            url.rstrip("/") + "/predict",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.extend(p["top_k"] for p in json.load(response)["predictions"])
    return answers


def detections(
    vectors: list[dict[str, Any]], base: Path, options: dict[str, Any], url: str | None, key: str
) -> list[dict[str, Any]]:
    """A detector's answers (``{"boxes", "width", "height"}`` per vector), in process or over HTTP."""
    if not url:
        from workers.serving.predictors import load_predictor

        detector: Any = load_predictor(ROOT)
        found: list[dict[str, Any]] = detector.detect(predictor_inputs(vectors, "image", base), **options)
        return found
    answers: list[dict[str, Any]] = []
    for start in range(0, len(vectors), BATCH):
        instances = [request_instance(v, "image", base) for v in vectors[start : start + BATCH]]
        request = urllib.request.Request(
            url.rstrip("/") + "/predict",
            data=json.dumps({"instances": instances, **options}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.extend(json.load(response)["predictions"])
    return answers


def check_detections(expected: dict[str, Any], base: Path, url: str | None, out: str | None) -> int:
    vectors = expected["vectors"]
    options = {"score_threshold": expected["score_threshold"], "max_detections": expected["max_detections"]}
    answers = detections(vectors, base, options, url, os.environ.get("SAMPAN_SERVER_API_KEY", ""))
    same, worst = len(answers) == len(vectors), 0.0
    fields = ("score", "x", "y", "width", "height")
    for answer, vector in zip(answers, vectors, strict=False):
        got, wanted = answer["boxes"], vector["boxes"]
        if len(got) != len(wanted) or [b["index"] for b in got] != [b["index"] for b in wanted]:
            same = False
            continue
        if got:
            a = np.array([[b[f] for f in fields] for b in got], dtype=np.float64)
            w = np.array([[b[f] for f in fields] for b in wanted], dtype=np.float64)
            worst = max(worst, float(np.abs(a - w).max()))
            same = same and bool(np.allclose(a, w, rtol=RTOL, atol=ATOL))
    result = {
        "vectors": len(vectors),
        "boxes": sum(len(v["boxes"]) for v in vectors),
        "allclose": same,
        "max_abs_diff": worst,
    }
    if out:
        Path(out).write_text(json.dumps({"predictions": answers}))
    print(json.dumps(result))
    return 0 if same else 1


def forecasts(vectors: list[dict[str, Any]], url: str | None, key: str) -> list[dict[str, Any]]:
    """A forecaster's answers (one ForecastPrediction per series), in process or over HTTP."""
    instances = [vector["instance"] for vector in vectors]
    if not url:
        from workers.serving.predictors import load_predictor

        forecaster: Any = load_predictor(ROOT)
        found: list[dict[str, Any]] = forecaster.forecast({"instances": instances})
        return found
    answers: list[dict[str, Any]] = []
    for start in range(0, len(instances), BATCH):
        request = urllib.request.Request(
            url.rstrip("/") + "/predict",
            data=json.dumps({"instances": instances[start : start + BATCH]}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.extend(json.load(response)["predictions"])
    return answers


def check_forecasts(expected: dict[str, Any], url: str | None, out: str | None) -> int:
    vectors = expected["vectors"]
    answers = forecasts(vectors, url, os.environ.get("SAMPAN_SERVER_API_KEY", ""))
    same, worst = len(answers) == len(vectors), 0.0
    for got, vector in zip(answers, vectors, strict=False):
        wanted = vector["prediction"]
        levels = sorted(wanted["quantiles"])
        if (got["id"], got["timestamps"], sorted(got["quantiles"])) != (
            wanted["id"],
            wanted["timestamps"],
            levels,
        ):
            same = False
            continue
        a = np.array([got["mean"], *(got["quantiles"][q] for q in levels)], dtype=np.float64)
        w = np.array([wanted["mean"], *(wanted["quantiles"][q] for q in levels)], dtype=np.float64)
        worst = max(worst, float(np.abs(a - w).max()))
        same = same and bool(np.allclose(a, w, rtol=RTOL, atol=ATOL))
    if out:
        Path(out).write_text(json.dumps({"predictions": answers}))
    print(json.dumps({"vectors": len(vectors), "allclose": same, "max_abs_diff": worst}))
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--expected", default=str(ROOT / "test_vectors" / "expected.json"))
    parser.add_argument(
        "--out", help="write the answers (scores by class index, or values) to this JSON file"
    )
    args = parser.parse_args()
    expected = json.loads(Path(args.expected).read_text())
    if expected.get("task") == "forecast":
        return check_forecasts(expected, args.url, args.out)
    if expected.get("task") == "detection":
        return check_detections(expected, Path(args.expected).parent, args.url, args.out)
    classes, vectors = expected["classes"], expected["vectors"]
    data_kind = expected.get("data_kind", "image")
    regression = expected.get("task") == "regression"
    base = Path(args.expected).parent
    top_k = max(len(classes), 1)
    if args.url:
        ranked = answers_over_http(
            vectors, data_kind, base, top_k, args.url, os.environ.get("SAMPAN_SERVER_API_KEY", "")
        )
    else:
        ranked = answers_in_process(vectors, data_kind, base, top_k)
    if regression:
        got = np.array([answer[0]["value"] for answer in ranked], dtype=np.float64)
        wanted = np.array([vector["value"] for vector in vectors], dtype=np.float64)
        same_top = [True] * len(vectors)
    else:
        got = np.zeros((len(vectors), len(classes)))
        for row, answer in enumerate(ranked):
            for entry in answer:
                got[row, entry["index"]] = entry["score"]
        wanted = np.array([vector["scores"] for vector in vectors])
        same_top = [
            answer[0]["index"] == vector["top_k"][0]["index"]
            for answer, vector in zip(ranked, vectors, strict=True)
        ]
    close = bool(np.allclose(got, wanted, rtol=RTOL, atol=ATOL)) and len(ranked) == len(vectors)
    result = {
        "vectors": len(vectors),
        "allclose": close,
        "max_abs_diff": float(np.max(np.abs(got - wanted))) if len(vectors) else 0.0,
    }
    if not regression:
        result["top1_agreement"] = sum(same_top) / len(vectors) if vectors else 1.0
    if args.out:
        key = "values" if regression else "scores"
        Path(args.out).write_text(json.dumps({key: got.tolist(), "top_k": ranked}))
    print(json.dumps(result))
    return 0 if close and all(same_top) else 1


if __name__ == "__main__":
    sys.exit(main())
