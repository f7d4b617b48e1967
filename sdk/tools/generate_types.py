"""Write the SDK's payload types from the platform's OpenAPI schema.

    python sdk/tools/generate_types.py [frontend/openapi.json] [sdk/src/sampan/_schema.py]

Every component of ``components.schemas`` becomes a ``TypedDict`` (objects) or a type alias (enums
as ``Literal``, ``oneOf`` as a union, free maps as ``dict``), so ``Resource.data`` and every answer
the SDK returns are typed from the one schema that the TypeScript client is also generated from.
``make api-client`` runs it after regenerating openapi.json; tests/sdk/test_sdk_schema_types.py
fails while the committed module is stale. Pure standard library: the SDK stays pure HTTP, with no
pydantic or other run-time dependency.

Rules: a required property is a plain key, an optional one (or one the server never answers,
``writeOnly``) is ``NotRequired[...]``; ``nullable`` adds ``| None``; an untyped value
(``{}``, a ``JSONField`` left free-form) is ``Any``. A property whose name is not a Python
identifier (``class``) makes its class use the functional ``TypedDict("Name", {...})`` form with
the types quoted, so nothing is evaluated at import time.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SCHEMA = REPO / "frontend" / "openapi.json"
DEFAULT_OUTPUT = REPO / "sdk" / "src" / "sampan" / "_schema.py"
LINE = 110  # ruff's line length (pyproject.toml)
RESERVED = {"Any", "Literal", "NotRequired", "TypeAlias", "TypedDict", "TYPE_CHECKING", "annotations", "sys"}

HEADER = '''\
"""The platform's payloads as types, generated from its OpenAPI schema (frontend/openapi.json)
by sdk/tools/generate_types.py: do not edit by hand, run ``make api-client``.

Each schema component is a ``TypedDict`` (or an alias: ``Literal`` enums, unions); the SDK's
resources hold them in ``data`` and its methods answer them. They describe plain JSON: nothing
here checks or converts a payload at run time. Import them from ``sampan.types``.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TypeAlias, TypedDict

# the SDK supports Python 3.10, whose typing lacks NotRequired; the annotations below are never
# evaluated there (from __future__ import annotations), so the name is only for type checkers
if sys.version_info >= (3, 11):  # noqa: UP036
    from typing import NotRequired
