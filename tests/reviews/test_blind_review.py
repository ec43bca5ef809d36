"""Blind review: who sees which review, and never reviewers' names unless chair."""

import pytest
from django.test import Client
from django.urls import reverse

from registry.models import Challenge, StatusChange
from registry.registration import register_challenge
from reviews import services
from tests.factories import UserFactory
from tests.reviews.conftest import (
    assert_conflict,
    client_for,
    decide_revision,
    get_from_challenge,
    post_to_challenge,
)

pytestmark = pytest.mark.django_db


def review(world, user, **extra):
    return services.submit_review(
        challenge=world.challenge,
        actor=user,
        recommendation="minor_revision",
        confidence=3,
        comments=f"Comments by {user.username}.",
        confidential=f"Secret of {user.username}.",
        **extra,
    )


def reviews_seen_by(world, user):
    response = get_from_challenge(world, user, "reviews/")
    assert response.status_code == 200
    return response.json()


def test_reviewer_sees_no_co_review_before_submitting_own(under_review):
    review(under_review, under_review.tech1)
    assert reviews_seen_by(under_review, under_review.tech2) == []


def test_reviewer_sees_co_reviews_anonymised_after_submitting_own(under_review):
    review(under_review, under_review.tech1)
    review(under_review, under_review.tech2)
    seen = reviews_seen_by(under_review, under_review.tech2)
    assert [(r["reviewer"], r["mine"]) for r in seen] == [
        ("Reviewer 1", False),
        ("Reviewer 2", True),
    ]
    assert "confidential" not in seen[0]
    assert seen[1]["confidential"] == "Secret of tom."
    assert all("reviewer_username" not in r for r in seen)
    assert all("reviewer_name" not in r for r in seen)


def test_organizer_sees_reviews_only_after_decision_without_identities(under_review):
    for user in (under_review.tech1, under_review.tech2, under_review.clinical):
        review(under_review, user)
    assert reviews_seen_by(under_review, under_review.organizer) == []
    decide_revision(under_review, "Please revise.")
    response = get_from_challenge(under_review, under_review.organizer, "reviews/")
    seen = response.json()
    assert [r["reviewer"] for r in seen] == ["Reviewer 1", "Reviewer 2", "Reviewer 3"]
    body = response.content.decode()
    for name in ("tina", "tom", "clara"):
        assert name not in body.replace(f"Comments by {name}.", "")
    assert "Secret of" not in body


def test_chair_sees_identities_and_confidential_comments(under_review):
    review(under_review, under_review.tech1)
    seen = reviews_seen_by(under_review, under_review.chair)
    assert seen[0]["reviewer_username"] == "tina"
    assert seen[0]["confidential"] == "Secret of tina."


def test_organizer_cannot_list_assignments(under_review):
    response = get_from_challenge(under_review, under_review.organizer, "assignments/")
    assert response.status_code == 403


def test_anyone_may_read_a_registered_proposal_but_not_its_assignments(under_review):
    """A registered design is public; who reviews it and how far is not."""
    Challenge.objects.filter(pk=under_review.challenge.pk).update(status="registered")
    outsider = under_review.outsider_reviewer
    assert get_from_challenge(under_review, outsider, "").status_code == 200
    response = get_from_challenge(under_review, outsider, "assignments/")
    assert response.status_code == 403
    assert "progress" not in response.json()
    mine = get_from_challenge(under_review, under_review.tech2, "assignments/")
    assert [a["reviewer"] for a in mine.json()["assignments"]] == ["tom"]


def test_reviewer_lists_only_own_assignment(under_review):
    response = get_from_challenge(under_review, under_review.tech2, "assignments/")
    assert [a["reviewer"] for a in response.json()["assignments"]] == ["tom"]


def test_chair_sees_progress_against_call_minimums(under_review):
    review(under_review, under_review.tech1)
    response = get_from_challenge(under_review, under_review.chair, "assignments/")
    data = response.json()
    assert data["progress"]["roles"] == {
        "technical": {"assigned": 2, "reviewed": 1, "minimum": 2},
        "clinical": {"assigned": 1, "reviewed": 0, "minimum": 1},
    }
    assert (data["progress"]["reviews_in"], data["progress"]["reviews_due"]) == (1, 2)


def test_draft_letter_is_anonymised(under_review):
    review(under_review, under_review.tech1)
    response = get_from_challenge(under_review, under_review.chair, "decision/")
    letter = response.json()["draft_letter"]
    assert "Reviewer 1 (technical reviewer): Minor revision" in letter
    assert "Comments by tina." in letter
    assert "Secret of tina." not in letter


