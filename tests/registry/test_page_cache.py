"""Anonymous public pages and registry API served from the cache (page_cache)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from registry import page_cache
from registry.registration import register_challenge
from tests.factories import ChallengeFactory, UserFactory
from tests.registry import test_registration_pages as pages

IDENTIFIER = pages.IDENTIFIER
amend, detail = pages.amend, pages.detail
accepted, registration = pages.accepted, pages.registration  # fixtures

pytestmark = pytest.mark.django_db

LIST_API = "/api/v1/registrations/"


def test_second_anonymous_request_is_one_query(client, registration):
    for url in ("/", LIST_API, f"{LIST_API}{IDENTIFIER}/", detail()):
        first = client.get(url)
        with CaptureQueriesContext(connection) as queries:
            second = client.get(url)
        assert second.status_code == 200, url
        assert second.content == first.content, url
        assert second["Content-Type"] == first["Content-Type"], url
        assert len(queries) == 1, (url, [q["sql"] for q in queries])


def test_registration_shows_at_once_on_cached_pages(client, accepted, chair):
    assert IDENTIFIER.encode() not in client.get(LIST_API).content
    assert b"Decathlon" not in client.get("/").content
    register_challenge(challenge=accepted, actor=chair)
    assert IDENTIFIER.encode() in client.get(LIST_API).content
    assert b"Decathlon" in client.get("/").content


def test_approved_amendment_shows_at_once_on_cached_pages(
    client, registration, organizer, chair
):
    assert client.get(f"{LIST_API}{IDENTIFIER}/").json()["latest_version"] == 1
    page = client.get(detail()).content.decode()
    amend(registration, organizer, chair)
    assert client.get(f"{LIST_API}{IDENTIFIER}/").json()["latest_version"] == 2
    assert client.get(LIST_API).json()["results"][0]["latest_version"] == 2
    assert client.get(detail()).content.decode() != page


def test_signed_in_user_never_gets_the_anonymous_page(client, registration):
    client.get("/")
    anonymous = client.get("/").content.decode()
    user = UserFactory(username="navbar-name")
    client.force_login(user)
    signed_in = client.get("/").content.decode()
    assert "navbar-name" in signed_in
    assert signed_in != anonymous
    client.logout()
    assert "navbar-name" not in client.get("/").content.decode()


def test_signed_in_page_is_not_served_to_anonymous(client, registration):
    client.force_login(UserFactory(username="navbar-name"))
    client.get("/")
    client.get(detail())
    client.logout()
    assert "navbar-name" not in client.get("/").content.decode()
    assert "navbar-name" not in client.get(detail()).content.decode()


def test_pages_with_csrf_token_are_not_cached(client, db):
    first = client.get(reverse("login"))
    second = client.get(reverse("login"))
    assert first.status_code == second.status_code == 200
    assert first.cookies["csrftoken"].value  # a token for this visitor only
    assert b"csrfmiddlewaretoken" in second.content


def test_search_and_other_challenges_are_keyed_apart(client, registration, call):
    assert client.get(LIST_API).json()["count"] == 1
    assert client.get(LIST_API, {"q": "zyxwvu"}).json()["results"] == []
    ChallengeFactory(call=call, name="Another")
    assert client.get(LIST_API).json()["count"] == 1
    assert client.get(f"{LIST_API}unknown-001/").status_code == 404


@pytest.mark.skipif(connection.vendor != "sqlite", reason="reads SQLite's query plan")
def test_generation_reads_no_large_table_whole():
    """The statement runs on every anonymous request: challenges and versions
    are looked up by index (MAX), never scanned (COUNT), so it stays as cheap
    at 100 000 challenges as at 10. Calls are few and may be counted."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + page_cache._GENERATION_SQL)
        plan = [row[-1] for row in cursor.fetchall()]
    scans = [step for step in plan if step.startswith("SCAN registry_")]
    assert all(step.startswith("SCAN registry_call ") for step in scans), plan


def test_saved_challenge_changes_the_generation(registration):
    before = page_cache.generation()
    challenge = registration.challenge
    challenge.save()
    assert page_cache.generation() != before


def test_renamed_call_changes_the_generation(registration):
    before = page_cache.generation()
    call = registration.call
    call.title = "MICCAI 2027 (Daejeon)"
    call.save()
    assert page_cache.generation() != before
