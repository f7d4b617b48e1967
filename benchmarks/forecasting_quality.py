"""Forecast quality of the time-series template against statsmodels' ETS and seasonal naive, side by side.

For each of statsmodels' bundled real series (workers.time_series.bundled: co2 weekly, sunspots and
nile yearly, elnino monthly, US real GDP quarterly) and the synthetic store-sales set
(workers.time_series.synthetic: 12 daily series, 2 of them intermittent, price/holiday known
covariates, region static), a TimeSeriesManifest is built directly (no platform) and split by time:
test = the last ``h`` steps of each series, validation = the ``h`` before. Horizons: co2 52 (a
year of weeks), elnino 12, sunspots/nile/realgdp 8, synthetic 14 (two weeks).

On the same test windows, each fitted on the same history (every point before the test window,
missing values filled by the manifest's rule, see workers.time_series.data):

- **Sampan**: ``workers.time_series.trainer.train`` with a preset (balanced by default; ``--presets
  fast,balanced,accurate``), then the exported forecaster (``Forecaster.forecast_arrays``, ONNX
  Runtime plus the NumPy statistical members) forecasts the test window from the history; the
  template's own report (``workers.time_series.evaluation.evaluate``) is computed too and its
  headline MASE shown as a cross-check;
- **statsmodels ETS**: ``ETSModel`` chosen per series by AICc over the template's ETS family:
  additive errors x trend {none, additive, additive damped} x season {none, additive} (a season only
  with two full seasons of history; initial states estimated by maximum likelihood, also for co2's
  52-week season: the heuristic start doubles its MASE there); ``--ets-family wide`` adds
  multiplicative errors and seasons for positive series; its prediction interval at the
  forecaster's level (simulated for multiplicative errors, seed 0);
- **seasonal naive**: the last season repeated (the last value for yearly data); no interval.

Scores (the same code for all three): MASE per series (mean absolute error over the history's
in-sample mean absolute seasonal-naive error, lag 1 when the history is shorter than two seasons),
averaged over series; sMAPE in percent (200 |y - f| / (|y| + |f|), 0 when both are 0), averaged over
observed points; coverage: the share of observed test points inside the interval (nominal 80 %).
Filled (missing) test points are skipped.

    nice -n 10 .venv/bin/python benchmarks/forecasting_quality.py               # balanced, all datasets
    nice -n 10 .venv/bin/python benchmarks/forecasting_quality.py --presets fast,balanced --write
    nice -n 10 .venv/bin/python benchmarks/forecasting_quality.py --datasets nile,elnino --presets fast

Targets (balanced): MASE below seasonal naive's and at most 1.05x statsmodels ETS's on each dataset;
coverage within 5 points of the nominal level.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform as stdlib_platform
import re
import sys
import tempfile
import time
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workers.time_series import bundled, synthetic  # noqa: E402
from workers.time_series.data import Series, load_series  # noqa: E402

DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "forecasting_quality"
SYNTHETIC_HORIZON = 14
DATASETS = (*bundled.REAL, "synthetic")
RATIO_TO_ETS = 1.05
COVERAGE_TOLERANCE = 0.05


def manifest_for(name: str, origin: int = 0) -> Any:
    """The dataset's manifest; ``origin`` k > 0 drops each series' last k horizons first (an earlier
    test window, for rolling-origin runs)."""
    if name == "synthetic":
        rows = synthetic.multi_series(n_series=12, length=200, freq="D", seed=0, intermittent=2)
        manifest = synthetic.manifest(rows, SYNTHETIC_HORIZON, "D")
    else:
        manifest = bundled.manifest(name)
    cut = origin * int(manifest["horizon"])
    if cut:
        for entry in manifest["series"]:
            entry["values"] = entry["values"][:-cut]
            entry["known"] = {k: v[:-cut] for k, v in entry["known"].items()}
            entry["val_start"], entry["test_start"] = synthetic.split_points(
                len(entry["values"]), int(manifest["horizon"])
            )
    return manifest


# --- scores --------------------------------------------------------------------------------------


def mase_scale(history: np.ndarray, m: int) -> float:
    lag = m if len(history) > 2 * m else 1
    diffs = np.abs(history[lag:] - history[:-lag])
    return max(float(np.mean(diffs)) if len(diffs) else 1.0, 1e-8)


def scores(
    series: list[Series],
    m: int,
    means: list[np.ndarray],
    lowers: list[np.ndarray] | None = None,
    uppers: list[np.ndarray] | None = None,
) -> dict[str, float | None]:
    mases, smapes, covered = [], [], []
    for i, s in enumerate(series):
        t = s.test_start
        actual, seen = s.values[t:], s.observed[t:]
        forecast = means[i][: len(actual)]
        error = np.abs(actual - forecast)[seen]
        if not len(error):
            continue
        mases.append(float(np.mean(error)) / mase_scale(s.values[:t], m))
        denominator = (np.abs(actual) + np.abs(forecast))[seen]
        smapes.extend(np.where(denominator > 0, 200 * error / np.where(denominator > 0, denominator, 1), 0.0))
        if lowers is not None and uppers is not None:
            lo, hi = lowers[i][: len(actual)], uppers[i][: len(actual)]
            covered.extend(((actual >= lo) & (actual <= hi))[seen])
    return {
        "mase": float(np.mean(mases)),
        "smape": float(np.mean(smapes)),
        "coverage": float(np.mean(covered)) if covered else None,
    }


# --- the baselines ---------------------------------------------------------------------------------


def seasonal_naive(y: np.ndarray, m: int, h: int) -> np.ndarray:
    if m <= 1 or len(y) < m:
        return np.full(h, y[-1])
    return np.resize(y[-m:], h)


def ets_auto(
    y: np.ndarray, m: int, h: int, level: float, wide: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """statsmodels' ETSModel, the lowest AICc over the family; (mean, lower, upper, its name)."""
    import pandas as pd
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    endog = pd.Series(y)  # statsmodels' prediction results need an index
    positive = wide and bool(np.all(y > 0))
    seasonal_ok = m > 1 and len(y) >= 2 * m + 2
    best: tuple[float, Any, str] | None = None
    for error in ("add", "mul") if positive else ("add",):
        for trend, damped in ((None, False), ("add", False), ("add", True)):
            for season in (
                (None, "add", "mul") if seasonal_ok and wide else (None, "add") if seasonal_ok else (None,)
            ):
                if season == "mul" and not positive:
                    continue
                model = ETSModel(
                    endog,
                    error=error,
                    trend=trend,
                    damped_trend=damped,
                    seasonal=season,
                    seasonal_periods=m if season else None,
                    initialization_method="estimated",
                )
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fitted = model.fit(disp=False, maxiter=200)
                except Exception:  # noqa: BLE001 - a configuration statsmodels cannot fit is skipped
                    continue
                aicc = float(fitted.aicc)
                if np.isfinite(aicc) and (best is None or aicc < best[0]):
                    name = f"ETS({error[0].upper()},{(trend or 'n')[0].upper()}{'d' if damped else ''},"
                    name += f"{(season or 'n')[0].upper()})"
                    best = (aicc, fitted, name)
    if best is None:
        mean = np.full(h, y[-1])
        return mean, mean, mean, "none fitted"
    _, fitted, name = best
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = fitted.get_prediction(start=len(y), end=len(y) + h - 1, rng=np.random.default_rng(0))
        summary = frame.summary_frame(alpha=1 - level)
    return (
        np.asarray(summary["mean"], dtype=float),
        np.asarray(summary["pi_lower"], dtype=float),
        np.asarray(summary["pi_upper"], dtype=float),
        name,
    )


