"""Attack: audit rows that name nobody (issue 30: rows with ``actor_id = NULL``
and no name were inserted). Every event names its actor: a username, or the
system or anonymous marker; the ORM refuses an event without one, and so does
the database (a CHECK constraint, on SQLite and PostgreSQL), for raw SQL."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, connection, transaction

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


INSERT = (
    "INSERT INTO audit_auditevent "
    "(actor_id, actor_name, action, target_type, target_id, details, created) "
    "VALUES (NULL, %s, 'x.y', 't', '1', '{}', CURRENT_TIMESTAMP)"
)


@pytest.mark.parametrize("name", ["", "   "])
def test_the_database_refuses_an_event_naming_nobody(name):
    with (
        pytest.raises(IntegrityError, match="audit_event_names_its_actor"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(INSERT, [name])
    assert AuditEvent.objects.count() == 0


def test_the_database_accepts_an_event_with_the_system_marker():
    with connection.cursor() as cursor:
        cursor.execute(INSERT, [SYSTEM_ACTOR])
    assert AuditEvent.objects.get().actor_name == SYSTEM_ACTOR
