"""The registry list at more than one page: filters in the database, search, pages.

The oldest registration is the only one with each rare value; with more newer
registrations than fit on a page, every filter must still find it (filters run
before the page is cut, never after).
"""

from datetime import UTC, datetime
from io import StringIO
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.record_guard import record_guard_lifted
from registry import services
from registry.models import Registration, RegistrationListing, Task
from registry.parameters import get_parameter
from registry.registration import register_challenge, verify_registrations
from registry.search import ListingFilters, listing_facts, search_listings
from tests.factories import CallFactory, ChallengeFactory, TaskFactory

PAGE = 2
SCHEME = {
    "metric": "HD95",
    "higher_is_better": False,
    "missing": {"policy": "last_rank"},
    "method": "rank_then_aggregate",
}


def register_design(
    call,
    owner,
    chair,
    name,
    *,
    modality="CT",
    category="detection",
    metric="DSC",
    tasks=1,
    scheme=None,
):
    challenge = ChallengeFactory(call=call, owner=owner, name=name)
    for position in range(tasks):
        task = TaskFactory(challenge=challenge, name=f"Task {position}")
        if scheme:
            Task.objects.filter(pk=task.pk).update(scheme=scheme)
        metrics = get_parameter(44).example_value
        metrics = {**metrics, "metrics": [{**metrics["metrics"][0], "name": metric}]}
        for number, value in (
            (17, {"choices": [category], "details": ""}),
            (25, {"choices": [modality], "details": ""}),
            (44, metrics),
        ):
            services.answer_parameter(
                challenge=challenge, task=task, number=number, value=value, actor=owner
            )
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


@pytest.fixture
def oldest(db, organizer, chair, call, settings):
    """One rare registration (2021, OCT, tracking, HD95, 3 tasks, its own call)
    and PAGE + 1 ordinary, newer ones."""
    settings.PAGE_SIZE = PAGE
    rare_call = CallFactory(slug="isbi-2021", title="ISBI 2021")
    rare_call.chairs.add(chair)
    with mock.patch(
        "django.utils.timezone.now", return_value=datetime(2021, 3, 1, tzinfo=UTC)
    ):
        rare = register_design(
            rare_call,
            organizer,
            chair,
            "Retina Vessel Challenge",
            modality="OCT",
            category="tracking",
            metric="HD95",
            tasks=3,
            scheme=SCHEME,
        )
    for n in range(PAGE + 1):
        register_design(call, organizer, chair, f"Ordinary {n}")
    return rare


RARE_FILTERS = {
    "call": "isbi-2021",
    "year": 2021,
    "category": "tracking",
    "modality": "OCT",
    "metric": "HD95",
    "method": "rank_then_aggregate",
    "tasks": 3,
}


def test_the_oldest_is_not_on_the_first_page(client, oldest):
    body = client.get(reverse("registry:public-list")).content.decode()
    assert body.count("data-registration=") == PAGE
    assert oldest.identifier not in body
    assert 'rel="next"' in body
    assert 'data-total="4"' in body


@pytest.mark.parametrize(("name", "value"), RARE_FILTERS.items())
def test_every_filter_finds_exactly_the_oldest(client, api, oldest, name, value):
    body = client.get(reverse("registry:public-list"), {name: value}).content.decode()
    assert body.count("data-registration=") == 1
    assert f'data-registration="{oldest.identifier}"' in body
    found = api.get("/api/v1/registrations/", {name: value}).json()
    assert [r["identifier"] for r in found["results"]] == [oldest.identifier]
    assert found["count"] == 1


@pytest.mark.parametrize(("name", "value"), RARE_FILTERS.items())
def test_every_filter_excludes_the_oldest_when_it_does_not_match(oldest, name, value):
    other = {
        "call": "miccai-2027",
        "year": 2020,
        "category": "detection",
        "modality": "CT",
        "metric": "DSC",
        "method": "test_then_rank",
        "tasks": 1,
    }[name]
    found = search_listings(ListingFilters(**{name: other}))
    assert oldest.identifier not in {listing.identifier for listing in found}


def test_the_last_page_holds_the_oldest_and_keeps_the_filters(client, oldest):
    body = client.get(
        reverse("registry:public-list"), {"page": 2, "year": ""}
    ).content.decode()
    assert f'data-registration="{oldest.identifier}"' in body
    assert 'rel="prev"' in body
    assert "year=&amp;page=1" in body or "page=1&amp;year=" in body


