"""Browser end to end of the whole flow in Simplified Chinese (frontend/e2e/zh_cn_flow.mjs), in a
headless Chromium whose language is zh-CN, against a live web process and worker: sign in, import a
zip of digit images whose class folders are 零 一 二 … 九, label the unlabeled ones with the keys in
the zip's order (零=1 … 八=9, 九=0), train with the fast preset, try the model version before
deploying it, deploy, open the usage page by URL and see both charts drawn; no page error, console
error or CSP violation. It then writes the screenshots of the main pages at 1440x900 and 1024x700 in
zh-CN and English to $SAMPAN_TEST_ARTIFACTS/screenshots/<lang>/<width>/<page>.png (docs/screenshots.md).

With SAMPAN_README_SCREENSHOT=<path> (`make screenshot`), the English labeling grid at 1440x900 is
copied there too: the README's picture (docs/screenshot.png)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.datasets.factories import make_zip
from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "zh_cn_flow.mjs"
PASSWORD = "e2e-passphrase-123"
USERNAME = "xiaoming"
CLASSES = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]
PER_CLASS = 8
# The unlabeled images at the zip's root: the first and the tenth label (keys 1 and 0) and one between.
UNLABELED = {"u1.jpg": "零", "u2.jpg": "九", "u3.jpg": "五"}
SCREENSHOT_PAGES = [
    "workspaces",
    "workspace",
    "project",
    "labeling",
    "statistics",
    "training-form",
    "training-job",
    "evaluation-report",
    "model-version-try",
    "deployment-overview",
    "usage",
    "studies",
    "jobs",
    "users",
]


def digit_picture(index: int, *, format: str) -> bytes:
    """sklearn's digit ``index`` as a 64x64 picture, smoothly enlarged (as a photographed digit looks)."""
    from PIL import Image

    from tests.datasets.factories import _digits

    images, _ = _digits()
    pixels = (images[index] * (255 / 16)).astype("uint8")
    out = io.BytesIO()
    Image.fromarray(pixels, mode="L").resize((64, 64), Image.Resampling.BICUBIC).save(out, format)
    return out.getvalue()


def digits_archive(per_class: int = PER_CLASS) -> tuple[bytes, bytes]:
    """A zip with a folder per class (零 … 九, in that order, of 64x64 JPEGs of sklearn's digits) and
    the UNLABELED files at its root; and another digit (a 三) for the try-it panels."""
    from tests.datasets.factories import _digits

    _, targets = _digits()
    by_class: dict[int, list[int]] = {digit: [] for digit in range(10)}
    for index, target in enumerate(targets):
        by_class[int(target)].append(index)
    entries: dict[str, bytes] = {}
    for digit, name in enumerate(CLASSES):
        for n, index in enumerate(by_class[digit][:per_class]):
            entries[f"{name}/{name}_{n:02d}.jpg"] = digit_picture(index, format="JPEG")
    for n, (file_name, name) in enumerate(UNLABELED.items()):
        entries[file_name] = digit_picture(by_class[CLASSES.index(name)][per_class + n], format="JPEG")
    return make_zip(entries), digit_picture(by_class[3][per_class + 5], format="PNG")


def test_the_whole_flow_in_chinese_and_the_screenshots(live_web, live_worker, make_user, tmp_path):
    dist = Path(os.environ.get("SAMPAN_FRONTEND_DIST") or REPO / "frontend" / "dist")
    assert (dist / "index.html").exists(), "the frontend is not built: run `make frontend`"
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    assert fonts.strip(), "no Chinese font (the screenshots would show boxes): install fonts-wqy-zenhei"
    user = make_user(USERNAME, password=PASSWORD, is_staff=True)
    make_user("lihua")  # a second account on the users page
    archive, probe = digits_archive()
    (tmp_path / "手写数字.zip").write_bytes(archive)
    (tmp_path / "probe.png").write_bytes(probe)
    out_dir = ARTIFACTS / "e2e-zh-cn"
    shots = ARTIFACTS / "screenshots"
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.rmtree(shots, ignore_errors=True)
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER=USERNAME,
        SAMPAN_PASSWORD=PASSWORD,
        E2E_ARTIFACTS=str(out_dir),
        E2E_SCREENSHOTS=str(shots),
        E2E_ZIP=str(tmp_path / "手写数字.zip"),
        E2E_IMAGE=str(tmp_path / "probe.png"),
        E2E_TRUTH=json.dumps(UNLABELED, ensure_ascii=False),
        E2E_CLASSES=json.dumps(CLASSES, ensure_ascii=False),
        E2E_EPOCHS="2",
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-10000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-10000:]}\n{result.stderr[-2000:]}"

    from accounts.models import User
    from datasets.models import Label, Sample
    from deploy.models import Deployment

    summary = json.loads((out_dir / "summary.json").read_text())
    labels = list(Label.objects.filter(dataset_id=summary["dataset"]).order_by("position", "id"))
    assert [label.name for label in labels] == CLASSES, "the labels keep the zip's order"
    samples = Sample.objects.filter(dataset_id=summary["dataset"], original_name__in=UNLABELED)
    assert {sample.original_name: sample.label.name for sample in samples} == UNLABELED
    deployment = Deployment.objects.get(pk=summary["deployment"])
    assert deployment.model_version_id == summary["model_version"] and deployment.status == "active"
    assert User.objects.get(pk=user.pk).language == "en", "the language switched in the user menu is saved"

    missing = [
        f"{lang}/{width}/{name}.png"
        for lang in ("zh-CN", "en")
        for width in (1440, 1024)
        for name in SCREENSHOT_PAGES
        if not (shots / lang / str(width) / f"{name}.png").exists()
    ]
    assert not missing, f"screenshots not written: {missing}"

    readme = os.environ.get("SAMPAN_README_SCREENSHOT")
    if readme:
        shutil.copyfile(shots / "en" / "1440" / "labeling.png", readme)
