"""DRF serializers built from the compute plane's typed contracts (``workers.contracts``).

A contract is defined once, as a TypedDict in workers/; ``contract_serializer`` turns it into a
named serializer, so the OpenAPI schema (and the TypeScript client and the SDK types generated
from it) describe exactly that definition, and request payloads of that shape are validated by it.

Supported: str, int, float, bool, None unions (``X | None``), unions of scalars, Literal (a choice),
list[...], dict[str, ...], nested TypedDicts (named serializers of their own) and NotRequired keys.
``Any`` is refused: a contract says what it holds (tests/test_contract_serializers.py).
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

_SCALARS: dict[Any, type[serializers.Field]] = {
    str: serializers.CharField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    bool: serializers.BooleanField,
}


class JSONScalarField(serializers.Field):
    """A JSON scalar of several types (``int | str`` ...), kept as it is."""

    def __init__(self, *, allowed: tuple[type, ...], **kwargs: Any) -> None:
        self.allowed = allowed
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) and bool not in self.allowed:
            self.fail("invalid")
        if not isinstance(data, self.allowed):
            self.fail("invalid")
        return data

    def to_representation(self, value: Any) -> Any:
        return value

    default_error_messages = {"invalid": "Not a valid value."}


class JSONScalarFieldSchema(OpenApiSerializerFieldExtension):
    """The OpenAPI type of a :class:`JSONScalarField`: one type, or ``oneOf`` them (``int | float``
    is a ``number``)."""

    target_class = JSONScalarField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        allowed = self.target.allowed
        options: list[dict[str, Any]] = []
        if float in allowed:
            options.append({"type": "number"})
        elif int in allowed:
            options.append({"type": "integer"})
        if str in allowed:
            options.append({"type": "string"})
        if bool in allowed:
            options.append({"type": "boolean"})
        return options[0] if len(options) == 1 else {"oneOf": options}


def _is_typed_dict(hint: Any) -> bool:
    return isinstance(hint, type) and typing.is_typeddict(hint)


def _field_for(hint: Any, **kwargs: Any) -> serializers.Field:
    origin = get_origin(hint)
    if origin in (Required, NotRequired):
        return _field_for(get_args(hint)[0], **kwargs)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) < len(get_args(hint)):
            kwargs["allow_null"] = True
        if len(options) == 1:
            return _field_for(options[0], **kwargs)
        if all(o in _SCALARS for o in options):
            return JSONScalarField(allowed=tuple(options), **kwargs)
        raise TypeError(f"unsupported union in a contract: {hint!r}")
    if origin is Literal:
        choices = list(get_args(hint))
        return serializers.ChoiceField(choices=[(c, c) for c in choices], **kwargs)
    if origin is list:
        (item,) = get_args(hint)
        if _is_typed_dict(item):
            return contract_serializer(item)(many=True, **kwargs)
        return serializers.ListField(child=_field_for(item), **kwargs)
    if origin is dict:
        key, value = get_args(hint)
        if key is not str:
            raise TypeError(f"contract dict keys must be str: {hint!r}")
        return serializers.DictField(child=_field_for(value), **kwargs)
    if _is_typed_dict(hint):
        return contract_serializer(hint)(**kwargs)
    if hint in _SCALARS:
        if hint is str:
            kwargs.setdefault("allow_blank", True)
            kwargs.setdefault("trim_whitespace", False)
        return _SCALARS[hint](**kwargs)
    if hint is Any:
        raise TypeError("a contract field may not be Any: say what it holds")
    raise TypeError(f"unsupported type in a contract: {hint!r}")


@cache
def contract_serializer(contract: type) -> type[serializers.Serializer]:
    """The serializer class for a TypedDict contract, named after it (its OpenAPI component name)."""
    if not _is_typed_dict(contract):
        raise TypeError(f"{contract!r} is not a TypedDict")
    hints = get_type_hints(contract, include_extras=True)
    required = contract.__required_keys__  # type: ignore[attr-defined]
    fields: dict[str, Any] = {}
    for name, hint in hints.items():
        # Python 3.11 misses NotRequired in __required_keys__ under postponed annotations: read the hint.
        optional = get_origin(hint) is NotRequired or (
            name not in required and get_origin(hint) is not Required
        )
        fields[name] = _field_for(hint, required=not optional)
    attrs: dict[str, Any] = {**fields, "__doc__": contract.__doc__, "__module__": __name__}
    return type(f"{contract.__name__}Serializer", (serializers.Serializer,), attrs)


class ContractJSONField(serializers.JSONField):
    """Answers the stored JSON as it is; its OpenAPI schema is ``contract_schema`` (``contract_field``)."""

    contract_schema: Any = None


class ContractJSONFieldSchema(OpenApiSerializerFieldExtension):
    """A contract field's schema: a reference to the contract's component, or a union of contracts
    inlined as ``oneOf`` with its ``kind`` discriminator. Inlined, not referenced: a reference
    would be wrapped in ``allOf`` (for readOnly, nullable, description), and openapi-typescript
    reads ``allOf`` of a discriminated union as inheritance and drops ``kind`` from its type."""

    target_class = ContractJSONField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        from drf_spectacular.utils import PolymorphicProxySerializer

        schema = self.target.contract_schema
        if isinstance(schema, PolymorphicProxySerializer):
            return auto_schema._map_serializer(schema, direction)
        return auto_schema.resolve_serializer(schema, direction).ref


def contract_field(schema: Any, **kwargs: Any) -> serializers.JSONField:
    """A read-only field that answers the stored JSON as it is, described in the OpenAPI schema by
    ``schema``: a contract's serializer (``contract_serializer(X)``) or a union of them (drf-spectacular's
    ``PolymorphicProxySerializer`` switching on ``kind``). For stored payloads the compute plane
    produced: nothing is dropped or re-encoded on the way out."""
    field_class = type("ContractJSONField", (ContractJSONField,), {"contract_schema": schema})
    return field_class(read_only=True, **kwargs)


# Unions whose members overlap: an image request ``{"instances": [{"image": ...}]}`` is both an
# ImageInstances and a DetectionInstances (whose options are optional), and table rows are free maps,
# so "exactly one member" (oneOf) would refuse every valid body; "at least one" (anyOf) is the truth.
# The model's template says which shape it takes (workers.contracts.prediction).
OVERLAPPING_UNIONS = ("PredictRequestRequest",)


def overlapping_unions_as_any_of(result: dict, generator, request, public) -> dict:
    """drf-spectacular hook: the components in ``OVERLAPPING_UNIONS`` become ``anyOf``."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in OVERLAPPING_UNIONS:
        schema = schemas.get(name)
        if schema is not None and "oneOf" in schema:
            schema["anyOf"] = schema.pop("oneOf")
    return result
