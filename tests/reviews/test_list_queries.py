"""Every list page and endpoint of proposals and reviews costs the same number
of queries with 5 and with 50 rows (pages are cut in the database, rows come
with what they show)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviews.models import Assignment
from tests.factories import ChallengeFactory, TaskFactory, UserFactory

pytestmark = pytest.mark.django_db


def grow(call, organizer, reviewer, chair, size):
    """Submitted proposals of `organizer`, each with `reviewer` assigned."""
    while (n := call.challenges.count()) < size:
        challenge = ChallengeFactory(
            call=call, owner=organizer, name=f"Proposal {n}", status="under_review"
        )
        TaskFactory(challenge=challenge, name="Brain")
        challenge.co_organizers.add(UserFactory())
        Assignment.objects.create(
            challenge=challenge,
            reviewer=reviewer,
            role="technical",
            assigned_by=chair,
            due=dt.date(2027, 1, 1) + dt.timedelta(days=n % 30),
        )


def queries_per_request(client, user, urls, grow_to):
    client.force_login(user)
    counts = {}
    for size in (5, 50):
        grow_to(size)
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            assert response.status_code == 200, url
            counts.setdefault(url, []).append(len(queries))
    return {url: (a, b) for url, (a, b) in counts.items() if a != b}


@pytest.fixture
def people(call, organizer, chair):
    reviewer = UserFactory(username="tina")
    return lambda size: grow(call, organizer, reviewer, chair, size), reviewer


def test_chair_pages(client, call, chair, people):
    grow_to, _ = people
    base = f"/reviews/calls/{call.pk}/"
    urls = [base, f"{base}?sort=-due", f"{base}?status=under_review&page=2"]
    assert queries_per_request(client, chair, urls, grow_to) == {}


def test_reviewer_page(client, people):
    grow_to, reviewer = people
    urls = ["/reviews/mine/", "/reviews/mine/?page=2"]
    assert queries_per_request(client, reviewer, urls, grow_to) == {}


def test_organizer_dashboard_and_challenge_api(client, organizer, people):
    grow_to, _ = people
    urls = ["/proposals/", "/proposals/?page=2", "/api/v1/challenges/"]
    assert queries_per_request(client, organizer, urls, grow_to) == {}


def test_challenge_api_pages(api, organizer, people, settings):
    grow_to, _ = people
    grow_to(5)
    settings.API_MAX_PAGE_SIZE = 3
    api.force_authenticate(organizer)
    page = api.get("/api/v1/challenges/", {"page_size": 100}).json()
    assert page["count"] == 5
    assert len(page["results"]) == 3
    assert "answers" not in page["results"][0]
    rest = api.get(page["next"]).json()
    names = {c["name"] for c in page["results"] + rest["results"]}
    assert len(names) == 5
