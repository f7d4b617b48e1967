"""What a model costs, read from its ONNX graph: FLOPs and parameters (no torch here).

FLOPs are 2 x the multiply-accumulates of Conv, ConvTranspose, Gemm and MatMul (and their int8
forms), with every tensor shape from ONNX shape inference; a dynamic batch counts as 1. Other
operators (activations, pooling, additions) are left out: they are a small share of a CNN's or a
transformer's arithmetic. Parameters are the elements of the graph's initializers that feed weight
inputs, so an int8 QDQ model counts its int8 weights once (not their scales and zero points).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

MAC_OPS = {
    "Conv",
    "ConvTranspose",
    "Gemm",
    "MatMul",
    "ConvInteger",
    "MatMulInteger",
    "QLinearConv",
    "QLinearMatMul",
}
QUANTIZED_OPS = {
    "QuantizeLinear",
    "DequantizeLinear",
    "DynamicQuantizeLinear",
    "QLinearConv",
    "QLinearMatMul",
}
# initializers that are not weights: quantization scales and zero points, shapes, constants
_NOT_WEIGHTS = ("scale", "zero_point", "shape")


def _dims(shape: Any) -> list[int]:
    """A tensor shape's dimensions; unknown or symbolic ones count as 1 (a batch of one)."""
    return [int(d.dim_value) if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in shape.dim]


def _shapes(model: Any) -> dict[str, list[int]]:
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception:  # a graph shape inference cannot follow: count what is declared
        inferred = model
    shapes: dict[str, list[int]] = {}
    graph = inferred.graph
    for value in [*graph.input, *graph.output, *graph.value_info]:
        tensor = value.type.tensor_type
        if tensor.HasField("shape"):
            shapes[value.name] = _dims(tensor.shape)
    for initializer in graph.initializer:
        shapes[initializer.name] = [int(d) for d in initializer.dims]
    return shapes


def _product(values: Sequence[int]) -> int:
    return int(np.prod(values, dtype=np.int64)) if values else 1


def _node_macs(node: Any, shapes: dict[str, list[int]]) -> int:
    op = node.op_type
    if op in ("QLinearConv", "QLinearMatMul"):  # inputs: x, x_scale, x_zp, w, w_scale, w_zp, ...
        inputs = [node.input[0], node.input[3]]
    else:
        inputs = list(node.input[:2])
    output = node.output[0]
    if any(name not in shapes for name in inputs) or output not in shapes:
        return 0
    a, b, out = shapes[inputs[0]], shapes[inputs[1]], shapes[output]
    if op in ("Conv", "ConvInteger", "QLinearConv"):
        # weight [C_out, C_in / group, k...]: each output element takes C_in/group * prod(k) MACs
        return _product(out) * _product(b[1:])
    if op == "ConvTranspose":
        # weight [C_in, C_out / group, k...]: each input element scatters into C_out/group * prod(k)
        return _product(a) * _product(b[1:])
    if op == "Gemm":
        trans_a = next((attr.i for attr in node.attribute if attr.name == "transA"), 0)
        inner = a[0] if trans_a else a[-1]
        return _product(out) * int(inner)
    # MatMul: [..., M, K] x [..., K, N] -> [..., M, N]
    inner = a[-1] if a else 1
    return _product(out) * int(inner)


def count_flops(onnx_path: str | os.PathLike[str]) -> int:
    """2 x the multiply-accumulates of the model's Conv/ConvTranspose/Gemm/MatMul nodes at batch 1.

    >>> count_flops("model.onnx")  # doctest: +SKIP
    2470912
    """
    import onnx

    model = onnx.load(os.fspath(onnx_path))
    shapes = _shapes(model)
    macs = sum(_node_macs(node, shapes) for node in _all_nodes(model.graph) if node.op_type in MAC_OPS)
    return 2 * macs


def _all_nodes(graph: Any) -> list[Any]:
    nodes = []
    for node in graph.node:
        nodes.append(node)
        for attr in node.attribute:  # If/Loop bodies
            if attr.HasField("g"):
                nodes.extend(_all_nodes(attr.g))
    return nodes


def count_parameters(onnx_path: str | os.PathLike[str]) -> int:
    """Elements of the model's weight initializers (float or integer tensors with more than one
    element, or any float tensor; quantization scales, zero points and shape constants excluded)."""
    import onnx

    model = onnx.load(os.fspath(onnx_path))
    total = 0
    for initializer in model.graph.initializer:
        name = initializer.name.lower()
        if any(word in name for word in _NOT_WEIGHTS):
            continue
        if initializer.data_type == onnx.TensorProto.INT64:  # shapes, axes, indices
            continue
        count = _product([int(d) for d in initializer.dims])
        if count <= 1 and initializer.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16):
            continue
        total += count
    return total


def is_quantized(onnx_path: str | os.PathLike[str]) -> bool:
    """Whether the model computes in int8: QDQ nodes, or integer/QLinear operators."""
    import onnx

    model = onnx.load(os.fspath(onnx_path))
    return any(
        node.op_type in QUANTIZED_OPS or node.op_type.endswith("Integer") for node in _all_nodes(model.graph)
    )
