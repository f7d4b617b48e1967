"""Image classification, the first task template: one label per image.

Torch-free modules (importable by the web process and by serving code): ``template`` (the
declaration), ``manifest`` (the training data spec and its checks), ``preprocessing`` (the
preprocessing spec and its NumPy implementation), ``predictor`` (ONNX Runtime inference),
and ``evaluation``; what other templates share sits in ``workers.shared``.
Torch modules, imported only inside a worker's task body: ``transforms``, ``models``, ``data``,
``checkpoints``, ``trainer``, ``export``, ``backbones`` (what an uploaded state_dict holds).
"""
