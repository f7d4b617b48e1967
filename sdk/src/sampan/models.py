"""Model versions: lineage, metrics, the evaluation report (dataclass and DataFrame), the
confusion-matrix plot, comparison, the ONNX file, and bring-your-own-model uploads."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from sampan import _html
from sampan._resource import Resource
from sampan._resource import id_of as _id

if TYPE_CHECKING:
    from sampan.deployments import Deployment, Package
    from sampan.training import Job


@dataclass(frozen=True)
class ClassMetrics:
    name: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class EvaluationReport:
    """A model version's evaluation on its dataset version's test split."""

    model_version: int
    name: str
    split: str
    samples: int
    classes: list[str]
    accuracy: float
    macro_f1: float
    weighted_f1: float
    top_k_accuracy: dict[str, float]
    per_class: list[ClassMetrics]
    confusion_matrix: list[list[int]]
    most_confident_mistakes: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_api(cls, body: dict[str, Any]) -> EvaluationReport:
        report = body.get("evaluation") or {}
        if not report:
            raise ValueError(
                f"Model version {body.get('name', body.get('id'))} has no evaluation report "
                "(an uploaded model is not evaluated)."
            )
        return cls(
            model_version=int(body["id"]),
            name=str(body["name"]),
            split=report.get("split", "test"),
            samples=int(report.get("samples", 0)),
            classes=list(report.get("classes", [])),
            accuracy=float(report["accuracy"]),
            macro_f1=float(report["macro"]["f1"]),
            weighted_f1=float(report["weighted"]["f1"]),
            top_k_accuracy={str(k): float(v) for k, v in report.get("top_k_accuracy", {}).items()},
            per_class=[
                ClassMetrics(
                    str(r["class"]),
                    float(r["precision"]),
                    float(r["recall"]),
                    float(r["f1"]),
                    int(r["support"]),
                )
                for r in report.get("per_class", [])
            ],
            confusion_matrix=[
                list(map(int, row)) for row in (report.get("confusion_matrix") or {}).get("counts", [])
            ],
            most_confident_mistakes=list(report.get("most_confident_mistakes", [])),
            raw=report,
        )

    def to_dataframe(self) -> Any:
        """Per-class precision, recall, f1 and support as a pandas DataFrame indexed by class."""
        import pandas as pd

        return pd.DataFrame([vars(row) for row in self.per_class]).set_index("name")

    def confusion_dataframe(self) -> Any:
        """The confusion matrix (rows: true class, columns: predicted) as a DataFrame."""
        import pandas as pd

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


@dataclass(frozen=True)
class RegressionReport:
    """A regression model version's evaluation on its dataset version's test split: MAE, RMSE, R2,
    the residual plot's points (actual vs predicted), the residual histogram, the largest errors
    and permutation feature importance.

    >>> report = model.evaluation()          # a RegressionReport for a tabular regression model
    >>> report.rmse, report.r2
    >>> report.residuals_frame().head()      # sample, actual, predicted, residual
    """

    model_version: int
    name: str
    split: str
    samples: int
    mae: float
    rmse: float
    r2: float
    residuals: list[dict[str, Any]] = field(default_factory=list)
    residual_histogram: dict[str, list[float]] = field(default_factory=dict)
    largest_errors: list[dict[str, Any]] = field(default_factory=list)
    feature_importance: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_api(cls, body: dict[str, Any]) -> RegressionReport:
        report = body.get("evaluation") or {}
        residuals = report.get("residuals") or {}
        return cls(
            model_version=int(body["id"]),
            name=str(body["name"]),
            split=report.get("split", "test"),
            samples=int(report.get("samples", 0)),
            mae=float(report["mae"]),
            rmse=float(report["rmse"]),
            r2=float(report["r2"]),
            residuals=list(residuals.get("points", [])),
            residual_histogram=dict(residuals.get("histogram") or {}),
            largest_errors=list(report.get("largest_errors", [])),
            feature_importance=list(report.get("feature_importance", [])),
            raw=report,
        )

    def residuals_frame(self) -> Any:
        """The residual plot's points as a DataFrame: sample, actual, predicted, residual (predicted - actual)."""
        import pandas as pd

        frame = pd.DataFrame(self.residuals, columns=["sample", "actual", "predicted"])
        frame["residual"] = frame["predicted"] - frame["actual"]
        return frame

    def feature_importance_frame(self) -> Any:
        """Permutation importance per column (feature, importance, std), most important first."""
        import pandas as pd

        return pd.DataFrame(self.feature_importance, columns=["feature", "importance", "std"]).set_index(
            "feature"
        )

    def plot_residuals(self, ax: Any = None) -> Any:
        """Predicted against actual with the identity line (``pip install sampan[plot]``); returns the Axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError("plot_residuals needs matplotlib: pip install 'sampan[plot]'") from exc
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


def evaluation_report(body: dict[str, Any]) -> EvaluationReport | RegressionReport:
    """The typed report of an evaluation answer: a :class:`RegressionReport` for a regression model,
    else an :class:`EvaluationReport` (classifiers)."""
    report = body.get("evaluation") or {}
    if report.get("task") == "regression" or (
        {"mae", "rmse", "r2"} <= report.keys() and "accuracy" not in report
    ):
        return RegressionReport.from_api(body)
    return EvaluationReport.from_api(body)


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


class ModelVersion(Resource):
    """A model version (V1, V2, ... of a project): trained here (``source="trained"``) or uploaded."""

    _path = "model-versions/"

    def evaluation(self) -> EvaluationReport | RegressionReport:
        """The evaluation report: an :class:`EvaluationReport` (classifiers: accuracy, f1s, per class,
        confusion matrix) or a :class:`RegressionReport` (regression: MAE, RMSE, R2, residuals)."""
        return evaluation_report(self._client.http.get(f"model-versions/{self.id}/evaluation/"))

    def compare(self, other: int | ModelVersion) -> dict[str, Any]:
        """This version (a) against ``other`` (b); every delta is b minus a (see :meth:`Models.compare`)."""
        return self._client.models.compare(self, other)

    def download_onnx(self, dest: str | os.PathLike[str] | IO[bytes]) -> Path | None:
        return self._client.http.download(f"model-versions/{self.id}/onnx/", dest)

    def deploy(self, name: str | None = None) -> Deployment:
        """Serve this version as a hosted endpoint; see :meth:`sampan.deployments.Deployments.create`."""
        return self._client.deployments.create(self, name=name)

    def package(self, kind: str = "server") -> Package:
        """Build an on-prem server package or a device SDK of this version (a job)."""
        return self._client.packages.create(self, kind=kind)

    def _repr_html_(self) -> str:
        evaluation = None
        if self.data.get("source", "trained") == "trained":
            try:
                evaluation = self._client.http.get(f"model-versions/{self.id}/evaluation/").get("evaluation")
            except Exception:  # a notebook's repr must not raise
                evaluation = None
        return _html.model_version(self.data, evaluation)


class Models:
    """``client.models``: model versions, evaluation, comparison, bring-your-own-model uploads."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource | None = None,
        dataset_version: int | Resource | None = None,
        source: str | None = None,
    ) -> list[ModelVersion]:
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

    def evaluation(self, model_version: int | ModelVersion) -> EvaluationReport | RegressionReport:
        return evaluation_report(self._client.http.get(f"model-versions/{_id(model_version)}/evaluation/"))

    def compare(self, a: int | ModelVersion, b: int | ModelVersion) -> dict[str, Any]:
        """Two versions' evaluation reports side by side; every delta is b minus a. ``task`` says which:
        ``"classification"`` (accuracy, macro_f1, weighted_f1, top_k_accuracy, per_class) or
        ``"regression"`` (mae, rmse, r2 as ``{a, b, delta}``; lower MAE/RMSE and higher R2 are better).
        A classifier and a regression model cannot be compared (:class:`sampan.BadRequest`).

        e.g. ``client.models.compare(v1, v2)["rmse"]["delta"]`` -> ``-3.2`` (v2 is better)
        """
        return self._client.http.get("model-versions/compare/", a=_id(a), b=_id(b))

    def compare_frame(self, a: int | ModelVersion, b: int | ModelVersion) -> Any:
        """The comparison as a pandas DataFrame: per class for classifiers (columns like ``f1_a``,
        ``f1_b``, ``f1_delta``), per metric (mae, rmse, r2; columns a, b, delta) for regression."""
        import pandas as pd

        compared = self.compare(a, b)
        if compared.get("task") == "regression":
            return pd.DataFrame([{"metric": m, **compared[m]} for m in ("mae", "rmse", "r2")]).set_index(
                "metric"
            )
        rows = []
        for row in compared["per_class"]:
            flat: dict[str, Any] = {"class": row["class"]}
            for metric in ("precision", "recall", "f1"):
                for side in ("a", "b", "delta"):
                    flat[f"{metric}_{side}"] = row[metric][side]
            flat["support_a"], flat["support_b"] = row["support"]["a"], row["support"]["b"]
            rows.append(flat)
        return pd.DataFrame(rows).set_index("class")

    def upload_onnx(
        self,
        path: str | os.PathLike[str],
        *,
        project: int | Resource,
        classes: list[str] | None = None,
        preprocessing: dict[str, Any] | None = None,
        dataset_version: int | Resource | None = None,
        wait: bool = True,
        progress: bool = False,
    ) -> ModelVersion:
        """Register an ONNX classifier (input float32 [batch, 3, H, W], output [batch, len(classes)]).

        ``preprocessing`` overrides the template's defaults (e.g. ``{"image_size": [32, 32],
        "mean": [0.5] * 3, "std": [0.5] * 3}``); classes and preprocessing default to the file's own
        metadata for a model exported by Sampan. Files referencing external data are refused.

        With ``dataset_version`` (of the same project, its classes in the model's output order) a job
        evaluates the model on that version's test split; ``wait=True`` waits for the report.

        e.g. ``client.models.upload_onnx("mnist.onnx", project=p, classes=[str(d) for d in range(10)])``
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
        if wait and dataset_version is not None and model.data.get("job") is not None:
            self._client.jobs.get(model.data["job"]).wait(progress=progress)
            model.refresh()
        return model

    def upload_state_dict(
        self,
        state_dict: str | os.PathLike[str] | bytes,
        *,
        project: int | Resource,
        architecture: str,
        classes: list[str],
        image_size: int | None = None,
        preprocessing: dict[str, Any] | None = None,
        dataset_version: int | Resource | None = None,
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


class Backbone(Resource):
    """An uploaded state_dict to start training runs from (transfer learning), checked on a worker."""

    _path = "backbones/"

    def wait_checked(self, *, timeout: float = 300, poll: float = 0.5) -> Backbone:
        """Wait until a worker has checked the file (status ``valid`` or ``invalid``)."""
        import time

        deadline = time.monotonic() + timeout
        while self.data["status"] == "pending":
            if time.monotonic() > deadline:
                from sampan.errors import WaitTimeout

                raise WaitTimeout(
                    f"Backbone {self.id} still pending after {timeout:g} s", code="wait_timeout"
                )
            time.sleep(poll)
            self.refresh()
        return self


class Backbones:
    """``client.backbones``: upload, list, get, delete."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list(self, *, project: int | Resource | None = None) -> list[Backbone]:
        return [
            Backbone(self._client, b)
            for b in self._client.http.paginate(
                "backbones/", project=_id(project) if project is not None else None
            )
        ]

    def get(self, backbone_id: int) -> Backbone:
        return Backbone(self._client, self._client.http.get(f"backbones/{int(backbone_id)}/"))

    def upload(
        self, path: str | os.PathLike[str], *, project: int | Resource, name: str = "", wait: bool = True
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
