"""Backup and restore: dumpdata, an emptied database, loaddata, and the
registrations' hash chains still verify (append-only rows load as inserts)."""

import io
import json

import pytest
from django.core.management import call_command

from analysis.models import ResultsVersion
from audit.models import AuditEvent
from registry.amendments import approve_amendment, propose_amendment
from registry.models import Registration, RegistrationVersion

BACKUP_ARGS = (
    "--natural-foreign",
    "--exclude=contenttypes",
    "--exclude=auth.permission",
    "--exclude=admin.logentry",
    "--exclude=sessions",
)


@pytest.mark.django_db(transaction=True)
def test_backup_restore_round_trip_keeps_registrations_verifiable(
    registration, results, organizer, chair, tmp_path
):
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Better website.",
        changes={"challenge": {"2": "https://example.org/v2"}},
    )
    approve_amendment(amendment=amendment, actor=chair)
    before = {
        "versions": list(
            RegistrationVersion.objects.order_by("pk").values_list(
                "pk", "number", "sha256", "canonical"
            )
        ),
        "results": list(ResultsVersion.objects.values_list("pk", "sha256")),
        "events": AuditEvent.objects.count(),
    }
    backup = tmp_path / "backup.json"
    call_command("dumpdata", *BACKUP_ARGS, "--output", str(backup), verbosity=0)
    assert json.loads(backup.read_text())

    call_command("flush", "--noinput", verbosity=0)
    assert Registration.objects.count() == 0

    call_command("loaddata", str(backup), verbosity=0)
    out = io.StringIO()
    call_command("verify_registrations", stdout=out)

    assert out.getvalue().strip() == "OK: 1 registrations, 2 versions verified."
    after = {
        "versions": list(
            RegistrationVersion.objects.order_by("pk").values_list(
                "pk", "number", "sha256", "canonical"
            )
        ),
        "results": list(ResultsVersion.objects.values_list("pk", "sha256")),
        "events": AuditEvent.objects.count(),
    }
    assert after == before
