"""The publications API: exact statuses and bodies (issue 27, item 1)."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from publicrecord.models import Publication
from tests.factories import UserFactory
from tests.publicrecord.publishing import analysed, exploratory_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def analysis(call, organizer, chair):
    return analysed(call, organizer, chair)


def _url(registration) -> str:
    return reverse("api:publications", args=[registration.identifier])


def test_organizer_publishes_with_201_and_anyone_reads_it(analysis, organizer_api):
    registration, run = analysis
    created = organizer_api.post(
        _url(registration), {"analysis": run.pk}, format="json"
    )
    assert created.status_code == 201
    body = created.json()
    assert (body["number"], body["exploratory"], body["public"]) == (1, False, True)
    assert body["analysis"] == run.pk
    assert {d["name"] for d in body["downloads"]} == {
        "results.csv",
        "report.pdf",
        "output.json",
        "scheme.json",
    }
    anonymous = APIClient()
    listed = anonymous.get(_url(registration))
    assert listed.status_code == 200
    assert listed.json()["results"] == [body]
    one = anonymous.get(reverse("api:publication", args=[registration.identifier, 1]))
    assert one.json() == body


def test_publish_errors_name_the_field_and_change_nothing(
    analysis, organizer, organizer_api
):
    registration, run = analysis
    exploratory = exploratory_run(registration, organizer)
    cases = [
        ({"analysis": exploratory.pk}, "publish_as"),
        ({"analysis": 999_999}, "analysis"),
        ({"analysis": run.pk, "publish_as": "official"}, "publish_as"),
        ({"analysis": run.pk, "public_from": "2020-01-01"}, "public_from"),
        ({"analysis": run.pk, "public_from": "someday"}, "public_from"),
        ({"analysis": run.pk, "supersedes": 7}, "supersedes"),
    ]
    for data, field in cases:
        answer = organizer_api.post(_url(registration), data, format="json")
        assert answer.status_code == 400, data
        assert field in answer.json(), (data, answer.json())
    assert not Publication.objects.exists()


def test_publish_needs_sign_in_and_the_right_role(analysis):
    registration, run = analysis
    client = APIClient()
    assert client.post(_url(registration), {"analysis": run.pk}).status_code == 401
    client.force_authenticate(UserFactory())
    assert client.post(_url(registration), {"analysis": run.pk}).status_code == 403
    assert not Publication.objects.exists()


def test_embargoed_publication_only_for_organizers(analysis, organizer_api):
    registration, run = analysis
    day = timezone.now().date() + datetime.timedelta(days=5)
    organizer_api.post(
        _url(registration),
        {"analysis": run.pk, "public_from": day.isoformat()},
        format="json",
    )
    mine = organizer_api.get(_url(registration)).json()["results"]
    assert [(p["number"], p["public"], p["public_from"]) for p in mine] == [
        (1, False, day.isoformat())
    ]
    assert APIClient().get(_url(registration)).json() == {"results": []}
    detail = reverse("api:publication", args=[registration.identifier, 1])
    assert APIClient().get(detail).status_code == 404


# past PostgreSQL's `integer` (the schema's maximum), past `bigint`, far past
OUT_OF_RANGE = [2**31, -(2**31) - 1, 2**63, 10**30]


@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_publish_refuses_an_integer_out_of_range_on_any_database(
    analysis, organizer_api, value
):
    # the same 400 on SQLite and PostgreSQL: the lookup finds nothing (Django
    # answers an out-of-range integer lookup as no rows), never a DataError 500
    registration, run = analysis
    url = _url(registration)
    answer = organizer_api.post(url, {"analysis": value}, format="json")
    assert answer.status_code == 400
    assert answer.json() == {
        "analysis": f"{registration.identifier} has no analysis {value}."
    }
    answer = organizer_api.post(
        url, {"analysis": run.pk, "supersedes": value}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "supersedes": [f"{registration.identifier} has no publication {value}."]
    }
    assert not Publication.objects.exists()