# --- Sampan -----------------------------------------------------------------------------------------


def sampan(manifest: Any, series: list[Series], preset: str, out: Path) -> dict[str, Any]:
    from workers.time_series.predictor import Forecaster
    from workers.time_series.trainer import train

    started = time.perf_counter()
    result = train({"preset": preset}, manifest, out)
    seconds = time.perf_counter() - started
    preprocessing = result["preprocessing"]
    level = float(preprocessing["interval_level"])
    lower_q, upper_q = round((1 - level) / 2, 6), round(1 - (1 - level) / 2, 6)
    forecaster = Forecaster(result["onnx"], preprocessing=preprocessing, threads=1)
    h = int(manifest["horizon"])
    testable = [s for s in series if s.test_start < len(s.values)]
    started = time.perf_counter()
    mean, quantiles = forecaster.forecast_arrays(
        [s.values[: s.test_start] for s in testable],
        [s.timestamps[s.test_start - 1] for s in testable],
        [{k: v[: s.test_start + h] for k, v in s.known.items()} for s in testable],
        [dict(s.static) for s in testable],
        [s.id for s in testable],
        h,
        [lower_q, upper_q],
    )
    predict_seconds = time.perf_counter() - started
    try:
        from workers.time_series.evaluation import evaluate
    except ImportError:  # the report's cross-check is skipped until evaluation.py lands
        report = None
    else:
        report = evaluate(result["onnx"], manifest, preprocessing=preprocessing)
    members = ", ".join(
        f"{m['model']}" + (f" {m['weight']:.2f}" if len(preprocessing["members"]) > 1 else "")
        for m in preprocessing["members"]
    )
    return {
        "scores": scores(
            testable,
            int(preprocessing["season_length"]),
            list(mean),
            list(quantiles[:, 0]),
            list(quantiles[:, 1]),
        ),
        "seconds": seconds,
        "predict_seconds": predict_seconds,
        "level": level,
        "members": members,
        "report_mase": float(report["headline"]["mase"]) if report else None,
        "report_seasonal_naive_mase": float(report["seasonal_naive"]["mase"]) if report else None,
        "val_mase": result.get("metrics", {}).get("val_mase"),
    }


