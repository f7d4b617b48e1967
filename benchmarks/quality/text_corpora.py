"""Labelled text corpora built offline from what a Sampan installation already holds: docstrings of
the standard library and of the installed scientific / web libraries, the descriptions in installed
packages' metadata, and Django's and Django REST framework's Simplified Chinese message catalogs.

No labelled natural-language corpus ships with the project's dependencies (sklearn's 20 newsgroups and
nltk's data download at run time), so these are built reproducibly from installed files. Rules, the
same for every corpus: nothing is hand-picked or edited; texts are whitespace-normalised, deduplicated
(a text found under two labels is dropped), texts shorter than the corpus' minimum are dropped; a
corpus larger than its cap keeps the first ``per_class`` texts of each label after a seeded shuffle.
Sizes depend on the installed versions (the project's lock file pins them).

Each builder returns ``[(text, label, group)]`` sorted deterministically. ``group`` names the unit
that must stay in one split (a package whose description gave several paragraphs), or is None.
"""

from __future__ import annotations

import gettext
import importlib
import importlib.metadata
import importlib.util
import inspect
import random
import re
from collections.abc import Iterable
from pathlib import Path

Labelled = tuple[str, str, str | None]


def _squash(text: str) -> str:
    return " ".join(text.split())


def _unique(rows: Iterable[Labelled]) -> list[Labelled]:
    """Drop texts that occur under two labels; keep one copy of a text seen twice under one label
    (the first group in sorted order)."""
    labels: dict[str, set[str]] = {}
    group: dict[str, str | None] = {}
    for text, label, grp in sorted(rows, key=lambda r: (r[0], r[1], r[2] or "")):
        labels.setdefault(text, set()).add(label)
        group.setdefault(text, grp)
    return sorted((text, next(iter(ls)), group[text]) for text, ls in labels.items() if len(ls) == 1)


def cap_per_class(rows: list[Labelled], per_class: int | None, seed: int = 0) -> list[Labelled]:
    """The first ``per_class`` rows of each label after a seeded shuffle, returned in sorted order.
    Grouped rows are capped by whole groups (a group is kept entirely or not at all)."""
    if per_class is None:
        return rows
    units: dict[tuple[str, str], list[Labelled]] = {}
    for i, row in enumerate(rows):
        key = (row[1], row[2] if row[2] is not None else f"#{i}")
        units.setdefault(key, []).append(row)
    order = sorted(units)
    random.Random(seed).shuffle(order)
    taken: dict[str, int] = {}
    kept: list[Labelled] = []
    for label, grp in order:
        unit = units[(label, grp)]
        if taken.get(label, 0) + len(unit) <= per_class:
            taken[label] = taken.get(label, 0) + len(unit)
            kept.extend(unit)
    return sorted(kept)


# --- docstrings -----------------------------------------------------------------------------------

_SIGNATURE = re.compile(r"^[\w.]+\(.*\)(\s*->.*)?$")


def _first_paragraph(doc: str) -> str:
    """The docstring's first paragraph that is not a call signature (numpy's ufuncs start with one)."""
    for paragraph in inspect.cleandoc(doc).split("\n\n"):
        text = _squash(paragraph)
        if text and not _SIGNATURE.match(text):
            return text
    return ""


def _documented_objects(module_name: str, owner: str) -> list[object]:
    """Public functions and classes of a module defined under the package ``owner`` (re-exports from
    elsewhere are skipped), and the public methods the classes define themselves."""
    module = importlib.import_module(module_name)
    objects: list[object] = []
    for attr in sorted(set(getattr(module, "__all__", None) or dir(module))):
        if attr.startswith("_"):
            continue
        try:
            member = getattr(module, attr, None)
        except ImportError:  # sklearn's experimental names refuse to load without an opt-in import
            continue
        defined_in = getattr(member, "__module__", None) or ""
        if not (defined_in == owner or defined_in.startswith(owner + ".")):
            continue
        if not (inspect.isroutine(member) or inspect.isclass(member) or callable(member)):
            continue
        objects.append(member)
        if inspect.isclass(member):
            objects.extend(
                m
                for name, m in sorted(vars(member).items())
                if not name.startswith("_") and inspect.isroutine(m)
            )
    return objects


