"""The quality report on texts (the first sentences of standard-library docstrings, plus planted
problems) and on generated tables (planted constant, near-constant, mostly-missing and leaking
columns next to an id column that must not count as a leak)."""

from __future__ import annotations

import inspect
import json
import math
import os
import re
import string
from pathlib import Path

import numpy as np
import pytest

from workers.contracts.smart_labeling import LabelPool, PoolSample
from workers.data_quality import run
from workers.data_quality.texts import language_of, normalize
from workers.progress import silent_report


def _sentences(module) -> list[str]:
    out = []
    for name, member in sorted(vars(module).items()):
        doc = inspect.getdoc(member) if callable(member) and not name.startswith("_") else None
        if doc:
            first = re.split(r"\n\s*\n", doc)[0].replace("\n", " ").strip()
            if len(first.split()) >= 6 and first not in out:
                out.append(first)
    return out


@pytest.fixture(scope="module")
def text_report() -> dict:
    english = _sentences(os)[:30] + _sentences(json)[:10] + _sentences(math)[:20]
    samples: list[PoolSample] = [
        {"id": 100 + i, "sha256": "", "label": i % 2, "text": text} for i, text in enumerate(english)
    ]
    planted = {
        "exact": english[3].upper().replace(" ", "   \n "),
        "near": english[5].replace(".", "!"),
        "empty": " \t\n\u3000 ",
        "long": " ".join(english) * 2,
        "zh": "这个函数返回当前工作目录的路径，如果目录不存在就会报告一个错误。",
        "ja": "この関数は現在の作業ディレクトリのパスを返します。",
        "fr": "Cette fonction renvoie le chemin du répertoire de travail et elle ne change pas le fichier.",
    }
    ids = {}
    for offset, (kind, text) in enumerate(planted.items()):
        ids[kind] = 900 + offset
        samples.append({"id": ids[kind], "sha256": "", "label": None, "text": text})
    pool: LabelPool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "text_classification",
        "classes": ["first", "second"],
        "samples": samples,
    }
    return {"report": run(pool, {}, work_dir=Path("."), report=silent_report), "ids": ids, "english": english}


def _finding(report, code):
    found = [f for f in report["findings"] if f["code"] == code]
    assert found, f"no {code} in {[f['code'] for f in report['findings']]}"
    return found[0]


def test_texts_other_language_empty_long_and_duplicates(text_report):
    report, ids = text_report["report"], text_report["ids"]
    other = _finding(report, "other_language")
    assert set(other["sample_ids"]) == {ids["zh"], ids["ja"], ids["fr"]}
    assert {item["sample"]: item["language"] for item in other["items"]} == {
        ids["zh"]: "zh",
        ids["ja"]: "ja",
        ids["fr"]: "fr",
    }
    assert other["details"]["majority_language"] == "en"
    assert _finding(report, "empty_text")["sample_ids"] == [ids["empty"]]
    assert _finding(report, "long_text")["sample_ids"] == [ids["long"]]
    assert [103, ids["exact"]] in _finding(report, "exact_duplicates")["groups"]
    assert [105, ids["near"]] in _finding(report, "near_duplicates")["groups"]
    assert [d["name"] for d in report["distributions"]] == ["text_length"]
    assert {"other_language", "near_duplicates", "likely_mislabeled"} <= set(report["checks"])


def test_language_and_normalisation_helpers():
    assert normalize("  Ｈｅｌｌｏ\tWORLD \n") == "hello world"
    assert language_of("Der Hund ist nicht in dem Haus und die Katze auch nicht.") == "de"
    assert language_of("Привет, как дела у тебя сегодня?") == "cyrillic"
    assert language_of("ok") == ""  # too few letters to tell
    assert language_of("Lorem ipsum dolor sit amet") == "latin"  # Latin script, no stopwords


def _table(task: str, n: int = 300, seed: int = 0) -> tuple[LabelPool, dict[str, list[int]]]:
    rng = np.random.default_rng(seed)
    samples: list[PoolSample] = []
    classes = ["low", "mid", "high"]
    for i in range(n):
        label = int(rng.integers(0, 3))
        target = float(rng.normal(label * 10, 3))
        values = {
            "row_id": f"r{i:05d}",  # unique per row: fits the training rows, predicts nothing
            "x1": float(rng.normal()),
            "x2": str(rng.choice(list(string.ascii_lowercase[:5]))),
            "constant": "same",
            "almost": "A" if i != 17 else "B",
            "sparse": None if i % 10 < 7 else float(rng.normal()),
            "leak": (classes[label] + "!") if task == "tabular_classification" else target * 2 + 1,
        }
        sample: PoolSample = {"id": 10 + i, "sha256": "", "label": None, "values": values}
        if task == "tabular_classification":
            sample["label"] = label
        else:
            sample["target"] = target
        samples.append(sample)
    duplicate = dict(samples[5]["values"])
    samples.append({**samples[5], "id": 9999, "values": duplicate})
    leak_type = "categorical" if task == "tabular_classification" else "numeric"
    columns = [
        {"name": "row_id", "type": "categorical"},
        {"name": "x1", "type": "numeric"},
        {"name": "x2", "type": "categorical"},
        {"name": "constant", "type": "categorical"},
        {"name": "almost", "type": "categorical"},
        {"name": "sparse", "type": "numeric"},
        {"name": "leak", "type": leak_type},
        {"name": "y", "type": "numeric"},
    ]
    pool: LabelPool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": task,  # type: ignore[typeddict-item]
        "classes": classes if task == "tabular_classification" else [],
        "samples": samples,
        "columns": columns,  # type: ignore[typeddict-item]
        "target": "y",
    }
    return pool, {"duplicate": [15, 9999]}


@pytest.mark.parametrize("task", ["tabular_classification", "tabular_regression"])
def test_table_columns_constant_near_constant_missing_and_leak(task):
    pool, planted = _table(task)
    report = run(pool, {}, work_dir=Path("."), report=silent_report)
    by_column = {(f["code"], f["column"]) for f in report["findings"] if f["column"]}
    assert by_column == {
        ("constant_column", "constant"),
        ("near_constant_column", "almost"),
        ("high_missing_column", "sparse"),
        ("target_leak_column", "leak"),
    }
    leak = _finding(report, "target_leak_column")
    assert leak["details"]["score"] >= 0.98
    assert leak["details"]["metric"] == (
        "balanced_accuracy" if task == "tabular_classification" else "abs_correlation"
    )
    assert _finding(report, "near_constant_column")["sample_ids"] == [27]
    assert _finding(report, "high_missing_column")["count"] == 211  # 70 % of 300, plus the duplicate
    assert planted["duplicate"] in _finding(report, "exact_duplicates")["groups"]
    if task == "tabular_classification":
        assert "likely_mislabeled" in report["checks"]
    else:
        assert report["class_balance"]["classes"] == [] and report["distributions"][0]["name"] == "target"
