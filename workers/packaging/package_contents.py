"""What both packages hold: the ONNX description, the vendored platform code, pinned requirements,
test vectors, the manifest with every file's sha256, and the zip itself."""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import math
import os
import shutil
import sys
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PIL import Image

import workers

MANIFEST_FORMAT = "sampan.package/1"
VECTORS_FORMAT = "sampan.test_vectors/1"
MAX_TEST_VECTORS = 20
VECTOR_MAX_SIDE = (
    512  # larger test images are shrunk before they become vectors (the answers follow the file)
)
TEMPLATES_DIR = Path(__file__).with_name("templates")
WORKERS_ROOT = Path(workers.__file__).resolve().parent
# Third-party imports the vendored runtime may make, and the distribution that provides each.
RUNTIME_DISTRIBUTIONS = {
    "numpy": "numpy",
    "PIL": "Pillow",
    "onnxruntime": "onnxruntime",
    "onnx": "onnx",
    "google": "protobuf",
    "tokenizers": "tokenizers",
}
REFUSED_IMPORTS = ("torch", "torchvision", "django", "rest_framework", "celery")
ZIP_DATE = (2020, 1, 1, 0, 0, 0)  # fixed, so an archive's bytes depend on its contents only


class PackagingError(RuntimeError):
    """The package cannot be built from these artifacts; the message says why."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sampan_version() -> str:
    try:
        return importlib.metadata.version("sampan-platform")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def copy_self_contained_model(source: str | os.PathLike[str], target: Path) -> None:
    from workers.shared.onnx_model import OnnxRejected, check_onnx_self_contained

    try:
        check_onnx_self_contained(source)
    except OnnxRejected as exc:
        raise PackagingError(str(exc)) from None
    shutil.copyfile(source, target)


def _tensor_description(value: Any) -> dict[str, Any]:
    from onnx import helper

    tensor = value.type.tensor_type
    shape = [
        dim.dim_param or (dim.dim_value if dim.HasField("dim_value") else None) for dim in tensor.shape.dim
    ]
    return {
        "name": value.name,
        "shape": shape,
        "dtype": str(helper.tensor_dtype_to_np_dtype(tensor.elem_type)),
    }


def describe_onnx(path: Path) -> dict[str, Any]:
    """Opsets, IR version, producer, inputs and outputs (name, shape with symbolic dims, dtype)."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    initializers = {tensor.name for tensor in model.graph.initializer}
    return {
        "ir_version": int(model.ir_version),
        "opset": {entry.domain or "ai.onnx": int(entry.version) for entry in model.opset_import},
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "inputs": [_tensor_description(v) for v in model.graph.input if v.name not in initializers],
        "outputs": [_tensor_description(v) for v in model.graph.output],
    }


def _module_path(name: str) -> Path | None:
    relative = Path(*name.split(".")[1:])
    for candidate in (WORKERS_ROOT / relative / "__init__.py", (WORKERS_ROOT / relative).with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def runtime_modules(roots: Iterable[str]) -> tuple[list[str], set[str]]:
    """The ``workers.*`` modules ``roots`` import (at module level or inside functions), transitively,
    with their parent packages; and the top-level third-party modules they import.

    Raises :class:`PackagingError` when one of them imports torch, Django or another module a
    package cannot ship.
    """
    stdlib = set(sys.stdlib_module_names)
    seen: set[str] = set()
    third_party: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_path(name)
        if path is None:
            raise PackagingError(f"the runtime module {name} does not exist")
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for module in imported:
                top = module.split(".")[0]
                if top == "workers":
                    if _module_path(module) is not None:
                        todo.append(module)
                elif top in REFUSED_IMPORTS:
                    raise PackagingError(f"{name} imports {module}; a package's runtime must not need it")
                elif top not in stdlib and top != "__future__":
                    third_party.add(top)
    unknown = third_party - set(RUNTIME_DISTRIBUTIONS)
    if unknown:
        raise PackagingError(f"the runtime imports {', '.join(sorted(unknown))}, which packages do not ship")
    return sorted(seen), third_party


def vendor_runtime(roots: Iterable[str], target: Path) -> tuple[list[str], set[str]]:
    """Copy the platform's own ``workers/...`` files (byte for byte) that ``roots`` need into ``target``."""
    modules, third_party = runtime_modules(roots)
    files = []
    for module in modules:
        source = _module_path(module)
        assert source is not None
        relative = Path("workers") / source.relative_to(WORKERS_ROOT)
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target / relative)
        files.append(relative.as_posix())
    return files, third_party


def pinned_requirements(imports: Iterable[str]) -> list[str]:
    """``name==version`` of each distribution, at the version this platform runs (so its answers match)."""
    names = {RUNTIME_DISTRIBUTIONS[name] for name in imports}
    if "onnx" in names:
        names.discard("protobuf")  # onnx pins the protobuf it works with
    return [f"{name}=={importlib.metadata.version(name)}" for name in sorted(names, key=str.lower)]


def python_requirement() -> str:
    return f">={sys.version_info.major}.{sys.version_info.minor}"


def render_template(source: Path, target: Path, values: Mapping[str, str]) -> None:
    text = source.read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def copy_template_tree(source: Path, target: Path, values: Mapping[str, str]) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            render_template(path, target / path.relative_to(source), values)


