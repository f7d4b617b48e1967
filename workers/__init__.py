"""Sampan's compute plane: plain Python + NumPy/PyTorch/ONNX functions over files and specs.

Nothing here imports Django, so the same code runs in a Celery worker, a notebook and tests.
"""
