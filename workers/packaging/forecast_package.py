"""Forecasters in packages (template ``time_series_forecasting``): the test vectors (series'
histories as a request sends them, and the platform's forecasts of them), the server README's
wording, and the device SDK (the model, its spec, the platform's own forecaster code vendored
byte for byte and a Python sample; no int8: the learned members are tree ensembles, the
statistical ones run from their fitted parameters in NumPy without ONNX)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.package_contents import (
    MAX_TEST_VECTORS,
    TEMPLATES_DIR,
    VECTORS_FORMAT,
    PackagingError,
    copy_template_tree,
    created_at,
    describe_onnx,
    json_safe,
    pinned_requirements,
    vendor_runtime,
    write_json,
)
from workers.progress import Report, silent_report

FORECASTER_MODULE = "workers.time_series.predictor"
STATISTICAL = ("naive", "seasonal_naive", "ets", "arima", "theta")
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def histories_from_manifest(
    manifest: Mapping[str, Any], *, limit: int, horizon: int | None = None
) -> list[dict[str, Any]]:
    """Up to ``limit`` series of a TimeSeriesManifest as a forecast request sends them: each series'
    history before its test window (``[:test_start]``, leading and trailing missing values left out,
    inner ones filled by the manifest's rule), known covariates over that history and the ``horizon``
    steps after it (default the manifest's), static covariates; series without a test window (too
    short) or with fewer than two observed values are skipped. NumPy only (no Django).

    >>> m = {"frequency": "D", "horizon": 2, "fill_rule": "interpolate", "series": [{"id": "a",
    ...      "start": "2024-01-01", "values": [1, None, 3, 4, 5, 6], "known": {}, "static": {},
    ...      "val_start": 2, "test_start": 4}]}
    >>> histories_from_manifest(m, limit=5)[0]["values"]
    [1.0, 2.0, 3.0, 4.0]
    """
    import numpy as np

    from workers.time_series.data import fill_missing
    from workers.time_series.frequency import format_timestamp, parse_frequency, parse_timestamp

    frequency = parse_frequency(str(manifest["frequency"]))
    steps = int(horizon if horizon is not None else manifest["horizon"])
    histories: list[dict[str, Any]] = []
    for entry in manifest["series"]:
        if len(histories) >= limit:
            break
        end = int(entry["test_start"])
        if end >= len(entry["values"]):
            continue
        raw = np.array([np.nan if v is None else float(v) for v in entry["values"][:end]], dtype=np.float64)
        observed = np.flatnonzero(~np.isnan(raw))
        if len(observed) < 2:
            continue
        first, last = int(observed[0]), int(observed[-1]) + 1
        values = fill_missing(raw[first:last], str(manifest.get("fill_rule", "interpolate")))
        stamps = frequency.grid(parse_timestamp(entry["start"]), last)[first:]
        known = {}
        for name, series in (entry.get("known") or {}).items():
            cells = np.array([np.nan if v is None else float(v) for v in series[first : last + steps]])
            if len(cells) < last - first + steps or np.isnan(cells).all():
                break
            known[name] = fill_missing(cells, "forward_fill")
            known[name] = np.where(np.isnan(known[name]), cells[~np.isnan(cells)][0], known[name])
        else:
            history: dict[str, Any] = {
                "id": str(entry["id"]),
                "timestamps": [format_timestamp(t) for t in stamps],
                "values": [float(v) for v in values],
            }
            if known:
                history["known"] = {name: [float(v) for v in cells] for name, cells in known.items()}
            static = {k: v for k, v in (entry.get("static") or {}).items() if v is not None}
            if static:
                history["static"] = static
            histories.append(history)
    return histories


def forecast_vectors(artifacts: ModelArtifacts) -> list[dict[str, Any]]:
    """Up to MAX_TEST_VECTORS test series as the JSON instances a request sends (ForecastInstance)."""
    if artifacts.test_images:
        raise PackagingError(
            f"{artifacts.template} takes series' histories: give test_instances, not test_images"
        )
    vectors = []
    for position, instance in enumerate(list(artifacts.test_instances)[:MAX_TEST_VECTORS]):
        if not isinstance(instance, Mapping) or "timestamps" not in instance or "values" not in instance:
            raise PackagingError(f"test instance {position} is not a series' history (timestamps and values)")
        request = json.loads(json.dumps(json_safe(dict(instance)), allow_nan=False))
        vectors.append({"instance": request})
    return vectors


def expected_forecasts(
    forecast: Callable[[Mapping[str, Any]], list[Any]], vectors: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The forecaster's answers on the vectors (one request with every series, the model's default
    horizon and quantiles), as ``test_vectors/expected*.json`` holds them."""
    from workers.time_series.history import ForecastInputError

    try:
        answers = forecast({"instances": [vector["instance"] for vector in vectors]}) if vectors else []
    except ForecastInputError as exc:
        raise PackagingError(f"a test series cannot be forecast: {exc.message}") from None
    return {
        "format": VECTORS_FORMAT,
        "data_kind": "time_series",
        "task": "forecast",
        "classes": [],
        "vectors": [
            {**vector, "prediction": answer} for vector, answer in zip(vectors, answers, strict=True)
        ],
    }


def member_summary(spec: Mapping[str, Any]) -> str:
    members = spec.get("members") or []
    return ", ".join(f"{m['model']} ({float(m['weight']):.2f})" for m in members) or "none"


def statistical_note(spec: Mapping[str, Any]) -> str:
    """The README's sentence on how each member runs."""
    models = [m["model"] for m in spec.get("members") or []]
    statistical = [m for m in models if m in STATISTICAL]
    learned = [m for m in models if m not in STATISTICAL]
    parts = []
    if learned:
        parts.append(
            f"the learned member(s) {', '.join(learned)} run in `model.onnx` with ONNX Runtime (LightGBM "
            "trees as ONNX operators: no LightGBM, torch or scikit-learn needed)"
        )
    if statistical:
        parts.append(
            f"the statistical member(s) {', '.join(statistical)} serve from their fitted parameters "
            "(stored in `preprocess.json`, per training series) re-run on the request's history with NumPy "
            "(`workers/time_series/baselines.py`), without ONNX, statsmodels or scipy; a series the model "
            "was not trained on uses seasonal naive for them"
        )
    how = "; ".join(parts)
    return "Members and weights: " + member_summary(spec) + ". " + how[:1].upper() + how[1:] + "."


def shortest_request(instance: Mapping[str, Any], points: int) -> dict[str, Any]:
    """A test series cut to its last ``points`` values (the model's ``min_history``), its known
    covariates cut to match (the same history points and the horizon after them): a pasteable request."""
    out = json_safe(dict(instance))
    total = len(out["values"])
    keep = max(1, min(points, total))
    out["timestamps"], out["values"] = out["timestamps"][total - keep :], out["values"][total - keep :]
    if out.get("known"):
        out["known"] = {name: values[total - keep :] for name, values in out["known"].items()}
    return dict(out)


def forecast_readme_values(artifacts: ModelArtifacts, names: str) -> dict[str, str]:
    """The server README's wording for a forecaster."""
    spec = artifacts.preprocessing
    known = list(spec.get("known_covariates") or [])
    static = list(spec.get("static_covariates") or [])
    example: dict[str, Any] = {"id": "series-1", "timestamps": ["..."], "values": ["..."]}
    if artifacts.test_instances and isinstance(artifacts.test_instances[0], Mapping):
        example = shortest_request(artifacts.test_instances[0], int(spec.get("min_history") or 1))
    text = json.dumps({"instances": [example]})
    if "'" in text or len(text) > 1500:
        text = '{"instances": [{"id": "series-1", "timestamps": ["..."], "values": ["..."]}]}'
    return {
        "input_summary": (
            f"forecasts {spec.get('horizon')} steps at frequency `{spec.get('frequency')}` from each series' "
            f"recent history (at least {spec.get('min_history')} points)"
        ),
        "preprocess_description": (
            "the forecaster's spec: frequency, horizon, fewest history points, quantiles, covariates, the "
            "learned members' feature recipe and the statistical members' fitted parameters"
        ),
        "requirements_description": (
            f"pinned dependencies ({names}; no torch, LightGBM, statsmodels or scipy: trees are ONNX "
            "operators, statistical members run in NumPy)"
        ),
        "vectors_description": (
            "series' histories (as JSON instances) and the platform's forecasts (`expected.json`)"
        ),
        "batch_unit": "series",
        "call_examples": (
            '    curl -H "Authorization: Bearer change-me" -H "Content-Type: application/json" '
            f"\\\n         -d '{text}' \\\n         http://127.0.0.1:8080/predict\n\n"
            "Each instance is one series: `timestamps` (ISO 8601, regular at the model's frequency, oldest "
            "first) and `values` (numbers, no gaps), optionally an `id`"
            + (f"; `known`: {', '.join(known)} over the history and the horizon" if known else "")
            + (f"; `static`: {', '.join(static)} (a training series' id finds its own)" if static else "")
            + ". `horizon` (1 to the model's) and `quantiles` (among "
            f"{spec.get('quantiles')}) are optional. " + statistical_note(spec)
        ),
        "prediction_kind": "forecast_prediction",
        "answer_example": (
            '[{"id": "series-1", "timestamps": ["2024-01-08", ...], "mean": [12.1, ...], '
            '"quantiles": {"0.1": [9.8, ...], "0.9": [14.6, ...]}}]'
        ),
        "error_examples": (
            "bad JSON or no instances, a history the model cannot take, named by series and position: "
            "`history_not_numeric`, `history_gap`, `wrong_frequency`, `history_too_short`, "
            "`invalid_history`, `missing_covariate`, `unknown_covariate`, `covariate_length`, "
            "`horizon_out_of_range`, `unknown_quantile`; 413 for a body or batch over the limits, 415 for a "
            "content type other than JSON"
        ),
    }


def build_forecast_device_sdk(
    *, artifacts: ModelArtifacts, out_path: str | os.PathLike[str], report: Report = silent_report
) -> dict[str, Any]:
    """The forecaster's device SDK: ``model.fp32.onnx``, ``preprocess.json``, the vendored forecaster
    code and ``python/forecast.py``, test vectors with the platform's forecasts."""
    from workers.packaging.device_sdk import archive_device_sdk
    from workers.packaging.server_package import stage_model_files, template_values
    from workers.time_series.predictor import Forecaster

    when = created_at()
    with tempfile.TemporaryDirectory(prefix="sampan-device-sdk-") as temp:
        root = Path(temp)
        report("Checking and copying the model", fraction=0.05)
        stage_model_files(artifacts, root, model_name="model.fp32.onnx")
        try:
            forecaster = Forecaster(root / "model.fp32.onnx", preprocessing=dict(artifacts.preprocessing))
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise PackagingError(f"the model cannot be served as {artifacts.template} ({exc})") from None
        report("Writing the test vectors and the Python sample", fraction=0.5)
        vectors = forecast_vectors(artifacts)
        expected = expected_forecasts(
            lambda body: forecaster.forecast(body["instances"], body.get("horizon"), body.get("quantiles")),
            vectors,
        )
        write_json(root / "test_vectors" / "expected.fp32.json", {**expected, "model": "model.fp32.onnx"})
        runtime_files, imports = vendor_runtime((FORECASTER_MODULE,), root / "python")
        requirements = pinned_requirements(imports)
        (root / "python" / "requirements.txt").write_text("\n".join(requirements) + "\n")
        note = (
            "int8 does not apply: the learned members are tree ensembles (their thresholds and leaves stay "
            "float32) and the statistical members run in NumPy"
        )
        values = {
            **template_values(artifacts, when),
            "requirements": ", ".join(requirements),
            "members_note": statistical_note(artifacts.preprocessing),
            "frequency": str(artifacts.preprocessing.get("frequency")),
            "horizon": str(artifacts.preprocessing.get("horizon")),
            "min_history": str(artifacts.preprocessing.get("min_history")),
            "int8_note": note,
        }
        copy_template_tree(TEMPLATES_DIR / "device_forecast", root, values)
        compression = {
            "format": "sampan.compression_report/1",
            "test_instances": len(vectors),
            "fp32": {"file": "model.fp32.onnx", "bytes": (root / "model.fp32.onnx").stat().st_size},
            "int8": None,
            "int8_note": note,
        }
        write_json(root / "compression_report.json", compression)
        return archive_device_sdk(
            root,
            out_path,
            artifacts,
            when,
            models={"fp32": {"file": "model.fp32.onnx", **describe_onnx(root / "model.fp32.onnx")}},
            compression=compression,
            vectors=len(vectors),
            tolerance=TOLERANCE,
            report=report,
            manifest_fields={
                "int8_note": note,
                "samples": {"python": "python/forecast.py"},
                "samples_not_shipped": {
                    "javascript": "not for forecasters yet (the feature recipe and statistical members are "
                    "NumPy code)",
                    "cpp": "image-only so far",
                },
                "runtime": {
                    "requirements": requirements,
                    "vendored_files": [f"python/{f}" for f in runtime_files],
                },
            },
        )
