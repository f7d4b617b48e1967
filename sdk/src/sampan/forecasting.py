"""Time-series forecasting in the SDK: DataFrames in and out.

- :func:`time_series_upload`: a long or wide DataFrame (or a table file) and its column mapping as
  the table import's form (``POST /datasets/{id}/imports/``), used by
  :meth:`sampan.Dataset.import_time_series`;
- :func:`series_frame`: the series endpoint's points as a long DataFrame (``id``, ``timestamp``,
  ``value``);
- :func:`forecast_instances` and :func:`forecast_frame`: a history DataFrame as a forecast request's
  ``instances``, and the answer's predictions as a DataFrame (``id``, ``timestamp``, ``mean``,
  ``q0.1``, ``q0.9``, ...), used by :meth:`sampan.Deployment.forecast`;
- :class:`ForecastReport`: a forecaster's evaluation report (MASE, sMAPE, RMSE, coverage, the skill
  against seasonal naive, per series and per horizon step).

The forecasting payloads are plain mappings here (``dict[str, Any]``): their fields are described in
the platform's API docs (the ``TimeSeriesSchema``, ``SeriesPoints``, ``ForecastInstances``,
``ForecastPrediction``, ``ForecastContract`` and ``ForecastReport`` components).

A long table has one row per (series, timestamp): a series-id column, a timestamp column and one or
more target columns. A wide table has one row per timestamp and one column per series (each target
column is a series). Either may carry known-future covariate columns (holidays, prices) and, long
tables, static covariate columns (constant per series id).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sampan._optional import pandas

FILL_RULES = ("interpolate", "forward_fill", "zero")
FREQUENCIES = ("min", "5min", "15min", "30min", "h", "D", "W", "MS", "ME", "QS", "QE", "YS", "YE")


# --- import -----------------------------------------------------------------------------------


def _is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _is_series(obj: Any) -> bool:
    return type(obj).__name__ == "Series" and hasattr(obj, "index") and hasattr(obj, "to_numpy")


def _names(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _with_timestamp_column(frame: Any, timestamp: str | None) -> tuple[Any, str]:
    """The frame with its timestamps in a column: ``timestamp`` if named and a column, else the
    index when it holds datetimes (named ``timestamp`` unless it has a name)."""
    pd = pandas()
    if timestamp is not None and timestamp in frame.columns:
        return frame, timestamp
    index = frame.index
    if isinstance(index, pd.DatetimeIndex) or (timestamp is not None and index.name == timestamp):
        name = timestamp or index.name or "timestamp"
        if name in frame.columns:
            raise ValueError(f"The DataFrame has both a column and an index named {name!r}.")
        return frame.rename_axis(name).reset_index(), str(name)
    if timestamp is not None:
        raise ValueError(
            f"No column {timestamp!r} in the DataFrame (columns: {', '.join(map(str, frame.columns))})."
        )
    datetimes = [str(c) for c in frame.columns if pd.api.types.is_datetime64_any_dtype(frame[c])]
    if len(datetimes) == 1:
        return frame, datetimes[0]
    raise ValueError(
        "Name the timestamp column (timestamp=...), or give the DataFrame a DatetimeIndex "
        f"(columns: {', '.join(map(str, frame.columns))})."
    )


def _when(value: Any) -> Any:
    """A timestamp cell as a pandas Timestamp: datetimes as they are, ISO strings parsed, integers
    (and integer strings) of 4 digits as that year's January 1st (as the server reads them)."""
    pd = pandas()
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a timestamp")
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"):
        return pd.Timestamp(year=int(value), month=1, day=1)
    if isinstance(value, str) and value.strip().isdigit():
        return pd.Timestamp(year=int(value.strip()), month=1, day=1)
    return pd.Timestamp(value)


def _iso(value: Any) -> str:
    """A timestamp as ISO 8601: ``YYYY-MM-DD`` at midnight, ``YYYY-MM-DDTHH:MM:SS`` otherwise."""
    stamp = _when(value)
    if stamp.tzinfo is not None:
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    if stamp == stamp.normalize():
        return str(stamp.strftime("%Y-%m-%d"))
    return str(stamp.strftime("%Y-%m-%dT%H:%M:%S"))


