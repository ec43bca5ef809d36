"""Attack: spam through open sign-up (issue 30).

Ten accounts made without any check posted 50 feedback comments in 19 s, each
mailing the organizers. A signed-up account is now inactive until the link
mailed to its address is followed and confirmed; sign-ups per client address
and verification mails per account are limited (settings); feedback per
account was already limited (`tests/publicrecord/test_feedback.py::
test_rate_limit_refuses_with_429`).
"""

import io
import re
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts import verification
from accounts.services import create_account
from publicrecord.models import Feedback
from registry.models import Challenge

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase-1"
LINK = re.compile(r"http://\S+/accounts/confirm/(\S+)/")


def sign_up(client, username="newcomer", *, address="192.0.2.1"):
    return client.post(
        reverse("signup"),
        {
            "username": username,
            "email": f"{username}@example.org",
            "institution": "Somewhere",
            "role": "organizer",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR=address,
    )


def sign_in(client, username="newcomer", password=PASSWORD):
    return client.post(reverse("login"), {"username": username, "password": password})


def token_in(message) -> str:
    return LINK.search(message.body).group(1)


def test_sign_up_makes_an_inactive_unverified_account_and_mails_a_link(client):
    response = sign_up(client)
    assert response.status_code == 302
    assert response.url == reverse("signup-sent")
    user = get_user_model().objects.get(username="newcomer")
    assert (user.is_active, user.profile.email_verified) == (False, False)
    [sent] = mail.outbox
    assert sent.to == ["newcomer@example.org"]
    assert verification.pending_user(token_in(sent)) == user
    assert "_auth_user_id" not in client.session  # not signed in


def test_unconfirmed_account_cannot_sign_in_and_is_sent_a_new_link(client):
    sign_up(client)
    response = sign_in(client)
    assert response.status_code == 200
    assert "Your e-mail address is not confirmed yet: we have sent a new link" in (
        response.content.decode()
    )
    assert "_auth_user_id" not in client.session
    assert len(mail.outbox) == 2


def test_wrong_password_of_an_unconfirmed_account_says_nothing_about_it(client):
    sign_up(client)
    response = sign_in(client, password="wrong-password-1")
    assert "not confirmed" not in response.content.decode()
    assert len(mail.outbox) == 1


@override_settings(EMAIL_VERIFICATION_MAX_SENDS=2)
def test_verification_mails_per_account_are_limited(client):
    sign_up(client)
    sign_in(client)
    third = sign_in(client)
    assert "the limit of new links is reached" in third.content.decode()
    assert len(mail.outbox) == 2


def test_unconfirmed_account_cannot_create_a_proposal_with_a_session(client, call):
    sign_up(client)
    user = get_user_model().objects.get(username="newcomer")
    client.force_login(user)  # a session made anyhow is not honoured
    response = client.post(
        reverse("registry:new"), {"call": call.pk, "name": "Spam challenge"}
    )
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    assert not Challenge.objects.exists()


def test_unconfirmed_account_cannot_post_feedback_with_a_token(client, registration):
    sign_up(client)
    user = get_user_model().objects.get(username="newcomer")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user)}")
    response = api.post(
        f"/api/v1/registrations/{registration.identifier}/feedback/",
        {"category": "design", "text": "Buy now."},
        format="json",
    )
    assert response.status_code == 401
    assert not Feedback.objects.exists()


def test_the_link_opens_a_page_that_confirms_only_on_post(client):
    sign_up(client)
    url = reverse("confirm-email", args=[token_in(mail.outbox[0])])
    page = client.get(url)  # what a mail scanner does
    assert page.status_code == 200
    assert 'id="confirm-email"' in page.content.decode()
    assert not get_user_model().objects.get(username="newcomer").is_active
    response = client.post(url)
    assert response.status_code == 302
    assert response.url == reverse("reviews:landing")
    user = get_user_model().objects.get(username="newcomer")
    assert (user.is_active, user.profile.email_verified) == (True, True)
    assert client.session["_auth_user_id"] == str(user.pk)


def test_the_link_works_once(client):
    sign_up(client)
    url = reverse("confirm-email", args=[token_in(mail.outbox[0])])
    client.post(url)
    client.logout()
    again = client.post(url)
    assert again.status_code == 400
    assert 'id="confirm-invalid"' in again.content.decode()


def test_the_link_expires(client, monkeypatch, settings):
    sign_up(client)
    url = reverse("confirm-email", args=[token_in(mail.outbox[0])])
    later = time.time() + settings.EMAIL_VERIFICATION_SECONDS + 5
    monkeypatch.setattr(signing.time, "time", lambda: later)
    assert client.post(url).status_code == 400
    assert not get_user_model().objects.get(username="newcomer").is_active


def test_a_forged_or_foreign_token_confirms_nothing(client):
    sign_up(client)
    user = get_user_model().objects.get(username="newcomer")
    forged = signing.dumps({"u": user.pk, "s": "0" * 32}, salt=verification.SALT)
    other_purpose = signing.dumps({"u": user.pk}, salt="something-else")
    for token in (forged, other_purpose, "not-a-token"):
        response = client.post(reverse("confirm-email", args=[token]))
        assert response.status_code == 400
    assert not get_user_model().objects.get(pk=user.pk).is_active


def test_the_link_of_an_address_since_changed_is_void(client):
    sign_up(client)
    url = reverse("confirm-email", args=[token_in(mail.outbox[0])])
    get_user_model().objects.filter(username="newcomer").update(
        email="someone-else@example.org"
    )
    assert client.post(url).status_code == 400


@override_settings(SIGNUP_MAX_PER_ADDRESS=2)
def test_sign_ups_per_address_are_limited(client):
    assert sign_up(client, "one").status_code == 302
    assert sign_up(client, "two").status_code == 302
    third = sign_up(client, "three")
    assert third.status_code == 429
    assert "Too many accounts were created from your address" in (
        third.content.decode()
    )
    assert not get_user_model().objects.filter(username="three").exists()
    assert sign_up(client, "four", address="198.51.100.9").status_code == 302


def test_accounts_made_by_staff_and_commands_are_verified(db):
    user = create_account(username="made", password=PASSWORD)
    assert (user.is_active, user.profile.email_verified) == (True, True)


def test_unconfirmed_accounts_are_purged_after_the_link_expires(client, settings):
    sign_up(client, "stale")
    sign_up(client, "fresh")
    made = create_account(username="deactivated", password=PASSWORD)
    made.is_active = False  # staff deactivated a confirmed account: kept
    made.save()
    old = timezone.now() - timedelta(seconds=settings.EMAIL_VERIFICATION_SECONDS + 60)
    get_user_model().objects.filter(username__in=["stale", "deactivated"]).update(
        date_joined=old
    )
    out = io.StringIO()
    call_command("purge_unconfirmed_accounts", stdout=out)
    assert out.getvalue().strip() == "Deleted 1 unconfirmed account(s)."
    left = set(get_user_model().objects.values_list("username", flat=True))
    assert left == {"fresh", "deactivated"}
    assert sign_up(client, "stale").status_code == 302  # the name is free again
