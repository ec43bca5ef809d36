"""Backup and restore: dumpdata, an emptied database, loaddata, and the
registrations' hash chains still verify (append-only rows load as inserts)."""

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.backups import load_dump
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


def stored_records() -> dict:
    """What a restore must bring back unchanged: the registration versions with
    their hashes, the results versions' hashes and the number of audit events."""
    return {
        "versions": list(
            RegistrationVersion.objects.order_by("pk").values_list(
                "pk", "number", "sha256", "canonical"
            )
        ),
        "results": list(ResultsVersion.objects.values_list("pk", "sha256")),
        "events": AuditEvent.objects.count(),
    }


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
    before = stored_records()
    backup = tmp_path / "backup.json"
    call_command("dumpdata", *BACKUP_ARGS, "--output", str(backup), verbosity=0)
    assert json.loads(backup.read_text())

    call_command("flush", "--noinput", verbosity=0)
    assert Registration.objects.count() == 0

    load_dump(backup)
    out = io.StringIO()
    call_command("verify_registrations", stdout=out)

    assert out.getvalue().strip() == "OK: 1 registrations, 2 versions verified."
    after = stored_records()
    assert after == before


@pytest.mark.django_db(transaction=True)
def test_backup_and_restore_commands_bring_back_a_working_site(
    registration, results, chair, settings, tmp_path
):
    from analysis.models import AnalysisRun
    from analysis.services import start_analysis
    from registry.canonical import file_sha256
    from tests.analysis.django.conftest import EXPLORATORY_SCHEME

    settings.MEDIA_ROOT = tmp_path / "media"
    run = start_analysis(results=results, actor=chair, scheme=EXPLORATORY_SCHEME)
    run.refresh_from_db()
    assert run.report
    assert run.status == "done"
    before = {
        "runs": list(AnalysisRun.objects.values_list("pk", "created", "report_sha256")),
        "versions": list(
            RegistrationVersion.objects.values_list("pk", "created", "sha256")
        ),
    }
    directory = tmp_path / "backup"
    call_command("backup", str(directory), stdout=io.StringIO())
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["media"] == {run.report.name: run.report_sha256}

    call_command("flush", "--noinput", verbosity=0)  # a fresh database …
    shutil.rmtree(settings.MEDIA_ROOT)  # … and empty media
    out = io.StringIO()
    call_command("restore", str(directory), stdout=out)

    assert "OK: 1 registrations, 1 versions verified." in out.getvalue()
    assert "1 report file(s) match their SHA-256." in out.getvalue()
    after = {
        "runs": list(AnalysisRun.objects.values_list("pk", "created", "report_sha256")),
        "versions": list(
            RegistrationVersion.objects.values_list("pk", "created", "sha256")
        ),
    }
    assert after == before  # to the microsecond
    restored = AnalysisRun.objects.get(pk=run.pk)
    assert file_sha256(Path(restored.report.path)) == run.report_sha256


@pytest.mark.django_db
def test_restore_refuses_a_damaged_backup_and_changes_nothing(
    registration, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    directory = tmp_path / "backup"
    call_command("backup", str(directory), stdout=io.StringIO())
    dump = next(p for p in directory.iterdir() if p.name.startswith("database"))
    dump.write_bytes(dump.read_bytes()[:-10])
    with pytest.raises(CommandError, match="The backup is damaged: 1 file"):
        call_command("restore", str(directory))
    assert Registration.objects.count() == 1
    with pytest.raises(CommandError, match="is not empty"):
        call_command("backup", str(directory))
