"""Time per ask with the storage the platform uses: Optuna's RDB storage on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sampan \\
        nice -n 10 .venv/bin/python -m benchmarks.hpo.ask_time_rdb --trials 200 --dim 20

Creates a scratch database `<name>_hpo_ask_time` next to DATABASE_URL's (dropped at the end),
runs a sequential study of a d-dimensional sphere per sampler and prints the mean and p95 time
of `study.ask()` plus the suggestions for the last 50 trials (the most expensive ones).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from urllib.parse import urlparse

import numpy as np
import optuna
import psycopg

from benchmarks.hpo.run import make_sampler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--dim", type=int, default=20)
    parser.add_argument("--samplers", nargs="*", default=["sde", "tpe", "cmaes"])
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    url = urlparse(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sampan"))
    name = f"{url.path.lstrip('/') or 'sampan'}_hpo_ask_time"
    server = url.netloc
    admin = f"postgresql://{server}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        storage = optuna.storages.RDBStorage(f"postgresql+psycopg://{server}/{name}")
        print(f"| sampler | mean ask ms (last 50 of {args.trials}, d={args.dim}, PostgreSQL) | p95 ms |")
        print("| --- | ---: | ---: |")
        for sampler_name in args.samplers:
            study = optuna.create_study(
                storage=storage, sampler=make_sampler(sampler_name, 0), study_name=sampler_name
            )
            times = []
            for _ in range(args.trials):
                t0 = time.perf_counter()
                trial = study.ask()
                x = [trial.suggest_float(f"x{i}", -5, 5) for i in range(args.dim)]
                times.append(time.perf_counter() - t0)
                study.tell(trial, float(np.sum(np.square(x))))
            last = 1000 * np.array(times[-50:])
            print(f"| {sampler_name} | {last.mean():.1f} | {np.percentile(last, 95):.1f} |", flush=True)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
