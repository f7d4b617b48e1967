"""The on-prem server package: the model, its JSON companions, the standalone server with the
platform's own serving code, pinned requirements (no torch), a non-root Dockerfile and test vectors."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workers.contracts.packages import PACKAGE_REPORT_VERSION
from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.package_contents import (
    MANIFEST_FORMAT,
    TEMPLATES_DIR,
    PackagingError,
    copy_self_contained_model,
    copy_template_tree,
    created_at,
    describe_onnx,
    expected_outputs,
    file_entries,
    json_safe,
    pick_test_vectors,
    pinned_requirements,
    python_requirement,
    sampan_version,
    slug,
    vendor_runtime,
    write_json,
    write_vector_images,
    write_vector_instances,
    write_zip,
)
from workers.progress import Report, silent_report

SERVER_MODULES = ("workers.serving.standalone", "workers.serving.protocol", "workers.serving.predictors")


def stage_model_files(artifacts: ModelArtifacts, root: Path, *, model_name: str = "model.onnx") -> None:
    """model.onnx (checked self-contained), preprocess.json and labels.json into ``root``."""
    copy_self_contained_model(artifacts.model_path, root / model_name)
    write_json(root / "preprocess.json", dict(artifacts.preprocessing))
    write_json(root / "labels.json", list(artifacts.classes))


def model_version_of(artifacts: ModelArtifacts) -> dict[str, Any]:
    return {
        **dict(artifacts.model_version),
        "template": artifacts.model_version.get("template") or artifacts.template,
    }


def template_values(artifacts: ModelArtifacts, when: str) -> dict[str, str]:
    import sys

    version = model_version_of(artifacts)
    return {
        "model_name": str(version.get("name") or "model"),
        "model_id": json.dumps(version.get("id")),
        "template": artifacts.template,
        "class_count": str(len(artifacts.classes)),
        "sampan_version": sampan_version(),
        "created_at": when,
        "python": python_requirement(),
        "python_minor": f"{sys.version_info.major}.{sys.version_info.minor}",
    }


def check_test_inputs(artifacts: ModelArtifacts, data_kind: str) -> None:
    """Image models take test images; text and tabular models texts or rows (``test_instances``)."""
    if data_kind == "image" and artifacts.test_instances:
        raise PackagingError(f"{artifacts.template} takes images: give test_images, not test_instances")
    if data_kind != "image" and artifacts.test_images:
        raise PackagingError(
            f"{artifacts.template} takes {data_kind} input: give test_instances "
            "(texts or rows), not test_images"
        )


def missing_value_rule(spec: Mapping[str, Any]) -> str:
    """The README's paragraph on the model's row contract (workers.tabular.encoding.check_row)."""
    from workers.tabular.encoding import imputable

    features = list(spec.get("features") or [])
    may = [f["name"] for f in features if imputable(f)]
    target = (
        f" The target column `{spec['target']}`, if a row carries it, is ignored."
        if spec.get("target")
        else ""
    )
    return (
        "Every row is checked against the model's columns: a column the model does not know and a value of "
        'the wrong type (`"abc"` or a list in a numeric column) are refused with a 400 naming the column.'
        + target
        + ' A missing value (the column absent, `null`, `NaN`, `""` or `"NA"`) is filled only in '
        "a column whose training data had gaps, so the model learned what a gap means: numeric and date "
        "columns take the training median (and the model sees a missing flag), categorical ones no "
        "category. Each prediction lists the columns it filled in `imputed`. "
        + (
            f"In this model: {', '.join(f'`{n}`' for n in may)}; every other column is required."
            if may
            else "This model's training data had no gaps: every column is required."
        )
    )


def contract_rows(spec: Mapping[str, Any], rows: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """Test rows as the server takes them: only the model's columns, and only rows whose missing
    values the model may fill (the others would be refused); returns (rows, the positions kept)."""
    from workers.tabular.encoding import RowContractError, check_row

    if not spec.get("features"):  # not a tabular encoding: the model check below refuses the artifacts
        return list(rows), list(range(len(rows)))
    names = {f["name"] for f in spec["features"]}
    kept, positions = [], []
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping):
            kept.append(row)  # refused by the writer below, by position
            positions.append(position)
            continue
        row = {k: v for k, v in row.items() if k in names}
        try:
            check_row(spec, json_safe(row))
        except RowContractError:
            continue
        kept.append(row)
        positions.append(position)
    if rows and not kept:
        raise PackagingError("no test row can be served: each lacks a value the model requires")
    return kept, positions


def write_test_vectors(artifacts: ModelArtifacts, data_kind: str, folder: Path) -> list[dict[str, Any]]:
    """Images as PNG files under ``folder/images``; texts and rows as the JSON instances requests send."""
    check_test_inputs(artifacts, data_kind)
    if data_kind == "time_series":
        from workers.packaging.forecast_package import forecast_vectors

        return forecast_vectors(artifacts)
    if data_kind == "image":
        return write_vector_images(
            pick_test_vectors(artifacts.test_images, artifacts.test_labels), folder / "images"
        )
    instances, labels = list(artifacts.test_instances), artifacts.test_labels
    if data_kind == "tabular":
        instances, positions = contract_rows(artifacts.preprocessing, instances)
        labels = None if labels is None else [labels[i] for i in positions]
    return write_vector_instances(pick_test_vectors(instances, labels, paths=False), data_kind)


def readme_values(data_kind: str, artifacts: ModelArtifacts, requirements: list[str]) -> dict[str, str]:
    """The README's wording for this template: inputs, files, calls and answers."""
    names = ", ".join(r.split("==")[0] for r in requirements)
    if artifacts.template == "object_detection":
        return detection_readme_values(artifacts, names)
    if data_kind == "time_series":
        from workers.packaging.forecast_package import forecast_readme_values

        return forecast_readme_values(artifacts, names)
    if data_kind == "image":
        return {
            "input_summary": f"{len(artifacts.classes)} classes; input: one image per instance",
            "preprocess_description": "how an image becomes the model's input (resize, scale, mean/std)",
            "requirements_description": f"pinned dependencies ({names}; no torch)",
            "vectors_description": "test images and the platform's answers for them (`expected.json`)",
            "batch_unit": "images",
            "call_examples": (
                '    curl -H "Authorization: Bearer change-me" -F file=@test_vectors/images/000.png '
                "http://127.0.0.1:8080/predict\n"
                '    curl -H "X-Sampan-Key: change-me" -H "Content-Type: image/png" --data-binary '
                '@test_vectors/images/000.png \\\n         "http://127.0.0.1:8080/predict?top_k=3"\n'
                '    curl -H "Authorization: Bearer change-me" -H "Content-Type: application/json" \\\n'
                '         -d "{\\"instances\\": [{\\"image\\": '
                '\\"$(base64 -w0 test_vectors/images/000.png)\\"}], '
                '\\"top_k\\": 3}" \\\n         http://127.0.0.1:8080/predict'
            ),
            "prediction_kind": "classification_prediction",
            "answer_example": '[{"top_k": [{"index": 3, "label": "3", "score": 0.98}, ...]}]',
            "error_examples": (
                "a corrupt image, bad JSON or base64, or no input, 413 for a body, batch or image over the "
                "limits, 415 for another content type"
            ),
        }
    if data_kind == "text":
        return {
            "input_summary": (
                f"{len(artifacts.classes)} classes; input: raw text, tokenized inside the package exactly as "
                "in training"
            ),
            "preprocess_description": (
                "the tokenization spec (maximum length, input and output names, the sha256 of the "
                "tokenizer.json that travels inside model.onnx's metadata and is checked when the model "
                "loads)"
            ),
            "requirements_description": (
                f"pinned dependencies ({names}; no torch); `tokenizers` tokenizes the text with the "
                "training's own tokenizer.json"
            ),
            "vectors_description": (
                "texts (as JSON instances) and the platform's answers for them (`expected.json`)"
            ),
            "batch_unit": "texts",
            "call_examples": (
                '    curl -H "Authorization: Bearer change-me" -H "Content-Type: application/json" '
                '\\\n         -d \'{"instances": [{"text": "Return the square root of x."}], '
                '"top_k": 3}\' \\\n         http://127.0.0.1:8080/predict'
            ),
            "prediction_kind": "classification_prediction",
            "answer_example": '[{"top_k": [{"index": 2, "label": "numbers", "score": 0.93}, ...]}]',
            "error_examples": (
                "bad JSON, an instance without a `text` string, or an empty text, 413 for a body, batch or "
                "text over the limits, 415 for a content type other than JSON"
            ),
        }
    regression = artifacts.template == "tabular_regression"
    column = (artifacts.preprocessing.get("features") or [{"name": "column"}])[0]["name"]
    example = json.dumps({column: 1.5})
    if artifacts.test_instances and isinstance(artifacts.test_instances[0], dict):
        example = json.dumps(json_safe(artifacts.test_instances[0]))  # a real row: pasteable as it is
        if "'" in example or len(example) > 2000:
            example = json.dumps({column: 1.5})
    return {
        "input_summary": (
            "regression (one value per row)" if regression else f"{len(artifacts.classes)} classes"
        )
        + "; input: a row of column values with the original column names",
        "preprocess_description": (
            "the feature encoding (each column's type, scaling, categories, missing-value filling) the "
            "platform trained with, applied with NumPy"
        ),
        "requirements_description": f"pinned dependencies ({names}; no torch, no LightGBM or scikit-learn: "
        "the trees are ONNX operators)",
        "vectors_description": (
            "rows (as JSON instances) and the platform's answers for them (`expected.json`)"
        ),
        "batch_unit": "rows",
        "call_examples": (
            '    curl -H "Authorization: Bearer change-me" -H "Content-Type: application/json" '
            f"\\\n         -d '{{\"instances\": [{example}]}}' \\\n"
            "         http://127.0.0.1:8080/predict\n\n" + missing_value_rule(artifacts.preprocessing)
        ),
        "prediction_kind": "regression_prediction" if regression else "classification_prediction",
        "answer_example": '[{"top_k": [{"value": 151.2}], "imputed": []}]'
        if regression
        else '[{"top_k": [{"index": 0, "label": "class_0", "score": 0.97}, ...], "imputed": []}]',
        "error_examples": "bad JSON, a row that is not an object, a column the model does not know "
        '(`unknown_column`), a value of the wrong type such as `"abc"` or a list in a numeric '
        "column (`invalid_value`), a missing value the model cannot fill (`missing_column`), or "
        "no input, 413 for a body or batch over the limits, 415 for a content type other than JSON",
    }


