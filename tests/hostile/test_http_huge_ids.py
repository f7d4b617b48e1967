"""An object id no row can have (more than 64 bits) answers 404 on every route that takes one, for
every method, through the live gunicorn (the prediction fast path included), on PostgreSQL and on
embedded SQLite (where such a number raised OverflowError in the driver). The routes come from
tests/test_tenancy.py's enumeration, so a new route is covered without editing this file."""

from __future__ import annotations

import re

import pytest
import requests

from tests.test_tenancy import ROUTES, url_for

pytestmark = [pytest.mark.integration]

TOO_BIG = ["99999999999999999999", str(2**63), "1" + "0" * 40]
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>|\(\?P<(\w+)>")


def id_routes() -> list[tuple[str, str, set[str]]]:
    found = []
    for name, regex, methods in ROUTES:
        parameters = PARAMETER.findall(regex)
        if parameters and all(converter in ("id", "") for converter, _, _ in parameters):
            found.append((name, regex, methods))
    return found


def test_every_route_with_parameters_takes_64_bit_ids():
    """Every path parameter is an id (``<id:...>``) except a template's name."""
    ids = {name for name, _, _ in id_routes()}
    others = {name for name, regex, _ in ROUTES if PARAMETER.search(regex)} - ids
    assert others == {"template-detail"}, others
    assert {"deployment-predict", "workspace-detail", "dataset-sample-image", "deployment-key-detail"} <= ids
    assert len(ids) >= 40


def probe(base: str, token: str) -> list[str]:
    wrong = []
    headers = {"Authorization": f"Bearer {token}"}
    for _name, regex, methods in id_routes():
        names = [n or m for _, n, m in PARAMETER.findall(regex)]
        for value in TOO_BIG:
            url = base + url_for(regex, dict.fromkeys(names, value))
            for method in sorted(methods):
                response = requests.request(method, url, json={}, headers=headers, timeout=30)
                body = (
                    response.json()
                    if response.headers.get("Content-Type", "").startswith("application/json")
                    else {}
                )
                if response.status_code != 404 or body.get("error", {}).get("code") != "not_found":
                    wrong.append(f"{method.upper()} {url}: {response.status_code} {response.text[:120]}")
    # the largest id that exists is routed to the view, which finds nothing
    largest = base + f"/api/v1/workspaces/{2**63 - 1}/"
    assert requests.get(largest, headers=headers, timeout=10).json()["error"]["message"] == "Not found."
    return wrong


@pytest.mark.django_db(transaction=True)
def test_huge_ids_are_404_on_postgresql(live_web, make_user, token_for):
    token = token_for(make_user("hugo", is_staff=True))
    assert probe(live_web, token) == []
    predict = requests.post(
        f"{live_web}/api/v1/deployments/99999999999999999999/predict/",
        json={"instances": []},
        headers={"Authorization": "Bearer anything"},
        timeout=10,
    )
    assert predict.status_code == 404


def test_huge_ids_are_404_on_embedded_sqlite(sqlite_web):
    assert probe(sqlite_web["url"], sqlite_web["token"]) == []
    predict = requests.post(
        f"{sqlite_web['url']}/api/v1/deployments/99999999999999999999/predict/",
        json={"instances": []},
        headers={"X-Sampan-Key": "spd_anything"},
        timeout=10,
    )
    assert predict.status_code == 404 and predict.json()["error"]["code"] == "not_found"
