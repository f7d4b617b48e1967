"""Regret against elapsed wall-clock time, the sampler's own time included; and time per ask at 1,000 trials.

    nice -n 10 .venv/bin/python -m benchmarks.hpo.wallclock --ask-time       # traces + chart + docs
    nice -n 10 .venv/bin/python -m benchmarks.hpo.wallclock --ask-time-only  # ask time at 1,000 trials

Rank tables count evaluations; a user waits for seconds. Each run here is sequential (q = 1): ask,
evaluate, tell. The measured time of every ask (``study.ask()`` plus the suggestions) is recorded
with the value, so one run gives the timeline for any evaluation cost: elapsed time after trial i is
the sum of the asks so far plus i times the cost. An ask's time is its CPU time (process_time; one
thread, so on an idle core it is its wall time): on the shared 2-core machine the wall time of an
ask was inflated several times by other work, which says nothing about the sampler. Wall times
are recorded too (``asks_wall``). Two costs are shown: a free objective (0 s: the
sampler's time is all there is) and an expensive one (10 s per evaluation, simulated: the
evaluation itself is the BBOB function, its 10 s are added to the clock, not slept). The figure is
the median normalized regret over the problems and seeds at each elapsed time.

Time per ask at 1,000 trials: a study gets 1,000 finished trials (uniform random points of the
d=10 sphere, added through storage), then each sampler answers 20 asks (GPSampler 3: seconds
each), each told at once; the mean and the maximum are reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import optuna

from benchmarks.hpo.problems import make_problem
from benchmarks.hpo.run import LABELS_EXTRA, make_sampler

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "benchmarks" / "hpo" / "results" / "wallclock.jsonl"
ASK_TIMES = REPO / "benchmarks" / "hpo" / "results" / "ask_time_1000.json"
CHART = REPO / "docs" / "benchmarks-hpo-wallclock.svg"
DOCS = REPO / "docs" / "benchmarks.md"
SAMPLERS = ("sde", "sde-sg", "gp", "tpe", "cmaes", "random")
FUNCTIONS = (1, 8, 15, 21)
COSTS = (0.0, 10.0)


def trace(sampler: str, function: int, dim: int, seed: int, budget: int) -> dict:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    problem = make_problem("bbob", str(function), dim, seed + 1, budget)
    study = optuna.create_study(sampler=make_sampler(sampler, seed))
    asks, walls, values = [], [], []
    for _ in range(budget):
        t0, c0 = time.perf_counter(), time.process_time()
        trial = study.ask()
        params = problem.suggest(trial)
        asks.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        value = problem.evaluate(params)
        study.tell(trial, value)
        values.append(value / problem.reference_gap)  # BBOB values are f - f_opt: regret
    return {
        "sampler": sampler,
        "function": function,
        "dim": dim,
        "seed": seed,
        "asks": asks,
        "asks_wall": walls,
        "nreg": values,
    }


def curve(traces: list[dict], cost: float, grid: np.ndarray) -> np.ndarray:
    """Median (over traces) of the best normalized regret reached by each elapsed time."""
    out = []
    for t in traces:
        elapsed = np.cumsum(np.asarray(t["asks"]) + cost)
        best = np.minimum.accumulate(t["nreg"])
        idx = np.searchsorted(elapsed, grid, side="right") - 1
        out.append(np.where(idx >= 0, best[np.maximum(idx, 0)], 1.0))
    return np.median(np.array(out), axis=0)


def ask_time_at(
    n_trials: int, sampler: str, dim: int = 10, asks: int | None = None
) -> tuple[float, float, float]:
    """CPU ms per ask (mean, max) and wall ms per ask (mean)."""
    asks = asks or (3 if sampler == "gp" else 20)  # GPSampler takes seconds per ask at 1,000 trials
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    dist = optuna.distributions.FloatDistribution(-5.0, 5.0)
    study = optuna.create_study(sampler=make_sampler(sampler, 0))
    trials = []
    for x in rng.uniform(-5.0, 5.0, size=(n_trials, dim)):
        trials.append(
            optuna.trial.create_trial(
                params={f"x{i}": float(v) for i, v in enumerate(x)},
                distributions={f"x{i}": dist for i in range(dim)},
                value=float((x**2).sum()),
            )
        )
    study.add_trials(trials)
    times, walls = [], []
    for _ in range(asks):
        t0, c0 = time.perf_counter(), time.process_time()
        trial = study.ask()
        x = np.array([trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(dim)])
        times.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        study.tell(trial, float((x**2).sum()))
    return 1000 * float(np.mean(times)), 1000 * float(np.max(times)), 1000 * float(np.mean(walls))


def chart(traces: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for ax, cost in zip(axes, COSTS, strict=True):
        top = max(sum(t["asks"]) + cost * len(t["asks"]) for t in traces)
        grid = np.geomspace(1e-3, top, 300) if cost == 0 else np.linspace(cost, top, 300)
        for s in SAMPLERS:
            sel = [t for t in traces if t["sampler"] == s]
            if sel:
                ax.plot(grid, curve(sel, cost, grid), label=LABELS_EXTRA.get(s, s))
        ax.set_xscale("log" if cost == 0 else "linear")
        ax.set_yscale("log")
        ax.set_xlabel("elapsed seconds (sampler's time + evaluations)")
        ax.set_ylabel("median normalized regret")
        ax.set_title(f"evaluation cost {cost:g} s" + (" (sampler time only)" if cost == 0 else ""))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.savefig(path)


def final_ranks(traces: list[dict]) -> dict[str, float]:
    """Mean rank (1 = best) of each sampler's final regret, per (function, seed): q=1, whole budget."""
    from scipy.stats import rankdata

    groups: dict[tuple, dict[str, float]] = {}
    for t in traces:
        groups.setdefault((t["function"], t["seed"]), {})[t["sampler"]] = min(t["nreg"])
    present = [s for s in SAMPLERS if any(s in g for g in groups.values())]
    ranks: dict[str, list[float]] = {s: [] for s in present}
    for g in groups.values():
        if all(s in g for s in present):
            for s, r in zip(present, rankdata([g[s] for s in present]), strict=True):
                ranks[s].append(float(r))
    return {s: float(np.mean(v)) for s, v in ranks.items() if v}


