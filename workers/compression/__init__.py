"""Model compression: pruning, distillation and int8 quantization of trained models, with every
variant evaluated and measured beside its parent (see ``workers.compression.core``).

Importing this package imports no torch: ``compress``, ``quantize_onnx`` and ``count_flops`` load
their heavy dependencies when called.
"""

from __future__ import annotations

from workers.compression.core import (
    COMPRESSORS,
    CompressionError,
    RecipeNotApplicable,
    compress,
    validate_spec,
)
from workers.compression.measure import count_flops, count_parameters
from workers.compression.quantization import quantize_onnx

__all__ = [
    "COMPRESSORS",
    "CompressionError",
    "RecipeNotApplicable",
    "compress",
    "count_flops",
    "count_parameters",
    "quantize_onnx",
    "validate_spec",
]
