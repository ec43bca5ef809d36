import re

import lxml.html
import pytest
from django.core import mail
from django.test import override_settings

from audit.models import AuditEvent
from publicrecord.models import Feedback
from tests.factories import UserFactory

from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db


@pytest.fixture
def registration(call, organizer, chair):
    return registered(call, organizer, chair, name="Decathlon", scheme=CLEAN_SCHEME)


@pytest.fixture
def reader(db):
    return UserFactory(username="reader")


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Runs the after-commit e-mails of the requests made inside it."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def thread_url(registration):
    return f"/api/v1/registrations/{registration.identifier}/feedback/"


def post(api, user, registration, **body):
    api.force_authenticate(user)
    data = {"category": "annotations", "text": "Case 17 has a wrong label."} | body
    return api.post(thread_url(registration), data, format="json")


def page_url(registration):
    return f"/registry/{registration.identifier}/feedback/"


def post_on_page(client, registration, text: str):
    """A comment on the design posted through the form of the thread's page."""
    return client.post(page_url(registration), {"category": "design", "text": text})


def items(api, registration):
    api.force_authenticate(None)
    response = api.get(thread_url(registration))
    assert response.status_code == 200
    return response.json()["results"]


def test_reader_posts_and_anyone_reads_the_thread(
    api, registration, reader, organizer, on_commit
):
    with on_commit():
        response = post(api, reader, registration)
    assert response.status_code == 201
    created = response.json()
    assert created["category"] == "annotations"
    assert created["author"] == "reader"
    assert created["hidden"] is False
    assert created["answers"] == []
    [item] = items(api, registration)
    assert set(item) >= {
        "id",
        "category",
        "text",
        "author",
        "created",
        "answers",
        "hidden",
    }
    assert item["text"] == "Case 17 has a wrong label."
    assert [m.to for m in mail.outbox] == [[organizer.email]]
    assert "Case 17 has a wrong label." in mail.outbox[0].body
    assert AuditEvent.objects.filter(action="feedback.post").count() == 1


def test_anonymous_cannot_post(api, registration):
    api.force_authenticate(None)
    response = api.post(
        thread_url(registration), {"category": "data", "text": "x"}, format="json"
    )
    assert response.status_code in (401, 403)
    assert not Feedback.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"category": "other"}, "category"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 5001}, "text"),
    ],
)
def test_bad_comments_are_refused_naming_the_field(
    api, registration, reader, body, field
):
    response = post(api, reader, registration, **body)
    assert response.status_code == 400
    assert field in response.json()
    assert not Feedback.objects.exists()
    assert mail.outbox == []


def test_organizer_answers_and_the_author_is_notified(
    api, registration, reader, organizer, on_commit
):
    feedback_id = post(api, reader, registration).json()["id"]
    mail.outbox.clear()
    api.force_authenticate(reader)
    refused = api.post(
        f"/api/v1/feedback/{feedback_id}/answers/", {"text": "Me"}, format="json"
    )
    assert refused.status_code == 403
    api.force_authenticate(organizer)
    with on_commit():
        response = api.post(
            f"/api/v1/feedback/{feedback_id}/answers/",
            {"text": "Fixed in v2."},
            format="json",
        )
    assert response.status_code == 201
    [item] = items(api, registration)
    assert [a["text"] for a in item["answers"]] == ["Fixed in v2."]
    assert item["answers"][0]["author"] == "olga"
    assert [m.to for m in mail.outbox] == [[reader.email]]


def test_chair_hides_with_a_reason_kept_in_the_audit_log(
    api, registration, reader, organizer, chair, on_commit
):
    feedback_id = post(api, reader, registration, text="Rude words").json()["id"]
    hide = f"/api/v1/feedback/{feedback_id}/hide/"
    api.force_authenticate(organizer)
    assert api.post(hide, {"reason": "Mine"}, format="json").status_code == 403
    api.force_authenticate(chair)
    no_reason = api.post(hide, {"reason": ""}, format="json")
    assert no_reason.status_code == 400
    assert "reason" in no_reason.json()
    mail.outbox.clear()
    with on_commit():
        response = api.post(
            hide, {"reason": "Insulting, not about the design."}, format="json"
        )
    assert response.status_code == 200
    [item] = items(api, registration)
    assert item["hidden"] is True
    assert "text" not in item
    assert item["hidden_reason"] == "Insulting, not about the design."
    event = AuditEvent.objects.get(action="feedback.hide")
    assert event.details["reason"] == "Insulting, not about the design."
    assert event.details["text"] == "Rude words"
    assert event.actor == chair
    assert [m.to for m in mail.outbox] == [[reader.email]]
    assert "Insulting, not about the design." in mail.outbox[0].body
    page = api.get(page_url(registration)).content.decode()
    assert "Rude words" not in page
    assert "Insulting, not about the design." in page


def test_a_hidden_comment_cannot_be_hidden_or_answered_again_409(
    api, registration, reader, organizer, chair
):
    feedback_id = post(api, reader, registration, text="Rude words").json()["id"]
    hide = f"/api/v1/feedback/{feedback_id}/hide/"
    api.force_authenticate(chair)
    assert api.post(hide, {"reason": "Rude."}, format="json").status_code == 200

    again = api.post(hide, {"reason": "Still rude."}, format="json")
    api.force_authenticate(organizer)
    answer = api.post(
        f"/api/v1/feedback/{feedback_id}/answers/", {"text": "Hm."}, format="json"
    )

    assert (again.status_code, again.json()["detail"]) == (
        409,
        "This comment is already hidden.",
    )
    assert answer.status_code == 409
    assert Feedback.objects.get().hidden_reason == "Rude."


@override_settings(FEEDBACK_RATE_LIMIT=2, FEEDBACK_RATE_WINDOW_SECONDS=600)
def test_rate_limit_refuses_with_429(api, registration, reader):
    assert post(api, reader, registration).status_code == 201
    assert post(api, reader, registration).status_code == 201
    third = post(api, reader, registration)
    assert third.status_code == 429
    assert "limit of 2" in third.json()["detail"]
    assert int(third["Retry-After"]) > 0
    assert Feedback.objects.count() == 2


def test_user_text_is_escaped_on_the_page(client, registration, reader):
    client.force_login(reader)
    response = post_on_page(client, registration, "<script>alert(1)</script>")
    assert response.status_code == 302
    client.logout()
    page = client.get(page_url(registration)).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_page_refuses_a_bad_comment_with_its_error(client, registration, reader):
    client.force_login(reader)
    response = post_on_page(client, registration, "")
    assert response.status_code == 400
    assert 'data-error-for="text"' in response.content.decode()


def test_anonymous_post_on_the_page_goes_to_sign_in(client, registration):
    response = post_on_page(client, registration, "x")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert not Feedback.objects.exists()


def test_page_names_authors_in_full_and_dates_with_their_zone(
    client, registration, reader
):
    reader.first_name, reader.last_name = "Rita", "Reader"
    reader.save()
    client.force_login(reader)
    post_on_page(client, registration, "Case 17 has a wrong label.")
    client.logout()
    page = lxml.html.fromstring(client.get(page_url(registration)).content)
    [item] = page.xpath("//*[@data-feedback]")
    text = " ".join(item.text_content().split())
    assert "Rita Reader" in text
    assert re.search(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC", text)
    assert item.xpath(".//time[@datetime]")
