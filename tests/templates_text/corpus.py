"""A real labeled text corpus that ships offline: the docstrings of Python's own standard library,
labeled by the area of the library they document.

No PyPI package available here carries a labeled natural-language corpus (nltk's data and
sklearn's 20 newsgroups download at run time), so this one is built, honestly and reproducibly,
from text every Python installation has: each public function, class and method docstring of the
modules below, first paragraph, at least 40 characters, deduplicated. The label is the area its
module belongs to; nothing is hand-picked or edited. Sizes depend on the Python version (3.11 here).
"""

from __future__ import annotations

import importlib
import inspect
import random
from functools import cache

AREAS = {
    "files": [
        "os",
        "shutil",
        "pathlib",
        "glob",
        "tempfile",
        "filecmp",
        "fileinput",
        "stat",
        "zipfile",
        "tarfile",
    ],
    "network": [
        "socket",
        "ssl",
        "http.client",
        "http.server",
        "http.cookiejar",
        "urllib.request",
        "urllib.parse",
        "smtplib",
        "ftplib",
        "imaplib",
        "poplib",
        "socketserver",
        "ipaddress",
    ],
    "numbers": ["math", "cmath", "decimal", "fractions", "statistics", "random", "numbers", "operator"],
    "text": [
        "string",
        "textwrap",
        "difflib",
        "re",
        "unicodedata",
        "html",
        "html.parser",
        "codecs",
        "locale",
        "gettext",
        "email.message",
        "email.parser",
        "email.header",
    ],
}


def _paragraph(doc: str) -> str:
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


@cache
def stdlib_docstrings(seed: int = 0) -> list[tuple[str, str]]:
    """[(text, area)], shuffled with ``seed``; a text that two areas share is dropped."""
    found: dict[str, set[str]] = {}
    for area, modules in AREAS.items():
        for name in modules:
            module = importlib.import_module(name)
            members = [
                getattr(module, attr, None)
                for attr in sorted(getattr(module, "__all__", dir(module)))
                if not attr.startswith("_")
            ]
            objects = []
            for member in members:
                if getattr(member, "__module__", name) != name or not (
                    inspect.isroutine(member) or inspect.isclass(member)
                ):
                    continue
                objects.append(member)
                if inspect.isclass(member):
                    objects.extend(
                        m
                        for attr, m in sorted(vars(member).items())
                        if not attr.startswith("_") and inspect.isroutine(m)
                    )
            for obj in objects:
                text = _paragraph(getattr(obj, "__doc__", None) or "")
                if len(text) >= 40:
                    found.setdefault(text, set()).add(area)
    pairs = sorted((text, areas.pop()) for text, areas in found.items() if len(areas) == 1)
    random.Random(seed).shuffle(pairs)
    return pairs


def balanced(per_class: int, seed: int = 0) -> list[tuple[str, str]]:
    """The first ``per_class`` texts of every area (fewer if an area has fewer)."""
    taken: dict[str, int] = {}
    out = []
    for text, area in stdlib_docstrings(seed):
        if taken.get(area, 0) < per_class:
            taken[area] = taken.get(area, 0) + 1
            out.append((text, area))
    return out
