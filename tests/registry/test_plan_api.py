"""The test-set plan API: status codes, and bodies that match the served schema."""

import hashlib

import jsonschema
import pytest

from tests.factories import UserFactory
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_plan_pilot_upload import pilot_csv
from tests.registry.test_test_set_plans import INPUTS, SCHEME

pytestmark = pytest.mark.django_db


def _openapi_to_json_schema(node):
    """OpenAPI 3.0's ``nullable`` as JSON Schema's ``type: [..., "null"]``."""
    if isinstance(node, dict):
        out = {k: _openapi_to_json_schema(v) for k, v in node.items()}
        if out.pop("nullable", False):
            if "type" in out:
                out["type"] = [out["type"], "null"]
            else:  # a nullable reference: {"allOf": [{"$ref": ...}]}
                out = {"anyOf": [out, {"type": "null"}]}
        return out
    if isinstance(node, list):
        return [_openapi_to_json_schema(v) for v in node]
    return node


@pytest.fixture
def plan_schema(api):
    document = api.get("/api/schema/", {"format": "json"}).json()
    schemas = _openapi_to_json_schema(document["components"]["schemas"])
    return {
        "$ref": "#/components/schemas/TestSetPlan",
        "components": {"schemas": schemas},
    }


@pytest.fixture
def task(call, organizer):
    return proposal_with_scheme(call, organizer, SCHEME).tasks.get()


def url(task):
    return f"/api/v1/tasks/{task.pk}/plan/"


def test_compute_then_attach_then_read_then_detach(organizer_api, task, plan_schema):
    assert organizer_api.get(url(task)).status_code == 404
    computed = organizer_api.post(url(task), INPUTS, format="json")
    assert computed.status_code == 200
    jsonschema.validate(computed.json(), plan_schema)
    task.refresh_from_db()
    assert task.test_set_plan is None
    attached = organizer_api.post(url(task), {**INPUTS, "attach": True}, format="json")
    assert attached.status_code == 201
    assert attached.json() == computed.json()
    read = organizer_api.get(url(task))
    assert read.status_code == 200
    jsonschema.validate(read.json(), plan_schema)
    assert organizer_api.delete(url(task)).status_code == 204
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_intervals_absent_are_null_in_the_schema(organizer_api, task, plan_schema):
    body = organizer_api.post(url(task), INPUTS, format="json").json()
    assert body["n"][0]["rank_interval_width"] is None
    assert body["interval_method"] is None
    jsonschema.validate(body, plan_schema)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"n": [0]}, "n"),
        ({"simulations": 0}, "simulations"),
        ({"n": "x"}, "n"),
        ({"model": 0.05}, "model"),  # was a 500 (Schemathesis)
    ],
)
def test_bad_input_is_a_400_naming_the_field(organizer_api, task, changes, field):
    response = organizer_api.post(url(task), {**INPUTS, **changes}, format="json")
    assert response.status_code == 400
    assert field in response.json()


def test_attach_needs_an_editor_and_unseen_tasks_are_404(api, task):
    viewer = UserFactory()
    api.force_authenticate(viewer)
    response = api.post(url(task), {**INPUTS, "attach": True}, format="json")
    assert response.status_code == 404  # a draft is not visible to others
    task.refresh_from_db()
    assert task.test_set_plan is None


def test_attach_after_submission_is_refused_403(organizer_api, task, organizer):
    from registry import services

    services.submit_challenge(challenge=task.challenge, actor=organizer)
    response = organizer_api.post(url(task), {**INPUTS, "attach": True}, format="json")
    assert response.status_code == 403
    assert organizer_api.post(url(task), INPUTS, format="json").status_code == 200


def test_a_task_without_scheme_is_a_409(organizer_api, call, organizer):
    from registry import services

    challenge = services.create_challenge(owner=organizer, call=call, name="X")
    bare = services.add_task(challenge=challenge, name="T", actor=organizer)
    response = organizer_api.post(url(bare), INPUTS, format="json")
    assert response.status_code == 409
    assert "no ranking scheme" in response.json()["detail"]


def test_a_pilot_table_is_sent_as_text_and_kept_with_its_hash(
    organizer_api, task, plan_schema
):
    table = pilot_csv()
    body = {**INPUTS, "model": {"kind": "pilot", "table": table}, "n": [5, 10]}
    attached = organizer_api.post(url(task), {**body, "attach": True}, format="json")
    assert attached.status_code == 201
    jsonschema.validate(attached.json(), plan_schema)
    model = attached.json()["model"]
    assert model["results_sha256"] == hashlib.sha256(table.encode()).hexdigest()
    assert model["cases"] == 8
    bad = {**body, "model": {"kind": "pilot", "table": "task,case\n"}}
    refused = organizer_api.post(url(task), bad, format="json")
    assert refused.status_code == 400
    assert "invalid results table" in str(refused.json())
