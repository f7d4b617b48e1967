"""Bootstrap intervals of a test split's metrics (workers.shared.intervals): they cover the true
figure about as often as they claim, agree with a plain resampling loop over the report's own
metrics, are reproducible for a seed, and say what they do at the edges (one sample, one class,
constant targets) and on bad input."""

from __future__ import annotations

import numpy as np
import pytest

from workers.shared.classification_metrics import classification_metrics
from workers.shared.intervals import classification_intervals, regression_intervals
from workers.tabular.evaluation import regression_metrics


def by_metric(intervals: list) -> dict:
    return {entry["metric"]: entry for entry in intervals}


def noisy_classifier(rng: np.random.Generator, n: int, classes: int, accuracy: float) -> tuple:
    """Labels and one-hot-ish scores whose argmax is right with probability ``accuracy``."""
    y = rng.integers(0, classes, n)
    wrong = rng.random(n) >= accuracy
    predicted = np.where(wrong, (y + rng.integers(1, classes, n)) % classes, y)
    scores = np.full((n, classes), 0.1)
    scores[np.arange(n), predicted] = 0.9
    return y, scores


def test_accuracy_interval_covers_the_true_accuracy_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    covered = []
    widths = []
    for trial in range(200):
        y, scores = noisy_classifier(rng, 100, 3, 0.8)
        accuracy = by_metric(classification_intervals(y, scores, seed=trial))["accuracy"]
        covered.append(accuracy["low"] <= 0.8 <= accuracy["high"])
        widths.append(accuracy["high"] - accuracy["low"])
    assert 0.88 <= np.mean(covered) <= 0.99
    # binomial: 2 * 1.96 * sqrt(0.8 * 0.2 / 100) = 0.157
    assert np.mean(widths) == pytest.approx(0.157, abs=0.02)


def test_rmse_interval_covers_the_noise_level_of_a_known_model():
    rng = np.random.default_rng(3)
    covered = []
    for trial in range(100):
        x = rng.normal(size=200)
        y = 2 * x + rng.normal(size=200)  # the model 2x has RMSE 1 in expectation
        rmse = by_metric(regression_intervals(y, 2 * x, seed=trial))["rmse"]
        covered.append(rmse["low"] <= 1.0 <= rmse["high"])
    assert 0.85 <= np.mean(covered) <= 1.0


def test_values_are_the_reports_figures_and_the_spread_matches_a_plain_resampling_loop():
    rng = np.random.default_rng(11)
    y, scores = noisy_classifier(rng, 60, 4, 0.7)
    names = ["a", "b", "c", "d"]
    found = by_metric(classification_intervals(y, scores, seed=1, resamples=2000))
    whole = classification_metrics(y, scores, names)
    assert found["accuracy"]["value"] == pytest.approx(whole["accuracy"], abs=1e-12)
    assert found["macro_f1"]["value"] == pytest.approx(whole["macro"]["f1"], abs=1e-12)
    loop = np.random.default_rng(99)
    accuracy, macro_f1 = [], []
    for _ in range(2000):
        drawn = loop.integers(0, len(y), len(y))
        metrics = classification_metrics(y[drawn], scores[drawn], names)
        accuracy.append(metrics["accuracy"])
        macro_f1.append(metrics["macro"]["f1"])
    for metric, draws in (("accuracy", accuracy), ("macro_f1", macro_f1)):
        low, high = np.quantile(draws, [0.025, 0.975])
        assert found[metric]["low"] == pytest.approx(low, abs=0.03), metric
        assert found[metric]["high"] == pytest.approx(high, abs=0.03), metric

    target = rng.normal(size=80)
    predicted = target + rng.normal(scale=0.5, size=80)
    found = by_metric(regression_intervals(target, predicted, seed=1, resamples=2000))
    whole = regression_metrics(target, predicted)
    for metric in ("mae", "rmse", "r2"):
        assert found[metric]["value"] == pytest.approx(whole[metric], abs=1e-9)
    draws: dict[str, list[float]] = {"mae": [], "rmse": [], "r2": []}
    for _ in range(2000):
        drawn = loop.integers(0, 80, 80)
        for metric, value in regression_metrics(target[drawn], predicted[drawn]).items():
            draws[metric].append(value)
    for metric, values in draws.items():
        low, high = np.quantile(values, [0.025, 0.975])
        spread = high - low
        assert found[metric]["low"] == pytest.approx(low, abs=0.1 * spread), metric
        assert found[metric]["high"] == pytest.approx(high, abs=0.1 * spread), metric


