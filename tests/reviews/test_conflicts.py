"""Conflicts of interest are refused with the reason; nothing changes."""

import pytest

from registry import services as registry_services
from reviews import services
from reviews.models import Assignment
from tests.factories import UserFactory
from tests.reviews.conftest import client_for

pytestmark = pytest.mark.django_db


def assign(world, username, role="technical"):
    return client_for(world.chair).post(
        f"/api/v1/challenges/{world.challenge.pk}/assignments/",
        {"reviewer": username, "role": role},
        format="json",
    )


def assert_refused(world, response, *fragments):
    assert response.status_code == 409
    for fragment in fragments:
        assert fragment in response.json()["detail"]
    assert Assignment.objects.count() == 0
    world.challenge.refresh_from_db()
    assert world.challenge.status == "submitted"


def test_assign_reviewer_from_an_organizers_institution_is_refused(world):
    UserFactory(username="ines", profile__institution="  org   INSTITUTE ")
    response = assign(world, "ines")
    assert_refused(world, response, "ines", "org   INSTITUTE", "organizing institution")


def test_assign_reviewer_from_an_institution_of_parameter_3_is_refused(world):
    # fill_proposal answers parameter 3 with the catalogue's example institution.
    UserFactory(
        username="dora", profile__institution="german cancer research center (DKFZ)"
    )
    assert_refused(world, assign(world, "dora"), "dora", "organizing institution")


def test_assign_reviewer_from_a_co_organizers_institution_is_refused(world):
    co = UserFactory(profile__institution="Co Lab")
    world.challenge.co_organizers.add(co)
    UserFactory(username="colleague", profile__institution="co lab")
    assert_refused(world, assign(world, "colleague"), "Co Lab".lower())


def test_assign_reviewer_who_declared_a_conflict_with_the_proposal_is_refused(world):
    services.declare_conflict(
        reviewer=world.tech1, challenge=world.challenge, reason="Former student."
    )
    assert_refused(world, assign(world, "tina"), "tina", "Former student.")


def test_assign_reviewer_who_declared_an_organizing_institution_is_refused(world):
    response = client_for(world.tech1).post(
        "/api/v1/conflicts/",
        {"institution": "Org Institute", "reason": "Joint grant."},
        format="json",
    )
    assert response.status_code == 201
    assert_refused(world, assign(world, "tina"), "Org Institute", "Joint grant.")


def test_declared_institution_conflict_elsewhere_does_not_block(world):
    services.declare_conflict(
        reviewer=world.tech1, institution="Elsewhere", reason="Old employer."
    )
    assert assign(world, "tina").status_code == 201


def test_assign_organizer_as_reviewer_is_refused(world):
    assert_refused(world, assign(world, "olga"), "olga is an organizer")


def test_assign_same_reviewer_twice_is_refused(world):
    assert assign(world, "tina").status_code == 201
    response = assign(world, "tina", role="clinical")
    assert response.status_code == 409
    assert "already assigned" in response.json()["detail"]
    assert Assignment.objects.count() == 1


def test_assign_unknown_user_names_the_field(world):
    response = assign(world, "nobody")
    assert response.status_code == 400
    assert "nobody" in str(response.json()["reviewer"])


def test_assign_unknown_role_is_refused(world):
    response = assign(world, "tina", role="statistical")
    assert response.status_code == 400
    assert "role" in response.json()


def test_assign_to_draft_is_refused_with_conflict(world):
    draft = registry_services.create_challenge(
        owner=world.organizer, call=world.call, name="Draft"
    )
    with pytest.raises(services.TransitionError, match="draft"):
        services.assign_reviewer(
            challenge=draft, reviewer=world.tech1, role="technical", actor=world.chair
        )


def test_conflict_declaration_needs_institution_or_challenge(world):
    response = client_for(world.tech1).post(
        "/api/v1/conflicts/", {"reason": "Unsure."}, format="json"
    )
    assert response.status_code == 400
    assert "institution" in response.json()


def test_decline_with_reason_removes_access(under_review):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    client = client_for(under_review.tech1)
    response = client.post(
        f"/api/v1/assignments/{assignment.pk}/decline/",
        {"reason": "On leave."},
        format="json",
    )
    assert response.status_code == 200
    assignment.refresh_from_db()
    assert (assignment.status, assignment.decline_reason) == ("declined", "On leave.")
    url = f"/api/v1/challenges/{under_review.challenge.pk}/"
    assert client.get(url).status_code == 404


def test_decline_without_reason_changes_nothing(under_review):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    response = client_for(under_review.tech1).post(
        f"/api/v1/assignments/{assignment.pk}/decline/", {"reason": ""}, format="json"
    )
    assert response.status_code == 400
    assert "reason" in response.json()
    assignment.refresh_from_db()
    assert assignment.status == "assigned"


def test_suggestions_rank_by_expertise_overlap_without_conflicted(world):
    # The example answers: segmentation/classification, CT/MRI, diagnosis/screening.
    UserFactory(
        username="ines",
        profile__institution="Org Institute",
        profile__role="reviewer",
        profile__expertise="segmentation, CT, MRI",
    )
    response = client_for(world.chair).get(
        f"/api/v1/challenges/{world.challenge.pk}/suggestions/"
    )
    assert response.status_code == 200
    ranked = [(s["username"], s["score"]) for s in response.json()]
    assert ranked == [("tina", 2), ("clara", 1), ("tom", 1), ("rex", 0)]
    assert response.json()[1]["role"] == "clinical"


def test_suggestions_are_for_chairs_only(world):
    response = client_for(world.organizer).get(
        f"/api/v1/challenges/{world.challenge.pk}/suggestions/"
    )
    assert response.status_code == 403