def test_text_search_finds_names_institutions_modalities_and_metrics(api, oldest):
    for text in ("retina", "vessel challenge", "OCT", "hd95", "tracking"):
        found = api.get("/api/v1/registrations/", {"q": text}).json()["results"]
        assert oldest.identifier in [r["identifier"] for r in found], text
    assert api.get("/api/v1/registrations/", {"q": "zyxwvu"}).json()["count"] == 0


def test_an_identifier_is_answered_alone(api, oldest):
    found = api.get("/api/v1/registrations/", {"q": oldest.identifier}).json()
    assert [r["identifier"] for r in found["results"]] == [oldest.identifier]


def test_registration_api_walks_every_registration_by_cursor(api, oldest):
    seen, url = [], "/api/v1/registrations/?page_size=1"
    while url:
        page = api.get(url).json()
        assert page["count"] == PAGE + 2
        seen += [r["identifier"] for r in page["results"]]
        url = page["next"]
    assert len(seen) == len(set(seen)) == PAGE + 2
    assert seen[-1] == oldest.identifier


def test_page_size_is_capped_by_the_setting(api, oldest, settings):
    settings.API_MAX_PAGE_SIZE = 2
    found = api.get("/api/v1/registrations/", {"page_size": 1000}).json()
    assert len(found["results"]) == 2


def test_an_amendment_replaces_the_listing(oldest):
    listing = RegistrationListing.objects.get(registration=oldest)
    assert listing.version_number == 1
    assert listing.task_count == 3
    assert listing.modalities == ["OCT"]


def test_listing_facts_of_a_document():
    document = {
        "identifier": "x-001",
        "organizers": [{"institution": "DKFZ"}],
        "design": {
            "name": "Brain",
            "answers": [],
            "tasks": [
                {
                    "name": "T1",
                    "scheme": {"metric": ["DSC", "NSD"], "method": "test_then_rank"},
                    "answers": [{"number": 25, "value": {"choices": ["MRI", "CT"]}}],
                }
            ],
        },
    }
    facts = listing_facts(document)
    assert facts.modalities == ("CT", "MRI")
    assert facts.metrics == ("DSC", "NSD")
    assert facts.methods == ("test_then_rank",)
    assert facts.task_count == 1
    assert "dkfz" in facts.text


LIST_URLS = (
    "/registry/",
    "/registry/?modality=OCT",
    "/registry/?q=ordinary",
    "/registry/?page=2",
    "/api/v1/registrations/",
    "/api/v1/registrations/?q=ordinary",
    "/api/v1/registrations/?modality=OCT&page_size=20",
)


def test_list_queries_do_not_grow_with_the_registry(client, organizer, chair, call):
    counts = {}
    for size in (5, 50):
        while (n := RegistrationListing.objects.count()) < size:
            register_design(call, organizer, chair, f"Ordinary {n}", modality="OCT")
        for url in LIST_URLS:
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            counts.setdefault(url, []).append(len(queries))
    assert {url: n for url, (n, m) in counts.items() if n != m} == {}


def verified(*args) -> str:
    out = StringIO()
    call_command("verify_registrations", *args, stdout=out)
    return out.getvalue()


def test_verify_registrations_selects_by_call_challenge_and_date(oldest):
    assert "OK: 4 registrations, 4 versions" in verified()
    assert "OK: 1 registrations" in verified("--call", "isbi-2021")
    assert "OK: 1 registrations" in verified("--challenge", oldest.identifier)
    assert "OK: 1 registrations" in verified("--challenge", str(oldest.challenge_id))
    assert "OK: 3 registrations" in verified("--since", "2022-01-01")
    with pytest.raises(CommandError, match="No registration matches"):
        verified("--call", "no-such-call")


def test_verify_registrations_names_a_tampered_version(oldest):
    # on SQLite, as whoever holds the file can (drop the triggers)
    with record_guard_lifted(connection), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            pytest.skip("a trigger refuses to alter versions on PostgreSQL")
        cursor.execute(
            "UPDATE registry_registrationversion SET sha256 = %s"
            " WHERE registration_id = %s",
            ["0" * 64, oldest.pk],
        )
    problems = verify_registrations().problems
    assert [(p.identifier, p.version) for p in problems] == [(oldest.identifier, 1)]
    assert (
        verify_registrations(Registration.objects.exclude(pk=oldest.pk)).problems == []
    )