def test_the_contract_fields_and_the_order_of_low_value_high():
    rng = np.random.default_rng(5)
    y, scores = noisy_classifier(rng, 40, 3, 0.75)
    intervals = classification_intervals(y, scores, resamples=300, confidence=0.9)
    assert [entry["metric"] for entry in intervals] == ["accuracy", "macro_f1"]
    for entry in intervals:
        assert set(entry) == {"metric", "value", "low", "high", "confidence", "resamples"}
        assert entry["confidence"] == 0.9 and entry["resamples"] == 300
        assert 0.0 <= entry["low"] <= entry["value"] <= entry["high"] <= 1.0
        assert entry["low"] < entry["high"]
    regression = regression_intervals(rng.normal(size=30), rng.normal(size=30))
    assert [entry["metric"] for entry in regression] == ["mae", "rmse", "r2"]
    assert all(entry["low"] <= entry["value"] <= entry["high"] for entry in regression)


def test_a_seed_gives_the_same_interval_and_another_seed_another():
    rng = np.random.default_rng(2)
    y, scores = noisy_classifier(rng, 50, 3, 0.7)
    assert classification_intervals(y, scores, seed=4) == classification_intervals(y, scores, seed=4)
    assert classification_intervals(y, scores, seed=4) != classification_intervals(y, scores, seed=5)
    target, predicted = rng.normal(size=50), rng.normal(size=50)
    assert regression_intervals(target, predicted, seed=4) == regression_intervals(target, predicted, seed=4)
    assert regression_intervals(target, predicted, seed=4) != regression_intervals(target, predicted, seed=5)


def test_many_classes_and_many_samples_take_the_chunked_path_with_the_same_result_shape():
    rng = np.random.default_rng(8)
    y, scores = noisy_classifier(rng, 3000, 40, 0.6)  # ~1,000 distinct confusion cells
    found = by_metric(classification_intervals(y, scores, resamples=200))
    assert found["accuracy"]["value"] == pytest.approx(
        classification_metrics(y, scores, list("x" * 40))["accuracy"]
    )
    # 3,000 samples: the accuracy's standard error is about 0.009, so the 95 % interval is about 0.035 wide
    assert 0.025 <= found["accuracy"]["high"] - found["accuracy"]["low"] <= 0.045


def test_one_sample_has_no_spread():
    (accuracy, macro_f1) = classification_intervals(np.array([1]), np.array([[0.2, 0.8]]))
    assert accuracy["low"] == accuracy["value"] == accuracy["high"] == 1.0
    assert macro_f1["low"] == macro_f1["value"] == macro_f1["high"] == 0.5  # the absent class counts 0
    mae, rmse, r2 = regression_intervals(np.array([3.0]), np.array([[2.5]]))
    assert mae["low"] == mae["value"] == mae["high"] == 0.5
    assert rmse["value"] == 0.5 and r2["value"] == 0.0 == r2["low"] == r2["high"]


def test_one_class_present_and_constant_targets_follow_the_reports_conventions():
    y = np.zeros(20, dtype=int)
    scores = np.tile([0.9, 0.05, 0.05], (20, 1))
    scores[:4] = [0.1, 0.8, 0.1]  # 4 of 20 wrong
    found = by_metric(classification_intervals(y, scores))
    assert found["accuracy"]["value"] == pytest.approx(0.8)
    # class 0's F1 is 2*16/(16+20) = 0.889; classes 1 and 2 have no samples and count 0 (one is predicted)
    assert found["macro_f1"]["value"] == pytest.approx((32 / 36) / 3)
    assert 0.5 <= found["accuracy"]["low"] < 0.8 < found["accuracy"]["high"] <= 1.0

    constant = np.full(15, 4.2)
    found = by_metric(regression_intervals(constant, constant + np.linspace(-1, 1, 15)))
    assert found["r2"]["value"] == found["r2"]["low"] == found["r2"]["high"] == 0.0
    assert found["mae"]["low"] < found["mae"]["value"] < found["mae"]["high"]
    # two distinct targets: many resamples draw one value only (R2 0 there), none gives NaN
    two = regression_intervals(np.array([1.0, 2.0]), np.array([1.1, 1.8]))
    assert all(np.isfinite([e["low"], e["value"], e["high"]]).all() for e in two)


