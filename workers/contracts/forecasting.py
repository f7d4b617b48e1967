"""Time-series forecasting (template ``time_series_forecasting``, data kind ``"time_series"``): the
dataset schema an import fixes, the dataset-version manifest, the dataset profile, the model's
preprocessing spec (``preprocess.json``), the evaluation report and comparison, and the prediction
request and answer.

Vocabulary:

- an *observation* is one table row: a timestamp, a series id (long format), one or more target
  values and covariates; it is stored as a sample (``format`` ``ROW``);
- a *series* is one target column of one series id, on a regular grid of the dataset's
  ``frequency`` (:data:`FREQUENCIES`); a wide table with targets ``a`` and ``b`` has the series
  ``a`` and ``b``, a long one with series ids ``s1``/``s2`` and one target ``y`` has ``s1`` and
  ``s2``, a long one with two targets has ``s1/a``, ``s1/b``, ...;
- the *horizon* ``h`` is how many steps a model forecasts; a dataset version is split by time:
  the last ``h`` steps of each series are its test window, the ``h`` before its validation window;
- *known covariates* are numeric columns known in advance (holidays, prices): a request sends their
  values for the history and for the ``h`` future steps; *static covariates* are constant per
  series id (a store's region).

Missing target values on the grid (gaps, empty cells) are filled by the version's ``fill_rule``
(:data:`FillRule`), and the positions filled are excluded from every metric.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.evaluation import ModelFile

FORECASTING_VERSION = 1

#: The frequencies a dataset may have (pandas-style aliases): minutes (``"min"``, ``"5min"``,
#: ``"15min"``, ``"30min"``), hours (``"h"``), days (``"D"``), weeks (``"W"``, anchored on the first
#: timestamp's weekday), month starts/ends (``"MS"``/``"ME"``), quarter starts/ends (``"QS"``/``"QE"``)
#: and year starts/ends (``"YS"``/``"YE"``). ``workers.time_series.frequency`` implements them.
FREQUENCIES: tuple[str, ...] = (
    "min",
    "5min",
    "15min",
    "30min",
    "h",
    "D",
    "W",
    "MS",
    "ME",
    "QS",
    "QE",
    "YS",
    "YE",
)

#: How missing target values on the grid are filled (the documented rule, named in the schema):
#: ``interpolate``: linear between the nearest observed neighbours, the last observed value after
#: the last one; ``forward_fill``: the last observed value; ``zero``: 0 (counts, intermittent demand).
#: Leading missing values (before a series' first observation) are never filled: the series starts
#: at its first observation. Known covariates are always forward-filled (then back-filled).
FillRule = Literal["interpolate", "forward_fill", "zero"]
FILL_RULES: tuple[str, ...] = ("interpolate", "forward_fill", "zero")


class TimeSeriesSchema(TypedDict):
    """What a forecasting dataset's first import fixes (``Dataset.schema``, copied to each version).

    ``series_column`` is None for a wide table (each target column one series). ``frequency`` is
    the one in force (``frequency_inferred`` what the import inferred; the user may override it)."""

    kind: Literal["time_series"]
    timestamp_column: str
    series_column: str | None
    target_columns: list[str]
    known_covariates: list[str]
    static_covariates: list[str]
    frequency: str
    frequency_inferred: str | None
    fill_rule: FillRule


class TimeSeriesEntry(TypedDict):
    """One series of a version: its values on the regular grid from ``start`` (None: missing, to be
    filled by the manifest's ``fill_rule``), known covariates on the same grid, static covariates.
    ``val_start``/``test_start`` index ``values``: train is ``[:val_start]``, validation
    ``[val_start:test_start]``, test ``[test_start:]``; a series too short to hold them has
    ``val_start == test_start == len(values)`` (train only)."""

    id: str
    item: str  # the series-id column's value ("" for a wide table)
    target: str  # the target column
    start: str  # ISO 8601 timestamp of values[0]
    values: list[float | None]
    known: dict[str, list[float | None]]
    static: dict[str, float | str | None]
    val_start: int
    test_start: int


class TimeSeriesManifest(TypedDict):
    """``{"kind": "time_series", "version": 1, "frequency": "MS", "horizon": 12, ...,
    "series": [{"id": "co2", "start": "1958-03-01", "values": [315.7, ...], ...}]}``"""

    kind: Literal["time_series"]
    version: int
    frequency: str
    horizon: int
    fill_rule: FillRule
    timestamp_column: str
    series_column: str | None
    target_columns: list[str]
    known_covariates: list[str]
    static_covariates: list[str]
    series: list[TimeSeriesEntry]


# --- the dataset profile ---------------------------------------------------------------------


class SeriesProfile(TypedDict):
    """One series' summary. ``season_length`` is the frequency's (12 for monthly data);
    ``seasonal_strength`` and ``trend_strength`` are in [0, 1] (STL-style: 1 - var(remainder) /
    var(remainder + component)); ``missing_share`` counts grid points without a value."""

    id: str
    item: str
    target: str
    start: str
    end: str
    length: int
    missing: int
    missing_share: float
    mean: float | None
    std: float | None
    minimum: float | None
    maximum: float | None
    season_length: int
    seasonal_strength: float | None
    trend_strength: float | None
    zero_share: float  # intermittency: the share of observed values equal to 0


class TimeSeriesProfile(TypedDict):
    """A forecasting dataset's profile (``Dataset.profile`` as of the last import): the frequency,
    how many series and observations, and per-series summaries (up to ``PROFILE_MAX_SERIES``, the
    longest first; ``series_count`` says how many there are)."""

    kind: Literal["time_series_profile"]
    version: int
    frequency: str
    frequency_inferred: str | None
    season_length: int
    series_count: int
    observations: int
    missing_share: float
    shortest: int
    longest: int
    series: list[SeriesProfile]


class SeriesPoints(TypedDict):
    """A series' points for a chart (``GET /api/v1/datasets/{id}/series/?id=...``): timestamps and
    values (None where missing), downsampled to at most ``max_points`` by taking every n-th point
    between ``start`` and ``end`` when asked for a zoomed window."""

    id: str
    timestamps: list[str]
    values: list[float | None]
    total_points: int
    step: int


# --- the model: preprocessing spec -----------------------------------------------------------

ForecastModelName = Literal[
    "naive", "seasonal_naive", "ets", "arima", "theta", "lightgbm", "neural", "ensemble"
]


class ForecastMember(TypedDict):
    """One model of a forecaster and its ensemble ``weight`` (weights sum to 1). Learned members
    (``lightgbm``, ``neural``) run in ``model.onnx`` (``output``: their output's name, one column per
    quantile of ``quantiles`` per horizon step); statistical ones (``naive``, ``seasonal_naive``,
    ``ets``, ``arima``, ``theta``) are re-run from ``params`` on the history by
    ``workers.time_series.baselines`` (NumPy, no ONNX).

    ``params`` of a statistical member hold each training series' fitted parameters under
    ``"<series id>.<name>"`` (e.g. ``"co2.alpha"``); a series unknown to the model uses the only
    training series' parameters when there was one, else seasonal naive (serving cannot fit).
    ``params`` of a learned member: ``strategy`` (``"direct"``: one row per step; ``"recursive"``: a
    one-step model fed its own medians) and ``anchor`` (a column of the input rows its outputs
    correct, -1 for none)."""

    model: ForecastModelName
    weight: float
    output: NotRequired[str]
    params: NotRequired[dict[str, float | int | str]]


class ForecastFeatures(TypedDict):
    """How a learned member's input row is made from a series' history (the shared NumPy code,
    ``workers.time_series.features``): ``context_length`` last values scaled by the history's
    ``scaling`` statistic, ``lags`` and ``rolling_windows`` of the scaled series, ``calendar``
    features of the forecast's timestamps, the known covariates over the history and the horizon,
    the static covariates (categorical ones one-hot over their ``categories``)."""

    context_length: int
    lags: list[int]
    rolling_windows: list[int]
    calendar: list[str]
    scaling: Literal["mean_abs", "std", "none"]
    known_covariates: list[str]
    # {"name", "type": "numeric" | "categorical", "categories", "values": the value per series_ids
    # entry as text ("" when missing), looked up when a request names a training series}
    static_covariates: list[dict[str, str | list[str]]]
    width: int  # columns of the input matrix


class ForecastPreprocessing(TypedDict):
    """A forecaster's spec (``preprocess.json``, a model version's ``preprocessing``): what history
    it needs and how its members turn it into a forecast. Intervals: each member's quantile outputs,
    widened by ``interval_scale`` per horizon step (conformal calibration on the backtest windows)
    so the nominal ``interval_level`` is met."""

    kind: Literal["time_series"]
    version: int
    frequency: str
    season_length: int
    horizon: int
    min_history: int
    quantiles: list[float]
    interval_level: float
    interval_scale: list[float]
    fill_rule: FillRule
    target_columns: list[str]
    known_covariates: list[str]
    static_covariates: list[str]
    input: str
    features: ForecastFeatures
    members: list[ForecastMember]
    series_ids: list[str]  # the training series (static covariates are looked up by id)


# --- evaluation -----------------------------------------------------------------------------


class ForecastMetrics(TypedDict):
    """Point and interval scores over some forecasts. ``mase``: mean absolute error over the
    in-sample mean absolute seasonal-naive error of each series' training part; ``smape`` in percent
    (0-200); ``coverage``: the share of actual values inside the ``interval_level`` interval;
    ``width``: the interval's mean width over the series' mean absolute value (None without
    intervals)."""

    mase: float
    smape: float
    rmse: float
    coverage: float | None
    width: float | None


class SeriesScores(TypedDict):
    """One series on the test window: the model's scores, seasonal naive's MASE and the skill
    ``1 - mase / seasonal_naive_mase`` (positive: better than seasonal naive)."""

    series: str
    mase: float
    smape: float
    rmse: float
    coverage: float | None
    width: float | None
    seasonal_naive_mase: float
    skill: float | None


class HorizonScores(TypedDict):
    """The error at one horizon step (1-based) over every series."""

    step: int
    mase: float
    smape: float
    rmse: float
    seasonal_naive_mase: float


class BacktestWindow(TypedDict):
    """One rolling-origin window: forecasts from history up to ``cutoff`` (the last timestamp seen)
    for the next ``horizon`` steps. ``role``: ``validation`` windows chose the model (it was fitted
    on data before them), the ``test`` window is the held-out one."""

    index: int
    role: Literal["validation", "test"]
    cutoff: str
    metrics: ForecastMetrics
    seasonal_naive: ForecastMetrics


class BaselineScores(TypedDict):
    """A baseline's (or a candidate model's) scores on the test window and on the validation windows."""

    model: ForecastModelName
    test: ForecastMetrics
    validation: ForecastMetrics | None
    chosen_weight: float  # its weight in the forecaster (0 when not chosen)


class ForecastPlot(TypedDict):
    """A series' forecast against the actual values: ``timestamps`` span the last history points and
    the horizon; ``actual`` (None where missing) covers all of them, ``mean``/``lower``/``upper`` and
    ``seasonal_naive`` the horizon only (they start at ``forecast_start``)."""

    series: str
    timestamps: list[str]
    actual: list[float | None]
    forecast_start: int
    mean: list[float]
    lower: list[float]
    upper: list[float]
    seasonal_naive: list[float]


class ForecastReport(TypedDict):
    """A forecaster's report on the test window (the last ``horizon`` steps of each series).
    ``headline`` is over every series, next to ``seasonal_naive``'s; ``skill`` is
    ``1 - headline.mase / seasonal_naive.mase``. ``per_series`` is worst first (highest MASE), up to
    1000; ``plots`` hold up to 100 series (the worst, the best and the longest first)."""

    kind: Literal["forecast_report"]
    version: int
    split: str
    horizon: int
    frequency: str
    season_length: int
    interval_level: float
    model_name: str
    series_count: int
    observations: int
    headline: ForecastMetrics
    seasonal_naive: ForecastMetrics
    skill: float | None
    baselines: list[BaselineScores]
    per_series: list[SeriesScores]
    by_horizon: list[HorizonScores]
    backtest: list[BacktestWindow]
    plots: list[ForecastPlot]
    model: ModelFile


class ForecastMetricPair(TypedDict):
    """A metric of report a and report b; ``delta`` is b minus a (None when either is missing)."""

    a: float | None
    b: float | None
    delta: float | None


class SeriesComparison(TypedDict):
    series: str
    mase: ForecastMetricPair


class HorizonComparison(TypedDict):
    step: int
    mase: ForecastMetricPair


class ForecastComparison(TypedDict):
    """Two forecasters' reports side by side: lower MASE, sMAPE and RMSE are better; coverage is best
    nearest the nominal level. ``per_series`` holds the series both reports scored."""

    kind: Literal["forecast_comparison"]
    version: int
    mase: ForecastMetricPair
    smape: ForecastMetricPair
    rmse: ForecastMetricPair
    coverage: ForecastMetricPair
    skill: ForecastMetricPair
    per_series: list[SeriesComparison]
    by_horizon: list[HorizonComparison]


# --- prediction ----------------------------------------------------------------------------


class ForecastInstance(TypedDict):
    """One series' recent history: ``timestamps`` (ISO 8601, regular at the model's frequency,
    oldest first, at least the model's ``min_history``) and ``values`` (numbers, no gaps or NaN).
    ``known``: each known covariate's values over the history and the ``horizon`` future steps
    (``len(timestamps) + horizon`` numbers); ``static``: the series' static covariates; ``id``: the
    series' name in the answer (a training series' id also finds its static covariates)."""

    id: NotRequired[str]
    timestamps: list[str]
    values: list[float]
    known: NotRequired[dict[str, list[float]]]
    static: NotRequired[dict[str, float | str]]


class ForecastInstances(TypedDict):
    """A request to a forecaster: up to SAMPAN_DEPLOY_MAX_BATCH series; ``horizon`` from 1 to the
    model's (default the model's); ``quantiles`` among the model's (default its interval's two)."""

    instances: list[ForecastInstance]
    horizon: NotRequired[int]
    quantiles: NotRequired[list[float]]


class ForecastPrediction(TypedDict):
    """One series' forecast: the future ``timestamps``, the point forecast ``mean`` and each
    requested quantile's values, keyed by the level as written (``"0.1"``)."""

    id: str
    timestamps: list[str]
    mean: list[float]
    quantiles: dict[str, list[float]]


class ForecastContract(TypedDict):
    """What a deployed forecaster takes (the deployment's and model version's ``forecast_contract``,
    and ``details`` of a 400): the frequency, the fewest history points, the largest horizon, the
    quantiles it answers, and the covariates a request must carry."""

    frequency: str
    min_history: int
    horizon: int
    quantiles: list[float]
    interval_level: float
    known_covariates: list[str]
    static_covariates: list[str]
    series_ids: list[str]
