"""The device SDK of text and tabular models: the fp32 model, an int8 one where quantization applies
(ONNX Runtime dynamic quantization of the MLP / embedding weights; tree ensembles stay fp32, int8
does not apply to them), the JSON companions (tokenizer.json for text), JSON test vectors, a
compression report and a Python sample running the platform's own predictor code. The JavaScript
and C++ samples are image-only: they are not shipped for these templates (the README says so)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.device_sdk import ALREADY_QUANTIZED, archive_device_sdk, is_quantized
from workers.packaging.package_contents import (
    TEMPLATES_DIR,
    PackagingError,
    copy_template_tree,
    created_at,
    describe_onnx,
    expected_outputs,
    pick_test_vectors,
    pinned_requirements,
    predictor_inputs,
    vendor_runtime,
    write_json,
    write_vector_instances,
)
from workers.packaging.server_package import stage_model_files, template_values
from workers.progress import Report, silent_report

PREDICTOR_MODULES = {"text": "workers.text_classification.predictor", "tabular": "workers.tabular.predictor"}
TREE_OPS = ("TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble")
DYNAMIC_QUANTIZATION = {
    "method": "dynamic",
    "weights": "int8 (per tensor)",
    "activations": "uint8, quantized at run time (no calibration data needed)",
    "tool": "onnxruntime.quantization.quantize_dynamic",
}


class _Local:
    """A model file served by the template's predictor class (``predict(instances, top_k)``)."""

    def __init__(self, path: Path, artifacts: ModelArtifacts, data_kind: str) -> None:
        spec, classes = dict(artifacts.preprocessing), list(artifacts.classes)
        if data_kind == "text":
            from workers.text_classification.predictor import TextClassifier

            self.model: Any = TextClassifier(path, preprocessing=spec, classes=classes)
        else:
            from workers.tabular.predictor import TabularPredictor

            self.model = TabularPredictor(path, preprocessing=spec, classes=classes)
        self.data_kind = data_kind

    def predict(self, instances: list[Any], top_k: int) -> list[list[dict[str, Any]]]:
        answers: list[list[dict[str, Any]]] = self.model.predict(instances, top_k=top_k)
        return answers

    def outputs(self, instances: list[Any]) -> np.ndarray:
        if self.data_kind == "text":
            return np.asarray(self.model.probabilities(instances))
        return np.asarray(self.model.outputs(instances))


def tree_ensemble(path: Path) -> bool:
    import onnx

    return any(node.op_type in TREE_OPS for node in onnx.load(str(path), load_external_data=False).graph.node)


