"""Smart labeling's compute plane on real data: scikit-learn's digits as PNGs (tests/workers/
digits_data.py), the stdlib-docstring texts (tests/templates_text/corpus.py) and the diabetes table.

What a round promises: a suggestion for every unlabeled sample and none for a labeled one; the
batch ranked 1..batch_size; suggestions right most of the time with ~10 labels per class; a batch
that is not a pile of near-copies; progress up to 1.0; the refusals the API turns into 400s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from digits_data import Recorder, shared_digits
from PIL import Image

from tests.templates_text.corpus import balanced
from workers.progress import JobCancelled, silent_report
from workers.smart_labeling import NotEnoughLabels, NothingToSuggest, run
from workers.smart_labeling.features import table_features

PARAMS: dict[str, Any] = {"batch_size": 50, "strategy": "uncertainty_diversity", "seed": 0}


def digits_pool(per_class: int, *, every: int = 1, seed: int = 0) -> tuple[dict[str, Any], np.ndarray]:
    """Every ``every``-th digit, ``per_class`` of each class labeled; (pool, true labels by sample id)."""
    manifest = shared_digits()
    chosen = manifest["samples"][::every]
    truth = np.asarray([s["label"] for s in chosen])
    rng = np.random.default_rng(seed)
    keep = {
        int(i) for k in range(10) for i in rng.choice(np.flatnonzero(truth == k), per_class, replace=False)
    }
    samples = [
        {
            "id": i,
            "sha256": f"{i:064x}",
            "label": s["label"] if i in keep else None,
            "image_path": s["path"],
            "width": 32,
            "height": 32,
        }
        for i, s in enumerate(chosen)
    ]
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "image_classification",
        "classes": manifest["classes"],
        "samples": samples,
    }
    return pool, truth


def test_a_round_suggests_every_unlabeled_digit_and_ranks_a_batch(tmp_path: Path):
    pool, truth = digits_pool(10)
    recorder = Recorder()
    result = run(pool, PARAMS, work_dir=tmp_path, report=recorder)

    unlabeled = [s["id"] for s in pool["samples"] if s["label"] is None]
    suggestions = result["suggestions"]
    assert [s["id"] for s in suggestions] == unlabeled  # each unlabeled sample once, none labeled
    assert sorted(s["rank"] for s in suggestions if s["rank"] is not None) == list(range(1, 51))
    accuracy = np.mean([s["label"] == truth[s["id"]] for s in suggestions])
    assert accuracy > 0.8, accuracy
    for s in suggestions:
        assert s["scores"][0] == {"label": s["label"], "score": s["confidence"]}
        assert len(s["scores"]) == 3 and s["scores"][0]["score"] >= s["scores"][1]["score"]
        assert 0.0 <= s["priority"] <= 1.0 and s["boxes"] == [] and s["value"] is None
    summary = result["summary"]
    assert summary["labeled"] == 100 and summary["unlabeled"] == len(unlabeled) and summary["ranked"] == 50
    assert sum(summary["per_class_suggested"]) == sum(summary["confidence_histogram"]) == len(unlabeled)
    assert summary["estimated_accuracy"] is not None and summary["estimated_accuracy"] > 0.8
    # the batch is the uncertain end: its mean confidence is below the rest's
    ranked = [s["confidence"] for s in suggestions if s["rank"] is not None]
    rest = [s["confidence"] for s in suggestions if s["rank"] is None]
    assert np.mean(ranked) < np.mean(rest) - 0.2
    fractions = [c["fraction"] for c in recorder.calls if c["fraction"] is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) >= 5


def test_diversity_keeps_near_copies_of_one_uncertain_image_out_of_the_batch(tmp_path: Path):
    pool, truth = digits_pool(10, every=2)
    # one uncertain image (half a 1, half a 7) planted 20 times: uncertainty alone ranks the copies
    # together; uncertainty + diversity takes one or two
    first = {k: pool["samples"][int(np.flatnonzero(truth == k)[0])]["image_path"] for k in (1, 7)}
    blend = Image.blend(Image.open(first[1]).convert("L"), Image.open(first[7]).convert("L"), 0.5)
    for c in range(20):
        path = tmp_path / f"copy-{c}.png"
        blend.save(path)
        pool["samples"].append({"id": 10_000 + c, "sha256": "c" * 64, "label": None, "image_path": str(path)})

    def copies_in_batch(strategy: str) -> int:
        result = run(pool, {**PARAMS, "strategy": strategy}, work_dir=tmp_path, report=silent_report)
        return sum(1 for s in result["suggestions"] if s["rank"] is not None and s["id"] >= 10_000)

    assert copies_in_batch("uncertainty") >= 10
    assert copies_in_batch("uncertainty_diversity") <= 2


def test_random_strategy_is_a_seeded_shuffle(tmp_path: Path):
    pool, _ = digits_pool(3, every=3)

    def batch(seed: int) -> list[int]:
        result = run(
            pool, {**PARAMS, "strategy": "random", "seed": seed}, work_dir=tmp_path, report=silent_report
        )
        return [s["id"] for s in sorted(result["suggestions"], key=lambda s: s["rank"] or 10**9)][:50]

    assert batch(1) == batch(1) != batch(2)


def test_texts_are_suggested_from_minilm_embeddings(tmp_path: Path):
    rows = balanced(25)  # 4 areas x 25 docstrings
    classes = sorted({area for _, area in rows})
    seen: dict[str, int] = {}
    samples = []
    for i, (text, area) in enumerate(rows):
        seen[area] = seen.get(area, 0) + 1
        label = classes.index(area) if seen[area] <= 5 else None
        samples.append({"id": i, "sha256": f"{i:064x}", "label": label, "text": text})
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "text_classification",
        "classes": classes,
        "samples": samples,
    }
    result = run(pool, {**PARAMS, "batch_size": 10}, work_dir=tmp_path, report=silent_report)
    suggestions = result["suggestions"]
    assert len(suggestions) == 80 and result["summary"]["ranked"] == 10
    truth = {i: classes.index(area) for i, (_, area) in enumerate(rows)}
    accuracy = np.mean([s["label"] == truth[s["id"]] for s in suggestions])
    assert accuracy > 0.6, accuracy  # 4 classes, 5 labels each: chance is 0.25
    assert "MiniLM" in result["summary"]["model"]


def test_regression_suggests_values_with_bootstrap_uncertainty(tmp_path: Path):
    from sklearn.datasets import load_diabetes

    data = load_diabetes()
    names = list(data.feature_names)
    samples = [
        {
            "id": i,
            "sha256": f"{i:064x}",
            "label": None,
            "target": float(data.target[i]) if i % 4 == 0 else None,
            "values": {n: float(v) for n, v in zip(names, row, strict=True)},
        }
        for i, row in enumerate(data.data)
    ]
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "tabular_regression",
        "classes": [],
        "samples": samples,
        "columns": [{"name": n, "type": "numeric"} for n in names],
        "target": "progression",
    }
    result = run(pool, PARAMS, work_dir=tmp_path, report=silent_report)
    suggestions = result["suggestions"]
    assert len(suggestions) == sum(1 for s in samples if s["target"] is None)
    values = np.asarray([s["value"] for s in suggestions])
    truth = data.target[[s["id"] for s in suggestions]]
    r2 = 1 - ((truth - values) ** 2).sum() / ((truth - truth.mean()) ** 2).sum()
    assert r2 > 0.3, r2  # linear models reach about 0.45 on this set
    assert (
        result["summary"]["estimated_accuracy"] is not None and result["summary"]["estimated_accuracy"] > 0.2
    )
    assert all(0.0 < s["confidence"] <= 1.0 and s["label"] is None for s in suggestions)
    assert sorted(s["rank"] for s in suggestions if s["rank"] is not None) == list(range(1, 51))


def test_refusals_name_what_is_missing(tmp_path: Path):
    pool, _ = digits_pool(1)
    with pytest.raises(NotEnoughLabels, match="at least 2 labeled samples in each of 2 classes"):
        run(pool, PARAMS, work_dir=tmp_path, report=silent_report)
    for s in pool["samples"]:
        s["label"] = 0 if s["label"] is None else s["label"]
    with pytest.raises(NothingToSuggest):
        run(pool, PARAMS, work_dir=tmp_path, report=silent_report)
    detection = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "object_detection",
        "classes": ["digit"],
        "samples": [
            {
                "id": i,
                "sha256": "",
                "label": None,
                "image_path": s["image_path"],
                "width": 32,
                "height": 32,
                "boxes": [{"label": 0, "x": 2, "y": 2, "width": 20, "height": 20}] if i < 3 else None,
            }
            for i, s in enumerate(pool["samples"][:10])
        ],
    }
    with pytest.raises(NotEnoughLabels, match="4 annotated images"):
        run(detection, PARAMS, work_dir=tmp_path, report=silent_report)


def test_a_cancelled_round_stops(tmp_path: Path):
    pool, _ = digits_pool(5, every=2)
    calls = []

    def report(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        calls.append(fraction)
        if fraction is not None and fraction > 0.3:
            raise JobCancelled()

    with pytest.raises(JobCancelled):
        run(pool, PARAMS, work_dir=tmp_path, report=report)
    assert max(f for f in calls if f is not None) < 0.6  # it stopped while reading the images


def test_tables_are_suggested_from_the_encoded_row_without_the_target(tmp_path: Path):
    from sklearn.datasets import load_wine

    data = load_wine()
    names = list(data.feature_names)
    classes = [str(c) for c in data.target_names]
    rng = np.random.default_rng(0)
    samples = []
    for i, row in enumerate(data.data):
        values: dict[str, Any] = {n: float(v) for n, v in zip(names, row, strict=True)}
        values[names[0]] = None if i % 7 == 0 else values[names[0]]  # gaps: a missing indicator
        values["batch"] = ["north", "south"][int(rng.integers(0, 2))]  # a categorical column
        values["cultivar"] = classes[data.target[i]]  # the target column must not leak into features
        samples.append(
            {"id": i, "sha256": "", "label": int(data.target[i]) if i % 6 == 0 else None, "values": values}
        )
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "tabular_classification",
        "classes": classes,
        "samples": samples,
        "columns": [{"name": n, "type": "numeric"} for n in names]
        + [{"name": "batch", "type": "categorical"}, {"name": "cultivar", "type": "categorical"}],
        "target": "cultivar",
    }
    result = run(pool, {**PARAMS, "batch_size": 10}, work_dir=tmp_path, report=silent_report)
    suggestions = result["suggestions"]
    assert len(suggestions) == sum(1 for s in samples if s["label"] is None)
    accuracy = np.mean([s["label"] == data.target[s["id"]] for s in suggestions])
    assert accuracy > 0.85, accuracy  # about 0.96
    # 13 numbers + the first one's missing indicator + batch (north, south, other); no cultivar
    assert table_features(pool).shape == (len(samples), 17)


def test_the_next_round_reads_features_from_the_cache(tmp_path: Path):
    import hashlib

    from workers.smart_labeling.features import TEXT_CACHE, pool_features

    rows = balanced(6)
    classes = sorted({area for _, area in rows})
    texts = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "text_classification",
        "classes": classes,
        "samples": [
            {"id": i, "sha256": "", "label": classes.index(a) if i < 12 else None, "text": t}
            for i, (t, a) in enumerate(rows)
        ],
    }
    manifest = shared_digits()
    images = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "image_classification",
        "classes": manifest["classes"],
        "samples": [
            {
                "id": i,
                "sha256": hashlib.sha256(Path(s["path"]).read_bytes()).hexdigest(),
                "label": None,
                "image_path": s["path"],
            }
            for i, s in enumerate(manifest["samples"][:40])
        ],
    }
    cache = tmp_path / "cache"
    for pool in (texts, images):
        first, second = Recorder(), Recorder()
        computed = pool_features(pool, work_dir=tmp_path, report=first, cache_dir=cache)
        again = pool_features(pool, work_dir=tmp_path, report=second, cache_dir=cache)
        np.testing.assert_allclose(again, computed, atol=1e-6)
        np.testing.assert_allclose(
            pool_features(pool, work_dir=tmp_path, report=silent_report), computed, atol=1e-6
        )
        if pool is texts:  # MiniLM ran the first time only
            assert any(c["message"].startswith("embedding texts") for c in first.calls)
            assert not any(c["message"].startswith("embedding texts") for c in second.calls)
            assert second.calls[-1]["message"] == f"embedded {len(rows)} texts ({len(rows)} from the cache)"
    # an image the cache has is not read again: its file may even be gone
    moved = tmp_path / "moved.png"
    moved.write_bytes(Path(images["samples"][0]["image_path"]).read_bytes())
    images["samples"][0]["image_path"] = str(moved)
    before = pool_features(images, work_dir=tmp_path, report=silent_report, cache_dir=cache)
    moved.unlink()
    np.testing.assert_allclose(
        pool_features(images, work_dir=tmp_path, report=silent_report, cache_dir=cache), before
    )
    # a torn cache file is recomputed, not trusted
    torn = next((cache / TEXT_CACHE).rglob("*.npy"))
    torn.write_bytes(b"\x93NUMPY torn")
    result = run(texts, {**PARAMS, "batch_size": 4}, work_dir=tmp_path, report=silent_report, cache_dir=cache)
    assert len(result["suggestions"]) == len(rows) - 12
    assert np.load(torn).shape == (384,)  # written again