def time_series_upload(
    source: Any,
    *,
    timestamp: str | None,
    targets: str | Sequence[str] | None,
    series: str | None = None,
    known: Sequence[str] = (),
    static: Sequence[str] = (),
    frequency: str | None = None,
    fill_rule: str = "interpolate",
) -> tuple[str, bytes, dict[str, Any]]:
    """(file name, bytes, form fields) of a forecasting import.

    ``source`` is a pandas DataFrame, long (a ``series`` column naming each row's series) or wide
    (no ``series``: each of ``targets`` is a series), with the timestamps in the ``timestamp`` column
    or in a DatetimeIndex; or a table file's path or ``(name, bytes)`` (the mapping then names its
    columns). ``targets`` left None: every numeric column of a DataFrame that is not the timestamp,
    the series id or a covariate. A DataFrame goes up as UTF-8 CSV, timestamps in ISO 8601 and
    missing values as empty cells (filled by ``fill_rule``).

    >>> wide = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]},
    ...                     index=pd.date_range("2024-01-01", periods=2, freq="D"))
    >>> time_series_upload(wide, timestamp=None, targets=None)[2]["target_columns"]
    ['a', 'b']
    """
    known_list, static_list = _names(known), _names(static)
    if fill_rule not in FILL_RULES:
        raise ValueError(f"fill_rule must be one of {', '.join(FILL_RULES)}; got {fill_rule!r}.")
    if frequency is not None and frequency not in FREQUENCIES:
        raise ValueError(f"frequency must be one of {', '.join(FREQUENCIES)}; got {frequency!r}.")
    if static_list and series is None:
        raise ValueError("Static covariates are constant per series id: they need a long table (series=...).")
    if _is_dataframe(source):
        pd = pandas()
        frame, timestamp = _with_timestamp_column(source, timestamp)
        used = {timestamp, *known_list, *static_list, *([series] if series else [])}
        missing = [c for c in used if c not in frame.columns]
        if missing:
            raise ValueError(
                f"No column {', '.join(map(repr, sorted(missing)))} in the DataFrame "
                f"(columns: {', '.join(map(str, frame.columns))})."
            )
        if targets is None:
            target_list = [
                str(c)
                for c in frame.columns
                if c not in used
                and pd.api.types.is_numeric_dtype(frame[c])
                and not pd.api.types.is_bool_dtype(frame[c])
            ]
            if not target_list:
                raise ValueError("No numeric column left to forecast: name the target columns (targets=...).")
        else:
            target_list = _names(targets)
            absent = [c for c in target_list if c not in frame.columns]
            if absent:
                raise ValueError(
                    f"No target column {', '.join(map(repr, absent))} in the DataFrame "
                    f"(columns: {', '.join(map(str, frame.columns))})."
                )
        columns = [timestamp, *([series] if series else []), *target_list, *known_list, *static_list]
        out = frame.loc[:, list(dict.fromkeys(columns))].copy()
        stamps = out[timestamp]
        if pd.api.types.is_datetime64_any_dtype(stamps):
            out[timestamp] = [None if pd.isna(v) else _iso(v) for v in stamps]
        name, content = "time_series.csv", out.to_csv(index=False).encode("utf-8")
    else:
        if timestamp is None:
            raise ValueError("A table file's import names its timestamp column (timestamp=...).")
        if targets is None:
            raise ValueError("A table file's import names its target columns (targets=...).")
        target_list = _names(targets)
        if isinstance(source, tuple):
            name, content = str(source[0]), bytes(source[1])
        else:
            path = Path(os.fspath(source))
            if not path.is_file():
                raise FileNotFoundError(f"No such table file: {path}")
            name, content = path.name, path.read_bytes()
    if not target_list:
        raise ValueError("Name at least one target column (targets=...).")
    form: dict[str, Any] = {
        "timestamp_column": timestamp,
        "target_columns": target_list,
        "fill_rule": fill_rule,
    }
    if series:
        form["series_column"] = series
    if known_list:
        form["known_covariates"] = known_list
    if static_list:
        form["static_covariates"] = static_list
    if frequency:
        form["frequency"] = frequency
    return name, content, form


# --- the series endpoint ------------------------------------------------------------------------


