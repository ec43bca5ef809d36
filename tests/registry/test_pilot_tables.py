"""Pilot tables of attached test-set plans stored once as files by their
SHA-256 (registry.pilot_tables): designs keep the hash, size and case count;
plans attached before with the table inline keep working; registered versions
stay verifiable."""

import pytest
from django.core.management import CommandError, call_command

from registry.models import PilotTable, Task
from registry.pilot_table_checks import verify_pilot_tables
from registry.pilot_tables import with_stored_table
from registry.registration import register_challenge
from registry.test_set_plans import (
    compute_task_plan,
    plan_field_changes,
    plan_inputs,
    plan_view,
)
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_plan_pilot_upload import pilot_csv
from tests.registry.test_test_set_plans import SCHEME

pytestmark = pytest.mark.django_db

PILOT = {
    "model": {"kind": "pilot", "table": pilot_csv(), "task": "T1"},
    "n": [5, 10],
    "simulations": 20,
    "seed": 3,
}


@pytest.fixture
def inline_plan(call, organizer):
    """A pilot plan in the form attached before tables were stored."""
    draft = proposal_with_scheme(call, organizer, SCHEME)
    return compute_task_plan(task=draft.tasks.get(), inputs=PILOT)


def test_the_same_table_is_stored_once(inline_plan):
    first = with_stored_table(inline_plan)
    second = with_stored_table(inline_plan)
    assert first == second
    assert PilotTable.objects.count() == 1
    assert len(str(first)) < len(str(inline_plan)) - len(pilot_csv()) + 200


def test_a_plan_with_its_table_inline_still_reads_and_diffs(inline_plan):
    assert plan_inputs(inline_plan)["model"]["table"] == pilot_csv()
    stored = with_stored_table(inline_plan)
    assert plan_inputs(stored) == plan_inputs(inline_plan)
    assert (
        plan_view("T", stored, 10).footnote == plan_view("T", inline_plan, 10).footnote
    )
    assert plan_field_changes(inline_plan, stored) == (
        ("pilot table", "kept in the plan", "stored as a file, same SHA-256"),
    )


def test_a_registered_pilot_plan_is_verified_against_its_stored_table(
    accepted, chair, inline_plan
):
    Task.objects.filter(challenge=accepted).update(
        scheme=SCHEME, test_set_plan=with_stored_table(inline_plan)
    )
    registration = register_challenge(challenge=accepted, actor=chair)
    assert '"table_bytes"' in registration.versions.get().canonical
    assert pilot_csv() not in registration.versions.get().canonical
    assert verify_pilot_tables(None) == (1, [])
    call_command("verify_registrations")
    stored = PilotTable.objects.get()
    with open(stored.file.path, "a") as handle:
        handle.write("T1,extra,A,DSC,0.1\n")
    count, problems = verify_pilot_tables(None)
    assert count == 1
    assert [p.message for p in problems] == [
        f"pilot table of a test-set plan: {stored.file.name} does not match its "
        "recorded SHA-256"
    ]
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations")


@pytest.mark.django_db(transaction=True)
def test_backup_and_restore_bring_back_the_stored_table(
    accepted, chair, organizer, settings, tmp_path
):
    import io
    import json
    import shutil

    settings.MEDIA_ROOT = tmp_path / "media"
    draft = proposal_with_scheme(accepted.call, organizer, SCHEME)
    plan = with_stored_table(compute_task_plan(task=draft.tasks.get(), inputs=PILOT))
    Task.objects.filter(challenge=accepted).update(scheme=SCHEME, test_set_plan=plan)
    register_challenge(challenge=accepted, actor=chair)
    stored = PilotTable.objects.get()
    directory = tmp_path / "backup"
    call_command("backup", str(directory), stdout=io.StringIO())
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["media"][stored.file.name] == stored.sha256

    call_command("flush", "--noinput", verbosity=0)
    shutil.rmtree(settings.MEDIA_ROOT)
    call_command("restore", str(directory), stdout=io.StringIO())
    assert verify_pilot_tables(None) == (1, [])
    # Without the file, the restored site's verification names it.
    shutil.rmtree(settings.MEDIA_ROOT / "pilot-tables")
    problems = verify_pilot_tables(None)[1]
    assert [p.message for p in problems] == [
        f"pilot table of a test-set plan: {stored.file.name} is missing"
    ]
