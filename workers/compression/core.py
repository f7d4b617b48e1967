"""``compress``: make a model version's compressed variants, then evaluate and measure each like the
parent, side by side.

Each recipe goes to the template's compressor (``COMPRESSORS``: ``module:function`` names, imported
when used), which returns the variant's model file, ONNX, template parameters and notes. Then, for the
parent and every variant alike: the template's ``evaluate`` entry point on the manifest's test split,
the file size, parameters and FLOPs read from the ONNX graph, and the latency measured with the
spec's target profile. A recipe that does not apply to the model (pruning a tree ensemble) is
``skipped`` with the reason; a malformed recipe is refused before anything runs.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from workers.contracts.compression import (
    COMPRESSION_RESULT_VERSION,
    CompressionRecipe,
    CompressionResult,
    CompressionSpec,
    CompressionVariant,
    SkippedRecipe,
    VariantSummary,
)
from workers.contracts.targets import TargetProfile
from workers.progress import Report

COMPRESSORS = {
    "image_classification": "workers.compression.image:compress_variant",
    "object_detection": "workers.compression.detection:compress_variant",
    "text_classification": "workers.compression.text:compress_variant",
    "tabular_classification": "workers.compression.tabular:compress_variant",
    "tabular_regression": "workers.compression.tabular:compress_variant",
}
# the headline metric of each evaluation report kind (higher is better for all of them)
HEADLINE_METRICS = {"classification_report": "accuracy", "detection_report": "map", "regression_report": "r2"}
DEFAULT_MAX_DROP = {"detection_report": 0.02}
DEFAULT_MAX_DROP_OTHER = 0.005
DEFAULT_TARGET = "worker-cpu"
QUANTIZATIONS = ("static", "qat", "auto", "dynamic")
RECIPE_KEYS = {"name", "prune", "distill", "quantize", "fine_tune_epochs"}
MAX_FINE_TUNE_EPOCHS = 200


class CompressionError(ValueError):
    """A spec or recipe that cannot run; ``code`` is the API's error code (``compression_bad_recipe``,
    ``compression_not_supported``, ``teacher_mismatch``)."""

    def __init__(self, message: str, *, code: str = "compression_bad_recipe") -> None:
        super().__init__(message)
        self.code = code


class RecipeNotApplicable(ValueError):
    """Raised by a compressor for a recipe that does not apply to this model: the recipe is skipped
    with this message as the reason."""


def validate_spec(spec: Mapping[str, Any]) -> CompressionSpec:
    """Check a spec's recipes (names unique, known keys, values in range); raises
    :class:`CompressionError` naming the recipe and the problem.

    >>> validate_spec({"kind": "compression_spec", "version": 1, "recipes": [{"name": "x"}]})
    Traceback (most recent call last):
    ...
    workers.compression.core.CompressionError: recipe 'x': nothing to do (give prune, distill or quantize)
    """
    recipes = spec.get("recipes")
    if not isinstance(recipes, list) or not recipes:
        raise CompressionError("a compression spec needs at least one recipe")
    seen: set[str] = set()
    for index, recipe in enumerate(recipes):
        if not isinstance(recipe, Mapping):
            raise CompressionError(f"recipe {index}: not an object")
        name = recipe.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}", name):
            raise CompressionError(
                f"recipe {index}: name must be 1-64 letters, digits, '-', '_', '.', '@', got {name!r}"
            )
        if name in seen:
            raise CompressionError(f"recipe {name!r}: two recipes have this name")
        seen.add(name)
        _check_recipe(name, recipe)
    drop = spec.get("max_metric_drop")
    if drop is not None and (not isinstance(drop, int | float) or not 0 <= drop <= 1):
        raise CompressionError(f"max_metric_drop must be between 0 and 1, got {drop!r}")
    return cast(CompressionSpec, dict(spec))


def _check_recipe(name: str, recipe: Mapping[str, Any]) -> None:
    def fail(problem: str) -> CompressionError:
        return CompressionError(f"recipe {name!r}: {problem}")

    unknown = sorted(set(recipe) - RECIPE_KEYS)
    if unknown:
        raise fail(f"unknown keys {', '.join(unknown)} (allowed: {', '.join(sorted(RECIPE_KEYS))})")
    if not any(key in recipe for key in ("prune", "distill", "quantize")):
        raise fail("nothing to do (give prune, distill or quantize)")
    if "prune" in recipe and "distill" in recipe:
        raise fail("prune or distill, not both (distill into a narrower student instead)")
    prune = recipe.get("prune")
    if prune is not None:
        if (
            not isinstance(prune, Mapping)
            or len(set(prune) & {"flops_ratio", "latency_ms"}) != 1
            or set(prune) - {"flops_ratio", "latency_ms"}
        ):
            raise fail("prune takes exactly one of flops_ratio or latency_ms")
        ratio = prune.get("flops_ratio")
        if ratio is not None and (not isinstance(ratio, int | float) or not 0.05 <= ratio < 1):
            raise fail(f"prune.flops_ratio must be in [0.05, 1), got {ratio!r}")
        latency = prune.get("latency_ms")
        if latency is not None and (not isinstance(latency, int | float) or latency <= 0):
            raise fail(f"prune.latency_ms must be a positive number, got {latency!r}")
    distill = recipe.get("distill")
    if distill is not None:
        if not isinstance(distill, Mapping) or not isinstance(distill.get("student"), str):
            raise fail("distill needs a student architecture, e.g. {'student': 'cnn_small'}")
        extra = sorted(set(distill) - {"student", "temperature", "alpha"})
        if extra:
            raise fail(f"distill: unknown keys {', '.join(extra)}")
        temperature = distill.get("temperature", 4.0)
        if not isinstance(temperature, int | float) or not 0 < temperature <= 50:
            raise fail(f"distill.temperature must be in (0, 50], got {temperature!r}")
        alpha = distill.get("alpha", 0.7)
        if not isinstance(alpha, int | float) or not 0 <= alpha <= 1:
            raise fail(f"distill.alpha must be in [0, 1], got {alpha!r}")
    quantize = recipe.get("quantize")
    if quantize is not None and quantize not in QUANTIZATIONS:
        raise fail(f"quantize must be one of {', '.join(QUANTIZATIONS)}, got {quantize!r}")
    epochs = recipe.get("fine_tune_epochs")
    if epochs is not None and (
        not isinstance(epochs, int) or isinstance(epochs, bool) or not 0 <= epochs <= MAX_FINE_TUNE_EPOCHS
    ):
        raise fail(f"fine_tune_epochs must be an integer in [0, {MAX_FINE_TUNE_EPOCHS}], got {epochs!r}")


def max_metric_drop(spec: Mapping[str, Any], report_kind: str) -> float:
    """The spec's tolerance for ``quantize="auto"``, else 0.02 for mAP and 0.005 for the rest."""
    given = spec.get("max_metric_drop")
    return float(given) if given is not None else DEFAULT_MAX_DROP.get(report_kind, DEFAULT_MAX_DROP_OTHER)


