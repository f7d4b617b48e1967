"""Image classification, the first task template: one label per image.

Torch-free modules (importable by the web process and by serving code): ``template`` (the
declaration), ``manifest`` (the training data spec and its checks), ``preprocessing`` (the
preprocessing spec and its NumPy implementation), ``predictor`` (ONNX Runtime inference),
``metrics``, ``evaluation``, ``onnx_model`` (self-containment check) and ``atomic_files``.
Torch modules, imported only inside a worker's task body: ``transforms``, ``models``, ``data``,
``checkpoints``, ``trainer``, ``export``, ``backbones`` (what an uploaded state_dict holds).
"""
