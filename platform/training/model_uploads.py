"""Bring your own model: register a model a developer trained elsewhere as a model version of a project.

Two forms, both ending as a self-contained ONNX file with its preprocessing spec and class names, so
the model version deploys and packages like a trained one (``source="uploaded"``):

- an ONNX file: checked here, in the web process, with onnx and ONNX Runtime (no torch): external
  data references are refused, the graph must take one float32 ``[batch, 3, H, W]`` input and give
  ``[batch, len(classes)]`` scores, and it must run on a zero image of the spec's size. A fixed batch
  dimension (``torch.onnx.export(dynamo=True)`` writes 1) is recorded as ``params["batch_size"]``
  (``None``: dynamic); serving runs any batch in chunks of that size;
- a state_dict for one of the template's architectures: stored as uploaded, then a
  ``training.import_model`` job on a worker reads it with ``torch.load(weights_only=True)``, builds the
  architecture, loads every tensor (the head included) and exports ONNX with the template's export
  code (verified against torch with ONNX Runtime).

e.g. ``model_version_upload_onnx(user=u, project=p, upload=f, classes=["cat", "dog"],
preprocessing={"image_size": [64, 64]})``
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from blobs.services import blob_reuse
from config.exceptions import DomainError, field_error
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from jobs.models import Job
from jobs.services import job_create

from training.models import ModelVersion, ModelVersionSource
from training.services import BackboneTooLarge, _sha256_of, _store, code_version
from workers.contracts.preprocessing import ImagePreprocessing

TEMPLATE = "image_classification"
ARCHITECTURES = (
    "cnn_small",
    "resnet_narrow",
    "resnet18",
)  # workers.image_classification.models, without torch


def _check_size(upload) -> None:
    limit = settings.SAMPAN_BACKBONE_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise BackboneTooLarge(
            f"The file {upload.name!r} is {upload.size:,} bytes; an uploaded model may be at most "
            f"{limit:,} bytes (SAMPAN_BACKBONE_MAX_UPLOAD_BYTES).",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    if upload.size == 0:
        raise field_error("file", f"The file {upload.name!r} is empty.")


def _classes(classes: Any, *, source: str = "classes") -> list[str]:
    if not isinstance(classes, list) or not all(isinstance(c, str) and c.strip() for c in classes):
        raise field_error(
            source,
            "Give the class names as a list of non-empty strings, in the order of the model's outputs.",
        )
    if len(classes) < 2:
        raise field_error(source, f"A classifier needs at least 2 classes; got {len(classes)}.")
    if len(set(classes)) != len(classes):
        duplicates = sorted({c for c in classes if classes.count(c) > 1})
        raise field_error(source, f"Class names must be unique; repeated: {', '.join(duplicates)}.")
    return list(classes)


def _spec(preprocessing: dict[str, Any] | None, *, image_size: list[int] | None) -> ImagePreprocessing:
    """A full preprocessing spec: the template's defaults, the size, then the given keys."""
    from workers.image_classification.preprocessing import PreprocessingSpecError, make_spec, validate_spec

    if not isinstance(preprocessing or {}, dict):
        raise field_error("preprocessing", "Give the preprocessing as a JSON object.")
    given = dict(preprocessing or {})
    size = given.get("image_size", image_size)
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size, size]
    if size is None:
        raise field_error(
            "preprocessing",
            "Say the model's input size: preprocessing.image_size = [height, width] (or image_size).",
        )
    try:
        spec = make_spec(size) | given | {"image_size": size}
        return validate_spec(spec)
    except (PreprocessingSpecError, TypeError, ValueError) as exc:
        raise field_error("preprocessing", f"Invalid preprocessing: {exc}.") from None


def _check_dataset_version(*, project, dataset_version, classes: list[str]) -> None:
    """An evaluation set must be of the same project, and its classes the model's, in the same order."""
    if dataset_version is None:
        return
    if dataset_version.dataset.project_id != project.pk:
        raise field_error("dataset_version", "The dataset version belongs to another project.")
    if dataset_version.dataset.task_type != TEMPLATE:
        raise field_error(
            "dataset_version",
            f"An {TEMPLATE} model cannot be evaluated on a {dataset_version.dataset.task_type} dataset.",
        )
    if list(dataset_version.classes) != list(classes):
        raise field_error(
            "dataset_version",
            f"The model's classes {classes} differ from dataset version {dataset_version.name}'s "
            f"{list(dataset_version.classes)}; the model's outputs must follow the version's classes, "
            "in order.",
        )


def _queue_evaluation(*, version: ModelVersion, user) -> Job:
    job = job_create(
        workspace=version.project.workspace,
        project=version.project,
        kind="training.evaluate_model",
        params={"model_version": version.pk},
        user=user,
    )
    ModelVersion.objects.filter(pk=version.pk).update(job=job)
    version.job = job
    return job


