"""Attack: audit rows that name nobody (issue 30: rows with ``actor_id = NULL``
and no name were inserted). Every event names its actor: a username, or the
system or anonymous marker; the ORM refuses an event without one."""

import pytest
from django.contrib.auth.models import AnonymousUser

from audit.models import ANONYMOUS_ACTOR, SYSTEM_ACTOR, AuditEvent, AuditLogError
from audit.services import record

pytestmark = pytest.mark.django_db


def nameless(**fields) -> AuditEvent:
    return AuditEvent(
        actor=None, actor_name="", action="x.y", target_type="t", target_id="1",
        **fields,
    )  # fmt: skip


def test_an_event_without_an_actor_is_refused():
    with pytest.raises(AuditLogError, match="needs its actor's name"):
        nameless().save()
    with pytest.raises(AuditLogError, match="needs its actor's name"):
        AuditEvent.objects.bulk_create([nameless()])
    assert AuditEvent.objects.count() == 0


def test_events_no_person_caused_carry_a_marker(chair):
    assert record(actor=None, action="jobs.resume", target=chair).actor_name == (
        SYSTEM_ACTOR
    )
    visitor = record(actor=AnonymousUser(), action="feedback.read", target=chair)
    assert (visitor.actor_id, visitor.actor_name) == (None, ANONYMOUS_ACTOR)
    assert record(actor=chair, action="x.y", target=chair).actor_name == "chair"
