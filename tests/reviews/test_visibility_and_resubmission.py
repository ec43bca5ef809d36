"""Assigned reviewers can read the proposals they review; resubmission rules."""

import pytest

from registry import services as registry_services
from registry.design import Design
from registry.models import StatusChange
from registry.permissions import can_view_challenge, challenges_visible_to
from reviews import services
from reviews.models import Assignment
from tests.reviews.conftest import (
    assert_conflict,
    assign_reviewer,
    client_for,
    decide_revision,
    post_to_challenge,
)

pytestmark = pytest.mark.django_db


def test_assigned_reviewer_lists_the_proposal(under_review):
    response = client_for(under_review.tech1).get("/api/v1/challenges/")
    assert [c["id"] for c in response.json()["results"]] == [under_review.challenge.pk]


def test_declined_reviewer_no_longer_sees_the_proposal(under_review):
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    services.decline_assignment(
        assignment=assignment, actor=under_review.tech1, reason="Busy."
    )
    assert not can_view_challenge(under_review.tech1, under_review.challenge)
    assert list(challenges_visible_to(under_review.tech1)) == []
    assert can_view_challenge(under_review.tech2, under_review.challenge)


def test_chair_sets_the_due_date(world):
    response = post_to_challenge(
        world,
        world.chair,
        "assignments/",
        {"reviewer": "tina", "role": "technical", "due": "2027-06-30"},
    )
    assert response.status_code == 201
    assert response.json()["due"] == "2027-06-30"


def test_first_assignment_freezes_version_of_submitted_design(world):
    assign_reviewer(world, world.tech1)
    version = world.challenge.versions.get()
    assert version.revision == 1
    design = Design.from_dict(version.snapshot)
    assert version.snapshot == design.to_dict()  # the canonical form
    brain = design.task("Brain")
    assert brain.answer(38).value["count"] == 100
    assert design.answer(1).value == "Decathlon"


def test_resubmit_incomplete_revision_is_refused_with_completeness(under_review):
    decide_revision(under_review)
    task = under_review.challenge.tasks.get()
    for number in (16, 18, 39, 40, 41, 42):
        registry_services.clear_answer(
            challenge=under_review.challenge,
            task=task,
            number=number,
            actor=under_review.organizer,
        )
    response = post_to_challenge(
        under_review, under_review.organizer, "resubmit/", {"response": "Here it is."}
    )
    assert_conflict(response, "complete")
    assert response.json()["can_submit"] is False
    under_review.challenge.refresh_from_db()
    assert under_review.challenge.status == "revision_requested"
    assert under_review.challenge.revision == 1


def test_resubmit_without_response_changes_nothing(under_review):
    decide_revision(under_review)
    changes = StatusChange.objects.count()
    response = post_to_challenge(
        under_review, under_review.organizer, "resubmit/", {"response": ""}
    )
    assert response.status_code == 400
    assert "response" in response.json()
    assert StatusChange.objects.count() == changes


def test_resubmit_while_under_review_is_a_conflict(under_review):
    response = post_to_challenge(
        under_review, under_review.organizer, "resubmit/", {"response": "Early."}
    )
    assert_conflict(response, "under review")


def test_review_of_decided_proposal_is_a_conflict(under_review):
    decide_revision(under_review)
    late = {"recommendation": "accept", "confidence": 2, "comments": "Late."}
    response = post_to_challenge(under_review, under_review.tech1, "reviews/", late)
    assert_conflict(response, "revision requested")
