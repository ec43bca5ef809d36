"""Sensitive actions leave audit events; staff read them, nobody edits them."""

import pytest

from analysis import ingest
from audit.models import AuditEvent, AuditLogError
from registry.amendments import propose_amendment, reject_amendment
from registry.registration import register_challenge
from reviews import services as review_services
from tests.analysis.django.conftest import small_results_csv as results_csv
from tests.factories import CallFactory, UserFactory
from tests.records import assert_orm_refuses_changes
from tests.reviews.conftest import submitted_proposal

pytestmark = pytest.mark.django_db


@pytest.fixture
def call():
    return CallFactory(slug="miccai-2027")


def test_audit_log_records_the_life_of_a_challenge(call, chair):
    organizer, reviewer = UserFactory(username="olga"), UserFactory(username="rex")
    challenge = submitted_proposal(organizer, call)

    review_services.assign_reviewer(
        challenge=challenge, reviewer=reviewer, role="technical", actor=chair
    )
    review_services.decide(
        confirm=True,  # fewer reviews than the call requires
        challenge=challenge,
        actor=chair,
        decision="accept",
        letter="Welcome.",
    )
    registration = register_challenge(challenge=challenge, actor=chair)
    ingest.commit_results(
        registration=registration,
        table=ingest.parse_upload("r.csv", results_csv(cases=3)),
        original_name="r.csv",
        actor=organizer,
    )
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Typo.",
        changes={"challenge": {"2": "https://example.org/better"}},
    )
    reject_amendment(amendment=amendment, actor=chair, note="No.")

    events = list(
        AuditEvent.objects.order_by("id").values_list(
            "actor_name", "action", "target_type", "details"
        )
    )
    assert events == [
        ("chair", "review.assign", "reviews.assignment", {"role": "technical"}),
        ("chair", "review.decide", "reviews.decision", {"decision": "accept"}),
        ("chair", "registration.register", "registry.registration", {}),
        ("olga", "results.commit", "analysis.resultsversion", {"rows": 9}),
        ("olga", "amendment.propose", "registry.amendment", {}),
        ("chair", "amendment.reject", "registry.amendment", {}),
    ]
    assert AuditEvent.objects.get(action="registration.register").target_id == str(
        registration.pk
    )


def test_audit_event_cannot_be_changed_or_deleted(chair):
    from audit.services import record

    event = record(actor=chair, action="review.decide", target=chair, decision="x")
    event.action = "nothing"
    assert_orm_refuses_changes(event, AuditLogError, action="nothing")
    assert AuditEvent.objects.get().action == "review.decide"


def test_audit_admin_is_readable_by_staff_only(client, chair):
    from audit.services import record

    record(actor=chair, action="review.decide", target=chair, decision="accept")
    url = "/admin/audit/auditevent/"
    client.force_login(chair)
    assert client.get(url).status_code == 302  # not staff: sent to the admin login

    staff = UserFactory(username="sam", is_staff=True)
    client.force_login(staff)
    listing = client.get(url)
    assert listing.status_code == 200
    assert "review.decide" in listing.content.decode()
    event = AuditEvent.objects.get()
    assert client.get(f"{url}add/").status_code == 403
    assert client.post(f"{url}{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"{url}{event.pk}/change/", {"action": "x"}).status_code == 403
    assert AuditEvent.objects.get().action == "review.decide"
