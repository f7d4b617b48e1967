"""Checks of a forecast request against a forecaster's spec (``preprocess.json``): each series'
history (:func:`check_instance`) and the request's options (:func:`check_options`).

NumPy and the standard library only: packages vendor this file with ``frequency.py`` and the
predictor. Every problem is a :class:`ForecastInputError` whose message names the series (its index
in ``instances`` and its id) and the position, so a caller can find the bad value:

>>> spec = {"frequency": "D", "min_history": 3, "horizon": 2, "known_covariates": [],
...         "static_covariates": [], "series_ids": [], "quantiles": [0.1, 0.5, 0.9],
...         "interval_level": 0.8}
>>> try:
...     check_instance(spec, {"id": "store-7", "timestamps": ["2024-01-01", "2024-01-02", "2024-01-03"],
...                           "values": [1.0, float("nan"), 2.0]}, 1, 2)
... except ForecastInputError as exc:
...     print(exc.code, exc.details)
...     print(exc.message)
history_not_numeric {'series': 1, 'id': 'store-7', 'position': 1, 'field': 'values'}
instances[1] (id 'store-7'): values[1] is NaN; send numbers only, without gaps.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workers.contracts.forecasting import ForecastContract
from workers.time_series.frequency import Frequency, FrequencyError, parse_frequency, parse_timestamp

#: Every code a :class:`ForecastInputError` may carry (each a 400 from the hosted API).
CODES = (
    "invalid_history",
    "history_too_short",
    "wrong_frequency",
    "history_gap",
    "history_not_numeric",
    "unknown_covariate",
    "missing_covariate",
    "covariate_length",
    "horizon_out_of_range",
    "unknown_quantile",
)

#: How close a requested quantile must be to one the model answers (JSON round trips of 0.1 etc.).
QUANTILE_TOLERANCE = 1e-6


class ForecastInputError(ValueError):
    """A forecast request the model cannot answer: ``code`` (one of :data:`CODES`), a ``message``
    naming the series and the position, and ``details`` (``series``: the index in ``instances``,
    ``id``, ``position``: the index in the list named by ``field``), keys without a value left out."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        series: int | None = None,
        id: str | None = None,  # noqa: A002 - the contract's name for a series' id
        position: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.series = series
        self.id = id
        self.position = position
        self.field = field

    @property
    def details(self) -> dict[str, Any]:
        found = {"series": self.series, "id": self.id, "position": self.position, "field": self.field}
        return {key: value for key, value in found.items() if value is not None}


@dataclass
class CheckedHistory:
    """One series of a request, checked: ``values`` (float64, finite), the ``last`` timestamp,
    ``known`` covariates over the history and the requested horizon (float64), ``static`` as sent."""

    id: str
    values: np.ndarray
    last: np.datetime64
    known: dict[str, np.ndarray] = field(default_factory=dict)
    static: dict[str, Any] = field(default_factory=dict)