def test_all_right_or_all_wrong_gets_the_wilson_interval_not_a_point():
    z2 = 1.959963984540054**2  # Wilson at 0 or n of n right: n / (n + z^2) and z^2 / (n + z^2)
    y = np.zeros(36, dtype=int)
    right = by_metric(classification_intervals(y, np.tile([0.9, 0.1], (36, 1))))
    assert right["accuracy"]["value"] == right["accuracy"]["high"] == 1.0
    assert right["accuracy"]["low"] == pytest.approx(36 / (36 + z2))  # 0.904
    assert right["macro_f1"]["low"] == right["macro_f1"]["high"] == 0.5  # class 1 absent: F1 0 in every draw
    wrong = by_metric(classification_intervals(y, np.tile([0.1, 0.9], (36, 1))))
    assert wrong["accuracy"]["low"] == wrong["accuracy"]["value"] == 0.0
    assert wrong["accuracy"]["high"] == pytest.approx(z2 / (36 + z2))  # 0.096


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: classification_intervals(np.array([], dtype=int), np.zeros((0, 2))), "at least one sample"),
        (lambda: classification_intervals(np.array([0, 1]), np.zeros((3, 2))), "2 samples but scores have 3"),
        (
            lambda: classification_intervals(np.array([0, 2]), np.zeros((2, 2))),
            "class indices must lie in 0..1",
        ),
        (lambda: classification_intervals(np.array([0]), np.array([[np.nan, 1.0]])), "NaN"),
        (lambda: classification_intervals(np.array([0]), np.ones((1, 2)), resamples=0), "resamples"),
        (lambda: classification_intervals(np.array([0]), np.ones((1, 2)), confidence=95), "confidence"),
        (lambda: regression_intervals(np.ones(3), np.ones(4)), "3 samples but y_pred has 4"),
        (lambda: regression_intervals(np.ones((3, 2)), np.ones(3)), "y_true must be [samples]"),
        (lambda: regression_intervals(np.ones(2), np.array([1.0, np.inf])), "NaN or infinite"),
    ],
)
def test_bad_input_is_refused_with_a_message_naming_the_problem(call, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        call()


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_tabular_report_carries_the_intervals_of_its_headline(task, tmp_path):
    from workers.tabular.evaluation import evaluate
    from workers.tabular.trainer import train

    rng = np.random.default_rng(4)
    samples = []
    for i in range(150):
        x, z = rng.normal(size=2)
        target = {"label": int(x + 0.3 * z > 0)} if task == "classification" else {"target": 3 * x - z}
        samples.append(
            {"id": i, "split": ["train", "val", "test"][i % 3], "values": {"x": x, "z": z}, **target}
        )
    manifest = {
        "kind": "tabular",
        "task": task,
        "target": "y",
        "columns": [{"name": "x", "type": "numeric"}, {"name": "z", "type": "numeric"}],
        "samples": samples,
        **({"classes": ["low", "high"]} if task == "classification" else {}),
    }
    result = train({"preset": "fast", "validation": "holdout"}, manifest, tmp_path / "run")
    report = evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"])
    found = by_metric(report["intervals"])
    headline = ("accuracy", "macro_f1") if task == "classification" else ("mae", "rmse", "r2")
    assert list(found) == list(headline)
    for metric in headline:
        figure = report["headline"][metric]
        assert found[metric]["value"] == pytest.approx(figure, abs=1e-9)
        # 50 test rows: a real spread around the figure
        assert found[metric]["low"] < figure < found[metric]["high"] or figure in (0.0, 1.0)
        assert found[metric]["resamples"] == 1000 and found[metric]["confidence"] == 0.95
