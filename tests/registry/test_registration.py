import hashlib
import json

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from django.db import connection

from audit.record_guard import record_guard_lifted
from registry import services
from registry.canonical import canonical_json_bytes
from registry.models import ImmutableRecordError, Registration
from registry.registration import register_challenge, verify_all_registrations
from tests.factories import CallFactory, ChallengeFactory, UserFactory
from tests.records import assert_orm_refuses_changes, assert_sql_refused

pytestmark = pytest.mark.django_db


def test_register_freezes_version_one_with_identifier_and_hash(accepted, chair):
    registration = register_challenge(challenge=accepted, actor=chair)
    accepted.refresh_from_db()
    assert registration.identifier == "miccai-2027-001"
    assert accepted.status == "registered"
    version = registration.versions.get()
    data = version.canonical.encode("utf-8")
    assert hashlib.sha256(data).hexdigest() == version.sha256
    document = json.loads(data)
    assert canonical_json_bytes(document) == data
    assert document["identifier"] == "miccai-2027-001"
    assert document["version"] == 1
    assert document["previous_sha256"] is None
    assert document["registered_by"] == "chair"
    assert document["design"]["tasks"][0]["name"] == "Brain"
    assert len(document["design"]["tasks"][0]["answers"]) == 38


def test_identifiers_count_up_per_call(accepted, chair, organizer, call):
    register_challenge(challenge=accepted, actor=chair)
    second = ChallengeFactory(call=call, owner=organizer, status="accepted")
    other_call = CallFactory(slug="isbi-2027")
    third = ChallengeFactory(call=other_call, owner=organizer, status="accepted")
    assert register_challenge(challenge=second, actor=organizer).identifier == (
        "miccai-2027-002"
    )
    assert register_challenge(challenge=third, actor=organizer).identifier == (
        "isbi-2027-001"
    )


def test_only_accepted_proposals_by_chair_or_organizers(accepted, call):
    with pytest.raises(PermissionDenied):
        register_challenge(challenge=accepted, actor=UserFactory())
    draft = ChallengeFactory(call=call)
    with pytest.raises(services.TransitionError, match="Only accepted"):
        register_challenge(challenge=draft, actor=draft.owner)
    assert Registration.objects.count() == 0


def test_orm_refuses_to_change_or_delete_versions(accepted, chair):
    registration = register_challenge(challenge=accepted, actor=chair)
    version = registration.versions.get()
    version.canonical = "{}"
    assert_orm_refuses_changes(version, ImmutableRecordError, canonical="{}")
    with pytest.raises(ImmutableRecordError):
        registration.delete()


def test_verify_registrations_passes_and_catches_tampering(accepted, chair):
    register_challenge(challenge=accepted, actor=chair)
    call_command("verify_registrations")
    assert verify_all_registrations() == []
    table = "registry_registrationversion"
    # on SQLite, as whoever holds the file can (drop the triggers)
    with record_guard_lifted(connection), connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # a DBA can switch the trigger off
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
        cursor.execute(
            f"UPDATE {table} SET canonical = replace(canonical, 'Brain', 'Heart')"
        )
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {table}_append_only")
    problems = verify_all_registrations()
    assert [p.message for p in problems] == [
        "stored SHA-256 does not match the canonical bytes"
    ]
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations")


@pytest.mark.postgres
def test_postgres_trigger_rejects_raw_update_and_delete(accepted, chair):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    register_challenge(challenge=accepted, actor=chair)
    assert_sql_refused(
        "append-only",
        "UPDATE registry_registrationversion SET canonical = '{}'",
        "DELETE FROM registry_registrationversion",
        "UPDATE registry_registration SET identifier = 'x'",
    )
    assert verify_all_registrations() == []
