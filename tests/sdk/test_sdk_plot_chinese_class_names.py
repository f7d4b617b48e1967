"""plot_confusion_matrix draws Chinese class names with an installed font that has their glyphs
(matplotlib's per-glyph font fallback), instead of empty boxes and "Glyph ... missing" warnings.
CI installs a CJK font (Debian's fonts-wqy-zenhei, .ci/run)."""

from __future__ import annotations

import subprocess
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.ft2font import FT2Font  # noqa: E402
from sampan import EvaluationReport, plot_confusion_matrix  # noqa: E402
from sampan.models import font_families_for  # noqa: E402

CLASSES = ["好评", "差评", "中性评价"]
COUNTS = [[5, 1, 0], [0, 4, 2], [1, 0, 6]]


def _missing_glyph_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_a_cjk_font_is_installed():
    listed = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True).stdout
    assert listed.strip(), "no CJK font installed: apt-get install fonts-wqy-zenhei (as .ci/run does)"


def test_the_default_font_alone_misses_the_glyphs():
    # the failure this file guards against: without a fallback font matplotlib warns and draws boxes
    figure, ax = plt.subplots()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax.set_title("好评")
        figure.canvas.draw()
    plt.close(figure)
    assert _missing_glyph_warnings(caught)


def test_chinese_class_names_are_drawn_without_missing_glyphs():
    families = font_families_for(CLASSES)
    assert families is not None and len(families) == 2
    path = font_manager.findfont(font_manager.FontProperties(family=families[1]), fallback_to_default=False)
    charmap = FT2Font(path).get_charmap()
    assert all(ord(ch) in charmap for name in CLASSES for ch in name), path

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = plot_confusion_matrix(COUNTS, CLASSES, title="模型 V1: 准确率 0.750")
        ax.figure.canvas.draw()
    assert not _missing_glyph_warnings(caught)
    labels = [tick.get_text() for tick in ax.get_xticklabels()]
    assert labels == CLASSES
    assert families[1] in ax.get_xticklabels()[0].get_fontfamily()
    plt.close(ax.figure)


def test_the_evaluation_reports_plot_uses_the_fallback_too():
    averages = {"precision": 0.8, "recall": 0.78, "f1": 0.78}
    report = EvaluationReport(
        1,
        "V1",
        {
            "kind": "classification_report",
            "version": 1,
            "split": "test",
            "samples": 19,
            "classes": CLASSES,
            "accuracy": 0.79,
            "top_k_accuracy": {},
            "macro": averages,
            "weighted": averages,
            "per_class": [],
            "confusion_matrix": {"counts": COUNTS, "samples": []},
            "most_confident_mistakes": [],
            "model": {"path": "model.onnx", "sha256": ""},
        },
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = report.plot_confusion_matrix(normalize=True)
        ax.figure.canvas.draw()
    assert not _missing_glyph_warnings(caught)
    plt.close(ax.figure)


def test_latin_names_keep_the_default_font():
    assert font_families_for(["cat", "dog", "naïve"]) is None
