"""Model versions: lineage, metrics, the evaluation report (dataclass and DataFrame), the
confusion-matrix plot, comparison, the ONNX file, and bring-your-own-model uploads."""

from __future__ import annotations

import builtins
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar

from sampan import _html, _optional
from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan.errors import WaitTimeout
from sampan.forecasting import ForecastReport

if TYPE_CHECKING:
    from sampan.batch import BatchPrediction
    from sampan.client import Client
    from sampan.compression import Compression
    from sampan.deployments import Deployment, Package, Prediction
    from sampan.training import Job, TrainingJob


class ClassMetrics:
    """One class's row of a classification report (a view over :class:`sampan.types.ClassScores`)."""

    __slots__ = ("data",)

    def __init__(self, data: schema.ClassScores) -> None:
        self.data = data

    @property
    def name(self) -> str:
        return self.data["class"]

    @property
    def precision(self) -> float:
        return self.data["precision"]

    @property
    def recall(self) -> float:
        return self.data["recall"]

    @property
    def f1(self) -> float:
        return self.data["f1"]

    @property
    def support(self) -> int:
        return self.data["support"]

    def as_dict(self) -> dict[str, Any]:
        """name, precision, recall, f1, support (a DataFrame row)."""
        return {
            "name": self.name,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "support": self.support,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassMetrics) and other.data == self.data

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        return "ClassMetrics(" + ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()) + ")"


def _no_report(body: schema.ModelVersionEvaluation) -> ValueError:
    return ValueError(
        f"Model version {body['name']} has no evaluation report (an uploaded model is not evaluated)."
    )


ReportT = TypeVar("ReportT", schema.ClassificationReport, schema.RegressionReport, schema.DetectionReport)


class _Report(Generic[ReportT]):
    """What every evaluation report view has: its model version, name and the server's payload."""

    data: ReportT

    def __init__(self, model_version: int, name: str, data: ReportT) -> None:
        self.model_version = model_version
        self.name = name
        self.data = data

    @property
    def raw(self) -> ReportT:
        """The report as the server sent it (``data``)."""
        return self.data

    @property
    def split(self) -> str:
        return self.data["split"]

    @property
    def samples(self) -> int:
        return self.data["samples"]

    @property
    def intervals(self) -> dict[str, dict[str, Any]]:
        """The test metrics' 95% bootstrap intervals, by metric (``accuracy`` and ``macro_f1``; ``mae``,
        ``rmse`` and ``r2``): ``{"value", "low", "high", "confidence", "resamples"}`` each; empty for
        a report made before the platform computed them (or a detector's).

        >>> report.intervals["accuracy"]   # {"value": 0.944, "low": 0.861, "high": 1.0, ...}
        """
        found: Mapping[str, Any] = self.data
        return {entry["metric"]: dict(entry) for entry in found.get("intervals") or []}

    @property
    def cross_validation(self) -> dict[str, Any] | None:
        """How a small-data run chose its model: k-fold cross-validation over the train and val
        splits (``metric``, ``folds``, ``scores`` per fold, ``mean``, ``std``, ``chosen``,
        ``candidates``, ``reason``); None when the run held out the val split instead."""
        found: Mapping[str, Any] = self.data
        cv = found.get("cross_validation")
        return dict(cv) if cv else None

    def folds_frame(self) -> Any:
        """The cross-validation's score per fold as a DataFrame (fold, train_samples, samples,
        score); empty when the run did not cross-validate."""
        pd = _optional.pandas()
        cv = self.cross_validation
        return pd.DataFrame(cv["scores"] if cv else [], columns=["fold", "train_samples", "samples", "score"])

    def _spread(self, metric: str) -> str:
        """`` [low, high]`` of a metric's interval (empty without one), for reprs and titles."""
        interval = self.intervals.get(metric)
        return f" [{interval['low']:.4g}, {interval['high']:.4g}]" if interval else ""

    def plot_cross_validation(self, ax: Any = None) -> Any:
        """Each fold's score as a dot, the mean as a dashed line and the mean ± 1 std as a band
        (``pip install sampan[plot]``); returns the Axes."""
        cv = self.cross_validation
        if cv is None:
            raise ValueError(f"Model version {self.name} did not cross-validate (it held out the val split).")
        plt = _optional.pyplot("plot_cross_validation")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3))
        folds = [score["fold"] + 1 for score in cv["scores"]]
        ax.axhspan(
            cv["mean"] - cv["std"], cv["mean"] + cv["std"], color="tab:blue", alpha=0.15, label="mean ± 1 std"
        )
        ax.axhline(cv["mean"], color="tab:blue", linestyle="--", linewidth=1, label="mean")
        ax.scatter(
            folds, [score["score"] for score in cv["scores"]], color="tab:orange", zorder=3, label="fold"
        )
        ax.set_xticks(folds)
        ax.set_xlabel("fold")
        ax.set_ylabel(cv["metric"])
        ax.set_title(
            f"{self.name}: {cv['metric']} {cv['mean']:.4g} ± {cv['std']:.2g} over {cv['folds']} folds"
        )
        ax.legend(loc="best", fontsize="small")
        return ax


