"""The forecasting trainer (workers.time_series.trainer) on synthetic store sales and a bundled real
series: it scores the candidates on backtest windows, keeps the best, calibrates the intervals and
writes a self-contained model.onnx (dynamic batch), preprocess.json and backtest.json that the
predictor serves; bad manifests are refused with a reason."""

from __future__ import annotations

import json
from typing import Any, cast

import numpy as np
import onnx
import pytest

from workers.time_series import synthetic
from workers.time_series.data import load_series
from workers.time_series.predictor import Forecaster
from workers.time_series.trainer import ForecastDataError, check_manifest, train

FAST = {"preset": "fast", "n_estimators": 60}


@pytest.fixture(scope="module")
def store_sales():
    rows = synthetic.multi_series(n_series=6, length=150, seed=1)
    return synthetic.manifest(rows, 14)


@pytest.fixture(scope="module")
def trained(store_sales, tmp_path_factory):
    out = tmp_path_factory.mktemp("forecaster")
    events: list[Any] = []

    def report(message="", *, fraction=None, milestone=False, **metrics):
        from workers.progress import progress_event

        events.append(progress_event(message, fraction=fraction, **metrics))

    result = train(FAST, store_sales, out, report)
    return out, result, events


def test_training_writes_a_servable_forecaster(trained, store_sales):
    out, result, events = trained
    assert set(result) >= {"model", "onnx", "preprocessing", "classes", "params", "metrics", "history"}
    assert result["classes"] == []
    assert set(result["metrics"]) == {"val_mase", "val_smape", "val_rmse", "val_coverage"}
    spec = json.loads((out / "preprocess.json").read_text())
    assert spec == result["preprocessing"]
    assert spec["kind"] == "time_series" and spec["horizon"] == 14 and spec["frequency"] == "D"
    assert spec["quantiles"] == [0.1, 0.5, 0.9]
    assert len(spec["interval_scale"]) == 14
    assert abs(sum(m["weight"] for m in spec["members"]) - 1) < 1e-9
    # every candidate of the fast preset was scored on the window, the chosen one is the best
    backtest = json.loads((out / "backtest.json").read_text())
    assert set(backtest["candidates"]) == {"naive", "seasonal_naive", "ets", "lightgbm"}
    best = min(backtest["candidates"], key=lambda n: backtest["candidates"][n]["mase"])
    assert [m["model"] for m in spec["members"]] == [best]
    # one window of 6 series x 14 steps is fewer than 100 points: 4 windows were scored
    assert [w["index"] for w in backtest["windows"]] == [4, 3, 2, 1]
    assert {w["role"] for w in backtest["windows"]} == {"validation"}
    # the learned model beats seasonal naive on these series (covariates move sales)
    assert backtest["candidates"]["lightgbm"]["mase"] < backtest["candidates"]["seasonal_naive"]["mase"]
    # progress carries the validation MASE of each candidate
    assert sum(1 for e in events if "val_mase" in e) >= 4
    assert events[-1]["fraction"] == 1.0
    # model.onnx: self-contained, a dynamic batch dimension, the preprocessing in its metadata
    proto = onnx.load(str(out / "model.onnx"))
    assert not any(t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer)
    dim = proto.graph.input[0].type.tensor_type.shape.dim[0]
    assert not dim.HasField("dim_value")
    meta = {p.key: p.value for p in proto.metadata_props}
    assert json.loads(meta["sampan.preprocessing"]) == spec


