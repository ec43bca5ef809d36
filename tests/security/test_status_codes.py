"""Illegal transitions answer 409 naming the state and the allowed actions;
permission problems stay 403."""

import pytest

from tests.factories import UserFactory
from tests.reviews.conftest import client_for

pytestmark = pytest.mark.django_db


def submit(api, challenge):
    return api.post(f"/api/v1/challenges/{challenge.pk}/submit/", {}, format="json")


def test_submitting_a_proposal_under_review_is_409(under_review):
    response = submit(client_for(under_review.organizer), under_review.challenge)
    assert response.status_code == 409
    body = response.json()
    assert body["state"] == "under_review"
    assert "withdraw" in body["allowed_actions"]
    assert "under review" in body["detail"]


def test_submitting_a_registered_proposal_is_409_not_a_permission_error(
    organizer_api, registration
):
    response = submit(organizer_api, registration.challenge)
    assert response.status_code == 409
    body = response.json()
    assert body["state"] == "registered"
    assert body["allowed_actions"] == ["propose an amendment", "upload results"]


def test_submitting_someone_elses_proposal_stays_403(under_review):
    stranger = client_for(UserFactory(username="mallory"))
    response = submit(stranger, under_review.challenge)
    assert response.status_code in (403, 404)


def test_deciding_twice_is_409_with_the_state(under_review):
    chair = client_for(under_review.chair)
    url = f"/api/v1/challenges/{under_review.challenge.pk}/decision/"
    payload = {"decision": "reject", "letter": "Out of scope.", "confirm": True}
    assert chair.post(url, payload, format="json").status_code in (200, 201)
    again = chair.post(url, payload, format="json")
    assert again.status_code == 409
    assert again.json()["state"] == "rejected"
    assert again.json()["allowed_actions"] == ["duplicate"]