class EvaluationReport(_Report[schema.ClassificationReport]):
    """A classifier's evaluation on its dataset version's test split: typed accessors over the
    server's report (``data``, a :class:`sampan.types.ClassificationReport`)."""

    @classmethod
    def from_api(cls, body: schema.ModelVersionEvaluation) -> EvaluationReport:
        """The report of ``GET /model-versions/{id}/evaluation/`` (a classifier's)."""
        report = evaluation_report(body)
        if not isinstance(report, EvaluationReport):
            raise ValueError(
                f"Model version {body['name']} is not a classifier: its report is a {type(report).__name__}."
            )
        return report

    @property
    def classes(self) -> list[str]:
        return self.data["classes"]

    @property
    def accuracy(self) -> float:
        return self.data["accuracy"]

    @property
    def macro_f1(self) -> float:
        return self.data["macro"]["f1"]

    @property
    def weighted_f1(self) -> float:
        return self.data["weighted"]["f1"]

    @property
    def top_k_accuracy(self) -> dict[str, float]:
        """Accuracy among the k best answers, keyed by k (``"1"``, ``"3"``, ``"5"``)."""
        return self.data["top_k_accuracy"]

    @property
    def per_class(self) -> list[ClassMetrics]:
        return [ClassMetrics(row) for row in self.data["per_class"]]

    @property
    def confusion_matrix(self) -> list[list[int]]:
        """Counts: rows are true classes, columns predicted ones (``classes`` order)."""
        return self.data["confusion_matrix"]["counts"]

    @property
    def most_confident_mistakes(self) -> list[schema.Mistake]:
        return self.data["most_confident_mistakes"]

    def __repr__(self) -> str:
        return (
            f"EvaluationReport(model_version={self.model_version}, name={self.name!r}, split={self.split!r}, "
            f"samples={self.samples}, accuracy={self.accuracy:.4g}{self._spread('accuracy')}, "
            f"macro_f1={self.macro_f1:.4g}{self._spread('macro_f1')})"
        )

    def to_dataframe(self) -> Any:
        """Per-class precision, recall, f1 and support as a pandas DataFrame indexed by class."""
        pd = _optional.pandas()
        columns = ["name", "precision", "recall", "f1", "support"]
        return pd.DataFrame([row.as_dict() for row in self.per_class], columns=columns).set_index("name")

    def confusion_dataframe(self) -> Any:
        """The confusion matrix (rows: true class, columns: predicted) as a DataFrame."""
        pd = _optional.pandas()
        return pd.DataFrame(
            self.confusion_matrix,
            index=pd.Index(self.classes, name="true"),
            columns=pd.Index(self.classes, name="predicted"),
        )

    def plot_confusion_matrix(self, ax: Any = None, *, normalize: bool = False, cmap: str = "Blues") -> Any:
        """Draw the confusion matrix with matplotlib (``pip install sampan[plot]``); returns the Axes."""
        return plot_confusion_matrix(
            self.confusion_matrix,
            self.classes,
            ax=ax,
            normalize=normalize,
            cmap=cmap,
            title=f"{self.name}: accuracy {self.accuracy:.3f}",
        )


class RegressionReport(_Report[schema.RegressionReport]):
    """A regression model version's evaluation on its dataset version's test split: MAE, RMSE, R2,
    the residual plot's points (actual vs predicted), the residual histogram, the largest errors
    and permutation feature importance; typed accessors over the server's report (``data``, a
    :class:`sampan.types.RegressionReport`).

    >>> report = model.evaluation()          # a RegressionReport for a tabular regression model
    >>> report.rmse, report.r2
    >>> report.residuals_frame().head()      # sample, actual, predicted, residual
    """

    @classmethod
    def from_api(cls, body: schema.ModelVersionEvaluation) -> RegressionReport:
        """The report of ``GET /model-versions/{id}/evaluation/`` (a regression model's)."""
        report = evaluation_report(body)
        if not isinstance(report, RegressionReport):
            raise ValueError(
                f"Model version {body['name']} is not a regression model: its report is a "
                f"{type(report).__name__}."
            )
        return report

    @property
    def mae(self) -> float:
        return self.data["mae"]

    @property
    def rmse(self) -> float:
        return self.data["rmse"]

    @property
    def r2(self) -> float:
        return self.data["r2"]

    @property
    def residuals(self) -> list[schema.ResidualPoint]:
        """Up to 1000 (sample, actual, predicted) points, evenly picked."""
        return self.data["residuals"]["points"]

    @property
    def residual_histogram(self) -> schema.Histogram:
        """``{edges, counts}`` of the residuals (predicted - actual)."""
        return self.data["residuals"]["histogram"]

    @property
    def largest_errors(self) -> list[schema.LargestError]:
        return self.data["largest_errors"]

    @property
    def feature_importance(self) -> list[schema.FeatureImportance]:
        return self.data["feature_importance"]

    def __repr__(self) -> str:
        return (
            f"RegressionReport(model_version={self.model_version}, name={self.name!r}, split={self.split!r}, "
            f"samples={self.samples}, mae={self.mae:.4g}{self._spread('mae')}, "
            f"rmse={self.rmse:.4g}{self._spread('rmse')}, r2={self.r2:.4g}{self._spread('r2')})"
        )

    def residuals_frame(self) -> Any:
        """The residual plot's points as a DataFrame: sample, actual, predicted, residual
        (predicted - actual)."""
        pd = _optional.pandas()
        frame = pd.DataFrame(self.residuals, columns=["sample", "actual", "predicted"])
        frame["residual"] = frame["predicted"] - frame["actual"]
        return frame

    def feature_importance_frame(self) -> Any:
        """Permutation importance per column (feature, importance, std), most important first."""
        pd = _optional.pandas()
        return pd.DataFrame(self.feature_importance, columns=["feature", "importance", "std"]).set_index(
            "feature"
        )

    def plot_residuals(self, ax: Any = None) -> Any:
        """Predicted against actual with the identity line (``pip install sampan[plot]``); returns the
        Axes."""
        plt = _optional.pyplot("plot_residuals")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        actual = [p["actual"] for p in self.residuals]
        predicted = [p["predicted"] for p in self.residuals]
        ax.scatter(actual, predicted, s=10, alpha=0.7)
        if actual:
            low, high = min(actual + predicted), max(actual + predicted)
            ax.plot([low, high], [low, high], color="grey", linewidth=1)
        ax.set_xlabel("actual")
        ax.set_ylabel("predicted")
        ax.set_title(f"{self.name}: RMSE {self.rmse:.4g}, R² {self.r2:.3f}")
        return ax