def docstrings(areas: dict[str, list[str]], *, owner_of: dict[str, str] | None = None, min_chars: int = 40):
    """[(first paragraph, area, None)] for the documented objects of each area's modules."""
    rows: list[Labelled] = []
    for area, modules in areas.items():
        for name in modules:
            owner = (owner_of or {}).get(area, name)
            for obj in _documented_objects(name, owner):
                text = _first_paragraph(getattr(obj, "__doc__", None) or "")
                if len(text) >= min_chars:
                    rows.append((text, area, None))
    return _unique(rows)


# Which library a docstring comes from: numpy, pandas, scipy, scikit-learn and Django all document
# arrays, tables, fitting and validation, so the vocabulary overlaps.
LIBRARY_MODULES = {
    "numpy": ["numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.ma", "numpy.polynomial"],
    "pandas": ["pandas", "pandas.api.types", "pandas.plotting", "pandas.tseries.offsets"],
    "scipy": [
        "scipy.stats",
        "scipy.optimize",
        "scipy.signal",
        "scipy.interpolate",
        "scipy.sparse",
        "scipy.spatial",
        "scipy.integrate",
    ],
    "scikit-learn": [
        "sklearn.linear_model",
        "sklearn.ensemble",
        "sklearn.preprocessing",
        "sklearn.metrics",
        "sklearn.model_selection",
        "sklearn.cluster",
        "sklearn.decomposition",
        "sklearn.feature_extraction.text",
        "sklearn.neighbors",
        "sklearn.svm",
    ],
    "django": [
        "django.db.models",
        "django.http",
        "django.forms",
        "django.template",
        "django.utils.text",
        "django.utils.html",
        "django.core.validators",
        "django.core.mail",
        "django.urls",
        "django.shortcuts",
        "django.test",
    ],
}
_LIBRARY_ROOT = {
    "numpy": "numpy",
    "pandas": "pandas",
    "scipy": "scipy",
    "scikit-learn": "sklearn",
    "django": "django",
}


def library_docstrings() -> list[Labelled]:
    """Docstring first paragraphs labelled by the library that defines them."""
    return docstrings(LIBRARY_MODULES, owner_of=_LIBRARY_ROOT)


def stdlib_docstrings() -> list[Labelled]:
    """The standard library's docstrings by area (the corpus of tests/templates_text/corpus.py)."""
    from tests.templates_text.corpus import stdlib_docstrings as pairs

    return sorted((text, area, None) for text, area in pairs(0))


# --- package descriptions -------------------------------------------------------------------------

_URL = re.compile(r"https?://\S+")
_HTML = re.compile(r"<[^>]*>")
_MD_LINK = re.compile(r"!?\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])")
_RST_LINK = re.compile(r"`([^`<]*?)\s*<[^>]*>`_+")
_MARKUP = re.compile(r"[`*_]{1,3}|:\w+:")
_CODE_FENCE = ("```", "~~~")
_SKIP_START = (".. ", "|", "#", "=", "+", ">>>", "$ ", "!", "{", "[")


def description_paragraphs(description: str, *, min_chars: int = 60) -> list[str]:
    """The prose paragraphs of a Markdown or reStructuredText package description: code (fenced or
    indented), directives, tables, headings, badges, HTML, URLs and markup are removed; a paragraph
    is kept when it has ``min_chars`` characters, 85 % of them letters or spaces."""
    out: list[str] = []
    in_fence = False
    for block in re.split(r"\n\s*\n", description.replace("\r", "")):
        lines = block.split("\n")
        fences = sum(line.strip().startswith(_CODE_FENCE) for line in lines)
        if fences or in_fence:
            in_fence = in_fence ^ (fences % 2 == 1)
            continue
        if lines[0].startswith((" ", "\t")):
            continue
        text = _squash(" ".join(lines))
        if text.startswith(_SKIP_START):
            continue
        for pattern, repl in ((_MD_LINK, r"\1"), (_RST_LINK, r"\1"), (_HTML, " "), (_URL, ""), (_MARKUP, "")):
            text = pattern.sub(repl, text)
        text = _squash(text)
        letters = sum(ch.isalpha() or ch == " " for ch in text)
        if len(text) >= min_chars and letters >= 0.85 * len(text):
            out.append(text)
    return out