def series_frame(points: Sequence[Mapping[str, Any]]) -> Any:
    """The series endpoint's answer (``SeriesPoints`` per series) as one long DataFrame: ``id``,
    ``timestamp`` (datetime64), ``value`` (NaN where missing)."""
    pd = pandas()
    rows = [
        (str(entry["id"]), stamp, math.nan if value is None else float(value))
        for entry in points
        for stamp, value in zip(entry["timestamps"], entry["values"], strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["id", "timestamp", "value"])
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], format="ISO8601")
    return frame


# --- forecasting requests and answers ------------------------------------------------------------


def _number(value: Any) -> float | None:
    """A history value as JSON: a float, or null for NaN/None/NA (the server names the position)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _json_scalar(value: Any) -> float | str | None:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(float(value)) else None
    return str(value)


def forecast_instances(
    history: Any,
    *,
    horizon: int,
    known_covariates: Sequence[str] = (),
    static_covariates: Sequence[str] = (),
    known_future: Any = None,
    static: Mapping[str, Mapping[str, Any]] | None = None,
    id_column: str | None = None,
    timestamp_column: str | None = None,
    value_column: str | None = None,
) -> list[dict[str, Any]]:
    """A forecast request's ``instances`` (``ForecastInstance`` each) from a history.

    ``history`` is one of:

    - a pandas Series indexed by timestamps: one series (its ``name``, if any, is its id);
    - a long DataFrame: an id column (``id_column``, default ``"id"`` when there is one), a timestamp
      column (``timestamp_column``, default ``"timestamp"``, the one datetime column, or a
      DatetimeIndex) and a value column (``value_column``, default ``"value"`` or the one numeric
      column left); without an id column the whole frame is one series;
    - a wide DataFrame: timestamps (a column or a DatetimeIndex) and one numeric column per series
      (its name is the series' id), when there is no id column and several value columns.

    Known covariates (``known_covariates``, the model's) are read from the history's columns of those
    names, and their ``horizon`` future values from ``known_future`` (a DataFrame with the same
    timestamp, id and covariate columns, rows after each series' last timestamp). Static covariates
    are the history's columns of those names (the first row of each series) or ``static``
    (``{series id: {name: value}}``). Rows are sorted by timestamp; NaN values go as null, which the
    server refuses naming the series and the position.
    """
    pd = pandas()
    known_list, static_list = list(known_covariates), list(static_covariates)
    if _is_series(history):
        name = history.name
        frame = history.rename("value").to_frame()
        value_column = "value"
        ids_from_name = None if name is None else str(name)
    elif _is_dataframe(history):
        frame, ids_from_name = history, None
    else:
        raise TypeError(
            f"history is a pandas DataFrame (long or wide) or Series; got a {type(history).__name__}."
        )
    frame, stamp = _with_timestamp_column(
        frame, timestamp_column or ("timestamp" if "timestamp" in frame.columns else None)
    )
    if id_column is None and "id" in frame.columns:
        id_column = "id"
    if id_column is not None and id_column not in frame.columns:
        raise ValueError(
            f"No id column {id_column!r} in the history (columns: {', '.join(map(str, frame.columns))})."
        )
    covariates = {*known_list, *static_list}
    taken = {stamp, *([id_column] if id_column else []), *covariates}
    if value_column is None and "value" in frame.columns:
        value_column = "value"
    if value_column is not None:
        if value_column not in frame.columns:
            raise ValueError(
                f"No value column {value_column!r} in the history "
                f"(columns: {', '.join(map(str, frame.columns))})."
            )
        value_columns = [value_column]
    else:
        value_columns = [
            str(c)
            for c in frame.columns
            if c not in taken
            and pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c])
        ]
        if not value_columns:
            raise ValueError("No value column in the history: name it (value_column=...).")
        if id_column is not None and len(value_columns) > 1:
            raise ValueError(
                f"Several value columns ({', '.join(value_columns)}) in a long history: name the one to "
                "forecast (value_column=...)."
            )
    absent = [c for c in known_list if c not in frame.columns]
    if absent:
        raise ValueError(
            f"The model needs the known covariates {', '.join(known_list)}: the history has no column "
            f"{', '.join(map(repr, absent))}."
        )

    # (id or None, rows of that series sorted by time, value column)
    pieces: list[tuple[str | None, Any, str]] = []
    if id_column is not None:
        for key, rows in frame.groupby(id_column, sort=False):
            pieces.append(
                (str(key[0] if isinstance(key, tuple) else key), rows.sort_values(stamp), value_columns[0])
            )
    elif len(value_columns) == 1:
        pieces.append(
            (
                ids_from_name
                if ids_from_name is not None
                else (None if value_columns[0] == "value" else value_columns[0]),
                frame.sort_values(stamp),
                value_columns[0],
            )
        )
    else:
        ordered = frame.sort_values(stamp)
        pieces.extend((column, ordered, column) for column in value_columns)

    future = _future_rows(known_future, known_list, id_column, timestamp_column) if known_list else {}
    instances: list[dict[str, Any]] = []
    for series_id, rows, column in pieces:
        instance: dict[str, Any] = {
            "timestamps": [_iso(v) for v in rows[stamp]],
            "values": [_number(v) for v in rows[column]],
        }
        if series_id is not None:
            instance["id"] = series_id
        if known_list:
            ahead = future.get(series_id) if series_id in future else future.get(None)
            if ahead is None:
                raise ValueError(
                    f"Series {series_id or 0!r}: the model needs the known covariates "
                    f"{', '.join(known_list)} "
                    f"for the {horizon} steps ahead: give known_future (a DataFrame with the timestamp"
                    f"{', id' if id_column else ''} and covariate columns)."
                )
            last = _when(rows[stamp].iloc[-1])
            ahead = ahead[ahead["__stamp"] > last].iloc[:horizon]
            if len(ahead) < horizon:
                raise ValueError(
                    f"Series {series_id or 0!r}: known_future has {len(ahead)} rows after {_iso(last)}; the "
                    f"forecast of {horizon} steps needs {horizon}."
                )
            instance["known"] = {
                name: [_number(v) for v in rows[name]] + [_number(v) for v in ahead[name]]
                for name in known_list
            }
        values: dict[str, Any] = {}
        for name in static_list:
            if name in rows.columns and len(rows):
                cell = _json_scalar(rows[name].iloc[0])
                if cell is not None:
                    values[name] = cell
        if static and series_id is not None and series_id in static:
            values.update({k: _json_scalar(v) for k, v in static[series_id].items()})
        if values:
            instance["static"] = values
        instances.append(instance)
    return instances


def _future_rows(
    known_future: Any, known: list[str], id_column: str | None, timestamp_column: str | None
) -> dict[str | None, Any]:
    """known_future's rows by series id (None: for every series), each with a ``__stamp`` column."""
    pd = pandas()
    if known_future is None:
        return {}
    if not _is_dataframe(known_future):
        raise TypeError(f"known_future is a pandas DataFrame; got a {type(known_future).__name__}.")
    named = timestamp_column if timestamp_column in known_future.columns else None
    if named is None and "timestamp" in known_future.columns:
        named = "timestamp"
    frame, stamp = _with_timestamp_column(known_future, named)
    absent = [c for c in known if c not in frame.columns]
    if absent:
        raise ValueError(f"known_future has no column {', '.join(map(repr, absent))}.")
    stamps = frame[stamp]
    parsed = stamps if pd.api.types.is_datetime64_any_dtype(stamps) else [_when(v) for v in stamps]
    frame = frame.assign(__stamp=parsed).sort_values("__stamp")
    if id_column is not None and id_column in frame.columns:
        return {
            str(key[0] if isinstance(key, tuple) else key): rows
            for key, rows in frame.groupby(id_column, sort=False)
        }
    return {None: frame}


def forecast_body(
    instances: list[dict[str, Any]], horizon: int | None, quantiles: Sequence[float] | None
) -> dict[str, Any]:
    """A forecast request's JSON: the instances and, when given, ``horizon`` and ``quantiles``."""
    body: dict[str, Any] = {"instances": instances}
    if horizon is not None:
        body["horizon"] = int(horizon)
    if quantiles is not None:
        body["quantiles"] = [float(q) for q in quantiles]
    return body


def forecast_with(
    post: Callable[[list[dict[str, Any]]], Mapping[str, Any]],
    contract: Mapping[str, Any],
    history: Any,
    *,
    horizon: int | None,
    known_future: Any,
    static: Mapping[str, Mapping[str, Any]] | None,
    id_column: str | None,
    timestamp_column: str | None,
    value_column: str | None,
    batch_size: int,
) -> Any:
    """A history's forecast DataFrame: the instances made against the model's ``contract``, posted
    ``batch_size`` series at a time by ``post`` (which answers the endpoint's JSON)."""
    steps = int(horizon if horizon is not None else contract["horizon"])
    instances = forecast_instances(
        history,
        horizon=steps,
        known_covariates=contract.get("known_covariates", []),
        static_covariates=contract.get("static_covariates", []),
        known_future=known_future,
        static=static,
        id_column=id_column,
        timestamp_column=timestamp_column,
        value_column=value_column,
    )
    predictions: list[Mapping[str, Any]] = []
    size = max(1, batch_size)
    for start in range(0, len(instances), size):
        predictions += post(instances[start : start + size])["predictions"]
    return forecast_frame(predictions)


def comparison_frame(compared: Mapping[str, Any]) -> Any:
    """A ``forecast_comparison`` as a DataFrame: one row per metric (mase, smape, rmse, coverage,
    skill) with columns a, b, delta (b minus a; lower MASE, sMAPE, RMSE are better)."""
    metrics = ("mase", "smape", "rmse", "coverage", "skill")
    return (
        pandas()
        .DataFrame([{"metric": m, **compared[m]} for m in metrics], columns=["metric", "a", "b", "delta"])
        .set_index("metric")
    )


def quantile_column(level: str) -> str:
    """A quantile's column name in a forecast frame: ``"0.1"`` -> ``"q0.1"``."""
    return f"q{level}"


def forecast_frame(predictions: Sequence[Mapping[str, Any]]) -> Any:
    """The predictions of a forecast answer (``ForecastPrediction`` each) as one long DataFrame:
    ``id``, ``timestamp`` (datetime64), ``mean`` and a ``q<level>`` column per quantile (``q0.1``,
    ``q0.9``), lowest level first."""
    pd = pandas()
    levels = sorted({level for p in predictions for level in p["quantiles"]}, key=float)
    columns = ["id", "timestamp", "mean", *(quantile_column(level) for level in levels)]
    rows = []
    for prediction in predictions:
        for step, stamp in enumerate(prediction["timestamps"]):
            rows.append(
                [
                    str(prediction["id"]),
                    stamp,
                    float(prediction["mean"][step]),
                    *(
                        float(prediction["quantiles"][level][step])
                        if level in prediction["quantiles"]
                        else math.nan
                        for level in levels
                    ),
                ]
            )
    frame = pd.DataFrame(rows, columns=columns)
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], format="ISO8601")
    return frame


# --- the evaluation report ------------------------------------------------------------------------


class ForecastReport:
    """A forecaster's evaluation report on the test window (the last ``horizon`` steps of each
    series): ``mase``, ``smape``, ``rmse``, ``coverage`` of the prediction interval, the same for
    seasonal naive and the ``skill`` (``1 - mase / seasonal naive's``, positive: better than seasonal
    naive); per series (worst first), per horizon step, the baselines and the backtest windows.

    e.g. ``report = model.evaluation()``; ``report.skill`` -> ``0.31``; ``report.per_series_frame()``
    """

    def __init__(self, model_version: int, name: str, data: Mapping[str, Any]) -> None:
        self.model_version = model_version
        self.name = name
        self.data: dict[str, Any] = dict(data)

    @property
    def raw(self) -> dict[str, Any]:
        return self.data

    @property
    def split(self) -> str:
        return str(self.data["split"])

    @property
    def horizon(self) -> int:
        return int(self.data["horizon"])

    @property
    def frequency(self) -> str:
        return str(self.data["frequency"])

    @property
    def model_name(self) -> str:
        return str(self.data["model_name"])

    @property
    def series_count(self) -> int:
        return int(self.data["series_count"])

    @property
    def samples(self) -> int:
        return int(self.data["observations"])

    @property
    def mase(self) -> float:
        return float(self.data["headline"]["mase"])

    @property
    def smape(self) -> float:
        return float(self.data["headline"]["smape"])

    @property
    def rmse(self) -> float:
        return float(self.data["headline"]["rmse"])

    @property
    def coverage(self) -> float | None:
        value = self.data["headline"].get("coverage")
        return None if value is None else float(value)

    @property
    def interval_level(self) -> float:
        return float(self.data["interval_level"])

    @property
    def seasonal_naive_mase(self) -> float:
        return float(self.data["seasonal_naive"]["mase"])

    @property
    def skill(self) -> float | None:
        value = self.data.get("skill")
        return None if value is None else float(value)

    @property
    def per_series(self) -> list[dict[str, Any]]:
        return list(self.data["per_series"])

    @property
    def by_horizon(self) -> list[dict[str, Any]]:
        return list(self.data["by_horizon"])

    @property
    def baselines(self) -> list[dict[str, Any]]:
        return list(self.data["baselines"])

    @property
    def backtest(self) -> list[dict[str, Any]]:
        return list(self.data["backtest"])

    def per_series_frame(self) -> Any:
        """One row per series (worst MASE first): ``series``, ``mase``, ``smape``, ``rmse``,
        ``coverage``, ``width``, ``seasonal_naive_mase``, ``skill``."""
        return pandas().DataFrame(self.per_series)

    def by_horizon_frame(self) -> Any:
        """One row per horizon step: ``step``, ``mase``, ``smape``, ``rmse``, ``seasonal_naive_mase``."""
        return pandas().DataFrame(self.by_horizon)

    def baselines_frame(self) -> Any:
        """One row per candidate model: ``model``, test ``mase``/``smape``/``rmse``/``coverage``,
        validation ``val_mase`` and its ``chosen_weight`` in the forecaster."""
        rows = []
        for entry in self.baselines:
            validation = entry.get("validation") or {}
            rows.append(
                {
                    "model": entry["model"],
                    "mase": entry["test"]["mase"],
                    "smape": entry["test"]["smape"],
                    "rmse": entry["test"]["rmse"],
                    "coverage": entry["test"].get("coverage"),
                    "val_mase": validation.get("mase"),
                    "chosen_weight": entry["chosen_weight"],
                }
            )
        return pandas().DataFrame(rows)

    def plot(self, series: str | None = None, ax: Any = None) -> Any:
        """Forecast against actual values for one series of the report's plots (default the first):
        the history and actual values, the forecast with its interval band, seasonal naive dashed."""
        from sampan._optional import pyplot

        plt = pyplot("ForecastReport.plot")
        plots = self.data["plots"]
        if not plots:
            raise ValueError("This report has no plotted series.")
        chosen = next((p for p in plots if series is None or p["series"] == series), None)
        if chosen is None:
            raise ValueError(
                f"No plot of series {series!r}; plotted: {', '.join(p['series'] for p in plots)}."
            )
        pd = pandas()
        stamps = pd.to_datetime(chosen["timestamps"], format="ISO8601")
        start = int(chosen["forecast_start"])
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 3))
        actual = [math.nan if v is None else v for v in chosen["actual"]]
        ax.plot(stamps, actual, color="black", linewidth=1, label="actual")
        future = stamps[start : start + len(chosen["mean"])]
        ax.fill_between(
            future, chosen["lower"], chosen["upper"], alpha=0.25, label=f"{self.interval_level:.0%} interval"
        )
        ax.plot(future, chosen["mean"], label=self.model_name)
        ax.plot(future, chosen["seasonal_naive"], linestyle="--", label="seasonal naive")
        skill = "n/a" if self.skill is None else f"{self.skill:.2f}"
        ax.set_title(f"{chosen['series']} (MASE {self.mase:.3g}, skill {skill})")
        ax.legend(loc="upper left")
        return ax

    def __repr__(self) -> str:
        skill = "n/a" if self.skill is None else f"{self.skill:.3f}"
        return (
            f"ForecastReport({self.name}: mase={self.mase:.4g}, smape={self.smape:.4g}, "
            f"rmse={self.rmse:.4g}, "
            f"seasonal_naive_mase={self.seasonal_naive_mase:.4g}, skill={skill}, series={self.series_count})"
        )
