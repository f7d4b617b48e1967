"""Serving: the prediction protocol and the predictors the hosted API, the on-prem server package and
the device SDK share (ONNX Runtime, Pillow, NumPy; no Django, no torch)."""