def evaluate_uploaded(*, model_version_id: int, report) -> dict[str, Any]:
    """The body of a ``training.evaluate_model`` job: the template's evaluation of an uploaded model
    version on its dataset version's test split, recorded as its metrics and evaluation report."""
    from datasets.services import dataset_version_manifest

    from workers.templates import registry

    version = ModelVersion.objects.select_related("dataset_version__dataset").get(pk=model_version_id)
    if version.dataset_version is None:
        raise ValueError(f"model version {version.pk} names no dataset version to evaluate on")
    manifest = dataset_version_manifest(version=version.dataset_version)
    with tempfile.TemporaryDirectory(prefix="sampan-evaluate-") as tmp:
        local = Path(tmp) / "model.onnx"
        with default_storage.open(version.onnx_key, "rb") as source, local.open("wb") as out:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                out.write(chunk)
        evaluation = registry.get(version.template).load("evaluate")(
            local, manifest, preprocessing=version.preprocessing, report=report
        )
    evaluation["model"]["path"] = version.onnx_key
    headline = {
        "accuracy": evaluation["accuracy"],
        "macro_f1": evaluation["macro"]["f1"],
        "weighted_f1": evaluation["weighted"]["f1"],
        "top_k_accuracy": evaluation["top_k_accuracy"],
    }
    ModelVersion.objects.filter(pk=version.pk).update(evaluation=evaluation, metrics={"test": headline})
    return {
        "kind": "training_job_result",
        "version": 1,
        "model_version": version.pk,
        "name": version.name,
        "metrics": {"test": headline},
    }


def _dims(value_info) -> list[int | str]:
    return [
        d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
        for d in value_info.type.tensor_type.shape.dim
    ]


def batch_size_of(proto) -> int | None:
    """The graph input's fixed batch dimension (e.g. 1), or None when it is dynamic."""
    initializers = {t.name for t in proto.graph.initializer}
    inputs = [i for i in proto.graph.input if i.name not in initializers]
    dims = _dims(inputs[0]) if inputs else []
    return dims[0] if dims and isinstance(dims[0], int) and dims[0] > 0 else None


def check_uploaded_onnx(
    path: Path, *, filename: str, classes: list[str] | None, preprocessing: dict[str, Any] | None
) -> tuple[Any, list[str], ImagePreprocessing]:
    """Check an uploaded ONNX classifier; returns (model proto, classes, full preprocessing spec).

    Classes and preprocessing default to the ones in the file's ``sampan.*`` metadata (a Sampan export).
    """
    import onnx
    import onnxruntime

    from workers.shared.onnx_model import OnnxRejected, check_onnx_self_contained

    def refuse(message: str) -> DomainError:
        return field_error("file", f"{filename}: {message}")

    try:
        check_onnx_self_contained(path)
    except OnnxRejected as exc:
        raise refuse(str(exc).replace(f"{path}: ", "")) from None
    proto = onnx.load(str(path), load_external_data=False)
    try:
        onnx.checker.check_model(proto)
    except onnx.checker.ValidationError as exc:
        raise refuse(f"not a valid ONNX model ({str(exc).splitlines()[0]})") from None
    metadata = {p.key: p.value for p in proto.metadata_props}

    def from_metadata(key: str) -> Any:
        try:
            return json.loads(metadata[key]) if key in metadata else None
        except ValueError:
            raise refuse(f"its metadata {key} is not valid JSON") from None

    if classes is None:
        classes = from_metadata("sampan.classes")
    if classes is None:
        raise field_error("classes", "Give the class names (the file carries none).")
    classes = _classes(classes)
    if preprocessing is None:
        preprocessing = from_metadata("sampan.preprocessing")
    initializers = {t.name for t in proto.graph.initializer}
    inputs = [i for i in proto.graph.input if i.name not in initializers]
    if len(inputs) != 1 or len(proto.graph.output) < 1:
        raise refuse(
            f"an image classifier takes one input and gives scores; this graph has {len(inputs)} inputs "
            f"and {len(proto.graph.output)} outputs"
        )
    if inputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        raise refuse(f"the input {inputs[0].name!r} must be float32")
    shape = _dims(inputs[0])
    if len(shape) != 4 or (isinstance(shape[1], int) and shape[1] not in (0, 3)):
        raise refuse(
            f"the input {inputs[0].name!r} must be [batch, 3, height, width] (NCHW RGB); it is {shape}"
        )
    batch = batch_size_of(proto) or 1
    fixed_sides = [v for v in shape[2:] if isinstance(v, int) and v > 0]
    static_size = fixed_sides if len(fixed_sides) == 2 else None
    spec = _spec(preprocessing, image_size=static_size)
    if static_size is not None and spec["image_size"] != static_size:
        raise field_error(
            "preprocessing",
            f"image_size {spec['image_size']} differs from the model's input {static_size} (height, width).",
        )
    out_shape = _dims(proto.graph.output[0])
    if len(out_shape) != 2:
        raise refuse(f"the first output must be scores shaped [batch, classes]; it is {out_shape}")
    if isinstance(out_shape[1], int) and out_shape[1] > 0 and out_shape[1] != len(classes):
        raise field_error(
            "classes",
            f"The model gives {out_shape[1]} scores per image but {len(classes)} class names were given.",
        )
    try:
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        import numpy as np

        zeros = np.zeros((batch, 3, *spec["image_size"]), dtype=np.float32)
        scores = session.run(None, {session.get_inputs()[0].name: zeros})[0]
    except Exception as exc:  # any runtime failure: the file is not usable as uploaded
        raise refuse(
            f"ONNX Runtime cannot run it on a [{batch}, 3, {spec['image_size'][0]}, "
            f"{spec['image_size'][1]}] float32 batch: {str(exc).splitlines()[0][:300]}"
        ) from None
    if scores.ndim != 2 or scores.shape != (batch, len(classes)):
        raise field_error(
            "classes",
            f"The model gives scores shaped {list(scores.shape)} for {batch} "
            f"image{'s' if batch > 1 else ''}; expected [{batch}, {len(classes)}] "
            f"for {len(classes)} classes.",
        )
    return proto, classes, spec


