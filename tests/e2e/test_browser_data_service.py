"""Browser end to end of the data service (issue 16's proof) in headless Chromium against a live web
process and worker. On digits with few labels (four per class, two of them planted mislabels, and
a planted near-duplicate pair among the unlabeled images): run a smart-labeling round, accept
suggestions in bulk, see the quality report find the near duplicates and the planted mislabels and
open them in the labeler; as an annotator label an assigned queue; as the reviewer reject one
answer and accept the rest; build a reviewed-only version. The script drives the UI; this test
prepares the users and the data and checks what the database holds afterwards."""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile

import pytest

from tests.datasets.factories import digit_class, digit_image
from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "data_service.mjs"
PASSWORD = "e2e-passphrase-123"
LABELED_PER_CLASS = 4
UNLABELED = 160
#: (digit image index, the wrong class it is filed under)
PLANTED = [(1, "7"), (3, "8")]
QUEUE = 4


def png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def digits_archive() -> tuple[bytes, dict[str, str]]:
    """A folder-per-class zip of digits: a few labeled per class (the planted mislabels among them,
    filed under a wrong class), many unlabeled at the root, and a near duplicate of one unlabeled
    image (one pixel changed). Returns the zip and the names of the planted files."""
    entries: dict[str, bytes] = {}
    planted: dict[str, str] = {}
    taken: dict[str, int] = {str(c): 0 for c in range(10)}
    planted_indices = {index for index, _ in PLANTED}
    for index, wrong in PLANTED:
        assert digit_class(index) != int(wrong)
        name = f"{wrong}/planted_{index:04d}.png"
        entries[name] = png(digit_image(index))
        taken[wrong] += 1
        planted[name.split("/")[1]] = "mislabeled"
    index = 10
    while any(n < LABELED_PER_CLASS for n in taken.values()):
        label = str(digit_class(index))
        if taken[label] < LABELED_PER_CLASS and index not in planted_indices:
            entries[f"{label}/{index:04d}.png"] = png(digit_image(index))
            taken[label] += 1
        index += 1
    first_loose = 500
    for i in range(UNLABELED):
        entries[f"loose_{first_loose + i:04d}.png"] = png(digit_image(first_loose + i))
    twin = digit_image(first_loose)
    pixel = twin.getpixel((0, 0))
    twin.putpixel((0, 0), 255 - pixel if isinstance(pixel, int) else pixel)
    entries["loose_twin.png"] = png(twin)
    planted["loose_twin.png"] = "duplicate"
    planted[f"loose_{first_loose:04d}.png"] = "duplicate"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue(), planted


def test_smart_labeling_quality_report_and_team_labeling_in_the_browser(
    live_web, live_worker, make_user, tmp_path
):
    from datasets.models import Dataset, DatasetVersion, ReviewStatus, Sample, SampleActivity
    from datasets.services import dataset_create
    from datasets.services.image_imports import import_archive
    from workspaces.models import Role

    from tests.datasets.factories import upload
    from tests.workspaces.factories import membership, project, workspace

    assert (REPO / "frontend" / "dist" / "index.html").exists() or os.environ.get("SAMPAN_FRONTEND_DIST"), (
        "the frontend is not built: run `make frontend`"
    )
    owner = make_user("e2e-ds-owner", password=PASSWORD)
    annotator = make_user("e2e-ds-annotator", password=PASSWORD)
    space = workspace(owner=owner, name="e2e data service")
    membership(space, annotator, Role.ANNOTATOR)
    digits_project = project(space, name="digits", by=owner)
    dataset = dataset_create(
        user=owner, project=digits_project, name="digits, few labels", task_type="image_classification"
    )
    archive, planted = digits_archive()
    import_archive(dataset=dataset, upload=upload("digits.zip", archive), user=owner)
    by_name = {  # original names keep the archive's folders: "7/planted_0001.png"
        name.rsplit("/", 1)[-1]: pk
        for name, pk in Sample.objects.filter(dataset=dataset).values_list("original_name", "pk")
    }
    mislabeled = sorted(by_name[name] for name, kind in planted.items() if kind == "mislabeled")
    true_class = {by_name[f"planted_{index:04d}.png"]: str(digit_class(index)) for index, _ in PLANTED}
    duplicates = sorted(by_name[name] for name, kind in planted.items() if kind == "duplicate")
    assert len(by_name) == 10 * LABELED_PER_CLASS + UNLABELED + 1

    out_dir = ARTIFACTS / "e2e-data-service"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        E2E_OWNER=owner.username,
        E2E_ANNOTATOR=annotator.username,
        E2E_PASSWORD=PASSWORD,
        E2E_DATASET=str(dataset.pk),
        E2E_MISLABELED=",".join(f"{pk}:{label}" for pk, label in true_class.items()),
        E2E_DUPLICATES=",".join(map(str, duplicates)),
        E2E_QUEUE=str(QUEUE),
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-8000:])
    assert result.returncode == 0, f"browser e2e failed:\n{result.stdout[-8000:]}\n{result.stderr[-2000:]}"
    outcome = json.loads((out_dir / "outcome.json").read_text())

    dataset = Dataset.objects.get(pk=dataset.pk)
    # accepted suggestions are labels now, logged as such, by the owner
    accepted = SampleActivity.objects.filter(sample__dataset=dataset, source="suggestion")
    assert accepted.count() >= outcome["accepted"] > 0
    assert set(accepted.values_list("actor__username", flat=True)) == {owner.username}
    # the quality report found the planted problems
    report = dataset.quality_reports.order_by("-id").first()
    assert report is not None and report.status == "succeeded"
    findings = {f["code"]: f for f in report.report["findings"]}
    assert set(duplicates) <= set(findings["near_duplicates"]["sample_ids"])
    assert set(mislabeled) & set(findings["likely_mislabeled"]["sample_ids"])
    # a planted mislabel fixed in the labeler: a slip, its revert from the activity log, the fix
    fixed = outcome["fixed"]
    assert Sample.objects.get(pk=fixed["sample"]).label.name == fixed["label"] == true_class[fixed["sample"]]
    log = list(SampleActivity.objects.filter(sample_id=fixed["sample"]).order_by("id"))
    # the import logged its label first
    assert [entry.source for entry in log] == ["import", "manual", "revert", "manual"]
    assert log[2].reverts_id == log[1].pk and log[2].after == log[1].before
    # the annotator's answers were written (overlap 1), then reviewed: one rejected, the rest accepted
    task_samples = outcome["task_samples"]
    assert len(task_samples) == QUEUE
    reviewed = dict(Sample.objects.filter(pk__in=task_samples).values_list("pk", "review_status"))
    assert sorted(reviewed.values()).count(ReviewStatus.ACCEPTED) == QUEUE - 1
    assert sorted(reviewed.values()).count(ReviewStatus.REJECTED) == 1
    assert (
        SampleActivity.objects.filter(sample_id__in=task_samples, source="task", actor=annotator).count()
        == QUEUE
    )
    # the reviewed-only version holds exactly the accepted samples
    version = DatasetVersion.objects.filter(dataset=dataset).order_by("-id").first()
    assert version is not None and version.reviewed_only
    in_version = set(version.entries.values_list("sample_id", flat=True))
    assert in_version == {pk for pk, status in reviewed.items() if status == ReviewStatus.ACCEPTED}
