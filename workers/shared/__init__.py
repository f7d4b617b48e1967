"""Code every task template uses, whatever its data: atomic file writes and hashes
(``atomic_files``), classification metrics (``classification_metrics``) and the ONNX
self-containment check (``onnx_model``). Torch-free, Django-free."""
