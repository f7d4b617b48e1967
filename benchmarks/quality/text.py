"""The text section of the model-quality benchmark: four labelled corpora built offline from installed
files (``benchmarks.quality.text_corpora`` says how each is made) and the strong classical baseline,
TF-IDF over word 1-2-grams and character 2-5-grams with sublinear tf, then a logistic regression whose
C is chosen by 5-fold cross-validation on train + val.

e.g.::

    from benchmarks.quality import core, text
    results = core.run("text", text.DATASETS[:1], text.BASELINES, presets=("fast",), seeds=(0,))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality import text_corpora
from benchmarks.quality.core import Baseline, Dataset

TEMPLATE = "text_classification"

# Per-class caps: about 300 texts per corpus, so that 3 seeds x 3 presets of the four corpora run within
# the time the benchmark had on a shared 2-core CPU (a MiniLM preset's cost is linear in the texts). A
# grouped corpus is capped by whole packages, so its classes may fall short of the cap.
CAPS = {
    "stdlib_docstrings": 80,
    "library_docstrings": 64,
    "package_topics": 80,
    "django_zh_messages": 80,
}


def manifest_of(rows: list[text_corpora.Labelled]) -> dict[str, Any]:
    """A text dataset-version manifest (every sample ``split`` "train"; the runner draws the splits).
    Samples of a grouped corpus carry ``group``: the unit that must stay in one split."""
    classes = sorted({label for _, label, _ in rows})
    index = {name: i for i, name in enumerate(classes)}
    samples: list[dict[str, Any]] = []
    for i, (text, label, group) in enumerate(rows):
        sample: dict[str, Any] = {"id": i, "text": text, "label": index[label], "split": "train"}
        if group is not None:
            sample["group"] = group
        samples.append(sample)
    return {"kind": "text", "version": 1, "classes": classes, "samples": samples}


def _builder(
    name: str, corpus: Callable[[], list[text_corpora.Labelled]]
) -> Callable[[Path], dict[str, Any]]:
    def build(directory: Path) -> dict[str, Any]:  # texts travel inline: nothing is written
        return manifest_of(text_corpora.cap_per_class(corpus(), CAPS[name], seed=0))

    build.__name__ = f"build_{name}"
    return build


DATASETS: tuple[Dataset, ...] = (
    Dataset(
        "stdlib_docstrings",
        TEMPLATE,
        "first paragraphs of the Python standard library's public docstrings, labelled by library area "
        "(files, network, numbers, text: 42 modules; tests/templates_text/corpus.py); 80 per area, "
        "seeded draw",
        _builder("stdlib_docstrings", text_corpora.stdlib_docstrings),
    ),
    Dataset(
        "library_docstrings",
        TEMPLATE,
        "first paragraphs of public docstrings of numpy, pandas, scipy, scikit-learn and Django, labelled "
        "by the library that defines them (64 per library, seeded draw)",
        _builder("library_docstrings", text_corpora.library_docstrings),
    ),
    Dataset(
        "package_topics",
        TEMPLATE,
        "summaries and prose paragraphs of the installed packages' descriptions (importlib.metadata), "
        "labelled by the package's Trove topic (first one other than Software Development; System, "
        "Utilities and Terminals merged); at most 6 paragraphs per package, 80 per topic by whole packages "
        "(seeded draw), a package never split",
        _builder("package_topics", text_corpora.package_descriptions),
    ),
    Dataset(
        "django_zh_messages",
        TEMPLATE,
        "Simplified Chinese translations (msgstr) from Django's and Django REST framework's zh_Hans "
        "message catalogs, labelled by component (core, admin, auth, rest_framework); 4+ characters, 80 per "
        "component (seeded draw)",
        _builder("django_zh_messages", text_corpora.zh_catalog_messages),
    ),
)


# ---------------------------------------------------------------------------------------------- baseline

C_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def tfidf_logreg_pipeline() -> Any:
    """Word 1-2-gram and char_wb 2-5-gram TF-IDF (sublinear tf) feeding a logistic regression."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]
    from sklearn.pipeline import FeatureUnion, Pipeline  # type: ignore[import-untyped]

    features = FeatureUnion(
        [
            ("word", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True, min_df=1)),
            ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2)),
        ]
    )
    return Pipeline([("tfidf", features), ("logreg", LogisticRegression(max_iter=3000))])


def _fit_logreg(features: Any, labels: np.ndarray, c: float, start: Any | None) -> Any:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, warm_start=start is not None)
    if start is not None:  # the previous C's solution: the C path converges in a few iterations
        model.coef_, model.intercept_ = start.coef_.copy(), start.intercept_.copy()
    return model.fit(features, labels)


def choose_c(texts: list[str], labels: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The C of ``C_GRID`` with the best mean accuracy over ``folds``; the TF-IDF vocabulary and idf
    are fitted on each fold's training part only."""
    from sklearn.base import clone  # type: ignore[import-untyped]

    pipeline = tfidf_logreg_pipeline()
    correct = np.zeros(len(C_GRID))
    for fit_rows, held_rows in folds:
        vectorizer = clone(pipeline.named_steps["tfidf"])
        x_fit = vectorizer.fit_transform([texts[i] for i in fit_rows])
        x_held = vectorizer.transform([texts[i] for i in held_rows])
        model = None
        for j, c in enumerate(C_GRID):
            model = _fit_logreg(x_fit, labels[fit_rows], c, model)
            correct[j] += float(np.sum(model.predict(x_held) == labels[held_rows]))
    return float(C_GRID[int(np.argmax(correct))])  # ties: the smallest C (the most regularised)


def tfidf_logreg(manifest: Mapping[str, Any], seed: int, *, folds: int = 5) -> np.ndarray:
    """Fit on train + val, choosing C by ``folds``-fold cross-validation there (stratified; grouped
    by ``group`` when the samples have one), then predict the test samples' class indices."""
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold  # type: ignore[import-untyped]
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    fit = [s for s in manifest["samples"] if s["split"] in ("train", "val")]
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    if not fit or not test:
        raise ValueError("tfidf_logreg needs train/val samples to fit and test samples to predict")
    texts = [str(s["text"]) for s in fit]
    labels = np.asarray([int(s["label"]) for s in fit], dtype=np.int64)
    k = max(2, min(folds, int(np.bincount(labels).min())))
    if all("group" in s for s in fit):
        splits = StratifiedGroupKFold(k, shuffle=True, random_state=seed).split(
            texts, labels, [str(s["group"]) for s in fit]
        )
    else:
        splits = StratifiedKFold(k, shuffle=True, random_state=seed).split(texts, labels)
    # one thread: the benchmark shares the machine, and sklearn's OpenMP loss oversubscribes a busy CPU
    with threadpool_limits(1):
        c = choose_c(texts, labels, [(np.asarray(a), np.asarray(b)) for a, b in splits])
        pipeline = tfidf_logreg_pipeline().set_params(logreg__C=c).fit(texts, labels)
        return np.asarray(pipeline.predict([str(s["text"]) for s in test]), dtype=np.int64)


BASELINES: tuple[Baseline, ...] = (
    Baseline(
        "tfidf_logreg",
        "TF-IDF (word 1-2-grams + char 2-5-grams, sublinear tf) + logistic regression, C by 5-fold CV "
        "on train + val",
        (TEMPLATE,),
        tfidf_logreg,
    ),
)
