"""The model-quality benchmark's text section (benchmarks/quality/text.py): every corpus builds offline
and deterministically as a text manifest of the documented shape, grouped corpora keep a package in
one split, description cleaning keeps prose only, and the TF-IDF + logistic regression baseline beats
chance on a small slice without looking at the test labels."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from benchmarks.quality import core, text, text_corpora


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    root = tmp_path_factory.mktemp("text")
    return {d.name: d.build(root / d.name) for d in text.DATASETS}


def test_four_corpora_build_offline_as_text_manifests_of_the_documented_shape(manifests):
    assert set(manifests) == {
        "stdlib_docstrings",
        "library_docstrings",
        "package_topics",
        "django_zh_messages",
    }
    for dataset in text.DATASETS:
        manifest = manifests[dataset.name]
        assert dataset.template == "text_classification"
        assert dataset.source and "\n" not in dataset.source
        assert manifest["kind"] == "text" and manifest["version"] == 1
        counts = Counter(s["label"] for s in manifest["samples"])
        # a few hundred to ~1,500 texts, at least 2 classes, none tiny, none over the cap
        assert 250 <= len(manifest["samples"]) <= 1500, (dataset.name, len(manifest["samples"]))
        assert len(manifest["classes"]) >= 2 and set(counts) == set(range(len(manifest["classes"])))
        assert min(counts.values()) >= 40, (dataset.name, counts)
        cap = text.CAPS[dataset.name]
        assert cap is None or max(counts.values()) <= cap, (dataset.name, counts)
        texts = [s["text"] for s in manifest["samples"]]
        assert len(set(texts)) == len(texts), f"{dataset.name}: duplicate texts"
        assert all(isinstance(t, str) and t == " ".join(t.split()) and len(t) >= 4 for t in texts)
        assert all(s["split"] == "train" for s in manifest["samples"])


def test_the_library_docstrings_name_their_libraries_and_the_chinese_corpus_is_chinese(manifests):
    assert manifests["library_docstrings"]["classes"] == [
        "django",
        "numpy",
        "pandas",
        "scikit-learn",
        "scipy",
    ]
    zh = manifests["django_zh_messages"]
    assert zh["classes"] == ["admin", "auth", "core", "rest_framework"]
    han = [s for s in zh["samples"] if any("\u4e00" <= ch <= "\u9fff" for ch in s["text"])]
    assert len(han) >= 0.95 * len(zh["samples"])


def test_corpora_are_deterministic(manifests, tmp_path):
    for dataset in text.DATASETS:
        assert dataset.build(tmp_path) == manifests[dataset.name], dataset.name


def test_package_paragraphs_carry_their_package_and_one_package_stays_in_one_split(manifests):
    manifest = manifests["package_topics"]
    assert manifest["classes"] == sorted(text_corpora.PACKAGE_TOPICS)
    by_group: dict[str, set[int]] = {}
    for sample in manifest["samples"]:
        by_group.setdefault(sample["group"], set()).add(sample["label"])
    assert len(by_group) >= 40 and all(len(labels) == 1 for labels in by_group.values())
    assert max(Counter(s["group"] for s in manifest["samples"]).values()) <= 6
    for seed in (0, 1):
        split = core.split(manifest, seed)
        where: dict[str, set[str]] = {}
        for sample in split["samples"]:
            where.setdefault(sample["group"], set()).add(sample["split"])
        assert all(len(names) == 1 for names in where.values())
        assert {"train", "val", "test"} == {n for names in where.values() for n in names}


def test_package_topic_rule():
    rule = text_corpora.package_topic
    assert rule(["Topic :: Software Development :: Libraries", "Topic :: Internet :: WWW/HTTP"]) == "Internet"
    assert rule(["Topic :: Software Development :: Libraries", "Intended Audience :: Developers"]) == (
        "Software Development"
    )
    assert rule(["License :: OSI Approved :: MIT License"]) is None


def test_description_cleaning_keeps_prose_and_drops_code_badges_and_links():
    description = "\n".join(
        [
            "# Title",
            "",
            "[![Build](https://ci.example/badge.svg)](https://ci.example)",
            "",
            "Widget parses **timetables** from [the transit feeds](https://feeds.example) and",
            "answers departures for any stop in the network quickly.",
            "",
            "```python",
            "import widget",
            "",
            "widget.parse('a long line of code that would otherwise count as a paragraph here')",
            "```",
            "",
            "    indented literal block that is code, not prose, and long enough to count",
            "",
            "See the `documentation <https://docs.example>`_ for the complete list of options offered.",
            "",
            "Short line.",
        ]
    )
    assert text_corpora.description_paragraphs(description) == [
        "Widget parses timetables from the transit feeds and answers departures for any stop in the network "
        "quickly.",
        "See the documentation for the complete list of options offered.",
    ]


def test_a_text_under_two_labels_is_dropped_and_caps_keep_whole_groups():
    rows = [("same words", "a", None), ("same words", "b", None), ("only a", "a", None), ("x", "b", "g")]
    assert text_corpora._unique(rows) == [("only a", "a", None), ("x", "b", "g")]
    grouped = [(f"t{i}", "a", f"g{i // 3}") for i in range(9)]
    kept = text_corpora.cap_per_class(grouped, 7, seed=0)
    assert len(kept) == 6 and Counter(g for _, _, g in kept) == Counter({g: 3 for _, _, g in kept})


def test_tfidf_logreg_beats_chance_on_a_small_slice_without_the_test_labels():
    rows = text_corpora.cap_per_class(text_corpora.stdlib_docstrings(), 40, seed=0)
    manifest = core.split(text.manifest_of(rows), 0)
    blind = {
        **manifest,
        "samples": [
            {k: v for k, v in s.items() if k != "label"} if s["split"] == "test" else s
            for s in manifest["samples"]
        ],
    }
    predicted = text.tfidf_logreg(blind, 0, folds=3)
    truth = core.test_truth(manifest, "text_classification")
    assert predicted.shape == truth.shape and predicted.dtype == np.int64
    accuracy = float(np.mean(predicted == truth))
    assert accuracy >= 0.5, accuracy  # chance is 0.25 on four balanced areas


def test_tfidf_logreg_refuses_a_manifest_without_test_samples():
    rows = text_corpora.cap_per_class(text_corpora.stdlib_docstrings(), 5, seed=0)
    with pytest.raises(ValueError, match="test samples"):
        text.tfidf_logreg(text.manifest_of(rows), 0)


def test_cap_none_keeps_everything():
    rows = [("a", "x", None), ("b", "y", None)]
    assert text_corpora.cap_per_class(rows, None) == rows
