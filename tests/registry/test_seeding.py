"""`seed_registry`: seeded designs are what `register_challenge` would write."""

import json

import pytest
from django.core.management import CommandError, call_command

from registry.models import Registration, RegistrationListing
from registry.registration import registration_document, verify_registrations
from registry.search import listing_facts
from registry.seeding import SEED_PREFIX, insert_answers, seed_registry

pytestmark = pytest.mark.django_db


def test_seeded_designs_verify_and_match_the_registration_code():
    assert seed_registry(6, seed=3) == 6
    assert verify_registrations().problems == []
    registrations = Registration.objects.select_related("challenge", "call")
    assert len({r.identifier for r in registrations}) == 6
    assert len({r.challenge.name for r in registrations}) == 6
    for registration in registrations:
        version = registration.versions.get()
        stored = json.loads(version.canonical)
        again = registration_document(
            registration.challenge,
            identifier=registration.identifier,
            number=1,
            previous_sha256=None,
            created=stored["registered_at"],
            created_by=stored["registered_by"],
        )
        again["design"]["status"] = stored["design"]["status"]  # accepted then
        assert again == stored
        listing = RegistrationListing.objects.get(registration=registration)
        assert listing.task_count == listing_facts(stored).task_count
        assert 1 <= listing.task_count <= 5
        tasks = stored["design"]["tasks"]
        assert all(len(t["answers"]) == 38 for t in tasks)
        assert all(t["scheme"]["method"] for t in tasks)


def test_seeding_refuses_a_database_with_other_registrations(accepted, chair):
    from registry.registration import register_challenge

    register_challenge(challenge=accepted, actor=chair)
    with pytest.raises(CommandError, match="not made by the seeder"):
        call_command("seed_registry", "--count", "1")
    call_command("seed_registry", "--count", "1", "--force")
    assert Registration.objects.filter(call__slug__startswith=SEED_PREFIX).count() == 1


def test_seeded_answer_rows_are_the_rows_the_services_write(accepted, organizer, call):
    """On PostgreSQL the seeder writes answers with COPY: the same rows."""
    from registry.models import Answer
    from tests.factories import ChallengeFactory, TaskFactory

    copy = ChallengeFactory(call=call, owner=organizer, name="Copy")
    task = TaskFactory(challenge=copy, name="Brain")
    written = Answer.objects.filter(challenge=accepted).exclude(number=1)
    insert_answers(
        [(copy.pk, a.task_id and task.pk, a.number, a.value) for a in written],
        organizer,
    )

    def rows(challenge):
        return {
            (a.task is not None, a.number): (
                a.value,
                a.not_applicable,
                a.version,
                a.updated_by_id,
            )
            for a in Answer.objects.filter(challenge=challenge).exclude(number=1)
        }

    assert rows(copy) == rows(accepted)
    assert len(rows(copy)) > 50
