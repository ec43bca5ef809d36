"""Every role × every review page, with the expected status code (the same
object rules as the API: 404 for what the user may not see, 403 for what they
see but may not do). Each request is rolled back, so writes do not leak."""

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from reviews.models import Assignment
from tests.reviews.conftest import DECISION_FORM, REVIEW_FORM
from tests.reviews.test_permissions_matrix import user_for

pytestmark = pytest.mark.django_db

PAGES = {
    "call": ("get", "reviews:call", "call", None),
    "manage": ("get", "reviews:manage", "challenge", None),
    "assign": (
        "post",
        "reviews:assign",
        "challenge",
        {"assign-reviewer": "rex", "assign-role": "technical"},
    ),
    "decide": (
        "post",
        "reviews:decide",
        "challenge",
        DECISION_FORM,
    ),
    "review": ("get", "reviews:review", "challenge", None),
    "review_post": (
        "post",
        "reviews:review",
        "challenge",
        {**REVIEW_FORM, "clinical_relevance": "4"},
    ),
    "resubmit": ("get", "reviews:resubmit", "challenge", None),
    "decline": ("post", "reviews:decline", "assignment", {"reason": "Busy."}),
    "mine": ("get", "reviews:mine", None, None),
}

# Columns in PAGES order; 302 after a successful POST (and the login redirect).
MATRIX = {
    "anonymous": [302] * 9,
    "organizer_own": [404, 403, 403, 403, 403, 403, 200, 403, 200],
    "organizer_other": [404] * 8 + [200],
    "reviewer_assigned": [404, 403, 403, 403, 200, 302, 403, 302, 200],
    "reviewer_not_assigned": [404] * 8 + [200],
    "clinical_reviewer": [404, 403, 403, 403, 200, 302, 403, 403, 200],
    "chair_own_call": [200, 200, 302, 302, 403, 403, 403, 403, 200],
    "chair_other_call": [404] * 8 + [200],
    "staff": [200, 200, 403, 403, 403, 403, 403, 403, 200],
}


@pytest.mark.parametrize("role", list(MATRIX))
def test_review_pages_permission_matrix(under_review, role):
    client = Client()
    user = user_for(under_review, role)
    if user is not None:
        client.force_login(user)
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    targets = {
        "call": under_review.call.pk,
        "challenge": under_review.challenge.pk,
        "assignment": assignment.pk,
    }
    actual = {}
    for name, (method, url_name, target, data) in PAGES.items():
        args = [targets[target]] if target else []
        if name == "decline":
            data = {f"decline-{assignment.pk}-reason": "Busy."}
        with transaction.atomic():
            response = getattr(client, method)(reverse(url_name, args=args), data)
            transaction.set_rollback(True)
        actual[name] = response.status_code
    assert actual == dict(zip(PAGES, MATRIX[role], strict=True))


def test_anonymous_is_sent_to_sign_in(client, under_review):
    response = client.get(reverse("reviews:manage", args=[under_review.challenge.pk]))
    assert response["Location"].startswith(reverse("login"))