def test_history_shows_reviewers_as_labels_to_organizers(under_review):
    # A reviewer who also acted on the timeline (e.g. as staff) stays anonymous.
    StatusChange.objects.create(
        challenge=under_review.challenge,
        from_status="under_review",
        to_status="under_review",
        actor=under_review.tech2,
        note="",
    )
    organizer_view = get_from_challenge(
        under_review, under_review.organizer, "history/"
    )
    chair_view = get_from_challenge(under_review, under_review.chair, "history/")
    assert [h["who"] for h in organizer_view.json()] == ["olga", "chair", "Reviewer 2"]
    assert [h["who"] for h in chair_view.json()] == ["olga", "chair", "tom"]


def test_review_with_unknown_section_names_the_field(under_review):
    response = client_for(under_review.tech1).post(
        f"/api/v1/challenges/{under_review.challenge.pk}/reviews/",
        {
            "recommendation": "accept",
            "confidence": 3,
            "comments": "Fine.",
            "sections": {"Vibes": {"score": 3, "comment": ""}},
        },
        format="json",
    )
    assert response.status_code == 400
    assert "sections.Vibes" in response.json()


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"confidence": 6}, "confidence"),
        ({"recommendation": "maybe"}, "recommendation"),
        ({"comments": "  "}, "comments"),
        ({"clinical_relevance": 3}, "clinical_relevance"),
        (
            {"parameters": [{"number": 44, "task": None, "comment": "x"}]},
            "parameters[1].task",
        ),
        (
            {"sections": {"Assessment method": {"score": 0}}},
            "sections.Assessment method.score",
        ),
    ],
)
def test_review_with_bad_input_names_the_field_and_changes_nothing(
    under_review, payload, field
):
    body = {"recommendation": "accept", "confidence": 3, "comments": "Fine.", **payload}
    response = client_for(under_review.tech1).post(
        f"/api/v1/challenges/{under_review.challenge.pk}/reviews/", body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not under_review.challenge.assignments.get(
        reviewer=under_review.tech1
    ).reviews.exists()


def test_review_with_sections_parameters_and_clinical_relevance_is_stored(under_review):
    review(
        under_review,
        under_review.clinical,
        sections={"Assessment method": {"score": 2, "comment": "Vague ranking."}},
        parameters=[{"number": 46, "task": "Brain", "comment": "Which order?"}],
        clinical_relevance=5,
    )
    seen = reviews_seen_by(under_review, under_review.clinical)[0]
    assert seen["sections"] == {
        "Assessment method": {"score": 2, "comment": "Vague ranking."}
    }
    assert seen["parameters"] == [
        {"number": 46, "task": "Brain", "comment": "Which order?"}
    ]
    assert seen["clinical_relevance"] == 5


def test_second_review_of_same_revision_is_a_conflict(under_review):
    review(under_review, under_review.tech1)
    again = {"recommendation": "accept", "confidence": 3, "comments": "Again."}
    response = post_to_challenge(under_review, under_review.tech1, "reviews/", again)
    assert_conflict(response, "already reviewed revision 1")


def test_decision_on_decided_proposal_is_a_conflict(under_review):
    url = f"/api/v1/challenges/{under_review.challenge.pk}/decision/"
    chair = client_for(under_review.chair)
    body = {"decision": "reject", "letter": "No.", "confirm": True}
    assert chair.post(url, body, format="json").status_code == 201
    assert_conflict(chair.post(url, body, format="json"), "rejected")


def test_decision_letters_stay_with_the_review_once_the_design_is_public(
    under_review,
):
    """A letter quotes the reviews: on a registered (public) design its
    organizers, chairs and reviewers read it, other signed-in users do not,
    on the overview page or in the API."""
    review(under_review, under_review.tech1)
    services.decide(
        confirm=True,  # one review of three
        challenge=under_review.challenge,
        actor=under_review.chair,
        decision="accept",
        letter="Reviewer 1 asks for a missing-data rule.",
    )
    register_challenge(challenge=under_review.challenge, actor=under_review.chair)
    overview = reverse("registry:overview", args=[under_review.challenge.pk])
    people = {
        "organizer": under_review.organizer,
        "chair": under_review.chair,
        "reviewer": under_review.tech1,
        "stranger": UserFactory(),
    }
    seen = {}
    for who, user in people.items():
        api = get_from_challenge(under_review, user, "decision/")
        page = Client()
        page.force_login(user)
        html = page.get(overview).content.decode()
        seen[who] = (
            [d["letter"] for d in api.json()["decisions"]],
            "asks for a missing-data rule" in html,
        )
    letter = ["Reviewer 1 asks for a missing-data rule."]
    assert seen == {
        "organizer": (letter, True),
        "chair": (letter, True),
        "reviewer": (letter, True),
        "stranger": ([], False),
    }
