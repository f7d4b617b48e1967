"""A training run's newest complete checkpoint is mirrored to S3-compatible storage (moto's server) and
restored on a host whose run directory has none (training.checkpoint_mirror); the older mirrored ones,
damaged ones and a finished job's mirror are removed or ignored. tests/scale/test_job_moves_hosts.py runs
the whole move with real worker processes."""

from __future__ import annotations

import pytest
import torch

from tests.jobs.factories import job as make_job
from tests.scale.hosts import ObjectStorage
from workers.image_classification.checkpoints import complete_checkpoints, load_latest, save_checkpoint
from workers.image_classification.manifest import Manifest, Sample, portable_paths

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def storage():
    with ObjectStorage() as started:
        yield started


@pytest.fixture
def on_s3(storage, settings, tmp_path):
    storage.use_in_this_process(settings, tmp_path / "home")
    return storage


def state(epoch: int) -> dict:
    return {"weights": torch.full((64,), float(epoch)), "epoch": epoch}


def mirrored_names(storage: ObjectStorage, job) -> list[str]:
    from training.checkpoint_mirror import mirror_prefix

    prefix = f"{storage.prefix}/{mirror_prefix(job)}/"
    return sorted(key.removeprefix(prefix) for key in storage.keys(prefix))


def test_the_newest_complete_checkpoint_is_mirrored_and_restored_elsewhere(on_s3, tenants, tmp_path):
    from training.checkpoint_mirror import CheckpointMirror, checkpoint_mirror_forget, checkpoint_restore

    job = make_job(tenants["project_a"], kind="training.run")
    host_a, host_b = tmp_path / "a" / "checkpoints", tmp_path / "b" / "checkpoints"
    mirror = CheckpointMirror(job=job, checkpoint_dir=host_a)
    assert mirror.sync() is None  # nothing written yet

    save_checkpoint(host_a, state(1), epoch=1, step=10)
    assert mirror.sync() == "epoch-0001-step-000000010.pt"
    save_checkpoint(host_a, state(2), epoch=2, step=20)
    (host_a / "epoch-0003-step-000000030.pt").write_bytes(b"a write killed before its marker")
    assert mirror.sync() == "epoch-0002-step-000000020.pt"
    assert mirror.sync() is None  # already mirrored
    # only the newest complete one is kept, its marker beside it
    assert mirrored_names(on_s3, job) == [
        "epoch-0002-step-000000020.pt",
        "epoch-0002-step-000000020.pt.complete",
    ]
    assert [u["checkpoint"] for u in mirror.uploads] == [
        "epoch-0001-step-000000010.pt",
        "epoch-0002-step-000000020.pt",
    ]

    # another host, nothing on its disk: the mirrored checkpoint comes back, verified, with its marker
    events: list[tuple[str, dict]] = []
    restored = checkpoint_restore(
        job=job, checkpoint_dir=host_b, report=lambda message="", **kw: events.append((message, kw))
    )
    assert restored is not None and (restored["epoch"], restored["step"]) == (2, 20)
    assert "restored checkpoint epoch-0002-step-000000020.pt (epoch 2, step 20)" in events[0][0]
    loaded, info, skipped = load_latest(host_b)
    assert loaded is not None and info is not None and not skipped
    assert info.epoch == 2 and torch.equal(loaded["weights"], state(2)["weights"])

    # the attempt on B does not send the checkpoint it was restored from back to storage
    assert CheckpointMirror(job=job, checkpoint_dir=host_b, mirrored=restored["checkpoint"]).sync() is None

    # a host that has its own complete checkpoint keeps it (a retry on the same host)
    assert checkpoint_restore(job=job, checkpoint_dir=host_a, report=lambda *a, **k: None) is None

    assert checkpoint_mirror_forget(job=job) == 2
    assert mirrored_names(on_s3, job) == []


