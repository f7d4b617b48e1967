"""Object detection: boxes on images (issue 15).

Torch-free modules (importable by the web process, serving code and packages): ``synthetic``
(digit scenes for tests and benchmarks), ``template``, ``decode``, ``predictor``, ``metrics``,
``evaluation``. Torch modules, imported only inside a worker's task body: ``models``, ``augment``,
``data``, ``trainer``, ``export``.
"""
