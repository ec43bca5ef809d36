"""The chair's management page asks for the conflicts of every candidate
reviewer at once: its query count does not grow with the number of reviewers."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def manage_page_queries(client, world) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/reviews/proposals/{world.challenge.pk}/")
    assert response.status_code == 200
    return len(queries)


def test_manage_page_queries_do_not_grow_with_candidate_reviewers(client, world):
    # Old loop: 5 queries per candidate reviewer (declarations, organizers...).
    client.force_login(world.chair)
    few = manage_page_queries(client, world)
    for n in range(20):
        UserFactory(username=f"extra{n}", profile__role=Role.REVIEWER)
    many = manage_page_queries(client, world)
    assert many == few


def test_manage_page_stays_within_its_query_budget(client, under_review):
    # Three assigned reviewers, six candidates: 52 queries when written, 83 with
    # the old one-reviewer-at-a-time conflict loop.
    for n in range(5):
        UserFactory(username=f"extra{n}", profile__role=Role.REVIEWER)
    client.force_login(under_review.chair)
    assert manage_page_queries(client, under_review) <= 56
