"""Every error code the backend can answer has a translated message in the UI's `errors` catalogs.

API errors stay English and machine-readable (`{"error": {"code", "message", "details"}}`); the web
app shows the `errors` namespace's message for a known `code` (frontend/src/lib/notifications.ts),
in English or Chinese, and falls back to the server's text only for a code it does not know. This
test collects the codes statically, so a new `code="…"` without a translation fails here:

- platform/ and workers/ (the hosted prediction API answers the predictors' codes): `code="…"`
  keywords, `default_code = "…"` class attributes, positional code arguments of every function or
  class whose signature names a `code` parameter (`error_response(status, "code", …)`,
  `ArchiveRejected("code", …)`), `code = "…"` assignments, `(code, message, details)` tuples and
  f-string codes expanded through the values their placeholder takes (DYNAMIC below);
- Django REST framework's exception classes' `default_code` (what DRF answers on its own);
- the web client's own codes (frontend/src/api/client.ts: `network_error`, `http_<status>` …).
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

import pytest
from rest_framework import exceptions as drf_exceptions

REPO = Path(__file__).resolve().parents[1]
SCANNED = [REPO / "platform", REPO / "workers"]
LOCALES = REPO / "frontend" / "src" / "i18n" / "locales"
CLIENT = REPO / "frontend" / "src" / "api" / "client.ts"
CODE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")

# The HTTP statuses the client names `http_<status>` when the answer has no error envelope (a proxy's
# page, a gateway timeout): the ones a user meets.
CLIENT_HTTP_STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 414, 429, 431, 500, 502, 503, 504]

# Codes built at run time from a template: the template and the values its placeholder takes.
DYNAMIC = {
    # datasets.services.table_imports._named_column(…, field, …): the mapped columns
    "no_{field}": ["text_column", "label_column", "target_column"],
    # workers.serving.standalone: the server package's answers without an envelope of their own
    "http_{code}": [str(status) for status in CLIENT_HTTP_STATUSES],
}

# Strings passed where a `code` goes that are not codes (an HTTP status passed as `code` …).
NOT_CODES: set[str] = set()


def python_files() -> list[Path]:
    files = []
    for root in SCANNED:
        for path in sorted(root.rglob("*.py")):
            parts = set(path.relative_to(REPO).parts)
            if parts & {"tests", "migrations", "node_modules", ".venv"} or path.name.startswith("test_"):
                continue
            files.append(path)
    return files


def _strings(node: ast.AST | None, constants: dict[str, str] | None = None) -> list[str]:
    """The string constants an expression can be: a literal, either side of `a if c else b`, a
    module-level constant of the file (`code=LABEL_TAKEN`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and constants and node.id in constants:
        return [constants[node.id]]
    if isinstance(node, ast.IfExp):
        return _strings(node.body, constants) + _strings(node.orelse, constants)
    if isinstance(node, ast.JoinedStr):
        template = "".join(
            part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
            for part in node.values
        )
        if template in DYNAMIC:
            return [
                template.replace(template[template.index("{") : template.index("}") + 1], value)
                for value in DYNAMIC[template]
            ]
        raise AssertionError(f"an error code built at run time: {template!r}; list its values in DYNAMIC")
    return []


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def code_parameters(trees: list[ast.Module]) -> dict[str, int]:
    """name -> index of the positional `code` argument, for every function and class whose
    signature has a parameter named `code` (a class by its __init__, `self` not counted)."""
    found: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("__"):
                func = node
                if isinstance(node, ast.ClassDef):
                    inits = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
                    if not inits:
                        continue
                    func = inits[0]
                args = [a.arg for a in func.args.posonlyargs + func.args.args]
                if args and args[0] in ("self", "cls"):
                    args = args[1:]
                if "code" in args:
                    found[node.name] = args.index("code")
                elif any(a.arg == "code" for a in func.args.kwonlyargs):
                    found.setdefault(node.name, -1)
    return found


def backend_codes() -> dict[str, str]:
    """code -> where it was first seen (file:line)."""
    trees = {path: ast.parse(path.read_text(), str(path)) for path in python_files()}
    takes_code = code_parameters(list(trees.values()))
    # `code` parameters that are not error codes: HTTP status codes.
    takes_code.pop("send_error", None)
    takes_code.pop("_answer", None)
    # A quality report's findings (workers.data_quality.findings.finding(code, ...)): their codes are
    # FINDING_CODES, translated under datasets:quality.codes (test_every_finding_code_is_explained).
    takes_code.pop("finding", None)
    codes: dict[str, str] = {}

    def add(values: list[str], path: Path, node: ast.AST) -> None:
        for value in values:
            if CODE.match(value) and value not in NOT_CODES:
                codes.setdefault(value, f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}")

    for path, tree in trees.items():
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in node.targets
            if isinstance(target, ast.Name) and target.id.isupper()
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg in ("code", "default_code"):
                        add(_strings(keyword.value, constants), path, node)
                index = takes_code.get(_callee(node), -1)
                if 0 <= index < len(node.args):
                    add(_strings(node.args[index], constants), path, node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {
                    t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
                    for t in targets
                }
                if names & {"code", "default_code"}:
                    add(_strings(node.value), path, node)
            elif isinstance(node, ast.Tuple) and len(node.elts) == 3:
                # (code, message, details), e.g. config.errors.too_many_parts
                first, message, details = node.elts
                if isinstance(message, (ast.JoinedStr, ast.Constant)) and isinstance(details, ast.Dict):
                    add(_strings(first, constants), path, node)
            elif isinstance(node, ast.Dict):
                # {"code": "…", …}: an error body written out; not a quality report's skipped check
                # ({"code": finding code, "reason": …}: workers.contracts.quality.SkippedCheck)
                keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
                if keys == {"code", "reason"}:
                    continue
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "code":
                        add(_strings(value, constants), path, node)
    return codes


def drf_codes() -> dict[str, str]:
    codes = {}
    for name, cls in inspect.getmembers(drf_exceptions, inspect.isclass):
        if issubclass(cls, drf_exceptions.APIException):
            codes[str(cls.default_code)] = f"rest_framework.exceptions.{name}"
    return codes


def client_codes() -> dict[str, str]:
    text = CLIENT.read_text()
    codes = {code: "frontend/src/api/client.ts" for code in re.findall(r"code: '([a-z_0-9]+)'", text)}
    codes.update(
        {f"http_{status}": "frontend/src/api/client.ts (no envelope)" for status in CLIENT_HTTP_STATUSES}
    )
    return codes


def all_codes() -> dict[str, str]:
    return {**client_codes(), **drf_codes(), **backend_codes()}


def catalog(language: str) -> dict:
    return json.loads((LOCALES / language / "errors.json").read_text())


def test_the_scan_finds_the_codes_it_should():
    codes = all_codes()
    for code in [
        "not_authenticated",  # DRF
        "throttled",
        "invalid_credentials",  # a view's default_code
        "in_use",  # a (code, message, details) tuple
        "uri_too_long",  # error_response(status, "code", …)
        "corrupt_image",  # code = "…" if … else "…"
        "no_label_column",  # an f-string code
        "key_revoked",  # _unauthorized("code", …)
        "network_error",  # the client's own
    ]:
        assert code in codes, code
    assert len(codes) > 80


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_every_error_code_has_a_message(language):
    messages = catalog(language)
    missing = sorted(f"{code} ({where})" for code, where in all_codes().items() if code not in messages)
    assert not missing, f"error codes without a message in {language}/errors.json:\n" + "\n".join(missing)
    not_text = [code for code, text in messages.items() if not isinstance(text, str) or not text.strip()]
    assert not not_text, f"{language}/errors.json: every code's message is one non-empty string: {not_text}"


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_every_finding_code_is_explained(language):
    """The quality report's findings are named and explained by code in the datasets catalog."""
    from workers.contracts.quality import FINDING_CODES

    codes = json.loads((LOCALES / language / "datasets.json").read_text())["quality"]["codes"]
    missing = [
        code
        for code in FINDING_CODES
        if not (codes.get(code, {}).get("title") and codes[code].get("explain"))
    ]
    assert not missing, (
        f"finding codes without a title and an explanation in {language}/datasets.json: {missing}"
    )
