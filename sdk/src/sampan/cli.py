"""The ``sampan`` command line, over the SDK, for scripts.

    sampan login --url http://127.0.0.1:8000 --token spk_...      (or --username; asks the password)
    sampan upload --project 3 --name digits ./digits/            (or --dataset 7)
    sampan train --dataset 7 --preset fast --param epochs=3 --wait
    sampan wait 42
    sampan deploy 5 --name digits --key
    sampan predict 2 img1.png img2.png --key spd_...

Every command prints one JSON object on stdout (progress bars go to stderr); failures exit 1 with
the server's error code and message on stderr.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from sampan.client import DEFAULT_URL, Client
from sampan.errors import SampanError


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
    _print({"url": url, "username": me.get("username"), "config": str(path)})
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


def cmd_upload(args: argparse.Namespace) -> int:
    client = Client()
    if args.dataset is not None:
        dataset = client.datasets.get(args.dataset)
    elif args.project is not None and args.name:
        dataset = client.datasets.create(args.name, project=args.project)
    else:
        raise SystemExit("upload: give --dataset ID, or --project ID and --name NAME to create one")
    result = dataset.upload(args.source, label=args.label, progress=not args.quiet)
    _print({"dataset": dataset.id, "imported": result.imported, "duplicates": result.duplicates,
            "failed": result.failed, "labels_created": result.labels_created, "problems": result.problems[:20]})
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    client = Client()
    if args.version is not None:
        version: Any = args.version
    elif args.dataset is not None:
        version = client.datasets.get(args.dataset).create_version(seed=args.seed)
    else:
        raise SystemExit("train: give --version ID, or --dataset ID to snapshot a new version")
    job = client.training.start(version, preset=args.preset, params=dict(args.param or []))
    if args.wait:
        job.wait(progress=not args.quiet)
        model = job.model_version()
        _print({"job": job.id, "status": job.status, "model_version": model.id, "name": model.name,
                "test": (model.metrics or {}).get("test")})
    else:
        _print({"job": job.id, "status": job.status})
    return 0


def cmd_wait(args: argparse.Namespace) -> int:
    job = Client().jobs.get(args.job)
    job.wait(timeout=args.timeout, progress=not args.quiet, raise_on_failure=False)
    _print({"job": job.id, "kind": job.data.get("kind"), "status": job.status, "result": job.data.get("result"),
            "error": job.data.get("error") or None})
    return 0 if job.status == "succeeded" else 1


def cmd_deploy(args: argparse.Namespace) -> int:
    client = Client()
    deployment = client.deployments.create(args.model_version, name=args.name)
    out: dict[str, Any] = {"deployment": deployment.id, "name": deployment.data.get("name"),
                           "status": deployment.data.get("status"),
                           "predict_url": client.base_url + str(deployment.data.get("predict_url"))}
    if args.key:
        out["key"] = deployment.create_key(args.key_name)["key"]
    _print(out)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    deployment = Client().deployments.get(args.deployment)
    answers = deployment.predict_batch(list(args.images), key=args.key, top_k=args.top_k)
    _print([{"image": image, "label": a.label, "score": a.score, "top_k": a.top_k}
            for image, a in zip(args.images, answers, strict=True)])
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
    upload.add_argument("--label")
    upload.add_argument("--quiet", action="store_true")
    upload.set_defaults(func=cmd_upload)

    train = sub.add_parser("train", help="start a training job")
    train.add_argument("--version", type=int, help="dataset version id")
    train.add_argument("--dataset", type=int, help="snapshot this dataset as a new version first")
    train.add_argument("--seed", type=int)
    train.add_argument("--preset")
    train.add_argument("--param", type=_param, action="append", metavar="NAME=VALUE")
    train.add_argument("--wait", action="store_true")
    train.add_argument("--quiet", action="store_true")
    train.set_defaults(func=cmd_train)

    wait = sub.add_parser("wait", help="wait for a job (exit 1 unless it succeeds)")
    wait.add_argument("job", type=int)
    wait.add_argument("--timeout", type=float)
    wait.add_argument("--quiet", action="store_true")
    wait.set_defaults(func=cmd_wait)

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