def test_an_older_upload_never_deletes_a_newer_mirror_and_damaged_ones_are_not_restored(
    on_s3, tenants, tmp_path
):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from training.checkpoint_mirror import CheckpointMirror, checkpoint_restore, mirror_prefix

    job = make_job(tenants["project_a"], kind="training.run")
    new_host, stale_host = tmp_path / "new" / "checkpoints", tmp_path / "stale" / "checkpoints"
    save_checkpoint(new_host, state(3), epoch=3, step=30)
    CheckpointMirror(job=job, checkpoint_dir=new_host).sync()
    # an attempt that lost its lease (still running somewhere) uploads its older checkpoint
    save_checkpoint(stale_host, state(1), epoch=1, step=10)
    CheckpointMirror(job=job, checkpoint_dir=stale_host).sync()
    names = mirrored_names(on_s3, job)
    assert (
        "epoch-0003-step-000000030.pt.complete" in names and "epoch-0001-step-000000010.pt.complete" in names
    )
    restored = checkpoint_restore(
        job=job, checkpoint_dir=tmp_path / "c" / "checkpoints", report=lambda *a, **k: None
    )
    assert restored is not None and restored["epoch"] == 3  # the newest wins

    # the newest's bytes damaged in storage: skipped, the older one is restored
    key = f"{mirror_prefix(job)}/epoch-0003-step-000000030.pt"
    default_storage.delete(key)
    default_storage.save(key, ContentFile(b"not a checkpoint"))
    empty = tmp_path / "d" / "checkpoints"
    restored = checkpoint_restore(job=job, checkpoint_dir=empty, report=lambda *a, **k: None)
    assert restored is not None and restored["epoch"] == 1
    assert [info.epoch for info in complete_checkpoints(empty)] == [1]

    # a checkpoint whose marker never arrived is not restored
    default_storage.delete(f"{mirror_prefix(job)}/epoch-0001-step-000000010.pt.complete")
    nothing = tmp_path / "e" / "checkpoints"
    assert checkpoint_restore(job=job, checkpoint_dir=nothing, report=lambda *a, **k: None) is None
    assert not complete_checkpoints(nothing)


def test_local_blob_storage_mirrors_nothing(tenants, tmp_path):
    from training.checkpoint_mirror import CheckpointMirror, checkpoint_restore, mirror_enabled

    job = make_job(tenants["project_a"], kind="training.run")
    assert not mirror_enabled()
    save_checkpoint(tmp_path / "checkpoints", state(1), epoch=1, step=10)
    with CheckpointMirror(job=job, checkpoint_dir=tmp_path / "checkpoints") as mirror:
        pass
    assert mirror.uploads == []
    assert checkpoint_restore(job=job, checkpoint_dir=tmp_path / "empty", report=lambda *a, **k: None) is None


def test_a_manifest_fingerprint_is_the_same_under_another_hosts_cache():
    def manifest(root: str, labels: tuple[int, ...] = (0, 1, 1)) -> Manifest:
        names = ["ab/ab1.png", "cd/cd2.png", "ef/ef3.png"]
        return Manifest(
            classes=("cat", "dog"),
            samples=tuple(
                Sample(index=i, path=f"{root}/cache/samples/{name}", label=label, split="train")
                for i, (name, label) in enumerate(zip(names, labels, strict=True))
            ),
        )

    assert manifest("/hosts/a").fingerprint() == manifest("/srv/other-host/home").fingerprint()
    assert manifest("/hosts/a").fingerprint() != manifest("/hosts/a", labels=(1, 1, 1)).fingerprint()
    assert portable_paths(["/x/only.png"]) == ["only.png"]
    assert portable_paths([]) == []


def test_an_attempt_that_stops_uploads_its_last_checkpoint_unless_it_lost_its_lease(on_s3, tenants, tmp_path):
    from jobs.runner import JobPreempted, LeaseLost
    from training.checkpoint_mirror import CheckpointMirror

    job = make_job(tenants["project_a"], kind="training.run")
    checkpoint_dir = tmp_path / "run" / "checkpoints"
    # (the thread's poll would come only after an hour: what is uploaded is the exit's)
    with (
        pytest.raises(LeaseLost),
        CheckpointMirror(job=job, checkpoint_dir=checkpoint_dir, poll_seconds=3600),
    ):
        save_checkpoint(checkpoint_dir, state(1), epoch=1, step=10)
        raise LeaseLost("another attempt holds the job")
    assert mirrored_names(on_s3, job) == []  # the attempt holding the job now owns the mirror
    # a worker shutting down: the trainer saves a checkpoint and the job is handed back to any host
    with (
        pytest.raises(JobPreempted),
        CheckpointMirror(job=job, checkpoint_dir=checkpoint_dir, poll_seconds=3600),
    ):
        save_checkpoint(checkpoint_dir, state(2), epoch=2, step=20)
        raise JobPreempted("worker shutting down")
    assert mirrored_names(on_s3, job) == [
        "epoch-0002-step-000000020.pt",
        "epoch-0002-step-000000020.pt.complete",
    ]
    # a finished run uploads nothing at its end (its mirror is deleted once the outcome is stored)
    with CheckpointMirror(job=job, checkpoint_dir=checkpoint_dir, poll_seconds=3600) as mirror:
        save_checkpoint(checkpoint_dir, state(3), epoch=3, step=30)
    assert mirror.uploads == []