@transaction.atomic
def model_version_record_upload(
    *,
    project,
    user,
    params: dict[str, Any],
    classes: list[str],
    preprocessing: Mapping[str, Any],
    onnx: Path,
    checkpoint: Path | None = None,
    job: Job | None = None,
    dataset_version=None,
) -> ModelVersion:
    """Record an uploaded model as the project's next model version (``source="uploaded"``)."""
    if job is not None:
        existing = ModelVersion.objects.filter(job=job).first()
        if existing is not None:  # a retried job that had already recorded its model
            return existing
    project = type(project).objects.select_for_update().get(pk=project.pk)
    number = (ModelVersion.objects.filter(project=project).aggregate(n=Max("number"))["n"] or 0) + 1
    prefix = f"models/project-{project.pk}/v{number}-upload"
    onnx_key, onnx_sha = _store(onnx, f"{prefix}/model.onnx")
    checkpoint_key = _store(checkpoint, f"{prefix}/model.pt")[0] if checkpoint is not None else ""
    return ModelVersion.objects.create(
        workspace_id=project.workspace_id,
        project=project,
        number=number,
        source=ModelVersionSource.UPLOADED,
        dataset_version=dataset_version,
        job=job,
        template=TEMPLATE,
        preset="",
        params=params,
        code_version=code_version(),
        classes=classes,
        preprocessing=preprocessing,
        checkpoint_key=checkpoint_key,
        onnx_key=onnx_key,
        onnx_sha256=onnx_sha,
        metrics={},
        evaluation={},
        created_by=user if user is not None and user.is_authenticated else None,
    )


def model_version_upload_onnx(
    *,
    user,
    project,
    upload,
    classes: list[str] | None = None,
    preprocessing: dict[str, Any] | None = None,
    dataset_version=None,
) -> ModelVersion:
    """Register an uploaded ONNX classifier as a model version (checked here, see module docstring).
    With ``dataset_version``, a ``training.evaluate_model`` job evaluates it on that version's test split."""
    import onnx

    _check_size(upload)
    filename = PurePosixPath(upload.name or "model.onnx").name[-255:]
    with tempfile.TemporaryDirectory(prefix="sampan-upload-") as tmp:
        path = Path(tmp) / "upload.onnx"
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        sha256 = _sha256_of(upload)
        proto, classes, spec = check_uploaded_onnx(
            path, filename=filename, classes=classes, preprocessing=preprocessing
        )
        _check_dataset_version(project=project, dataset_version=dataset_version, classes=classes)
        # The stored file describes itself, like the platform's exports.
        kept = [p for p in proto.metadata_props if not p.key.startswith("sampan.")]
        del proto.metadata_props[:]
        proto.metadata_props.extend(kept)
        for key, value in (
            ("sampan.template", TEMPLATE),
            ("sampan.classes", json.dumps(classes)),
            ("sampan.preprocessing", json.dumps(spec)),
        ):
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        final = Path(tmp) / "model.onnx"
        onnx.save(proto, str(final))
        with transaction.atomic():
            version = model_version_record_upload(
                project=project,
                user=user,
                classes=classes,
                preprocessing=spec,
                onnx=final,
                dataset_version=dataset_version,
                params={
                    "format": "onnx",
                    "filename": filename,
                    "sha256": sha256,
                    "bytes": upload.size,
                    "batch_size": batch_size_of(proto),
                },
            )
            if dataset_version is not None:
                _queue_evaluation(version=version, user=user)
        return version


