"""The model-quality benchmark suite: every template's presets against strong classical baselines on
the same splits, over several datasets and seeds (``python -m benchmarks.model_quality``).

``core`` holds the framework (datasets, baselines, splits, the runner, the summary, the targets and
the docs writer); ``tabular``, ``text`` and ``images`` are the sections, each exporting ``DATASETS``
and ``BASELINES``.
"""
