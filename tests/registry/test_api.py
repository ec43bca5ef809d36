import pytest

from registry.models import Challenge, StatusChange
from registry.parameters import PARAMETERS
from tests.factories import ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal

pytestmark = pytest.mark.django_db


def create(api, name="Decathlon", call="miccai-2027"):
    return api.post("/api/v1/challenges/", {"name": name, "call": call}, format="json")


def put_website(api, challenge):
    """Answer parameter 2 (the challenge website) of `challenge`."""
    return api.put(
        f"/api/v1/challenges/{challenge.pk}/answers/2/",
        {"value": "https://x.example.org"},
        format="json",
    )


def test_parameters_endpoint_lists_53_with_contract_fields(api):
    response = api.get("/api/v1/parameters/")
    assert response.status_code == 200
    page = response.json()
    assert (page["count"], page["next"], page["previous"]) == (53, None, None)
    data = page["results"]
    assert [p["number"] for p in data] == list(range(1, 54))
    assert sum(p["required_for_submission"] for p in data) == 40
    assert {
        "number",
        "group",
        "name",
        "level",
        "kind",
        "required_for_submission",
        "not_applicable_allowed",
        "definition",
        "examples",
        "bias_items",
        "example_value",
    } <= set(data[0])


def test_create_challenge_returns_id_and_records_name(organizer_api, call):
    response = create(organizer_api)
    assert response.status_code == 201
    challenge = Challenge.objects.get(pk=response.json()["id"])
    assert challenge.name == "Decathlon"
    assert response.json()["answers"]["1"]["value"] == "Decathlon"
    assert response.json()["status"] == "draft"


def test_create_challenge_with_unknown_call_is_refused(organizer_api, call):
    response = create(organizer_api, call="nope")
    assert response.status_code == 400
    assert "nope" in str(response.json())
    assert Challenge.objects.count() == 0


def test_anonymous_cannot_create(api, call):
    assert create(api).status_code in (401, 403)


def test_example_values_are_accepted_at_their_level(organizer_api, call):
    challenge_id = create(organizer_api).json()["id"]
    task_id = organizer_api.post(
        f"/api/v1/challenges/{challenge_id}/tasks/", {"name": "Brain"}, format="json"
    ).json()["id"]
    for parameter in PARAMETERS:
        base = (
            f"/api/v1/challenges/{challenge_id}"
            if parameter.level == "challenge"
            else f"/api/v1/tasks/{task_id}"
        )
        response = organizer_api.put(
            f"{base}/answers/{parameter.number}/",
            {"value": parameter.example_value},
            format="json",
        )
        assert response.status_code == 200, (parameter.number, response.json())


def test_wrong_level_is_refused_naming_the_parameter(organizer_api, call):
    challenge_id = create(organizer_api).json()["id"]
    response = organizer_api.put(
        f"/api/v1/challenges/{challenge_id}/answers/38/",
        {"value": {"count": 10}},
        format="json",
    )
    assert response.status_code == 400
    assert "Number of test cases" in str(response.json())


def test_invalid_value_changes_nothing(organizer_api, call):
    challenge_id = create(organizer_api).json()["id"]
    url = f"/api/v1/challenges/{challenge_id}/answers/2/"
    organizer_api.put(url, {"value": "https://a.example.org"}, format="json")
    response = organizer_api.put(url, {"value": "ftp:/bad"}, format="json")
    assert response.status_code == 400
    assert "Challenge website" in str(response.json())
    detail = organizer_api.get(f"/api/v1/challenges/{challenge_id}/").json()
    assert detail["answers"]["2"]["value"] == "https://a.example.org"


def test_not_applicable_needs_a_reason_and_is_refused_where_not_allowed(
    organizer_api, call
):
    challenge_id = create(organizer_api).json()["id"]
    base = f"/api/v1/challenges/{challenge_id}/answers"
    assert (
        organizer_api.put(
            f"{base}/7/", {"not_applicable": "  "}, format="json"
        ).status_code
        == 400
    )
    ok = organizer_api.put(
        f"{base}/7/", {"not_applicable": "Public data only."}, format="json"
    )
    assert ok.json()["not_applicable"] == "Public data only."
    refused = organizer_api.put(f"{base}/4/", {"not_applicable": "n/a"}, format="json")
    assert refused.status_code == 400
    assert "always applies" in str(refused.json())


