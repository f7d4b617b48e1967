"""Browser end to end of object detection (issue 15's proof) in headless Chromium against a live web
process and worker: import a COCO zip of digit scenes, draw and fix boxes on the labeler's canvas
with the mouse and keys, make a version, train the fast preset, open the report (mAP, the PR curves
drawn, a bad case opened in the labeler), deploy, and see Try it draw the detector's boxes."""

from __future__ import annotations

import os
import subprocess
import zipfile

import pytest

from tests.harness import ARTIFACTS, REPO
from workers.object_detection.synthetic import digit_scenes, write_scenes

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "detection.mjs"
SCENES = 60
EPOCHS = 8


def coco_zip(folder, archive) -> None:
    """60 deterministic 64x64 scenes of one class ("digit"), as a COCO zip (annotations.json + images/)."""
    write_scenes(digit_scenes(SCENES, size=64, seed=11, classes="one"), folder, "coco", classes="one")
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out.write(path, path.relative_to(folder).as_posix())


def test_import_label_train_report_deploy_and_try_a_detector(live_web, live_worker, make_user, tmp_path):
    assert (REPO / "frontend" / "dist" / "index.html").exists(), (
        "the frontend is not built: run `make frontend`"
    )
    make_user("e2e-detector", password="e2e-passphrase-123")
    archive = tmp_path / "scenes-coco.zip"
    coco_zip(tmp_path / "scenes", archive)
    image, _ = digit_scenes(1, size=64, seed=99, classes="one")[0]
    image_path = tmp_path / "street.png"
    image.save(image_path)
    out_dir = ARTIFACTS / "e2e-detection"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-detector",
        SAMPAN_PASSWORD="e2e-passphrase-123",
        E2E_ARTIFACTS=str(out_dir),
        E2E_ZIP=str(archive),
        E2E_IMAGE=str(image_path),
        E2E_EPOCHS=str(EPOCHS),
        E2E_IMAGE_SIZE="64",
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=900, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    assert (out_dir / "report.png").exists()

    from datasets.models import Annotation, Sample
    from deploy.models import Deployment
    from training.models import ModelVersion

    samples = Sample.objects.filter(dataset__created_by__username="e2e-detector")
    assert samples.count() == SCENES
    # the labeler's save: one sample has the drawn box on top of its imported ones
    assert samples.filter(label_version__gte=1).exists()
    assert Annotation.objects.filter(sample__in=samples).count() > SCENES
    model = ModelVersion.objects.get(created_by__username="e2e-detector")
    assert model.template == "object_detection" and model.params["epochs"] == EPOCHS
    assert model.evaluation["kind"] == "detection_report" and model.evaluation["samples"] > 0
    assert Deployment.objects.filter(model_version=model).exists()
