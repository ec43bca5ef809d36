"""Chairs unassign reviewers and change their roles (audited), and confirm the
unusual: a clinician in a technical slot, a decision on too few reviews."""

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from audit.models import AuditEvent
from reviews import services
from reviews.models import Assignment, Decision
from tests.reviews.conftest import assign_reviewer, client_for, review_payload

pytestmark = pytest.mark.django_db


def assignment_of(world, reviewer) -> Assignment:
    return Assignment.objects.get(challenge=world.challenge, reviewer=reviewer)


def test_chair_unassigns_through_the_api_and_it_is_audited(under_review):
    assignment = assignment_of(under_review, under_review.tech2)
    response = client_for(under_review.chair).delete(
        f"/api/v1/assignments/{assignment.pk}/"
    )
    assert response.status_code == 204
    listing = client_for(under_review.chair).get(
        f"/api/v1/challenges/{under_review.challenge.pk}/assignments/"
    )
    assert "tom" not in [a["reviewer"] for a in listing.json()["assignments"]]
    event = AuditEvent.objects.get(action="review.unassign")
    assert event.details["reviewer"] == "tom"
    assert event.actor == under_review.chair


@pytest.mark.parametrize("who", ["tech1", "organizer", "staff"])
def test_only_a_chair_unassigns(under_review, who):
    assignment = assignment_of(under_review, under_review.tech2)
    response = client_for(getattr(under_review, who)).delete(
        f"/api/v1/assignments/{assignment.pk}/"
    )
    assert response.status_code == 403
    assert Assignment.objects.filter(pk=assignment.pk).exists()


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [("delete", "", None), ("post", "decline/", {"reason": "busy"})],
)
def test_a_hidden_assignment_answers_the_404_of_a_missing_one(
    under_review, method, suffix, body
):
    """No existence leak: a chair of another call learns nothing."""
    hidden = assignment_of(under_review, under_review.tech2)
    outsider = client_for(under_review.other_chair)
    answers = [
        getattr(outsider, method)(f"/api/v1/assignments/{pk}/{suffix}", body)
        for pk in (hidden.pk, Assignment.objects.order_by("-pk").first().pk + 1)
    ]
    assert [a.status_code for a in answers] == [404, 404]
    assert answers[0].json() == answers[1].json() == {"detail": "No such assignment."}
    assert Assignment.objects.filter(pk=hidden.pk, status=hidden.status).exists()


def test_a_reviewer_who_reviewed_cannot_be_unassigned(under_review):
    client_for(under_review.tech1).post(
        f"/api/v1/challenges/{under_review.challenge.pk}/reviews/",
        review_payload(),
        format="json",
    )
    assignment = assignment_of(under_review, under_review.tech1)
    response = client_for(under_review.chair).delete(
        f"/api/v1/assignments/{assignment.pk}/"
    )
    assert response.status_code == 409
    assert "already submitted a review" in response.json()["detail"]
    assert Assignment.objects.filter(pk=assignment.pk).exists()


def test_clinician_to_technical_needs_confirmation(under_review):
    assignment = assignment_of(under_review, under_review.clinical)
    url = f"/api/v1/assignments/{assignment.pk}/"
    chair = client_for(under_review.chair)
    refused = chair.patch(url, {"role": "technical"}, format="json")
    assert refused.status_code == 409
    assert "clinical reviewer" in refused.json()["warnings"][0]
    assignment.refresh_from_db()
    assert assignment.role == "clinical"
    assert not AuditEvent.objects.filter(action="review.change_role").exists()
    done = chair.patch(url, {"role": "technical", "confirm": True}, format="json")
    assert done.status_code == 200
    assert done.json()["role"] == "technical"
    event = AuditEvent.objects.get(action="review.change_role")
    assert event.details == {
        "reviewer": "clara",
        "before": "clinical",
        "after": "technical",
    }


