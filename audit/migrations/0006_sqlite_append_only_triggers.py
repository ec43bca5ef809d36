"""On SQLite, audit events are append-only in the database too (issue 30).

The triggers ask ``record_guard_lifted()``, a function the application
registers on each connection (audit/record_guard.py); it says 1 only while the
test flush or a restore empties the tables. Only Django's own update when a
user is deleted passes otherwise: ``actor_id`` set to NULL, every other column
unchanged (as 0002 on PostgreSQL). A connection without the function (the
``sqlite3`` shell) is refused with "no such function".

Django remakes a SQLite table to alter it, and the copy has no triggers: a
later migration that alters this model must create them again
(tests/security/test_record_rewrite_sqlite.py checks they are there).
"""

from django.db import migrations

TABLE = "audit_auditevent"
KEPT = ("id", "actor_name", "action", "target_type", "target_id", "details", "created")
ACTOR_NULLED = " AND ".join(
    ["NEW.actor_id IS NULL", *(f"NEW.{column} IS OLD.{column}" for column in KEPT)]
)
TRIGGERS = {
    f"{TABLE}_append_only_update": (
        f"BEFORE UPDATE ON {TABLE} FOR EACH ROW "
        f"WHEN NOT record_guard_lifted() AND NOT ({ACTOR_NULLED}) BEGIN "
        f"SELECT RAISE(ABORT, 'audit events are append-only (UPDATE on {TABLE})'); "
        "END"
    ),
    f"{TABLE}_append_only_delete": (
        f"BEFORE DELETE ON {TABLE} FOR EACH ROW "
        "WHEN NOT record_guard_lifted() BEGIN "
        f"SELECT RAISE(ABORT, 'audit events are append-only (DELETE on {TABLE})'); "
        "END"
    ),
}


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for name, body in TRIGGERS.items():
        schema_editor.execute(f"CREATE TRIGGER {name} {body};")


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for name in TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name};")


class Migration(migrations.Migration):
    dependencies = [("audit", "0005_test_flush_only_in_test_databases")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
