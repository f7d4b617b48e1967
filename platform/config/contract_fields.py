"""Serializer fields for contract payloads several apps carry (``workers.contracts``).

- :class:`ParamValuesField`: a run's parameter values (``params``, ``fixed_params``, a trial's
  ``params``), ``{name: int | float | str | bool}``. On input it takes any object, as before: the
  template checks every value and names the bad one (``params.epochs``) in better words than a
  type check could.
- :class:`PreprocessingField`: a model's preprocessing spec, one of the ``image``/``text``/``tabular``
  contracts told apart by ``kind`` (specs stored before ``kind`` existed are image specs and are
  answered with it filled in).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from config.contracts import ContractJSONField, JSONScalarField, contract_serializer
from workers.contracts.preprocessing import (
    ImagePreprocessing,
    TablePreprocessing,
    TextPreprocessing,
    with_kind,
)

PARAM_VALUE_TYPES = (int, float, str, bool)


@extend_schema_field(serializers.DictField(child=JSONScalarField(allowed=PARAM_VALUE_TYPES)))
class ParamValuesField(serializers.DictField):
    """``{parameter: value}``; values are numbers, strings or booleans."""


PREPROCESSING_SCHEMA = PolymorphicProxySerializer(
    component_name="Preprocessing",
    serializers={
        "image": contract_serializer(ImagePreprocessing),
        "text": contract_serializer(TextPreprocessing),
        "tabular": contract_serializer(TablePreprocessing),
    },
    resource_type_field_name="kind",
)


class PreprocessingField(ContractJSONField):
    """A model's preprocessing spec as stored, ``kind``/``version`` filled in for older specs; null
    when the model has none."""

    contract_schema = PREPROCESSING_SCHEMA

    def to_representation(self, value: Any) -> Any:
        return with_kind(value) if value else None
