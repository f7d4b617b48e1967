"""Serving forecasters with NumPy and ONNX Runtime (no pandas, scipy, statsmodels, torch or
LightGBM): the hosted API, evaluation, backtests and model packages share it.

A forecaster is ``model.onnx`` plus its spec (``preprocess.json``, a
:class:`~workers.contracts.forecasting.ForecastPreprocessing`). Each member forecasts every
quantile of ``quantiles`` (0.5 among them; the point forecast ``mean`` is the members' weighted
0.5 quantile, or the statistical model's mean):

- learned members (``lightgbm``, ``neural``) read the rows of ``workers.time_series.features``
  (one per series and step, input ``features``) and give the scaled quantiles in their ONNX output
  (``output``: [rows, quantiles]); ``params["strategy"]`` ``"recursive"`` means a one-step model
  run ``horizon`` times, each median fed back as history; ``params["anchor"]`` (a column index of
  the rows, -1 for none) means the outputs are corrections added to that scaled column (the
  seasonal lag or the last value);
- statistical members (``naive``, ``seasonal_naive``, ``ets``, ``arima``, ``theta``) re-run
  ``workers.time_series.baselines.forecast`` on the history with their fitted parameters, stored
  per training series as ``params["<series id>.<name>"]``; a series the model was not trained on
  uses the only training series' parameters when there was one, else seasonal naive (parameters
  cannot be fitted at serving time: no scipy there).

The members' quantiles are averaged with the members' weights, then widened around the point
forecast by ``interval_scale[step]`` (conformal calibration on the backtest windows).

Static covariates of the training series ride in the feature spec: each static covariate's
``values`` lists its value per ``series_ids`` entry (as text, ``""`` when missing); a request's
``static`` wins over them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.forecasting import (
    ForecastContract,
    ForecastFeatures,
    ForecastPrediction,
    ForecastPreprocessing,
)
from workers.time_series import baselines
from workers.time_series import features as F
from workers.time_series.frequency import format_timestamps, parse_frequency
from workers.time_series.history import ForecastInputError, check_instance, check_options

__all__ = ["ForecastInputError", "ForecastServingPredictor", "Forecaster", "combine", "statistical_forecast"]

LEARNED = ("lightgbm", "neural")
#: Statistical members read at most this many recent points (20 seasons when longer): a 100k-point
#: request cost ETS's filter 2 s; training's backtests go through the same function.
STAT_HISTORY = 5000


def quantile_index(offered: Sequence[float], wanted: Sequence[float]) -> list[int]:
    out = []
    for q in wanted:
        matches = [i for i, o in enumerate(offered) if abs(float(o) - float(q)) < 1e-6]
        if not matches:
            raise ValueError(f"quantile {q} is not among the model's {list(offered)}")
        out.append(matches[0])
    return out


def member_params(
    member: Mapping[str, Any], series_id: str, series_ids: Sequence[str]
) -> dict[str, Any] | None:
    """A statistical member's fitted parameters for ``series_id`` (see the module docstring)."""
    params = member.get("params") or {}
    if "*" in params or not any("." in key for key in params):  # one set for every series
        return {k: v for k, v in params.items() if k != "*"}
    key = series_id if series_id in series_ids else (series_ids[0] if len(series_ids) == 1 else None)
    if key is None:
        return None
    prefix = f"{key}."
    found = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
    return found or None


