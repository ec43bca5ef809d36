"""Attack: rewrite the record on SQLite through the application (issue 30).

SQLite has no plpgsql triggers, so ``Model._base_manager.filter(...).update()``,
``.delete()`` and raw SQL through Django's connection rewrote registrations,
their versions, the chain-heads lists and the audit log unseen. Triggers now
refuse them unless ``record_guard_lifted()`` — registered on every connection
by the application (audit/record_guard.py) — says the test flush or a restore
is emptying the tables.
"""

import sqlite3

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from audit.models import AuditEvent
from audit.record_guard import record_guard_lifted
from audit.services import record
from registry.chain_heads import published_list
from registry.models import ChainHeadsList, Registration, RegistrationVersion
from tests.factories import UserFactory
from tests.records import assert_sql_refused

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "sqlite",
        reason="SQLite only (PostgreSQL: test_truncate.py, test_two_roles.py)",
    ),
]

GUARDED = {
    Registration: ("registration records", {"identifier": "forged"}),
    RegistrationVersion: ("registration records", {"canonical": "{}"}),
    ChainHeadsList: ("registration records", {"text": "forged"}),
    AuditEvent: ("audit events", {"action": "forged.action"}),
}
TRIGGERS = sorted(
    f"{model._meta.db_table}_append_only_{operation}"
    for model in GUARDED
    for operation in ("update", "delete")
)


@pytest.fixture
def record_rows(registration, chair):
    """A registration with its version and audit events, and a published list."""
    record(actor=chair, action="x.y", target=chair)
    published_list()
    for model in GUARDED:
        assert model._base_manager.exists()
    return registration


def trigger_names() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' "
            "AND name LIKE '%append_only%' ORDER BY name"
        )
        return [name for (name,) in cursor.fetchall()]


def test_the_record_tables_have_their_triggers():
    """A later migration that alters these models remakes the table without
    them: this fails until it creates them again."""
    assert trigger_names() == TRIGGERS


@pytest.mark.parametrize("model", GUARDED, ids=lambda model: model.__name__)
def test_base_manager_update_is_refused(record_rows, model):
    what, change = GUARDED[model]
    rows = model._base_manager.all()
    with (
        pytest.raises(IntegrityError, match=f"{what} are append-only"),
        transaction.atomic(),
    ):
        rows.update(**change)
    assert not model._base_manager.filter(**change).exists()


@pytest.mark.parametrize("model", GUARDED, ids=lambda model: model.__name__)
def test_base_manager_delete_is_refused(record_rows, model):
    what, _ = GUARDED[model]
    count = model._base_manager.count()
    deletes = [lambda: model._base_manager.all()._raw_delete(connection.alias)]
    if model in (AuditEvent, ChainHeadsList):  # nothing PROTECTs their rows
        deletes.append(lambda: model._base_manager.all().delete())
    for delete in deletes:
        with (
            pytest.raises(IntegrityError, match=f"{what} are append-only"),
            transaction.atomic(),
        ):
            delete()
    assert model._base_manager.count() == count


def test_raw_sql_through_django_is_refused(record_rows):
    assert_sql_refused(
        r"registration records are append-only \(UPDATE",
        "UPDATE registry_registrationversion SET canonical = '{}'",
        "UPDATE registry_registration SET identifier = 'x'",
        "UPDATE registry_chainheadslist SET text = 'x'",
    )
    assert_sql_refused(
        r"registration records are append-only \(DELETE",
        "DELETE FROM registry_registrationversion",
        "DELETE FROM registry_registration",
        "DELETE FROM registry_chainheadslist",
    )
    assert_sql_refused(
        r"audit events are append-only \(UPDATE",
        "UPDATE audit_auditevent SET action = 'x'",
        # the SET NULL door opens for the actor alone, nothing else beside it
        "UPDATE audit_auditevent SET actor_id = NULL, details = '{\"x\": 1}'",
        "UPDATE audit_auditevent SET actor_id = NULL, actor_name = 'someone'",
    )
    assert_sql_refused(
        r"audit events are append-only \(DELETE", "DELETE FROM audit_auditevent"
    )


def test_deleting_a_user_still_nulls_their_audit_actor(record_rows):
    user = UserFactory(username="leaving")
    event = record(actor=user, action="x.y", target=user)

    user.delete()

    event = AuditEvent.objects.get(pk=event.pk)
    assert (event.actor_id, event.actor_name, event.action) == (None, "leaving", "x.y")


def test_a_flush_is_refused_unless_the_settings_allow_it(record_rows, settings):
    settings.RECORD_FLUSH_ALLOWED = False
    with (
        pytest.raises(CommandError, match="couldn't be flushed"),
        transaction.atomic(),
    ):
        call_command("flush", "--noinput", verbosity=0)
    assert Registration.objects.count() == 1


def test_the_guard_is_lifted_only_inside_its_block(record_rows):
    with transaction.atomic(), record_guard_lifted(connection):
        RegistrationVersion._base_manager.update(canonical="{}")
        transaction.set_rollback(True)
    assert_sql_refused("append-only", "UPDATE registry_registration SET call_id = 0")


def test_a_connection_without_the_guard_function_is_refused(record_rows):
    """The sqlite3 shell or another program: refused, though whoever holds
    the file can drop the triggers (docs/security.md)."""
    other = sqlite3.connect(connection.settings_dict["NAME"], timeout=1)
    try:
        for statement in (
            "UPDATE registry_registrationversion SET canonical = '{}'",
            "DELETE FROM audit_auditevent",
        ):
            with pytest.raises(sqlite3.OperationalError, match="no such function"):
                other.execute(statement)
    finally:
        other.close()
