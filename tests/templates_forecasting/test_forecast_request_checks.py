"""workers.time_series.history: a forecast request's series and options checked against a model's
spec, each problem named by its code, the series (index and id) and the position."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from workers.time_series.history import CODES, ForecastInputError, check_instance, check_options

SPEC: dict[str, Any] = {
    "frequency": "D",
    "min_history": 5,
    "horizon": 3,
    "quantiles": [0.1, 0.5, 0.9],
    "interval_level": 0.8,
    "fill_rule": "interpolate",
    "known_covariates": ["price"],
    "static_covariates": ["region"],
    "series_ids": ["s01", "s02"],
}


def days(n: int, start: str = "2024-01-01") -> list[str]:
    return [str(np.datetime64(start) + i) for i in range(n)]


def instance(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "s01",
        "timestamps": days(6),
        "values": [1.0, 2, 3.5, 4, 5, 6],
        "known": {"price": [1.0] * 9},
    }
    base.update(changes)
    return base


def refused(
    item: Any, *, index: int = 0, horizon: int = 3, spec: dict[str, Any] = SPEC
) -> ForecastInputError:
    with pytest.raises(ForecastInputError) as caught:
        check_instance(spec, item, index, horizon)
    assert caught.value.code in CODES
    return caught.value


def test_a_good_history_is_returned_as_arrays() -> None:
    checked = check_instance(SPEC, instance(), 0, 3)
    assert checked.id == "s01"
    assert checked.values.dtype == np.float64
    assert checked.values.tolist() == [1.0, 2.0, 3.5, 4.0, 5.0, 6.0]
    assert checked.last == np.datetime64("2024-01-06T00:00:00")
    assert checked.known["price"].shape == (9,)
    assert checked.static == {}  # a training series' static covariates are the model's to look up


def test_a_shorter_horizon_takes_shorter_covariates_or_the_models_horizon() -> None:
    checked = check_instance(SPEC, instance(known={"price": [2.0] * 7}), 0, 1)
    assert checked.known["price"].shape == (7,)
    checked = check_instance(SPEC, instance(known={"price": list(range(9))}), 0, 1)
    assert checked.known["price"].tolist() == list(range(7))  # the model's horizon's, cut to the request's
    exc = refused(instance(known={"price": [1] * 10}), horizon=1)
    assert exc.code == "covariate_length" and "send 7 to 9" in exc.message


def test_a_nan_value_names_the_series_and_position() -> None:
    values: list[Any] = [1.0, 2, 3, float("nan"), 5, 6]
    exc = refused(instance(id="store-7", values=values), index=1)
    assert exc.code == "history_not_numeric"
    assert exc.details == {"series": 1, "id": "store-7", "position": 3, "field": "values"}
    assert exc.message == "instances[1] (id 'store-7'): values[3] is NaN; send numbers only, without gaps."


@pytest.mark.parametrize("bad", [None, "3", True, float("inf")])
def test_values_must_be_finite_numbers(bad: Any) -> None:
    exc = refused(instance(values=[1, 2, bad, 4, 5, 6]))
    assert (exc.code, exc.details["position"]) == ("history_not_numeric", 2)


def test_too_short_a_history_says_how_many_are_needed() -> None:
    exc = refused(instance(timestamps=days(4), values=[1, 2, 3, 4], known={"price": [1] * 7}))
    assert exc.code == "history_too_short"
    assert "at least 5" in exc.message


def test_a_gap_names_the_timestamp_after_it() -> None:
    stamps = days(7)
    del stamps[4]
    exc = refused(instance(timestamps=stamps))
    assert exc.code == "history_gap"
    assert exc.details["position"] == 4
    assert "1 step(s)" in exc.message and stamps[4] in exc.message


def test_an_hourly_history_for_a_daily_model_is_the_wrong_frequency() -> None:
    stamps = [f"2024-01-01T{h:02d}:00:00" for h in range(6)]
    exc = refused(instance(timestamps=stamps))
    assert (exc.code, exc.details["position"]) == ("wrong_frequency", 1)


def test_unsorted_or_repeated_timestamps_are_refused() -> None:
    stamps = days(6)
    stamps[2], stamps[3] = stamps[3], stamps[2]
    assert refused(instance(timestamps=stamps)).code == "invalid_history"
    stamps = days(6)
    stamps[3] = stamps[2]
    exc = refused(instance(timestamps=stamps))
    assert (exc.code, exc.details["position"]) == ("invalid_history", 3)


def test_an_unparseable_timestamp_is_named() -> None:
    stamps = days(6)
    stamps[5] = "yesterday"
    exc = refused(instance(timestamps=stamps))
    assert (exc.code, exc.details["position"], exc.details["field"]) == ("invalid_history", 5, "timestamps")


def test_timestamps_and_values_must_pair_up() -> None:
    assert refused(instance(values=[1, 2, 3])).code == "invalid_history"
    assert refused({"values": [1]}).code == "invalid_history"
    assert refused(["not", "an", "object"]).code == "invalid_history"


def test_covariates_are_checked_by_name_and_length() -> None:
    assert refused(instance(known={})).code == "missing_covariate"
    exc = refused(instance(known={"price": [1] * 9, "promo": [0] * 9}))
    assert (exc.code, exc.details["field"]) == ("unknown_covariate", "known.promo")
    exc = refused(instance(known={"price": [1] * 6}))
    assert exc.code == "covariate_length"
    assert "send 9" in exc.message
    exc = refused(instance(known={"price": [1] * 8 + [None]}))
    assert (exc.code, exc.details["position"]) == ("history_not_numeric", 8)


def test_a_new_series_must_send_its_static_covariates() -> None:
    assert refused(instance(id="new-store")).code == "missing_covariate"
    checked = check_instance(SPEC, instance(id="new-store", static={"region": "north"}), 0, 3)
    assert checked.static == {"region": "north"}
    assert refused(instance(static={"size": 3})).code == "unknown_covariate"


def test_monthly_histories_follow_the_calendar() -> None:
    spec = {**SPEC, "frequency": "MS", "known_covariates": [], "static_covariates": [], "min_history": 3}
    good = {"timestamps": ["2023-11-01", "2023-12-01", "2024-01-01", "2024-02-01"], "values": [1, 2, 3, 4]}
    checked = check_instance(spec, good, 2, 3)
    assert checked.id == "2"  # no id: the position in the request
    assert checked.last == np.datetime64("2024-02-01")
    gap = {"timestamps": ["2023-11-01", "2023-12-01", "2024-02-01"], "values": [1, 2, 3]}
    assert refused(gap, spec=spec).code == "history_gap"


def test_options_default_to_the_models_horizon_and_interval() -> None:
    assert check_options(SPEC, {}) == (3, [0.1, 0.9])
    assert check_options(SPEC, {"horizon": 1, "quantiles": [0.5, 0.9000000001]}) == (1, [0.5, 0.9])


@pytest.mark.parametrize("horizon", [0, 4, 1.5, "2", True])
def test_a_horizon_beyond_the_models_is_refused(horizon: Any) -> None:
    with pytest.raises(ForecastInputError) as caught:
        check_options(SPEC, {"horizon": horizon})
    assert caught.value.code == "horizon_out_of_range"
    assert "from 1 to 3" in caught.value.message


def test_a_quantile_the_model_does_not_answer_is_refused() -> None:
    with pytest.raises(ForecastInputError) as caught:
        check_options(SPEC, {"quantiles": [0.5, 0.95]})
    assert (caught.value.code, caught.value.details) == (
        "unknown_quantile",
        {"position": 1, "field": "quantiles"},
    )


@pytest.mark.parametrize(
    "stamps",
    [
        [
            "2024-01-01T00:00:00",
            "2024-01-02T00:00:00",
            "2024-01-03 00:00",
            "2024-01-04",
            "2024-01-05",
            "2024-01-06",
        ],
        ["2024-01-01T00:00:00Z", "2024-01-02T01:00:00+01:00", *days(4, "2024-01-03")],  # offsets: one by one
        [" 2024-01-01", *days(5, "2024-01-02")],
    ],
)
def test_timestamps_read_in_one_call_or_one_by_one_mean_the_same(stamps: list[str]) -> None:
    checked = check_instance(SPEC, instance(timestamps=stamps), 0, 3)
    assert checked.last == np.datetime64("2024-01-06T00:00:00")


@pytest.mark.parametrize("bad", ["now", "today", "NaT", "2024-02-30", 20240105, "2024-01-05T25:00"])
def test_words_and_impossible_dates_are_not_timestamps(bad: Any) -> None:
    stamps: list[Any] = days(6)
    stamps[4] = bad
    exc = refused(instance(timestamps=stamps))
    assert (exc.code, exc.details["position"]) == ("invalid_history", 4)


JUNK: list[Any] = [
    None,
    True,
    0,
    -1,
    1e308,
    float("nan"),
    "",
    "x",
    "2024-13-01",
    [],
    [1],
    {},
    {"a": 1},
    [[1.0]],
]


def test_any_mangled_request_is_refused_with_a_code_never_a_crash() -> None:
    """Random replacements anywhere in a good request: it is answered or refused with one of the
    codes (the hosted API's 400), never another exception (a 500)."""
    import random

    rng = random.Random(7)
    paths: list[tuple[Any, ...]] = [
        ("id",),
        ("timestamps",),
        ("values",),
        ("known",),
        ("known", "price"),
        ("static",),
        ("timestamps", 2),
        ("values", 3),
        ("known", "price", 8),
        ("static", "region"),
    ]
    answered = refused_count = 0
    for _ in range(600):
        body: dict[str, Any] = {"instances": [instance(id="new", static={"region": "north"})]}
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(paths)
            target: Any = body["instances"][0]
            try:
                for key in path[:-1]:
                    target = target[key]
                target[path[-1]] = rng.choice(JUNK)
            except (KeyError, IndexError, TypeError):
                continue
        if rng.random() < 0.3:
            body[rng.choice(["horizon", "quantiles"])] = rng.choice(JUNK)
        try:
            horizon, _ = check_options(SPEC, body)
            check_instance(SPEC, body["instances"][0], 0, horizon)
            answered += 1
        except ForecastInputError as exc:
            assert exc.code in CODES and exc.message
            refused_count += 1
    assert refused_count > 400 and answered > 0
