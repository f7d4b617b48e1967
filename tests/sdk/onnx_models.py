"""Small ONNX classifiers built with onnx.helper, for bring-your-own-model tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def brightness_classifier(path: Path, *, size: int = 16, outputs: int = 2, external: bool = False) -> Path:
    """Input float32 [batch, 3, size, size] -> scores [batch, outputs]: score_i = (2i - 1) * mean pixel
    (for 2 outputs: index 0 "dark" wins on dark images, index 1 "bright" on bright ones)."""
    weights = np.stack([np.full(3, 2.0 * i - 1.0, dtype=np.float32) for i in range(outputs)], axis=1)
    w = numpy_helper.from_array(weights, "w")
    if external:  # point the weights at a file beside the model: must be refused
        w.ClearField("raw_data")
        w.data_location = TensorProto.EXTERNAL
        entry = w.external_data.add()
        entry.key, entry.value = "location", "../../weights.bin"
    graph = helper.make_graph(
        [
            helper.make_node("GlobalAveragePool", ["pixels"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["flat"]),
            helper.make_node("MatMul", ["flat", "w"], ["scores"]),
        ],
        "brightness",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["batch", 3, size, size])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", outputs])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


PLAIN = {"mean": [0.0, 0.0, 0.0], "std": [1.0, 1.0, 1.0]}