class DetectionReport(_Report[schema.DetectionReport]):
    """A detector's evaluation on its dataset version's test split: COCO-style mAP@[.5:.95]
    (``map``), ``map50`` and ``map75``, per-class AP with precision-recall curves at IoU 0.5, the
    class confusion with a background row and column (missed objects, false detections) and bad
    cases (images with false detections or missed objects, with every predicted and true box);
    typed accessors over the server's report (``data``, a :class:`sampan.types.DetectionReport`).

    >>> report = model.evaluation()            # a DetectionReport for an object detector
    >>> report.map50, report.ap_per_class()    # {"cat": 0.91, "dog": 0.84}
    >>> report.to_dataframe()                  # ap, ap50, ap75, ground_truth per class
    """

    @classmethod
    def from_api(cls, body: schema.ModelVersionEvaluation) -> DetectionReport:
        """The report of ``GET /model-versions/{id}/evaluation/`` (a detector's)."""
        report = evaluation_report(body)
        if not isinstance(report, DetectionReport):
            raise ValueError(
                f"Model version {body['name']} is not an object detector: its report is a "
                f"{type(report).__name__}."
            )
        return report

    @property
    def classes(self) -> list[str]:
        return self.data["classes"]

    @property
    def map(self) -> float:
        """mAP@[.5:.95]: AP averaged over IoU thresholds 0.5 to 0.95 and over the classes (COCO)."""
        return self.data["map"]

    @property
    def map50(self) -> float:
        return self.data["map50"]

    @property
    def map75(self) -> float:
        return self.data["map75"]

    @property
    def per_class(self) -> list[schema.ClassAP]:
        """Each class's ``ap``, ``ap50``, ``ap75``, ``ground_truth`` and ``pr_curve``, in the report's
        class order; AP -1 for a class without objects in the split."""
        return self.data["per_class"]

    def ap_per_class(self, iou: str = "ap") -> dict[str, float]:
        """``{class: AP}``: ``iou`` is ``"ap"`` (AP@[.5:.95]), ``"ap50"`` or ``"ap75"``."""
        if iou not in ("ap", "ap50", "ap75"):
            raise ValueError(f"iou must be 'ap', 'ap50' or 'ap75'; got {iou!r}.")
        return {row["label"]: float(row[iou]) for row in self.per_class}  # type: ignore[literal-required]

    def pr_curve(self, label: str) -> schema.PrecisionRecallCurve:
        """A class's precision-recall curve at IoU 0.5 (``{recall, precision}``, COCO's 101 points)."""
        for row in self.per_class:
            if row["label"] == label:
                return row["pr_curve"]
        raise KeyError(f"No class {label!r} in this report (classes: {', '.join(self.classes)}).")

    @property
    def confusion_matrix(self) -> list[list[int]]:
        """``matrix[true][predicted]`` over the classes then background (see ``confusion_labels``)."""
        return self.data["confusion_matrix"]["matrix"]

    @property
    def confusion_labels(self) -> list[str]:
        return self.data["confusion_matrix"]["labels"]

    @property
    def score_threshold(self) -> float:
        return self.data["score_threshold"]

    @property
    def bad_cases(self) -> list[schema.BadCase]:
        """Images with false detections or missed objects, worst first: ``sample`` (the dataset's
        sample id), ``false_positives``, ``missed`` and the ``predicted`` and ``truth`` boxes."""
        return self.data["bad_cases"]

    def __repr__(self) -> str:
        return (
            f"DetectionReport(model_version={self.model_version}, name={self.name!r}, split={self.split!r}, "
            f"samples={self.samples}, map={self.map:.4f}, map50={self.map50:.4f}, map75={self.map75:.4f})"
        )

    def to_dataframe(self) -> Any:
        """Per-class ap, ap50, ap75 and ground_truth as a pandas DataFrame indexed by class."""
        pd = _optional.pandas()
        columns = ["ap", "ap50", "ap75", "ground_truth"]
        frame = pd.DataFrame(
            [{"class": row["label"], **{c: row[c] for c in columns}} for row in self.per_class],  # type: ignore[literal-required]
            columns=["class", *columns],
        )
        return frame.set_index("class")

    def plot_pr_curves(self, ax: Any = None) -> Any:
        """Each class's precision-recall curve at IoU 0.5 (``pip install sampan[plot]``); returns the
        Axes."""
        plt = _optional.pyplot("plot_pr_curves")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 4))
        for row in self.per_class:
            points = [
                (r, p)
                for r, p in zip(row["pr_curve"]["recall"], row["pr_curve"]["precision"], strict=False)
                if p >= 0
            ]
            if points:
                ax.plot([r for r, _ in points], [p for _, p in points], label=row["label"])
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_title(f"{self.name}: mAP@.5 {self.map50:.3f}")
        families = font_families_for(self.classes)
        ax.legend(prop={"family": families} if families else None)
        return ax