def pick_test_vectors(
    images: Sequence[Any], labels: Sequence[int] | None, limit: int = MAX_TEST_VECTORS, *, paths: bool = True
) -> list[tuple[Any, int | None]]:
    """Up to ``limit`` test inputs (image paths, or texts / rows with ``paths=False``), taking the
    classes in turn when labels are known."""

    def wrap(item: Any) -> Any:
        return Path(item) if paths else item

    if labels is None:
        return [(wrap(p), None) for p in images[:limit]]
    by_class: dict[int, list[Any]] = {}
    for item, label in zip(images, labels, strict=True):
        by_class.setdefault(int(label), []).append(wrap(item))
    picked: list[tuple[Any, int | None]] = []
    depth = 0
    while len(picked) < limit and any(depth < len(v) for v in by_class.values()):
        for label in sorted(by_class):
            if depth < len(by_class[label]) and len(picked) < limit:
                picked.append((by_class[label][depth], label))
        depth += 1
    return picked


def write_vector_images(picked: Sequence[tuple[Path, int | None]], folder: Path) -> list[dict[str, Any]]:
    """Each picked image as an upright RGB PNG (lossless, so every decoder reads the same pixels)."""
    from workers.image_classification.preprocessing import open_image

    folder.mkdir(parents=True, exist_ok=True)
    vectors = []
    for position, (path, label) in enumerate(picked):
        try:
            image = open_image(path)
        except (OSError, ValueError) as exc:
            raise PackagingError(f"test image {path} cannot be read ({exc})") from None
        if max(image.size) > VECTOR_MAX_SIDE:
            image.thumbnail((VECTOR_MAX_SIDE, VECTOR_MAX_SIDE), Image.Resampling.LANCZOS)
        name = f"{position:03d}.png"
        image.save(folder / name, format="PNG")
        vectors.append({"file": f"images/{name}", "label": label, "source_name": path.name})
    return vectors


def json_safe(value: Any) -> Any:
    """``value`` as strict JSON can hold it: NaN and infinities become null (a missing value)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # NumPy scalars
        return json_safe(value.item())
    return value


def write_vector_instances(picked: Sequence[tuple[Any, int | None]], data_kind: str) -> list[dict[str, Any]]:
    """Text or tabular test vectors as the JSON instances a request sends: ``{"text": ...}`` or a row."""
    vectors = []
    for position, (instance, label) in enumerate(picked):
        if data_kind == "text":
            if not isinstance(instance, str) or not instance.strip():
                raise PackagingError(f"test instance {position} is not a non-empty text")
            request = {"text": instance}
        else:
            if not isinstance(instance, Mapping) or not instance:
                raise PackagingError(f"test instance {position} is not a row of column values")
            request = json_safe(dict(instance))
        vectors.append({"instance": json.loads(json.dumps(request, allow_nan=False)), "label": label})
    return vectors


def predictor_inputs(vectors: Sequence[Mapping[str, Any]], data_kind: str, root: Path) -> list[Any]:
    """What the predictor takes for each vector (as the request parser hands it over)."""
    if data_kind == "image":
        from workers.image_classification.preprocessing import open_image

        return [open_image(root / vector["file"]) for vector in vectors]
    if data_kind == "text":
        return [vector["instance"]["text"] for vector in vectors]
    return [vector["instance"] for vector in vectors]


def expected_outputs(
    predictor: Any,
    vectors: Sequence[Mapping[str, Any]],
    root: Path,
    classes: Sequence[str],
    *,
    top_k: int = 5,
    data_kind: str = "image",
) -> dict[str, Any]:
    """The predictor's answers on the vectors: every class's score (by class index) and the top-k, or
    the value of a regression model."""
    inputs = predictor_inputs(vectors, data_kind, root)
    ranked = predictor.predict(inputs, max(len(classes), 1)) if inputs else []
    entries = []
    for vector, answer in zip(vectors, ranked, strict=True):
        if not classes:  # regression: [{"value": v}]
            entries.append({**vector, "value": answer[0]["value"]})
            continue
        scores = [0.0] * len(classes)
        for entry in answer:
            scores[entry["index"]] = entry["score"]
        entries.append({**vector, "scores": scores, "top_k": answer[:top_k]})
    return {
        "format": VECTORS_FORMAT,
        "data_kind": data_kind,
        "task": "regression" if not classes else "classification",
        "classes": list(classes),
        "top_k": top_k,
        "vectors": entries,
    }


def file_entries(root: Path, *, exclude: Sequence[str] = ("manifest.json",)) -> list[dict[str, Any]]:
    entries = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative not in exclude:
            entries.append({"path": relative, "bytes": path.stat().st_size, "sha256": sha256_file(path)})
    return entries


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def write_zip(root: Path, out_path: str | os.PathLike[str], *, prefix: str) -> dict[str, Any]:
    """Zip ``root`` under ``prefix/`` (sorted, fixed dates), atomically at ``out_path``; size and sha256."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    temp = out_path.with_name(f".tmp-{out_path.name}.{os.getpid()}")
    try:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                info = zipfile.ZipInfo(f"{prefix}/{path.relative_to(root).as_posix()}", date_time=ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
                with path.open("rb") as stream:
                    archive.writestr(info, stream.read())
        with temp.open("rb") as stream:
            os.fsync(stream.fileno())
        os.replace(temp, out_path)
    finally:
        temp.unlink(missing_ok=True)
    return {"path": str(out_path), "size_bytes": out_path.stat().st_size, "sha256": sha256_file(out_path)}


def slug(value: Any) -> str:
    text = "".join(ch if ch.isalnum() else "-" for ch in str(value)).strip("-").lower()
    return "-".join(part for part in text.split("-") if part) or "model"


def created_at() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