def test_a_detection_manifest_fingerprint_is_the_same_under_another_hosts_cache():
    from workers.object_detection.manifest import Manifest as DetectionManifest
    from workers.object_detection.manifest import Sample as DetectionSample

    def manifest(root: str) -> DetectionManifest:
        return DetectionManifest(
            classes=("cat",),
            samples=tuple(
                DetectionSample(
                    index=i,
                    path=f"{root}/samples/{i:02d}/{i}.png",
                    width=8,
                    height=8,
                    boxes=((0, 1.0, 1.0, 4.0, 4.0),),
                    split="train",
                )
                for i in range(3)
            ),
        )

    assert manifest("/a/cache").fingerprint() == manifest("/b/elsewhere/cache").fingerprint()


def test_a_cross_validated_runs_finished_folds_and_fold_in_progress_move_to_another_host(
    on_s3, tenants, tmp_path
):
    """A cross-validated run on host A: fold-0 finished (its fold.json), fold-1 training (checkpoints).
    The whole run's mirror lets host B skip fold-0 and resume fold-1; a fold that finishes replaces its
    mirrored checkpoints with its record; the stored outcome deletes everything."""
    import json

    from training.checkpoint_mirror import RunMirror, checkpoint_mirror_forget, run_prefix, run_restore

    from workers.image_classification.cross_validation import write_fold

    job = make_job(tenants["project_a"], kind="training.run")
    run_a, run_b = tmp_path / "a" / "run", tmp_path / "b" / "run"
    record = {"format": "test", "fingerprint": "same-run", "history": [{"epoch": 1, "val_acc": 0.5}]}
    (run_a / "folds" / "fold-0").mkdir(parents=True)
    write_fold(run_a / "folds" / "fold-0" / "fold.json", record)
    save_checkpoint(run_a / "folds" / "fold-1" / "checkpoints", state(1), epoch=1, step=5)
    save_checkpoint(run_a / "folds" / "fold-1" / "checkpoints", state(2), epoch=2, step=10)

    def stored() -> list[str]:
        prefix = f"{on_s3.prefix}/{run_prefix(job)}/"
        return sorted(key.removeprefix(prefix) for key in on_s3.keys(prefix))

    mirror = RunMirror(job=job, run_dir=run_a)
    mirror.sync()
    assert stored() == [
        "folds/fold-0/fold.json",
        "folds/fold-1/checkpoints/epoch-0002-step-000000010.pt",
        "folds/fold-1/checkpoints/epoch-0002-step-000000010.pt.complete",
    ]
    mirror.sync()
    assert len(mirror.uploads) == 1  # nothing new: nothing sent again

    # host B, an empty disk: fold-0's record and fold-1's newest checkpoint come back
    events: list[str] = []
    restored = run_restore(job=job, run_dir=run_b, report=lambda message="", **kw: events.append(message))
    assert restored["folds"] == ["fold-0"] and "checkpoint" not in restored  # no final fit yet
    assert restored["fold_checkpoints"] == {"fold-1": "epoch-0002-step-000000010.pt"}
    assert json.loads((run_b / "folds" / "fold-0" / "fold.json").read_text()) == record
    loaded, info, _ = load_latest(run_b / "folds" / "fold-1" / "checkpoints")
    assert info is not None and info.epoch == 2 and torch.equal(loaded["weights"], state(2)["weights"])
    assert any(e.startswith("restored fold-1 checkpoint epoch-0002") for e in events), events
    assert any("1 finished fold(s)" in e and "fold-0" in e for e in events), events

    # B trains on: the restored checkpoint is not sent back; fold-1 finishes, then the final fit starts
    on_b = RunMirror(job=job, run_dir=run_b, restored=restored)
    on_b.sync()
    assert on_b.uploads == []
    write_fold(run_b / "folds" / "fold-1" / "fold.json", {**record, "fold": 1})
    save_checkpoint(run_b / "checkpoints", state(1), epoch=1, step=12)
    on_b.sync()
    assert stored() == [
        "checkpoints/epoch-0001-step-000000012.pt",
        "checkpoints/epoch-0001-step-000000012.pt.complete",
        "folds/fold-0/fold.json",
        "folds/fold-1/fold.json",
    ]
    # a third host restores both records and the final fit's checkpoint
    again = run_restore(job=job, run_dir=tmp_path / "c" / "run", report=lambda *a, **k: None)
    assert again["folds"] == ["fold-0", "fold-1"] and again["epoch"] == 1

    assert checkpoint_mirror_forget(job=job) == 4
    assert stored() == []
