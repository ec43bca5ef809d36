"""Acceptance (issue 17): a reader posts feedback on a registered challenge, the
organizer answers, a chair hides another comment, and anyone reads the thread
without signing in."""

import pytest
from django.core import mail

from audit.models import AuditEvent
from registry.registration import register_challenge
from tests.browser.helpers import sign_in
from tests.factories import CallFactory, ChallengeFactory, TaskFactory, UserFactory
from tests.registry.helpers import fill_proposal

pytestmark = pytest.mark.django_db(transaction=True)


def registered_challenge():
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="carla")
    call.chairs.add(chair)
    olga = UserFactory(username="olga")
    UserFactory(username="rita")
    challenge = ChallengeFactory(call=call, owner=olga, name="Decathlon 2027")
    TaskFactory(challenge=challenge, name="Brain")
    fill_proposal(challenge, olga)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


def comment(page, category, text):
    page.select_option("#feedback-category", category)
    page.fill("#feedback-text", text)
    page.click("#feedback-form button[type=submit]")
    page.wait_for_selector(f"#feedback-thread li:has-text({text!r})")


def thread_item(page, username, thread, index):
    """The `index`-th comment of the thread as `username` sees it."""
    sign_in(page, username)
    page.goto(thread)
    return page.locator("#feedback-thread > li").nth(index)


def test_feedback_thread_answer_moderation_and_public_read(page):
    registration = registered_challenge()
    identifier = registration.identifier
    thread = f"/registry/{identifier}/feedback/"

    # a signed-in reader finds the thread from the public page and comments twice
    sign_in(page, "rita")
    page.goto(f"/registry/{identifier}/")
    page.click("#feedback-link")
    page.wait_for_url(f"**{thread}")
    comment(page, "annotations", "Case 17 of the test set has the wrong label.")
    comment(page, "design", "This design is rubbish and so are you.")
    assert page.locator("[data-answer-form]").count() == 0  # readers do not answer
    assert page.locator("[data-hide-form]").count() == 0
    assert len(mail.outbox) == 2  # the organizer heard of both

    # the organizer answers the first comment publicly
    first = thread_item(page, "olga", thread, 0)
    first.locator("textarea[name=text]").fill("Thanks, the label is fixed in data v2.")
    first.locator("button[type=submit]").click()
    page.wait_for_selector("[data-answer]")

    # a chair of the call hides the second comment with a reason
    second = thread_item(page, "carla", thread, 1)
    second.locator("input[name=reason]").fill("Personal attack, not about the design.")
    second.locator("button:has-text('Hide')").click()
    page.wait_for_selector("[data-hidden=yes]")

    # a reader without an account sees the whole thread
    page.context.clear_cookies()
    page.goto(thread)
    text = page.locator("#feedback-thread").inner_text()
    assert "Case 17 of the test set has the wrong label." in text
    assert "Thanks, the label is fixed in data v2." in text
    assert "Personal attack, not about the design." in text
    assert "rubbish" not in text
    assert page.locator("#feedback-form").count() == 0
    assert page.locator("a:has-text('Sign in')").count() >= 1
    hide = AuditEvent.objects.get(action="feedback.hide")
    assert hide.details["reason"] == "Personal attack, not about the design."
    assert hide.actor_name == "carla"