# --- one dataset ----------------------------------------------------------------------------------


def measure(name: str, presets: list[str], work: Path, wide: bool = False, origin: int = 0) -> dict[str, Any]:
    manifest = manifest_for(name, origin)
    frequency, series = load_series(manifest)
    m, h = frequency.season_length, int(manifest["horizon"])
    testable = [s for s in series if s.test_start < len(s.values)]
    level = 0.8
    sn = scores(testable, m, [seasonal_naive(s.values[: s.test_start], m, h) for s in testable])
    started = time.perf_counter()
    ets_runs = [ets_auto(s.values[: s.test_start], m, h, level, wide) for s in testable]
    print(name, "ets", f"{time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    ets_seconds = time.perf_counter() - started
    ets = scores(testable, m, [r[0] for r in ets_runs], [r[1] for r in ets_runs], [r[2] for r in ets_runs])
    chosen = sorted({r[3] for r in ets_runs})
    row: dict[str, Any] = {
        "dataset": name if not origin else f"{name} (test window -{origin})",
        "frequency": frequency.alias,
        "season_length": m,
        "horizon": h,
        "series": len(testable),
        "points": int(sum(len(s.values) for s in series)),
        "seasonal_naive": sn,
        "ets": {
            **ets,
            "seconds": ets_seconds,
            "chosen": chosen[0] if len(chosen) == 1 else f"{len(chosen)} forms",
        },
        "sampan": {},
    }
    for preset in presets:
        try:
            row["sampan"][preset] = sampan(manifest, series, preset, work / f"{name}-{origin}-{preset}")
        except Exception as exc:  # noqa: BLE001 - a failing run is reported in the table, not hidden
            row["sampan"][preset] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        print(name, preset, json.dumps(row["sampan"][preset], default=str), file=sys.stderr, flush=True)
    return row


# --- the Markdown section -------------------------------------------------------------------------


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return stdlib_platform.processor() or stdlib_platform.machine()


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f} %"


