"""The whole review cycle through the API, as the acceptance checks run it."""

import datetime as dt

import pytest
from django.core import mail

from registry import services as registry_services
from reviews import services
from reviews.models import ProposalVersion
from tests.registry.helpers import fill_proposal
from tests.reviews.conftest import (
    client_for,
    decide_revision,
    review_payload,
    submit_review,
)

pytestmark = pytest.mark.django_db


def test_review_cycle_from_submission_to_acceptance(
    world, django_capture_on_commit_callbacks
):
    challenge_url = f"/api/v1/challenges/{world.challenge.pk}"
    chair, organizer = client_for(world.chair), client_for(world.organizer)
    reviewers = [world.tech1, world.tech2, world.clinical]
    assert organizer.get(f"{challenge_url}/").json()["status"] == "submitted"

    # The chair assigns two technical and one clinical reviewer.
    with django_capture_on_commit_callbacks(execute=True):
        for user, role in zip(
            reviewers, ["technical", "technical", "clinical"], strict=True
        ):
            response = chair.post(
                f"{challenge_url}/assignments/",
                {"reviewer": user.username, "role": role},
                format="json",
            )
            assert response.status_code == 201, response.json()
    assert organizer.get(f"{challenge_url}/").json()["status"] == "under_review"
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in reviewers)

    # Three reviews, each reviewer reads the proposal first.
    for user in reviewers:
        client = client_for(user)
        assert client.get(f"{challenge_url}/").status_code == 200
        extra = {"clinical_relevance": 4} if user == world.clinical else {}
        response = client.post(
            f"{challenge_url}/reviews/", review_payload(**extra), format="json"
        )
        assert response.status_code == 201, response.json()

    # Major revision.
    revision = {"decision": "revision", "letter": "Please add a missing-data rule."}
    response = chair.post(f"{challenge_url}/decision/", revision, format="json")
    assert response.status_code == 201
    assert organizer.get(f"{challenge_url}/").json()["status"] == "revision_requested"

    # The organizer edits one answer and resubmits with a response letter.
    task_id = world.challenge.tasks.get().pk
    response = organizer.put(
        f"/api/v1/tasks/{task_id}/answers/48/",
        {"value": "Missing results are set to the worst metric value."},
        format="json",
    )
    assert response.status_code == 200
    response = organizer.post(
        f"{challenge_url}/resubmit/",
        {"response": "We added the missing-data rule."},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "id": world.challenge.pk,
        "status": "under_review",
        "revision": 2,
    }
    assert ProposalVersion.objects.filter(challenge=world.challenge).count() == 2

    # Reviewers see exactly the changed parameter, then review again.
    for user in reviewers:
        client = client_for(user)
        diff = client.get(f"{challenge_url}/diff/?from=1&to=2")
        assert diff.status_code == 200
        changed = diff.json()["changed"]
        assert [(c["task"], c["number"]) for c in changed] == [("Brain", 48)]
        assert changed[0]["name"] == "Missing data handling"
        assert changed[0]["to"].startswith("Missing results are set")
        assert changed[0]["to_text"].startswith("Missing results are set")
        assert diff.json()["response"] == "We added the missing-data rule."
        response = client.post(
            f"{challenge_url}/reviews/", review_payload("accept"), format="json"
        )
        assert response.status_code == 201, response.json()
        assert response.json()["revision"] == 2

    accept = {"decision": "accept", "letter": "Accepted, congratulations."}
    response = chair.post(f"{challenge_url}/decision/", accept, format="json")
    assert response.status_code == 201
    assert organizer.get(f"{challenge_url}/").json()["status"] == "accepted"

    history = organizer.get(f"{challenge_url}/history/").json()
    assert [(h["from"], h["to"]) for h in history] == [
        ("draft", "submitted"),
        ("submitted", "under_review"),
        ("under_review", "revision_requested"),
        ("revision_requested", "submitted"),
        ("submitted", "under_review"),
        ("under_review", "accepted"),
    ]
    assert history[3]["note"] == "We added the missing-data rule."
    assert history[3]["who"] == "olga"


def test_diff_defaults_to_the_latest_two_revisions(under_review):
    challenge = under_review.challenge
    for user in (under_review.tech1, under_review.tech2):
        submit_review(challenge, user, "minor_revision", confidence=3, comments="ok")
    decide_revision(under_review, "x")
    registry_services.add_task(
        challenge=challenge, name="Liver", actor=under_review.organizer
    )
    registry_services.remove_task(
        task=challenge.tasks.get(name="Brain"), actor=under_review.organizer
    )
    fill_proposal(challenge, under_review.organizer)
    services.resubmit_challenge(
        challenge=challenge, actor=under_review.organizer, response="New task."
    )
    response = client_for(under_review.tech1).get(
        f"/api/v1/challenges/{challenge.pk}/diff/"
    )
    assert response.status_code == 200
    data = response.json()
    assert (data["from"], data["to"]) == (1, 2)
    assert data["added_tasks"] == ["Liver"]
    assert data["removed_tasks"] == ["Brain"]
    assert data["changed"] == []


def test_diff_with_unknown_revision_names_the_parameter(under_review):
    response = client_for(under_review.chair).get(
        f"/api/v1/challenges/{under_review.challenge.pk}/diff/?from=1&to=7"
    )
    assert response.status_code == 400
    assert response.json()["to"] == [
        "No submitted revision 7; the submitted revisions are 1."
    ]


def test_diff_of_a_proposal_never_submitted_says_so(world):
    draft = registry_services.create_challenge(
        owner=world.organizer, call=world.challenge.call, name="Unsent"
    )
    response = client_for(world.organizer).get(
        f"/api/v1/challenges/{draft.pk}/diff/?from=5"
    )
    assert response.status_code == 400
    assert response.json() == {"to": ["The proposal has no submitted revision yet."]}


def test_a_resubmitted_revision_gives_its_reviewers_a_full_review_period(
    under_review,
):
    challenge = under_review.challenge
    for user in (under_review.tech1, under_review.tech2):
        submit_review(challenge, user, "minor_revision", confidence=3, comments="ok")
    decide_revision(under_review, "x")
    passed = dt.date.today() - dt.timedelta(days=3)
    later = services.review_due() + dt.timedelta(days=9)
    challenge.assignments.filter(reviewer=under_review.tech1).update(due=passed)
    challenge.assignments.filter(reviewer=under_review.tech2).update(due=later)
    services.resubmit_challenge(
        challenge=challenge, actor=under_review.organizer, response="Done."
    )
    dues = dict(challenge.assignments.values_list("reviewer__username", "due"))
    assert dues[under_review.tech1.username] == services.review_due()
    assert dues[under_review.tech2.username] == later  # a chair's later date stays


def test_api_refuses_a_past_due_date(world):
    yesterday = dt.date.today() - dt.timedelta(days=1)
    response = client_for(world.chair).post(
        f"/api/v1/challenges/{world.challenge.pk}/assignments/",
        {"reviewer": "tina", "role": "technical", "due": yesterday.isoformat()},
        format="json",
    )
    assert response.status_code == 400
    assert "is in the past" in str(response.json()["due"])
    assert not world.challenge.assignments.exists()
