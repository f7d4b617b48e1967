"""The tabular ensemble: weights for several models from their out-of-fold predictions, and one
self-contained ONNX graph that serves their weighted sum.

- :func:`fit_weights`: greedy ensemble selection with replacement (Caruana et al., 2004, as
  AutoGluon uses it) on out-of-fold predictions: each round adds the member whose addition lowers
  the loss most (log loss for classification, squared error for regression); a member's weight is
  how often it was picked. The weights of the best round are kept, so the ensemble's out-of-fold
  loss is never above the best single member's.
- :func:`combine_onnx`: merges member ONNX files that share the tabular contract's input
  (``features`` float32 [batch, width]) into one graph whose output is ``sum_i w_i * member_i``:
  LightGBM converted by onnxmltools (ai.onnx opset <= 15 + ai.onnx.ml), the torch MLP (opset 18)
  and the linear model (``workers.tabular.linear``). Lower opsets are converted to the highest one,
  every name is prefixed per member, and the result is checked against the members' own ONNX
  Runtime outputs before it is written. A bag of k fold models is k members of weight w / k.

No torch here: the members are files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

INPUT_NAME = "features"
OUTPUTS = ("probabilities", "value")
LOG_LOSS_FLOOR = 1e-15
# How closely the merged graph must reproduce the weighted sum of the members (float32 outputs).
CHECK_ROWS = (1, 257)
CHECK_ATOL = 1e-5


class EnsembleError(ValueError):
    """The members cannot be weighted or merged; the message says why."""


def _prepared(
    oof: Sequence[np.ndarray], y: np.ndarray, regression: bool
) -> tuple[list[np.ndarray], np.ndarray]:
    if not len(oof):
        raise EnsembleError("no out-of-fold predictions to weight (at least one member is needed)")
    y = np.asarray(y)
    if y.ndim != 1 or not len(y):
        raise EnsembleError(f"y must be a non-empty 1-D array, got shape {y.shape}")
    members: list[np.ndarray] = []
    for index, prediction in enumerate(oof):
        array = np.asarray(prediction, dtype=np.float64)
        if regression and array.ndim == 2 and array.shape[1] == 1:
            array = array[:, 0]
        expected = "[rows]" if regression else "[rows, classes]"
        if (array.ndim != 1) if regression else (array.ndim != 2):
            raise EnsembleError(f"member {index}: predictions must be {expected}, got shape {array.shape}")
        if len(array) != len(y):
            raise EnsembleError(f"member {index}: {len(array)} predictions for {len(y)} rows")
        if members and array.shape != members[0].shape:
            raise EnsembleError(
                f"member {index}: predictions of shape {array.shape}, member 0's are {members[0].shape}"
            )
        if not np.isfinite(array).all():
            raise EnsembleError(f"member {index}: predictions hold NaN or infinite values")
        members.append(array)
    if regression:
        y = y.astype(np.float64)
    else:
        if not np.issubdtype(y.dtype, np.integer):
            raise EnsembleError("class labels must be integer indices")
        if y.min() < 0 or y.max() >= members[0].shape[1]:
            raise EnsembleError(f"class labels must lie in 0..{members[0].shape[1] - 1}")
    return members, y


def oof_loss(prediction: np.ndarray, y: np.ndarray, *, regression: bool) -> float:
    """The loss :func:`fit_weights` minimises: mean squared error, or mean log loss (probabilities
    floored at 1e-15)."""
    members, y = _prepared([prediction], y, regression)
    return _loss(members[0], y, regression)


def _loss(prediction: np.ndarray, y: np.ndarray, regression: bool) -> float:
    if regression:
        return float(np.mean((prediction - y) ** 2))
    picked = prediction[np.arange(len(y)), y]
    return float(-np.mean(np.log(np.clip(picked, LOG_LOSS_FLOOR, 1.0))))


def fit_weights(
    oof: Sequence[np.ndarray], y: np.ndarray, *, regression: bool, rounds: int = 25
) -> np.ndarray:
    """Non-negative weights summing to 1, one per member, from out-of-fold predictions.

    ``oof[i]``: member i's out-of-fold predictions for the rows of ``y`` (probabilities
    [rows, classes], or values [rows] / [rows, 1]). Ties go to the earlier member. Example::

        weights = fit_weights([gbdt_oof, mlp_oof, linear_oof], y, regression=False)
        # e.g. array([0.56, 0.28, 0.16]); a member that never helps gets 0
    """
    if rounds < 1:
        raise EnsembleError(f"rounds must be at least 1, got {rounds}")
    members, y = _prepared(oof, y, regression)
    counts = np.zeros(len(members), dtype=np.int64)
    total = np.zeros_like(members[0])
    best_loss, best_counts = np.inf, counts.copy()
    for round_ in range(1, rounds + 1):
        losses = [_loss((total + member) / round_, y, regression) for member in members]
        pick = int(np.argmin(losses))
        counts[pick] += 1
        total += members[pick]
        if losses[pick] < best_loss - 1e-12:
            best_loss, best_counts = losses[pick], counts.copy()
    return np.asarray(best_counts / best_counts.sum(), dtype=np.float64)


def _load_member(path: Path, index: int, output: str, width: int) -> onnx.ModelProto:
    import onnx

    from workers.shared.onnx_model import OnnxRejected, check_onnx_self_contained

    if not path.is_file():
        raise EnsembleError(f"member {index}: {path} does not exist")
    try:
        check_onnx_self_contained(path)
    except OnnxRejected as exc:
        raise EnsembleError(f"member {index}: {exc}") from None
    proto = onnx.load(str(path))
    inputs = [
        entry for entry in proto.graph.input if entry.name not in {i.name for i in proto.graph.initializer}
    ]
    if [entry.name for entry in inputs] != [INPUT_NAME]:
        raise EnsembleError(
            f"member {index} ({path.name}): inputs {[e.name for e in inputs]}, expected [{INPUT_NAME!r}]"
        )
    dims = inputs[0].type.tensor_type.shape.dim
    if len(dims) != 2 or (dims[1].HasField("dim_value") and dims[1].dim_value != width):
        shape = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in dims]
        raise EnsembleError(f"member {index} ({path.name}): input shape {shape}, expected [batch, {width}]")
    if output not in [entry.name for entry in proto.graph.output]:
        raise EnsembleError(
            f"member {index} ({path.name}): no output {output!r} "
            f"(it has {[entry.name for entry in proto.graph.output]})"
        )
    return proto


def _opset(proto: onnx.ModelProto, domain: str) -> int | None:
    for entry in proto.opset_import:
        if entry.domain in ((domain,) if domain else ("", "ai.onnx")):
            return int(entry.version)
    return None


def _prune(graph: onnx.GraphProto) -> None:
    """Drop the nodes no graph output depends on (a LightGBM classifier's ``label`` branch)."""
    needed = {entry.name for entry in graph.output}
    kept = []
    for node in reversed(graph.node):
        if any(name in needed for name in node.output):
            kept.append(node)
            needed.update(name for name in node.input if name)
            for attribute in node.attribute:
                # A subgraph may read outer names implicitly: keep whatever it reads.
                for subgraph in ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs):
                    needed.update(name for sub in subgraph.node for name in sub.input if name)
    kept.reverse()
    del graph.node[:]
    graph.node.extend(kept)
    used = {name for node in graph.node for name in node.input}
    initializers = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    known = used | {name for node in graph.node for name in node.output}
    infos = [info for info in graph.value_info if info.name in known]
    del graph.value_info[:]
    graph.value_info.extend(infos)


