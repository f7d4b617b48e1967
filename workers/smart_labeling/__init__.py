"""Smart labeling: a quick model trained on a dataset's labeled samples suggests a label for every
unlabeled one and ranks what to label next (uncertainty combined with diversity)."""

from __future__ import annotations


class NotEnoughLabels(ValueError):
    """Too few labels to train the quick model: at least 2 classes with 2 labeled samples each
    (detection: 4 annotated images with boxes; regression: 4 samples with a target)."""


class NothingToSuggest(ValueError):
    """Every sample is labeled already."""