def package_topic(classifiers: list[str]) -> str | None:
    """A package's topic: the first (Trove order) top-level ``Topic ::`` classifier other than
    "Software Development" (which most packages add to their specific topic), else "Software
    Development"; None without any Topic classifier."""
    topics = [c.split(" :: ")[1] for c in classifiers if c.startswith("Topic :: ") and c.count(" :: ") >= 1]
    specific = [t for t in topics if t != "Software Development"]
    if specific:
        return specific[0]
    return topics[0] if topics else None


PACKAGE_TOPICS = ("Software Development", "Scientific/Engineering", "Internet", "System & utilities")
_MERGED = {
    "System": "System & utilities",
    "Utilities": "System & utilities",
    "Terminals": "System & utilities",
}


def package_descriptions(*, per_package: int = 6) -> list[Labelled]:
    """Paragraphs of installed packages' summaries and descriptions labelled by the package's topic
    (``package_topic``; System, Utilities and Terminals merged into "System & utilities", the other
    topics are too rare here and dropped). Each package gives its summary and the first
    ``per_package`` - 1 prose paragraphs of its description; ``group`` is the package name, so a
    split keeps one package's paragraphs together."""
    rows: list[Labelled] = []
    seen: set[str] = set()
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        meta = dist.metadata
        name = (meta["Name"] or "").lower().replace("_", "-")
        if not name or name in seen:
            continue
        seen.add(name)
        topic = package_topic(meta.get_all("Classifier") or [])
        topic = _MERGED.get(topic or "", topic)
        if topic not in PACKAGE_TOPICS:
            continue
        summary = _squash(meta["Summary"] or "")
        paragraphs = ([summary] if len(summary) >= 30 else []) + description_paragraphs(
            meta.get_payload() or meta["Description"] or ""  # type: ignore[attr-defined]
        )
        for text in list(dict.fromkeys(paragraphs))[:per_package]:
            rows.append((text, topic, name))
    return _unique(rows)


# --- Chinese message catalogs ---------------------------------------------------------------------

# Simplified Chinese catalogs shipped inside installed packages, labelled by the component that owns
# them. Django's ``conf/locale`` catalog holds the core's messages (forms, validators, dates).
# django.contrib.humanize (19 messages of 4+ characters) and the other contrib apps with a handful of
# messages are left out or merged into the component they serve, as listed.
ZH_CATALOGS = {
    "core": [("django", "conf/locale/zh_Hans/LC_MESSAGES/django.mo")],
    "admin": [
        ("django", "contrib/admin/locale/zh_Hans/LC_MESSAGES/django.mo"),
        ("django", "contrib/admin/locale/zh_Hans/LC_MESSAGES/djangojs.mo"),
        ("django", "contrib/admindocs/locale/zh_Hans/LC_MESSAGES/django.mo"),
    ],
    "auth": [
        ("django", "contrib/auth/locale/zh_Hans/LC_MESSAGES/django.mo"),
        ("django", "contrib/contenttypes/locale/zh_Hans/LC_MESSAGES/django.mo"),
        ("django", "contrib/sessions/locale/zh_Hans/LC_MESSAGES/django.mo"),
        ("django", "contrib/sites/locale/zh_Hans/LC_MESSAGES/django.mo"),
    ],
    "rest_framework": [
        ("rest_framework", "locale/zh_Hans/LC_MESSAGES/django.mo"),
        ("django_filters", "locale/zh_CN/LC_MESSAGES/django.mo"),
    ],
}


def _catalog_texts(package: str, relative: str) -> list[str]:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"package {package} is not installed")
    path = Path(spec.origin).parent / relative
    with path.open("rb") as handle:
        catalog: dict[object, str] = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    return [_squash(value) for key, value in catalog.items() if key and value]


def zh_catalog_messages(*, min_chars: int = 4) -> list[Labelled]:
    """Translated messages (msgstr, every plural form) of the Simplified Chinese catalogs in
    ``ZH_CATALOGS``, labelled by component; messages under ``min_chars`` characters are dropped."""
    rows: list[Labelled] = []
    for component, catalogs in ZH_CATALOGS.items():
        for package, relative in catalogs:
            rows.extend(
                (text, component, None)
                for text in _catalog_texts(package, relative)
                if len(text) >= min_chars
            )
    return _unique(rows)