def test_forecaster_answers_requests_like_the_arrays(trained, store_sales):
    out, _, _ = trained
    forecaster = Forecaster(out)
    _, series = load_series(store_sales)
    s = series[2]
    cut = s.test_start
    instance = {
        "id": s.id,
        "timestamps": [str(t.astype("datetime64[D]")) for t in s.timestamps[:cut]],
        "values": s.values[:cut].tolist(),
        "known": {k: v[: cut + 14].tolist() for k, v in s.known.items()},
    }
    (answer,) = forecaster.forecast([instance])
    assert answer["id"] == s.id
    assert answer["timestamps"][0] == str(s.timestamps[cut].astype("datetime64[D]"))
    assert len(answer["mean"]) == 14 and set(answer["quantiles"]) == {"0.1", "0.9"}
    lower, upper = np.array(answer["quantiles"]["0.1"]), np.array(answer["quantiles"]["0.9"])
    assert np.all(lower <= np.array(answer["mean"])) and np.all(np.array(answer["mean"]) <= upper)
    mean, qs = forecaster.forecast_arrays(
        [s.values[:cut]], [s.timestamps[cut - 1]], [s.known], [{}], [s.id], 14, [0.1, 0.9]
    )
    assert np.allclose(mean[0], answer["mean"]) and np.allclose(qs[0, 0], lower)
    # a shorter horizon is the first steps of the full one
    three = {**instance, "known": {k: v[: cut + 3] for k, v in instance["known"].items()}}
    (short,) = forecaster.forecast([three], horizon=3, quantiles=[0.5])
    assert np.allclose(short["mean"], answer["mean"][:3]) and list(short["quantiles"]) == ["0.5"]
    # the same forecaster from the ONNX file and its spec
    again = Forecaster(out / "model.onnx", preprocessing=json.loads((out / "preprocess.json").read_text()))
    assert np.allclose(again.forecast([instance])[0]["mean"], answer["mean"])
    # a batch of every series in one call equals one call per series
    histories = [x.values[: x.test_start] for x in series]
    lasts = [x.timestamps[x.test_start - 1] for x in series]
    known = [x.known for x in series]
    ids = [x.id for x in series]
    batch, _ = forecaster.forecast_arrays(histories, lasts, known, [{}] * 6, ids, 14, [0.1])
    assert np.allclose(batch[2], mean[0])


def test_intervals_cover_near_nominal_on_the_test_windows(trained, store_sales):
    out, _, _ = trained
    forecaster = Forecaster(out)
    _, series = load_series(store_sales)
    mean, qs = forecaster.forecast_arrays(
        [s.values[: s.test_start] for s in series],
        [s.timestamps[s.test_start - 1] for s in series],
        [s.known for s in series],
        [{} for _ in series],
        [s.id for s in series],
        14,
        [0.1, 0.9],
    )
    actual = np.stack([s.values[s.test_start :] for s in series])
    inside = (actual >= qs[:, 0]) & (actual <= qs[:, 1])
    # 84 points: a loose band around 80% (the benchmarks measure it tightly)
    assert 0.55 <= inside.mean() <= 1.0


def test_one_named_statistical_model_writes_an_identity_graph(store_sales, tmp_path):
    result = train({"preset": "fast", "model": "seasonal_naive"}, store_sales, tmp_path)
    spec = result["preprocessing"]
    assert [m["model"] for m in spec["members"]] == ["seasonal_naive"]
    proto = onnx.load(result["onnx"])
    assert [o.name for o in proto.graph.output] == ["passthrough"]
    _, series = load_series(store_sales)
    s = series[0]
    mean, _ = Forecaster(tmp_path).forecast_arrays(
        [s.values[: s.test_start]], [s.timestamps[s.test_start - 1]], [s.known], [{}], [s.id], 14, [0.1]
    )
    # seasonal naive: the last week repeated
    assert np.allclose(mean[0], np.tile(s.values[s.test_start - 7 : s.test_start], 2))


def test_bad_manifests_are_refused_with_a_reason(store_sales):
    with pytest.raises(ForecastDataError, match="kind"):
        check_manifest(cast(Any, {"kind": "tabular"}))
    with pytest.raises(ForecastDataError, match="horizon"):
        check_manifest(cast(Any, {**store_sales, "horizon": 0}))
    short = {
        **store_sales,
        "series": [
            {**e, "values": e["values"][:10], "val_start": 10, "test_start": 10}
            for e in store_sales["series"]
        ],
    }
    with pytest.raises(ForecastDataError, match="long enough for a test window"):
        check_manifest(cast(Any, short))
    assert check_manifest(store_sales)["series"] == 6