Report = EvaluationReport | RegressionReport | DetectionReport | ForecastReport


def evaluation_report(body: schema.ModelVersionEvaluation) -> Report:
    """The typed report of an evaluation answer, by the report's ``kind``: a :class:`RegressionReport`
    for a regression model, a :class:`DetectionReport` for a detector, a
    :class:`sampan.forecasting.ForecastReport` for a forecaster, an :class:`EvaluationReport` for a
    classifier."""
    report = body["evaluation"]
    if not report:
        raise _no_report(body)
    if report["kind"] == "regression_report":
        return RegressionReport(body["id"], body["name"], report)
    if report["kind"] == "detection_report":
        return DetectionReport(body["id"], body["name"], report)
    if report["kind"] == "classification_report":
        return EvaluationReport(body["id"], body["name"], report)
    loose: Mapping[str, Any] = report
    if loose["kind"] == "forecast_report":
        return ForecastReport(body["id"], body["name"], loose)
    raise ValueError(f"This SDK does not know evaluation reports of kind {report['kind']!r}: upgrade sampan.")


def _charmap(path: str) -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


_CHARMAPS: dict[str, frozenset[int]] = {}


def _font_names(font_manager: Any) -> dict[str, str]:
    """Font file -> family name (a collection's first face: its regular one)."""
    names: dict[str, str] = {}
    for entry in font_manager.fontManager.ttflist:
        names.setdefault(entry.fname, entry.name)
    return names


def font_families_for(texts: list[str]) -> list[str] | None:
    """Font families that draw every character of ``texts``: matplotlib's default font first, then an
    installed font with the glyphs it lacks (CJK class names: e.g. Noto Sans CJK, WenQuanYi Zen Hei),
    for matplotlib's per-glyph font fallback. None when the default font covers them all, or when no
    installed font has the missing glyphs (matplotlib then warns about them)."""
    from matplotlib import font_manager

    default = font_manager.findfont(font_manager.FontProperties())
    covered = _CHARMAPS.setdefault(default, _charmap(default))
    needed = {ord(ch) for text in texts for ch in text if not ch.isspace()} - covered
    if not needed:
        return None
    known = _font_names(font_manager)
    candidates = list(known) + [path for path in font_manager.findSystemFonts() if path not in known]
    # fonts made for CJK first: their glyphs are the ones a Chinese, Japanese or Korean label needs
    hints = ("cjk", "wqy", "zenhei", "microhei", "hei", "song", "ming", "gothic", "uming", "ukai")
    candidates.sort(key=lambda path: not any(hint in Path(path).name.lower() for hint in hints))
    for path in candidates:
        charmap = _CHARMAPS.setdefault(path, _charmap(path))
        if needed <= charmap:
            if path not in known:  # installed after matplotlib built its font cache
                font_manager.fontManager.addfont(path)
                known = _font_names(font_manager)
            name = known.get(path) or font_manager.FontProperties(fname=path).get_name()
            return [font_manager.FontProperties().get_family()[0], name]
    return None


