"""The sample list and detail show a regression suggestion's value (the suggested target) with the
pending suggestion, in the list's one query: a page of many rows costs no more queries than one."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from labeling.models import SmartLabelingRound, Suggestion

from tests.datasets import factories

pytestmark = pytest.mark.django_db


def test_regression_suggestions_carry_their_value(tenants, api_client):
    dataset = factories.dataset(tenants["project_a"], name="Prices", task_type="tabular_regression")
    smart_round = SmartLabelingRound.objects.create(dataset=dataset, number=1, status="succeeded")
    known = factories.sample(dataset, values={"size": 1}, target=2.5, format="ROW")
    open_rows = [factories.sample(dataset, values={"size": i}, format="ROW") for i in range(2, 5)]
    for row, value in zip(open_rows, (3.25, 4.0, 5.5), strict=True):
        Suggestion.objects.create(round=smart_round, dataset=dataset, sample=row, value=value, confidence=0.8)
    alice = api_client(tenants["alice"])
    base = f"/api/v1/datasets/{dataset.pk}/samples/"

    detail = alice.get(f"{base}{open_rows[0].pk}/").json()["suggestion"]
    assert (detail["value"], detail["label"], detail["confidence"]) == (3.25, None, 0.8)
    with CaptureQueriesContext(connection) as one_row:
        alice.get(base, {"page_size": 1})
    with CaptureQueriesContext(connection) as every_row:
        listed = alice.get(base, {"page_size": 50}).json()["results"]
    assert len(every_row) == len(one_row)
    values = {row["id"]: (row["suggestion"] or {}).get("value") for row in listed}
    assert values == {known.pk: None, **dict(zip((r.pk for r in open_rows), (3.25, 4.0, 5.5), strict=True))}

    # classification suggestions have no value
    pets = factories.dataset(tenants["project_a"], name="Pets")
    cat = factories.label(pets, "cat")
    plain = factories.sample(pets)
    pets_round = SmartLabelingRound.objects.create(dataset=pets, number=1, status="succeeded")
    Suggestion.objects.create(round=pets_round, dataset=pets, sample=plain, label=cat, confidence=0.9)
    shown = alice.get(f"/api/v1/datasets/{pets.pk}/samples/{plain.pk}/").json()["suggestion"]
    assert (shown["label_name"], shown["value"]) == ("cat", None)
