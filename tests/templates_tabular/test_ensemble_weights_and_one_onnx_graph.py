"""The tabular ensemble (workers/tabular/ensemble.py): greedy weights from out-of-fold predictions
that never lose to the best single member, and one self-contained ONNX graph equal to the weighted
sum of bagged LightGBM (onnxmltools), torch MLP (dynamo, opset 18) and linear members."""

from __future__ import annotations

from pathlib import Path

import lightgbm
import numpy as np
import onnx
import onnxmltools
import onnxruntime
import pytest
from onnxmltools.convert.common.data_types import FloatTensorType
from sklearn.datasets import load_diabetes, load_wine
from sklearn.model_selection import KFold, StratifiedKFold

from workers.shared.onnx_model import check_onnx_self_contained
from workers.tabular.ensemble import EnsembleError, combine_onnx, fit_weights, oof_loss
from workers.tabular.linear import fit_linear, linear_to_onnx
from workers.tabular.trainer import TREE_OPSET, _rename_output


def standardised(x: np.ndarray) -> np.ndarray:
    return ((x - x.mean(axis=0)) / x.std(axis=0)).astype(np.float32)


def gbdt(regression: bool, seed: int):
    kind = lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier
    return kind(n_estimators=40, learning_rate=0.1, num_leaves=8, random_state=seed, verbose=-1, n_jobs=1)


def out_of_fold(x, y, regression: bool) -> dict[str, np.ndarray]:
    """Real members' out-of-fold predictions: LightGBM, the linear model and a constant guess."""
    folds = (KFold if regression else StratifiedKFold)(5, shuffle=True, random_state=0)
    shape = (len(y),) if regression else (len(y), int(y.max()) + 1)
    oof = {name: np.zeros(shape) for name in ("gbdt", "linear", "constant")}
    for train, test in folds.split(x, y):
        model = gbdt(regression, 0).fit(x[train], y[train])
        oof["gbdt"][test] = model.predict(x[test]) if regression else model.predict_proba(x[test])
        oof["linear"][test] = fit_linear(x[train], y[train], regression=regression, seed=0).predict(x[test])
        oof["constant"][test] = (
            y[train].mean() if regression else np.bincount(y[train], minlength=shape[1]) / len(train)
        )
    return oof


@pytest.mark.parametrize("regression", [False, True], ids=["wine", "diabetes"])
def test_weights_from_out_of_fold_predictions_beat_or_equal_the_best_member(regression):
    x, y = load_diabetes(return_X_y=True) if regression else load_wine(return_X_y=True)
    x = standardised(x)
    oof = out_of_fold(x, y, regression)
    weights = fit_weights(list(oof.values()), y, regression=regression)
    assert weights.shape == (3,) and (weights >= 0).all() and weights.sum() == pytest.approx(1.0)
    losses = {name: oof_loss(prediction, y, regression=regression) for name, prediction in oof.items()}
    blended = sum(w * p for w, p in zip(weights, oof.values(), strict=True))
    assert oof_loss(blended, y, regression=regression) <= min(losses.values()) + 1e-12, (weights, losses)
    assert weights[2] == 0.0, "the constant guess never helps"
    assert weights[:2].min() > 0, f"trees and the linear model both help here: {weights}"


def test_greedy_selection_finds_the_blend_that_cancels_opposite_errors():
    y = np.linspace(0.0, 10.0, 50)
    members = [y + 1.0, y - 1.0, y + 3.0]
    weights = fit_weights(members, y, regression=True, rounds=10)
    np.testing.assert_allclose(weights, [0.5, 0.5, 0.0])
    # One round is the best single member (ties: the earlier one).
    np.testing.assert_array_equal(fit_weights(members, y, regression=True, rounds=1), [1.0, 0.0, 0.0])
    # Regression predictions as ONNX gives them, [rows, 1], are accepted too.
    np.testing.assert_allclose(fit_weights([m[:, None] for m in members], y, regression=True), [0.5, 0.5, 0])


@pytest.mark.parametrize(
    ("oof", "y", "options", "message"),
    [
        ([], np.zeros(3), {}, "at least one member"),
        ([np.zeros((3, 2))], np.array([0, 1, 0]), {"rounds": 0}, "rounds must be at least 1"),
        ([np.zeros((3, 2)), np.zeros((3, 3))], np.array([0, 1, 0]), {}, "member 1: predictions of shape"),
        ([np.zeros((4, 2))], np.array([0, 1, 0]), {}, "4 predictions for 3 rows"),
        ([np.full((3, 2), np.nan)], np.array([0, 1, 0]), {}, "NaN or infinite"),
        ([np.zeros(3)], np.array([0, 1, 0]), {}, r"must be \[rows, classes\]"),
        ([np.zeros((3, 2))], np.array([0, 2, 0]), {}, r"labels must lie in 0..1"),
        ([np.zeros((3, 2))], np.zeros(3), {"regression": True}, r"must be \[rows\]"),
    ],
)
def test_bad_out_of_fold_predictions_are_refused_by_name(oof, y, options, message):
    with pytest.raises(EnsembleError, match=message):
        fit_weights(oof, y, regression=options.pop("regression", False), **options)


def export_gbdt(model, path: Path, width: int, regression: bool) -> Path:
    """As workers/tabular/trainer.py's _train_gbdt exports LightGBM."""
    proto = onnxmltools.convert_lightgbm(
        model,
        initial_types=[("features", FloatTensorType([None, width]))],
        target_opset=TREE_OPSET,
        **({} if regression else {"zipmap": False}),
    )
    if regression:
        _rename_output(proto, proto.graph.output[0].name, "value")
    onnx.save(proto, str(path))
    return path


