"""Every role × every review endpoint, with the expected status code.

One proposal under review (two technical, one clinical reviewer); each request
runs in a savepoint that is rolled back, so state-changing requests do not leak
into the next endpoint.
"""

import pytest
from django.db import transaction

from reviews.models import Assignment
from tests.reviews.conftest import client_for, review_payload

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    "detail": ("get", "/", None),
    "assignments_list": ("get", "/assignments/", None),
    "assign": ("post", "/assignments/", {"reviewer": "rex", "role": "technical"}),
    "reviews_list": ("get", "/reviews/", None),
    "review": ("post", "/reviews/", review_payload()),
    "decision": (
        "post",
        "/decision/",
        {"decision": "accept", "letter": "Yes.", "confirm": True},
    ),
    "resubmit": ("post", "/resubmit/", {"response": "Done."}),
    "diff": ("get", "/diff/?from=1&to=1", None),
    "history": ("get", "/history/", None),
    "checks": ("get", "/checks/", None),
    "decline": ("post", "decline", {"reason": "Busy."}),
}

# Columns in ENDPOINTS order. 403: may see the proposal but not do this;
# 404: may not even see it; 409: may, but not in this state.
MATRIX = {
    "anonymous": [401] * 11,  # no credentials: 401 with WWW-Authenticate
    "organizer_own": [200, 403, 403, 200, 403, 403, 409, 200, 200, 200, 403],
    "organizer_other": [404] * 11,
    "reviewer_assigned": [200, 200, 403, 200, 201, 403, 403, 200, 200, 200, 200],
    "reviewer_not_assigned": [404] * 11,
    "clinical_reviewer": [200, 200, 403, 200, 201, 403, 403, 200, 200, 200, 403],
    "chair_own_call": [200, 200, 201, 200, 403, 201, 403, 200, 200, 200, 403],
    "chair_other_call": [404] * 11,
    "staff": [200, 200, 403, 200, 403, 403, 403, 200, 200, 200, 403],
}


def user_for(world, role):
    return {
        "anonymous": None,
        "organizer_own": world.organizer,
        "organizer_other": world.other_organizer,
        "reviewer_assigned": world.tech1,
        "reviewer_not_assigned": world.outsider_reviewer,
        "clinical_reviewer": world.clinical,
        "chair_own_call": world.chair,
        "chair_other_call": world.other_chair,
        "staff": world.staff,
    }[role]


@pytest.mark.parametrize("role", list(MATRIX))
def test_permission_matrix(under_review, role):
    client = client_for(user_for(under_review, role))
    base = f"/api/v1/challenges/{under_review.challenge.pk}"
    decline_url = (
        f"/api/v1/assignments/"
        f"{Assignment.objects.get(reviewer=under_review.tech1).pk}/decline/"
    )
    actual = {}
    for name, (method, path, body) in ENDPOINTS.items():
        url = decline_url if path == "decline" else base + path
        with transaction.atomic():
            response = getattr(client, method)(url, body, format="json")
            transaction.set_rollback(True)
        actual[name] = response.status_code
        if response.status_code == 401:
            assert response["WWW-Authenticate"] == "Token"
    assert actual == dict(zip(ENDPOINTS, MATRIX[role], strict=True))
