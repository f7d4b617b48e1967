"""The global LightGBM forecaster: one booster per quantile (objective ``quantile``), trained on the
rows of every training series (``workers.time_series.features``), and their export into one ONNX
graph: input ``features`` float32 [rows, width], output ``lightgbm`` float32 [rows, quantiles]
(the scaled quantiles of each row's target, one column per quantile in the spec's order).

LightGBM and onnxmltools are imported inside the functions (the web process may import this
module's name, never its dependencies)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.progress import Report, silent_report

if TYPE_CHECKING:
    import onnx

INPUT_NAME = "features"
TREE_OPSET = 15
ML_OPSET = 3


def threads() -> int:
    """LightGBM's threads: 1 on a machine with 2 cores or fewer (OpenMP threads that wait on each
    other on a busy small machine are many times slower than one), else up to 4."""
    cores = os.cpu_count() or 1
    return 1 if cores <= 2 else min(4, cores // 2)


def fit_lightgbm(
    x: np.ndarray,
    y: np.ndarray,
    quantiles: Sequence[float],
    params: Mapping[str, Any],
    *,
    report: Report = silent_report,
    fraction: tuple[float, float] = (0.0, 1.0),
) -> list[Any]:
    """One LightGBM regressor per quantile, on the scaled targets ``y`` of the rows ``x``."""
    import lightgbm

    models = []
    low, high = fraction
    total = int(params["n_estimators"])
    for i, q in enumerate(quantiles):
        model = lightgbm.LGBMRegressor(
            objective="quantile",
            alpha=float(q),
            n_estimators=int(params["n_estimators"]),
            learning_rate=float(params["learning_rate"]),
            num_leaves=int(params["num_leaves"]),
            min_child_samples=int(params["min_child_samples"]),
            subsample=0.8,
            subsample_freq=1,
            colsample_bytree=0.8,
            random_state=int(params["seed"]),
            n_jobs=threads(),
            max_bin=127,
            verbose=-1,
            deterministic=True,
            force_row_wise=True,
        )

        def progress(env: Any, i: int = i) -> None:
            # each report is where a cancelled job stops (workers.progress)
            if (env.iteration + 1) % 50 == 0:
                done = (i + (env.iteration + 1) / total) / len(quantiles)
                report(fraction=low + (high - low) * done)

        model.fit(x, y, callbacks=[progress])
        models.append(model)
        report(
            f"lightgbm quantile {q:g} ({x.shape[0]} rows)",
            fraction=low + (high - low) * (i + 1) / len(quantiles),
        )
    return models


def predict_lightgbm(models: Sequence[Any], x: np.ndarray) -> np.ndarray:
    """(rows, quantiles) scaled predictions, sorted along the quantiles (no crossing)."""
    out = np.stack([m.predict(x) for m in models], axis=1)
    return np.sort(out, axis=1)


def lightgbm_onnx(models: Sequence[Any], width: int, output: str = "lightgbm") -> onnx.ModelProto:
    """The boosters as one ONNX graph: ``features`` [N, width] -> ``output`` [N, len(models)]."""
    import onnx
    import onnxmltools
    from onnx import TensorProto, helper
    from onnxmltools.convert.common.data_types import FloatTensorType

    nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    columns: list[str] = []
    for i, model in enumerate(models):
        proto = onnxmltools.convert_lightgbm(
            model, initial_types=[(INPUT_NAME, FloatTensorType([None, width]))], target_opset=TREE_OPSET
        )
        prefixed = onnx.compose.add_prefix(proto, prefix=f"q{i}_")
        graph = prefixed.graph
        nodes.append(helper.make_node("Identity", [INPUT_NAME], [f"q{i}_{INPUT_NAME}"], name=f"q{i}_in"))
        nodes.extend(graph.node)
        initializers.extend(graph.initializer)
        out_name = graph.output[0].name
        column = f"q{i}_column"
        nodes.append(
            helper.make_node(
                "Reshape",
                [out_name, "column_shape"],
                [column],
                name=f"q{i}_reshape",
            )
        )
        columns.append(column)
    initializers.append(helper.make_tensor("column_shape", TensorProto.INT64, [2], [-1, 1]))
    nodes.append(helper.make_node("Concat", columns, [f"{output}_unsorted"], axis=1, name="concat"))
    # quantile crossing: sort each row's quantiles ascending (TopK over the quantile axis)
    k_name = "quantile_count"
    initializers.append(helper.make_tensor(k_name, TensorProto.INT64, [1], [len(models)]))
    nodes.append(
        helper.make_node(
            "TopK",
            [f"{output}_unsorted", k_name],
            [f"{output}_descending", f"{output}_indices"],
            axis=1,
            largest=0,
            sorted=1,
            name="sort",
        )
    )
    nodes.append(helper.make_node("Identity", [f"{output}_descending"], [output], name="out"))
    graph = helper.make_graph(
        nodes,
        "lightgbm_quantiles",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, [None, width])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, [None, len(models)])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", TREE_OPSET), helper.make_opsetid("ai.onnx.ml", ML_OPSET)],
        producer_name="sampan",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def identity_onnx(width: int) -> onnx.ModelProto:
    """A placeholder graph for forecasters without a learned member (``model.onnx`` always exists):
    ``features`` [N, width] -> ``passthrough`` (the same)."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", [INPUT_NAME], ["passthrough"])],
        "statistical_only",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, [None, width])],
        [helper.make_tensor_value_info("passthrough", TensorProto.FLOAT, [None, width])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", TREE_OPSET)], producer_name="sampan"
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def merge_outputs(models: Sequence[onnx.ModelProto]) -> onnx.ModelProto:
    """Several graphs on the same ``features`` input as one graph with all their outputs (node and
    initializer names must already be distinct)."""
    import onnx
    from onnx import helper

    if len(models) == 1:
        return models[0]
    nodes: list[Any] = []
    initializers: list[Any] = []
    outputs: list[Any] = []
    opsets: dict[str, int] = {}
    for proto in models:
        nodes.extend(proto.graph.node)
        initializers.extend(proto.graph.initializer)
        outputs.extend(proto.graph.output)
        for op in proto.opset_import:
            opsets[op.domain] = max(opsets.get(op.domain, 0), op.version)
    graph = helper.make_graph(
        nodes, "forecaster", [models[0].graph.input[0]], outputs, initializer=initializers
    )
    merged = helper.make_model(
        graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()], producer_name="sampan"
    )
    merged.ir_version = max(p.ir_version for p in models)
    onnx.checker.check_model(merged)
    return merged
