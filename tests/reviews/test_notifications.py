"""E-mails of the review workflow, sent after the commit."""

import datetime as dt

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from reviews import services
from reviews.models import Assignment
from tests.factories import UserFactory
from tests.reviews.conftest import assign_reviewer, decide_revision

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


IN_A_MONTH = dt.date.today() + dt.timedelta(days=30)  # due dates are never past


def review(world, user):
    return services.submit_review(
        challenge=world.challenge,
        actor=user,
        recommendation="major_revision",
        confidence=4,
        comments="Needs work.",
    )


def test_assignment_mails_the_reviewer_with_the_due_date(world, on_commit):
    with on_commit():
        assign_reviewer(world, world.tech1, due=IN_A_MONTH)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["tina@example.org"]
    assert message.subject == "Review request: Decathlon"
    assert IN_A_MONTH.isoformat() in message.body
    assert f"/api/v1/challenges/{world.challenge.pk}/" in message.body


def test_refused_assignment_sends_nothing(world, on_commit):
    with on_commit(), pytest.raises(services.ReviewConflictError):
        assign_reviewer(world, world.organizer)
    assert mail.outbox == []


def test_submitted_review_mails_the_chairs(under_review, on_commit):
    second_chair = UserFactory(username="chair2")
    under_review.call.chairs.add(second_chair)
    with on_commit():
        review(under_review, under_review.tech1)
    assert len(mail.outbox) == 1
    assert sorted(mail.outbox[0].to) == ["chair2@example.org", "chair@example.org"]
    assert "Major revision" in mail.outbox[0].body


def test_decision_mails_organizers_with_the_letter(under_review, on_commit):
    co = UserFactory(username="cora")
    under_review.challenge.co_organizers.add(co)
    with on_commit():
        decide_revision(under_review, "Please add a missing-data rule & a tie rule.")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert sorted(message.to) == ["cora@example.org", "olga@example.org"]
    assert "Please add a missing-data rule & a tie rule." in message.body
    assert "REVISION" in message.body
    for name in ("tina", "tom", "clara"):
        assert name not in message.body


def test_resubmission_mails_the_reviewers_but_not_who_declined(under_review, on_commit):
    for user in (under_review.tech1, under_review.clinical):
        review(under_review, user)
    services.decline_assignment(
        assignment=Assignment.objects.get(reviewer=under_review.tech2),
        actor=under_review.tech2,
        reason="Busy.",
    )
    decide_revision(under_review, "Revise.")
    with on_commit():
        services.resubmit_challenge(
            challenge=under_review.challenge,
            actor=under_review.organizer,
            response="We revised section 4.",
        )
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert sorted(message.to) == ["clara@example.org", "tina@example.org"]
    assert "We revised section 4." in message.body
    assert "diff/?from=1&to=2" in message.body
    assert set(
        under_review.challenge.assignments.values_list("reviewer__username", "status")
    ) == {("tina", "assigned"), ("clara", "assigned"), ("tom", "declined")}


def test_reminder_command_mails_reviews_due_within_days(under_review):
    today = timezone.localdate()
    Assignment.objects.filter(reviewer=under_review.tech1).update(
        due=today + dt.timedelta(days=2)
    )
    Assignment.objects.filter(reviewer=under_review.tech2).update(
        due=today + dt.timedelta(days=10)
    )
    Assignment.objects.filter(reviewer=under_review.clinical).update(
        due=today + dt.timedelta(days=1)
    )
    review(under_review, under_review.clinical)  # done: no reminder
    mail.outbox.clear()
    call_command("send_review_reminders", "--days", "3")
    assert [m.to for m in mail.outbox] == [["tina@example.org"]]
    assert mail.outbox[0].subject.startswith("Reminder: review of Decathlon due")


def test_every_link_of_every_review_mail_starts_with_site_url(
    under_review, on_commit, settings
):
    """SITE_URL, not the loopback default, in every link of the workflow mails."""
    from tests.links import urls_in

    settings.SITE_URL = "https://registry.example.org/"  # the slash is dropped
    with on_commit():
        review(under_review, under_review.tech1)
        decide_revision(under_review)
    assert len(mail.outbox) >= 2
    links = [url for message in mail.outbox for url in urls_in(message.body)]
    assert links
    assert all(u.startswith("https://registry.example.org/") for u in links), links
