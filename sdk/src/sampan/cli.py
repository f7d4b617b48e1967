"""The ``sampan`` command line, over the SDK, for scripts.

    sampan login --url http://127.0.0.1:8000 --token spk_...      (or --username; asks the password)
    sampan upload --project 3 --name digits ./digits/            (or --dataset 7)
    sampan import-table wine.csv --project 3 --name wine --task-type tabular_classification \
        --target-column quality --delimiter ';' --decimal ,       (or --dataset 7; XLSX: --sheet 1)
    sampan preview-table wine.csv --dataset 7 --encoding cp1252
    sampan import-time-series sales.csv --project 3 --name sales --timestamp date --series store \
        --target sales --known price --known holiday --static region   (or --dataset 7)
    sampan train --dataset 8 --horizon 14 --preset fast --wait       (forecasting: a version by time)
    sampan forecast 4 recent.csv --id-column store --timestamp-column date --value-column sales \
        --known-future future.csv --horizon 7 --out forecast.csv
    sampan train --dataset 7 --preset fast --param epochs=3 --wait
    sampan train --version 9 --preset balanced --no-adapt          (the preset as declared, not fitted)
    sampan wait 42
    sampan compress 5 --preset balanced --target worker-cpu --wait
    sampan deploy 5 --name digits --key
    sampan predict 2 img1.png img2.png --key spd_...
    sampan batch-predict --model-version 5 --dataset-version 9 --split test --format csv --out test.csv
                                               (or --dataset 7, or --file images.zip / rows.csv)
    sampan custom-job submit ./my-trainer --project 3 --entry train.py --dataset-version 9 \
        -p epochs=3 -p lr=0.01 --memory-mb 2048 --follow     (a .py, .ipynb, .zip or a folder)
    sampan custom-job logs 42 --follow

Every command prints one JSON object on stdout (progress bars and a followed job's log lines go to
stderr; ``custom-job logs`` prints the log lines themselves on stdout); failures exit 1 with the
server's error code and message on stderr.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from sampan.client import DEFAULT_URL, Client
from sampan.errors import SampanError
from sampan.training import describe_choices


def _param(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r}: write parameters as name=value")
    name, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name, value


def _print(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=str))


def cmd_login(args: argparse.Namespace) -> int:
    from sampan.config import save_credentials

    url = args.url.rstrip("/")
    token = args.token
    if token is None:
        username = args.username or input("Username: ")
        password = args.password or getpass.getpass("Password: ")
        token = _token_from_password(url, username, password, name=args.token_name)
    client = Client(url, token)
    me = client.me()
    path = save_credentials(url=url, api_key=token)
    _print({"url": url, "username": me["username"], "config": str(path)})
    return 0


def _token_from_password(url: str, username: str, password: str, *, name: str) -> str:
    """Log in with a browser-style session once, to issue a personal API token."""
    client = Client(url, api_key=None)
    http = client.http
    csrf = http.get("auth/csrf/")["csrf_token"]
    headers = {"X-CSRFToken": csrf, "Referer": url + "/"}
    http.request("POST", "auth/login/", json={"username": username, "password": password}, headers=headers)
    headers["X-CSRFToken"] = http.session.cookies.get("csrftoken", csrf)
    created = http.request("POST", "tokens/", json={"name": name}, headers=headers)
    return str(created["key"])


def _dataset(client: Client, args: argparse.Namespace, command: str) -> Any:
    if args.dataset is not None:
        return client.datasets.get(args.dataset)
    if args.project is not None and args.name:
        return client.datasets.create(args.name, project=args.project, task_type=args.task_type)
    raise SystemExit(f"{command}: give --dataset ID, or --project ID and --name NAME to create one")


def _upload_summary(dataset: Any, result: Any) -> dict[str, Any]:
    return {
        "dataset": dataset.id,
        "imported": result.imported,
        "duplicates": result.duplicates,
        "failed": result.failed,
        "labels_created": result.labels_created,
        "problems": result.problems[:20],
    }


def cmd_upload(args: argparse.Namespace) -> int:
    dataset = _dataset(Client(), args, "upload")
    result = dataset.upload(
        args.source, label=args.label, progress=not args.quiet
    )  # a table for text/tabular
    _print(_upload_summary(dataset, result))
    return 0


def _sheet(text: str) -> str | int:
    return int(text) if text.isdigit() else text


def _table_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "encoding": args.encoding,
        "delimiter": args.delimiter,
        "decimal": args.decimal,
        "sheet": args.sheet,
    }


def cmd_import_table(args: argparse.Namespace) -> int:
    dataset = _dataset(Client(), args, "import-table")
    result = dataset.import_table(
        args.source,
        target_column=args.target_column,
        text_column=args.text_column,
        label_column=args.label_column,
        background=args.background,
        progress=not args.quiet,
        **_table_options(args),
    )
    _print(_upload_summary(dataset, result))
    return 0


def cmd_preview_table(args: argparse.Namespace) -> int:
    dataset = Client().datasets.get(args.dataset)
    _print(dataset.preview_table(args.source, **_table_options(args)))
    return 0


def cmd_import_time_series(args: argparse.Namespace) -> int:
    args.task_type = "time_series_forecasting"
    dataset = _dataset(Client(), args, "import-time-series")
    result = dataset.import_time_series(
        args.source,
        timestamp=args.timestamp,
        targets=args.target,
        series=args.series,
        known=args.known or (),
        static=args.static or (),
        frequency=args.frequency,
        fill_rule=args.fill_rule,
        background=args.background,
        progress=not args.quiet,
    )
    _print(_upload_summary(dataset, result))
    return 0


def _read_table(path: str) -> Any:
    from sampan._optional import pandas

    pd = pandas()
    lower = path.lower()
    if lower.endswith(".parquet"):
        return pd.read_parquet(path)
    if lower.endswith((".jsonl", ".ndjson")):
        return pd.read_json(path, lines=True)
    if lower.endswith(".xlsx"):
        return pd.read_excel(path)
    return pd.read_csv(path, sep="\t" if lower.endswith(".tsv") else ",")


def cmd_forecast(args: argparse.Namespace) -> int:
    deployment = Client().deployments.get(args.deployment)
    frame = deployment.forecast(
        _read_table(args.history),
        horizon=args.horizon,
        quantiles=args.quantile,
        known_future=None if args.known_future is None else _read_table(args.known_future),
        id_column=args.id_column,
        timestamp_column=args.timestamp_column,
        value_column=args.value_column,
        key=args.key,
    )
    if args.out:
        frame.to_csv(args.out, index=False, date_format="%Y-%m-%dT%H:%M:%S")
        _print({"deployment": deployment.id, "rows": len(frame), "out": args.out})
    else:
        frame["timestamp"] = frame["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S")
        _print(frame.to_dict("records"))
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    client = Client()
    if args.version is not None:
        version: Any = args.version
    elif args.dataset is not None and args.horizon is not None:
        version = client.datasets.get(args.dataset).create_version(horizon=args.horizon)
    elif args.dataset is not None:
        version = client.datasets.get(args.dataset).create_version(seed=args.seed)
    else:
        raise SystemExit("train: give --version ID, or --dataset ID to snapshot a new version")
    job = client.training.start(
        version,
        preset=args.preset,
        params=dict(args.param or []),
        adapt=not args.no_adapt,
        processes=args.processes,
    )
    recommendation = job.recommendation
    choices = recommendation["choices"] if recommendation else []
    if choices and not args.quiet:  # for people; stdout stays one JSON document
        print("Chosen for your data and workers:", file=sys.stderr)
        print(describe_choices(recommendation), file=sys.stderr)
    if args.wait:
        job.wait(progress=not args.quiet)
        model = job.model_version()
        _print(
            {
                "job": job.id,
                "status": job.status,
                "model_version": model.id,
                "name": model.data["name"],
                "test": model.data["metrics"].get("test"),
                "choices": choices,
            }
        )
    else:
        _print({"job": job.id, "status": job.status, "choices": choices})
    return 0


def cmd_wait(args: argparse.Namespace) -> int:
    job = Client().jobs.get(args.job)
    job.wait(timeout=args.timeout, progress=not args.quiet, raise_on_failure=False)
    _print(
        {
            "job": job.id,
            "kind": job.data["kind"],
            "status": job.status,
            "result": job.data["result"],
            "error": job.data["error"] or None,
        }
    )
    return 0 if job.status == "succeeded" else 1


def cmd_compress(args: argparse.Namespace) -> int:
    run = Client().model_versions.compress(
        args.model_version, preset=args.preset, target=args.target, teacher=args.teacher
    )
    if args.wait:
        run.wait(progress=not args.quiet, raise_on_failure=False)
    report = run.report
    _print(
        {
            "compression": run.id,
            "job": run.data["job"],
            "status": run.status,
            "model_versions": [v["model_version"] for v in report["variants"]] if report else [],
            "variants": run.rows(),
            "skipped": report["skipped"] if report else [],
            "error": run.data.get("error") or None,
        }
    )
    return 0 if not args.wait or run.status == "succeeded" else 1


def cmd_deploy(args: argparse.Namespace) -> int:
    client = Client()
    deployment = client.deployments.create(args.model_version, name=args.name)
    out: dict[str, Any] = {
        "deployment": deployment.id,
        "name": deployment.data["name"],
        "status": deployment.data["status"],
        "predict_url": client.base_url + deployment.data["predict_url"],
    }
    if args.key:
        out["key"] = deployment.create_key(args.key_name)["key"]
    _print(out)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    deployment = Client().deployments.get(args.deployment)
    answers = deployment.predict_batch(list(args.images), key=args.key, top_k=args.top_k)
    _print(
        [
            {"image": image, "label": a.label, "score": a.score, "top_k": a.top_k}
            for image, a in zip(args.images, answers, strict=True)
        ]
    )
    return 0


def cmd_batch_predict(args: argparse.Namespace) -> int:
    client = Client()
    if sum(x is not None for x in (args.dataset_version, args.dataset, args.file)) != 1:
        raise SystemExit("batch-predict: give one of --dataset-version ID, --dataset ID or --file PATH")
    source: Any
    if args.dataset_version is not None:
        source = {"dataset_version": args.dataset_version}
    elif args.dataset is not None:
        source = {"dataset": args.dataset}
    else:
        source = args.file
    batch = client.batch_predictions.create(
        args.model_version,
        source,
        split=args.split,
        top_k=args.top_k,
        # the server's default: jsonl and csv (and parquet for a table)
        formats=["jsonl", "csv", "parquet"] if args.format == "parquet" else None,
    )
    batch.wait(timeout=args.timeout, progress=not args.quiet, raise_on_failure=False)
    summary = batch.summary
    out: dict[str, Any] = {
        "batch_prediction": batch.id,
        "status": batch.status,
        "rows": None if summary is None else summary["rows"],
        "predicted": None if summary is None else summary["predicted"],
        "errors": None if summary is None else summary["errors"],
        "metrics": batch.metrics,
        "error": batch.data["error"] or None,
    }
    if batch.status == "succeeded" and args.out:
        path = batch.download(args.out, format=args.format, progress=not args.quiet)
        out["out"] = str(path)
    _print(out)
    return 0 if batch.status == "succeeded" else 1


def _print_log_line(line: Any, *, out: Any, json_lines: bool = False) -> None:
    if json_lines:
        print(json.dumps(line), file=out, flush=True)
    else:
        prefix = "" if line["stream"] == "stdout" else f"[{line['stream']}] "
        print(prefix + line["text"], file=out, flush=True)


def _custom_job_summary(job: Any) -> dict[str, Any]:
    result = job.data.get("result") or {}
    return {
        "job": job.id,
        "kind": job.data["kind"],
        "status": job.status,
        "exit_code": result.get("exit_code"),
        "stopped": result.get("stopped"),
        "metrics": result.get("metrics"),
        "model_version": result.get("model_version"),
        "error": job.data.get("error") or None,
    }


def cmd_custom_job_submit(args: argparse.Namespace) -> int:
    from sampan.jobs import _project

    client = Client()
    if (args.path is None) == (args.code_archive is None):
        raise SystemExit("custom-job submit: give the code's PATH or --code-archive ID (one of them)")
    limits = {
        key: value
        for key, value in (
            ("wall_time_s", args.wall_time_s),
            ("memory_mb", args.memory_mb),
            ("cpus", args.cpus),
        )
        if value is not None
    }
    job = client.custom_jobs.submit(
        _project(args.project),
        args.path if args.path is not None else args.code_archive,
        entry_point=args.entry,
        args=args.arg or [],
        hyperparameters=dict(args.param or []),
        requirements=args.requirements,
        dataset_version=args.dataset_version,
        queue=args.queue,
        limits=limits or None,
        network=args.network,
        name=args.name,
    )
    if not args.follow:
        _print(_custom_job_summary(job))
        return 0
    for line in job.logs(follow=True, timeout=args.timeout):
        _print_log_line(line, out=sys.stderr)
    _print(_custom_job_summary(job))
    return 0 if job.status == "succeeded" else 1


def cmd_custom_job_logs(args: argparse.Namespace) -> int:
    job = Client().jobs.get(args.job)
    for line in job.logs(after=args.after, follow=args.follow, timeout=args.timeout):
        _print_log_line(line, out=sys.stdout, json_lines=args.json)
    if args.follow:
        return 0 if job.status == "succeeded" else 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sampan", description="Sampan command line (over the Python SDK).")
    sub = parser.add_subparsers(dest="command", required=True)

    login = sub.add_parser("login", help="store the platform URL and an API token (0600 config file)")
    login.add_argument("--url", default=DEFAULT_URL)
    login.add_argument("--token", help="a personal API token (spk_...); else log in with a username")
    login.add_argument("--username")
    login.add_argument("--password", help="(prompted when omitted)")
    login.add_argument("--token-name", default="sampan-cli")
    login.set_defaults(func=cmd_login)

    upload = sub.add_parser("upload", help="upload a folder per class, an archive or image files")
    upload.add_argument("source")
    upload.add_argument("--dataset", type=int)
    upload.add_argument("--project", type=int)
    upload.add_argument("--name")
    upload.add_argument("--task-type", default="image_classification", help="of a dataset created by --name")
    upload.add_argument("--label")
    upload.add_argument("--quiet", action="store_true")
    upload.set_defaults(func=cmd_upload)

    def table_options(command: argparse.ArgumentParser) -> None:
        command.add_argument("source", help="a CSV, TSV, JSONL, XLSX or Parquet file")
        command.add_argument("--encoding", help="e.g. gb18030, cp1252 (detected when omitted)")
        command.add_argument("--delimiter", help="e.g. ';' (detected when omitted)")
        command.add_argument("--decimal", help="the decimal mark, '.' or ',' (detected when omitted)")
        command.add_argument("--sheet", type=_sheet, help="an XLSX sheet's name or 0-based index")

    import_table = sub.add_parser("import-table", help="import a table file into a text or tabular dataset")
    table_options(import_table)
    import_table.add_argument("--dataset", type=int)
    import_table.add_argument("--project", type=int)
    import_table.add_argument("--name")
    import_table.add_argument(
        "--task-type",
        default="tabular_classification",
        choices=["tabular_classification", "tabular_regression", "text_classification"],
    )
    import_table.add_argument("--target-column", help="tabular: the column to predict")
    import_table.add_argument("--text-column", help="text: the column of texts (guessed when omitted)")
    import_table.add_argument("--label-column", help="text: the column of labels (guessed when omitted)")
    import_table.add_argument("--background", action="store_true", help="import in a background job")
    import_table.add_argument("--quiet", action="store_true")
    import_table.set_defaults(func=cmd_import_table)

    preview_table = sub.add_parser(
        "preview-table",
        help="a table file's columns, types, first rows and suggested mapping (stores nothing)",
    )
    table_options(preview_table)
    preview_table.add_argument("--dataset", type=int, required=True)
    preview_table.set_defaults(func=cmd_preview_table)

    series = sub.add_parser(
        "import-time-series", help="import a table of observations into a forecasting dataset"
    )
    series.add_argument("source", help="a CSV, TSV, JSONL, XLSX or Parquet file")
    series.add_argument("--dataset", type=int)
    series.add_argument("--project", type=int)
    series.add_argument("--name")
    series.add_argument("--timestamp", required=True, help="the timestamp column")
    series.add_argument("--target", action="append", required=True, help="a target column (repeat)")
    series.add_argument("--series", help="long tables: the series-id column")
    series.add_argument("--known", action="append", help="a known-future covariate column (repeat)")
    series.add_argument("--static", action="append", help="a static covariate column (repeat)")
    series.add_argument("--frequency", help="e.g. D, W, MS, h (inferred when omitted)")
    series.add_argument("--fill-rule", default="interpolate", choices=["interpolate", "forward_fill", "zero"])
    series.add_argument("--background", action="store_true", help="import in a background job")
    series.add_argument("--quiet", action="store_true")
    series.set_defaults(func=cmd_import_time_series)

    forecast = sub.add_parser("forecast", help="forecast the series of a history table with a deployment")
    forecast.add_argument("deployment", type=int)
    forecast.add_argument("history", help="a long table (id, timestamp, value) or a wide one")
    forecast.add_argument("--horizon", type=int, help="steps ahead (default the model's)")
    forecast.add_argument("--quantile", type=float, action="append", help="a quantile level (repeat)")
    forecast.add_argument("--known-future", help="a table of the known covariates ahead")
    forecast.add_argument("--id-column")
    forecast.add_argument("--timestamp-column")
    forecast.add_argument("--value-column")
    forecast.add_argument("--key", help="deployment key (spd_...); default SAMPAN_DEPLOYMENT_KEY")
    forecast.add_argument("--out", help="write the forecast as CSV here instead of JSON on stdout")
    forecast.set_defaults(func=cmd_forecast)

    train = sub.add_parser("train", help="start a training job")
    train.add_argument("--version", type=int, help="dataset version id")
    train.add_argument("--dataset", type=int, help="snapshot this dataset as a new version first")
    train.add_argument("--seed", type=int)
    train.add_argument("--horizon", type=int, help="forecasting: the new version's horizon (split by time)")
    train.add_argument("--preset")
    train.add_argument("--param", type=_param, action="append", metavar="NAME=VALUE")
    train.add_argument(
        "--no-adapt",
        action="store_true",
        help="run the preset's values as declared (by default the server fits batch size, epochs and "
        "model size to the data and the workers online; the choices are printed)",
    )
    train.add_argument(
        "--processes",
        type=int,
        default=1,
        help="data-parallel processes on the worker's host (image classification; default 1)",
    )
    train.add_argument("--wait", action="store_true")
    train.add_argument("--quiet", action="store_true")
    train.set_defaults(func=cmd_train)

    wait = sub.add_parser("wait", help="wait for a job (exit 1 unless it succeeds)")
    wait.add_argument("job", type=int)
    wait.add_argument("--timeout", type=float)
    wait.add_argument("--quiet", action="store_true")
    wait.set_defaults(func=cmd_wait)

    compress = sub.add_parser(
        "compress", help="compress a model version into smaller, faster variants (new model versions)"
    )
    compress.add_argument("model_version", type=int)
    compress.add_argument(
        "--preset",
        choices=["smaller", "balanced", "faster", "distilled"],
        default="smaller",
        help="smaller: int8; balanced: half the FLOPs pruned + int8; faster: pruned to the target's "
        "latency budget + int8; distilled: a half-width student + int8",
    )
    compress.add_argument(
        "--target", help="target profile: a builtin name (worker-cpu) or your profile's name"
    )
    compress.add_argument(
        "--teacher", type=int, help="distilled: the teacher model version (default the parent)"
    )
    compress.add_argument("--wait", action="store_true")
    compress.add_argument("--quiet", action="store_true")
    compress.set_defaults(func=cmd_compress)

    deploy = sub.add_parser("deploy", help="deploy a model version as a hosted endpoint")
    deploy.add_argument("model_version", type=int)
    deploy.add_argument("--name")
    deploy.add_argument("--key", action="store_true", help="also issue an API key (printed once)")
    deploy.add_argument("--key-name", default="cli")
    deploy.set_defaults(func=cmd_deploy)

    predict = sub.add_parser("predict", help="classify images with a deployment")
    predict.add_argument("deployment", type=int)
    predict.add_argument("images", nargs="+")
    predict.add_argument("--key", help="deployment key (spd_...); default SAMPAN_DEPLOYMENT_KEY")
    predict.add_argument("--top-k", type=int, default=5)
    predict.set_defaults(func=cmd_predict)

    batch = sub.add_parser(
        "batch-predict", help="predict a dataset (version) or a file with a model version, as a job"
    )
    batch.add_argument("--model-version", type=int, required=True)
    batch.add_argument("--dataset-version", type=int)
    batch.add_argument("--split", choices=["train", "val", "test"], help="of --dataset-version (default all)")
    batch.add_argument("--dataset", type=int, help="every sample of a dataset")
    batch.add_argument("--file", help="a .zip/.tar(.gz) of images or texts, or a .csv/.jsonl/.parquet table")
    batch.add_argument("--top-k", type=int)
    batch.add_argument("--format", choices=["jsonl", "csv", "parquet"], default="jsonl", help="of --out")
    batch.add_argument("--out", help="write the results there (exit 1 unless the batch succeeds)")
    batch.add_argument("--timeout", type=float)
    batch.add_argument("--quiet", action="store_true")
    batch.set_defaults(func=cmd_batch_predict)

    custom = sub.add_parser("custom-job", help="run your own training code on the platform")
    custom_sub = custom.add_subparsers(dest="custom_command", required=True)
    submit = custom_sub.add_parser(
        "submit", help="upload code (a .py, .ipynb, .zip or a folder) and run it as a training job"
    )
    submit.add_argument("path", nargs="?", help="the code: a .py, .ipynb, .zip or a folder (zipped)")
    submit.add_argument("--code-archive", type=int, help="run code uploaded before (instead of PATH)")
    submit.add_argument("--project", type=int, help="default: SAMPAN_PROJECT")
    submit.add_argument("--entry", help="the file or module to run (default: the code's entry point)")
    submit.add_argument("--dataset-version", type=int, help="laid out under $SAMPAN_DATA_DIR")
    submit.add_argument(
        "-p",
        "--param",
        type=_param,
        action="append",
        metavar="NAME=VALUE",
        help="a hyperparameter (JSON value)",
    )
    submit.add_argument(
        "--arg",
        action="append",
        metavar="ARG",
        help="a command-line argument, as given (one starting with a dash: --arg=--verbose)",
    )
    submit.add_argument("--requirements", help="a requirements file (default: the code's requirements.txt)")
    submit.add_argument("--queue", choices=["cpu", "gpu"], default="cpu")
    submit.add_argument("--wall-time-s", type=int, help="seconds before the run is stopped")
    submit.add_argument("--memory-mb", type=int, help="resident memory of the run's process tree, MiB")
    submit.add_argument("--cpus", type=int)
    submit.add_argument("--network", action="store_true", help="let the code open network connections")
    submit.add_argument("--name")
    submit.add_argument(
        "--follow",
        action="store_true",
        help="stream the logs (stderr) until it ends; exit 1 unless it succeeds",
    )
    submit.add_argument("--timeout", type=float, help="with --follow: give up after this many seconds")
    submit.set_defaults(func=cmd_custom_job_submit)
    logs = custom_sub.add_parser("logs", help="print a job's log lines (any job kind)")
    logs.add_argument("job", type=int)
    logs.add_argument("--after", type=int, default=0, help="only lines after this seq")
    logs.add_argument("--follow", action="store_true", help="until the job ends; exit 1 unless it succeeds")
    logs.add_argument("--json", action="store_true", help="one JSON object (seq, stream, text, at) a line")
    logs.add_argument("--timeout", type=float)
    logs.set_defaults(func=cmd_custom_job_logs)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SampanError as exc:
        print(f"sampan: error: {exc}", file=sys.stderr)
        return 1
    except (FileNotFoundError, ValueError) as exc:
        print(f"sampan: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
