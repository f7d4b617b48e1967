"""Run the HPO benchmark: Sampan's SDE sampler against Optuna's TPE, CMA-ES, random and QMC.

    nice -n 10 .venv/bin/python -m benchmarks.hpo.run --quick                 # smoke: a minute
    nice -n 10 .venv/bin/python -m benchmarks.hpo.run --suite bbob --dims 5 --q 8 --seeds 10
    nice -n 10 .venv/bin/python -m benchmarks.hpo.run --suite all --seeds 10 --processes 2
    .venv/bin/python -m benchmarks.hpo.report --write                         # table -> docs

Each run is one (problem, sampler, seed, q) and appends one JSON line to the results file; runs
already in the file are skipped, so the suite can be run in pieces and resumed.

q = 1 is the sequential ask-evaluate-tell loop. q = 8 simulates 8 asynchronous workers honestly:
every evaluation takes a random duration (log-normal, drawn from a stream that depends on the
seed and the trial's slot, not on the sampler), a worker asks for a new trial the moment it is
free, and trials are told in the order they complete, so the sampler always proposes with up to
7 trials still running whose results it does not know.
"""

from __future__ import annotations

import argparse
import heapq
import json
import multiprocessing
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import optuna

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "platform"))

from automl.sampler import SdeSampler  # noqa: E402

from benchmarks.hpo.problems import BBOB_ALL, BBOB_FUNCTIONS, HPOBENCH_DATASETS, make_problem  # noqa: E402

RESULTS = REPO / "benchmarks" / "hpo" / "results" / "runs.jsonl"
SAMPLERS = ("sde", "tpe", "cmaes", "random", "qmc")
# Also runnable: "gp" (Optuna's GPSampler, needs torch) and "sde-sg" (SDE with its surrogate screen).
EXTRA_SAMPLERS = ("gp", "sde-sg")
LABELS_EXTRA = {
    "sde": "SDE (Sampan)",
    "sde-sg": "SDE + surrogate screen",
    "gp": "GPSampler",
    "tpe": "TPE",
    "cmaes": "CMA-ES",
    "random": "random",
    "qmc": "QMC (Sobol)",
}


