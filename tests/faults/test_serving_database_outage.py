"""Hosted predictions while PostgreSQL refuses connections (issue 12, item 6): a live gunicorn keeps
answering 200 from its cached deployment state within SAMPAN_DEPLOY_STALE_SECONDS (a key revoked
before the outage stays refused), answers 503 database_unavailable with Retry-After past it (never
500), serves again within seconds of the database's return, and the usage of every call it answered
during the outage is written once the database is back.

The fault is real: ``ALTER DATABASE <test db> ALLOW_CONNECTIONS false`` and ``pg_terminate_backend``
of its sessions, from a connection to the ``postgres`` database, restored in a ``finally``."""

from __future__ import annotations

import base64
import time

import psycopg
import pytest
import requests

from tests.deploy.factories import deployment_with_key, model_version_from, png
from tests.faults.job_stack import record
from tests.harness import ARTIFACTS, live_env, start_web, wait_for

pytestmark = [pytest.mark.faults, pytest.mark.integration, pytest.mark.django_db(transaction=True)]
STALE_SECONDS = 8


@pytest.fixture
def web():
    """A gunicorn web process like conftest's live_web, with a short staleness bound."""
    (ARTIFACTS / "web-database-outage.log").unlink(missing_ok=True)  # this run's log only
    process, url = start_web("web-database-outage", live_env(SAMPAN_DEPLOY_STALE_SECONDS=str(STALE_SECONDS)))
    yield url, process
    process.stop()


def admin_connection():
    from django.db import connection

    settings = connection.settings_dict
    return psycopg.connect(
        dbname="postgres",
        user=settings.get("USER") or "postgres",
        password=settings.get("PASSWORD") or None,
        host=settings.get("HOST") or "127.0.0.1",
        port=settings.get("PORT") or 5432,
        autocommit=True,
    )


def test_predictions_outlive_a_database_outage_for_the_staleness_bound(web, tenants, trained_digits):
    from deploy import services
    from deploy.models import UsageMinute
    from django.db import connection
    from django.db.models import Sum

    url, process = web
    deployment, key, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    revoked, revoked_secret = services.deployment_key_create(
        user=tenants["alice"], deployment=deployment, name="to revoke"
    )
    services.deployment_key_revoke(key=revoked)
    endpoint = f"{url}/api/v1/deployments/{deployment.pk}/predict/"
    body = {"instances": [{"image": base64.b64encode(png(3)).decode()}], "top_k": 1}

    def predict(with_key: str = secret) -> requests.Response:
        return requests.post(endpoint, json=body, headers={"Authorization": f"Bearer {with_key}"}, timeout=30)

    answered = 0
    for _ in range(3):  # the state and the model are loaded and cached
        assert predict().status_code == 200
        answered += 1
    assert predict(revoked_secret).status_code == 401
    database = connection.settings_dict["NAME"]
    statuses: list[int] = []
    admin = admin_connection()
    try:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid()",
            [database],
        )
        down = time.monotonic()
        with pytest.raises(psycopg.OperationalError):  # the fault is real: no new connection is accepted
            psycopg.connect(dbname=database, user="postgres", host="127.0.0.1", connect_timeout=5).close()
        while time.monotonic() - down < STALE_SECONDS - 3:  # within the bound: the cached state serves
            answer = predict()
            assert answer.status_code == 200, answer.text
            assert answer.json()["predictions"][0]["top_k"][0]["label"]
            answered += 1
            refused = predict(revoked_secret)  # the revoke from before the outage still applies
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "key_revoked", (
                refused.text
            )
            time.sleep(0.2)
        time.sleep(max(0.0, STALE_SECONDS + 1.5 - (time.monotonic() - down)))
        for _ in range(5):  # past the bound: 503 with Retry-After, never a 500
            late = predict()
            statuses.append(late.status_code)
            assert late.status_code == 503, late.text
            assert late.headers["Retry-After"].isdigit()
            error = late.json()["error"]
            assert (
                error["code"] == "database_unavailable" and "SAMPAN_DEPLOY_STALE_SECONDS" in error["message"]
            )
    finally:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        admin.close()
        connection.close()  # this test's own session was terminated too
    assert statuses == [503] * 5

    def serves_again() -> bool:
        return predict().status_code == 200

    back = time.monotonic()
    wait_for(serves_again, timeout=15, interval=0.2, what="predictions after the database returned")
    returned_after = time.monotonic() - back
    assert returned_after < 10
    answered += 1
    for _ in range(2):
        assert predict().status_code == 200
        answered += 1

    # nothing lost: every call answered (200s; the 503s never reached a key) is in the usage table,
    # the ones of the outage included, once the web's flush thread could write them
    def counted() -> int:
        total = UsageMinute.objects.filter(deployment=deployment, key=key).aggregate(n=Sum("calls"))["n"] or 0
        return total if total >= answered else 0

    total = wait_for(counted, timeout=20, what="the usage of the outage to be written")
    assert total == answered, (total, answered)
    assert "Traceback" not in process.log(), process.log()
    served = answered - 6  # less the 3 warm-up calls and the 3 after the database returned
    record(
        "6-predictions-database-outage",
        fault=f"ALTER DATABASE ... ALLOW_CONNECTIONS false + pg_terminate_backend under a live gunicorn "
        f"serving a deployment (SAMPAN_DEPLOY_STALE_SECONDS={STALE_SECONDS})",
        promise="predictions served from the cached deployment/key state within the bound (a revoke read "
        "before still applies), then 503 database_unavailable with Retry-After, never 500; usage "
        "buffered and written when the database returns",
        measured=f"{served} predictions answered 200 and the revoked key 401 during the outage, 5 of 5 "
        f"answered 503 past the bound, 200 again {returned_after:.1f} s after the "
        f"database returned; usage counted {total} of {answered} calls",
        served=served,
        calls=answered,
    )
