"""Forecast with this SDK's model, in process, with the platform's own forecaster code (vendored
under ./workers, byte for byte): the same request checks, features and members as the platform.

    python forecast.py --test-vectors                               # compare with the platform
    python forecast.py history.json --horizon 3 --quantiles 0.1 0.9 # one series or a list of them

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SDK = HERE.parent
sys.path.insert(0, str(HERE))
RTOL, ATOL = 1e-4, 1e-5

from workers.time_series.predictor import Forecaster, ForecastInputError  # noqa: E402


def load(model_path: str) -> Forecaster:
    spec = json.loads((SDK / "preprocess.json").read_text())
    return Forecaster(model_path, preprocessing=spec)


def check_vectors(forecaster: Forecaster, model_path: str) -> int:
    """Forecast the test vectors' series in one call and compare with the platform's forecasts."""
    name = Path(model_path).name.split(".")[1]  # model.fp32.onnx -> fp32
    expected = json.loads((SDK / "test_vectors" / f"expected.{name}.json").read_text())
    vectors = expected["vectors"]
    answers = forecaster.forecast([v["instance"] for v in vectors])
    same, worst = len(answers) == len(vectors), 0.0
    for got, vector in zip(answers, vectors, strict=False):
        wanted = vector["prediction"]
        if got["id"] != wanted["id"] or got["timestamps"] != wanted["timestamps"]:
            same = False
            continue
        if sorted(got["quantiles"]) != sorted(wanted["quantiles"]):
            same = False
            continue
        a = np.array([got["mean"], *(got["quantiles"][q] for q in sorted(got["quantiles"]))])
        w = np.array([wanted["mean"], *(wanted["quantiles"][q] for q in sorted(wanted["quantiles"]))])
        worst = max(worst, float(np.abs(a - w).max()))
        same = same and bool(np.allclose(a, w, rtol=RTOL, atol=ATOL))
    print(
        json.dumps(
            {"model": Path(model_path).name, "vectors": len(vectors), "allclose": same, "max_abs_diff": worst}
        )
    )
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("history", nargs="?", help="a JSON file: one series or a list of them")
    parser.add_argument("--model", default=str(SDK / "model.fp32.onnx"))
    parser.add_argument("--horizon", type=int)
    parser.add_argument("--quantiles", type=float, nargs="*")
    parser.add_argument("--test-vectors", action="store_true", help="check the model against test_vectors/")
    args = parser.parse_args()
    forecaster = load(args.model)
    if args.test_vectors:
        return check_vectors(forecaster, args.model)
    if not args.history:
        parser.error("give a history file or --test-vectors")
    series = json.loads(Path(args.history).read_text())
    instances = series if isinstance(series, list) else [series]
    try:
        answers = forecaster.forecast(instances, args.horizon, args.quantiles)
    except ForecastInputError as exc:
        print(json.dumps({"error": {"code": exc.code, "message": exc.message, "details": exc.details}}))
        return 2
    print(json.dumps(answers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