def export_mlp(path: Path, width: int, outputs: int, regression: bool, y: np.ndarray) -> Path:
    import torch

    from workers.tabular.mlp import TabularMLP
    from workers.tabular.mlp import export_mlp as export

    torch.manual_seed(0)
    model = TabularMLP(
        width,
        16,
        outputs,
        0.1,
        regression=regression,
        y_mean=float(y.mean()) if regression else 0.0,
        y_std=float(y.std()) if regression else 1.0,
    )
    export(model, path, output_name="value" if regression else "probabilities")
    return path


def members_of(tmp_path: Path, regression: bool) -> tuple[list[tuple[Path, float]], int, str]:
    """A bag of 2 LightGBM fold models (weight 0.5 / 2 each), a torch MLP (0.3), a linear model (0.2)."""
    x, y = load_diabetes(return_X_y=True) if regression else load_wine(return_X_y=True)
    x = standardised(x)
    width, output = x.shape[1], "value" if regression else "probabilities"
    folds = (KFold if regression else StratifiedKFold)(2, shuffle=True, random_state=0)
    bag = [
        export_gbdt(
            gbdt(regression, k).fit(x[train], y[train]), tmp_path / f"gbdt{k}.onnx", width, regression
        )
        for k, (train, _) in enumerate(folds.split(x, y))
    ]
    mlp = export_mlp(tmp_path / "mlp.onnx", width, 1 if regression else 3, regression, y)
    linear = tmp_path / "linear.onnx"
    linear_to_onnx(fit_linear(x, y, regression=regression, seed=0), linear, width=width, output=output)
    return [(bag[0], 0.25), (bag[1], 0.25), (mlp, 0.3), (linear, 0.2)], width, output


@pytest.fixture(scope="module")
def wine_members(tmp_path_factory):
    """Exported once for the module: torch's first ONNX export takes a while."""
    return members_of(tmp_path_factory.mktemp("wine"), regression=False)


@pytest.fixture(scope="module")
def diabetes_members(tmp_path_factory):
    return members_of(tmp_path_factory.mktemp("diabetes"), regression=True)


def run(path: Path, x: np.ndarray, output: str) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run([output], {"features": x})[0]


@pytest.mark.parametrize("regression", [False, True], ids=["wine", "diabetes"])
def test_one_onnx_graph_answers_the_weighted_sum_of_bagged_trees_mlp_and_linear(
    tmp_path, request, regression
):
    members, width, output = request.getfixturevalue("diabetes_members" if regression else "wine_members")
    versions = {o.version for p, _ in members for o in onnx.load(str(p)).opset_import if o.domain == ""}
    assert len(versions) > 1, f"LightGBM's and the MLP's opsets differ, the merge converts: {versions}"
    merged = tmp_path / "model.onnx"
    combine_onnx(members, merged, output=output, width=width)

    check_onnx_self_contained(merged)
    proto = onnx.load(str(merged))
    onnx.checker.check_model(proto, full_check=True)
    domains = [o.domain for o in proto.opset_import]
    assert sorted(domains) == ["", "ai.onnx.ml"] and len(domains) == len(set(domains))
    assert [i.name for i in proto.graph.input] == ["features"]
    assert [o.name for o in proto.graph.output] == [output]
    assert "label" not in {name for node in proto.graph.node for name in node.output}

    rng = np.random.default_rng(7)
    for rows in (1, 257):
        x = rng.normal(size=(rows, width)).astype(np.float32)
        expected = sum(w * run(p, x, output).astype(np.float64) for p, w in members)
        got = run(merged, x, output)
        assert got.shape == (rows, 1 if regression else 3) and got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
        if not regression:
            np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-5)

    # A member of weight 0 is left out of the graph.
    lean = tmp_path / "lean.onnx"
    combine_onnx(
        [(members[0][0], 0.6), (members[2][0], 0.0), (members[3][0], 0.4)], lean, output=output, width=width
    )
    assert not [n for n in onnx.load(str(lean)).graph.node if n.op_type == "Gemm"], "the MLP was dropped"
    x = rng.normal(size=(5, width)).astype(np.float32)
    expected = 0.6 * run(members[0][0], x, output) + 0.4 * run(members[3][0], x, output)
    np.testing.assert_allclose(run(lean, x, output), expected, rtol=1e-5, atol=1e-5)


def test_members_that_cannot_be_merged_are_refused_by_name(tmp_path, wine_members):
    members, width, output = wine_members
    out = tmp_path / "model.onnx"
    cases = [
        ([(members[0][0], 0.5), (members[3][0], 0.4)], {}, "weights must sum to 1, they sum to 0.9"),
        ([(members[0][0], 1.5), (members[3][0], -0.5)], {}, "finite and non-negative"),
        ([], {}, "no members"),
        ([(tmp_path / "absent.onnx", 1.0)], {}, r"member 0: .*absent.onnx does not exist"),
        (members, {"width": width + 1}, rf"member 0 \(gbdt0.onnx\): input shape \[.*, {width}\]"),
        (members, {"output": "value"}, r"member 0 \(gbdt0.onnx\): no output 'value'"),
        (members, {"output": "logits"}, "output must be one of"),
    ]
    for chosen, options, message in cases:
        with pytest.raises(EnsembleError, match=message):
            combine_onnx(chosen, out, **{"output": output, "width": width, **options})
    # A member whose tensors live in an external file is refused (the result must be self-contained).
    external = onnx.load(str(members[3][0]))
    onnx.save(external, str(tmp_path / "external.onnx"), save_as_external_data=True, size_threshold=0)
    with pytest.raises(EnsembleError, match="member 1: .*external data"):
        combine_onnx(
            [(members[0][0], 0.5), (tmp_path / "external.onnx", 0.5)], out, output=output, width=width
        )
    assert not out.exists()
