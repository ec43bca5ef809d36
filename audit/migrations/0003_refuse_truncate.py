"""On PostgreSQL, TRUNCATE is refused too (issue 30: the audit table had been
emptied with TRUNCATE, which row triggers do not see). Audit events are
append-only; a statement trigger refuses TRUNCATE as the row triggers refuse
UPDATE and DELETE."""

from django.db import migrations

TABLES = ("audit_auditevent",)
FUNCTION = "audit_refuse_truncate"

CREATE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
BEGIN
    -- The test settings' connections set registry.test_flush (Django's test
    -- flush empties every table with TRUNCATE); no other connection does.
    IF current_setting('registry.test_flush', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'append-only: TRUNCATE of % is refused', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_FUNCTION, params=None)  # "%" is plpgsql
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}();"
        )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table};")
    schema_editor.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}();")


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_audit_append_only_trigger")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