def verdicts(rows: list[dict[str, Any]], preset: str) -> tuple[list[str], bool]:
    lines, all_met = [], True
    for row in rows:
        run = row["sampan"].get(preset)
        if not run or "error" in run:
            lines.append(f"{row['dataset']}: no result")
            all_met = False
            continue
        s = run["scores"]
        beats_sn = s["mase"] < row["seasonal_naive"]["mase"]
        near_ets = s["mase"] <= RATIO_TO_ETS * row["ets"]["mase"]
        coverage_ok = s["coverage"] is not None and abs(s["coverage"] - run["level"]) <= COVERAGE_TOLERANCE
        all_met &= beats_sn and near_ets and coverage_ok
        missed = [
            text
            for ok, text in (
                (beats_sn, "MASE not below seasonal naive"),
                (near_ets, f"MASE above {RATIO_TO_ETS}x ETS"),
                (coverage_ok, "coverage off by more than 5 points"),
            )
            if not ok
        ]
        lines.append(f"{row['dataset']}: {'met' if not missed else 'NOT met (' + '; '.join(missed) + ')'}")
    return lines, all_met


def section(rows: list[dict[str, Any]], presets: list[str], seconds: float, load: float | None = None) -> str:
    load = os.getloadavg()[0] if load is None else load
    context = (
        f"Measured {datetime.date.today().isoformat()} on {cpu()}, {os.cpu_count()} cores, Python "
        f"{stdlib_platform.python_version()}, NumPy {np.__version__}, "
        f"statsmodels {metadata.version('statsmodels')}, "
        f"LightGBM {_version('lightgbm')}, ONNX Runtime {_version('onnxruntime')}; 1-minute load average "
        f"{load:.1f} at the end of the run (other work shares these cores; seconds are for "
        f"orientation). The whole run took {seconds / 60:.1f} min. Test window: the last h steps of each "
        "series; "
        "every method fitted on the history before it; MASE averaged over series, sMAPE over points, "
        "coverage of the 80 % interval (see the script's docstring for the definitions and the ETS search)."
    )
    header = (
        "| dataset (freq, m, h, series) | method | MASE | / seasonal naive | / ETS | sMAPE % | coverage 80 % "
        "| fit s | chosen |"
    )
    table = [header, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        label = (
            f"{row['dataset']} ({row['frequency']}, {row['season_length']}, {row['horizon']}, "
            f"{row['series']})"
        )
        sn, ets = row["seasonal_naive"], row["ets"]
        table.append(
            f"| {label} | seasonal naive | {_f(sn['mase'])} | 1.000 | {_f(sn['mase'] / ets['mase'])} "
            f"| {_f(sn['smape'], 1)} | n/a | 0 | |"
        )
        table.append(
            f"| | statsmodels ETS (AICc) | {_f(ets['mase'])} | {_f(ets['mase'] / sn['mase'])} | 1.000 "
            f"| {_f(ets['smape'], 1)} | {_pct(ets['coverage'])} | {ets['seconds']:.1f} | {ets['chosen']} |"
        )
        for preset in presets:
            run = row["sampan"].get(preset, {})
            if "error" in run or not run:
                table.append(f"| | **Sampan {preset}** | failed: {run.get('error', 'not run')} | | | | | | |")
                continue
            s = run["scores"]
            table.append(
                f"| | **Sampan {preset}** | {_f(s['mase'])} | {_f(s['mase'] / sn['mase'])} "
                f"| {_f(s['mase'] / ets['mase'])} | {_f(s['smape'], 1)} | {_pct(s['coverage'])} "
                f"| {run['seconds']:.1f} | {run['members']} (report MASE {_f(run['report_mase'])}) |"
            )
    table += aggregate_rows(rows, presets)
    parts = [
        f"<!-- {SECTION}:start -->",
        "## Forecast quality (`benchmarks/forecasting_quality.py`)",
        "",
        context,
        "",
        *table,
        "",
    ]
    target_preset = "balanced" if "balanced" in presets else presets[0]
    lines, met = verdicts(rows, target_preset)
    parts.append(
        f"Targets ({target_preset}): MASE below seasonal naive's and at most {RATIO_TO_ETS}x statsmodels "
        "ETS's, "
        f"coverage within 5 points of 80 %: {'met on every dataset' if met else 'NOT met everywhere'}. "
        + "; ".join(lines)
        + "."
    )
    runs = [r["sampan"].get(target_preset, {}) for r in rows]
    if runs and all(run and "error" not in run for run in runs):
        to_sn = _geomean(
            [run["scores"]["mase"] / r["seasonal_naive"]["mase"] for run, r in zip(runs, rows, strict=True)]
        )
        to_ets = _geomean(
            [run["scores"]["mase"] / r["ets"]["mase"] for run, r in zip(runs, rows, strict=True)]
        )
        coverage = float(np.mean([run["scores"]["coverage"] for run in runs]))
        overall = to_sn < 1 and to_ets <= RATIO_TO_ETS and abs(coverage - 0.8) <= COVERAGE_TOLERANCE
        parts.append(
            f"\nOver all {len(rows)} test windows ({target_preset}): MASE {to_sn:.3f}x seasonal naive's and "
            f"{to_ets:.3f}x ETS's (geometric means), mean coverage {100 * coverage:.0f} %: the targets "
            f"{'are met on aggregate' if overall else 'are NOT met on aggregate'}."
        )
    parts += [f"<!-- {SECTION}:end -->", ""]
    return "\n".join(parts)


def _geomean(values: list[float]) -> float:
    return float(np.exp(np.mean(np.log(values))))


def aggregate_rows(rows: list[dict[str, Any]], presets: list[str]) -> list[str]:
    """Over every dataset (each test window one entry): the geometric mean of the MASE ratios to
    seasonal naive and to ETS (as the M competitions summarise relative errors), and the mean
    coverage; a single window of one short series moves coverage by 1/h, so read these first."""
    sn = [r["seasonal_naive"]["mase"] for r in rows]
    ets = [r["ets"]["mase"] for r in rows]
    label = f"**all {len(rows)} test windows** (geometric mean of ratios; mean coverage)"
    out = [
        f"| {label} | statsmodels ETS (AICc) | "
        f"| {_f(_geomean([e / n for e, n in zip(ets, sn, strict=True)]))} "
        f"| 1.000 | | {_pct(float(np.mean([r['ets']['coverage'] for r in rows])))} | | |"
    ]
    for preset in presets:
        runs = [r["sampan"].get(preset, {}) for r in rows]
        if any("error" in run or not run for run in runs):
            continue
        mase = [run["scores"]["mase"] for run in runs]
        coverage = float(np.mean([run["scores"]["coverage"] for run in runs]))
        out.append(
            f"| | **Sampan {preset}** | | {_f(_geomean([a / n for a, n in zip(mase, sn, strict=True)]))} "
            f"| {_f(_geomean([a / e for a, e in zip(mase, ets, strict=True)]))} | | {_pct(coverage)} | | |"
        )
    return out


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "n/a"


def write(text: str) -> None:
    docs = DOCS.read_text()
    pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->\n", re.S)
    docs = pattern.sub(lambda _: text, docs) if pattern.search(docs) else docs.rstrip("\n") + "\n\n" + text
    DOCS.write_text(docs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--presets", default="balanced")
    parser.add_argument("--ets-family", choices=("template", "wide"), default="template")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--from-json", type=Path, help="no run: the section from an earlier run's --json")
    parser.add_argument(
        "--origins", type=int, default=1, help="test windows per dataset (rolling origin, one horizon apart)"
    )
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    presets = [p for p in args.presets.split(",") if p]
    started = time.perf_counter()
    rows = []
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        rows, elapsed, load = saved["rows"], saved["seconds"], saved.get("load", float("nan"))
        presets = [p for p in presets if all(p in r["sampan"] for r in rows)]
    else:
        with tempfile.TemporaryDirectory(prefix="sampan-forecast-bench-") as tmp:
            for name in args.datasets.split(","):
                for origin in range(args.origins):
                    rows.append(measure(name, presets, Path(tmp), args.ets_family == "wide", origin))
        elapsed, load = time.perf_counter() - started, os.getloadavg()[0]
    text = section(rows, presets, elapsed, load)
    print(text)
    if args.json:
        args.json.write_text(
            json.dumps({"rows": rows, "seconds": elapsed, "load": load}, indent=1, default=str)
        )
    if args.write:
        write(text)
    _, met = verdicts(rows, "balanced" if "balanced" in presets else presets[0])
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
