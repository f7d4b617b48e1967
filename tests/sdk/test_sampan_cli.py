"""The `sampan` command line against the live platform: login stores URL + token in a 0600 file
(from a token, or a username and password), then upload, train, wait, deploy and predict."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def sampan_cli(*args: str, config: Path, check: bool = True) -> subprocess.CompletedProcess:
    executable = shutil.which("sampan", path=str(Path(sys.executable).parent))
    assert executable, "the sampan console script is installed with the SDK"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAMPAN_")}
    env["SAMPAN_CONFIG"] = str(config)
    done = subprocess.run([executable, *args], env=env, capture_output=True, text=True, timeout=600)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_login_upload_train_wait_deploy_predict(
    live_web, live_worker, tenants, token_for, digits_folder, tmp_path
):
    config = tmp_path / "conf" / "config.json"
    refused = sampan_cli("login", "--url", live_web, "--token", "spk_wrong", config=config, check=False)
    assert refused.returncode == 1 and "401" in refused.stderr and not config.exists()

    token = token_for(tenants["alice"])
    logged = json.loads(sampan_cli("login", "--url", live_web, "--token", token, config=config).stdout)
    assert logged["username"] == "alice"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text()) == {"url": live_web, "api_key": token}

    uploaded = json.loads(
        sampan_cli(
            "upload",
            "--project",
            str(tenants["project_a"].pk),
            "--name",
            "cli digits",
            str(digits_folder),
            "--quiet",
            config=config,
        ).stdout
    )
    assert uploaded["imported"] == 80 and len(uploaded["labels_created"]) == 10

    started = json.loads(
        sampan_cli(
            "train",
            "--dataset",
            str(uploaded["dataset"]),
            "--seed",
            "1",
            "--preset",
            "fast",
            "--param",
            "epochs=1",
            "--param",
            "image_size=32",
            config=config,
        ).stdout
    )
    assert started["status"] == "queued"
    # the preset fitted to 80 images and the workers online: the values set here are never changed
    assert isinstance(started["choices"], list)
    assert not {c["param"] for c in started["choices"]} & {"epochs", "image_size"}
    waited = sampan_cli("wait", str(started["job"]), config=config)
    finished = json.loads(waited.stdout)
    assert finished["status"] == "succeeded" and finished["result"]["name"] == "V1"
    assert f"job {started['job']}" in waited.stderr  # the progress bar, on stderr

    deployed = json.loads(
        sampan_cli(
            "deploy", str(finished["result"]["model_version"]), "--name", "cli", "--key", config=config
        ).stdout
    )
    assert deployed["key"].startswith("spd_") and deployed["predict_url"].startswith(live_web)
    images = sorted(str(p) for p in (digits_folder / "4").iterdir())[:2]
    answers = json.loads(
        sampan_cli(
            "predict",
            str(deployed["deployment"]),
            *images,
            "--key",
            deployed["key"],
            "--top-k",
            "3",
            config=config,
        ).stdout
    )
    assert [a["image"] for a in answers] == images and all(len(a["top_k"]) == 3 for a in answers)
    assert all(a["label"] in [str(d) for d in range(10)] for a in answers)

    missing = sampan_cli("wait", "99999999", config=config, check=False)
    assert missing.returncode == 1 and "404 not_found" in missing.stderr


def test_login_with_username_and_password_issues_a_token(live_web, tenants, tmp_path):
    config = tmp_path / "config.json"
    out = json.loads(
        sampan_cli(
            "login",
            "--url",
            live_web,
            "--username",
            "bob",
            "--password",
            "correct-horse-battery",
            config=config,
        ).stdout
    )
    assert out["username"] == "bob"
    saved = json.loads(config.read_text())
    assert saved["api_key"].startswith("spk_") and stat.S_IMODE(config.stat().st_mode) == 0o600
    from accounts.models import ApiToken

    assert ApiToken.objects.filter(user=tenants["bob"], name="sampan-cli").count() == 1
    wrong = sampan_cli(
        "login",
        "--url",
        live_web,
        "--username",
        "bob",
        "--password",
        "nope",
        config=tmp_path / "other.json",
        check=False,
    )
    assert wrong.returncode == 1 and "invalid_credentials" in wrong.stderr