def test_technical_to_clinical_needs_no_confirmation(under_review):
    assignment = assignment_of(under_review, under_review.tech1)
    response = client_for(under_review.chair).patch(
        f"/api/v1/assignments/{assignment.pk}/", {"role": "clinical"}, format="json"
    )
    assert response.status_code == 200
    assignment.refresh_from_db()
    assert assignment.role == "clinical"


def test_assigning_a_clinician_as_technical_needs_confirmation(world):
    url = f"/api/v1/challenges/{world.challenge.pk}/assignments/"
    chair = client_for(world.chair)
    body = {"reviewer": "clara", "role": "technical"}
    refused = chair.post(url, body, format="json")
    assert refused.status_code == 409
    assert refused.json()["warnings"]
    assert not Assignment.objects.exists()
    assert chair.post(url, {**body, "confirm": True}, format="json").status_code == 201


def test_decision_on_one_review_of_three_needs_confirmation(under_review):
    base = f"/api/v1/challenges/{under_review.challenge.pk}"
    client_for(under_review.tech1).post(
        f"{base}/reviews/", review_payload(), format="json"
    )
    chair = client_for(under_review.chair)
    body = {"decision": "accept", "letter": "Yes."}
    refused = chair.post(f"{base}/decision/", body, format="json")
    assert refused.status_code == 409
    warnings = refused.json()["warnings"]
    assert "Only 1 of the 3 reviews" in warnings[0]
    assert "0 of the 1 clinical reviews" in warnings[1]
    assert not Decision.objects.exists()
    done = chair.post(f"{base}/decision/", {**body, "confirm": True}, format="json")
    assert done.status_code == 201


def test_missing_clinical_reviewer_is_a_warning(world):
    assign_reviewer(world, world.tech1)
    from reviews.selectors import decision_warnings

    assert "No clinical reviewer is assigned to this proposal." in decision_warnings(
        world.challenge
    )


def test_manage_page_unassigns_and_warns_before_deciding(client, under_review):
    client.force_login(under_review.chair)
    page = client.get(reverse("reviews:manage", args=[under_review.challenge.pk]))
    html = page.content.decode()
    assert 'id="decision-warnings"' in html
    assert "I have read the warnings above" in html
    assignment = assignment_of(under_review, under_review.tech2)
    response = client.post(reverse("reviews:unassign", args=[assignment.pk]))
    assert response.status_code == 302
    assert not Assignment.objects.filter(pk=assignment.pk).exists()
    refused = client.post(
        reverse("reviews:decide", args=[under_review.challenge.pk]),
        {"decision-decision": "accept", "decision-letter": "Yes."},
    )
    assert refused.status_code == 409
    assert not Decision.objects.exists()


def test_manage_page_role_change_asks_for_confirmation(client, under_review):
    client.force_login(under_review.chair)
    assignment = assignment_of(under_review, under_review.clinical)
    url = reverse("reviews:change-role", args=[assignment.pk])
    refused = client.post(url, {"role": "technical"})
    assert refused.status_code == 409
    assert 'id="role-warnings"' in refused.content.decode()
    assignment.refresh_from_db()
    assert assignment.role == "clinical"
    assert client.post(url, {"role": "technical", "confirm": "on"}).status_code == 302
    assignment.refresh_from_db()
    assert assignment.role == "technical"


@pytest.mark.parametrize(
    "act",
    [
        lambda world, actor: services.decide(
            challenge=world.challenge, actor=actor, decision="bogus", letter=""
        ),
        lambda world, actor: services.change_reviewer_role(
            assignment=assignment_of(world, world.tech1), role="bogus", actor=actor
        ),
    ],
    ids=["decide", "change_role"],
)
def test_services_refuse_a_non_chair_before_reading_the_input(under_review, act):
    """Bad input from someone who may not act is refused as a permission
    error, not answered with what is wrong with the input."""
    with pytest.raises(PermissionDenied):
        act(under_review, under_review.organizer)
