"""The chair's pages ask for the conflicts of every candidate reviewer at once
and for the chair's own once: their query counts stay small and do not grow
with the number of reviewers or reviews."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Role
from tests.factories import UserFactory
from tests.reviews.conftest import submit_review

pytestmark = pytest.mark.django_db


def page_queries(client, world, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url.format(pk=world.challenge.pk))
    assert response.status_code == 200
    return len(queries)


def manage_page_queries(client, world) -> int:
    return page_queries(client, world, "/reviews/proposals/{pk}/")


def test_manage_page_queries_do_not_grow_with_candidate_reviewers(client, world):
    # Old loop: 5 queries per candidate reviewer (declarations, organizers...).
    client.force_login(world.chair)
    few = manage_page_queries(client, world)
    for n in range(20):
        UserFactory(username=f"extra{n}", profile__role=Role.REVIEWER)
    many = manage_page_queries(client, world)
    assert many == few


def test_manage_page_stays_within_its_query_budget(client, under_review):
    # Three assigned reviewers, six candidates: 36 queries (decision warnings
    # read once); 83 with a conflict check per candidate and six counts per
    # progress summary.
    for n in range(5):
        UserFactory(username=f"extra{n}", profile__role=Role.REVIEWER)
    client.force_login(under_review.chair)
    assert page_queries(client, under_review, "/reviews/proposals/{pk}/") <= 38


def test_proposal_page_asks_the_chairs_conflict_once(client, under_review):
    # The review panel: 28 queries with three reviews when written; 52 with a
    # conflict check of the chair per review and per part of the panel.
    for reviewer in (under_review.tech1, under_review.tech2, under_review.clinical):
        submit_review(under_review.challenge, reviewer)
    client.force_login(under_review.chair)
    assert page_queries(client, under_review, "/proposals/{pk}/") <= 32