def plot_confusion_matrix(
    counts: list[list[int]],
    classes: list[str],
    *,
    ax: Any = None,
    normalize: bool = False,
    cmap: str = "Blues",
    title: str | None = None,
) -> Any:
    """A confusion-matrix heat map with counts in the cells; returns the matplotlib Axes. Class names
    in any script (e.g. Chinese) are drawn with an installed font that has their glyphs."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plot_confusion_matrix needs matplotlib: pip install 'sampan[plot]'") from exc
    import numpy as np

    families = font_families_for([*classes, title or ""])
    font: dict[str, Any] = {"fontfamily": families} if families else {}

    matrix = np.asarray(counts, dtype=float)
    if normalize:
        matrix = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    if ax is None:
        size = max(4.0, 0.5 * len(classes) + 2)
        _, ax = plt.subplots(figsize=(size, size))
    image = ax.imshow(matrix, cmap=cmap)
    ax.set_xticks(
        range(len(classes)),
        labels=classes,
        rotation=45 if max(map(len, classes), default=0) > 3 else 0,
        **font,
    )
    ax.set_yticks(range(len(classes)), labels=classes, **font)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    threshold = matrix.max() / 2 if matrix.size else 0
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            text = f"{matrix[i, j]:.2f}" if normalize else f"{int(matrix[i, j])}"
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=8,
                color="white" if matrix[i, j] > threshold else "black",
            )
    if title:
        ax.set_title(title, **font)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def _forecast_contract_of(fields: Mapping[str, Any]) -> Mapping[str, Any] | None:
    contract: Mapping[str, Any] | None = fields.get("forecast_contract")
    return contract


class ModelVersion(Resource[schema.ModelVersion]):
    """A model version (V1, V2, ... of a project): trained here (``source="trained"``) or uploaded."""

    _path = "model-versions/"

    def evaluation(self) -> Report:
        """The evaluation report: an :class:`EvaluationReport` (classifiers: accuracy, f1s, per class,
        confusion matrix), a :class:`RegressionReport` (regression: MAE, RMSE, R2, residuals) or a
        :class:`DetectionReport` (detectors: mAP, AP per class, PR curves, bad cases)."""
        return self._client.model_versions.evaluation(self)

    def compare(self, other: int | ModelVersion) -> schema.ModelVersionComparison:
        """This version (a) against ``other`` (b); every delta is b minus a (see
        :meth:`ModelVersions.compare`)."""
        return self._client.model_versions.compare(self, other)

    def download_onnx(self, dest: str | os.PathLike[str] | IO[bytes]) -> Path | None:
        return self._client.http.download(f"model-versions/{self.id}/onnx/", dest)

    def try_raw(
        self,
        images: Sequence[Any] | None = None,
        *,
        texts: Sequence[str] | None = None,
        rows: Sequence[Mapping[str, Any]] | Any | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> schema.PredictResponse:
        """The try route's JSON answer for up to 10 instances, the hosted endpoint's answer shape:
        exactly one of ``images``, ``texts`` or ``rows`` (``POST /model-versions/{id}/try/``);
        detectors take ``score_threshold`` and ``max_detections``."""
        from sampan.deployments import predict_body, prediction_instances

        answer: schema.PredictResponse = self._client.http.request(
            "POST",
            f"model-versions/{self.id}/try/",
            json=predict_body(
                prediction_instances(images, texts=texts, rows=rows), top_k, score_threshold, max_detections
            ),
        )
        return answer

    def try_predict(
        self,
        image: Any = None,
        *,
        text: str | None = None,
        row: Mapping[str, Any] | Any | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> Prediction:
        """Try this version before deploying it (EasyDL's 校验模型): one ``image`` (a path, bytes, a
        PIL image or a NumPy array), ``text`` or table ``row``, answered by the same predictor as a
        deployment, signed in with the client's token; no deployment, no key, no usage recorded.

        e.g. ``model.try_predict("digits/3/0003.png").label``, ``model.try_predict(text="great film")``
        """
        given = sum(value is not None for value in (image, text, row))
        if given != 1:
            raise ValueError("Give exactly one of image, text= or row= to try_predict().")
        if row is not None and not isinstance(row, Mapping) and hasattr(row, "to_dict"):  # a pandas Series
            row = row.to_dict()
        return self.try_batch(
            None if image is None else [image],
            texts=None if text is None else [text],
            rows=None if row is None else [row],
            top_k=top_k,
            score_threshold=score_threshold,
            max_detections=max_detections,
        )[0]

    def forecast_contract(self) -> dict[str, Any]:
        """What this forecaster takes (``ForecastContract``: frequency, min_history, horizon,
        quantiles, covariates); ``ValueError`` for another kind of model."""
        contract = _forecast_contract_of(self.data)
        if contract is None:
            contract = _forecast_contract_of(self.refresh().data)
        if contract is None:
            raise ValueError(f"Model version {self.data['name']} is not a forecaster (no forecast_contract).")
        return dict(contract)

    def try_forecast(
        self,
        history: Any,
        *,
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
        known_future: Any = None,
        static: Mapping[str, Mapping[str, Any]] | None = None,
        id_column: str | None = None,
        timestamp_column: str | None = None,
        value_column: str | None = None,
    ) -> Any:
        """Try a forecaster before deploying it (``POST /model-versions/{id}/try/``, 10 series per
        request, nothing counts as usage): the history and answer as
        :meth:`sampan.Deployment.forecast`'s.

        e.g. ``forecaster.try_forecast(recent, id_column="store", timestamp_column="date",
        value_column="sales", known_future=future)``"""
        from sampan.forecasting import forecast_body, forecast_with

        def post(chunk: list[dict[str, Any]]) -> dict[str, Any]:
            answer: dict[str, Any] = self._client.http.request(
                "POST", f"model-versions/{self.id}/try/", json=forecast_body(chunk, horizon, quantiles)
            )
            return answer

        return forecast_with(
            post,
            self.forecast_contract(),
            history,
            horizon=horizon,
            known_future=known_future,
            static=static,
            id_column=id_column,
            timestamp_column=timestamp_column,
            value_column=value_column,
            batch_size=10,
        )

    def try_batch(
        self,
        images: Sequence[Any] | None = None,
        *,
        texts: Sequence[str] | None = None,
        rows: Sequence[Mapping[str, Any]] | Any | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> list[Prediction]:
        """Try this version on a small batch (at most 10 instances: a deployment takes larger
        ones): exactly one of ``images``, ``texts`` or ``rows`` (a list of dicts or a DataFrame)."""
        from sampan.deployments import Prediction, table_rows

        if rows is not None and not isinstance(rows, Mapping):
            rows = table_rows(rows)
        body = self.try_raw(
            images,
            texts=texts,
            rows=rows,
            top_k=top_k,
            score_threshold=score_threshold,
            max_detections=max_detections,
        )
        return [Prediction(answer, body["model_version"], body["kind"]) for answer in body["predictions"]]

    def batch_predict(
        self,
        source: Any,
        *,
        split: str | None = None,
        top_k: int | None = None,
        score_threshold: float | None = None,
        max_detections: int | None = None,
        formats: builtins.list[str] | None = None,
    ) -> BatchPrediction:
        """Predict a whole input with this version, as a job (no deployment needed): ``source`` is
        a :class:`sampan.DatasetVersion` (``split="test"``, ``"val"``, ``"train"`` or all), a
        :class:`sampan.Dataset`, ``{"dataset_version": id}`` / ``{"dataset": id}``, or a file path
        (a .zip/.tar(.gz) of images or .txt texts, a .csv/.jsonl/.parquet table). ``formats``: of
        ``jsonl``, ``csv`` and ``parquet`` (default jsonl and csv; parquet too for a table).
        Returns the :class:`sampan.BatchPrediction` (``.wait()``, ``.results()``, ``.metrics``,
        ``.download()``).

        e.g. ``model.batch_predict(version, split="test").wait().metrics["accuracy"]``
        """
        from sampan.batch import create_batch

        return create_batch(
            self._client,
            self,
            source,
            split=split,
            top_k=top_k,
            score_threshold=score_threshold,
            max_detections=max_detections,
            formats=formats,
        )

    def retrain(
        self, dataset_version: int | Resource[Any], *, preset: str | None = None, **params: Any
    ) -> TrainingJob:
        """Retrain from this version: a training job on ``dataset_version`` (of its project) that
        starts from this version's weights, with its template and parameters (``params`` override
        some; ``preset`` takes a preset's values but keeps this version's network). Classes are
        matched by name: the ones the new data keeps start from what this version learned, new ones
        start fresh. The new version's ``warm_start_from`` names this one. Tabular models cannot
        start from weights (400).

        e.g. ``model.retrain(new_version, epochs=5).wait().model_version().data["warm_start_from"]``
        """
        body: dict[str, Any] = {"dataset_version": _id(dataset_version), "params": params}
        if preset is not None:
            body["preset"] = preset
        job = self._client.http.post(f"model-versions/{self.id}/retrain/", body, idempotent=True)
        return self._client.training_jobs.get(job["id"])

    def compress(
        self,
        *,
        preset: str | None = None,
        recipes: Sequence[Mapping[str, Any]] | None = None,
        teacher: int | Resource[Any] | None = None,
        target: str | int | None = None,
        max_metric_drop: float | None = None,
        wait: bool = False,
        progress: bool = True,
        timeout: float | None = None,
    ) -> Compression:
        """Compress this version into smaller, faster variants, each a new model version with
        ``compressed_from`` this one; see :meth:`sampan.compression.Compressions.start`.

        e.g. ``model.compress(preset="smaller", wait=True).variants()[0].evaluation().accuracy``
        """
        return self._client.compressions.start(
            self,
            preset=preset,
            recipes=recipes,
            teacher=teacher,
            target=target,
            max_metric_drop=max_metric_drop,
            wait=wait,
            progress=progress,
            timeout=timeout,
        )

    def compressions(self) -> builtins.list[Compression]:
        """The compression runs of this version, newest first."""
        return self._client.compressions.list(parent=self)

    def batch_predictions(self) -> builtins.list[BatchPrediction]:
        """This version's batch predictions, newest first."""
        return self._client.batch_predictions.list(model_version=self)

    def deploy(self, name: str | None = None) -> Deployment:
        """Serve this version as a hosted endpoint; see :meth:`sampan.deployments.Deployments.create`."""
        return self._client.deployments.create(self, name=name)

    def package(self, kind: str = "server") -> Package:
        """Build an on-prem server package or a device SDK of this version (a job)."""
        return self._client.packages.create(self, kind=kind)

    def _repr_html_(self) -> str:
        evaluation = None
        if self.data["source"] == "trained":
            try:
                answer: schema.ModelVersionEvaluation = self._client.http.get(
                    f"model-versions/{self.id}/evaluation/"
                )
                evaluation = answer["evaluation"]
            except Exception:  # a notebook's repr must not raise
                evaluation = None
        return _html.model_version(self.data, evaluation)


