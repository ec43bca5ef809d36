import hashlib
import json

import pytest

from registry.models import Amendment
from tests.factories import ChallengeFactory

pytestmark = pytest.mark.django_db


def register(api, user, challenge):
    api.force_authenticate(user)
    return api.post(f"/api/v1/challenges/{challenge.pk}/register/")


def test_register_returns_identifier_and_hash_of_served_bytes(api, accepted, chair):
    response = register(api, chair, accepted)
    assert response.status_code == 201
    body = response.json()
    assert body["identifier"] == "miccai-2027-001"
    assert body["version"] == 1
    api.force_authenticate(None)
    served = api.get("/api/v1/registrations/miccai-2027-001/versions/1/canonical.json")
    assert served.status_code == 200
    assert hashlib.sha256(served.content).hexdigest() == body["sha256"]
    detail = api.get("/api/v1/registrations/miccai-2027-001/").json()
    assert detail["versions"] == [
        {
            "version": 1,
            "sha256": body["sha256"],
            "previous_sha256": None,
            "created": detail["versions"][0]["created"],
            "created_by": "chair",
            "post_hoc": False,
            "justification": "",
        }
    ]


def test_register_refuses_unaccepted_with_409(api, call, organizer):
    draft = ChallengeFactory(call=call, owner=organizer)
    assert register(api, organizer, draft).status_code == 409


def test_public_list_is_searchable(api, accepted, chair):
    register(api, chair, accepted)
    api.force_authenticate(None)
    found = api.get("/api/v1/registrations/?q=decath").json()
    assert [r["identifier"] for r in found["results"]] == ["miccai-2027-001"]
    assert found["count"] == 1
    nothing = api.get("/api/v1/registrations/?q=nothing-like-this").json()
    assert nothing["results"] == []
    assert nothing["count"] == 0
    assert api.get("/api/v1/registrations/?call=miccai-2027").json()["count"] == 1


def test_amendment_cycle_creates_version_two_with_chain_and_diff(
    api, accepted, chair, organizer
):
    first = register(api, chair, accepted).json()
    api.force_authenticate(organizer)
    proposed = api.post(
        "/api/v1/registrations/miccai-2027-001/amendments/",
        {
            "justification": "More test cases became available.",
            "tasks": {"Brain": {"38": {"count": 120, "details": "20 more"}}},
            "challenge": {"2": "https://new.example.org"},
        },
        format="json",
    )
    assert proposed.status_code == 201, proposed.json()
    amendment_id = proposed.json()["id"]
    assert api.post(f"/api/v1/amendments/{amendment_id}/approve/").status_code == 403

    api.force_authenticate(chair)
    approved = api.post(f"/api/v1/amendments/{amendment_id}/approve/")
    assert approved.status_code == 200
    assert approved.json()["status"] == "approved"
    assert approved.json()["version"] == 2
    again = api.post(f"/api/v1/amendments/{amendment_id}/approve/")
    assert again.status_code == 409

    detail = api.get("/api/v1/registrations/miccai-2027-001/").json()
    second = detail["versions"][1]
    assert second["previous_sha256"] == first["sha256"]
    assert second["post_hoc"] is False
    document = json.loads(
        api.get(
            "/api/v1/registrations/miccai-2027-001/versions/2/canonical.json"
        ).content
    )
    assert document["previous_sha256"] == first["sha256"]
    assert document["justification"] == "More test cases became available."

    diff = api.get("/api/v1/registrations/miccai-2027-001/diff/?from=1&to=2").json()
    changed = {(c["task"], c["number"]) for c in diff["changes"]}
    assert changed == {(None, 2), ("Brain", 38)}
    count = next(c for c in diff["changes"] if c["number"] == 38)
    assert {"field": "count", "from": 100, "to": 120} in count["fields"]


def test_invalid_amendment_is_refused_naming_the_field(api, accepted, chair, organizer):
    register(api, chair, accepted)
    api.force_authenticate(organizer)
    url = "/api/v1/registrations/miccai-2027-001/amendments/"
    bad_value = api.post(
        url,
        {"justification": "x", "tasks": {"Brain": {"38": {"count": -5}}}},
        format="json",
    )
    assert bad_value.status_code == 400
    assert "Number of test cases" in str(bad_value.json())
    bad_task = api.post(
        url, {"justification": "x", "tasks": {"Lung": {"38": 1}}}, format="json"
    )
    assert "No task 'Lung'" in str(bad_task.json())
    no_reason = api.post(
        url, {"justification": " ", "challenge": {"2": "https://a.b"}}, format="json"
    )
    assert no_reason.status_code == 400
    assert Amendment.objects.count() == 0


def test_rejected_amendment_changes_nothing(api, accepted, chair, organizer):
    register(api, chair, accepted)
    api.force_authenticate(organizer)
    amendment = api.post(
        "/api/v1/registrations/miccai-2027-001/amendments/",
        {"justification": "x", "challenge": {"2": "https://new.example.org"}},
        format="json",
    ).json()
    api.force_authenticate(chair)
    rejected = api.post(
        f"/api/v1/amendments/{amendment['id']}/reject/",
        {"note": "Not justified."},
        format="json",
    )
    assert rejected.json()["status"] == "rejected"
    versions = api.get("/api/v1/registrations/miccai-2027-001/").json()["versions"]
    assert len(versions) == 1


def test_anonymous_readers_get_the_approved_amendments_the_page_shows(
    api, client, accepted, chair, organizer
):
    """The amendments page is public (approved ones only); the API said 401."""
    register(api, chair, accepted)
    url = "/api/v1/registrations/miccai-2027-001/amendments/"
    api.force_authenticate(organizer)
    for site in ("https://new.example.org", "https://other.example.org"):
        api.post(url, {"justification": "Moved.", "challenge": {"2": site}}, "json")
    first, second = Amendment.objects.order_by("pk")
    api.force_authenticate(chair)
    api.post(f"/api/v1/amendments/{first.pk}/approve/")
    api.force_authenticate(None)
    listed = api.get(url)
    assert listed.status_code == 200
    assert [(a["id"], a["status"]) for a in listed.json()] == [(first.pk, "approved")]
    page = client.get("/registry/miccai-2027-001/amendments/").content.decode()
    assert f'data-amendment="{first.pk}"' in page
    assert f'data-amendment="{second.pk}"' not in page
    refused = api.post(url, {"justification": "x", "challenge": {"2": "x"}}, "json")
    assert refused.status_code in (401, 403)
    assert Amendment.objects.count() == 2


def test_amendments_api_gives_the_number_the_page_shows(
    api, client, accepted, chair, organizer
):
    register(api, chair, accepted)
    url = "/api/v1/registrations/miccai-2027-001/amendments/"
    api.force_authenticate(organizer)
    numbers = []
    for site in ("https://new.example.org", "https://other.example.org"):
        made = api.post(
            url, {"justification": "Moved.", "challenge": {"2": site}}, "json"
        )
        numbers.append(made.json()["number"])
    assert numbers == [1, 2]
    second = Amendment.objects.order_by("pk").last()
    api.force_authenticate(chair)
    decided = api.post(f"/api/v1/amendments/{second.pk}/approve/").json()
    assert decided["number"] == 2
    api.force_authenticate(None)
    assert [(a["id"], a["number"]) for a in api.get(url).json()] == [(second.pk, 2)]
    page = client.get("/registry/miccai-2027-001/amendments/").content.decode()
    assert '<h2 class="h5 mb-0">Amendment 2</h2>' in page
