"""People by name and affiliation; moments readable and in the reader's zone."""

import datetime as dt

import pytest

from accounts.templatetags.people import person, when
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_person_is_name_and_affiliation_escaped():
    user = UserFactory(
        username="ada",
        first_name="Ada <b>",
        last_name="Lovelace",
        profile__institution="Univ & Co",
    )
    html = person(user)
    assert "Ada &lt;b&gt; Lovelace" in html
    assert "(Univ &amp; Co)" in html
    assert "ada" not in html.replace("Ada", "")


def test_person_without_a_name_falls_back_to_the_username():
    user = UserFactory(username="bob", first_name="", last_name="")
    assert "bob" in person(user, False)
    assert person(None) == "—"


def test_when_is_readable_and_machine_tagged():
    moment = dt.datetime(2026, 11, 24, 14, 5, tzinfo=dt.UTC)
    html = when(moment)
    assert 'datetime="2026-11-24T14:05:00+00:00"' in html
    assert "24 Nov 2026, 14:05 UTC" in html
    assert 'data-local="datetime"' in html
    assert ">3 Jan 2027<" in when(dt.date(2027, 1, 3))
    assert when(None) == "—"