def combine_onnx(
    members: Sequence[tuple[Path, float]],
    out: Path,
    *,
    output: str,
    width: int,
) -> None:
    """Write one self-contained ONNX graph to ``out``: input ``features`` float32 [batch, width],
    output ``output`` = the weighted sum of the members' ``output`` ([batch, classes]
    probabilities or [batch, 1] value). Weights are non-negative and sum to 1; members of weight 0
    are left out. Raises :class:`EnsembleError` naming the member at fault. Example::

        combine_onnx([(fold0_gbdt, 0.25), (fold1_gbdt, 0.25), (mlp, 0.3), (linear, 0.2)],
                     out_dir / "model.onnx", output="probabilities", width=encoder["width"])
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper, version_converter

    if output not in OUTPUTS:
        raise EnsembleError(f"output must be one of {list(OUTPUTS)}, got {output!r}")
    if width < 1:
        raise EnsembleError(f"width must be at least 1, got {width}")
    if not members:
        raise EnsembleError("no members to combine")
    weights = np.asarray([float(weight) for _, weight in members], dtype=np.float64)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise EnsembleError(f"weights must be finite and non-negative, got {weights.tolist()}")
    if abs(weights.sum() - 1.0) > 1e-4:
        raise EnsembleError(f"weights must sum to 1, they sum to {weights.sum():.6f}")
    chosen = [
        (index, Path(path), weight)
        for index, ((path, _), weight) in enumerate(zip(members, weights, strict=True))
        if weight > 0
    ]
    protos = [(index, _load_member(path, index, output, width), weight) for index, path, weight in chosen]

    target = max(_opset(proto, "") or 1 for _, proto, _ in protos)
    domains: dict[str, int] = {}
    ir_version = max(proto.ir_version for _, proto, _ in protos)
    merged_nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    value_infos: list[onnx.ValueInfoProto] = []
    functions: list[onnx.FunctionProto] = []
    weighted: list[str] = []
    classes: int | None = None
    for index, proto, weight in protos:
        if (_opset(proto, "") or target) < target:
            try:
                proto = version_converter.convert_version(proto, target)
            except Exception as exc:  # the converter raises bare RuntimeErrors
                raise EnsembleError(f"member {index}: cannot convert to opset {target} ({exc})") from None
        for opset in proto.opset_import:
            domain = "" if opset.domain == "ai.onnx" else opset.domain
            domains[domain] = max(domains.get(domain, 0), int(opset.version))
        for graph_output in proto.graph.output:
            if graph_output.name == output:
                dims = graph_output.type.tensor_type.shape.dim
                if len(dims) == 2 and dims[1].HasField("dim_value"):
                    if classes is not None and dims[1].dim_value != classes:
                        raise EnsembleError(
                            f"member {index}: {output} has {dims[1].dim_value} columns, others {classes}"
                        )
                    classes = dims[1].dim_value
        # in place: a bag of large LightGBM members makes every copy count
        dropped = [entry for entry in proto.graph.output if entry.name != output]
        for entry in dropped:
            proto.graph.output.remove(entry)
        _prune(proto.graph)
        prefix = f"m{index}_"
        prefixed = onnx.compose.add_prefix(proto, prefix, rename_inputs=False, inplace=True)
        merged_nodes.extend(prefixed.graph.node)
        initializers.extend(prefixed.graph.initializer)
        value_infos.extend(prefixed.graph.value_info)
        functions.extend(prefixed.functions)
        initializers.append(numpy_helper.from_array(np.asarray(weight, dtype=np.float32), f"{prefix}weight"))
        merged_nodes.append(
            helper.make_node(
                "Mul", [f"{prefix}{output}", f"{prefix}weight"], [f"{prefix}weighted"], name=f"{prefix}weigh"
            )
        )
        weighted.append(f"{prefix}weighted")
    merged_nodes.append(helper.make_node("Sum", weighted, [output], name="ensemble_sum"))
    columns: int | str = (1 if output == "value" else classes) or "columns"
    graph = helper.make_graph(
        merged_nodes,
        "sampan_tabular_ensemble",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", columns])],
        initializer=initializers,
        value_info=value_infos,
    )
    proto = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid(domain, version) for domain, version in sorted(domains.items())],
        ir_version=ir_version,
        producer_name="sampan",
        functions=functions,
    )
    note = proto.metadata_props.add()
    note.key = "sampan.ensemble"
    note.value = json.dumps(
        [{"member": Path(members[index][0]).name, "weight": float(weight)} for index, _, weight in protos]
    )
    try:
        onnx.checker.check_model(proto, full_check=True)
    except onnx.checker.ValidationError as exc:
        raise EnsembleError(f"the merged graph is not valid ONNX: {exc}") from None
    _check_against_members(proto, [(path, weight) for _, path, weight in chosen], output, width)
    out = Path(out)
    temp = out.with_name(f".tmp-{out.name}.{os.getpid()}")
    onnx.save(proto, str(temp))
    os.replace(temp, out)


def _check_against_members(
    proto: onnx.ModelProto, members: Sequence[tuple[Path, float]], output: str, width: int
) -> None:
    """The merged graph must answer what the members answer, weighted (batch 1 and 257)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    merged = onnxruntime.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    sessions = [
        (onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]), weight)
        for path, weight in members
    ]
    rng = np.random.default_rng(0)
    for rows in CHECK_ROWS:
        x = rng.normal(size=(rows, width)).astype(np.float32)
        expected = sum(
            weight * np.asarray(session.run([output], {INPUT_NAME: x})[0], dtype=np.float64)
            for session, weight in sessions
        )
        got = np.asarray(merged.run([output], {INPUT_NAME: x})[0], dtype=np.float64)
        if got.shape != np.shape(expected) or not np.allclose(got, expected, atol=CHECK_ATOL, rtol=1e-5):
            raise EnsembleError(
                f"the merged graph disagrees with its members on {rows} random rows "
                f"(shape {got.shape} vs {np.shape(expected)})"
            )
