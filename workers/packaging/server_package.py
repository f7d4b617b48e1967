"""The on-prem server package: the model, its JSON companions, the standalone server with the
platform's own serving code, pinned requirements (no torch), a non-root Dockerfile and test vectors."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

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
    pick_test_vectors,
    pinned_requirements,
    python_requirement,
    sampan_version,
    slug,
    vendor_runtime,
    write_json,
    write_vector_images,
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
    return {**dict(artifacts.model_version), "template": artifacts.model_version.get("template") or artifacts.template}


def template_values(artifacts: ModelArtifacts, when: str) -> dict[str, str]:
    import sys

    version = model_version_of(artifacts)
    return {"model_name": str(version.get("name") or "model"), "model_id": json.dumps(version.get("id")),
            "template": artifacts.template, "class_count": str(len(artifacts.classes)),
            "sampan_version": sampan_version(), "created_at": when, "python": python_requirement(),
            "python_minor": f"{sys.version_info.major}.{sys.version_info.minor}"}


def build_server_package(*, artifacts: ModelArtifacts, out_path: str | os.PathLike[str],
                         report: Report = silent_report) -> dict[str, Any]:
    """Build the on-prem server archive (zip) at ``out_path``; returns its report.

    >>> build_server_package(artifacts=artifacts, out_path="server.zip")["sha256"]  # doctest: +SKIP
    '5f0c...'
    """
    from workers.serving.predictors import PREDICTORS, load_predictor, predictor_class

    if artifacts.template not in PREDICTORS:
        raise PackagingError(f"no predictor serves template {artifacts.template!r}; known: {', '.join(PREDICTORS)}")
    input_kind = predictor_class(artifacts.template).input_kind
    if input_kind != "image":
        # the server and protocol would serve it; the test vectors are written for images only so far
        raise PackagingError(f"server packages are built for image models so far; {artifacts.template!r} "
                             f"takes {input_kind} input")
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
        values = template_values(artifacts, when)
        copy_template_tree(TEMPLATES_DIR / "server", root, values)
        report("Writing the test vectors with the platform's answers", fraction=0.4)
        write_json(root / "manifest.json", {"template": artifacts.template})  # the predictor reads the template
        vectors = write_vector_images(pick_test_vectors(artifacts.test_images, artifacts.test_labels),
                                      root / "test_vectors" / "images")
        predictor = load_predictor(root)
        expected = expected_outputs(predictor, vectors, root / "test_vectors", artifacts.classes)
        write_json(root / "test_vectors" / "expected.json", expected)
        report("Writing the manifest", fraction=0.8)
        onnx_description = describe_onnx(root / "model.onnx")
        manifest = {
            "format": MANIFEST_FORMAT,
            "kind": "server",
            "sampan_version": sampan_version(),
            "created_at": when,
            "template": artifacts.template,
            "model_version": model_version_of(artifacts),
            "classes": len(artifacts.classes),
            "model": {"file": "model.onnx", **onnx_description},
            "runtime": {"python": python_requirement(), "requirements": requirements,
                        "vendored_files": runtime_files, "entry_point": "serve.py"},
            "test_vectors": {"file": "test_vectors/expected.json", "count": len(vectors), "rtol": 1e-4, "atol": 1e-5},
            "files": file_entries(root),
        }
        write_json(root / "manifest.json", manifest)
        report("Writing the archive", fraction=0.9)
        version = manifest["model_version"]
        archive = write_zip(root, out_path, prefix=f"sampan-server-{slug(version.get('name'))}")
    result = {"kind": "server", **archive, "manifest": {k: manifest[k] for k in ("format", "sampan_version",
                                                                                  "template", "model_version")},
              "model": manifest["model"], "requirements": requirements, "test_vectors": len(vectors),
              "files": manifest["files"]}
    report("Server package ready", fraction=1.0, milestone=True, size_bytes=archive["size_bytes"])
    return result