else:
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from typing_extensions import NotRequired  # noqa: UP035
'''


class SchemaError(ValueError):
    """The schema uses a construct this generator does not translate."""


def _camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def _comment(text: str | None, indent: str) -> list[str]:
    """The first paragraph of a description as comment lines."""
    if not text:
        return []
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    width = LINE - len(indent) - 2
    return [f"{indent}# {line}" for line in textwrap.wrap(paragraph, width, break_on_hyphens=False)]


def _literal(values: list[Any]) -> str:
    parts = [json.dumps(v, ensure_ascii=False) for v in values if v is not None]
    text = f"Literal[{', '.join(parts)}]" if parts else "None"
    if parts and None in values:
        text += " | None"
    return text


def _union(types: list[str]) -> str:
    members: list[str] = []
    for text in types:
        for part in text.split(" | "):
            if part not in members:
                members.append(part)
    if "Any" in members:
        return "Any"
    if "None" in members:  # None last, as written by hand
        members = [m for m in members if m != "None"] + ["None"]
    return " | ".join(members)


class Generator:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.components: dict[str, Any] = schema.get("components", {}).get("schemas", {})
        for name in self.components:
            if not name.isidentifier() or keyword.iskeyword(name) or name in RESERVED:
                raise SchemaError(f"component {name!r} cannot be a Python name")
        self.blocks: list[str] = []
        self.names: set[str] = set(self.components)

    # --- types ------------------------------------------------------------------------------------

    def type_of(self, node: Any, owner: str, field: str) -> str:
        """The Python type of a schema node; inline objects with properties become classes."""
        if node is True or node == {} or node is None:
            return "Any"
        if not isinstance(node, dict):
            raise SchemaError(f"{owner}.{field}: not a schema: {node!r}")
        text = self._type_of(node, owner, field)
        if node.get("nullable") and text != "Any":
            text = _union([text, "None"])
        return text

    def _type_of(self, node: dict[str, Any], owner: str, field: str) -> str:
        if "$ref" in node:
            return self._ref(node["$ref"])
        for combinator in ("allOf", "oneOf", "anyOf"):
            if combinator in node:
                parts = [self.type_of(item, owner, field) for item in node[combinator]]
                if combinator == "allOf" and len(parts) != 1:
                    raise SchemaError(f"{owner}.{field}: allOf of {len(parts)} schemas")
                return _union(parts)
        if "enum" in node:
            return _literal(node["enum"])
        kind = node.get("type")
        if isinstance(kind, list):
            raise SchemaError(f"{owner}.{field}: a list of types (OpenAPI 3.1) is not translated")
        if kind == "string":
            return "bytes" if node.get("format") == "binary" else "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "array":
            return f"list[{self.type_of(node.get('items', {}), owner, field)}]"
        if kind == "object" or "properties" in node or "additionalProperties" in node:
            if node.get("properties"):
                name = self._nested_name(owner, field)
                self.blocks.append(self.typed_dict(name, node))
                return name
            return f"dict[str, {self.type_of(node.get('additionalProperties', {}), owner, field)}]"
        if kind is None:
            return "Any"
        raise SchemaError(f"{owner}.{field}: type {kind!r} is not translated")

    def _ref(self, ref: str) -> str:
        prefix = "#/components/schemas/"
        if not ref.startswith(prefix) or ref[len(prefix) :] not in self.components:
            raise SchemaError(f"unresolved $ref {ref!r}")
        return ref[len(prefix) :]

    def _nested_name(self, owner: str, field: str) -> str:
        name = owner + _camel(field)
        if name in self.names or name in RESERVED:
            raise SchemaError(f"inline object {owner}.{field} would be named {name}, which is taken")
        self.names.add(name)
        return name

    # --- declarations -----------------------------------------------------------------------------

    def typed_dict(self, name: str, node: dict[str, Any]) -> str:
        required = set(node.get("required", []))
        fields: list[tuple[str, str, str | None]] = []
        for key, prop in node["properties"].items():
            text = self.type_of(prop, name, key)
            optional = key not in required or (isinstance(prop, dict) and prop.get("writeOnly"))
            fields.append((key, f"NotRequired[{text}]" if optional else text, _description(prop)))
        lines = _comment(node.get("description"), "")
        if all(key.isidentifier() and not keyword.iskeyword(key) for key, _, _ in fields):
            lines.append(f"class {name}(TypedDict):")
            for key, text, description in fields:
                lines += _comment(description, "    ")
                lines += _field_lines(key, text)
            return "\n".join(lines)
        # a key like "class": the functional form, its types quoted (not evaluated at import time)
        lines.append(f"{name} = TypedDict(")
        lines.append(f"    {json.dumps(name)},")
        lines.append("    {")
        for key, text, description in fields:
            lines += _comment(description, "        ")
            lines.append(f"        {json.dumps(key)}: {json.dumps(text)},")
        lines.append("    },")
        lines.append(")")
        return "\n".join(lines)

    def alias(self, name: str, node: dict[str, Any]) -> str:
        text = self.type_of(node, name, "")
        # an enum's description only lists its values (drf-spectacular's "* `a` - A")
        lines = [] if "enum" in node else _comment(node.get("description"), "")
        if text.startswith("Literal[") and text.endswith("]"):
            one_line = f"{name}: TypeAlias = {text}"
            if len(one_line) <= LINE:
                return "\n".join([*lines, one_line])
            values = [json.dumps(v, ensure_ascii=False) for v in node["enum"]]
            return "\n".join([*lines, f"{name}: TypeAlias = Literal[", *[f"    {v}," for v in values], "]"])
        line = f"{name}: TypeAlias = {json.dumps(text)}"  # quoted: may name a class declared below
        if len(line) <= LINE:
            return "\n".join([*lines, line])
        if len(json.dumps(text)) + 4 <= LINE:  # as ruff format puts it
            return "\n".join([*lines, f"{name}: TypeAlias = (", f"    {json.dumps(text)}", ")"])
        # a long union: one quoted piece a member, joined by the parser into one string
        members = _top_level_members(text)
        pieces = [json.dumps(members[0]), *(json.dumps(f" | {m}") for m in members[1:])]
        if len(members) < 2 or any(len(piece) + 4 > LINE for piece in pieces):
            raise SchemaError(f"alias {name} is longer than {LINE} characters")
        return "\n".join([*lines, f"{name}: TypeAlias = (", *[f"    {piece}" for piece in pieces], ")"])

    def render(self) -> str:
        for name, node in self.components.items():
            if isinstance(node, dict) and node.get("properties") and "$ref" not in node:
                self.blocks.append(self.typed_dict(name, node))
            else:
                self.blocks.append(self.alias(name, node if isinstance(node, dict) else {}))
        names = sorted(self.names)  # what sampan.types re-exports
        exports = "__all__ = [\n" + "".join(f"    {json.dumps(name)},\n" for name in names) + "]"
        body = HEADER + "".join(f"\n\n{block}\n" for block in [*self.blocks, exports])
        too_long = [line for line in body.splitlines() if len(line) > LINE]
        if too_long:
            raise SchemaError(f"lines over {LINE} characters: {too_long[:3]}")
        return body


def _top_level_members(text: str) -> list[str]:
    """``A | list[B | C] | None`` -> ``["A", "list[B | C]", "None"]``."""
    members: list[str] = []
    depth = start = 0
    for index, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        if depth == 0 and text.startswith(" | ", index):
            members.append(text[start:index])
            start = index + 3
    return [*members, text[start:]]


def _field_lines(key: str, text: str) -> list[str]:
    """A TypedDict field; a union too long for one line gets one member a line (a long union of
    contracts, e.g. a job's params by kind)."""
    line = f"    {key}: {text}"
    if len(line) <= LINE:
        return [line]
    head, inner, tail = "(", text, ")"
    if text.startswith("NotRequired[") and text.endswith("]"):
        head, inner, tail = "NotRequired[", text[len("NotRequired[") : -1], "]"
    members = _top_level_members(inner)
    if len(members) < 2:
        return [line]
    return [
        f"    {key}: {head}",
        f"        {members[0]}",
        *[f"        | {m}" for m in members[1:]],
        f"    {tail}",
    ]


def _description(prop: Any) -> str | None:
    return prop.get("description") if isinstance(prop, dict) else None


def render(schema: dict[str, Any]) -> str:
    """The text of sampan/_schema.py for an OpenAPI schema."""
    return Generator(schema).render()


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT_SCHEMA
    target = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    text = render(json.loads(source.read_text(encoding="utf-8")))
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(REPO) if target.is_relative_to(REPO) else target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