def test_completeness_and_submit_follow_threshold(organizer_api, organizer, call):
    challenge_id = create(organizer_api).json()["id"]
    challenge = Challenge.objects.get(pk=challenge_id)
    TaskFactory(challenge=challenge, name="Brain")
    TaskFactory(challenge=challenge, name="Heart")
    fill_proposal(challenge, organizer, skip={2, 3, 38})  # 1 + 1 + 2 entries missing

    data = organizer_api.get(f"/api/v1/challenges/{challenge_id}/completeness/").json()
    required = [p for p in PARAMETERS if p.required_for_submission]
    required_total = sum(1 if p.level == "challenge" else 2 for p in required)
    assert required_total == 70
    assert data["threshold_percent"] == 90
    assert data["submission_percent"] == round(100 * 66 / 70, 1)
    assert data["can_submit"] is True
    assert {(m["number"], m["task"]) for m in data["missing"]} == {
        (2, None),
        (3, None),
        (38, "Brain"),
        (38, "Heart"),
    }

    call.completeness_threshold = 100
    call.save()
    refused = organizer_api.post(f"/api/v1/challenges/{challenge_id}/submit/")
    assert refused.status_code == 409
    assert len(refused.json()["missing"]) == 4
    assert Challenge.objects.get(pk=challenge_id).status == "draft"

    fill_proposal(challenge, organizer)
    accepted = organizer_api.post(f"/api/v1/challenges/{challenge_id}/submit/")
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "submitted"
    change = StatusChange.objects.get(challenge_id=challenge_id)
    assert (change.from_status, change.to_status, change.actor) == (
        "draft",
        "submitted",
        organizer,
    )


def test_submitted_proposal_is_read_only(organizer_api, organizer, call):
    challenge = ChallengeFactory(call=call, owner=organizer, status="submitted")
    assert put_website(organizer_api, challenge).status_code == 403


def test_drafts_are_invisible_to_others(api, call):
    challenge = ChallengeFactory(call=call)
    task = TaskFactory(challenge=challenge)
    api.force_authenticate(UserFactory())
    assert api.get(f"/api/v1/challenges/{challenge.pk}/").status_code == 404
    assert api.get(f"/api/v1/tasks/{task.pk}/").status_code == 404
    assert put_website(api, challenge).status_code == 404
    assert api.get("/api/v1/challenges/").json()["results"] == []


def test_co_organizer_can_edit(api, call):
    challenge = ChallengeFactory(call=call)
    helper = UserFactory()
    challenge.co_organizers.add(helper)
    api.force_authenticate(helper)
    assert put_website(api, challenge).status_code == 200


def test_tasks_are_added_renamed_and_removed(organizer_api, call):
    challenge_id = create(organizer_api).json()["id"]
    url = f"/api/v1/challenges/{challenge_id}/tasks/"
    first = organizer_api.post(url, {"name": "Brain"}, format="json").json()
    duplicate = organizer_api.post(url, {"name": "Brain"}, format="json")
    assert duplicate.status_code == 400
    renamed = organizer_api.patch(
        f"/api/v1/tasks/{first['id']}/", {"name": "Heart"}, format="json"
    )
    assert renamed.json()["name"] == "Heart"
    assert organizer_api.delete(f"/api/v1/tasks/{first['id']}/").status_code == 204
    assert (
        organizer_api.get(f"/api/v1/challenges/{challenge_id}/").json()["tasks"] == []
    )


def test_openapi_schema_is_served(api):
    response = api.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/v1/challenges/{id}/completeness/" in response.content


def test_revision_is_not_submitted_as_a_draft(organizer_api, organizer, call):
    challenge = ChallengeFactory(call=call, owner=organizer)
    TaskFactory(challenge=challenge)
    fill_proposal(challenge, organizer)
    Challenge.objects.filter(pk=challenge.pk).update(status="revision_requested")
    response = organizer_api.post(f"/api/v1/challenges/{challenge.pk}/submit/")
    assert response.status_code == 409
    assert "response letter" in response.json()["detail"]
    assert Challenge.objects.get(pk=challenge.pk).status == "revision_requested"


def test_overlong_challenge_name_is_refused_not_truncated(organizer_api, call):
    long_name = "x" * 301
    assert create(organizer_api, name=long_name).status_code == 400
    challenge_id = create(organizer_api).json()["id"]
    response = organizer_api.put(
        f"/api/v1/challenges/{challenge_id}/answers/1/",
        {"value": long_name},
        format="json",
    )
    assert response.status_code == 400
    assert "at most 300 characters" in str(response.json())
    assert Challenge.objects.get(pk=challenge_id).name == "Decathlon"
