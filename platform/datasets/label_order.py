"""The order of a dataset's labels, and the keyboard keys that follow it.

Labels keep the order the user gives them (``Label.position``): creation order, or on import the
order the archive or table lists them in, except that names with numbers in them sort naturally
(``class2`` before ``class10``; Chinese numerals too: 零 一 二 … 十 十一). Names are never sorted by
code point, which puts 一 七 三 in a row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# Arabic digits, or a run of Chinese numerals (零〇一二两三四五六七八九十百千万).
_NUMBER = re.compile(r"\d+|[零〇一二两三四五六七八九十百千万]+")
_CHINESE_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CHINESE_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}

#: Printable keys the labeling grid uses for itself ("/" focuses the search), never a label's key.
RESERVED_KEYS = frozenset("/")
#: The keys labels get by default, in label order: 1-9, then 0, then the letters.
DEFAULT_KEYS = tuple(k for k in "1234567890abcdefghijklmnopqrstuvwxyz" if k not in RESERVED_KEYS)


def chinese_number(text: str) -> int:
    """The value of a run of Chinese numerals: ``chinese_number("二十一") == 21``; digit by digit
    when there are no units (``"一〇" == 10``)."""
    if not any(c in _CHINESE_UNITS for c in text):
        value = 0
        for c in text:
            value = value * 10 + _CHINESE_DIGITS[c]
        return value
    total, section, digit = 0, 0, None
    for c in text:
        if c in _CHINESE_DIGITS:
            digit = _CHINESE_DIGITS[c]
        elif c == "万":
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * _CHINESE_UNITS[c]
            digit = None
    return total + section + (digit or 0)


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key comparing the numbers in a name by value: class2 < class10, 九 < 十."""
    key: list[tuple[int, int | str]] = []
    at = 0
    for match in _NUMBER.finditer(name):
        if match.start() > at:
            key.append((1, name[at : match.start()].casefold()))
        run = match.group()
        key.append((0, int(run) if run.isdigit() else chinese_number(run)))
        at = match.end()
    if at < len(name):
        key.append((1, name[at:].casefold()))
    return tuple(key)


def has_number(name: str) -> bool:
    return _NUMBER.search(name) is not None


def import_order(names: Iterable[str]) -> list[str]:
    """New labels of an import in the order they are given (first appearance), or naturally sorted
    when every name has a number in it (folders ``class1`` … ``class10``, ``零`` … ``九``).

    >>> import_order(["dog", "cat"]), import_order(["class10", "class2"]), import_order(["七", "一", "十"])
    (['dog', 'cat'], ['class2', 'class10'], ['一', '七', '十'])
    """
    unique = list(dict.fromkeys(names))
    if unique and all(has_number(n) for n in unique):
        return sorted(unique, key=natural_key)
    return unique


def label_keys(labels: Sequence[tuple[int, str]]) -> dict[int, str | None]:
    """Each label's key, from ``(id, shortcut)`` pairs in label order: its own shortcut, else the
    next default key no other label has chosen, else None (more labels than keys).

    >>> label_keys([(1, ""), (2, "x"), (3, "")])
    {1: '1', 2: 'x', 3: '2'}
    """
    chosen = {shortcut for _, shortcut in labels if shortcut}
    free = iter(k for k in DEFAULT_KEYS if k not in chosen)
    return {pk: shortcut or next(free, None) for pk, shortcut in labels}