def test_lightgbm_and_the_network_share_one_onnx_graph(tmp_path):
    import onnxruntime

    from workers.time_series.learned import fit_lightgbm, lightgbm_onnx, merge_outputs, predict_lightgbm
    from workers.time_series.neural import fit_neural, neural_onnx, predict_neural

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 12)).astype(np.float32)
    y = 2 * x[:, 0] + rng.normal(size=600)
    params = {"n_estimators": 30, "learning_rate": 0.1, "num_leaves": 15, "min_child_samples": 10, "seed": 0}
    boosters = fit_lightgbm(x, y, [0.1, 0.5, 0.9], params)
    net = fit_neural(x, y, [0.1, 0.5, 0.9], {**params, "hidden_size": 16, "epochs": 3, "learning_rate": 0.05})
    merged = merge_outputs([lightgbm_onnx(boosters, 12), neural_onnx(net, 12)])
    onnx.save(merged, str(tmp_path / "model.onnx"))
    session = onnxruntime.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [o.name for o in session.get_outputs()] == ["lightgbm", "neural"]
    for rows in (1, 7, 600):  # a dynamic batch
        trees, network = session.run(["lightgbm", "neural"], {"features": x[:rows]})
        assert trees.shape == network.shape == (rows, 3)
        assert np.allclose(trees, predict_lightgbm(boosters, x[:rows]), atol=1e-4)
        assert np.allclose(np.sort(network, axis=1), predict_neural(net, x[:rows]), atol=1e-4)
    # the quantile columns are sorted (no crossing) and the median follows the signal
    assert np.all(np.diff(trees, axis=1) >= 0)
    assert np.corrcoef(trees[:, 1], 2 * x[:, 0])[0, 1] > 0.9


def test_the_network_alone_and_series_too_short_for_a_test_window(store_sales, tmp_path):
    # a seventh series with only 20 points has no test window: it lends rows to the learned model
    short = {
        **store_sales["series"][0],
        "id": "s99",
        "item": "s99",
        "values": store_sales["series"][0]["values"][:20],
    }
    short["known"] = {k: v[:20] for k, v in short["known"].items()}
    short["val_start"] = short["test_start"] = 20
    manifest = cast(Any, {**store_sales, "series": [*store_sales["series"], short]})
    result = train({"preset": "fast", "model": "neural", "epochs": 2, "hidden_size": 16}, manifest, tmp_path)
    spec = result["preprocessing"]
    assert [m["model"] for m in spec["members"]] == ["neural"] and spec["members"][0]["output"] == "neural"
    assert "s99" in spec["series_ids"]
    proto = onnx.load(result["onnx"])
    assert [o.name for o in proto.graph.output] == ["neural"]
    forecaster = Forecaster(tmp_path)
    _, series = load_series(manifest)
    s = series[-1]
    mean, qs = forecaster.forecast_arrays(
        [s.values],
        [s.timestamps[-1]],
        [{k: np.concatenate([v, v[-14:]]) for k, v in s.known.items()}],
        [{}],
        ["s99"],
        14,
        [0.1, 0.9],
    )
    assert mean.shape == (1, 14) and np.all(np.isfinite(mean)) and np.all(qs[0, 0] <= qs[0, 1])


def test_too_short_to_train_names_the_shortest_history(store_sales):
    tiny = {
        **store_sales,
        "horizon": 14,
        "series": [
            {**e, "values": e["values"][:30], "val_start": 1, "test_start": 15} for e in store_sales["series"]
        ],
    }
    with pytest.raises(ForecastDataError, match="too short to train.*the shortest has 15"):
        check_manifest(cast(Any, tiny))