def statistical_forecast(
    model: str,
    params: Mapping[str, Any] | None,
    y: np.ndarray,
    season_length: int,
    horizon: int,
    quantiles: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """(mean (h,), quantiles (q, h)) of a statistical member (``baselines.forecast``, NumPy); with
    ``params`` None (a series unknown to the model) seasonal naive (naive for a naive member) with
    the spread of its errors on this history. Only the last :data:`STAT_HISTORY` points (or 20
    seasons) are read: a statistical member's filter runs over the history it is given."""
    y = y[-max(STAT_HISTORY, 20 * season_length) :]
    if params is None:
        model = "naive" if model == "naive" else "seasonal_naive"
        params = baselines.fit(model, y, season_length, horizon)  # naive fits are NumPy
    mean, qs = baselines.forecast(model, dict(params), y, season_length, horizon, quantiles)
    return np.asarray(mean, dtype=np.float64), np.asarray(qs, dtype=np.float64)


def combine(
    members: Sequence[tuple[float, np.ndarray, np.ndarray]], interval_scale: Sequence[float] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted members ``(weight, mean (n, h), quantiles (n, q, h))`` -> (mean, quantiles), the
    quantiles widened around the mean by ``interval_scale`` per step and sorted."""
    total = sum(w for w, _, _ in members) or 1.0
    mean = sum(w * m for w, m, _ in members) / total
    qs = sum(w * q for w, _, q in members) / total
    mean, qs = np.asarray(mean, dtype=np.float64), np.asarray(qs, dtype=np.float64)
    if interval_scale is not None:
        h = mean.shape[1]
        scale = np.asarray(list(interval_scale)[:h], dtype=np.float64)
        if scale.shape[0] < h:
            scale = np.concatenate([scale, np.full(h - scale.shape[0], scale[-1] if scale.size else 1.0)])
        qs = mean[:, None, :] + scale[None, None, :] * (qs - mean[:, None, :])
    return mean, np.sort(qs, axis=1)


def learned_forecast(
    run: Callable[[np.ndarray], np.ndarray],
    spec: ForecastFeatures,
    quantiles: Sequence[float],
    strategy: str,
    histories: Sequence[np.ndarray],
    times: Sequence[np.ndarray],
    known: Sequence[Mapping[str, np.ndarray]],
    statics: Sequence[Mapping[str, Any]],
    anchor: int = -1,
    prepared: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A learned member's (mean (n, h), quantiles (n, q, h)) for histories whose forecast steps fall
    on ``times[i]`` (h timestamps each). ``run`` maps feature rows to scaled quantiles [rows, q]
    (the ONNX session at serving time, the boosters in training); with ``anchor`` >= 0 they are
    corrections of that (scaled) feature column, added to it; ``prepared``: the
    :func:`direct_rows` already built for these histories."""

    def predict(x: np.ndarray) -> np.ndarray:
        out = np.asarray(run(x), dtype=np.float64)
        if anchor >= 0:
            out = out + x[:, anchor : anchor + 1].astype(np.float64)
        return np.sort(out, axis=1)

    n, horizon = len(histories), len(times[0]) if times else 0
    median = quantile_index(quantiles, [0.5])[0]
    if strategy == "recursive":
        qs = np.zeros((n, len(quantiles), horizon))
        extended = [np.asarray(y, dtype=np.float64) for y in histories]
        for k in range(horizon):
            blocks, locs, scales = [], [], []
            for i, y in enumerate(extended):
                x, loc, scale = F.rows(
                    spec, y, np.array([y.shape[0]]), np.array([1]), times[i][k : k + 1].reshape(1, 1),
                    known[i], statics[i],
                )  # fmt: skip
                blocks.append(x)
                locs.append(loc[0])
                scales.append(scale[0])
            values = F.unscale(predict(np.concatenate(blocks)), np.array(locs), np.array(scales))
            qs[:, :, k] = values
            extended = [np.append(y, values[i, median]) for i, y in enumerate(extended)]
        return qs[:, median, :].copy(), qs
    x, loc, scale = prepared if prepared is not None else direct_rows(spec, histories, times, known, statics)
    out = predict(x)
    values = out.reshape(n, horizon, -1).transpose(0, 2, 1)
    values = F.unscale(values, loc, scale)
    return values[:, median, :].copy(), values


def direct_rows(
    spec: ForecastFeatures,
    histories: Sequence[np.ndarray],
    times: Sequence[np.ndarray],
    known: Sequence[Mapping[str, np.ndarray]],
    statics: Sequence[Mapping[str, Any]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The direct strategy's rows of every series (series-major, steps 1..h) with each series' loc
    and scale; members on the same rows share them."""
    horizon = len(times[0]) if times else 0
    steps = np.arange(1, horizon + 1)
    blocks, locs, scales = [], [], []
    for i, y in enumerate(histories):
        x, loc, scale = F.rows(
            spec, np.asarray(y, dtype=np.float64), np.array([len(y)]), steps,
            np.asarray(times[i]).reshape(1, -1), known[i], statics[i],
        )  # fmt: skip
        blocks.append(x)
        locs.append(loc[0])
        scales.append(scale[0])
    return np.concatenate(blocks), np.array(locs), np.array(scales)


class Forecaster:
    """An exported forecaster: ``model_dir`` holds ``model.onnx`` and ``preprocess.json``, or is the
    ONNX file itself (then ``preprocessing`` is the spec, else the ``preprocess.json`` beside it or
    the model's ``sampan.preprocessing`` metadata).

    >>> forecaster = Forecaster("model_dir")  # doctest: +SKIP
    >>> forecaster.forecast([{"id": "co2", "timestamps": [...], "values": [...]}])  # doctest: +SKIP
    [{'id': 'co2', 'timestamps': ['2002-01-01', ...], 'mean': [...], 'quantiles': {'0.1': [...], ...}}]
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        preprocessing: Mapping[str, Any] | None = None,
        threads: int | None = None,
    ) -> None:
        path = Path(model_dir)
        onnx_path = path / "model.onnx" if path.is_dir() else path
        if preprocessing is None and (onnx_path.parent / "preprocess.json").exists():
            preprocessing = json.loads((onnx_path.parent / "preprocess.json").read_text())
        self.session: Any = None
        self._threads = threads
        self.onnx_path = onnx_path
        if preprocessing is None:
            preprocessing = json.loads(
                self._session().get_modelmeta().custom_metadata_map["sampan.preprocessing"]
            )
        if preprocessing.get("kind") != "time_series":
            raise ValueError("not a forecasting preprocessing spec (kind must be 'time_series')")
        self.preprocessing: ForecastPreprocessing = dict(preprocessing)  # type: ignore[assignment]
        self.frequency = parse_frequency(self.preprocessing["frequency"])
        self.quantiles = [float(q) for q in self.preprocessing["quantiles"]]
        if any(m["model"] in LEARNED for m in self.preprocessing["members"]):
            self._session()

    def _session(self) -> Any:
        if self.session is None:
            import onnxruntime

            from workers.shared.onnx_model import check_onnx_self_contained

            check_onnx_self_contained(self.onnx_path)
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            if self._threads:
                options.intra_op_num_threads = self._threads
            self.session = onnxruntime.InferenceSession(
                os.fspath(self.onnx_path), options, providers=["CPUExecutionProvider"]
            )
        return self.session

    def contract(self) -> ForecastContract:
        spec = self.preprocessing
        return {
            "frequency": spec["frequency"],
            "min_history": int(spec["min_history"]),
            "horizon": int(spec["horizon"]),
            "quantiles": [float(q) for q in spec["quantiles"]],
            "interval_level": float(spec["interval_level"]),
            "known_covariates": list(spec["known_covariates"]),
            "static_covariates": list(spec["static_covariates"]),
            "series_ids": list(spec["series_ids"]),
        }

    def _static_of(self, series_id: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        ids = list(self.preprocessing["series_ids"])
        position = ids.index(series_id) if series_id in ids else None
        for desc in self.preprocessing["features"]["static_covariates"]:
            name = str(desc["name"])
            values = desc.get("values")
            if position is not None and isinstance(values, list) and position < len(values):
                text = values[position]
                if desc["type"] == "numeric":
                    try:
                        out[name] = float(text) if text != "" else None
                    except ValueError:
                        out[name] = None
                else:
                    out[name] = text if text != "" else None
        out.update(given or {})
        return out

    def _learned(
        self,
        member: Mapping[str, Any],
        histories: list[np.ndarray],
        last_timestamps: list[np.datetime64],
        known: list[dict[str, np.ndarray]],
        statics: list[dict[str, Any]],
        horizon: int,
        cache: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        session = self._session()
        output = member.get("output", member["model"])
        name = self.preprocessing["input"]

        def run(x: np.ndarray) -> np.ndarray:
            (out,) = session.run([output], {name: x})
            return np.asarray(out, dtype=np.float64)

        times = [self.frequency.after(last, horizon) for last in last_timestamps]
        params = member.get("params") or {}
        strategy = str(params.get("strategy", "direct"))
        anchor = int(params.get("anchor", -1))
        prepared = None
        if strategy != "recursive":
            cache = {} if cache is None else cache
            if "direct" not in cache:
                cache["direct"] = direct_rows(
                    self.preprocessing["features"], histories, times, known, statics
                )
            prepared = cache["direct"]
        return learned_forecast(
            run, self.preprocessing["features"], self.quantiles, strategy, histories, times, known, statics,
            anchor, prepared,
        )  # fmt: skip

    def member_forecasts(
        self,
        histories: list[np.ndarray],
        last_timestamps: list[np.datetime64],
        known: list[dict[str, np.ndarray]],
        static: list[dict[str, Any]],
        ids: list[str],
        horizon: int,
    ) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """Each member's ``(weight, mean (n, h), quantiles (n, len(self.quantiles), h))``."""
        spec = self.preprocessing
        statics = [self._static_of(ids[i], static[i] if i < len(static) else None) for i in range(len(ids))]
        out = []
        cache: dict[str, Any] = {}
        for member in spec["members"]:
            weight = float(member["weight"])
            if member["model"] in LEARNED:
                mean, qs = self._learned(member, histories, last_timestamps, known, statics, horizon, cache)
            else:
                means, quants = [], []
                for i, y in enumerate(histories):
                    params = member_params(member, ids[i], spec["series_ids"])
                    m, q = statistical_forecast(
                        member["model"], params, np.asarray(y, dtype=np.float64), int(spec["season_length"]),
                        horizon, self.quantiles,
                    )  # fmt: skip
                    means.append(m)
                    quants.append(q)
                mean, qs = np.stack(means), np.stack(quants)
            out.append((weight, mean, qs))
        return out

    def forecast_arrays(
        self,
        histories: list[np.ndarray],
        last_timestamps: list[np.datetime64],
        known: list[dict[str, np.ndarray]],
        static: list[dict[str, Any]],
        ids: list[str],
        horizon: int,
        quantiles: Sequence[float],
    ) -> tuple[np.ndarray, np.ndarray]:
        """(mean (n, h), quantiles (n, len(quantiles), h)) without the request checks (evaluation and
        backtests use it). ``known[i][name]`` covers the history and the ``horizon`` steps after it."""
        if not histories:
            return np.zeros((0, horizon)), np.zeros((0, len(quantiles), horizon))
        wanted = quantile_index(self.quantiles, quantiles)
        members = self.member_forecasts(histories, last_timestamps, known, static, ids, horizon)
        mean, qs = combine(members, self.preprocessing.get("interval_scale"))
        return mean, qs[:, wanted, :]

    def forecast(
        self,
        instances: Sequence[Mapping[str, Any]],
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
    ) -> list[ForecastPrediction]:
        """Forecasts of request ``instances`` (:class:`ForecastInstance`); ForecastInputError on bad
        input (the series, its position and a code)."""
        body: dict[str, Any] = {}
        if horizon is not None:
            body["horizon"] = horizon
        if quantiles is not None:
            body["quantiles"] = list(quantiles)
        h, qs = check_options(self.preprocessing, body)
        checked = [check_instance(self.preprocessing, instance, i, h) for i, instance in enumerate(instances)]
        mean, values = self.forecast_arrays(
            [c.values for c in checked],
            [c.last for c in checked],
            [c.known for c in checked],
            [c.static for c in checked],
            [c.id for c in checked],
            h,
            qs,
        )
        answers: list[ForecastPrediction] = []
        for i, c in enumerate(checked):
            answers.append(
                {
                    "id": c.id,
                    "timestamps": format_timestamps(self.frequency.after(c.last, h)),
                    "mean": [float(v) for v in mean[i]],
                    "quantiles": {
                        _quantile_key(q): [float(v) for v in values[i, j]] for j, q in enumerate(qs)
                    },
                }
            )
        return answers


def _quantile_key(q: float) -> str:
    """The level as written: ``0.1`` -> ``"0.1"``."""
    return repr(round(float(q), 6))


class ForecastServingPredictor:
    """The serving registry's forecaster (``workers.serving.predictors``): ``forecast(body)`` answers
    a :class:`ForecastInstances` body."""

    template = "time_series_forecasting"
    data_kind = "time_series"
    prediction_kind = "forecast_prediction"
    classes: list[str] = []

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        preprocessing: Mapping[str, Any] | None = None,
        threads: int | None = None,
        **_: Any,
    ) -> None:
        self.forecaster = Forecaster(model_path, preprocessing=preprocessing, threads=threads)
        self.preprocessing = self.forecaster.preprocessing

    def contract(self) -> ForecastContract:
        return self.forecaster.contract()

    def forecast(self, body: Mapping[str, Any]) -> list[ForecastPrediction]:
        if not isinstance(body, Mapping) or not isinstance(body.get("instances"), list):
            raise ForecastInputError("invalid_history", "the body must be an object with a list 'instances'.")
        return self.forecaster.forecast(body["instances"], body.get("horizon"), body.get("quantiles"))