def quantize_dynamic_int8(fp32_path: Path, int8_path: Path) -> None:
    """Dynamic int8 quantization (weights int8, activations at run time); keeps the model's metadata."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(fp32_path), str(int8_path), weight_type=QuantType.QInt8)
    source, quantized = onnx.load(str(fp32_path)), onnx.load(str(int8_path))
    present = {entry.key for entry in quantized.metadata_props}
    for entry in source.metadata_props:
        if entry.key not in present:
            quantized.metadata_props.add(key=entry.key, value=entry.value)
    onnx.save(quantized, str(int8_path))


def compression_report(
    fp32: _Local,
    int8: _Local | None,
    fp32_path: Path,
    int8_path: Path,
    artifacts: ModelArtifacts,
    inputs: list[Any],
    int8_note: str | None,
) -> dict[str, Any]:
    regression = not artifacts.classes
    labels = np.asarray(artifacts.test_labels) if artifacts.test_labels is not None else None
    n = len(inputs)
    out32 = fp32.outputs(inputs) if n else np.zeros(0)

    def quality(out: np.ndarray) -> dict[str, Any]:
        if regression or labels is None or not n:
            return {}
        return {"accuracy": float((out.argmax(axis=1) == labels).mean())}

    report: dict[str, Any] = {
        "format": "sampan.compression_report/1",
        "test_instances": n,
        "fp32": {"file": fp32_path.name, "bytes": fp32_path.stat().st_size, **quality(out32)},
        "int8": None,
        "int8_note": int8_note,
    }
    if int8 is None:
        return report
    out8 = int8.outputs(inputs) if n else np.zeros(0)
    report["int8"] = {"file": int8_path.name, "bytes": int8_path.stat().st_size, **quality(out8)}
    report["size_ratio"] = round(int8_path.stat().st_size / fp32_path.stat().st_size, 4)
    if n and regression:
        report["max_abs_value_diff"] = float(np.abs(out32 - out8).max())
        report["mean_abs_value_diff"] = float(np.abs(out32 - out8).mean())
    elif n:
        report["top1_agreement"] = float((out32.argmax(axis=1) == out8.argmax(axis=1)).mean())
        report["max_abs_score_diff"] = float(np.abs(out32 - out8).max())
    report["quantization"] = DYNAMIC_QUANTIZATION
    return report


def build_rows_device_sdk(
    *,
    artifacts: ModelArtifacts,
    data_kind: str,
    out_path: str | os.PathLike[str],
    report: Report = silent_report,
) -> dict[str, Any]:
    """The text / tabular device SDK (see the module's docstring); ``build_device_sdk`` calls it."""
    if artifacts.test_images:
        raise PackagingError(
            f"{artifacts.template} takes {data_kind} input: give test_instances "
            "(texts or rows), not test_images"
        )
    when = created_at()
    classes = list(artifacts.classes)
    inputs_all = list(artifacts.test_instances)
    with tempfile.TemporaryDirectory(prefix="sampan-device-sdk-") as temp:
        root = Path(temp)
        report("Checking and copying the model", fraction=0.05)
        stage_model_files(artifacts, root, model_name="model.fp32.onnx")
        fp32_path, int8_path = root / "model.fp32.onnx", root / "model.int8.onnx"
        try:
            fp32 = _Local(fp32_path, artifacts, data_kind)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise PackagingError(f"the model cannot be served as {artifacts.template} ({exc})") from None
        if data_kind == "text":
            (root / "tokenizer.json").write_text(fp32.model.tokenizer.tokenizer.to_str())
        int8: _Local | None = None
        already = is_quantized(fp32_path)
        if already:  # a compressed int8 model version: shipped as it is, not quantized again
            shutil.copyfile(fp32_path, int8_path)
            int8 = _Local(int8_path, artifacts, data_kind)
            note = str(ALREADY_QUANTIZED["method"])
        elif tree_ensemble(fp32_path):
            note = (
                "int8 does not apply: the model is a tree ensemble (its thresholds and leaves stay float32)"
            )
        else:
            report("Quantizing to int8 (dynamic)", fraction=0.2)
            try:
                quantize_dynamic_int8(fp32_path, int8_path)
                int8 = _Local(int8_path, artifacts, data_kind)
                note = None
            except Exception as exc:  # noqa: BLE001 (quantization is best effort; the report says why)
                int8_path.unlink(missing_ok=True)
                note = f"int8 quantization failed ({type(exc).__name__}: {exc}); fp32 only"
        report("Measuring fp32 and int8 on the test instances", fraction=0.5)
        test_inputs = predictor_inputs(
            write_vector_instances([(x, None) for x in inputs_all], data_kind), data_kind, root
        )
        compression = compression_report(fp32, int8, fp32_path, int8_path, artifacts, test_inputs, note)
        if already:
            compression["quantization"] = ALREADY_QUANTIZED
        write_json(root / "compression_report.json", compression)
        report("Writing the test vectors and the Python sample", fraction=0.75)
        vectors = write_vector_instances(
            pick_test_vectors(inputs_all, artifacts.test_labels, paths=False), data_kind
        )
        models = ["fp32"] + (["int8"] if int8 is not None else [])
        for name, model in (("fp32", fp32), ("int8", int8)):
            if model is not None:
                expected = expected_outputs(
                    model, vectors, root / "test_vectors", classes, data_kind=data_kind
                )
                write_json(
                    root / "test_vectors" / f"expected.{name}.json",
                    {**expected, "model": f"model.{name}.onnx"},
                )
        runtime_files, imports = vendor_runtime((PREDICTOR_MODULES[data_kind],), root / "python")
        requirements = pinned_requirements(imports)
        (root / "python" / "requirements.txt").write_text("\n".join(requirements) + "\n")
        values = {
            **template_values(artifacts, when),
            "data_kind": data_kind,
            "int8_line": (
                f"| `model.int8.onnx` | {note} |"
                if already
                else "| `model.int8.onnx` | the same model with int8 weights "
                "(ONNX Runtime dynamic quantization) |"
                if int8 is not None
                else f"| (no int8 model) | {note} |"
            ),
            "requirements": ", ".join(requirements),
        }
        copy_template_tree(TEMPLATES_DIR / "device_rows", root, values)
        described = {
            name: {"file": f"model.{name}.onnx", **describe_onnx(root / f"model.{name}.onnx")}
            for name in models
        }
        return archive_device_sdk(
            root,
            out_path,
            artifacts,
            when,
            models=described,
            compression=compression,
            vectors=len(vectors),
            tolerance={"rtol": 1e-4, "atol": 1e-5},
            report=report,
            manifest_fields={
                "int8_note": note,
                "samples": {"python": "python/predict.py"},
                "samples_not_shipped": {
                    "javascript": "image-only so far (no tokenizer / row encoding port to JS)",
                    "cpp": "image-only so far",
                },
                "runtime": {
                    "requirements": requirements,
                    "vendored_files": [f"python/{f}" for f in runtime_files],
                },
            },
            top1_agreement=compression.get("top1_agreement"),
        )