def headline(report: Mapping[str, Any]) -> tuple[str, float]:
    """The headline metric of an evaluation report: (name, value)."""
    kind = str(report.get("kind"))
    if kind not in HEADLINE_METRICS:
        raise ValueError(f"no headline metric for an evaluation report of kind {kind!r}")
    name = HEADLINE_METRICS[kind]
    return name, float(report[name])


def model_description(onnx_path: Path, manifest: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The preprocessing spec and class names of a model: ``preprocess.json`` / ``labels.json`` next
    to its ONNX, else the ONNX metadata Sampan's exports write, else (classes) the manifest's."""
    folder = onnx_path.parent
    preprocessing: dict[str, Any] = {}
    classes: list[str] | None = None
    if (folder / "preprocess.json").exists():
        preprocessing = json.loads((folder / "preprocess.json").read_text())
    if (folder / "labels.json").exists():
        classes = list(json.loads((folder / "labels.json").read_text()))
    if not preprocessing or classes is None:
        import onnx

        metadata = {
            p.key: p.value for p in onnx.load(str(onnx_path), load_external_data=False).metadata_props
        }
        if not preprocessing and "sampan.preprocessing" in metadata:
            preprocessing = json.loads(metadata["sampan.preprocessing"])
        if classes is None and "sampan.classes" in metadata:
            classes = list(json.loads(metadata["sampan.classes"]))
    if classes is None:
        classes = [str(c) for c in manifest.get("classes", [])]
    return preprocessing, classes


def evaluate_onnx(
    *, template: str, onnx: Path, manifest: Mapping[str, Any], preprocessing: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The template's evaluation report of ``onnx`` on the manifest's test split."""
    from workers.templates import registry

    evaluate = registry.get(template).load("evaluate")
    kwargs: dict[str, Any] = {"split": "test"}
    if preprocessing:
        kwargs["preprocessing"] = preprocessing
    report: dict[str, Any] = evaluate(onnx, manifest, **kwargs)
    return report


def summarize(
    onnx: Path, evaluation: Mapping[str, Any], target: TargetProfile, *, parent_value: float | None
) -> VariantSummary:
    """Size, parameters, FLOPs, precision and target latency of ``onnx`` with its headline metric."""
    from workers.compression.measure import count_flops, count_parameters, is_quantized
    from workers.deployment_targets import measure_latency, model_size

    metric, value = headline(evaluation)
    return {
        "size_bytes": model_size(onnx),
        "parameters": count_parameters(onnx),
        "flops": count_flops(onnx),
        "precision": "int8" if is_quantized(onnx) else "fp32",
        "latency": measure_latency(onnx, target),
        "metric": metric,
        "value": value,
        "delta": 0.0 if parent_value is None else value - parent_value,
    }


def _load_compressor(template: str) -> Callable[..., Any]:
    if template not in COMPRESSORS:
        raise CompressionError(
            f"no compressor for the {template!r} template; compressible: {', '.join(COMPRESSORS)}",
            code="compression_not_supported",
        )
    module_name, _, function = COMPRESSORS[template].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise CompressionError(
            f"the {template!r} template's compressor is not installed ({module_name})",
            code="compression_not_supported",
        ) from None
    compressor: Callable[..., Any] = getattr(module, function)
    return compressor


def _scaled(report: Report, start: float, end: float, prefix: str) -> Report:
    """A report whose fractions 0..1 map onto start..end of the job, messages prefixed."""

    def scaled(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        report(
            f"{prefix}: {message}" if message else prefix,
            fraction=None if fraction is None else start + (end - start) * max(0.0, min(1.0, fraction)),
            milestone=milestone,
            **metrics,
        )

    return scaled


def compress(
    *,
    template: str,
    parent_checkpoint: Path,
    parent_onnx: Path,
    manifest: dict[str, Any],
    spec: CompressionSpec,
    out_dir: Path,
    report: Report,
    teacher_checkpoint: Path | None = None,
) -> CompressionResult:
    """Make every recipe's variant of the parent model in ``out_dir/<recipe name>/``, evaluate and
    measure the parent and the variants alike, and return (and write as ``out_dir/result.json``)
    the :class:`CompressionResult`.

    >>> compress(template="image_classification", parent_checkpoint=Path("run/model.pt"),
    ...          parent_onnx=Path("run/model.onnx"), manifest=manifest, out_dir=Path("compressed"),
    ...          spec={"kind": "compression_spec", "version": 1,
    ...                "recipes": [{"name": "int8", "quantize": "static"}]},
    ...          report=silent_report)  # doctest: +SKIP
    """
    from workers.deployment_targets import target_profile

    spec = validate_spec(spec)
    compressor = _load_compressor(template)
    target = target_profile(spec.get("target") or DEFAULT_TARGET)
    parent_checkpoint, parent_onnx, out_dir = Path(parent_checkpoint), Path(parent_onnx), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    recipes = spec["recipes"]
    # the parent's evaluation and measurement take a share like one recipe's
    share = 1.0 / (len(recipes) + 1)
    report("evaluating the parent model", fraction=0.0, milestone=True)
    preprocessing, classes = model_description(parent_onnx, manifest)
    parent_evaluation = evaluate_onnx(
        template=template, onnx=parent_onnx, manifest=manifest, preprocessing=preprocessing
    )
    parent = summarize(parent_onnx, parent_evaluation, target, parent_value=None)
    variants: list[CompressionVariant] = []
    skipped: list[SkippedRecipe] = []
    for index, recipe in enumerate(recipes):
        start = share * (index + 1)
        name = recipe["name"]
        report(f"recipe {name} ({index + 1}/{len(recipes)})", fraction=start, milestone=True)
        variant_dir = out_dir / name
        try:
            checkpoint, onnx, params, notes = compressor(
                recipe=recipe,
                parent_checkpoint=parent_checkpoint,
                manifest=manifest,
                out_dir=variant_dir,
                report=_scaled(report, start, start + 0.9 * share, name),
                teacher_checkpoint=Path(teacher_checkpoint) if teacher_checkpoint else None,
                spec=spec,
            )
        except RecipeNotApplicable as exc:
            skipped.append({"name": name, "reason": str(exc)})
            continue
        onnx = Path(onnx)
        variant_preprocessing, variant_classes = model_description(onnx, manifest)
        variant_preprocessing = variant_preprocessing or preprocessing
        report(f"{name}: evaluating and measuring", fraction=start + 0.9 * share)
        evaluation = evaluate_onnx(
            template=template, onnx=onnx, manifest=manifest, preprocessing=variant_preprocessing
        )
        variants.append(
            {
                "name": name,
                "recipe": cast(CompressionRecipe, dict(recipe)),
                "checkpoint": None if checkpoint is None else str(checkpoint),
                "onnx": str(onnx),
                "preprocessing": cast(Any, variant_preprocessing),
                "classes": variant_classes or classes,
                "params": dict(params),
                "evaluation": cast(Any, evaluation),
                "summary": summarize(onnx, evaluation, target, parent_value=parent["value"]),
                "notes": list(notes),
            }
        )
    result: CompressionResult = {
        "kind": "compression_result",
        "version": COMPRESSION_RESULT_VERSION,
        "template": template,
        "parent": parent,
        "variants": variants,
        "skipped": skipped,
    }
    (out_dir / "result.json").write_text(json.dumps(result, indent=2))
    report("compression finished", fraction=1.0, milestone=True)
    return result