class ModelVersions:
    """``client.model_versions``: model versions, evaluation, comparison, bring-your-own-model uploads."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        source: str | None = None,
    ) -> builtins.list[ModelVersion]:
        return [
            ModelVersion(self._client, m)
            for m in self._client.http.paginate(
                "model-versions/",
                project=_id(project) if project is not None else None,
                dataset_version=_id(dataset_version) if dataset_version is not None else None,
                source=source,
            )
        ]

    def get(self, model_version_id: int) -> ModelVersion:
        return ModelVersion(self._client, self._client.http.get(f"model-versions/{int(model_version_id)}/"))

    def compress(
        self,
        model_version: int | ModelVersion,
        *,
        preset: str | None = None,
        recipes: Sequence[Mapping[str, Any]] | None = None,
        teacher: int | Resource[Any] | None = None,
        target: str | int | None = None,
        max_metric_drop: float | None = None,
        wait: bool = False,
        progress: bool = True,
        timeout: float | None = None,
    ) -> Compression:
        """Compress a model version (a preset or recipes); see :meth:`sampan.compression.Compressions.start`.

        e.g. ``client.model_versions.compress(5, preset="smaller", wait=True).report["variants"]``
        """
        return self._client.compressions.start(
            model_version,
            preset=preset,
            recipes=recipes,
            teacher=teacher,
            target=target,
            max_metric_drop=max_metric_drop,
            wait=wait,
            progress=progress,
            timeout=timeout,
        )

    def evaluation(self, model_version: int | ModelVersion) -> Report:
        answer: schema.ModelVersionEvaluation = self._client.http.get(
            f"model-versions/{_id(model_version)}/evaluation/"
        )
        return evaluation_report(answer)

    def compare(self, a: int | ModelVersion, b: int | ModelVersion) -> schema.ModelVersionComparison:
        """Two versions' evaluation reports side by side; every delta is b minus a. ``kind`` says which:
        ``"classification_comparison"`` (accuracy, macro_f1, weighted_f1, top_k_accuracy, per_class) or
        ``"regression_comparison"`` (mae, rmse, r2 as ``{a, b, delta}``; lower MAE/RMSE and higher R2
        are better) or ``"detection_comparison"`` (map, map50 and per-class AP as ``{label, a, b,
        delta}``). Models of different kinds cannot be compared (:class:`sampan.BadRequest`).

        e.g. ``client.model_versions.compare(v1, v2)["rmse"]["delta"]`` -> ``-3.2`` (v2 is better)
        """
        compared: schema.ModelVersionComparison = self._client.http.get(
            "model-versions/compare/", a=_id(a), b=_id(b)
        )
        return compared

    def compare_frame(self, a: int | ModelVersion, b: int | ModelVersion) -> Any:
        """The comparison as a pandas DataFrame: per class for classifiers (columns like ``f1_a``,
        ``f1_b``, ``f1_delta``), per metric (mae, rmse, r2; columns a, b, delta) for regression, per
        metric (mase, smape, rmse, coverage, skill; columns a, b, delta) for forecasters."""
        pd = _optional.pandas()
        compared = self.compare(a, b)
        if compared["kind"] == "forecast_comparison":
            from sampan.forecasting import comparison_frame

            return comparison_frame(compared)
        if compared["kind"] == "regression_comparison":
            pairs = {"mae": compared["mae"], "rmse": compared["rmse"], "r2": compared["r2"]}
            return pd.DataFrame([{"metric": m, **pair} for m, pair in pairs.items()]).set_index("metric")
        if compared["kind"] == "detection_comparison":
            return pd.DataFrame(
                [
                    {"class": row["label"], "ap_a": row["a"], "ap_b": row["b"], "ap_delta": row["delta"]}
                    for row in compared["per_class"]
                ],
                columns=["class", "ap_a", "ap_b", "ap_delta"],
            ).set_index("class")
        rows = []
        for row in compared["per_class"]:
            flat: dict[str, Any] = {"class": row["class"]}
            for metric in ("precision", "recall", "f1"):
                pair = row[metric]
                flat[f"{metric}_a"], flat[f"{metric}_b"], flat[f"{metric}_delta"] = (
                    pair["a"],
                    pair["b"],
                    pair["delta"],
                )
            flat["support_a"], flat["support_b"] = row["support"]["a"], row["support"]["b"]
            rows.append(flat)
        return pd.DataFrame(rows).set_index("class")

    def upload_onnx(
        self,
        path: str | os.PathLike[str],
        *,
        project: int | Resource[Any],
        classes: builtins.list[str] | None = None,
        preprocessing: dict[str, Any] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        wait: bool = True,
        progress: bool = False,
    ) -> ModelVersion:
        """Register an ONNX classifier (input float32 [batch, 3, H, W], output [batch, len(classes)]).

        ``preprocessing`` overrides the template's defaults (e.g. ``{"image_size": [32, 32],
        "mean": [0.5] * 3, "std": [0.5] * 3}``); classes and preprocessing default to the file's own
        metadata for a model exported by Sampan. Files referencing external data are refused.

        With ``dataset_version`` (of the same project, its classes in the model's output order) a job
        evaluates the model on that version's test split; ``wait=True`` waits for the report.

        e.g. ``client.model_versions.upload_onnx("mnist.onnx", project=p, classes=list("0123456789"))``
        """
        data: dict[str, Any] = {"project": _id(project), "format": "onnx"}
        if dataset_version is not None:
            data["dataset_version"] = _id(dataset_version)
        if classes is not None:
            data["classes"] = json.dumps(list(classes))
        if preprocessing is not None:
            data["preprocessing"] = json.dumps(preprocessing)
        path = Path(path)
        with path.open("rb") as fh:
            body = self._client.http.post(
                "model-versions/upload/",
                None,
                idempotent=True,
                data=data,
                files={"file": (path.name, fh, "application/octet-stream")},
            )
        model = ModelVersion(self._client, body)
        job = model.data["job"]
        if wait and dataset_version is not None and job is not None:
            self._client.jobs.get(job).wait(progress=progress)
            model.refresh()
        return model

    def upload_state_dict(
        self,
        state_dict: str | os.PathLike[str] | bytes,
        *,
        project: int | Resource[Any],
        architecture: str,
        classes: builtins.list[str],
        image_size: int | None = None,
        preprocessing: dict[str, Any] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        wait: bool = True,
        progress: bool = True,
    ) -> ModelVersion | Job:
        """Register a state_dict of one of the template's architectures (``cnn_small``, ``resnet_narrow``,
        ``resnet18``): a worker reads it with ``weights_only=True``, builds the model and exports ONNX.

        ``state_dict``: a file written by ``torch.save(model.state_dict(), path)``, or its bytes.
        ``dataset_version``: also evaluate it on that version's test split. Returns the model version
        (``wait=True``) or the import job.
        """
        data: dict[str, Any] = {
            "project": _id(project),
            "format": "state_dict",
            "architecture": architecture,
            "classes": json.dumps(list(classes)),
        }
        if image_size is not None:
            data["image_size"] = str(image_size)
        if dataset_version is not None:
            data["dataset_version"] = _id(dataset_version)
        if preprocessing is not None:
            data["preprocessing"] = json.dumps(preprocessing)
        if isinstance(state_dict, bytes):
            files = {"file": ("state_dict.pt", state_dict, "application/octet-stream")}
            body = self._client.http.post(
                "model-versions/upload/", None, idempotent=True, data=data, files=files
            )
        else:
            path = Path(state_dict)
            with path.open("rb") as fh:
                body = self._client.http.post(
                    "model-versions/upload/",
                    None,
                    idempotent=True,
                    data=data,
                    files={"file": (path.name, fh, "application/octet-stream")},
                )
        from sampan.training import Job

        job = Job(self._client, body)
        if not wait:
            return job
        return job.wait(progress=progress).model_version()


class Backbone(Resource[schema.Backbone]):
    """An uploaded state_dict to start training runs from (transfer learning), checked on a worker."""

    _path = "backbones/"

    def wait_checked(self, *, timeout: float = 300, poll: float = 0.5) -> Backbone:
        """Wait until a worker has checked the file (status ``valid`` or ``invalid``)."""
        deadline = time.monotonic() + timeout
        while self.data["status"] == "pending":
            if time.monotonic() > deadline:
                raise WaitTimeout(
                    f"Backbone {self.id} still pending after {timeout:g} s", code="wait_timeout"
                )
            time.sleep(poll)
            self.refresh()
        return self


class Backbones:
    """``client.backbones``: upload, list, get, delete."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(self, *, project: int | Resource[Any] | None = None) -> builtins.list[Backbone]:
        return [
            Backbone(self._client, b)
            for b in self._client.http.paginate(
                "backbones/", project=_id(project) if project is not None else None
            )
        ]

    def get(self, backbone_id: int) -> Backbone:
        return Backbone(self._client, self._client.http.get(f"backbones/{int(backbone_id)}/"))

    def upload(
        self, path: str | os.PathLike[str], *, project: int | Resource[Any], name: str = "", wait: bool = True
    ) -> Backbone:
        path = Path(path)
        with path.open("rb") as fh:
            body = self._client.http.post(
                "backbones/",
                None,
                data={"project": _id(project), "name": name},
                files={"file": (path.name, fh, "application/octet-stream")},
            )
        backbone = Backbone(self._client, body)
        return backbone.wait_checked() if wait else backbone

    def delete(self, backbone: int | Backbone) -> None:
        self._client.http.delete(f"backbones/{_id(backbone)}/")


# The namespace's name before 0.3 (``client.models``, deprecated): kept for imports for one release.
Models = ModelVersions