def detection_readme_values(artifacts: ModelArtifacts, names: str) -> dict[str, str]:
    """The README's wording for a detector: image requests with ``score_threshold`` and
    ``max_detections``, answers with boxes in the original image's pixels."""
    return {
        "input_summary": f"{len(artifacts.classes)} classes; input: one image per instance, boxes out",
        "preprocess_description": (
            "how an image becomes the model's input (stretched to its size, scale, mean/std)"
        ),
        "requirements_description": f"pinned dependencies ({names}; no torch)",
        "vectors_description": (
            "test images and the platform's boxes for them at the default score threshold (`expected.json`)"
        ),
        "batch_unit": "images",
        "call_examples": (
            '    curl -H "Authorization: Bearer change-me" -F file=@test_vectors/images/000.png '
            "-F score_threshold=0.5 http://127.0.0.1:8080/predict\n"
            '    curl -H "X-Sampan-Key: change-me" -H "Content-Type: image/png" --data-binary '
            '@test_vectors/images/000.png \\\n         "http://127.0.0.1:8080/predict?max_detections=10"\n'
            '    curl -H "Authorization: Bearer change-me" -H "Content-Type: application/json" \\\n'
            '         -d "{\\"instances\\": [{\\"image\\": '
            '\\"$(base64 -w0 test_vectors/images/000.png)\\"}], '
            '\\"score_threshold\\": 0.3, \\"max_detections\\": 100}" \\\n         http://127.0.0.1:8080/predict\n\n'
            "`score_threshold` (0 to 1, default 0.3) leaves out boxes scoring less; `max_detections` (1 to "
            "1000, default 100) caps the boxes per image. Both may be sent in the JSON body, as multipart "
            "fields or as query parameters; `top_k` is ignored. Boxes are in the original image's pixels "
            "(`x`, `y` of the top-left corner, `width`, `height`), by descending score."
        ),
        "prediction_kind": "detection_prediction",
        "answer_example": (
            '[{"width": 640, "height": 480, "boxes": [{"label": "car", "index": 0, "score": 0.91, '
            '"x": 12.0, "y": 40.5, "width": 88.0, "height": 51.2}, ...]}]'
        ),
        "error_examples": (
            "a corrupt image, bad JSON or base64, no input, a `score_threshold` outside 0 to 1 "
            "(`invalid_score_threshold`) or a `max_detections` outside 1 to 1000 (`invalid_max_detections`), "
            "413 for a body, batch or image over the limits, 415 for another content type"
        ),
    }


