"""On SQLite, registrations, their versions and the chain-heads lists are
append-only in the database too (issue 30).

As 0003 and 0016 on PostgreSQL, UPDATE and DELETE are refused, here unless
``record_guard_lifted()`` — a function the application registers on each
connection (audit/record_guard.py) — says 1, which it does only while the
test flush or a restore empties the tables. A connection without the function
(the ``sqlite3`` shell) is refused with "no such function". The registered-
design lock (0006) stays PostgreSQL's; the models guard it here.

Django remakes a SQLite table to alter it, and the copy has no triggers: a
later migration that alters these models must create them again
(tests/security/test_record_rewrite_sqlite.py checks they are there).
"""

from django.db import migrations

TABLES = (
    "registry_registration",
    "registry_registrationversion",
    "registry_chainheadslist",
)
OPERATIONS = ("UPDATE", "DELETE")


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in TABLES:
        for operation in OPERATIONS:
            message = f"registration records are append-only ({operation} on {table})"
            schema_editor.execute(
                f"CREATE TRIGGER {table}_append_only_{operation.lower()} "
                f"BEFORE {operation} ON {table} FOR EACH ROW "
                f"WHEN NOT record_guard_lifted() BEGIN "
                f"SELECT RAISE(ABORT, '{message}'); END;"
            )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in TABLES:
        for operation in OPERATIONS:
            schema_editor.execute(
                f"DROP TRIGGER IF EXISTS {table}_append_only_{operation.lower()};"
            )


class Migration(migrations.Migration):
    dependencies = [("registry", "0017_test_flush_only_in_test_databases")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
