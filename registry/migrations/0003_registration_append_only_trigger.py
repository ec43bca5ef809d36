"""On PostgreSQL, reject UPDATE and DELETE of registration rows in the database.

The ORM already refuses such writes; the trigger also stops raw SQL. Other
backends rely on the ORM guard only.
"""

from django.db import migrations

TABLES = ("registry_registration", "registry_registrationversion")

CREATE_FUNCTION = """
CREATE OR REPLACE FUNCTION registry_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'registration records are append-only (% on %)',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_FUNCTION, params=None)  # "%" is plpgsql, not a placeholder
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION registry_refuse_change();"
        )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};")
    schema_editor.execute("DROP FUNCTION IF EXISTS registry_refuse_change();")


class Migration(migrations.Migration):
    dependencies = [("registry", "0002_registration_amendments_task_scheme")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
