"""HTML for notebooks (``_repr_html_``): plain tables, no JavaScript, escaped values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from sampan import _schema as schema

STATUS_COLORS = {
    "queued": "#6b7280",
    "running": "#2563eb",
    "succeeded": "#16a34a",
    "failed": "#dc2626",
    "cancelled": "#9ca3af",
    "completed": "#16a34a",
    "stopped": "#9ca3af",
    "paused": "#d97706",
    "active": "#16a34a",
}
STYLE = "font-family:system-ui,sans-serif;font-size:13px"


def _badge(status: str) -> str:
    color = STATUS_COLORS.get(status, "#6b7280")
    return (
        f'<span style="background:{color};color:white;border-radius:4px;padding:1px 6px">'
        f"{escape(status)}</span>"
    )


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return escape(str(value)) if value is not None else "&mdash;"


def _table(rows: list[tuple[str, Any]]) -> str:
    cells = "".join(
        f"<tr><th style='text-align:left;padding-right:12px'>{escape(k)}</th><td>{_fmt(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table>{cells}</table>"


def job(data: schema.Job | schema.TrainingJob) -> str:
    progress: Mapping[str, Any] = data["progress"]  # every metric the job reported, by name
    fraction = data["progress"].get("fraction") or (1.0 if data["status"] == "succeeded" else 0.0)
    bar = (
        f'<div style="width:240px;height:10px;background:#e5e7eb;border-radius:5px;display:inline-block">'
        f'<div style="width:{100 * fraction:.0f}%;height:10px;background:#2563eb;border-radius:5px">'
        "</div></div>"
        f" {100 * fraction:.0f}%"
    )
    hidden = ("kind", "version", "fraction")
    rows = [(k, v) for k, v in progress.items() if k not in hidden and not isinstance(v, (dict, list))]
    if data["error"]:
        rows.append(("error", data["error"]))
    return (
        f'<div style="{STYLE}"><b>Job {escape(str(data["id"]))}</b> {escape(data["kind"])} '
        f"{_badge(data['status'])}<br>{bar}{_table(rows)}</div>"
    )


def confusion_matrix(counts: list[list[int]], classes: list[str]) -> str:
    peak = max((max(row) for row in counts if row), default=0) or 1
    head = "".join(f"<th>{escape(c)}</th>" for c in classes)
    body = ""
    for name, row in zip(classes, counts, strict=False):
        cells = ""
        for value in row:
            shade = int(255 - 180 * value / peak)
            cells += (
                f'<td style="background:rgb({shade},{shade},255);text-align:right;padding:2px 5px">'
                f"{value}</td>"
            )
        body += f"<tr><th>{escape(name)}</th>{cells}</tr>"
    return f"<table><tr><th>true \\ predicted</th>{head}</tr>{body}</table>"


def model_version(
    data: schema.ModelVersion,
    evaluation: Mapping[str, Any] | None,
) -> str:
    test: Mapping[str, Any] = data["metrics"].get("test") or {}  # headline metrics, by name
    rows: list[tuple[str, Any]] = [
        ("source", data["source"]),
        ("template", data["template"]),
        ("preset", data["preset"] or None),
        ("dataset version", data["dataset_version"]),
        ("classes", len(data["classes"])),
    ]
    rows += [(f"test {k}", v) for k, v in test.items() if not isinstance(v, dict)]
    rows += [(f"test top-{k} accuracy", v) for k, v in (test.get("top_k_accuracy") or {}).items()]
    for interval in (evaluation or {}).get("intervals") or []:
        rows.append(
            (
                f"test {interval['metric']} {100 * interval['confidence']:.0f}% interval",
                f"{interval['low']:.4g} – {interval['high']:.4g}",
            )
        )
    cv = (evaluation or {}).get("cross_validation")
    if cv:
        rows.append(
            (
                "cross-validation",
                f"{cv['metric']} {cv['mean']:.4g} ± {cv['std']:.2g} over {cv['folds']} folds",
            )
        )
    matrix = ""
    if evaluation is not None and evaluation["kind"] == "classification_report":
        matrix = "<p><b>Confusion matrix</b> (test split)</p>" + confusion_matrix(
            evaluation["confusion_matrix"]["counts"], evaluation["classes"]
        )
    return (
        f'<div style="{STYLE}"><b>Model version {escape(data["name"])}</b> '
        f"(id {data['id']}, project {data['project']})"
        f"{_table(rows)}{matrix}</div>"
    )


def study(data: schema.Study, trials: Sequence[schema.Trial], top: int = 5) -> str:
    done = [t for t in trials if t["value"] is not None]
    maximize = data["objective"]["direction"] == "maximize"
    best = sorted(done, key=lambda t: t["value"] or 0.0, reverse=maximize)[:top]
    names = sorted({k for t in best for k in t["params"]})
    head = "".join(f"<th>{escape(n)}</th>" for n in ["trial", "value", "state", *names])
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{_fmt(v)}</td>"
            for v in [t["number"], t["value"], t["state"], *[t["params"].get(n) for n in names]]
        )
        + "</tr>"
        for t in best
    )
    summary = ", ".join(f"{k} {v}" for k, v in data["trials"].items())
    return (
        f'<div style="{STYLE}"><b>Study {data["id"]}</b> '
        f"{escape(data['name'])} "
        f"{_badge(data['status'])} <span>{escape(summary)}</span>"
        f"<p>Best trials</p><table><tr>{head}</tr>{body}</table></div>"
    )