def upload_blob_key(sha256: str) -> str:
    return f"model-uploads/{sha256[:2]}/{sha256}.pt"


@transaction.atomic
def model_version_upload_state_dict(
    *,
    user,
    project,
    upload,
    architecture: str,
    classes: list[str],
    preprocessing: dict[str, Any] | None = None,
    image_size: int | None = None,
    dataset_version=None,
) -> Job:
    """Store an uploaded state_dict and queue the ``training.import_model`` job that turns it into a
    model version on a worker (the web process never unpickles it)."""
    _check_size(upload)
    if architecture not in ARCHITECTURES:
        raise field_error(
            "architecture", f"Unknown architecture {architecture!r}; one of {', '.join(ARCHITECTURES)}."
        )
    classes = _classes(classes)
    _check_dataset_version(project=project, dataset_version=dataset_version, classes=classes)
    spec = _spec(preprocessing, image_size=[image_size, image_size] if image_size else [64, 64])
    filename = PurePosixPath(upload.name or "model.pt").name[-255:]
    sha256 = _sha256_of(upload)
    key = upload_blob_key(sha256)
    if not blob_reuse(key):
        saved = default_storage.save(key, File(upload, name=filename))
        if saved != key:  # a concurrent upload stored the same content first
            default_storage.delete(saved)
    return job_create(
        workspace=project.workspace,
        project=project,
        kind="training.import_model",
        user=user,
        params={
            "blob_key": key,
            "sha256": sha256,
            "filename": filename,
            "bytes": upload.size,
            "architecture": architecture,
            "classes": classes,
            "preprocessing": spec,
            "dataset_version": dataset_version.pk if dataset_version is not None else None,
        },
    )


def import_state_dict(*, job: Job, report) -> dict[str, Any]:
    """The body of a ``training.import_model`` job (runs on a worker; torch is imported here only)."""
    import torch

    from workers.image_classification.export import export_onnx
    from workers.image_classification.models import BackboneError, build_model, read_state_dict

    params = job.params
    filename = params["filename"]
    with tempfile.TemporaryDirectory(prefix="sampan-import-") as tmp:
        local = Path(tmp) / "upload.pt"
        try:
            with default_storage.open(params["blob_key"], "rb") as source, local.open("wb") as out:
                for chunk in iter(lambda: source.read(1 << 20), b""):
                    out.write(chunk)
        except FileNotFoundError:
            raise ValueError(f"The uploaded file {filename!r} is missing from storage.") from None
        with local.open("rb") as fh:
            if _sha256_of(fh) != params["sha256"]:
                raise ValueError(f"The stored file {filename!r} no longer matches its sha256.")
        report(f"reading {filename} with weights_only=True", fraction=0.05)
        try:
            state = read_state_dict(local)
        except BackboneError as exc:
            message = str(exc).replace(str(local), filename).replace("backbones are read", "uploads are read")
            raise ValueError(message) from None
        classes = params["classes"]
        model = build_model(params["architecture"], len(classes))
        try:
            model.load_state_dict(state, strict=True)
        except RuntimeError as exc:
            detail = " ".join(str(exc).split())[:1500]
            raise ValueError(
                f"{filename} does not fit {params['architecture']} with {len(classes)} classes: {detail}"
            ) from None
        model_file = Path(tmp) / "model.pt"
        torch.save(
            {
                "arch": params["architecture"],
                "num_classes": len(classes),
                "classes": classes,
                "preprocessing": params["preprocessing"],
                "model": model.state_dict(),
            },
            model_file,
        )
        report("exporting to ONNX and checking it against torch", fraction=0.4)
        exported = export_onnx(model_file, Path(tmp) / "model.onnx")
        project = job.project
        evaluation_set = None
        if params.get("dataset_version") is not None:
            from datasets.models import DatasetVersion

            evaluation_set = DatasetVersion.objects.filter(pk=params["dataset_version"]).first()
        version = model_version_record_upload(
            project=project,
            user=job.created_by,
            job=job,
            classes=classes,
            preprocessing=params["preprocessing"],
            onnx=Path(exported["path"]),
            checkpoint=model_file,
            dataset_version=evaluation_set,
            params={
                "format": "state_dict",
                "filename": filename,
                "sha256": params["sha256"],
                "bytes": params.get("bytes"),
                "architecture": params["architecture"],
            },
        )
    if evaluation_set is not None and not version.evaluation:
        report("evaluating on the test split", fraction=0.8, milestone=True)
        evaluate_uploaded(model_version_id=version.pk, report=report)
    report("recorded", fraction=1.0, milestone=True)
    return {
        "model_version": version.pk,
        "name": version.name,
        "onnx": {k: exported[k] for k in ("bytes", "sha256", "opset")},
    }
