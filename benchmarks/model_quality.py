"""Model quality: every template's presets against strong classical baselines, on the same splits,
over several datasets and seeds, in one run (issue 19).

Sections (``benchmarks/quality/{tabular,text,images}.py``) each export ``DATASETS`` and
``BASELINES``; ``benchmarks/quality/core.py`` runs them: per (dataset, seed) one stratified split
(60 % train, 20 % val, 20 % test), each preset through the platform's path (``recommend()`` with
this machine's CPU profile, the template's ``train`` and ``evaluate`` on the exported ONNX model),
each baseline fitted on train + val only. Scores: test accuracy (classification), R² and RMSE
(regression). The results are written as JSON; ``--write-docs`` rewrites the table in
docs/templates.md (between ``<!-- model-quality:begin -->`` and ``<!-- model-quality:end -->``)
and the "Model quality" section of docs/benchmarks.md from every section's JSON.

    nice -n 5 .venv/bin/python -m benchmarks.model_quality --section tabular --seeds 3
    nice -n 5 .venv/bin/python -m benchmarks.model_quality --section tabular --datasets iris,wine \
        --presets fast
    .venv/bin/python -m benchmarks.model_quality --write-docs

Targets (printed, and in the docs): on each dataset ``balanced`` >= the best baseline's mean minus
its std over seeds; over the datasets, the mean of ``balanced`` above the mean of each dataset's best
baseline; ``accurate`` >= ``balanced`` minus noise (the larger std of the two); ``fast``: its score
and time against ``balanced``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # one OpenMP/BLAS/torch thread per run unless set, before NumPy, torch and LightGBM load (core.run
    # also limits them with threadpoolctl): oversubscribed OpenMP threads stall on a shared machine
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.quality import core  # noqa: E402

SECTIONS = ("tabular", "text", "images")
RESULTS = REPO / "benchmarks" / "quality" / "results"
TEMPLATES_MD = REPO / "docs" / "templates.md"
BENCHMARKS_MD = REPO / "docs" / "benchmarks.md"


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def load_section(name: str) -> Any:
    if name not in SECTIONS:
        raise SystemExit(f"unknown section {name!r}; one of {', '.join(SECTIONS)}")
    return importlib.import_module(f"benchmarks.quality.{name}")


def print_summary(results: dict[str, Any]) -> None:
    print()
    print(core.render_tables([results]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--section", choices=SECTIONS, help="run this section's datasets and baselines")
    parser.add_argument(
        "--datasets", help="comma-separated dataset names, run in this order (default: all of the section)"
    )
    parser.add_argument("--presets", default="fast,balanced,accurate", help="comma-separated preset names")
    parser.add_argument(
        "--baselines", help='comma-separated baseline names (default: all of the section; "": none)'
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 (one split per seed)")
    parser.add_argument(
        "--out", type=Path, help="results JSON (default: benchmarks/quality/results/<section>.json)"
    )
    parser.add_argument(
        "--replace", action="store_true", help="do not keep the file's other datasets (default: merge)"
    )
    parser.add_argument(
        "--write-docs", action="store_true", help="rewrite the docs from every section's JSON"
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder of the sections' JSON files")
    parser.add_argument("--templates-md", type=Path, default=TEMPLATES_MD)
    parser.add_argument("--benchmarks-md", type=Path, default=BENCHMARKS_MD)
    args = parser.parse_args(argv)
    if not args.section and not args.write_docs:
        parser.error("give --section to run one, --write-docs to rewrite the docs, or both")
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")

    if args.section:
        module = load_section(args.section)
        datasets = list(module.DATASETS)
        wanted = _names(args.datasets)
        if wanted:
            unknown = sorted(set(wanted) - {d.name for d in datasets})
            if unknown:
                parser.error(
                    f"unknown dataset(s) {', '.join(unknown)}; {args.section} has "
                    f"{', '.join(d.name for d in datasets)}"
                )
            by_name = {d.name: d for d in datasets}
            datasets = [by_name[name] for name in dict.fromkeys(wanted)]  # in the order given
        baselines = list(module.BASELINES)
        wanted_baselines = _names(args.baselines) if args.baselines != "" else []
        if wanted_baselines is not None:
            unknown = sorted(set(wanted_baselines) - {b.name for b in baselines})
            if unknown:
                parser.error(f"unknown baseline(s) {', '.join(unknown)}")
            baselines = [b for b in baselines if b.name in wanted_baselines]
        presets = _names(args.presets) or []
        out: Path = args.out or args.results / f"{args.section}.json"
        previous = json.loads(out.read_text()) if out.exists() and not args.replace else None

        def save(partial: dict[str, Any]) -> dict[str, Any]:
            merged = core.merge(previous, partial) if previous is not None else partial
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(merged, indent=1) + "\n")
            return merged

        results = save(
            core.run(
                args.section,
                datasets,
                baselines,
                presets=presets,
                seeds=list(range(args.seeds)),
                on_dataset=save,
            )
        )
        print_summary(results)
        print(f"results: {out}")

    if args.write_docs:
        found = [
            args.results / f"{name}.json" for name in SECTIONS if (args.results / f"{name}.json").exists()
        ]
        if not found:
            raise SystemExit(f"no section results in {args.results}; run a --section first")
        missing = [name for name in SECTIONS if not (args.results / f"{name}.json").exists()]
        if missing:
            print(f"note: no results for {', '.join(missing)} in {args.results}; their tables are left out")
        core.write_docs(
            [json.loads(path.read_text()) for path in found], args.templates_md, args.benchmarks_md
        )
        print(f"rewrote {args.templates_md} (model-quality table) and {args.benchmarks_md} (Model quality)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
