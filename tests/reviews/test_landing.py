"""Each role lands on its own page after signing in; the chair's call dashboard
and the reviewer's conflict-of-interest page."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from reviews.models import Assignment, ConflictDeclaration
from tests.factories import CallFactory

pytestmark = pytest.mark.django_db


def landing_of(client, user) -> str:
    client.force_login(user)
    response = client.get(reverse("reviews:landing"))
    assert response.status_code == 302
    return response.url


def test_sign_in_goes_through_the_role_router(client, world):
    world.chair.set_password("pw-for-tests-1")
    world.chair.save()
    response = client.post(
        reverse("login"), {"username": "chair", "password": "pw-for-tests-1"}
    )
    assert response.status_code == 302
    assert response.url == reverse("reviews:landing")
    assert client.get(response.url).url == f"/reviews/calls/{world.call.pk}/"


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("organizer", "/proposals/"),
        ("tech1", "/reviews/mine/"),
        ("clinical", "/reviews/mine/"),
    ],
)
def test_landing_by_role(client, world, who, expected):
    assert landing_of(client, getattr(world, who)) == expected


def test_chair_of_one_call_lands_on_its_dashboard(client, world):
    assert landing_of(client, world.chair) == f"/reviews/calls/{world.call.pk}/"


def test_chair_of_two_calls_lands_on_the_list(client, world):
    CallFactory(slug="miccai-2028").chairs.add(world.chair)
    assert landing_of(client, world.chair) == "/reviews/calls/"


def test_anonymous_landing_is_the_registry(client):
    assert client.get(reverse("reviews:landing")).url == "/registry/"


def test_call_dashboard_lists_missing_reviews_and_conflicts(client, under_review):
    Assignment.objects.filter(reviewer=under_review.clinical).update(
        status="withdrawn", decline_reason="Conflict."
    )
    client.force_login(under_review.chair)
    html = client.get(reverse("reviews:call", args=[under_review.call.pk])).content
    html = html.decode()
    assert "call dashboard" in html
    assert under_review.challenge.name in html
    assert 'data-missing="3"' in html
    assert "needs a clinical reviewer assigned" in html
    assert 'data-conflicts="1"' in html


def test_reviewer_declares_a_conflict_with_an_assigned_proposal(client, under_review):
    client.force_login(under_review.tech1)
    page = client.get(reverse("reviews:conflicts"))
    assert under_review.challenge.name in page.content.decode()
    response = client.post(
        reverse("reviews:conflicts"),
        {"challenge": under_review.challenge.pk, "reason": "My former student."},
    )
    assert response.status_code == 302
    assert ConflictDeclaration.objects.get().challenge == under_review.challenge
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    assert assignment.status == "withdrawn"


def test_conflict_needs_exactly_one_target_and_changes_nothing(client, under_review):
    client.force_login(under_review.tech1)
    response = client.post(
        reverse("reviews:conflicts"),
        {
            "institution": "Inria",
            "challenge": under_review.challenge.pk,
            "reason": "Both.",
        },
    )
    assert response.status_code == 400
    assert "not both" in response.content.decode()
    assert not ConflictDeclaration.objects.exists()


def test_a_proposal_not_assigned_cannot_be_named(client, world):
    client.force_login(world.tech1)
    response = client.post(
        reverse("reviews:conflicts"),
        {"challenge": world.challenge.pk, "reason": "Curious."},
    )
    assert response.status_code == 400
    assert not ConflictDeclaration.objects.exists()


def test_a_new_reviewer_account_lands_on_its_assignments(client, db):
    response = client.post(
        reverse("signup"),
        {
            "username": "newrev",
            "email": "newrev@example.org",
            "institution": "Somewhere",
            "role": "reviewer",
            "password1": "a-long-passphrase-1",
            "password2": "a-long-passphrase-1",
        },
    )
    assert response.status_code == 302  # to "confirm your e-mail address"
    [sent] = mail.outbox
    link = re.search(r"/accounts/confirm/\S+/", sent.body).group(0)
    confirmed = client.post(link)
    assert client.get(confirmed.url).url == "/reviews/mine/"
