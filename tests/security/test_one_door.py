"""Attack: change a registered design other than through an approved amendment."""

import json

import pytest
from django.db import connection, transaction

from audit.models import AuditEvent
from registry.amendments import approve_amendment, propose_amendment
from registry.lock import RegisteredDataError, registered_changes_allowed
from registry.models import Answer, Task
from tests.analysis.django.conftest import SCHEME
from tests.factories import UserFactory
from tests.records import assert_sql_refused
from tests.security.test_record_rewrite import amend_to_holm

pytestmark = pytest.mark.django_db

HALF_ALPHA = {**SCHEME, "test": {**SCHEME["test"], "alpha": 0.5}}


def brain(registration) -> Task:
    return registration.challenge.tasks.get(name="Brain")


def refused_attempts() -> list[str]:
    return list(
        AuditEvent.objects.filter(action="registration.change_refused").values_list(
            "target_type", flat=True
        )
    )


def test_orm_save_of_a_registered_scheme_is_refused(registration):
    task = brain(registration)
    task.scheme = HALF_ALPHA
    with pytest.raises(RegisteredDataError, match="approved amendment"):
        task.save()
    task.refresh_from_db()
    assert task.scheme["test"]["alpha"] == 0.05


def test_orm_bulk_update_and_delete_are_refused(registration):
    answers = Answer.objects.filter(challenge=registration.challenge, number=5)
    with pytest.raises(RegisteredDataError):
        answers.update(value="changed")
    with pytest.raises(RegisteredDataError):
        answers.delete()
    with pytest.raises(RegisteredDataError):
        brain(registration).delete()
    challenge = registration.challenge
    challenge.name = "Renamed"
    with pytest.raises(RegisteredDataError):
        challenge.save()


def test_admin_edit_of_a_registered_answer_is_refused_and_audited(client, registration):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    answer = Answer.objects.get(challenge=registration.challenge, task=None, number=5)
    response = client.post(
        f"/admin/registry/answer/{answer.pk}/change/",
        {
            "challenge": answer.challenge_id,
            "task": "",
            "number": 5,
            "value": json.dumps("Changed in the admin"),
            "not_applicable": "",
            "updated_by": "",
        },
    )
    assert response.status_code == 409
    assert "approved amendment" in response.content.decode()
    answer.refresh_from_db()
    assert answer.value != "Changed in the admin"
    assert refused_attempts() == ["registry.answer"]
    assert AuditEvent.objects.get(action="registration.change_refused").actor == admin


def test_api_edit_of_a_registered_scheme_is_refused(organizer_api, registration):
    task = brain(registration)
    response = organizer_api.patch(
        f"/api/v1/tasks/{task.pk}/", {"scheme": HALF_ALPHA}, format="json"
    )
    assert response.status_code in (403, 409)
    task.refresh_from_db()
    assert task.scheme["test"]["alpha"] == 0.05


def test_approved_amendment_still_changes_the_design(registration, organizer, chair):
    version = amend_to_holm(registration, organizer, chair)
    assert version.number == 2
    assert brain(registration).scheme["test"]["p_adjust"] == "holm"


def test_amendment_version_with_a_smuggled_change_is_refused(
    registration, organizer, chair
):
    # The attack of issue 12: a scheme edited behind the registry's back leaked
    # into the next amendment version without appearing in its diff.
    task = brain(registration)
    with registered_changes_allowed():  # as if the lock had been bypassed
        task.scheme = HALF_ALPHA
        task.save()
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="A better description.",
        changes={"challenge": {"5": "A new description."}},
    )
    with pytest.raises(RegisteredDataError, match=r"Brain: Ranking scheme"):
        approve_amendment(amendment=amendment, actor=chair)
    assert registration.versions.count() == 1
    amendment.refresh_from_db()
    assert amendment.status == "pending"


def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")


@pytest.mark.postgres
def test_postgres_triggers_refuse_raw_sql_on_registered_design(registration):
    postgres_only()
    challenge = registration.challenge.pk
    assert_sql_refused(
        "approved amendment",
        f"UPDATE registry_task SET scheme = '{{}}' WHERE challenge_id = {challenge}",
        f"DELETE FROM registry_task WHERE challenge_id = {challenge}",
        f"UPDATE registry_answer SET value = '\"x\"' WHERE challenge_id = {challenge}",
        f"DELETE FROM registry_answer WHERE challenge_id = {challenge}",
        f"INSERT INTO registry_answer (challenge_id, number, value, not_applicable, "
        f"updated) VALUES ({challenge}, 53, '\"x\"', '', now())",
        f"UPDATE registry_challenge SET name = 'x' WHERE id = {challenge}",
    )


@pytest.mark.postgres
def test_postgres_triggers_let_bookkeeping_and_amendments_through(registration):
    postgres_only()
    challenge = registration.challenge.pk
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE registry_answer SET updated_by_id = NULL "
            f"WHERE challenge_id = {challenge}"
        )
        with transaction.atomic(), registered_changes_allowed():
            cursor.execute(
                "UPDATE registry_answer SET value = '\"ok\"' "
                f"WHERE challenge_id = {challenge} AND number = 5 AND task_id IS NULL"
            )
    answer = Answer.objects.get(challenge_id=challenge, task=None, number=5)
    assert answer.value == "ok"


@pytest.mark.postgres
def test_postgres_audit_table_is_append_only(registration):
    postgres_only()
    assert AuditEvent.objects.exists()
    assert_sql_refused(
        "append-only",
        "UPDATE audit_auditevent SET action = 'x'",
        "DELETE FROM audit_auditevent",
    )
