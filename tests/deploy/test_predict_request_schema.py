"""The documented prediction request accepts every request the hosted API accepts: an image request
is also a valid detector request and table rows are free maps, so the union is ``anyOf`` (at least
one member), not ``oneOf`` (exactly one), which refused plain image and text bodies."""

from __future__ import annotations

import pytest
from jsonschema import Draft4Validator

from tests.openapi_conformance import _components, _strict

IMAGE = "iVBORw0KGgo="  # base64 of a PNG signature; the schema checks shape, not pixels

BODIES = {
    "image": {"instances": [{"image": IMAGE}], "top_k": 3},
    "detection": {"instances": [{"image": IMAGE}], "score_threshold": 0.5, "max_detections": 10},
    "text": {"instances": [{"text": "a short review"}], "top_k": 2},
    "table": {"instances": [{"alcohol": 13.2, "colour": "red", "missing": None}]},
    "forecast": {
        "instances": [
            {
                "id": "store-7",
                "timestamps": ["2024-01-01", "2024-01-02"],
                "values": [12.0, 9.5],
                "known": {"price": [1.0, 1.0, 1.2]},
                "static": {"region": "north"},
            }
        ],
        "horizon": 1,
        "quantiles": [0.1, 0.9],
    },
}


def _validator() -> Draft4Validator:
    components = _components()
    schema = {**components["schemas"]["PredictRequestRequest"], "components": components}
    return Draft4Validator(_strict(schema))


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_every_kind_of_prediction_request_matches_the_documented_body(kind):
    errors = list(_validator().iter_errors(BODIES[kind]))
    assert errors == [], [error.message for error in errors]


def test_a_body_of_no_documented_shape_is_still_refused():
    assert list(_validator().iter_errors({"instances": "not a list"}))