def make_sampler(name: str, seed: int, sde_options: dict | None = None) -> optuna.samplers.BaseSampler:
    if name == "sde":
        return SdeSampler(seed=seed, **(sde_options or {}))
    if name == "sde-sg":
        return SdeSampler(seed=seed, **{"surrogate": True, **(sde_options or {})})
    if name == "gp":
        import torch

        torch.set_num_threads(1)  # one core per run: the pool runs several at once
        return optuna.samplers.GPSampler(seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "qmc":
        return optuna.samplers.QMCSampler(seed=seed, scramble=True)
    raise ValueError(f"unknown sampler {name!r}")


def schedule(
    ask: Callable[[], optuna.Trial],
    evaluate_and_tell: Callable[[optuna.Trial], None],
    *,
    q: int,
    budget: int,
    durations: np.random.Generator,
) -> None:
    """Run ``budget`` trials: one after another (q=1), or as q asynchronous workers whose evaluations
    take log-normal times, each asking when it frees and told in completion order. The objective is
    computed at completion time (it is deterministic given the params, and HPOBench's noise stream
    then follows completion order); what matters is that the sampler asks while the other workers'
    trials are still running."""
    if q == 1:
        for _ in range(budget):
            evaluate_and_tell(ask())
        return
    running: list[tuple[float, int, optuna.Trial]] = []
    asked = 0
    for _ in range(min(q, budget)):
        trial = ask()
        asked += 1
        heapq.heappush(running, (durations.lognormal(0.0, 0.5), trial.number, trial))
    while running:
        now, _, trial = heapq.heappop(running)
        evaluate_and_tell(trial)
        if asked < budget:
            new = ask()
            asked += 1
            heapq.heappush(running, (now + durations.lognormal(0.0, 0.5), new.number, new))


def run_one(task: dict) -> dict:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    problem = make_problem(task["suite"], task["name"], task["dim"], task["seed"] + 1, task.get("budget"))
    sampler = make_sampler(task["sampler"], task["seed"], task.get("sde_options"))
    study = optuna.create_study(sampler=sampler)
    q, budget = task["q"], problem.budget
    durations = np.random.default_rng([task["seed"], 4242])
    ask_times: list[float] = []

    params_of: dict[int, dict] = {}

    def ask() -> optuna.Trial:
        # Optuna samples when the parameters are suggested: time the ask and the suggestions.
        t0 = time.perf_counter()
        trial = study.ask()
        params_of[trial.number] = problem.suggest(trial)
        ask_times.append(time.perf_counter() - t0)
        return trial

    def evaluate_and_tell(trial: optuna.Trial) -> None:
        study.tell(trial, problem.evaluate(params_of.pop(trial.number)))

    schedule(ask, evaluate_and_tell, q=q, budget=budget, durations=durations)

    best = study.best_trial
    regret = problem.true_regret(best)
    return {
        **{k: task[k] for k in ("suite", "name", "dim", "seed", "q", "sampler")},
        "tag": task.get("tag", ""),
        "problem": problem.key,
        "budget": budget,
        "best_value": float(best.value),
        "regret": float(regret),
        "normalized_regret": float(regret / problem.reference_gap) if problem.reference_gap > 0 else 0.0,
        "ask_ms_mean": 1000 * float(np.mean(ask_times)),
        "ask_ms_max": 1000 * float(np.max(ask_times)),
    }


def tasks_for(args: argparse.Namespace) -> list[dict]:
    tasks = []
    suites = ["bbob", "hpobench"] if args.suite == "all" else [args.suite]
    for suite in suites:
        if suite == "bbob":
            names = [str(f) for f in (args.functions or BBOB_FUNCTIONS)]
            dims = args.dims
        else:
            names = list(args.datasets or HPOBENCH_DATASETS)
            dims = [5]
        for dim in dims:
            for name in names:
                for q in args.q:
                    for seed in range(args.seed_start, args.seed_start + args.seeds):
                        for sampler in args.samplers:
                            tasks.append(
                                {
                                    "suite": suite,
                                    "name": name,
                                    "dim": dim,
                                    "seed": seed,
                                    "q": q,
                                    "sampler": sampler,
                                    "tag": args.tag,
                                    "budget": args.budget,
                                    "sde_options": json.loads(args.sde_options) if args.sde_options else None,
                                }
                            )
    return tasks


def _key(r: dict) -> tuple:
    return (r["suite"], str(r["name"]), r["dim"], r["seed"], r["q"], r["sampler"], r.get("tag", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--suite", choices=["bbob", "hpobench", "all"], default="all")
    parser.add_argument(
        "--functions", type=int, nargs="*", help=f"BBOB function ids (default {BBOB_FUNCTIONS})"
    )
    parser.add_argument("--all-functions", action="store_true", help="all 24 BBOB functions")
    parser.add_argument("--budget", type=int, help="evaluations per run (default 100 at d<=5, else 200)")
    parser.add_argument("--datasets", nargs="*", help="HPOBench datasets (default: all 8)")
    parser.add_argument("--dims", type=int, nargs="*", default=[5, 20], help="BBOB dimensions")
    parser.add_argument("--q", type=int, nargs="*", default=[1, 8], help="concurrent workers")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--samplers", nargs="*", default=list(SAMPLERS), choices=SAMPLERS + EXTRA_SAMPLERS)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--tag", default="", help="label for runs with non-default SDE options")
    parser.add_argument(
        "--sde-options", default="", help="JSON kwargs for SdeSampler, e.g. '{\"step\": 0.4}'"
    )
    parser.add_argument("--quick", action="store_true", help="smoke: 2 functions, d=5, 2 seeds, all samplers")
    args = parser.parse_args(argv)
    if args.all_functions:
        args.functions = list(BBOB_ALL)
    if args.quick:
        args.suite, args.functions, args.dims, args.seeds = "bbob", [1, 15], [5], 2
        args.out = Path("/tmp/sampan-hpo-quick.jsonl")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        done = {_key(json.loads(line)) for line in args.out.read_text().splitlines() if line.strip()}
    todo = [t for t in tasks_for(args) if _key(t) not in done]
    print(f"{len(todo)} runs to do ({len(done)} already in {args.out})", flush=True)
    started = time.time()
    with open(args.out, "a") as out, multiprocessing.Pool(args.processes) as pool:
        for i, result in enumerate(pool.imap_unordered(run_one, todo), 1):
            out.write(json.dumps(result) + "\n")
            out.flush()
            if i % 20 == 0 or i == len(todo):
                print(f"{i}/{len(todo)} runs, {time.time() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
