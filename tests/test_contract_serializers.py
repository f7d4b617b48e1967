"""config.contracts builds DRF serializers from the compute plane's TypedDict contracts: the
fields, requiredness, nullability and nesting follow the TypedDict, and bad payloads are refused."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

import pytest
from config.contracts import contract_serializer


class Pair(TypedDict):
    a: float | None
    b: float | None


class Row(TypedDict):
    name: str
    ref: int | str


class Example(TypedDict):
    kind: Literal["example"]
    version: int
    pairs: dict[str, Pair]
    rows: list[Row]
    tags: list[str]
    note: NotRequired[str]


class Loose(TypedDict):
    anything: Any


GOOD = {
    "kind": "example",
    "version": 1,
    "pairs": {"accuracy": {"a": 1, "b": None}},
    "rows": [{"name": "猫", "ref": 3}, {"name": "dog", "ref": "s-4"}],
    "tags": ["x"],
}


def test_a_good_payload_validates_and_keeps_its_values():
    serializer = contract_serializer(Example)(data=GOOD)
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data["pairs"]["accuracy"] == {"a": 1.0, "b": None}
    assert [r["ref"] for r in serializer.validated_data["rows"]] == [3, "s-4"]
    assert "note" not in serializer.validated_data


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "other"}, "kind"),
        ({"version": "one"}, "version"),
        ({"pairs": {"accuracy": {"a": "high", "b": 1}}}, "pairs"),
        ({"rows": [{"name": "x", "ref": [1]}]}, "rows"),
        ({"tags": "x"}, "tags"),
    ],
)
def test_a_bad_payload_names_the_field(change, field):
    serializer = contract_serializer(Example)(data={**GOOD, **change})
    assert not serializer.is_valid()
    assert field in serializer.errors


def test_a_missing_required_key_is_refused_and_not_required_ones_may_be_absent():
    payload = dict(GOOD)
    del payload["version"]
    serializer = contract_serializer(Example)(data=payload)
    assert not serializer.is_valid()
    assert "version" in serializer.errors
    assert contract_serializer(Example)().fields["note"].required is False


def test_the_serializer_is_named_after_the_contract_and_built_once():
    assert contract_serializer(Example).__name__ == "ExampleSerializer"
    assert contract_serializer(Example) is contract_serializer(Example)
    nested = contract_serializer(Example)().fields["rows"]
    assert type(nested.child).__name__ == "RowSerializer"


def test_any_is_refused():
    with pytest.raises(TypeError, match="may not be Any"):
        contract_serializer(Loose)
