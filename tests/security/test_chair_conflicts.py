"""Attack: a chair judges a proposal they organize (issue 30), and proposal spam.

The owner added the chair as co-organizer; the chair read every review with
the reviewers' names and accepted with 1 of 3 reviews in. A chair in conflict
(organizer, co-organizer, the same normalised institution) now neither sees
the identities nor assigns nor decides, on the pages or the API; another chair
of the call (or staff, for reading) does.
"""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import override_settings
from django.urls import reverse

from registry import services as registry_services
from registry.enums import ChallengeStatus
from reviews import services
from tests.factories import UserFactory
from tests.reviews.conftest import DECISION_FORM, client_for, submit_review

pytestmark = pytest.mark.django_db


@pytest.fixture
def chair_co_organizes(under_review):
    world = under_review
    submit_review(world.challenge, world.tech1, "accept")
    registry_services.add_co_organizer(
        challenge=world.challenge, user=world.chair, actor=world.organizer
    )
    return world


def decision_url(world) -> str:
    return f"/api/v1/challenges/{world.challenge.pk}/decision/"


def test_chair_who_co_organizes_cannot_decide_through_the_api(chair_co_organizes):
    world = chair_co_organizes
    response = client_for(world.chair).post(
        decision_url(world),
        {"decision": "accept", "letter": "Yes.", "confirm": True},
        format="json",
    )
    assert response.status_code == 403
    assert response.json()["detail"] == (
        "You have a conflict of interest with this proposal (chair is an "
        "organizer of this proposal.); another chair of the call handles its "
        "review and decision."
    )
    world.challenge.refresh_from_db()
    assert world.challenge.status == ChallengeStatus.UNDER_REVIEW


def test_chair_who_co_organizes_cannot_decide_through_the_service(
    chair_co_organizes,
):
    world = chair_co_organizes
    with pytest.raises(PermissionDenied, match="conflict of interest"):
        services.decide(
            challenge=world.challenge,
            actor=world.chair,
            decision="accept",
            letter="Yes.",
            confirm=True,
        )
    assert world.challenge.decisions.count() == 0


def test_chair_who_co_organizes_cannot_decide_on_the_page(client, chair_co_organizes):
    world = chair_co_organizes
    client.force_login(world.chair)
    response = client.post(
        reverse("reviews:decide", args=[world.challenge.pk]), DECISION_FORM
    )
    assert response.status_code == 403
    assert world.challenge.decisions.count() == 0


def test_chair_who_co_organizes_sees_no_reviewer_identities(client, chair_co_organizes):
    world = chair_co_organizes
    api = client_for(world.chair)
    base = f"/api/v1/challenges/{world.challenge.pk}/"
    assert api.get(base + "assignments/").status_code == 403
    # as an organizer: no review before the revision is decided
    assert api.get(base + "reviews/").json() == []
    assert "draft_letter" not in api.get(base + "decision/").json()
    client.force_login(world.chair)
    page = client.get(reverse("reviews:manage", args=[world.challenge.pk]))
    assert page.status_code == 403


def test_chair_cannot_assign_reviewers_to_a_proposal_they_organize(
    chair_co_organizes,
):
    world = chair_co_organizes
    with pytest.raises(PermissionDenied, match="conflict of interest"):
        services.assign_reviewer(
            challenge=world.challenge,
            reviewer=world.outsider_reviewer,
            role="technical",
            actor=world.chair,
        )


def test_chair_of_the_organizers_institution_cannot_decide(under_review):
    world = under_review
    world.chair.profile.institution = "Org. Inst."  # "Org Institute", normalised
    world.chair.profile.save()
    response = client_for(world.chair).post(
        decision_url(world),
        {"decision": "accept", "letter": "Yes.", "confirm": True},
        format="json",
    )
    assert response.status_code == 403
    assert "is also an organizing institution" in response.json()["detail"]


def test_another_chair_decides_and_staff_still_reads(chair_co_organizes):
    world = chair_co_organizes
    second = UserFactory(username="second")
    world.call.chairs.add(second)
    response = client_for(second).post(
        decision_url(world),
        {"decision": "accept", "letter": "Yes.", "confirm": True},
        format="json",
    )
    assert response.status_code == 201
    base = f"/api/v1/challenges/{world.challenge.pk}/"
    [review] = client_for(world.staff).get(base + "reviews/").json()
    assert review["reviewer_username"] == "tina"


@override_settings(MAX_PROPOSALS_PER_CALL=2)
def test_proposals_per_account_and_call_are_limited(world):
    for name in ("One", "Two"):
        registry_services.create_challenge(
            owner=world.chair, call=world.call, name=name
        )
    with pytest.raises(ValidationError) as caught:
        registry_services.create_challenge(
            owner=world.chair, call=world.call, name="Three"
        )
    assert caught.value.message_dict == {
        "call": [
            "You already have 2 proposals in MICCAI 2027 (the limit is 2 per "
            "account and call); ask the call's chairs if you need more."
        ]
    }
    # another call is counted on its own
    registry_services.create_challenge(
        owner=world.chair, call=world.other_chair.chaired_calls.get(), name="Four"
    )


@override_settings(MAX_PROPOSALS_PER_CALL=1)
def test_proposal_limit_answers_400_on_the_api(world):
    api = client_for(world.organizer)  # olga already has the world's proposal
    response = api.post(
        "/api/v1/challenges/", {"call": "miccai-2027", "name": "Spam"}, format="json"
    )
    assert response.status_code == 400
    assert "the limit is 1 per account and call" in str(response.json())


def test_withdrawn_reviewers_review_is_not_quoted_in_the_draft_letter(under_review):
    world = under_review
    submit_review(world.challenge, world.tech1, "accept", comments="Conflicted view.")
    submit_review(world.challenge, world.tech2, "reject", comments="Honest view.")
    registry_services.add_co_organizer(
        challenge=world.challenge, user=world.tech1, actor=world.organizer
    )  # tina is withdrawn for the conflict
    letter = client_for(world.chair).get(decision_url(world)).json()["draft_letter"]
    assert "Honest view." in letter
    assert "Conflicted view." not in letter
