"""The SDK's payload types (sdk/src/sampan/_schema.py) are generated from the committed OpenAPI
schema by sdk/tools/generate_types.py, like the TypeScript client: the committed module is current
(tests/test_openapi_schema.py checks that openapi.json itself is), and what the generator writes is
valid, strictly type-checked Python that reads each schema construct the way the server answers it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "frontend" / "openapi.json"
MODULE = REPO / "sdk" / "src" / "sampan" / "_schema.py"


def generator():
    spec = importlib.util.spec_from_file_location(
        "generate_types", REPO / "sdk" / "tools" / "generate_types.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_sdk_types_are_current():
    fresh = generator().render(json.loads(SCHEMA.read_text()))
    assert MODULE.read_text() == fresh, "sdk/src/sampan/_schema.py is stale: run `make api-client`"


def test_every_schema_component_is_a_public_type_of_the_sdk():
    import sampan.types

    components = json.loads(SCHEMA.read_text())["components"]["schemas"]
    assert set(components) <= set(sampan.types.__all__) <= set(vars(sampan.types))


SMALL = {
    "openapi": "3.0.3",
    "components": {
        "schemas": {
            "ColourEnum": {"enum": ["red", "green"], "type": "string", "description": "* `red` - Red"},
            "NullEnum": {"enum": [None]},
            "Pair": {
                "type": "object",
                "properties": {"a": {"type": "number", "nullable": True}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
            "Row": {
                "type": "object",
                "description": "One class's row.",
                "properties": {
                    "class": {"type": "string"},
                    "f1": {"$ref": "#/components/schemas/Pair"},
                    "note": {"type": "string"},
                },
                "required": ["class", "f1"],
            },
            "Report": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["report"]},
                    "colour": {"allOf": [{"$ref": "#/components/schemas/ColourEnum"}], "nullable": True},
                    "rows": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
                    "scores": {"type": "object", "additionalProperties": {"type": "number"}},
                    "extra": {"type": "object", "additionalProperties": {}},
                    "free": {"description": "Anything the server stores."},
                    "counts": {
                        "type": "object",
                        "properties": {"total": {"type": "integer"}},
                        "required": ["total"],
                    },
                    "secret": {"type": "string", "writeOnly": True},
                    "a_long_union_of_the_payloads_by_their_kind": {
                        "oneOf": [
                            {"$ref": f"#/components/schemas/{n}"}
                            for n in ("Pair", "Row", "ColourEnum", "Report")
                        ]
                        + [{"type": "array", "items": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}],
                        "nullable": True,
                    },
                },
                "required": ["kind", "colour", "rows", "scores", "extra", "free", "counts", "secret"],
            },
            "Either": {
                "oneOf": [{"$ref": "#/components/schemas/Report"}, {"$ref": "#/components/schemas/Pair"}],
                "discriminator": {"propertyName": "kind"},
            },
        }
    },
}


def test_each_construct_is_translated():
    text = generator().render(SMALL)
    assert 'ColourEnum: TypeAlias = Literal["red", "green"]' in text
    assert "* `red`" not in text  # an enum's description only repeats its values
    assert 'NullEnum: TypeAlias = "None"' in text
    assert "    a: float | None\n    b: float\n" in text
    # "class" is no Python name: the functional form, types quoted, the optional key NotRequired
    assert '    "Row",\n' in text and '"class": "str",' in text and '"note": "NotRequired[str]",' in text
    assert "# One class's row." in text
    assert '    kind: Literal["report"]\n' in text
    assert "    colour: ColourEnum | None\n" in text
    assert "    rows: list[Row]\n" in text
    assert "    scores: dict[str, float]\n" in text and "    extra: dict[str, Any]\n" in text
    assert "    # Anything the server stores.\n    free: Any\n" in text
    assert "class ReportCounts(TypedDict):\n    total: int\n" in text and "    counts: ReportCounts\n" in text
    assert "    secret: NotRequired[str]\n" in text  # never in an answer
    # a union too long for one line: a member a line, a nested union kept whole
    assert (
        "    a_long_union_of_the_payloads_by_their_kind: NotRequired[\n        Pair\n        | Row\n"
        "        | ColourEnum\n        | Report\n        | list[int | str]\n        | None\n    ]\n"
    ) in text
    assert 'Either: TypeAlias = "Report | Pair"' in text
    assert '__all__ = [\n    "ColourEnum",\n    "Either",' in text and '    "ReportCounts",\n' in text


def test_a_schema_it_cannot_translate_is_refused():
    gen = generator()
    broken = {"components": {"schemas": {"A": {"type": "object", "properties": {"b": {"$ref": "#/x/B"}}}}}}
    with pytest.raises(gen.SchemaError, match="unresolved"):
        gen.render(broken)
    with pytest.raises(gen.SchemaError, match="Python name"):
        gen.render({"components": {"schemas": {"class": {"type": "string"}}}})


def test_the_generated_module_imports_and_type_checks_strictly(tmp_path):
    (tmp_path / "small_schema.py").write_text(generator().render(SMALL))
    (tmp_path / "use.py").write_text(
        textwrap.dedent(
            """
            from small_schema import Either, Report, Row

            def best(report: Report) -> float | None:
                return max((row["f1"]["a"] or 0.0 for row in report["rows"]), default=None)

            def name(row: Row) -> str:
                return row["class"] + row.get("note", "")

            def either(report: Report) -> Either:
                return report

            def wrong(report: Report) -> int:
                return report["counts"]["totl"]
            """
        )
    )
    imported = subprocess.run(
        [sys.executable, "-c", "import small_schema, use"], cwd=tmp_path, capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "small_schema.py", "use.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert errors and all(line.startswith("use.py:14:") for line in errors), checked.stdout
    assert any('has no key "totl"' in line for line in errors), checked.stdout