def build_server_package(
    *, artifacts: ModelArtifacts, out_path: str | os.PathLike[str], report: Report = silent_report
) -> dict[str, Any]:
    """Build the on-prem server archive (zip) at ``out_path``; returns its report.

    >>> build_server_package(artifacts=artifacts, out_path="server.zip")["sha256"]  # doctest: +SKIP
    '5f0c...'
    """
    from workers.serving.predictors import PREDICTORS, load_predictor, predictor_class

    if artifacts.template not in PREDICTORS:
        raise PackagingError(
            f"no predictor serves template {artifacts.template!r}; known: {', '.join(PREDICTORS)}"
        )
    data_kind = predictor_class(artifacts.template).data_kind
    check_test_inputs(artifacts, data_kind)
    when = created_at()
    with tempfile.TemporaryDirectory(prefix="sampan-server-package-") as temp:
        root = Path(temp)
        report("Checking and copying the model", fraction=0.05)
        stage_model_files(artifacts, root)
        report("Copying the server and the platform's predictor code", fraction=0.2)
        predictor_module = PREDICTORS[artifacts.template].partition(":")[0]
        runtime_files, imports = vendor_runtime((*SERVER_MODULES, predictor_module), root)
        requirements = pinned_requirements(imports)
        (root / "requirements.txt").write_text("\n".join(requirements) + "\n")
        values = {**template_values(artifacts, when), **readme_values(data_kind, artifacts, requirements)}
        copy_template_tree(TEMPLATES_DIR / "server", root, values)
        report("Writing the test vectors with the platform's answers", fraction=0.4)
        write_json(
            root / "manifest.json", {"template": artifacts.template}
        )  # the predictor reads the template
        vectors = write_test_vectors(artifacts, data_kind, root / "test_vectors")
        try:
            predictor = load_predictor(root)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise PackagingError(f"the model cannot be served as {artifacts.template} ({exc})") from None
        if predictor.prediction_kind == "forecast_prediction":
            from workers.packaging.forecast_package import expected_forecasts

            expected = expected_forecasts(getattr(predictor, "forecast"), vectors)  # noqa: B009
        elif predictor.prediction_kind == "detection_prediction":
            from workers.packaging.device_sdk_detection import expected_detections

            expected = expected_detections(predictor, vectors, root / "test_vectors", artifacts.classes)
        else:
            expected = expected_outputs(
                predictor, vectors, root / "test_vectors", artifacts.classes, data_kind=data_kind
            )
        write_json(root / "test_vectors" / "expected.json", expected)
        report("Writing the manifest", fraction=0.8)
        onnx_description = describe_onnx(root / "model.onnx")
        manifest: dict[str, Any] = {
            "format": MANIFEST_FORMAT,
            "kind": "server",
            "sampan_version": sampan_version(),
            "created_at": when,
            "template": artifacts.template,
            "model_version": model_version_of(artifacts),
            "classes": len(artifacts.classes),
            "model": {"file": "model.onnx", **onnx_description},
            "runtime": {
                "python": python_requirement(),
                "requirements": requirements,
                "vendored_files": runtime_files,
                "entry_point": "serve.py",
            },
            "test_vectors": {
                "file": "test_vectors/expected.json",
                "count": len(vectors),
                "rtol": 1e-4,
                "atol": 1e-5,
            },
            "files": file_entries(root),
        }
        write_json(root / "manifest.json", manifest)
        report("Writing the archive", fraction=0.9)
        version = manifest["model_version"]
        archive = write_zip(root, out_path, prefix=f"sampan-server-{slug(version.get('name'))}")
    result = {
        "kind": "server",
        "version": PACKAGE_REPORT_VERSION,
        **archive,
        "manifest": {k: manifest[k] for k in ("format", "sampan_version", "template", "model_version")},
        "model": manifest["model"],
        "requirements": requirements,
        "test_vectors": len(vectors),
        "files": manifest["files"],
    }
    report("Server package ready", fraction=1.0, milestone=True, size_bytes=archive["size_bytes"])
    return result