def table(traces: list[dict]) -> str:
    """The markdown view: median normalized regret at fixed elapsed times, per cost."""
    lines = []
    checkpoints = {0.0: (0.01, 0.1, 1.0, 10.0), 10.0: (250.0, 500.0, 750.0, 1000.0)}
    ranks = final_ranks(traces)
    for cost in COSTS:
        grid = np.array(checkpoints[cost])
        lines += [
            f"| cost {cost:g} s/eval: elapsed | "
            + " | ".join(f"{g:g} s" for g in grid)
            + " | sampler s total | rank at budget end |",
            "| --- | " + " | ".join("---:" for _ in grid) + " | ---: | ---: |",
        ]
        for s in SAMPLERS:
            sel = [t for t in traces if t["sampler"] == s]
            if sel:
                med = curve(sel, cost, grid)
                total = float(np.median([sum(t["asks"]) for t in sel]))
                lines.append(
                    f"| {LABELS_EXTRA.get(s, s)} | "
                    + " | ".join(f"{v:.3f}" for v in med)
                    + f" | {total:.2f} | {ranks.get(s, float('nan')):.2f} |"
                )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dim", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--samplers", nargs="*", default=list(SAMPLERS))
    parser.add_argument(
        "--ask-time", action="store_true", help="(re)measure the time per ask at 1,000 trials"
    )
    parser.add_argument("--ask-time-only", action="store_true")
    parser.add_argument("--ask-time-samplers", nargs="*", default=["sde", "sde-sg", "tpe", "cmaes", "gp"])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    ask: dict[str, list[float]] = json.loads(ASK_TIMES.read_text()) if ASK_TIMES.exists() else {}
    if args.ask_time or args.ask_time_only:
        for s in args.ask_time_samplers:
            ask[s] = list(ask_time_at(1000, s))
            print(
                f"ask at 1,000 trials: {s} CPU mean {ask[s][0]:.1f} ms, max {ask[s][1]:.1f} ms; "
                f"wall mean {ask[s][2]:.1f} ms",
                flush=True,
            )
            ASK_TIMES.write_text(json.dumps(ask, indent=1) + "\n")
    if args.ask_time_only:
        return 0

    TRACES.parent.mkdir(parents=True, exist_ok=True)
    done, have = [], set()
    if TRACES.exists():
        for line in TRACES.read_text().splitlines():
            t = json.loads(line) if line.strip() else None
            if t and (t["sampler"], t["function"], t["dim"], t["seed"]) not in have:
                have.add((t["sampler"], t["function"], t["dim"], t["seed"]))
                done.append(t)
    with open(TRACES, "a") as out:
        for f in FUNCTIONS:
            for seed in range(args.seeds):
                for s in args.samplers:
                    if (s, f, args.dim, seed) in have:
                        continue
                    t = trace(s, f, args.dim, seed, args.budget)
                    done.append(t)
                    out.write(json.dumps(t) + "\n")
                    out.flush()
                    print(f"f{f} seed {seed} {s}: sampler {sum(t['asks']):.1f} s", flush=True)
    traces = [t for t in done if t["dim"] == args.dim and t["sampler"] in args.samplers]
    chart(traces, CHART)
    text = table(traces)
    print(text)
    if args.no_write:
        return 0
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    ask_line = ", ".join(
        f"{LABELS_EXTRA.get(s, s)} {m:.1f} ms (max {x:.0f}; wall {w:.0f})" for s, (m, x, w) in ask.items()
    )
    fs = ", f".join(map(str, FUNCTIONS))
    section = (
        "<!-- hpo-wallclock:start -->\n### Wall clock: regret against elapsed time\n\n"
        f"Measured {stamp} on {platform.processor() or platform.machine()}, 2 cores shared with other "
        "sessions; sampler time = its CPU time per ask (single-threaded: what an idle core would take). "
        f"BBOB f{fs} "
        f"at d={args.dim}, {args.seeds} seeds, {args.budget} sequential evaluations (q=1). Elapsed time = "
        "the sampler's measured ask times + the evaluation cost (0 s, or 10 s per evaluation simulated). "
        "Median normalized regret at each elapsed time; `sampler s total` is the sampler's own time over "
        "the run. Reproduce: `nice -n 10 .venv/bin/python -m benchmarks.hpo.wallclock`.\n\n"
        f"![regret against elapsed time](benchmarks-hpo-wallclock.svg)\n\n{text}\n"
        f"Time per ask at 1,000 finished trials (d=10, CPU ms, mean of 20 asks; GPSampler 3): {ask_line}.\n"
        "<!-- hpo-wallclock:end -->"
    )
    doc = DOCS.read_text()
    if "<!-- hpo-wallclock:start -->" in doc:
        doc = re.sub(
            r"<!-- hpo-wallclock:start -->.*?<!-- hpo-wallclock:end -->", lambda _: section, doc, flags=re.S
        )
    else:
        anchor = "<!-- hpo-nextbar:end -->" if "<!-- hpo-nextbar:end -->" in doc else "<!-- hpo:end -->"
        doc = doc.replace(anchor, anchor + "\n\n" + section, 1)
    DOCS.write_text(doc)
    print(f"wrote {DOCS} and {CHART}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
