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
