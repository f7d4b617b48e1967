"""Text checks: empty after normalisation, very long, another language than most, and exact
duplicates after normalisation (near duplicates come from embeddings, in ``duplicates``).

The language identifier is deliberately small: the Unicode script most letters are written in (Han,
kana, Hangul, Cyrillic, Greek, Arabic, Hebrew, Thai, Devanagari, Latin); for Latin script, counts of
a few dozen stopwords of English, French, German, Spanish, Italian, Portuguese and Dutch decide, and
a text without a clear winner stays "latin" (undecided: never flagged against a Latin majority).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

import numpy as np

from workers.contracts.quality import Distribution, Finding
from workers.data_quality.findings import finding, histogram

LONG_TEXT = 2000  # characters; a text is long over this and over the dataset's 99th percentile
LONG_PERCENTILE = 99.0
SCRIPT_PREFIX = 500  # characters looked at per text for its script and language
MIN_LETTERS = 3
MIN_STOPWORDS = 2
MIN_MAJORITY = 0.5  # the dataset's language must cover at least half its decided texts

# (first code point, last code point, script)
_SCRIPTS: list[tuple[int, int, str]] = [
    (0x0041, 0x005A, "latin"),
    (0x0061, 0x007A, "latin"),
    (0x00C0, 0x024F, "latin"),
    (0x0370, 0x03FF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0x0E00, 0x0E7F, "thai"),
    (0x1100, 0x11FF, "hangul"),
    (0x1E00, 0x1EFF, "latin"),
    (0x3040, 0x309F, "kana"),
    (0x30A0, 0x30FF, "kana"),
    (0x3400, 0x4DBF, "han"),
    (0x4E00, 0x9FFF, "han"),
    (0xAC00, 0xD7AF, "hangul"),
    (0xF900, 0xFAFF, "han"),
]
_STARTS = np.array([s for s, _, _ in _SCRIPTS], dtype=np.int64)
_ENDS = np.array([e for _, e, _ in _SCRIPTS], dtype=np.int64)
_NAMES = [name for _, _, name in _SCRIPTS]
SCRIPT_LANGUAGE = {
    "han": "zh",
    "kana": "ja",
    "hangul": "ko",
    "cyrillic": "cyrillic",
    "greek": "el",
    "arabic": "arabic",
    "hebrew": "he",
    "thai": "th",
    "devanagari": "devanagari",
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS_ALL: dict[str, frozenset[str]] = {
    "en": _words(
        "the and of to in is that it for was on with as are be this not you at by have from or an they "
        "which but were his her has been will would there their what"
    ),
    "fr": _words(
        "le les et des est une du dans pour pas qui sur au avec elle sont mais nous vous ils aux par plus "
        "ou cette été être"
    ),
    "de": _words(
        "der und das ist nicht ein eine zu den mit von sich auf für dem im auch es wird ich sie wir aber "
        "oder bei nach sind"
    ),
    "es": _words("el los las del se al lo como más pero sus ya este está fue una para"),
    "it": _words("lo gli della sono nel alla anche più questo ha dei delle di che"),
    "pt": _words("os em um uma com não dos das na mais mas foi ao ele ela são também para"),
    "nl": _words("het een en van dat niet op te zijn voor met er ook maar als bij aan om wordt door naar ik"),
}
# Only words that tell one language apart: a word in two lists counts for neither (English words
# that are also French, German... stopwords were left out of those lists above).
STOPWORDS: dict[str, frozenset[str]] = {
    language: frozenset(
        w
        for w in words
        if len(w) > 1 and not any(w in other for o, other in STOPWORDS_ALL.items() if o != language)
    )
    for language, words in STOPWORDS_ALL.items()
}
_WORD = re.compile(r"[^\W\d_]+")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFKC, casefolded, whitespace collapsed and stripped: what "the same text" compares."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def script_of(text: str) -> str:
    """The script most of the first 500 characters' letters are in ('' with under 3 such letters)."""
    codes = np.frombuffer(text[:SCRIPT_PREFIX].encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    slot = np.searchsorted(_STARTS, codes, side="right") - 1
    inside = (slot >= 0) & (codes <= _ENDS[np.maximum(slot, 0)])
    if inside.sum() < MIN_LETTERS:
        return ""
    counts = np.bincount(slot[inside], minlength=len(_SCRIPTS))
    per_script: Counter[str] = Counter()
    for index, count in enumerate(counts):
        if count:
            per_script[_NAMES[index]] += int(count)
    if per_script["kana"] and per_script["kana"] >= 0.1 * (per_script["kana"] + per_script["han"]):
        per_script["kana"] += per_script.pop("han", 0)  # Japanese mixes kanji and kana
    return per_script.most_common(1)[0][0]


def language_of(text: str) -> str:
    """A language code (``en``, ``zh``, ``ja``, ``cyrillic``...), ``latin`` when a Latin-script
    text has no clear stopword winner, or '' for a text with too few letters to tell."""
    script = script_of(text)
    if script != "latin":
        return SCRIPT_LANGUAGE.get(script, script)
    words = _WORD.findall(text[: SCRIPT_PREFIX * 4].casefold())
    scores = sorted(
        ((sum(1 for w in words if w in stop), language) for language, stop in STOPWORDS.items()), reverse=True
    )
    (best, language), (second, _) = scores[0], scores[1]
    if best >= MIN_STOPWORDS and best >= 2 * second:
        return language
    return "latin"


def _differs(language: str, majority: str) -> bool:
    if not language or language == majority:
        return False
    latin = set(STOPWORDS) | {"latin"}
    if language in latin and majority in latin:
        return "latin" not in (language, majority)  # an undecided Latin text matches any Latin majority
    return True


def text_findings(
    ids: Sequence[int], texts: Sequence[str]
) -> tuple[list[Finding], list[Distribution], list[list[int]]]:
    """Findings (empty, long, other language), the text_length distribution and the exact
    duplicate groups (positions) after normalisation."""
    findings: list[Finding] = []
    normalized = [normalize(t) for t in texts]
    empty = [i for i, t in enumerate(normalized) if not t]
    if empty:
        findings.append(finding("empty_text", "error", (ids[i] for i in empty)))
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    if len(lengths):
        limit = max(LONG_TEXT, float(np.percentile(lengths, LONG_PERCENTILE)))
        long = sorted((i for i in range(len(texts)) if lengths[i] > limit), key=lambda i: -lengths[i])
        if long:
            findings.append(
                finding(
                    "long_text",
                    "info",
                    (ids[i] for i in long),
                    items=[{"sample": ids[i], "value": float(lengths[i])} for i in long],
                    details={"threshold": round(limit, 1)},
                )
            )
    languages = [language_of(t) for t in texts]
    decided = Counter(lang for lang in languages if lang and lang != "latin")
    latin_undecided = sum(1 for lang in languages if lang == "latin")
    if decided:
        majority, majority_count = decided.most_common(1)[0]
        if majority in STOPWORDS:
            majority_count += latin_undecided
        total = sum(decided.values()) + latin_undecided
        if majority_count >= MIN_MAJORITY * total:
            other = [i for i, lang in enumerate(languages) if _differs(lang, majority)]
            if other:
                findings.append(
                    finding(
                        "other_language",
                        "warning",
                        (ids[i] for i in other),
                        items=[{"sample": ids[i], "language": languages[i]} for i in other],
                        details={
                            "majority_language": majority,
                            "majority_share": round(majority_count / max(total, 1), 4),
                            "languages": ", ".join(
                                f"{lang}: {count}" for lang, count in Counter(languages).most_common() if lang
                            ),
                        },
                    )
                )
    exact = _exact_groups(normalized)
    distribution = _length_histogram(lengths)
    return findings, [distribution], exact


def _exact_groups(normalized: Sequence[str]) -> list[list[int]]:
    by_text: dict[str, list[int]] = {}
    for i, text in enumerate(normalized):
        if text:
            by_text.setdefault(text, []).append(i)
    return sorted((g for g in by_text.values() if len(g) > 1), key=lambda g: g[0])


def _length_histogram(lengths: np.ndarray) -> Distribution:
    if lengths.size == 0:
        return histogram("text_length", lengths)
    top = float(np.percentile(lengths, 99)) if lengths.size > 100 else float(lengths.max())
    edges = list(np.linspace(0, max(top, 1.0), 21))
    return histogram("text_length", np.minimum(lengths, edges[-1]), bins=edges)
