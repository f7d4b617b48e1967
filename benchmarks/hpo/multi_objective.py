"""Multi-objective benchmark: Sampan's SDE sampler against NSGA-II, TPE and random by hypervolume.

    nice -n 10 .venv/bin/python -m benchmarks.hpo.multi_objective --quick     # smoke: a minute
    nice -n 10 .venv/bin/python -m benchmarks.hpo.multi_objective             # the suite (~15 min)
    .venv/bin/python -m benchmarks.hpo.multi_objective --report --write       # table -> docs

Problems (all minimised): ZDT1, ZDT2, ZDT3 (2 objectives, d=5), DTLZ2 (3 objectives, d=6), BNH
(2 objectives, 2 constraints, d=2) and "deployment": a surrogate of an image model's error and
target latency over width, input size, depth, learning rate, weight decay, dropout and int8
quantization (mixed space: floats, log floats, step ints, a categorical),
with a latency budget as a constraint. Score: the hypervolume of the feasible trials at the budget
divided by the hypervolume of the true front (dense reference set), with a fixed reference point
per problem, so 1.0 is the whole front. q=1 is sequential; q=8 is 8 asynchronous workers with
log-normal evaluation times, told in completion order (as benchmarks/hpo/run.py does).

Each run appends one JSON line to results/multi_objective.jsonl; runs already there are skipped.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna._hypervolume import compute_hypervolume
from scipy.stats import rankdata, wilcoxon  # type: ignore[import-untyped]

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "platform"))

from automl.sampler import SdeSampler  # noqa: E402

from benchmarks.hpo.run import schedule  # noqa: E402

RESULTS = REPO / "benchmarks" / "hpo" / "results" / "multi_objective.jsonl"
DOCS = REPO / "docs" / "benchmarks.md"
SAMPLERS = ("sde", "sde-sg", "nsga2", "tpe", "random")
PROBLEMS = ("zdt1", "zdt2", "zdt3", "dtlz2", "bnh", "deployment")
MARK = "hpo_multi_objective"


@dataclass(frozen=True)
class Problem:
    name: str
    n_objectives: int
    suggest: Callable[[optuna.Trial], dict[str, Any]]
    evaluate: Callable[[dict[str, Any]], tuple[list[float], list[float] | None]]
    reference_point: tuple[float, ...]
    reference_set: Callable[[], np.ndarray]  # points of the true (feasible) front


def _floats(trial: optuna.Trial, d: int) -> dict[str, Any]:
    return {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(d)}


def _zdt(kind: int, p: dict[str, Any]) -> tuple[list[float], None]:
    x = np.array([p[f"x{i}"] for i in range(len(p))])
    f1 = x[0]
    g = 1.0 + 9.0 * x[1:].mean()
    r = f1 / g
    h = {1: 1 - np.sqrt(r), 2: 1 - r**2, 3: 1 - np.sqrt(r) - r * np.sin(10 * np.pi * f1)}[kind]
    return [float(f1), float(g * h)], None


def _zdt_front(kind: int) -> np.ndarray:
    f1 = np.linspace(0, 1, 20001)
    h = {1: 1 - np.sqrt(f1), 2: 1 - f1**2, 3: 1 - np.sqrt(f1) - f1 * np.sin(10 * np.pi * f1)}[kind]
    return np.column_stack([f1, h])


def _dtlz2(p: dict[str, Any]) -> tuple[list[float], None]:
    x = np.array([p[f"x{i}"] for i in range(len(p))])
    g = float(((x[2:] - 0.5) ** 2).sum())
    a, b = x[0] * np.pi / 2, x[1] * np.pi / 2
    r = 1 + g
    return [r * np.cos(a) * np.cos(b), r * np.cos(a) * np.sin(b), r * np.sin(a)], None


def _dtlz2_front() -> np.ndarray:
    grid_a, grid_b = np.meshgrid(np.linspace(0, np.pi / 2, 120), np.linspace(0, np.pi / 2, 120))
    a, b = grid_a.ravel(), grid_b.ravel()
    return np.column_stack([np.cos(a) * np.cos(b), np.cos(a) * np.sin(b), np.sin(a)])


def _bnh_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {"x1": trial.suggest_float("x1", 0.0, 5.0), "x2": trial.suggest_float("x2", 0.0, 3.0)}


def _bnh_raw(x1, x2):
    f = np.stack([4 * x1**2 + 4 * x2**2, (x1 - 5) ** 2 + (x2 - 5) ** 2], -1)
    c = np.stack([(x1 - 5) ** 2 + x2**2 - 25, 7.7 - ((x1 - 8) ** 2 + (x2 + 3) ** 2)], -1)
    return f, c


def _bnh(p: dict[str, Any]) -> tuple[list[float], list[float]]:
    f, c = _bnh_raw(np.float64(p["x1"]), np.float64(p["x2"]))
    return [float(v) for v in f], [float(v) for v in c]


def _bnh_front() -> np.ndarray:
    x1, x2 = np.meshgrid(np.linspace(0, 5, 700), np.linspace(0, 3, 420))
    f, c = _bnh_raw(x1.ravel(), x2.ravel())
    return f[np.all(c <= 0, axis=1)]


DEPLOY_BUDGET_MS = 6.0


def _deploy_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "width": trial.suggest_float("width", 0.25, 1.5),
        "image_size": trial.suggest_int("image_size", 96, 320, step=32),
        "depth": trial.suggest_int("depth", 2, 8),
        "lr": trial.suggest_float("lr", 1e-4, 1e-1, log=True),
        "weight_decay": trial.suggest_float("weight_decay", 1e-6, 1e-2, log=True),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5),
        "quantization": trial.suggest_categorical("quantization", ["none", "int8"]),
    }


def _deploy_raw(width, size, depth, int8, tuning):
    # Error falls with capacity (width, depth, input size); int8 costs a little accuracy and cuts
    # latency to 45%; `tuning` is the training hyperparameters' extra error (0 at their optimum).
    # Latency (ms on the target) ~ width^2 size^2 depth; the budget is the constraint.
    capacity = np.sqrt(width) * (depth / 8) ** 0.3 * (size / 224) ** 0.4
    error = 0.06 + 0.4 * np.exp(-2.5 * capacity) + 0.012 * int8 + tuning
    latency = 0.4 + 10.0 * width**2 * (size / 224) ** 2 * (depth / 8) * np.where(int8, 0.45, 1.0)
    return np.stack([error, latency], -1), (latency - DEPLOY_BUDGET_MS)[..., None]


def _deploy(p: dict[str, Any]) -> tuple[list[float], list[float]]:
    # The best learning rate falls with depth, the best dropout grows with it.
    tuning = (
        0.03 * (np.log10(p["lr"]) + 2.0 + 0.15 * p["depth"]) ** 2
        + 0.01 * (np.log10(p["weight_decay"]) + 4.0) ** 2
        + 0.3 * (p["dropout"] - 0.05 * p["depth"]) ** 2
    )
    int8 = 1.0 if p["quantization"] == "int8" else 0.0
    f, c = _deploy_raw(p["width"], p["image_size"], p["depth"], int8, tuning)
    return [float(v) for v in f], [float(v) for v in c]


def _deploy_front() -> np.ndarray:
    w, s, d, q = np.meshgrid(
        np.linspace(0.25, 1.5, 600), np.arange(96, 321, 32), np.arange(2, 9), np.array([0.0, 1.0])
    )
    f, c = _deploy_raw(w.ravel(), s.ravel(), d.ravel(), q.ravel(), 0.0)
    return f[c[:, 0] <= 0]


def make_problem(name: str) -> Problem:
    if name in ("zdt1", "zdt2", "zdt3"):
        kind = int(name[-1])
        return Problem(
            name,
            2,
            lambda t: _floats(t, 5),
            lambda p: _zdt(kind, p),
            (1.1, 5.0),
            lambda: _zdt_front(kind),
        )
    if name == "dtlz2":
        return Problem(name, 3, lambda t: _floats(t, 6), _dtlz2, (1.1, 1.1, 1.1), _dtlz2_front)
    if name == "bnh":
        return Problem(name, 2, _bnh_suggest, _bnh, (140.0, 50.0), _bnh_front)
    if name == "deployment":
        return Problem(name, 2, _deploy_suggest, _deploy, (0.4, DEPLOY_BUDGET_MS), _deploy_front)
    raise ValueError(f"unknown problem {name!r}")


def hypervolume(points: np.ndarray, reference_point: tuple[float, ...]) -> float:
    ref = np.asarray(reference_point, dtype=float)
    if len(points) == 0:
        return 0.0
    inside = points[np.all(points < ref, axis=1)]
    return float(compute_hypervolume(inside, ref)) if len(inside) else 0.0


@cache
def true_hypervolume(name: str) -> float:
    problem = make_problem(name)
    if name == "dtlz2":  # the front is the unit sphere's positive octant
        return float(np.prod(problem.reference_point) - np.pi / 6)
    front = problem.reference_set()
    return hypervolume(front[_front_2d(front)], problem.reference_point)


def _front_2d(f: np.ndarray) -> np.ndarray:
    """The non-dominated rows of a 2-objective set: sort by f1, keep each new minimum of f2."""
    order = np.lexsort((f[:, 1], f[:, 0]))
    running = np.minimum.accumulate(f[order, 1])
    new = np.r_[True, running[1:] < running[:-1]]
    keep = np.zeros(len(f), dtype=bool)
    keep[order[new]] = True
    return keep


def _constraints(trial: optuna.trial.FrozenTrial) -> list[float]:
    return trial.user_attrs["constraints"]


def make_sampler(name: str, seed: int, constrained: bool) -> optuna.samplers.BaseSampler:
    func = _constraints if constrained else None
    if name == "sde":
        return SdeSampler(seed=seed, constraints_func=func)
    if name == "sde-sg":
        # The opt-in surrogate screen (surrogate.py) on the per-particle scalarised ranks.
        return SdeSampler(seed=seed, constraints_func=func, surrogate=True)
    if name == "nsga2":
        # Population 20: the default 50 leaves two generations in 100 evaluations.
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=20, constraints_func=func)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constraints_func=func)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}")


def run_one(task: dict) -> dict:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    problem = make_problem(task["problem"])
    constrained = problem.name in ("bnh", "deployment")
    study = optuna.create_study(
        directions=["minimize"] * problem.n_objectives,
        sampler=make_sampler(task["sampler"], task["seed"], constrained),
    )
    q, budget = task["q"], task["budget"]
    durations = np.random.default_rng([task["seed"], 4242])
    params_of: dict[int, dict] = {}
    ask_times: list[float] = []

    def ask() -> optuna.Trial:
        t0 = time.perf_counter()
        trial = study.ask()
        params_of[trial.number] = problem.suggest(trial)
        ask_times.append(time.perf_counter() - t0)
        return trial

    def evaluate_and_tell(trial: optuna.Trial) -> None:
        values, constraints = problem.evaluate(params_of.pop(trial.number))
        if constraints is not None:
            trial.set_user_attr("constraints", constraints)
        study.tell(trial, values)

    schedule(ask, evaluate_and_tell, q=q, budget=budget, durations=durations)

    trials = study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.COMPLETE])
    feasible = [t for t in trials if all(c <= 0 for c in t.user_attrs.get("constraints", []))]
    points = np.array([t.values for t in feasible]) if feasible else np.empty((0, problem.n_objectives))
    hv = hypervolume(points, problem.reference_point)
    return {
        **{k: task[k] for k in ("problem", "sampler", "seed", "q", "budget")},
        "hypervolume": hv,
        "hv_ratio": hv / true_hypervolume(problem.name),
        "feasible": len(feasible),
        "ask_ms_mean": 1000 * float(np.mean(ask_times)),
    }


def _key(r: dict) -> tuple:
    return (r["problem"], r["sampler"], r["seed"], r["q"], r["budget"])


def load(path: Path = RESULTS) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def report(rows: list[dict], samplers: tuple[str, ...] = SAMPLERS) -> str:
    """Markdown tables: mean HV ratio per problem and q, mean rank, Wilcoxon SDE vs each."""
    by = {_key(r): r for r in rows}
    problems = [p for p in PROBLEMS if any(r["problem"] == p for r in rows)]
    qs = sorted({r["q"] for r in rows})
    budget = max(r["budget"] for r in rows)
    seeds = sorted({r["seed"] for r in rows})
    lines = [
        "| problem | q | " + " | ".join(samplers) + " |",
        "| --- | --- | " + " | ".join("---" for _ in samplers) + " |",
    ]
    ranks: dict[tuple[str, int], list[list[float]]] = {}
    for q in qs:
        for p in problems:
            means = []
            for s in samplers:
                vals = [
                    by[(p, s, seed, q, budget)]["hv_ratio"] for seed in seeds if (p, s, seed, q, budget) in by
                ]
                means.append(np.mean(vals) if vals else float("nan"))
            top = np.nanmax(means)
            cells = [f"**{m:.3f}**" if m == top else f"{m:.3f}" for m in means]
            lines.append(f"| {p} | {q} | " + " | ".join(cells) + " |")
            for seed in seeds:
                keys = [(p, s, seed, q, budget) for s in samplers]
                if all(k in by for k in keys):
                    ranks.setdefault(("all", q), []).append(
                        list(rankdata([-by[k]["hv_ratio"] for k in keys]))
                    )
    lines += ["", "| mean rank (1 = best) | " + " | ".join(samplers) + " |"]
    lines.append("| --- | " + " | ".join("---" for _ in samplers) + " |")
    for q in qs:
        r = np.array(ranks.get(("all", q), []))
        if len(r):
            lines.append(
                f"| q={q} ({len(r)} problem x seed) | " + " | ".join(f"{v:.2f}" for v in r.mean(0)) + " |"
            )
    ours = [s for s in samplers if s.startswith("sde")]
    others = [s for s in samplers if not s.startswith("sde")]
    lines += [
        "",
        "| Wilcoxon signed-rank (hv ratio, paired by problem x seed) | " + " | ".join(others) + " |",
    ]
    lines.append("| --- | " + " | ".join("---" for _ in others) + " |")
    for mine in ours:
        for q in qs:
            cells = []
            for s in others:
                a, b = [], []
                for p in problems:
                    for seed in seeds:
                        ka, kb = (p, mine, seed, q, budget), (p, s, seed, q, budget)
                        if ka in by and kb in by:
                            a.append(by[ka]["hv_ratio"])
                            b.append(by[kb]["hv_ratio"])
                diff = np.array(a) - np.array(b)
                if len(diff) and np.any(diff != 0):
                    pval = wilcoxon(diff).pvalue
                    wins = int((diff > 0).sum())
                    sign = "+" if np.median(diff) > 0 else "-"
                    cells.append(f"{sign} p={pval:.2g} ({wins}/{len(diff)} wins)")
                else:
                    cells.append("n/a")
            lines.append(f"| {mine} vs, q={q} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_docs(table: str, header: str) -> None:
    text = DOCS.read_text()
    start, end = f"<!-- {MARK}:start -->", f"<!-- {MARK}:end -->"
    title = "## Multi-objective hyperparameter search (`benchmarks/hpo/multi_objective.py`)"
    block = f"{start}\n{title}\n\n{header}\n\n{table}\n{end}"
    if start in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOCS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", nargs="*", default=list(PROBLEMS))
    parser.add_argument("--samplers", nargs="*", default=list(SAMPLERS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--q", type=int, nargs="*", default=[1, 8])
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--quick", action="store_true", help="zdt1 and bnh, 2 seeds, q=1, 60 evals")
    parser.add_argument("--report", action="store_true", help="print the tables of the results file")
    parser.add_argument("--write", action="store_true", help="with --report: write docs/benchmarks.md")
    parser.add_argument("--header", default="", help="with --write: the paragraph above the tables")
    args = parser.parse_args(argv)
    if args.report:
        table = report(load(args.results), tuple(args.samplers))
        print(table)
        if args.write:
            write_docs(table, args.header)
        return 0
    if args.quick:
        args.problems, args.seeds, args.q, args.budget = ["zdt1", "bnh"], 2, [1], 60
    done = {_key(r) for r in load(args.results)}
    tasks = [
        {"problem": p, "sampler": s, "seed": seed, "q": q, "budget": args.budget}
        for q in args.q
        for p in args.problems
        for seed in range(args.seeds)
        for s in args.samplers
    ]
    tasks = [t for t in tasks if _key(t) not in done]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with args.results.open("a") as out:
        pool = multiprocessing.Pool(args.processes) if args.processes > 1 else None
        results = pool.imap_unordered(run_one, tasks) if pool else map(run_one, tasks)
        for i, row in enumerate(results, 1):
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(
                f"[{i}/{len(tasks)} {time.perf_counter() - t0:.0f}s] {row['problem']} q={row['q']} "
                f"{row['sampler']} seed={row['seed']}: hv ratio {row['hv_ratio']:.3f}",
                flush=True,
            )
        if pool:
            pool.close()
    rows = [r for r in load(args.results) if r["budget"] == args.budget]
    print(report(rows, tuple(args.samplers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
