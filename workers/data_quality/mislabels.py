"""Likely mislabeled samples: confident learning (cleanlab's ``find_label_issues``) on out-of-fold
probabilities, ranked by self-confidence (the probability given to the sample's own label, lowest
first).

The probabilities are the mean of two out-of-fold models on the same features and folds: the
smart-labeling quick model (logistic regression, ``workers.smart_labeling.quick_model``) and a
distance-weighted 10-nearest-neighbour vote. Measured on digits with 5 % injected noise
(``benchmarks/label_noise.py``): logistic regression alone flags many clean but unusual digits
(its probabilities are confident on both sides); the neighbours' vote is sharper about samples that
sit among another class's, and the mean keeps the recall of both.

Confident learning counts a sample as "really class j" only when its probability of j reaches j's
own threshold (the mean probability j's labeled samples get, ~0.95 on digits), so a sample the models
call 0.78 "8" and 0.00 its given "6" is missed. Such samples are added: a given label the models
give under 1 % while preferring another class. With 5 % noise on digits this lifts recall from
~0.87 to ~0.96 at the same precision (``benchmarks/label_noise.py``).

Only classes with labels take part (cleanlab needs every column of ``pred_probs`` to be a class
that occurs); the suggested label is the most probable other class.
"""

from __future__ import annotations

import numpy as np

from workers.contracts.quality import FindingItem

MIN_LABELED_PER_CLASS = 2
FOLDS = 5
NEIGHBOURS = 10
IMPLAUSIBLE = 0.01  # a given label's probability under this is flagged whatever cleanlab says


class TooFewLabels(ValueError):
    """Fewer than 2 classes with 2 labeled samples each: nothing to learn a model from."""


def find_mislabels(features: np.ndarray, labels: np.ndarray, *, seed: int = 0) -> list[FindingItem]:
    """Items for the likely mislabeled rows of ``features`` (``sample`` is the row's position here,
    ``label`` its label, ``suggested_label`` the model's choice, ``confidence`` its probability,
    ``value`` the probability of the given label), most suspicious first."""
    from cleanlab.filter import find_label_issues  # type: ignore[import-untyped]

    labels = np.asarray(labels, dtype=np.int64)
    present, counts = np.unique(labels, return_counts=True)
    kept = present[counts >= MIN_LABELED_PER_CLASS]
    if len(kept) < 2:
        raise TooFewLabels("fewer than 2 classes have 2 labeled samples each")
    rows = np.flatnonzero(np.isin(labels, kept))
    compact = np.searchsorted(kept, labels[rows])
    probabilities = out_of_fold_probabilities_ensemble(features[rows], compact, len(kept), seed=seed)
    # a row can get probability 0 for every class in a degenerate fold; cleanlab wants rows summing to 1
    probabilities = np.clip(probabilities, 1e-6, None)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    flagged = find_label_issues(compact, probabilities, n_jobs=1)
    own = probabilities[np.arange(len(compact)), compact]
    flagged |= (own < IMPLAUSIBLE) & (probabilities.argmax(axis=1) != compact)
    positions = np.flatnonzero(flagged)
    positions = positions[np.argsort(own[positions], kind="stable")]  # lowest self-confidence first
    items: list[FindingItem] = []
    for position in positions.tolist():
        others = probabilities[position].copy()
        others[compact[position]] = -1.0
        suggested = int(others.argmax())
        items.append(
            {
                "sample": int(rows[position]),
                "label": int(kept[compact[position]]),
                "suggested_label": int(kept[suggested]),
                "confidence": round(float(probabilities[position, suggested]), 4),
                "value": round(float(probabilities[position, compact[position]]), 4),
            }
        )
    return items


def out_of_fold_probabilities_ensemble(
    features: np.ndarray, labels: np.ndarray, n_classes: int, *, seed: int = 0
) -> np.ndarray:
    """Each row's class probabilities from models that never saw it: the mean of the quick model's
    (logistic regression) and a distance-weighted k-nearest-neighbour vote, on the same folds."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    from workers.smart_labeling.quick_model import out_of_fold_probabilities, stratified_folds

    # one BLAS thread: on a busy machine, threads competing for cores made the same fit 20x slower
    with threadpool_limits(limits=1):
        linear = out_of_fold_probabilities(features, labels, n_classes, folds=FOLDS, seed=seed)
        neighbours = _neighbour_probabilities(
            features, labels, n_classes, stratified_folds(labels, max(2, min(FOLDS, len(labels))), seed=seed)
        )
    ensemble: np.ndarray = (linear + neighbours) / 2
    return ensemble


def _neighbour_probabilities(
    features: np.ndarray, labels: np.ndarray, n_classes: int, folds: np.ndarray
) -> np.ndarray:
    from sklearn.neighbors import KNeighborsClassifier  # type: ignore[import-untyped]

    out = np.zeros((len(labels), n_classes), dtype=np.float64)
    for fold in np.unique(folds):
        held = folds == fold
        train = ~held
        if not train.any():
            continue
        model = KNeighborsClassifier(n_neighbors=min(NEIGHBOURS, int(train.sum())), weights="distance")
        model.fit(features[train], labels[train])
        out[np.ix_(held, model.classes_)] = model.predict_proba(features[held])
    return out
