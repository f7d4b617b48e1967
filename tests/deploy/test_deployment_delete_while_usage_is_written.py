"""Deleting a deployment while a web process writes a usage minute of one of its keys. The usage row's
foreign keys are checked when its transaction commits; a row committed while the deletion was running
(between its statements) failed the deletion at its commit (CI saw a 500 on DELETE /deployments/{id}/
right after a hosted request was counted). The deletion now locks the
deployment and its keys first: such a write waits, finds them gone and drops the minute (deploy.usage
catches that), and the deletion succeeds."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from tests.deploy.factories import deployment_with_key
from tests.training.factories import model_version

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_usage_minute_committed_mid_deletion_does_not_fail_it(tenants, isolated_storage, monkeypatch):
    from deploy.models import Deployment, DeploymentKey, UsageMinute
    from deploy.services import deployment_delete
    from django.db import IntegrityError, connections, transaction
    from django.db.models import deletion

    mv = model_version(tenants["project_a"])
    deployment, key, _ = deployment_with_key(tenants, mv)
    collected, committed = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    original = deletion.Collector.delete

    def delete_after_a_usage_write(self):  # the deletion has collected the rows it will delete
        collected.set()
        outcome["usage committed before the delete"] = committed.wait(3)
        return original(self)

    monkeypatch.setattr(deletion.Collector, "delete", delete_after_a_usage_write)

    def deleter() -> None:
        try:
            deployment_delete(deployment=Deployment.objects.get(pk=deployment.pk))
            outcome["deleted"] = True
        except Exception as exc:  # noqa: BLE001 (the failure is what the test looks for)
            outcome["deleted"] = exc
        finally:
            connections.close_all()

    def usage_writer() -> None:  # deploy.usage's flush of one minute
        try:
            with transaction.atomic():
                UsageMinute.objects.create(
                    deployment_id=deployment.pk,
                    key_id=key.pk,
                    model_version_id=mv.pk,
                    minute=datetime(2026, 12, 5, 12, 0, tzinfo=UTC),
                    writer="web-1",
                    calls=1,
                )
            committed.set()
            outcome["usage"] = "written"
        except IntegrityError:
            outcome["usage"] = "dropped"
        finally:
            connections.close_all()

    deleting = threading.Thread(target=deleter)
    deleting.start()
    assert collected.wait(10)
    writing = threading.Thread(target=usage_writer)
    writing.start()
    deleting.join(30)
    writing.join(30)
    assert outcome["deleted"] is True, outcome
    assert outcome["usage committed before the delete"] is False, "the usage write waited for the deletion"
    assert outcome["usage"] == "dropped"
    assert not Deployment.objects.filter(pk=deployment.pk).exists()
    assert not DeploymentKey.objects.filter(pk=key.pk).exists()
    assert not UsageMinute.objects.filter(deployment_id=deployment.pk).exists()