def _number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (booleans and numeric strings included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _describe(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "infinite"
    if value is None:
        return "null"
    text = repr(value)
    return f"{text[:40]}..." if len(text) > 40 else text


def _numbers(raw: Any, *, where: str, name: str, history_error: Any) -> np.ndarray:
    """A list of finite numbers as float64, or ``history_error(code, message, position, field)`` raised."""
    if not isinstance(raw, list):
        raise history_error("invalid_history", f"{where}: {name} must be a list of numbers.", None, name)
    if all(type(item) in (float, int) for item in raw):  # the usual request: one conversion, one check
        values = np.asarray(raw, dtype=np.float64)
        if np.isfinite(values).all():
            return values
    values = np.empty(len(raw), dtype=np.float64)
    for position, item in enumerate(raw):
        number = _number(item)
        if number is None or not math.isfinite(number):
            raise history_error(
                "history_not_numeric",
                f"{where}: {name}[{position}] is {_describe(item)}; send numbers only, without gaps.",
                position,
                name,
            )
        values[position] = number
    return values


def _plain_iso_timestamps(raw: list[Any]) -> np.ndarray | None:
    """Timestamps as NumPy parses them in one call (``"2024-01-01"``, ``"2024-01-01T10:00:00"``,
    ``"2024-01-01 10:00"``): the same instants ``frequency.parse_timestamp`` gives; None when any is
    not such a string (a UTC offset, surrounding spaces, ``"now"``, a number), so the caller parses
    them one by one and names the bad position."""
    if not all(type(item) is str and item[:4].isdigit() for item in raw):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # NumPy warns on a timezone instead of refusing it
            stamps = np.array(raw, dtype="datetime64[s]")
    except (ValueError, TypeError, OverflowError, Warning):
        return None
    return None if np.isnat(stamps).any() else stamps


def _timestamps_one_by_one(raw: list[Any], *, where: str, history_error: Any) -> np.ndarray:
    stamps = np.empty(len(raw), dtype="datetime64[s]")
    for position, item in enumerate(raw):
        try:
            if not isinstance(item, str):
                raise ValueError
            stamps[position] = parse_timestamp(item)
        except (ValueError, TypeError):
            raise history_error(
                "invalid_history",
                f"{where}: timestamps[{position}] is {_describe(item)}, not an ISO 8601 date or datetime.",
                position,
                "timestamps",
            ) from None
    return stamps


def _default_quantiles(spec: Mapping[str, Any]) -> list[float]:
    """The interval's two quantiles among the model's (0.8 -> 0.1 and 0.9), else all of them."""
    offered = [float(q) for q in spec.get("quantiles", [])]
    level = float(spec.get("interval_level", 0.8))
    wanted = [(1 - level) / 2, (1 + level) / 2]
    chosen = [q for want in wanted for q in offered if abs(q - want) < QUANTILE_TOLERANCE]
    return chosen if len(chosen) == 2 else offered


def check_options(spec: Mapping[str, Any], body: Mapping[str, Any]) -> tuple[int, list[float]]:
    """The request's ``horizon`` (1 to the model's, default the model's) and ``quantiles`` (among the
    model's, default its interval's two), as ``(horizon, quantiles)``.

    >>> spec = {"horizon": 12, "quantiles": [0.1, 0.5, 0.9], "interval_level": 0.8}
    >>> check_options(spec, {})
    (12, [0.1, 0.9])
    >>> check_options(spec, {"horizon": 3, "quantiles": [0.5]})
    (3, [0.5])
    """
    most = int(spec["horizon"])
    horizon: Any = body.get("horizon")
    if horizon is None:
        horizon = most
    elif isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= most:
        raise ForecastInputError(
            "horizon_out_of_range",
            f"horizon must be an integer from 1 to {most} (the model's horizon), got {_describe(horizon)}.",
            field="horizon",
        )
    offered = [float(q) for q in spec.get("quantiles", [])]
    raw = body.get("quantiles")
    if raw is None:
        return int(horizon), _default_quantiles(spec)
    if not isinstance(raw, list):
        raise ForecastInputError(
            "unknown_quantile",
            f"quantiles must be a list of numbers among the model's {offered}.",
            field="quantiles",
        )
    quantiles: list[float] = []
    for position, item in enumerate(raw):
        number = _number(item)
        match = (
            None
            if number is None
            else next((q for q in offered if abs(q - number) < QUANTILE_TOLERANCE), None)
        )
        if match is None:
            raise ForecastInputError(
                "unknown_quantile",
                f"quantiles[{position}] is {_describe(item)}; the model answers the quantiles {offered}.",
                position=position,
                field="quantiles",
            )
        if match not in quantiles:
            quantiles.append(match)
    return int(horizon), quantiles


def check_instance(
    spec: Mapping[str, Any], instance: Mapping[str, Any], index: int, horizon: int
) -> CheckedHistory:
    """One series of a request (``instances[index]``, a ForecastInstance) checked against the model's
    spec for a forecast of ``horizon`` steps: timestamps regular at the model's frequency, oldest
    first, at least ``min_history`` of them; values finite numbers, one per timestamp; each known
    covariate ``len(timestamps) + horizon`` numbers (up to the model's horizon accepted, the rest
    left out); static covariates among the model's (a series
    the model was trained on may leave them out: the model knows them by its id)."""
    if not isinstance(instance, Mapping):
        raise ForecastInputError(
            "invalid_history",
            f"instances[{index}] must be an object with 'timestamps' and 'values'.",
            series=index,
            field="instances",
        )
    raw_id = instance.get("id", str(index))
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool):
        raise ForecastInputError(
            "invalid_history", f"instances[{index}].id must be a string.", series=index, field="id"
        )
    series_id = str(raw_id)
    where = f"instances[{index}] (id {series_id!r})"

    def history_error(
        code: str, message: str, position: int | None = None, name: str | None = None
    ) -> ForecastInputError:
        return ForecastInputError(code, message, series=index, id=series_id, position=position, field=name)

    for name in ("timestamps", "values"):
        if name not in instance:
            raise history_error("invalid_history", f"{where} has no '{name}'.", None, name)
    raw_timestamps = instance["timestamps"]
    if not isinstance(raw_timestamps, list):
        raise history_error(
            "invalid_history", f"{where}: timestamps must be a list of ISO 8601 strings.", None, "timestamps"
        )
    values = _numbers(instance["values"], where=where, name="values", history_error=history_error)
    if len(values) != len(raw_timestamps):
        raise history_error(
            "invalid_history",
            f"{where} has {len(raw_timestamps)} timestamps and {len(values)} values; "
            "send one value per timestamp.",
            None,
            "values",
        )
    min_history = int(spec.get("min_history", 1))
    if len(values) < min_history:
        raise history_error(
            "history_too_short",
            f"{where} has {len(values)} points; the model needs at least {min_history}.",
            None,
            "values",
        )
    try:
        frequency = parse_frequency(str(spec["frequency"]))
    except FrequencyError as exc:  # a broken spec, not the request's fault
        raise ValueError(f"the model's frequency is not usable: {exc}") from None
    stamps = _plain_iso_timestamps(raw_timestamps)
    if stamps is None:
        stamps = _timestamps_one_by_one(raw_timestamps, where=where, history_error=history_error)
    off_grid = np.flatnonzero(frequency.grid(stamps[0], len(stamps)) != stamps)
    if len(off_grid):
        _refuse_irregular(
            frequency,
            stamps,
            raw_timestamps,
            int(off_grid[0]),
            spec,
            where=where,
            history_error=history_error,
        )
    known = _check_known(
        spec,
        instance.get("known"),
        where=where,
        length=len(values) + horizon,
        extra=max(int(spec.get("horizon", horizon)) - horizon, 0),
        history_error=history_error,
    )
    static = _check_static(
        spec, instance.get("static"), series_id=series_id, where=where, history_error=history_error
    )
    return CheckedHistory(id=series_id, values=values, last=stamps[-1], known=known, static=static)


def _refuse_irregular(
    frequency: Frequency,
    stamps: np.ndarray,
    raw: list[Any],
    first_off: int,
    spec: Mapping[str, Any],
    *,
    where: str,
    history_error: Any,
) -> None:
    """Say why the timestamps are off the model's grid from ``stamps[first_off]`` on: unsorted or
    repeated anywhere, else that timestamp is off the grid or a gap precedes it."""
    backwards = np.flatnonzero(np.diff(stamps) <= np.timedelta64(0, "s"))
    position = int(backwards[0]) + 1 if len(backwards) else first_off
    item = raw[position]
    steps = frequency.offset(stamps[position - 1], stamps[position])
    if steps is None:
        raise history_error(
            "wrong_frequency",
            f"{where}: timestamps[{position}] ({item}) is not on the model's {frequency.alias!r} grid "
            f"after timestamps[{position - 1}] ({raw[position - 1]}); send a series at that frequency.",
            position,
            "timestamps",
        )
    if steps <= 0:
        raise history_error(
            "invalid_history",
            f"{where}: timestamps[{position}] ({item}) is not after timestamps[{position - 1}]; "
            "send the history oldest first, each timestamp once.",
            position,
            "timestamps",
        )
    rule = spec.get("fill_rule", "interpolate")
    raise history_error(
        "history_gap",
        f"{where}: {steps - 1} step(s) of {frequency.alias!r} are missing before timestamps[{position}] "
        f"({item}); fill the gap (the model was trained with the fill rule {rule!r}).",
        position,
        "timestamps",
    )


def _check_known(
    spec: Mapping[str, Any], raw: Any, *, where: str, length: int, extra: int, history_error: Any
) -> dict[str, np.ndarray]:
    """Each known covariate over the history and the requested horizon (``length`` values); up to
    ``extra`` more (the rest of the model's horizon, as a client sending the model's horizon always
    has them) are accepted and left out."""
    names: Sequence[str] = spec.get("known_covariates", [])
    raw = {} if raw is None else raw
    if not isinstance(raw, Mapping):
        raise history_error(
            "invalid_history", f"{where}: known must be an object of covariate -> numbers.", None, "known"
        )
    for name in raw:
        if name not in names:
            allowed = ", ".join(names) if names else "none"
            raise history_error(
                "unknown_covariate",
                f"{where}: known covariate {name!r} is not one the model takes (it takes: {allowed}).",
                None,
                f"known.{name}",
            )
    known: dict[str, np.ndarray] = {}
    for name in names:
        if name not in raw:
            raise history_error(
                "missing_covariate",
                f"{where}: known covariate {name!r} is missing; send its {length} values "
                "(the history's and the horizon's).",
                None,
                f"known.{name}",
            )
        values = _numbers(raw[name], where=where, name=f"known.{name}", history_error=history_error)
        if not length <= len(values) <= length + extra:
            wanted = str(length) if not extra else f"{length} to {length + extra}"
            raise history_error(
                "covariate_length",
                f"{where}: known covariate {name!r} has {len(values)} values; send {wanted} "
                "(one per history timestamp, then one per forecast step up to the model's horizon).",
                None,
                f"known.{name}",
            )
        known[name] = values[:length]
    return known


def _check_static(
    spec: Mapping[str, Any], raw: Any, *, series_id: str, where: str, history_error: Any
) -> dict[str, Any]:
    names: Sequence[str] = spec.get("static_covariates", [])
    raw = {} if raw is None else raw
    if not isinstance(raw, Mapping):
        raise history_error(
            "invalid_history", f"{where}: static must be an object of covariate -> value.", None, "static"
        )
    static: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in names:
            allowed = ", ".join(names) if names else "none"
            raise history_error(
                "unknown_covariate",
                f"{where}: static covariate {name!r} is not one the model takes (it takes: {allowed}).",
                None,
                f"static.{name}",
            )
        number = _number(value)
        if not isinstance(value, str) and (number is None or not math.isfinite(number)):
            raise history_error(
                "invalid_history",
                f"{where}: static covariate {name!r} is {_describe(value)}; send a string or a number.",
                None,
                f"static.{name}",
            )
        static[name] = value
    known_series = series_id in set(spec.get("series_ids", []))
    for name in names:
        if name not in static and not known_series:
            raise history_error(
                "missing_covariate",
                f"{where}: static covariate {name!r} is missing (the id is not a training series, "
                "so the model cannot look it up).",
                None,
                f"static.{name}",
            )
    return static


def forecast_contract(spec: Mapping[str, Any]) -> ForecastContract:
    """What a forecaster with this spec (a ForecastPreprocessing) takes: the deployment's and model
    version's ``forecast_contract``.

    >>> forecast_contract({"frequency": "MS", "min_history": 24, "horizon": 12, "quantiles": [0.1, 0.9],
    ...                    "interval_level": 0.8})["horizon"]
    12
    """
    return {
        "frequency": str(spec["frequency"]),
        "min_history": int(spec.get("min_history", 1)),
        "horizon": int(spec["horizon"]),
        "quantiles": [float(q) for q in spec.get("quantiles", [])],
        "interval_level": float(spec.get("interval_level", 0.8)),
        "known_covariates": [str(name) for name in spec.get("known_covariates", [])],
        "static_covariates": [str(name) for name in spec.get("static_covariates", [])],
        "series_ids": [str(name) for name in spec.get("series_ids", [])],
    }
