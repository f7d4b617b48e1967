"""Checks on ONNX files (no torch): self-containment, i.e. no external data references.

An ONNX file can point its tensors at other files ("external data"); loading such a model reads
whatever paths it names. Sampan's exports never do this, and uploaded or packaged models that do
are refused (DESIGN §6).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any


class OnnxRejected(ValueError):
    """The file is not a self-contained ONNX model; the message says why."""


def _graph_tensors(graph: Any, where: str) -> Iterator[tuple[Any, str]]:
    for tensor in graph.initializer:
        yield tensor, f"{where} initializer"
    for sparse in graph.sparse_initializer:
        yield sparse.values, f"{where} sparse initializer"
        yield sparse.indices, f"{where} sparse initializer indices"
    yield from _node_tensors(graph.node, where)


def _node_tensors(nodes: Any, where: str) -> Iterator[tuple[Any, str]]:
    for node in nodes:
        label = f"{where} node {node.name or node.op_type}"
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t, label
            for tensor in attribute.tensors:
                yield tensor, label
            if attribute.HasField("sparse_tensor"):
                yield attribute.sparse_tensor.values, label
            if attribute.HasField("g"):
                yield from _graph_tensors(attribute.g, f"{label} subgraph")
            for subgraph in attribute.graphs:
                yield from _graph_tensors(subgraph, f"{label} subgraph")


def check_onnx_self_contained(path: str | os.PathLike[str]) -> None:
    """Raise :class:`OnnxRejected` unless ``path`` is an ONNX model with all its data inside it.

    The file is parsed without following any external reference.
    """
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(os.fspath(path), load_external_data=False)
    except (DecodeError, OSError, ValueError) as exc:
        raise OnnxRejected(f"{os.fspath(path)}: not a readable ONNX model ({exc})") from None
    if not model.graph.node and not model.graph.output:
        raise OnnxRejected(f"{os.fspath(path)}: not an ONNX model (no graph)")
    external = []
    tensors = list(_graph_tensors(model.graph, "graph"))
    for function in model.functions:
        tensors.extend(_node_tensors(function.node, f"function {function.name}"))
    for tensor, where in tensors:
        if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
            location = next((entry.value for entry in tensor.external_data if entry.key == "location"), "?")
            external.append(f"{tensor.name or '(unnamed)'} ({where}) -> {location}")
    if external:
        shown = "; ".join(external[:5]) + (f"; and {len(external) - 5} more" if len(external) > 5 else "")
        raise OnnxRejected(
            f"{os.fspath(path)}: refused: {len(external)} tensor{'s' if len(external) > 1 else ''} "
            f"reference external data files ({shown}); only self-contained ONNX files are accepted"
        )
