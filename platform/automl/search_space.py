"""A study's search space, validated by a serializer of its contract
(``workers.contracts.templates.SearchDimension``).

:class:`SearchDimensionSerializer` checks one dimension's types (the contract's serializer) and then
its meaning against the template in its context: the parameter exists, is neither fixed nor the seed
nor searched twice, the type fits the parameter, and every bound or choice is a value the trainer
accepts together with the preset and the fixed parameters. :func:`search_space_validate` runs it
over a list and refuses the first bad field by its path (``search_space[2].low``), as a domain error.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from config.contracts import JSONScalarField, contract_serializer
from config.exceptions import InvalidInput
from rest_framework import serializers
from rest_framework.settings import api_settings

from workers.contracts.templates import SearchDimension
from workers.templates import TemplateParamError

SearchDimensionContract = contract_serializer(SearchDimension)

# A dimension every template's space may hold: the trial measures and serves its ONNX in int8
# (``workers.compression.quantize_onnx``) or as trained.
QUANTIZATION = "quantization"
QUANTIZATION_CHOICES = ("none", "int8")


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


class SearchDimensionSerializer(SearchDimensionContract):  # type: ignore[misc,valid-type]
    """One dimension. Context: ``template``, ``preset``, ``fixed_params`` and ``seen`` (the names of
    the dimensions before this one, which it adds its own to)."""

    log = JSONScalarField(allowed=(bool,), required=False)  # strictly true or false

    def validate(self, attrs: dict[str, Any]) -> SearchDimension:
        template = self.context["template"]
        fixed_params: dict[str, Any] = self.context["fixed_params"]
        seen: set[str] = self.context["seen"]
        params = {p.name: p for p in template.params}

        def bad(field: str, message: str) -> serializers.ValidationError:
            return serializers.ValidationError({field: [message]})

        name = attrs["name"]
        if name == QUANTIZATION:  # not a trainer's parameter: the trial quantizes its ONNX after training
            if name in seen:
                raise bad("name", f"{name!r} appears twice in the search space.")
            seen.add(name)
            choices = attrs.get("choices")
            if attrs["type"] != "categorical" or not choices:
                raise bad(
                    "type", f"{name} is categorical with choices from {', '.join(QUANTIZATION_CHOICES)}."
                )
            if len(set(map(str, choices))) != len(choices) or any(
                c not in QUANTIZATION_CHOICES for c in choices
            ):
                raise bad("choices", f"Distinct choices from {', '.join(QUANTIZATION_CHOICES)}.")
            return {"name": name, "type": "categorical", "choices": list(choices)}
        if name not in params:
            raise bad("name", f"Unknown parameter {name!r}; {template.name} has {', '.join(sorted(params))}.")
        if name in seen:
            raise bad("name", f"{name!r} appears twice in the search space.")
        if name in fixed_params:
            raise bad("name", f"{name!r} is also a fixed parameter; search it or fix it, not both.")
        if name == "seed":
            raise bad("name", "The seed is the study's own setting, not a searched parameter.")
        seen.add(name)
        kind = attrs["type"]
        param = params[name]
        entry: SearchDimension
        if kind == "categorical":
            choices = attrs.get("choices")
            if not choices:
                raise bad("choices", "A categorical dimension needs a non-empty list of choices.")
            if len({repr(c) for c in choices}) != len(choices):
                raise bad("choices", "Choices must be distinct.")
            for choice in choices:
                try:
                    param.validate(choice)
                except TemplateParamError as exc:
                    raise bad("choices", f"Choice {choice!r}: {name} {exc.message}.") from None
            entry = {"name": name, "type": "categorical", "choices": list(choices)}
            corners = list(choices)
        else:
            if param.kind not in ("int", "float") or (kind == "float" and param.kind == "int"):
                raise bad(
                    "type",
                    f"{name} is a {param.kind} parameter; use type "
                    f"{'categorical' if param.kind not in ('int', 'float') else param.kind}.",
                )
            low, high, log, step = (
                attrs.get("low"),
                attrs.get("high"),
                attrs.get("log", False),
                attrs.get("step"),
            )
            for field, value in (("low", low), ("high", high)):
                if not _is_number(value) or (kind == "int" and not float(value).is_integer()):
                    raise bad(
                        field, f"Must be {'an integer' if kind == 'int' else 'a number'}, got {value!r}."
                    )
            assert low is not None and high is not None
            if not low < high:
                raise bad("high", f"Must be greater than low ({low}), got {high}.")
            if log and low <= 0:
                raise bad("low", "A log-scale dimension needs low > 0.")
            if step is not None:
                if not _is_number(step) or step <= 0 or (kind == "int" and not float(step).is_integer()):
                    raise bad(
                        "step",
                        f"Must be a positive {'integer' if kind == 'int' else 'number'}, got {step!r}.",
                    )
                if log and not (kind == "int" and step == 1):
                    raise bad("step", "A log-scale dimension cannot have a step.")
            cast = int if kind == "int" else float
            for field, value in (("low", low), ("high", high)):
                try:
                    param.validate(cast(value))
                except TemplateParamError as exc:
                    raise bad(field, f"{name} {exc.message}.") from None
            entry = {"name": name, "type": kind, "low": cast(low), "high": cast(high), "log": log}
            if step is not None:
                entry["step"] = cast(step)
            corners = [cast(low), cast(high)]
        for value in corners:  # the template's cross-checks (e.g. warm-up shorter than the epochs)
            try:
                template.validate_params(self.context["preset"], {**fixed_params, name: value})
            except TemplateParamError as exc:
                raise bad(
                    "name", f"With {name} = {value!r} the run is invalid: {exc.field} {exc.message}."
                ) from None
        return entry


def _first_error(errors: Any, where: str) -> tuple[str, str]:
    """The path and message of the first error in a serializer's (nested) errors."""
    if isinstance(errors, dict):
        key, value = next(iter(errors.items()))
        if key in ("non_field_errors", api_settings.NON_FIELD_ERRORS_KEY):
            return _first_error(value, where)
        if isinstance(key, int):  # a list field's item: the field is named, not the item
            return _first_error(value, where)
        return _first_error(value, f"{where}.{key}")
    if isinstance(errors, list):
        return _first_error(errors[0], where)
    return where, str(errors)


def search_space_validate(
    *, template, preset: str, fixed_params: dict[str, Any], search_space: Any
) -> list[SearchDimension]:
    """The search space in canonical form, or :class:`InvalidInput` naming the bad field
    (``search_space[2].low``).

    e.g. ``search_space_validate(template=registry.get("image_classification"), preset="fast",
    fixed_params={"seed": 0}, search_space=[{"name": "epochs", "type": "int", "low": 2, "high": 4}])``
    """
    if not isinstance(search_space, list) or not search_space:
        raise _refused("search_space", "Give a non-empty list of dimensions.")
    context = {"template": template, "preset": preset, "fixed_params": fixed_params, "seen": set()}
    clean: list[SearchDimension] = []
    for index, dimension in enumerate(search_space):
        serializer = SearchDimensionSerializer(data=dimension, context=context)
        if not serializer.is_valid():
            raise _refused(*_first_error(serializer.errors, f"search_space[{index}]"))
        clean.append(serializer.validated_data)
    return clean


def _refused(field: str, message: str) -> InvalidInput:
    refused = InvalidInput(f"{field}: {message}")
    refused.details = {field: [message]}  # as a form error: the field's messages, the path as the key
    return refused
