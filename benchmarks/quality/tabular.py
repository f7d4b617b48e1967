"""The tabular section: every real table scikit-learn and statsmodels ship offline that makes sense as
classification or regression (time series and contingency tables left out: the forecasting
template and no model at all cover them), plus two synthetic tables with categorical, datetime and
missing cells; baselines scikit-learn's HistGradientBoosting and a tuned logistic / ridge regression.

Manifests follow the tabular contract (``workers.contracts.manifest.TabularManifest``): columns typed
numeric / categorical / datetime (ISO dates), missing cells None.
"""

from __future__ import annotations

import datetime
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality.core import Baseline, Dataset

CLASSIFICATION, REGRESSION = "tabular_classification", "tabular_regression"
# above this many train + val rows HistGradientBoosting keeps its defaults (the grid would cost minutes)
HGB_GRID_ROWS = 2000
SYNTHETIC_ROWS = 2000


# ---------------------------------------------------------------------------------------------- manifests


def _cell(value: Any) -> float | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    number = float(value)
    return None if np.isnan(number) else number


def table_manifest(
    frame: Any,
    target: str,
    *,
    task: str,
    categorical: Sequence[str] = (),
    datetime_columns: Sequence[str] = (),
    classes: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A TabularManifest from a DataFrame: every column but ``target`` a feature (numeric unless named
    in ``categorical`` / ``datetime_columns``); classification labels index ``classes`` (default:
    the target's distinct values in sorted order)."""
    features = [c for c in frame.columns if c != target]
    columns = [
        {
            "name": str(c),
            "type": "categorical" if c in categorical else "datetime" if c in datetime_columns else "numeric",
        }
        for c in features
    ]
    if task == "classification":
        names = list(classes) if classes is not None else sorted({str(v) for v in frame[target]})
        index = {name: i for i, name in enumerate(names)}
    samples = []
    for position, row in enumerate(frame.to_dict(orient="records")):
        values = {}
        for c in features:
            value = row[c]
            if c in categorical and value is not None and not (isinstance(value, float) and np.isnan(value)):
                value = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
            values[str(c)] = _cell(value)
        sample: dict[str, Any] = {"id": position, "values": values, "split": "train"}
        if task == "classification":
            sample["label"] = index[str(row[target])]
        else:
            sample["target"] = float(row[target])
        samples.append(sample)
    return {
        "kind": "tabular",
        "version": 1,
        "task": task,
        "columns": columns,
        "target": target,
        "classes": names if task == "classification" else [],
        "samples": samples,
    }


def _sklearn(name: str) -> Any:
    import sklearn.datasets  # type: ignore[import-untyped]

    bunch = getattr(sklearn.datasets, f"load_{name}")(as_frame=True)
    frame = bunch.frame.copy()
    frame.columns = [str(c).replace(" ", "_") for c in frame.columns]
    return bunch, frame


def _sklearn_classification(name: str) -> Callable[[Path], dict[str, Any]]:
    def build(_: Path) -> dict[str, Any]:
        bunch, frame = _sklearn(name)
        names = [str(n) for n in bunch.target_names]
        frame["target"] = [names[int(i)] for i in frame["target"]]
        return table_manifest(frame, "target", task="classification", classes=names)

    return build


def _diabetes(_: Path) -> dict[str, Any]:
    _, frame = _sklearn("diabetes")
    return table_manifest(frame, "target", task="regression")


def _linnerud(_: Path) -> dict[str, Any]:
    import sklearn.datasets

    bunch = sklearn.datasets.load_linnerud(as_frame=True)
    frame = bunch.data.join(bunch.target)  # Chins, Situps, Jumps + Weight, Waist, Pulse
    return table_manifest(frame, "Waist", task="regression")


def _statsmodels(name: str) -> Any:
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(f"statsmodels.datasets.{name}").load_pandas().data.copy()


def _regression(name: str, target: str, drop: Sequence[str] = (), **kinds: Any) -> Callable[[Path], dict]:
    def build(_: Path) -> dict[str, Any]:
        frame = _statsmodels(name).drop(columns=list(drop))
        return table_manifest(frame, target, task="regression", **kinds)

    return build


def _spector(_: Path) -> dict[str, Any]:
    frame = _statsmodels("spector")
    frame["GRADE"] = ["improved" if g else "not improved" for g in frame["GRADE"]]
    frame["PSI"] = ["yes" if p else "no" for p in frame["PSI"]]
    return table_manifest(frame, "GRADE", task="classification", categorical=["PSI"])


PARTY = ("strong Democrat", "weak Democrat", "independent Democrat", "independent", "independent Republican",
         "weak Republican", "strong Republican")  # fmt: skip


def _anes96(_: Path) -> dict[str, Any]:
    frame = _statsmodels("anes96")
    frame["vote"] = ["Dole" if v else "Clinton" for v in frame["vote"]]
    frame["PID"] = [PARTY[int(p)] for p in frame["PID"]]
    return table_manifest(frame, "vote", task="classification", categorical=["PID"])


def _fair(_: Path) -> dict[str, Any]:
    frame = _statsmodels("fair")
    frame["affairs"] = ["yes" if a > 0 else "no" for a in frame["affairs"]]
    return table_manifest(
        frame, "affairs", task="classification", categorical=["occupation", "occupation_husb"]
    )


def _modechoice(_: Path) -> dict[str, Any]:
    frame = _statsmodels("modechoice").drop(columns=["individual"])
    frame["mode"] = [("air", "train", "bus", "car")[int(m) - 1] for m in frame["mode"]]
    frame["choice"] = ["chosen" if c else "not chosen" for c in frame["choice"]]
    return table_manifest(frame, "choice", task="classification", categorical=["mode"])


def _star98(_: Path) -> dict[str, Any]:
    frame = _statsmodels("star98")
    frame["share_above"] = frame["NABOVE"] / (frame["NABOVE"] + frame["NBELOW"])
    return table_manifest(frame.drop(columns=["NABOVE", "NBELOW"]), "share_above", task="regression")


def _grunfeld(_: Path) -> dict[str, Any]:
    frame = _statsmodels("grunfeld")
    frame["year"] = [f"{int(y)}-01-01" for y in frame["year"]]
    return table_manifest(frame, "invest", task="regression", categorical=["firm"], datetime_columns=["year"])


def _ccard(_: Path) -> dict[str, Any]:
    frame = _statsmodels("ccard")
    frame["OWNRENT"] = ["owns" if o else "rents" for o in frame["OWNRENT"]]
    return table_manifest(frame, "AVGEXP", task="regression", categorical=["OWNRENT"])


def _cpunish(_: Path) -> dict[str, Any]:
    frame = _statsmodels("cpunish")
    frame["SOUTH"] = ["south" if s else "not south" for s in frame["SOUTH"]]
    return table_manifest(frame, "EXECUTIONS", task="regression", categorical=["SOUTH"])


def _randhie(_: Path) -> dict[str, Any]:
    frame = _statsmodels("randhie")
    frame = frame.sample(n=3000, random_state=0).reset_index(drop=True)  # of 20,190 rows: minutes saved
    return table_manifest(frame, "mdvis", task="regression")


# ---------------------------------------------------------------------------------------------- synthetic

REGIONS = ("north", "south", "east", "west", "centre", "islands")
CHANNELS = ("web", "store", "phone")


def _synthetic_frame(seed: int) -> tuple[Any, np.ndarray]:
    """Shared columns: x1..x5 uniform (Friedman #1's inputs), x6..x7 noise, ``region`` (6 levels)
    and ``channel`` (3), a ``signup`` date over three years; returns (frame, latent score)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = SYNTHETIC_ROWS
    x = rng.uniform(size=(n, 7))
    region = rng.integers(0, len(REGIONS), size=n)
    channel = rng.choice(len(CHANNELS), size=n, p=[0.5, 0.3, 0.2])
    day = rng.integers(0, 3 * 365, size=n)
    dates = [datetime.date(2021, 1, 1) + datetime.timedelta(days=int(d)) for d in day]
    friedman = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3] + 5 * x[:, 4]
    region_effect = np.array([0.0, 3.0, -2.0, 1.5, -3.5, 5.0])[region]
    channel_effect = np.array([0.0, -2.5, 2.0])[channel] * x[:, 3]  # interacts with x4
    trend = 4.0 * day / (3 * 365)  # drifts over the dates
    score = friedman + region_effect + channel_effect + trend
    frame = pd.DataFrame({f"x{i + 1}": x[:, i] for i in range(7)})
    frame["region"] = [REGIONS[r] for r in region]
    frame["channel"] = [CHANNELS[c] for c in channel]
    frame["signup"] = [d.isoformat() for d in dates]
    for column, share in (("x1", 0.15), ("x4", 0.10), ("region", 0.15), ("signup", 0.10), ("x6", 0.20)):
        gone = rng.random(n) < share
        frame[column] = frame[column].astype(object)
        frame.loc[gone, column] = None
    return frame, score + rng.normal(scale=1.5, size=n)


def _synthetic_regression(_: Path) -> dict[str, Any]:
    frame, score = _synthetic_frame(19)
    frame["y"] = score
    return table_manifest(
        frame, "y", task="regression", categorical=["region", "channel"], datetime_columns=["signup"]
    )


def _synthetic_classification(_: Path) -> dict[str, Any]:
    frame, score = _synthetic_frame(20)
    low, high = np.quantile(score, [1 / 3, 2 / 3])
    names = ["low", "medium", "high"]
    frame["tier"] = [names[0] if s < low else names[1] if s < high else names[2] for s in score]
    return table_manifest(
        frame,
        "tier",
        task="classification",
        categorical=["region", "channel"],
        datetime_columns=["signup"],
        classes=names,
    )


SK = "scikit-learn's bundled"
SM = "statsmodels.datasets."
DATASETS: tuple[Dataset, ...] = (
    Dataset(
        "iris",
        CLASSIFICATION,
        f"{SK} iris: 3 species from 4 flower measurements",
        _sklearn_classification("iris"),
    ),
    Dataset(
        "wine",
        CLASSIFICATION,
        f"{SK} wine: 3 cultivars from 13 chemical measurements",
        _sklearn_classification("wine"),
    ),
    Dataset(
        "breast_cancer",
        CLASSIFICATION,
        f"{SK} breast cancer (Wisconsin): malignant or benign from 30 cell-nucleus features",
        _sklearn_classification("breast_cancer"),
    ),
    Dataset(
        "digits_table",
        CLASSIFICATION,
        f"{SK} digits as a table: 64 pixel columns (8x8, 0-16), 10 classes",
        _sklearn_classification("digits"),
    ),
    Dataset(
        "spector",
        CLASSIFICATION,
        (
            f"{SM}spector: whether the grade improved (GRADE) from GPA, TUCE and the PSI teaching "
            "method (categorical)"
        ),
        _spector,
    ),
    Dataset(
        "anes96",
        CLASSIFICATION,
        (
            f"{SM}anes96: the 1996 vote (Clinton or Dole) from party identification (categorical, 7 "
            "levels), left-right placements, age, education, income, TV news, population"
        ),
        _anes96,
    ),
    Dataset(
        "fair",
        CLASSIFICATION,
        (
            f"{SM}fair: any affair (affairs > 0) from marriage rating, age, years married, children, "
            "religiousness, education and both occupations (categorical)"
        ),
        _fair,
    ),
    Dataset(
        "modechoice",
        CLASSIFICATION,
        (
            f"{SM}modechoice: whether a travel mode (categorical: air, train, bus, car) was the one "
            "chosen, from its times and costs, household income and party size (the individual's id "
            "dropped)"
        ),
        _modechoice,
    ),
    Dataset(
        "synthetic_classification",
        CLASSIFICATION,
        (
            f"generated (seed 20): {SYNTHETIC_ROWS:,} rows, the tercile of a Friedman #1 score plus "
            "region (6 levels) and channel x x4 effects and a trend over the signup date; 2 noise "
            "columns; 10-20 % missing cells in x1, x4, x6, region, signup"
        ),
        _synthetic_classification,
    ),
    Dataset(
        "diabetes",
        REGRESSION,
        f"{SK} diabetes: disease progression after one year from 10 baseline variables",
        _diabetes,
    ),
    Dataset(
        "linnerud",
        REGRESSION,
        (f"{SK} linnerud: the target is Waist, from Chins, Situps, Jumps, Weight and Pulse (20 rows)"),
        _linnerud,
    ),
    Dataset(
        "longley",
        REGRESSION,
        f"{SM}longley: total employment (TOTEMP) from 6 economic series (16 rows)",
        _regression("longley", "TOTEMP"),
    ),
    Dataset(
        "stackloss",
        REGRESSION,
        (f"{SM}stackloss: stack loss from air flow, water temperature and acid concentration (21 rows)"),
        _regression("stackloss", "STACKLOSS"),
    ),
    Dataset(
        "committee",
        REGRESSION,
        (
            f"{SM}committee: bills in the 104th Congress (BILLS104) from committee size, "
            "subcommittees, staff, prestige, bills in the 103rd (20 rows)"
        ),
        _regression("committee", "BILLS104"),
    ),
    Dataset(
        "copper",
        REGRESSION,
        (f"{SM}copper: world copper consumption from prices, income index, inventory and time (25 rows)"),
        _regression("copper", "WORLDCONSUMPTION"),
    ),
    Dataset(
        "cpunish",
        REGRESSION,
        (
            f"{SM}cpunish: executions per state from income, poverty, population shares, violent "
            "crime, south (categorical), degree (17 rows)"
        ),
        _cpunish,
    ),
    Dataset(
        "scotland",
        REGRESSION,
        (f"{SM}scotland: the YES share of the 1997 referendum per council from 7 council figures (32 rows)"),
        _regression("scotland", "YES"),
    ),
    Dataset(
        "ccard",
        REGRESSION,
        (
            f"{SM}ccard: average credit card spend from age, income, income squared and owning or "
            "renting (categorical)"
        ),
        _ccard,
    ),
    Dataset(
        "statecrime",
        REGRESSION,
        (
            f"{SM}statecrime: murder rate per state from high-school graduation, poverty, single "
            "parents, white and urban shares (the violent-crime rate, which contains murders, "
            "dropped)"
        ),
        _regression("statecrime", "murder", drop=["violent"]),
    ),
    Dataset(
        "strikes",
        REGRESSION,
        f"{SM}strikes: strike duration from the industrial production index",
        _regression("strikes", "duration"),
    ),
    Dataset(
        "engel",
        REGRESSION,
        f"{SM}engel: household food expenditure from income",
        _regression("engel", "foodexp"),
    ),
    Dataset(
        "grunfeld",
        REGRESSION,
        (
            f"{SM}grunfeld: gross investment from firm value, capital stock, firm (categorical, 11) "
            "and year (a date column)"
        ),
        _grunfeld,
    ),
    Dataset(
        "cancer",
        REGRESSION,
        f"{SM}cancer: cancer deaths per county from its population",
        _regression("cancer", "cancer"),
    ),
    Dataset(
        "star98",
        REGRESSION,
        (
            f"{SM}star98: the share of a district's students above the national math median, NABOVE / "
            "(NABOVE + NBELOW), from 20 district figures"
        ),
        _star98,
    ),
    Dataset(
        "randhie",
        REGRESSION,
        (
            f"{SM}randhie: doctor visits (mdvis) from insurance and health variables; 3,000 of its "
            "20,190 rows (a fixed sample, seed 0)"
        ),
        _randhie,
    ),
    Dataset(
        "synthetic_regression",
        REGRESSION,
        (
            f"generated (seed 19): {SYNTHETIC_ROWS:,} rows, Friedman #1 on x1..x5 plus region (6 "
            "levels) and channel x x4 effects, a trend over the signup date and noise (sd 1.5); 2 "
            "noise columns; 10-20 % missing cells in x1, x4, x6, region, signup"
        ),
        _synthetic_regression,
    ),
)
# left out: statsmodels' time series (co2, elnino, nile, sunspots, macrodata, interest_inflation,
# danish_data, fertility: the forecasting template's), china_smoking (an 8-cell contingency table)
# and heart (censored survival times)


# ---------------------------------------------------------------------------------------------- baselines


def _frame_of(manifest: dict[str, Any], splits: tuple[str, ...]) -> Any:
    """Rows of ``splits`` as a DataFrame with datetime columns expanded into days since 1970, month
    and day of week (what a scikit-learn user would do)."""
    import pandas as pd

    rows = [s["values"] for s in manifest["samples"] if s["split"] in splits]
    frame = pd.DataFrame(rows, columns=[c["name"] for c in manifest["columns"]])
    for column in manifest["columns"]:
        name = column["name"]
        if column["type"] == "datetime":
            when = pd.to_datetime(frame[name], errors="coerce")
            frame[f"{name}__days"] = (when - pd.Timestamp("1970-01-01")).dt.days.astype(float)
            frame[f"{name}__month"] = when.dt.month.astype(float)
            frame[f"{name}__weekday"] = when.dt.dayofweek.astype(float)
            frame = frame.drop(columns=[name])
        elif column["type"] == "categorical":
            frame[name] = frame[name].astype(object).where(frame[name].notna(), None)
        else:
            frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)
    return frame


def _xy(manifest: dict[str, Any]) -> tuple[Any, np.ndarray, Any, list[str]]:
    fit_rows = [s for s in manifest["samples"] if s["split"] in ("train", "val")]
    regression = manifest["task"] == "regression"
    y = np.asarray([s["target"] if regression else s["label"] for s in fit_rows])
    categorical = [c["name"] for c in manifest["columns"] if c["type"] == "categorical"]
    return _frame_of(manifest, ("train", "val")), y, _frame_of(manifest, ("test",)), categorical


def _hist_gbdt(manifest: dict[str, Any], seed: int) -> np.ndarray:
    from sklearn.compose import ColumnTransformer  # type: ignore[import-untyped]
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor  # type: ignore[import-untyped]
    from sklearn.model_selection import GridSearchCV  # type: ignore[import-untyped]
    from sklearn.pipeline import make_pipeline  # type: ignore[import-untyped]
    from sklearn.preprocessing import OrdinalEncoder  # type: ignore[import-untyped]

    x, y, x_test, categorical = _xy(manifest)
    regression = manifest["task"] == "regression"
    encode = ColumnTransformer(
        [
            (
                "categories",
                OrdinalEncoder(
                    handle_unknown="use_encoded_value",
                    unknown_value=np.nan,
                    encoded_missing_value=np.nan,
                    min_frequency=None,
                ),
                categorical,
            )
        ],
        remainder="passthrough",
        verbose_feature_names_out=False,
    )
    for frame in (x, x_test):
        for name in categorical:
            frame[name] = frame[name].astype(object).where(frame[name].notna(), np.nan)
    kind = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    model = kind(
        categorical_features=list(range(len(categorical))) or None,  # the encoder puts them first
        random_state=seed,
    )
    pipeline = make_pipeline(encode, model)
    if len(y) <= HGB_GRID_ROWS:
        name = pipeline.steps[-1][0]
        folds = min(3, len(y) if regression else int(np.bincount(y).min()))
        if folds >= 2:
            pipeline = GridSearchCV(
                pipeline,
                {f"{name}__learning_rate": [0.05, 0.1], f"{name}__min_samples_leaf": [5, 20]},
                cv=folds,
                n_jobs=1,
            )
    pipeline.fit(x, y)
    return np.asarray(pipeline.predict(x_test))


def _linear(manifest: dict[str, Any], seed: int) -> np.ndarray:
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer  # type: ignore[import-untyped]
    from sklearn.linear_model import LogisticRegressionCV, RidgeCV  # type: ignore[import-untyped]
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    x, y, x_test, categorical = _xy(manifest)
    regression = manifest["task"] == "regression"
    numeric = [c for c in x.columns if c not in categorical]
    for frame in (x, x_test):
        for name in categorical:
            frame[name] = frame[name].astype(object).where(frame[name].notna(), "(missing)")
    prepare = ColumnTransformer(
        [
            ("categories", OneHotEncoder(handle_unknown="ignore"), categorical),
            (
                "numbers",
                make_pipeline(SimpleImputer(strategy="median", add_indicator=True), StandardScaler()),
                numeric,
            ),
        ]
    )
    if regression:
        model: Any = RidgeCV(alphas=np.logspace(-3, 3, 13))
    else:
        folds = max(2, min(5, int(np.bincount(y).min())))
        model = LogisticRegressionCV(
            Cs=10, cv=StratifiedKFold(folds, shuffle=True, random_state=seed), max_iter=2000
        )
    pipeline = make_pipeline(prepare, model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs convergence chatter at the weakest regularisation
        pipeline.fit(x, y)
    return np.asarray(pipeline.predict(x_test))


BASELINES: tuple[Baseline, ...] = (
    Baseline(
        "hist_gbdt",
        "scikit-learn HistGradientBoosting (native categorical support, ordinal-encoded categories; "
        f"up to {HGB_GRID_ROWS:,} train + val rows learning rate 0.05/0.1 x min samples per leaf 5/20 "
        "chosen by 3-fold CV, defaults above)",
        (CLASSIFICATION, REGRESSION),
        _hist_gbdt,
    ),
    Baseline(
        "linear_cv",
        "LogisticRegressionCV (10 C values, stratified 5-fold) / RidgeCV (13 alphas, 1e-3..1e3) on one-hot "
        "categories and median-imputed, standardised numbers with missing indicators",
        (CLASSIFICATION, REGRESSION),
        _linear,
    ),
)
